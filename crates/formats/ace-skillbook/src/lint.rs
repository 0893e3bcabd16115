//! kayba 0.13's rules for a v2 skill, as findings: what its loader
//! changes, and what it refuses (`ace/core/skillbook.py`).

use std::collections::HashSet;

use ace_jsonspan::{Kind, Member, Node};
use ace_model::{rules, Diagnostic, Span};

/// The sections a v2 skill may be in.
const SECTIONS: [&str; 2] = ["context", "harness"];

/// The v2 section kayba reads `s` as (stripped, lower-cased), if it is
/// one; `None` for a legacy section, which kayba files under `context`.
pub(crate) fn section(s: &str) -> Option<&'static str> {
    let lower = s.trim().to_lowercase();
    SECTIONS.into_iter().find(|x| *x == lower)
}

/// kayba's `_normalize_keyword`: stripped, lower-cased, each run of white
/// space one `_`; `None` when nothing is left.
pub(crate) fn keyword(s: &str) -> Option<String> {
    let lower = s.trim().to_lowercase();
    if lower.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(lower.len());
    let mut space = false;
    for c in lower.chars() {
        if c.is_whitespace() {
            if !space {
                out.push('_');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    Some(out)
}

/// kayba's `_normalize_keywords`: each normalised, empty ones and repeats
/// left out, in order.
pub(crate) fn keywords<'a>(words: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for w in words {
        if let Some(k) = keyword(w) {
            if seen.insert(k.clone()) {
                out.push(k);
            }
        }
    }
    out
}

fn warn(span: Span, message: String) -> Diagnostic {
    Diagnostic::new(&rules::SKILLBOOK_V2, span, message)
}

/// The findings of v2 skill `fields`; `opens`: where the skill opens.
pub(crate) fn check_skill(fields: &[Member], opens: Span, diags: &mut Vec<Diagnostic>) {
    let get = |k: &str| fields.iter().rev().find(|f| f.key == k).map(|f| &f.value);
    if let Some((v, s)) = get("section").and_then(|v| Some((v, v.as_str()?))) {
        match section(s) {
            None => diags.push(warn(
                v.span,
                format!("kayba 0.13 has two sections, `context` and `harness`: it reads `{}` as `context` and puts `{}` first in the keywords", s.trim(), keyword(s).unwrap_or_default()),
            )),
            Some(kayba) if kayba != s => diags.push(warn(
                v.span,
                format!("kayba reads this section as `{kayba}`"),
            )),
            Some(_) => {}
        }
    }
    if let Some(v) = get("keywords") {
        let items = v.as_array().unwrap_or_default();
        let mut seen: HashSet<String> = HashSet::new();
        for item in items {
            let Some(w) = item.as_str() else { continue };
            match keyword(w) {
                None => diags.push(warn(item.span, "an empty keyword: kayba drops it".into())),
                Some(k) if seen.contains(&k) => diags.push(warn(
                    item.span,
                    format!("keyword `{k}` is already listed: kayba keeps it once"),
                )),
                Some(k) => {
                    if k != w {
                        diags.push(warn(
                            item.span,
                            format!("kayba reads this keyword as `{k}`"),
                        ));
                    }
                    seen.insert(k);
                }
            }
        }
        if seen.is_empty() && v.as_array().is_some() {
            diags.push(warn(
                v.span,
                "no keywords: kayba fills them with the section's name".into(),
            ));
        }
    }
    match get("issue").map(|v| (v, &v.kind)) {
        Some((v, Kind::String(s))) if s.trim().is_empty() => diags.push(Diagnostic::new(
            &rules::SKILLBOOK_SHAPE,
            v.span,
            "an empty `issue`: kayba 0.13 refuses to load the skillbook (`issue is required and must be non-empty`)",
        )),
        Some((v, Kind::String(s))) if s.trim() != s => {
            diags.push(warn(v.span, "kayba strips the white space around the issue".into()))
        }
        _ => {}
    }
    let insight = get("insight").and_then(Node::as_str).map(str::trim);
    if let Some(v) = get("insight").filter(|_| insight.is_some_and(|i| i.is_empty())) {
        diags.push(warn(
            v.span,
            "an empty insight: kayba reads it as none".into(),
        ));
    }
    let is_context = get("section").and_then(Node::as_str).and_then(section) == Some("context");
    if is_context && insight.is_none_or(str::is_empty) {
        diags.push(warn(
            get("insight").map_or(opens, |v| v.span),
            "a `context` skill without an insight: kayba loads it, but its `update_skill` refuses to change it (`context skills require a non-empty insight`)".into(),
        ));
    }
    if let Some(f) = fields.iter().find(|f| f.key == "embedding") {
        diags.push(warn(
            f.key_span,
            "kayba 0.12 and later keep embeddings in `<stem>.embeddings.npz`, not in the JSON: it drops this on load".into(),
        ));
    }
    if let Some(v) = get("occurrences") {
        if v.as_array().is_none() {
            diags.push(warn(
                v.span,
                "`occurrences` is a list of insight sources: kayba drops this".into(),
            ));
        }
    }
    if let Some(v) = get("used_count") {
        if !matches!(&v.kind, Kind::Number(n) if !n.contains(['.', 'e', 'E'])) {
            diags.push(Diagnostic::new(
                &rules::SKILLBOOK_SHAPE,
                v.span,
                "`used_count` is an integer count",
            ));
        }
    }
    for f in fields {
        if !crate::V2_KEYS.contains(&f.key.as_str()) && f.key != "embedding" {
            diags.push(warn(
                f.key_span,
                format!(
                    "`{}` is not a key of a v2 skill: kayba drops it on load",
                    f.key
                ),
            ));
        }
    }
}
