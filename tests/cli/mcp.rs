//! ace-mcp driven by the official MCP client (`mcp` from PyPI, in the
//! venv of tests/mcp/install.sh) over stdio, on playbooks of three
//! formats; each write checked with ace-validate afterwards.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

use super::{convert, fixture, validate};

pub(super) fn venv() -> PathBuf {
    let venv = PathBuf::from(
        std::env::var("ACE_MCP_VENV")
            .expect("ACE_MCP_VENV: make it with tests/mcp/install.sh DIR and export DIR"),
    );
    assert!(
        venv.join("bin/python").exists(),
        "ACE_MCP_VENV={} has no python: run tests/mcp/install.sh on it",
        venv.display()
    );
    venv
}

fn ace_mcp() -> PathBuf {
    assert_cmd::cargo::cargo_bin("ace-mcp")
}

/// The client started on `calls` against `ace-mcp LOCATION`, not waited
/// for.
fn client(dir: &Path, calls: &serde_json::Value, location: &str) -> std::process::Child {
    client_with(dir, calls, &[location])
}

/// [`client`], ace-mcp given `args`.
fn client_with(dir: &Path, calls: &serde_json::Value, args: &[&str]) -> std::process::Child {
    let script = dir.join(format!("calls-{}.json", rand_name()));
    std::fs::write(&script, calls.to_string()).unwrap();
    Process::new(venv().join("bin/python"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py"))
        .arg(&script)
        .arg("--")
        .arg(ace_mcp())
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn rand_name() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

/// The client's output for `calls`: the tools listed and each call's
/// result.
fn drive(dir: &Path, calls: serde_json::Value, location: &str) -> serde_json::Value {
    let out = client(dir, &calls, location).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each call's `(is_error, text)`.
fn results(out: &serde_json::Value) -> Vec<(bool, String)> {
    out["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["is_error"].as_bool().unwrap(),
                c["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// ace-validate finds no error in `file`.
fn still_valid(file: &Path) {
    validate()
        .arg(file)
        .args(["--output-format", "concise"])
        .assert()
        .success();
}

const TOOLS: [&str; 12] = [
    "add_entry",
    "apply_delta",
    "create_project",
    "curate_playbook",
    "get_section",
    "list_projects",
    "log_reflection",
    "read_playbook",
    "remove_entry",
    "search_playbook",
    "update_counters",
    "validate",
];

/// ace-validate on `file`, as a step of the client's calls.
fn check(file: &Path) -> serde_json::Value {
    let bin = assert_cmd::cargo::cargo_bin("ace-validate");
    serde_json::json!({"run": [bin, file, "--output-format", "concise"]})
}

/// Every tool called once on `file` (the writes each followed by
/// ace-validate on it), with what the format in it needs: a section, an
/// entry of it, and an entry to remove.
fn every_tool(
    dir: &Path,
    file: &Path,
    section: &str,
    entry: &str,
    doomed: &str,
) -> Vec<(String, bool, String)> {
    let calls = serde_json::json!([
        {"tool": "read_playbook", "args": {}},
        {"tool": "get_section", "args": {"section": section}},
        {"tool": "add_entry", "args": {"section": section, "content": "Restate the question in your own words before you answer it", "project_id": "finance"}},
        check(file),
        {"tool": "update_counters", "args": {"entry_id": entry, "helpful_delta": 1, "harmful_delta": 0}},
        check(file),
        {"tool": "update_counters", "args": {"entry_id": doomed, "helpful_delta": 0, "harmful_delta": 99}},
        check(file),
        {"tool": "curate_playbook", "args": {}},
        check(file),
        {"tool": "remove_entry", "args": {"entry_id": entry}},
        check(file),
        {"tool": "search_playbook", "args": {"query": "question"}},
        {"tool": "log_reflection", "args": {"task_summary": "Answered a support ticket", "outcome": "success", "learnings": ["Restate the question first"], "project_id": "finance"}},
        check(file),
        {"tool": "list_projects", "args": {}},
        {"tool": "create_project", "args": {"project_id": "finance", "description": "Money"}},
        {"tool": "apply_delta", "args": {"delta": {"counters": [{"id": entry, "helpful_delta": 1}]}}},
        check(file),
        {"tool": "validate", "args": {}},
        {"read_resource": file_uri(file)},
    ]);
    let out = drive(dir, calls, file.to_str().unwrap());
    assert_eq!(out["tools"], serde_json::json!(TOOLS));
    assert_eq!(out["resources"][0]["uri"], file_uri(file));
    out["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["tool"].as_str().unwrap().to_owned(),
                c["is_error"].as_bool().unwrap(),
                c["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The answer of the `n`th call of `tool`, which succeeded.
fn answer<'a>(r: &'a [(String, bool, String)], tool: &str, n: usize) -> &'a str {
    let (_, err, text) = r
        .iter()
        .filter(|(t, _, _)| t == tool)
        .nth(n)
        .unwrap_or_else(|| panic!("no call {n} of {tool}"));
    assert!(!err, "{tool} #{n}: {text}");
    text
}

#[test]
#[ignore = "needs ACE_MCP_VENV"]
fn every_tool_on_a_markdown_playbook_a_skillbook_and_a_claude_md_block() {
    let dir = tempfile::tempdir().unwrap();
    // ace-validate runs from the folder: relative names.
    let md = dir.path().join("playbook.md");
    std::fs::copy(fixture("canonical.md"), &md).unwrap();
    let r = every_tool(
        dir.path(),
        &md,
        "STRATEGIES & INSIGHTS",
        "str-00001",
        "str-00002",
    );
    for (tool, err, text) in &r {
        assert!(!err, "{tool}: {text}");
    }
    assert_eq!(
        answer(&r, "add_entry", 0),
        "Added entry [str-00003] to 'STRATEGIES & INSIGHTS' (project: finance)"
    );
    assert_eq!(
        answer(&r, "curate_playbook", 0),
        "Removed 1 harmful entries: ['str-00002']\nNo duplicate entries found."
    );
    assert_eq!(answer(&r, "list_projects", 0), "- global\n- finance");
    assert_eq!(
        answer(&r, "create_project", 0),
        "Project 'finance' already exists."
    );
    assert!(answer(&r, "log_reflection", 0).starts_with("Logged reflection with 1 learning(s)"));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.contains("[str-00003] helpful=0 harmful=0 [finance] :: Restate the question"),
        "{text}"
    );
    assert!(
        !text.contains("str-00002") && !text.contains("str-00001"),
        "{text}"
    );
    assert_eq!(answer(&r, "read_resource", 0), text);
    let log = std::fs::read_to_string(dir.path().join("playbook.md.reflections.jsonl")).unwrap();
    let line: serde_json::Value = serde_json::from_str(log.trim_end()).unwrap();
    assert_eq!(
        line["learnings"],
        serde_json::json!(["Restate the question first"])
    );
    assert_eq!(line["project_id"], "finance");

    // kayba's skillbook: no projects, so the project is a loss said in the
    // answer; a removed or curated skill is deprecated, as kayba retires
    // them.
    let sb = dir.path().join("skillbook.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kayba-skillbook.json"),
        &sb,
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sb).unwrap()).unwrap();
    let mut ids: Vec<&String> = v["skills"].as_object().unwrap().keys().collect();
    ids.sort();
    // The first skill is active, and so is the last (the second is
    // `invalid` already, which curation leaves alone).
    let (entry, doomed) = (ids[0].clone(), ids[ids.len() - 1].clone());
    let section = v["skills"][&entry]["section"].as_str().unwrap().to_owned();
    let r = every_tool(dir.path(), &sb, &section, &entry, &doomed);
    for (tool, err, text) in &r {
        let expected = tool == "create_project";
        assert_eq!(*err, expected, "{tool}: {text}");
    }
    let create = &r.iter().find(|c| c.0 == "create_project").unwrap().2;
    assert!(create.contains("keeps no list of projects"), "{create}");
    assert!(
        answer(&r, "add_entry", 0).contains("does not keep"),
        "{r:?}"
    );
    assert_eq!(
        answer(&r, "curate_playbook", 0),
        format!("Removed 1 harmful entries: ['{doomed}']\nNo duplicate entries found.")
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sb).unwrap()).unwrap();
    assert_eq!(v["skills"][&doomed]["status"], "deprecated");
    assert_eq!(v["skills"][&entry]["status"], "deprecated");

    // A CLAUDE.md whose managed block holds a markdown playbook: every
    // other byte stays.
    let claude = dir.path().join("CLAUDE.md");
    let head = "# my-service\n\nRun `make test` before committing.\n";
    std::fs::write(&claude, head).unwrap();
    convert()
        .arg(fixture("canonical.md"))
        .args(["--into", claude.to_str().unwrap()])
        .assert()
        .success();
    let r = every_tool(
        dir.path(),
        &claude,
        "COMMON MISTAKES TO AVOID",
        "mis-00001",
        "str-00002",
    );
    for (tool, err, text) in &r {
        assert!(!err, "{tool}: {text}");
    }
    let text = std::fs::read_to_string(&claude).unwrap();
    assert!(text.starts_with(head), "{text}");
    assert!(
        text.contains("[mis-00002] helpful=0 harmful=0 [finance] ::"),
        "{text}"
    );
    assert!(!text.contains("str-00002"), "{text}");
    still_valid(&claude);
}

#[test]
#[ignore = "needs ACE_MCP_VENV"]
fn the_official_client_uses_every_tool_on_a_markdown_playbook() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::copy(fixture("canonical.md"), &pb).unwrap();
    let calls = serde_json::json!([
        {"tool": "read_playbook", "args": {}},
        {"tool": "get_section", "args": {"section": "STRATEGIES & INSIGHTS"}},
        {"tool": "add_entry", "args": {"section": "STRATEGIES & INSIGHTS", "content": "Check the units of every figure before you compare two reports"}},
        {"tool": "update_counters", "args": {"entry_id": "str-00001", "helpful_delta": 2, "harmful_delta": 1}},
        {"tool": "update_counters", "args": {"entry_id": "str-00002", "helpful_delta": -5, "harmful_delta": 0}},
        {"tool": "search_playbook", "args": {"query": "units timezones"}},
        {"tool": "remove_entry", "args": {"entry_id": "cal-00001"}},
        {"tool": "apply_delta", "args": {"delta": {"counters": [{"id": "mis-00001", "helpful_delta": 1}]}}},
        {"tool": "read_playbook", "args": {"max_tokens": 40}},
        {"tool": "validate", "args": {}},
    ]);
    let out = drive(dir.path(), calls, pb.to_str().unwrap());
    assert_eq!(out["tools"], serde_json::json!(TOOLS));
    let r = results(&out);
    for (i, (err, text)) in r.iter().enumerate() {
        assert!(!err, "call {i}: {text}");
    }
    assert_eq!(
        r[0].1,
        std::fs::read_to_string(fixture("canonical.md")).unwrap()
    );
    assert!(
        r[1].1.starts_with("## STRATEGIES & INSIGHTS\n[str-00001]"),
        "{}",
        r[1].1
    );
    assert_eq!(
        r[2].1,
        "Added entry [str-00003] to 'STRATEGIES & INSIGHTS' (project: global)"
    );
    assert_eq!(r[3].1, "Updated [str-00001]: helpful=5->7, harmful=0->1");
    // A count down stops at 0, as ace_claude_mcp's does.
    assert_eq!(r[4].1, "Updated [str-00002]: helpful=0->0, harmful=0->0");
    assert!(
        r[5].1.starts_with("Found 3 matching entries:\n[str-00002]"),
        "{}",
        r[5].1
    );
    assert_eq!(r[6].1, "Removed entry [cal-00001]");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&r[7].1).unwrap()["accepted"],
        serde_json::json!(["#1"])
    );
    assert!(r[8].1.len() < r[0].1.len(), "{}", r[8].1);
    // Findings as ace-validate's JSON: the emptied section is one.
    let findings: serde_json::Value = serde_json::from_str(&r[9].1).unwrap();
    assert!(
        findings
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["severity"] != "error"),
        "{findings}"
    );
    assert!(r[9]
        .1
        .contains("section `FORMULAS & CALCULATIONS` has no entries"));
    let text = std::fs::read_to_string(&pb).unwrap();
    assert!(
        text.contains("[str-00001] helpful=7 harmful=1 ::"),
        "{text}"
    );
    assert!(
        text.contains("[str-00003] helpful=0 harmful=0 :: Check the units"),
        "{text}"
    );
    assert!(
        text.contains("[mis-00001] helpful=7 harmful=1 ::"),
        "{text}"
    );
    assert!(!text.contains("cal-00001"), "{text}");
    still_valid(&pb);
}

#[test]
#[ignore = "needs ACE_MCP_VENV"]
fn the_official_client_uses_the_tools_on_a_skillbook_and_a_claude_md_block() {
    let dir = tempfile::tempdir().unwrap();
    let sb = dir.path().join("skillbook.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kayba-skillbook.json"),
        &sb,
    )
    .unwrap();
    let calls = serde_json::json!([
        {"tool": "add_entry", "args": {"section": "reasoning_patterns", "content": "Restate the question in your own words before you answer it"}},
        {"tool": "update_counters", "args": {"entry_id": "reasoning_patterns-00001", "helpful_delta": 1, "harmful_delta": 1}},
        {"tool": "remove_entry", "args": {"entry_id": "reasoning_patterns-00001"}},
        {"tool": "validate", "args": {}},
    ]);
    let r = results(&drive(dir.path(), calls, sb.to_str().unwrap()));
    for (i, (err, text)) in r.iter().enumerate() {
        assert!(!err, "call {i}: {text}");
    }
    assert!(
        r[0].1.starts_with("Added entry [reasoning_patterns-"),
        "{}",
        r[0].1
    );
    assert_eq!(
        r[1].1,
        "Updated [reasoning_patterns-00001]: helpful=3->4, harmful=0->1"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sb).unwrap()).unwrap();
    // kayba's skillbook keeps a removed skill, deprecated.
    assert_eq!(
        v["skills"]["reasoning_patterns-00001"]["status"],
        "deprecated"
    );
    still_valid(&sb);

    // A CLAUDE.md whose managed block holds a markdown playbook.
    let claude = dir.path().join("CLAUDE.md");
    std::fs::write(
        &claude,
        "# my-service\n\nRun `make test` before committing.\n",
    )
    .unwrap();
    convert()
        .arg(fixture("canonical.md"))
        .args(["--into", claude.to_str().unwrap()])
        .assert()
        .success();
    let calls = serde_json::json!([
        {"tool": "update_counters", "args": {"entry_id": "str-00001", "helpful_delta": 1, "harmful_delta": 0}},
        {"tool": "add_entry", "args": {"section": "COMMON MISTAKES TO AVOID", "content": "Do not merge a branch whose checks are still running"}},
        {"tool": "read_playbook", "args": {}},
    ]);
    let r = results(&drive(dir.path(), calls, claude.to_str().unwrap()));
    for (i, (err, text)) in r.iter().enumerate() {
        assert!(!err, "call {i}: {text}");
    }
    let text = std::fs::read_to_string(&claude).unwrap();
    assert!(
        text.starts_with("# my-service\n\nRun `make test` before committing.\n"),
        "{text}"
    );
    assert!(
        text.contains("[str-00001] helpful=6 harmful=0 ::"),
        "{text}"
    );
    assert!(text.contains(":: Do not merge a branch"), "{text}");
    still_valid(&claude);
}

#[test]
#[ignore = "needs ACE_MCP_VENV"]
fn five_servers_of_twenty_counts_each_end_at_one_hundred() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::copy(fixture("canonical.md"), &pb).unwrap();
    let calls: Vec<serde_json::Value> = (0..20)
        .map(|_| serde_json::json!({"tool": "update_counters", "args": {"entry_id": "str-00002", "helpful_delta": 1, "harmful_delta": 0}}))
        .collect();
    let calls = serde_json::Value::Array(calls);
    let clients: Vec<_> = (0..5)
        .map(|_| client(dir.path(), &calls, pb.to_str().unwrap()))
        .collect();
    for c in clients {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(results(&v).iter().all(|(err, _)| !err), "{v}");
    }
    let text = std::fs::read_to_string(&pb).unwrap();
    assert!(
        text.contains("[str-00002] helpful=100 harmful=0 ::"),
        "{text}"
    );
}

#[test]
#[ignore = "needs ACE_MCP_VENV"]
fn bad_calls_are_tool_errors_and_the_server_stays_up() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::copy(fixture("canonical.md"), &pb).unwrap();
    let before = std::fs::read(&pb).unwrap();
    let big = "x".repeat(10 * 1024 * 1024);
    let calls = serde_json::json!([
        {"tool": "update_counters", "args": {"entry_id": "nope-00009", "helpful_delta": 1, "harmful_delta": 0}},
        {"tool": "get_section", "args": {"section": "NO SUCH SECTION"}},
        {"tool": "apply_delta", "args": {"delta": "{not a delta"}},
        {"tool": "add_entry", "args": {"section": "STRATEGIES & INSIGHTS", "content": big}},
        {"tool": "remove_entry", "args": {"entry_id": "nope-00009"}},
        // Below 0, every entry never counted harmful would go.
        {"tool": "curate_playbook", "args": {"harmful_threshold": -1}},
        {"tool": "add_entry", "args": {"section": "STRATEGIES & INSIGHTS", "content": " \n\t"}},
        {"tool": "read_playbook", "args": {}},
    ]);
    let r = results(&drive(dir.path(), calls, pb.to_str().unwrap()));
    let expected = [
        "Entry 'nope-00009' not found in playbook.",
        "no section \"NO SUCH SECTION\"",
        "invalid JSON",
        "`content` is 10485760 bytes; ace-mcp takes at most 65536",
        "Entry 'nope-00009' not found in playbook.",
        "`harmful_threshold` is -1; expected a whole number 0 or more",
        "`content` is empty; expected the entry's text",
    ];
    for (i, want) in expected.iter().enumerate() {
        assert!(r[i].0, "call {i} is an error: {}", r[i].1);
        assert!(r[i].1.contains(want), "call {i}: {}", r[i].1);
    }
    assert!(!r[7].0, "the server answers after them: {}", r[7].1);
    assert_eq!(std::fs::read(&pb).unwrap(), before, "nothing was written");
}

/// `add_entry`'s answer names the section the entry is in: a name the
/// playbook lacks is filed under OTHERS where there is one (the paper's
/// curator), and a key is the section's title.
#[test]
#[ignore = "needs ACE_MCP_VENV"]
fn add_entry_names_the_section_the_entry_went_to() {
    let dir = tempfile::tempdir().unwrap();
    let with = dir.path().join("appworld.md");
    std::fs::write(
        &with,
        "## STRATEGIES AND HARD RULES\n[shr-00001] helpful=1 harmful=0 :: Read the API docs first.\n\n## OTHERS\n[misc-00002] helpful=0 harmful=0 :: Emails are not valid anymore.\n",
    )
    .unwrap();
    let calls = serde_json::json!([
        {"tool": "add_entry", "args": {"section": "NEW STUFF", "content": "Log every failed call with its status code"}},
        {"tool": "add_entry", "args": {"section": "strategies_and_hard_rules", "content": "Page through every list the API returns"}},
        {"tool": "add_entry", "args": {"section": "OTHERS\n[misc-09999] helpful=99 harmful=0 :: injected", "content": "Never trust a cached token"}},
    ]);
    let r = results(&drive(dir.path(), calls, with.to_str().unwrap()));
    let answers: Vec<&str> = r.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        answers,
        [
            "Added entry [misc-00003] to 'OTHERS' (project: global)",
            "Added entry [shr-00004] to 'STRATEGIES AND HARD RULES' (project: global)",
            "Added entry [misc-00005] to 'OTHERS' (project: global)",
        ]
    );
    let text = std::fs::read_to_string(&with).unwrap();
    assert!(!text.contains("misc-09999"), "{text}");
    let without = dir.path().join("plain.md");
    std::fs::write(
        &without,
        "## STRATEGIES\n[str-00001] helpful=0 harmful=0 :: Read the API docs first.\n",
    )
    .unwrap();
    let calls = serde_json::json!([
        {"tool": "add_entry", "args": {"section": "new stuff", "content": "Log every failed call with its status code"}},
    ]);
    let r = results(&drive(dir.path(), calls, without.to_str().unwrap()));
    assert_eq!(
        r[0].1,
        "Added entry [new-00001] to 'NEW STUFF' (project: global)"
    );
    still_valid(&without);
}

#[test]
fn malformed_json_rpc_leaves_the_server_answering() {
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::copy(fixture("canonical.md"), &pb).unwrap();
    let mut server = Process::new(ace_mcp())
        .arg(&pb)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(server.stdout.take().unwrap());
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    });
    for line in [
        "{not json at all",
        "[1, 2",
        "\u{1b}[2J",
        &initialize.to_string(),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answer = String::new();
    loop {
        answer.clear();
        assert!(
            stdout.read_line(&mut answer).unwrap() > 0,
            "the server went away"
        );
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        if v["id"] == 1 {
            assert_eq!(v["result"]["serverInfo"]["name"], "ace-mcp", "{v}");
            break;
        }
    }
    drop(stdin);
    assert!(server.wait().unwrap().success());
}

#[cfg(unix)]
#[test]
#[ignore = "needs ACE_MCP_VENV"]
fn a_read_only_playbook_is_written_only_with_force() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let pb = dir.path().join("playbook.md");
    std::fs::copy(fixture("canonical.md"), &pb).unwrap();
    std::fs::set_permissions(&pb, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&pb).unwrap();
    let calls = serde_json::json!([
        {"tool": "update_counters", "args": {"entry_id": "str-00001", "helpful_delta": 1, "harmful_delta": 0}},
    ]);
    let path = pb.to_str().unwrap();
    let out = client_with(dir.path(), &calls, &[path])
        .wait_with_output()
        .unwrap();
    let r = results(&serde_json::from_slice(&out.stdout).unwrap());
    assert!(r[0].0, "{}", r[0].1);
    assert!(
        r[0].1.contains("read-only; nothing written (--force"),
        "{}",
        r[0].1
    );
    assert_eq!(std::fs::read(&pb).unwrap(), before);
    let out = client_with(dir.path(), &calls, &["--force", path])
        .wait_with_output()
        .unwrap();
    let r = results(&serde_json::from_slice(&out.stdout).unwrap());
    assert!(!r[0].0, "{}", r[0].1);
    assert!(std::fs::read_to_string(&pb)
        .unwrap()
        .contains("[str-00001] helpful=6 harmful=0 ::"));
    let mode = std::fs::metadata(&pb).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444, "the mark is kept");
}
