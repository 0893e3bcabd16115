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

/// Runs `cmd` with `--report json`, which must succeed: its output, the
/// JSON report and the whole of standard error.
fn applied_with_report(cmd: &mut Command) -> (std::process::Output, serde_json::Value, String) {
    let out = cmd
        .args(["--report", "json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr.clone()).unwrap();
    let report = stderr
        .lines()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON report in {stderr}"));
    (out, report, stderr)
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

/// ace.toml's `[apply] write-scope` holds for a run from any folder below
/// it, relative to its own folder; `--write-scope` replaces it, and
/// `--isolated` ignores it. Its curator thresholds are ace-apply's gate.
#[test]
fn ace_toml_sets_the_write_scope_and_the_curator_gate() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "ace.toml",
        "[thresholds]\nconfidence = 0.5\n\n[apply]\nwrite-scope = [\"knowledge/**\"]\n",
    );
    let pb = write(
        dir.path(),
        "knowledge/playbook.json",
        &fixture("skill-playbook.json"),
    );
    let delta = write(dir.path(), "delta.json", &fixture("skill-delta.json"));
    let sub = dir.path().join("knowledge");
    // From knowledge/, `out.json` is knowledge/out.json: inside.
    apply()
        .current_dir(&sub)
        .arg(&pb)
        .arg(&delta)
        .args(["-o", "out.json"])
        .assert()
        .code(0);
    // From the top, `out.json` is outside; `../x` from knowledge/ too.
    for (cwd, out) in [(dir.path(), "out.json"), (sub.as_path(), "../out.json")] {
        apply()
            .current_dir(cwd)
            .arg(&pb)
            .arg(&delta)
            .args(["-o", out])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("knowledge/**"));
    }
    // `..` that stays inside is fine.
    apply()
        .current_dir(&sub)
        .arg(&pb)
        .arg(&delta)
        .args(["-o", "../knowledge/again.json"])
        .assert()
        .code(0);
    apply()
        .current_dir(dir.path())
        .arg(&pb)
        .arg(&delta)
        .args(["-o", "out.json", "--isolated"])
        .assert()
        .code(0);
    // The confidence threshold of ace.toml lets a 0.55 AceDelta through.
    let agents = write(dir.path(), "knowledge/AGENTS.md", &fixture("AGENTS.md"));
    let batch = write(dir.path(), "batch.json", &fixture("acedelta-batch.json"));
    let report = |extra: &[&str]| {
        let out = apply()
            .current_dir(dir.path())
            .arg(&agents)
            .arg(&batch)
            .args(["--check", "--report", "json"])
            .args(extra)
            .output()
            .unwrap();
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(!report(&[]).contains("low-confidence"), "{}", report(&[]));
    assert!(report(&["--isolated"]).contains("low-confidence"));
    assert!(report(&["--min-confidence", "0.9"]).contains("low-confidence"));
}

/// A file that is no delta, or a broken one, is an input that does not
/// read: exit 1, as in every tool, and nothing is written, even where other deltas would apply.
#[test]
fn a_file_that_is_no_delta_stops_the_apply() {
    let dir = tempfile::tempdir().unwrap();
    let pb = write(dir.path(), "playbook.json", &fixture("skill-playbook.json"));
    let junk = write(dir.path(), "junk.json", r#"{"hello": 1}"#);
    let broken = write(dir.path(), "broken.json", r#"{"delta_id": "x","#);
    let good = write(dir.path(), "delta.json", &fixture("skill-delta.json"));
    let out = dir.path().join("x.json");
    apply()
        .arg(&pb)
        .arg(&junk)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no delta dialect recognises it"));
    apply()
        .arg(&pb)
        .arg(&good)
        .arg(&broken)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "broken.json:1:1: invalid JSON: unterminated object",
        ))
        .stderr(predicate::str::contains("nothing applied or written"));
    assert!(!out.exists(), "nothing written");
    apply()
        .arg(&pb)
        .arg(&broken)
        .arg("--in-place")
        .assert()
        .code(1);
    assert_eq!(
        std::fs::read_to_string(&pb).unwrap(),
        fixture("skill-playbook.json")
    );
}

/// The paper's curator operations into a markdown playbook that deviates
/// from the seed's layout: the new entries are the only new lines, and the
/// rest of the file keeps its bytes, odd spacing and CRLF endings included.
#[test]
fn curator_operations_into_markdown_change_only_the_lines_they_add() {
    let dir = tempfile::tempdir().unwrap();
    let src = "# Safety playbook\r\n\r\nKept as written.\r\n\r\n## STRATEGIES AND INSIGHTS\r\n[sai-00001]  helpful=2 harmful=0 ::   spaced\r\n\r\n\r\n## COMMON MISTAKES TO AVOID\r\n\r\n## OTHERS\r\n";
    let pb = write(dir.path(), "playbook.md", src);
    let ops = write(
        dir.path(),
        "ops.jsonl",
        concat!(
            r#"{"operation_type": "ADD", "section": "strategies_and_insights", "content": "Check the lockout."}"#,
            "\n",
            r#"{"operation_type": "ADD", "section": "common_mistakes_to_avoid", "content": "Skipping the tag."}"#,
            "\n",
            r#"{"operation_type": "ADD", "section": "no_such_section", "content": "Filed under others."}"#,
            "\n"
        ),
    );
    let out = dir.path().join("out.md");
    apply()
        .arg(&pb)
        .arg(&ops)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(0);
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        written,
        src.replace(
            "spaced\r\n",
            "spaced\r\n[sai-00002] helpful=0 harmful=0 :: Check the lockout.\r\n"
        )
        .replace(
            "## COMMON MISTAKES TO AVOID\r\n",
            "## COMMON MISTAKES TO AVOID\r\n[mis-00001] helpful=0 harmful=0 :: Skipping the tag.\r\n"
        )
        .replace(
            "## OTHERS\r\n",
            "## OTHERS\r\n[misc-00001] helpful=0 harmful=0 :: Filed under others.\r\n"
        )
    );
}

/// `--output-format curator` prints the curator spec's whole output object and
/// writes nothing.
#[test]
fn curator_output_is_the_seed_s_object() {
    let dir = tempfile::tempdir().unwrap();
    let agents = write(dir.path(), "knowledge/AGENTS.md", &fixture("AGENTS.md"));
    let batch = write(dir.path(), "batch.json", &fixture("acedelta-batch.json"));
    let out = apply()
        .arg(&agents)
        .arg(&batch)
        .args(["--output-format", "curator"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "some deltas are rejected");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["patchAgentsMd", "playbookYaml", "accepted", "rejected"]
    );
    let patch = v["patchAgentsMd"].as_str().unwrap();
    assert!(patch.starts_with("--- a/"), "{patch}");
    assert!(
        patch.contains("\n+[Bullet #7f1c2a9e, helpful:1, harmful:0] Run vitest"),
        "{patch}"
    );
    assert!(v["playbookYaml"]
        .as_str()
        .unwrap()
        .contains("typescript/testing"));
    assert_eq!(
        v["accepted"],
        serde_json::json!(["7f1c2a9e-0b1d-4c5e-9f00-1a2b3c4d5e6f"])
    );
    let reasons: Vec<&str> = v["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["low-confidence", "low-evidence", "duplicate"]);
    assert!(v["rejected"][0]["message"]
        .as_str()
        .unwrap()
        .contains("0.55"));
    assert_eq!(
        std::fs::read_to_string(&agents).unwrap(),
        fixture("AGENTS.md")
    );
    assert!(!dir.path().join("knowledge/playbook.yaml").exists());
}

/// A kayba ADD applied to a markdown playbook writes the spec's line,
/// which ace_claude_mcp's own parser (`migrate_to_d1.py`) matches: no
/// `neutral=0` after the counters.
#[test]
fn a_kayba_add_writes_the_markdown_specs_line() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::write(
        &pb,
        "## STRATEGIES & INSIGHTS\n[str-00001] helpful=5 harmful=0 :: Always verify data types.\n",
    )
    .unwrap();
    let batch = dir.path().join("batch.json");
    std::fs::write(
        &batch,
        r#"{"reasoning": "r", "operations": [{"type": "ADD", "section": "strategies_and_insights", "content": "Retry once.", "issue": "Flaky calls.", "insight": "Retry once."}]}"#,
    )
    .unwrap();
    assert_cmd::Command::cargo_bin("ace-apply")
        .unwrap()
        .arg(&pb)
        .arg(&batch)
        .arg("--in-place")
        .assert()
        .success();
    let text = std::fs::read_to_string(&pb).unwrap();
    let spec = regex::Regex::new(
        r"^\[([a-z]{3}-\d{5})\]\s+helpful=(\d+)\s+harmful=(\d+)(?:\s+\[([^\]]+)\])?\s+::\s+(.+)$",
    )
    .unwrap();
    let entries: Vec<&str> = text.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(entries.len(), 2, "{text}");
    for line in entries {
        assert!(spec.is_match(line), "{line:?} in\n{text}");
    }
}

/// kayba passes over an operation on a skill its skillbook lacks, and one
/// with no `skill_id` (an agent's `bullet_id`, the paper's word), and so
/// does ace-apply; the report names what was passed over, in text and in
/// JSON, rather than counting one change for a batch of three.
#[test]
fn an_operation_passed_over_is_named_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let book = write(
        dir.path(),
        "skillbook.json",
        r#"{"skills": {"general-00001": {"id": "general-00001", "section": "general", "content": "Check inputs.", "helpful": 1, "harmful": 0, "neutral": 0}}, "sections": {"general": ["general-00001"]}, "next_id": 1}"#,
    );
    let batch = write(
        dir.path(),
        "batch.json",
        r#"{"reasoning": "r", "operations": [
  {"type": "TAG", "section": "general", "skill_id": "general-00009", "metadata": {"helpful": 1}},
  {"type": "TAG", "section": "general", "skill_id": "general-00001", "metadata": {"helpful": 1}},
  {"type": "TAG", "section": "general", "bullet_id": "general-00001", "metadata": {"helpful": 1}}
]}"#,
    );
    let (out, report, stderr) =
        applied_with_report(apply().arg(&book).arg(&batch).args(["-o", "-"]));
    assert_eq!(
        report["passed_over"],
        serde_json::json!([
            {"id": "#1", "operation": "count", "target": "general-00009"},
            {"id": "#1", "operation": "count", "missing": "skill_id"}
        ]),
        "{stderr}"
    );
    let book_out: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(book_out["skills"]["general-00001"]["helpful"], 2);
    apply()
        .arg(&book)
        .arg(&batch)
        .args(["-o", "-"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "applied #1 (1 change)",
        ))
        .stderr(predicate::str::contains(
            "ace-apply: #1: passed over `count` on `general-00009`, which the playbook does not have",
        ))
        .stderr(predicate::str::contains(
            "ace-apply: #1: passed over `count`, which has no `skill_id` and so names no entry",
        ));
}

/// A count past the largest counter a playbook holds (ACE004 refuses a
/// larger one) is refused, not saturated: a saturated count would be
/// reported as applied while the file stays as it was. One short of the
/// largest still counts.
#[test]
fn a_count_past_the_largest_counter_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let delta = write(
        dir.path(),
        "delta.json",
        r#"{"operations": [{"op": "incrementCounter", "entryId": "str-00001", "delta": {"helpfulCount": 1}}]}"#,
    );
    let line =
        |n: i64| format!("## S\n[str-00001] helpful={n} harmful=0 :: Check the input first.\n");
    let full = write(dir.path(), "full.md", &line(i64::MAX));
    apply()
        .arg(&full)
        .arg(&delta)
        .arg("--in-place")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "rejected #1 (invalid): `count` would take `helpful` of `str-00001` past 9223372036854775807",
        ));
    assert_eq!(std::fs::read_to_string(&full).unwrap(), line(i64::MAX));
    let near = write(dir.path(), "near.md", &line(i64::MAX - 1));
    apply()
        .arg(&near)
        .arg(&delta)
        .arg("--in-place")
        .assert()
        .success()
        .stderr(predicate::str::contains("applied #1 (1 change)"));
    assert_eq!(std::fs::read_to_string(&near).unwrap(), line(i64::MAX));
}

/// The skill's merge script folds in the bullets of a merge that are
/// there and passes over one that is not; ace-apply does the same under
/// `--compat skill-script`, and says which.
#[test]
fn a_merged_bullet_the_playbook_lacks_is_named_under_the_skill_script() {
    let dir = tempfile::tempdir().unwrap();
    let book = write(dir.path(), "playbook.json", &fixture("skill-playbook.json"));
    let delta = write(
        dir.path(),
        "delta.json",
        r#"{"delta_id": "delta-2025-10-28-001", "timestamp": "2025-10-28T00:00:00Z", "author": "agent", "rationale": "Fold the two Read bullets together",
  "merges": [{"keep_id": "bullet-2025-10-25-002", "merge_ids": ["bullet-2025-10-25-003", "bullet-2025-10-25-099"], "merged_content": "Read files with the Read tool.", "rationale": "the same advice twice"}]}"#,
    );
    let (out, report, stderr) = applied_with_report(apply().arg(&book).arg(&delta).args([
        "-o",
        "-",
        "--compat",
        "skill-script",
    ]));
    assert_eq!(
        report["passed_over"],
        serde_json::json!([{"id": "delta-2025-10-28-001", "operation": "merge", "target": "bullet-2025-10-25-099"}]),
        "{stderr}"
    );
    let pb: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let merged = pb["bullets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "bullet-2025-10-25-003")
        .unwrap();
    assert!(
        merged["tags"]
            .as_array()
            .unwrap()
            .contains(&"merged".into()),
        "{merged}"
    );
    // Under the skill's spec the whole delta is refused instead.
    apply()
        .arg(&book)
        .arg(&delta)
        .args(["-o", "-"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bullet-2025-10-25-099"));
}

/// A skill bullet's title that conversion derived from its content
/// follows the content an update gives it; a title of the author's own
/// stays as it is.
#[test]
fn an_update_of_a_skill_bullet_s_content_moves_a_derived_title_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let md = write(
        dir.path(),
        "pb.md",
        "## STRATEGIES\n[str-00001] helpful=1 harmful=0 :: Make sure to end code blocks with a newline.\n[str-00002] helpful=1 harmful=0 :: Read the docs first.\n",
    );
    let skill = dir.path().join("playbook.json");
    Command::cargo_bin("ace-convert")
        .unwrap()
        .env("SOURCE_DATE_EPOCH", "1766880000")
        .arg(&md)
        .arg("-o")
        .arg(&skill)
        .assert()
        .success();
    let mut pb: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&skill).unwrap()).unwrap();
    let ids: Vec<String> = pb["bullets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        pb["bullets"][0]["title"],
        "Make sure to end code blocks with a newline"
    );
    pb["bullets"][1]["title"] = "Docs before code".into();
    std::fs::write(&skill, serde_json::to_string_pretty(&pb).unwrap()).unwrap();
    let batch = write(
        dir.path(),
        "batch.json",
        &serde_json::json!({"reasoning": "r", "operations": [
            {"type": "UPDATE", "section": "", "skill_id": ids[0], "content": "Check the premise before answering, twice."},
            {"type": "UPDATE", "section": "", "skill_id": ids[1], "content": "Read the API docs before the first call."}
        ]})
        .to_string(),
    );
    let out = apply()
        .arg(&skill)
        .arg(&batch)
        .args(["-o", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let pb: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let b = &pb["bullets"];
    assert_eq!(
        b[0]["content"],
        "Check the premise before answering, twice."
    );
    assert_eq!(b[0]["title"], "Check the premise before answering, twice");
    assert_eq!(b[1]["content"], "Read the API docs before the first call.");
    assert_eq!(b[1]["title"], "Docs before code");
}
