//! The canonical JSON form of the model (`--to json`), like pandoc's `native`:
//! every field the model holds, nothing else, in a fixed order.

mod format;

pub use format::{Canonical, FORMAT};

use ace_model::{rules, Diagnostic, Playbook, Span};
use serde::{Deserialize, Serialize};

pub const FORMAT_TAG: &str = "ace-canonical";
pub const VERSION: u64 = 1;

#[derive(Serialize)]
struct DocOut<'a> {
    format: &'static str,
    version: u64,
    playbook: &'a Playbook,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocIn {
    format: String,
    version: u64,
    playbook: Playbook,
}

/// The document as the schema describes it (`schemas/ace-canonical.schema.json`).
#[derive(schemars::JsonSchema)]
#[schemars(
    title = "ace-tools canonical playbook",
    description = "The canonical JSON form of an ACE playbook written by `ace-convert --to json`: every field the ace-tools model holds, from any of the five formats. Generated from the model's Rust types with schemars; `cargo xtask docs` regenerates it."
)]
#[allow(dead_code)] // only its schema is used
struct CanonicalDocument {
    /// Always `ace-canonical`.
    #[schemars(extend("const" = "ace-canonical"))]
    format: String,
    /// The version of this layout; always 1.
    #[schemars(extend("const" = 1))]
    version: u64,
    playbook: Playbook,
}

/// The JSON Schema of the canonical document, pretty-printed with a final
/// newline, as committed in `schemas/ace-canonical.schema.json`.
pub fn json_schema() -> String {
    let mut schema = schemars::schema_for!(CanonicalDocument);
    schema.insert(
        "$id".into(),
        "https://ace-tools.invalid/schemas/ace-canonical.schema.json".into(),
    );
    let mut out = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    out.push('\n');
    out
}

/// Pretty-printed with two-space indent and a final newline.
pub fn write(playbook: &Playbook) -> String {
    let mut out = ace_exec::Out::new();
    write_into(playbook, &mut out);
    out.into_string()
}

/// [`write`] into `out`, which may send the text on as it is printed.
pub fn write_into(playbook: &Playbook, out: &mut ace_exec::Out<'_>) {
    let doc = DocOut {
        format: FORMAT_TAG,
        version: VERSION,
        playbook,
    };
    // Out takes every byte; the sink's errors come out of `Out::finish`.
    let _ = serde_json::to_writer_pretty(&mut *out, &doc);
    out.push('\n');
}

/// The canonical document of `playbook` as a value to serialize: what
/// [`write`] prints, for a serializer of another kind (the Python module
/// builds its dict straight from it).
pub fn document(playbook: &Playbook) -> impl Serialize + '_ {
    DocOut {
        format: FORMAT_TAG,
        version: VERSION,
        playbook,
    }
}

/// Reads a canonical document; any error is an `ACE000` diagnostic at the
/// position serde_json reports.
pub fn read(src: &str) -> Result<Playbook, Diagnostic> {
    let doc: DocIn = serde_json::from_str(src).map_err(|e| {
        let offset = offset_of(src, e.line(), e.column());
        Diagnostic::new(
            &rules::PARSE_ERROR,
            Span::new(offset, offset),
            e.to_string(),
        )
    })?;
    if doc.format != FORMAT_TAG {
        return Err(Diagnostic::new(
            &rules::PARSE_ERROR,
            Span::new(0, 0),
            format!(
                "expected \"format\": \"{FORMAT_TAG}\", found \"{}\"",
                doc.format
            ),
        ));
    }
    if doc.version != VERSION {
        return Err(Diagnostic::new(
            &rules::PARSE_ERROR,
            Span::new(0, 0),
            format!(
                "canonical version {} is not supported; expected {VERSION}",
                doc.version
            ),
        ));
    }
    Ok(doc.playbook)
}

/// Whether `src` looks like a canonical document (for format detection).
pub fn sniff(src: &str) -> bool {
    let head: String = src.chars().take(256).collect();
    head.trim_start().starts_with('{') && head.contains(&format!("\"{FORMAT_TAG}\""))
}

/// serde_json reports 1-based line and column (in bytes); turn them into an offset.
fn offset_of(src: &str, line: usize, column: usize) -> usize {
    if line == 0 {
        return 0;
    }
    let line_start: usize = src.split_inclusive('\n').take(line - 1).map(str::len).sum();
    (line_start + column.saturating_sub(1)).min(src.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_model::*;

    #[test]
    fn round_trip_keeps_absent_distinct_from_zero() {
        let mut pb = Playbook::default();
        pb.sections.push(Section::new("s"));
        let mut a = Entry::new("s-1", "text");
        a.section = Some("s".into());
        a.helpful = Some(0);
        let b = Entry::new("s-2", "other");
        pb.entries = vec![a, b];
        let text = write(&pb);
        assert!(sniff(&text));
        let back = read(&text).unwrap();
        assert_eq!(back, pb);
        assert_eq!(back.entries[0].helpful, Some(0));
        assert_eq!(back.entries[1].helpful, None);
        assert_eq!(write(&back), text);
    }

    /// A null that is there (playbook.yaml's bare `version:`) is a value
    /// the canonical form writes and must read back, not an absent field.
    #[test]
    fn a_present_null_reads_back_as_written() {
        let mut pb = Playbook {
            version: Some(serde_json::Value::Null),
            ..Playbook::default()
        };
        let mut e = Entry::new("a-1", "x");
        e.scope = Some(Scope::Detail(Box::new(ScopeDetail {
            inputs: Some(serde_json::Value::Null),
            ..Default::default()
        })));
        pb.entries = vec![e];
        let text = write(&pb);
        assert!(text.contains("\"version\": null"), "{text}");
        let back = read(&text).unwrap();
        assert_eq!(back, pb);
        assert_eq!(write(&back), text);
        let absent = read(r#"{"format":"ace-canonical","version":1,"playbook":{}}"#).unwrap();
        assert_eq!(absent.version, None);
    }

    #[test]
    fn errors_carry_a_position() {
        let err = read("{\n  \"format\": \"ace-canonical\",\n  oops\n}").unwrap_err();
        assert_eq!(err.code, "ACE000");
        let text = "{\n  \"format\": \"ace-canonical\",\n  oops\n}";
        let lc = LineIndex::new(text).line_col(text, err.span.start);
        assert_eq!(lc.line, 3);
        assert!(read(r#"{"format":"x","version":1,"playbook":{}}"#).is_err());
        assert!(read(r#"{"format":"ace-canonical","version":9,"playbook":{}}"#).is_err());
    }
}
