//! DannyMac180/ACE's playbook as `ace playbook dump --out FILE` writes it
//! and `ace playbook import` reads it: the pydantic `Playbook`,
//! `{version, bullets: [{id, section, content, tags, helpful, harmful,
//! last_used, added_at}]}`, printed by `json.dump(indent=2,
//! default=str)` with no final newline (`ace/cli.py`,
//! `ace/core/schema.py`), and its delta operations ([`ops`]).

mod format;
pub mod ops;

pub use format::{Dump, FORMAT, LEDGER};
pub use ops::{Ops, OPS};

use ace_format::{Read, ReadCtx};
use ace_jsonspan::Kind;
use ace_model::{Diagnostic, Playbook, ReadOutput, Span, WriteReport};
use ace_records::{Field, Fill, Printer, Slot, Writer};
use serde_json::{json, Map, Value};

/// The owner name of the layout a file is read with.
pub const LAYOUT_KEY: &str = "dannymac";

/// The project, as messages name it.
pub const PROJECT: &str = "DannyMac180/ACE";

/// A bullet's fields, in the order `Bullet.model_dump()` gives them.
pub const FIELDS: &[Field] = &[
    Field::new("id", Slot::Id).required(),
    Field::new("section", Slot::Section).required(),
    Field::new("content", Slot::Content).required(),
    Field::new("tags", Slot::Tags).fill(Fill::EmptyList),
    Field::new("helpful", Slot::Helpful).fill(Fill::Zero),
    Field::new("harmful", Slot::Harmful).fill(Fill::Zero),
    Field::new("last_used", Slot::Extra).fill(Fill::Null),
    Field::new("added_at", Slot::Created).fill(Fill::Time),
];

/// The four sections of `schema.Section`.
pub const SECTIONS: [&str; 4] = [
    "strategies_and_hard_rules",
    "code_snippets_and_templates",
    "troubleshooting_and_pitfalls",
    "domain_facts_and_references",
];

/// `SECTION_MIGRATION_MAP`'s old names and the sections they load as.
pub const LEGACY: [(&str, &str); 5] = [
    ("strategies", "strategies_and_hard_rules"),
    ("templates", "code_snippets_and_templates"),
    ("code_snippets", "code_snippets_and_templates"),
    ("troubleshooting", "troubleshooting_and_pitfalls"),
    ("facts", "domain_facts_and_references"),
];

/// The section `name` loads as in DannyMac180's `normalize_section`, if
/// it loads at all.
pub fn normalized(name: &str) -> Option<&'static str> {
    SECTIONS
        .iter()
        .copied()
        .find(|s| *s == name)
        .or_else(|| LEGACY.iter().find(|(o, _)| *o == name).map(|(_, n)| *n))
}

/// The section an entry of another playbook's section `key` is written
/// under: its own when it loads, else the one its words mean, else
/// domain facts.
pub fn section_for(key: &str) -> &'static str {
    if let Some(s) = normalized(key) {
        return s;
    }
    let k = key.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| k.contains(w));
    if has(&["strateg", "rule", "insight", "principle"]) {
        SECTIONS[0]
    } else if has(&["code", "snippet", "template", "api", "tool"]) {
        SECTIONS[1]
    } else if has(&["trouble", "pitfall", "mistake", "error", "fail", "warn"]) {
        SECTIONS[2]
    } else {
        SECTIONS[3]
    }
}

/// Whether a text is a dump: an object with `bullets` whose records carry
/// `last_used` and `added_at`, which `Bullet.model_dump()` always writes
/// and no other format's bullets have. The keys are looked for in the
/// text's first 64 KiB, where a dump's first bullet is: a large skill
/// playbook, which has `bullets` too, is not searched to its end.
pub fn sniff(text: &str) -> bool {
    const HEAD: usize = 1 << 16;
    let head = ace_format::head(text.trim_start_matches('\u{feff}').trim_start(), HEAD);
    head.starts_with('{')
        && head.contains("\"bullets\"")
        && head.contains("\"added_at\"")
        && head.contains("\"last_used\"")
}

/// Reads a dump.
pub fn read(text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let mut diags = doc.diagnostics;
    let root = &doc.root;
    let mut pb = Playbook::default();
    let Some(members) = root.members() else {
        return Err(ace_records::shape(
            PROJECT,
            root.span,
            format_args!(
                "a dump is a JSON object `{{version, bullets}}`; found {}",
                root.type_name()
            ),
        ));
    };
    let mut entries = Vec::new();
    for m in members {
        match m.key.as_str() {
            "version" => {
                if !matches!(&m.value.kind, Kind::Number(n) if !n.contains(['.', 'e', 'E'])) {
                    diags.push(ace_records::shape(
                        PROJECT,
                        m.value.span,
                        format_args!(
                            "`version` is {}; expected a whole number",
                            m.value.type_name()
                        ),
                    ));
                }
                pb.version = Some(m.value.to_value());
            }
            "bullets" => {
                let Some(items) = m.value.as_array() else {
                    diags.push(ace_records::shape(
                        PROJECT,
                        m.value.span,
                        format_args!("`bullets` is {}; expected a list", m.value.type_name()),
                    ));
                    pb.extra.insert("bullets".into(), m.value.to_value());
                    continue;
                };
                for item in items {
                    let Some(mut e) =
                        ace_records::read(item, FIELDS, PROJECT, "bullet", &mut diags)
                    else {
                        continue;
                    };
                    if let Some(t) = e.created_at.as_deref().and_then(iso_time) {
                        e.created_at = Some(t);
                    }
                    if let (Some(s), Some(at)) = (&e.section, item.get("section")) {
                        if normalized(s).is_none() {
                            diags.push(ace_records::shape(
                                PROJECT,
                                at.span,
                                format_args!(
                                    "section `{s}` does not load; expected one of {} (or an old name `SECTION_MIGRATION_MAP` maps)",
                                    ace_records::one_of(&SECTIONS)
                                ),
                            ));
                        }
                    }
                    entries.push(e);
                }
            }
            _ => {
                pb.extra.insert(m.key.to_string(), m.value.to_value());
            }
        }
    }
    if root.get("version").is_none() {
        diags.push(ace_records::shape(
            PROJECT,
            Span::new(root.span.start, root.span.start + 1),
            "a dump has no `version`, which `Playbook` requires",
        ));
    }
    pb.sections = ace_records::sections_of(&entries);
    pb.entries = entries;
    let newline = text.ends_with('\n');
    pb.set_layout(LAYOUT_KEY, json!({ "final_newline": newline }));
    Ok(ReadOutput {
        playbook: pb,
        diagnostics: diags,
    }
    .into())
}

/// A time `str(datetime)` printed (`2025-11-03 18:46:31.628895`) in ISO
/// 8601's form, as pydantic reads it: the space as `T`. `None` for text
/// that is no such time, which is kept as written.
pub fn iso_time(t: &str) -> Option<String> {
    if t.as_bytes().get(10) != Some(&b' ') {
        return None;
    }
    let iso = format!("{}T{}", &t[..10], &t[11..]);
    matches!(
        ace_model::time::shape(&iso),
        ace_model::time::Shape::DateTime | ace_model::time::Shape::NoZone
    )
    .then_some(iso)
}

/// A time as Python's `str(datetime)` prints it, which `default=str`
/// writes: RFC 3339's `T` as a space, and `Z` as `+00:00`.
pub fn python_time(t: &str) -> String {
    let b = t.as_bytes();
    if b.len() < 19 || b[10] != b'T' {
        return t.to_owned();
    }
    let mut s = format!("{} {}", &t[..10], &t[11..]);
    if s.ends_with('Z') {
        s.pop();
        s.push_str("+00:00");
    }
    s
}

/// The text of `pb` as a dump, and what it could not hold.
pub fn write(pb: &Playbook, now: Option<&str>, clock: Option<&str>) -> (String, WriteReport) {
    let layout = pb.layout_of(LAYOUT_KEY);
    let own = layout.is_some();
    // A new bullet's `added_at` is `datetime.utcnow()`: naive UTC.
    let time = now
        .or_else(|| ace_model::time::latest(pb))
        .or(clock)
        .map_or("1970-01-01 00:00:00".to_owned(), |t| {
            python_time(t).trim_end_matches("+00:00").to_owned()
        });
    let writer = Writer {
        fields: FIELDS,
        keep_extra: own,
        time: &time,
    };
    let bullets: Vec<Value> = pb
        .entries
        .iter()
        .map(|e| {
            let section = section_for(e.section.as_deref().unwrap_or(""));
            let mut rec = writer.record(e, Some(section));
            if let Some(Value::String(t)) = rec.get_mut("added_at") {
                *t = python_time(t);
            }
            Value::Object(rec)
        })
        .collect();
    let version = match &pb.version {
        Some(Value::Number(n)) if n.is_i64() => Value::Number(n.clone()),
        _ => Value::from(0),
    };
    let mut top = Map::new();
    top.insert("version".into(), version);
    top.insert("bullets".into(), Value::Array(bullets));
    if own {
        for (k, v) in &pb.extra {
            top.insert(k.clone(), v.clone());
        }
    }
    let mut text = Printer::Python { indent: 2 }.print(&Value::Object(top));
    if layout
        .and_then(|l| l.get("final_newline"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        text.push('\n');
    }
    let back = read(&text, &ReadCtx::default()).map(|r| r.parsed.playbook);
    let report = match back {
        Ok(back) => ace_records::readback(
            pb,
            &back,
            "a DannyMac180/ACE dump holds a bullet's ID, one of four sections, content, tags, two counters, last_used and added_at, and the playbook's whole-number version",
        ),
        Err(_) => WriteReport::default(),
    };
    (text, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = r#"{
  "version": 3,
  "bullets": [
    {
      "id": "strat-00001",
      "section": "strategies_and_hard_rules",
      "content": "Prefer hybrid retrieval \u2014 BM25 + embeddings.",
      "tags": [
        "topic:retrieval"
      ],
      "helpful": 2,
      "harmful": 0,
      "last_used": null,
      "added_at": "2025-11-03 18:46:31.628895"
    }
  ]
}"#;

    #[test]
    fn a_dump_reads_and_writes_back_byte_for_byte() {
        let r = read(DUMP, &ReadCtx::default()).unwrap();
        assert!(
            r.parsed.diagnostics.is_empty(),
            "{:?}",
            r.parsed.diagnostics
        );
        let pb = r.parsed.playbook;
        assert_eq!(pb.entries[0].helpful, Some(2));
        assert_eq!(
            pb.entries[0].content,
            "Prefer hybrid retrieval — BM25 + embeddings."
        );
        assert_eq!(
            pb.entries[0].created_at.as_deref(),
            Some("2025-11-03T18:46:31.628895")
        );
        let (text, report) = write(&pb, None, None);
        assert_eq!(text, DUMP);
        assert!(report.losses.is_empty(), "{:?}", report.losses);
    }

    #[test]
    fn an_old_section_name_is_written_as_the_one_it_loads_as() {
        let text = DUMP.replace("\"strategies_and_hard_rules\"", "\"strategies\"");
        let pb = read(&text, &ReadCtx::default()).unwrap().parsed.playbook;
        let (out, report) = write(&pb, None, None);
        assert_eq!(out, DUMP);
        let fields: Vec<&str> = report.losses.iter().map(|l| &*l.field).collect();
        assert_eq!(fields, ["sections[strategies]", "section"]);
    }

    #[test]
    fn a_section_that_does_not_load_is_reported_at_it() {
        let text = DUMP.replace("\"strategies_and_hard_rules\"", "\"misc\"");
        let r = read(&text, &ReadCtx::default()).unwrap().parsed;
        let d = &r.diagnostics[0];
        assert_eq!(d.code, "ACE092");
        assert_eq!(&text[d.span.start..d.span.end], "\"misc\"");
    }

    #[test]
    fn rfc_3339_times_are_written_as_python_prints_them() {
        assert_eq!(
            python_time("2026-03-02T10:15:00Z"),
            "2026-03-02 10:15:00+00:00"
        );
        assert_eq!(python_time("2026-03-02 10:15:00"), "2026-03-02 10:15:00");
    }
}
