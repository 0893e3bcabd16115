//! Code Engine ACE's playbook as `ace-cli --json export` writes it
//! (ce-dot-net/ce-claude-marketplace, plugin 6.4.4,
//! `plugins/ace/commands/ace-export-patterns.md`): the server's patterns
//! under its four sections,
//!
//! ```json
//! {"playbook": {"strategies_and_hard_rules": [{"id": "ctx-…", "content",
//!   "helpful", "harmful", "confidence", "evidence": [...], "observations"}],
//!   "useful_code_snippets": [], "troubleshooting_and_pitfalls": [],
//!   "apis_to_use": []}}
//! ```
//!
//! and its manual deltas ([`delta`]). `ace-cli` is a Node program whose
//! source is not published (`@ace-sdk/cli` is not on the npm registry), so
//! the layout is the documented example's, printed as `JSON.stringify(v,
//! null, 2)` and `console.log` print it.

pub mod delta;
mod format;

pub use delta::{Deltas, DELTA};
pub use format::{Export, FORMAT};

use ace_format::{Read, ReadCtx};
use ace_model::{Diagnostic, Entry, Playbook, ReadOutput, Section, Span, WriteReport};
use ace_records::{Field, Printer, Slot, Writer};
use serde_json::{json, Map, Value};

/// The owner name of the layout a file is read with.
pub const LAYOUT_KEY: &str = "code-engine";

/// The project, as messages name it.
pub const PROJECT: &str = "Code Engine ACE";

/// A pattern's fields, in the order the documented export gives them.
pub const FIELDS: &[Field] = &[
    Field::new("id", Slot::Id).required(),
    Field::new("content", Slot::Content).required(),
    Field::new("helpful", Slot::Helpful),
    Field::new("harmful", Slot::Harmful),
    Field::new("confidence", Slot::Confidence),
    Field::new("evidence", Slot::Evidence),
    Field::new("observations", Slot::Extra),
];

/// The server's four sections, in the export's order (`ace-delta.md`
/// lists the same four; another is `Invalid section`).
pub const SECTIONS: [&str; 4] = [
    "strategies_and_hard_rules",
    "useful_code_snippets",
    "troubleshooting_and_pitfalls",
    "apis_to_use",
];

/// The section an entry of section `key` is written under: its own when
/// it is one of the four, else the one its words mean, else strategies.
pub fn section_for(key: &str) -> &'static str {
    if let Some(s) = SECTIONS.iter().find(|s| **s == key) {
        return s;
    }
    let k = key.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| k.contains(w));
    if has(&["trouble", "pitfall", "mistake", "error", "fail", "warn"]) {
        SECTIONS[2]
    } else if has(&["api", "librar", "framework", "tool", "dependenc"]) {
        SECTIONS[3]
    } else if has(&["code", "snippet", "template"]) {
        SECTIONS[1]
    } else {
        SECTIONS[0]
    }
}

/// Whether a text is an export: the first key of the first `playbook`
/// object is one of the four sections, as the export prints them. Told
/// there, not by a search of the whole text: every JSON file with a
/// `playbook` object (the canonical one) is asked.
pub fn sniff(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if !t.starts_with('{') {
        return false;
    }
    let first_key = t.match_indices("\"playbook\"").find_map(|(at, key)| {
        let rest = t[at + key.len()..].trim_start().strip_prefix(':')?;
        rest.trim_start().strip_prefix('{').map(str::trim_start)
    });
    first_key.is_some_and(|r| {
        SECTIONS.iter().any(|s| {
            r.strip_prefix('"')
                .and_then(|r| r.strip_prefix(s))
                .is_some_and(|r| r.starts_with('"'))
        })
    })
}

/// Reads an export.
pub fn read(text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let mut diags = doc.diagnostics;
    let root = &doc.root;
    let Some(members) = root.members() else {
        return Err(ace_records::shape(
            PROJECT,
            root.span,
            format_args!(
                "an export is a JSON object `{{\"playbook\": {{...}}}}`; found {}",
                root.type_name()
            ),
        ));
    };
    let mut pb = Playbook::default();
    let mut entries: Vec<Entry> = Vec::new();
    for m in members {
        if m.key != "playbook" {
            pb.extra.insert(m.key.to_string(), m.value.to_value());
            continue;
        }
        let Some(groups) = m.value.members() else {
            diags.push(ace_records::shape(
                PROJECT,
                m.value.span,
                format_args!(
                    "`playbook` is {}; expected an object of sections",
                    m.value.type_name()
                ),
            ));
            pb.extra.insert("playbook".into(), m.value.to_value());
            continue;
        };
        for g in groups {
            let Some(items) = g.value.as_array() else {
                diags.push(ace_records::shape(
                    PROJECT,
                    g.value.span,
                    format_args!(
                        "section `{}` is {}; expected a list of patterns",
                        g.key,
                        g.value.type_name()
                    ),
                ));
                continue;
            };
            if !SECTIONS.contains(&g.key.as_str()) {
                diags.push(ace_records::shape(
                    PROJECT,
                    g.key_span,
                    format_args!(
                        "section `{}` is none of the server's; expected one of {}",
                        g.key,
                        ace_records::one_of(&SECTIONS)
                    ),
                ));
            }
            pb.sections.push(Section {
                key: g.key.to_string(),
                ..Default::default()
            });
            for item in items {
                if let Some(mut e) = ace_records::read(item, FIELDS, PROJECT, "pattern", &mut diags)
                {
                    e.section = Some(g.key.to_string());
                    if let Some(ace_model::Confidence::Score(n)) = &e.confidence {
                        e.confidence = Some(ace_model::Confidence::Score(ace_records::js_read(n)));
                    }
                    entries.push(e);
                }
            }
        }
    }
    if root.get("playbook").is_none() {
        diags.push(ace_records::shape(
            PROJECT,
            Span::new(root.span.start, root.span.start + 1),
            "an export has no `playbook`",
        ));
    }
    pb.entries = entries;
    pb.set_layout(LAYOUT_KEY, json!({ "final_newline": text.ends_with('\n') }));
    Ok(ReadOutput {
        playbook: pb,
        diagnostics: diags,
    }
    .into())
}

/// The text of `pb` as an export, and what it could not hold.
pub fn write(pb: &Playbook) -> (String, WriteReport) {
    let layout = pb.layout_of(LAYOUT_KEY);
    let own = layout.is_some();
    let writer = Writer {
        fields: FIELDS,
        keep_extra: own,
        time: "",
    };
    // The four sections, always, in the export's order; in a file read as
    // an export, the other groups it had after them, as they were.
    let mut order: Vec<String> = SECTIONS.iter().map(|s| s.to_string()).collect();
    if own {
        for s in &pb.sections {
            if !order.contains(&s.key) {
                order.push(s.key.clone());
            }
        }
    }
    let mut groups: Map<String, Value> = order
        .iter()
        .map(|k| (k.clone(), Value::Array(Vec::new())))
        .collect();
    for e in &pb.entries {
        let key = e.section.as_deref().unwrap_or("");
        let key = if groups.contains_key(key) {
            key.to_owned()
        } else {
            section_for(key).to_owned()
        };
        if let Some(Value::Array(list)) = groups.get_mut(&key) {
            list.push(Value::Object(writer.record(e, None)));
        }
    }
    let mut top = Map::new();
    top.insert("playbook".into(), Value::Object(groups));
    if own {
        for (k, v) in &pb.extra {
            top.insert(k.clone(), v.clone());
        }
    }
    let mut text = Printer::JavaScript { indent: 2 }.print(&Value::Object(top));
    if layout
        .and_then(|l| l.get("final_newline"))
        .and_then(Value::as_bool)
        .unwrap_or(true)
    {
        text.push('\n');
    }
    let report = match read(&text, &ReadCtx::default()) {
        Ok(back) => ace_records::readback(
            pb,
            &back.parsed.playbook,
            "a Code Engine export holds a pattern's ID, content, two counters, confidence, evidence as text and observations, grouped under its four sections",
        ),
        Err(_) => WriteReport::default(),
    };
    (text, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented export with its `[...]` placeholders as empty lists,
    /// which `ace-export-patterns.md` shows as invalid JSON.
    const DOCUMENTED: &str = "{\n  \"playbook\": {\n    \"strategies_and_hard_rules\": [\n      {\n        \"id\": \"ctx-xxx\",\n        \"content\": \"Pattern content...\",\n        \"helpful\": 5,\n        \"harmful\": 0,\n        \"confidence\": 1,\n        \"evidence\": [],\n        \"observations\": 10\n      }\n    ],\n    \"useful_code_snippets\": [],\n    \"troubleshooting_and_pitfalls\": [],\n    \"apis_to_use\": []\n  }\n}\n";

    #[test]
    fn an_export_is_told_by_the_first_key_of_its_playbook() {
        assert!(sniff(DOCUMENTED));
        let named = r#"{"name": "playbook", "playbook": {"apis_to_use": []}}"#;
        assert!(sniff(named));
        let canonical = r#"{"format": "x", "playbook": {"title": "t", "entries": [{"section": "apis_to_use"}]}}"#;
        assert!(!sniff(canonical));
        assert!(!sniff(r#"{"playbook": {"apis_to_use_more": []}}"#));
        assert!(!sniff(r#"["playbook", {"apis_to_use": []}]"#));
    }

    #[test]
    fn the_documented_export_reads_and_writes_back_byte_for_byte() {
        let r = read(DOCUMENTED, &ReadCtx::default()).unwrap().parsed;
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        let e = &r.playbook.entries[0];
        assert_eq!((e.helpful, e.harmful), (Some(5), Some(0)));
        let one = DOCUMENTED.replace("\"confidence\": 1", "\"confidence\": 1.0");
        let one = read(&one, &ReadCtx::default()).unwrap().parsed.playbook;
        assert_eq!(write(&one).0, DOCUMENTED, "JSON.parse reads 1.0 as 1");
        assert_eq!(e.extra.get("observations"), Some(&Value::from(10)));
        assert_eq!(r.playbook.sections.len(), 4);
        let (text, report) = write(&r.playbook);
        assert_eq!(text, DOCUMENTED);
        assert!(report.losses.is_empty(), "{:?}", report.losses);
    }

    #[test]
    fn a_section_of_another_playbook_goes_under_the_one_it_means() {
        assert_eq!(
            section_for("common_mistakes_to_avoid"),
            "troubleshooting_and_pitfalls"
        );
        assert_eq!(
            section_for("apis_to_use_for_specific_information"),
            "apis_to_use"
        );
        assert_eq!(
            section_for("code_snippets_and_templates"),
            "useful_code_snippets"
        );
        assert_eq!(section_for("others"), "strategies_and_hard_rules");
    }
}
