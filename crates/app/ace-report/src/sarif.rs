//! SARIF 2.1.0 output (OASIS), the format GitHub code scanning uploads.
//! One run; the driver lists every rule that has a result, with its
//! summary, doc paragraph and default level, so a viewer can explain a
//! finding without ace-tools at hand.

use std::collections::BTreeMap;
use std::io::{self, Write};

use ace_model::{rules, LineIndex, Severity};
use serde_json::{json, Value};

use crate::FileReport;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const RULES_DOC: &str = "https://github.com/ace-tools/ace-tools/blob/main/docs/rules.md";

fn level(sev: Severity) -> &'static str {
    match sev {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A file name as a relative URI reference: `/` separators, and every byte
/// outside RFC 3986's unreserved set and `/` percent-encoded (so `<stdin>`
/// and spaces are valid).
pub(crate) fn uri(name: &str) -> String {
    let name = name.replace('\\', "/");
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub(crate) fn render(reports: &[FileReport], out: &mut dyn Write) -> io::Result<()> {
    let mut used: BTreeMap<&str, usize> = BTreeMap::new();
    for d in reports.iter().flat_map(|r| r.diagnostics) {
        used.insert(d.code, 0);
    }
    for (i, v) in used.values_mut().enumerate() {
        *v = i;
    }
    let rule_objects: Vec<Value> = used
        .keys()
        .map(|code| {
            let r = rules::by_code(code);
            json!({
                "id": code,
                "name": r.map_or("", |r| r.name),
                "shortDescription": {"text": r.map_or("", |r| r.summary)},
                "fullDescription": {"text": r.map_or("", |r| r.doc)},
                "helpUri": format!("{RULES_DOC}#{}", code.to_lowercase()),
                "defaultConfiguration": {"level": r.map_or("warning", |r| level(r.severity))},
                "properties": {"source": r.map_or("", |r| r.source)}
            })
        })
        .collect();
    let mut results = Vec::new();
    for r in reports {
        let index = LineIndex::new(r.text);
        let location = |start: usize, end: usize| {
            let s = index.line_col(r.text, start);
            let e = index.line_col(r.text, end.max(start));
            json!({
                "physicalLocation": {
                    "artifactLocation": {"uri": uri(r.name)},
                    "region": {
                        "startLine": s.line,
                        "startColumn": s.col,
                        "endLine": e.line,
                        "endColumn": e.col.max(if e.line == s.line { s.col } else { 1 }),
                    }
                }
            })
        };
        for d in r.diagnostics {
            let mut result = json!({
                "ruleId": d.code,
                "ruleIndex": used[d.code],
                "level": level(d.severity),
                "message": {"text": match &d.help {
                    Some(h) => format!("{} (help: {h})", d.message),
                    None => d.message.clone(),
                }},
                "locations": [location(d.span.start, d.span.end)],
            });
            if !d.related.is_empty() {
                result["relatedLocations"] = d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, rel)| {
                        let mut l = location(rel.span.start, rel.span.end);
                        l["id"] = json!(i);
                        l["message"] = json!({"text": rel.message});
                        l
                    })
                    .collect();
            }
            results.push(result);
        }
    }
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ace-validate",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": RULES_DOC,
                "rules": rule_objects,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}
