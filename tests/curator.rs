//! The curator variant: AGENTS.md bullets and playbook.yaml, over our own
//! fixtures and, when ACE_CORPUS is set, over every real file.

use std::path::PathBuf;

use ace_model::{Entry, Playbook};
use ace_registry::Format;
use ace_tests::{corpus_dir, corpus_files, fixture};

fn codes(diags: &[ace_model::Diagnostic]) -> Vec<&'static str> {
    diags.iter().map(|d| d.code).collect()
}

fn validate(text: &str) -> Vec<ace_model::Diagnostic> {
    ace_check::validate(Format::AGENTS_MD, text, &ace_lint_default())
}

fn ace_lint_default() -> ace_check::LintOptions {
    ace_check::LintOptions::default()
}

/// What a bullet is made of: id, section, content, helpful, harmful.
type BulletParts = (String, Option<String>, String, Option<i64>, Option<i64>);

/// The bullets' parts, for comparing playbooks across formats.
fn bullets(pb: &Playbook) -> Vec<BulletParts> {
    pb.entries
        .iter()
        .map(|e: &Entry| {
            (
                e.id.clone(),
                e.section.clone(),
                e.content.clone(),
                e.helpful,
                e.harmful,
            )
        })
        .collect()
}

#[test]
fn seed_layout_with_provenance() {
    let src = fixture("agents-md/seed-layout.md");
    let out = ace_agents::read(&src);
    let pb = &out.playbook;
    assert_eq!(pb.title.as_deref(), Some("Curator knowledge"));
    let keys: Vec<&str> = pb.sections.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, ["build/patterns", "typescript/testing"]);
    assert_eq!(pb.entries.len(), 3);
    let p = pb.entries[0].provenance.as_deref().expect("provenance");
    assert_eq!(p.beads_id.as_deref(), Some("bead-42"));
    assert_eq!(p.created_at.as_deref(), Some("2025-01-15T10:30:00Z"));
    assert_eq!(
        p.hash.as_deref(),
        Some("build/patterns::run npm run build before npm test")
    );
    assert!(pb.entries[2].provenance.is_none());
    let found = codes(&validate(&src));
    assert!(found.contains(&"ACE028"), "stale hash: {found:?}");
    assert!(found.contains(&"ACE029"), "harmful > helpful: {found:?}");
    assert!(
        !found.contains(&"ACE001"),
        "the playbook format spec's ID shape does not apply: {found:?}"
    );
    assert_eq!(ace_agents::write(pb).text, src);
}

#[test]
fn managed_region_in_a_human_document() {
    let src = fixture("agents-md/managed-region.md");
    let pb = ace_agents::read(&src).playbook;
    let ids: Vec<&str> = pb.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        ["88f22305", "8efa09af", "47", "test-good-1"],
        "quoted and fenced bullets are text"
    );
    let titles: Vec<&str> = pb.sections.iter().map(|s| s.display_title()).collect();
    assert_eq!(
        titles,
        [
            "Build & Test Patterns",
            "TypeScript Patterns",
            "Dependency Patterns",
            "Available Commands"
        ],
        "the container heading and prose headings are not sections"
    );
    assert_eq!(pb.sections[0].extra["heading_level"], 3);
    assert_eq!(pb.entries[2].extra["aggregated_from"], 3);
    assert_eq!(pb.entries[3].section.as_deref(), Some("available_commands"));
    let found = validate(&src);
    let dups: Vec<_> = found.iter().filter(|d| d.code == "ACE008").collect();
    assert_eq!(dups.len(), 1, "same content up to spacing: {found:?}");
    assert!(codes(&found).contains(&"ACE027"), "list-dash bullet");
    assert_eq!(ace_agents::write(&pb).text, src);
}

#[test]
fn malformed_bullets_are_reported_and_kept_as_text() {
    let src = fixture("agents-md/malformed.md");
    let out = ace_agents::read(&src);
    let ids: Vec<&str> = out.playbook.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["ok-1", "no-counters", "spaced"]);
    let syntax: Vec<_> = out
        .diagnostics
        .iter()
        .filter(|d| d.code == "ACE026")
        .collect();
    assert_eq!(syntax.len(), 3);
    let index = ace_model::LineIndex::new(&src);
    let at = index.line_col(&src, syntax[0].span.start);
    assert_eq!((at.line, at.col), (4, 17), "points at the bad counter");
    assert_eq!(out.playbook.entries[1].helpful, None, "absent stays absent");
    assert_eq!(
        ace_agents::write(&out.playbook).text,
        src,
        "odd lines come back as written"
    );
}

#[test]
fn crlf_survives_a_no_op_and_an_edit_normalises_only_the_edited_bullet() {
    let src = fixture("agents-md/crlf.md");
    let mut pb = ace_agents::read(&src).playbook;
    assert_eq!(ace_agents::write(&pb).text, src);
    pb.entries[0].helpful = Some(2);
    let text = ace_agents::write(&pb).text;
    assert_eq!(
        text,
        "## build/patterns\r\n\r\n[Bullet #x1, helpful:2, harmful:0] Windows line endings\n"
    );
}

#[test]
fn edits_change_only_the_bullets() {
    let src = fixture("agents-md/managed-region.md");
    let mut pb = ace_agents::read(&src).playbook;
    pb.entries.retain(|e| e.id != "8efa09af");
    pb.entries[0].helpful = Some(7);
    let mut new = Entry::new("f00dcafe", "Pin the toolchain in CI");
    new.section = Some("dependency_patterns".into());
    new.helpful = Some(1);
    new.harmful = Some(0);
    pb.entries.push(new);
    let out = ace_agents::write(&pb);
    assert!(out.losses.is_empty(), "{:?}", out.losses);
    let expected = src
        .replace("[Bullet #88f22305, helpful:0,", "[Bullet #88f22305, helpful:7,")
        .replace("[Bullet #8efa09af, helpful:0, harmful:0] Always  validate user input before processing\n", "")
        .replace("<!-- placeholder -->\n", "<!-- placeholder -->\n[Bullet #f00dcafe, helpful:1, harmful:0] Pin the toolchain in CI\n");
    assert_eq!(out.text, expected);
    let back = ace_agents::read(&out.text).playbook;
    assert_eq!(back.entries.len(), 4);
    assert_eq!(
        back.entries
            .iter()
            .find(|e| e.id == "f00dcafe")
            .unwrap()
            .section
            .as_deref(),
        Some("dependency_patterns")
    );
}

#[test]
fn through_json_and_back_without_the_layout() {
    let src = fixture("agents-md/seed-layout.md");
    let pb = ace_agents::read(&src).playbook;
    let via_json = ace_json::read(&ace_json::write(&pb)).unwrap();
    assert_eq!(
        ace_agents::write(&via_json).text,
        src,
        "the layout rides along in JSON"
    );
    let mut bare = via_json.clone();
    bare.extra.clear();
    let fresh = ace_agents::write(&bare);
    assert!(fresh.losses.is_empty(), "{:?}", fresh.losses);
    let back = ace_agents::read(&fresh.text).playbook;
    assert_eq!(bullets(&back), bullets(&pb));
    let prov: Vec<_> = back.entries.iter().map(|e| e.provenance.clone()).collect();
    let orig: Vec<_> = pb.entries.iter().map(|e| e.provenance.clone()).collect();
    assert_eq!(prov, orig);
}

#[test]
fn markdown_to_agents_md_and_back() {
    let md = fixture("markdown/canonical.md");
    let pb = ace_markdown::read(&md).playbook;
    let agents = ace_agents::write(&pb);
    let codes_lost: Vec<&str> = agents.losses.iter().map(|l| l.code).collect();
    let back =
        ace_markdown::read(&ace_markdown::write(&ace_agents::read(&agents.text).playbook).text)
            .playbook;
    let mut want = bullets(&pb);
    let mut got = bullets(&back);
    want.sort();
    got.sort();
    assert_eq!(got, want, "entries, sections and counters survive");
    let mut want_sections: Vec<_> = pb
        .sections
        .iter()
        .map(|s| (s.key.clone(), s.title.clone()))
        .collect();
    let mut got_sections: Vec<_> = back
        .sections
        .iter()
        .map(|s| (s.key.clone(), s.title.clone()))
        .collect();
    want_sections.sort();
    got_sections.sort();
    assert_eq!(got_sections, want_sections);
    // Prefixes are implicit in AGENTS.md, and the seed's order is not the file's.
    assert!(codes_lost.contains(&"ACE101"), "{:?}", agents.losses);
}

#[test]
fn curator_yaml_keeps_what_it_had() {
    let src = fixture("playbook-yaml/curator.yaml");
    let out = ace_yaml::read(&src).unwrap();
    let pb = &out.playbook;
    assert!(
        pb.version.as_ref().unwrap().is_f64(),
        "0.3 unquoted is a float"
    );
    assert_eq!(pb.sections[1].extra["owner"], "team-ts");
    assert_eq!(pb.extra["reviewed_by"], "curator");
    assert_eq!(codes(&out.diagnostics), ["ACE032"]);
    assert_eq!(ace_yaml::write(pb).text, src);
    assert_eq!(ace_yaml::write_sections(pb).text, src);
    let quoted = fixture("playbook-yaml/string-version.yaml");
    let pb = ace_yaml::read(&quoted).unwrap().playbook;
    assert!(pb.version.as_ref().unwrap().is_string());
    assert_eq!(ace_yaml::write(&pb).text, quoted);
}

#[test]
fn yaml_errors_have_positions_and_bad_values_are_kept() {
    let err = ace_yaml::read(&fixture("playbook-yaml/duplicate-key.yaml")).unwrap_err();
    assert_eq!(err.code, "ACE000");
    assert!(
        err.message.contains("duplicate mapping key"),
        "{}",
        err.message
    );
    let src = fixture("playbook-yaml/wrong-shape.yaml");
    let out = ace_yaml::read(&src).unwrap();
    assert_eq!(out.playbook.sections.len(), 3);
    assert_eq!(out.playbook.sections[0].extra["weight"], "high");
    let index = ace_model::LineIndex::new(&src);
    let lines: Vec<usize> = out
        .diagnostics
        .iter()
        .map(|d| index.line_col(&src, d.span.start).line)
        .collect();
    assert_eq!(lines, [3, 3, 6]);
}

#[test]
fn a_whole_playbook_in_yaml_is_lossless() {
    for rel in [
        "markdown/canonical.md",
        "markdown/no-counters.txt",
        "markdown/malformed.md",
    ] {
        let pb = ace_markdown::read(&fixture(rel)).playbook;
        let yaml = ace_yaml::write(&pb);
        assert!(yaml.losses.is_empty());
        let back = ace_yaml::read(&yaml.text).unwrap();
        assert_eq!(back.playbook, pb, "{rel}");
        assert_eq!(
            ace_yaml::write(&back.playbook).text,
            yaml.text,
            "{rel}: deterministic"
        );
    }
    let pb = ace_agents::read(&fixture("agents-md/seed-layout.md")).playbook;
    let back = ace_yaml::read(&ace_yaml::write(&pb).text).unwrap().playbook;
    assert_eq!(
        back, pb,
        "provenance, extra fields and the layout survive YAML"
    );
}

#[test]
fn the_pair_reads_and_writes_together() {
    let mut parsed =
        ace_registry::read(Format::AGENTS_MD, &fixture("agents-md/seed-layout.md")).unwrap();
    let yaml = fixture("playbook-yaml/curator.yaml");
    let yaml_diags = Format::AGENTS_MD
        .attach_companion(&mut parsed, &yaml)
        .unwrap();
    let pb = &parsed.playbook;
    assert_eq!(
        pb.section("build/patterns")
            .unwrap()
            .weight
            .as_ref()
            .unwrap()
            .as_f64(),
        Some(0.7)
    );
    assert_eq!(
        codes(&yaml_diags),
        ["ACE031", "ACE032"],
        "legacy/notes: no heading, weight 1.5"
    );
    let pair = ace_registry::write_files(Format::AGENTS_MD, pb, &Default::default());
    assert!(pair.losses.is_empty(), "{:?}", pair.losses);
    assert_eq!(pair.main, fixture("agents-md/seed-layout.md"));
    assert_eq!(pair.companion.clone().unwrap_or_default(), yaml);
}

fn corpus_files_in(variant: &str) -> Vec<PathBuf> {
    corpus_files(&corpus_dir(variant))
}

/// Bullet counts per file, from corpus SOURCES.md rows 14-21.
const AGENTS_COUNTS: [(&str, usize); 8] = [
    (
        "sjarmak__ace_beads@005e77f__test-temp-curator-dedup__AGENTS.md",
        3,
    ),
    ("sjarmak__ace_beads@2fd3203__knowledge__AGENT.md", 1),
    (
        "sjarmak__ace_beads@2fd3203__knowledge__AGENTS.archive.md",
        2,
    ),
    ("sjarmak__ace_beads@45e009d__knowledge__AGENTS.md", 2),
    ("sjarmak__ace_beads@6fdaa3e__AGENTS.md", 84),
    ("sjarmak__ace_beads__AGENTS.md", 1),
    ("sjarmak__ace_beads__knowledge__AGENTS.md", 1),
    ("sjarmak__ace_beads__prompts__curator.md", 0),
];

#[test]
#[ignore = "needs ACE_CORPUS"]
fn corpus_agents_md() {
    let files = corpus_files_in("agents-md");
    assert_eq!(files.len(), AGENTS_COUNTS.len(), "{files:?}");
    for (name, count) in AGENTS_COUNTS {
        let path = files
            .iter()
            .find(|p| p.file_name().unwrap() == name)
            .unwrap_or_else(|| panic!("{name} missing"));
        let src = std::fs::read_to_string(path).unwrap();
        let format = ace_registry::detect(Some(path), &src);
        if name != "sjarmak__ace_beads__prompts__curator.md" {
            assert_eq!(format, Format::AGENTS_MD, "{name}");
        }
        let out = ace_agents::read(&src);
        assert_eq!(out.playbook.entries.len(), count, "{name}");
        assert!(
            out.diagnostics
                .iter()
                .all(|d| d.severity != ace_model::Severity::Error),
            "{name}: {:?}",
            out.diagnostics
        );
        assert_eq!(
            ace_agents::write(&out.playbook).text,
            src,
            "{name}: no-op rewrite"
        );
        // Through the canonical JSON, a conversion: the data comes back,
        // in the seed's layout (the file's own is the rewrite's to keep).
        let via_json = ace_json::read(&ace_json::write(&out.playbook)).unwrap();
        assert_eq!(via_json, out.playbook, "{name}: through JSON");
        let mut bare = via_json;
        bare.extra.clear();
        let back = ace_agents::read(&ace_agents::write(&bare).text).playbook;
        let mut want = bullets(&out.playbook);
        let mut got = bullets(&back);
        want.sort();
        got.sort();
        assert_eq!(got, want, "{name}: seed layout keeps every bullet");
    }
    let big = files
        .iter()
        .find(|p| p.file_name().unwrap() == "sjarmak__ace_beads@6fdaa3e__AGENTS.md")
        .unwrap();
    let diags = validate(&std::fs::read_to_string(big).unwrap());
    assert_eq!(
        diags.iter().filter(|d| d.code == "ACE008").count(),
        81,
        "81 verbatim duplicates"
    );
    let onboarding = files
        .iter()
        .find(|p| p.file_name().unwrap() == "sjarmak__ace_beads__AGENTS.md")
        .unwrap();
    let diags = validate(&std::fs::read_to_string(onboarding).unwrap());
    assert!(
        diags.iter().any(|d| d.code == "ACE025"),
        "quoted example bullet is reported as text"
    );
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn corpus_playbook_yaml() {
    let files = corpus_files_in("playbook-yaml");
    assert_eq!(files.len(), 1);
    let src = std::fs::read_to_string(&files[0]).unwrap();
    let out = ace_yaml::read(&src).unwrap();
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert!(out.playbook.version.as_ref().unwrap().is_f64());
    let ids: Vec<&str> = out
        .playbook
        .sections
        .iter()
        .map(|s| s.key.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "node/tooling",
            "typescript/testing",
            "build/patterns",
            "dependency/patterns",
            "architecture/patterns"
        ]
    );
    assert_eq!(ace_yaml::write(&out.playbook).text, src);
    // With the AGENTS.md of the same commit: every id misses every heading.
    let agents = corpus_dir("agents-md").join("sjarmak__ace_beads__knowledge__AGENTS.md");
    let mut parsed =
        ace_registry::read(Format::AGENTS_MD, &std::fs::read_to_string(agents).unwrap()).unwrap();
    let yaml_diags = Format::AGENTS_MD
        .attach_companion(&mut parsed, &src)
        .unwrap();
    assert_eq!(yaml_diags.iter().filter(|d| d.code == "ACE031").count(), 5);
    assert_eq!(
        parsed
            .diagnostics
            .iter()
            .filter(|d| d.code == "ACE030")
            .count(),
        3
    );
    let pair = ace_registry::write_files(Format::AGENTS_MD, &parsed.playbook, &Default::default());
    assert_eq!(
        pair.companion.clone().unwrap_or_default(),
        src,
        "the pair's no-op keeps the YAML"
    );
}
