//! A small block-style YAML emitter for JSON values. Strings are always
//! double-quoted with JSON escapes (a subset of YAML's), so no string can be
//! misread as a number, a boolean or a date; numbers are written as read.

use ace_model::Losses;
use ace_model::{rules, LossEntry, Playbook, Section};
use serde_json::{Map, Number, Value};

use crate::{Scope, WriteOutput, DEFAULT_WEIGHT};

fn is_plain_key(k: &str) -> bool {
    let b = k.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        && !matches!(
            k.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
}

fn quoted(s: &str) -> String {
    yaml_safe(serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned()))
}

/// JSON text (a string, or a value in flow style) as YAML takes it. JSON
/// leaves DEL, the C1 controls and a few code points unescaped that YAML
/// does not allow in a document; they can only stand inside strings, where
/// `\uXXXX` is valid in both.
fn yaml_safe(json: String) -> String {
    if !json.chars().any(not_yaml_printable) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if not_yaml_printable(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters YAML 1.2 excludes from a stream (outside `c-printable`, or
/// the byte-order mark, which `nb-char` excludes), that JSON writes as is.
fn not_yaml_printable(c: char) -> bool {
    matches!(
        c,
        '\u{7f}'..='\u{9f}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
    )
}

fn key(k: &str) -> String {
    if is_plain_key(k) {
        k.to_owned()
    } else {
        quoted(k)
    }
}

/// A value that fits on the line after `key:` or `- `, if it does.
fn inline(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("null".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(quoted(s)),
        Value::Array(a) if a.is_empty() => Some("[]".into()),
        Value::Object(m) if m.is_empty() => Some("{}".into()),
        _ => None,
    }
}

fn pairs(m: &Map<String, Value>) -> Vec<(&str, &Value)> {
    m.iter().map(|(k, v)| (k.as_str(), v)).collect()
}

/// The longest key written in the implicit `key: value` form (YAML 1.2
/// allows 1024 characters, quotes and escapes included).
const MAX_IMPLICIT_KEY: usize = 1000;

/// The plain scalars a read kept for unknown keys, by JSON pointer:
/// `[text, value]`, written back as that text while the value there is
/// still the same (docs/formats/playbook-yaml.md).
#[derive(Clone, Copy)]
struct Plain<'a>(Option<&'a Map<String, Value>>);

impl Plain<'_> {
    fn text(&self, at: &str, v: &Value) -> Option<String> {
        let kept = self.0?.get(at)?.as_array()?;
        match kept.as_slice() {
            [Value::String(text), was] if was == v => Some(text.clone()),
            _ => None,
        }
    }
}

fn emit_map(out: &mut String, entries: &[(&str, &Value)], indent: usize, at: &str, plain: Plain) {
    for &(k, v) in entries {
        out.push_str(&" ".repeat(indent));
        let written = key(k);
        if written.len() > MAX_IMPLICIT_KEY {
            // YAML limits an implicit key to 1024 characters; a longer one
            // needs the explicit `? key` / `: value` form.
            out.push_str("? ");
            out.push_str(&written);
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        } else {
            out.push_str(&written);
        }
        out.push(':');
        let here = format!("{at}/{}", crate::raw::pointer_token(k));
        match plain.text(&here, v).or_else(|| inline(v)) {
            Some(s) => {
                out.push(' ');
                out.push_str(&s);
                out.push('\n');
            }
            None => {
                out.push('\n');
                match v {
                    Value::Array(a) => emit_list(out, a, indent + 2, &here, plain),
                    Value::Object(m) => emit_map(out, &pairs(m), indent + 2, &here, plain),
                    _ => unreachable!("scalars are inline"),
                }
            }
        }
    }
}

fn emit_list(out: &mut String, items: &[Value], indent: usize, at: &str, plain: Plain) {
    for (i, item) in items.iter().enumerate() {
        let here = format!("{at}/{i}");
        out.push_str(&" ".repeat(indent));
        out.push_str("- ");
        match item {
            Value::Object(m) if !m.is_empty() => {
                // The first key shares the dash's line, the rest align with it.
                let all = pairs(m);
                let mut first = String::new();
                emit_map(&mut first, &all[..1], indent + 2, &here, plain);
                out.push_str(first.trim_start());
                emit_map(out, &all[1..], indent + 2, &here, plain);
            }
            // Nested lists are rare; flow style (JSON) keeps them exact.
            Value::Array(_) => {
                out.push_str(&yaml_safe(serde_json::to_string(item).unwrap_or_default()));
                out.push('\n');
            }
            _ => {
                let text = plain.text(&here, item).or_else(|| inline(item));
                out.push_str(&text.unwrap_or_default());
                out.push('\n');
            }
        }
    }
}

/// The top-level keys the reader takes as the playbook's own fields.
const RESERVED: [&str; 8] = [
    "version",
    "title",
    "description",
    "project_id",
    "created_at",
    "updated_at",
    "sections",
    "entries",
];

/// An entry as playbook.yaml holds it: its fields, then its extra fields
/// beside them.
fn entry_value(e: &ace_model::Entry) -> Value {
    let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
    let Value::Object(m) = &mut v else {
        return v;
    };
    let Some(Value::Object(mut extra)) = m.shift_remove("extra") else {
        return v;
    };
    // An extra field named like a field of the entry (a skill bullet's
    // `evidence` kept as written beside a repeated key) reads back as that
    // field when the model can hold its value, so it is written as that
    // field, in that field's place: what is read back writes the same text.
    let held: Vec<String> = extra
        .iter()
        .filter(|(k, x)| {
            !x.is_null()
                && !m.contains_key(k.as_str())
                && crate::reader::is_entry_field(k)
                && crate::reader::field_error(k, x).is_none()
        })
        .map(|(k, _)| k.clone())
        .collect();
    if !held.is_empty() {
        let mut all = m.clone();
        for k in &held {
            all.insert(k.clone(), extra[k.as_str()].clone());
        }
        let typed = serde_json::from_value::<ace_model::Entry>(Value::Object(all))
            .and_then(|e| serde_json::to_value(&e));
        if let Ok(Value::Object(typed)) = typed {
            *m = typed;
            extra.retain(|k, _| !held.contains(k));
        }
    }
    for (k, x) in in_order(&extra) {
        m.insert(k.to_owned(), x.clone());
    }
    v
}

/// Extra fields in the order they were read: the model keeps it (serde_json
/// with `preserve_order`), and sorting here made a trip through this format
/// reorder another format's fields.
fn in_order(extra: &Map<String, Value>) -> Vec<(&str, &Value)> {
    extra.iter().map(|(k, v)| (k.as_str(), v)).collect()
}

fn section_value(s: &Section, scope: Scope, losses: &mut Vec<LossEntry>) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), Value::String(s.key.clone()));
    match (&s.weight, scope) {
        (Some(w), _) => {
            m.insert("weight".into(), Value::Number(w.clone()));
        }
        (None, Scope::CuratorSections) => {
            losses.lose(
                &rules::VALUE_DEFAULTED,
                None,
                format!("sections[{}].weight", s.key),
                "playbook.yaml gives every section a weight; the ace_beads curator spec's default 0.5 was written",
            );
            m.insert(
                "weight".into(),
                Value::Number(Number::from_f64(DEFAULT_WEIGHT).unwrap_or_else(|| 0.into())),
            );
        }
        (None, Scope::Full) => {}
    }
    if scope == Scope::Full {
        for (k, v) in [
            ("title", &s.title),
            ("prefix", &s.prefix),
            ("description", &s.description),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), Value::String(v.clone()));
            }
        }
    }
    for (k, v) in in_order(&s.extra) {
        m.insert(k.into(), v.clone());
    }
    Value::Object(m)
}

pub(crate) fn write(pb: &Playbook, scope: Scope) -> WriteOutput {
    let mut losses = Vec::new();
    let mut top: Vec<(&str, Value)> = Vec::new();
    if let Some(v) = &pb.version {
        top.push(("version", v.clone()));
    }
    if scope == Scope::Full {
        for (k, v) in [
            ("title", &pb.title),
            ("description", &pb.description),
            ("project_id", &pb.project_id),
            ("created_at", &pb.created_at),
            ("updated_at", &pb.updated_at),
        ] {
            if let Some(v) = v {
                top.push((k, Value::String(v.clone())));
            }
        }
    }
    let sections: Vec<&Section> = match scope {
        Scope::Full => pb.sections.iter().collect(),
        Scope::CuratorSections => crate::listed_sections(pb),
    };
    if !sections.is_empty() || scope == Scope::CuratorSections {
        let list = sections
            .iter()
            .map(|s| section_value(s, scope, &mut losses))
            .collect();
        top.push(("sections", Value::Array(list)));
    }
    if scope == Scope::Full && !pb.entries.is_empty() {
        let list = pb.entries.iter().map(entry_value).collect();
        top.push(("entries", Value::Array(list)));
    }
    // An extra field named like one of the file's own keys would read back
    // as that field (an `extra.title` as the playbook's title), so it is not
    // written.
    let mut extras = in_order(&pb.extra);
    extras.retain(|(k, _)| {
        let reserved = RESERVED.contains(k);
        if reserved {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("extra.{k}"),
                format!("playbook.yaml reads a top-level `{k}` as its own field, so this extra field cannot be kept"),
            );
        }
        !reserved
    });
    let mut out = String::new();
    if top.is_empty() && extras.is_empty() {
        out.push_str("{}\n");
    } else {
        let all: Vec<(&str, &Value)> = top.iter().map(|(k, v)| (*k, v)).chain(extras).collect();
        let plain = pb
            .layout_of(crate::LAYOUT_KEY)
            .and_then(|l| l.get("plain"))
            .and_then(Value::as_object);
        emit_map(&mut out, &all, 0, "", Plain(plain));
    }
    WriteOutput { text: out, losses }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_yaml_forbids_are_escaped() {
        assert_eq!(
            quoted("a\u{7f}b\u{93}\u{85}\u{feff}é"),
            "\"a\\u007fb\\u0093\\u0085\\ufeffé\""
        );
        assert_eq!(quoted("tab\there"), "\"tab\\there\"");
    }

    #[test]
    fn nested_lists_in_flow_style_escape_what_yaml_forbids() {
        let mut out = String::new();
        emit_list(
            &mut out,
            &[serde_json::json!(["a\u{7f}b", ["\u{85}", 1], {"k\u{feff}": "v"}])],
            0,
            "",
            Plain(None),
        );
        assert_eq!(
            out,
            "- [\"a\\u007fb\",[\"\\u0085\",1],{\"k\\ufeff\":\"v\"}]\n"
        );
        assert!(!out.chars().any(not_yaml_printable));
    }

    #[test]
    fn keys_that_yaml_would_misread_are_quoted() {
        assert_eq!(key("weight"), "weight");
        assert_eq!(key("on"), "\"on\"");
        assert_eq!(key("a b"), "\"a b\"");
        assert_eq!(key("9lives"), "\"9lives\"");
    }

    /// Extra fields named like the entry's own, as the skill reader keeps
    /// a bullet's `evidence` it cannot type: written where they read back
    /// as written, and what is read back writes the same text.
    #[test]
    fn extra_fields_named_like_entry_fields_come_back_and_write_the_same() {
        let mut held = ace_model::Entry::new("b-1", "x");
        held.extra.insert(
            "evidence",
            serde_json::json!([{"type": "run", "ref": "t-1", "note": "n"}]),
        );
        held.extra.insert("other", serde_json::json!(1));
        let mut null = ace_model::Entry::new("b-2", "y");
        null.extra.insert("evidence", Value::Null);
        null.extra.insert("title", Value::Null);
        let pb = Playbook {
            entries: vec![held, null],
            ..Playbook::default()
        };
        let first = crate::write(&pb).text;
        let back = crate::read(&first).expect("reads").playbook;
        assert_eq!(crate::write(&back).text, first);
        let evidence = back.entries[0].evidence.as_ref().expect("typed");
        assert_eq!(evidence.len(), 1);
        assert_eq!(
            back.entries[0].extra.get("other"),
            Some(&serde_json::json!(1))
        );
        assert_eq!(back.entries[1].evidence, None);
        assert_eq!(back.entries[1].extra.get("evidence"), Some(&Value::Null));
        assert_eq!(back.entries[1].extra.get("title"), Some(&Value::Null));
    }

    /// An unknown key's plain scalar is written back plain while its value
    /// is the one read; a changed value is written in the emitter's style.
    #[test]
    fn plain_scalars_of_unknown_keys_are_kept_while_unchanged() {
        let src = "version: 1\nsections:\n  - id: \"a\"\n    weight: 0.5\n    note: as written\nowner: team\n";
        let mut pb = crate::read(src).unwrap().playbook;
        assert_eq!(crate::write(&pb).text, src);
        pb.extra.insert("owner".into(), Value::from("other team"));
        pb.sections[0].key = "b".into();
        let text = crate::write(&pb).text;
        assert!(text.contains("owner: \"other team\"\n"), "{text}");
        assert!(text.contains("note: as written\n"), "{text}");
    }

    #[test]
    fn nested_values() {
        let v: Value = serde_json::json!({"a": [{"b": 1, "c": [1, [2]]}, "s"], "m": {"k": {}}});
        let mut out = String::new();
        if let Value::Object(m) = &v {
            emit_map(&mut out, &pairs(m), 0, "", Plain(None));
        }
        assert_eq!(
            out,
            "a:\n  - b: 1\n    c:\n      - 1\n      - [2]\n  - \"s\"\nm:\n  k: {}\n"
        );
    }
}
