//! kayba's ace-framework as the judge: its own skillbook code (0.13.0 and
//! 0.8.9, unpacked by tests/kayba/install.sh into `ACE_KAYBA`) loads what
//! the tools write, makes the files they read, and applies the update
//! batches they apply (tests/kayba/oracle.py).

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use serde_json::Value;

use super::{convert, validate};

/// The folder the releases are unpacked in; a test that needs it fails
/// without it.
fn releases() -> PathBuf {
    let root = std::env::var_os("ACE_KAYBA")
        .map(PathBuf::from)
        .expect("this test needs ACE_KAYBA: `bash tests/kayba/install.sh DIR`, then ACE_KAYBA=DIR");
    for v in ["0.13.0", "0.8.9"] {
        assert!(
            root.join(v).join("ace").is_dir(),
            "ACE_KAYBA={} has no {v}/ace; run tests/kayba/install.sh there",
            root.display()
        );
    }
    root
}

/// Runs the oracle: `Ok(stdout)`, or `Err(stderr)` when kayba raised.
fn oracle(version: &str, args: &[&Path]) -> Result<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kayba/oracle.py");
    let mut cmd = Process::new("python3");
    cmd.arg(script).arg(releases()).arg(version);
    let (command, paths) = args.split_first().expect("a command");
    cmd.arg(command);
    cmd.args(paths.iter());
    let out = cmd.output().expect("python3 runs");
    match out.status.code() {
        Some(0) => Ok(String::from_utf8(out.stdout).unwrap()),
        Some(3) => Err(String::from_utf8(out.stderr).unwrap()),
        _ => panic!(
            "the oracle failed on {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// What kayba `version` loads of `file`: skills, active skills, counters.
fn load(version: &str, file: &Path) -> Value {
    let text = oracle(version, &[Path::new("load"), file])
        .unwrap_or_else(|e| panic!("kayba {version} refuses {}: {e}", file.display()));
    serde_json::from_str(&text).unwrap()
}

/// `file` converted to its own format `to` is the same bytes.
fn rewrites_exactly(file: &Path, to: &str, dir: &Path, what: &str) {
    let again = dir.join("again");
    convert()
        .arg(file)
        .args(["--to", to, "-o"])
        .arg(&again)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(file).unwrap(),
        std::fs::read(&again).unwrap(),
        "{what}: a no-op rewrite changed the file"
    );
}

/// The entries ace-tools reads in `file`.
fn entries(file: &Path) -> Vec<Value> {
    let out = convert().arg(file).args(["--to", "json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["playbook"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn made(dir: &Path) -> Vec<PathBuf> {
    oracle("0.13.0", &[Path::new("make"), dir]).unwrap();
    ["made.json", "many.json", "empty.json"]
        .iter()
        .map(|n| dir.join(n))
        .collect()
}

#[test]
#[ignore = "needs ACE_KAYBA"]
fn skillbooks_kayba_0_13_makes_validate_clean_rewrite_exactly_and_convert() {
    let dir = tempfile::tempdir().unwrap();
    for file in made(dir.path()) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let out = validate()
            .arg(&file)
            .args(["--output-format", "json"])
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        let errors: Vec<&Value> = report
            .as_array()
            .expect("a list of findings")
            .iter()
            .filter(|d| d["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert_eq!(out.status.code(), Some(0), "{name}");
        rewrites_exactly(&file, "skillbook", dir.path(), &name);
        let kayba = load("0.13.0", &file);
        let md = dir.path().join(format!("{name}.md"));
        convert()
            .arg(&file)
            .args(["--to", "markdown", "-o"])
            .arg(&md)
            .assert()
            .success();
        assert_eq!(
            entries(&md).len() as u64,
            kayba["skills"].as_u64().unwrap(),
            "{name}: every skill converts to markdown"
        );
    }
}

#[test]
#[ignore = "needs ACE_KAYBA and ACE_CORPUS"]
fn every_corpus_markdown_playbook_loads_in_kayba_0_13_with_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for path in files(&ace_tests::corpus_dir("markdown-playbook")) {
        let out = dir.path().join("skillbook.json");
        convert()
            .arg(&path)
            .args(["--to", "skillbook", "-o"])
            .arg(&out)
            .assert()
            .success();
        let kayba = load("0.13.0", &out);
        assert_eq!(
            kayba["skills"].as_u64().unwrap(),
            entries(&path).len() as u64,
            "{}",
            path.display()
        );
        n += 1;
    }
    assert_eq!(n, 13, "the corpus's markdown playbooks");
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// The counters of each skill of an older-era file, as its own JSON says
/// (kayba 0.8.9 reads `skills` only; a `bullets` file is read here).
fn old_counts(file: &Path) -> serde_json::Map<String, Value> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let skills = v.get("skills").or_else(|| v.get("bullets")).unwrap();
    skills
        .as_object()
        .unwrap()
        .iter()
        .map(|(id, s)| {
            let n = |k: &str| s.get(k).and_then(Value::as_i64).unwrap_or(0);
            (
                id.clone(),
                serde_json::json!([n("helpful"), n("harmful"), n("neutral")]),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs ACE_KAYBA and ACE_CORPUS"]
fn every_older_corpus_skillbook_migrates_to_v2_with_every_skill_and_counter() {
    let dir = tempfile::tempdir().unwrap();
    let olds: Vec<PathBuf> = files(&ace_tests::corpus_dir("other"))
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("kayba-ai__") && n.ends_with(".json")
        })
        .collect();
    assert_eq!(olds.len(), 11);
    for old in olds {
        let name = old.file_name().unwrap().to_string_lossy().into_owned();
        let v2 = dir.path().join("v2.json");
        convert()
            .arg(&old)
            .args(["--to", "skillbook", "--skillbook-version", "2", "-o"])
            .arg(&v2)
            .assert()
            .success();
        let kayba = load("0.13.0", &v2);
        let want = old_counts(&old);
        assert_eq!(kayba["counts"], Value::Object(want.clone()), "{name}");
        if std::fs::read_to_string(&old)
            .unwrap()
            .contains("\"skills\"")
        {
            // What kayba 0.8.9 itself reads of the file.
            assert_eq!(load("0.8.9", &old)["counts"], Value::Object(want), "{name}");
        }
        // And back to the era it came from, for a user pinned to it.
        let back = dir.path().join("back.json");
        convert()
            .arg(&v2)
            .args(["--to", "skillbook", "--skillbook-version", "0.8", "-o"])
            .arg(&back)
            .assert()
            .success();
        assert_eq!(load("0.8.9", &back)["skills"], kayba["skills"], "{name}");
    }
}

fn batches(version: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kayba/batches")
        .join(version);
    files(&dir)
}

/// The skillbook kayba `version` loads from `file`, as its `to_dict`
/// gives it, timestamps aside.
fn dump(version: &str, file: &Path) -> Value {
    let text = oracle(version, &[Path::new("dump"), file])
        .unwrap_or_else(|e| panic!("kayba {version} refuses {}: {e}", file.display()));
    serde_json::from_str(&text).unwrap()
}

/// Each batch applied by ace-apply and by kayba's own `apply_update` to a
/// skillbook that release made gives the skillbook kayba loads alike,
/// timestamps aside; a batch kayba raises on is refused whole.
fn batches_apply_as_kayba_does(version: &str, book: &Path, dir: &Path) {
    let list = batches(version);
    assert!(list.len() >= 6, "{version}: {list:?}");
    for batch in list {
        let name = batch.file_stem().unwrap().to_string_lossy().into_owned();
        let theirs = dir.join(format!("{version}-{name}.kayba.json"));
        let ours = dir.join(format!("{version}-{name}.ours.json"));
        let kayba = oracle(version, &[Path::new("apply"), book, &batch, &theirs]);
        let out = Process::new(assert_cmd::cargo::cargo_bin("ace-apply"))
            .arg(book)
            .arg(&batch)
            .arg("-o")
            .arg(&ours)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        match kayba {
            Err(raised) => {
                assert_eq!(
                    out.status.code(),
                    Some(1),
                    "{version} {name}: kayba raised {raised}; {stderr}"
                );
                assert!(stderr.contains("rejected"), "{version} {name}: {stderr}");
                // The refused batch changed nothing of the skillbook.
                assert_eq!(
                    dump(version, &ours),
                    dump(version, book),
                    "{version} {name}"
                );
            }
            Ok(_) => {
                assert!(out.status.success(), "{version} {name}: {stderr}");
                assert_eq!(
                    dump(version, &ours),
                    dump(version, &theirs),
                    "{version} {name}: ace-apply's result differs from kayba's apply_update"
                );
                // ace-diff writes the change as a batch of the skillbook's
                // generation, which kayba applies to the same result.
                let out = Process::new(assert_cmd::cargo::cargo_bin("ace-diff"))
                    .arg(book)
                    .arg(&theirs)
                    .args(["--output-format", "kayba-batch"])
                    .output()
                    .unwrap();
                assert!(
                    out.status.code().is_some_and(|c| c <= 1),
                    "{version} {name}"
                );
                let written = dir.join(format!("{version}-{name}.diff.json"));
                std::fs::write(&written, &out.stdout).unwrap();
                let again = dir.join(format!("{version}-{name}.again.json"));
                oracle(version, &[Path::new("apply"), book, &written, &again]).unwrap_or_else(
                    |e| panic!("{version} {name}: kayba refuses ace-diff's batch: {e}"),
                );
                assert_eq!(
                    dump(version, &again),
                    dump(version, &theirs),
                    "{version} {name}: ace-diff's batch applied by kayba gives another skillbook"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs ACE_KAYBA"]
fn update_batches_apply_to_a_v2_skillbook_as_kayba_0_13_applies_them() {
    let dir = tempfile::tempdir().unwrap();
    let book = made(dir.path()).remove(0);
    batches_apply_as_kayba_does("0.13.0", &book, dir.path());
}

#[test]
#[ignore = "needs ACE_KAYBA"]
fn update_batches_apply_to_a_0_8_skillbook_as_kayba_0_8_applies_them() {
    let dir = tempfile::tempdir().unwrap();
    oracle("0.8.9", &[Path::new("make"), dir.path()]).unwrap();
    let book = dir.path().join("made08.json");
    batches_apply_as_kayba_does("0.8.9", &book, dir.path());
}

/// The counters of each entry ace-tools reads in `file`, by ID.
fn counters(file: &Path) -> Vec<(String, Value, Value)> {
    let mut v: Vec<_> = entries(file)
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap_or_default().to_owned(),
                e["helpful"].clone(),
                e["harmful"].clone(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// A batch applied to the same playbook in another format moves the same
/// counters as kayba's own result holds.
#[test]
#[ignore = "needs ACE_KAYBA"]
fn update_batches_apply_to_other_formats_through_the_same_delta() {
    let dir = tempfile::tempdir().unwrap();
    let book = made(dir.path()).remove(0);
    // Formats that keep kayba's IDs (a skill playbook numbers its own).
    for (to, ext) in [
        ("markdown", "md"),
        ("vagenda-json", "json"),
        ("agents-md", "md"),
    ] {
        let other = dir.path().join(format!("made.{to}.{ext}"));
        convert()
            .arg(&book)
            .args(["--to", to, "-o"])
            .arg(&other)
            .assert()
            .success();
        for name in ["tag", "unknown"] {
            let batch = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/kayba/batches/0.13.0")
                .join(format!("{name}.json"));
            let theirs = dir.path().join(format!("{to}-{name}.kayba.json"));
            oracle("0.13.0", &[Path::new("apply"), &book, &batch, &theirs]).unwrap();
            let ours = dir.path().join(format!("{to}-{name}.{ext}"));
            let out = Process::new(assert_cmd::cargo::cargo_bin("ace-apply"))
                .arg(&other)
                .arg(&batch)
                .arg("-o")
                .arg(&ours)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{to} {name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(counters(&ours), counters(&theirs), "{to} {name}");
        }
    }
}

/// Each skill kayba's markdown shows of `file`: `[id, helpful, harmful,
/// neutral]` of the active ones, as kayba loads the skillbook.
fn active_counts(version: &str, book: &Path) -> Vec<Value> {
    let d = dump(version, book);
    let mut v: Vec<Value> = d["skills"]
        .as_object()
        .unwrap()
        .values()
        .filter(|s| {
            s.get("active")
                .or(s.get("status"))
                .is_none_or(|a| a == true || a == "active")
        })
        .map(|s| {
            let n = |a: &str, b: &str| s.get(a).or(s.get(b)).cloned().unwrap_or(Value::Null);
            serde_json::json!([
                s["id"],
                n("helpful_count", "helpful"),
                n("harmful_count", "harmful"),
                n("neutral_count", "neutral")
            ])
        })
        .collect();
    v.sort_by_key(|x| x[0].as_str().unwrap_or_default().to_owned());
    v
}

fn read_counts(file: &Path) -> Vec<Value> {
    let mut v: Vec<Value> = entries(file)
        .iter()
        .map(|e| serde_json::json!([e["id"], e["helpful"], e["harmful"], e["neutral"]]))
        .collect();
    v.sort_by_key(|x| x[0].as_str().unwrap_or_default().to_owned());
    v
}

/// kayba's own markdown of a skillbook (its export step of 0.8.9 and
/// 0.13.0, and 0.13's `as_prompt`) reads with every active skill, the
/// export with its counters, and is written back byte for byte.
#[test]
#[ignore = "needs ACE_KAYBA"]
fn kaybas_markdown_exports_read_with_every_skill_and_rewrite_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut books: Vec<(&str, PathBuf)> = made(dir.path())
        .into_iter()
        .filter(|b| !b.ends_with("empty.json"))
        .map(|b| ("0.13.0", b))
        .collect();
    oracle("0.8.9", &[Path::new("make"), dir.path()]).unwrap();
    books.push(("0.8.9", dir.path().join("made08.json")));
    for (version, book) in books {
        let stem = book.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("md-{version}-{stem}"));
        oracle(version, &[Path::new("export"), &book, &out]).unwrap();
        let want = active_counts(version, &book);
        let mut shapes = vec![("export.md", "export")];
        if version == "0.13.0" {
            shapes.push(("prompt.md", "prompt"));
        }
        for (name, shape) in shapes {
            let file = out.join(name);
            let what = format!("{version} {stem} {name}");
            let got = read_counts(&file);
            assert_eq!(got.len(), want.len(), "{what}");
            if shape == "export" {
                assert_eq!(got, want, "{what}: the counters kayba exported");
            } else {
                let ids = |v: &[Value]| v.iter().map(|x| x[0].clone()).collect::<Vec<_>>();
                assert_eq!(ids(&got), ids(&want), "{what}");
            }
            rewrites_exactly(&file, "kayba-md", dir.path(), &what);
        }
    }
}

/// The corpus's three kayba markdown exports read with every skill, its
/// counters and fields, and are written back byte for byte.
#[test]
#[ignore = "needs ACE_CORPUS"]
fn the_corpus_kayba_markdown_exports_read_with_every_skill() {
    let dir = tempfile::tempdir().unwrap();
    let other = ace_tests::corpus_dir("other");
    for (name, n, counted) in [
        ("kayba-ai__agentic-context-engine@841446c__examples__openclaw__out__ace_skillbook.md", 3, true),
        ("kayba-ai__agentic-context-engine@7540b7b__examples__openclaw__out__ace_skillbook.md", 5, true),
        ("kayba-ai__agentic-context-engine__examples__agentic-system-prompting__skills_20260318_150822.md", 6, false),
    ] {
        let path = other.join(name);
        let got = entries(&path);
        assert_eq!(got.len(), n, "{name}");
        for e in &got {
            assert!(!e["content"].as_str().unwrap_or_default().is_empty(), "{name}: {e}");
            assert!(e["extra"]["justification"].is_string(), "{name}: {e}");
            assert!(e["evidence"].is_array(), "{name}: {e}");
            assert_eq!(e["helpful"].is_i64(), counted, "{name}: {e}");
            assert_eq!(e["neutral"].is_i64(), counted, "{name}: {e}");
        }
        rewrites_exactly(&path, "kayba-md", dir.path(), name);
    }
    // Counters as the file says: 0.8's `*Tags: helpful=5, ...*`.
    let later = entries(&other.join(
        "kayba-ai__agentic-context-engine@7540b7b__examples__openclaw__out__ace_skillbook.md",
    ));
    let style = later
        .iter()
        .find(|e| e["id"] == "conversation_style-00003")
        .unwrap();
    assert_eq!(style["helpful"], 5);
    assert_eq!(style["section"], "conversation_style");
}

#[test]
#[ignore = "needs ACE_KAYBA"]
fn a_skillbook_deduplicated_and_pruned_loads_in_kayba_0_13_as_ace_tools_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("p.md");
    std::fs::write(
        &md,
        "## STRATEGIES\n\
         [str-00001] helpful=5 harmful=0 :: Read the API documentation before calling an endpoint.\n\
         [str-00002] helpful=0 harmful=6 :: Guess the parameters of an endpoint from its name.\n\
         [str-00003] helpful=2 harmful=0 :: Check the HTTP status code before parsing the body of a response.\n\
         [str-00004] helpful=1 harmful=1 :: Check the HTTP status code before parsing the body of each response.\n\
         [str-00005] helpful=0 harmful=0 :: Page through every list endpoint.\n",
    )
    .unwrap();
    let book = dir.path().join("skillbook.json");
    convert()
        .arg(&md)
        .args(["--to", "skillbook", "--now", "2026-01-02T00:00:00Z", "-o"])
        .arg(&book)
        .assert()
        .success();
    let out = dir.path().join("curated.json");
    let o = assert_cmd::Command::cargo_bin("ace-apply")
        .unwrap()
        .arg(&book)
        .args([
            "--dedup",
            "--prune",
            "--max-entries",
            "2",
            "--now",
            "2026-01-02T00:00:00Z",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let loaded = active_counts("0.13.0", &out);
    assert_eq!(loaded, read_counts(&out), "kayba and ace-tools disagree");
    // The duplicate's counters are on the skill kept; the harmful skill
    // and the lowest left are gone.
    assert_eq!(
        loaded,
        vec![
            serde_json::json!(["str-00001", 5, 0, 0]),
            serde_json::json!(["str-00003", 3, 1, 0])
        ]
    );
    // A pair kayba's SkillManager decided to keep apart is not merged.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&book).unwrap()).unwrap();
    v["similarity_decisions"] = serde_json::json!({"str-00003,str-00004": {
        "decision": "KEEP", "reasoning": "different scopes",
        "decided_at": "2026-01-01T00:00:00Z", "similarity_at_decision": 0.9}});
    let kept = dir.path().join("kept.json");
    std::fs::write(&kept, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = assert_cmd::Command::cargo_bin("ace-apply")
        .unwrap()
        .arg(&kept)
        .args(["--dedup", "--now", "2026-01-02T00:00:00Z"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("--dedup: merged"));
    assert_eq!(
        o.stdout,
        std::fs::read(&kept).unwrap(),
        "nothing to merge, nothing changed"
    );
}

/// The kayba style of a managed block is kayba 0.13's own
/// `Skillbook.as_prompt()`, byte for byte, on skillbooks 0.13's API made:
/// the active skills, context then harness.
#[test]
#[ignore = "needs ACE_KAYBA"]
fn a_kayba_style_block_is_kaybas_own_as_prompt() {
    let dir = tempfile::tempdir().unwrap();
    for file in made(dir.path()) {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("export-{name}"));
        oracle("0.13.0", &[Path::new("export"), &file, &out]).unwrap();
        let want = std::fs::read_to_string(out.join("prompt.md")).unwrap();
        let claude = dir.path().join(format!("{name}-CLAUDE.md"));
        convert()
            .arg(&file)
            .arg("--into")
            .arg(&claude)
            .args(["--to", "kayba", "-q"])
            .assert()
            .code(0);
        let text = std::fs::read_to_string(&claude).unwrap();
        let start = "<!-- ACE:START - Do not edit manually -->\n";
        let block =
            &text[text.find(start).unwrap() + start.len()..text.find("<!-- ACE:END -->").unwrap()];
        assert_eq!(block.trim_end_matches('\n'), want, "{name}");
    }
}

/// ace-diff's batch between two v2 skillbooks, applied by kayba 0.13, then
/// one more ADD of kayba's own: its `next_id` is past every ID, so the new
/// skill takes a new ID. The new skillbook lists a context skill numbered
/// after a harness one before it, as a file sorted by section does.
#[test]
#[ignore = "needs ACE_KAYBA"]
fn a_batch_ace_diff_writes_leaves_kaybas_next_id_past_every_id() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = d.join("old.json");
    convert()
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kayba-skillbook.json"))
        .args(["--to", "skillbook", "--skillbook-version", "2", "-q", "-o"])
        .arg(&old)
        .assert()
        .success();
    let grow = d.join("grow.json");
    std::fs::write(&grow, r#"{"reasoning": "r", "operations": [
        {"type": "ADD", "section": "harness", "issue": "Tool calls hang.", "insight": "Set a timeout on each tool call."},
        {"type": "ADD", "section": "context", "issue": "Premises mislead.", "insight": "Check the premise before deducing from it."}]}"#).unwrap();
    let grown = d.join("grown.json");
    oracle("0.13.0", &[Path::new("apply"), &old, &grow, &grown]).unwrap();
    // The same skillbook, its new skills listed context first.
    let mut new: Value = serde_json::from_str(&std::fs::read_to_string(&grown).unwrap()).unwrap();
    let skills = new["skills"].as_object().unwrap().clone();
    let mut keys: Vec<&String> = skills.keys().collect();
    keys.sort_by_key(|k| (k.starts_with("harness"), k.to_string()));
    new["skills"] = Value::Object(
        keys.into_iter()
            .map(|k| (k.clone(), skills[k].clone()))
            .collect(),
    );
    let new_path = d.join("new.json");
    std::fs::write(&new_path, serde_json::to_string_pretty(&new).unwrap()).unwrap();
    let out = assert_cmd::Command::cargo_bin("ace-diff")
        .unwrap()
        .arg(&old)
        .arg(&new_path)
        .args(["--output-format", "kayba-batch"])
        .output()
        .unwrap();
    let batch = d.join("diff.json");
    std::fs::write(&batch, &out.stdout).unwrap();
    let via = d.join("via.json");
    oracle("0.13.0", &[Path::new("apply"), &old, &batch, &via]).unwrap();
    let more = d.join("more.json");
    std::fs::write(&more, r#"{"reasoning": "r", "operations": [{"type": "ADD", "section": "context", "issue": "Lists are paged.", "insight": "Page through every result before counting."}]}"#).unwrap();
    let after = d.join("after.json");
    oracle("0.13.0", &[Path::new("apply"), &via, &more, &after]).unwrap();
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&after).unwrap()).unwrap();
    let ids: Vec<&String> = after["skills"].as_object().unwrap().keys().collect();
    assert_eq!(ids.len(), skills.len() + 1, "{ids:?}");
    let mut listed: Vec<&str> = after["sections"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|l| l.as_array().unwrap().iter().map(|v| v.as_str().unwrap()))
        .collect();
    listed.sort_unstable();
    let before = listed.len();
    listed.dedup();
    assert_eq!(listed.len(), before, "a skill listed twice: {listed:?}");
    let next = after["next_id"].as_u64().unwrap();
    for id in ids {
        let n: u64 = id.rsplit('-').next().unwrap().parse().unwrap();
        assert!(n <= next, "{id} past next_id {next}");
    }
}

/// `text` with each `{section}-NNNNN` ID that `base` does not hold as
/// `NEW`: a markdown shape keeps no `next_id`, so a skill added to it is
/// numbered past the IDs the file shows, where kayba counts past every ID
/// it ever gave (removed and inactive skills too).
fn new_ids_masked(text: &str, base: &str) -> String {
    let is_id = |w: &str| {
        w.rsplit_once('-').is_some_and(|(p, n)| {
            !p.is_empty() && n.len() == 5 && n.bytes().all(|b| b.is_ascii_digit())
        })
    };
    let words = |t: &str| -> std::collections::HashSet<String> {
        t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .filter(|w| is_id(w))
            .map(str::to_owned)
            .collect()
    };
    let known = words(base);
    let mut out = text.to_owned();
    for w in words(text).difference(&known) {
        out = out.replace(w.as_str(), "NEW");
    }
    out
}

/// Each of kayba's batches, applied by ace-apply to kayba 0.13's markdown
/// export, to its `as_prompt` and to a kayba-style block in CLAUDE.md,
/// gives what kayba's own export and `as_prompt` print once kayba applied
/// it to the skillbook: a skill that gains an insight keeps its issue, an
/// issue updated alone leaves it without one, and new skills are numbered
/// by kayba's rule. A batch kayba raises on changes nothing.
#[test]
#[ignore = "needs ACE_KAYBA"]
fn batches_applied_to_kaybas_markdown_and_a_kayba_block_print_as_kayba_prints_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let book = made(d).remove(0);
    let base = d.join("base");
    oracle("0.13.0", &[Path::new("export"), &book, &base]).unwrap();
    let mut gained = false;
    for batch in batches("0.13.0") {
        let name = batch.file_stem().unwrap().to_string_lossy().into_owned();
        let theirs = d.join(format!("{name}.kayba.json"));
        let kayba = oracle("0.13.0", &[Path::new("apply"), &book, &batch, &theirs]);
        let want = d.join(format!("want-{name}"));
        if kayba.is_ok() {
            oracle("0.13.0", &[Path::new("export"), &theirs, &want]).unwrap();
        }
        let claude = d.join(format!("{name}-CLAUDE.md"));
        std::fs::write(&claude, "# Project\n\nProse.\n").unwrap();
        convert()
            .arg(&book)
            .arg("--into")
            .arg(&claude)
            .args(["--to", "kayba", "-q"])
            .assert()
            .success();
        let before = std::fs::read_to_string(&claude).unwrap();
        let mut runs = Vec::new();
        for shape in ["export.md", "prompt.md"] {
            let out = d.join(format!("{name}-{shape}"));
            let o = Process::new(assert_cmd::cargo::cargo_bin("ace-apply"))
                .arg(base.join(shape))
                .arg(&batch)
                .arg("-o")
                .arg(&out)
                .output()
                .unwrap();
            runs.push((shape, o, Some(out)));
        }
        let o = Process::new(assert_cmd::cargo::cargo_bin("ace-apply"))
            .arg(&claude)
            .arg(&batch)
            .arg("--in-place")
            .output()
            .unwrap();
        runs.push(("CLAUDE.md", o, None));
        for (shape, o, out) in runs {
            let stderr = String::from_utf8_lossy(&o.stderr);
            if let Err(raised) = &kayba {
                assert_eq!(
                    o.status.code(),
                    Some(1),
                    "{name} {shape}: kayba raised {raised}; {stderr}"
                );
                continue;
            }
            assert!(o.status.success(), "{name} {shape}: {stderr}");
            // What the file shows is what it meant: no issue read as
            // changed, no new skill's active status reported lost. The
            // counters and insight source the prompt has no place for
            // are losses.
            for noise in ["ACE104", "ACE105", "`status`"] {
                if shape != "export.md" || noise == "ACE105" {
                    assert!(!stderr.contains(noise), "{name} {shape}: {stderr}");
                }
            }
            let (ours, want, base) = match out {
                Some(out) => (
                    std::fs::read_to_string(out).unwrap(),
                    std::fs::read_to_string(want.join(shape)).unwrap(),
                    std::fs::read_to_string(base.join(shape)).unwrap(),
                ),
                None => {
                    let text = std::fs::read_to_string(&claude).unwrap();
                    let start = "<!-- ACE:START - Do not edit manually -->\n";
                    let inner = |t: &str| {
                        t[t.find(start).unwrap() + start.len()..t.find("<!-- ACE:END -->").unwrap()]
                            .trim_end_matches('\n')
                            .to_owned()
                    };
                    (
                        inner(&text),
                        std::fs::read_to_string(want.join("prompt.md")).unwrap(),
                        inner(&before),
                    )
                }
            };
            gained |= name == "gain" && want_has_issue_and_insight(&ours);
            assert_eq!(
                new_ids_masked(&ours, &base),
                new_ids_masked(&want, &base),
                "{name} {shape}"
            );
        }
        if kayba.is_err() {
            assert_eq!(std::fs::read_to_string(&claude).unwrap(), before, "{name}");
        }
    }
    assert!(gained, "the batch where a skill gains an insight ran");
}

/// Whether the harness skill of kayba's made skillbook has its issue and
/// the insight `gain.json` gives it.
fn want_has_issue_and_insight(text: &str) -> bool {
    text.contains("The test runner needs PYTHONPATH set")
        && text.contains("Export PYTHONPATH in the test script.")
}

/// ace-view's token total for a skillbook is what kayba's agents are
/// shown: the tokens of 0.13's own `as_prompt()`, with the file's beside.
#[test]
#[ignore = "needs ACE_KAYBA"]
fn ace_view_counts_the_tokens_of_kaybas_own_as_prompt() {
    let dir = tempfile::tempdir().unwrap();
    for file in made(dir.path()) {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("export-{name}"));
        oracle("0.13.0", &[Path::new("export"), &file, &out]).unwrap();
        let prompt = std::fs::read_to_string(out.join("prompt.md")).unwrap();
        let enc = ace_tokens::Encoding::default();
        let file_tokens = enc.count(&std::fs::read_to_string(&file).unwrap());
        let o = Process::new(assert_cmd::cargo::cargo_bin("ace-view"))
            .arg(&file)
            .args(["-o", "-"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}");
        let html = String::from_utf8(o.stdout).unwrap();
        // The page groups thousands with commas.
        let want = format!(
            "<dt>Tokens the agent reads (cl100k_base)</dt><dd>{} <small>(kayba&#39;s Skillbook.as_prompt(); the file: {})</small></dd>",
            enc.count(&prompt),
            file_tokens
        );
        let html = html.replace(',', "");
        assert!(html.contains(&want), "{name}: {want}");
    }
}
