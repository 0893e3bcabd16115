//! DannyMac180/ACE's delta, `{"ops": [{op, target_id, new_bullet,
//! patch}]}`, as `ace curate` prints it and `ace commit`, `ace tag`, the
//! MCP server's `ace_commit` and the pipeline apply it through
//! `ace/core/merge.py::apply_delta`, whose semantics these are:
//!
//! - `ADD` makes `Bullet(id, section, content, tags)` from `new_bullet`,
//!   counters at 0, and stores it by ID: a bullet of that ID is replaced
//!   (its `added_at` stays, as the store's `update_bullet` keeps it).
//! - `PATCH` sets the target's content to `patch`.
//! - `INCR_HELPFUL` and `INCR_HARMFUL` add one to a counter.
//! - `DEPRECATE` adds one to `harmful` (the bullet stays).
//! - An operation on an ID the playbook lacks is passed over, and so is
//!   an operation of another name.
//! - The playbook's version goes up by one for the delta (the dump's
//!   ledger).
//!
//! Where `merge.py` would stop half-way with a `KeyError` or a pydantic
//! error (an `ADD` without `new_bullet.id`, a section that does not
//! load, a `PATCH` without `patch`), the delta is refused whole.

use ace_format::{
    Confidence, DeltaDialect, DeltaReadCtx, DeltaWriteCtx, DocumentCheck, Sniff, WrittenDelta,
};
use ace_jsonspan::Node;
use ace_model::delta::{Change, Delta, Op, Reason, Rules, Target};
use ace_model::{Diagnostic, Entry, Span};
use serde_json::{json, Value};

use crate::PROJECT;

/// The operations `merge.apply_delta` acts on.
pub const NAMES: [&str; 5] = ["ADD", "PATCH", "INCR_HELPFUL", "INCR_HARMFUL", "DEPRECATE"];

/// Whether a text is such a delta: `ops` holding one of the operations
/// by name.
pub fn sniff(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('{')
        && t.contains("\"ops\"")
        && NAMES.iter().any(|n| t.contains(&format!("\"{n}\"")))
        && (t.contains("\"target_id\"") || t.contains("\"new_bullet\""))
}

fn finding(span: Span, message: impl std::fmt::Display) -> Diagnostic {
    ace_records::shape(PROJECT, span, message)
}

fn string<'n>(node: &'n Node, key: &str) -> Result<&'n str, (Span, String)> {
    match node.get(key) {
        Some(v) => v.as_str().ok_or_else(|| {
            (
                v.span,
                format!("`{key}` is {}; expected a string", v.type_name()),
            )
        }),
        None => Err((
            Span::new(node.span.start, node.span.start + 1),
            format!("this operation has no `{key}`, which `merge.apply_delta` reads"),
        )),
    }
}

/// The change one operation makes: `Ok(None)` for an operation
/// `merge.apply_delta` passes over, `Err` for one it fails on.
fn change(node: &Node) -> Result<Option<Change>, (Span, String)> {
    if node.members().is_none() {
        return Err((
            node.span,
            format!("an operation is a JSON object; found {}", node.type_name()),
        ));
    }
    let op = string(node, "op")?;
    let target = || string(node, "target_id").map(|t| Target::Id(t.to_owned()));
    let count = |helpful, harmful| -> Result<Option<Change>, (Span, String)> {
        Ok(Some(Change::Count {
            target: target()?,
            helpful,
            harmful,
            neutral: 0,
        }))
    };
    match op {
        "ADD" => {
            let Some(b) = node.get("new_bullet").filter(|b| b.members().is_some()) else {
                let at = node.get("new_bullet").map_or(node.span, |b| b.span);
                return Err((at, "`ADD` needs `new_bullet`, an object".into()));
            };
            let section = string(b, "section")?;
            let Some(loads) = crate::normalized(section) else {
                let at = b.get("section").map_or(b.span, |s| s.span);
                return Err((
                    at,
                    format!(
                        "section `{section}` does not load; expected one of {}",
                        ace_records::one_of(&crate::SECTIONS)
                    ),
                ));
            };
            let mut e = Entry {
                id: string(b, "id")?.to_owned(),
                section: Some(loads.to_owned()),
                content: string(b, "content")?.to_owned(),
                helpful: Some(0),
                harmful: Some(0),
                ..Entry::default()
            };
            let tags = match b.get("tags") {
                None => Vec::new(),
                Some(t) => t
                    .as_array()
                    .and_then(|items| {
                        items
                            .iter()
                            .map(|i| i.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>()
                    })
                    .ok_or((t.span, "`tags` is not a list of strings".to_owned()))?,
            };
            e.tags = Some(tags);
            e.extra.insert("last_used", Value::Null);
            Ok(Some(Change::Add(e)))
        }
        "PATCH" => {
            let target = target()?;
            let from = Entry {
                content: string(node, "patch")?.to_owned(),
                ..Entry::default()
            };
            Ok(Some(Change::Set {
                target,
                from: Box::new(from),
                fields: vec!["content".into()],
            }))
        }
        "INCR_HELPFUL" => count(1, 0),
        "INCR_HARMFUL" | "DEPRECATE" => count(0, 1),
        _ => Ok(None),
    }
}

/// The delta in `text` and the findings on it, each at its value.
pub fn parse(text: &str) -> Result<Option<(Delta, Vec<Diagnostic>)>, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let root = &doc.root;
    let Some(ops) = root.get("ops") else {
        return Ok(None);
    };
    let mut diags = doc.diagnostics;
    let mut delta = Delta::new(root.span);
    let Some(items) = ops.as_array() else {
        let message = format!("`ops` is {}; expected a list", ops.type_name());
        delta.refuse(Reason::Invalid, ops.span, message.clone());
        diags.push(finding(ops.span, message));
        return Ok(Some((delta, diags)));
    };
    for item in items {
        match change(item) {
            Ok(Some(change)) => delta.ops.push(Op {
                change,
                span: item.span,
            }),
            Ok(None) => {
                let name = item.get("op").and_then(Node::as_str).unwrap_or("");
                let at = item.get("op").map_or(item.span, |o| o.span);
                diags.push(finding(
                    at,
                    format_args!(
                        "`{name}` is no operation `merge.apply_delta` knows, which passes over it; expected one of {}",
                        NAMES.join(", ")
                    ),
                ));
            }
            Err((span, message)) => {
                delta.refuse(Reason::Invalid, span, message.clone());
                diags.push(finding(span, message));
            }
        }
    }
    Ok(Some((delta, diags)))
}

pub struct Ops;

/// The dialect as the registry lists it.
pub static OPS: Ops = Ops;

impl DeltaDialect for Ops {
    fn name(&self) -> &'static str {
        "dannymac-ops"
    }

    fn describe(&self) -> &'static str {
        "DannyMac180/ACE's delta operations (ADD, PATCH, INCR_HELPFUL, INCR_HARMFUL, DEPRECATE)"
    }

    fn what(&self) -> &'static str {
        "a DannyMac180/ACE delta"
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        sniff(input.text).then_some(Confidence::Marker)
    }

    fn read(&self, text: &str, _: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        Ok(parse(text)?.map(|(d, _)| vec![d]))
    }

    fn rules(&self) -> Rules {
        Rules {
            skip_unknown_ids: true,
            add_replaces: true,
            ..Rules::PLAIN
        }
    }

    fn writes(&self) -> bool {
        true
    }

    /// As `ace curate --json` prints a delta: every operation with all
    /// four keys. Counters travel as one `INCR_*` a count, so a new
    /// bullet's counters follow its `ADD`.
    fn write(&self, delta: &Delta, _: &DeltaWriteCtx<'_>) -> Option<WrittenDelta> {
        let mut lost = Vec::new();
        let mut ops = Vec::new();
        let op = |name: &str, target: Option<&str>, bullet: Value, patch: Option<&str>| json!({"op": name, "target_id": target, "new_bullet": bullet, "patch": patch});
        let incr =
            |id: &str, helpful: i64, harmful: i64, ops: &mut Vec<Value>, lost: &mut Vec<String>| {
                for (name, n) in [("INCR_HELPFUL", helpful), ("INCR_HARMFUL", harmful)] {
                    if n < 0 {
                        lost.push(format!(
                            "{PROJECT} counts up only: `{id}`'s {n} to {name} is not said"
                        ));
                    }
                    for _ in 0..n.max(0) {
                        ops.push(op(name, Some(id), Value::Null, None));
                    }
                }
            };
        let add = |e: &Entry, id: String, ops: &mut Vec<Value>, lost: &mut Vec<String>| {
            let section = crate::section_for(e.section.as_deref().unwrap_or(""));
            let bullet = json!({
                "id": id,
                "section": section,
                "content": e.content,
                "tags": e.tags.clone().unwrap_or_default(),
            });
            ops.push(op("ADD", None, bullet, None));
            incr(
                &id,
                e.helpful.unwrap_or(0),
                e.harmful.unwrap_or(0),
                ops,
                lost,
            );
        };
        for o in &delta.ops {
            match &o.change {
                Change::Add(e) => add(e, e.id.clone(), &mut ops, &mut lost),
                Change::Replace { target, entry } => {
                    if let Some(id) = target.id_for(self.name(), &mut lost) {
                        add(entry, id, &mut ops, &mut lost);
                    }
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
                            ops.push(op("PATCH", Some(&id), Value::Null, Some(&from.content)));
                        } else {
                            lost.push(format!("{PROJECT}'s operations cannot set `{id}`'s {f}"));
                        }
                    }
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
                    incr(&id, *helpful, *harmful, &mut ops, &mut lost);
                }
                Change::Deprecate { target, .. } => {
                    let Some(id) = target.id_for(self.name(), &mut lost) else {
                        continue;
                    };
                    lost.push(format!(
                        "{PROJECT}'s `DEPRECATE` adds one to `{id}`'s harmful and keeps it"
                    ));
                    ops.push(op("DEPRECATE", Some(&id), Value::Null, None));
                }
                other => {
                    let names: Vec<String> =
                        other.targets().iter().map(|t| t.to_string()).collect();
                    lost.push(format!(
                        "{PROJECT}'s operations have no `{}`: {} not said",
                        other.name(),
                        names.join(", ")
                    ));
                }
            }
        }
        Some((json!({ "ops": ops }), lost))
    }

    fn checks(&self) -> &'static [&'static dyn DocumentCheck] {
        &CHECKS
    }
}

/// The findings on a delta, for ace-validate.
pub static CHECK: ace_records::DeltaCheck = ace_records::DeltaCheck {
    name: "dannymac-ops",
    describe: "DannyMac180/ACE's delta: each operation as `merge.apply_delta` reads it",
    sniff,
    findings: |text| Ok(parse(text)?.map(|(_, d)| d).unwrap_or_default()),
};

static CHECKS: [&dyn DocumentCheck; 1] = [&CHECK];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operation_reads_as_merge_py_applies_it() {
        let text = r#"{"ops": [
  {"op": "ADD", "new_bullet": {"id": "trou-1a2b3c4d", "section": "troubleshooting", "content": "x", "tags": ["t"]}},
  {"op": "PATCH", "target_id": "a", "patch": "y"},
  {"op": "INCR_HELPFUL", "target_id": "a"},
  {"op": "DEPRECATE", "target_id": "a"},
  {"op": "ARCHIVE", "target_id": "a"}
]}"#;
        let (d, diags) = parse(text).unwrap().unwrap();
        assert!(d.refusals.is_empty());
        assert_eq!(d.ops.len(), 4);
        match &d.ops[0].change {
            Change::Add(e) => {
                assert_eq!(e.section.as_deref(), Some("troubleshooting_and_pitfalls"))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            d.ops[3].change,
            Change::Count {
                helpful: 0,
                harmful: 1,
                ..
            }
        ));
        assert_eq!(diags.len(), 1);
        assert_eq!(&text[diags[0].span.start..diags[0].span.end], "\"ARCHIVE\"");
    }

    #[test]
    fn an_add_without_an_id_refuses_the_delta_at_the_bullet() {
        let text =
            r#"{"ops": [{"op": "ADD", "new_bullet": {"section": "facts", "content": "x"}}]}"#;
        let (d, diags) = parse(text).unwrap().unwrap();
        assert_eq!(d.refusals.len(), 1);
        assert!(diags[0].message.contains("no `id`"), "{diags:?}");
        assert_eq!(diags[0].span.start, text.find("{\"section\"").unwrap());
    }
}
