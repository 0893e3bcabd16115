//! ace-diff's library: the delta of a difference, applied by the engine to
//! the old playbook, gives the new playbook's entries.

use std::sync::Arc;

use ace_apply::diff::diff;
use ace_apply::{Options, Traits};
use ace_io::Format;
use ace_model::{Entry, Playbook, Status};
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
        prop::option::of(0i64..5),
        prop::option::of(0i64..5),
        any::<bool>(),
        prop::option::of(prop::collection::vec("[xy]", 0..3)),
        prop::option::of("2025-0[1-9]-01T00:00:00Z"),
    )
        .prop_map(
            |(id, section, content, helpful, harmful, deprecated, tags, updated)| {
                let mut e = Entry {
                    id: format!("e-{id}"),
                    section: Some(["alpha", "beta", "gamma"][section].to_owned()),
                    content,
                    helpful,
                    harmful,
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
    let d = diff(old, new).to_delta();
    let mut pb = old.clone();
    let format = Format::from_name("json").unwrap();
    let t = Traits::of(format, &pb, Arc::default());
    let opts = Options {
        now: NOW.into(),
        ..Options::default()
    };
    let outcome = ace_apply::apply(&mut pb, &[(0, d)], &t, &opts);
    assert!(
        outcome.rejected().next().is_none(),
        "{:?}",
        outcome.report_json()
    );
    pb
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
