//! Locating the shared corpus for tests.

use std::path::PathBuf;

/// What a test that needs the shared corpus says when it has none.
pub const NEEDS_CORPUS: &str = "this test needs ACE_CORPUS, the shared corpus folder: \
     ACE_CORPUS=../shared/corpus cargo test --workspace -- --include-ignored";

/// The corpus folder for `variant`, from `ACE_CORPUS`. Tests that call it
/// are `#[ignore = "needs ACE_CORPUS"]`, which `.ci/run` runs with
/// `--include-ignored`: run without the variable, or with a folder
/// missing, they fail with a message; they never pass without running.
pub fn corpus_dir(variant: &str) -> PathBuf {
    let root = std::env::var_os("ACE_CORPUS").expect(NEEDS_CORPUS);
    let dir = PathBuf::from(root).join(variant);
    assert!(
        dir.is_dir(),
        "ACE_CORPUS is set but {} is missing",
        dir.display()
    );
    dir
}

/// Every file in the folder except `SOURCES.md`, sorted by name.
pub fn corpus_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "SOURCES.md"))
        .collect();
    files.sort();
    files
}

/// The corpus folders that hold playbooks (and the files beside them that
/// read as something else), for tests over every playbook of every
/// variant.
pub const PLAYBOOK_VARIANTS: [&str; 7] = [
    "markdown-playbook",
    "agents-md",
    "playbook-yaml",
    "skill-json",
    "vagenda",
    "tron",
    "other",
];

/// Every text file of `variants`' corpus folders.
pub fn corpus_texts(variants: &[&str]) -> Vec<PathBuf> {
    variants
        .iter()
        .flat_map(|v| corpus_files(&corpus_dir(v)))
        .filter(|p| std::fs::read_to_string(p).is_ok())
        .collect()
}

/// A file of our own fixtures (`tests/fixtures/REL`).
pub fn fixture_path(rel: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// The text of a fixture; a missing one fails the test with its path.
pub fn fixture(rel: &str) -> String {
    let path = fixture_path(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
pub mod dialects;
pub mod matrix;
pub mod props;

/// The file `ace-apply` writes after `outcome` changed `src`'s playbook
/// into `pb`: `src` itself when nothing changed, else the format's edits
/// over `src` (checked against the whole writer's file), else the whole
/// writer's file.
pub fn applied_text(
    format: ace_registry::Format,
    src: &str,
    outcome: &ace_apply::Outcome,
    pb: &ace_model::Playbook,
    ctx: &ace_registry::WriteCtx,
) -> String {
    if !outcome.changed() {
        return src.to_owned();
    }
    let whole = ace_registry::write_with(format, pb, ctx).text;
    match format.imp().rewrite(src, &outcome.before, pb, ctx) {
        Some((edits, _)) => {
            let spliced = edits.text(src);
            assert_same_document(format, &spliced, &whole);
            spliced
        }
        None => whole,
    }
}

/// Checks that a file written over the old one (a format's `rewrite`)
/// holds what the whole writer writes for the same playbook: the same
/// JSON value for JSON formats, the same entries read back for all.
pub fn assert_same_document(format: ace_registry::Format, spliced: &str, whole: &str) {
    if format.name().ends_with("json") {
        let a: serde_json::Value = serde_json::from_str(spliced).expect("the spliced file is JSON");
        let b: serde_json::Value = serde_json::from_str(whole).expect("the written file is JSON");
        assert_eq!(a, b, "spliced:\n{spliced}\nwhole:\n{whole}");
    }
    let entries = |text: &str| -> Vec<ace_model::Entry> {
        let mut pb = ace_registry::read(format, text)
            .expect("reads back")
            .playbook;
        pb.entries
            .iter_mut()
            .for_each(|e| e.origin = Default::default());
        pb.entries
    };
    assert_eq!(entries(spliced), entries(whole), "spliced:\n{spliced}");
}
