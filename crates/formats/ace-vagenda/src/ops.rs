//! A vAgenda PlaybookPatch (the first drafts' AcePatch) or a bare patch
//! operation as a canonical [`Delta`], for `ace-apply`. The patch is
//! refused for every error the reader's schema check and
//! [`crate::check_patch`] report in it.

use ace_jsonspan::Node;
use ace_model::delta::{Change, Delta, Op, Reason, Target};
use ace_model::{Diagnostic, Severity};
use serde_json::Value;

use crate::{entry, reader, DocKind, Syntax};

fn entry_of(n: &Node) -> Option<ace_model::Entry> {
    match n.to_value() {
        Value::Object(m) => Some(entry::read(reader::as_ace_entry(m), Some(n.span))),
        _ => None,
    }
}

/// A new entry, in the section its kind derives, as a document holding it
/// would be read: the writer leaves out a section the kind gives back.
fn new_entry(n: &Node) -> Option<ace_model::Entry> {
    let mut e = entry_of(n)?;
    if e.section.is_none() {
        let m = reader::as_ace_entry(n.to_value().as_object()?.clone());
        if let Some(row) = entry::kind_for_derivation(&m)
            .and_then(|k| ace_model::mapping::BUILT_IN.section_for_kind(k))
        {
            e.section = Some(row.key.to_owned());
        }
    }
    Some(e)
}

fn count(delta: Option<&Node>, key: &str) -> i64 {
    delta
        .and_then(|d| d.get(key))
        .and_then(|n| n.to_value().as_i64())
        .unwrap_or(0)
}

fn op(n: &Node) -> Option<Change> {
    let kind = n.get("op").and_then(Node::as_str)?;
    let entry = n.get("entry");
    let id = n
        .get("entryId")
        .and_then(Node::as_str)
        .or_else(|| entry.and_then(|e| e.get("id")).and_then(Node::as_str))
        .map(|s| Target::Id(s.to_owned()));
    let reason = n.get("reason").and_then(Node::as_str).map(str::to_owned);
    Some(match kind {
        "appendEntry" => Change::Add(new_entry(entry?)?),
        "updateEntry" => Change::Replace {
            target: id?,
            entry: Box::new(entry_of(entry?)?),
        },
        "incrementCounter" => {
            let delta = n.get("delta");
            Change::Count {
                target: id?,
                helpful: count(delta, "helpfulCount"),
                harmful: count(delta, "harmfulCount"),
                neutral: 0,
            }
        }
        "deprecateEntry" => Change::Deprecate {
            target: id?,
            reason,
        },
        _ => return None,
    })
}

/// The patch in `text`, or `None` when `text` is not a patch or a patch
/// operation. A text that does not parse is the error.
pub fn read_patch(text: &str, syntax: Syntax) -> Result<Option<Delta>, Diagnostic> {
    let (read, kind) = reader::read_classified(text, syntax)?;
    if !matches!(kind, Some(DocKind::Patch | DocKind::PatchOp)) {
        return Ok(None);
    }
    let doc = reader::parse(text, syntax)?;
    let root = &doc.root;
    let mut delta = Delta::new(root.span);
    delta.base_sequence = root
        .get("baseDocumentSequence")
        .and_then(|n| n.to_value().as_i64());
    let nodes: Vec<&Node> = match root.get("operations").and_then(Node::as_array) {
        Some(items) => items.iter().collect(),
        None => vec![root],
    };
    for n in nodes {
        match op(n) {
            Some(change) => delta.ops.push(Op {
                change,
                span: n.span,
            }),
            None => delta.refuse(
                Reason::Invalid,
                n.span,
                "expected an operation `appendEntry` (with `entry`), `updateEntry` (with `entryId` and `entry`), `incrementCounter` (with `entryId` and `delta`) or `deprecateEntry` (with `entryId`)",
            ),
        }
    }
    let patch_findings = crate::check_patch(text, syntax, None);
    for d in read.diagnostics.iter().chain(&patch_findings) {
        if d.severity < Severity::Error {
            continue;
        }
        delta.refuse(
            Reason::for_rule(d.code),
            d.span,
            format!("{} ({})", d.message, d.code),
        );
    }
    Ok(Some(delta))
}

/// The event fields an `update` event sets, as the canonical model names
/// them. `narrative` (vContext 0.4) is the content too.
const EVENT_FIELDS: [(&str, &str); 13] = [
    ("kind", "kind"),
    ("title", "title"),
    ("text", "content"),
    ("narrative", "content"),
    ("tags", "tags"),
    ("evidence", "evidence"),
    ("confidence", "confidence"),
    ("feedbackType", "extra.feedbackType"),
    ("status", "status"),
    ("deprecatedReason", "deprecation_reason"),
    ("supersedes", "supersedes"),
    ("supersededBy", "superseded_by"),
    ("duplicateOf", "duplicate_of"),
];

fn is_event(n: &Node) -> bool {
    ["eventId", "targetId", "operation"]
        .iter()
        .all(|k| n.get(k).and_then(Node::as_str).is_some())
}

/// The Playbooks extension's events (vAgenda 0.2 final, 0.3, vContext
/// 0.4) as deltas, one per event, its `eventId` the delta's ID: one event,
/// an array, `{"items": [...]}` or `{"entries": [...]}` of them, or JSON
/// Lines. `None` when `text` holds none.
pub fn read_events(text: &str) -> Result<Option<Vec<Delta>>, Diagnostic> {
    // Every event names its target: a text without the key is none,
    // found without parsing it.
    if !text.contains("\"targetId\"") {
        return Ok(None);
    }
    let nodes = ace_jsonspan::records(text, &["items", "entries"])?;
    if nodes.is_empty() || !nodes.iter().all(is_event) {
        return Ok(None);
    }
    Ok(Some(nodes.iter().map(event).collect()))
}

fn event(n: &Node) -> Delta {
    let mut d = Delta::new(n.span);
    let text = |k: &str| n.get(k).and_then(Node::as_str).map(str::to_owned);
    d.id = text("eventId");
    d.created_at = text("createdAt");
    let target = text("targetId").unwrap_or_default();
    let value = n.to_value();
    d.raw = Some(value.clone());
    let Value::Object(m) = value else {
        return d;
    };
    let delta = n.get("delta");
    let counts = (count(delta, "helpfulCount"), count(delta, "harmfulCount"));
    let op = text("operation").unwrap_or_default();
    d.base_event = text("prevEventId").map(|prev| (target.clone(), prev));
    match op.as_str() {
        "append" | "initial" => {
            if m.contains_key("prevEventId") {
                d.refuse(
                    Reason::Invalid,
                    n.span,
                    "an `append` event starts its target's log: it has no `prevEventId`",
                );
                return d;
            }
            let (view, problems) = crate::events::view(&[Value::Object(m)]);
            if let Some(p) = problems.first() {
                d.refuse(Reason::Invalid, n.span, p.message.clone());
                return d;
            }
            let Some(v) = view.into_iter().next() else {
                return d;
            };
            let mut entry = entry::read(reader::as_ace_entry(v.entry), Some(n.span));
            entry.id = target;
            d.ops.push(Op {
                change: Change::Add(entry),
                span: n.span,
            });
        }
        "update" => {
            let mut fields = Vec::new();
            let mut partial = serde_json::Map::new();
            partial.insert("id".into(), Value::String(target.clone()));
            for (key, name) in EVENT_FIELDS {
                if let Some(v) = m.get(key) {
                    partial.insert(key.into(), v.clone());
                    if !fields.iter().any(|f| f == name) {
                        fields.push(name.to_owned());
                    }
                }
            }
            if !fields.is_empty() {
                let from = entry::read(reader::as_ace_entry(partial), Some(n.span));
                d.ops.push(Op {
                    change: Change::Set {
                        target: Target::Id(target.clone()),
                        from: Box::new(from),
                        fields,
                    },
                    span: n.span,
                });
            }
            if counts != (0, 0) {
                d.ops.push(Op {
                    change: Change::Count {
                        target: Target::Id(target),
                        helpful: counts.0,
                        harmful: counts.1,
                        neutral: 0,
                    },
                    span: delta.map_or(n.span, |x| x.span),
                });
            }
        }
        "deprecate" => d.ops.push(Op {
            change: Change::Deprecate {
                target: Target::Id(target),
                reason: text("deprecatedReason").or_else(|| text("reason")),
            },
            span: n.span,
        }),
        other => d.refuse(
            Reason::Invalid,
            n.get("operation").map_or(n.span, |o| o.span),
            format!("event operation `{other}` is not one of `initial`, `append`, `update`, `deprecate`"),
        ),
    }
    d
}

/// `delta` as a vAgenda PlaybookPatch (`{"operations": [...]}`), entries
/// written as the vAgenda writer writes them, and what the patch cannot
/// say: a removal (AcePatch deprecates, softly, and has no removal; it is
/// written as `deprecateEntry`), a target without an ID, a merge.
///
/// A `set` change is an `updateEntry` carrying the whole entry with the
/// counters it had before, so that the `incrementCounter` of the same
/// entry adds to them as it would to a counter changed meanwhile.
pub fn write_patch(
    delta: &Delta,
    sections: &ace_model::mapping::SectionMap,
    holds_kind: bool,
) -> (Value, Vec<String>) {
    use serde_json::json;
    let kind = |e: &ace_model::Entry| match e.section.as_deref() {
        Some(key) => sections.kind_for_section(key, None, None),
        None => "note",
    };
    let entry = |e: &ace_model::Entry| {
        Value::Object(entry::write(e, kind(e), sections, entry::Extras::OnEntry))
    };
    let mut ops = Vec::new();
    let mut lost = Vec::new();
    let mut counts: Vec<Value> = Vec::new();
    // Each entry's increments in this delta, by ID.
    let mut counted: std::collections::HashMap<&str, (i64, i64)> = Default::default();
    for op in &delta.ops {
        if let Change::Count {
            target: Target::Id(id),
            helpful,
            harmful,
            ..
        } = &op.change
        {
            let c = counted.entry(id.as_str()).or_default();
            *c = (c.0 + helpful, c.1 + harmful);
        }
    }
    let zones = |e: &ace_model::Entry, lost: &mut Vec<String>| {
        // Every vAgenda entry has a kind: one without gets its section's,
        // which the playbook keeps if it holds kinds.
        if holds_kind && e.kind.is_none() {
            lost.push(format!(
                "`{}` has no kind; an AcePatch entry gets its section's (`{}`)",
                e.id,
                kind(e)
            ));
        }
        for (field, t) in [("created_at", &e.created_at), ("updated_at", &e.updated_at)] {
            if t.as_deref().and_then(ace_model::time::with_zone).is_some() {
                lost.push(format!(
                    "`{}` {field} {}",
                    e.id,
                    ace_model::time::ZONE_ADDED
                ));
            }
        }
    };
    for op in &delta.ops {
        match &op.change {
            Change::Add(e) => zones(e, &mut lost),
            Change::Replace { entry: e, .. } | Change::Set { from: e, .. } => zones(e, &mut lost),
            _ => {}
        }
        let id = |t: &Target, lost: &mut Vec<String>| t.id_for("an AcePatch", lost);
        lost.extend(op.change.unsaid_by("an AcePatch"));
        match &op.change {
            Change::Append { .. } => {}
            Change::Add(e) => ops.push(json!({"op": "appendEntry", "entry": entry(e)})),
            Change::Count {
                target,
                helpful,
                harmful,
                ..
            } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let mut d = serde_json::Map::new();
                if *helpful != 0 {
                    d.insert("helpfulCount".into(), json!(helpful));
                }
                if *harmful != 0 {
                    d.insert("harmfulCount".into(), json!(harmful));
                }
                counts.push(json!({"op": "incrementCounter", "entryId": id, "delta": d}));
            }
            Change::Set {
                target,
                from,
                fields,
            } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                // A time alone, on an entry this patch increments: the
                // increment stamps its own time, so an update would only
                // be overwritten.
                if fields.iter().all(|f| f == "updated_at") && counted.contains_key(id.as_str()) {
                    continue;
                }
                let mut e = (**from).clone();
                // The counters before the increments of this patch.
                if let Some((helpful, harmful)) = counted.get(id.as_str()) {
                    e.helpful = e.helpful.map(|h| h - helpful);
                    e.harmful = e.harmful.map(|h| h - harmful);
                }
                e.id.clone_from(&id);
                ops.push(json!({"op": "updateEntry", "entryId": id, "entry": entry(&e)}));
            }
            Change::Replace { target, entry: e } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                ops.push(json!({"op": "updateEntry", "entryId": id, "entry": entry(e)}));
            }
            Change::Deprecate { target, reason } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                let mut o = json!({"op": "deprecateEntry", "entryId": id});
                if let Some(r) = reason {
                    o["reason"] = json!(r);
                }
                ops.push(o);
            }
            Change::Remove { target } => {
                let Some(id) = id(target, &mut lost) else {
                    continue;
                };
                lost.push(format!(
                    "`{id}` is removed; an AcePatch has no removal and deprecates it instead"
                ));
                ops.push(json!({"op": "deprecateEntry", "entryId": id, "reason": "removed"}));
            }
            Change::Merge { .. } => lost.push("a merge has no AcePatch operation".into()),
        }
    }
    // Increments last: they add to what the updates leave.
    ops.extend(counts);
    (json!({ "operations": ops }), lost)
}

#[cfg(test)]
mod tests {
    use super::*;

    const APPEND: &str = r#"{"eventId": "e1", "targetId": "t1", "operation": "append", "kind": "strategy", "text": "Write the test first.", "tags": ["testing"], "createdAt": "2025-12-27T09:00:00Z"}"#;
    const UPDATE: &str = r#"{"eventId": "e2", "targetId": "t1", "operation": "update", "prevEventId": "e1", "delta": {"helpfulCount": 2}, "narrative": {"Overview": "Refined."}, "createdAt": "2025-12-27T09:10:00Z"}"#;
    const DEPRECATE: &str = r#"{"eventId": "e3", "targetId": "t1", "operation": "deprecate", "prevEventId": "e2", "deprecatedReason": "superseded", "createdAt": "2025-12-27T09:20:00Z"}"#;

    fn changes(d: &Delta) -> Vec<&'static str> {
        d.ops.iter().map(|o| o.change.name()).collect()
    }

    #[test]
    fn events_read_one_delta_each_in_every_container() {
        let lines = format!("{APPEND}\n{UPDATE}\n{DEPRECATE}\n");
        let array = format!("[{APPEND}, {UPDATE}, {DEPRECATE}]");
        let items = format!(r#"{{"items": [{APPEND}, {UPDATE}, {DEPRECATE}]}}"#);
        for text in [lines, array, items] {
            let ds = read_events(&text).unwrap().expect("events");
            let ids: Vec<_> = ds.iter().map(|d| d.id.as_deref().unwrap()).collect();
            assert_eq!(ids, ["e1", "e2", "e3"], "{text}");
            assert_eq!(changes(&ds[0]), ["add"]);
            assert_eq!(changes(&ds[1]), ["set", "count"]);
            assert_eq!(changes(&ds[2]), ["deprecate"]);
            let Change::Add(e) = &ds[0].ops[0].change else {
                unreachable!()
            };
            assert_eq!(
                (e.id.as_str(), e.content.as_str()),
                ("t1", "Write the test first.")
            );
            let Change::Set { from, fields, .. } = &ds[1].ops[0].change else {
                unreachable!()
            };
            // vContext 0.4's narrative is the content.
            assert_eq!(fields, &["content"]);
            assert_eq!(from.content, "Refined.");
            assert_eq!(ds[1].base_event, Some(("t1".into(), "e1".into())));
            assert!(ds.iter().all(|d| d.refusals.is_empty()));
        }
        let one = read_events(APPEND).unwrap().expect("one event");
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn what_is_not_an_event_log_is_left_to_the_other_dialects() {
        assert!(read_events(r#"{"operations": []}"#).unwrap().is_none());
        // One item that is no event makes the file none.
        let mixed = format!(r#"[{APPEND}, {{"targetId": "x"}}]"#);
        assert!(read_events(&mixed).unwrap().is_none());
    }

    #[test]
    fn malformed_events_are_refused_as_invalid() {
        let bad_op = APPEND.replace("\"append\"", "\"rename\"");
        let d = &read_events(&bad_op).unwrap().unwrap()[0];
        assert_eq!(d.refusals[0].reason, Reason::Invalid);
        let linked_append =
            APPEND.replace("\"operation\"", "\"prevEventId\": \"e0\", \"operation\"");
        let d = &read_events(&linked_append).unwrap().unwrap()[0];
        assert_eq!(d.refusals[0].reason, Reason::Invalid);
    }
}
