//! A three-way merge of playbooks by the rules of the vAgenda ACE
//! extension: appends commute, counters add, two different changes of one
//! field of one entry conflict, deprecation wins.
//!
//! The merge is THEIRS' difference from BASE, applied to OURS by the
//! engine, less what conflicts with OURS' own difference: so OURS keeps
//! its file and layout, as `ace-apply` keeps them, and each entry's
//! counters end as `base + (ours - base) + (theirs - base)`.

use std::collections::HashMap;

use ace_model::delta::{Change, Delta};
use ace_model::{Entry, Playbook, Status};
use serde_json::Value;

use crate::diff::{diff, field_value as value, Diff, EntryDiff};

mod file;
mod guard;
mod runs;
pub use file::{
    merge_file, merge_lines, merge_three, takes_markers, FileOptions, Merged, Reported, Side,
    ThreeWay,
};
pub use guard::{emptied, other_format, read_side, Caller, Unfit};
pub use runs::{merge_runs, MergedRuns, RunConflict};

/// Two changes that cannot both be made; OURS' is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// The entry's ID (or its content, for an entry without one).
    pub entry: String,
    /// The field both sides changed, or `entry` for the whole entry (added
    /// on both sides differently, removed on one side and edited on the
    /// other: a removal wins over a change of counters alone).
    pub field: String,
    pub ours: Value,
    pub theirs: Value,
}

/// The delta that brings THEIRS' changes into OURS, and the conflicts.
#[derive(Debug, Clone)]
pub struct Plan {
    pub delta: Delta,
    pub conflicts: Vec<Conflict>,
    /// THEIRS' whole difference from BASE, conflicts included.
    pub theirs: Diff,
    /// THEIRS' new entries whose ID OURS gave a different new entry: each
    /// takes the next free ID of the playbook's scheme.
    pub renumbered: Vec<Renumbered>,
    /// THEIRS' new entries OURS added too (the same normalised content in
    /// one section): one entry, OURS', its counters THEIRS' added.
    pub joined: Vec<Joined>,
}

/// A new entry of THEIRS given another ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renumbered {
    pub old: String,
    pub new: String,
}

/// A new entry of THEIRS that is one OURS added: THEIRS' ID, OURS'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joined {
    pub theirs: String,
    pub ours: String,
}

/// The new entries given other IDs, as `ace-merge --id-map` lists them,
/// each with the name of the side (run) it came from: `{run, old, new}`,
/// with `"joined": true` where the entry is one the other side added.
pub fn id_map_json<'a>(
    renumbered: impl IntoIterator<Item = (String, &'a Renumbered)>,
    joined: impl IntoIterator<Item = (String, &'a Joined)>,
) -> Vec<Value> {
    renumbered
        .into_iter()
        .map(|(run, r)| serde_json::json!({"run": run, "old": r.old, "new": r.new}))
        .chain(joined.into_iter().map(|(run, j)| {
            serde_json::json!({"run": run, "old": j.theirs, "new": j.ours, "joined": true})
        }))
        .collect()
}

/// How new entries that two sides added are told apart and put together.
#[derive(Debug, Clone)]
pub struct Fresh {
    /// The format's ID scheme, for an ID both sides gave a new entry.
    pub ids: ace_registry::IdScheme,
    /// The number the playbook's own counter gave last (skillbook).
    pub counter: u64,
    pub sections: std::sync::Arc<ace_model::mapping::SectionMap>,
    /// The date of a dated ID (`YYYY-MM-DD`).
    pub today: String,
    /// Whether two new entries that are the same, counters included, add
    /// their counters (independent runs: each counted what it saw) or are
    /// one entry as it is (git branches: one change on both).
    pub sum_same: bool,
}

impl Default for Fresh {
    fn default() -> Self {
        Fresh {
            ids: ace_registry::IdScheme::PREFIXED,
            counter: 0,
            sections: Default::default(),
            today: "1970-01-01".into(),
            sum_same: false,
        }
    }
}

impl Fresh {
    /// The rules of `format`'s playbook `pb`, on the date of `now` (RFC 3339).
    pub fn of(format: ace_registry::Format, pb: &Playbook, now: &str) -> Fresh {
        let c = format.imp().curation(pb);
        Fresh {
            ids: c.ids,
            counter: c.counter.map_or(0, |f| f(pb)),
            today: now.get(..10).unwrap_or("1970-01-01").to_owned(),
            ..Fresh::default()
        }
    }
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

/// Whether a change of an entry is to its counters (and time) alone.
fn counters_only(fields: &[String]) -> bool {
    fields.iter().all(|f| f == "updated_at")
}

/// What merging THEIRS into OURS, both from BASE, takes: THEIRS'
/// difference less its conflicts with OURS', as the delta
/// [`crate::diff::Diff::to_delta`] makes of it.
pub fn plan(base: &Playbook, ours: &Playbook, theirs: &Playbook) -> Plan {
    plan_with(base, ours, theirs, &Fresh::default())
}

/// [`plan`], new entries added on both sides numbered and put together by
/// `fresh`.
pub fn plan_with(base: &Playbook, ours: &Playbook, theirs: &Playbook, fresh: &Fresh) -> Plan {
    let d_ours = diff(base, ours);
    let d_theirs = diff(base, theirs);
    plan_diffs(&d_ours, d_theirs, ours, fresh)
}

/// [`plan_with`] of the two differences from BASE, already taken.
pub fn plan_diffs(d_ours: &Diff, d_theirs: Diff, ours: &Playbook, fresh: &Fresh) -> Plan {
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
    // OURS' new entries by their normalised content: THEIRS' of the same
    // are the same lesson learned twice.
    let ours_new: HashMap<String, &Entry> = d_ours
        .entries
        .iter()
        .filter_map(|c| match c {
            EntryDiff::Added(e) => Some((e.dedup_key(), e)),
            _ => None,
        })
        .collect();
    // THEIRS' new IDs that stay as they are, which a new number must not
    // take either.
    let theirs_new_ids: Vec<&str> = d_theirs
        .entries
        .iter()
        .filter_map(|c| match c {
            EntryDiff::Added(e) if !ours_by_id.contains_key(e.id.as_str()) => Some(e.id.as_str()),
            _ => None,
        })
        .collect();
    let mut alloc: Option<ace_model::mint::Allocator> = None;
    let mut renumbered: Vec<Renumbered> = Vec::new();
    let mut joined: Vec<Joined> = Vec::new();
    let mut counts: Vec<Change> = Vec::new();
    let mut conflicts = Vec::new();
    let mut taken = Diff::default();
    for c in &d_theirs.entries {
        match c {
            EntryDiff::Added(e) => {
                let same = ours_by_id.get(e.id.as_str()).is_some_and(|o| *o == e);
                if same && !fresh.sum_same {
                    continue;
                }
                if let Some(o) = ours_new.get(e.dedup_key().as_str()) {
                    let (helpful, harmful, neutral) = (
                        e.helpful.unwrap_or(0),
                        e.harmful.unwrap_or(0),
                        e.neutral.unwrap_or(0),
                    );
                    if (helpful, harmful, neutral) != (0, 0, 0) {
                        counts.push(Change::Count {
                            target: crate::diff::target(o),
                            helpful,
                            harmful,
                            neutral,
                        });
                    }
                    counts.extend(provenance_of(e, o));
                    joined.push(Joined {
                        theirs: e.id.clone(),
                        ours: o.id.clone(),
                    });
                    continue;
                }
                let mut e = e.clone();
                if !e.id.is_empty() && ours_by_id.contains_key(e.id.as_str()) {
                    let alloc = alloc.get_or_insert_with(|| {
                        let mut a = ace_model::mint::Allocator::new(ours, fresh.ids, fresh.counter);
                        for id in &theirs_new_ids {
                            a.take(id);
                        }
                        a
                    });
                    let section = e.section.as_deref().and_then(|k| ours.section(k));
                    let new = alloc.mint(section, &e, &fresh.sections, &fresh.today, None);
                    renumbered.push(Renumbered {
                        old: std::mem::replace(&mut e.id, new.clone()),
                        new,
                    });
                }
                taken.entries.push(EntryDiff::Added(e));
            }
            EntryDiff::Removed(e) => match ours_changed.get(&name(e)) {
                Some(EntryDiff::Removed(_)) => {}
                // A removal is how a format without a status deprecates:
                // it wins over counters, as a deprecation does.
                Some(EntryDiff::Changed { fields, .. }) if counters_only(fields) => {
                    taken.entries.push(c.clone())
                }
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
                    Some(EntryDiff::Removed(_)) if counters_only(fields) => continue,
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
    // THEIRS' own new entries name the renumbered ones by their new IDs.
    if !renumbered.is_empty() || !joined.is_empty() {
        let to: HashMap<&str, &str> = renumbered
            .iter()
            .map(|r| (r.old.as_str(), r.new.as_str()))
            .chain(joined.iter().map(|j| (j.theirs.as_str(), j.ours.as_str())))
            .collect();
        for c in &mut taken.entries {
            if let EntryDiff::Added(e) = c {
                follow(e, &to);
            }
        }
    }
    let mut delta = taken.to_delta();
    delta
        .ops
        .extend(counts.into_iter().map(|change| ace_model::delta::Op {
            change,
            span: ace_model::Span::default(),
        }));
    Plan {
        delta,
        theirs: d_theirs,
        conflicts,
        renumbered,
        joined,
    }
}

/// What `theirs`, a new entry that is `ours` learned again, holds of
/// where it came from and `ours` lacks: its evidence items, and the items
/// of its lists kept as the file had them (a skillbook's `occurrences` or
/// `sources`), added to `ours`'.
pub(crate) fn provenance_of(theirs: &Entry, ours: &Entry) -> Vec<Change> {
    let target = crate::diff::target(ours);
    let mut out = Vec::new();
    let mut evidence = ours.evidence.clone().unwrap_or_default();
    let had = evidence.len();
    for item in theirs.evidence.iter().flatten() {
        if !evidence.contains(item) {
            evidence.push(item.clone());
        }
    }
    if evidence.len() > had {
        let mut from = ours.clone();
        from.evidence = Some(evidence);
        out.push(Change::Set {
            target: target.clone(),
            from: Box::new(from),
            fields: vec!["evidence".into()],
        });
    }
    for (key, v) in &theirs.extra {
        let Value::Array(items) = v else { continue };
        let mine = ours.extra.get(key).and_then(Value::as_array);
        if ours.extra.get(key).is_some_and(|m| !m.is_array()) {
            continue;
        }
        let values: Vec<Value> = items
            .iter()
            .filter(|i| !mine.is_some_and(|m| m.contains(i)))
            .cloned()
            .collect();
        if !values.is_empty() {
            out.push(Change::Append {
                target: target.clone(),
                field: format!("extra.{key}"),
                values,
            });
        }
    }
    out
}

/// `e`'s references to other entries, through `to` (old ID to new).
fn follow(e: &mut Entry, to: &HashMap<&str, &str>) {
    let moved = |id: &str| to.get(id).map(|n| (*n).to_owned());
    let refers = e.supersedes.is_some()
        || e.superseded_by.is_some()
        || e.duplicate_of.is_some()
        || e.links.is_some();
    if !refers {
        return;
    }
    let r = &mut ***e;
    for list in [&mut r.supersedes, &mut r.links].into_iter().flatten() {
        for id in list.iter_mut() {
            if let Some(n) = moved(id) {
                *id = n;
            }
        }
    }
    for one in [&mut r.superseded_by, &mut r.duplicate_of]
        .into_iter()
        .flatten()
    {
        if let Some(n) = moved(one) {
            *one = n;
        }
    }
}

/// The delta that, applied after [`Plan::delta`], resolves every conflict
/// THEIRS' way: a field set to THEIRS' value, an entry added on both sides
/// replaced by THEIRS', one removed on one side removed or brought back.
/// Writing the merge both ways gives the two sides of each conflict's
/// markers.
pub fn theirs_way(conflicts: &[Conflict], merged: &Playbook, theirs: &Playbook) -> Delta {
    let find = |pb: &'_ Playbook, name: &str| -> Option<Entry> {
        pb.entries
            .iter()
            .find(|e| e.id == name || (e.id.is_empty() && e.content == name))
            .cloned()
    };
    let mut d = Delta::new(ace_model::Span::default());
    let mut done: Vec<&str> = Vec::new();
    for c in conflicts {
        if done.contains(&c.entry.as_str()) {
            continue;
        }
        done.push(&c.entry);
        let fields: Vec<String> = conflicts
            .iter()
            .filter(|x| x.entry == c.entry)
            .map(|x| x.field.clone())
            .collect();
        let change = match (find(merged, &c.entry), find(theirs, &c.entry)) {
            (Some(o), Some(t)) if fields.iter().any(|f| f == "entry") => Change::Replace {
                target: crate::diff::target(&o),
                entry: Box::new(t),
            },
            (Some(o), Some(t)) => Change::Set {
                target: crate::diff::target(&o),
                from: Box::new(t),
                fields,
            },
            (Some(o), None) => Change::Remove {
                target: crate::diff::target(&o),
            },
            (None, Some(t)) => Change::Add(t),
            (None, None) => continue,
        };
        d.ops.push(ace_model::delta::Op {
            change,
            span: ace_model::Span::default(),
        });
    }
    d
}

/// Brings into `ours` (the merged document, as a JSON value) what THEIRS
/// changed outside its entries: a title, a narrative, a member of a
/// vAgenda plan. `bare` is BASE with THEIRS' entry changes applied by the
/// engine: where it differs from `base` (the entries, the timestamps,
/// counts and change log the engine keeps) the merge's own values stand.
/// Elsewhere a value THEIRS changed is taken when OURS left it, kept when
/// OURS changed it the same way, and is a conflict otherwise, OURS' kept.
/// Objects are merged member by member, anything else whole. Gives each
/// conflict's JSON pointer.
pub fn merge_outside(base: &Value, bare: &Value, theirs: &Value, ours: &mut Value) -> Vec<String> {
    let mut conflicts = Vec::new();
    if let (Value::Object(b), Value::Object(x), Value::Object(t), Value::Object(o)) =
        (base, bare, theirs, &mut *ours)
    {
        members("", b, x, t, o, &mut conflicts);
    } else if theirs == base || bare != base || ours == theirs {
    } else if ours == base {
        *ours = theirs.clone();
    } else {
        conflicts.push(String::new());
    }
    conflicts
}

fn members(
    path: &str,
    b: &serde_json::Map<String, Value>,
    x: &serde_json::Map<String, Value>,
    t: &serde_json::Map<String, Value>,
    o: &mut serde_json::Map<String, Value>,
    conflicts: &mut Vec<String>,
) {
    // THEIRS' keys in its order, then those it removed.
    let keys: Vec<&String> = t
        .keys()
        .chain(b.keys().filter(|k| !t.contains_key(*k)))
        .collect();
    for k in keys {
        let (bv, xv, tv) = (b.get(k), x.get(k), t.get(k));
        if tv == bv {
            continue;
        }
        let p = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
        if let (Some(Value::Object(bm)), Some(Value::Object(xm)), Some(Value::Object(tm))) =
            (bv, xv, tv)
        {
            if let Some(Value::Object(om)) = o.get_mut(k) {
                members(&p, bm, xm, tm, om, conflicts);
                continue;
            }
        }
        if xv != bv {
            continue;
        }
        let ov = o.get(k);
        if ov == tv {
            continue;
        }
        if ov == bv {
            match tv {
                Some(v) => {
                    o.insert(k.clone(), v.clone());
                }
                None => {
                    o.shift_remove(k);
                }
            }
        } else {
            conflicts.push(p);
        }
    }
}

/// How conflict markers are written: git's defaults, or what git passes a
/// merge driver (`%L`, `%X`, `%Y`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markers {
    pub size: usize,
    pub ours: String,
    pub theirs: String,
}

impl Default for Markers {
    fn default() -> Self {
        Markers {
            size: 7,
            ours: "ours".into(),
            theirs: "theirs".into(),
        }
    }
}

/// `ours` with each run of lines where `theirs` differs put between
/// conflict markers, git's way: `<<<<<<< OURS`, OURS' lines, `=======`,
/// THEIRS' lines, `>>>>>>> THEIRS`. The two texts are the merge written
/// with the conflicts resolved each way, so they differ only at the
/// conflicting entries. Marker lines end as `ours`' first line does.
pub fn with_markers(ours: &str, theirs: &str, m: &Markers) -> String {
    let eol = if ours.find('\n').is_some_and(|i| ours[..i].ends_with('\r')) {
        "\r\n"
    } else {
        "\n"
    };
    // Byte offset of each line's start, and of the text's end.
    let starts = |s: &str| -> Vec<usize> {
        let mut v = vec![0];
        v.extend(s.match_indices('\n').map(|(i, _)| i + 1));
        if *v.last().unwrap_or(&0) != s.len() {
            v.push(s.len());
        }
        v
    };
    let (so, st) = (starts(ours), starts(theirs));
    let diff = similar::TextDiff::from_lines(ours, theirs);
    // Runs of changed lines, as line ranges of each text.
    let mut runs: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    let mut last_equal = true;
    for op in diff.ops() {
        let (o, t) = (op.old_range(), op.new_range());
        if matches!(op, similar::DiffOp::Equal { .. }) {
            last_equal = true;
            continue;
        }
        match runs.last_mut() {
            Some(r) if !last_equal => {
                r.0.end = o.end;
                r.1.end = t.end;
            }
            _ => runs.push((o, t)),
        }
        last_equal = false;
    }
    let mut out = String::with_capacity(ours.len() + 64 * runs.len());
    let mut line = 1;
    let mut at = 0;
    let push = |out: &mut String, text: &str, line: &mut usize| {
        out.push_str(text);
        *line += text.matches('\n').count();
    };
    for (o, t) in runs {
        let (o, t) = (so[o.start]..so[o.end], st[t.start]..st[t.end]);
        push(&mut out, &ours[at..o.start], &mut line);
        let bar = |c: char| c.to_string().repeat(m.size);
        push(
            &mut out,
            &format!("{} {}{eol}", bar('<'), m.ours),
            &mut line,
        );
        for (side, close) in [
            (&ours[o.clone()], bar('=')),
            (&theirs[t], format!("{} {}", bar('>'), m.theirs)),
        ] {
            push(&mut out, side, &mut line);
            if !side.is_empty() && !side.ends_with('\n') {
                push(&mut out, eol, &mut line);
            }
            push(&mut out, &format!("{close}{eol}"), &mut line);
        }
        at = o.end;
    }
    push(&mut out, &ours[at..], &mut line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn theirs_changes_outside_the_entries_are_taken_unless_ours_changed_them() {
        let base = json!({"title": "T", "notes": {"a": 1, "b": 2}, "updated": "1", "entries": [1]});
        // The engine, bringing THEIRS' entries: new entries, a new time.
        let bare =
            json!({"title": "T", "notes": {"a": 1, "b": 2}, "updated": "2", "entries": [1, 2]});
        let theirs = json!({"title": "T2", "notes": {"a": 5, "b": 2, "c": 3}, "updated": "9", "entries": [1, 2]});
        let mut ours =
            json!({"title": "T", "notes": {"a": 1, "b": 7}, "updated": "3", "entries": [1, 2, 3]});
        assert!(merge_outside(&base, &bare, &theirs, &mut ours).is_empty());
        assert_eq!(
            ours,
            json!({"title": "T2", "notes": {"a": 5, "b": 7, "c": 3}, "updated": "3", "entries": [1, 2, 3]})
        );
        let mut ours = json!({"title": "T3", "notes": {"b": 2}, "updated": "3", "entries": [1]});
        assert_eq!(
            merge_outside(&base, &bare, &theirs, &mut ours),
            ["/title", "/notes/a"]
        );
        assert_eq!(ours["title"], "T3");
    }

    #[test]
    fn markers_surround_the_lines_that_differ() {
        let ours = "# P\n[a] x\n[b] y\n[c] z";
        let theirs = "# P\n[a] X\n[b] y\n[c] Z";
        let text = with_markers(ours, theirs, &Markers::default());
        assert_eq!(
            text,
            "# P\n<<<<<<< ours\n[a] x\n=======\n[a] X\n>>>>>>> theirs\n[b] y\n<<<<<<< ours\n[c] z\n=======\n[c] Z\n>>>>>>> theirs\n"
        );
    }

    #[test]
    fn an_entry_one_side_lacks_has_an_empty_side() {
        let ours = "[a] x\r\n[b] y\r\n";
        let theirs = "[a] x\r\n";
        let m = Markers {
            size: 3,
            ours: "HEAD".into(),
            theirs: "b".into(),
        };
        let text = with_markers(ours, theirs, &m);
        assert_eq!(text, "[a] x\r\n<<< HEAD\r\n[b] y\r\n===\r\n>>> b\r\n");
        assert_eq!(with_markers(ours, ours, &m), ours);
    }
}
