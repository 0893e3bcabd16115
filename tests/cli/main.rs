//! The command-line contract: exit codes, messages and outputs.

use std::path::PathBuf;

use assert_cmd::Command;
use predicates::prelude::*;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/markdown")
        .join(name)
}

mod ace_playbook_files;
mod apply;
mod block;
mod budget;
mod code_engine;
mod concurrent;
mod dannymac;
mod dates;
mod diff;
mod edges;
mod exit;
mod hostile;
mod kayba;
mod losses;
mod mcp;
mod mcp_peer;
mod merge;
mod merge_runs;
mod readme;
mod rules;
mod stores;
mod tokens;
mod validate;
mod view;

fn convert() -> Command {
    Command::cargo_bin("ace-convert").unwrap()
}

/// The entries of a playbook file, as `ace-convert FILE --to json` gives
/// them.
fn entries_of(path: &std::path::Path) -> Vec<serde_json::Value> {
    let out = convert()
        .arg(path)
        .args(["--to", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v["playbook"]["entries"].as_array().unwrap().clone()
}

fn validate() -> Command {
    let mut c = Command::cargo_bin("ace-validate").unwrap();
    c.env_remove("GITHUB_ACTIONS").env_remove("FORCE_COLOR");
    c
}

#[test]
fn converts_markdown_to_canonical_json_on_stdout() {
    let out = convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["format"], "ace-canonical");
    assert_eq!(json["playbook"]["entries"][0]["id"], "str-00001");
    assert_eq!(json["playbook"]["entries"][0]["helpful"], 5);
}

#[test]
fn json_back_to_markdown_is_byte_identical() {
    let json = convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "json"])
        .output()
        .unwrap()
        .stdout;
    let md = convert()
        .args(["-", "--to", "markdown"])
        .write_stdin(json)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(md, std::fs::read(fixture("canonical.md")).unwrap());
}

#[test]
fn output_is_deterministic() {
    let run = || {
        convert()
            .arg(fixture("no-counters.txt"))
            .args(["--to", "markdown"])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run(), run());
}

#[test]
fn a_large_input_is_rewritten_in_place_from_its_own_text() {
    // Inputs of 1 MiB and more are mapped, not read: rewriting one in place
    // must not read the file it is replacing.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.md");
    let mut text = String::from("## STRATEGIES & INSIGHTS\n");
    for i in 1..=30_000 {
        text.push_str(&format!(
            "[str-{i:05}]   helpful=1 harmful=0 :: advice {i}\n"
        ));
    }
    assert!(text.len() > 1 << 20);
    std::fs::write(&input, &text).unwrap();
    let expected = convert()
        .arg(&input)
        .args(["--to", "markdown", "-q"])
        .output()
        .unwrap()
        .stdout;
    assert!(expected.starts_with(b"## STRATEGIES & INSIGHTS\n[str-00001] helpful=1"));
    convert()
        .arg(&input)
        .args(["--in-place", "-q"])
        .assert()
        .success();
    assert_eq!(std::fs::read(&input).unwrap(), expected);
}

#[test]
fn writes_output_files_atomically_and_never_overwrites_input_by_accident() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("play.txt");
    std::fs::copy(fixture("no-counters.txt"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();

    let out = dir.path().join("out.md");
    convert().arg(&input).arg("-o").arg(&out).assert().success();
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.ends_with("not valid anymore.\n"));

    convert()
        .arg(&input)
        .arg("-o")
        .arg(&input)
        .args(["--to", "markdown"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("refusing to overwrite the input"));
    assert_eq!(std::fs::read(&input).unwrap(), before);

    convert().arg(&input).arg("--in-place").assert().success();
    assert_eq!(std::fs::read_to_string(&input).unwrap(), written);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
}

#[test]
fn losses_are_reported_and_strict_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("in.json");
    std::fs::write(
        &json,
        r#"{"format":"ace-canonical","version":1,"playbook":{"entries":[{"id":"str-00001","title":"T","content":"c","tags":["a"]}]}}"#,
    )
    .unwrap();
    convert()
        .arg(&json)
        .args(["--to", "markdown"])
        .assert()
        .success()
        .stdout("[str-00001] c\n")
        .stderr(
            predicate::str::contains("ACE101")
                .and(predicate::str::contains("`title`"))
                .and(predicate::str::contains("`tags`")),
        );
    let out = dir.path().join("out.md");
    convert()
        .arg(&json)
        .arg("-o")
        .arg(&out)
        .arg("--strict")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing written"));
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "the temporary output file is removed");
    // Standard output gets nothing either: the loss is found by a dry run.
    convert()
        .arg(&json)
        .args(["--to", "markdown", "--strict"])
        .assert()
        .code(1)
        .stdout("");
    let report = convert()
        .arg(&json)
        .args(["--to", "markdown", "--report", "json"])
        .output()
        .unwrap()
        .stderr;
    let report: serde_json::Value = serde_json::from_slice(&report).unwrap();
    assert_eq!(report["lossless"], false);
    assert_eq!(report["losses"].as_array().unwrap().len(), 2);
    // a lossless conversion says so, and --strict lets it through
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "json", "--strict"])
        .assert()
        .success()
        .stderr("");
}

/// Output goes out in blocks as it is printed; a playbook of many blocks
/// must come out the same in a file, on standard output and from the
/// library's in-memory writer.
#[test]
fn streamed_output_equals_the_text_written_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut md = String::from("## STRATEGIES & INSIGHTS\n");
    for i in 0..3000 {
        md.push_str(&format!(
            "[str-{i:05}] helpful={} harmful=0 :: entry {i} with ünïcödé ∑ text\n",
            i % 7
        ));
    }
    let input = dir.path().join("big.md");
    std::fs::write(&input, &md).unwrap();
    let read = ace_registry::read(ace_registry::Format::MARKDOWN, &md).unwrap();
    for to in [
        "markdown",
        "agents-md",
        "skill-json",
        "vagenda-json",
        "vagenda-tron",
        "json",
    ] {
        let format = ace_registry::Format::from_name(to).unwrap();
        let ctx = ace_registry::WriteCtx::default().with_now(Some("2025-01-01T00:00:00Z".into()));
        let expected = ace_registry::write_with(format, &read.playbook, &ctx).text;
        assert!(expected.len() > 200_000, "{to}: several blocks");
        let file = dir.path().join(format!("out.{to}"));
        convert()
            .env("SOURCE_DATE_EPOCH", "1735689600")
            .arg(&input)
            .args(["--to", to, "-q", "-o"])
            .arg(&file)
            .assert()
            .success();
        assert!(
            std::fs::read_to_string(&file).unwrap() == expected,
            "{to}: file"
        );
        let out = convert()
            .env("SOURCE_DATE_EPOCH", "1735689600")
            .arg(&input)
            .args(["--to", to, "-q"])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(out.stdout == expected.as_bytes(), "{to}: stdout");
    }
}

#[test]
fn ids_the_markdown_playbook_cannot_hold_are_reassigned_and_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("in.json");
    std::fs::write(
        &json,
        r#"{"format":"ace-canonical","version":1,"playbook":{"sections":[{"key":"s","title":"S","prefix":"str"}],"entries":[
            {"id":"str-00004","section":"s","content":"kept"},
            {"id":"t-migrate","section":"s","content":"old","superseded_by":"t-new"},
            {"id":"t-new","section":"s","content":"new","supersedes":["t-migrate"]}]}}"#,
    )
    .unwrap();
    let map = dir.path().join("ids.json");
    let out = dir.path().join("out.md");
    convert()
        .arg(&json)
        .arg("-o")
        .arg(&out)
        .arg("--id-map")
        .arg(&map)
        .assert()
        .success()
        .stderr(predicate::str::contains("ACE106").and(predicate::str::contains("`str-00005`")));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "## S\n[str-00004] kept\n[str-00005] old\n[str-00006] new\n"
    );
    let pairs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
    assert_eq!(
        pairs,
        serde_json::json!([
            {"old": "t-migrate", "new": "str-00005"},
            {"old": "t-new", "new": "str-00006"}
        ])
    );
    // A reassigned ID is a loss: the markdown playbook keeps no old ID.
    convert()
        .arg(&json)
        .args(["--to", "markdown", "--strict"])
        .assert()
        .code(1);
}

#[test]
fn a_section_map_decides_kinds_sections_and_prefixes() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("in.md");
    std::fs::write(
        &md,
        "## Gotchas\n[got-00001] helpful=1 harmful=0 :: Pin the toolchain.\n",
    )
    .unwrap();
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        r#"[{"kind": "warning", "title": "Gotchas", "prefix": "got"}]"#,
    )
    .unwrap();
    let out = convert()
        .arg(&md)
        .args(["--to", "vagenda-json", "--section-map"])
        .arg(&map)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["plan"]["playbook"]["entries"][0]["kind"], "warning");
    // without the map the section's words decide: nothing matches, a note
    let out = convert()
        .arg(&md)
        .args(["--to", "vagenda-json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["plan"]["playbook"]["entries"][0]["kind"], "note");
    // a bad map is a usage error that says where
    std::fs::write(&map, "[{\"kind\": \"warning\",\n \"title\": 1}]").unwrap();
    convert()
        .arg(&md)
        .args(["--to", "json", "--section-map"])
        .arg(&map)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("map.json:2:"));
}

#[test]
fn bad_inputs_are_one_line_errors_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("bin.md");
    std::fs::write(&binary, b"\x7fELF\0\0\x01").unwrap();
    let invalid = dir.path().join("bad.md");
    std::fs::write(&invalid, b"## A\n[a-1] caf\xe9\n").unwrap();
    let under_a_file = binary.join("playbook.md");
    let cases: [(PathBuf, &str); 5] = [
        (dir.path().join("missing.md"), "no such file"),
        (under_a_file, "playbook.md: no such file"),
        (dir.path().to_owned(), "is a directory"),
        (binary, "binary file"),
        (invalid, "bad.md:2:10: invalid UTF-8 (byte 0xe9)"),
    ];
    for (path, message) in cases {
        // ace-validate walks a directory instead (tests/cli/validate.rs).
        let cmds = if path.is_dir() {
            vec![convert()]
        } else {
            vec![convert(), validate()]
        };
        for mut cmd in cmds {
            let out = cmd
                .arg(&path)
                .args(["--from", "markdown"])
                .output()
                .unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(2), "{}: {stderr}", path.display());
            assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
            assert!(stderr.contains(message), "{stderr}");
            assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"));
        }
    }
}

/// A path with a file where a folder must be is named by that file, in a
/// read and in a write: the system's own "Not a directory" names no part.
#[test]
fn a_file_where_a_folder_must_be_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("pb.md");
    std::fs::write(&pb, "## S\n[s-00001] helpful=1 harmful=0 :: A rule.\n").unwrap();
    let named = format!("`{}` is a file, not a folder", pb.display());
    convert()
        .arg(pb.join("x.md"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("no such file: {named}")));
    for out in [pb.join("x.json"), pb.join("deeper").join("x.json")] {
        convert()
            .arg(&pb)
            .args(["--to", "json", "-o"])
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{named}; nothing written"
            )));
    }
    assert!(pb.is_file());
}

#[test]
fn usage_errors_exit_2() {
    validate()
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no input files"));
    convert()
        .arg(fixture("canonical.md"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--to"));
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'yaml' for '--to <FMT>'",
        ))
        .stderr(predicate::str::contains("playbook-yaml, skill-json"));
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "vagenda-tron", "--tron-root", "curly"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("implicit, braced"));
    convert()
        .args(["-", "--from", "vagenda-json", "--to", "markdown"])
        .write_stdin(r#"{"operations": [{"op": "deprecateEntry", "entryId": "e1"}]}"#)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "this is a PlaybookPatch, not a playbook",
        ));
    convert()
        .args(["-", "--from", "vagenda-tron", "--to", "markdown"])
        .write_stdin("op: \"deprecateEntry\"\nentryId: \"e1\"\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "this is a PlaybookPatchOp, not a playbook",
        ));
    validate()
        .arg(fixture("canonical.md"))
        .args(["--select", "ACE999"])
        .assert()
        .code(2);
    convert()
        .arg(fixture("canonical.md"))
        .arg("-o")
        .arg("out.weird")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot tell the output format"))
        .stderr(predicate::str::contains("skill-json, vagenda-json"));
}

/// Detection: a file's name, then its root object's keys, decide; a key
/// nested anywhere else does not.
#[test]
fn the_format_comes_from_the_name_and_the_top_level_shape() {
    let dir = tempfile::tempdir().unwrap();
    let skill = std::fs::read_to_string(curator_fixture("skill-json/gen1-python.json")).unwrap();
    // A skill playbook with a vAgenda document under a stray key.
    let mut v: serde_json::Value = serde_json::from_str(&skill).unwrap();
    v["vagenda"] = serde_json::json!({"vAgendaInfo": {"version": "0.2"}, "plan": {}});
    let stray = dir.path().join("stray.json");
    std::fs::write(&stray, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = convert()
        .arg(&stray)
        .args(["--to", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let model: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert!(!model["playbook"]["entries"].as_array().unwrap().is_empty());
    validate()
        .arg(&stray)
        .args(["--output-format", "concise"])
        .assert()
        .stdout(predicate::str::contains(
            "warning[ACE077]: `vagenda` is not a key of a skill playbook",
        ));
    // The output's name alone says the format.
    let written_as = |name: &str| -> serde_json::Value {
        let out = dir.path().join(name);
        convert()
            .arg(fixture("canonical.md"))
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
    };
    // `-o playbook.json` is the skill's own file.
    let written = written_as("playbook.json");
    assert!(written["bullets"].is_array(), "{written}");
    // `*.vagenda.json` is vAgenda's.
    let written = written_as("plan.vagenda.json");
    assert!(written["vAgendaInfo"].is_object(), "{written}");
}

/// A text extension does not make a JSON document prose: a skill playbook
/// saved as `.txt` or `.md` reads as the skill playbook it is, the same
/// entries `--from skill-json` gives, rather than one description.
#[test]
fn a_json_playbook_under_a_text_name_reads_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let skill = curator_fixture("skill-json/gen1-python.json");
    let canonical = |path: &std::path::Path, from: Option<&str>| -> serde_json::Value {
        let mut cmd = convert();
        cmd.arg(path).args(["--to", "json"]);
        if let Some(from) = from {
            cmd.args(["--from", from]);
        }
        let out = cmd.assert().success().get_output().stdout.clone();
        serde_json::from_slice(&out).unwrap()
    };
    let want = canonical(&skill, Some("skill-json"))["playbook"]["entries"].clone();
    assert!(want.as_array().unwrap().len() > 1, "{want}");
    for name in ["saved.txt", "saved.md"] {
        let path = dir.path().join(name);
        std::fs::copy(&skill, &path).unwrap();
        let got = canonical(&path, None);
        assert_eq!(got["playbook"]["entries"], want, "{name}");
    }
    // Prose that opens with a bracket is still prose.
    let prose = dir.path().join("notes.txt");
    std::fs::write(&prose, "[str-00001] helpful=1 harmful=0 :: Check inputs.\n").unwrap();
    let got = canonical(&prose, None);
    assert_eq!(got["playbook"]["entries"][0]["id"], "str-00001", "{got}");
}

/// A large `.json` file is read as its head says, then as what its root
/// keys say when a key after the head changes the format: the output is
/// the one `--from` gives.
#[test]
fn a_large_json_file_is_detected_by_all_its_root_keys() {
    let dir = tempfile::tempdir().unwrap();
    let skills: serde_json::Map<String, serde_json::Value> = (1..=400)
        .map(|i| {
            let id = format!("context-{i:05}");
            let skill = serde_json::json!({
                "id": id, "section": "context", "keywords": ["k"],
                "issue": format!("Issue {i} {}.", "x".repeat(100)), "insight": "Insight.",
                "occurrences": [], "active": true, "used_count": 0, "helpful_count": 1,
                "harmful_count": 0, "neutral_count": 0,
                "created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00"
            });
            (id, skill)
        })
        .collect();
    let cases = [
        // vAgenda after a skillbook's skills: a vAgenda document.
        (
            serde_json::json!({
                "skills": skills,
                "vAgendaInfo": {"version": "0.4"},
                "playbook": {"entries": [{"id": "e1", "kind": "strategy", "text": "Do it."}]}
            }),
            "vagenda-json",
            1,
        ),
        (
            serde_json::json!({"schema_version": "2", "skills": skills, "next_id": 401}),
            "skillbook",
            400,
        ),
    ];
    for (doc, format, entries) in cases {
        let path = dir.path().join("big.json");
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 1 << 16);
        let run = |from: Option<&str>| {
            let mut c = convert();
            c.arg(&path).args(["--to", "json"]);
            if let Some(f) = from {
                c.args(["--from", f]);
            }
            c.assert().success().get_output().stdout.clone()
        };
        let detected = run(None);
        assert_eq!(detected, run(Some(format)), "{format}");
        let model: serde_json::Value = serde_json::from_slice(&detected).unwrap();
        assert_eq!(
            model["playbook"]["entries"].as_array().unwrap().len(),
            entries,
            "{format}"
        );
    }
}

#[test]
fn list_formats_names_every_format() {
    let out = convert()
        .arg("--list-formats")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let names: Vec<&str> = ace_registry::Format::all()
        .iter()
        .map(|f| f.name())
        .collect();
    for name in &names {
        assert!(
            out.lines().any(|l| l.starts_with(name)),
            "{name} missing:\n{out}"
        );
    }
    // and the table of what each holds, one column per format
    let row = |label: &str| -> Vec<String> {
        let line = out
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label}:\n{out}"));
        line[label.len()..]
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(row("what each holds"), names);
    // Each column is what the registry finds its format holds.
    let tags = row("tags");
    for (&f, held) in ace_registry::Format::all().iter().zip(&tags) {
        let found = ace_registry::capabilities::capabilities(f)
            .into_iter()
            .find(|(label, _)| *label == "tags")
            .map(|(_, h)| h.mark());
        assert_eq!(Some(held.as_str()), found, "tags in {f}");
    }
    // The markdown playbook has no place for tags; the skill's playbook does.
    assert_eq!(tags[0], "-");
    assert_eq!(tags[3], "yes");
    assert_eq!(row("entry id without a digit")[0], "changed");
}

#[test]
fn validate_reports_path_line_col_code_and_frame() {
    validate()
        .arg(fixture("malformed.md"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "malformed.md:4:1: error[ACE002]: duplicate ID `str-00002`",
        ))
        .stdout(predicate::str::contains(
            "4 | [str-00002] helpful=1 harmful=9",
        ))
        .stdout(predicate::str::contains("= note: first used here at"))
        .stdout(predicate::str::contains("malformed.md:2:13: error[ACE004]"));
}

#[test]
fn validate_exit_codes_and_filters() {
    // warnings only: exit 0
    validate()
        .arg(fixture("no-counters.txt"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("warning[ACE003]"));
    validate()
        .arg(fixture("malformed.md"))
        .arg("--exit-zero")
        .assert()
        .code(0);
    validate()
        .arg(fixture("malformed.md"))
        .args(["--ignore", "ACE002,ACE004,ACE005"])
        .assert()
        .code(0);
    validate()
        .arg(fixture("malformed.md"))
        .args(["--select", "ace006", "--output-format", "concise"])
        .assert()
        .code(0)
        .stdout(format!("{}/tests/fixtures/markdown/malformed.md:4:1: warning[ACE006]: harmful=9 exceeds helpful=1 + 3: pruning candidate\nFound 0 error(s), 1 warning(s), 0 info in 1 file.\n", env!("CARGO_MANIFEST_DIR")));
    validate()
        .arg(fixture("malformed.md"))
        .args(["--select", "ACE006", "--threshold", "10"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("All checks passed."));
    validate()
        .arg(fixture("canonical.md"))
        .args(["--ignore", "ACE020"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("All checks passed."));
}

#[test]
fn validate_machine_outputs() {
    let out = validate()
        .arg(fixture("malformed.md"))
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dup = json
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "ACE002")
        .unwrap();
    assert_eq!(
        (
            dup["line"].as_u64(),
            dup["column"].as_u64(),
            dup["severity"].as_str()
        ),
        (Some(4), Some(1), Some("error"))
    );
    validate()
        .arg(fixture("malformed.md"))
        .env("GITHUB_ACTIONS", "true")
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("::error file=").and(predicate::str::contains(
                "title=ACE002 duplicate-id::duplicate ID",
            )),
        );
}

#[test]
fn validate_colour_control() {
    let colored = |args: &[&str], env: Option<(&str, &str)>| {
        let mut c = validate();
        c.arg(fixture("malformed.md"))
            .args(args)
            .env_remove("NO_COLOR");
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        c.output().unwrap().stdout.contains(&0x1b)
    };
    assert!(!colored(&[], None), "not a terminal: no colour");
    assert!(colored(&["--color", "always"], None));
    assert!(colored(&[], Some(("FORCE_COLOR", "1"))));
    assert!(!colored(&["--color", "never"], Some(("FORCE_COLOR", "1"))));
    assert!(!colored(&[], Some(("NO_COLOR", "1"))));
}

#[test]
fn validate_reads_stdin_and_several_files() {
    validate()
        .args(["-", "--stdin-filename", "play.md"])
        .write_stdin(
            "## A\n[str-00001] helpful=0 harmful=0 :: x\n[str-00001] helpful=0 harmful=0 :: y\n",
        )
        .assert()
        .code(1)
        .stdout(predicate::str::contains("play.md:3:1: error[ACE002]"));
    validate()
        .arg(fixture("canonical.md"))
        .arg(fixture("missing.md"))
        .assert()
        .code(2)
        .stdout(predicate::str::contains("in 1 file"))
        .stderr(predicate::str::contains("missing.md: no such file"));
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn converts_every_corpus_playbook() {
    let dir = ace_tests::corpus_dir("markdown-playbook");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        for to in ["json", "markdown"] {
            convert()
                .arg(&path)
                .args(["--to", to, "--strict"])
                .assert()
                .success();
        }
        validate().arg(&path).assert().code(0);
        n += 1;
    }
    assert!(n >= 13, "only {n} corpus files");
}

fn curator_fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A `knowledge/` folder with AGENTS.md and playbook.yaml side by side.
fn knowledge_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        curator_fixture("agents-md/seed-layout.md"),
        dir.path().join("AGENTS.md"),
    )
    .unwrap();
    std::fs::write(dir.path().join("playbook.yaml"), valid_curator_yaml()).unwrap();
    dir
}

/// The curator fixture without its out-of-range weight (an error that
/// stops a conversion).
fn valid_curator_yaml() -> String {
    std::fs::read_to_string(curator_fixture("playbook-yaml/curator.yaml"))
        .unwrap()
        .replace("weight: 1.5", "weight: 0.9")
}

/// A read that finds an error stops the conversion, with or without
/// `--strict`: exit 1, the error shown, no output file made.
#[test]
fn an_input_with_an_error_is_not_converted() {
    let dir = tempfile::tempdir().unwrap();
    let foo = dir.path().join("x.json");
    std::fs::write(&foo, "{\"foo\": 1}\n").unwrap();
    for to in [
        "markdown",
        "agents-md",
        "skill-json",
        "vagenda-json",
        "json",
    ] {
        for strict in [false, true] {
            let out = dir.path().join(format!("out-{to}"));
            let mut cmd = convert();
            cmd.arg(&foo).args(["--to", to, "-o"]).arg(&out);
            if strict {
                cmd.arg("--strict");
            }
            cmd.assert()
                .code(1)
                .stderr(predicate::str::contains("error[ACE047]"))
                .stderr(predicate::str::contains("cannot tell the format"));
            assert!(!out.exists(), "{to}: {} was written", out.display());
        }
    }
    // An error in the companion stops it too.
    let knowledge = knowledge_dir();
    std::fs::copy(
        curator_fixture("playbook-yaml/curator.yaml"),
        knowledge.path().join("playbook.yaml"),
    )
    .unwrap();
    let out = knowledge.path().join("out.md");
    convert()
        .arg(knowledge.path().join("AGENTS.md"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "playbook.yaml:9:13: error[ACE032]",
        ));
    assert!(!out.exists());
}

#[test]
fn agents_md_picks_up_playbook_yaml_beside_it() {
    let dir = knowledge_dir();
    let out = convert()
        .arg(dir.path().join("AGENTS.md"))
        .args(["--to", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["playbook"]["version"], 0.3);
    assert_eq!(v["playbook"]["sections"][0]["weight"], 0.7);
    // --sections names another file; here one with a string version.
    let out = convert()
        .arg(dir.path().join("AGENTS.md"))
        .arg("--sections")
        .arg(curator_fixture("playbook-yaml/string-version.yaml"))
        .args(["--to", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["playbook"]["version"], "0.3");
}

#[test]
fn the_curator_pair_round_trips_in_place_and_to_a_directory() {
    let dir = knowledge_dir();
    let agents = dir.path().join("AGENTS.md");
    convert()
        .arg(&agents)
        .args(["--in-place", "--strict"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&agents).unwrap(),
        std::fs::read(curator_fixture("agents-md/seed-layout.md")).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("playbook.yaml")).unwrap(),
        valid_curator_yaml()
    );
    let out = dir.path().join("out/");
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "agents-md", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("ACE104"));
    let yaml = std::fs::read_to_string(out.join("playbook.yaml")).unwrap();
    assert!(yaml.contains("weight: 0.5"), "{yaml}");
    let md = std::fs::read_to_string(out.join("AGENTS.md")).unwrap();
    assert!(md.contains("[Bullet #str-00001, helpful:"), "{md}");
}

#[test]
fn validate_reports_both_files_of_the_pair() {
    let dir = knowledge_dir();
    std::fs::copy(
        curator_fixture("playbook-yaml/curator.yaml"),
        dir.path().join("playbook.yaml"),
    )
    .unwrap();
    validate()
        .arg(dir.path().join("AGENTS.md"))
        .args(["--output-format", "concise"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "playbook.yaml:8:9: warning[ACE031]",
        ))
        .stdout(predicate::str::contains(
            "playbook.yaml:9:13: error[ACE032]",
        ))
        .stdout(predicate::str::contains("AGENTS.md:7:1: warning[ACE029]"))
        .stdout(predicate::str::contains("AGENTS.md:8:1: warning[ACE028]"));
    validate()
        .arg(dir.path().join("AGENTS.md"))
        .args(["--no-sections", "--output-format", "concise"])
        .assert()
        .success()
        .stdout(predicate::str::contains("ACE031").not());
}

#[test]
fn skill_playbooks_convert_in_place_byte_identically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("playbook.json");
    let original = std::fs::read(curator_fixture("skill-json/gen1-python.json")).unwrap();
    std::fs::write(&path, &original).unwrap();
    convert().arg(&path).arg("--in-place").assert().success();
    assert_eq!(std::fs::read(&path).unwrap(), original);
    convert()
        .arg(curator_fixture("skill-json/gen2-hand.json"))
        .args(["--to", "skill-json", "--skill-generation", "1", "-q"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"confidence\": \"high\""));
    convert()
        .arg(curator_fixture("skill-json/gen2-hand.json"))
        .args(["--to", "skill-json", "--skill-generation", "3"])
        .assert()
        .code(2);
}

/// The writers' options are flags made from the registry: each listed with
/// the formats that offer it, and its value matched ignoring case but
/// handed to the writer as the writer names it.
#[test]
fn writer_options_are_flags_of_the_registry() {
    let help = convert().arg("--help").assert().success();
    let help = String::from_utf8_lossy(&help.get_output().stdout).into_owned();
    for (option, formats) in
        ace_registry::convert::writer_options(ace_registry::Registry::builtin())
    {
        let line = format!("--{} <VALUE>", option.name);
        assert!(help.contains(&line), "{line} missing from --help");
        assert!(help.contains(&format!("With --to {}:", formats.join("|"))));
    }
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "vagenda-tron", "--container", "todolist", "-q"])
        .assert()
        .success()
        .stdout(predicate::str::contains("class TodoList:"));
}

#[test]
fn validate_checks_deltas_against_a_playbook() {
    validate()
        .arg(curator_fixture("skill-delta/conflicts.json"))
        .args(["--output-format", "concise", "--playbook"])
        .arg(curator_fixture("skill-delta/playbook-for-conflicts.json"))
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("conflicts.json:15:13: error[ACE041]")
                .and(predicate::str::contains("error[ACE043]"))
                .and(predicate::str::contains("error[ACE040]")),
        );
    validate()
        .arg(curator_fixture("skill-delta/gen1-delta.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("info[ACE037]"));
    validate()
        .arg(curator_fixture("skill-delta/gen1-delta.json"))
        .args(["--playbook", "no-such-playbook.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-playbook.json"));
    convert()
        .arg(curator_fixture("skill-delta/gen1-delta.json"))
        .args(["--to", "json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a skill delta, not a playbook"));
}

/// A new output gets the mode any new file gets (0666 less the umask), not
/// the private mode of the temporary file it is written through; both files
/// of a curator pair too.
#[cfg(unix)]
#[test]
fn new_outputs_get_the_usual_mode_for_a_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let plain = dir.path().join("plain");
    std::fs::File::create(&plain).unwrap();
    let expected = mode(&plain);
    let out = dir.path().join("out.json");
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "json", "-q", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(mode(&out), expected);
    let pair = dir.path().join("pair");
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "agents-md", "-q", "-o"])
        .arg(format!("{}/", pair.display()))
        .assert()
        .success();
    for name in ["AGENTS.md", "playbook.yaml"] {
        assert_eq!(mode(&pair.join(name)), expected, "{name}");
    }
}

/// --strict writes nothing when the curator pair would lose something, not
/// even the directory it was asked to write into; without a loss it writes
/// both files.
#[test]
fn strict_pair_output_leaves_nothing_behind_on_a_loss() {
    let dir = tempfile::tempdir().unwrap();
    let lossy = dir.path().join("lossy");
    convert()
        .arg(fixture("canonical.md"))
        .args(["--to", "agents-md", "--strict", "-o"])
        .arg(format!("{}/", lossy.display()))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing written"));
    assert!(!lossy.exists());
    let clean = dir.path().join("clean");
    convert()
        .arg(fixture("empty.md"))
        .args(["--to", "agents-md", "--strict", "-o"])
        .arg(format!("{}/", clean.display()))
        .assert()
        .success();
    assert!(clean.join("AGENTS.md").is_file() && clean.join("playbook.yaml").is_file());
}

/// The chain the clean-migration issue started from: TRON to skill-json to
/// AGENTS.md, each step's format told by the file alone. Every bullet
/// arrives, and the skill playbook in between is the skill's, not a
/// vAgenda document under a key.
#[test]
fn tron_to_skill_json_to_agents_md_keeps_the_bullets() {
    let dir = tempfile::tempdir().unwrap();
    let tron = curator_fixture("vagenda/plan-multiline-header.tron");
    let model = |path: &std::path::Path| -> Vec<String> {
        let out = convert()
            .arg(path)
            .args(["--to", "json", "-q"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        v["playbook"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["content"].as_str().unwrap().to_owned())
            .collect()
    };
    let want = model(&tron);
    assert_eq!(want.len(), 3);
    let step = |from: &std::path::Path, to: &str, out: &std::path::Path| {
        convert()
            .arg(from)
            .args(["--to", to, "-q", "-o"])
            .arg(out)
            .assert()
            .success();
    };
    let skill = dir.path().join("p.json");
    step(&tron, "skill-json", &skill);
    let text = std::fs::read_to_string(&skill).unwrap();
    assert!(!text.contains("vAgendaInfo") && !text.contains("\"vagenda\""));
    let agents = dir.path().join("team/");
    step(&skill, "agents-md", &agents);
    let md = agents.join("AGENTS.md");
    assert!(std::fs::metadata(&md).unwrap().len() > 0);
    let mut got = model(&md);
    let mut want = want;
    got.sort();
    want.sort();
    assert_eq!(got, want);
}
