//! A three-way merge of playbooks by the rules of the vAgenda ACE
//! extension: appends commute, counters add, two different changes of one
//! field of one entry conflict, deprecation wins.
//!
//! The merge is THEIRS' difference from BASE, applied to OURS by the
//! engine, less what conflicts with OURS' own difference: so OURS keeps
//! its file and layout, as `ace-apply` keeps them, and each entry's
//! counters end as `base + (ours - base) + (theirs - base)`.

use std::collections::HashMap;

use ace_model::delta::Delta;
use ace_model::{Entry, Playbook, Status};
use serde_json::Value;

use crate::diff::{diff, field_value as value, Diff, EntryDiff};

/// Two changes that cannot both be made; OURS' is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// The entry's ID (or its content, for an entry without one).
    pub entry: String,
    /// The field both sides changed, or `entry` for the whole entry (added
    /// on both sides differently, removed on one side and changed on the
    /// other).
    pub field: String,
    pub ours: Value,
    pub theirs: Value,
}

/// The delta that brings THEIRS' changes into OURS, and the conflicts.
#[derive(Debug, Clone)]
pub struct Plan {
    pub delta: Delta,
    pub conflicts: Vec<Conflict>,
}

fn name(e: &Entry) -> String {
    if e.id.is_empty() {
        e.content.clone()
    } else {
        e.id.clone()
    }
}

fn whole(e: &Entry) -> Value {
    serde_json::to_value(e).unwrap_or(Value::Null)
}

/// What merging THEIRS into OURS, both from BASE, takes: THEIRS'
/// difference less its conflicts with OURS', as the delta
/// [`crate::diff::Diff::to_delta`] makes of it.
pub fn plan(base: &Playbook, ours: &Playbook, theirs: &Playbook) -> Plan {
    let d_ours = diff(base, ours);
    let d_theirs = diff(base, theirs);
    // OURS' changes by the base entry they change, and its entries by ID.
    let mut ours_changed: HashMap<String, &EntryDiff> = HashMap::new();
    for c in &d_ours.entries {
        match c {
            EntryDiff::Changed { old, .. } | EntryDiff::Removed(old) => {
                ours_changed.insert(name(old), c);
            }
            EntryDiff::Added(_) => {}
        }
    }
    let ours_by_id: HashMap<&str, &Entry> = ours
        .entries
        .iter()
        .filter(|e| !e.id.is_empty())
        .map(|e| (e.id.as_str(), e))
        .collect();
    let mut conflicts = Vec::new();
    let mut taken = Diff::default();
    for c in &d_theirs.entries {
        match c {
            EntryDiff::Added(e) => match ours_by_id.get(e.id.as_str()) {
                Some(o) if *o == e => {}
                Some(o) => conflicts.push(Conflict {
                    entry: name(e),
                    field: "entry".into(),
                    ours: whole(o),
                    theirs: whole(e),
                }),
                None => taken.entries.push(c.clone()),
            },
            EntryDiff::Removed(e) => match ours_changed.get(&name(e)) {
                Some(EntryDiff::Removed(_)) => {}
                Some(EntryDiff::Changed { new, .. }) => conflicts.push(Conflict {
                    entry: name(e),
                    field: "entry".into(),
                    ours: whole(new),
                    theirs: Value::Null,
                }),
                _ => taken.entries.push(c.clone()),
            },
            EntryDiff::Changed {
                old,
                new,
                fields,
                helpful,
                harmful,
            } => {
                let (my_new, my_fields) = match ours_changed.get(&name(old)) {
                    Some(EntryDiff::Removed(_)) => {
                        conflicts.push(Conflict {
                            entry: name(old),
                            field: "entry".into(),
                            ours: Value::Null,
                            theirs: whole(new),
                        });
                        continue;
                    }
                    Some(EntryDiff::Changed { new, fields, .. }) => (Some(new), fields.as_slice()),
                    _ => (None, &[][..]),
                };
                let mut new = new.clone();
                let mut take = Vec::new();
                for f in fields {
                    let Some(mine) = my_new.filter(|_| my_fields.contains(f)) else {
                        take.push(f.clone());
                        continue;
                    };
                    let (a, b) = (value(mine, f), value(&new, f));
                    if a == b {
                        continue;
                    }
                    match f.as_str() {
                        // The later of the two times.
                        "updated_at" => {
                            if b.as_str() > a.as_str() {
                                take.push(f.clone());
                            }
                        }
                        // Deprecation wins over a change to active.
                        "status" | "deprecation_reason"
                            if new.status == Some(Status::Deprecated)
                                || mine.status == Some(Status::Deprecated) =>
                        {
                            if new.status == Some(Status::Deprecated)
                                && mine.status != Some(Status::Deprecated)
                            {
                                take.push(f.clone());
                            }
                        }
                        _ => conflicts.push(Conflict {
                            entry: name(old),
                            field: f.clone(),
                            ours: a,
                            theirs: b,
                        }),
                    }
                }
                // The entry's time: THEIRS' when it is the later one (taken
                // above), else OURS', not the time of merging.
                if let (Some(m), false) = (my_new, take.iter().any(|f| f == "updated_at")) {
                    new.updated_at.clone_from(&m.updated_at);
                }
                taken.entries.push(EntryDiff::Changed {
                    old: old.clone(),
                    new,
                    fields: take,
                    helpful: *helpful,
                    harmful: *harmful,
                });
            }
        }
    }
    Plan {
        delta: taken.to_delta(),
        conflicts,
    }
}
