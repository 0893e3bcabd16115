//! The managed block: `ace-convert PLAYBOOK --into FILE` writes a playbook
//! between kayba's markers in an agent's context file, and the file reads
//! back as the block's entries (ace-validate, ace-apply, ace-diff on
//! CLAUDE.md itself).

use std::path::{Path, PathBuf};
use std::process::Command;

const START: &str = "<!-- ACE:START - Do not edit manually -->";
const END: &str = "<!-- ACE:END -->";

const PLAYBOOK: &str = "\
## STRATEGIES AND HARD RULES
[str-00001] helpful=5 harmful=0 :: Read the API documentation of an app before calling any of its endpoints.
[str-00002] helpful=0 harmful=6 :: Guess the parameters of an endpoint from its name.
[str-00003] helpful=2 harmful=0 :: Check the HTTP status code before parsing the body of a response.

## TROUBLESHOOTING AND PITFALLS
[ts-00004] helpful=1 harmful=9 :: Retry every failed call at once, as often as it takes.
[ts-00005] helpful=4 harmful=1 :: Page through every list endpoint until a page comes back empty.
";

/// A CLAUDE.md kayba 0.8 managed: prose above and below its block, which
/// holds the TOON it wrote.
const CLAUDE_MD: &str = "# my-service\n\nProject documentation.\n\nRun `make test` before committing.\n\n## ACE Learned Strategies\n\n<!-- ACE:START - Do not edit manually -->\nskills[1]{id,section,content,helpful,harmful,neutral}:\n  context-00001,context,Prefer small commits,2,0,0\n<!-- ACE:END -->\n\n## Deploying\n\nTag a release; CI does the rest.\n";

fn cmd(bin: &str) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin(bin).unwrap();
    c.env_remove("SOURCE_DATE_EPOCH")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("FORCE_COLOR");
    c
}

fn playbook(dir: &Path) -> PathBuf {
    let p = dir.join("playbook.md");
    std::fs::write(&p, PLAYBOOK).unwrap();
    p
}

fn into(pb: &Path, file: &Path, extra: &[&str]) -> std::process::Output {
    cmd("ace-convert")
        .arg(pb)
        .arg("--into")
        .arg(file)
        .args(extra)
        .output()
        .unwrap()
}

/// The text between the markers of `text`.
fn block(text: &str) -> &str {
    let from = text.find(START).expect("a start marker") + START.len() + 1;
    let to = text.find(END).expect("an end marker");
    &text[from..to]
}

/// The entries ace-convert reads from `file`, as `(id, content)`.
fn entries(file: &Path) -> Vec<(String, String)> {
    let o = cmd("ace-convert")
        .arg(file)
        .args(["--to", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["playbook"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_owned(),
                e["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn an_old_kayba_block_is_replaced_and_every_other_byte_kept() {
    let dir = tempfile::tempdir().unwrap();
    let pb = playbook(dir.path());
    let claude = dir.path().join("CLAUDE.md");
    std::fs::write(&claude, CLAUDE_MD).unwrap();
    let o = into(&pb, &claude, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&claude).unwrap();
    let (head, tail) = CLAUDE_MD.split_at(CLAUDE_MD.find("skills[1]").unwrap());
    let tail = &tail[tail.find(END).unwrap()..];
    assert!(text.starts_with(head), "{text}");
    assert!(text.ends_with(tail), "{text}");
    assert_eq!(
        block(&text),
        PLAYBOOK,
        "the prompt form of a markdown playbook is the playbook"
    );
    // Again: nothing changes, not even the file's time.
    let before = std::fs::metadata(&claude).unwrap().modified().unwrap();
    let o = into(&pb, &claude, &[]);
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), text);
    assert_eq!(
        std::fs::metadata(&claude).unwrap().modified().unwrap(),
        before
    );
    // The file reads as the block's entries.
    let ids: Vec<String> = entries(&claude).into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        [
            "str-00001",
            "str-00002",
            "str-00003",
            "ts-00004",
            "ts-00005"
        ]
    );
}

#[test]
fn ace_validate_checks_the_blocks_entries_at_their_lines_in_claude_md() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("CLAUDE.md");
    // A duplicate ID in the block (ACE002, an error) on line 6.
    std::fs::write(
        &claude,
        format!("# T\n\nProse.\n\n{START}\n[str-00001] helpful=1 harmful=0 :: One.\n[str-00001] helpful=1 harmful=0 :: Two.\n{END}\n\nMore prose.\n"),
    )
    .unwrap();
    let o = cmd("ace-validate")
        .arg(&claude)
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let dup = v
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "ACE002")
        .expect("the duplicate ID is found");
    assert_eq!(dup["line"], 7, "{dup}");
    // Without it, the file passes; the prose is not taken for entries.
    std::fs::write(
        &claude,
        format!("# T\n\nProse.\n\n{START}\n[str-00001] helpful=1 harmful=0 :: One.\n{END}\n\nMore prose.\n"),
    )
    .unwrap();
    cmd("ace-validate").arg(&claude).assert().code(0);
}

#[test]
fn an_mdc_rule_keeps_its_front_matter_and_new_markers_go_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let pb = playbook(dir.path());
    let mdc = dir.path().join("learned.mdc");
    let front =
        "---\ndescription: Learned rules\nglobs: \"**/*.py\"\nalwaysApply: true\n---\n\n# Rules\n";
    std::fs::write(&mdc, front).unwrap();
    let o = into(&pb, &mdc, &["--to", "content"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // The summary names the fields left out, as each writer names them.
    assert!(
        err.contains("which the playbook keeps: harmful, helpful, id ("),
        "{err}"
    );
    let text = std::fs::read_to_string(&mdc).unwrap();
    assert!(text.starts_with(&format!("{front}\n{START}\n")), "{text}");
    assert!(text.ends_with(&format!("{END}\n")));
    assert!(
        !block(&text).contains("helpful"),
        "content only: {}",
        block(&text)
    );
    // A new file is made, holding the block alone.
    let new = dir.path().join("GEMINI.md");
    assert!(into(&pb, &new, &[]).status.success());
    let text = std::fs::read_to_string(&new).unwrap();
    assert_eq!(text, format!("{START}\n{PLAYBOOK}{END}\n"));
}

#[test]
fn unsound_markers_exit_2_naming_their_lines_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let pb = playbook(dir.path());
    let cases = [
        (format!("a\n{START}\nb\n"), "line 2"),
        (format!("a\n{END}\nb\n"), "line 2"),
        (format!("{END}\n{START}\n"), "line 1"),
        (format!("{START}\n{END}\nx\n{START}\n{END}\n"), "lines 1, 4"),
    ];
    for (text, lines) in cases {
        let f = dir.path().join("CLAUDE.md");
        std::fs::write(&f, &text).unwrap();
        let o = into(&pb, &f, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text:?}: {err}");
        assert!(err.contains("ACE087") && err.contains(lines), "{err}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
        // ace-validate reports the same at the marker.
        cmd("ace-validate")
            .arg(&f)
            .assert()
            .code(1)
            .stdout(predicates::str::contains("ACE087"));
    }
    // Markers inside fenced code are an example, not a block.
    let f = dir.path().join("README.md");
    let doc = format!("# Doc\n\n```markdown\n{START}\n{END}\n```\n");
    std::fs::write(&f, &doc).unwrap();
    let o = into(&pb, &f, &[]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.starts_with(&doc) && text.len() > doc.len());
    // So are markers in an indented code block, as markdown shows code
    // indented by four spaces (or a tab).
    let f = dir.path().join("GUIDE.md");
    let doc = format!("# Guide\n\nThe block looks like this:\n\n    {START}\n    example\n\t{END}\n\nMore prose.\n");
    std::fs::write(&f, &doc).unwrap();
    let o = into(&pb, &f, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.starts_with(&doc) && text.len() > doc.len(), "{text}");
}

#[test]
fn every_style_reads_back_as_the_entries_written() {
    let dir = tempfile::tempdir().unwrap();
    let pb = playbook(dir.path());
    // AGENTS.md bullets are ordered by the seed's rule (helpful first).
    let sorted = |v: Vec<(String, String)>| {
        let mut c: Vec<String> = v.into_iter().map(|(_, c)| c).collect();
        c.sort();
        c
    };
    let contents = sorted(entries(&pb));
    for style in ["prompt", "agents", "kayba", "content"] {
        let f = dir.path().join(format!("{style}.md"));
        std::fs::write(&f, "# Project\n").unwrap();
        let o = into(&pb, &f, &["--to", style]);
        assert!(
            o.status.success(),
            "{style}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(sorted(entries(&f)), contents, "{style}");
        // A rewrite keeps the style without being told.
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(into(&pb, &f, &[]).status.success());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), text, "{style}");
    }
    // A style is no format of its own.
    cmd("ace-convert")
        .arg(&pb)
        .args(["--to", "kayba"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--into"));
}

#[test]
fn with_max_tokens_the_block_holds_the_best_entries_that_fit() {
    let dir = tempfile::tempdir().unwrap();
    let pb = playbook(dir.path());
    let all = dir.path().join("all.md");
    assert!(into(&pb, &all, &[]).status.success());
    let full =
        ace_tokens::Encoding::default().count(block(&std::fs::read_to_string(&all).unwrap()));
    let budget = full - 1;
    let f = dir.path().join("CLAUDE.md");
    let o = into(&pb, &f, &["--max-tokens", &budget.to_string()]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    let text = std::fs::read_to_string(&f).unwrap();
    let tokens = ace_tokens::Encoding::default().count(block(&text));
    assert!(tokens <= budget, "{tokens} > {budget}");
    // One entry less fits: the lowest-scoring one (ts-00004, 1 - 9).
    let ids: Vec<String> = entries(&f).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["str-00001", "str-00002", "str-00003", "ts-00005"]);
    assert!(err.contains("left out `ts-00004`"), "{err}");
    // ace-validate counts the block as the budget did.
    cmd("ace-validate")
        .arg(&f)
        .args(["--max-tokens", &budget.to_string()])
        .assert()
        .code(0);
    cmd("ace-validate")
        .arg(&f)
        .args(["--max-tokens", &(tokens - 1).to_string()])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("ACE085"));
    if let Some(js) = std::env::var_os("ACE_TRON_JS") {
        let content = dir.path().join("block.txt");
        std::fs::write(&content, block(&text)).unwrap();
        let out = Command::new("node")
            .arg(Path::new(&js).join("tokens.mjs"))
            .arg("cl100k_base")
            .arg(&content)
            .output()
            .expect("node runs");
        let theirs: usize = String::from_utf8_lossy(&out.stdout)
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(theirs, tokens, "js-tiktoken counts the block as we do");
    }
    // A budget nothing fits in: an error, and the file is not written.
    let o = into(&pb, &f, &["--max-tokens", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
}

#[test]
fn ace_apply_and_ace_diff_work_on_claude_md_itself() {
    let dir = tempfile::tempdir().unwrap();
    let pb = playbook(dir.path());
    let claude = dir.path().join("CLAUDE.md");
    std::fs::write(&claude, CLAUDE_MD).unwrap();
    assert!(into(&pb, &claude, &[]).status.success());
    let before = std::fs::read_to_string(&claude).unwrap();
    let old = dir.path().join("old.md");
    std::fs::write(&old, &before).unwrap();
    let delta = dir.path().join("delta.json");
    std::fs::write(
        &delta,
        r#"{"operations":[{"op":"incrementCounter","entryId":"str-00003","delta":{"helpfulCount":1}}]}"#,
    )
    .unwrap();
    cmd("ace-apply")
        .arg(&claude)
        .arg(&delta)
        .args(["--in-place", "-q"])
        .assert()
        .code(0);
    let after = std::fs::read_to_string(&claude).unwrap();
    assert_eq!(
        after,
        before.replace("[str-00003] helpful=2", "[str-00003] helpful=3")
    );
    let o = cmd("ace-diff").arg(&old).arg(&claude).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("str-00003"), "{out}");
}

#[test]
fn writers_of_one_context_file_at_once_leave_one_whole_block() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("CLAUDE.md");
    std::fs::write(&claude, CLAUDE_MD).unwrap();
    // Ten playbooks, each of one entry, written into one file at once.
    let sources: Vec<PathBuf> = (0..10)
        .map(|i| {
            let p = dir.path().join(format!("pb{i}.md"));
            std::fs::write(
                &p,
                format!("## STRATEGIES AND HARD RULES\n[str-{i:05}] helpful={i} harmful=0 :: Advice number {i}.\n"),
            )
            .unwrap();
            p
        })
        .collect();
    let children: Vec<std::process::Child> = sources
        .iter()
        .map(|p| {
            Command::new(assert_cmd::cargo::cargo_bin("ace-convert"))
                .arg(p)
                .arg("--into")
                .arg(&claude)
                .arg("-q")
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert_eq!(c.wait().unwrap().code(), Some(0));
    }
    let text = std::fs::read_to_string(&claude).unwrap();
    assert_eq!(text.matches(START).count(), 1, "{text}");
    assert!(text.starts_with("# my-service\n\nProject documentation."));
    assert!(text.ends_with("## Deploying\n\nTag a release; CI does the rest.\n"));
    // The block is one of the ten, whole.
    let got = entries(&claude);
    assert_eq!(got.len(), 1, "{text}");
    assert!(got[0].1.starts_with("Advice number"));
}

/// Every corpus playbook goes into a CLAUDE.md in every style and reads
/// back with as many entries as it has active ones.
#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_playbook_goes_into_a_context_file_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = [
        "markdown-playbook",
        "agents-md",
        "skill-json",
        "vagenda",
        "tron",
    ]
    .iter()
    .flat_map(|v| ace_tests::corpus_files(&ace_tests::corpus_dir(v)))
    .collect();
    assert!(files.len() > 30, "{} files", files.len());
    let mut tried = 0;
    for src in &files {
        let o = cmd("ace-convert")
            .arg(src)
            .args(["--to", "json", "-q"])
            .output()
            .unwrap();
        if !o.status.success() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let Some(all) = v["playbook"]["entries"].as_array() else {
            continue;
        };
        let active = all
            .iter()
            .filter(|e| e["status"].as_str().is_none_or(|s| s == "active"))
            .count();
        for style in ["prompt", "agents", "kayba", "content"] {
            let f = dir.path().join("CLAUDE.md");
            std::fs::write(&f, "# Project\n\nProse.\n").unwrap();
            let o = into(src, &f, &["--to", style, "-q"]);
            assert!(
                o.status.success(),
                "{} {style}: {}",
                src.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(
                entries(&f).len(),
                active,
                "{} in the {style} style",
                src.display()
            );
        }
        tried += 1;
    }
    assert!(tried > 30, "{tried} playbooks");
}

/// A block is what the agent reads, drawn from a playbook that keeps every
/// field: `--into` names the fields the block leaves out on one line, not
/// one ACE101 warning each; `--strict` still refuses to leave them out.
#[test]
fn into_names_the_fields_a_block_leaves_out_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("CLAUDE.md");
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kayba-skillbook.json");
    let out = crate::convert()
        .arg(&book)
        .arg("--into")
        .arg(&host)
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(!err.contains("warning[ACE101]"), "{err}");
    let summary: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("leaves out fields"))
        .collect();
    assert_eq!(summary.len(), 1, "{err}");
    assert!(
        summary[0].contains("evidence") && summary[0].contains("updated_at"),
        "{err}"
    );
    let strict = crate::convert()
        .arg(&book)
        .arg("--into")
        .arg(dir.path().join("OTHER.md"))
        .arg("--strict")
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&strict.get_output().stderr).into_owned();
    assert!(err.contains("warning[ACE101]"), "{err}");
}

/// A kayba-style block takes kayba's update batch as kayba takes it: a
/// skill with an issue and no insight that gains an insight keeps its
/// issue, one whose issue alone is updated stays without an insight, and
/// new skills are numbered `{section}-NNNNN` past every ID, as kayba
/// numbers them. Nothing it shows is reported lost.
#[test]
fn a_kayba_block_keeps_issue_and_insight_through_an_update_and_numbers_as_kayba() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("CLAUDE.md");
    let host = |inner: &str| format!("# Service\n\n{START}\n{inner}\n{END}\n\nMore prose.\n");
    std::fs::write(
        &claude,
        host("## context\n- [context-00001]\n  Keywords: reading\n  Issue: Agents answer too early\n  Insight: Read the whole question.\n\n## harness\n- [harness-00002]\n  Keywords: tests\n  Issue: The runner needs PYTHONPATH\n\n- [harness-00003]\n  Keywords: builds\n  Issue: The cache goes stale"),
    )
    .unwrap();
    let batch = dir.path().join("batch.json");
    std::fs::write(
        &batch,
        r#"{"reasoning": "r", "operations": [
            {"type": "UPDATE", "skill_id": "harness-00002", "insight": "Export PYTHONPATH in the test script."},
            {"type": "UPDATE", "skill_id": "harness-00003", "issue": "The build cache goes stale after a branch switch"},
            {"type": "ADD", "section": "harness", "issue": "Tool calls hang"},
            {"type": "ADD", "section": "context", "issue": "Dates mislead", "insight": "Say the time zone."}]}"#,
    )
    .unwrap();
    let o = cmd("ace-apply")
        .arg(&claude)
        .arg(&batch)
        .arg("--in-place")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    // The new skills' counters, at 0, are all the block has no place for.
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning["))
        .collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    assert!(
        warnings
            .iter()
            .all(|w| w.contains("`helpful`") || w.contains("`harmful`")),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&claude).unwrap(),
        host("## context\n- [context-00001]\n  Keywords: reading\n  Issue: Agents answer too early\n  Insight: Read the whole question.\n\n- [context-00005]\n  Keywords: context\n  Issue: Dates mislead\n  Insight: Say the time zone.\n\n## harness\n- [harness-00002]\n  Keywords: tests\n  Issue: The runner needs PYTHONPATH\n  Insight: Export PYTHONPATH in the test script.\n\n- [harness-00003]\n  Keywords: builds\n  Issue: The build cache goes stale after a branch switch\n\n- [harness-00004]\n  Keywords: harness\n  Issue: Tool calls hang")
    );
}

/// A CLAUDE.md that Code Engine ACE's plugin 3.3.2 set up (`/ace-claude-init`
/// appended its instructions between versioned markers), with the user's
/// prose around them and CRLF line breaks.
const CODE_ENGINE_V3: &str = "# billing-api\r\n\r\nOur conventions come first.\r\n\r\n<!-- ACE_SECTION_START v3.3.2 -->\r\n# ACE Orchestration Plugin - Automatic Learning Cycle\r\n\r\n## ✅ Step 2: If Trigger Found → INVOKE RETRIEVAL SKILL FIRST\r\n```\r\nSkill: ace-orchestration:ace-playbook-retrieval\r\n```\r\n- **Implementation**: implement, build, create, add, develop, write\r\n<!-- ACE_SECTION_END v3.3.2 -->\r\n\r\n## Deploying\r\n\r\nTag a release; CI does the rest.";

#[test]
fn a_code_engine_v3_block_gets_the_current_markers_and_the_prose_stays_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("CLAUDE.md");
    std::fs::write(&claude, CODE_ENGINE_V3).unwrap();
    // Read as a managed block: its instructions are no entries, said once.
    cmd("ace-validate")
        .arg(&claude)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "CLAUDE.md:5:1: warning[ACE088]: Code Engine ACE's block v3.3.2 holds that plugin's instructions",
        ));
    cmd("ace-convert")
        .arg(playbook(dir.path()))
        .arg("--into")
        .arg(&claude)
        .assert()
        .success();
    let out = std::fs::read_to_string(&claude).unwrap();
    let start = CODE_ENGINE_V3.find("<!-- ACE_SECTION_START").unwrap();
    let end_marker = "<!-- ACE_SECTION_END v3.3.2 -->";
    let after = &CODE_ENGINE_V3[CODE_ENGINE_V3.find(end_marker).unwrap() + end_marker.len()..];
    assert!(out.starts_with(&CODE_ENGINE_V3[..start]), "{out}");
    assert!(out.ends_with(after), "{out}");
    let block = &out[start..out.len() - after.len()];
    assert!(block.starts_with(&format!("{START}\r\n")), "{block}");
    assert!(block.ends_with(END), "{block}");
    assert!(!out.contains("ACE_SECTION") && !out.contains("ace-orchestration"));
    // The file now reads as the playbook, in the prompt style.
    assert_eq!(super::entries_of(&claude).len(), 5);
    // And again: nothing changes.
    cmd("ace-convert")
        .arg(playbook(dir.path()))
        .arg("--into")
        .arg(&claude)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), out);
}
