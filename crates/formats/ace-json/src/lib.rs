//! The canonical JSON form of the model (`--to json`), like pandoc's `native`:
//! every field the model holds, nothing else, in a fixed order.

mod format;
mod print;

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
/// The entries are printed as serde_json prints them at their depth, a
/// large playbook's in runs on every core, in order.
pub fn write_into(playbook: &Playbook, out: &mut ace_exec::Out<'_>) {
    if !playbook.entries.is_empty() {
        write_entries(playbook, out);
    } else {
        // Out takes every byte; the sink's errors come out of `Out::finish`.
        let _ = serde_json::to_writer_pretty(&mut *out, &document(playbook));
    }
    out.push('\n');
}

/// [`write_into`] of a playbook with entries, the same bytes as
/// serde_json's: the document without its entries and `extra` (the
/// model's last two fields, left out when empty), then the entries, then
/// `extra`. Printed by hand, an entry takes under half the instructions
/// serde_json's derived printer takes.
fn write_entries(playbook: &Playbook, out: &mut ace_exec::Out<'_>) {
    let head = without_entries(playbook);
    let head = serde_json::to_string_pretty(&document(&head)).expect("the model serializes");
    // `"playbook": {…}` closes the document; an empty one is `{}`.
    let open = match head.strip_suffix("\n  }\n}") {
        Some(fields) => {
            out.push_str(fields);
            ","
        }
        None => {
            out.push_str(head.strip_suffix("}\n}").unwrap_or(&head));
            ""
        }
    };
    out.push_str(open);
    out.push_str("\n    \"entries\": [");
    let entries = &playbook.entries;
    ace_exec::par::print_runs(entries.len(), out, |range, out| {
        // A run's buffer is made once at about its size: grown by doubling
        // it is copied again at each step. An entry's members beside its
        // content print to about 600 bytes.
        out.reserve(range.clone().map(|i| entries[i].content.len() + 1024).sum());
        for i in range {
            out.push_str(if i == 0 { "\n      " } else { ",\n      " });
            print::entry(out, 3, &entries[i]);
        }
    });
    out.push_str("\n    ]");
    if !playbook.extra.is_empty() {
        out.push_str(",\n    \"extra\": ");
        nested(out, 2, &playbook.extra);
    }
    out.push_str("\n  }\n}");
}

/// Every field of `pb` but its entries and `extra`.
fn without_entries(pb: &Playbook) -> Playbook {
    // The pattern names each field, so that a field added to the model
    // is a compile error here until it is placed.
    let Playbook {
        title,
        description,
        version,
        project_id,
        created_at,
        updated_at,
        sections,
        entries: _,
        extra: _,
        layout: _,
    } = pb;
    Playbook {
        title: title.clone(),
        description: description.clone(),
        version: version.clone(),
        project_id: project_id.clone(),
        created_at: created_at.clone(),
        updated_at: updated_at.clone(),
        sections: sections.clone(),
        entries: Vec::new(),
        extra: serde_json::Map::new(),
        layout: ace_model::Kept::default(),
    }
}

/// `value` pretty-printed as serde_json prints it `depth` levels deep
/// (two spaces a level).
fn nested(out: &mut ace_exec::Out<'_>, depth: usize, value: &impl Serialize) {
    let pretty = Nested {
        depth,
        has_value: false,
    };
    let _ = value.serialize(&mut serde_json::Serializer::with_formatter(out, pretty));
}

/// serde_json's `PrettyFormatter` (two spaces), started at a depth, and
/// each line break written with its indentation in one piece.
struct Nested {
    depth: usize,
    has_value: bool,
}

/// A line break and the indentation of up to 64 levels.
const BREAK: &str = "\n                                                                                                                                ";

/// A line break and the indentation of `depth` levels, as serde_json's
/// `PrettyFormatter` writes them, in one piece up to 64 levels.
fn line_break<W: ?Sized + std::io::Write>(w: &mut W, depth: usize) -> std::io::Result<()> {
    match BREAK.get(..1 + 2 * depth) {
        Some(indented) => w.write_all(indented.as_bytes()),
        None => {
            w.write_all(b"\n")?;
            (0..depth).try_for_each(|_| w.write_all(b"  "))
        }
    }
}

impl Nested {
    fn line<W: ?Sized + std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        line_break(w, self.depth)
    }

    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b)
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w)?;
        }
        w.write_all(b)
    }

    /// Before an item or a key: the comma after the one before, and the
    /// line it starts.
    fn next<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.line(w)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
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

/// The canonical document of `playbook` on one line, as
/// `serde_json::to_string(&document(playbook))` writes it: what the Python
/// module hands to `json.loads`. A large playbook's entries are printed on
/// every core and put where the playbook's other fields leave them.
pub fn to_compact_string(playbook: &Playbook) -> String {
    let entries = &playbook.entries;
    if !ace_exec::par::worth_it(entries.len()) {
        return serde_json::to_string(&document(playbook)).expect("the model serializes");
    }
    // Every field but the entries and `extra`, which come last in the
    // model's order.
    let before = without_entries(playbook);
    let extra = &playbook.extra;
    let head = serde_json::to_string(&document(&before)).expect("the model serializes");
    // `{"format":…,"playbook":{…}}` without its two closing braces.
    let head = &head[..head.len() - 2];
    let mut runs: Vec<String> = Vec::new();
    ace_exec::par::map_runs(
        entries.len(),
        |range| serde_json::to_string(&entries[range]).expect("the model serializes"),
        |run| runs.push(run),
    );
    let extra = if extra.is_empty() {
        String::new()
    } else {
        serde_json::to_string(extra).expect("JSON values serialize")
    };
    let size = head.len() + runs.iter().map(String::len).sum::<usize>() + extra.len() + 32;
    // Strings joined, not bytes: serde_json's output is not checked as
    // UTF-8 a second time (a sixth of the whole write).
    let mut out = String::with_capacity(size);
    out.push_str(head);
    if !head.ends_with('{') {
        out.push(',');
    }
    out.push_str("\"entries\":[");
    for (i, run) in runs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        // Each run is `[…]`.
        out.push_str(&run[1..run.len() - 1]);
    }
    out.push(']');
    if !extra.is_empty() {
        out.push_str(",\"extra\":");
        out.push_str(&extra);
    }
    out.push_str("}}");
    out
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

    /// The compact and the pretty document printed in pieces are the
    /// ones serde_json prints whole: with every playbook field, with none
    /// but the entries, and with `extra` alone beside them.
    #[test]
    fn documents_printed_in_pieces_are_serde_jsons() {
        for n in [0, 1, 3, ace_exec::par::MIN_ITEMS + 7] {
            documents_of_n_entries_are_serde_jsons(n);
        }
    }

    fn documents_of_n_entries_are_serde_jsons(n: usize) {
        let mut full = Playbook {
            title: Some("T \"q\"".into()),
            description: Some("d\né".into()),
            version: Some(serde_json::json!({"entries": [1]})),
            project_id: Some("p".into()),
            created_at: Some("2025-01-01".into()),
            updated_at: Some("2025-01-02".into()),
            ..Playbook::default()
        };
        full.sections.push(Section::new("s"));
        full.extra
            .insert("x".into(), serde_json::json!([{"a": null}]));
        full.extra.insert("y".into(), serde_json::json!("安全"));
        for i in 0..n {
            let mut e = Entry::new(format!("s-{i:05}"), format!("text {i} → ü \"\\"));
            e.section = Some("s".into());
            e.helpful = Some(i as i64);
            if i % 3 == 0 {
                e.extra.insert("k", serde_json::json!({"n": i}));
            }
            full.entries.push(e);
        }
        let bare = Playbook {
            entries: full.entries.clone(),
            ..Playbook::default()
        };
        let with_extra = Playbook {
            entries: full.entries.clone(),
            extra: full.extra.clone(),
            ..Playbook::default()
        };
        for pb in [full, bare, with_extra] {
            same(
                serde_json::to_string(&document(&pb)).unwrap(),
                to_compact_string(&pb),
            );
            same(
                serde_json::to_string_pretty(&document(&pb)).unwrap() + "\n",
                write(&pb),
            );
        }
    }

    fn same(whole: String, pieces: String) {
        let at = whole.bytes().zip(pieces.bytes()).position(|(a, b)| a != b);
        assert!(
            pieces == whole,
            "differs at {at:?}: {:?}",
            pieces
                .chars()
                .skip(at.unwrap_or(0).saturating_sub(40))
                .take(80)
                .collect::<String>()
        );
    }

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
