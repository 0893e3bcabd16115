//! Schema errors point at the offending value: its line and column in JSON,
//! TRON and YAML, checked against positions worked out by hand from the
//! files (a missing property at its object's opening brace, an unexpected
//! property at its key). Corpus files come from `ACE_CORPUS`; the YAML
//! cases are our own fixtures, since no corpus playbook.yaml has a schema
//! error.

use std::path::Path;

use ace_model::LineIndex;

/// `(file, code, line, column, words of the message)`.
type Expect = (&'static str, &'static str, usize, usize, &'static str);

const SKILL: &str = "skill-json/jmanhype__claude-code-plugin-marketplace@483b441__.claude__context__memory__bullets.json";
const REFLECTOR: &str =
    "deltas/jmanhype__claude-code-plugin-marketplace__ace_cycle_demo__02_reflector_output.json";
const A3: &str = "tron/visionik__vAgenda__README.md--v0.4-appendixA3-playbook.tron";
const WARP: &str = "tron/visionik__vAgenda__warp.vcontext.tron";

const CORPUS: &[Expect] = &[
    // "id": "yt-thumb-contrast-001" -- the value after `"id": `
    (SKILL, "ACE035", 3, 11, "/0/id"),
    (SKILL, "ACE035", 9, 17, "/0/evidence/0/type"),
    (SKILL, "ACE035", 27, 11, "/1/id"),
    (SKILL, "ACE035", 33, 17, "/1/evidence/0/type"),
    (SKILL, "ACE035", 105, 17, "/4/evidence/0/type"),
    // missing properties: the document's opening brace
    (REFLECTOR, "ACE036", 1, 1, "\"justification\""),
    (REFLECTOR, "ACE036", 1, 1, "\"needs_followup\""),
    // unexpected properties: their keys
    (REFLECTOR, "ACE036", 2, 3, "`task_id`"),
    (REFLECTOR, "ACE036", 3, 3, "`analysis`"),
    (REFLECTOR, "ACE036", 12, 9, "`evidence_type`"),
    (REFLECTOR, "ACE036", 13, 9, "`evidence_ref`"),
    (
        REFLECTOR,
        "ACE036",
        20,
        21,
        "/proposed_deltas/counters/0/evidence",
    ),
    (REFLECTOR, "ACE036", 24, 3, "`confidence`"),
    (REFLECTOR, "ACE036", 25, 3, "`next_steps`"),
    // TRON: a class instance's name, and a positional null inside Delta(2, null)
    (A3, "ACE048", 22, 5, "/playbook/items/0"),
    (A3, "ACE049", 54, 16, "/playbook/items/1/delta/harmfulCount"),
    (A3, "ACE048", 56, 5, "/playbook/items/2"),
    (A3, "ACE048", 73, 5, "/playbook/items/3"),
    // `playbook: Playbook(` -- the value after the key
    (WARP, "ACE048", 11, 11, "\"version\""),
    (WARP, "ACE048", 15, 5, "/playbook/items/0"),
    (WARP, "ACE048", 20, 5, "/playbook/items/1"),
];

const YAML: &[Expect] = &[
    // `    weight: 1.5`
    ("playbook-yaml/curator.yaml", "ACE032", 9, 13, "1.5"),
    // `  - weight: "high"`: the missing id at the mapping, the weight at its value
    ("playbook-yaml/wrong-shape.yaml", "ACE033", 3, 5, "no `id`"),
    (
        "playbook-yaml/wrong-shape.yaml",
        "ACE032",
        3,
        13,
        "found a string",
    ),
    (
        "playbook-yaml/wrong-shape.yaml",
        "ACE033",
        6,
        5,
        "section 3",
    ),
    // `sections: "build/patterns"`
    (
        "rules/ACE033/fires/playbook.yaml",
        "ACE033",
        2,
        11,
        "`sections`",
    ),
];

fn check(root: &Path, cases: &[Expect]) -> usize {
    let mut files: Vec<&str> = cases.iter().map(|c| c.0).collect();
    files.dedup();
    let mut matched = 0;
    for file in files {
        let path = root.join(file);
        let source = ace_fs::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let text = source.text.clone();
        let outcome = ace_check::check(
            source,
            &ace_check::Settings {
                companion: ace_check::Companion::Never,
                ..Default::default()
            },
        );
        let index = LineIndex::new(&text);
        let found: Vec<(&str, usize, usize, &str)> = outcome.reports[0]
            .1
            .iter()
            .map(|d| {
                let p = index.line_col(&text, d.span.start);
                (d.code, p.line, p.col, d.message.as_str())
            })
            .collect();
        for (_, code, line, col, words) in cases.iter().filter(|c| c.0 == file) {
            assert!(
                found.iter().any(|(c, l, k, m)| c == code
                    && (*l, *k) == (*line, *col)
                    && m.contains(words)),
                "{file}: expected {code} at {line}:{col} ({words}); found {found:#?}"
            );
            matched += 1;
        }
    }
    matched
}

#[test]
fn schema_errors_in_fixtures_point_at_the_offending_value() {
    assert_eq!(check(&ace_tests::fixture_path(""), YAML), YAML.len());
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn schema_errors_in_the_corpus_point_at_the_offending_value() {
    let dir = ace_tests::corpus_dir("tron");
    assert_eq!(check(dir.parent().unwrap(), CORPUS), CORPUS.len());
}
