//! A skillbook into the model, with the layout that writes it back.

use std::collections::{HashMap, HashSet};

use ace_jsonspan::{Kind, Member, Node};
use ace_model::{
    rules, Diagnostic, Entry, Evidence, Origin, Playbook, ReadOutput, Section, Severity, Span,
    Status,
};
use serde_json::{json, Map, Value};

use crate::{LAYOUT_KEY, TOP_KEYS};

/// Reads a skillbook. Only JSON that does not parse is the error; a
/// structure the framework would not save is reported in the diagnostics.
pub fn read(text: &str) -> Result<ReadOutput, Diagnostic> {
    read_with(text, Severity::Info)
}

/// [`read`] for a caller that wants findings of severity `min` and above
/// only. Below `Info` the file is not written again to learn whether a
/// rewrite keeps its layout (ACE046, about half a large file's read).
/// The playbook read is the same.
pub fn read_with(text: &str, min: Severity) -> Result<ReadOutput, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let mut diags = doc.diagnostics;
    let mut pb = Playbook::default();
    let root = &doc.root;
    let Some(members) = root.members() else {
        diags.push(shape(root.span, "a skillbook is a JSON object"));
        return Ok(ReadOutput {
            playbook: pb,
            diagnostics: diags,
        });
    };
    let era = if root.get("skills").is_some() {
        "skills"
    } else if root.get("bullets").is_some() {
        "bullets"
    } else {
        diags.push(shape(
            Span::new(root.span.start, root.span.start + 1),
            "no `skills` object (nor the `bullets` of releases before 0.7): this holds no skills",
        ));
        "skills"
    };
    let mut layout = Map::new();
    layout.insert("era".into(), Value::from(era));
    layout.insert(
        "top".into(),
        Value::Array(
            members
                .iter()
                .map(|m| Value::from(m.key.as_str()))
                .collect(),
        ),
    );
    let mut orders: Vec<(String, Vec<String>)> = Vec::new();
    for m in members {
        match m.key.as_str() {
            k if k == era => skills(&m.value, era, &mut pb, &mut orders, &mut diags),
            "skills" | "bullets" => {
                // Both eras' keys: the other one is kept, and said.
                unknown_key(m, &mut pb, &mut diags);
            }
            "sections" | "next_id" => {}
            "similarity_decisions" => match &m.value.kind {
                Kind::Object(items) if items.is_empty() => {}
                Kind::Object(_) => {
                    pb.extra.insert(m.key.to_string(), m.value.to_value());
                }
                _ => {
                    diags.push(shape(
                        m.value.span,
                        "`similarity_decisions` is an object of `\"idA,idB\": decision`",
                    ));
                    pb.extra.insert(m.key.to_string(), m.value.to_value());
                }
            },
            _ => unknown_key(m, &mut pb, &mut diags),
        }
    }
    // Sections: the index's, in its order, then those only skills name.
    let index = root.get("sections");
    if let Some(index) = index {
        match index.members() {
            Some(items) => {
                for s in items {
                    if !pb.sections.iter().any(|x| x.key == s.key.as_str()) {
                        pb.sections.push(Section::new(s.key.as_str()));
                    }
                    if s.value.as_array().is_none() {
                        diags.push(shape(
                            s.value.span,
                            "a section's index is a list of skill IDs",
                        ));
                    }
                }
            }
            None => diags.push(shape(
                index.span,
                "`sections` is an object of section names to lists of skill IDs",
            )),
        }
    }
    for e in &pb.entries {
        if let Some(s) = e.section.as_deref() {
            if !pb.sections.iter().any(|x| x.key == s) {
                pb.sections.push(Section::new(s));
            }
        }
    }
    if let Some(index) = index {
        let listed = listed_pairs(index);
        check_index(index, &pb, &listed, &mut diags);
        let derived = crate::write::derived_index(&pb);
        if index.to_value() != derived {
            layout.insert("sections".into(), index.to_value());
            // The skills the index misses now, which a rewrite leaves
            // missing: it adds only skills that were not there to miss.
            let unlisted: Vec<Value> = pb
                .entries
                .iter()
                .filter(|e| !is_listed(&listed, e))
                .map(|e| Value::from(e.id.as_str()))
                .collect();
            if !unlisted.is_empty() {
                layout.insert("unlisted".into(), Value::Array(unlisted));
            }
        }
    }
    if let Some(n) = root.get("next_id") {
        if let Some(used) = check_next_id(n, &pb, &mut diags) {
            // Too low already: a rewrite keeps it until a skill is added.
            layout.insert("used".into(), Value::from(used));
        }
        layout.insert("next_id".into(), n.to_value());
    }
    let template = orders.first().map(|(_, o)| o.clone()).unwrap_or_default();
    let mut differing = Map::new();
    for (id, order) in &orders {
        if *order != template {
            differing.insert(id.clone(), json!(order));
        }
    }
    layout.insert("template".into(), json!(template));
    if !differing.is_empty() {
        layout.insert("orders".into(), Value::Object(differing));
    }
    layout.insert("indent".into(), Value::from(indent_of(root, text)));
    layout.insert(
        "ascii".into(),
        Value::Bool(text.is_ascii() && text.contains("\\u")),
    );
    if let Some(list) = first_scalar_list(root) {
        let written = &text[list.span.start..list.span.end];
        layout.insert("inline_lists".into(), Value::Bool(!written.contains('\n')));
    }
    layout.insert("newline".into(), Value::Bool(text.ends_with('\n')));
    pb.set_layout(LAYOUT_KEY, Value::Object(layout));
    if rules::LAYOUT_NOT_KEPT.severity >= min {
        let again = crate::write::write(&pb).text;
        if again != text {
            diags.push(layout_not_kept(text, &again));
        }
    }
    diags.sort_by_key(|d| (d.span.start, d.code));
    Ok(ReadOutput {
        playbook: pb,
        diagnostics: diags,
    })
}

fn shape(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&rules::SKILLBOOK_SHAPE, span, message)
}

fn unknown_key(m: &Member, pb: &mut Playbook, diags: &mut Vec<Diagnostic>) {
    diags.push(Diagnostic::new(
        &rules::UNKNOWN_KEY,
        m.key_span,
        format!(
            "`{}` is not a skillbook key ({}); kept as an extra field",
            m.key,
            TOP_KEYS.join(", ")
        ),
    ));
    pb.extra.insert(m.key.to_string(), m.value.to_value());
}

fn skills(
    node: &Node,
    era: &str,
    pb: &mut Playbook,
    orders: &mut Vec<(String, Vec<String>)>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(items) = node.members() else {
        diags.push(shape(
            node.span,
            format!("`{era}` is an object of skill IDs to skills"),
        ));
        return;
    };
    for m in items {
        let Some(fields) = m.value.members() else {
            diags.push(shape(m.value.span, "a skill is an object"));
            continue;
        };
        let mut e = Entry::new(m.key.as_str(), "");
        // Findings point at the skill's text, else its key.
        let text = fields
            .iter()
            .find(|f| f.key == "content" && f.value.as_str().is_some());
        e.origin = Origin::from(text.map_or(m.key_span, |f| f.value.span));
        let mut order = Vec::with_capacity(fields.len());
        let mut has_content = false;
        for f in fields {
            order.push(f.key.to_string());
            let v = &f.value;
            if matches!(v.kind, Kind::Null) && crate::SKILL_KEYS.contains(&f.key.as_str()) {
                // Absent in the model; the key order writes the null back.
                continue;
            }
            // A value of the wrong type is reported and kept under its key,
            // which the writer gives back as it was.
            let kept = match f.key.as_str() {
                "id" => {
                    if v.as_str() != Some(m.key.as_str()) {
                        let mut d = shape(
                            v.span,
                            format!(
                                "the skill's `id` is not its key `{}`; the framework looks skills up by key, and a rewrite writes the key for both",
                                m.key
                            ),
                        );
                        d.severity = Severity::Warning;
                        diags.push(d);
                    }
                    true
                }
                "section" => set(&mut e.section, string(v, "section", diags)),
                "content" => match string(v, "content", diags) {
                    Some(s) => {
                        e.content = s;
                        has_content = true;
                        true
                    }
                    None => false,
                },
                "helpful" => set(&mut e.helpful, counter(v, "helpful", diags)),
                "harmful" => set(&mut e.harmful, counter(v, "harmful", diags)),
                "neutral" => set(&mut e.neutral, counter(v, "neutral", diags)),
                "created_at" => set(&mut e.created_at, string(v, "created_at", diags)),
                "updated_at" => set(&mut e.updated_at, string(v, "updated_at", diags)),
                "status" => set(&mut e.status, string(v, "status", diags).map(Status::from)),
                "evidence" => set(
                    &mut e.evidence,
                    v.as_str().map(|s| vec![Evidence::Text(s.to_owned())]),
                ),
                _ => false,
            };
            if !kept {
                e.extra.insert(f.key.to_string(), v.to_value());
            }
        }
        if !has_content && !e.extra.contains_key("content") {
            diags.push(shape(
                Span::new(m.value.span.start, m.value.span.start + 1),
                format!("skill `{}` has no `content`", m.key),
            ));
        }
        orders.push((e.id.clone(), order));
        pb.entries.push(e);
    }
}

/// Sets `slot` to a value read; `false` when there is none.
fn set<T>(slot: &mut Option<T>, v: Option<T>) -> bool {
    let read = v.is_some();
    if read {
        *slot = v;
    }
    read
}

/// A string field; another type is reported (and kept in `extra` by the
/// caller).
fn string(v: &Node, name: &str, diags: &mut Vec<Diagnostic>) -> Option<String> {
    match &v.kind {
        Kind::String(s) => Some(s.clone()),
        _ => {
            diags.push(shape(v.span, format!("`{name}` is a string")));
            None
        }
    }
}

fn counter(v: &Node, name: &str, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    match &v.kind {
        Kind::Number(n) if !n.contains(['.', 'e', 'E']) => n.parse().ok().or_else(|| {
            diags.push(shape(v.span, format!("`{name}` is out of range")));
            None
        }),
        _ => {
            diags.push(shape(v.span, format!("`{name}` is an integer count")));
            None
        }
    }
}

/// What `sections` lists against what the skills say.
/// Every (section, skill ID) pair the index lists.
fn listed_pairs(index: &Node) -> HashSet<(&str, &str)> {
    index
        .members()
        .unwrap_or_default()
        .iter()
        .flat_map(|s| {
            s.value
                .as_array()
                .unwrap_or_default()
                .iter()
                .filter_map(move |id| Some((s.key.as_str(), id.as_str()?)))
        })
        .collect()
}

/// Whether the index lists skill `e` under its section (a skill without
/// one has nowhere to be listed).
fn is_listed(listed: &HashSet<(&str, &str)>, e: &Entry) -> bool {
    e.section
        .as_deref()
        .is_none_or(|section| listed.contains(&(section, e.id.as_str())))
}

fn check_index(
    index: &Node,
    pb: &Playbook,
    listed: &HashSet<(&str, &str)>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(items) = index.members() else {
        return;
    };
    // Looked up by ID and by (section, ID): a search per listed ID made
    // reading 100,000 skills take half a minute.
    let mut by_id: HashMap<&str, &Entry> = HashMap::with_capacity(pb.entries.len());
    for e in &pb.entries {
        by_id.entry(e.id.as_str()).or_insert(e);
    }
    for s in items {
        for id in s.value.as_array().unwrap_or_default() {
            let Some(name) = id.as_str() else {
                diags.push(shape(id.span, "a skill ID is a string"));
                continue;
            };
            match by_id.get(name) {
                None => diags.push(Diagnostic::new(
                    &rules::SKILLBOOK_INDEX,
                    id.span,
                    format!(
                        "`{name}` is listed under `{}` but there is no such skill",
                        s.key
                    ),
                )),
                Some(e) if e.section.as_deref().is_some_and(|x| x != s.key.as_str()) => {
                    diags.push(Diagnostic::new(
                        &rules::SKILLBOOK_INDEX,
                        id.span,
                        format!(
                            "`{name}` is listed under `{}` but its section is `{}`",
                            s.key,
                            e.section.as_deref().unwrap_or_default()
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    for e in &pb.entries {
        let Some(section) = e.section.as_deref() else {
            continue;
        };
        if !is_listed(listed, e) {
            diags.push(Diagnostic::new(
                &rules::SKILLBOOK_INDEX,
                e.origin.0.unwrap_or(index.span),
                format!(
                    "skill `{}` is not listed under its section `{section}` in `sections`",
                    e.id
                ),
            ));
        }
    }
}

/// Reports a `next_id` below an ID's number; gives that number then.
fn check_next_id(n: &Node, pb: &Playbook, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    let Some(next) = n.to_value().as_i64() else {
        diags.push(shape(n.span, "`next_id` is an integer"));
        return None;
    };
    let (id, used) = pb
        .entries
        .iter()
        .filter_map(|e| id_number(&e.id).map(|k| (e.id.as_str(), k)))
        .max_by_key(|(_, k)| *k)?;
    (used > next).then(|| {
        diags.push(Diagnostic::new(
            &rules::SKILLBOOK_INDEX,
            n.span,
            format!("`next_id` is {next} but `{id}` is numbered {used}: the next skill added would take an ID in use"),
        ));
        used
    })
}

/// The number of an ID the framework made (`{section}-{n:05d}`).
pub(crate) fn id_number(id: &str) -> Option<i64> {
    let (_, digits) = id.rsplit_once('-')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The first non-empty list of scalars, depth first: how the file writes
/// such lists (the index's ID lists, most often).
fn first_scalar_list(node: &Node) -> Option<&Node> {
    match &node.kind {
        Kind::Array(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|i| !matches!(i.kind, Kind::Array(_) | Kind::Object(_))) =>
        {
            Some(node)
        }
        Kind::Array(items) => items.iter().find_map(first_scalar_list),
        Kind::Object(members) => members.iter().find_map(|m| first_scalar_list(&m.value)),
        _ => None,
    }
}

/// The indentation of the root's first member (2 for the framework's
/// files); 0 for a file on one line.
fn indent_of(root: &Node, text: &str) -> usize {
    let Some(first) = root.members().and_then(|m| m.first()) else {
        return 2;
    };
    let before = &text[root.span.start..first.key_span.start];
    match before.rfind('\n') {
        Some(nl) => before[nl + 1..].chars().take_while(|c| *c == ' ').count(),
        None => 0,
    }
}

/// ACE046 at the first line a rewrite would change.
fn layout_not_kept(text: &str, again: &str) -> Diagnostic {
    let at = text
        .bytes()
        .zip(again.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(text.len().min(again.len()));
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let printed = again[start.min(again.len())..]
        .lines()
        .next()
        .unwrap_or_default();
    Diagnostic::new(
        &rules::LAYOUT_NOT_KEPT,
        Span::new(start, end),
        format!(
            "a rewrite would write this line as `{}`: the file is not laid out as the framework's `json.dumps(indent=2)` writes it; the data is unaffected",
            printed.trim()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_the_framework_made_have_a_number() {
        assert_eq!(id_number("reasoning_patterns-00007"), Some(7));
        assert_eq!(id_number("a-b"), None);
        assert_eq!(id_number("plain"), None);
    }

    #[test]
    fn extra_keys_are_the_ones_the_model_lacks() {
        for k in crate::EXTRA_KEYS {
            assert!(crate::SKILL_KEYS.contains(&k));
        }
    }
}
