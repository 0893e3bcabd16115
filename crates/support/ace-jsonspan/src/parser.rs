//! Strict JSON straight into [`Node`]s, in one pass over the bytes.
//!
//! One tree per document, built as the bytes are read, rather than a
//! general parser's syntax tree copied into ours. What it accepts and the
//! messages it gives are those of dprint's `jsonc-parser` with its JSONC
//! extensions off (docs/decisions.md).

use ace_model::{rules, Diagnostic, Span};

use crate::{ItemParser, ItemSink, Kind, Member, Node, SinkPath, SmolStr};

/// Deeper documents are refused rather than risk the stack; the same limit
/// as before (jsonc-parser's), far beyond any real playbook.
const MAX_DEPTH: usize = 512;

/// Boxed, and built out of line: debug builds give every error temporary
/// its own stack slot, and 512 levels of recursion must fit in a test
/// thread's stack.
type Result<T> = std::result::Result<T, Box<Diagnostic>>;

/// Parses the items of a taken array elsewhere ([`Parser::skim`]), at its
/// nesting.
struct JsonItems {
    depth: usize,
}

impl ItemParser for JsonItems {
    fn start<'t>(&'t self, text: &'t str) -> Box<dyn FnMut(Span) -> Option<Node> + 't> {
        Box::new(move |span| Parser::item_at(text, span, self.depth))
    }
}

pub(crate) struct Parser<'a, 's> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    sink: SinkPath<'s>,
}

impl<'a, 's> Parser<'a, 's> {
    /// A parser of `text` from byte `start` (after a byte-order mark);
    /// spans are offsets into the whole of `text`.
    pub(crate) fn new(text: &'a str, start: usize, sink: Option<&'s mut dyn ItemSink>) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: start,
            depth: 0,
            sink: SinkPath::new(sink),
        }
    }

    /// The one value of the text, or `None` if it holds only white space.
    pub(crate) fn document(mut self) -> Result<Option<Node>> {
        self.skip_ws()?;
        if self.pos == self.bytes.len() {
            return Ok(None);
        }
        let root = self.value()?;
        self.skip_ws()?;
        if self.pos < self.bytes.len() {
            return Err(self.err_char(self.pos, "text cannot contain more than one JSON value"));
        }
        Ok(Some(root))
    }

    #[cold]
    #[inline(never)]
    fn err(&self, start: usize, end: usize, message: &str) -> Box<Diagnostic> {
        Box::new(Diagnostic::new(
            &rules::PARSE_ERROR,
            Span::new(start, end.max(start)),
            format!("invalid JSON: {message}"),
        ))
    }

    /// An error on the character at `at` (an empty span at the end).
    #[cold]
    #[inline(never)]
    fn err_char(&self, at: usize, message: &str) -> Box<Diagnostic> {
        let len = self.text[at..].chars().next().map_or(0, char::len_utf8);
        self.err(at, at + len, message)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) -> Result<()> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) => self.pos += 1,
                Some(b'/') => {
                    let start = self.pos;
                    let end = match self.bytes.get(start + 1) {
                        Some(b'/') => memchr::memchr(b'\n', &self.bytes[start..])
                            .map_or(self.bytes.len(), |i| start + i),
                        Some(b'*') => memchr::memmem::find(&self.bytes[start + 2..], b"*/")
                            .map_or(self.bytes.len(), |i| start + 2 + i + 2),
                        _ => return Ok(()),
                    };
                    return Err(self.err(start, end, "comments are not allowed"));
                }
                Some(b) if b >= 0x80 => match self.text[self.pos..].chars().next() {
                    Some(c) if c.is_whitespace() => self.pos += c.len_utf8(),
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Node> {
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => {
                let (s, span) = self.string()?;
                Ok(Node {
                    span,
                    kind: Kind::String(s),
                })
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'+') => Err(self.err_char(start, "unary plus on numbers is not allowed")),
            Some(b'.') => Err(self.err_char(
                start,
                "leading or trailing decimal points on numbers are not allowed",
            )),
            Some(b'\'') => Err(self.err_char(start, "single-quoted strings are not allowed")),
            Some(b'}') => Err(self.err_char(start, "unexpected close brace")),
            Some(b']') => Err(self.err_char(start, "unexpected close bracket")),
            Some(b',') => Err(self.err_char(start, "unexpected comma")),
            Some(b':') => Err(self.err_char(start, "unexpected colon")),
            Some(_) => self.word(),
            None => Err(self.err(start, start, "unexpected end of file; expected a value")),
        }
    }

    /// `true`, `false`, `null`, or any other bare word, which is an error.
    fn word(&mut self) -> Result<Node> {
        let start = self.pos;
        let len = self.text[start..]
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .map_or(self.text.len() - start, |(i, _)| i);
        let kind = match &self.text[start..start + len] {
            "true" => Kind::Bool(true),
            "false" => Kind::Bool(false),
            "null" => Kind::Null,
            "" => return Err(self.err_char(start, "unexpected token")),
            _ => return Err(self.err(start, start + len, "unexpected token")),
        };
        self.pos = start + len;
        Ok(Node {
            span: Span::new(start, self.pos),
            kind,
        })
    }

    fn enter(&mut self, start: usize) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(start, start + 1, "maximum nesting depth exceeded"));
        }
        Ok(())
    }

    fn object(&mut self) -> Result<Node> {
        /// Members of a taken object read before the room for the rest
        /// is estimated.
        const ESTIMATE_AFTER: usize = 64;
        let start = self.pos;
        self.enter(start)?;
        self.pos += 1;
        let unterminated = |p: &Self| p.err(start, start + 1, "unterminated object");
        let mut members = Vec::new();
        let taken = self.sink.members_taken();
        let depth = self.depth;
        let as_text = self
            .sink
            .text_items(taken, || std::sync::Arc::new(JsonItems { depth }));
        self.skip_ws()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            let mut index = 0;
            loop {
                let (key, key_span) = match self.peek() {
                    Some(b'"') => self.key()?,
                    Some(b'\'') => {
                        return Err(self.err_char(self.pos, "single-quoted strings are not allowed"))
                    }
                    Some(b',') => return Err(self.err_char(self.pos, "unexpected token in object")),
                    Some(b'}') => return Err(self.err_char(self.pos, "unexpected close brace")),
                    Some(_) => {
                        return Err(self.err_char(self.pos, "expected string for object property"))
                    }
                    None => return Err(unterminated(self)),
                };
                self.skip_ws()?;
                match self.peek() {
                    Some(b':') => self.pos += 1,
                    Some(_) => {
                        return Err(self.err_char(
                            self.pos,
                            "expected colon after the string or word in object property",
                        ))
                    }
                    None => return Err(unterminated(self)),
                }
                self.skip_ws()?;
                if self.peek().is_none() {
                    return Err(unterminated(self));
                }
                let value = if taken {
                    self.taken_member(index, as_text)?
                } else {
                    let entered = self.sink.enter_key(&key);
                    let value = self.value()?;
                    self.sink.leave(entered);
                    value
                };
                index += 1;
                if taken && index == ESTIMATE_AFTER {
                    // A taken object is a large skillbook's skills: its
                    // keys stay in the tree, and growing their list by
                    // doubling copied it into fresh pages again and again.
                    // Room for the rest at the size of the first members;
                    // what is not used is never touched. Members counted
                    // at 64 bytes at least: the room is never much more
                    // than the text left.
                    let per = ((self.pos - start) / index).max(64);
                    members.reserve((self.bytes.len() - self.pos) / per + 1);
                }
                let value_end = self.pos;
                members.push(Member {
                    key,
                    key_span,
                    value,
                });
                if self.after_item(b'}', value_end, start, "object")? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Ok(Node {
            span: Span::new(start, self.pos),
            kind: Kind::Object(members),
        })
    }

    /// The value of member `index` of a taken object, handed to the sink
    /// (as text, if `as_text` and it can be delimited without parsing):
    /// what stays in the tree is a `null` with its span.
    fn taken_member(&mut self, index: usize, as_text: bool) -> Result<Node> {
        let start = self.pos;
        if as_text {
            if let Some(end) = self.skim() {
                self.sink.item_text(index, Span::new(start, end));
                self.pos = end;
                return Ok(Node {
                    span: Span::new(start, end),
                    kind: Kind::Null,
                });
            }
        }
        let entered = self.sink.enter_unkeyed();
        let value = self.value()?;
        self.sink.leave(entered);
        let span = value.span;
        let kept = self.sink.item(true, index, value);
        debug_assert!(kept.is_none(), "a taken object's values go to its sink");
        Ok(Node {
            span,
            kind: Kind::Null,
        })
    }

    fn array(&mut self) -> Result<Node> {
        let start = self.pos;
        self.enter(start)?;
        self.pos += 1;
        let unterminated = |p: &Self| p.err(start, start + 1, "unterminated array");
        let mut items = Vec::new();
        let (taken, entered) = self.sink.enter_items();
        let depth = self.depth;
        let as_text = self
            .sink
            .text_items(taken, || std::sync::Arc::new(JsonItems { depth }));
        self.skip_ws()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            let mut index = 0;
            loop {
                if self.peek().is_none() {
                    return Err(unterminated(self));
                }
                if as_text {
                    if let Some(end) = self.skim() {
                        self.sink.item_text(index, Span::new(self.pos, end));
                        self.pos = end;
                        index += 1;
                        if self.after_item(b']', self.pos, start, "array")? {
                            break;
                        }
                        continue;
                    }
                }
                let item = self.value()?;
                items.extend(self.sink.item(taken, index, item));
                index += 1;
                if self.after_item(b']', self.pos, start, "array")? {
                    break;
                }
            }
        }
        self.sink.leave(entered);
        self.depth -= 1;
        Ok(Node {
            span: Span::new(start, self.pos),
            kind: Kind::Array(items),
        })
    }

    /// The end of the object or array at the current byte, found without
    /// parsing it; anything else is parsed in place.
    fn skim(&self) -> Option<usize> {
        match self.peek() {
            Some(b'{' | b'[') => crate::bracketed_end(self.bytes, self.pos, false),
            _ => None,
        }
    }

    /// The value at `span` of `text`, parsed alone at `depth`; `None`
    /// unless it is one well-formed value exactly there.
    fn item_at(text: &'a str, span: Span, depth: usize) -> Option<Node> {
        Parser::value_at(text.get(..span.end)?, span.start, depth)
    }

    /// The one value from `start` to the end of `text`, with no white
    /// space around it, parsed at `depth`.
    pub(crate) fn value_at(text: &'a str, start: usize, depth: usize) -> Option<Node> {
        text.get(start..)?;
        let mut p = Parser::new(text, start, None);
        p.depth = depth;
        let node = p.value().ok()?;
        (p.pos == text.len()).then_some(node)
    }

    /// After a member or item of the object or array opened at `start`
    /// (closed by `close`): a comma, or the close, which is consumed and
    /// gives `true`.
    fn after_item(
        &mut self,
        close: u8,
        value_end: usize,
        start: usize,
        what: &str,
    ) -> Result<bool> {
        self.skip_ws()?;
        match self.peek() {
            Some(b',') => {
                let comma = self.pos;
                self.pos += 1;
                self.skip_ws()?;
                if self.peek() == Some(close) {
                    return Err(self.err(comma, comma + 1, "trailing commas are not allowed"));
                }
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            Some(b'}') => Err(self.err_char(self.pos, "unexpected close brace")),
            Some(b']') => Err(self.err_char(self.pos, "unexpected close bracket")),
            Some(_) => Err(self.err(value_end, value_end, "expected comma")),
            None => Err(self.err(start, start + 1, &format!("unterminated {what}"))),
        }
    }

    /// A string at `"`: its value and the span of the quoted text. Text
    /// without escapes is copied once, in one piece.
    fn string(&mut self) -> Result<(String, Span)> {
        self.string_as(str::to_owned, |s| s)
    }

    /// An object key: most are short and come without escapes, and are
    /// then made from the text without an allocation.
    fn key(&mut self) -> Result<(SmolStr, Span)> {
        self.string_as(SmolStr::new, SmolStr::from)
    }

    /// The string at the cursor, made by `borrowed` from the text when it
    /// has no escapes, by `owned` from its decoding otherwise.
    fn string_as<T>(
        &mut self,
        borrowed: impl FnOnce(&'a str) -> T,
        owned: impl FnOnce(String) -> T,
    ) -> Result<(T, Span)> {
        let start = self.pos;
        self.pos += 1;
        let mut decoded: Option<String> = None;
        let mut chunk = self.pos;
        loop {
            let Some(i) = ace_exec::scan::json_escape(&self.bytes[self.pos..]) else {
                return Err(self.err(start, self.bytes.len(), "unterminated string literal"));
            };
            let at = self.pos + i;
            let c = self.bytes[at];
            if c < 0x20 {
                // RFC 8259 has them escaped; Python's json (kayba's
                // loader) and serde_json refuse the file.
                return Err(self.err(
                    at,
                    at + 1,
                    &format!(
                        "control character U+{c:04X} in a string: JSON has it escaped (`{}`)",
                        ace_exec::scan::json_escaped(c, &mut [0; 6])
                    ),
                ));
            }
            let piece = &self.text[chunk..at];
            if c == b'"' {
                self.pos = at + 1;
                let s = match decoded {
                    Some(mut s) => {
                        s.push_str(piece);
                        owned(s)
                    }
                    None => borrowed(piece),
                };
                return Ok((s, Span::new(start, self.pos)));
            }
            let s =
                decoded.get_or_insert_with(|| String::with_capacity(at - chunk + self.raw_len(at)));
            s.push_str(piece);
            self.pos = self.escape(at, start, s)?;
            chunk = self.pos;
        }
    }

    /// The bytes from `at` to the string's closing quote (or the end of
    /// the text): what its decoding from `at` on can take at most, since no
    /// escape decodes to more bytes than it is written with. Reserving it
    /// once replaced a string's growing through several copies, which was a
    /// tenth of reading a file written with `ensure_ascii`.
    fn raw_len(&self, at: usize) -> usize {
        let mut from = at;
        while let Some(i) = memchr::memchr(b'"', &self.bytes[from..]) {
            let quote = from + i;
            let backslashes = self.bytes[at..quote]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 0 {
                return quote - at;
            }
            from = quote + 1;
        }
        self.bytes.len() - at
    }

    /// Decodes the escape at `at` (a backslash) onto the string being built;
    /// returns the position after it.
    fn escape(&self, at: usize, string_start: usize, out: &mut String) -> Result<usize> {
        let unterminated =
            |p: &Self| p.err(string_start, p.bytes.len(), "unterminated string literal");
        let c = match self.bytes.get(at + 1) {
            None => return Err(unterminated(self)),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let (c, end) = self.unicode_escape(at)?;
                out.push(c);
                return Ok(end);
            }
            Some(_) => {
                let len = self.text[at + 1..].chars().next().map_or(0, char::len_utf8);
                return Err(self.err(at, at + 1 + len, "invalid escape"));
            }
        };
        out.push(c);
        Ok(at + 2)
    }

    fn hex4(&self, at: usize) -> Result<u32> {
        let digits = self
            .bytes
            .get(at + 2..at + 6)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit));
        match digits {
            Some(d) => Ok(d
                .iter()
                .fold(0, |n, &b| n * 16 + (b as char).to_digit(16).unwrap_or(0))),
            None => {
                let end = (at + 2..(at + 6).min(self.bytes.len()))
                    .find(|&i| !self.bytes[i].is_ascii_hexdigit())
                    .map_or((at + 6).min(self.bytes.len()), |i| i + 1)
                    .min(self.bytes.len());
                let end = (end..=self.bytes.len())
                    .find(|&i| self.text.is_char_boundary(i))
                    .unwrap_or(self.bytes.len());
                Err(self.err(at, end, "expected four hex digits"))
            }
        }
    }

    /// `\uXXXX` at `at`, or a surrogate pair of two; lone surrogates are
    /// errors because a Rust string cannot hold them.
    fn unicode_escape(&self, at: usize) -> Result<(char, usize)> {
        let first = self.hex4(at)?;
        let raw = &self.text[at + 2..at + 6];
        if (0xDC00..0xE000).contains(&first) {
            return Err(self.err(
                at,
                at + 6,
                &format!("invalid unicode escape sequence: \\u{raw} is an unpaired low surrogate"),
            ));
        }
        if !(0xD800..0xDC00).contains(&first) {
            return Ok((char::from_u32(first).unwrap_or('\u{fffd}'), at + 6));
        }
        let paired = self.bytes.get(at + 6..at + 8) == Some(b"\\u");
        let second = if paired { self.hex4(at + 6).ok() } else { None };
        match second {
            Some(low) if (0xDC00..0xE000).contains(&low) => {
                let c = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00);
                Ok((char::from_u32(c).unwrap_or('\u{fffd}'), at + 12))
            }
            _ => Err(self.err(
                at,
                if paired { at + 12 } else { at + 6 }.min(self.bytes.len()),
                &format!(
                    "invalid unicode escape sequence: \\u{raw} is a high surrogate not followed by a low one"
                ),
            )),
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<Node> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                return Err(self.err_char(self.pos, "expected digit following negative sign"));
            }
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
            match self.peek() {
                Some(b'x' | b'X') => {
                    return Err(self.err_char(start, "hexadecimal numbers are not allowed"))
                }
                Some(b'0'..=b'9') => {
                    return Err(self.err(start, self.pos + 1, "leading zeros are not allowed"))
                }
                _ => {}
            }
        } else {
            self.digits();
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.err(
                    start,
                    self.pos,
                    "leading or trailing decimal points on numbers are not allowed",
                ));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(
                    self.err_char(self.pos, "expected plus, minus, or digit in number literal")
                );
            }
        }
        Ok(Node {
            span: Span::new(start, self.pos),
            kind: Kind::Number(SmolStr::new(&self.text[start..self.pos])),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::parse;

    fn error(text: &str) -> (usize, usize, String) {
        let e = parse(text).unwrap_err();
        (e.span.start, e.span.end, e.message)
    }

    #[test]
    fn errors_point_at_the_fault() {
        for (text, at, message) in [
            ("[01]", (1, 3), "leading zeros are not allowed"),
            ("[1.]", (1, 3), "leading or trailing decimal points"),
            ("[1e]", (3, 4), "expected plus, minus, or digit"),
            ("[-]", (2, 3), "expected digit following negative sign"),
            ("[-", (2, 2), "expected digit following negative sign"),
            ("{\"a\":1 \"b\":2}", (6, 6), "expected comma"),
            ("[1}", (2, 3), "unexpected close brace"),
            ("{\"a\":1]", (6, 7), "unexpected close bracket"),
            ("{\"a\":1,,}", (7, 8), "unexpected token in object"),
            ("\"abc", (0, 4), "unterminated string literal"),
            ("\"ab\\", (0, 4), "unterminated string literal"),
            ("[1, /* c */ 2]", (4, 11), "comments are not allowed"),
            ("{\"a\":", (0, 1), "unterminated object"),
            ("[é]", (1, 3), "unexpected token"),
            ("\"\\é\"", (1, 4), "invalid escape"),
            ("\"\\u12\"", (1, 6), "expected four hex digits"),
            (
                "\"\\ud800\"",
                (1, 7),
                "high surrogate not followed by a low one",
            ),
            ("\"\\udc00\"", (1, 7), "unpaired low surrogate"),
            ("[tru", (1, 4), "unexpected token"),
        ] {
            let (start, end, got) = error(text);
            assert_eq!((start, end), at, "{text}: {got}");
            assert!(got.contains(message), "{text}: {got}");
        }
    }

    #[test]
    fn escapes_and_white_space() {
        let doc = parse(
            "\u{a0}[\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\", \"x\\ty\"]\u{3000}",
        )
        .unwrap();
        let v = doc.root.to_value();
        assert_eq!(v[0], "a\"b\\c/\u{8}\u{c}\n\r\té😀");
        assert_eq!(v[1], "x\ty");
        // Written raw, the tab is no JSON (Python's json and serde_json
        // refuse it too).
        let e = parse("[\"x\ty\"]").unwrap_err();
        assert_eq!((e.span.start, e.span.end), (3, 4), "{}", e.message);
    }

    proptest::proptest! {
        /// Whatever serde_json writes, compact or pretty, reads back the
        /// same, and every node's span is the text it came from.
        #[test]
        fn agrees_with_serde_json(v in crate::tests_support::json_value(), pretty: bool) {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            let doc = parse(&text).unwrap();
            proptest::prop_assert_eq!(doc.root.to_value(), serde_json::from_str::<serde_json::Value>(&text).unwrap());
            let reparsed: serde_json::Value = serde_json::from_str(&text[doc.root.span.start..doc.root.span.end]).unwrap();
            proptest::prop_assert_eq!(reparsed, v);
        }
    }
}
