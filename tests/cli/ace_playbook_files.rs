//! jmanhype/ace-playbook's files: the bullet list its README documents,
//! read from the corpus, and the trainer's file, loaded by the trainer's
//! own loader (`PlaybookBullet(**bullet)`, with the models of
//! tests/ace_playbook under SQLAlchemy).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn cmd(bin: &str) -> Command {
    let mut c = Command::cargo_bin(bin).unwrap();
    c.env_remove("SOURCE_DATE_EPOCH")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("FORCE_COLOR");
    c
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn the_readme_list_reads_with_every_bullet_and_rewrites_byte_for_byte() {
    let corpus = PathBuf::from(std::env::var("ACE_CORPUS").expect("ACE_CORPUS"));
    let readme = corpus
        .join("other/jmanhype__ace-playbook__.specify__memory__playbooks__README.md.block01.json");
    assert!(readme.exists(), "{} is missing", readme.display());
    let e = crate::entries_of(&readme);
    assert_eq!(e.len(), 2);
    assert_eq!(e[0]["id"], "str-00001");
    assert_eq!(
        (e[0]["helpful"].as_i64(), e[0]["harmful"].as_i64()),
        (Some(5), Some(0))
    );
    assert_eq!(e[1]["section"], "Pitfalls");
    assert_eq!(
        (e[1]["helpful"].as_i64(), e[1]["harmful"].as_i64()),
        (Some(0), Some(3))
    );
    cmd("ace-validate").arg(&readme).assert().success();
    let out = cmd("ace-convert")
        .arg(&readme)
        .args(["--to", "ace-playbook"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, std::fs::read(&readme).unwrap());
}

#[test]
#[ignore = "needs ACE_PLAYBOOK_VENV"]
fn the_trainer_file_and_a_markdown_playbook_written_as_one_load_in_the_trainer() {
    let venv = PathBuf::from(std::env::var("ACE_PLAYBOOK_VENV").expect(
        "ACE_PLAYBOOK_VENV: make it with tests/ace_playbook/install.sh DIR and export DIR",
    ));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let trainer = root.join("tests/fixtures/ace-playbook/trainer.json");
    let dir = tempfile::tempdir().unwrap();
    // A no-op rewrite is the trainer's bytes.
    let out = cmd("ace-convert")
        .arg(&trainer)
        .args(["--to", "ace-playbook"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, std::fs::read(&trainer).unwrap());
    // A markdown playbook written as a trainer file.
    let md = root.join("tests/fixtures/markdown/canonical.md");
    let written = dir.path().join("trained.json");
    cmd("ace-convert")
        .arg(&md)
        .args(["--to", "ace-playbook", "-o"])
        .arg(&written)
        .assert()
        .success();
    for (file, n) in [(&trainer, 2), (&written, crate::entries_of(&md).len())] {
        let load = std::process::Command::new(venv.join("bin/python"))
            .arg(root.join("tests/ace_playbook/load_trainer.py"))
            .arg(file)
            .current_dir(root.join("tests/ace_playbook"))
            .output()
            .unwrap();
        assert!(
            load.status.success(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&load.stderr)
        );
        let loaded: Vec<Value> = serde_json::from_slice(&load.stdout).unwrap();
        assert_eq!(loaded.len(), n, "{}", file.display());
        let ours = crate::entries_of(file);
        for (a, b) in loaded.iter().zip(&ours) {
            assert_eq!(a["content"], b["content"]);
            assert_eq!(a["helpful_count"], b["helpful"]);
            assert_eq!(a["harmful_count"], b["harmful"]);
        }
    }
}
