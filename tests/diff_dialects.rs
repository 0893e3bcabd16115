//! `ace-diff OLD NEW --output-format DIALECT` then `ace-apply OLD`: the
//! delta each dialect writes, read back by that dialect's reader (and
//! checked by it) and applied by the engine, gives NEW's entries, but for
//! what the dialect cannot say, which ace-diff warns of. On our fixtures
//! and on the successive versions of real playbooks in the corpus.

use std::path::Path;

use ace_apply::diff::diff;
use ace_apply::Options;
use ace_model::{normalize, Entry, Playbook, Status};
use ace_registry::{DeltaDialect, Format};
use ace_tests::corpus_dir;

const NOW: &str = "2026-01-01T00:00:00Z";

fn read(format: Format, text: &str) -> Playbook {
    ace_registry::read(format, text)
        .expect("the playbook reads")
        .playbook
}

/// Saves a delta written of a fixture where `.ci/run` has check-jsonschema
/// check it against its dialect's schema (tests/schemas/check.py):
/// `ACE_MIGRATION_OUT/DIALECT/`. The corpus pairs' are not saved: they
/// carry what their own files hold against the schemas.
fn save(dialect: &dyn DeltaDialect, format: Format, text: &str) {
    let Some(root) = std::env::var_os("ACE_MIGRATION_OUT") else {
        return;
    };
    let dir = std::path::PathBuf::from(root).join(dialect.name());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("fixture-{}.json", format.name())), text).unwrap();
}

/// OLD with the difference to NEW written in `dialect`, read back and
/// applied, and the warnings the writer gave; `None` when the delta is
/// refused, as the writer warned it would be.
fn round_trip(
    format: Format,
    old: &Playbook,
    new: &Playbook,
    dialect: &'static dyn DeltaDialect,
    fixture: bool,
) -> Option<(Playbook, Vec<String>)> {
    let d = diff(old, new);
    let (value, lost) =
        ace_apply::render::as_delta(&d, dialect, old, format, NOW, "ace-diff old new")
            .expect("written");
    let text = serde_json::to_string_pretty(&value).unwrap();
    if fixture {
        save(dialect, format, &text);
    }
    let registry = ace_registry::Registry::builtin();
    let (_, deltas) =
        ace_apply::read_deltas(registry, &text, None, Some(dialect), &Default::default())
            .unwrap_or_else(|e| panic!("{} reads back: {e:?}\n{text}", dialect.name()));
    let opts = Options {
        now: NOW.into(),
        ..Options::default()
    };
    let mut pb = old.clone();
    let t = format.imp().curation(&pb);
    let batch: Vec<(usize, ace_model::delta::Delta)> = deltas.into_iter().enumerate().collect();
    let outcome = ace_apply::apply(&mut pb, batch.clone(), &t, &opts);
    let refused: Vec<String> = outcome
        .rejected()
        .filter_map(|v| v.refusal.as_ref().map(|r| r.message.clone()))
        .collect();
    // A refusal is one the writer foretold, word for word.
    for r in &refused {
        assert!(
            lost.iter()
                .any(|l| l == &format!("the delta will be refused: {r}")),
            "{} refused without warning: {r}\nwarnings: {lost:?}\n{text}",
            dialect.name()
        );
    }
    if !refused.is_empty() {
        return None;
    }
    // As the file holds it: written by the format's writer and read again
    // (a markdown entry has no `kind`, which an AcePatch entry carries).
    let written = ace_registry::write_with(format, &pb, &ace_registry::WriteCtx::default()).text;
    Some((read(format, &written), lost))
}

/// An entry as the comparison for `dialect` sees it: what the dialect
/// says of it. An AcePatch and a skill delta carry everything but the
/// times the engine stamps; an AceDelta carries a bullet's section, text
/// and counters alone, and no ID.
fn seen(e: &Entry, dialect: &str) -> Entry {
    let mut e = e.clone();
    e.origin = Default::default();
    e.updated_at = None;
    // Both stamp a new entry with the time of applying.
    if dialect == "skill-delta" || dialect == "kayba-batch" {
        e.created_at = None;
    }
    if dialect == "acepatch" {
        // vAgenda times carry a zone; the writer warned of those it added.
        if let Some(z) = e.created_at.as_deref().and_then(ace_model::time::with_zone) {
            e.created_at = Some(z);
        }
    }
    // UTC is `Z` or `+00:00` (Python prints the second), one instant.
    if let Some(t) = e
        .created_at
        .as_deref()
        .and_then(|t| t.strip_suffix("+00:00"))
    {
        e.created_at = Some(format!("{t}Z"));
    }
    if dialect == "acedelta" {
        let mut seen = Entry {
            section: e.section.clone(),
            content: normalize::normalize(&e.content),
            helpful: e.helpful,
            harmful: e.harmful,
            ..Entry::default()
        };
        seen.status.clone_from(&e.status);
        return seen;
    }
    e
}

fn key(e: &Entry) -> (String, String, String) {
    (
        e.id.clone(),
        e.section.clone().unwrap_or_default(),
        e.content.clone(),
    )
}

/// NEW's entries against the applied ones, as `dialect` sees them. An
/// entry NEW lacks that the dialect could only deprecate (`removed`) is
/// not counted: the writer warned of it.
fn assert_same(applied: &Playbook, new: &Playbook, dialect: &str, what: &str, lost: &[String]) {
    let mut a: Vec<Entry> = applied
        .entries
        .iter()
        .filter(|e| {
            !(e.status == Some(Status::Deprecated)
                && e.deprecation_reason.as_deref() == Some("removed"))
        })
        // DannyMac180's operations cannot remove a bullet: the writer
        // warned of each that NEW lacks.
        .filter(|e| dialect != "dannymac-ops" || new.entries.iter().any(|n| n.id == e.id))
        .map(|e| seen(e, dialect))
        .collect();
    let mut b: Vec<Entry> = new.entries.iter().map(|e| seen(e, dialect)).collect();
    if dialect == "acepatch" {
        // Every AcePatch entry has a kind: one NEW lacks, the writer
        // warned of giving.
        let kindless: std::collections::HashSet<&str> = new
            .entries
            .iter()
            .filter(|e| e.kind.is_none())
            .map(|e| e.id.as_str())
            .collect();
        for e in &mut a {
            if kindless.contains(e.id.as_str()) {
                e.kind = None;
            }
        }
    }
    if dialect == "acedelta" {
        // The curator keeps one bullet of a section and text; ace_beads'
        // own files repeat some, which the writer warned of.
        let mut keys = std::collections::HashSet::new();
        b.retain(|e| keys.insert(e.dedup_key()));
    }
    a.sort_by_key(key);
    b.sort_by_key(key);
    if a != b {
        let diffs: Vec<String> = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x != y)
            .take(3)
            .map(|(x, y)| format!("applied {x:?}\n    new {y:?}"))
            .collect();
        panic!(
            "{what} via {}: {} entries applied, {} in NEW; first differences:\n{}\nwarnings: {lost:?}",
            dialect,
            a.len(),
            b.len(),
            diffs.join("\n")
        );
    }
}

/// Every dialect that can name `format`'s entries: an AcePatch any
/// format's (by ID), and the dialect the format names as its own (its
/// `Curation::dialect`: an AceDelta an AGENTS.md's, a skill delta a skill
/// playbook's, a kayba batch a skillbook's).
fn dialects(format: Format) -> Vec<&'static dyn DeltaDialect> {
    let registry = ace_registry::Registry::builtin();
    let own = format.imp().curation(&Playbook::default()).dialect;
    std::iter::once("acepatch")
        .chain(own.filter(|d| *d != "acepatch"))
        .map(|n| registry.dialect(n).unwrap())
        .collect()
}

/// How many dialects gave NEW's entries, and how many were refused as
/// their writer warned.
fn check_pair(old_path: &Path, new_path: &Path) -> (usize, usize) {
    let registry = ace_registry::Registry::builtin();
    let old_text = std::fs::read_to_string(old_path).unwrap();
    let new_text = std::fs::read_to_string(new_path).unwrap();
    let format = registry.detect(Some(old_path), &old_text);
    let what = format!(
        "{} -> {}",
        old_path.file_name().unwrap().to_string_lossy(),
        new_path.file_name().unwrap().to_string_lossy()
    );
    check_texts(format, &old_text, &new_text, &what, false)
}

fn check_texts(
    format: Format,
    old_text: &str,
    new_text: &str,
    what: &str,
    fixture: bool,
) -> (usize, usize) {
    let (old, new) = (read(format, old_text), read(format, new_text));
    let mut n = (0, 0);
    for dialect in dialects(format) {
        match round_trip(format, &old, &new, dialect, fixture) {
            Some((applied, lost)) => {
                assert_same(&applied, &new, dialect.name(), what, &lost);
                n.0 += 1;
            }
            None => n.1 += 1,
        }
    }
    n
}

/// A fixture of every format but the skill's with, in the new version, one
/// entry's counters bumped, one's text changed, one deprecated (removed,
/// where the format has no status) and one added.
#[test]
fn a_diff_applied_gives_the_new_version_of_every_fixture_in_every_dialect() {
    let fixtures = [
        ("markdown", "markdown/canonical.md"),
        ("agents-md", "apply/AGENTS.md"),
        ("skill-json", "apply/skill-playbook.json"),
        ("vagenda-json", "apply/vagenda-playbook.json"),
        ("json", "markdown/canonical.md"),
        ("skillbook", "markdown/canonical.md"),
        ("dannymac", "markdown/canonical.md"),
        ("code-engine", "markdown/canonical.md"),
    ];
    let (mut runs, mut expected) = (0, 0);
    for (name, rel) in fixtures {
        let format = Format::from_name(name).unwrap();
        let source = ace_tests::fixture(rel);
        let source_format = ace_registry::Registry::builtin().detect(Some(Path::new(rel)), &source);
        let old_pb = read(source_format, &source);
        let ctx = ace_registry::WriteCtx::default();
        let old_text = ace_registry::write_with(format, &old_pb, &ctx).text;
        let old = read(format, &old_text);
        let mut new = old.clone();
        assert!(new.entries.len() >= 2, "{rel}");
        new.entries[0].helpful = Some(new.entries[0].helpful.unwrap_or(0) + 2);
        new.entries[1].content = "Read the error message to its end before acting on it.".into();
        let mut added = new.entries[0].clone();
        added.content = "Write the failing test before the fix.".into();
        added.id = match name {
            "skill-json" => "bullet-2026-01-01-001".into(),
            "agents-md" => "0badc0de".into(),
            "markdown" | "json" => "str-00099".into(),
            _ => "entry-99".into(),
        };
        added.provenance = None;
        new.entries.push(added);
        if new.entries.len() > 3 {
            let last_old = new.entries.len() - 2;
            match format.imp().curation(&new).status {
                true => new.entries[last_old].status = Some(Status::Deprecated),
                false => {
                    new.entries.remove(last_old);
                }
            }
        }
        let new_text = ace_registry::write_with(format, &new, &ctx).text;
        let (same, refused) = check_texts(format, &old_text, &new_text, rel, true);
        assert_eq!(refused, 0, "{name}");
        runs += same;
        expected += dialects(format).len();
    }
    assert_eq!(runs, expected);
}

/// Successive versions of one playbook in the corpus, older first.
const PAIRS: [(&str, &str, &str); 10] = [
    ("markdown-playbook", "ace-agent__ace-appworld@1745bc1__experiments__playbooks__appworld_offline_trained_with_gt_playbook.txt", "ace-agent__ace-appworld@76241db__experiments__playbooks__appworld_offline_trained_with_gt_playbook.txt"),
    ("markdown-playbook", "ace-agent__ace-appworld@76241db__experiments__playbooks__appworld_offline_trained_with_gt_playbook.txt", "ace-agent__ace-appworld__experiments__playbooks__appworld_offline_trained_with_gt_playbook.txt"),
    ("markdown-playbook", "ace-agent__ace-appworld@465e950__experiments__playbooks__appworld_offline_trained_no_gt_playbook.txt", "ace-agent__ace-appworld__experiments__playbooks__appworld_offline_trained_no_gt_playbook.txt"),
    ("markdown-playbook", "ace-agent__ace-appworld@0ae1a22__experiments__playbooks__appworld_online_trained_playbook.txt", "ace-agent__ace-appworld__experiments__playbooks__appworld_online_trained_playbook.txt"),
    ("markdown-playbook", "ace-agent__ace-appworld__experiments__playbooks__appworld_initial_playbook.txt", "ace-agent__ace-appworld__experiments__playbooks__appworld_offline_trained_no_gt_playbook.txt"),
    ("markdown-playbook", "yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__intermediate_playbooks__epoch_1_final_playbook.txt", "yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__intermediate_playbooks__epoch_3_final_playbook.txt"),
    ("agents-md", "sjarmak__ace_beads@45e009d__knowledge__AGENTS.md", "sjarmak__ace_beads__knowledge__AGENTS.md"),
    ("agents-md", "sjarmak__ace_beads@6fdaa3e__AGENTS.md", "sjarmak__ace_beads__AGENTS.md"),
    ("skill-json", "jmanhype__claude-code-plugin-marketplace@3bb1a05__plugins__ace-context-engineering__skills__playbook.json", "jmanhype__claude-code-plugin-marketplace__plugins__ace-context-engineering__skills__playbook.json"),
    ("skill-json", "jmanhype__claude-code-plugin-marketplace@3bb1a05__plugins__ace-context-engineering__benchmarks__results__playbook_initial_20251026_230345.json", "jmanhype__claude-code-plugin-marketplace@3bb1a05__plugins__ace-context-engineering__benchmarks__results__playbook_final_20251027_001718.json"),
];

#[test]
#[ignore = "needs ACE_CORPUS"]
fn a_diff_applied_gives_the_newer_corpus_version_in_every_dialect() {
    let (mut same, mut refused) = (0, 0);
    for (variant, old, new) in PAIRS {
        let dir = corpus_dir(variant);
        // Forth, and back: the newer version's difference to the older.
        for (a, b) in [(old, new), (new, old)] {
            let (s, r) = check_pair(&dir.join(a), &dir.join(b));
            same += s;
            refused += r;
        }
    }
    // The three refused are skill deltas whose new bullets carry what the
    // skill's schema rejects (`scope: "app"`), as the skill's own
    // playbooks do.
    assert_eq!((same, refused), (25, 3));
}

/// The checks every dialect of a registry goes through
/// (`tests/support/dialects.rs`), on the built-in ones.
#[test]
fn every_built_in_dialect_detects_its_own_output() {
    ace_tests::dialects::each_dialect_detects_its_own_output(ace_registry::Registry::builtin());
}

#[test]
fn every_built_in_dialect_s_diff_applied_gives_the_new_entries() {
    let runs = ace_tests::dialects::a_diff_applied_gives_the_new_entries(
        ace_registry::Registry::builtin(),
    );
    eprintln!("entries compared exactly, per dialect: {runs:?}");
    // Where the writer warns of nothing, entries are compared exactly: an
    // AcePatch is silent for three formats today (the skill delta and the
    // AceDelta always have something to say, checked by the tests above).
    let exact = |name: &str| runs.iter().find(|r| r.0 == name).map_or(0, |r| r.1);
    assert!(exact("acepatch") >= 3, "{runs:?}");
}

#[test]
fn the_apply_pipeline_applies_every_built_in_dialect() {
    ace_tests::dialects::the_pipeline_applies_every_dialect(ace_registry::Registry::builtin());
}
