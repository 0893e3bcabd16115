//! Tokens of TRON (grammars/tron.ebnf, "tokens"). Line feeds are tokens
//! because they separate header lines and root entries; a line holding only
//! a comment disappears together with its line feed (ambiguity A4).

use ace_model::Span;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok<'a> {
    /// `[A-Za-z_][A-Za-z0-9_]*`, keywords included; borrowed from the text.
    Ident(&'a str),
    Str(String),
    /// The number as written.
    Num(&'a str),
    Punct(u8),
    Nl,
    Eof,
}

impl Tok<'_> {
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Num(n) => format!("number `{n}`"),
            Tok::Punct(c) => format!("`{}`", *c as char),
            Tok::Nl => "end of line".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    /// A line feed inside brackets came right before this token. Such line
    /// feeds carry no meaning (rule C2) except between an instance's name
    /// and its `(`, so they are not tokens of their own: a large document
    /// has a third fewer tokens.
    pub nl_before: bool,
    pub span: Span,
}

/// A lexical error: where and what.
#[derive(Debug, Clone)]
pub struct LexError {
    pub span: Span,
    pub message: String,
}

/// `KEYWORD = "class" | "true" | "false" | "null"`
pub fn is_keyword(s: &str) -> bool {
    matches!(s, "class" | "true" | "false" | "null")
}

/// Splits `text` (from byte `start`, after any BOM) into tokens, one at a
/// time: the parser holds only the few it looks ahead at, not the tokens of
/// a whole document (about one per eight bytes).
pub struct Lexer<'t> {
    text: &'t str,
    i: usize,
    /// Whether the current line has produced a token yet.
    line_has_token: bool,
    /// Open brackets, and whether a line feed inside them awaits the next
    /// token.
    depth: usize,
    pending_nl: bool,
    /// The first lexical error, after which only `Eof` follows.
    pub error: Option<LexError>,
}

impl<'t> Lexer<'t> {
    pub fn new(text: &'t str, start: usize) -> Self {
        Lexer {
            text,
            i: start,
            line_has_token: false,
            depth: 0,
            pending_nl: false,
            error: None,
        }
    }

    /// A lexer for one value inside brackets (an item of an array), from
    /// `start`: line feeds in it are not tokens, as they would not be
    /// where the value stands.
    pub fn inside(text: &'t str, start: usize) -> Self {
        Lexer {
            depth: 1,
            ..Lexer::new(text, start)
        }
    }

    pub fn text(&self) -> &'t str {
        self.text
    }

    /// Brackets open at the end of what was lexed.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Goes on from byte `at`, right after a closing bracket, with `depth`
    /// brackets open: what lexing up to there would have left.
    pub fn resume_at(&mut self, at: usize, depth: usize) {
        self.i = at;
        self.depth = depth;
        self.line_has_token = true;
        self.pending_nl = false;
    }

    fn token(&mut self, tok: Tok<'t>, start: usize, end: usize) -> Token<'t> {
        self.line_has_token = true;
        Token {
            nl_before: std::mem::take(&mut self.pending_nl),
            tok,
            span: Span::new(start, end),
        }
    }

    /// The next token: `Eof` at the end of the text, and again after it.
    /// A lexical error ends the text: `Eof` where it is, the error in
    /// [`Lexer::error`]. Returning a `Result` instead cost the parser a
    /// tenth of its time: the token was copied through it with loads wider
    /// than the stores that had just written it, which stall.
    #[inline(always)]
    pub fn next_token(&mut self) -> Token<'t> {
        match self.lex() {
            Ok(t) => t,
            Err(e) => self.fail(e),
        }
    }

    #[cold]
    fn fail(&mut self, e: LexError) -> Token<'t> {
        let at = e.span.start;
        self.i = self.text.len();
        self.error.get_or_insert(e);
        Token {
            tok: Tok::Eof,
            nl_before: false,
            span: Span::new(at, at),
        }
    }

    #[inline(always)]
    fn lex(&mut self) -> Result<Token<'t>, LexError> {
        let text = self.text;
        let b = text.as_bytes();
        let err = |s: usize, e: usize, m: String| LexError {
            span: Span::new(s, e),
            message: m,
        };
        while self.i < b.len() {
            let i = self.i;
            let c = b[i];
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                // NL = LF
                b'\n' if self.depth > 0 => {
                    self.pending_nl = true;
                    self.line_has_token = false;
                    self.i += 1;
                }
                b'\n' => {
                    self.i += 1;
                    let t = self.token(Tok::Nl, i, i + 1);
                    self.line_has_token = false;
                    return Ok(t);
                }
                b'#' => {
                    let mut j = i;
                    while j < b.len() && b[j] != b'\n' {
                        j += 1;
                    }
                    if !self.line_has_token && j < b.len() {
                        j += 1;
                    }
                    self.i = j;
                }
                b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b':' | b';' | b'=' => {
                    match c {
                        b'(' | b'[' | b'{' => self.depth += 1,
                        b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                        _ => {}
                    }
                    self.i += 1;
                    return Ok(self.token(Tok::Punct(c), i, i + 1));
                }
                b'"' => {
                    let (s, end) =
                        string(text, i).map_err(|(at, m)| err(at, (at + 1).min(b.len()), m))?;
                    self.i = end;
                    return Ok(self.token(Tok::Str(s), i, end));
                }
                b'-' | b'0'..=b'9' => {
                    let end = number(b, i).map_err(|(e, m)| err(i, e, m))?;
                    self.i = end;
                    return Ok(self.token(Tok::Num(&text[i..end]), i, end));
                }
                // IDENT = ( letter | "_" ) , { letter | digit | "_" } (ASCII
                // only, with letter = A-Z | a-z and digit = 0-9)
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let mut j = i;
                    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                        j += 1;
                    }
                    self.i = j;
                    return Ok(self.token(Tok::Ident(&text[i..j]), i, j));
                }
                _ => {
                    let ch = text[i..].chars().next().unwrap_or('?');
                    return Err(err(
                        i,
                        i + ch.len_utf8(),
                        format!(
                            "unexpected character {ch:?}; expected a value, a name (ASCII letters, digits and `_`), a string or punctuation"
                        ),
                    ));
                }
            }
        }
        Ok(Token {
            nl_before: self.pending_nl,
            tok: Tok::Eof,
            span: Span::new(b.len(), b.len()),
        })
    }
}

/// `NUMBER = [ "-" ] , ( "0" | nzdigit , { digit } ) , [ "." , digit ,
/// { digit } ] , [ ( "e" | "E" ) , [ "+" | "-" ] , digit , { digit } ]`,
/// not directly followed by a letter, digit, `_` or `.`; returns the end.
fn number(b: &[u8], start: usize) -> Result<usize, (usize, String)> {
    let mut i = start;
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - s
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return Err((i.max(start + 1), "expected a digit after `-`".into())),
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return Err((i, "expected a digit after the decimal point".into()));
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return Err((i, "expected a digit in the exponent".into()));
        }
    }
    if matches!(b.get(i), Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.') {
        let mut e = i;
        while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_' || b[e] == b'.') {
            e += 1;
        }
        let lexeme = String::from_utf8_lossy(&b[start..e]);
        return Err((
            e,
            format!("`{lexeme}` is not a number (JSON numbers have no leading zeros, and names cannot start with a digit)"),
        ));
    }
    Ok(i)
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let s = std::str::from_utf8(b.get(i..i + 4)?).ok()?;
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// `STRING = '"' , { plainchar | escape } , '"'`, starting at the quote at
/// `start`: its value and end. `plainchar` excludes U+0000..U+001F, and an
/// `escape` of a high surrogate must be followed by a low one.
fn string(text: &str, start: usize) -> Result<(String, usize), (usize, String)> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = start + 1;
    loop {
        let Some(&c) = b.get(i) else {
            return Err((start, "unterminated string; expected a closing `\"`".into()));
        };
        match c {
            b'"' => return Ok((out, i + 1)),
            b'\\' => {
                let Some(&e) = b.get(i + 1) else {
                    return Err((i, "unterminated string; expected a closing `\"`".into()));
                };
                let simple = match e {
                    b'"' => Some('"'),
                    b'\\' => Some('\\'),
                    b'/' => Some('/'),
                    b'b' => Some('\u{8}'),
                    b'f' => Some('\u{c}'),
                    b'n' => Some('\n'),
                    b'r' => Some('\r'),
                    b't' => Some('\t'),
                    _ => None,
                };
                if let Some(ch) = simple {
                    out.push(ch);
                    i += 2;
                    continue;
                }
                if e != b'u' {
                    let ch = text[i + 1..].chars().next().unwrap_or('?');
                    return Err((i, format!("invalid escape `\\{ch}`; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")));
                }
                let Some(u) = hex4(b, i + 2) else {
                    return Err((i, "invalid `\\u` escape; expected four hex digits".into()));
                };
                i += 6;
                let ch = if (0xD800..0xDC00).contains(&u) {
                    let low = (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
                        .then(|| hex4(b, i + 2))
                        .flatten()
                        .filter(|l| (0xDC00..0xE000).contains(l));
                    let Some(low) = low else {
                        return Err((
                            i - 6,
                            "lone high surrogate; expected a `\\uDC00`-`\\uDFFF` escape after it"
                                .into(),
                        ));
                    };
                    i += 6;
                    char::from_u32(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))
                } else if (0xDC00..0xE000).contains(&u) {
                    return Err((
                        i - 6,
                        "lone low surrogate; it must follow a high surrogate".into(),
                    ));
                } else {
                    char::from_u32(u)
                };
                out.push(ch.unwrap_or('\u{fffd}'));
            }
            c if c < 0x20 => {
                return Err((i, format!("raw control character U+{c:04X} in a string; write it as an escape (`\\n`, `\\t`, `\\u{c:04x}`)")));
            }
            _ => {
                // A run of plain characters is copied at once; it ends at an
                // ASCII byte, so the slice boundaries are char boundaries.
                // memchr finds its end and a vectorised test
                // (`scan::all_bytes`) finds no control character in it:
                // strings are most of a file.
                let run = i;
                let end = memchr::memchr2(b'"', b'\\', &b[run..]).map_or(b.len(), |n| run + n);
                i = match ace_exec::scan::all_bytes(&b[run..end], |x| x >= 0x20) {
                    true => end,
                    // Up to the control character, which the loop reports.
                    false => {
                        run + b[run..end]
                            .iter()
                            .position(|&x| x < 0x20)
                            .unwrap_or(end - run)
                    }
                };
                out.push_str(&text[run..i]);
            }
        }
    }
}
