//! A skillbook into the model, with the layout that writes it back.

use std::collections::{HashMap, HashSet};

use ace_jsonspan::{Kind, Member, Node};
use ace_model::{rules, Diagnostic, Entry, Playbook, ReadOutput, Section, Severity, Span};
use serde_json::{json, Map, Value};

use crate::skill::{era_of, id_number, key_order, read_skill, section_of, shape, Run, Skills};
use crate::{Era, LAYOUT_KEY};

/// Reads a skillbook. Only JSON that does not parse is the error; a
/// structure the framework would not save is reported in the diagnostics.
pub fn read(text: &str) -> Result<ReadOutput, Diagnostic> {
    read_with(text, Severity::Info)
}

/// [`read`] for a caller that wants findings of severity `min` and above
/// only. Below `Info` the file is not written again to learn whether a
/// rewrite keeps its layout (ACE046, about half a large file's read).
/// The playbook read is the same.
///
/// A large file's skills are read apart from its tree, on every core
/// ([`crate::apart`]); a file whose skills cannot be read so is read from
/// its whole tree, by the same code.
pub fn read_with(text: &str, min: Severity) -> Result<ReadOutput, Diagnostic> {
    read_for(text, Want::new(min, true))
}

/// [`read_with`] for a caller that wants the data alone: the playbook is
/// the same, without the layout a rewrite in this format keeps the file's
/// key orders, index and indentation by (unless ACE046 is wanted, which is
/// found by that rewrite). What a conversion to another format reads.
pub fn read_data(text: &str, min: Severity) -> Result<ReadOutput, Diagnostic> {
    read_for(text, Want::new(min, false))
}

/// What a read is asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Want {
    /// The least severity of the findings wanted.
    pub(crate) min: Severity,
    /// Whether the layout is kept: asked for, or needed to find ACE046.
    pub(crate) layout: bool,
}

impl Want {
    pub(crate) fn new(min: Severity, layout: bool) -> Self {
        Want {
            min,
            layout: layout || rules::LAYOUT_NOT_KEPT.severity >= min,
        }
    }
}

pub(crate) fn read_for(text: &str, want: Want) -> Result<ReadOutput, Diagnostic> {
    read_top(text, want).map(|(out, _)| out)
}

/// [`read_for`], and the keys of the root object with the first byte of
/// each value ([`ace_format::Read::top`]).
pub(crate) fn read_top(
    text: &str,
    want: Want,
) -> Result<(ReadOutput, Option<ace_format::TopKeys>), Diagnostic> {
    let (doc, skills) = crate::apart::read(text, want.layout)?;
    let top = ace_jsonspan::top_keys(&doc.root, text);
    assemble(text, want, doc, skills).map(|out| (out, top))
}

/// [`read_for`] from the whole span tree: the reference the read apart
/// is checked against.
#[cfg(test)]
pub(crate) fn read_tree(text: &str, want: Want) -> Result<ReadOutput, Diagnostic> {
    assemble(text, want, ace_jsonspan::parse(text)?, None)
}

/// The playbook of a parsed skillbook. `apart`: the reads of the skills
/// of the era's object, which the tree holds as keys with `null` values.
pub(crate) fn assemble(
    text: &str,
    want: Want,
    doc: ace_jsonspan::Document,
    apart: Option<Skills>,
) -> Result<ReadOutput, Diagnostic> {
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
    let era = era_of(root);
    if root.get(era).is_none() {
        diags.push(shape(
            Span::new(root.span.start, root.span.start + 1),
            "no `skills` object (nor the `bullets` of releases before 0.7): this holds no skills",
        ));
    }
    let schema = root.get("schema_version");
    let v2 = schema.is_some();
    if let Some(v) = schema {
        check_schema(v, &mut diags);
    }
    let mut kept = Kept::default();
    // Key orders are compared with the template only to keep them: without
    // the layout there is none.
    let (template, mut apart) = match apart {
        Some(skills) => (skills.template, Some(skills.runs)),
        None if want.layout => (
            members
                .iter()
                .filter(|m| m.key == era)
                .filter_map(|m| m.value.members())
                .flatten()
                .find_map(|s| key_order(&s.value)),
            None,
        ),
        None => (None, None),
    };
    // The first list of scalars inside each era object's skills, by the
    // object's place among the root's members.
    let mut lists: Vec<(usize, Option<Span>)> = Vec::new();
    for (at, m) in members.iter().enumerate() {
        match m.key.as_str() {
            k if k == era => {
                let Some(items) = m.value.members() else {
                    diags.push(shape(
                        m.value.span,
                        format!("`{era}` is an object of skill IDs to skills"),
                    ));
                    continue;
                };
                let runs = apart.take().unwrap_or_else(|| {
                    let mut run = Run::new(v2, want.layout);
                    for s in items {
                        run.settle(s, read_skill(&s.value, template.as_deref()));
                    }
                    vec![run]
                });
                lists.push((at, runs.iter().find_map(|r| r.list)));
                absorb(runs, &mut pb, &mut kept, &mut diags);
            }
            "skills" | "bullets" => {
                // Both eras' keys: the other one is kept, and said.
                unknown_key(m, &mut pb, &mut diags);
            }
            "sections" | "next_id" | "schema_version" => {}
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
    let mut listed: HashSet<String> = pb.sections.iter().map(|x| x.key.clone()).collect();
    if let Some(index) = index {
        match index.members() {
            Some(items) => {
                for s in items {
                    if listed.insert(s.key.as_str().to_owned()) {
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
            if listed.insert(s.to_owned()) {
                pb.sections.push(Section::new(s));
            }
        }
    }
    let mut layout = Map::new();
    if let Some(index) = index {
        let listed = std::cell::OnceCell::new();
        let listed = || listed.get_or_init(|| listed_pairs(index));
        if rules::SKILLBOOK_INDEX.severity >= want.min {
            check_index(index, &pb, listed(), v2, &mut diags);
        }
        if want.layout && !is_derived(index, &pb) {
            let listed = listed();
            layout.insert("sections".into(), index.to_value());
            // The skills the index misses now, which a rewrite leaves
            // missing: it adds only skills that were not there to miss.
            let unlisted: Vec<Value> = pb
                .entries
                .iter()
                .filter(|e| !is_listed(listed, e, v2))
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
    let version = if v2 {
        Era::V2
    } else if era == "bullets" {
        Era::Bullets
    } else if pb.entries.is_empty()
        || pb
            .entries
            .iter()
            .any(|e| e.helpful.is_some() || e.harmful.is_some() || e.neutral.is_some())
    {
        Era::Counters
    } else {
        Era::Plain
    };
    if !v2 && kept.v2_skills {
        diags.push(shape(
            Span::new(root.span.start, root.span.start + 1),
            "skills with `issue` or `keywords` but no `schema_version`: kayba 0.12 and later refuse a skillbook without `\"schema_version\": \"2\"`, and earlier releases drop those keys",
        ));
    }
    layout.insert("version".into(), Value::from(version.value()));
    if let Some(v) = schema {
        layout.insert("schema_version".into(), v.to_value());
    }
    if !kept.no_insight.is_empty() {
        layout.insert("no_insight".into(), Value::Object(kept.no_insight));
    }
    if want.layout {
        keep_layout(
            &mut pb,
            layout,
            text,
            root,
            template,
            kept.differing,
            &lists,
        );
    }
    // Wanting ACE046 implies the layout (`Want::new`).
    if rules::LAYOUT_NOT_KEPT.severity >= want.min
        && !ace_exec::out::prints_same(text, |out| {
            crate::write::write_into(&pb, &crate::Options::default(), out);
        })
    {
        let again = crate::write::write(&pb).text;
        diags.push(layout_not_kept(text, &again));
    }
    diags.sort_by_key(|d| (d.span.start, d.code));
    Ok(ReadOutput {
        playbook: pb,
        diagnostics: diags,
    })
}

/// Sets the layout a rewrite gives the file back by: `layout` (what the
/// index and `next_id` left there) and the rest of the file's shape.
fn keep_layout(
    pb: &mut Playbook,
    found: Map<String, Value>,
    text: &str,
    root: &Node,
    template: Option<Vec<String>>,
    differing: Map<String, Value>,
    lists: &[(usize, Option<Span>)],
) {
    let members = root.members().unwrap_or_default();
    let mut layout = Map::new();
    layout.insert(
        "top".into(),
        Value::Array(
            members
                .iter()
                .map(|m| Value::from(m.key.as_str()))
                .collect(),
        ),
    );
    layout.extend(found);
    layout.insert("template".into(), json!(template.unwrap_or_default()));
    if !differing.is_empty() {
        layout.insert("orders".into(), Value::Object(differing));
    }
    layout.insert("indent".into(), Value::from(indent_of(root, text)));
    layout.insert(
        "ascii".into(),
        Value::Bool(text.is_ascii() && text.contains("\\u")),
    );
    if let Some(list) = first_list(members, lists) {
        let written = &text[list.start..list.end];
        layout.insert("inline_lists".into(), Value::Bool(!written.contains('\n')));
    }
    layout.insert("newline".into(), Value::Bool(text.ends_with('\n')));
    pb.set_layout(LAYOUT_KEY, Value::Object(layout));
}

fn unknown_key(m: &Member, pb: &mut Playbook, diags: &mut Vec<Diagnostic>) {
    diags.push(Diagnostic::new(
        &rules::UNKNOWN_KEY,
        m.key_span,
        format!(
            "`{}` is not a skillbook key ({}); kept as an extra field",
            m.key,
            Era::V2.top_keys().join(", ")
        ),
    ));
    pb.extra.insert(m.key.to_string(), m.value.to_value());
}

/// The runs of skills of one era object, read and settled, put into `pb`
/// and `kept` in order.
fn absorb(runs: Vec<Run>, pb: &mut Playbook, kept: &mut Kept, diags: &mut Vec<Diagnostic>) {
    pb.entries
        .reserve(runs.iter().map(|r| r.entries.len()).sum::<usize>());
    for r in runs {
        pb.entries.extend(r.entries);
        diags.extend(r.diags);
        kept.no_insight.extend(r.no_insight);
        kept.differing.extend(r.differing);
        kept.v2_skills |= r.v2_skills;
    }
}

/// What the skills' reads leave for the layout.
#[derive(Default)]
struct Kept {
    /// The key orders that differ from the template.
    differing: Map<String, Value>,
    /// The v2 skills whose `insight` is `null`, with their issue.
    no_insight: Map<String, Value>,
    /// Whether any skill has v2 keys.
    v2_skills: bool,
}

/// kayba 0.12 and later load a file whose `schema_version`, made a string,
/// is "2", and refuse any other.
fn check_schema(v: &Node, diags: &mut Vec<Diagnostic>) {
    match &v.kind {
        Kind::String(s) if s == "2" => {}
        Kind::Number(n) if n.as_str() == "2" => {
            let mut d = shape(
                v.span,
                "`schema_version` is the string \"2\"; kayba reads the number 2 as it, and writes it back as a string",
            );
            d.severity = Severity::Warning;
            diags.push(d);
        }
        _ => diags.push(shape(
            v.span,
            "kayba reads only `\"schema_version\": \"2\"` and refuses this file (`Skillbook format v2 required`)",
        )),
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

/// Whether `index` is the index a rewrite derives from the skills
/// ([`crate::write::derived_index`]), compared as JSON values are: the
/// sections in any order, each listing the IDs of its skills in their
/// order, no section without skills. Found without building either value,
/// which for 100,000 skills took longer than reading them.
fn is_derived(index: &Node, pb: &Playbook) -> bool {
    let Some(sections) = index.members() else {
        return false;
    };
    if ace_jsonspan::repeats_a_key(sections) {
        // The last of a repeated key is the value: compared as values.
        return index.to_value() == crate::write::derived_index(pb);
    }
    // Each section's list, and how far the skills have matched it.
    let mut lists: HashMap<&str, (&[Node], usize)> = sections
        .iter()
        .map(|s| (s.key.as_str(), (s.value.as_array().unwrap_or(&[]), 0)))
        .collect();
    if sections
        .iter()
        .any(|s| !matches!(s.value.as_array(), Some([_, ..])))
    {
        return false;
    }
    let mut last: Option<(&str, &mut (&[Node], usize))> = None;
    for e in &pb.entries {
        let Some(section) = e.section.as_deref() else {
            continue;
        };
        let slot = match last.take() {
            Some((name, slot)) if name == section => slot,
            _ => match lists.get_mut(section) {
                Some(slot) => slot,
                None => return false,
            },
        };
        let (list, at) = slot;
        if list.get(*at).and_then(Node::as_str) != Some(e.id.as_str()) {
            return false;
        }
        *at += 1;
        last = Some((section, slot));
    }
    lists.values().all(|(list, at)| *at == list.len())
}

/// Whether the index lists skill `e` under its section (a skill without
/// one has nowhere to be listed).
fn is_listed(listed: &HashSet<(&str, &str)>, e: &Entry, v2: bool) -> bool {
    section_of(e, v2).is_none_or(|section| listed.contains(&(section, e.id.as_str())))
}

fn check_index(
    index: &Node,
    pb: &Playbook,
    listed: &HashSet<(&str, &str)>,
    v2: bool,
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
                Some(e) if section_of(e, v2).is_some_and(|x| x != s.key.as_str()) => {
                    diags.push(Diagnostic::new(
                        &rules::SKILLBOOK_INDEX,
                        id.span,
                        format!(
                            "`{name}` is listed under `{}` but its section is `{}`",
                            s.key,
                            section_of(e, v2).unwrap_or_default()
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    for e in &pb.entries {
        let Some(section) = section_of(e, v2) else {
            continue;
        };
        if !is_listed(listed, e, v2) {
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

/// The first list of scalars in the root's members, as
/// [`Node::first_scalar_list`] finds it, taking that of the era objects (whose
/// values a tree read apart does not hold) from their skills' reads.
fn first_list(members: &[Member], lists: &[(usize, Option<Span>)]) -> Option<Span> {
    members
        .iter()
        .enumerate()
        .find_map(|(at, m)| match lists.iter().find(|(i, _)| *i == at) {
            Some((_, list)) => *list,
            None => m.value.first_scalar_list().map(|l| l.span),
        })
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

    proptest::proptest! {
        /// The index is found derived exactly when it equals, as a JSON
        /// value, the one a rewrite derives.
        #[test]
        fn an_index_is_derived_when_its_value_is(
            skills in proptest::collection::vec(("[abcd]", proptest::option::of("[st]")), 0..6),
            index in proptest::collection::vec(
                ("[stu]", proptest::option::of(proptest::collection::vec("[abcd1]", 0..4))),
                0..4,
            ),
        ) {
            let mut pb = Playbook::default();
            for (id, section) in &skills {
                let mut e = Entry::new(id.as_str(), "x");
                e.section = section.clone();
                pb.entries.push(e);
            }
            let members: Vec<String> = index
                .iter()
                .map(|(key, list)| {
                    let value = match list {
                        Some(ids) => {
                            let items: Vec<String> = ids
                                .iter()
                                .map(|i| if i == "1" { "1".to_owned() } else { format!("{i:?}") })
                                .collect();
                            format!("[{}]", items.join(", "))
                        }
                        None => "7".to_owned(),
                    };
                    format!("{key:?}: {value}")
                })
                .collect();
            let text = format!("{{{}}}", members.join(", "));
            let node = ace_jsonspan::parse(&text).unwrap().root;
            let by_value = node.to_value() == crate::write::derived_index(&pb);
            proptest::prop_assert_eq!(is_derived(&node, &pb), by_value, "{}", text);
        }
    }

    #[test]
    fn an_index_in_another_section_order_is_derived() {
        let mut pb = Playbook::default();
        for (id, section) in [("a", "s"), ("b", "t"), ("c", "s")] {
            let mut e = Entry::new(id, "x");
            e.section = Some(section.into());
            pb.entries.push(e);
        }
        let cases = [
            (r#"{"t": ["b"], "s": ["a", "c"]}"#, true),
            (r#"{"s": ["c", "a"], "t": ["b"]}"#, false),
            (r#"{"s": ["a", "c"], "t": ["b"], "u": []}"#, false),
            (r#"{"s": ["a"], "t": ["b"], "s": ["a", "c"]}"#, true),
        ];
        for (text, derived) in cases {
            let node = ace_jsonspan::parse(text).unwrap().root;
            assert_eq!(is_derived(&node, &pb), derived, "{text}");
        }
    }
}
