//! The parts of reading a skill playbook that both reads share: the
//! wrapper, a bullet into an entry, the generation notes and schema
//! checks, and the finished read.
//!
//! A value goes into a model field only when the writer gives it back byte
//! for byte; anything else (a `scope` object with other keys first, evidence
//! of an unexpected shape, a count written `3.0`) stays under its key in the
//! entry's `extra`. Either way nothing is lost, and the schema checks report
//! the deviation.

use ace_jsonspan::{Kind, Member, Node};
use ace_model::{
    rules, Confidence, ConfidenceLevel, Diagnostic, Entry, Evidence, EvidenceRef, Playbook,
    ReadOutput, Scope, ScopeDetail, Span, Status,
};

use crate::checks;
use crate::{layout, LAYOUT_KEY};

/// The checks of what stands around the bullets: metadata counts and the
/// wrapper's timestamps.
pub(crate) fn wrapper_checks(root: &Node, entries: &[Entry], diags: &mut Vec<Diagnostic>) {
    if let Some(meta) = root.get("metadata") {
        check_metadata(meta, entries, diags);
    }
    if let Some(n) = root.get("last_updated") {
        checks::check_timestamp(n, "last_updated", diags);
    }
    if let Some(n) = root.get("metadata").and_then(|m| m.get("last_curated")) {
        checks::check_timestamp(n, "metadata.last_curated", diags);
    }
}

/// The read playbook with its layout, and the diagnostics in report order.
pub(crate) fn finish(
    mut pb: Playbook,
    mut layout: layout::Layout,
    mut diags: Vec<Diagnostic>,
) -> ReadOutput {
    split_metadata(&mut pb, &mut layout);
    pb.set_layout(LAYOUT_KEY, layout.to_value());
    diags.sort_by_key(|d| (d.span.start, d.code));
    ReadOutput {
        playbook: pb,
        diagnostics: diags,
    }
}

/// The keys of the skill spec's playbook object.
const WRAPPER_KEYS: [&str; 5] = [
    "version",
    "schema_version",
    "last_updated",
    "bullets",
    "metadata",
];

pub(crate) fn read_wrapper(
    members: &[Member],
    pb: &mut Playbook,
    layout: &mut layout::Layout,
    diags: &mut Vec<Diagnostic>,
) {
    for m in unique(members) {
        layout.keys.push(m.key.to_string());
        match (m.key.as_str(), &m.value.kind) {
            ("version", _) => pb.version = Some(m.value.to_value()),
            ("last_updated", Kind::String(s)) => pb.updated_at = Some(s.clone()),
            ("bullets", Kind::Array(_)) => {}
            ("bullets", _) => {
                diags.push(Diagnostic::new(
                    &rules::SKILL_SHAPE,
                    m.value.span,
                    format!(
                        "`bullets` should be an array of bullet objects, found {}; kept as an extra field",
                        m.value.type_name()
                    ),
                ));
                pb.extra.insert(m.key.to_string(), m.value.to_value());
            }
            (key, _) => {
                if !WRAPPER_KEYS.contains(&key) {
                    diags.push(Diagnostic::new(
                        &rules::UNKNOWN_KEY,
                        m.key_span,
                        format!(
                            "`{key}` is not a key of a skill playbook ({}); kept as an extra field",
                            WRAPPER_KEYS.join(", ")
                        ),
                    ));
                }
                pb.extra.insert(m.key.to_string(), m.value.to_value());
            }
        }
    }
    if !members.iter().any(|m| m.key == "bullets") {
        let start = members.first().map_or(0, |m| m.key_span.start);
        diags.push(Diagnostic::new(
            &rules::SKILL_SHAPE,
            Span::new(start, start),
            "no `bullets` key: the file holds no bullets (a skill playbook is `{\"bullets\": [...]}` or an array)",
        ));
    }
}

/// Members in first-appearance order, each with the value that is used:
/// a repeated key keeps its first position and takes its last value, as a
/// Python dict does.
fn unique(members: &[Member]) -> Vec<&Member> {
    let mut out: Vec<&Member> = Vec::with_capacity(members.len());
    for m in members {
        match out.iter_mut().find(|o| o.key == m.key) {
            Some(slot) => *slot = m,
            None => out.push(m),
        }
    }
    out
}

fn strings(node: &Node) -> Option<Vec<String>> {
    node.as_array()?
        .iter()
        .map(|n| n.as_str().map(str::to_owned))
        .collect()
}

fn integer(node: &Node) -> Option<i64> {
    match &node.kind {
        Kind::Number(lex) if !lex.contains(['.', 'e', 'E']) => lex.parse().ok(),
        _ => None,
    }
}

/// Keys in the order the writer puts them, for an object that maps to a
/// model struct with fixed fields followed by `extra`.
fn in_order(members: &[&Member], fixed: &[&str]) -> bool {
    let ranks: Vec<usize> = members
        .iter()
        .map(|m| {
            fixed
                .iter()
                .position(|f| *f == m.key)
                .unwrap_or(fixed.len())
        })
        .collect();
    ranks.windows(2).all(|w| w[0] <= w[1])
}

fn evidence(node: &Node) -> Option<Vec<Evidence>> {
    node.as_array()?
        .iter()
        .map(|item| match &item.kind {
            Kind::String(s) => Some(Evidence::Text(s.clone())),
            Kind::Object(members) => {
                let members = unique(members);
                if members.len() != item.members().map_or(0, <[Member]>::len)
                    || !in_order(&members, &["type", "ref", "note"])
                {
                    return None;
                }
                let mut r = EvidenceRef::default();
                for m in members {
                    let s = m.value.as_str().map(str::to_owned);
                    match m.key.as_str() {
                        "type" => r.kind = Some(s?),
                        "ref" => r.reference = Some(s?),
                        "note" => r.note = Some(s?),
                        _ => {
                            r.extra.insert(m.key.to_string(), m.value.to_value());
                        }
                    }
                }
                Some(Evidence::Ref(r))
            }
            _ => None,
        })
        .collect()
}

fn scope(node: &Node) -> Option<Scope> {
    match &node.kind {
        Kind::String(s) => Some(Scope::Name(s.clone())),
        Kind::Object(all) => {
            let members = unique(all);
            if members.len() != all.len() || !in_order(&members, &["domain", "inputs", "outputs"]) {
                return None;
            }
            let mut d = ScopeDetail::default();
            for m in members {
                match m.key.as_str() {
                    "domain" => d.domain = Some(m.value.as_str()?.to_owned()),
                    "inputs" => d.inputs = Some(m.value.to_value()),
                    "outputs" => d.outputs = Some(m.value.to_value()),
                    _ => {
                        d.extra.insert(m.key.to_string(), m.value.to_value());
                    }
                }
            }
            Some(Scope::Detail(Box::new(d)))
        }
        _ => None,
    }
}

fn confidence(node: &Node) -> Option<Confidence> {
    match &node.kind {
        Kind::String(s) => match s.as_str() {
            "high" => Some(Confidence::Level(ConfidenceLevel::High)),
            "medium" => Some(Confidence::Level(ConfidenceLevel::Medium)),
            "low" => Some(Confidence::Level(ConfidenceLevel::Low)),
            _ => None,
        },
        Kind::Number(lex) => Some(Confidence::Score(ace_jsonspan::number(lex))),
        _ => None,
    }
}

fn text(node: &Node) -> Option<String> {
    node.as_str().map(str::to_owned)
}

pub(crate) fn read_bullet(
    bullet: &Node,
    members: &[Member],
    index: usize,
    diags: &mut Vec<Diagnostic>,
) -> Entry {
    let mut e = Entry {
        // Findings point at the bullet's text, else its ID: what a reader
        // of the frame wants to see.
        origin: bullet
            .get("content")
            .filter(|n| n.as_str().is_some())
            .or_else(|| bullet.get("id"))
            .map_or(Span::new(bullet.span.start, bullet.span.start + 1), |n| {
                n.span
            })
            .into(),
        ..Entry::default()
    };
    for m in unique(members) {
        let v = &m.value;
        let kept = match m.key.as_str() {
            "id" => text(v).map(|s| e.id = s),
            "content" => text(v).map(|s| e.content = s),
            "title" => text(v).map(|s| e.title = Some(s)),
            "tags" => strings(v).map(|s| e.tags = Some(s)),
            "links" => strings(v).map(|s| e.links = Some(s)),
            "evidence" => evidence(v).map(|s| e.evidence = Some(s)),
            "confidence" => confidence(v).map(|c| e.confidence = Some(c)),
            "scope" => scope(v).map(|s| e.scope = Some(s)),
            "helpful_count" => integer(v).map(|n| e.helpful = Some(n)),
            "harmful_count" => integer(v).map(|n| e.harmful = Some(n)),
            "status" => text(v).map(|s| e.status = Some(Status::from(s))),
            "deprecation_reason" => text(v).map(|s| e.deprecation_reason = Some(s)),
            "created" => text(v).map(|s| e.created_at = Some(s)),
            "last_updated" => text(v).map(|s| e.updated_at = Some(s)),
            _ => None,
        };
        if kept.is_none() {
            e.extra.insert(m.key.to_string(), v.to_value());
        }
    }
    let label = checks::bullet_label(bullet, index);
    for key in ["id", "content"] {
        match bullet.get(key) {
            Some(n) if n.as_str().is_none() => diags.push(Diagnostic::new(
                &rules::SKILL_SHAPE,
                n.span,
                format!(
                    "{label}: `{key}` should be a string, found {}; kept as an extra field",
                    n.type_name()
                ),
            )),
            None => diags.push(Diagnostic::new(
                &rules::SKILL_SHAPE,
                Span::new(bullet.span.start, bullet.span.start + 1),
                format!("{label} has no `{key}`"),
            )),
            _ => {}
        }
    }
    checks::check_bullet_timestamps(bullet, diags);
    e
}

/// A bullet's keys in file order, each once.
pub(crate) fn key_order_refs(node: &Node) -> Vec<&str> {
    let mut keys: Vec<&str> = Vec::new();
    for m in node.members().unwrap_or(&[]) {
        if !keys.contains(&m.key.as_str()) {
            keys.push(&m.key);
        }
    }
    keys
}

/// The file's generation, said once at the first bullet that shows it.
pub(crate) fn generation_note(
    file_gen: ace_schema::Generation,
    all_none: bool,
    first: Span,
) -> Diagnostic {
    let note = match (file_gen, all_none) {
        (_, true) => "no bullet has `confidence` or `scope`, so the file fits either generation; checked against generation 2".to_string(),
        (ace_schema::Generation::One, _) => format!(
            "bullets follow {}; generation 2, shipped with the skill today, rejects their `confidence` and `scope`",
            checks::generation_name(file_gen)
        ),
        (ace_schema::Generation::Two, _) => format!("bullets follow {}", checks::generation_name(file_gen)),
    };
    Diagnostic::new(&rules::SCHEMA_GENERATION, first, note)
}

pub(crate) fn mixed_generation(
    bullet: &Node,
    label: &str,
    g: ace_schema::Generation,
) -> Diagnostic {
    Diagnostic::new(
        &rules::MIXED_GENERATION,
        checks::hint_span(bullet),
        format!(
            "{label} mixes generations: its `confidence` is generation {} and its `scope` generation {}; checked against generation {}",
            g.number(),
            g.other().number(),
            g.number()
        ),
    )
}

/// A bullet whose generation is not the file's.
pub(crate) fn other_generation(
    span: Span,
    label: &str,
    gen: ace_schema::Generation,
    file_gen: ace_schema::Generation,
) -> Diagnostic {
    Diagnostic::new(
        &rules::MIXED_GENERATION,
        span,
        format!(
            "{label} follows generation {} while the file follows generation {}; checked against generation {}",
            gen.number(),
            file_gen.number(),
            gen.number()
        ),
    )
}

/// The schema errors of bullet `i` under generation `gen`.
pub(crate) fn schema_diagnostics(
    bullet: &Node,
    i: usize,
    gen: ace_schema::Generation,
    array: bool,
) -> Vec<Diagnostic> {
    let errors = ace_schema::validate(ace_schema::SkillSchema::Bullet, gen, &bullet.to_value());
    if errors.is_empty() {
        return Vec::new();
    }
    let base = if array {
        format!("/{i}")
    } else {
        format!("/bullets/{i}")
    };
    ace_schema::diagnostics(
        &errors,
        bullet,
        &rules::PLAYBOOK_SCHEMA,
        &base,
        &format!("bullet schema generation {}", gen.number()),
    )
}

/// Takes the counts that agree with the bullets out of `metadata`: they
/// are derived, like vAgenda's metrics, and the writer computes them again.
/// A wrong count stays (it was reported), as does every other key; the
/// layout remembers the key order.
fn split_metadata(pb: &mut Playbook, layout: &mut layout::Layout) {
    let Some(serde_json::Value::Object(meta)) = pb.extra.get_mut("metadata") else {
        return;
    };
    layout.metadata_keys = meta.keys().cloned().collect();
    let kept = meta
        .get(crate::ACE_TOOLS_KEY)
        .and_then(AceTools::from_value);
    if kept.is_some() {
        meta.shift_remove(crate::ACE_TOOLS_KEY);
    }
    let counts = crate::fields::metadata_counts(&pb.entries);
    meta.retain(|k, v| {
        !counts
            .iter()
            .any(|(key, n)| key == k && v.as_i64() == Some(*n))
    });
    if meta.is_empty() && !layout.metadata_keys.is_empty() {
        pb.extra.shift_remove("metadata");
    }
    if let Some(kept) = kept {
        kept.put_back(pb);
    }
}

/// What `metadata.ace_tools` kept for another format ([`crate::ACE_TOOLS_KEY`]).
struct AceTools {
    sections: Vec<ace_model::Section>,
    version: Option<serde_json::Value>,
}

impl AceTools {
    /// The object, if it is one this writer writes; anything else stays in
    /// `metadata` as the file's own.
    fn from_value(v: &serde_json::Value) -> Option<AceTools> {
        let obj = v.as_object()?;
        if obj.keys().any(|k| k != "sections" && k != "version") {
            return None;
        }
        let sections = match obj.get("sections") {
            Some(s) => serde_json::from_value(s.clone()).ok()?,
            None => Vec::new(),
        };
        Some(AceTools {
            sections,
            version: obj.get("version").cloned(),
        })
    }

    /// Puts the sections and the version back, and gives each bullet whose
    /// first tag names a section that section (the tag was the section).
    fn put_back(self, pb: &mut Playbook) {
        if pb.version.is_none() {
            pb.version = self.version;
        }
        if self.sections.is_empty() {
            return;
        }
        let by_tag: std::collections::HashMap<String, &str> = self
            .sections
            .iter()
            .map(|s| (crate::conform::slug(&s.key), s.key.as_str()))
            .collect();
        for e in pb.entries.iter_mut() {
            let first = e.tags.as_deref().and_then(|t| t.first());
            let Some(key) = first.and_then(|t| by_tag.get(t)).map(|k| (*k).to_owned()) else {
                continue;
            };
            e.section = Some(key);
            let rest: Vec<String> = e
                .tags
                .take()
                .unwrap_or_default()
                .into_iter()
                .skip(1)
                .collect();
            e.tags = (!rest.is_empty()).then_some(rest);
        }
        pb.sections = self.sections;
    }
}

fn check_metadata(meta: &Node, entries: &[Entry], diags: &mut Vec<Diagnostic>) {
    for (key, actual) in crate::fields::metadata_counts(entries) {
        let Some(node) = meta.get(key) else { continue };
        let Some(n) = integer(node) else { continue };
        if n != actual {
            diags.push(Diagnostic::new(
                &rules::METADATA_COUNT,
                node.span,
                format!("metadata.{key} is {n}, but the file has {actual}"),
            ));
        }
    }
}

/// An item of the bullets array that is not an object.
pub(crate) fn not_a_bullet(index: usize, item: &Node) -> Diagnostic {
    Diagnostic::new(
        &rules::SKILL_SHAPE,
        item.span,
        format!(
            "bullet #{} is {}, expected an object; it is kept in place but is not an entry",
            index + 1,
            item.type_name()
        ),
    )
}

/// ACE046 when the detected style does not give back the file's bytes.
pub(crate) fn check_layout(
    root: &Node,
    text: &str,
    layout: &layout::Layout,
    diags: &mut Vec<Diagnostic>,
) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The check on the bytes settles nearly every file; only where it
    // cannot is the printing compared, which also finds the place.
    if root.span.start == text.len() - body.len()
        && text[root.span.end..] == *if layout.style.final_newline { "\n" } else { "" }
        && layout.style.keeps(root, text, 0)
    {
        return;
    }
    // Compared as it is printed: a copy of a large file would be most of
    // the read's memory.
    let mut compare = crate::style::Compare::new(body);
    layout.style.render_into(root, &mut compare);
    let Some((offset, line_start, want)) = compare.finish() else {
        return;
    };
    let shift = text.len() - body.len();
    let line_end = body[line_start.min(body.len())..]
        .find('\n')
        .map_or(body.len(), |i| line_start + i);
    diags.push(Diagnostic::new(
        &rules::LAYOUT_NOT_KEPT,
        Span::new(shift + offset.max(line_start), shift + line_end.max(offset)),
        format!(
            "a rewrite would change this file's layout from here on (the data stays the same); this line would read `{}`",
            want.trim()
        ),
    ));
}
