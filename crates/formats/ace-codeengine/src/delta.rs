//! Code Engine ACE's manual deltas: what `ace-cli delta add|update|remove
//! --stdin` reads (`plugins/ace/commands/ace-delta.md`), `{"bullets":
//! [{"id", "content", "section", "helpful", "harmful"}]}`, one payload per
//! command. A file holds one payload, or several under the commands'
//! names, `{"add": {"bullets": [...]}, "update": {...}, "remove": {...}}`,
//! which is how ace-diff writes a difference: each value is what one
//! command takes (`jq .add delta.json | ace-cli delta add --stdin`).
//!
//! The semantics are the command documentation's, the server being
//! closed:
//!
//! - `add` puts a pattern with its ID, content and section (one of the
//!   four; another is `Invalid section`), counters as given or 0.
//! - `update` adds `helpful` and `harmful` to the pattern's counters
//!   ("Increment helpful score") and sets its `content` when given.
//! - `remove` deletes the pattern.
//! - An ID the playbook lacks fails the command (`Pattern … not found`),
//!   so the payload is refused whole; each command is applied on its own.
//!
//! A bare payload's command is told by its bullets, as the documented
//! examples show them: a bullet with a `section` is an `add`, one with its
//! `id` alone a `remove`, any other an `update`.

use ace_format::{
    Confidence, DeltaDialect, DeltaReadCtx, DeltaWriteCtx, DocumentCheck, Sniff, WrittenDelta,
};
use ace_jsonspan::{Kind, Node};
use ace_model::delta::{Change, Delta, Op, Reason, Target};
use ace_model::{Diagnostic, Entry, Span};
use serde_json::{json, Map, Value};

use crate::PROJECT;

/// The commands, in the order a file of several applies them.
pub const COMMANDS: [&str; 3] = ["add", "update", "remove"];

/// The keys a bullet of a payload may have.
const KEYS: [&str; 5] = ["id", "content", "section", "helpful", "harmful"];

fn finding(span: Span, message: impl std::fmt::Display) -> Diagnostic {
    ace_records::shape(PROJECT, span, message)
}

/// A payload's bullets: `Some` when `node` is `{"bullets": [...]}`.
fn bullets(node: &Node) -> Option<&[Node]> {
    let members = node.members()?;
    (members.len() == 1 && members[0].key == "bullets").then(|| members[0].value.as_array())?
}

/// Whether every bullet has only a payload's keys, and an `id`.
fn payload_like(items: &[Node]) -> bool {
    !items.is_empty()
        && items.iter().all(|b| {
            b.members().is_some_and(|m| {
                m.iter().all(|k| KEYS.contains(&k.key.as_str())) && m.iter().any(|k| k.key == "id")
            })
        })
}

/// The payloads of a file: each command's, or the one bare payload with
/// `None` for its command.
fn payloads(root: &Node) -> Option<Vec<(Option<&'static str>, &Node)>> {
    if bullets(root).is_some_and(payload_like) {
        return Some(vec![(None, root)]);
    }
    let members = root.members()?;
    if members.is_empty()
        || !members
            .iter()
            .all(|m| COMMANDS.contains(&m.key.as_str()) && m.value.get("bullets").is_some())
    {
        return None;
    }
    Some(
        members
            .iter()
            .map(|m| {
                let name = COMMANDS.iter().copied().find(|c| *c == m.key.as_str());
                (name, &m.value)
            })
            .collect(),
    )
}

/// Whether a text is such a delta.
pub fn sniff(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if !t.starts_with('{') || !t.contains("\"bullets\"") {
        return false;
    }
    ace_jsonspan::parse(text)
        .ok()
        .is_some_and(|d| payloads(&d.root).is_some())
}

fn count(node: &Node, key: &str) -> Result<i64, (Span, String)> {
    match node.get(key) {
        None => Ok(0),
        Some(v) => match &v.kind {
            Kind::Number(n) if !n.contains(['.', 'e', 'E']) => n
                .parse()
                .map_err(|_| (v.span, format!("`{key}` is too large"))),
            _ => Err((
                v.span,
                format!("`{key}` is {}; expected a whole number", v.type_name()),
            )),
        },
    }
}

fn string<'n>(node: &'n Node, key: &str, command: &str) -> Result<&'n str, (Span, String)> {
    match node.get(key) {
        Some(v) => v.as_str().ok_or_else(|| {
            (
                v.span,
                format!("`{key}` is {}; expected a string", v.type_name()),
            )
        }),
        None => Err((
            Span::new(node.span.start, node.span.start + 1),
            format!("`{command}` needs the bullet's `{key}`"),
        )),
    }
}

/// The command a bare payload's bullet is.
fn told(b: &Node) -> &'static str {
    let keys: Vec<&str> = b
        .members()
        .map(|m| m.iter().map(|k| k.key.as_str()).collect())
        .unwrap_or_default();
    if keys.contains(&"section") {
        "add"
    } else if keys == ["id"] {
        "remove"
    } else {
        "update"
    }
}

/// The changes one bullet of `command` makes.
fn changes(b: &Node, command: &str) -> Result<Vec<Change>, (Span, String)> {
    if b.members().is_none() {
        return Err((
            b.span,
            format!("a bullet is a JSON object; found {}", b.type_name()),
        ));
    }
    if let Some(m) = b
        .members()
        .and_then(|m| m.iter().find(|k| !KEYS.contains(&k.key.as_str())))
    {
        return Err((
            m.key_span,
            format!(
                "`{}` is no key of a delta bullet; expected {}",
                m.key,
                KEYS.join(", ")
            ),
        ));
    }
    let id = string(b, "id", command)?.to_owned();
    let target = || Target::Id(id.clone());
    Ok(match command {
        "add" => {
            let section = string(b, "section", command)?;
            if !crate::SECTIONS.contains(&section) {
                let at = b.get("section").map_or(b.span, |s| s.span);
                return Err((
                    at,
                    format!(
                        "Invalid section: {section}; expected one of {}",
                        ace_records::one_of(&crate::SECTIONS)
                    ),
                ));
            }
            vec![Change::Add(Entry {
                id,
                section: Some(section.to_owned()),
                content: string(b, "content", command)?.to_owned(),
                helpful: Some(count(b, "helpful")?),
                harmful: Some(count(b, "harmful")?),
                ..Entry::default()
            })]
        }
        "update" => {
            let mut out = Vec::new();
            if let Some(c) = b.get("content") {
                let content = c.as_str().ok_or((
                    c.span,
                    format!("`content` is {}; expected a string", c.type_name()),
                ))?;
                out.push(Change::Set {
                    target: target(),
                    from: Box::new(Entry {
                        content: content.to_owned(),
                        ..Entry::default()
                    }),
                    fields: vec!["content".into()],
                });
            }
            if let Some(s) = b.get("section") {
                return Err((
                    s.span,
                    "`update` takes `helpful`, `harmful` and `content`; a section is set by `add`"
                        .into(),
                ));
            }
            let (helpful, harmful) = (count(b, "helpful")?, count(b, "harmful")?);
            if helpful != 0 || harmful != 0 || out.is_empty() {
                out.push(Change::Count {
                    target: target(),
                    helpful,
                    harmful,
                    neutral: 0,
                });
            }
            out
        }
        _ => vec![Change::Remove { target: target() }],
    })
}

/// The deltas of a file, one per command, and the findings on them.
pub type Parsed = (Vec<Delta>, Vec<Diagnostic>);

/// The deltas of `text`, one per command, and the findings on them.
pub fn parse(text: &str) -> Result<Option<Parsed>, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let Some(parts) = payloads(&doc.root) else {
        return Ok(None);
    };
    let mut diags = doc.diagnostics;
    let mut deltas = Vec::new();
    for (command, node) in parts {
        let mut delta = Delta::new(node.span);
        let items = node.get("bullets").and_then(Node::as_array).unwrap_or(&[]);
        if items.is_empty() {
            let at = node.get("bullets").map_or(node.span, |b| b.span);
            diags.push(finding(
                at,
                "`bullets` is empty or not a list: the command has nothing to do",
            ));
        }
        for b in items {
            let command = command.unwrap_or_else(|| told(b));
            match changes(b, command) {
                Ok(changes) => delta.ops.extend(changes.into_iter().map(|change| Op {
                    change,
                    span: b.span,
                })),
                Err((span, message)) => {
                    delta.refuse(Reason::Invalid, span, message.clone());
                    diags.push(finding(span, message));
                }
            }
        }
        deltas.push(delta);
    }
    Ok(Some((deltas, diags)))
}

pub struct Deltas;

/// The dialect as the registry lists it.
pub static DELTA: Deltas = Deltas;

impl DeltaDialect for Deltas {
    fn name(&self) -> &'static str {
        "code-engine-delta"
    }

    fn describe(&self) -> &'static str {
        "Code Engine ACE's manual deltas (`ace-cli delta add|update|remove`), one payload or one per command"
    }

    fn what(&self) -> &'static str {
        "a Code Engine ACE delta"
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        sniff(input.text).then_some(Confidence::Marker)
    }

    fn read(&self, text: &str, _: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        Ok(parse(text)?.map(|(d, _)| d))
    }

    fn writes(&self) -> bool {
        true
    }

    /// One payload per command, in the order they are run.
    fn write(&self, delta: &Delta, _: &DeltaWriteCtx<'_>) -> Option<WrittenDelta> {
        let mut lost = Vec::new();
        let mut add = Vec::new();
        let mut update: Vec<Map<String, Value>> = Vec::new();
        let mut remove = Vec::new();
        let mut updated = |id: &str, key: &str, v: Value| match update
            .iter_mut()
            .find(|b| b.get("id").and_then(Value::as_str) == Some(id))
        {
            Some(b) => {
                let sum = b.get(key).and_then(Value::as_i64).unwrap_or(0) + v.as_i64().unwrap_or(0);
                b.insert(key.into(), if v.is_i64() { Value::from(sum) } else { v });
            }
            None => {
                let mut b = Map::new();
                b.insert("id".into(), Value::from(id));
                b.insert(key.into(), v);
                update.push(b);
            }
        };
        for o in &delta.ops {
            match &o.change {
                Change::Add(e) => {
                    let section = crate::section_for(e.section.as_deref().unwrap_or(""));
                    add.push(json!({
                        "id": e.id,
                        "content": e.content,
                        "section": section,
                        "helpful": e.helpful.unwrap_or(0),
                        "harmful": e.harmful.unwrap_or(0),
                    }));
                }
                Change::Set {
                    target,
                    from,
                    fields,
                } => {
                    let Some(id) = target.id_for(self.name(), &mut lost) else {
                        continue;
                    };
                    for f in fields {
                        if f == "content" {
                            updated(&id, "content", Value::from(from.content.clone()));
                        } else {
                            lost.push(format!("{PROJECT}'s `update` cannot set `{id}`'s {f}"));
                        }
                    }
                }
                Change::Replace { target, entry } => {
                    let Some(id) = target.id_for(self.name(), &mut lost) else {
                        continue;
                    };
                    updated(&id, "content", Value::from(entry.content.clone()));
                    lost.push(format!(
                        "{PROJECT}'s `update` sets `{id}`'s content alone of what replaces it"
                    ));
                }
                Change::Count {
                    target,
                    helpful,
                    harmful,
                    neutral,
                } => {
                    let Some(id) = target.id_for(self.name(), &mut lost) else {
                        continue;
                    };
                    if *neutral != 0 {
                        lost.push(format!(
                            "{PROJECT} has no neutral counter: `{id}`'s {neutral} is not said"
                        ));
                    }
                    for (k, n) in [("helpful", *helpful), ("harmful", *harmful)] {
                        if n < 0 {
                            lost.push(format!(
                                "{PROJECT}'s `update` counts up only: `{id}`'s {k} {n} is not said"
                            ));
                        } else if n > 0 {
                            updated(&id, k, Value::from(n));
                        }
                    }
                }
                Change::Remove { target } | Change::Deprecate { target, .. } => {
                    let Some(id) = target.id_for(self.name(), &mut lost) else {
                        continue;
                    };
                    if matches!(o.change, Change::Deprecate { .. }) {
                        lost.push(format!("{PROJECT} has no deprecation: `{id}` is removed"));
                    }
                    remove.push(json!({ "id": id }));
                }
                other => {
                    let names: Vec<String> =
                        other.targets().iter().map(|t| t.to_string()).collect();
                    lost.push(format!(
                        "{PROJECT}'s delta commands have no `{}`: {} not said",
                        other.name(),
                        names.join(", ")
                    ));
                }
            }
        }
        let mut out = Map::new();
        for (name, list) in [
            ("add", add),
            ("update", update.into_iter().map(Value::Object).collect()),
            ("remove", remove),
        ] {
            if !list.is_empty() {
                out.insert(name.into(), json!({ "bullets": list }));
            }
        }
        Some((Value::Object(out), lost))
    }

    fn checks(&self) -> &'static [&'static dyn DocumentCheck] {
        &CHECKS
    }
}

/// The findings on a delta, for ace-validate.
pub static CHECK: ace_records::DeltaCheck = ace_records::DeltaCheck {
    name: "code-engine-delta",
    describe: "Code Engine ACE's delta payloads, each bullet as its command takes it",
    sniff,
    findings: |text| Ok(parse(text)?.map(|(_, d)| d).unwrap_or_default()),
};

static CHECKS: [&dyn DocumentCheck; 1] = [&CHECK];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_payloads_read_as_their_commands() {
        let add = r#"{"bullets": [{"id": "manual-001", "content": "Use HTTP-only cookies for JWT refresh tokens to prevent XSS attacks", "section": "strategies_and_hard_rules", "helpful": 0, "harmful": 0}]}"#;
        let (d, diags) = parse(add).unwrap().unwrap();
        assert!(diags.is_empty());
        assert!(matches!(&d[0].ops[0].change, Change::Add(e) if e.id == "manual-001"));
        let update = r#"{"bullets": [{"id": "ctx-1749038476-4cb2", "helpful": 5}]}"#;
        let (d, _) = parse(update).unwrap().unwrap();
        assert!(matches!(
            d[0].ops[0].change,
            Change::Count {
                helpful: 5,
                harmful: 0,
                ..
            }
        ));
        let remove = r#"{"bullets": [{"id": "ctx-1749038476-4cb2"}]}"#;
        let (d, _) = parse(remove).unwrap().unwrap();
        assert!(matches!(d[0].ops[0].change, Change::Remove { .. }));
    }

    #[test]
    fn an_invalid_section_is_refused_at_it() {
        let text = r#"{"add": {"bullets": [{"id": "m-1", "content": "x", "section": "misc"}]}}"#;
        let (d, diags) = parse(text).unwrap().unwrap();
        assert_eq!(d[0].refusals.len(), 1);
        assert_eq!(&text[diags[0].span.start..diags[0].span.end], "\"misc\"");
        assert!(diags[0].message.contains("Invalid section: misc"));
    }

    #[test]
    fn a_skill_playbook_is_no_payload() {
        let skill =
            r#"{"bullets": [{"id": "bullet-2025-10-25-001", "title": "t", "content": "c"}]}"#;
        assert!(!sniff(skill));
    }
}
