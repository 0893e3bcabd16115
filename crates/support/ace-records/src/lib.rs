//! Playbooks kept as JSON lists of records, one object a bullet, by
//! projects that each name the fields their own way (`helpful` or
//! `helpful_count`, `added_at` or `created_at`). A format crate declares
//! its fields in a table of [`Field`]s; this crate reads a record into an
//! [`Entry`] with each finding at its value, writes an entry back in the
//! table's key order, prints the document as the project's own writer
//! does (Python's `json.dump` or JavaScript's `JSON.stringify`), and finds
//! what a write lost by reading the written text back ([`readback`]).
//!
//! A key the table does not name, and a value of the wrong type, are kept
//! in the entry's `extra` under their key and written back in place, so a
//! no-op rewrite of the project's own file gives its bytes back.

use ace_jsonspan::{Kind, Node};
use ace_model::{rules, Confidence, Diagnostic, Entry, Evidence, Playbook, Span};
use serde_json::{Map, Number, Value};

pub mod readback;
pub use readback::readback;

/// Which canonical field a record's key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Id,
    Content,
    Section,
    Helpful,
    Harmful,
    Tags,
    Created,
    Updated,
    Confidence,
    /// A list of strings, each an evidence note.
    Evidence,
    /// Any value, kept in `extra` under the key.
    Extra,
}

/// What a writer puts for a field the entry lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    /// The key is left out.
    Omit,
    Null,
    Zero,
    EmptyList,
    /// The time given to [`Writer::time`].
    Time,
}

/// One key of a record.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub key: &'static str,
    pub slot: Slot,
    /// The project's loader fails without it.
    pub required: bool,
    pub fill: Fill,
}

impl Field {
    pub const fn new(key: &'static str, slot: Slot) -> Field {
        Field {
            key,
            slot,
            required: false,
            fill: Fill::Omit,
        }
    }

    pub const fn required(mut self) -> Field {
        self.required = true;
        self
    }

    pub const fn fill(mut self, fill: Fill) -> Field {
        self.fill = fill;
        self
    }
}

/// A finding on a record's value (ACE092), naming the project.
pub fn shape(project: &str, span: Span, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(&rules::RECORD_SHAPE, span, format!("{project}: {message}"))
}

fn integer(node: &Node) -> Option<i64> {
    match &node.kind {
        Kind::Number(n) if !n.contains(['.', 'e', 'E']) => n.parse().ok(),
        _ => None,
    }
}

fn strings(node: &Node) -> Option<Vec<String>> {
    node.as_array()?
        .iter()
        .map(|n| n.as_str().map(str::to_owned))
        .collect()
}

/// The entry `node` holds, read by `fields`; `None`, with a finding, when
/// it is not an object. `what` names a record in messages (`bullet`).
pub fn read(
    node: &Node,
    fields: &[Field],
    project: &str,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Entry> {
    let Some(members) = node.members() else {
        diags.push(shape(
            project,
            node.span,
            format_args!("a {what} is a JSON object; found {}", node.type_name()),
        ));
        return None;
    };
    ace_jsonspan::duplicate_keys(node, diags);
    // The record is where findings on the entry point.
    let mut e = Entry {
        origin: ace_model::Origin(Some(node.span)),
        ..Entry::default()
    };
    for m in members {
        let Some(f) = fields.iter().find(|f| f.key == m.key.as_str()) else {
            e.extra.insert(m.key.clone(), m.value.to_value());
            continue;
        };
        let v = &m.value;
        let took = match f.slot {
            Slot::Id => v.as_str().map(|s| e.id = s.to_owned()).is_some(),
            Slot::Content => v.as_str().map(|s| e.content = s.to_owned()).is_some(),
            Slot::Section => v.as_str().map(|s| e.section = Some(s.to_owned())).is_some(),
            Slot::Helpful => integer(v).map(|n| e.helpful = Some(n)).is_some(),
            Slot::Harmful => integer(v).map(|n| e.harmful = Some(n)).is_some(),
            Slot::Tags => strings(v).map(|t| e.tags = Some(t)).is_some(),
            Slot::Created => v
                .as_str()
                .map(|s| e.created_at = Some(s.to_owned()))
                .is_some(),
            Slot::Updated => v
                .as_str()
                .map(|s| e.updated_at = Some(s.to_owned()))
                .is_some(),
            Slot::Confidence => match &v.kind {
                Kind::Number(n) => {
                    e.confidence = Some(Confidence::Score(ace_jsonspan::number(n)));
                    true
                }
                _ => false,
            },
            Slot::Evidence => strings(v)
                .map(|t| e.evidence = Some(t.into_iter().map(Evidence::Text).collect()))
                .is_some(),
            Slot::Extra => {
                e.extra.insert(m.key.clone(), v.to_value());
                true
            }
        };
        if !took {
            diags.push(shape(
                project,
                v.span,
                format_args!(
                    "`{}` is {}; expected {}",
                    m.key,
                    v.type_name(),
                    expected(f.slot)
                ),
            ));
            e.extra.insert(m.key.clone(), v.to_value());
        }
    }
    for f in fields.iter().filter(|f| f.required) {
        if node.get(f.key).is_none() {
            let at = Span::new(node.span.start, node.span.start + 1);
            diags.push(shape(
                project,
                at,
                format_args!("this {what} has no `{}`, which is required", f.key),
            ));
        }
    }
    Some(e)
}

fn expected(slot: Slot) -> &'static str {
    match slot {
        Slot::Id | Slot::Content | Slot::Section => "a string",
        Slot::Helpful | Slot::Harmful => "a whole number",
        Slot::Tags | Slot::Evidence => "a list of strings",
        Slot::Created | Slot::Updated => "a date and time as a string",
        Slot::Confidence => "a number",
        Slot::Extra => "any value",
    }
}

/// How entries are written back.
pub struct Writer<'a> {
    pub fields: &'a [Field],
    /// Keys the table does not name are written after its own, as read:
    /// only into the file they were read from, whose layout the format
    /// owns; another format's extra fields are reported lost.
    pub keep_extra: bool,
    /// What [`Fill::Time`] writes.
    pub time: &'a str,
}

impl Writer<'_> {
    /// `e` as a record, its section written as `section`.
    pub fn record(&self, e: &Entry, section: Option<&str>) -> Map<String, Value> {
        let mut out = Map::new();
        for f in self.fields {
            let v = match f.slot {
                Slot::Id => Some(Value::String(e.id.clone())),
                Slot::Content => Some(Value::String(e.content.clone())),
                Slot::Section => section.map(|s| Value::String(s.to_owned())),
                Slot::Helpful => e.helpful.map(Value::from),
                Slot::Harmful => e.harmful.map(Value::from),
                Slot::Tags => e.tags.clone().map(Value::from),
                Slot::Created => e.created_at.clone().map(Value::String),
                Slot::Updated => e.updated_at.clone().map(Value::String),
                Slot::Confidence => e.confidence.as_ref().and_then(|c| match c {
                    Confidence::Score(n) => Some(Value::Number(n.clone())),
                    Confidence::Level(_) => c.score().and_then(Number::from_f64).map(Value::Number),
                }),
                Slot::Evidence => e
                    .evidence
                    .as_ref()
                    .map(|ev| Value::Array(ev.iter().map(|i| Value::String(i.text())).collect())),
                Slot::Extra => None,
            };
            let v = v.or_else(|| e.extra.get(f.key).cloned()).or(match f.fill {
                Fill::Omit => None,
                Fill::Null => Some(Value::Null),
                Fill::Zero => Some(Value::from(0)),
                Fill::EmptyList => Some(Value::Array(Vec::new())),
                Fill::Time => Some(Value::String(self.time.to_owned())),
            });
            if let Some(v) = v {
                out.insert(f.key.to_owned(), v);
            }
        }
        if self.keep_extra {
            for (k, v) in e.extra.iter() {
                if !self.fields.iter().any(|f| f.key == k.as_str()) {
                    out.insert(k.to_string(), v.clone());
                }
            }
        }
        out
    }
}

/// `names` for a message: each in backticks, joined by commas.
pub fn one_of(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The sections of `entries` in the order they first appear, as the
/// playbook's section list.
pub fn sections_of(entries: &[Entry]) -> Vec<ace_model::Section> {
    let mut out: Vec<ace_model::Section> = Vec::new();
    for e in entries {
        if let Some(s) = &e.section {
            if !out.iter().any(|x| &x.key == s) {
                out.push(ace_model::Section {
                    key: s.clone(),
                    ..Default::default()
                });
            }
        }
    }
    out
}

/// ace-validate's check of a record-list dialect's delta files: the
/// findings its reader makes, each at its value.
pub struct DeltaCheck {
    pub name: &'static str,
    pub describe: &'static str,
    /// Whether a text is one of the dialect's files.
    pub sniff: fn(&str) -> bool,
    /// The reader's findings on a text; the error when it does not parse.
    pub findings: fn(&str) -> Result<Vec<Diagnostic>, Diagnostic>,
}

impl ace_format::DocumentCheck for DeltaCheck {
    fn name(&self) -> &'static str {
        self.name
    }

    fn describe(&self) -> &'static str {
        self.describe
    }

    fn claims(&self, _: &str, text: &str) -> bool {
        (self.sniff)(text)
    }

    fn check(&self, text: &str, _: &ace_format::CheckCtx<'_>) -> Vec<Diagnostic> {
        (self.findings)(text).unwrap_or_else(|d| vec![d])
    }
}

/// The layout a project's writer prints JSON in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printer {
    /// `json.dump(v, indent=N)`: `ensure_ascii`, floats as `repr`.
    Python { indent: usize },
    /// `JSON.stringify(v, null, N)`: UTF-8 as it is, `1.0` as `1`.
    JavaScript { indent: usize },
}

impl Printer {
    /// `v` as the printer writes it, without a final newline.
    pub fn print(self, v: &Value) -> String {
        let mut out = String::new();
        match self {
            Printer::Python { indent } => ace_pyjson::dump(v, indent, true, &mut out),
            Printer::JavaScript { indent } => js(v, indent, 0, &mut out),
        }
        out
    }
}

fn js(v: &Value, indent: usize, level: usize, out: &mut String) {
    match v {
        Value::Number(n) => out.push_str(&js_number(n)),
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ace_pyjson::newline(indent, level + 1, out);
                js(item, indent, level + 1, out);
            }
            ace_pyjson::newline(indent, level, out);
            out.push(']');
        }
        Value::Object(m) if !m.is_empty() => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ace_pyjson::newline(indent, level + 1, out);
                ace_pyjson::escape(k, false, out);
                out.push_str(": ");
                js(item, indent, level + 1, out);
            }
            ace_pyjson::newline(indent, level, out);
            out.push('}');
        }
        other => ace_pyjson::dump(other, 0, false, out),
    }
}

/// A number as JavaScript reads it (`JSON.parse` makes `1.0` the number
/// `1`): how a reader for a JavaScript program's files takes it, so that a
/// rewrite that prints `1` changes nothing.
pub fn js_read(n: &Number) -> Number {
    serde_json::from_str(&js_number(n)).unwrap_or_else(|_| n.clone())
}

/// A number as JavaScript prints it: a whole value without a fraction,
/// any other in the shortest form that reads back the same, with no
/// exponent from 1e-7 up to 1e21.
fn js_number(n: &Number) -> String {
    let text = n.to_string();
    if !text.contains(['.', 'e', 'E']) {
        return text;
    }
    match text.parse::<f64>() {
        Ok(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        Ok(f) if f.abs() >= 1e-7 && f.abs() < 1e21 => format!("{f}"),
        _ => text,
    }
}

/// The entries' playbook with its sections listed, for a reader.
pub fn playbook(entries: Vec<Entry>) -> Playbook {
    Playbook {
        sections: sections_of(&entries),
        entries,
        ..Playbook::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FIELDS: &[Field] = &[
        Field::new("id", Slot::Id).required(),
        Field::new("content", Slot::Content).required(),
        Field::new("helpful", Slot::Helpful).fill(Fill::Zero),
        Field::new("tags", Slot::Tags).fill(Fill::EmptyList),
        Field::new("last_used", Slot::Extra).fill(Fill::Null),
    ];

    fn node(text: &str) -> Node {
        ace_jsonspan::parse(text).unwrap().root
    }

    #[test]
    fn a_value_of_another_type_is_reported_at_it_and_written_back_in_place() {
        let text = r#"{"id": "a-1", "content": "x", "helpful": "5", "zz": 1}"#;
        let mut diags = Vec::new();
        let e = read(&node(text), FIELDS, "P", "bullet", &mut diags).unwrap();
        assert_eq!(diags.len(), 1);
        assert_eq!(&text[diags[0].span.start..diags[0].span.end], "\"5\"");
        assert!(diags[0].message.contains("expected a whole number"));
        let w = Writer {
            fields: FIELDS,
            keep_extra: true,
            time: "T",
        };
        let rec = Value::Object(w.record(&e, None));
        assert_eq!(
            rec,
            json!({"id": "a-1", "content": "x", "helpful": "5", "tags": [], "last_used": null, "zz": 1})
        );
    }

    #[test]
    fn a_missing_required_field_is_reported() {
        let mut diags = Vec::new();
        read(
            &node(r#"{"content": "x"}"#),
            FIELDS,
            "P",
            "bullet",
            &mut diags,
        )
        .unwrap();
        assert!(diags[0].message.contains("no `id`"), "{diags:?}");
        let mut diags = Vec::new();
        assert!(read(&node("[1]"), FIELDS, "P", "bullet", &mut diags).is_none());
    }

    #[test]
    fn javascript_prints_whole_floats_without_a_fraction_and_keeps_utf8() {
        let v: Value =
            serde_json::from_str(r#"{"a": 1.0, "b": 0.25, "c": "é", "d": [], "e": {}}"#).unwrap();
        assert_eq!(
            Printer::JavaScript { indent: 2 }.print(&v),
            "{\n  \"a\": 1,\n  \"b\": 0.25,\n  \"c\": \"é\",\n  \"d\": [],\n  \"e\": {}\n}"
        );
        assert_eq!(
            Printer::Python { indent: 2 }.print(&v),
            "{\n  \"a\": 1.0,\n  \"b\": 0.25,\n  \"c\": \"\\u00e9\",\n  \"d\": [],\n  \"e\": {}\n}"
        );
    }
}
