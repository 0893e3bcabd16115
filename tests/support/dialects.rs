//! The checks every delta dialect of a registry goes through: detection,
//! a difference written in the dialect and applied back, and the apply
//! pipeline. None names a dialect; each iterates the registry it is
//! given, so that a dialect registered by a test alone
//! (`tests/new_dialect.rs`) is covered as the built-in ones are.

use ace_apply::{DeltaSource, Options, RunOptions, Subject};
use ace_model::{Entry, Playbook, Status};
use ace_registry::{DeltaDialect, Format, Registry, Sniff};

const NOW: &str = "2026-01-01T00:00:00Z";

/// A playbook in one format, before and after an edit: one entry's
/// counters bumped, one's text changed, one added, one deprecated (or
/// removed, in a format with no status). Both as the format holds them:
/// written in it and read back.
pub struct Pair {
    pub format: Format,
    pub old_text: String,
    pub old: Playbook,
    pub new: Playbook,
}

fn held(format: Format, pb: &Playbook) -> (String, Playbook) {
    let text = ace_registry::write_with(format, pb, &ace_registry::WriteCtx::default()).text;
    let back = ace_registry::read(format, &text)
        .unwrap_or_else(|d| panic!("{format}: its own output reads back: {}", d.message))
        .playbook;
    (text, back)
}

/// The edit of the markdown fixture `markdown/canonical.md` in every
/// format of `registry`.
pub fn pairs(registry: &Registry) -> Vec<Pair> {
    let source = crate::fixture("markdown/canonical.md");
    let base = ace_registry::read(Format::MARKDOWN, &source)
        .expect("the fixture reads")
        .playbook;
    registry
        .formats()
        .iter()
        .map(|&format| {
            let (old_text, old) = held(format, &base);
            let mut new = old.clone();
            assert!(new.entries.len() >= 4, "{format}: the fixture is too small");
            new.entries[0].helpful = Some(new.entries[0].helpful.unwrap_or(0) + 2);
            new.entries[1].content = "Read the error message to its end before acting.".into();
            let mut added = new.entries[0].clone();
            added.content = "Write the failing test before the fix.".into();
            added.id = format!("{}-99", new.entries[0].id);
            added.provenance = None;
            new.entries.push(added);
            let last_old = new.entries.len() - 2;
            match format.imp().curation(&old).status {
                true => new.entries[last_old].status = Some(Status::Deprecated),
                false => {
                    new.entries.remove(last_old);
                }
            }
            let (_, new) = held(format, &new);
            Pair {
                format,
                old_text,
                old,
                new,
            }
        })
        .collect()
}

/// The difference of a pair written in `dialect`, as text, with what the
/// writer said it cannot say.
fn written(pair: &Pair, dialect: &dyn DeltaDialect) -> (String, Vec<String>) {
    let d = ace_apply::diff::diff(&pair.old, &pair.new);
    let (value, lost) =
        ace_apply::render::as_delta(&d, dialect, &pair.old, pair.format, NOW, "a test edit")
            .unwrap_or_else(|| panic!("{} writes", dialect.name()));
    (serde_json::to_string_pretty(&value).unwrap(), lost)
}

/// Every dialect's own output is detected as that dialect, and a dialect
/// whose sniff passes a text over finds no delta in it.
pub fn each_dialect_detects_its_own_output(registry: &Registry) {
    let pairs = pairs(registry);
    let mut texts = Vec::new();
    for dialect in registry.written_dialects() {
        for pair in &pairs {
            let (text, _) = written(pair, dialect);
            let (found, _) =
                ace_apply::read_deltas(registry, &text, None, None, &Default::default())
                    .unwrap_or_else(|e| {
                        panic!("{} of {}: not read: {e:?}", dialect.name(), pair.format)
                    });
            assert_eq!(
                found.name(),
                dialect.name(),
                "{} of {} detected as another dialect",
                dialect.name(),
                pair.format
            );
            texts.push(text);
        }
    }
    for text in &texts {
        let input = Sniff::new(None, text);
        for d in registry.dialects() {
            if d.sniff(&input).is_none() {
                let ctx = ace_registry::DeltaReadCtx {
                    name: None,
                    min_confidence: 0.8,
                    min_evidence: 8,
                };
                assert!(
                    matches!(d.read(text, &ctx), Ok(None)),
                    "{} passes over a text it reads a delta from",
                    d.name()
                );
            }
        }
    }
}

/// An entry as a comparison of applied and expected playbooks sees it:
/// where it was read from is no part of it, nor are the times the engine
/// stamps on what it changes (a dialect's spec sets them).
fn seen(e: &Entry) -> Entry {
    let mut e = e.clone();
    e.origin = Default::default();
    e.updated_at = None;
    e.created_at = None;
    e
}

/// For each dialect and format: the difference of the pair written in
/// the dialect, read back by it and applied, gives NEW's entries exactly
/// wherever the writer said nothing is lost; a refusal is one the writer
/// foretold. How many runs compared entries, per dialect.
pub fn a_diff_applied_gives_the_new_entries(registry: &Registry) -> Vec<(&'static str, usize)> {
    let pairs = pairs(registry);
    let mut exact = Vec::new();
    for dialect in registry.written_dialects() {
        let mut n = 0;
        for pair in &pairs {
            let (text, lost) = written(pair, dialect);
            let (_, deltas) =
                ace_apply::read_deltas(registry, &text, None, Some(dialect), &Default::default())
                    .unwrap_or_else(|e| panic!("{} reads back: {e:?}\n{text}", dialect.name()));
            let mut pb = pair.old.clone();
            let traits = pair.format.imp().curation(&pb);
            let opts = Options {
                now: NOW.into(),
                ..Options::default()
            };
            let batch: Vec<_> = deltas.into_iter().map(|d| (0, d)).collect();
            let outcome = ace_apply::apply(&mut pb, batch.clone(), &traits, &opts);
            let refused: Vec<String> = outcome
                .rejected()
                .filter_map(|v| Some(v.refusal.as_ref()?.message.clone()))
                .collect();
            for r in &refused {
                assert!(
                    lost.iter()
                        .any(|l| l == &format!("the delta will be refused: {r}")),
                    "{} on {}: refused without warning: {r}\nwarnings: {lost:?}",
                    dialect.name(),
                    pair.format
                );
            }
            if !lost.is_empty() {
                continue;
            }
            let (_, applied) = held(pair.format, &pb);
            // Where a new entry goes is the engine's rule, not the
            // dialect's: the entries are compared in ID order.
            let sorted = |pb: &Playbook| {
                let mut v: Vec<Entry> = pb.entries.iter().map(seen).collect();
                v.sort_by(|x, y| (&x.id, &x.content).cmp(&(&y.id, &y.content)));
                v
            };
            let (a, b) = (sorted(&applied), sorted(&pair.new));
            assert_eq!(
                a,
                b,
                "{} on {}: the writer said nothing is lost\n{text}",
                dialect.name(),
                pair.format
            );
            n += 1;
        }
        exact.push((dialect.name(), n));
    }
    exact
}

/// The difference of each pair written in each dialect, applied to OLD's
/// text by the apply pipeline with this registry (the dialect detected):
/// the text it writes reads back as what the engine made, and the report
/// accepts the delta.
pub fn the_pipeline_applies_every_dialect(registry: &Registry) {
    for pair in pairs(registry) {
        for dialect in registry.written_dialects() {
            let (text, lost) = written(&pair, dialect);
            let opts = RunOptions {
                registry,
                dialect: None,
                read: Default::default(),
                apply: Options {
                    now: NOW.into(),
                    ..Options::default()
                },
            };
            let subject = Subject {
                format: pair.format,
                text: &pair.old_text,
                companion: None,
                playbook: pair.old.clone(),
            };
            let source = DeltaSource {
                name: "delta",
                file_name: None,
                text: &text,
            };
            let applied = ace_apply::run(subject, &[source], &opts);
            let what = format!("{} on {}", dialect.name(), pair.format);
            assert_eq!(
                applied.files[0].dialect.map(|d| d.name()),
                Some(dialect.name()),
                "{what}"
            );
            if applied.refused() > 0 {
                assert!(
                    lost.iter()
                        .any(|l| l.starts_with("the delta will be refused")),
                    "{what}: refused without warning: {}",
                    applied.report_json()
                );
                continue;
            }
            let report = applied.report_json();
            assert_eq!(report["rejected"], serde_json::json!([]), "{what}");
            let (_, read) = ace_apply::read_deltas(registry, &text, None, None, &opts.read)
                .unwrap_or_else(|_| panic!("{what}: the delta reads"));
            assert_eq!(
                report["accepted"].as_array().map(Vec::len),
                Some(read.len()),
                "{what}"
            );
            let texts = applied.texts();
            let back = ace_registry::read(pair.format, &texts.main)
                .unwrap_or_else(|d| panic!("{what}: the text written reads back: {}", d.message))
                .playbook;
            let (_, engine) = held(pair.format, &applied.playbook);
            let a: Vec<Entry> = back.entries.iter().map(seen).collect();
            let b: Vec<Entry> = engine.entries.iter().map(seen).collect();
            assert_eq!(a, b, "{what}");
        }
    }
}
