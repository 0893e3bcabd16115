//! JSON as Python's `json.dump` prints it, byte for byte: the string
//! escapes of its encoder (with and without `ensure_ascii`), floats as
//! `repr(float)`, and `indent=N` layout. The ACE projects that save JSON
//! are Python programs (the skill's scripts, the kayba framework); a file
//! ace-tools writes in their format is the file they would write.

use serde_json::{Number, Value};

/// `v` with every object's keys in the order `json.dumps(sort_keys=True)`
/// prints them: by code point, which is UTF-8's byte order.
pub fn sort_keys(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sort_keys(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sort_keys).collect()),
        other => other.clone(),
    }
}

/// Where the printer's text goes: a string, the writers' block-wise
/// [`ace_exec::Out`], or a comparison with the text read.
pub trait Text {
    fn push_str(&mut self, s: &str);
    fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }
}

impl Text for String {
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
}

impl Text for ace_exec::Out<'_> {
    fn push_str(&mut self, s: &str) {
        ace_exec::Out::push_str(self, s);
    }
    fn push(&mut self, c: char) {
        ace_exec::Out::push(self, c);
    }
}

/// A number as Python's `json.dump` writes it: integers as they are, floats
/// as `repr(float)`, which is the shortest text that reads back to the same
/// float, with an exponent below 1e-4 and from 1e16 on, written `1e-05` and
/// `1e+16`.
pub fn python_number(n: &Number) -> String {
    let mut out = String::new();
    push_python_number(n, &mut out);
    out
}

/// [`python_number`] onto `out`; integers, nearly all of a playbook's
/// numbers, without a temporary string.
pub fn push_python_number<O: Text>(n: &Number, out: &mut O) {
    if let Some(i) = n.as_i64() {
        push_int(i, out);
    } else if let Some(u) = n.as_u64() {
        out.push_str(itoa::Buffer::new().format(u));
    } else {
        out.push_str(&float_repr(n));
    }
}

/// An integer as `json.dump` writes it.
pub fn push_int<O: Text>(i: i64, out: &mut O) {
    out.push_str(itoa::Buffer::new().format(i));
}

fn float_repr(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    // Rust's Debug uses the same shortest digits and the same switch to an
    // exponent as Python's repr; only the exponent's spelling differs.
    let s = format!("{f:?}");
    match s.split_once('e') {
        None => s,
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
    }
}

/// `\\u` and four lower-case hex digits, as Python writes them.
fn push_u_escape<O: Text>(out: &mut O, unit: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut b = *b"\\u0000";
    for (i, shift) in [12, 8, 4, 0].into_iter().enumerate() {
        b[2 + i] = HEX[usize::from((unit >> shift) & 0xf)];
    }
    out.push_str(std::str::from_utf8(&b).unwrap_or("\\ufffd"));
}

/// A JSON string as Python's encoder writes it. Without `ascii`, that is
/// also serde_json's: `"` and `\\`, `\\b \\t \\n \\f \\r`, the other control
/// characters as `\\u00xx`, everything else as it is.
pub fn escape<O: Text>(s: &str, ascii: bool, out: &mut O) {
    if !ascii {
        return escape_controls(s, out);
    }
    let max = if ascii { 0x7e } else { 0xff };
    let plain = |b: u8| (b >= 0x20) & (b != b'"') & (b != b'\\') & (b <= max);
    if ace_exec::scan::all_bytes(s.as_bytes(), plain) {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    out.push('"');
    // Bytes, not characters, are walked: a plain byte is ASCII (or, when
    // not `ascii`, any byte from 0x80), so a byte that is not plain starts
    // a character, decoded only then. Most strings of an `ensure_ascii`
    // file hold a few escaped characters among plain ASCII.
    let bytes = s.as_bytes();
    let (mut run, mut at) = (0, 0);
    while at < bytes.len() {
        if plain(bytes[at]) {
            at += 1;
            continue;
        }
        let c = s[at..].chars().next().unwrap_or('\u{fffd}');
        out.push_str(&s[run..at]);
        at += c.len_utf8();
        run = at;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => push_u_escape(out, c as u16),
            // ensure_ascii escapes everything outside ' '..='~', DEL included.
            c => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    push_u_escape(out, *unit);
                }
            }
        }
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// [`escape`] without `ascii`: the escapes found 16 bytes at a time.
fn escape_controls<O: Text>(s: &str, out: &mut O) {
    out.push('"');
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = ace_exec::scan::json_escape(&b[from..]) {
        let at = from + i;
        // Escapes are ASCII: the text around them splits at characters.
        out.push_str(&s[from..at]);
        out.push_str(ace_exec::scan::json_escaped(b[at], &mut [0; 6]));
        from = at + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// `v` as `json.dumps(v, indent=indent, ensure_ascii=ascii)` prints it:
/// every array and object on its own lines, `[]` and `{}` when empty,
/// `": "` after keys, no final newline.
pub fn dump<O: Text>(v: &Value, indent: usize, ascii: bool, out: &mut O) {
    dump_at(v, &Layout::python(indent, ascii), 0, out);
}

/// How [`dump_with`] lays a value out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub indent: usize,
    /// `\uXXXX` for every character outside ASCII (`ensure_ascii`).
    pub ascii: bool,
    /// Lists of scalars on one line (`["a", "b"]`), as people and
    /// assistants write them by hand; Python breaks every list.
    pub inline_scalar_lists: bool,
}

impl Layout {
    /// `json.dumps(indent=indent, ensure_ascii=ascii)`.
    pub fn python(indent: usize, ascii: bool) -> Layout {
        Layout {
            indent,
            ascii,
            inline_scalar_lists: false,
        }
    }
}

/// `v` laid out by `layout`.
pub fn dump_with<O: Text>(v: &Value, layout: &Layout, out: &mut O) {
    dump_at(v, layout, 0, out);
}

/// `v` laid out by `layout` as a value nested `level` deep: what
/// [`dump_with`] prints for it inside its parents, for a caller that prints
/// the parents itself.
pub fn dump_at<O: Text>(v: &Value, layout: &Layout, level: usize, out: &mut O) {
    let (indent, ascii) = (layout.indent, layout.ascii);
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => push_python_number(n, out),
        Value::String(s) => escape(s, ascii, out),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Array(items)
            if layout.inline_scalar_lists
                && items.iter().all(|i| !i.is_array() && !i.is_object()) =>
        {
            dump_line(v, ascii, out)
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(indent, level + 1, out);
                dump_at(item, layout, level + 1, out);
            }
            newline(indent, level, out);
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(indent, level + 1, out);
                escape(k, ascii, out);
                out.push_str(": ");
                dump_at(item, layout, level + 1, out);
            }
            newline(indent, level, out);
            out.push('}');
        }
    }
}

/// `v` as `json.dumps(v, ensure_ascii=ascii)` prints it, without
/// `indent`: on one line, `", "` between items and `": "` after keys.
pub fn dump_line<O: Text>(v: &Value, ascii: bool, out: &mut O) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dump_line(item, ascii, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                escape(k, ascii, out);
                out.push_str(": ");
                dump_line(item, ascii, out);
            }
            out.push('}');
        }
        scalar => dump(scalar, 0, ascii, out),
    }
}

/// A line break and the indentation of `level`.
pub fn newline<O: Text>(indent: usize, level: usize, out: &mut O) {
    const SPACES: &str = "\n                                ";
    let n = indent * level;
    match SPACES.get(..n + 1) {
        Some(line) => out.push_str(line),
        None => {
            out.push('\n');
            for _ in 0..n {
                out.push(' ');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_follow_python_repr() {
        let cases = [
            (json!(0.8), "0.8"),
            (json!(1.0), "1.0"),
            (json!(1e-05), "1e-05"),
            (json!(0.0001), "0.0001"),
            (json!(1e16), "1e+16"),
            (json!(123456789012345.0), "123456789012345.0"),
            (json!(-2.5e-7), "-2.5e-07"),
            (json!(100), "100"),
            (json!(-3), "-3"),
        ];
        for (v, want) in cases {
            assert_eq!(python_number(v.as_number().unwrap()), want);
        }
    }

    #[test]
    fn strings_follow_python_escapes() {
        let mut out = String::new();
        escape("a\"\\\n\t\u{1}×😀\u{7f}", true, &mut out);
        assert_eq!(out, r#""a\"\\\n\t\u0001\u00d7\ud83d\ude00\u007f""#);
        out.clear();
        escape("×😀\u{7f}/", false, &mut out);
        assert_eq!(out, "\"×😀\u{7f}/\"");
        // Escapes between multi-byte characters, and plain runs between
        // escaped characters.
        out.clear();
        escape("é\"😀\n×\\", false, &mut out);
        assert_eq!(out, r#""é\"😀\n×\\""#);
        out.clear();
        escape("ab é cd 안전 ef\u{8}", true, &mut out);
        assert_eq!(out, r#""ab \u00e9 cd \uc548\uc804 ef\b""#);
    }

    #[test]
    fn dump_is_python_indent_2() {
        let v = json!({"a": [1, 2.5], "b": {}, "c": [], "d": {"e": null, "f": "é"}});
        let mut out = String::new();
        dump(&v, 2, false, &mut out);
        let mut hand = String::new();
        let layout = Layout {
            inline_scalar_lists: true,
            ..Layout::python(2, false)
        };
        dump_with(
            &serde_json::json!({"a": [1, 2], "b": [{}]}),
            &layout,
            &mut hand,
        );
        assert_eq!(hand, "{\n  \"a\": [1, 2],\n  \"b\": [\n    {}\n  ]\n}");
        let mut line = String::new();
        dump_line(&v, false, &mut line);
        assert_eq!(
            line,
            "{\"a\": [1, 2.5], \"b\": {}, \"c\": [], \"d\": {\"e\": null, \"f\": \"é\"}}"
        );
        assert_eq!(
            out,
            "{\n  \"a\": [\n    1,\n    2.5\n  ],\n  \"b\": {},\n  \"c\": [],\n  \"d\": {\n    \"e\": null,\n    \"f\": \"é\"\n  }\n}"
        );
    }
}
