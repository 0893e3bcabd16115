//! Hostile and careless input, as an untrusted repository or a crashed
//! agent run hands it to the tools: commit messages and file names that
//! git must only read, runs that would wipe a merge, a fence left open
//! before the managed block, links out of the write scope, and files that
//! are no regular, writable, single-named file.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

fn tool(bin: &str) -> Command {
    let mut c = Command::cargo_bin(bin).unwrap();
    c.env("SOURCE_DATE_EPOCH", "1767225600");
    c
}

#[cfg(unix)]
/// A vAgenda patch: one more helpful on `str-00001`.
const DELTA: &str = r#"{"operations": [{"op": "incrementCounter", "entryId": "str-00001", "delta": {"helpfulCount": 1}}]}"#;

const BASE: &str = "## STRATEGIES\n\n[str-00001] helpful=1 harmful=0 :: Read the docs first.\n[str-00002] helpful=0 harmful=0 :: Check the status code.\n";

fn git_in(dir: &Path) -> Process {
    let mut c = Process::new("git");
    c.arg("-C")
        .arg(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z");
    c
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = git_in(dir).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_owned()
}

/// A repository holding `name` in two commits: BASE, then one counter up.
fn two_commits(dir: &Path, name: &str) -> PathBuf {
    git(dir, &["init", "-q", "-b", "main"]);
    let pb = dir.join(name);
    std::fs::write(&pb, BASE).unwrap();
    git(dir, &["add", "--", name]);
    git(dir, &["commit", "-q", "-m", "create"]);
    std::fs::write(&pb, BASE.replace("helpful=1", "helpful=2")).unwrap();
    git(dir, &["add", "--", name]);
    git(dir, &["commit", "-q", "-m", "count"]);
    pb
}

fn history(pb: &Path) -> String {
    let out = tool("ace-view").arg(pb).arg("--history").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Rows of the history table: one per commit.
fn rows(html: &str) -> usize {
    html.matches("<tr data-commit=").count()
}

/// A commit message can hold the old log's separators and an option for
/// `git show`: it must reach the page as text, make no file and add no row.
#[test]
fn a_commit_message_is_never_an_option_or_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let pb = two_commits(&repo, "playbook.md");
    std::fs::write(&pb, BASE.replace("helpful=1", "helpful=3")).unwrap();
    git(&repo, &["add", "playbook.md"]);
    let forged = "x\u{1e}--output=../pwned\u{1f}abc\u{1f}2026-01-01\u{1f}forged";
    git(&repo, &["commit", "-q", "-m", forged]);
    let html = history(&pb);
    assert!(!dir.path().join("pwned:playbook.md").exists());
    assert!(!dir.path().join("pwned").exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing made beside the repository"
    );
    assert_eq!(rows(&html), 3, "one row per commit, none forged");
    assert!(!html.contains("<td>forged"), "{html}");
    // Every commit read: its entries counted, no problem shown.
    assert_eq!(html.matches("did not read").count(), 0, "{html}");
}

/// A delta's file name and IDs reach the terminal as text: an escape
/// sequence in them is shown, not run.
#[test]
fn ace_apply_shows_a_control_character_in_a_name_or_id_and_never_sends_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    let name = "-e\u{1b}[31mvil\".json";
    let delta = r#"{"id": "d\u001b[2J1", "operations": [{"op": "incrementCounter", "entryId": "str-00001", "delta": {"helpfulCount": 1}}]}"#;
    std::fs::write(d.join(name), delta).unwrap();
    let out = tool("ace-apply")
        .current_dir(d)
        .args(["pb.md", "-o", "out.md", "--", name])
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(
        err.contains("-e[U+001B][31mvil\".json:1:1: applied"),
        "{err}"
    );
    assert!(std::fs::read_to_string(d.join("out.md"))
        .unwrap()
        .contains("helpful=2"));
}

/// Names git would quote, and names that are pathspec patterns, are read
/// as the file they name and no other.
#[test]
fn names_git_quotes_or_matches_as_patterns_are_that_file() {
    for name in ["café.md", "say \"hi\".md", "back\\slash.md", "tab\there.md"] {
        let dir = tempfile::tempdir().unwrap();
        let pb = two_commits(dir.path(), name);
        let html = history(&pb);
        assert_eq!(rows(&html), 2, "{name}");
        assert!(!html.contains("<td>?</td>"), "{name}: {html}");
        assert_eq!(html.matches("did not read").count(), 0, "{name}: {html}");
    }
    // `playbook[1].md` is not a pattern matching `playbook1.md`.
    let dir = tempfile::tempdir().unwrap();
    let pb = two_commits(dir.path(), "playbook[1].md");
    std::fs::write(dir.path().join("playbook1.md"), BASE).unwrap();
    git(dir.path(), &["add", "playbook1.md"]);
    git(dir.path(), &["commit", "-q", "-m", "other file"]);
    assert_eq!(rows(&history(&pb)), 2);
}

/// A repository that asks for signatures to be shown names the program
/// that checks them: it is never run.
#[cfg(unix)]
#[test]
fn a_repository_cannot_make_history_run_a_program() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let pb = two_commits(&repo, "playbook.md");
    let ran = dir.path().join("ran");
    let program = dir.path().join("gpg.sh");
    std::fs::write(
        &program,
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", ran.display()),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(&repo, &["config", "log.showSignature", "true"]);
    git(&repo, &["config", "gpg.program", program.to_str().unwrap()]);
    // A signed-looking commit of the file, so a signature check would
    // have a reason to run.
    std::fs::write(&pb, BASE.replace("helpful=1", "helpful=5")).unwrap();
    git(&repo, &["add", "playbook.md"]);
    let tree = git(&repo, &["write-tree"]);
    let parent = git(&repo, &["rev-parse", "HEAD"]);
    let raw = format!(
        "tree {tree}\nparent {parent}\nauthor t <t@example.org> 1767225600 +0000\ncommitter t <t@example.org> 1767225600 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned\n"
    );
    let obj = dir.path().join("commit.txt");
    std::fs::write(&obj, raw).unwrap();
    let id = git(
        &repo,
        &["hash-object", "-t", "commit", "-w", obj.to_str().unwrap()],
    );
    git(&repo, &["update-ref", "refs/heads/main", &id]);
    // git itself runs the program for a plain `git log` here.
    let plain = git_in(&repo).args(["log", "-1"]).output().unwrap();
    assert!(plain.status.success());
    assert!(ran.exists(), "the repository's setting is live");
    std::fs::remove_file(&ran).unwrap();
    let html = history(&pb);
    assert!(!ran.exists(), "gpg.program was run");
    assert_eq!(rows(&html), 3);
}

/// `--baseline` takes a revision from the command line: one shaped like
/// an option is a name git does not know, not an option.
#[test]
fn a_baseline_that_looks_like_an_option_is_only_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let pb = two_commits(dir.path(), "playbook.md");
    tool("ace-validate")
        .current_dir(dir.path())
        .arg(&pb)
        .args(["--baseline", "--output=pwned"])
        .assert()
        .code(2);
    assert!(!dir.path().join("pwned").exists());
}

fn merge() -> Command {
    tool("ace-merge")
}

/// Runs that would wipe the merged playbook are refused, exit 2, with
/// their names; nothing is written.
#[test]
fn a_run_that_would_wipe_the_merge_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("base.md"), BASE).unwrap();
    std::fs::write(d.join("r1.md"), BASE.replace("helpful=1", "helpful=2")).unwrap();
    std::fs::write(d.join("empty.md"), "").unwrap();
    std::fs::write(d.join("prose.md"), "The agent crashed before it wrote.\n").unwrap();
    std::fs::write(d.join("other.json"), "{\"not\": \"a playbook\"}\n").unwrap();
    for to in ["skill-json", "vagenda-json", "skillbook"] {
        tool("ace-convert")
            .arg(d.join("base.md"))
            .args(["--to", to, "-o"])
            .arg(d.join(format!("{to}.json")))
            .assert()
            .success();
    }
    let out = d.join("merged.md");
    let cases: [(&str, &[&str], &str); 7] = [
        ("empty.md", &[], "holds none of BASE's 2 entries"),
        ("prose.md", &[], "holds none of BASE's 2 entries"),
        ("other.json", &[], "holds none of BASE's 2 entries"),
        (
            "skill-json.json",
            &[],
            "a skill-json file, and BASE is markdown",
        ),
        ("vagenda-json.json", &[], "a vagenda-json file"),
        ("skillbook.json", &[], "a skillbook file"),
        (
            "skill-json.json",
            &["--from", "markdown"],
            "a skill-json file",
        ),
    ];
    for (run, extra, says) in cases {
        let o = merge()
            .current_dir(d)
            .args(["--base", "base.md", "r1.md", run, "-o"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{run}: {err}");
        assert!(err.contains(run) && err.contains(says), "{run}: {err}");
        assert!(!out.exists(), "{run}: nothing written");
    }
    // An empty run is taken when asked.
    merge()
        .current_dir(d)
        .args([
            "--base",
            "base.md",
            "r1.md",
            "empty.md",
            "--allow-empty",
            "-o",
        ])
        .arg(&out)
        .assert()
        .code(0);
    // The same rule in the three-way merge, and OURS is left as it was.
    let ours = d.join("ours.md");
    for theirs in ["empty.md", "skill-json.json"] {
        std::fs::write(&ours, BASE.replace("helpful=1", "helpful=2")).unwrap();
        merge()
            .current_dir(d)
            .args(["base.md", "ours.md", theirs])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(theirs));
        assert_eq!(
            std::fs::read_to_string(&ours).unwrap(),
            BASE.replace("helpful=1", "helpful=2")
        );
    }
}

/// A run its agent's writer was killed in the middle of still reads, as
/// every entry before the cut: merged, it would remove all the others.
/// It ends inside a line, and is refused, exit 2, nothing written (a cut
/// inside an entry's counters does not read, exit 1); a whole run without
/// its last line end merges.
#[test]
fn a_run_cut_off_mid_write_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base: String = (1..=6)
        .map(|n| {
            format!(
                "[str-{n:05}] helpful=1 harmful=0 :: Lesson number {n} says what to do and why.\n"
            )
        })
        .collect::<String>();
    let base = format!("## STRATEGIES & INSIGHTS\n{base}");
    std::fs::write(d.join("base.md"), &base).unwrap();
    std::fs::write(d.join("r1.md"), base.replacen("helpful=1", "helpful=2", 1)).unwrap();
    let out = d.join("merged.md");
    // `cut.md` merged after `r1.md`: refused with `says`, nothing written.
    let refused = |says: &str| {
        let o = merge()
            .current_dir(d)
            .args(["--base", "base.md", "r1.md", "cut.md", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{says}: {err}");
        assert!(!out.exists(), "{says}: nothing written");
    };
    let whole_merges = || {
        merge()
            .current_dir(d)
            .args(["--base", "base.md", "r1.md", "whole.md", "-o"])
            .arg(&out)
            .assert()
            .code(0);
        assert!(std::fs::read_to_string(&out)
            .unwrap()
            .contains("[str-00006]"));
        std::fs::remove_file(&out).unwrap();
    };
    let third = base.find("[str-00003]").unwrap();
    for (cut, missing) in [(third + 1, 4), (third + 45, 3), (base.len() - 10, 0)] {
        std::fs::write(d.join("cut.md"), &base[..cut]).unwrap();
        refused(&format!(
            "cut.md: ends inside a line, without the line end BASE ends with, and lacks BASE's last entry `str-00006` in full ({missing} of BASE's 6 entries missing)"
        ));
    }
    // Whole, only without the last line end: merged.
    std::fs::write(d.join("whole.md"), base.trim_end()).unwrap();
    whole_merges();
    // A BASE without a final line end: a run whose last entry is one of
    // BASE's cut inside its text.
    std::fs::write(d.join("base.md"), base.trim_end()).unwrap();
    std::fs::write(d.join("cut.md"), &base[..third + 45]).unwrap();
    refused("cut.md: ends inside a line, inside entry `str-00003`, whose text BASE holds in full (3 of BASE's 6 entries missing)");
    whole_merges();
}

/// A real `git merge` through the driver, of a branch whose agent crashed
/// and left the playbook empty: a conflict, and the playbook kept.
#[test]
fn git_merge_of_an_emptied_playbook_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    let bin = assert_cmd::cargo::cargo_bin("ace-merge");
    git(
        d,
        &[
            "config",
            "merge.ace.driver",
            &format!("'{}' %O %A %B --path=%P", bin.display()),
        ],
    );
    std::fs::write(d.join(".gitattributes"), "*.md merge=ace\n").unwrap();
    std::fs::write(d.join("playbook.md"), BASE).unwrap();
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "crashed"]);
    std::fs::write(d.join("playbook.md"), "").unwrap();
    git(d, &["commit", "-q", "-am", "crashed run"]);
    git(d, &["checkout", "-q", "main"]);
    let counted = BASE.replace("helpful=1", "helpful=2");
    std::fs::write(d.join("playbook.md"), &counted).unwrap();
    git(d, &["commit", "-q", "-am", "count"]);
    let o = git_in(d)
        .args(["merge", "-q", "--no-edit", "crashed"])
        .output()
        .unwrap();
    assert!(!o.status.success(), "the merge stops");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds none of BASE's 2 entries"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("playbook.md")).unwrap(),
        counted
    );
}

/// A fence opened before the block and never closed: `--into` refuses,
/// naming the fence's line, instead of adding a block each run.
#[test]
fn into_refuses_a_block_after_a_fence_that_never_closes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    let claude = d.join("CLAUDE.md");
    let host = "# Project\n\n```bash\ncargo test\n";
    std::fs::write(&claude, host).unwrap();
    for _ in 0..3 {
        tool("ace-convert")
            .current_dir(d)
            .args(["pb.md", "--into", "CLAUDE.md"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("CLAUDE.md:3:1"))
            .stderr(predicates::str::contains(
                "opened on line 3 is never closed",
            ));
    }
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), host);
    // A file that already has a block inside such a fence is refused too.
    let hidden = format!(
        "{host}\n{}\n[str-00001] helpful=1 harmful=0 :: x\n{}\n",
        "<!-- ACE:START - Do not edit manually -->", "<!-- ACE:END -->"
    );
    std::fs::write(&claude, &hidden).unwrap();
    tool("ace-convert")
        .current_dir(d)
        .args(["pb.md", "--into", "CLAUDE.md"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "markers on lines 6, 8 are inside it",
        ));
    tool("ace-validate")
        .current_dir(d)
        .arg("CLAUDE.md")
        .assert()
        .code(1)
        .stdout(predicates::str::contains("ACE087"));
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), hidden);
}

/// The write scope holds for the file a write replaces, links followed;
/// `--into` keeps to ace.toml's `[apply] write-scope` too.
#[cfg(unix)]
#[test]
fn the_write_scope_holds_for_the_file_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("proj")).unwrap();
    std::fs::create_dir_all(d.join("outside")).unwrap();
    std::fs::write(d.join("proj/base.md"), BASE).unwrap();
    std::fs::write(d.join("outside/p.md"), "untouched\n").unwrap();
    std::os::unix::fs::symlink("../outside/p.md", d.join("proj/playbook.md")).unwrap();
    let delta = d.join("delta.json");
    std::fs::write(&delta, DELTA).unwrap();
    tool("ace-apply")
        .current_dir(d)
        .args(["proj/base.md", "delta.json", "-o", "proj/playbook.md"])
        .args(["--write-scope", "proj/**"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("outside the write scope"));
    assert_eq!(
        std::fs::read_to_string(d.join("outside/p.md")).unwrap(),
        "untouched\n"
    );
    // The same link, named as the file to update in place.
    tool("ace-apply")
        .current_dir(d)
        .args(["proj/playbook.md", "delta.json", "--in-place"])
        .args(["--write-scope", "proj/**"])
        .assert()
        .code(2);
    std::fs::write(d.join("ace.toml"), "[apply]\nwrite-scope = [\"proj/**\"]\n").unwrap();
    tool("ace-convert")
        .current_dir(d)
        .args(["proj/base.md", "--into", "CLAUDE.md"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("outside the write scope"));
    assert!(!d.join("CLAUDE.md").exists());
    std::os::unix::fs::symlink("../outside/CLAUDE.md", d.join("proj/CLAUDE.md")).unwrap();
    tool("ace-convert")
        .current_dir(d)
        .args(["proj/base.md", "--into", "proj/CLAUDE.md"])
        .assert()
        .code(2);
    assert!(!d.join("outside/CLAUDE.md").exists());
    // Inside the scope, written.
    tool("ace-convert")
        .current_dir(d)
        .args(["proj/base.md", "--into", "proj/AGENTS.md"])
        .assert()
        .code(0);
}

/// A FIFO is refused at once, exit 2, by every tool that would rewrite
/// it or write to it: nothing waits on it.
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    std::fs::write(d.join("delta.json"), DELTA).unwrap();
    let fifo = d.join("fifo.md");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let runs: [(&str, &[&str]); 4] = [
        ("ace-convert", &["pb.md", "--into", "fifo.md"]),
        ("ace-convert", &["fifo.md", "--in-place"]),
        ("ace-apply", &["fifo.md", "delta.json", "--in-place"]),
        ("ace-convert", &["pb.md", "-o", "fifo.md"]),
    ];
    for (bin, args) in runs {
        tool(bin)
            .current_dir(d)
            .args(args)
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("a FIFO"));
    }
}

/// A read-only file is refused unless `--force`; a file with other hard
/// links is refused too, since a rewrite would split them.
#[cfg(unix)]
#[test]
fn read_only_and_hard_linked_files_are_refused_unless_forced() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("delta.json"), DELTA).unwrap();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    let ro = d.join("ro.md");
    std::fs::write(&ro, BASE).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let runs: [(&str, &[&str]); 3] = [
        ("ace-apply", &["ro.md", "delta.json", "--in-place"]),
        ("ace-convert", &["pb.md", "--into", "ro.md"]),
        ("ace-apply", &["pb.md", "delta.json", "-o", "ro.md"]),
    ];
    for (bin, args) in runs {
        tool(bin)
            .current_dir(d)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("ro.md: read-only"));
        assert_eq!(
            std::fs::read_to_string(&ro).unwrap(),
            BASE,
            "{bin} {args:?}"
        );
    }
    tool("ace-apply")
        .current_dir(d)
        .args(["ro.md", "delta.json", "--in-place", "--force"])
        .assert()
        .code(0);
    assert!(std::fs::read_to_string(&ro).unwrap().contains("helpful=2"));
    assert_eq!(std::fs::metadata(&ro).unwrap().mode() & 0o777, 0o444);

    let linked = d.join("linked.md");
    std::fs::write(&linked, BASE).unwrap();
    std::fs::hard_link(&linked, d.join("other-name.md")).unwrap();
    tool("ace-apply")
        .current_dir(d)
        .args(["linked.md", "delta.json", "--in-place"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("1 other hard link"));
    assert_eq!(std::fs::metadata(&linked).unwrap().nlink(), 2);
    assert_eq!(
        std::fs::read_to_string(d.join("other-name.md")).unwrap(),
        BASE
    );
}

/// Rewritten by root, another user's file keeps its owner and group.
#[cfg(unix)]
#[test]
fn a_rewrite_keeps_the_owner_and_group_it_may() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("delta.json"), DELTA).unwrap();
    let pb = d.join("pb.md");
    std::fs::write(&pb, BASE).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let (uid, gid) = if root {
        let c = std::ffi::CString::new(pb.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
        (65534, 65534)
    } else {
        let m = std::fs::metadata(&pb).unwrap();
        (m.uid(), m.gid())
    };
    tool("ace-apply")
        .current_dir(d)
        .args(["pb.md", "delta.json", "--in-place"])
        .assert()
        .code(0);
    let m = std::fs::metadata(&pb).unwrap();
    assert!(std::fs::read_to_string(&pb).unwrap().contains("helpful=2"));
    assert_eq!((m.uid(), m.gid()), (uid, gid));
}

/// A control character JSON escapes (`\u0000`, an escape sequence) is
/// written to a plain-text format as the visible `\u0000`, and said
/// (ACE102): the file written reads back, where a raw NUL made it binary.
#[test]
fn control_characters_never_make_an_unreadable_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    tool("ace-convert")
        .current_dir(d)
        .args(["pb.md", "--to", "json", "-o", "pb.json"])
        .assert()
        .success();
    let json = std::fs::read_to_string(d.join("pb.json")).unwrap().replace(
        "Read the docs first.",
        "Read\\u0000 the \\u001b[31mdocs\\u0007.",
    );
    std::fs::write(d.join("pb.json"), json).unwrap();
    for (to, out) in [
        ("markdown", "out.md"),
        ("agents-md", "agents/"),
        ("kayba-md", "out.skillbook.md"),
        ("managed-block", "CLAUDE.md"),
        ("playbook-yaml", "out.yaml"),
        ("vagenda-tron", "out.tron"),
    ] {
        let o = tool("ace-convert")
            .current_dir(d)
            .args(["pb.json", "--to", to, "-o", out])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{to}");
        let written = if to == "agents-md" {
            d.join("agents/AGENTS.md")
        } else {
            d.join(out)
        };
        let text = std::fs::read(&written).unwrap();
        assert!(!text.contains(&0), "{to}: a raw NUL");
        assert!(!text.contains(&0x1b), "{to}: a raw ESC");
        tool("ace-validate")
            .args(["--from", to])
            .arg(&written)
            .assert()
            .code(0);
        let err = String::from_utf8_lossy(&o.stderr);
        let plain = !matches!(to, "playbook-yaml" | "vagenda-tron");
        assert_eq!(err.contains("ACE102"), plain, "{to}: {err}");
        if plain {
            assert!(String::from_utf8_lossy(&text).contains("Read\\u0000 the \\u001b[31mdocs"));
            tool("ace-convert")
                .current_dir(d)
                .args(["pb.json", "--to", to, "--strict", "-o", "strict.out"])
                .assert()
                .code(1);
        }
    }
    // An entry added by a delta to a file rewritten in place.
    std::fs::write(
        d.join("add.json"),
        r#"{"operations": [{"op": "appendEntry", "entry": {"id": "str-00003", "kind": "strategy", "text": "x\u0000y"}}]}"#,
    )
    .unwrap();
    tool("ace-apply")
        .current_dir(d)
        .args(["pb.md", "add.json", "--in-place"])
        .assert()
        .code(0)
        .stderr(predicates::str::contains("ACE102"));
    tool("ace-validate").arg(d.join("pb.md")).assert().code(0);
}

/// A kayba export with a field given twice keeps both values.
#[test]
fn a_repeated_kayba_md_field_is_kept_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("ace_skillbook.md");
    std::fs::write(
        &md,
        "# ACE Skillbook\n\n## errors\n\n### `errors-00001`\n\nRetry a 503 once\n\n**Evidence:** trace 7\n\n**Evidence:** trace 8\n\n*Tags: helpful=2, harmful=0, neutral=0*\n",
    )
    .unwrap();
    tool("ace-validate")
        .arg(&md)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("ACE089"));
    let out = tool("ace-convert")
        .arg(&md)
        .args(["--to", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["playbook"]["entries"][0]["evidence"],
        serde_json::json!(["trace 7", "trace 8"])
    );
}

/// A character that reorders the text around it, or that no one sees, is
/// an error of ace-validate (ACE090), and the page and the terminal show
/// it as `[U+XXXX]`, never raw.
#[test]
fn bidi_and_invisible_characters_are_findings_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::write(
        &pb,
        "## S\n\n[s-00001] helpful=1 harmful=0 :: Run the tests \u{202e}yllacol\u{202c} first.\n[s-00002] helpful=0 harmful=0 :: Fine\u{e0049}\u{e0047}\u{e004e}.\n[s-00003] helpful=0 harmful=0 :: \u{5e9}\u{5dc}\u{5d5}\u{5dd} \u{200f}and \u{1f469}\u{200d}\u{1f4bb} are text.\n",
    )
    .unwrap();
    let out = tool("ace-validate").arg(&pb).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("error[ACE090]").count(), 2, "{text}");
    assert!(text.contains("U+202E (RIGHT-TO-LEFT OVERRIDE)"), "{text}");
    assert!(text.contains("U+E0049 (a TAG character)"), "{text}");
    assert!(
        !text.contains('\u{202e}') && !text.contains('\u{e0049}'),
        "{text}"
    );
    let page = tool("ace-view").arg(&pb).output().unwrap();
    let html = String::from_utf8(page.stdout).unwrap();
    assert!(html.contains("Run the tests [U+202E]yllacol[U+202C] first."));
    assert!(!html.contains('\u{202e}') && !html.contains('\u{e0049}'));
    assert!(html.contains("\u{200d}"), "joiners are text");
}

/// A long word gets a place to break every few characters on the page,
/// so a browser lays it out at once.
#[test]
fn a_long_word_on_the_page_can_break() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    let word = "a".repeat(100_000);
    std::fs::write(
        &pb,
        format!("## S\n\n[s-00001] helpful=1 harmful=0 :: {word}\n"),
    )
    .unwrap();
    let page = tool("ace-view").arg(&pb).output().unwrap();
    assert_eq!(page.status.code(), Some(0));
    let html = String::from_utf8(page.stdout).unwrap();
    let longest = html.split(|c: char| c != 'a').map(str::len).max().unwrap();
    assert_eq!(longest, 32, "the word's longest unbroken run");
    assert_eq!(html.matches("<wbr>").count(), (100_000 - 1) / 32);
}

const EVENT_APPEND: &str = r#"{
  "eventId": "evt-0100",
  "targetId": "entry-test-first",
  "operation": "append",
  "kind": "strategy",
  "title": "Write a failing test first",
  "text": "Before changing code, write a failing test that reproduces the bug.",
  "tags": ["testing"],
  "confidence": 0.95,
  "status": "active",
  "evidence": ["pr:42"],
  "createdAt": "2025-12-27T09:00:00Z"
}
"#;

/// One Playbooks-extension event on its own is an event, checked by the
/// extension's schema: not a skill playbook with errors.
#[test]
fn a_single_playbooks_event_is_checked_as_an_event() {
    let dir = tempfile::tempdir().unwrap();
    let ev = dir.path().join("event.json");
    std::fs::write(&ev, EVENT_APPEND).unwrap();
    tool("ace-validate")
        .arg(&ev)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("All checks passed"));
    let deprecate = dir.path().join("deprecate.json");
    std::fs::write(
        &deprecate,
        r#"{"eventId": "evt-0004", "targetId": "entry-dup", "operation": "deprecate", "prevEventId": "evt-0009", "status": "deprecated", "createdAt": "2025-12-27T09:30:00Z", "reason": "Duplicate"}"#,
    )
    .unwrap();
    tool("ace-validate").arg(&deprecate).assert().code(0);
    // A broken one is the schema's error, at its value.
    std::fs::write(&ev, EVENT_APPEND.replace("0.95", "\"high\"")).unwrap();
    tool("ace-validate")
        .arg(&ev)
        .assert()
        .code(1)
        .stdout(predicates::str::contains("event.json:9:17: error[ACE049]"));
}

/// The vAgenda repository's own event examples (its extension's docs).
#[test]
#[ignore = "needs ACE_CORPUS"]
fn the_corpus_event_examples_are_valid_events() {
    let dir = ace_tests::corpus_dir("vagenda");
    for name in ["pb-event-append", "pb-op-deprecate"] {
        let f = dir.join(format!(
            "visionik__vAgenda__vAgenda-extension-playbooks.md--{name}.json"
        ));
        assert!(f.is_file(), "{} is missing", f.display());
        let o = tool("ace-validate")
            .args(["--output-format", "json"])
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{name}");
        assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "[]", "{name}");
    }
}

/// Empty sections that AGENTS.md lists in another order are an order
/// changed, said (ACE103), and `--strict` refuses it.
#[test]
fn empty_sections_reordered_through_agents_md_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("pb.md"),
        "## STRATEGIES & INSIGHTS\n\n## FORMULAS & CALCULATIONS\n\n## OTHERS\n",
    )
    .unwrap();
    tool("ace-convert")
        .current_dir(d)
        .args(["pb.md", "--to", "agents-md", "-o", "ag/"])
        .assert()
        .code(0)
        .stderr(predicates::str::contains("ACE103"))
        .stderr(predicates::str::contains("`sections`"));
    let back = tool("ace-convert")
        .current_dir(d)
        .args(["ag/AGENTS.md", "--to", "markdown"])
        .output()
        .unwrap();
    let text = String::from_utf8(back.stdout).unwrap();
    assert!(
        text.find("FORMULAS").unwrap() < text.find("STRATEGIES").unwrap(),
        "the order read back is AGENTS.md's: {text}"
    );
}

/// The corpus playbook the reordering was found on: a round trip through
/// AGENTS.md reports it.
#[test]
#[ignore = "needs ACE_CORPUS"]
fn the_corpus_empty_sections_round_trip_is_reported() {
    let dir = ace_tests::corpus_dir("markdown-playbook");
    let f = dir.join("yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__best_playbook.txt");
    assert!(f.is_file(), "{} is missing", f.display());
    let out = tempfile::tempdir().unwrap();
    tool("ace-convert")
        .arg(&f)
        .args(["--to", "agents-md", "--strict", "-o"])
        .arg(out.path().join("ag/"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("`sections`"));
}

/// A file name that is not UTF-8 (an untrusted repository may hold one,
/// and pre-commit and git pass it on as it is) is read like any other,
/// shown with U+FFFD where its bytes are not text, rather than failing
/// the whole run on the argument: by ace-validate (the pre-commit hook),
/// ace-diff (git's external diff and textconv), ace-apply's playbook,
/// deltas and output, ace-convert's input and output (whose format the
/// rest of the name tells) and ace-view's playbook.
#[cfg(unix)]
#[test]
fn tools_git_hands_names_to_read_a_file_whose_name_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bad = std::ffi::OsStr::from_bytes(b"team\xff-playbook.md");
    let prose = std::ffi::OsStr::from_bytes(b"notes\xfe.md");
    std::fs::write(
        d.join(bad),
        format!("{BASE}[str-00001] helpful=0 harmful=0 :: Again.\n"),
    )
    .unwrap();
    std::fs::write(d.join(prose), "# Notes\n\nNothing to see.\n").unwrap();
    let out = tool("ace-validate")
        .current_dir(d)
        .args([
            "--only-ace",
            "--force-exclude",
            "--output-format",
            "concise",
        ])
        .arg(bad)
        .arg(prose)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("team\u{fffd}-playbook.md:5:1: error[ACE002]"),
        "{stdout}"
    );
    assert!(!stdout.contains("notes"), "{stdout}");
    let new = std::ffi::OsStr::from_bytes(b"new\xfe.md");
    std::fs::write(d.join(new), BASE.replace("helpful=1", "helpful=2")).unwrap();
    let good = std::ffi::OsStr::from_bytes(b"good\xfd.md");
    std::fs::write(d.join(good), BASE).unwrap();
    // git's seven external-diff arguments, the path first.
    let out = tool("ace-diff")
        .current_dir(d)
        .arg(bad)
        .arg(good)
        .args(["0", "100644"])
        .arg(new)
        .args(["0", "100644"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("+++ b/team\u{fffd}-playbook.md"),
        "{stdout}"
    );
    assert!(stdout.contains("helpful: 1 -> 2"), "{stdout}");
    tool("ace-diff")
        .current_dir(d)
        .arg("--textconv")
        .arg(good)
        .assert()
        .success()
        .stdout(predicates::str::contains("Read the docs first."));
    let delta = std::ffi::OsStr::from_bytes(b"delta\xfc.json");
    std::fs::write(d.join(delta), DELTA).unwrap();
    std::fs::write(d.join("good.md"), BASE).unwrap();
    tool("ace-apply")
        .current_dir(d)
        .arg("good.md")
        .arg(delta)
        .args(["-o", "-"])
        .assert()
        .success()
        .stdout(predicates::str::contains("[str-00001] helpful=2"));
    tool("ace-apply")
        .current_dir(d)
        .arg(good)
        .arg(delta)
        .arg("--in-place")
        .assert()
        .success();
    assert!(std::fs::read_to_string(d.join(good))
        .unwrap()
        .contains("[str-00001] helpful=2"));
    let out = std::ffi::OsStr::from_bytes(b"out\xfb-skillbook.json");
    tool("ace-apply")
        .current_dir(d)
        .arg(good)
        .arg(delta)
        .arg("-o")
        .arg(new)
        .assert()
        .success();
    assert!(std::fs::read_to_string(d.join(new))
        .unwrap()
        .contains("[str-00001] helpful=3"));
    tool("ace-convert")
        .current_dir(d)
        .arg(good)
        .arg("-o")
        .arg(out)
        .assert()
        .success();
    let book: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join(out)).unwrap()).unwrap();
    assert_eq!(
        book["skills"].as_object().map(|s| s.len()),
        Some(2),
        "{book}"
    );
    tool("ace-convert")
        .current_dir(d)
        .arg(out)
        .args(["--to", "markdown"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Read the docs first."));
    tool("ace-view")
        .current_dir(d)
        .arg(good)
        .assert()
        .success()
        .stdout(predicates::str::contains("Read the docs first."));
}

/// `-o /dev/null` writes to it, as `sort -o /dev/null` does (a character
/// device has no file to replace and never waits), in every tool that
/// takes `-o`; the device stays a device. Rewriting it in place is still
/// refused, as is `/dev/stdout` when it is a pipe (a FIFO).
#[cfg(unix)]
#[test]
fn output_to_dev_null_is_written_and_in_place_is_refused() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    std::fs::write(d.join("delta.json"), DELTA).unwrap();
    let runs: [(&str, &[&str]); 4] = [
        ("ace-convert", &["pb.md", "--to", "json", "-o", "/dev/null"]),
        ("ace-apply", &["pb.md", "delta.json", "-o", "/dev/null"]),
        ("ace-view", &["pb.md", "-o", "/dev/null"]),
        (
            "ace-merge",
            &["--base", "pb.md", "pb.md", "-o", "/dev/null"],
        ),
    ];
    for (bin, args) in runs {
        tool(bin).current_dir(d).args(args).assert().success();
    }
    let null = std::fs::metadata("/dev/null").unwrap();
    assert!(null.file_type().is_char_device());
    tool("ace-apply")
        .current_dir(d)
        .args(["/dev/null", "delta.json", "--in-place"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("a device"));
    // `/dev/stdout` on a pipe: refused, not waited on.
    tool("ace-convert")
        .current_dir(d)
        .args(["pb.md", "--to", "json", "-o", "/dev/stdout"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("a FIFO"));
}

/// A delta whose text holds a character that hides text from a reviewer
/// (ACE090: a bidirectional override, Unicode tags, a zero-width space),
/// as an agent fed injected text may write one, or what looks like a
/// credential from the agent's context (ACE057), is refused whole in every
/// dialect, and ace-validate reports it at the operation: the playbook is
/// what every later agent reads and a repository keeps. The credential
/// itself is never printed.
#[test]
fn a_delta_that_would_hide_text_or_leak_a_credential_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let book =
        "## STRATEGIES & INSIGHTS\n[str-00001] helpful=1 harmful=0 :: Read the docs first.\n";
    std::fs::write(d.join("pb.md"), book).unwrap();
    let secret = "AKIAQWERTYUIOPASDFGH";
    let kayba_secret = format!(
        r#"{{"reasoning": "r", "operations": [{{"type": "ADD", "section": "general", "content": "Use the key {secret} for the bucket."}}]}}"#
    );
    let deltas = [
        (
            "patch.json",
            r#"{"operations": [{"op": "appendEntry", "entry": {"id": "str-00002", "kind": "strategy", "text": "Check the status \u202e code.", "helpfulCount": 0, "harmfulCount": 0}}]}"#,
            "its content holds U+202E (RIGHT-TO-LEFT OVERRIDE) at character 18, which hides text from a reviewer",
            "ACE090",
        ),
        (
            "batch.json",
            r#"{"reasoning": "r", "operations": [{"type": "UPDATE", "skill_id": "str-00001", "section": "general", "content": "Read the docs first.\udb40\udc41\udb40\udc42"}]}"#,
            "its content holds U+E0041 (a TAG character) at character 21, which hides text from a reviewer",
            "ACE090",
        ),
        (
            "ops.json",
            r#"{"operation_type": "ADD", "section": "strategies_and_insights", "content": "Page\u200bthrough every result."}"#,
            "its content holds U+200B (ZERO WIDTH SPACE) at character 5, which hides text from a reviewer",
            "ACE090",
        ),
        (
            "secret-batch.json",
            kayba_secret.as_str(),
            "its content holds what looks like an AWS access key, which every run would read and a repository keep",
            "ACE057",
        ),
    ];
    for (name, delta, says, code) in deltas {
        std::fs::write(d.join(name), delta).unwrap();
        let out = tool("ace-apply")
            .current_dir(d)
            .args(["pb.md", name, "--in-place"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(&format!("{says} ({code})")), "{name}: {err}");
        assert!(!err.contains(secret), "{name}: {err}");
        assert_eq!(
            std::fs::read_to_string(d.join("pb.md")).unwrap(),
            book,
            "{name}"
        );
    }
    // A merge takes what a branch's file holds as it holds it, for
    // ace-validate to report: the refusal is for what agents write.
    let theirs = format!("{book}[str-00002] helpful=0 harmful=0 :: Page\u{200b}through results.\n");
    std::fs::write(d.join("ours.md"), book).unwrap();
    std::fs::write(d.join("theirs.md"), &theirs).unwrap();
    tool("ace-merge")
        .current_dir(d)
        .args(["pb.md", "ours.md", "theirs.md"])
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(d.join("ours.md")).unwrap(), theirs);
    tool("ace-validate")
        .current_dir(d)
        .arg("ours.md")
        .assert()
        .code(1)
        .stdout(predicates::str::contains("error[ACE090]"));
    // The kayba batches are what ace-validate recognises by content.
    for (name, code) in [("batch.json", "ACE090"), ("secret-batch.json", "ACE057")] {
        let out = tool("ace-validate")
            .current_dir(d)
            .arg(name)
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{name}: {shown}");
        assert!(
            shown.contains(&format!("error[{code}]: the `")),
            "{name}: {shown}"
        );
        assert!(!shown.contains(secret), "{name}: {shown}");
    }
}

/// A line break in a file name, a section's name, an ID or a field never
/// starts a line of what a tool prints: the next line would be the file's,
/// a forged finding, or a command to the CI runner reading the log (GitHub
/// runs `::stop-commands::` at the start of any line of a step's output as
/// a workflow command, and its legacy `##[error]` anywhere in a line).
#[cfg(unix)]
#[test]
fn a_line_break_in_a_name_or_text_never_starts_a_line_of_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let forged = "\n::stop-commands::PWN\nforged.md:1:1: error[ACE001]: ##[error]FORGED";
    // More than ten findings of a level: GitHub shows ten as
    // annotations, and ace-validate prints the rest as log lines.
    let skills: Vec<String> = (0..12)
        .map(|i| {
            format!(
                r#""s-{i:05}": {{"id": "s-{i:05}", "section": "x{}", "content": "do it", "helpful": 0, "harmful": 0, "neutral": 0, "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-01T00:00:00Z", "status": "active"}}"#,
                forged.escape_default()
            )
        })
        .collect();
    let skillbook = format!(
        r#"{{"skills": {{{}}}, "sections": {{}}, "next_id": 12}}"#,
        skills.join(", ")
    );
    std::fs::write(d.join(format!("a{forged}.json")), &skillbook).unwrap();
    std::fs::write(d.join("skillbook.json"), &skillbook).unwrap();
    std::fs::write(d.join(format!("b{forged}.json")), "garbage {").unwrap();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    // A name that is a workflow command where a finding's line starts, and
    // text a code frame shows.
    std::fs::write(
        d.join("::stop-commands::PWN.md"),
        format!("{BASE}[str-00001] helpful=0 harmful=0 :: Again ##[error]PWN.\n"),
    )
    .unwrap();
    let batch = format!(
        r#"{{"reasoning": "r", "operations": [{{"type": "ADD", "section": "X{}", "content": "Read the changelog before upgrading."}}]}}"#,
        forged.escape_default()
    );
    std::fs::write(d.join("batch.json"), batch).unwrap();
    let runs: Vec<(&str, Vec<String>)> = vec![
        ("ace-validate", vec![".".into()]),
        (
            "ace-validate",
            vec!["--output-format".into(), "github".into(), ".".into()],
        ),
        (
            "ace-validate",
            vec![
                "--output-format".into(),
                "github".into(),
                "--".into(),
                format!("b{forged}.json"),
            ],
        ),
        (
            "ace-apply",
            vec![
                "pb.md".into(),
                "batch.json".into(),
                "-o".into(),
                "out.md".into(),
            ],
        ),
        ("ace-diff", vec!["pb.md".into(), "out.md".into()]),
        ("ace-diff", vec!["--textconv".into(), "out.md".into()]),
        // Its standard output would be the playbook itself; what it says
        // is on standard error.
        (
            "ace-convert",
            vec![
                "skillbook.json".into(),
                "--to".into(),
                "markdown".into(),
                "-o".into(),
                "out2.md".into(),
            ],
        ),
    ];
    for (bin, args) in runs {
        let out = tool(bin).current_dir(d).args(&args).output().unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(all.contains("PWN"), "{bin} {args:?} shows the text: {all}");
        for line in all.lines() {
            let line = line.trim_start();
            // An annotation of ace-validate's own: the runner reads a line
            // that starts with `::` as that command, and only as it.
            if ["::error file=", "::warning file=", "::notice file="]
                .iter()
                .any(|a| line.starts_with(a))
            {
                continue;
            }
            assert!(
                !line.starts_with("::stop-commands")
                    && !line.starts_with("forged.md")
                    && !line.contains("##["),
                "{bin} {args:?}: a line of the file's: {line:?}\n{all}"
            );
        }
    }
}

/// An untrusted repository's playbook may be a symbolic link to a file of
/// the user's (`~/.bashrc`): a write through a link to outside the git
/// repository the name is in is refused unless forced, whichever tool
/// writes. A link inside it (CLAUDE.md to AGENTS.md) is written through.
#[cfg(unix)]
#[test]
fn a_link_out_of_the_repository_is_not_written_through_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let home = d.join("home");
    let repo = d.join("repo");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(repo.join("knowledge")).unwrap();
    git(&repo, &["init", "-q"]);
    let rc = home.join("bashrc");
    let original = "export PATH=$PATH:/usr/bin\n";
    std::fs::write(&rc, original).unwrap();
    std::os::unix::fs::symlink(&rc, repo.join("knowledge/playbook.md")).unwrap();
    // A folder that is a link out of the repository leads there too.
    std::os::unix::fs::symlink(&home, repo.join("notes")).unwrap();
    std::fs::write(home.join("pb.md"), BASE).unwrap();
    let batch = r#"{"reasoning": "r", "operations": [{"type": "ADD", "section": "x", "content": "Read the release notes first."}]}"#;
    std::fs::write(repo.join("batch.json"), batch).unwrap();
    std::fs::write(repo.join("pb.md"), BASE).unwrap();
    let side = "knowledge/playbook.md";
    let runs: [&[&str]; 7] = [
        &["ace-apply", side, "batch.json", "--in-place"],
        &["ace-apply", "notes/pb.md", "batch.json", "--in-place"],
        &["ace-convert", "pb.md", "-o", side],
        &["ace-convert", "pb.md", "--into", side],
        // Side outputs are refused alike, and take the same --force.
        &["ace-apply", "pb.md", "--prune", "--emit-delta", side],
        &[
            "ace-convert",
            "pb.md",
            "--to",
            "skill-json",
            "--id-map",
            side,
        ],
        &["ace-merge", "--base", "pb.md", "pb.md", "--conflicts", side],
    ];
    for run in runs {
        let out = tool(run[0])
            .current_dir(&repo)
            .args(&run[1..])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{run:?}: {err}");
        assert!(
            err.contains("outside the git repository it is in")
                && err.contains("(--force writes through it)"),
            "{run:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&rc).unwrap(), original, "{run:?}");
        assert_eq!(std::fs::read_to_string(home.join("pb.md")).unwrap(), BASE);
    }
    tool("ace-apply")
        .current_dir(&repo)
        .args([
            "knowledge/playbook.md",
            "batch.json",
            "--in-place",
            "--force",
        ])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&rc)
        .unwrap()
        .contains("Read the release notes"));
    tool("ace-merge")
        .current_dir(&repo)
        .args(["--base", "pb.md", "pb.md", "-o", "merged.md"])
        .args(["--conflicts", side, "--force"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), "[]\n");
    // A link inside the repository is the common CLAUDE.md -> AGENTS.md.
    std::fs::write(repo.join("AGENTS.md"), "# Agents\n").unwrap();
    std::os::unix::fs::symlink("AGENTS.md", repo.join("CLAUDE.md")).unwrap();
    tool("ace-convert")
        .current_dir(&repo)
        .args(["pb.md", "--into", "CLAUDE.md"])
        .assert()
        .success();
    assert!(std::fs::read_to_string(repo.join("AGENTS.md"))
        .unwrap()
        .contains("str-00001"));
    assert!(std::fs::symlink_metadata(repo.join("CLAUDE.md"))
        .unwrap()
        .file_type()
        .is_symlink());
}

/// A repository's link to a device that never ends (`/dev/zero`,
/// `/dev/urandom`), given as a playbook, a delta, a section map or
/// standard input, is refused as binary at its first NUL byte: read to the
/// end, it would fill memory and hang the hook that runs the tool.
#[cfg(unix)]
#[test]
fn a_link_to_an_endless_device_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("pb.md"), BASE).unwrap();
    for device in ["/dev/zero", "/dev/urandom"] {
        let _ = std::fs::remove_file(d.join("x.md"));
        std::os::unix::fs::symlink(device, d.join("x.md")).unwrap();
        let runs: [&[&str]; 7] = [
            &["ace-validate", "x.md"],
            &["ace-convert", "x.md"],
            &["ace-convert", "pb.md", "--section-map", "x.md"],
            &["ace-apply", "pb.md", "x.md"],
            &["ace-diff", "pb.md", "x.md"],
            &["ace-merge", "--base", "pb.md", "x.md"],
            &["ace-view", "x.md"],
        ];
        for run in runs {
            let out = tool(run[0])
                .current_dir(d)
                .args(&run[1..])
                .timeout(std::time::Duration::from_secs(60))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{device} {run:?}: {err}");
            assert!(err.contains("x.md: binary file"), "{device} {run:?}: {err}");
        }
    }
    let mut child = Process::new(assert_cmd::cargo::cargo_bin("ace-validate"))
        .arg("-")
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("ace-validate - < /dev/zero still reads after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(2));
}
