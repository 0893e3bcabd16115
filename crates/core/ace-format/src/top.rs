//! The top level of a JSON text, read a key at a time ([`Scan`]), and a
//! whole text reduced to its top level ([`top_level`]).
//!
//! What a JSON file is follows from the keys of its root object (a vAgenda
//! document has `vAgendaInfo` there, a skill playbook `bullets`), not from
//! a key met anywhere in the text: a skill playbook that carries a vAgenda
//! document under a stray key is still a skill playbook. The scan reads no
//! value, only skips it, and it tolerates a cut-off text, since a directory
//! walk looks at the head of a file only.

use serde::de::IgnoredAny;
use serde_json::{Map, Value};

/// A key of the root object, and the first byte of its value (`[`, `{`,
/// `"`, or the first byte of a number or literal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopKey {
    pub name: String,
    pub opens: u8,
}

/// The root object's keys, scanned a key at a time, so that a question
/// the first keys answer does not read a file of a million entries to its
/// end. A text that stops being JSON ends the scan with the keys found so
/// far: detection also sees the cut-off heads a directory walk reads.
#[derive(Debug, Clone)]
pub struct Scan {
    pub root: Option<u8>,
    pub keys: Vec<TopKey>,
    at: usize,
    depth: usize,
    want_key: bool,
    pub done: bool,
}

impl Scan {
    pub fn new(text: &str) -> Scan {
        let b = text.as_bytes();
        let mut at = skip_ws(b, 0);
        if b[at..].starts_with("\u{feff}".as_bytes()) {
            at = skip_ws(b, at + 3);
        }
        let root = b.get(at).copied();
        Scan {
            root,
            keys: Vec::new(),
            at,
            depth: 0,
            want_key: false,
            done: root != Some(b'{'),
        }
    }

    /// The finished scan of a root object with these keys.
    pub fn known(keys: &[(String, u8)]) -> Scan {
        Scan {
            root: Some(b'{'),
            keys: keys
                .iter()
                .map(|(name, opens)| TopKey {
                    name: name.clone(),
                    opens: *opens,
                })
                .collect(),
            at: 0,
            depth: 0,
            want_key: false,
            done: true,
        }
    }

    /// The next top-level key, added to `keys`; `None` at the end. The
    /// scan then stands at the first byte of that key's value.
    pub fn next_key(&mut self, text: &str) -> Option<&TopKey> {
        let b = text.as_bytes();
        let mut i = self.at;
        while !self.done && i < b.len() {
            match b[i] {
                b'"' => {
                    let Some(end) = string_end(b, i + 1) else {
                        break;
                    };
                    if self.depth == 1 && self.want_key {
                        let j = skip_ws(b, end + 1);
                        if b.get(j) != Some(&b':') {
                            break;
                        }
                        let v = skip_ws(b, j + 1);
                        let Some(&opens) = b.get(v) else {
                            break;
                        };
                        self.keys.push(TopKey {
                            name: key_text(&text[i..=end]),
                            opens,
                        });
                        self.want_key = false;
                        self.at = v;
                        return self.keys.last();
                    }
                    i = end + 1;
                    continue;
                }
                b'{' | b'[' if self.depth >= 1 => {
                    // A member's value, skipped whole 64 bytes at a time:
                    // a byte at a time, a large file's keys took longer
                    // to find than reading its skills.
                    let Some(end) = ace_exec::scan::json_close(b, i) else {
                        break;
                    };
                    i = end;
                    continue;
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    self.want_key = self.depth == 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        break;
                    }
                }
                b',' if self.depth == 1 => self.want_key = true,
                _ => {}
            }
            i += 1;
        }
        self.done = true;
        self.at = b.len();
        None
    }
}

/// A JSON text reduced to its top level: an object root keeps its keys,
/// with the values of the keys `whole` picks parsed and every other value
/// `null`; an array root is an empty array and any other root `null`.
/// `None` if the text is not JSON (a leading byte-order mark is skipped).
///
/// Telling what kind of document a file is needs only its top-level keys,
/// and serde_json's validating skip is several times faster than building
/// the values: ace-convert and ace-validate ask this of every JSON file
/// before reading it.
pub fn top_level(text: &str, whole: fn(&str) -> bool) -> Option<Value> {
    serde_json::from_str::<IgnoredAny>(text.strip_prefix('\u{feff}').unwrap_or(text)).ok()?;
    let mut scan = Scan::new(text);
    match scan.root {
        Some(b'{') => {}
        Some(b'[') => return Some(Value::Array(Vec::new())),
        _ => return Some(Value::Null),
    }
    let mut m = Map::new();
    while let Some(key) = scan.next_key(text) {
        let name = key.name.clone();
        let v = match whole(&name) {
            true => serde_json::Deserializer::from_str(&text[scan.at..])
                .into_iter::<Value>()
                .next()?
                .ok()?,
            false => Value::Null,
        };
        m.insert(name, v);
    }
    Some(Value::Object(m))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// The index of the quote that closes the string whose text starts at
/// `from`.
fn string_end(b: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let at = from + memchr::memchr2(b'"', b'\\', &b[from..])?;
        if b[at] == b'"' {
            return Some(at);
        }
        from = at + 2;
        if from > b.len() {
            return None;
        }
    }
}

/// A key as it reads: its escapes resolved when it has any.
fn key_text(quoted: &str) -> String {
    if quoted.contains('\\') {
        if let Ok(s) = serde_json::from_str::<String>(quoted) {
            return s;
        }
    }
    quoted[1..quoted.len() - 1].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_scan_stops_at_the_key_asked_for() {
        let text = r#"{"a": 1, "b": [2], "c": 3}"#;
        let mut scan = Scan::new(text);
        assert_eq!(
            scan.next_key(text).map(|k| k.name.clone()),
            Some("a".into())
        );
        assert!(!scan.done);
        while scan.next_key(text).is_some() {}
        assert_eq!(scan.keys.len(), 3);
        assert!(scan.done);
    }

    fn keys(text: &str) -> Vec<(String, char)> {
        let mut scan = Scan::new(text);
        while scan.next_key(text).is_some() {}
        scan.keys
            .into_iter()
            .map(|k| (k.name, k.opens as char))
            .collect()
    }

    #[test]
    fn only_the_root_objects_keys_count() {
        let text = r#"{"bullets": [{"id": "a", "vAgendaInfo": 1}], "vagenda": {"vAgendaInfo": {"version": "0.2"}}, "n": 3}"#;
        assert_eq!(
            keys(text),
            [
                ("bullets".into(), '['),
                ("vagenda".into(), '{'),
                ("n".into(), '3')
            ]
        );
    }

    #[test]
    fn strings_with_brackets_quotes_and_escapes_are_skipped() {
        let text = "\u{feff} {\"a\": \"x}]\\\"{\", \"b\\u0041\": [\"]\"], \"c\": null}";
        assert_eq!(
            keys(text),
            [("a".into(), '"'), ("bA".into(), '['), ("c".into(), 'n')]
        );
    }

    #[test]
    fn a_cut_off_text_gives_the_keys_before_the_cut() {
        let text = r#"{"skills": {"a-00001": {"content": "unfinished"#;
        assert_eq!(keys(text), [("skills".into(), '{')]);
        assert_eq!(Scan::new("[1, 2").root, Some(b'['));
        assert_eq!(Scan::new("  ").root, None);
        assert!(keys(r#"{"a" 1}"#).is_empty());
        assert!(keys(r#"{"a": "#).is_empty());
    }

    #[test]
    fn keeps_the_keys_and_only_the_values_asked_for() {
        let text = "\u{feff}{\"a\": [1, {\"x\": 2}], \"bInfo\": {\"v\": \"1\"}, \"c\": \"s\"}";
        assert_eq!(
            top_level(text, |k| k.ends_with("Info")),
            Some(json!({"a": null, "bInfo": {"v": "1"}, "c": null}))
        );
        assert_eq!(top_level("[1, 2]", |_| true), Some(json!([])));
        assert_eq!(top_level("3", |_| true), Some(Value::Null));
    }

    #[test]
    fn text_that_is_not_json_gives_none() {
        for bad in ["{\"a\": [1,}", "{\"a\": 1} x", "", "{\"a\" 1}"] {
            assert_eq!(top_level(bad, |_| false), None, "{bad}");
        }
    }
}
