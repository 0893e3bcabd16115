//! ace-diff's library: the delta of a difference, applied by the engine to
//! the old playbook, gives the new playbook's entries.

use ace_apply::diff::diff;
use ace_apply::Options;
use ace_model::{Entry, Playbook, Status};
use ace_registry::Format;
use proptest::prelude::*;

const NOW: &str = "2026-01-01T00:00:00Z";

/// The entries, as a comparison sees them: by ID, without where they
/// were read.
fn entries(pb: &Playbook) -> Vec<Entry> {
    let mut v: Vec<Entry> = pb.entries.clone();
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v
}

fn entry_strategy() -> impl Strategy<Value = (usize, Entry)> {
    (
        0usize..8,
        0usize..3,
        "[a-d ]{1,12}",
        // Counters as a pair or none, as a counted entry has them.
        prop::option::of((0i64..5, 0i64..5)),
        any::<bool>(),
        prop::option::of(prop::collection::vec("[xy]", 0..3)),
        prop::option::of("2025-0[1-9]-01T00:00:00Z"),
    )
        .prop_map(
            |(id, section, content, counters, deprecated, tags, updated)| {
                let mut e = Entry {
                    id: format!("e-{id}"),
                    section: Some(["alpha", "beta", "gamma"][section].to_owned()),
                    content,
                    helpful: counters.map(|c| c.0),
                    harmful: counters.map(|c| c.1),
                    ..Entry::default()
                };
                e.tags = tags;
                e.updated_at = updated;
                if deprecated {
                    e.status = Some(Status::Deprecated);
                }
                (id, e)
            },
        )
}

fn playbook_strategy() -> impl Strategy<Value = Playbook> {
    prop::collection::vec(entry_strategy(), 0..8).prop_map(|mut es| {
        es.sort_by_key(|(id, _)| *id);
        es.dedup_by_key(|(id, _)| *id);
        let mut pb = Playbook::default();
        for s in ["alpha", "beta", "gamma"] {
            pb.sections.push(ace_model::Section::new(s));
        }
        pb.entries = es.into_iter().map(|(_, e)| e).collect();
        pb
    })
}

fn apply_diff(old: &Playbook, new: &Playbook) -> Playbook {
    engine(old, diff(old, new).to_delta())
}

proptest! {
    #[test]
    fn applying_the_diff_gives_the_new_entries(old in playbook_strategy(), new in playbook_strategy()) {
        let got = apply_diff(&old, &new);
        prop_assert_eq!(entries(&got), entries(&new));
    }

    #[test]
    fn a_playbook_has_no_diff_with_itself(pb in playbook_strategy()) {
        prop_assert!(diff(&pb, &pb).is_empty());
    }
}

/// One side's edit of an entry.
#[derive(Debug, Clone)]
enum Edit {
    Bump(i64, i64),
    Content(String),
    Deprecate,
    Remove,
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (1i64..4, 0i64..3).prop_map(|(h, m)| Edit::Bump(h, m)),
        "[e-h]{1,6}".prop_map(Edit::Content),
        Just(Edit::Deprecate),
        Just(Edit::Remove),
    ]
}

fn edited(base: &Playbook, edits: &[(usize, Edit)], added: &[Entry]) -> Playbook {
    let mut pb = base.clone();
    let mut remove = Vec::new();
    for (i, edit) in edits {
        let Some(e) = pb.entries.get_mut(*i) else {
            continue;
        };
        match edit {
            Edit::Bump(h, m) => {
                e.helpful = Some(e.helpful.unwrap_or(0) + h);
                e.harmful = Some(e.harmful.unwrap_or(0) + m);
            }
            Edit::Content(c) => e.content = c.clone(),
            Edit::Deprecate => e.status = Some(Status::Deprecated),
            Edit::Remove => remove.push(e.id.clone()),
        }
        e.updated_at = Some("2025-12-01T00:00:00Z".into());
    }
    pb.entries.retain(|e| !remove.contains(&e.id));
    pb.entries.extend(added.iter().cloned());
    pb
}

fn engine(pb: &Playbook, d: ace_model::delta::Delta) -> Playbook {
    let mut pb = pb.clone();
    let format = Format::from_name("json").unwrap();
    let t = format.imp().curation(&pb);
    let opts = Options {
        now: NOW.into(),
        ..Options::default()
    };
    let outcome = ace_apply::apply(&mut pb, vec![(0, d)], &t, &opts);
    assert!(
        outcome.rejected().next().is_none(),
        "{:?}",
        outcome.report_json()
    );
    pb
}

proptest! {
    /// OURS and THEIRS change different entries and add their own: the
    /// merge has no conflict and equals applying both differences to
    /// BASE, in either order.
    #[test]
    fn a_merge_of_disjoint_changes_is_both_diffs_applied(
        base in playbook_strategy(),
        edits in prop::collection::vec((any::<bool>(), edit_strategy()), 8),
        ours_new in prop::collection::vec("[a-d]{1,8}", 0..3),
        // Other lessons than OURS': the same one added on both sides is
        // one entry.
        theirs_new in prop::collection::vec("[e-h]{1,8}", 0..3),
    ) {
        let (mut mine, mut yours) = (Vec::new(), Vec::new());
        for (i, (side, edit)) in edits.into_iter().enumerate() {
            if side { mine.push((i, edit)) } else { yours.push((i, edit)) }
        }
        let new_entry = |prefix: &str, i: usize, c: &String| Entry {
            id: format!("{prefix}-{i}"),
            section: Some("beta".into()),
            content: c.clone(),
            helpful: Some(0),
            harmful: Some(0),
            ..Entry::default()
        };
        let ours_added: Vec<Entry> = ours_new.iter().enumerate().map(|(i, c)| new_entry("o", i, c)).collect();
        let theirs_added: Vec<Entry> = theirs_new.iter().enumerate().map(|(i, c)| new_entry("t", i, c)).collect();
        let ours = edited(&base, &mine, &ours_added);
        let theirs = edited(&base, &yours, &theirs_added);
        let plan = ace_apply::merge::plan(&base, &ours, &theirs);
        prop_assert!(plan.conflicts.is_empty(), "{:?}", plan.conflicts);
        let merged = engine(&ours, plan.delta);
        let ours_first = engine(&engine(&base, diff(&base, &ours).to_delta()), diff(&base, &theirs).to_delta());
        let theirs_first = engine(&engine(&base, diff(&base, &theirs).to_delta()), diff(&base, &ours).to_delta());
        prop_assert_eq!(entries(&merged), entries(&ours_first));
        prop_assert_eq!(entries(&merged), entries(&theirs_first));
    }
}

/// A playbook of one entry, `a`, helpful once.
fn one_entry() -> Playbook {
    Playbook {
        entries: vec![Entry {
            id: "a".into(),
            section: Some("alpha".into()),
            content: "one".into(),
            helpful: Some(1),
            harmful: Some(0),
            ..Entry::default()
        }],
        ..Playbook::default()
    }
}

/// Both sides bump one counter and change one entry's text differently:
/// the counters add up, the text is a conflict that keeps OURS'.
#[test]
fn counters_add_and_two_texts_conflict() {
    let base = one_entry();
    let mut ours = base.clone();
    ours.entries[0].helpful = Some(3);
    ours.entries[0].content = "ours".into();
    let mut theirs = base.clone();
    theirs.entries[0].helpful = Some(2);
    theirs.entries[0].content = "theirs".into();
    let plan = ace_apply::merge::plan(&base, &ours, &theirs);
    assert_eq!(plan.conflicts.len(), 1);
    assert_eq!(plan.conflicts[0].field, "content");
    let merged = engine(&ours, plan.delta);
    assert_eq!(merged.entries[0].helpful, Some(4));
    assert_eq!(merged.entries[0].content, "ours");
}

/// One side deprecates an entry while the other bumps its counter: a clean
/// merge, deprecated with the counter bumped.
#[test]
fn deprecation_and_a_bump_merge_cleanly() {
    let base = one_entry();
    let mut ours = base.clone();
    ours.entries[0].status = Some(Status::Deprecated);
    let mut theirs = base.clone();
    theirs.entries[0].helpful = Some(5);
    for (a, b) in [(&ours, &theirs), (&theirs, &ours)] {
        let plan = ace_apply::merge::plan(&base, a, b);
        assert!(plan.conflicts.is_empty(), "{:?}", plan.conflicts);
        let merged = engine(a, plan.delta);
        assert_eq!(merged.entries[0].helpful, Some(5));
        assert_eq!(merged.entries[0].status, Some(Status::Deprecated));
    }
}

/// Without a status (markdown, AGENTS.md) deprecating is removing: a
/// removal wins over a counter bump on either side, and conflicts with a
/// change of the entry's text.
#[test]
fn a_removal_wins_over_a_bump_and_conflicts_with_an_edit() {
    let base = one_entry();
    let removed = Playbook {
        entries: Vec::new(),
        ..base.clone()
    };
    let mut bumped = base.clone();
    bumped.entries[0].helpful = Some(5);
    for (a, b) in [(&removed, &bumped), (&bumped, &removed)] {
        let plan = ace_apply::merge::plan(&base, a, b);
        assert!(plan.conflicts.is_empty(), "{:?}", plan.conflicts);
        assert!(engine(a, plan.delta).entries.is_empty());
    }
    let mut edited = base.clone();
    edited.entries[0].content = "two".into();
    for (a, b) in [(&removed, &edited), (&edited, &removed)] {
        let plan = ace_apply::merge::plan(&base, a, b);
        assert_eq!(plan.conflicts.len(), 1, "{:?}", plan.conflicts);
        assert_eq!(plan.conflicts[0].field, "entry");
        assert_eq!(engine(a, plan.delta).entries, a.entries);
    }
}

proptest! {
    /// Three runs from one BASE change different entries and add their
    /// own: `merge_runs` has no conflict and gives what applying each
    /// run's difference from BASE gives, in either order.
    #[test]
    fn runs_with_disjoint_changes_merge_as_their_diffs_applied_in_any_order(
        base in playbook_strategy(),
        edits in prop::collection::vec((0usize..3, edit_strategy()), 8),
        new in prop::collection::vec(prop::collection::vec("[i-l]{1,6}", 0..3), 3),
    ) {
        let format = Format::from_name("json").unwrap();
        let runs: Vec<Playbook> = (0..3)
            .map(|k| {
                let mine: Vec<(usize, Edit)> = edits
                    .iter()
                    .enumerate()
                    .filter(|(_, (run, _))| *run == k)
                    .map(|(i, (_, e))| (i, e.clone()))
                    .collect();
                let added: Vec<Entry> = new[k]
                    .iter()
                    .enumerate()
                    .map(|(i, c)| Entry {
                        id: format!("n{k}-{i}"),
                        section: Some("beta".into()),
                        content: format!("run {k} {c}"),
                        helpful: Some(1),
                        harmful: Some(0),
                        ..Entry::default()
                    })
                    .collect();
                edited(&base, &mine, &added)
            })
            .collect();
        let text = ace_registry::write(format, &base).text;
        let read = ace_registry::read(format, &text).unwrap().playbook;
        let refs: Vec<&Playbook> = runs.iter().collect();
        let merged = ace_apply::merge::merge_runs(format, &text, &read, &refs, NOW);
        prop_assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
        prop_assert!(merged.refused.is_empty(), "{:?}", merged.refused);
        prop_assert!(merged.renumbered.is_empty() && merged.joined.is_empty());
        let fold = |order: &[usize]| {
            order.iter().fold(base.clone(), |pb, &k| engine(&pb, diff(&base, &runs[k]).to_delta()))
        };
        prop_assert_eq!(entries(&merged.playbook), entries(&fold(&[0, 1, 2])));
        prop_assert_eq!(entries(&merged.playbook), entries(&fold(&[2, 0, 1])));
        // What was written reads back as that playbook.
        let back = ace_registry::read(format, &merged.text).unwrap().playbook;
        prop_assert_eq!(entries(&back), entries(&merged.playbook));
    }
}

/// A new entry both sides gave one ID: THEIRS' takes the next free ID, and
/// THEIRS' other new entry that names it follows; the same lesson on both
/// sides is OURS' entry with THEIRS' counters and evidence added.
#[test]
fn new_ids_both_sides_took_are_renumbered_and_references_follow() {
    let base = one_entry();
    let new = |id: &str, content: &str, helpful: i64, evidence: &str| {
        let mut e = Entry {
            id: id.into(),
            section: Some("alpha".into()),
            content: content.into(),
            helpful: Some(helpful),
            harmful: Some(0),
            ..Entry::default()
        };
        e.evidence = Some(vec![ace_model::Evidence::Text(evidence.into())]);
        e
    };
    let mut ours = base.clone();
    ours.entries
        .push(new("alp-00002", "Ours only.", 0, "run:1"));
    ours.entries
        .push(new("alp-00003", "Learned twice.", 1, "run:1"));
    let mut theirs = base.clone();
    theirs
        .entries
        .push(new("alp-00002", "Theirs only.", 0, "run:2"));
    let mut refers = new("alp-00004", "Learned twice.", 2, "run:2");
    refers.supersedes = Some(vec!["alp-00002".into()]);
    theirs.entries.push(refers);
    let mut later = new("alp-00005", "Theirs again.", 0, "run:2");
    later.duplicate_of = Some("alp-00002".into());
    later.links = Some(vec!["alp-00004".into(), "a".into()]);
    theirs.entries.push(later);
    let plan = ace_apply::merge::plan(&base, &ours, &theirs);
    assert!(plan.conflicts.is_empty(), "{:?}", plan.conflicts);
    assert_eq!(plan.renumbered.len(), 1);
    let moved = &plan.renumbered[0];
    assert_eq!(moved.old, "alp-00002");
    assert_ne!(moved.new, "alp-00002");
    assert_eq!(
        plan.joined,
        [ace_apply::merge::Joined {
            theirs: "alp-00004".into(),
            ours: "alp-00003".into()
        }]
    );
    let merged = engine(&ours, plan.delta);
    let find = |id: &str| merged.entries.iter().find(|e| e.id == id).unwrap();
    assert_eq!(find("alp-00002").content, "Ours only.");
    assert_eq!(find(&moved.new).content, "Theirs only.");
    let twice = find("alp-00003");
    assert_eq!(twice.helpful, Some(3));
    assert_eq!(
        twice.evidence.as_deref().unwrap(),
        [
            ace_model::Evidence::Text("run:1".into()),
            ace_model::Evidence::Text("run:2".into())
        ]
    );
    let again = find("alp-00005");
    assert_eq!(again.duplicate_of.as_deref(), Some(moved.new.as_str()));
    assert_eq!(
        again.links.as_deref().unwrap(),
        ["alp-00003".to_owned(), "a".to_owned()]
    );
    assert_eq!(merged.entries.len(), 5);
}
