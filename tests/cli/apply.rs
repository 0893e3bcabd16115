//! ace-apply from the command line: exit statuses, outputs, write scope.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

use crate::validate::write;

fn apply() -> Command {
    let mut c = Command::cargo_bin("ace-apply").unwrap();
    c.env("SOURCE_DATE_EPOCH", "1766880000");
    c
}

fn fixture(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apply");
    std::fs::read_to_string(root.join(rel)).unwrap()
}

#[test]
fn an_acedelta_batch_into_an_agents_md_pair_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let agents = write(dir.path(), "knowledge/AGENTS.md", &fixture("AGENTS.md"));
    let yaml = write(
        dir.path(),
        "knowledge/playbook.yaml",
        "version: 0.3\nsections:\n  - id: \"build/patterns\"\n    weight: 0.7\n  - id: \"typescript/testing\"\n    weight: 0.8\n",
    );
    let batch = write(dir.path(), "batch.json", &fixture("acedelta-batch.json"));
    // Some deltas are refused: exit 1, the rest applied and written.
    apply()
        .arg(&agents)
        .arg(&batch)
        .args(["--in-place", "--report", "json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(r#""reason":"low-confidence""#));
    let text = std::fs::read_to_string(&agents).unwrap();
    assert!(
        text.contains("[Bullet #7f1c2a9e, helpful:1, harmful:0]"),
        "{text}"
    );
    // Nothing is left to apply: --check passes, and the files stay.
    let yaml_before = std::fs::read_to_string(&yaml).unwrap();
    apply()
        .arg(&agents)
        .arg(&batch)
        .arg("--check")
        .assert()
        .code(1);
    let single = write(dir.path(), "none.json", r#"{"operations": []}"#);
    apply()
        .arg(&agents)
        .arg(&single)
        .arg("--check")
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&yaml).unwrap(), yaml_before);
}

#[test]
fn check_and_diff_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pb = write(dir.path(), "playbook.json", &fixture("skill-playbook.json"));
    let delta = write(dir.path(), "delta.json", &fixture("skill-delta.json"));
    let before = std::fs::read_to_string(&pb).unwrap();
    apply().arg(&pb).arg(&delta).arg("--check").assert().code(1);
    apply()
        .arg(&pb)
        .arg(&delta)
        .arg("--diff")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("+      \"helpful_count\": 5,"));
    assert_eq!(std::fs::read_to_string(&pb).unwrap(), before);
}

#[test]
fn writes_outside_the_write_scope_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pb = write(dir.path(), "playbook.json", &fixture("skill-playbook.json"));
    let delta = write(dir.path(), "delta.json", &fixture("skill-delta.json"));
    for out in ["out.json", "../out.json", "/tmp/out.json"] {
        apply()
            .current_dir(dir.path())
            .arg(&pb)
            .arg(&delta)
            .args(["-o", out, "--write-scope", "knowledge/**"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("refusing to write"));
    }
    std::fs::create_dir_all(dir.path().join("knowledge")).unwrap();
    apply()
        .current_dir(dir.path())
        .arg(&pb)
        .arg(&delta)
        .args(["-o", "knowledge/out.json", "--write-scope", "knowledge/**"])
        .assert()
        .code(0);
    assert!(dir.path().join("knowledge/out.json").exists());
}

#[test]
fn a_file_that_is_no_delta_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let pb = write(dir.path(), "playbook.json", &fixture("skill-playbook.json"));
    let junk = write(dir.path(), "junk.json", r#"{"hello": 1}"#);
    apply()
        .arg(&pb)
        .arg(&junk)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no delta dialect recognises it"));
}
