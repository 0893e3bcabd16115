//! One exit model: the same status for the same outcome in every tool,
//! each `--help` ending with the table, and the README giving it.

use std::path::Path;

use assert_cmd::Command;

const TOOLS: [&str; 6] = [
    "ace-convert",
    "ace-validate",
    "ace-apply",
    "ace-diff",
    "ace-merge",
    "ace-view",
];

/// `tool` run on `input`, with what else it needs (a delta, a second
/// playbook, an output) from `dir`: its exit status.
fn status(tool: &str, input: &Path, dir: &Path) -> Option<i32> {
    let ok = dir.join("ok.md");
    let delta = dir.join("delta.json");
    let mut c = Command::cargo_bin(tool).unwrap();
    match tool {
        "ace-convert" => c.arg(input).args(["--to", "json"]),
        "ace-validate" => c.arg(input),
        "ace-apply" => c.arg(input).arg(&delta),
        "ace-diff" => c.arg(input).arg(&ok),
        "ace-merge" => c.arg("--base").arg(input).arg(&ok),
        _ => c.arg(input).arg("-o").arg(dir.join("page.html")),
    };
    c.output().unwrap().status.code()
}

#[test]
fn an_unreadable_input_exits_1_and_a_missing_one_2_in_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("ok.md"),
        "## S\n[s-00001] helpful=1 harmful=0 :: A rule.\n",
    )
    .unwrap();
    std::fs::write(d.join("delta.json"), r#"{"operations": []}"#).unwrap();
    let broken = d.join("skillbook.json");
    std::fs::write(&broken, r#"{"skills": {"a-00001": {"content": "cut"#).unwrap();
    for tool in TOOLS {
        assert_eq!(status(tool, &broken, d), Some(1), "{tool}: a cut-off file");
        assert_eq!(
            status(tool, &d.join("missing.md"), d),
            Some(2),
            "{tool}: a missing file"
        );
    }
    // A delta file that does not read is an unreadable input too.
    let o = Command::cargo_bin("ace-apply")
        .unwrap()
        .arg(d.join("ok.md"))
        .arg(&broken)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn every_help_ends_with_the_exit_statuses_and_the_readme_gives_them() {
    for tool in TOOLS {
        let o = Command::cargo_bin(tool)
            .unwrap()
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8(o.stdout).unwrap();
        assert!(
            help.trim_end().ends_with(ace_tools::EXIT_STATUS_HELP),
            "{tool}: {help}"
        );
    }
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    for line in ace_tools::EXIT_STATUS_HELP.lines().skip(1) {
        let (code, meaning) = line.trim().split_once("  ").unwrap();
        let row = format!("| {code} | {meaning} |");
        assert!(readme.contains(&row), "README.md lacks {row}");
    }
}

/// Exit 0 says the text was printed: a help, version or format list that
/// cannot be written (a full disk) is exit 2, and a reader that went away
/// early (`| head`) is no error.
#[cfg(target_os = "linux")]
#[test]
fn a_help_that_cannot_be_written_is_no_exit_0() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for tool in TOOLS.iter().copied().chain(["ace-mcp"]) {
        runs.push(vec![tool, "--help"]);
        runs.push(vec![tool, "--version"]);
    }
    runs.push(vec!["ace-convert", "--list-formats"]);
    for run in &runs {
        let o = std::process::Command::new(assert_cmd::cargo::cargo_bin(run[0]))
            .args(&run[1..])
            .stdout(full())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{run:?}: {err}");
        assert!(
            err.contains("standard output: No space left"),
            "{run:?}: {err}"
        );
    }
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' --help | head -c 1 >/dev/null",
            assert_cmd::cargo::cargo_bin("ace-apply").display()
        ))
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A playbook still holding a merge's conflict markers does not read in
/// any tool: exit 1, with ACE093 at the block's first line, whatever the
/// format (the markdown playbook would otherwise read as two entries of
/// one ID, and JSON as a parse error at a brace).
#[test]
fn a_file_with_conflict_markers_is_refused_by_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = [
        (
            "playbook.md",
            "## STRATEGIES\n<<<<<<< HEAD\n[str-00001] helpful=1 harmful=0 :: Ours.\n=======\n[str-00001] helpful=1 harmful=0 :: Theirs.\n>>>>>>> run1\n",
        ),
        (
            "playbook.json",
            "{\n  \"bullets\": [\n<<<<<<< HEAD\n    {\"id\": \"a\", \"content\": \"Ours.\"}\n=======\n    {\"id\": \"a\", \"content\": \"Theirs.\"}\n>>>>>>> run1\n  ]\n}\n",
        ),
    ];
    std::fs::write(
        d.join("delta.json"),
        r#"{"reasoning": "r", "operations": []}"#,
    )
    .unwrap();
    for (name, text) in files {
        std::fs::write(d.join(name), text).unwrap();
        let runs: [(&str, Vec<&str>); 5] = [
            ("ace-validate", vec![name]),
            ("ace-convert", vec![name, "--to", "json"]),
            ("ace-apply", vec![name, "delta.json"]),
            ("ace-diff", vec![name, name]),
            ("ace-view", vec![name, "-o", "view.html"]),
        ];
        for (bin, args) in runs {
            let out = assert_cmd::Command::cargo_bin(bin)
                .unwrap()
                .current_dir(d)
                .args(&args)
                .output()
                .unwrap();
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.status.code(), Some(1), "{bin} {name}: {all}");
            let line = text.lines().position(|l| l.starts_with("<<<<<<<")).unwrap() + 1;
            assert!(
                all.contains(&format!("{name}:{line}:1: error[ACE093]")),
                "{bin} {name}: {all}"
            );
        }
        assert!(!d.join("view.html").exists());
    }
}
