//! The difference between two playbooks, entry by entry, and the delta
//! that turns the first into the second when applied by the engine.
//!
//! Entries are matched by ID. Entries without an ID (or whose ID repeats
//! in its playbook) are matched by the curator spec's key, `section::normalized
//! content`, as ace_beads matches bullets. A matched pair's counters are a
//! `count` change; its other fields, compared one by one under their
//! canonical names ([`ace_model::delta::FIELDS`], extension fields as
//! `extra.NAME`), a `set` change; a newly deprecated entry a `deprecate`
//! change. Unmatched entries are added or removed.

use std::collections::{HashMap, HashSet};

use ace_model::delta::{copy_field, Change, Delta, Op, Target, FIELDS};
use ace_model::{normalize, Entry, Playbook, Span, Status};

/// What became of one entry.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryDiff {
    Added(Entry),
    Removed(Entry),
    Changed {
        old: Entry,
        new: Entry,
        /// The fields other than the counters that differ, canonical names.
        fields: Vec<String>,
        /// `new - old` of each counter both have.
        helpful: i64,
        harmful: i64,
    },
}

impl EntryDiff {
    /// The entry as it is now, or was, for a removed one.
    pub fn entry(&self) -> &Entry {
        match self {
            EntryDiff::Added(e) | EntryDiff::Removed(e) => e,
            EntryDiff::Changed { new, .. } => new,
        }
    }
}

/// The entries two playbooks differ in: changed and added ones in the new
/// playbook's order, then removed ones in the old playbook's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diff {
    pub entries: Vec<EntryDiff>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps only the field changes `keep` allows, and the changed entries
    /// left with a change: comparing two formats, a field one of them
    /// cannot hold (a markdown entry has no `kind`, vAgenda derives one)
    /// is not a difference.
    pub fn retain_fields(&mut self, keep: impl Fn(&str) -> bool) {
        self.entries.retain_mut(|c| match c {
            EntryDiff::Changed {
                old,
                new,
                fields,
                helpful,
                harmful,
            } => {
                fields.retain(|f| keep(f));
                !fields.is_empty() || counted(old, new, *helpful, *harmful)
            }
            _ => true,
        });
    }

    /// The delta that the engine applies to the old playbook to give the
    /// new one's entries. Per entry: its counters, then a deprecation,
    /// then the other fields (`updated_at` last, so that the new
    /// playbook's time is the one kept, not the time of applying).
    pub fn to_delta(&self) -> Delta {
        let mut d = Delta::new(Span::default());
        let mut push = |change| {
            d.ops.push(Op {
                change,
                span: Span::default(),
            })
        };
        for change in &self.entries {
            match change {
                EntryDiff::Added(e) => push(Change::Add(e.clone())),
                EntryDiff::Removed(e) => push(Change::Remove { target: target(e) }),
                EntryDiff::Changed {
                    old,
                    new,
                    fields,
                    helpful,
                    harmful,
                } => {
                    let t = target(old);
                    let counted = counted(old, new, *helpful, *harmful);
                    if counted {
                        push(Change::Count {
                            target: t.clone(),
                            helpful: *helpful,
                            harmful: *harmful,
                            neutral: 0,
                        });
                    }
                    let mut fields = fields.clone();
                    if new.status == Some(Status::Deprecated)
                        && fields.iter().any(|f| f == "status")
                    {
                        push(Change::Deprecate {
                            target: t.clone(),
                            reason: new.deprecation_reason.clone(),
                        });
                    }
                    if !fields.is_empty() || counted {
                        // The time of the new playbook, over the engine's.
                        if !fields.iter().any(|f| f == "updated_at") {
                            fields.push("updated_at".into());
                        }
                        push(Change::Set {
                            target: t,
                            from: Box::new(new.clone()),
                            fields,
                        });
                    }
                }
            }
        }
        d
    }
}

/// The value of one field of an entry by its canonical name (`extra.NAME`
/// for an extension field), as the canonical JSON writes it; `null` when
/// the entry lacks it.
pub fn field_value(e: &Entry, field: &str) -> serde_json::Value {
    if let Some(name) = field.strip_prefix("extra.") {
        return e.extra.get(name).cloned().unwrap_or_default();
    }
    serde_json::to_value(e)
        .ok()
        .and_then(|v| v.get(field).cloned())
        .unwrap_or_default()
}

/// How a delta names an entry: by its ID, or by the curator spec's key when it has
/// none.
pub(crate) fn target(e: &Entry) -> Target {
    if e.id.is_empty() {
        Target::Key(key(e))
    } else {
        Target::Id(e.id.clone())
    }
}

fn key(e: &Entry) -> String {
    normalize::dedup_key(e.section.as_deref().unwrap_or(""), &e.content)
}

/// The IDs that stand for one entry each in `pb`.
fn unique_ids(pb: &Playbook) -> HashSet<&str> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for e in &pb.entries {
        if !e.id.is_empty() {
            *seen.entry(e.id.as_str()).or_default() += 1;
        }
    }
    seen.into_iter()
        .filter(|(_, n)| *n == 1)
        .map(|(id, _)| id)
        .collect()
}

/// The fields other than the counters in which `a` and `b` differ.
pub fn differing_fields(a: &Entry, b: &Entry) -> Vec<String> {
    let mut out = Vec::new();
    // One copy of `a`, each field of `b` tried in it and put back.
    let mut probe = a.clone();
    for f in FIELDS {
        if matches!(f, "id" | "helpful" | "harmful") {
            continue;
        }
        copy_field(&mut probe, b, f);
        if probe != *a {
            out.push(f.to_owned());
            copy_field(&mut probe, a, f);
        }
    }
    let mut extra: Vec<&ace_model::SmolStr> = a.extra.keys().chain(b.extra.keys()).collect();
    extra.sort();
    extra.dedup();
    for k in extra {
        if a.extra.get(k) != b.extra.get(k) {
            out.push(format!("extra.{k}"));
        }
    }
    out
}

/// Whether the change from `o` to `e` counts the entry: a counter moved,
/// or the entry gained counters it lacked (a count of nothing, which the
/// engine gives as the pair `helpful=0 harmful=0`).
fn counted(o: &Entry, e: &Entry, helpful: i64, harmful: i64) -> bool {
    let gained = |a: Option<i64>, b: Option<i64>| a.is_none() && b.is_some();
    helpful != 0 || harmful != 0 || gained(o.helpful, e.helpful) || gained(o.harmful, e.harmful)
}

/// What changed from `o` to `e`, the same entry, if anything did.
fn changed(o: &Entry, e: &Entry) -> Option<EntryDiff> {
    if o == e {
        return None;
    }
    let mut fields = differing_fields(o, e);
    if o.id != e.id {
        fields.insert(0, "id".to_owned());
    }
    // An absent counter counts as 0 (a playbook without counters, as the
    // paper's AppWorld ones are, gains them by increments): absent to N is
    // an increment by N, so that branches that each count such an entry
    // add up, in any order, instead of one setting what another counted.
    // Only a counter dropped is a change of the field.
    let counter =
        |a: Option<i64>, b: Option<i64>, name: &str, fields: &mut Vec<String>| match (a, b) {
            (a, Some(b)) => b.saturating_sub(a.unwrap_or(0)),
            (Some(_), None) => {
                fields.push(name.to_owned());
                0
            }
            (None, None) => 0,
        };
    let helpful = counter(o.helpful, e.helpful, "helpful", &mut fields);
    let harmful = counter(o.harmful, e.harmful, "harmful", &mut fields);
    (!fields.is_empty() || counted(o, e, helpful, harmful)).then(|| EntryDiff::Changed {
        old: o.clone(),
        new: e.clone(),
        fields,
        helpful,
        harmful,
    })
}

/// [`diff`] for two files of different formats, where IDs may not carry
/// over (a conversion to skill-json gives every bullet a new one): an
/// entry added and one removed with the same normalized content are the
/// same entry, changed (its `id` among the fields).
pub fn diff_across(old: &Playbook, new: &Playbook) -> Diff {
    let d = diff(old, new);
    let mut removed: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, c) in d.entries.iter().enumerate() {
        if let EntryDiff::Removed(e) = c {
            removed
                .entry(normalize::normalize(&e.content))
                .or_default()
                .push(i);
        }
    }
    // Each added entry's removed twin, if it has one.
    let mut twin = vec![None; d.entries.len()];
    let mut taken = vec![false; d.entries.len()];
    for (j, c) in d.entries.iter().enumerate() {
        if let EntryDiff::Added(e) = c {
            let pair = removed
                .get_mut(&normalize::normalize(&e.content))
                .and_then(|v| (!v.is_empty()).then(|| v.remove(0)));
            if let Some(i) = pair {
                twin[j] = Some(i);
                taken[i] = true;
            }
        }
    }
    let mut entries = Vec::with_capacity(d.entries.len());
    for (j, c) in d.entries.iter().enumerate() {
        match (c, twin[j].map(|i| &d.entries[i])) {
            (EntryDiff::Added(e), Some(EntryDiff::Removed(o))) => entries.extend(changed(o, e)),
            (EntryDiff::Removed(_), _) if taken[j] => {}
            _ => entries.push(c.clone()),
        }
    }
    Diff { entries }
}

/// The difference from `old` to `new`.
pub fn diff(old: &Playbook, new: &Playbook) -> Diff {
    let (old_ids, new_ids) = (unique_ids(old), unique_ids(new));
    let by_id: HashMap<&str, usize> = old
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| old_ids.contains(e.id.as_str()))
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, e) in old.entries.iter().enumerate() {
        if !old_ids.contains(e.id.as_str()) {
            by_key.entry(key(e)).or_default().push(i);
        }
    }
    let mut matched = vec![false; old.entries.len()];
    let mut entries = Vec::new();
    for e in &new.entries {
        let found = if new_ids.contains(e.id.as_str()) {
            by_id.get(e.id.as_str()).copied()
        } else {
            by_key
                .get_mut(&key(e))
                .and_then(|v| (!v.is_empty()).then(|| v.remove(0)))
        };
        let Some(i) = found.filter(|i| !matched[*i]) else {
            entries.push(EntryDiff::Added(e.clone()));
            continue;
        };
        matched[i] = true;
        entries.extend(changed(&old.entries[i], e));
    }
    for (i, e) in old.entries.iter().enumerate() {
        if !matched[i] {
            entries.push(EntryDiff::Removed(e.clone()));
        }
    }
    Diff { entries }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, content: &str, helpful: i64) -> Entry {
        Entry {
            id: id.into(),
            section: Some("s".into()),
            content: content.into(),
            helpful: Some(helpful),
            harmful: Some(0),
            ..Entry::default()
        }
    }

    fn playbook(entries: Vec<Entry>) -> Playbook {
        Playbook {
            entries,
            ..Playbook::default()
        }
    }

    #[test]
    fn entries_without_ids_match_by_normalized_content() {
        let old = playbook(vec![
            entry("", "Check  the input.", 1),
            entry("", "Gone.", 0),
        ]);
        let new = playbook(vec![
            entry("", "check the  INPUT.", 3),
            entry("", "New.", 0),
        ]);
        let d = diff(&old, &new);
        assert!(matches!(
            &d.entries[..],
            [
                EntryDiff::Changed { helpful: 2, .. },
                EntryDiff::Added(a),
                EntryDiff::Removed(r),
            ] if a.content == "New." && r.content == "Gone."
        ));
        let delta = d.to_delta();
        let Change::Remove { target } = &delta.ops.last().unwrap().change else {
            panic!("a removal last");
        };
        assert!(matches!(target, Target::Key(_)));
    }

    #[test]
    fn a_repeated_id_is_matched_by_content() {
        let old = playbook(vec![entry("a", "one", 0), entry("a", "two", 0)]);
        let new = playbook(vec![entry("a", "two", 1), entry("a", "one", 0)]);
        let d = diff(&old, &new);
        assert!(
            matches!(&d.entries[..], [EntryDiff::Changed { old, helpful: 1, .. }] if old.content == "two")
        );
    }

    #[test]
    fn field_changes_are_named_canonically() {
        let a = entry("a", "one", 0);
        let mut b = a.clone();
        b.title = Some("T".into());
        b.extra.insert("x", serde_json::json!(1));
        assert_eq!(differing_fields(&a, &b), ["title", "extra.x"]);
    }
}
