//! Locating the shared corpus for tests.

use std::path::PathBuf;

/// The corpus folder for `variant`, from `ACE_CORPUS`. `None` when the
/// variable is unset (a developer run without the corpus). When it is set,
/// a missing folder is a failure, never a skip.
pub fn corpus_dir(variant: &str) -> Option<PathBuf> {
    let root = std::env::var_os("ACE_CORPUS")?;
    let dir = PathBuf::from(root).join(variant);
    assert!(
        dir.is_dir(),
        "ACE_CORPUS is set but {} is missing",
        dir.display()
    );
    Some(dir)
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
