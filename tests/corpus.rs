//! Every real markdown playbook in `$ACE_CORPUS/markdown-playbook` reads,
//! rewrites idempotently, loses no entry, and has the entry count that
//! `corpus/SOURCES.md` states.

use ace_markdown::{read, write};
use ace_model::Severity;
use ace_tests::{corpus_dir, corpus_files};

/// Entry counts per file. Row numbers refer to `corpus/SOURCES.md`; where a
/// row states no count, the count was made by hand and the reason is given.
const EXPECTED: &[(&str, usize)] = &[
    // row 1: the seed spec itself; every example entry sits in a code fence
    ("TerrysPOV__ace_claude_mcp__ace-skill__references__playbook-format.md", 0),
    // row 2: "same as main version + trailing newline" (row 9: 359 bullets)
    ("ace-agent__ace-appworld@0ae1a22__experiments__playbooks__appworld_online_trained_playbook.txt", 359),
    // row 3: no count stated; 17 entry lines, two of them multi-line
    ("ace-agent__ace-appworld@1745bc1__experiments__playbooks__appworld_offline_trained_with_gt_playbook.txt", 17),
    // row 4: "9 bullets"
    ("ace-agent__ace-appworld@465e950__experiments__playbooks__appworld_offline_trained_no_gt_playbook.txt", 9),
    // row 5: "14 bullets"
    ("ace-agent__ace-appworld@76241db__experiments__playbooks__appworld_offline_trained_with_gt_playbook.txt", 14),
    // row 6: no count stated; 8 entries in 8 sections
    ("ace-agent__ace-appworld__experiments__playbooks__appworld_initial_playbook.txt", 8),
    // row 7: "318 counter-less bullets"
    ("ace-agent__ace-appworld__experiments__playbooks__appworld_offline_trained_no_gt_playbook.txt", 318),
    // row 8: "EMPTY file (0 bytes)"
    ("ace-agent__ace-appworld__experiments__playbooks__appworld_offline_trained_with_gt_playbook.txt", 0),
    // row 9: "359 counter-less bullets"
    ("ace-agent__ace-appworld__experiments__playbooks__appworld_online_trained_playbook.txt", 359),
    // row 10: "7 empty section headings only, no bullets"
    ("yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__best_playbook.txt", 0),
    // row 11: "18 ... bullets"
    ("yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__final_playbook.txt", 18),
    // row 12: "3 bullets"
    ("yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__intermediate_playbooks__epoch_1_final_playbook.txt", 3),
    // row 13: "11 bullets"
    ("yosuny__agentic-context-engineering-poc__results__ace_run_20260204_135155_manufacturing_v2_offline__ace_run_20260204_135155_manufacturing_safety_v2_offline__intermediate_playbooks__epoch_3_final_playbook.txt", 11),
];

#[test]
#[ignore = "needs ACE_CORPUS"]
fn markdown_playbook_corpus() {
    let dir = corpus_dir("markdown-playbook");
    let files = corpus_files(&dir);
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for (name, _) in EXPECTED {
        assert!(
            names.iter().any(|n| n == name),
            "corpus file missing: {name}"
        );
    }
    for name in &names {
        assert!(
            EXPECTED.iter().any(|(n, _)| n == name),
            "corpus file without an expected count: {name}"
        );
    }
    for (path, name) in files.iter().zip(&names) {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = EXPECTED.iter().find(|(n, _)| n == name).unwrap().1;
        let first = read(&text);
        assert!(
            first
                .diagnostics
                .iter()
                .all(|d| d.severity != Severity::Error),
            "{name}: {:?}",
            first.diagnostics
        );
        assert_eq!(
            first.playbook.entries.len(),
            expected,
            "{name}: entry count"
        );
        let once = write(&first.playbook);
        assert!(
            once.losses.is_empty(),
            "{name}: markdown to markdown loses nothing: {:?}",
            once.losses
        );
        let second = read(&once.text);
        assert_eq!(
            second.playbook, first.playbook,
            "{name}: the rewrite reads back as the same playbook"
        );
        let twice = write(&second.playbook);
        assert_eq!(
            twice.text, once.text,
            "{name}: write(read(write(read(x)))) == write(read(x))"
        );
        // content is kept in full, continuation lines included
        let chars_in: usize = first.playbook.entries.iter().map(|e| e.content.len()).sum();
        let chars_out: usize = second
            .playbook
            .entries
            .iter()
            .map(|e| e.content.len())
            .sum();
        assert_eq!(chars_in, chars_out, "{name}");
    }
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn the_final_newline_pair_canonicalises_identically() {
    let dir = corpus_dir("markdown-playbook");
    let main = dir.join(
        "ace-agent__ace-appworld__experiments__playbooks__appworld_online_trained_playbook.txt",
    );
    let branch = dir.join("ace-agent__ace-appworld@0ae1a22__experiments__playbooks__appworld_online_trained_playbook.txt");
    let main = std::fs::read_to_string(main).unwrap();
    let branch = std::fs::read_to_string(branch).unwrap();
    assert_eq!(main.len() + 1, branch.len());
    let a = read(&main);
    let b = read(&branch);
    assert_eq!(a.playbook, b.playbook);
    assert_eq!(write(&a.playbook).text, write(&b.playbook).text);
    assert!(a.diagnostics.iter().any(|d| d.code == "ACE013"));
    assert!(!b.diagnostics.iter().any(|d| d.code == "ACE013"));
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_corpus_file_is_detected_as_markdown() {
    let dir = corpus_dir("markdown-playbook");
    for path in corpus_files(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            ace_registry::detect(Some(&path), &text),
            ace_registry::Format::MARKDOWN,
            "{}",
            path.display()
        );
    }
}
