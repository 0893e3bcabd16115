//! The kayba skillbook: both eras read and written back byte for byte,
//! what it maps to, and what a skillbook written from another format is.
//! Over our own fixtures and, with ACE_CORPUS, every kayba file.

use ace_model::{Evidence, Severity, Status};
use ace_registry::Format;
use ace_tests::{corpus_dir, fixture};

fn skillbook() -> Format {
    Format::from_name("skillbook").expect("the skillbook is registered")
}

fn read(text: &str) -> ace_registry::Parsed {
    ace_registry::read(skillbook(), text).unwrap_or_else(|d| panic!("{d}"))
}

fn findings(text: &str) -> Vec<ace_model::Diagnostic> {
    ace_check::validate(skillbook(), text, &ace_check::LintOptions::default())
}

/// Read and written back unchanged, byte for byte, with no finding above
/// info and no layout the writer could not give back.
fn rewrites_exactly(name: &str, text: &str) {
    let pb = read(text).playbook;
    assert_eq!(ace_registry::write(skillbook(), &pb).text, text, "{name}");
    let bad: Vec<_> = findings(text)
        .into_iter()
        .filter(|d| d.severity > Severity::Info || d.code == "ACE046")
        .collect();
    assert!(bad.is_empty(), "{name}: {bad:#?}");
}

#[test]
fn both_eras_and_hand_layouts_come_back_byte_for_byte() {
    for name in ["skills-0.9.json", "bullets-0.3.json", "hand.json"] {
        let text = fixture(&format!("skillbook/{name}"));
        rewrites_exactly(name, &text);
    }
}

#[test]
fn a_skill_maps_to_an_entry() {
    let pb = read(&fixture("skillbook/skills-0.9.json")).playbook;
    let keys: Vec<&str> = pb.sections.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(keys, ["reasoning_patterns", "tool_use"]);
    let e = &pb.entries[0];
    assert_eq!(e.id, "reasoning_patterns-00001");
    assert_eq!(e.section.as_deref(), Some("reasoning_patterns"));
    assert_eq!(
        (e.helpful, e.harmful, e.neutral),
        (Some(3), Some(0), Some(1))
    );
    assert_eq!(
        e.evidence.as_deref(),
        Some(
            &[Evidence::Text(
                "Agent answered “yes” to 'can penguins fly?'".into()
            )][..]
        )
    );
    assert!(e.extra.contains_key("embedding") && e.extra.contains_key("sources"));
    // A null is no value: not in the model, given back by the layout.
    assert!(!e.extra.contains_key("justification"));
    let soft_deleted = &pb.entries[1];
    assert_eq!(soft_deleted.status, Some(Status::Other("invalid".into())));
    assert_eq!(
        soft_deleted.extra["justification"],
        serde_json::json!("Generalises the first skill.")
    );
    assert!(pb.extra.contains_key("similarity_decisions"));
    // Bookkeeping is the layout's: not data another format would carry.
    assert!(!pb.extra.contains_key("next_id"));
    let old = read(&fixture("skillbook/bullets-0.3.json")).playbook;
    assert_eq!(old.entries[0].helpful, Some(37));
}

#[test]
fn the_content_tells_a_skillbook_whatever_its_name() {
    let bullets = fixture("skillbook/bullets-0.3.json");
    for name in ["playbook.json", "x.json", "ace_domain_playbook.json"] {
        let path = std::path::Path::new(name);
        assert_eq!(
            ace_registry::detect(Some(path), &bullets),
            skillbook(),
            "{name}"
        );
    }
    let skills = fixture("skillbook/skills-0.9.json");
    assert_eq!(ace_registry::detect(None, &skills), skillbook());
    // A skill playbook's `bullets` is an array: still the skill's.
    let skill = r#"{"bullets": [], "sections": {}}"#;
    assert_eq!(ace_registry::detect(None, skill), Format::SKILL_JSON);
    let out = std::path::Path::new("team.skillbook.json");
    assert_eq!(
        ace_registry::Registry::builtin().for_output(out),
        Some(skillbook())
    );
}

#[test]
fn a_skill_added_is_indexed_and_numbered() {
    let text = fixture("skillbook/skills-0.9.json");
    let mut pb = read(&text).playbook;
    let mut e = ace_model::Entry::new("tool_use-00004", "Prefer the batch endpoint.");
    e.section = Some("tool_use".into());
    pb.entries.push(e);
    let out = ace_registry::write(skillbook(), &pb).text;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["sections"]["tool_use"],
        serde_json::json!(["tool_use-00003", "tool_use-00004"])
    );
    assert_eq!(v["next_id"], 4);
    assert_eq!(
        v["skills"]["tool_use-00004"],
        serde_json::json!({"id": "tool_use-00004", "section": "tool_use", "content": "Prefer the batch endpoint.",
            "justification": null, "evidence": null, "embedding": null})
    );
    rewrites_exactly("with a skill added", &out);
}

#[test]
fn a_skillbook_from_markdown_is_what_the_framework_saves() {
    let md = fixture("markdown/canonical.md");
    let pb = ace_registry::read(Format::MARKDOWN, &md).unwrap().playbook;
    let out = ace_registry::write(skillbook(), &pb);
    rewrites_exactly("from markdown", &out.text);
    let v: serde_json::Value = serde_json::from_str(&out.text).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "schema_version",
            "skills",
            "sections",
            "next_id",
            "similarity_decisions"
        ]
    );
    assert_eq!(v["schema_version"], "2");
    assert!(
        !out.text.ends_with('\n'),
        "json.dumps writes no final newline"
    );
    let back = read(&out.text).playbook;
    let content = |p: &ace_model::Playbook| -> Vec<(String, String, Option<i64>)> {
        p.entries
            .iter()
            .map(|e| (e.id.clone(), e.content.clone(), e.helpful))
            .collect()
    };
    assert_eq!(content(&back), content(&pb));
    for e in &back.entries {
        // v2's two sections; the markdown's name is the first keyword.
        assert_eq!(e.section.as_deref(), Some("context"), "{}", e.id);
        let source = pb.entries.iter().find(|s| s.id == e.id).unwrap();
        assert_eq!(
            e.tags.as_ref().unwrap()[0],
            source.section.as_deref().unwrap().to_lowercase(),
            "{}",
            e.id
        );
        let listed = &v["sections"][e.section.as_deref().unwrap()];
        assert!(
            listed.as_array().unwrap().contains(&e.id.clone().into()),
            "{}",
            e.id
        );
    }
    // What the framework has no field for is reported, never written.
    let lost: Vec<&str> = out.losses.iter().map(|l| &*l.field).collect();
    assert!(lost.iter().any(|f| f.starts_with("sections[")), "{lost:?}");
    assert!(!out.text.contains("\"title\""));
}

#[test]
fn a_wrong_type_is_reported_and_kept() {
    let text = r#"{"skills": {"a-00001": {"id": "a-00001", "section": "a", "content": "c", "helpful": "3"}}, "sections": {"a": ["a-00001"]}, "next_id": 1, "similarity_decisions": {}}"#;
    let parsed = read(text);
    assert!(parsed
        .diagnostics
        .iter()
        .any(|d| d.code == "ACE078" && d.severity == Severity::Error));
    assert_eq!(parsed.playbook.entries[0].extra["helpful"], "3");
    let again = ace_registry::write(skillbook(), &parsed.playbook).text;
    assert!(again.contains("\"helpful\": \"3\""), "{again}");
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn every_kayba_skillbook_comes_back_byte_for_byte() {
    let dir = corpus_dir("other");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("kayba-ai__") && n.ends_with(".json")
        })
        .collect();
    assert_eq!(files.len(), 11, "SOURCES rows 94-106, the JSON ones");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            ace_registry::detect(Some(&path), &text),
            skillbook(),
            "{name}"
        );
        rewrites_exactly(&name, &text);
    }
}

#[test]
fn through_vagenda_a_skill_keeps_its_fields_in_the_extension_point() {
    let text = fixture("skillbook/skills-0.9.json");
    let pb = read(&text).playbook;
    let v = ace_registry::write(Format::VAGENDA_JSON, &pb);
    let doc: serde_json::Value = serde_json::from_str(&v.text).unwrap();
    let first = &doc["plan"]["playbook"]["entries"][0];
    assert!(first.get("embedding").is_none(), "{first}");
    assert_eq!(
        first["metadata"]["aceTools"]["extra"]["embedding"],
        // As written in the skillbook: the numbers keep their lexemes.
        serde_json::from_str::<serde_json::Value>("[0.125, -1e-05, 3.0]").unwrap()
    );
    let back = ace_registry::read(Format::VAGENDA_JSON, &v.text)
        .unwrap()
        .playbook;
    // Written in the fixture's era: a new skillbook is v2.
    let ctx = ace_registry::WriteCtx::default().with_option("skillbook-version", "0.8");
    let again = ace_registry::write_with(skillbook(), &back, &ctx);
    let returned = read(&again.text).playbook;
    for (a, b) in pb.entries.iter().zip(&returned.entries) {
        assert_eq!(
            (&a.id, &a.content, a.helpful, a.harmful, a.neutral, &a.extra),
            (&b.id, &b.content, b.helpful, b.harmful, b.neutral, &b.extra)
        );
        assert_eq!((&a.evidence, &a.status), (&b.evidence, &b.status));
    }
}

#[test]
fn a_read_for_errors_only_skips_the_layout_check_and_reads_the_same() {
    // Indented by four: the framework writes two, so a rewrite would differ.
    let text = fixture("skillbook/skills-0.9.json").replace("\n  ", "\n    ");
    let all = skillbook()
        .read(&text, &ace_registry::ReadCtx::default())
        .unwrap_or_else(|d| panic!("{d}"))
        .parsed;
    let errors_only = skillbook()
        .read(&text, &ace_registry::ReadCtx::min(Severity::Error))
        .unwrap_or_else(|d| panic!("{d}"))
        .parsed;
    assert!(all.diagnostics.iter().any(|d| d.code == "ACE046"));
    assert!(errors_only.diagnostics.iter().all(|d| d.code != "ACE046"));
    assert_eq!(all.playbook, errors_only.playbook);
}

/// A skillbook written to markdown and back: headings and ID prefixes are
/// the section keys, so writing the markdown as a skillbook again reports
/// no title or prefix lost.
#[test]
fn titles_and_prefixes_that_are_the_key_are_no_loss() {
    let md = "## process_management\n[process_management-00001] helpful=1 harmful=0 :: Read stdin before daemonization in forked processes\n\n## Testing Strategy\n[tst-00002] helpful=0 harmful=0 :: Run the failing test first\n";
    let pb = ace_registry::read(Format::MARKDOWN, md).unwrap().playbook;
    // The eras before v2, which keep sections by name.
    let ctx = ace_registry::WriteCtx::default().with_option("skillbook-version", "0.8");
    let out = ace_registry::write_with(skillbook(), &pb, &ctx);
    let lost: Vec<&str> = out.losses.iter().map(|l| &*l.field).collect();
    assert!(
        !lost
            .iter()
            .any(|f| f.starts_with("sections[process_management]")),
        "{lost:?}"
    );
    // A title or prefix of its own is still reported.
    assert!(
        lost.contains(&"sections[testing_strategy].title"),
        "{lost:?}"
    );
    assert!(
        lost.contains(&"sections[testing_strategy].prefix"),
        "{lost:?}"
    );
}

/// A v2 skill whose insight is null: unchanged, written back null; its
/// content changed (an insight given), written as the insight beside the
/// issue it had; a harness skill with an insight keeps it.
#[test]
fn a_v2_null_insight_stays_null_until_the_content_changes() {
    let text = r#"{
  "schema_version": "2",
  "skills": {
    "harness-00001": {
      "id": "harness-00001",
      "section": "harness",
      "keywords": [
        "tests"
      ],
      "issue": "The test runner needs PYTHONPATH set",
      "insight": null,
      "occurrences": [],
      "active": true,
      "used_count": 0,
      "helpful_count": 0,
      "harmful_count": 0,
      "neutral_count": 0,
      "created_at": "2026-11-26T19:21:59.749197+00:00",
      "updated_at": "2026-11-26T19:21:59.749227+00:00"
    },
    "harness-00002": {
      "id": "harness-00002",
      "section": "harness",
      "keywords": [
        "ci"
      ],
      "issue": "CI has no network",
      "insight": "Vendor the wheels before the build starts.",
      "occurrences": [],
      "active": false,
      "used_count": 0,
      "helpful_count": 0,
      "harmful_count": 0,
      "neutral_count": 0,
      "created_at": "2026-11-26T19:21:59.749197+00:00",
      "updated_at": "2026-11-26T19:21:59.749227+00:00"
    }
  },
  "sections": {
    "harness": [
      "harness-00001",
      "harness-00002"
    ]
  },
  "next_id": 2,
  "similarity_decisions": {}
}"#;
    rewrites_exactly("v2 with a null insight", text);
    let mut pb = read(text).playbook;
    assert_eq!(
        pb.entries[0].content,
        "The test runner needs PYTHONPATH set"
    );
    assert_eq!(
        pb.entries[1].content,
        "Vendor the wheels before the build starts."
    );
    assert_eq!(pb.entries[1].extra["issue"], "CI has no network");
    assert_eq!(
        pb.entries[1].status,
        Some(ace_model::Status::Other("invalid".into()))
    );
    pb.entries[0].content = "Export PYTHONPATH=src before pytest.".into();
    let out = ace_registry::write(skillbook(), &pb).text;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let s = &v["skills"]["harness-00001"];
    assert_eq!(s["issue"], "The test runner needs PYTHONPATH set");
    assert_eq!(s["insight"], "Export PYTHONPATH=src before pytest.");
    assert_eq!(
        v["skills"]["harness-00002"]["insight"],
        "Vendor the wheels before the build starts."
    );
    assert_eq!(v["skills"]["harness-00002"]["active"], false);
}
