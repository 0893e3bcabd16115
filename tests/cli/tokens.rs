//! `ace-validate --tokens`: token counts, per file and per section.
//!
//! The corpus test compares every count with js-tiktoken's, an independent
//! tiktoken with its own copy of the ranks. It needs `ACE_TRON_JS` (the
//! folder where `tests/js` was installed with npm) and `ACE_CORPUS`;
//! `.ci/run` sets both and runs it with `--include-ignored`.

use std::path::PathBuf;
use std::process::Command;

fn validate() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("ace-validate").unwrap();
    c.env_remove("GITHUB_ACTIONS");
    c
}

/// The counts ace-validate prints; files it does not take as ACE files
/// (a spec's prose) are left out, and said on stderr.
fn counts(args: &[&str], files: &[PathBuf]) -> Vec<serde_json::Value> {
    let out = validate()
        .args(["--tokens", "--output-format", "json", "--isolated"])
        .args(args)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 2) && !out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn tokens_are_counted_per_file_and_per_section() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("playbook.md");
    std::fs::write(
        &file,
        "## STRATEGIES\n[str-00001] helpful=1 harmful=0 :: Hello, world!\n[str-00002] helpful=0 harmful=0 :: Hello, world!\n## OTHERS\n[oth-00003] helpful=0 harmful=0 :: Hello\n",
    )
    .unwrap();
    let c = &counts(&[], std::slice::from_ref(&file))[0];
    assert_eq!(c["encoding"], "cl100k_base");
    let sections = c["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    // "Hello, world!" is four tokens, "Hello" one.
    assert_eq!(sections[0]["entries"], 2);
    assert_eq!(sections[0]["tokens"], 8);
    assert_eq!(sections[0]["title"], "STRATEGIES");
    assert_eq!(sections[1]["tokens"], 1);
    assert!(c["tokens"].as_u64().unwrap() > 30);
    let chars = &counts(&["--tokenizer", "chars4"], std::slice::from_ref(&file))[0];
    let len = std::fs::read_to_string(&file).unwrap().chars().count();
    assert_eq!(chars["tokens"], len.div_ceil(4));
    let text = validate()
        .args(["--tokens", "--isolated"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("  STRATEGIES: 2 entries, 8 tokens\n"),
        "{text}"
    );
}

/// Every corpus playbook's count, in both exact encodings, is js-tiktoken's.
#[test]
#[ignore = "needs ACE_TRON_JS and ACE_CORPUS"]
fn counts_are_js_tiktokens_on_every_corpus_playbook() {
    let js = std::env::var_os("ACE_TRON_JS").map(PathBuf::from).expect(
        "this test needs ACE_TRON_JS: `npm ci` in tests/js, then ACE_TRON_JS=$PWD/tests/js",
    );
    assert!(
        js.join("node_modules/js-tiktoken").is_dir(),
        "ACE_TRON_JS={} has no node_modules/js-tiktoken; run npm ci there",
        js.display()
    );
    let files = ace_tests::corpus_texts(&ace_tests::PLAYBOOK_VARIANTS);
    assert!(files.len() > 40, "{} files", files.len());
    for enc in ["cl100k_base", "o200k_base"] {
        let ours = counts(&["--tokenizer", enc], &files);
        let out = Command::new("node")
            .arg(js.join("tokens.mjs"))
            .arg(enc)
            .args(&files)
            .output()
            .expect("node runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs: Vec<u64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(theirs.len(), files.len());
        let mine: std::collections::HashMap<String, u64> = ours
            .iter()
            .map(|c| {
                (
                    c["path"].as_str().unwrap().to_owned(),
                    c["tokens"].as_u64().unwrap(),
                )
            })
            .collect();
        let mut compared = 0;
        for (file, js_count) in files.iter().zip(&theirs) {
            let Some(count) = mine.get(file.to_str().unwrap()) else {
                continue;
            };
            assert_eq!(count, js_count, "{enc}: {}", file.display());
            compared += 1;
        }
        assert!(compared > 40, "{enc}: {compared} files compared");
    }
}
