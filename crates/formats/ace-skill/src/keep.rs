//! Whether a parsed value's own bytes are what [`Style`] would print for
//! it, checked on the bytes rather than by printing.
//!
//! Printing a bullet again to compare it with the file decodes and escapes
//! every string and compares every byte twice over: most of a large read's
//! layout check. Here the text is walked along the tree instead: the
//! whitespace between tokens is compared with what the style puts there,
//! and a string or number is accepted as it stands when its text is the
//! one Python's encoder would write for its value (only canonical escapes,
//! an integer without sign or zero oddities). The answer is one-sided: yes
//! means the printing is these bytes; no only means "not shown here", and
//! the caller prints and compares as before, which also finds where the
//! two differ.

use ace_jsonspan::{Kind, Node};

use crate::style::Style;

impl Style {
    /// Whether `node` at nesting `level`, printed in this style, gives
    /// back `text[node.span]` byte for byte (see the module comment: a
    /// `false` may be wrong, a `true` never is).
    pub(crate) fn keeps(&self, node: &Node, text: &str, level: usize) -> bool {
        Walk {
            style: self,
            text: text.as_bytes(),
        }
        .value(node, node.span.start, level)
            == Some(node.span.end)
    }
}

struct Walk<'a> {
    style: &'a Style,
    text: &'a [u8],
}

impl Walk<'_> {
    /// Where `node`'s printing ends, if it starts at `at` and its bytes are
    /// the printing.
    fn value(&self, node: &Node, at: usize, level: usize) -> Option<usize> {
        if node.span.start != at {
            return None;
        }
        let end = node.span.end;
        match &node.kind {
            // The parser took these bytes for exactly this literal.
            Kind::Null | Kind::Bool(_) => Some(end),
            Kind::Number(lexeme) => canonical_number(lexeme).then_some(end),
            Kind::String(_) => self.string(at, end).then_some(end),
            Kind::Array(items) => {
                if items.is_empty() {
                    return (self.text.get(at..end)? == b"[]").then_some(end);
                }
                let one_line = self.style.indent.is_none()
                    || (self.style.inline_scalar_arrays
                        && items
                            .iter()
                            .all(|i| !matches!(i.kind, Kind::Array(_) | Kind::Object(_))));
                let mut pos = self.byte(at, b'[')?;
                for (i, item) in items.iter().enumerate() {
                    pos = self.separator(pos, i, level + 1, one_line)?;
                    pos = self.value(item, pos, level + 1)?;
                }
                pos = self.close(pos, level, one_line)?;
                self.byte(pos, b']').filter(|&p| p == end)
            }
            Kind::Object(members) => {
                if members.is_empty() {
                    return (self.text.get(at..end)? == b"{}").then_some(end);
                }
                // The printer keeps one member per key: a repeated key is
                // left to it. Bullets have a dozen keys; larger objects
                // are rare enough to leave to it too.
                if members.len() > 32
                    || members
                        .iter()
                        .enumerate()
                        .any(|(i, m)| members[..i].iter().any(|p| p.key == m.key))
                {
                    return None;
                }
                let one_line = self.style.indent.is_none();
                let mut pos = self.byte(at, b'{')?;
                for (i, m) in members.iter().enumerate() {
                    pos = self.separator(pos, i, level + 1, one_line)?;
                    if m.key_span.start != pos || !self.string(pos, m.key_span.end) {
                        return None;
                    }
                    pos = self.bytes(m.key_span.end, b": ")?;
                    pos = self.value(&m.value, pos, level + 1)?;
                }
                pos = self.close(pos, level, one_line)?;
                self.byte(pos, b'}').filter(|&p| p == end)
            }
        }
    }

    fn byte(&self, at: usize, b: u8) -> Option<usize> {
        (self.text.get(at) == Some(&b)).then_some(at + 1)
    }

    fn bytes(&self, at: usize, s: &[u8]) -> Option<usize> {
        (self.text.get(at..at + s.len())? == s).then_some(at + s.len())
    }

    /// `n` spaces from `at`.
    fn spaces(&self, at: usize, n: usize) -> Option<usize> {
        let run = self.text.get(at..at + n)?;
        run.iter().all(|&b| b == b' ').then_some(at + n)
    }

    /// What the printer puts before item or member `i` at `level`.
    fn separator(&self, at: usize, i: usize, level: usize, one_line: bool) -> Option<usize> {
        if one_line {
            return if i > 0 {
                self.bytes(at, b", ")
            } else {
                Some(at)
            };
        }
        let at = if i > 0 { self.byte(at, b',')? } else { at };
        let at = self.byte(at, b'\n')?;
        self.spaces(at, level * self.style.indent.unwrap_or(0))
    }

    /// What the printer puts before a container's closing bracket.
    fn close(&self, at: usize, level: usize, one_line: bool) -> Option<usize> {
        if one_line {
            return Some(at);
        }
        let at = self.byte(at, b'\n')?;
        self.spaces(at, level * self.style.indent.unwrap_or(0))
    }

    /// Whether the quoted string `text[start..end]` is what
    /// [`crate::style::escape`] writes for the value it reads as.
    fn string(&self, start: usize, end: usize) -> bool {
        let Some(raw) = self.text.get(start..end) else {
            return false;
        };
        let [b'"', inner @ .., b'"'] = raw else {
            return false;
        };
        let max = if self.style.ascii { 0x7e } else { 0xff };
        let plain = |b: u8| (b >= 0x20) & (b != b'"') & (b != b'\\') & (b <= max);
        if ace_exec::scan::all_bytes(inner, plain) {
            return true;
        }
        canonical_escapes(inner, self.style.ascii, plain)
    }
}

/// Whether every escape in a string's inner bytes is the one Python's
/// encoder writes for its character, and every other byte is one it
/// writes as it is.
fn canonical_escapes(inner: &[u8], ascii: bool, plain: impl Fn(u8) -> bool) -> bool {
    let mut at = 0;
    while at < inner.len() {
        let b = inner[at];
        if plain(b) {
            at += 1;
            continue;
        }
        if b != b'\\' {
            return false;
        }
        match inner.get(at + 1) {
            Some(b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f') => at += 2,
            Some(b'u') => {
                let Some(unit) = hex4(inner.get(at + 2..at + 6)) else {
                    return false;
                };
                at += 6;
                match unit {
                    // These have a short escape, which Python uses.
                    0x08 | 0x09 | 0x0a | 0x0c | 0x0d => return false,
                    0..=0x1f => {}
                    _ if !ascii => return false,
                    0x20..=0x7e => return false,
                    0xd800..=0xdbff => {
                        // Only a high surrogate followed by a low one is a
                        // character; anything else reads as something else.
                        let low = match inner.get(at..at + 2) {
                            Some(b"\\u") => hex4(inner.get(at + 2..at + 6)),
                            _ => None,
                        };
                        if !matches!(low, Some(0xdc00..=0xdfff)) {
                            return false;
                        }
                        at += 6;
                    }
                    0xdc00..=0xdfff => return false,
                    _ => {}
                }
            }
            _ => return false,
        }
    }
    true
}

/// Four lower-case hex digits, as Python writes them.
fn hex4(digits: Option<&[u8]>) -> Option<u16> {
    let digits = digits?;
    let mut unit = 0u16;
    for &d in digits {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            _ => return None,
        };
        unit = unit << 4 | u16::from(v);
    }
    Some(unit)
}

/// Whether a number's lexeme is what Python prints for the number it
/// reads as: integers by their digits, floats by printing them.
fn canonical_number(lexeme: &str) -> bool {
    if canonical_integer(lexeme) {
        return true;
    }
    let mut printed = String::new();
    crate::style::push_python_number(&ace_jsonspan::number(lexeme), &mut printed);
    printed == lexeme
}

/// Whether a number's lexeme is what Python prints for the integer it
/// reads as (see [`ace_jsonspan::number`]).
fn canonical_integer(lexeme: &str) -> bool {
    let digits = lexeme.strip_prefix('-').unwrap_or(lexeme);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits.len() == 1 || !digits.starts_with('0'))
        && lexeme != "-0"
        && (lexeme.parse::<i64>().is_ok() || lexeme.parse::<u64>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::Compare;

    fn styles() -> Vec<Style> {
        let mut out = Vec::new();
        for indent in [None, Some(2), Some(4)] {
            for inline_scalar_arrays in [false, true] {
                for ascii in [false, true] {
                    out.push(Style {
                        indent,
                        inline_scalar_arrays,
                        ascii,
                        final_newline: false,
                    });
                }
            }
        }
        out
    }

    /// The printer's own answer: printed and compared.
    fn printed_same(style: &Style, node: &Node, text: &str, level: usize) -> bool {
        let mut compare = Compare::new(&text[node.span.start..node.span.end]);
        style.write(node, level, &mut compare);
        compare.finish().is_none()
    }

    #[test]
    fn what_the_printer_writes_is_kept() {
        let docs = [
            r#"{"a": [1, -2, 0, 3.5, -0, 1e5, 1e-5, 1e16, -2.5e-7, 0.1, "x"], "b": {}, "c": [], "d": [{"e": null, "f": true}], "g": "q\"\\\n\r\t\b\f\u0001 é 😀 \u007f ~"}"#,
            r#"[[], [[1]], {"k": {"l": [false]}}]"#,
            r#""only a string""#,
            "12345678901234567890",
        ];
        for doc in docs {
            let value: serde_json::Value = serde_json::from_str(doc).unwrap();
            for style in styles() {
                for level in [0, 1, 3] {
                    // Printed at `level` inside an array at that depth, so
                    // that the spans are those of a nested value.
                    let mut text = String::new();
                    for _ in 0..level {
                        text.push('[');
                    }
                    let start = text.len();
                    style.write(&value, level, &mut text);
                    let end = text.len();
                    for _ in 0..level {
                        text.push(']');
                    }
                    let parsed = ace_jsonspan::parse(&text).unwrap();
                    let mut node = &parsed.root;
                    for _ in 0..level {
                        match &node.kind {
                            Kind::Array(items) => node = &items[0],
                            _ => unreachable!(),
                        }
                    }
                    assert_eq!((node.span.start, node.span.end), (start, end));
                    let printed = printed_same(&style, node, &text, level);
                    let kept = style.keeps(node, &text, level);
                    assert!(printed, "{style:?} {text}");
                    assert!(kept, "{style:?} {level} {text}");
                }
            }
        }
    }

    #[test]
    fn kept_is_never_said_of_bytes_the_printer_would_change() {
        // Kept as they are by an ASCII style and by a UTF-8 one.
        let ascii = "{\n  \"a\": [\n    1,\n    \"x\\u00e9\\ud83d\\ude00\\n\\u0001\"\n  ],\n  \"b\": {\n    \"c\": null\n  }\n}";
        let utf8 = "{\n  \"a\": [\n    1,\n    \"x\u{e9}\u{1f600}\\n\\u0001\"\n  ],\n  \"b\": {\n    \"c\": null\n  }\n}";
        let mut kept_bases = 0;
        for base in [ascii, utf8] {
            let doc = ace_jsonspan::parse(base).unwrap();
            kept_bases += styles()
                .iter()
                .filter(|s| s.keeps(&doc.root, base, 0))
                .count();
        }
        assert_eq!(kept_bases, 2, "each base is kept by its own style");
        for base in [ascii, utf8] {
            // Every character replaced in turn by each of a few others,
            // something inserted before it, and it dropped: whatever still
            // parses must not be called kept unless printing it gives the
            // same bytes.
            let mut variants = Vec::new();
            for (at, c) in base.char_indices() {
                let next = at + c.len_utf8();
                for with in [
                    " ", "\n", ",", "0", "-", "\\", "u", "A", "\"", "é", "\t", "1",
                ] {
                    variants.push(format!("{}{with}{}", &base[..at], &base[next..]));
                    variants.push(format!("{}{with}{}", &base[..at], &base[at..]));
                }
                variants.push(format!("{}{}", &base[..at], &base[next..]));
            }
            for (from, to) in [
                ("\\u00e9", "\\u00E9"),
                ("\\ud83d\\ude00", "\\ud83d"),
                ("\\ud83d\\ude00", "\\ude00\\ud83d"),
                ("\\ud83d\\ude00", "\\ude00"),
                ("\\n", "\\u000a"),
                ("\\u0001", "\\u0041"),
                ("\"x", "\"\\/"),
                ("1,", "-0,"),
                ("1,", "1.0,"),
                ("1,", "1.50,"),
                ("1,", "1e-05,"),
                ("1,", "1E-05,"),
                ("1,", "0.00001,"),
                ("1,", "1e+16,"),
                ("1,", "1e16,"),
                ("\"c\": null", "\"c\": null,\n    \"c\": null"),
                ("\u{e9}", "\\u00e9"),
            ] {
                variants.push(base.replace(from, to));
            }
            for text in &variants {
                let Ok(doc) = ace_jsonspan::parse(text) else {
                    continue;
                };
                for style in styles() {
                    if style.keeps(&doc.root, text, 0) {
                        assert!(
                            printed_same(&style, &doc.root, text, 0),
                            "{style:?} {text:?}"
                        );
                    }
                }
            }
        }
    }
}
