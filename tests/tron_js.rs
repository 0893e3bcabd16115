//! Differential test against the official TRON parser: our braced TRON
//! output of every corpus vAgenda document, parsed by `@tron-format/tron`,
//! must equal our JSON output of the same document, key for key (no
//! `null` for an absent field). With `ACE_MIGRATION_OUT`, the parser's JSON
//! of each document whose source passes its schema is saved for
//! `tests/schemas/check.py`, which checks it against the ACE schema.
//!
//! Needs `ACE_TRON_JS`, the folder where `tests/js` was installed with npm,
//! and `ACE_CORPUS`; `.ci/run` sets both and runs it with
//! `--include-ignored`. Without either, or without the install, it fails.

use std::path::PathBuf;
use std::process::Command;

use ace_registry::{Format, WriteCtx};
use ace_tests::{corpus_dir, corpus_files};

#[test]
#[ignore = "needs ACE_TRON_JS and ACE_CORPUS"]
fn our_braced_tron_reads_the_same_in_the_official_parser() {
    let js = std::env::var_os("ACE_TRON_JS").map(PathBuf::from).expect(
        "this test needs ACE_TRON_JS: `npm ci` in tests/js, then ACE_TRON_JS=$PWD/tests/js",
    );
    assert!(
        js.join("node_modules/@tron-format/tron").is_dir(),
        "ACE_TRON_JS={} has no node_modules/@tron-format/tron; run npm ci there",
        js.display()
    );
    let dirs: Vec<PathBuf> = ["tron", "vagenda"].iter().map(|v| corpus_dir(v)).collect();
    let out = tempfile::tempdir().unwrap();
    let braced = WriteCtx::default().with_option("tron-root", "braced");
    let mut written = 0;
    for path in dirs.iter().flat_map(|d| corpus_files(d)) {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some("tron") => Format::VAGENDA_TRON,
            Some("json") => Format::VAGENDA_JSON,
            _ => continue,
        };
        if !name.starts_with("visionik__") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if ace_registry::other_document(format, &text).is_some() {
            continue;
        }
        let Ok(parsed) = ace_registry::read(format, &text) else {
            continue;
        };
        if parsed.diagnostics.iter().any(|d| d.code == "ACE055") {
            continue;
        }
        // A source that breaks its schema keeps its flaws (the document is
        // kept whole): its parse is compared, not checked against the schema.
        let clean = !ace_check::validate(format, &text, &ace_check::LintOptions::default())
            .iter()
            .any(|d| d.severity == ace_model::Severity::Error);
        let tron = ace_registry::write_with(Format::VAGENDA_TRON, &parsed.playbook, &braced);
        let json = ace_registry::write(Format::VAGENDA_JSON, &parsed.playbook);
        let stem = match clean {
            true => format!("{name}.{written:03}"),
            false => format!("{name}.unchecked.{written:03}"),
        };
        std::fs::write(out.path().join(format!("{stem}.tron")), tron.text).unwrap();
        std::fs::write(out.path().join(format!("{stem}.json")), json.text).unwrap();
        written += 1;
    }
    assert!(written >= 45, "only {written} documents");
    // The parses go beside the migration's outputs, for check-jsonschema.
    let save = std::env::var_os("ACE_MIGRATION_OUT").map(|d| PathBuf::from(d).join("vagenda-json"));
    if let Some(dir) = &save {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut node = Command::new("node");
    node.arg(js.join("compare.mjs")).arg(out.path());
    if let Some(dir) = &save {
        node.arg(dir);
    }
    let result = node.current_dir(&js).output().expect("node runs");
    let report = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert!(
        report.contains(&format!("{written} compared, 0 failed")),
        "{report}"
    );
}
