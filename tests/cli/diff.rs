//! ace-diff from the command line: exit statuses as diff(1), the text and
//! JSON outputs, git's textconv and external-diff forms.

use assert_cmd::Command;
use predicates::prelude::*;

use crate::validate::write;

fn ace_diff() -> Command {
    Command::cargo_bin("ace-diff").unwrap()
}

const OLD: &str = "## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: Check the input first.\n[str-00002] helpful=0 harmful=0 :: Keep functions small.\n\n## COMMON MISTAKES TO AVOID\n[cm-00001] helpful=2 harmful=0 :: Never swallow errors.\n";
const NEW: &str = "## STRATEGIES & INSIGHTS\n[str-00001] helpful=3 harmful=0 :: Check the input first.\n[str-00003] helpful=0 harmful=0 :: Name things for what they do.\n\n## COMMON MISTAKES TO AVOID\n[cm-00001] helpful=2 harmful=0 :: Never swallow errors silently.\n";

#[test]
fn the_same_playbook_exits_0_and_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.md", OLD);
    let b = write(dir.path(), "b.md", OLD);
    ace_diff().arg(&a).arg(&b).assert().code(0).stdout("");
}

#[test]
fn changes_are_listed_by_section_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.md", OLD);
    let b = write(dir.path(), "b.md", NEW);
    ace_diff()
        .arg(&a)
        .arg(&b)
        .args(["--color", "never"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "## STRATEGIES & INSIGHTS\n~ [str-00001]\n    helpful: 1 -> 3\n+ [str-00003] helpful=0 harmful=0 :: Name things for what they do.\n- [str-00002] helpful=0 harmful=0 :: Keep functions small.\n## COMMON MISTAKES TO AVOID\n~ [cm-00001]\n    content: \"Never swallow errors.\" -> \"Never swallow errors silently.\"\n",
        ));
}

#[test]
fn json_output_has_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.md", OLD);
    let b = write(dir.path(), "b.md", NEW);
    let out = ace_diff()
        .arg(&a)
        .arg(&b)
        .args(["--output-format", "json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["same"], false);
    assert_eq!(v["old"]["format"], "markdown");
    assert_eq!(
        v["summary"],
        serde_json::json!({"added": 1, "removed": 1, "changed": 2})
    );
    let first = &v["entries"][0];
    assert_eq!(first["change"], "changed");
    assert_eq!(first["id"], "str-00001");
    assert_eq!(first["counters"]["helpful"]["delta"], 2);
    let cm = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "cm-00001")
        .unwrap();
    assert_eq!(cm["fields"][0]["field"], "content");
    assert_eq!(cm["fields"][0]["new"], "Never swallow errors silently.");
}

/// A playbook and its conversion hold the same entries: fields one format
/// derives (vAgenda's kind) are not differences.
#[test]
fn a_playbook_and_its_conversion_are_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.md", OLD);
    for to in ["json", "vagenda-json", "skill-json", "agents-md"] {
        let out = dir.path().join(format!("out-{to}"));
        Command::cargo_bin("ace-convert")
            .unwrap()
            .arg(&a)
            .args(["--to", to, "-q", "-o"])
            .arg(&out)
            .assert()
            .success();
        let assert = ace_diff()
            .arg(&a)
            .arg(&out)
            .args(["--color", "never"])
            .assert();
        if to == "skill-json" {
            // A new skill file numbers its bullets anew: the entries are
            // matched by content, and only their IDs differ.
            let text = String::from_utf8(assert.code(1).get_output().stdout.clone()).unwrap();
            let changes: Vec<&str> = text.lines().filter(|l| l.starts_with("    ")).collect();
            assert_eq!(changes.len(), 3, "{text}");
            assert!(changes.iter().all(|l| l.starts_with("    id: ")), "{text}");
        } else {
            assert.code(0).stdout("");
        }
    }
}

#[test]
fn textconv_prints_one_line_per_entry() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.md",
        "## RULES\n[rul-00001] helpful=1 harmful=0 :: First line\n  continued.\n",
    );
    ace_diff()
        .arg("--textconv")
        .arg(&a)
        .assert()
        .code(0)
        .stdout("## RULES\n[rul-00001] helpful=1 harmful=0 :: First line\\n  continued.\n");
}

/// git runs an external diff with seven arguments and takes any status
/// but 0 for a failure.
#[test]
fn as_git_s_external_diff_it_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.md", OLD);
    let b = write(dir.path(), "b.md", NEW);
    ace_diff()
        .arg("playbook.md")
        .arg(&a)
        .args(["0000000", "100644"])
        .arg(&b)
        .args(["1111111", "100644"])
        .args(["--color", "never"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "--- a/playbook.md\n+++ b/playbook.md\n",
        ));
}

#[test]
fn an_unreadable_file_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.md", OLD);
    ace_diff()
        .arg(&a)
        .arg(dir.path().join("missing.md"))
        .assert()
        .code(2);
    ace_diff().arg(&a).assert().code(2);
}

/// The difference as an AcePatch, applied to the old file, gives the new
/// file's entries, but for what the patch cannot say: the increments stamp
/// `updated_at`, and a removal is a deprecation (a warning says so).
#[test]
fn an_acepatch_of_the_difference_applies_to_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.md", OLD);
    let b = write(dir.path(), "b.md", NEW);
    let (va, vb) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for (from, to) in [(&a, &va), (&b, &vb)] {
        Command::cargo_bin("ace-convert")
            .unwrap()
            .arg(from)
            .args(["--to", "vagenda-json", "-q", "-o"])
            .arg(to)
            .assert()
            .success();
    }
    let out = ace_diff()
        .arg(&va)
        .arg(&vb)
        .args(["--output-format", "acepatch"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("`str-00002` is removed"))
        .get_output()
        .stdout
        .clone();
    let patch = write(dir.path(), "patch.json", &String::from_utf8(out).unwrap());
    let vc = dir.path().join("c.json");
    Command::cargo_bin("ace-apply")
        .unwrap()
        .arg(&va)
        .arg(&patch)
        .args(["--now", "2026-01-01T00:00:00Z", "-q", "-o"])
        .arg(&vc)
        .assert()
        .code(0);
    let text = String::from_utf8(
        ace_diff()
            .arg(&vb)
            .arg(&vc)
            .args(["--color", "never"])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    let rest: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("---") && !l.starts_with("+++") && !l.starts_with("## "))
        .filter(|l| !l.starts_with("~ ") && !l.starts_with("    updated_at: "))
        .collect();
    assert_eq!(
        rest,
        ["+ [str-00002] helpful=0 harmful=0 (deprecated) :: Keep functions small."],
        "{text}"
    );
}

/// `ace-diff OLD NEW --output-format DIALECT`, then `ace-apply OLD`: the
/// applied file and NEW differ in nothing but what ace-diff warned of.
fn diff_then_apply(old: &str, new: &str, name: &str, dialect: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), &format!("a-{name}"), old);
    let b = write(dir.path(), &format!("b-{name}"), new);
    let out = ace_diff()
        .arg(&a)
        .arg(&b)
        .args(["--output-format", dialect])
        .env("SOURCE_DATE_EPOCH", "1766880000")
        .assert()
        .code(1)
        .get_output()
        .clone();
    let delta = write(
        dir.path(),
        "delta.json",
        &String::from_utf8(out.stdout).unwrap(),
    );
    let c = dir.path().join(format!("c-{name}"));
    Command::cargo_bin("ace-apply")
        .unwrap()
        .arg(&a)
        .arg(&delta)
        .args(["--now", "2026-01-01T00:00:00Z", "-q", "-o"])
        .arg(&c)
        .assert()
        .code(0);
    let after = ace_diff()
        .arg(&c)
        .arg(&b)
        .args(["--color", "never"])
        .assert()
        .get_output()
        .stdout
        .clone();
    (
        String::from_utf8(after).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_skill_delta_of_the_difference_applies_to_the_old_file() {
    let old = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/apply/skill-playbook.json"
    ))
    .unwrap();
    let new = old
        .replacen("\"helpful_count\": 3", "\"helpful_count\": 5", 1)
        .replace("Use the Read tool, not cat.", "Use the Read tool, never cat.")
        .replacen(
            "\"status\": \"active\"",
            "\"status\": \"deprecated\",\n      \"deprecation_reason\": \"Folded into the Read rule\"",
            1,
        );
    assert_ne!(old, new);
    let (after, warnings) = diff_then_apply(&old, &new, "playbook.json", "skill-delta");
    assert_eq!(after, "", "{after}\n{warnings}");
    assert_eq!(warnings, "", "a skill delta says all of it");
}

#[test]
fn acedeltas_of_the_difference_apply_to_the_old_agents_md() {
    let old = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/apply/AGENTS.md"
    ))
    .unwrap();
    let new = old
        .replace("helpful:2, harmful:0]", "helpful:4, harmful:1]")
        .replace(
            "\n> Notes",
            "[Bullet #0badc0de, helpful:0, harmful:0] Run the linter before pushing\n\n> Notes",
        );
    let (after, warnings) = diff_then_apply(&old, &new, "AGENTS.md", "acedelta");
    assert!(
        warnings.contains("`0badc0de` is added without its ID")
            && warnings.contains("`43ea43ee`: an amend records itself as the bullet's provenance"),
        "{warnings}"
    );
    // What differs is what the warnings said: the new bullet's ID, the
    // amended bullet's provenance.
    let rest: Vec<&str> = after
        .lines()
        .filter(|l| !l.starts_with("---") && !l.starts_with("+++") && !l.starts_with("## "))
        .filter(|l| !l.starts_with("    provenance: "))
        .collect();
    assert!(
        rest.len() == 3
            && rest.contains(&"~ [43ea43ee]")
            && rest.contains(&"+ [0badc0de] helpful=0 harmful=0 :: Run the linter before pushing")
            && rest
                .iter()
                .any(|l| l.starts_with("- [") && l.ends_with(":: Run the linter before pushing")),
        "{after}"
    );
}

/// A kayba skill that gains an insight keeps its issue: the diff says the
/// issue moved from the content, not that it is new.
#[test]
fn an_issue_that_moved_out_of_the_content_is_said_to_have_moved() {
    let dir = tempfile::tempdir().unwrap();
    let skill = |insight: &str| {
        format!(
            r#"{{"skills": {{"harness-00001": {{"id": "harness-00001", "section": "harness", "keywords": ["tests"], "issue": "The runner needs PYTHONPATH", "insight": {insight}, "occurrences": [], "active": true, "used_count": 0, "helpful_count": 0, "harmful_count": 0, "neutral_count": 0, "created_at": "t", "updated_at": "t"}}}}, "sections": {{"harness": ["harness-00001"]}}, "next_id": 1, "similarity_decisions": {{}}, "schema_version": "2"}}"#
        )
    };
    let a = write(dir.path(), "old.json", &skill("null"));
    let b = write(
        dir.path(),
        "new.json",
        &skill("\"Export it in the script.\""),
    );
    ace_diff()
        .arg(&a)
        .arg(&b)
        .args(["--color", "never"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "~ [harness-00001]\n    content: \"The runner needs PYTHONPATH\" -> \"Export it in the script.\"\n    extra.issue: - -> \"The runner needs PYTHONPATH\" (was content)\n",
        ));
}
