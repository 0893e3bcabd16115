//! DannyMac180/ACE's playbook dump and delta operations, judged by its own
//! code: `ace/core/schema.py`, `merge.py` and its SQLite store
//! (tests/dannymac, at a16ab50) under pydantic, as `ace playbook dump`,
//! `ace playbook import` and `ace commit` run them (tests/dannymac/judge.py).

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use serde_json::Value;

const NOW: &str = "2026-03-02T10:15:00Z";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn venv() -> PathBuf {
    let venv = PathBuf::from(
        std::env::var("ACE_DANNYMAC_VENV")
            .expect("ACE_DANNYMAC_VENV: make it with tests/dannymac/install.sh DIR and export DIR"),
    );
    assert!(
        venv.join("bin/python").exists(),
        "ACE_DANNYMAC_VENV={} has no python: run tests/dannymac/install.sh on it",
        venv.display()
    );
    venv
}

/// The judge and DannyMac180's modules, copied out of the repository once
/// their git blob IDs show them unchanged from its commit a16ab50.
fn judge_in(dir: &Path) -> PathBuf {
    let root = dir.join("judge");
    for (file, blob) in [
        (
            "ace/core/schema.py",
            "1eaadd2b48808684253df522a24f24fa00b32f66",
        ),
        (
            "ace/core/merge.py",
            "b8a6a8d21d624d06ce7b4d3c8b9863eb15ee4b45",
        ),
        (
            "ace/core/storage/db.py",
            "0937bea8c7d93830bd1824b9aac729b5060f174e",
        ),
        (
            "ace/core/storage/bullet_store.py",
            "6726bb0a27a37a9f83cb979a72fe9406e9061b5d",
        ),
        ("ace.db", "533686c2678be164acabe99a798eafaa2769bff6"),
    ] {
        let from = repo().join("tests/dannymac").join(file);
        let out = Process::new("git")
            .arg("hash-object")
            .arg(&from)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            blob,
            "{file} is not DannyMac180/ACE's"
        );
    }
    copy_tree(&repo().join("tests/dannymac"), &root);
    root
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// `judge.py ARGS`, run in `dir`, which must succeed.
fn judge(dir: &Path, args: &[&Path]) {
    let root = dir.join("judge");
    let work = tempfile::tempdir_in(dir).unwrap();
    let out = Process::new(venv().join("bin/python"))
        .arg(root.join("judge.py"))
        .args(args)
        .current_dir(work.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "judge.py {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn cmd(bin: &str) -> Command {
    let mut c = Command::cargo_bin(bin).unwrap();
    c.env_remove("SOURCE_DATE_EPOCH");
    c
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures/dannymac").join(name)
}

/// Their dump of their own database: `ace playbook dump --out` of the
/// `ace.db` their repository holds (eleven seed bullets, filed under the
/// old section names that `SECTION_MIGRATION_MAP` maps).
fn their_dump(dir: &Path) -> PathBuf {
    judge_in(dir);
    let out = dir.join("their.json");
    judge(dir, &[Path::new("dump"), &dir.join("judge/ace.db"), &out]);
    out
}

#[test]
#[ignore = "needs ACE_DANNYMAC_VENV"]
fn their_dump_reads_with_every_bullet_and_a_rewrite_is_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let dump = their_dump(dir.path());
    let text = read(&dump);
    let pb = ace_registry::read(
        ace_registry::Registry::builtin().detect(Some(&dump), &text),
        &text,
    )
    .unwrap()
    .playbook;
    let theirs: Value = serde_json::from_str(&text).unwrap();
    let bullets = theirs["bullets"].as_array().unwrap();
    assert_eq!(bullets.len(), 11);
    assert_eq!(pb.entries.len(), 11);
    for (e, b) in pb.entries.iter().zip(bullets) {
        assert_eq!(e.id, b["id"].as_str().unwrap());
        assert_eq!(e.content, b["content"].as_str().unwrap());
        assert_eq!(e.helpful, b["helpful"].as_i64());
        assert_eq!(e.harmful, b["harmful"].as_i64());
        assert_eq!(
            e.created_at
                .as_deref()
                .map(|t| t.replacen('T', " ", 1))
                .as_deref(),
            b["added_at"].as_str()
        );
    }
    cmd("ace-validate").arg(&dump).assert().success();
    let out = dir.path().join("ours.json");
    cmd("ace-convert")
        .arg(&dump)
        .args(["--to", "dannymac", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(read(&out), text);
}

/// `ace-apply` of ops.json to `playbook` (a copy), and their import,
/// commit and dump of the same delta on `dump`; the bullets each gives.
fn both_apply(dir: &Path, playbook: &Path, dump: &Path) -> (Vec<Value>, Value) {
    cmd("ace-apply")
        .arg(playbook)
        .arg(fixture("ops.json"))
        .args(["--in-place", "--now", NOW])
        .assert()
        .success();
    let theirs = dir.join("their-applied.json");
    judge(
        dir,
        &[Path::new("apply"), dump, &fixture("ops.json"), &theirs],
    );
    let theirs: Value = serde_json::from_str(&read(&theirs)).unwrap();
    let ours = ace_registry::Registry::builtin();
    let text = read(playbook);
    let pb = ace_registry::read(ours.detect(Some(playbook), &text), &text)
        .unwrap()
        .playbook;
    let bullets = pb
        .entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "id": e.id, "content": e.content,
                "helpful": e.helpful, "harmful": e.harmful,
            })
        })
        .collect();
    (bullets, theirs)
}

#[test]
#[ignore = "needs ACE_DANNYMAC_VENV"]
fn each_operation_applies_to_a_dump_as_their_commit_does_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let dump = their_dump(dir.path());
    let ours = dir.path().join("ours.json");
    std::fs::copy(&dump, &ours).unwrap();
    let (_, theirs) = both_apply(dir.path(), &ours, &dump);
    // The one new bullet is stamped with the time of applying: theirs
    // `datetime.utcnow()`, ours `--now`, printed as they print it.
    let their_text = read(&dir.path().join("their-applied.json"));
    let mut theirs = theirs;
    for b in theirs["bullets"].as_array_mut().unwrap() {
        if b["id"] == "trou-0badc0de" {
            let stamped = b["added_at"].as_str().unwrap().to_owned();
            assert_eq!(
                read(&ours).replace("2026-03-02 10:15:00", &stamped),
                their_text
            );
            b["added_at"] = Value::from("2026-03-02 10:15:00");
        }
    }
    let ours_text = read(&ours);
    let ours_value: Value = serde_json::from_str(&ours_text).unwrap();
    assert_eq!(ours_value, theirs, "{ours_text}");
    assert_eq!(theirs["version"], 1);
    // Byte for byte: their printer is json.dump(indent=2), as ours.
    let b: Vec<&Value> = theirs["bullets"].as_array().unwrap().iter().collect();
    assert_eq!(b[0]["helpful"], 2);
    assert_eq!(b[1]["content"], "Only ADD, PATCH and DEPRECATE bullets.");
    assert_eq!(b[1]["helpful"], 0);
    assert_eq!(b[2]["harmful"], 2);
    assert!(!ours_text.ends_with('\n'));
    assert!(ours_text.contains("\"added_at\": \"2026-03-02 10:15:00\""));
}

#[test]
#[ignore = "needs ACE_DANNYMAC_VENV"]
fn each_operation_applies_to_a_markdown_playbook_as_their_commit_does() {
    let dir = tempfile::tempdir().unwrap();
    judge_in(dir.path());
    let md = dir.path().join("playbook.md");
    std::fs::copy(fixture("playbook.md"), &md).unwrap();
    // Their commit runs on the same playbook as a dump.
    let dump = dir.path().join("playbook.json");
    cmd("ace-convert")
        .arg(&md)
        .args(["--to", "dannymac", "--now", NOW, "-o"])
        .arg(&dump)
        .assert()
        .success();
    let (ours, theirs) = both_apply(dir.path(), &md, &dump);
    let theirs: Vec<Value> = theirs["bullets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            serde_json::json!({
                "id": b["id"], "content": b["content"],
                "helpful": b["helpful"], "harmful": b["harmful"],
            })
        })
        .collect();
    let mut ours = ours;
    let mut theirs = theirs;
    let key = |v: &Value| v["id"].as_str().unwrap().to_owned();
    ours.sort_by_key(key);
    theirs.sort_by_key(key);
    assert_eq!(ours, theirs);
}
