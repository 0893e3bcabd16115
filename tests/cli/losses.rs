//! Nothing dropped in silence: what only the source's layout keeps (the
//! prose of an AGENTS.md, the plan around a vAgenda playbook) is reported
//! lost by a conversion to a format that cannot keep it, and `--strict`
//! refuses it; the skillbook's null fields survive a trip.

use std::path::Path;

use assert_cmd::Command;

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn convert() -> Command {
    let mut c = Command::cargo_bin("ace-convert").unwrap();
    c.env("SOURCE_DATE_EPOCH", "1766880000");
    c
}

#[test]
fn layout_content_left_behind_is_reported_and_refused_by_strict() {
    for (source, to, what) in [
        (
            "agents-md/managed-region.md",
            "json",
            "AGENTS.md prose and comments",
        ),
        (
            "agents-md/managed-region.md",
            "playbook-yaml",
            "AGENTS.md prose and comments",
        ),
        (
            "vagenda/plan-multiline-header.json",
            "json",
            "vAgenda plan around the playbook",
        ),
        (
            "vagenda/plan-multiline-header.json",
            "playbook-yaml",
            "vAgenda plan around the playbook",
        ),
    ] {
        let out = convert()
            .arg(fixture(source))
            .args(["--to", to])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{source} -> {to}: {stderr}");
        assert!(
            stderr.contains("`layout`") && stderr.contains(what),
            "{source} -> {to}: {stderr}"
        );
        let strict = convert()
            .arg(fixture(source))
            .args(["--to", to, "--strict"])
            .output()
            .unwrap();
        assert_eq!(strict.status.code(), Some(1), "{source} -> {to} --strict");
        assert!(strict.stdout.is_empty());
    }
    // A rewrite in the source's own format keeps it, and says nothing.
    let out = convert()
        .arg(fixture("vagenda/plan-multiline-header.json"))
        .args(["--to", "vagenda-tron", "--strict"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A skillbook's optional fields are saved as null by the framework; a
/// skillbook converted to vAgenda TRON and back has them again.
#[test]
fn a_skillbook_trip_keeps_the_null_fields() {
    let dir = tempfile::tempdir().unwrap();
    let sb = dir.path().join("skillbook.json");
    std::fs::write(
        &sb,
        r#"{"skills": {"general-00001": {"id": "general-00001", "section": "general", "content": "Read stdin before daemonizing", "justification": null, "evidence": null, "helpful": 1, "harmful": 0, "neutral": 0, "created_at": "2026-03-18T14:46:01Z", "updated_at": "2026-03-18T14:46:01Z", "embedding": null, "status": "active"}}, "sections": {"general": ["general-00001"]}, "next_id": 1, "similarity_decisions": {}}"#,
    )
    .unwrap();
    let tron = dir.path().join("sb.tron");
    convert()
        .arg(&sb)
        .arg("-o")
        .arg(&tron)
        .args(["--to", "vagenda-tron"])
        .assert()
        .success();
    let back = dir.path().join("back.json");
    convert()
        .arg(&tron)
        .arg("-o")
        .arg(&back)
        .args(["--to", "skillbook", "--skillbook-version", "0.8"])
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&back).unwrap()).unwrap();
    let skill = &v["skills"]["general-00001"];
    for key in ["embedding", "justification", "evidence"] {
        assert!(
            skill.get(key).is_some_and(|x| x.is_null()),
            "{key}: {skill}"
        );
    }
}
