//! ace-merge as git's merge driver, configured as the README says, in a
//! real repository: `git merge` of two branches that changed one playbook.

use std::path::Path;
use std::process::Command;

const BASE: &str = "## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: Check the input first.\n[str-00002] helpful=0 harmful=0 :: Keep functions small.\n";

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("ace-merge");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("SOURCE_DATE_EPOCH", "1766880000")
        .output()
        .expect("git runs")
}

fn ok(dir: &Path, args: &[&str]) {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository with `file` committed as `base` on main, the merge driver
/// configured, and branches `a` and `b` that each changed it.
fn repo(file: &str, base: &str, a: &str, b: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["init", "-q", "-b", "main"]);
    std::fs::write(d.join(".gitattributes"), format!("{file} merge=ace\n")).unwrap();
    ok(d, &["config", "merge.ace.name", "ACE playbook merge"]);
    ok(
        d,
        &["config", "merge.ace.driver", "ace-merge %O %A %B --path %P"],
    );
    std::fs::write(d.join(file), base).unwrap();
    ok(d, &["add", "."]);
    ok(d, &["commit", "-qm", "base"]);
    for (branch, text) in [("a", a), ("b", b)] {
        ok(d, &["checkout", "-q", "-b", branch, "main"]);
        std::fs::write(d.join(file), text).unwrap();
        ok(d, &["commit", "-qam", branch]);
    }
    ok(d, &["checkout", "-q", "a"]);
    dir
}

#[test]
fn two_branches_bump_one_counter_and_append_a_bullet_each() {
    let a = BASE.replace("helpful=1", "helpful=3")
        + "[str-00003] helpful=0 harmful=0 :: Name things for what they do.\n";
    let b = BASE.replace("helpful=1", "helpful=2")
        + "[str-00004] helpful=0 harmful=0 :: Delete dead code.\n";
    let dir = repo("playbook.md", BASE, &a, &b);
    let out = git(dir.path(), &["merge", "-q", "--no-edit", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = std::fs::read_to_string(dir.path().join("playbook.md")).unwrap();
    assert_eq!(
        merged,
        "## STRATEGIES & INSIGHTS\n[str-00001] helpful=4 harmful=0 :: Check the input first.\n[str-00002] helpful=0 harmful=0 :: Keep functions small.\n[str-00003] helpful=0 harmful=0 :: Name things for what they do.\n[str-00004] helpful=0 harmful=0 :: Delete dead code.\n"
    );
}

#[test]
fn two_branches_change_one_bullet_s_text_and_git_reports_a_conflict() {
    let a = BASE.replace("Check the input first.", "Check the input first, always.");
    let b = BASE.replace("Check the input first.", "Validate the input first.");
    let dir = repo("playbook.md", BASE, &a, &b);
    let out = git(dir.path(), &["merge", "-q", "--no-edit", "b"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("playbook.md:2: conflict: `str-00001` content"),
        "{stderr}"
    );
}

#[test]
fn a_deprecation_and_a_counter_bump_merge_cleanly_in_vagenda_json() {
    let base = r#"{
  "vAgendaInfo": {"version": "0.2"},
  "plan": {
    "title": "Playbook",
    "status": "inProgress",
    "narratives": {"proposal": {"title": "Why", "content": "Lessons."}},
    "playbook": {
      "version": 1,
      "created": "2025-12-01T00:00:00Z",
      "updated": "2025-12-01T00:00:00Z",
      "entries": [
        {"id": "entry-a", "kind": "strategy", "text": "Check the input before the loop.", "helpfulCount": 1, "harmfulCount": 0, "status": "active"}
      ]
    }
  }
}
"#;
    let a = base.replace(
        r#""status": "active"}"#,
        r#""status": "deprecated", "deprecatedReason": "superseded"}"#,
    );
    let b = base.replace(r#""helpfulCount": 1"#, r#""helpfulCount": 4"#);
    let dir = repo("team.vagenda.json", base, &a, &b);
    let out = git(dir.path(), &["merge", "-q", "--no-edit", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = std::fs::read_to_string(dir.path().join("team.vagenda.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&merged).unwrap();
    let e = &v["plan"]["playbook"]["entries"][0];
    assert_eq!(e["helpfulCount"], 4, "{merged}");
    assert_eq!(e["status"], "deprecated", "{merged}");
}
