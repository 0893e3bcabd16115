//! kayba 0.13's normalisations of a v2 skill's section and keywords
//! (`ace/core/skillbook.py`), which its loader applies.

use std::collections::HashSet;

/// The sections a v2 skill may be in.
const SECTIONS: [&str; 2] = ["context", "harness"];

/// The v2 section kayba reads `s` as (stripped, lower-cased), if it is
/// one; `None` for a legacy section, which kayba files under `context`.
pub(crate) fn section(s: &str) -> Option<&'static str> {
    if let Some(exact) = SECTIONS.into_iter().find(|x| *x == s) {
        return Some(exact);
    }
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
    // A skill's few keywords are told apart by a search; the set is made
    // only past them.
    let mut seen: HashSet<String> = HashSet::new();
    for w in words {
        let normal = match is_normal_keyword(w) {
            true => Some(w.to_owned()),
            false => keyword(w),
        };
        let Some(k) = normal else { continue };
        let new = if out.len() < 16 {
            !out.contains(&k)
        } else {
            if seen.is_empty() {
                seen.extend(out.iter().cloned());
            }
            seen.insert(k.clone())
        };
        if new {
            out.push(k);
        }
    }
    out
}

/// Whether kayba's keyword normalisation gives `w` back unchanged, told
/// without making it.
pub(crate) fn is_normal_keyword(w: &str) -> bool {
    !w.is_empty()
        && w.bytes().all(|b| {
            b.is_ascii() && !b.is_ascii_uppercase() && !b.is_ascii_whitespace() && b != 0x0b
        })
}
