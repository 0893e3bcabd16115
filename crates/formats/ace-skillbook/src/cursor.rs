//! A skill's members read straight from its text, without a span tree:
//! building each skill's tree and copying its strings out again was most
//! of a large skillbook's read.
//!
//! [`fields`] takes the members when every one is plain: a key with no
//! escape, met once, and a value that is `null`, `true`, `false`, an
//! integer, a string, a list of strings, or a list or object the parser
//! reads alone. Anything else (other white space, a number with a
//! fraction, a repeated key, text the parser would reject) gives `None`,
//! and the caller parses the skill: what the members mean is read from
//! either in one place ([`crate::skill`]).

use ace_model::Span;

use crate::member::{key_bit, Field, Keys, Val, MEMBER_DEPTH};

/// The members of the object at `span` of `text` into `fields`, emptied
/// first, and what their keys are, if all are plain. The caller keeps
/// `fields` from skill to skill, so that a large skillbook does not make
/// a list for each.
pub(crate) fn fields<'t>(text: &'t str, span: Span, fields: &mut Vec<Field<'t>>) -> Option<Keys> {
    fields.clear();
    text.get(span.start..span.end)?;
    let mut c = Cursor {
        text,
        b: text.as_bytes(),
        pos: span.start,
        end: span.end,
    };
    if c.peek()? != b'{' {
        return None;
    }
    c.pos += 1;
    c.ws()?;
    // The keys met, as bits, and how many are not kayba's.
    let (mut seen, mut others) = (0u32, 0);
    if c.peek()? == b'}' {
        c.pos += 1;
    } else {
        loop {
            let (key, key_span) = c.plain_string()?;
            let bit = key_bit(key);
            let repeated = match bit {
                0 => others > 0 && fields.iter().any(|f| f.key == key),
                b => seen & b != 0,
            };
            if repeated {
                return None;
            }
            seen |= bit;
            others += usize::from(bit == 0);
            c.ws()?;
            if c.peek()? != b':' {
                return None;
            }
            c.pos += 1;
            c.ws()?;
            let start = c.pos;
            let value = c.value()?;
            fields.push(Field {
                key,
                bit,
                key_span,
                span: Span::new(start, c.pos),
                value,
            });
            if c.separator(b'}')? {
                break;
            }
        }
    }
    (c.pos == span.end).then_some(Keys {
        bits: seen,
        others,
        unique: true,
    })
}

/// A strict reader of plain JSON. Everything it takes, the parser would
/// take the same way; anything else stops it (`None`).
struct Cursor<'t> {
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    end: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.b[self.pos])
    }

    /// JSON's white space; the parser's other kinds are left to it.
    fn ws(&mut self) -> Option<()> {
        // The place is kept in a local: a skill's members are indented
        // lines, and this is most of the bytes the cursor steps over.
        let b = &self.b[..self.end];
        let mut at = self.pos;
        while let Some(&c) = b.get(at) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => at += 1,
                0x0b | 0x0c | 0x80.. | b'/' => return None,
                _ => break,
            }
        }
        self.pos = at;
        Some(())
    }

    /// After a member or an item: `,` and more to come (`false`), or
    /// `close` and the end (`true`).
    fn separator(&mut self, close: u8) -> Option<bool> {
        self.ws()?;
        match self.peek()? {
            b',' => {
                self.pos += 1;
                self.ws()?;
                Some(false)
            }
            b if b == close => {
                self.pos += 1;
                Some(true)
            }
            _ => None,
        }
    }

    /// After a scalar: the byte that may follow it, which ends it.
    fn ends_here(&self) -> Option<()> {
        matches!(
            self.peek(),
            Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']')
        )
        .then_some(())
    }

    fn value(&mut self) -> Option<Val<'t>> {
        Some(match self.peek()? {
            b'n' => {
                self.literal(b"null")?;
                Val::Null
            }
            b't' => {
                self.literal(b"true")?;
                Val::Bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                Val::Bool(false)
            }
            b'"' => self.string()?,
            b'-' | b'0'..=b'9' => Val::Int(self.integer()?),
            b'[' => match self.words() {
                Some(words) => Val::Words(words),
                None => Val::Parsed(Box::new(self.parsed()?)),
            },
            b'{' => Val::Parsed(Box::new(self.parsed()?)),
            _ => return None,
        })
    }

    /// A string without escapes and its span.
    fn plain_string(&mut self) -> Option<(&'t str, Span)> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos;
        let len = ace_exec::scan::json_escape(&self.b[start + 1..self.end])?;
        if self.b[start + 1 + len] != b'"' {
            return None;
        }
        self.pos = start + 1 + len + 1;
        Some((
            &self.text[start + 1..start + 1 + len],
            Span::new(start, self.pos),
        ))
    }

    /// A string, its escapes decoded if it has any.
    fn string(&mut self) -> Option<Val<'t>> {
        let start = self.pos;
        if let Some((s, _)) = self.plain_string() {
            return Some(Val::Str(s));
        }
        // The closing quote: the first not escaped by a backslash.
        let mut end = start + 1;
        loop {
            end += memchr::memchr2(b'"', b'\\', &self.b[end..self.end])?;
            if self.b[end] == b'"' {
                end += 1;
                break;
            }
            end += 2;
        }
        let decoded: String = serde_json::from_str(self.text.get(start..end)?).ok()?;
        self.pos = end;
        self.ends_here()?;
        Some(Val::Text(decoded))
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.b[self.pos..self.end].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        self.ends_here()
    }

    /// An integer's lexeme, as the parser takes it.
    fn integer(&mut self) -> Option<&'t str> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let n = self.pos - digits;
        if n == 0 || (n > 1 && self.b[digits] == b'0') {
            return None;
        }
        self.ends_here()?;
        Some(&self.text[start..self.pos])
    }

    /// A list of strings without escapes, each with its span; the cursor
    /// stays where it was if the list is anything else.
    fn words(&mut self) -> Option<Vec<(&'t str, Span)>> {
        let start = self.pos;
        let words = self.words_here();
        if words.is_none() {
            self.pos = start;
        }
        words
    }

    fn words_here(&mut self) -> Option<Vec<(&'t str, Span)>> {
        self.pos += 1;
        self.ws()?;
        let mut words = Vec::new();
        if self.peek()? == b']' {
            self.pos += 1;
        } else {
            loop {
                words.push(self.plain_string()?);
                if self.separator(b']')? {
                    break;
                }
            }
        }
        self.ends_here()?;
        Some(words)
    }

    /// A list or object, parsed as the whole read parses it; one with a
    /// repeated key inside is left to the caller's parse, which reports it.
    fn parsed(&mut self) -> Option<ace_jsonspan::Node> {
        let end = ace_jsonspan::bracketed_end(&self.b[..self.end], self.pos, false)?;
        let node = ace_jsonspan::parse_at_depth(self.text, self.pos..end, MEMBER_DEPTH)?;
        let mut repeated = Vec::new();
        ace_jsonspan::duplicate_keys(&node, &mut repeated);
        if !repeated.is_empty() {
            return None;
        }
        self.pos = end;
        self.ends_here()?;
        Some(node)
    }
}
