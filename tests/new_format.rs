//! A format that is not built in, registered by this test alone: one
//! line per entry, `SECTION<TAB>ID<TAB>HELPFUL<TAB>HARMFUL<TAB>CONTENT`.
//! Registering it is all it takes for the checks every built-in format
//! goes through to cover it: detection, the property tests, the
//! conversion matrix, the fuzz replay and the capability table. None of
//! those checks names a format; each iterates the registry it is given.

use crate::fuzz_checks;

use std::path::Path;

use ace_exec::Out;
use ace_format::{Confidence, PlaybookFormat, Read, ReadCtx, Sniff, WriteCtx};
use ace_model::WriteReport;
use ace_model::{rules, Diagnostic, Entry, LossEntry, Playbook, ReadOutput, Section, Span};
use ace_registry::{Format, Registry};
use ace_tests::{fixture, matrix, props};
use proptest::prelude::*;
use serde_json::Value;

struct Lines;

static LINES: Lines = Lines;

/// The fields a line holds; every other field is reported lost.
const HELD: [&str; 5] = ["id", "section", "content", "helpful", "harmful"];

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// `-` for none, `=TEXT` for some, so that an empty section is not none.
fn optional(s: Option<&str>) -> String {
    s.map_or("-".to_owned(), |s| format!("={}", escape(s)))
}

fn counter(c: Option<i64>) -> String {
    c.map(|n| n.to_string()).unwrap_or_default()
}

fn object(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// One loss per field of `value` that is not `held`; an `extra` map loses
/// each of its keys.
fn lose_unheld(value: Value, held: &[&str], id: Option<&str>, prefix: &str) -> Vec<LossEntry> {
    let mut out = Vec::new();
    for (k, v) in object(value) {
        if held.contains(&k.as_str()) {
            continue;
        }
        let fields: Vec<String> = if k == "extra" {
            object(v).keys().map(|x| format!("extra.{x}")).collect()
        } else {
            vec![k]
        };
        for f in fields {
            out.push(LossEntry::new(
                &rules::DROPPED_FIELD,
                id,
                format!("{prefix}{f}"),
                "a line holds the section, ID, counters and content only",
            ));
        }
    }
    out
}

impl PlaybookFormat for Lines {
    fn name(&self) -> &'static str {
        "test-lines"
    }

    fn describe(&self) -> &'static str {
        "one entry per tab-separated line (registered by a test)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["lines"]
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        (input.extension().as_deref() == Some("lines")).then_some(Confidence::Name)
    }

    fn read(&self, text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
        let mut pb = Playbook::default();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            let start = at;
            at += line.len();
            let fields: Vec<&str> = line.trim_end_matches('\n').split('\t').collect();
            let bad = |what: &str| {
                Diagnostic::new(
                    &rules::PARSE_ERROR,
                    Span::new(start, start + line.len()),
                    format!("expected {what}"),
                )
            };
            let [section, id, helpful, harmful, content] = fields[..] else {
                return Err(bad("five tab-separated fields"));
            };
            let number = |s: &str| match s {
                "" => Ok(None),
                s => s.parse().map(Some).map_err(|_| bad("a counter")),
            };
            let mut e = Entry::new(unescape(id), unescape(content));
            e.helpful = number(helpful)?;
            e.harmful = number(harmful)?;
            e.section = match section {
                "-" => None,
                s => Some(unescape(
                    s.strip_prefix('=').ok_or_else(|| bad("- or =SECTION"))?,
                )),
            };
            if let Some(key) = &e.section {
                if pb.section(key).is_none() {
                    pb.sections.push(Section::new(key.clone()));
                }
            }
            pb.entries.push(e);
        }
        Ok(ReadOutput {
            playbook: pb,
            diagnostics: Vec::new(),
        }
        .into())
    }

    fn write(&self, pb: &Playbook, _: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let mut losses = lose_unheld(
            serde_json::to_value(pb).unwrap(),
            &["sections", "entries"],
            None,
            "",
        );
        for s in &pb.sections {
            let key = format!("sections[{}]", s.key);
            if !pb
                .entries
                .iter()
                .any(|e| e.section.as_deref() == Some(&s.key))
            {
                losses.push(LossEntry::new(
                    &rules::DROPPED_FIELD,
                    None,
                    key,
                    "a section without entries has no line",
                ));
                continue;
            }
            let value = serde_json::to_value(s).unwrap();
            losses.extend(lose_unheld(value, &["key"], None, &format!("{key}.")));
        }
        // A line has no place for the sections' order: they are read back
        // in the order their first entries come.
        let mut first_seen: Vec<&str> = Vec::new();
        for s in pb.entries.iter().filter_map(|e| e.section.as_deref()) {
            if !first_seen.contains(&s) {
                first_seen.push(s);
            }
        }
        let held: Vec<&str> = pb
            .sections
            .iter()
            .map(|s| s.key.as_str())
            .filter(|k| first_seen.contains(k))
            .collect();
        if held
            != first_seen
                .iter()
                .copied()
                .filter(|k| held.contains(k))
                .collect::<Vec<_>>()
        {
            losses.push(LossEntry::new(
                &rules::DROPPED_FIELD,
                None,
                "sections",
                "the sections are read back in the order their first entries come",
            ));
        }
        for e in &pb.entries {
            let value = serde_json::to_value(e).unwrap();
            losses.extend(lose_unheld(value, &HELD, Some(&e.id), ""));
            out.push_str(
                &[
                    optional(e.section.as_deref()),
                    escape(&e.id),
                    counter(e.helpful),
                    counter(e.harmful),
                    escape(&e.content),
                ]
                .join("\t"),
            );
            out.push('\n');
        }
        WriteReport {
            losses,
            id_changes: Vec::new(),
        }
    }
}

fn registry() -> Registry {
    Registry::builtin().clone().with(Format::new(&LINES))
}

fn lines() -> Format {
    registry().by_name("test-lines").expect("registered")
}

#[test]
fn detection_and_names_come_from_the_registry() {
    let r = registry();
    assert_eq!(r.detect(Some(Path::new("p.lines")), ""), lines());
    assert_eq!(r.for_output(Path::new("out.lines")), Some(lines()));
    assert_eq!(r.formats().last(), Some(&lines()));
    // The built-in registry does not know it.
    assert_eq!(Format::from_name("test-lines"), None);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn the_property_tests_cover_it(pb in props::playbook()) {
        let r = registry();
        props::the_loss_report_is_exactly_the_difference(&r, &pb)?;
        props::a_trip_through_another_format_keeps_what_both_hold(&r, &pb)?;
    }
}

#[test]
fn the_conversion_matrix_covers_it() {
    let r = registry();
    for name in ["markdown/canonical.md", "markdown/multiline.txt"] {
        let pb = ace_registry::read(Format::MARKDOWN, &fixture(name))
            .unwrap()
            .playbook;
        matrix::converts_to_every_format(&r, name, &pb);
        // Its own output reads back as written, counters included.
        let back = props::convert(&pb, lines()).back;
        let ids = |p: &Playbook| p.entries.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&back), ids(&pb), "{name}");
    }
    props::extreme_sizes_round_trip(&r);
}

#[test]
fn the_fuzz_replay_covers_it() {
    let r = registry();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz/round_trip");
    let mut replayed = 0;
    for input in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(input.unwrap().path()).unwrap();
        fuzz_checks::round_trip_in(r.formats(), &data);
        // And with this format as the source.
        let mut picked = data.clone();
        if let Some(first) = picked.first_mut() {
            *first = (r.formats().len() - 1) as u8;
        }
        fuzz_checks::round_trip_in(r.formats(), &picked);
        replayed += 1;
    }
    assert!(replayed > 0);
}

#[test]
fn the_capability_table_covers_it() {
    assert_eq!(ace_registry::capabilities::unlisted_losses(lines()), []);
    let caps = ace_registry::capabilities::capabilities(lines());
    let holds = |row: &str| caps.iter().find(|(l, _)| *l == row).map(|(_, h)| *h);
    assert_eq!(
        holds("helpful / harmful"),
        Some(ace_registry::capabilities::Holds::Yes)
    );
    assert_eq!(holds("tags"), Some(ace_registry::capabilities::Holds::No));
}
