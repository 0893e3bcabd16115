//! What a write lost, found by reading the written text back: every
//! field of the playbook, its sections and each entry (by position) that
//! the text read back does not give as it was.

use ace_model::ids::IdChange;
use ace_model::{rules, LossEntry, Losses, Playbook, WriteReport};
use std::collections::HashMap;

use serde_json::{Map, Value};

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn lost(a: Option<&Value>, b: Option<&Value>) -> Option<&'static rules::Rule> {
    match (a, b) {
        (a, b) if a == b => None,
        (Some(_), None) => Some(&rules::DROPPED_FIELD),
        (None, Some(_)) => Some(&rules::VALUE_DEFAULTED),
        _ => Some(&rules::VALUE_CONVERTED),
    }
}

/// Each key of `a` or `b` whose value differs, `extra` key by key.
fn compare(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
    skip: &[&str],
    mut each: impl FnMut(&'static rules::Rule, String),
) {
    for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
        if skip.contains(&k.as_str()) {
            continue;
        }
        if k == "extra" {
            let (xa, xb) = (
                object(a.get(k).cloned().unwrap_or_default()),
                object(b.get(k).cloned().unwrap_or_default()),
            );
            for x in xa.keys().chain(xb.keys().filter(|x| !xa.contains_key(*x))) {
                if let Some(rule) = lost(xa.get(x), xb.get(x)) {
                    each(rule, format!("extra.{x}"));
                }
            }
            continue;
        }
        if let Some(rule) = lost(a.get(k), b.get(k)) {
            each(rule, k.clone());
        }
    }
}

/// What `back`, the written text read back, does not give of `pb`, each
/// loss with `reason`. An entry is compared with the one of its ID, else
/// with the one at its place, which is then an ID change; entries or
/// sections that come back in another order are reported as such.
pub fn readback(pb: &Playbook, back: &Playbook, reason: &'static str) -> WriteReport {
    let mut losses: Vec<LossEntry> = Vec::new();
    let top = |p: &Playbook| object(serde_json::to_value(p).unwrap_or_default());
    compare(
        &top(pb),
        &top(back),
        &["sections", "entries"],
        |rule, field| losses.lose(rule, None, field, reason),
    );
    // The first section read back under each name.
    let named = back.section_places();
    for s in &pb.sections {
        let Some(t) = named.get(s.key.as_str()).map(|&i| &back.sections[i]) else {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}]", s.key),
                "a section is kept only as the section of its entries, under a name the target has",
            );
            continue;
        };
        let (sa, sb) = (
            object(serde_json::to_value(s).unwrap_or_default()),
            object(serde_json::to_value(t).unwrap_or_default()),
        );
        compare(&sa, &sb, &["key"], |rule, field| {
            losses.lose(rule, None, format!("sections[{}].{field}", s.key), reason)
        });
    }
    // The sections read back in another order.
    let kept: Vec<usize> = pb
        .sections
        .iter()
        .filter_map(|s| named.get(s.key.as_str()).copied())
        .collect();
    if kept.windows(2).any(|w| w[0] > w[1]) {
        losses.lose(&rules::VALUE_CONVERTED, None, "sections", reason);
    }
    // Each entry is found by its ID, else (a format that keeps no IDs) at
    // its own place.
    let mut used = vec![false; back.entries.len()];
    // The places read back under each ID, in order, and how many of them
    // are known to be used: the first unused one is found without going
    // over the used ones again.
    let mut places: HashMap<&str, (Vec<usize>, usize)> = HashMap::new();
    for (j, f) in back.entries.iter().enumerate() {
        places.entry(f.id.as_str()).or_default().0.push(j);
    }
    let mut order = Vec::new();
    let mut id_changes = Vec::new();
    for (i, e) in pb.entries.iter().enumerate() {
        let by_id = places.get_mut(e.id.as_str()).and_then(|(at, seen)| {
            while at.get(*seen).is_some_and(|&j| used[j]) {
                *seen += 1;
            }
            at.get(*seen).copied()
        });
        let found = by_id.or_else(|| (i < used.len() && !used[i]).then_some(i));
        let Some(j) = found else {
            losses.lose(&rules::DROPPED_FIELD, Some(&e.id), "entry", reason);
            continue;
        };
        used[j] = true;
        order.push(j);
        let f = &back.entries[j];
        if f.id != e.id {
            losses.lose(&rules::VALUE_CONVERTED, Some(&e.id), "id", reason);
            id_changes.push(IdChange {
                entry: i,
                old: e.id.clone(),
                new: f.id.clone(),
            });
        }
        let (ea, eb) = (
            object(serde_json::to_value(e).unwrap_or_default()),
            object(serde_json::to_value(f).unwrap_or_default()),
        );
        compare(&ea, &eb, &["id"], |rule, field| {
            losses.lose(rule, Some(&e.id), field, reason)
        });
    }
    if order.windows(2).any(|w| w[0] > w[1]) {
        losses.lose(&rules::VALUE_CONVERTED, None, "entries", reason);
    }
    WriteReport { losses, id_changes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_model::Entry;

    /// Entries of one ID are matched in order; an entry whose ID came
    /// back changed is found at its own place, never at a place an ID
    /// took.
    #[test]
    fn a_repeated_id_is_matched_in_order_and_a_changed_one_at_its_place() {
        let pb = |ids: &[&str]| Playbook {
            entries: (ids.iter().enumerate())
                .map(|(i, id)| Entry::new(*id, format!("rule {i}")))
                .collect(),
            ..Playbook::default()
        };
        let r = readback(
            &pb(&["a", "a", "b", "a"]),
            &pb(&["a", "a", "b", "a"]),
            "why",
        );
        assert!(r.losses.is_empty(), "{:?}", r.losses);
        // `c` came back as `c-2`: compared at its place, an ID change.
        let r = readback(&pb(&["a", "c", "a"]), &pb(&["a", "c-2", "a"]), "why");
        let changed: Vec<(&str, &str)> = (r.id_changes.iter())
            .map(|c| (c.old.as_str(), c.new.as_str()))
            .collect();
        assert_eq!(changed, [("c", "c-2")]);
        assert!(r.losses.iter().all(|l| l.field == "id"), "{:?}", r.losses);
    }

    #[test]
    fn each_field_lost_changed_or_added_is_reported() {
        let mut a = Entry {
            id: "a".into(),
            content: "x".into(),
            helpful: Some(1),
            ..Entry::default()
        };
        a.title = Some("t".into());
        a.extra.insert("k", Value::from(1));
        let mut b = a.clone();
        b.title = None;
        b.helpful = Some(2);
        b.harmful = Some(0);
        b.extra.remove("k");
        let pa = Playbook {
            version: Some(Value::from(3)),
            entries: vec![a],
            ..Playbook::default()
        };
        let pb = Playbook {
            entries: vec![b],
            ..Playbook::default()
        };
        let r = readback(&pa, &pb, "why");
        let got: Vec<(&str, String)> = r
            .losses
            .iter()
            .map(|l| (l.code, l.field.to_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("ACE101", "version".to_owned()),
                ("ACE101", "title".to_owned()),
                ("ACE105", "helpful".to_owned()),
                ("ACE101", "extra.k".to_owned()),
                ("ACE104", "harmful".to_owned()),
            ]
        );
    }
}
