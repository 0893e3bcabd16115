//! The Playbooks extension's append-only event log (notes §3.6): the
//! current view of each target, and the events that turn one view into
//! another.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

/// Fields an event carries for its target's entry, as the ACE entry names
/// them (`text`, or in vContext 0.4 a `narrative` map).
const CONTENT: [&str; 13] = [
    "kind",
    "title",
    "text",
    "narrative",
    "tags",
    "evidence",
    "confidence",
    "feedbackType",
    "status",
    "deprecatedReason",
    "supersedes",
    "supersededBy",
    "duplicateOf",
];

/// A problem in the log, at event `index`.
#[derive(Debug, Clone)]
pub struct Problem {
    pub index: usize,
    pub message: String,
}

/// One target's current state as an ACE-shaped entry, and the event index
/// it starts at (for its source position).
#[derive(Debug, Clone)]
pub struct ViewEntry {
    pub entry: Map<String, Value>,
    pub first: usize,
    pub head_event: String,
}

fn text<'a>(m: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    m.get(k).and_then(Value::as_str)
}

/// The current view of `events`, targets in order of first appearance.
pub fn view(events: &[Value]) -> (Vec<ViewEntry>, Vec<Problem>) {
    let mut problems = Vec::new();
    let objects: Vec<(usize, &Map<String, Value>)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.as_object().map(|m| (i, m)))
        .collect();
    let mut seen_ids: HashMap<&str, usize> = HashMap::new();
    for (i, m) in &objects {
        if let Some(id) = text(m, "eventId") {
            if let Some(first) = seen_ids.insert(id, *i) {
                problems.push(Problem {
                    index: *i,
                    message: format!(
                        "event id `{id}` is used again (first by event #{})",
                        first + 1
                    ),
                });
            }
        }
    }
    let mut order: Vec<&str> = Vec::new();
    let mut by_target: HashMap<&str, Vec<usize>> = HashMap::new();
    for (pos, (_, m)) in objects.iter().enumerate() {
        let target = text(m, "targetId").unwrap_or("");
        by_target
            .entry(target)
            .or_insert_with(|| {
                order.push(target);
                Vec::new()
            })
            .push(pos);
    }
    let mut out = Vec::new();
    for target in order {
        let positions = &by_target[target];
        let ids: HashMap<&str, usize> = positions
            .iter()
            .filter_map(|&p| text(objects[p].1, "eventId").map(|id| (id, p)))
            .collect();
        let mut next: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
        for &p in positions {
            let m = objects[p].1;
            let prev = text(m, "prevEventId");
            if let Some(prev_id) = prev {
                if !ids.contains_key(prev_id) {
                    problems.push(Problem {
                        index: objects[p].0,
                        message: format!(
                            "`prevEventId` `{prev_id}` names no event of target `{target}`; the event is not applied"
                        ),
                    });
                    continue;
                }
            }
            next.entry(prev).or_default().push(p);
        }
        // The winner among competing continuations: later createdAt, then
        // the greater eventId (notes §3.6).
        let pick = |cands: &[usize]| -> usize {
            *cands
                .iter()
                .max_by(|&&a, &&b| {
                    let key = |p: usize| {
                        (
                            text(objects[p].1, "createdAt").unwrap_or(""),
                            text(objects[p].1, "eventId").unwrap_or(""),
                        )
                    };
                    key(a).cmp(&key(b))
                })
                .expect("non-empty")
        };
        let mut chain = Vec::new();
        let mut visited = HashSet::new();
        let mut cursor: Option<&str> = None;
        while let Some(cands) = next.get(&cursor) {
            let chosen = pick(cands);
            for &c in cands {
                if c != chosen {
                    problems.push(Problem {
                        index: objects[c].0,
                        message: format!(
                            "target `{target}` has two heads: this event and `{}` both continue {}; the later one is followed",
                            text(objects[chosen].1, "eventId").unwrap_or("?"),
                            cursor.map_or("the start".to_owned(), |c| format!("`{c}`"))
                        ),
                    });
                }
            }
            if !visited.insert(chosen) {
                break;
            }
            chain.push(chosen);
            match text(objects[chosen].1, "eventId") {
                Some(id) => cursor = Some(id),
                None => break,
            }
        }
        if chain.is_empty() {
            continue;
        }
        let mut entry = Map::new();
        entry.insert("id".into(), Value::String(target.to_owned()));
        let (mut helpful, mut harmful) = (None::<i64>, None::<i64>);
        for (n, &p) in chain.iter().enumerate() {
            let m = objects[p].1;
            let op = text(m, "operation").unwrap_or("");
            for k in CONTENT {
                if let Some(v) = m.get(k) {
                    entry.insert(k.into(), v.clone());
                }
            }
            if let Some(Value::Object(meta)) = m.get("metadata") {
                entry.insert("metadata".into(), Value::Object(meta.clone()));
            }
            if op == "deprecate" {
                if !m.contains_key("status") {
                    entry.insert("status".into(), Value::String("deprecated".into()));
                }
                if let (false, Some(r)) = (m.contains_key("deprecatedReason"), m.get("reason")) {
                    entry.insert("deprecatedReason".into(), r.clone());
                }
            }
            if let Some(Value::Object(d)) = m.get("delta") {
                if let Some(h) = d.get("helpfulCount").and_then(Value::as_i64) {
                    helpful = Some(helpful.unwrap_or(0) + h);
                }
                if let Some(h) = d.get("harmfulCount").and_then(Value::as_i64) {
                    harmful = Some(harmful.unwrap_or(0) + h);
                }
            }
            if let Some(t) = m.get("createdAt") {
                let key = if n == 0 { "createdAt" } else { "updatedAt" };
                entry.insert(key.into(), t.clone());
            }
        }
        if let Some(h) = helpful {
            entry.insert("helpfulCount".into(), Value::from(h));
        }
        if let Some(h) = harmful {
            entry.insert("harmfulCount".into(), Value::from(h));
        }
        let head = *chain.last().expect("non-empty");
        out.push(ViewEntry {
            entry,
            first: objects[chain[0]].0,
            head_event: text(objects[head].1, "eventId").unwrap_or("").to_owned(),
        });
    }
    (out, problems)
}

/// Events that take `old` (the current view) to `new` (ACE-shaped
/// entries): an append for a new target, an update with the changed fields
/// and a counter delta for a changed one, a deprecation for a removed one.
/// `new` may leave out entries known to be unchanged; `still_there` names
/// every entry the model has, so that those are not taken as removed.
/// `narrative` says the log stores content as vContext 0.4's map.
/// An entry's `metadata` less the vContext `narrative` the entry encoding
/// keeps in `aceTools.extra` when the log's view already has that same
/// narrative: it is the event's own field, not a change. `None` when
/// nothing is left.
fn without_kept_narrative(meta: &Value, old: Option<&Map<String, Value>>) -> Option<Value> {
    let mut meta = meta.clone();
    let old_narrative = old.and_then(|o| o.get("narrative"));
    if let (Some(n), Value::Object(m)) = (old_narrative, &mut meta) {
        if let Some(Value::Object(tools)) = m.get_mut(crate::ACE_TOOLS_KEY) {
            if let Some(Value::Object(extra)) = tools.get_mut("extra") {
                if extra.get("narrative") == Some(n) {
                    extra.shift_remove("narrative");
                }
                if extra.is_empty() {
                    tools.shift_remove("extra");
                }
            }
            if tools.is_empty() {
                m.shift_remove(crate::ACE_TOOLS_KEY);
            }
        }
        if m.is_empty() {
            return None;
        }
    }
    Some(meta)
}

pub fn diff(
    old: &[ViewEntry],
    new: &[Map<String, Value>],
    still_there: &HashSet<&str>,
    existing_ids: &HashSet<String>,
    now: &str,
    narrative: bool,
) -> Diff {
    let mut out = Vec::new();
    let mut unlinked = Vec::new();
    let mut used: HashSet<String> = existing_ids.clone();
    let mut fresh_id = |target: &str| {
        let mut n = 1usize;
        loop {
            let id = format!("evt-{target}-{n}");
            if used.insert(id.clone()) {
                return id;
            }
            n += 1;
        }
    };
    let content =
        |e: &Map<String, Value>, m: &mut Map<String, Value>, only: Option<&Map<String, Value>>| {
            for k in CONTENT {
                let v = e.get(k);
                let changed = only.is_none_or(|o| o.get(k) != v);
                match (v, changed) {
                    (Some(v), true) => {
                        if k == "text" && narrative {
                            let mut map = Map::new();
                            map.insert("Overview".into(), v.clone());
                            m.insert("narrative".into(), Value::Object(map));
                        } else {
                            m.insert(k.into(), v.clone());
                        }
                    }
                    (None, true) if k == "status" => {
                        m.insert(k.into(), Value::String("active".into()));
                    }
                    _ => {}
                }
            }
            if let Some(meta) = e.get("metadata") {
                let meta = without_kept_narrative(meta, only);
                let same = only.is_some_and(|o| o.get("metadata") == meta.as_ref());
                if let (Some(meta), false) = (meta, same) {
                    m.insert("metadata".into(), meta);
                }
            }
        };
    let delta = |e: &Map<String, Value>, o: Option<&Map<String, Value>>| {
        let mut d = Map::new();
        for k in ["helpfulCount", "harmfulCount"] {
            let now = e.get(k).and_then(Value::as_i64);
            let before = o
                .and_then(|o| o.get(k))
                .and_then(Value::as_i64)
                .unwrap_or(0);
            // An append carries every counter the entry has, a zero too:
            // the view reads a counter no event mentions as absent.
            let appended = o.is_none() && now.is_some();
            if appended || now.unwrap_or(0) != before {
                d.insert(k.into(), Value::from(now.unwrap_or(0) - before));
            }
        }
        d
    };
    let by_id: HashMap<&str, &ViewEntry> = old
        .iter()
        .filter_map(|v| text(&v.entry, "id").map(|id| (id, v)))
        .collect();
    let mut kept: HashSet<&str> = HashSet::new();
    for e in new {
        let id = text(e, "id").unwrap_or("");
        kept.insert(id);
        let mut m = Map::new();
        m.insert("eventId".into(), Value::String(fresh_id(id)));
        m.insert("targetId".into(), Value::String(id.to_owned()));
        match by_id.get(id) {
            None => {
                m.insert("operation".into(), Value::String("append".into()));
                content(e, &mut m, None);
                let d = delta(e, None);
                if !d.is_empty() {
                    m.insert("delta".into(), Value::Object(d));
                }
            }
            Some(v) => {
                let mut changes = Map::new();
                content(e, &mut changes, Some(&v.entry));
                let d = delta(e, Some(&v.entry));
                if changes.is_empty() && d.is_empty() {
                    continue;
                }
                if v.head_event.is_empty() {
                    // The entry's last event has no `eventId`, so no event
                    // can follow it: one with `prevEventId: ""` is not
                    // applied, and every write would add another.
                    unlinked.push(id.to_owned());
                    continue;
                }
                m.insert("operation".into(), Value::String("update".into()));
                m.insert("prevEventId".into(), Value::String(v.head_event.clone()));
                m.extend(changes);
                if !d.is_empty() {
                    m.insert("delta".into(), Value::Object(d));
                }
            }
        }
        m.insert("createdAt".into(), Value::String(now.to_owned()));
        out.push(Value::Object(m));
    }
    for v in old {
        let id = text(&v.entry, "id").unwrap_or("");
        if kept.contains(id)
            || still_there.contains(id)
            || text(&v.entry, "status") == Some("deprecated")
        {
            continue;
        }
        if v.head_event.is_empty() {
            unlinked.push(id.to_owned());
            continue;
        }
        let mut m = Map::new();
        m.insert("eventId".into(), Value::String(fresh_id(id)));
        m.insert("targetId".into(), Value::String(id.to_owned()));
        m.insert("operation".into(), Value::String("deprecate".into()));
        m.insert("prevEventId".into(), Value::String(v.head_event.clone()));
        m.insert(
            "reason".into(),
            Value::String("removed from the playbook; the log keeps it deprecated".into()),
        );
        m.insert("createdAt".into(), Value::String(now.to_owned()));
        out.push(Value::Object(m));
    }
    Diff {
        events: out,
        unlinked,
    }
}

/// The events that turn the log's view into the model, and the entries
/// whose changes no event can carry (their last event has no `eventId`).
pub struct Diff {
    pub events: Vec<Value>,
    pub unlinked: Vec<String>,
}
