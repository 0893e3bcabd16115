//! Every input a fuzz target crashed on, replayed through the same checks
//! (`fuzz/src/lib.rs`, included here so that the two cannot drift apart).
//! Inputs live in `tests/fixtures/fuzz/TARGET/`; docs/fuzzing.md says how
//! one gets there.

use crate::fuzz_checks as checks;

use std::path::Path;

use ace_registry::Format;

/// The format whose reader target is `read_NAME` (`read_skill_json`).
fn reader_format(target: &str) -> Option<Format> {
    Format::all()
        .iter()
        .copied()
        .find(|f| target == format!("read_{}", f.name().replace('-', "_")))
}

#[test]
fn every_fuzz_finding_stays_fixed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz");
    let mut replayed = 0;
    for target in std::fs::read_dir(&root).expect("tests/fixtures/fuzz exists") {
        let target = target.unwrap().path();
        let name = target.file_name().unwrap().to_string_lossy().into_owned();
        for input in std::fs::read_dir(&target).unwrap() {
            let input = input.unwrap().path();
            let data = std::fs::read(&input).unwrap();
            match (name.as_str(), reader_format(&name)) {
                ("round_trip", _) => checks::round_trip(&data),
                ("grammar_diff", _) => checks::grammar_diff(&data),
                (_, Some(format)) => checks::read_and_lint(format, &data),
                _ => panic!("{}: no fuzz target `{name}`", target.display()),
            }
            replayed += 1;
        }
    }
    assert!(
        replayed > 0,
        "no regression inputs under {}",
        root.display()
    );
}
