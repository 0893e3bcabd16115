//! Every diagnostic rule has a fixture that triggers it and one that does
//! not: `tests/fixtures/rules/ACEnnn/{fires,clean}/`, with the extra
//! arguments the rule needs in `ACEnnn/args` (one per line, paths relative
//! to the rule's folder). A rule without both folders fails the test, so a
//! new rule cannot land without them.

use std::path::{Path, PathBuf};

use ace_model::rules::{RuleKind, ALL};

use crate::validate;

fn rules_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

/// The codes ace-validate reports for every file in `dir`, and its exit code.
fn codes_in(rule_dir: &Path, sub: &str) -> (Vec<String>, i32, String) {
    let mut files: Vec<String> = std::fs::read_dir(rule_dir.join(sub))
        .unwrap_or_else(|e| panic!("{}/{sub}: {e}", rule_dir.display()))
        .map(|e| format!("{sub}/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    let args: Vec<String> = std::fs::read_to_string(rule_dir.join("args"))
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default();
    let out = validate()
        .current_dir(rule_dir)
        .args(["--isolated", "--output-format", "json"])
        .args(&files)
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{}/{sub}: not JSON ({e}): {stdout}{stderr}",
            rule_dir.display()
        )
    });
    let codes = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect();
    (codes, out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn every_rule_has_a_firing_and_a_clean_fixture() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for rule in ALL.iter().filter(|r| r.kind == RuleKind::Diagnostic) {
        let dir = rules_dir().join(rule.code);
        assert!(
            dir.join("fires").is_dir() && dir.join("clean").is_dir(),
            "{} ({}) has no fixtures in {}",
            rule.code,
            rule.name,
            dir.display()
        );
        let (fired, status, stderr) = codes_in(&dir, "fires");
        if !fired.iter().any(|c| c == rule.code) || status == 2 {
            failures.push(format!(
                "{}: fires/ gave {fired:?}, exit {status} {stderr}",
                rule.code
            ));
        }
        let (clean, status, stderr) = codes_in(&dir, "clean");
        if clean.iter().any(|c| c == rule.code) || status == 2 {
            failures.push(format!(
                "{}: clean/ gave {clean:?}, exit {status} {stderr}",
                rule.code
            ));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 76, "only {checked} rules checked");
}
