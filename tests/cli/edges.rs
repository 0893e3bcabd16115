//! What a new user meets first, using the tools on real repositories:
//! links, files that are not ACE files, closed pipes, help texts, history
//! per format, long lines, interrupted writes.

use std::path::Path;

use super::validate::write;
use super::{convert, validate};

#[cfg(unix)]
/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const PLAYBOOK: &str = "## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=5 harmful=0 :: Reproduce a failing case with a small test before changing the code.\n[str-00002] helpful=1 harmful=0 :: Read the error message twice before searching the web for it.\n";

#[cfg(unix)]
fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p)
        .unwrap()
        .file_type()
        .is_symlink()
}

#[cfg(unix)]
fn inode(p: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap())
}

#[cfg(unix)]
#[test]
fn outputs_onto_a_symbolic_link_write_the_file_it_points_to() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let real = write(d, "real/playbook.md", PLAYBOOK);
    symlink("real/playbook.md", d.join("CLAUDE.md")).unwrap();
    let before = inode(&real);
    convert()
        .current_dir(d)
        .args(["CLAUDE.md", "--in-place", "--from", "markdown"])
        .assert()
        .success();
    assert!(is_link(&d.join("CLAUDE.md")), "the link stays a link");
    assert_ne!(inode(&real), before, "the file it points to was replaced");
    let canonical = PLAYBOOK.replace("INSIGHTS\n\n", "INSIGHTS\n");
    assert_eq!(std::fs::read_to_string(&real).unwrap(), canonical);
    // -o onto a link to a file not made yet makes that file.
    symlink("real/out.json", d.join("out.json")).unwrap();
    convert()
        .current_dir(d)
        .args([
            "CLAUDE.md",
            "--from",
            "markdown",
            "--to",
            "json",
            "-o",
            "out.json",
        ])
        .assert()
        .success();
    assert!(is_link(&d.join("out.json")));
    let json = std::fs::read_to_string(d.join("real/out.json")).unwrap();
    assert!(json.contains("\"str-00002\""), "{json}");
    // -o onto a link to the input is still the input: refused.
    convert()
        .current_dir(d)
        .args(["real/playbook.md", "-o", "CLAUDE.md", "--to", "markdown"])
        .assert()
        .code(2);
}

#[cfg(unix)]
#[test]
fn the_agents_md_pair_is_written_through_its_links() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pb = write(d, "src.md", PLAYBOOK);
    convert()
        .arg(&pb)
        .args(["--to", "agents-md", "-o"])
        .arg(d.join("real/"))
        .assert()
        .success();
    let agents = std::fs::read_to_string(d.join("real/AGENTS.md")).unwrap();
    let yaml = std::fs::read_to_string(d.join("real/playbook.yaml")).unwrap();
    std::fs::create_dir(d.join("work")).unwrap();
    symlink("../real/AGENTS.md", d.join("work/AGENTS.md")).unwrap();
    symlink("../real/playbook.yaml", d.join("work/playbook.yaml")).unwrap();
    let before = [
        inode(&d.join("real/AGENTS.md")),
        inode(&d.join("real/playbook.yaml")),
    ];
    convert()
        .current_dir(d.join("work"))
        .args(["AGENTS.md", "--in-place"])
        .assert()
        .success();
    for (name, before) in ["AGENTS.md", "playbook.yaml"].iter().zip(before) {
        assert!(is_link(&d.join("work").join(name)), "{name} stays a link");
        assert_ne!(
            inode(&d.join("real").join(name)),
            before,
            "{name} was replaced"
        );
    }
    assert_eq!(
        std::fs::read_to_string(d.join("real/AGENTS.md")).unwrap(),
        agents
    );
    assert_eq!(
        std::fs::read_to_string(d.join("real/playbook.yaml")).unwrap(),
        yaml
    );
    // Written to a directory of links, the pair replaces what they name.
    convert()
        .arg(&pb)
        .args(["--to", "agents-md", "-o"])
        .arg(d.join("work/"))
        .assert()
        .success();
    assert!(is_link(&d.join("work/AGENTS.md")) && is_link(&d.join("work/playbook.yaml")));
    assert_eq!(names_in(&d.join("work")), ["AGENTS.md", "playbook.yaml"]);
}

#[test]
fn a_named_file_that_is_no_ace_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "Cargo.toml",
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    );
    write(
        d,
        "passwd",
        "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/sh\n",
    );
    for name in ["Cargo.toml", "passwd"] {
        let out = validate()
            .current_dir(d)
            .args(["--isolated", name])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{name}: not an ACE artifact (pass --from FORMAT to check it as one)"
            )),
            "{stderr}"
        );
    }
    // Asked to, it checks it as one.
    validate()
        .current_dir(d)
        .args(["--isolated", "--from", "markdown", "Cargo.toml"])
        .assert()
        .success();
    // A playbook named so, with no entry yet, is a playbook.
    write(d, "team-playbook.md", "## STRATEGIES & INSIGHTS\n");
    validate()
        .current_dir(d)
        .args(["--isolated", "team-playbook.md"])
        .assert()
        .success();
}

#[test]
fn directory_walks_skip_schemas_and_show_files_lists_what_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "knowledge/playbook.md", PLAYBOOK);
    write(
        d,
        "schemas/vagenda-core.schema.json",
        r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "properties": {"vAgendaInfo": {"type": "object"}, "playbook": {"type": "object"}}}"#,
    );
    write(d, "README.md", "# A project\n");
    let out = validate()
        .current_dir(d)
        .args(["--isolated", "--output-format", "concise", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(out.stderr.is_empty());
    assert!(stdout.contains("(1 file checked)"), "{stdout}");
    let out = validate()
        .current_dir(d)
        .args(["--isolated", "--show-files", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let listed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        listed.lines().collect::<Vec<_>>(),
        ["./knowledge/playbook.md"]
    );
    // Named explicitly, the schema is refused rather than linted.
    let out = validate()
        .current_dir(d)
        .args(["--isolated", "schemas/vagenda-core.schema.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("not an ACE artifact"));
}

/// `ace-validate DIR | head`, `ace-convert FILE | head`: the reader
/// leaves; the tool stops writing, says nothing, and exits with the status
/// its findings give.
#[test]
fn a_closed_pipe_stops_the_output_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let mut repeated = String::from("## STRATEGIES & INSIGHTS\n\n");
    let mut numbered = repeated.clone();
    for n in 1..=3000 {
        repeated.push_str("[str-00001] helpful=1 harmful=0 :: The same ID, again and again.\n");
        numbered.push_str(&format!(
            "[str-{n:05}] helpful=1 harmful=0 :: Advice number {n}, kept apart.\n"
        ));
    }
    let repeated = write(dir.path(), "repeated.md", &repeated);
    let numbered = write(dir.path(), "numbered.md", &numbered);
    let runs = [
        (
            "ace-validate",
            vec!["--isolated", "--color", "never"],
            &repeated,
            1,
        ),
        ("ace-convert", vec!["--to", "json"], &numbered, 0),
    ];
    for (bin, args, input, status) in runs {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin(bin))
            .args(args)
            .arg(input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut head = [0u8; 200];
        stdout.read_exact(&mut head).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "{bin}: nothing said about the pipe"
        );
        assert_eq!(
            out.status.code(),
            Some(status),
            "{bin}: the findings' status"
        );
    }
}

#[test]
fn help_lists_formats_and_output_formats() {
    for (bin, flags) in [
        ("ace-validate", vec!["--from"]),
        ("ace-convert", vec!["--from", "--to"]),
    ] {
        let out = assert_cmd::Command::cargo_bin(bin)
            .unwrap()
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        for f in ace_registry::Format::all() {
            let listed = help
                .lines()
                .filter(|l| {
                    let l = l.trim();
                    l.strip_prefix(&format!("- {}:", f.name()))
                        .is_some_and(|rest| rest.trim() == f.describe())
                })
                .count();
            assert_eq!(
                listed,
                flags.len(),
                "{bin} --help lists {} with its description under each of {flags:?}:\n{help}",
                f.name()
            );
        }
        assert!(!help.to_ascii_lowercase().contains("seed 0"), "{help}");
    }
    let help = validate().arg("--help").output().unwrap().stdout;
    let help = String::from_utf8(help).unwrap();
    for value in ["full", "concise", "json", "github", "sarif"] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("- {value}: "))),
            "--output-format {value} is described:\n{help}"
        );
    }
    for flag in ["-q, --quiet", "--statistics", "--show-files"] {
        assert!(help.contains(flag), "{flag}:\n{help}");
    }
}

#[test]
fn quiet_and_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "playbook.md",
        "## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=1 harmful=0 :: Reproduce the failure with a test first.\n[str-00001] helpful=1 harmful=0 :: Read the error message twice first.\n[str-00001] helpful=1 harmful=0 :: Keep each commit to one change.\n[x1] helpful=1 harmful=0 :: Name the branch after the issue it fixes.\n",
    );
    let out = validate()
        .args(["--isolated", "--output-format", "concise", "-q"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.lines().all(|l| l.contains("playbook.md:")),
        "{stdout}"
    );
    assert!(!stdout.contains("Found"), "{stdout}");
    let out = validate()
        .args(["--isolated", "--statistics"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let first = stdout.lines().next().unwrap();
    assert_eq!(first, "2  ACE002  error    duplicate-id", "{stdout}");
    assert!(stdout
        .lines()
        .any(|l| l.contains("ACE001") && l.contains("id-shape")));
    assert!(
        !stdout.contains("-->") && !stdout.contains(" | "),
        "no findings: {stdout}"
    );
}

/// The frame of an entry's finding in a JSON file shows the entry's text.
#[test]
fn json_entry_frames_show_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let doc = r#"{
  "vAgendaInfo": {"version": "0.2"},
  "playbook": {
    "version": 1,
    "created": "2025-01-01T00:00:00Z",
    "updated": "2025-01-01T00:00:00Z",
    "entries": [
      {
        "id": "e1",
        "kind": "strategy",
        "text": "Retry every failed request at once, forever.",
        "helpfulCount": 0,
        "harmfulCount": 9
      }
    ]
  }
}
"#;
    let p = write(dir.path(), "plan.json", doc);
    let out = validate()
        .args(["--isolated", "--select", "ACE006", "--color", "never"])
        .arg(&p)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("warning[ACE006]"), "{stdout}");
    let frame = stdout.lines().nth(2).unwrap();
    assert!(
        frame.contains("\"text\": \"Retry every failed request"),
        "{stdout}"
    );
}

/// With `--baseline`, a markdown playbook (no `status`, no links) may drop
/// an entry the paper's pruning rule would, and its hints ask for nothing
/// the format cannot hold.
#[test]
fn history_rules_follow_what_the_format_can_hold() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = write(
        d,
        "old.md",
        "## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=5 harmful=0 :: Reproduce a failing case with a small test first.\n[str-00002] helpful=1 harmful=9 :: Retry every failed request at once, forever.\n[str-00003] helpful=1 harmful=2 :: Search the web before reading the error message.\n",
    );
    let pruned = write(
        d,
        "pruned.md",
        "## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=5 harmful=0 :: Reproduce a failing case with a small test first.\n[str-00003] helpful=1 harmful=2 :: Search the web before reading the error message.\n",
    );
    let run = |new: &Path| {
        let out = validate()
            .args(["--isolated", "--output-format", "json", "--baseline"])
            .arg(&old)
            .arg(new)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array().unwrap().clone()
    };
    let found = run(&pruned);
    assert!(
        found.iter().all(|d| d["code"] != "ACE073"),
        "pruning by the rule is no removal: {found:?}"
    );
    let cut = write(
        d,
        "cut.md",
        "## STRATEGIES & INSIGHTS\n\n[str-00001] helpful=5 harmful=0 :: Reproduce a failing case with a small test first, then fix it.\n",
    );
    let found = run(&cut);
    let removed = found.iter().find(|d| d["code"] == "ACE073").unwrap();
    assert!(removed["message"].as_str().unwrap().contains("`str-00003`"));
    for d in &found {
        let help = d["help"].as_str().unwrap_or("");
        assert!(
            !help.contains("status") || help.contains("no `status`"),
            "{help}"
        );
        assert!(!help.contains("supersedes"), "{help}");
    }
    assert!(found.iter().any(|d| d["code"] == "ACE074"));
}

/// A conversion killed or refused space halfway leaves the old output and
/// no temporary file.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_write_leaves_the_target_untouched() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let target = write(&out_dir, "playbook.json", "old\n");
    // A file-size limit: the write fails with EFBIG and is reported.
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ace-convert"));
    cmd.arg(super::fixture("canonical.md"))
        .args(["--to", "json", "-o"])
        .arg(&target);
    // SAFETY: only setrlimit runs in the child before exec; it allocates
    // nothing and takes no lock.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 256,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exits, not killed: {stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
    assert_eq!(names_in(&out_dir), ["playbook.json"]);

    // Signals, sent while the output is being written.
    let mut big = String::from("## STRATEGIES & INSIGHTS\n\n");
    for i in 0..200_000 {
        big.push_str(&format!(
            "[str-{i:05}] helpful={} harmful=0 :: Advice number {i}, written out at some length so that the output is large.\n",
            i % 7
        ));
    }
    let input = write(dir.path(), "in/big.md", &big);
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        // A loaded machine may let the write finish between seeing it and
        // the signal: that attempt proves nothing and is made again.
        let mut landed = false;
        for _attempt in 0..5 {
            std::fs::write(&target, "old\n").unwrap();
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ace-convert"));
            cmd.arg(&input)
                .args(["--to", "vagenda-json", "-q", "-o"])
                .arg(&target);
            // A shell without job control starts background commands with
            // SIGINT ignored, and children inherit that: the conversion
            // gets the signals' default actions, as from a terminal.
            // SAFETY: pre_exec runs in the forked child before exec and only
            // calls signal(2), which is async-signal-safe.
            unsafe {
                cmd.pre_exec(|| {
                    libc::signal(libc::SIGINT, libc::SIG_DFL);
                    libc::signal(libc::SIGTERM, libc::SIG_DFL);
                    Ok(())
                });
            }
            let mut child = cmd.spawn().unwrap();
            let writing = wait_for_output_fd(child.id(), &out_dir);
            // SAFETY: kill sends a signal to our own child; no memory is shared.
            unsafe {
                libc::kill(child.id() as libc::pid_t, signal);
            }
            let status = child.wait().unwrap();
            assert!(writing, "signal {signal}: the write was seen under way");
            use std::os::unix::process::ExitStatusExt;
            if status.success() {
                continue;
            }
            assert_eq!(
                status.signal(),
                Some(signal),
                "killed mid-write: {status:?}"
            );
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
            assert_eq!(names_in(&out_dir), ["playbook.json"], "signal {signal}");
            landed = true;
            break;
        }
        assert!(landed, "signal {signal}: every write finished before it");
    }
}

/// Waits until process `pid` holds a file open in `dir` (its output being
/// written); false if it ended first.
#[cfg(target_os = "linux")]
fn wait_for_output_fd(pid: u32, dir: &Path) -> bool {
    let fds = std::path::PathBuf::from(format!("/proc/{pid}/fd"));
    let dir = dir.canonicalize().unwrap();
    for _ in 0..60_000 {
        let Ok(entries) = std::fs::read_dir(&fds) else {
            return false;
        };
        for e in entries.flatten() {
            if let Ok(target) = std::fs::read_link(e.path()) {
                if target.starts_with(&dir) && !target.ends_with("playbook.json") {
                    return true;
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    false
}

/// Numbers keep their lexeme wherever the tool keeps data, and where a
/// target has no place for one, its loss is reported.
#[test]
fn numbers_past_64_bits_and_trailing_zeros_survive() {
    let dir = tempfile::tempdir().unwrap();
    let doc = r#"{"vAgendaInfo": {"version": "0.2"}, "todoList": {"items": [], "playbook": {"version": 1,
 "created": "2025-01-01T00:00:00Z", "updated": "2025-01-01T00:00:00Z",
 "entries": [{"id": "e1", "kind": "strategy", "text": "Reproduce the failure first.",
   "helpfulCount": 12345678901234567890123, "harmfulCount": 53.0, "score": 1.50}]}}}
"#;
    let p = write(dir.path(), "plan.json", doc);
    for to in ["vagenda-json", "vagenda-tron", "json", "playbook-yaml"] {
        let out = convert().arg(&p).args(["--to", to]).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{to}");
        for lexeme in ["12345678901234567890123", "53.0", "1.50"] {
            assert!(text.contains(lexeme), "{to} keeps {lexeme}:\n{text}");
        }
        assert!(!text.contains("e+22"), "{to}:\n{text}");
    }
    // A rewrite puts the counters back where they were.
    let out = convert()
        .arg(&p)
        .args(["--to", "vagenda-json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["todoList"]["playbook"]["entries"][0];
    assert_eq!(e["helpfulCount"].to_string(), "12345678901234567890123");
    assert_eq!(e["harmfulCount"].to_string(), "53.0");
    // Markdown has no place for them: reported, and --strict refuses.
    let out = convert()
        .arg(&p)
        .args(["--to", "markdown"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("`extra.helpfulCount` (entry `e1`)"),
        "{stderr}"
    );
    convert()
        .arg(&p)
        .args(["--to", "markdown", "--strict"])
        .assert()
        .code(1);
}

/// A no-op rewrite of playbook.yaml writes an unknown key's plain scalar
/// plain, and every number as it was written.
#[test]
fn a_yaml_rewrite_keeps_unknown_scalars_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "version: 1\nsections:\n  - id: \"build_patterns\"\n    weight: 0.70\n    note: kept even though unknown\n    flag: yes\n    count: 012\n    big: 12345678901234567890123\n    list:\n      - plain item\n      - \"quoted item\"\nowner: team\n";
    let p = write(dir.path(), "playbook.yaml", yaml);
    convert().arg(&p).arg("--in-place").assert().success();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), yaml);
}

/// Completions and man pages come from the tools' own definitions
/// (`cargo xtask completions`, `cargo xtask man`): the bash script parses,
/// and offers the formats `--to` takes; each man page names its tool's
/// options.
#[test]
fn completions_and_man_pages_are_made_from_the_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = ace_tools::cli::write_completions(dir.path()).unwrap();
    assert_eq!(scripts.len(), 35, "seven tools, five shells");
    let bash = dir.path().join("ace-convert.bash");
    let status = std::process::Command::new("bash")
        .arg("-n")
        .arg(&bash)
        .status()
        .unwrap();
    assert!(status.success(), "bash -n {}", bash.display());
    let text = std::fs::read_to_string(&bash).unwrap();
    for value in [
        "skill-json",
        "vagenda-tron",
        "--lock-timeout",
        "--list-formats",
        "--into",
        "content",
    ] {
        assert!(text.contains(value), "{value}");
    }
    let pages = ace_tools::cli::write_man_pages(dir.path()).unwrap();
    assert_eq!(pages.len(), 7);
    let apply = std::fs::read_to_string(dir.path().join("ace-apply.1")).unwrap();
    assert!(
        apply.starts_with(".ie") || apply.contains(".TH ace-apply"),
        "{apply}"
    );
    assert!(apply.contains("lock\\-timeout"), "{apply}");
}
