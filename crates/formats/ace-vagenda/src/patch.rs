//! The vAgenda ACE extension's ACE invariants for a PlaybookPatch, checked against the
//! playbook it is for (`ace-validate --playbook`).

use std::collections::{HashMap, HashSet};

use ace_jsonspan::Node;
use ace_model::{rules, Diagnostic, Playbook};
use serde_json::{Map, Value};

use crate::{entry, Syntax, LAYOUT_KEY};

/// The playbook a patch applies to, and its document's `sequence`.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub playbook: &'a Playbook,
    pub sequence: Option<i64>,
}

/// The `sequence` of the document a playbook was read from (`plan.sequence`
/// or `todoList.sequence`), when it was read from vAgenda.
pub fn document_sequence(pb: &Playbook) -> Option<i64> {
    let doc = pb.layout_of(LAYOUT_KEY)?.get("document")?;
    ["plan", "todoList"]
        .iter()
        .find_map(|c| doc.get(c)?.get("sequence")?.as_i64())
}

/// Sets the `sequence` of the document a playbook was read from, where
/// [`document_sequence`] finds it; `false` when it has none to set.
pub fn set_document_sequence(pb: &mut Playbook, sequence: i64) -> bool {
    let Some(mut layout) = pb.layout_of(LAYOUT_KEY).cloned() else {
        return false;
    };
    let Some(doc) = layout.get_mut("document") else {
        return false;
    };
    let slot = ["plan", "todoList"].iter().find_map(|c| {
        doc.get(*c)?.get("sequence")?;
        Some(*c)
    });
    let Some(container) = slot else { return false };
    doc[container]["sequence"] = Value::from(sequence);
    pb.set_layout(LAYOUT_KEY, layout);
    true
}

/// The delta IDs the document records as applied: those its `changeLog`
/// names in `relatedChanges` (where `ace-apply` records the deltas it
/// applied to a document that keeps a `sequence`), and the `eventId`s of
/// its playbook's event log.
pub fn logged_deltas(pb: &Playbook) -> Vec<String> {
    let Some(doc) = pb.layout_of(LAYOUT_KEY).and_then(|l| l.get("document")) else {
        return Vec::new();
    };
    let related = ["plan", "todoList"]
        .iter()
        .filter_map(|c| doc.get(c)?.get("changeLog")?.as_array())
        .flatten()
        .filter_map(|change| change.get("relatedChanges")?.as_array())
        .flatten();
    let events = log_of(doc)
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("eventId"));
    related
        .chain(events)
        .filter_map(|id| id.as_str().map(str::to_owned))
        .collect()
}

/// The event log of a kept document's playbook, if it is one.
fn log_of(doc: &Value) -> Option<&Vec<Value>> {
    let p = crate::writer::playbook_object(doc)?;
    let items = ["items", "entries"]
        .iter()
        .find_map(|k| p.get(*k)?.as_array())?;
    // A log is events throughout (notes §3.6): its first item tells.
    items
        .first()
        .is_some_and(|e| e.get("eventId").is_some())
        .then_some(items)
}

/// Appends `events` to the event log of the document a playbook was read
/// from, as they are; `false` when the playbook is not an event log. The
/// writer then finds the entries they changed already recorded, and adds
/// no events of its own for them.
pub fn append_events(pb: &mut Playbook, events: Vec<Value>) -> bool {
    let Some(mut layout) = pb.layout_of(LAYOUT_KEY).cloned() else {
        return false;
    };
    let Some(doc) = layout.get_mut("document") else {
        return false;
    };
    if log_of(doc).is_none() {
        return false;
    }
    let Some(p) = crate::writer::playbook_object_mut(doc) else {
        return false;
    };
    let Some(Value::Array(log)) = ["items", "entries"]
        .into_iter()
        .find(|k| p.get(*k).is_some_and(Value::is_array))
        .and_then(|k| p.get_mut(k))
    else {
        return false;
    };
    log.extend(events);
    pb.set_layout(LAYOUT_KEY, layout);
    true
}

/// The last event of each target of the playbook's event log (target ID to
/// event ID), when the playbook was read from one: what an `update` or
/// `deprecate` event's `prevEventId` must name.
pub fn event_heads(pb: &Playbook) -> Option<std::collections::HashMap<String, String>> {
    let doc = pb.layout_of(LAYOUT_KEY)?.get("document")?;
    let log = log_of(doc)?;
    let (view, _) = crate::events::view(log);
    Some(
        view.into_iter()
            .filter_map(|v| {
                let id = v.entry.get("id")?.as_str()?.to_owned();
                Some((id, v.head_event))
            })
            .collect(),
    )
}

/// Appends `changes` (vAgenda `Change` objects) to the `changeLog` of the
/// document a playbook was read from, when that document keeps a
/// `sequence` (Extension 10, which the change log belongs to); `false`
/// when it does not.
pub fn log_changes(pb: &mut Playbook, changes: Vec<Value>) -> bool {
    let Some(mut layout) = pb.layout_of(LAYOUT_KEY).cloned() else {
        return false;
    };
    let Some(doc) = layout.get_mut("document") else {
        return false;
    };
    let Some(container) = ["plan", "todoList"]
        .iter()
        .find(|c| doc.get(**c).and_then(|d| d.get("sequence")).is_some())
    else {
        return false;
    };
    let Some(obj) = doc[*container].as_object_mut() else {
        return false;
    };
    match obj
        .entry("changeLog")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        Value::Array(log) => log.extend(changes),
        // A change log that is not a list is the document's own business.
        _ => return false,
    }
    pb.set_layout(LAYOUT_KEY, layout);
    true
}

/// The fields an `updateEntry` changes: every field of its entry but the id,
/// less those equal to the target entry's current value.
fn touched(entry: &Map<String, Value>, current: Option<&Map<String, Value>>) -> Vec<String> {
    entry
        .iter()
        .filter(|(k, v)| k.as_str() != "id" && current.and_then(|c| c.get(*k)) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect()
}

/// Every invariant a patch breaks: ids appended twice or already present,
/// operations on ids that do not exist, a stale `baseDocumentSequence`, and
/// two `updateEntry` operations setting one field. Without a target only the
/// last can be checked. A text that does not parse gives no findings here;
/// [`crate::read`] reports it.
pub fn check_patch(text: &str, syntax: Syntax, target: Option<Target>) -> Vec<Diagnostic> {
    let Ok(doc) = crate::reader::parse(text, syntax) else {
        return Vec::new();
    };
    let root = &doc.root;
    let ops: Vec<&Node> = match root.get("operations").and_then(Node::as_array) {
        Some(items) => items.iter().collect(),
        None if root.get("op").is_some() => vec![root],
        None => return Vec::new(),
    };
    let mut out = Vec::new();
    let existing: HashMap<&str, &ace_model::Entry> = target
        .map(|t| {
            t.playbook
                .entries
                .iter()
                .map(|e| (e.id.as_str(), e))
                .collect()
        })
        .unwrap_or_default();
    if let (Some(t), Some(base)) = (target, root.get("baseDocumentSequence")) {
        let base_value = base.to_value();
        match (base_value.as_i64(), t.sequence) {
            (Some(b), Some(s)) if b != s => out.push(
                Diagnostic::new(
                    &rules::PATCH_SEQUENCE,
                    base.span,
                    format!("`baseDocumentSequence` is {b}, but the document's `sequence` is {s}: the patch is concurrent"),
                )
                .with_help("rebase the patch on the current document, or merge it by the vAgenda ACE extension's conflict rules"),
            ),
            (Some(b), None) => out.push(Diagnostic::new(
                &rules::PATCH_SEQUENCE,
                base.span,
                format!("`baseDocumentSequence` is {b}, but the document has no `sequence` to compare with"),
            )),
            _ => {}
        }
    }
    let mut appended: HashSet<String> = HashSet::new();
    let mut updates: HashMap<String, Vec<(String, &Node)>> = HashMap::new();
    for op in ops {
        let kind = op.get("op").and_then(Node::as_str).unwrap_or("");
        let entry_node = op.get("entry");
        let entry_value = entry_node.map(Node::to_value);
        let entry_map = entry_value.as_ref().and_then(Value::as_object);
        let entry_id = op
            .get("entryId")
            .and_then(Node::as_str)
            .map(str::to_owned)
            .or_else(|| {
                entry_map
                    .and_then(|m| m.get("id"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        let Some(id) = entry_id else { continue };
        let at = op
            .get("entryId")
            .or_else(|| entry_node.and_then(|e| e.get("id")))
            .map_or(op.span, |n| n.span);
        match kind {
            "appendEntry" => {
                if existing.contains_key(id.as_str()) {
                    out.push(
                        Diagnostic::new(
                            &rules::PATCH_APPEND_EXISTING,
                            at,
                            format!("`appendEntry` uses id `{id}`, which the playbook already has"),
                        )
                        .with_help("give the new entry a new id, or use `updateEntry`"),
                    );
                } else if !appended.insert(id.clone()) {
                    out.push(Diagnostic::new(
                        &rules::PATCH_APPEND_EXISTING,
                        at,
                        format!("`appendEntry` uses id `{id}` a second time in this patch"),
                    ));
                }
            }
            "updateEntry" | "incrementCounter" | "deprecateEntry" => {
                if target.is_some()
                    && !existing.contains_key(id.as_str())
                    && !appended.contains(&id)
                {
                    out.push(Diagnostic::new(
                        &rules::PATCH_UNKNOWN_ENTRY,
                        at,
                        format!("`{kind}` names `{id}`, which is not in the playbook"),
                    ));
                }
                if kind != "updateEntry" {
                    continue;
                }
                let Some(m) = entry_map else { continue };
                // Only entries an update names are written out to compare.
                let current = existing.get(id.as_str()).map(|e| {
                    entry::write(
                        e,
                        "note",
                        &ace_model::mapping::BUILT_IN,
                        entry::Extras::OnEntry,
                    )
                });
                let fields = touched(m, current.as_ref());
                let earlier = updates.entry(id.clone()).or_default();
                let mut clash: Vec<&str> = Vec::new();
                let mut first = None;
                for (field, node) in earlier.iter() {
                    if fields.contains(field) {
                        clash.push(field);
                        first.get_or_insert(*node);
                    }
                }
                if let Some(first) = first {
                    clash.sort_unstable();
                    clash.dedup();
                    out.push(
                        Diagnostic::new(
                            &rules::PATCH_UPDATE_CONFLICT,
                            op.span,
                            format!(
                                "a second `updateEntry` on `{id}` sets {} again",
                                clash
                                    .iter()
                                    .map(|f| format!("`{f}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        )
                        .with_related(first.span, "the earlier `updateEntry`"),
                    );
                }
                earlier.extend(fields.into_iter().map(|f| (f, op)));
            }
            _ => {}
        }
    }
    out.sort_by_key(|d| (d.span.start, d.code));
    out
}
