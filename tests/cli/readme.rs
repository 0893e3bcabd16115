//! The README's quick start runs as written: each of its shell commands,
//! in order, in a fresh git repository holding a copy of `examples/`, with
//! the built tools on PATH. (Its Python runs in tests/python.)

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shell commands of the README's quick start: the lines of its
/// indented blocks outside fenced ones, a line ending in `\` joined with
/// the next.
fn quick_start() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut out: Vec<String> = Vec::new();
    let (mut inside, mut fenced, mut joining) = (false, false, false);
    for line in readme.lines() {
        if line.starts_with("## ") {
            inside = line == "## Quick start";
            continue;
        }
        if !inside {
            continue;
        }
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(cmd) = line.strip_prefix("    ").filter(|_| !fenced) else {
            continue;
        };
        let (cmd, more) = match cmd.strip_suffix('\\') {
            Some(c) => (c, true),
            None => (cmd, false),
        };
        match out.last_mut() {
            Some(last) if joining => last.push_str(cmd),
            _ => out.push(cmd.to_owned()),
        }
        joining = more;
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.email=t@example.org", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn every_quick_start_command_runs_as_written() {
    let cmds = quick_start();
    assert!(cmds.len() > 20, "{cmds:?}");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
        &d.join("examples"),
    );
    git(d, &["init", "-q"]);
    git(d, &["add", "examples"]);
    git(d, &["commit", "-qm", "examples"]);
    let bin: PathBuf = assert_cmd::cargo::cargo_bin("ace-convert")
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for cmd in &cmds {
        let out = Command::new("bash")
            .args(["-c", cmd])
            .current_dir(d)
            .env("PATH", &path)
            .env_remove("SOURCE_DATE_EPOCH")
            .output()
            .unwrap();
        // ace-diff exits 1 when the playbooks differ, as diff does; the
        // README marks the other commands that find something.
        let allowed: &[i32] = if cmd.starts_with("ace-diff") || cmd.contains("exit 1") {
            &[0, 1]
        } else {
            &[0]
        };
        assert!(
            allowed.contains(&out.status.code().unwrap_or(-1)),
            "`{cmd}` exited {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        // What it wrote is there and not empty.
        let words: Vec<&str> = cmd.split_whitespace().collect();
        for w in words.windows(2) {
            if matches!(w[0], "-o" | ">" | "--into") {
                // A database location is its file, less the selector.
                let target = w[1].trim_matches('\'');
                let file = match target.strip_prefix("sqlite:") {
                    Some(rest) => rest.split('#').next().unwrap_or(rest),
                    None => target,
                };
                let len = std::fs::metadata(d.join(file)).map_or(0, |m| m.len());
                assert!(len > 0, "`{cmd}` wrote no {file}");
            }
        }
    }
    // What the quick start wrote reads back clean.
    let check = Command::new(bin.join("ace-validate"))
        .args([
            "-q",
            "playbook.txt",
            "plan.json",
            "skillbook.json",
            "merged.txt",
            "CLAUDE.md",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}
