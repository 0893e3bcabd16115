//! Chains of conversions through formats without sections: AGENTS.md and
//! its playbook.yaml through skill-json and vAgenda JSON and back. What the
//! intermediate formats keep for the others (the skill's
//! `metadata.ace_tools`, vAgenda's `aceTools`) brings back every section
//! with its title and weight, each entry's section, and playbook.yaml's
//! version.

use ace_format::ReadCtx;
use ace_model::Playbook;
use ace_registry::{Format, WriteCtx};
use ace_tests::{corpus_dir, fixture};

fn agents_pair(main: &str, yaml: &str) -> Playbook {
    let format = Format::from_name("agents-md").unwrap();
    let mut parsed = format.read(main, &ReadCtx::default()).unwrap().parsed;
    format.attach_companion(&mut parsed, yaml).unwrap();
    parsed.playbook
}

fn ctx() -> WriteCtx {
    WriteCtx::default().with_now(Some("2026-01-31T12:00:00Z".into()))
}

/// `pb` written as `to` and read back.
fn through(pb: &Playbook, to: &str) -> Playbook {
    let format = Format::from_name(to).unwrap();
    let files = ace_registry::write_files(format, pb, &ctx());
    let mut parsed = format
        .read(&files.main, &ReadCtx::default())
        .unwrap()
        .parsed;
    if let Some(c) = &files.companion {
        format.attach_companion(&mut parsed, c).unwrap();
    }
    parsed.playbook
}

/// Each section as (key, title, weight), and each entry's content with its
/// section.
fn structure(pb: &Playbook) -> (Vec<String>, Vec<(String, Option<String>)>) {
    let mut sections: Vec<String> = pb
        .sections
        .iter()
        .map(|s| format!("{} | {:?} | {:?}", s.key, s.title, s.weight))
        .collect();
    sections.sort();
    let mut entries: Vec<(String, Option<String>)> = pb
        .entries
        .iter()
        .map(|e| (e.content.clone(), e.section.clone()))
        .collect();
    entries.sort();
    (sections, entries)
}

fn the_chain_keeps_the_structure(main: &str, yaml: &str) {
    let source = agents_pair(main, yaml);
    assert!(source.sections.len() > 3, "{:?}", source.sections);
    let mut pb = source.clone();
    for to in ["skill-json", "vagenda-json", "agents-md"] {
        pb = through(&pb, to);
    }
    assert_eq!(structure(&pb), structure(&source));
    assert_eq!(pb.version, source.version, "playbook.yaml's version");
    // Each leg alone, too, and the other way round.
    for chain in [
        &["skill-json", "agents-md"][..],
        &["vagenda-json", "skill-json", "agents-md"],
        &["vagenda-tron", "skill-json", "json", "agents-md"],
    ] {
        let mut pb = source.clone();
        for to in chain {
            pb = through(&pb, to);
        }
        assert_eq!(structure(&pb), structure(&source), "{chain:?}");
    }
}

#[test]
fn sections_come_back_from_skill_json_and_vagenda() {
    the_chain_keeps_the_structure(
        &fixture("chains/AGENTS.md"),
        &fixture("chains/playbook.yaml"),
    );
}

/// A skill playbook that keeps sections says so in `metadata.ace_tools`,
/// and playbook.yaml's number is not written as the skill's `version`.
#[test]
fn a_skill_playbook_keeps_the_sections_in_its_metadata() {
    let pb = agents_pair(
        &fixture("chains/AGENTS.md"),
        &fixture("chains/playbook.yaml"),
    );
    let format = Format::from_name("skill-json").unwrap();
    let files = ace_registry::write_files(format, &pb, &ctx());
    let v: serde_json::Value = serde_json::from_str(&files.main).unwrap();
    assert!(v.get("version").is_none(), "{}", files.main);
    assert_eq!(
        v["metadata"]["ace_tools"]["version"],
        serde_json::json!(0.3)
    );
    assert_eq!(
        v["metadata"]["ace_tools"]["sections"]
            .as_array()
            .unwrap()
            .len(),
        pb.sections.len()
    );
    // Each bullet's first tag is its section, in the tag alphabet.
    for b in v["bullets"].as_array().unwrap() {
        let tag = b["tags"][0].as_str().unwrap();
        assert!(tag.ends_with("_patterns"), "{b}");
    }
    for l in &files.losses {
        assert!(
            !l.field.starts_with("sections") && l.field != "section" && l.field != "version",
            "{l:?}"
        );
    }
    // Rewritten in place, the file stays as it is.
    let read = format
        .read(&files.main, &ReadCtx::default())
        .unwrap()
        .parsed;
    let again = ace_registry::write_files(format, &read.playbook, &ctx());
    assert_eq!(again.main, files.main);
}

#[test]
#[ignore = "needs ACE_CORPUS"]
fn sections_of_the_ace_beads_pair_come_back() {
    let main = std::fs::read_to_string(
        corpus_dir("agents-md").join("sjarmak__ace_beads__knowledge__AGENTS.md"),
    )
    .unwrap();
    let yaml = std::fs::read_to_string(
        corpus_dir("playbook-yaml").join("sjarmak__ace_beads__knowledge__playbook.yaml"),
    )
    .unwrap();
    the_chain_keeps_the_structure(&main, &yaml);
}
