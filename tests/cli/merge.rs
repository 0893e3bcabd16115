//! ace-merge as git's merge driver, configured as the README says, in a
//! real repository: `git merge` of two branches that changed one playbook.

use std::path::Path;
use std::process::Command;

const BASE: &str = "## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: Check the input first.\n[str-00002] helpful=0 harmful=0 :: Keep functions small.\n";

/// The driver line, as the README gives it.
const DRIVER: &str =
    "ace-merge %O %A %B --path=%P --marker-size=%L --ours-label=%X --theirs-label=%Y";

#[test]
fn the_readme_gives_the_driver_line_the_tests_use() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains(&format!("git config merge.ace.driver \"{DRIVER}\"")));
}

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
    ok(d, &["config", "merge.ace.driver", DRIVER]);
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

/// The entries of a playbook file as the canonical JSON has them.
fn entries(file: &Path) -> Vec<serde_json::Value> {
    let out = assert_cmd::Command::cargo_bin("ace-convert")
        .unwrap()
        .arg(file)
        .args(["--to", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["playbook"]["entries"].as_array().unwrap().clone()
}

/// One format's playbook and the changes the branches make to it.
struct Case {
    file: &'static str,
    base: &'static str,
    /// The bullet both branches touch: its ID, its text, a counter line as
    /// the file writes it with helpful = 1, and that line with `{}` for
    /// another count.
    id: &'static str,
    text: &'static str,
    counter: &'static str,
    counter_as: &'static str,
    /// Where a new bullet goes (the text is inserted before it) and the
    /// bullet with `{id}` and `{text}` to fill in.
    append_before: &'static str,
    bullet: &'static str,
    /// The bullet deprecated, as the text replacing `deprecate.0`.
    deprecate: (&'static str, &'static str),
    /// Whether the format has a status (else deprecating is removing).
    status: bool,
}

impl Case {
    fn bump(&self, text: &str, helpful: i64) -> String {
        text.replacen(
            self.counter,
            &self.counter_as.replace("{}", &helpful.to_string()),
            1,
        )
    }
    fn append(&self, text: &str, id: &str, content: &str) -> String {
        let bullet = self.bullet.replace("{id}", id).replace("{text}", content);
        text.replacen(self.append_before, &(bullet + self.append_before), 1)
    }
}

const MARKDOWN: Case = Case {
    file: "playbook.md",
    base: BASE,
    id: "str-00001",
    text: "Check the input first.",
    counter: "helpful=1",
    counter_as: "helpful={}",
    append_before: "<end>",
    bullet: "[{id}] helpful=0 harmful=0 :: {text}\n",
    deprecate: (
        "[str-00001] helpful=1 harmful=0 :: Check the input first.\n",
        "",
    ),
    status: false,
};

const AGENTS_MD: Case = Case {
    file: "AGENTS.md",
    base: "# Project Knowledge\n\nKept by the ACE curator.\n\n## typescript/testing\n\n[Bullet #43ea43ee, helpful:1, harmful:0] Import with .js extensions under ESM resolution\n<!-- deltaId=1c7d2e3f-bbbb-4ccc-9ddd-1e2f3a4b5c6d, beadsId=bd-9, createdAt=2025-11-02T09:00:00Z, hash=typescript/testing::import with .js extensions under esm resolution -->\n[Bullet #5e6f7a8b, helpful:0, harmful:0] Run the type checker before the tests\n\n> Notes for humans: run `bd ready` before picking work.\n",
    id: "43ea43ee",
    text: "Import with .js extensions under ESM resolution",
    counter: "helpful:1",
    counter_as: "helpful:{}",
    append_before: "\n> Notes",
    bullet: "[Bullet #{id}, helpful:0, harmful:0] {text}\n",
    deprecate: (
        "[Bullet #43ea43ee, helpful:1, harmful:0] Import with .js extensions under ESM resolution\n<!-- deltaId=1c7d2e3f-bbbb-4ccc-9ddd-1e2f3a4b5c6d, beadsId=bd-9, createdAt=2025-11-02T09:00:00Z, hash=typescript/testing::import with .js extensions under esm resolution -->\n",
        "",
    ),
    status: false,
};

const SKILL_JSON: Case = Case {
    file: "playbook.json",
    base: r#"{
  "version": "1.0.0",
  "last_updated": "2025-10-25T00:00:00Z",
  "bullets": [
    {
      "id": "bullet-2025-10-25-001",
      "title": "Read before editing",
      "content": "Read a file before editing it.",
      "tags": ["tool.edit"],
      "helpful_count": 1,
      "harmful_count": 0,
      "last_updated": "2025-10-25T00:00:00Z",
      "created": "2025-10-25T00:00:00Z",
      "status": "active"
    }
  ],
  "metadata": {
    "total_bullets": 1,
    "active_bullets": 1
  }
}
"#,
    id: "bullet-2025-10-25-001",
    text: "Read a file before editing it.",
    counter: r#""helpful_count": 1"#,
    counter_as: r#""helpful_count": {}"#,
    append_before: "\n  ],\n  \"metadata\"",
    bullet: ",\n    {\n      \"id\": \"{id}\",\n      \"title\": \"A lesson\",\n      \"content\": \"{text}\",\n      \"tags\": [\"lesson\"],\n      \"helpful_count\": 0,\n      \"harmful_count\": 0,\n      \"last_updated\": \"2025-10-26T00:00:00Z\",\n      \"created\": \"2025-10-26T00:00:00Z\",\n      \"status\": \"active\"\n    }",
    deprecate: (
        r#""status": "active"
    }
  ],"#,
        r#""status": "deprecated",
      "deprecation_reason": "Superseded by the editor's own check"
    }
  ],"#,
    ),
    status: true,
};

const VAGENDA_JSON: Case = Case {
    file: "team.vagenda.json",
    base: r#"{
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
"#,
    id: "entry-a",
    text: "Check the input before the loop.",
    counter: r#""helpfulCount": 1"#,
    counter_as: r#""helpfulCount": {}"#,
    append_before: "\n      ]\n    }\n  }",
    bullet: ",\n        {\"id\": \"{id}\", \"kind\": \"strategy\", \"text\": \"{text}\", \"helpfulCount\": 0, \"harmfulCount\": 0, \"status\": \"active\"}",
    deprecate: (
        r#""status": "active"}"#,
        r#""status": "deprecated", "deprecatedReason": "superseded"}"#,
    ),
    status: true,
};

const CASES: [&Case; 4] = [&MARKDOWN, &AGENTS_MD, &SKILL_JSON, &VAGENDA_JSON];

fn merge(dir: &Path) -> std::process::Output {
    git(dir, &["merge", "-q", "--no-edit", "b"])
}

/// Merges branch `b`, which must go cleanly, and gives the merged `file`.
fn merge_cleanly(dir: &Path, file: &str) -> std::path::PathBuf {
    let out = merge(dir);
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join(file)
}

#[test]
fn two_branches_bump_one_counter_and_append_a_bullet_each() {
    for case in CASES {
        let base = case.base.replace("<end>", "") + "<end>";
        let base_text = base.replace("<end>", "");
        let (id_a, id_b) = match case.file {
            "playbook.md" => ("str-00003", "str-00004"),
            "AGENTS.md" => ("aaaa0001", "bbbb0002"),
            "playbook.json" => ("bullet-2025-10-26-001", "bullet-2025-10-26-002"),
            _ => ("entry-b", "entry-c"),
        };
        let a = case
            .append(&case.bump(&base, 3), id_a, "Name things for what they do.")
            .replace("<end>", "");
        let b = case
            .append(&case.bump(&base, 2), id_b, "Delete dead code at once.")
            .replace("<end>", "");
        let dir = repo(case.file, &base_text, &a, &b);
        let merged = merge_cleanly(dir.path(), case.file);
        let es = entries(&merged);
        let text = std::fs::read_to_string(&merged).unwrap();
        let bumped = es.iter().find(|e| e["id"] == case.id).unwrap();
        assert_eq!(bumped["helpful"], 4, "{}:\n{text}", case.file);
        let contents: Vec<&str> = es.iter().filter_map(|e| e["content"].as_str()).collect();
        for c in ["Name things for what they do.", "Delete dead code at once."] {
            assert!(contents.contains(&c), "{}: {c} missing:\n{text}", case.file);
        }
        assert_eq!(es.len(), if case.status { 3 } else { 4 }, "{}", case.file);
        if case.file == "playbook.md" {
            assert_eq!(
                text,
                "## STRATEGIES & INSIGHTS\n[str-00001] helpful=4 harmful=0 :: Check the input first.\n[str-00002] helpful=0 harmful=0 :: Keep functions small.\n[str-00003] helpful=0 harmful=0 :: Name things for what they do.\n[str-00004] helpful=0 harmful=0 :: Delete dead code at once.\n"
            );
        }
    }
}

#[test]
fn two_branches_change_one_bullet_s_text_and_git_reports_a_conflict() {
    for case in CASES {
        let a = case.base.replace(case.text, "Ours: never skip this step.");
        let b = case.base.replace(case.text, "Theirs: always do this step.");
        let dir = repo(case.file, case.base, &a, &b);
        let out = merge(dir.path());
        assert!(!out.status.success(), "{}", case.file);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!(
                "CONFLICT (content): Merge conflict in {}",
                case.file
            )),
            "{}: {stdout}",
            case.file
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let merged = std::fs::read_to_string(dir.path().join(case.file)).unwrap();
        let head = format!("{}:", case.file);
        let line = stderr
            .lines()
            .find(|l| l.starts_with(&head) && l.contains(&format!("`{}` content", case.id)))
            .unwrap_or_else(|| panic!("{}: {stderr}", case.file));
        let n: usize = line[head.len()..]
            .split(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        if matches!(case.file, "playbook.md" | "AGENTS.md") {
            // Markers around the bullet, where git users look for them.
            let lines: Vec<&str> = merged.lines().collect();
            assert!(
                lines[n - 1].starts_with("<<<<<<< "),
                "{}: {n}:\n{merged}",
                case.file
            );
            let end = lines
                .iter()
                .position(|l| l.starts_with(">>>>>>> "))
                .unwrap();
            let inner = lines[n..end].join("\n");
            assert!(
                inner.contains("Ours: never") && inner.contains("=======\n"),
                "{merged}"
            );
            assert!(inner.contains("Theirs: always"), "{merged}");
            // Left unresolved, the file is refused as a conflict, at the
            // line git users look at, not read as two entries of one ID.
            let validate = assert_cmd::Command::cargo_bin("ace-validate")
                .unwrap()
                .current_dir(dir.path())
                .args([case.file, "--output-format", "concise"])
                .output()
                .unwrap();
            let report = String::from_utf8_lossy(&validate.stdout);
            assert_eq!(validate.status.code(), Some(1), "{report}");
            assert!(
                report.contains(&format!("{}:{n}:1: error[ACE093]", case.file))
                    && !report.contains("ACE002"),
                "{report}"
            );
        } else {
            // JSON keeps OURS' value: markers would break it.
            assert!(!merged.contains("<<<<<<<"), "{merged}");
            serde_json::from_str::<serde_json::Value>(&merged).unwrap();
            assert!(merged.contains("Ours: never") && !merged.contains("Theirs"));
            // The line is the entry's, at its text where the format
            // points at that.
            let at = merged.lines().nth(n - 1).unwrap();
            assert!(
                at.contains(case.id) || at.contains("Ours: never"),
                "{}: line {n}:\n{merged}",
                case.file
            );
        }
    }
}

#[test]
fn a_deprecation_and_a_counter_bump_merge_cleanly() {
    for case in CASES {
        let a = case.base.replace(case.deprecate.0, case.deprecate.1);
        assert_ne!(a, case.base, "{}", case.file);
        let b = case.bump(case.base, 4);
        // Each way round: the deprecation on OURS' side, then on THEIRS'.
        for (ours, theirs) in [(&a, &b), (&b, &a)] {
            let dir = repo(case.file, case.base, ours, theirs);
            let merged = merge_cleanly(dir.path(), case.file);
            let es = entries(&merged);
            let e = es.iter().find(|e| e["id"] == case.id);
            if case.status {
                let e = e.unwrap();
                assert_eq!(e["helpful"], 4, "{}", case.file);
                assert_eq!(e["status"], "deprecated", "{}", case.file);
            } else {
                // Without a status, deprecating is removing, and it wins.
                assert!(e.is_none(), "{}: {e:?}", case.file);
            }
        }
    }
}

/// What THEIRS changed outside its entries (prose, a title) is merged too,
/// and never dropped without a word.
#[test]
fn changes_outside_the_entries_are_merged_or_reported() {
    // Markdown: THEIRS rewrites the intro, OURS bumps a counter.
    let base = format!("# Lessons\n\nKept by the team.\n\n{BASE}");
    let ours = base.replace("helpful=1", "helpful=2");
    let theirs = base.replace("Kept by the team.", "Kept by the team; review monthly.");
    let dir = repo("playbook.md", &base, &ours, &theirs);
    assert!(merge(dir.path()).status.success());
    let text = std::fs::read_to_string(dir.path().join("playbook.md")).unwrap();
    assert_eq!(
        text,
        base.replace("helpful=1", "helpful=2")
            .replace("Kept by the team.", "Kept by the team; review monthly.")
    );
    // AGENTS.md: THEIRS edits the notes and appends, OURS edits the intro.
    let base = AGENTS_MD.base;
    let ours = base.replace("Kept by the ACE curator.", "Kept by the curator.");
    let theirs = AGENTS_MD
        .append(base, "cccc0003", "Pin the node version in CI")
        .replace("run `bd ready`", "run `bd ready` first");
    let dir = repo("AGENTS.md", base, &ours, &theirs);
    let text = std::fs::read_to_string(merge_cleanly(dir.path(), "AGENTS.md")).unwrap();
    for s in [
        "Kept by the curator.",
        "Pin the node version in CI",
        "run `bd ready` first",
    ] {
        assert!(text.contains(s), "{s}:\n{text}");
    }
    // vAgenda JSON: THEIRS renames the plan, OURS bumps a counter; then
    // both rename it, a conflict that keeps OURS' title.
    let base = VAGENDA_JSON.base;
    let ours = VAGENDA_JSON.bump(base, 2);
    let theirs = base.replace("\"title\": \"Playbook\"", "\"title\": \"Team lessons\"");
    let dir = repo("team.vagenda.json", base, &ours, &theirs);
    let text = std::fs::read_to_string(merge_cleanly(dir.path(), "team.vagenda.json")).unwrap();
    assert_eq!(
        text,
        ours.replace("\"title\": \"Playbook\"", "\"title\": \"Team lessons\"")
    );
    let ours = ours.replace("\"title\": \"Playbook\"", "\"title\": \"Our lessons\"");
    let dir = repo("team.vagenda.json", base, &ours, &theirs);
    let out = merge(dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("team.vagenda.json:4: conflict: `/plan/title` changed on both sides"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(dir.path().join("team.vagenda.json")).unwrap();
    assert_eq!(text, ours);
}

/// A version that is no readable playbook (a JSON file left broken on one
/// branch) is merged line by line, as git merges it without the driver,
/// with a note saying why; a result that does not read as a playbook
/// either is a conflict, never a clean merge git would commit.
#[test]
fn a_file_that_does_not_read_is_merged_as_git_merges_lines() {
    let base = SKILL_JSON.base;
    let ours = base.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.1\"");
    let theirs = base.replace("\"status\": \"active\"", "\"status\": \"active\",");
    let dir = repo("playbook.json", base, &ours, &theirs);
    let out = merge(dir.path());
    assert!(!out.status.success(), "a broken result is a conflict");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a readable skill-json playbook")
            && stderr.contains("merged line by line")
            && stderr.contains("does not read as a skill-json playbook"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(dir.path().join("playbook.json")).unwrap();
    assert_eq!(
        text,
        base.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.1\"")
            .replace("\"status\": \"active\"", "\"status\": \"active\",")
    );
    // A side cut short: its lines merge cleanly, and the result is as
    // broken as it.
    let truncated = &base[..base.len() / 2];
    let dir = repo("playbook.json", base, &ours, truncated);
    let out = merge(dir.path());
    assert!(!out.status.success(), "a truncated THEIRS is a conflict");
    // A broken BASE with two sides that read: merged line by line into a
    // file that reads, cleanly.
    let broken_base = base.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.0\",");
    let ours = base.replace(
        "2025-10-25T00:00:00Z\",\n  \"bullets",
        "2025-10-26T00:00:00Z\",\n  \"bullets",
    );
    assert_ne!(ours, base);
    let theirs = broken_base.replace("\"status\": \"active\"", "\"status\": \"deprecated\"");
    let dir = repo("playbook.json", &broken_base, &ours, &theirs);
    merge_cleanly(dir.path(), "playbook.json");
}

/// Two branches each append a hash-ID bullet at the end of one AGENTS.md
/// section; THEIRS' ID sorts before OURS'. Hash IDs carry no order, so
/// THEIRS' bullet goes after OURS', as the curator appends, and the merge
/// is clean.
#[test]
fn appended_hash_id_bullets_merge_in_the_order_they_came() {
    let case = &AGENTS_MD;
    let ours = case.append(case.base, "b2c3d4e5", "Prefer small commits to large ones");
    let theirs = case.append(case.base, "aaaa0001", "Name branches after their issue");
    let dir = repo(case.file, case.base, &ours, &theirs);
    let merged = merge_cleanly(dir.path(), case.file);
    let text = std::fs::read_to_string(&merged).unwrap();
    let expected = case.append(&ours, "aaaa0001", "Name branches after their issue");
    assert_eq!(text, expected);
    // Either way round.
    let dir = repo(case.file, case.base, &theirs, &ours);
    let text = std::fs::read_to_string(merge_cleanly(dir.path(), case.file)).unwrap();
    assert_eq!(
        text,
        case.append(&theirs, "b2c3d4e5", "Prefer small commits to large ones")
    );
}

/// A conflict in a JSON file is reported at the field that conflicts, as
/// the file spells it, not at the entry's content.
#[test]
fn a_json_conflict_is_reported_at_its_field() {
    let base = SKILL_JSON.base;
    let ours = base.replace("\"Read before editing\"", "\"Read first\"");
    let theirs = base.replace("\"Read before editing\"", "\"Always read\"");
    let ours = ours.replace(
        "\"status\": \"active\"",
        "\"status\": \"active\",\n      \"author\": \"agent\"",
    );
    let theirs = theirs.replace(
        "\"status\": \"active\"",
        "\"status\": \"active\",\n      \"author\": \"human\"",
    );
    let line_of = |text: &str, key: &str| {
        text.lines()
            .position(|l| l.trim_start().starts_with(&format!("\"{key}\"")))
            .unwrap()
            + 1
    };
    let dir = repo(SKILL_JSON.file, base, &ours, &theirs);
    let out = merge(dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (key, field) in [("title", "title"), ("author", "extra.author")] {
        let want = format!(
            "playbook.json:{}: conflict: `bullet-2025-10-25-001` {field}",
            line_of(&ours, key)
        );
        assert!(stderr.contains(&want), "{want}\n{stderr}");
    }
}

/// A playbook without counters (the paper's AppWorld playbooks): two
/// branches that each count one entry's first uses, from absent to 1 and
/// to 2, add up instead of conflicting.
#[test]
fn counters_from_absent_add_up() {
    let base = "## STRATEGIES AND HARD RULES\n[shr-00001] Make sure to end code blocks with a newline.\n[shr-00002] Check the API docs first.\n";
    let bump = |n: i64| {
        base.replace(
            "[shr-00001] Make",
            &format!("[shr-00001] helpful={n} harmful=0 :: Make"),
        )
    };
    let dir = repo("playbook.txt", base, &bump(1), &bump(2));
    let merged = merge_cleanly(dir.path(), "playbook.txt");
    let text = std::fs::read_to_string(merged).unwrap();
    assert!(
        text.contains("[shr-00001] helpful=3 harmful=0 :: Make"),
        "{text}"
    );
    assert!(
        text.contains("[shr-00002] Check the API docs first."),
        "{text}"
    );
}

/// Both branches append a different bullet under the same next ID, as two
/// curators each numbering from the file they had: a clean merge with both
/// bullets, THEIRS' renumbered to the next free ID, no markers, and the
/// renumbering said.
#[test]
fn two_branches_adding_one_new_id_merge_with_both_bullets() {
    for case in CASES {
        let base = case.base.replace("<end>", "") + "<end>";
        let base_text = base.replace("<end>", "");
        let id = match case.file {
            "playbook.md" => "str-00003",
            "AGENTS.md" => "aaaa0001",
            "playbook.json" => "bullet-2025-10-26-001",
            _ => "entry-b",
        };
        let a = case
            .append(&base, id, "Name things for what they do.")
            .replace("<end>", "");
        let b = case
            .append(&base, id, "Delete dead code at once.")
            .replace("<end>", "");
        let dir = repo(case.file, &base_text, &a, &b);
        let out = merge(dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", case.file);
        assert!(stderr.contains("renumbered"), "{}: {stderr}", case.file);
        let merged = dir.path().join(case.file);
        let text = std::fs::read_to_string(&merged).unwrap();
        assert!(!text.contains("<<<<<<<"), "{}:\n{text}", case.file);
        let es = entries(&merged);
        let with = |c: &str| {
            es.iter()
                .find(|e| e["content"] == c)
                .unwrap_or_else(|| panic!("{}: {c} missing:\n{text}", case.file))["id"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(with("Name things for what they do."), id, "{}", case.file);
        let other = with("Delete dead code at once.");
        assert_ne!(other, id, "{}", case.file);
        if case.file == "playbook.md" {
            assert_eq!(other, "str-00004");
        }
    }
}

#[test]
fn a_skill_bullet_theirs_added_is_merged_as_it_was_written() {
    // Branch b adds a bullet with what real files hold and the bullet
    // schema refuses (an author outside its enum, a key of its own,
    // evidence as text): a merge carries it as b wrote it.
    let added = r#"    {
      "id": "bullet-2025-10-25-002",
      "content": "Keep functions small enough to read at once.",
      "tags": ["style"],
      "author": "seed",
      "origin": "hand-written",
      "evidence": ["review of PR 12"],
      "helpful_count": 0,
      "harmful_count": 0
    }
  ],"#;
    let base = SKILL_JSON.base;
    let a = base.replace(r#""helpful_count": 1"#, r#""helpful_count": 2"#);
    let b = base.replacen("    }\n  ],", &format!("    }},\n{added}"), 1);
    assert_ne!(b, base);
    let dir = repo(SKILL_JSON.file, base, &a, &b);
    let merged = merge_cleanly(dir.path(), SKILL_JSON.file);
    let text = std::fs::read_to_string(&merged).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let bullets = doc["bullets"].as_array().unwrap();
    assert_eq!(bullets[0]["helpful_count"], 2, "{text}");
    let new = &bullets[1];
    assert_eq!(new["author"], "seed", "{text}");
    assert_eq!(new["origin"], "hand-written", "{text}");
    assert_eq!(
        new["evidence"],
        serde_json::json!(["review of PR 12"]),
        "{text}"
    );
    assert!(new.get("title").is_none(), "{text}");
}

/// git hands the driver a file name that is not UTF-8 as it is (`%P`),
/// and one that starts with `-` (the README's `--path=%P` keeps it a
/// value): the merge goes as for any other name, rather than failing on
/// the argument, which git would take for a conflict.
#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_or_looks_like_an_option_merges() {
    use std::os::unix::ffi::OsStrExt;
    for name in [&b"team\xff-playbook.md"[..], b"--force-playbook.md"] {
        merges_file_named(std::ffi::OsStr::from_bytes(name));
    }
}

#[cfg(unix)]
fn merges_file_named(name: &std::ffi::OsStr) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["init", "-q", "-b", "main"]);
    std::fs::write(d.join(".gitattributes"), "*playbook.md merge=ace\n").unwrap();
    ok(d, &["config", "merge.ace.name", "ACE playbook merge"]);
    ok(d, &["config", "merge.ace.driver", DRIVER]);
    std::fs::write(d.join(name), BASE).unwrap();
    ok(d, &["add", "."]);
    ok(d, &["commit", "-qm", "base"]);
    for (branch, counters) in [("a", "helpful=3 harmful=0"), ("b", "helpful=2 harmful=1")] {
        ok(d, &["checkout", "-q", "-b", branch, "main"]);
        let text = BASE.replace("helpful=1 harmful=0", counters);
        std::fs::write(d.join(name), text).unwrap();
        ok(d, &["commit", "-qam", branch]);
    }
    ok(d, &["checkout", "-q", "a"]);
    merge_cleanly(d, "");
    let merged = std::fs::read_to_string(d.join(name)).unwrap();
    assert!(
        merged.contains("[str-00001] helpful=4 harmful=1 :: Check the input first."),
        "{name:?}: {merged}"
    );
}

/// Without the driver, git's own merge leaves its markers inside a
/// code snippet's fence when two branches edit one line of it; every
/// tool refuses the file there, as `git diff --check` does, rather than
/// read the markers as the snippet's code.
#[test]
fn a_conflict_git_leaves_inside_a_code_snippet_is_refused() {
    let base = "## USEFUL CODE SNIPPETS AND TEMPLATES\n\
                [code-00001] helpful=1 harmful=0 :: Page through the results:\n\
                ```python\npage = 0\nwhile True:\n    items = api.list(page=page)\n    page += 1\n```\n\
                [code-00002] helpful=0 harmful=0 :: Check the inputs before calling the API.\n";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["init", "-q", "-b", "main"]);
    std::fs::write(d.join("playbook.md"), base).unwrap();
    ok(d, &["add", "."]);
    ok(d, &["commit", "-qm", "base"]);
    for (branch, page) in [("a", "page = 1"), ("b", "page = 2")] {
        ok(d, &["checkout", "-q", "-b", branch, "main"]);
        std::fs::write(d.join("playbook.md"), base.replace("page = 0", page)).unwrap();
        ok(d, &["commit", "-qam", branch]);
    }
    ok(d, &["checkout", "-q", "a"]);
    let out = merge(d);
    assert!(!out.status.success());
    let merged = std::fs::read_to_string(d.join("playbook.md")).unwrap();
    let n = merged
        .lines()
        .position(|l| l.starts_with("<<<<<<< "))
        .unwrap()
        + 1;
    assert!(merged.lines().nth(n - 2) == Some("```python"), "{merged}");
    assert_cmd::Command::cargo_bin("ace-validate")
        .unwrap()
        .current_dir(d)
        .args(["playbook.md", "--output-format", "concise"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(format!(
            "playbook.md:{n}:1: error[ACE093]"
        )));
}
