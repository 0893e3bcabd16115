//! The JSON layouts skill files are written in, and a printer for each.
//!
//! The skill's scripts save with Python's `json.dump(data, f, indent=2)`:
//! every array and object on its own lines, `", "`-free item separators at
//! line ends, `": "` after keys, non-ASCII as `\uXXXX`, floats as Python's
//! `repr`, and no final newline. Files written by hand or by an assistant use
//! the same indentation but put lists of scalars on one line (`["a", "b"]`),
//! keep UTF-8 as it is and end with a newline. [`Style`] captures both; it is
//! detected from a file so that a rewrite gives back the same bytes.

use ace_jsonspan::{Kind, Node};
pub use ace_pyjson::{escape, push_python_number, Text};
use serde_json::{Map, Number, Value};

/// How a file lays out its JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Spaces per level; `None` writes everything on one line, as
    /// `json.dumps(data)` does.
    pub indent: Option<usize>,
    /// Arrays whose items are all scalars stay on one line.
    pub inline_scalar_arrays: bool,
    /// Non-ASCII characters written as `\uXXXX` (Python's `ensure_ascii`).
    pub ascii: bool,
    pub final_newline: bool,
}

impl Default for Style {
    /// What the skill's own scripts write: `json.dump(data, f, indent=2)`.
    fn default() -> Self {
        Style {
            indent: Some(2),
            inline_scalar_arrays: false,
            ascii: true,
            final_newline: false,
        }
    }
}

impl Style {
    pub fn to_value(self) -> Value {
        let mut m = Map::new();
        m.insert(
            "indent".into(),
            self.indent.map_or(Value::Null, |n| Value::from(n as u64)),
        );
        m.insert(
            "inline_scalar_arrays".into(),
            Value::Bool(self.inline_scalar_arrays),
        );
        m.insert("ascii".into(), Value::Bool(self.ascii));
        m.insert("final_newline".into(), Value::Bool(self.final_newline));
        Value::Object(m)
    }

    /// Reads a style back from the layout; missing or odd values fall back
    /// to the default, so a hand-edited layout never stops a write.
    pub fn from_value(v: &Value) -> Style {
        let d = Style::default();
        let flag = |k: &str, default: bool| v.get(k).and_then(Value::as_bool).unwrap_or(default);
        Style {
            indent: match v.get("indent") {
                Some(Value::Null) => None,
                Some(n) => n.as_u64().map_or(d.indent, |n| Some(n.min(16) as usize)),
                None => d.indent,
            },
            inline_scalar_arrays: flag("inline_scalar_arrays", d.inline_scalar_arrays),
            ascii: flag("ascii", d.ascii),
            final_newline: flag("final_newline", d.final_newline),
        }
    }

    /// Styles tests print with: the default, a wide one with lists of
    /// scalars on one line, and one line in all with `ensure_ascii`.
    #[cfg(test)]
    pub fn samples() -> [Style; 3] {
        [
            Style::default(),
            Style {
                indent: Some(4),
                inline_scalar_arrays: true,
                ascii: false,
                final_newline: true,
            },
            Style {
                indent: None,
                ascii: true,
                ..Style::default()
            },
        ]
    }

    /// `value` as a string, for tests.
    #[cfg(test)]
    pub fn render<T: Tree>(&self, value: &T) -> String {
        let mut out = String::with_capacity(4096);
        self.render_into(value, &mut out);
        out
    }

    /// `value` as this style writes it: a `serde_json::Value`, or a parsed
    /// [`Node`] tree (the reader's layout check, which so needs no copy of
    /// the document), onto any [`Text`] sink.
    pub fn render_into<T: Tree, O: Text>(&self, value: &T, out: &mut O) {
        self.write(value, 0, out);
        self.end(out);
    }

    /// What follows the printed document.
    pub(crate) fn end<O: Text>(&self, out: &mut O) {
        if self.final_newline {
            out.push('\n');
        }
    }

    /// `v` at nesting `level`, with no final line feed.
    pub(crate) fn write<T: Tree, O: Text>(&self, v: &T, level: usize, out: &mut O) {
        match v.view() {
            View::Null => out.push_str("null"),
            View::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            View::Number(n) => push_python_number(&n, out),
            View::String(s) => escape(s, self.ascii, out),
            View::Array(items) => self.write_array(
                items.len(),
                items.iter().all(|i| i.is_scalar()),
                level,
                out,
                &mut |i, level, out| self.write(&items[i], level, out),
            ),
            View::Object(m) => {
                self.write_object(m.len(), &|i| m[i].0, level, out, &mut |i, level, out| {
                    self.write(m[i].1, level, out)
                })
            }
        }
    }

    /// An array of `len` items at nesting `level`, item `i` printed by
    /// `item(i, its level, out)`.
    pub(crate) fn write_array<O: Text>(
        &self,
        len: usize,
        all_scalar: bool,
        level: usize,
        out: &mut O,
        item: &mut dyn FnMut(usize, usize, &mut O),
    ) {
        self.write_array_by(len, all_scalar, level, out, &mut |one_line, out| {
            self.items(0..len, level, one_line, out, item)
        });
    }

    /// An array of `len` items at nesting `level` whose items `print(one
    /// line?, out)` prints with [`Style::items`]: the writer's bullets,
    /// printed in runs.
    pub(crate) fn write_array_by<O: Text>(
        &self,
        len: usize,
        all_scalar: bool,
        level: usize,
        out: &mut O,
        print: &mut dyn FnMut(bool, &mut O),
    ) {
        if len == 0 {
            out.push_str("[]");
            return;
        }
        let one_line = self.indent.is_none() || (self.inline_scalar_arrays && all_scalar);
        out.push('[');
        print(one_line, out);
        self.close(level, one_line, out);
        out.push(']');
    }

    /// Items `range` of an array at nesting `level`, each after its
    /// separator: what they print is the same wherever the range starts.
    pub(crate) fn items<O: Text>(
        &self,
        range: std::ops::Range<usize>,
        level: usize,
        one_line: bool,
        out: &mut O,
        item: &mut dyn FnMut(usize, usize, &mut O),
    ) {
        for i in range {
            self.separator(i, level + 1, one_line, out);
            item(i, level + 1, out);
        }
    }

    /// An object of `len` members at nesting `level`, member `i` being
    /// `key(i)` with its value printed by `value(i, its level, out)`.
    pub(crate) fn write_object<'k, O: Text>(
        &self,
        len: usize,
        key: &dyn Fn(usize) -> &'k str,
        level: usize,
        out: &mut O,
        value: &mut dyn FnMut(usize, usize, &mut O),
    ) {
        if len == 0 {
            out.push_str("{}");
            return;
        }
        let one_line = self.indent.is_none();
        out.push('{');
        for i in 0..len {
            self.separator(i, level + 1, one_line, out);
            escape(key(i), self.ascii, out);
            out.push_str(": ");
            value(i, level + 1, out);
        }
        self.close(level, one_line, out);
        out.push('}');
    }

    fn separator<O: Text>(&self, i: usize, level: usize, one_line: bool, out: &mut O) {
        if one_line {
            if i > 0 {
                out.push_str(", ");
            }
        } else {
            if i > 0 {
                out.push(',');
            }
            out.push('\n');
            push_spaces(out, level * self.indent.unwrap_or(0));
        }
    }

    fn close<O: Text>(&self, level: usize, one_line: bool, out: &mut O) {
        if !one_line {
            out.push('\n');
            push_spaces(out, level * self.indent.unwrap_or(0));
        }
    }
}

fn push_spaces<O: Text>(out: &mut O, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut n = n;
    while n > 0 {
        let k = n.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// Compares printed text with `expected` as it is printed, holding only
/// the line where the two first differ.
pub struct Compare<'a> {
    expected: &'a [u8],
    /// `expected[cut.0..cut.1]` reads as `with`: the document around an
    /// array whose items were compared one by one.
    cut: (usize, usize),
    with: &'a [u8],
    /// Bytes printed so far.
    len: usize,
    /// Where the current printed line starts.
    line_start: usize,
    /// The first byte that differs (or where one text ended first).
    mismatch: Option<usize>,
    /// The printed line that holds the mismatch, once it is known.
    line: Vec<u8>,
    line_done: bool,
}

impl<'a> Compare<'a> {
    pub fn new(expected: &'a str) -> Self {
        Compare::spliced(expected, expected.len()..expected.len(), "")
    }

    /// Compares with `expected` in which `cut` reads as `with`.
    pub fn spliced(expected: &'a str, cut: std::ops::Range<usize>, with: &'a str) -> Self {
        Compare {
            expected: expected.as_bytes(),
            cut: (cut.start, cut.end.max(cut.start)),
            with: with.as_bytes(),
            len: 0,
            line_start: 0,
            mismatch: None,
            line: Vec::new(),
            line_done: false,
        }
    }

    fn expected_at(&self, pos: usize) -> Option<u8> {
        let (start, end) = self.cut;
        if pos < start {
            self.expected.get(pos).copied()
        } else if pos - start < self.with.len() {
            Some(self.with[pos - start])
        } else {
            self.expected
                .get(pos - start - self.with.len() + end)
                .copied()
        }
    }

    /// The current line as printed so far, while it matches.
    fn printed_line(&self) -> Vec<u8> {
        (self.line_start..self.len)
            .filter_map(|p| self.expected_at(p))
            .collect()
    }

    /// The `n` expected bytes from `pos`, if they lie on one side of the
    /// cut or within `with`.
    fn segment(&self, pos: usize, n: usize) -> Option<&[u8]> {
        let (start, end) = self.cut;
        let w = self.with.len();
        if pos + n <= start {
            self.expected.get(pos..pos + n)
        } else if pos >= start && pos + n <= start + w {
            self.with.get(pos - start..pos - start + n)
        } else if pos >= start + w {
            let p = pos - start - w + end;
            self.expected.get(p..p + n)
        } else {
            None
        }
    }

    /// `None` if what was printed is `expected`; else where the first
    /// difference is, the start of its line, and that line as printed.
    pub fn finish(mut self) -> Option<(usize, usize, String)> {
        let expected_len = self.expected.len() + self.with.len() - (self.cut.1 - self.cut.0);
        if self.mismatch.is_none() && self.len != expected_len {
            self.mismatch = Some(self.len.min(expected_len));
            self.line = self.printed_line();
        }
        let at = self.mismatch?;
        Some((
            at,
            self.line_start,
            String::from_utf8_lossy(&self.line).into_owned(),
        ))
    }
}

impl Text for Compare<'_> {
    /// Brackets, commas, quotes and line feeds come one at a time, most of
    /// what is compared by count: a byte compared in place, not a call to
    /// compare slices.
    fn push(&mut self, c: char) {
        if c.is_ascii()
            && !self.line_done
            && self.mismatch.is_none()
            && self.expected_at(self.len) == Some(c as u8)
        {
            if c == '\n' {
                self.line_start = self.len + 1;
            }
            self.len += 1;
            return;
        }
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }

    fn push_str(&mut self, s: &str) {
        if self.line_done {
            return;
        }
        let bytes = s.as_bytes();
        // Matching text is compared a piece at a time: the printed line is
        // only needed once it differs, and up to there it is `expected`.
        if self.mismatch.is_none() && self.segment(self.len, bytes.len()) == Some(bytes) {
            if let Some(i) = memchr::memrchr(b'\n', bytes) {
                self.line_start = self.len + i + 1;
            }
            self.len += bytes.len();
            return;
        }
        for &b in bytes {
            if self.mismatch.is_none() {
                if self.expected_at(self.len) == Some(b) {
                    if b == b'\n' {
                        self.line_start = self.len + 1;
                    }
                    self.len += 1;
                    continue;
                }
                self.mismatch = Some(self.len);
                self.line = self.printed_line();
            }
            if b == b'\n' {
                self.line_done = true;
                return;
            }
            self.line.push(b);
            self.len += 1;
        }
    }
}

/// A JSON value as the printer sees it.
pub enum View<'a, T> {
    Null,
    Bool(bool),
    Number(Number),
    String(&'a str),
    Array(&'a [T]),
    /// Members in order, each key once (the last value of a repeated key,
    /// at its first place, as `json.load` keeps it).
    Object(Vec<(&'a str, &'a T)>),
}

/// A JSON tree [`Style::render_into`] can print.
pub trait Tree: Sized {
    fn view(&self) -> View<'_, Self>;
    fn is_scalar(&self) -> bool;
}

impl Tree for Value {
    fn view(&self) -> View<'_, Self> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Number(n) => View::Number(n.clone()),
            Value::String(s) => View::String(s),
            Value::Array(a) => View::Array(a),
            Value::Object(m) => View::Object(m.iter().map(|(k, v)| (k.as_str(), v)).collect()),
        }
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, Value::Array(_) | Value::Object(_))
    }
}

impl Tree for Node {
    fn view(&self) -> View<'_, Self> {
        match &self.kind {
            Kind::Null => View::Null,
            Kind::Bool(b) => View::Bool(*b),
            Kind::Number(n) => View::Number(ace_jsonspan::number(n)),
            Kind::String(s) => View::String(s),
            Kind::Array(a) => View::Array(a),
            Kind::Object(members) => {
                let mut out: Vec<(&str, &Node)> = Vec::with_capacity(members.len());
                // Objects are small; a repeated key is rare enough that a
                // scan of the kept keys costs less than a map.
                let mut index: Option<std::collections::HashMap<&str, usize>> =
                    (members.len() > 32).then(std::collections::HashMap::new);
                for m in members {
                    let at = match &mut index {
                        Some(ix) => ix.get(m.key.as_str()).copied(),
                        None => out.iter().position(|(k, _)| *k == m.key),
                    };
                    match at {
                        Some(i) => out[i].1 = &m.value,
                        None => {
                            if let Some(ix) = &mut index {
                                ix.insert(&m.key, out.len());
                            }
                            out.push((&m.key, &m.value));
                        }
                    }
                }
                View::Object(out)
            }
        }
    }

    fn is_scalar(&self) -> bool {
        !matches!(self.kind, Kind::Array(_) | Kind::Object(_))
    }
}

pub(crate) fn indent_of(root: &Node, text: &str) -> Option<usize> {
    let first = match &root.kind {
        Kind::Object(m) => m.first().map(|m| m.key_span.start),
        Kind::Array(items) => items.first().map(|n| n.span.start),
        _ => None,
    }?;
    indent_at(text, root.span.start, first)
}

/// The indentation of a document whose root starts at `root` and whose
/// first key or item starts at `first`: its column, when it is on a line
/// of its own after the root's.
pub(crate) fn indent_at(text: &str, root: usize, first: usize) -> Option<usize> {
    let line_start = text[..first].rfind('\n').map(|i| i + 1)?;
    if line_start <= root {
        return None;
    }
    Some(first - line_start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What [`Compare`] must find, worked out on two whole strings.
    fn first_difference(expected: &str, printed: &str) -> Option<(usize, usize, String)> {
        if expected == printed {
            return None;
        }
        let mut line_start = 0;
        let mut offset = expected.len().min(printed.len());
        for (i, (a, b)) in expected.bytes().zip(printed.bytes()).enumerate() {
            if a != b {
                offset = i;
                break;
            }
            if a == b'\n' {
                line_start = i + 1;
            }
        }
        let line = printed[line_start.min(printed.len())..].split('\n').next();
        Some((offset, line_start, line.unwrap_or("").to_owned()))
    }

    #[test]
    fn comparing_while_printing_finds_the_first_difference() {
        let cases = [
            ("{\n  \"a\": 1\n}\n", "{\n  \"a\": 1\n}\n"),
            ("{\n  \"a\": 1\n}\n", "{\n  \"a\": 2\n}\n"),
            ("{\n  \"a\": 1\n}\n", "{\n  \"a\": 1\n}"),
            ("{\n  \"a\": 1\n}", "{\n  \"a\": 1\n}\n"),
            ("{\n  \"a\": 1\n}", "{\n  \"a\": 1,\n  \"b\": 2\n}"),
            ("[1]\n", "[\n  1\n]\n"),
            ("", "{}"),
            ("{}", ""),
            ("x\n\ny", "x\n\nz"),
            ("\"\u{e9}\"\n", "\"\u{e9}\"\nx"),
            ("a\u{e9}b", "a\u{e8}b"),
            ("[1,\n 2]", "[1,\n 3]\n"),
        ];
        for (expected, printed) in cases {
            // Fed in uneven pieces, as the printer pushes them, or a
            // character at a time (0).
            for piece in [0, 1, 2, 3, 100] {
                let mut c = Compare::new(expected);
                if piece == 0 {
                    printed.chars().for_each(|ch| c.push(ch));
                } else {
                    let chars: Vec<char> = printed.chars().collect();
                    for chunk in chars.chunks(piece) {
                        c.push_str(&chunk.iter().collect::<String>());
                    }
                }
                assert_eq!(
                    c.finish(),
                    first_difference(expected, printed),
                    "{expected:?} {printed:?} {piece}"
                );
            }
        }
    }

    #[test]
    fn a_spliced_comparison_is_a_comparison_with_the_spliced_text() {
        let doc = "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 3\n}\n";
        let cut = doc.find('[').unwrap()..doc.find(']').unwrap() + 1;
        let with = "[\n  ]";
        let effective = format!("{}{with}{}", &doc[..cut.start], &doc[cut.end..]);
        let mut printed = vec![effective.clone(), doc.to_owned(), String::new()];
        // A difference at every place: before, inside and after `with`.
        for at in 0..effective.len() {
            let mut p = effective.clone().into_bytes();
            p[at] = b'x';
            printed.push(String::from_utf8(p).unwrap());
            printed.push(effective[..at].to_owned());
        }
        for p in &printed {
            for piece in [1, 2, 5, 7, 100] {
                let mut spliced = Compare::spliced(doc, cut.clone(), with);
                let mut plain = Compare::new(&effective);
                for chunk in p.as_bytes().chunks(piece) {
                    let chunk = std::str::from_utf8(chunk).unwrap();
                    spliced.push_str(chunk);
                    plain.push_str(chunk);
                }
                let (a, b) = (spliced.finish(), plain.finish());
                assert_eq!(a, b, "{p:?} {piece}");
                assert_eq!(b, first_difference(&effective, p), "{p:?} {piece}");
            }
        }
    }

    #[test]
    fn both_layouts_render() {
        let v = json!({"a": [1, 2], "b": {}, "c": [{"d": "x"}], "e": []});
        assert_eq!(
            Style::default().render(&v),
            "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": [\n    {\n      \"d\": \"x\"\n    }\n  ],\n  \"e\": []\n}"
        );
        let hand = Style {
            inline_scalar_arrays: true,
            final_newline: true,
            ..Style::default()
        };
        assert_eq!(
            hand.render(&v),
            "{\n  \"a\": [1, 2],\n  \"b\": {},\n  \"c\": [\n    {\n      \"d\": \"x\"\n    }\n  ],\n  \"e\": []\n}\n"
        );
        let compact = Style {
            indent: None,
            ..Style::default()
        };
        assert_eq!(
            compact.render(&v),
            "{\"a\": [1, 2], \"b\": {}, \"c\": [{\"d\": \"x\"}], \"e\": []}"
        );
    }

    #[test]
    fn detection_reads_the_layout_back() {
        for (text, style) in [
            ("{\n  \"a\": [\n    \"x\"\n  ]\n}", Style::default()),
            (
                "{\n    \"a\": [\"×\"]\n}\n",
                Style {
                    indent: Some(4),
                    inline_scalar_arrays: true,
                    ascii: false,
                    final_newline: true,
                },
            ),
            (
                "{\"a\": [1]}",
                Style {
                    indent: None,
                    inline_scalar_arrays: true,
                    ..Style::default()
                },
            ),
        ] {
            let doc = ace_jsonspan::parse(text).unwrap();
            let pb = crate::read(text).unwrap().playbook;
            let layout = pb.layout_of(crate::LAYOUT_KEY).expect("a layout");
            let got = crate::layout::Layout::from_value(layout).style;
            assert_eq!(got, style, "{text}");
            assert_eq!(got.render(&doc.root.to_value()), text);
            assert_eq!(Style::from_value(&got.to_value()), got);
        }
    }
}
