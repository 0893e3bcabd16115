//! Properties of the apply engine over every format it writes back:
//! appends and increments commute, an empty delta is a no-op, a delta
//! applied twice changes nothing the second time, and applying never adds
//! an error-level finding.

use std::collections::HashMap;

use ace_apply::Options;
use ace_model::delta::{Change, Delta, Op, Reason, Target};
use ace_model::{Entry, Severity, Span};
use ace_registry::{Format, WriteCtx};
use ace_tests::fixture;
use proptest::prelude::*;

const NOW: &str = "2026-01-01T00:00:00Z";

/// A playbook in each format, with its layout: our fixtures where we have
/// them, and a markdown file that deviates from the seed's layout.
fn bases() -> Vec<(Format, String)> {
    let markdown = "# Playbook\n\nKept prose.\n\n## STRATEGIES & INSIGHTS\n[sai-00001]  helpful=2 harmful=0 ::  first\n[sai-00002] helpful=0 harmful=1 :: second\n\n\n## COMMON MISTAKES\n[cm-00001] helpful=1 harmful=0 :: third\n\n## OTHERS\n";
    let json = {
        let pb = ace_registry::read(Format::from_name("markdown").unwrap(), markdown)
            .unwrap()
            .playbook;
        ace_registry::write(Format::from_name("json").unwrap(), &pb).text
    };
    let tron = {
        let f = Format::from_name("vagenda-json").unwrap();
        let pb = ace_registry::read(f, &fixture("apply/vagenda-playbook.json"))
            .unwrap()
            .playbook;
        ace_registry::write(Format::from_name("vagenda-tron").unwrap(), &pb).text
    };
    [
        ("markdown", markdown.to_owned()),
        ("json", json),
        ("agents-md", fixture("apply/AGENTS.md")),
        ("skill-json", fixture("apply/skill-playbook.json")),
        ("vagenda-json", fixture("apply/vagenda-playbook.json")),
        ("vagenda-tron", tron),
    ]
    .into_iter()
    .map(|(name, text)| (Format::from_name(name).expect(name), text))
    .collect()
}

/// Reads `text`, applies `deltas` and writes the result as `ace-apply`
/// does: over the file's own text where the format splices, else whole.
fn step(format: Format, text: &str, deltas: &[Delta]) -> (String, ace_apply::Outcome) {
    let before = ace_registry::read(format, text).expect("reads").playbook;
    let mut pb = before.clone();
    let t = format.imp().curation(&pb);
    let opts = Options {
        now: NOW.into(),
        ..Options::default()
    };
    let all: Vec<(usize, Delta)> = deltas.iter().cloned().map(|d| (0, d)).collect();
    let outcome = ace_apply::apply(&mut pb, all.clone(), &t, &opts);
    let ctx = WriteCtx::default().with_now(Some(NOW.into()));
    let text = ace_tests::applied_text(format, text, &outcome, &pb, &ctx);
    (text, outcome)
}

/// What the engine can change, as vAgenda's commuting operations.
#[derive(Debug, Clone)]
enum Edit {
    /// A new entry in the nth section, with its own ID.
    Append { section: usize, n: u32 },
    /// Counters of the nth entry.
    Increment {
        entry: usize,
        helpful: i64,
        harmful: i64,
    },
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (0usize..4, 0u32..50).prop_map(|(section, n)| Edit::Append { section, n }),
        (0usize..8, 0i64..3, 0i64..3).prop_map(|(entry, helpful, harmful)| Edit::Increment {
            entry,
            helpful,
            harmful,
        }),
    ];
    proptest::collection::vec(edit, 1..6)
}

/// One delta per edit, against the playbook `text` reads as.
fn deltas(format: Format, text: &str, edits: &[Edit]) -> Vec<Delta> {
    let pb = ace_registry::read(format, text).unwrap().playbook;
    let mut seen = HashMap::new();
    edits
        .iter()
        .filter_map(|e| {
            let change = match e {
                Edit::Append { section, n } => {
                    // IDs a markdown playbook can hold, unique per test.
                    let id = format!("new-{:05}", 100 + n);
                    if seen.insert(id.clone(), ()).is_some() {
                        return None;
                    }
                    let section = match pb.sections.len() {
                        0 => None,
                        len => Some(pb.sections[section % len].key.clone()),
                    };
                    Change::Add(Entry {
                        id,
                        section,
                        content: format!("Appended advice number {n}."),
                        helpful: Some(0),
                        harmful: Some(0),
                        ..Entry::default()
                    })
                }
                Edit::Increment {
                    entry,
                    helpful,
                    harmful,
                } => {
                    let live: Vec<&Entry> = pb
                        .entries
                        .iter()
                        .filter(|e| {
                            e.status
                                .as_ref()
                                .is_none_or(|s| *s == ace_model::Status::Active)
                        })
                        .collect();
                    let target = live.get(entry % live.len().max(1))?;
                    Change::Count {
                        target: Target::Id(target.id.clone()),
                        helpful: *helpful,
                        harmful: *harmful,
                        neutral: 0,
                    }
                }
            };
            let mut d = Delta::new(Span::default());
            d.ops.push(Op {
                change,
                span: Span::default(),
            });
            Some(d)
        })
        .collect()
}

/// Error-level findings by rule code.
fn errors(format: Format, text: &str) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for d in ace_check::validate(format, text, &ace_lint::Options::default()) {
        if d.severity == Severity::Error {
            *m.entry(d.code.to_string()).or_default() += 1;
        }
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Appends and increments, applied one file at a time in two orders,
    /// give the same bytes where IDs are ordered (hash IDs keep the order
    /// appends came in: the same lines, and one batch gives what one delta
    /// at a time gives); and the result has no error the base lacked.
    #[test]
    fn appends_and_increments_commute(base in 0usize..6, edits in edits(), seed in any::<u64>()) {
        let (format, text) = bases().swap_remove(base);
        let ds = deltas(format, &text, &edits);
        let mut shuffled = ds.clone();
        // A deterministic shuffle from the seed.
        let mut s = seed;
        for i in (1..shuffled.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (s >> 33) as usize % (i + 1));
        }
        let run = |order: &[Delta]| {
            order.iter().fold(text.clone(), |t, d| {
                let (out, outcome) = step(format, &t, std::slice::from_ref(d));
                assert!(outcome.rejected().next().is_none(), "{format}: {:?}", outcome.report_json());
                out
            })
        };
        let a = run(&ds);
        let b = run(&shuffled);
        if format.imp().curation(&ace_model::Playbook::default()).ids.ordered {
            prop_assert_eq!(&a, &b, "{}", format);
            // One batch in either order gives the same bytes too.
            prop_assert_eq!(&step(format, &text, &shuffled).0, &a, "{} batch", format);
        } else {
            let lines = |t: &str| {
                let mut l: Vec<String> = t.lines().map(str::to_owned).collect();
                l.sort();
                l
            };
            prop_assert_eq!(lines(&a), lines(&b), "{}", format);
            prop_assert_eq!(&step(format, &text, &shuffled).0, &b, "{} batch", format);
        }
        let before = errors(format, &text);
        for (code, n) in errors(format, &a) {
            prop_assert!(before.get(&code).copied().unwrap_or(0) >= n, "{}: new error {} in\n{}", format, code, a);
        }
    }

    /// A delta with an ID, applied again to what it produced, is refused
    /// as applied already wherever the format records it, and changes
    /// nothing.
    #[test]
    fn a_delta_applied_twice_changes_nothing_the_second_time(base in 0usize..6, edits in edits()) {
        let (format, text) = bases().swap_remove(base);
        let mut d = Delta::new(Span::default());
        d.id = Some("delta-0001".into());
        for one in deltas(format, &text, &edits) {
            d.ops.extend(one.ops);
        }
        let (once, _) = step(format, &text, std::slice::from_ref(&d));
        let (twice, outcome) = step(format, &once, std::slice::from_ref(&d));
        // Markdown has no place for the record, and AGENTS.md records a
        // delta only on the bullets it adds or amends; a delta that adds an
        // entry is still refused there, as its ID is taken.
        let adds = d.ops.iter().any(|o| matches!(o.change, Change::Add(_)));
        let markdown = format.name() == "markdown";
        if adds || !matches!(format.name(), "markdown" | "agents-md") {
            let refused: Vec<_> = outcome.rejected().map(|v| v.refusal.as_ref().unwrap().reason).collect();
            prop_assert_eq!(refused.len(), 1, "{}", format);
            if !markdown {
                prop_assert_eq!(refused[0], Reason::AlreadyApplied, "{}", format);
            }
            prop_assert_eq!(&twice, &once, "{}", format);
        }
    }
}

/// An empty delta changes nothing, in any format: the playbook is the one
/// read, and what is written is the input's own bytes.
#[test]
fn an_empty_delta_is_a_byte_identical_no_op() {
    for (format, text) in bases() {
        let before = ace_registry::read(format, &text).unwrap().playbook;
        let mut pb = before.clone();
        let t = format.imp().curation(&pb);
        let mut d = Delta::new(Span::default());
        d.id = Some("empty".into());
        let outcome = ace_apply::apply(&mut pb, vec![(0, d.clone())], &t, &Options::default());
        assert_eq!(pb, before, "{format}");
        assert!(outcome.accepted().all(|v| v.applied == 0), "{format}");
        assert_eq!(step(format, &text, &[d]).0, text, "{format}");
    }
}
