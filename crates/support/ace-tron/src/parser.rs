//! Recursive descent over the tokens, one function per production of
//! grammars/tron.ebnf (named in each function's comment).

use std::collections::HashMap;

use ace_jsonspan::{Document, ItemParser, ItemSink, Kind, Member, Node, SinkPath, SmolStr};
use ace_model::{rules, Diagnostic, Span};

use crate::lexer::{is_keyword, Lexer, Tok, Token};

/// Parser settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Mirror the reference parsers: a duplicate key or a redefined class
    /// takes the last definition instead of being an error.
    pub lenient: bool,
    /// Largest input in bytes.
    pub max_size: usize,
    /// Deepest nesting of arrays, objects and instances.
    pub max_depth: usize,
}

impl Default for Options {
    /// Strict, with the limits of vAgenda's Go API (10 MiB) and a nesting
    /// depth that no real document approaches.
    fn default() -> Self {
        Options {
            lenient: false,
            max_size: 10 * 1024 * 1024,
            max_depth: 512,
        }
    }
}

struct Class {
    /// Shared, so that an instance borrows its property list instead of
    /// copying it.
    props: std::rc::Rc<[SmolStr]>,
}

/// Tokens the parser may look ahead at (`peek_at`) beyond the current one.
const LOOKAHEAD: usize = 3;

/// Consumed tokens are dropped from the window once this many pile up.
const WINDOW: usize = 4096;

struct Parser<'t, 's> {
    /// A window of the token stream: a few consumed tokens (the parser
    /// gives back at most one, and reads the end of the one before), the
    /// current one at `pos`, and `LOOKAHEAD` more.
    toks: Vec<Token<'t>>,
    pos: usize,
    lexer: Lexer<'t>,
    /// The lexer has given `Eof` (or failed, and an `Eof` stands in: the
    /// parse fails there at the latest, and the lexer's error is the one to
    /// report).
    lexed_all: bool,
    classes: HashMap<String, Class>,
    opts: &'t Options,
    depth: usize,
    /// Property names of an instance count as keys.
    sink: SinkPath<'s>,
}

type Res<T> = Result<T, Diagnostic>;

fn error(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&rules::PARSE_ERROR, span, message)
}

/// Parses a TRON document into a span tree.
pub fn parse(text: &str, opts: &Options) -> Result<Document, Diagnostic> {
    parse_inner(text, opts, None)
}

/// [`parse`], handing the items of the arrays `sink` wants to it instead of
/// keeping them in the tree (see [`ItemSink`]). Property names of an
/// instance count as keys of the path.
pub fn parse_with(
    text: &str,
    opts: &Options,
    sink: &mut dyn ItemSink,
) -> Result<Document, Diagnostic> {
    parse_inner(text, opts, Some(sink))
}

fn parse_inner(
    text: &str,
    opts: &Options,
    sink: Option<&mut dyn ItemSink>,
) -> Result<Document, Diagnostic> {
    if text.len() > opts.max_size {
        return Err(error(
            Span::new(0, 0),
            format!(
                "the input is {} bytes, more than the limit of {} bytes",
                text.len(),
                opts.max_size
            ),
        ));
    }
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut p = Parser {
        toks: Vec::with_capacity(WINDOW + LOOKAHEAD + 1),
        pos: 0,
        lexer: Lexer::new(text, start),
        lexed_all: false,
        classes: HashMap::new(),
        opts,
        depth: 0,
        sink: SinkPath::new(sink),
    };
    p.fill();
    let root = p.document();
    if let Some(e) = p.lexer.error.take() {
        return Err(error(e.span, e.message));
    }
    let root = root?;
    let mut diagnostics = Vec::new();
    if start > 0 {
        diagnostics.push(Diagnostic::new(
            &rules::BOM,
            Span::new(0, start),
            "the file starts with a UTF-8 byte-order mark, which both reference TRON parsers reject; it is skipped",
        ));
    }
    Ok(Document { root, diagnostics })
}

impl<'t> Parser<'t, '_> {
    /// The value of `key` in an object or instance.
    fn keyed_value(&mut self, key: &str) -> Res<Node> {
        let entered = self.sink.enter_key(key);
        let v = self.value()?;
        self.sink.leave(entered);
        Ok(v)
    }

    fn peek(&self) -> &Tok<'t> {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> &Tok<'t> {
        let i = (self.pos + n).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span
    }

    fn bump(&mut self) -> Token<'t> {
        let t = self.toks[self.pos].clone();
        self.advance();
        t
    }

    /// Moves past the current token without copying it.
    fn advance(&mut self) -> Span {
        let span = self.toks[self.pos].span;
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        self.fill();
        span
    }

    /// Lexes until `LOOKAHEAD` tokens follow the current one, or the text
    /// ends.
    fn fill(&mut self) {
        while !self.lexed_all && self.toks.len() <= self.pos + LOOKAHEAD {
            let t = self.lexer.next_token();
            self.lexed_all = t.tok == Tok::Eof;
            self.toks.push(t);
        }
    }

    /// Drops consumed tokens. Only called where no earlier position is
    /// kept to return to: at the start of a value.
    fn compact(&mut self) {
        if self.pos > WINDOW {
            let keep = self.pos - 2;
            self.toks.drain(..keep);
            self.pos -= keep;
        }
    }

    fn is_punct(&self, c: u8) -> bool {
        *self.peek() == Tok::Punct(c)
    }

    fn found(&self) -> String {
        self.peek().describe()
    }

    fn expect(&mut self, c: u8, what: &str) -> Res<Token<'t>> {
        if self.is_punct(c) {
            Ok(self.bump())
        } else {
            Err(error(
                self.span(),
                format!("expected `{}` {what}, found {}", c as char, self.found()),
            ))
        }
    }

    fn skip_nl(&mut self) {
        while *self.peek() == Tok::Nl {
            self.advance();
        }
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek(), Tok::Nl | Tok::Punct(b';')) {
            self.advance();
        }
    }

    /// `NAME = IDENT - KEYWORD`
    fn name_at(&self, n: usize) -> Option<&str> {
        match self.peek_at(n) {
            Tok::Ident(s) if !is_keyword(s) => Some(s),
            _ => None,
        }
    }

    /// `propname = NAME | STRING` (also `key`).
    fn is_propname_at(&self, n: usize) -> bool {
        self.name_at(n).is_some() || matches!(self.peek_at(n), Tok::Str(_))
    }

    /// document = { NL | ";" } , header , { NL | ";" } , body , { NL | ";" } , EOF
    fn document(&mut self) -> Res<Node> {
        self.skip_separators();
        self.header()?;
        self.skip_separators();
        if *self.peek() == Tok::Eof {
            return Err(error(
                self.span(),
                "no data: expected a value or `key: value` lines after the class definitions",
            ));
        }
        let root = self.body()?;
        self.skip_separators();
        if *self.peek() != Tok::Eof {
            let what = if matches!(self.peek(), Tok::Ident(s) if *s == "class") {
                "a class definition after the data; classes must come first"
            } else {
                "more data after the value; a TRON document holds one value or one set of `key: value` lines"
            };
            return Err(error(
                self.span(),
                format!("unexpected {}: {what}", self.found()),
            ));
        }
        Ok(root)
    }

    /// header = [ classdef , { hsep , classdef } ], with
    /// hsep = ( NL | ";" ) , { NL | ";" }
    fn header(&mut self) -> Res<()> {
        while matches!(self.peek(), Tok::Ident(s) if *s == "class") {
            self.classdef()?;
            match self.peek() {
                Tok::Nl | Tok::Punct(b';') | Tok::Eof => self.skip_separators(),
                _ => {
                    return Err(error(
                        self.span(),
                        format!(
                        "expected a line break, `;` or `,` after the class's properties, found {}",
                        self.found()
                    ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// classdef = "class" , NAME , [ "(" , NAME , ")" ] , ":" , proplist
    fn classdef(&mut self) -> Res<()> {
        self.advance();
        let Some(name) = self.name_at(0).map(str::to_owned) else {
            return Err(error(
                self.span(),
                format!(
                    "expected a class name (ASCII letters, digits and `_`, not a keyword), found {}",
                    self.found()
                ),
            ));
        };
        let name_span = self.advance();
        let mut props = Vec::new();
        if self.is_punct(b'(') {
            self.advance();
            let Some(parent) = self.name_at(0).map(str::to_owned) else {
                return Err(error(
                    self.span(),
                    format!("expected the parent class's name, found {}", self.found()),
                ));
            };
            let parent_span = self.advance();
            match self.classes.get(&parent) {
                Some(c) => props.extend(c.props.iter().cloned()),
                None => {
                    return Err(error(
                        parent_span,
                        format!("unknown parent class `{parent}`; a parent must be defined before its children"),
                    ))
                }
            }
            self.expect(b')', "after the parent class")?;
        }
        self.expect(b':', "after the class name")?;
        let own = self.proplist()?;
        if own.is_empty() {
            return Err(error(
                name_span,
                format!("class `{name}` has no properties; expected at least one (quote a property named like a keyword: \"null\")"),
            ));
        }
        for (prop, span) in own {
            if props.contains(&prop) {
                return Err(error(
                    span,
                    format!("class `{name}` has the property `{prop}` twice"),
                ));
            }
            props.push(prop);
        }
        if self.classes.contains_key(&name) && !self.opts.lenient {
            return Err(error(
                name_span,
                format!("class `{name}` is defined twice (the reference parsers silently keep the last one)"),
            ));
        }
        self.classes.insert(
            name,
            Class {
                props: props.into(),
            },
        );
        Ok(())
    }

    /// Rule C1: a line feed inside a property list continues it only when
    /// the next line starts with a property name that is not followed by
    /// `(`, `:` or `=` (which would make it data).
    fn continues_after_nl(&self) -> bool {
        *self.peek() == Tok::Nl
            && self.is_propname_at(1)
            && !matches!(
                self.peek_at(2),
                Tok::Punct(b'(') | Tok::Punct(b':') | Tok::Punct(b'=')
            )
    }

    /// proplist = [ NL ] , propname , { psep , propname } , [ "," ], with
    /// psep = "," , [ NL ] | NL (rule C1 decides each NL)
    fn proplist(&mut self) -> Res<Vec<(SmolStr, Span)>> {
        let mut props = Vec::new();
        if *self.peek() == Tok::Nl {
            if !self.continues_after_nl() {
                return Ok(props);
            }
            self.advance();
        }
        loop {
            let t = self.bump();
            match t.tok {
                Tok::Ident(s) if !is_keyword(s) => props.push((SmolStr::new(s), t.span)),
                Tok::Str(s) => props.push((SmolStr::from(s), t.span)),
                _ => {
                    // Not a property name: give it back and let the caller
                    // decide (an empty list is its error).
                    self.pos -= 1;
                    return Ok(props);
                }
            }
            if self.is_punct(b',') {
                self.advance();
                if self.is_propname_at(0) {
                    continue;
                }
            }
            if self.continues_after_nl() {
                self.advance();
                continue;
            }
            return Ok(props);
        }
    }

    /// body = rootobj | value
    fn body(&mut self) -> Res<Node> {
        if self.is_propname_at(0) && *self.peek_at(1) == Tok::Punct(b':') {
            self.rootobj()
        } else {
            self.value()
        }
    }

    /// key = STRING | NAME
    fn key(&mut self) -> Res<(SmolStr, Span)> {
        // Made from the token in place: copying a string token to take it
        // allocated for every quoted key.
        let span = self.span();
        let key = match self.peek() {
            Tok::Str(s) => SmolStr::new(s),
            Tok::Ident(s) if !is_keyword(s) => SmolStr::new(s),
            other => {
                return Err(error(
                    span,
                    format!(
                        "expected a key (a string or a name), found {}",
                        other.describe()
                    ),
                ))
            }
        };
        self.advance();
        Ok((key, span))
    }

    fn push_member(&self, members: &mut Vec<Member>, m: Member, what: &str) -> Res<()> {
        if !self.opts.lenient {
            if let Some(first) = members.iter().find(|x| x.key == m.key) {
                return Err(error(m.key_span, format!("duplicate {what} `{}`", m.key))
                    .with_related(first.key_span, "first defined here"));
            }
        }
        members.push(m);
        Ok(())
    }

    /// rootobj = entry , { rsep , entry } , [ "," ], with
    /// rsep = { NL } , "," , { NL } | NL , { NL }
    fn rootobj(&mut self) -> Res<Node> {
        let start = self.span().start;
        let mut members = Vec::new();
        loop {
            // entry = key , ":" , { NL } , value
            let (key, key_span) = self.key()?;
            self.expect(b':', "after the key")?;
            self.skip_nl();
            let value = self.keyed_value(&key)?;
            self.push_member(
                &mut members,
                Member {
                    key,
                    key_span,
                    value,
                },
                "root key",
            )?;
            let save = self.pos;
            let saw_nl = *self.peek() == Tok::Nl;
            self.skip_nl();
            let mut sep = saw_nl;
            if self.is_punct(b',') {
                self.advance();
                self.skip_nl();
                sep = true;
            }
            if sep && self.is_propname_at(0) && *self.peek_at(1) == Tok::Punct(b':') {
                continue;
            }
            if !self.toks[save..self.pos]
                .iter()
                .any(|t| t.tok == Tok::Punct(b','))
            {
                self.pos = save;
            }
            break;
        }
        let end = self.toks[self.pos.saturating_sub(1)].span.end;
        Ok(Node {
            span: Span::new(start, end.max(start)),
            kind: Kind::Object(members),
        })
    }

    fn enter(&mut self) -> Res<()> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            return Err(error(
                self.span(),
                format!(
                    "nesting deeper than {} levels; expected a flatter document",
                    self.opts.max_depth
                ),
            ));
        }
        Ok(())
    }

    /// value = "null" | "true" | "false" | NUMBER | STRING | array | object | instance
    fn value(&mut self) -> Res<Node> {
        self.compact();
        // A value's string is moved out of its token: nothing reads a token
        // again once it was taken as a value (backtracking only goes back
        // over line feeds and commas).
        let span = self.toks[self.pos].span;
        let simple = match &mut self.toks[self.pos].tok {
            Tok::Str(s) => Some(Kind::String(std::mem::take(s))),
            Tok::Num(n) => Some(Kind::Number(SmolStr::new(n))),
            Tok::Ident("null") => Some(Kind::Null),
            Tok::Ident("true") => Some(Kind::Bool(true)),
            Tok::Ident("false") => Some(Kind::Bool(false)),
            _ => None,
        };
        if let Some(kind) = simple {
            self.advance();
            return Ok(Node { span, kind });
        }
        let t = self.bump();
        match &t.tok {
            Tok::Punct(b'[') => self.array(t.span),
            Tok::Punct(b'{') => self.object(t.span),
            Tok::Ident(s) if !is_keyword(s) => self.instance(s, t.span),
            other => Err(error(
                t.span,
                format!("expected a value, found {}", other.describe()),
            )),
        }
    }

    /// After an item of a bracketed list: line feeds, then `,` (consumed)
    /// or the closing bracket (left for the caller, which also ends the
    /// list after a trailing comma).
    fn after_item(&mut self, close: u8, what: &dyn Fn() -> String) -> Res<()> {
        self.skip_nl();
        if self.is_punct(b',') {
            self.advance();
            Ok(())
        } else if self.is_punct(close) {
            Ok(())
        } else {
            Err(error(
                self.span(),
                format!(
                    "expected `,` or `{}` in {}, found {}",
                    close as char,
                    what(),
                    self.found()
                ),
            ))
        }
    }

    /// array = "[" , [ value , { "," , value } , [ "," ] ] , "]"
    fn array(&mut self, open: Span) -> Res<Node> {
        self.enter()?;
        let mut items = Vec::new();
        let (taken, entered) = self.sink.enter_items();
        let as_text = taken && {
            let parser = self.item_parser();
            self.sink.text_items(true, || parser)
        };
        let mut index = 0;
        loop {
            self.skip_nl();
            if self.is_punct(b']') {
                break;
            }
            if as_text {
                if let Some(span) = self.skim() {
                    self.sink.item_text(index, span);
                    index += 1;
                    self.after_item(b']', &|| "the array".into())?;
                    continue;
                }
            }
            let item = self.value()?;
            items.extend(self.sink.item(taken, index, item));
            index += 1;
            self.after_item(b']', &|| "the array".into())?;
        }
        self.sink.leave(entered);
        let close = self.advance();
        self.depth -= 1;
        Ok(Node {
            span: Span::new(open.start, close.end),
            kind: Kind::Array(items),
        })
    }

    /// What parses this array's items elsewhere: the classes defined,
    /// and the nesting they stand at.
    fn item_parser(&self) -> std::sync::Arc<dyn ItemParser> {
        std::sync::Arc::new(TronItems {
            classes: self
                .classes
                .iter()
                .map(|(name, c)| (name.clone(), c.props.to_vec()))
                .collect(),
            depth: self.depth,
            opts: *self.opts,
        })
    }

    /// Moves past the item at the current token without parsing it, and
    /// gives its span, if it is an instance, array or object that ends
    /// beyond the tokens looked ahead at (so that lexing can go on after
    /// it). Its end is found by matching brackets outside strings and
    /// comments; whether it is well formed is for its parse to say (see
    /// [`ItemSink::item_text`]). Anything else is parsed in place.
    fn skim(&mut self) -> Option<Span> {
        if self.lexed_all || self.lexer.error.is_some() {
            return None;
        }
        let first = &self.toks[self.pos];
        let open = match &first.tok {
            Tok::Punct(b'[' | b'{') => first.span.start,
            Tok::Ident(s) if !is_keyword(s) => {
                let paren = self.toks.get(self.pos + 1)?;
                if paren.tok != Tok::Punct(b'(') || paren.nl_before {
                    return None;
                }
                paren.span.start
            }
            _ => return None,
        };
        let start = first.span.start;
        let end = ace_jsonspan::bracketed_end(self.lexer.text().as_bytes(), open, true)?;
        if self.toks.last()?.span.end > end {
            return None;
        }
        // The brackets open before the item: those open now, less what the
        // tokens looked ahead at (all inside the item) opened and closed.
        let mut depth = self.lexer.depth() as isize;
        for t in &self.toks[self.pos..] {
            match t.tok {
                Tok::Punct(b'(' | b'[' | b'{') => depth -= 1,
                Tok::Punct(b')' | b']' | b'}') => depth += 1,
                _ => {}
            }
        }
        let depth = usize::try_from(depth).ok().filter(|&d| d > 0)?;
        self.toks.truncate(self.pos);
        self.lexer.resume_at(end, depth);
        self.fill();
        Some(Span::new(start, end))
    }

    /// The item at `span` of `text`, parsed alone; `None` unless it is one
    /// well-formed value exactly there.
    fn item_at(&mut self, text: &'t str, span: Span, depth: usize) -> Option<Node> {
        self.lexer = Lexer::inside(text.get(..span.end)?, span.start);
        self.toks.clear();
        self.pos = 0;
        self.lexed_all = false;
        self.depth = depth;
        self.fill();
        let node = self.value().ok()?;
        let whole = self.lexer.error.is_none() && node.span == span && *self.peek() == Tok::Eof;
        whole.then_some(node)
    }

    /// object = "{" , [ member , { "," , member } , [ "," ] ] , "}"
    fn object(&mut self, open: Span) -> Res<Node> {
        self.enter()?;
        let mut members = Vec::new();
        loop {
            self.skip_nl();
            if self.is_punct(b'}') {
                break;
            }
            // member = key , ":" , value
            let (key, key_span) = self.key()?;
            self.skip_nl();
            self.expect(b':', "after the key")?;
            self.skip_nl();
            let value = self.keyed_value(&key)?;
            self.push_member(
                &mut members,
                Member {
                    key,
                    key_span,
                    value,
                },
                "key",
            )?;
            self.after_item(b'}', &|| "the object".into())?;
        }
        let close = self.advance();
        self.depth -= 1;
        Ok(Node {
            span: Span::new(open.start, close.end),
            kind: Kind::Object(members),
        })
    }

    /// instance = NAME , "(" , args , ")"
    fn instance(&mut self, name: &str, name_span: Span) -> Res<Node> {
        let Some(props) = self.classes.get(name).map(|c| std::rc::Rc::clone(&c.props)) else {
            return Err(error(
                name_span,
                format!(
                    "undefined class `{name}`; expected a value, or a class defined in the header"
                ),
            ));
        };
        if !self.is_punct(b'(') || self.toks[self.pos].nl_before {
            let found = if self.is_punct(b'(') {
                Tok::Nl.describe()
            } else {
                self.found()
            };
            return Err(error(
                self.span(),
                format!("expected `(` right after `{name}` (on the same line), found {found}",),
            ));
        }
        self.advance();
        self.enter()?;
        // args = positional , [ "," , named ] , [ "," ] | named , [ "," ]
        // positional = value , { "," , value }
        // named = namedarg , { "," , namedarg }
        // Positional arguments (the usual case) go straight into the
        // members; slots are made only once a named argument appears.
        let mut members: Vec<Member> = Vec::with_capacity(props.len());
        let mut slots: Option<Vec<Option<(Span, Node)>>> = None;
        loop {
            self.skip_nl();
            if self.is_punct(b')') {
                break;
            }
            // namedarg = propname , "=" , value
            if self.is_propname_at(0) && *self.peek_at(1) == Tok::Punct(b'=') {
                let (prop, span) = self.key()?;
                self.advance();
                self.skip_nl();
                let value = self.keyed_value(&prop)?;
                let Some(i) = props.iter().position(|p| *p == prop) else {
                    return Err(error(
                        span,
                        format!(
                            "`{name}` has no property `{prop}`; its properties are {}",
                            list(&props)
                        ),
                    ));
                };
                let slots = slots.get_or_insert_with(|| {
                    let mut v: Vec<Option<(Span, Node)>> = (0..props.len()).map(|_| None).collect();
                    for (k, m) in members.drain(..).enumerate() {
                        v[k] = Some((m.key_span, m.value));
                    }
                    v
                });
                if slots[i].is_some() {
                    return Err(error(span, format!("`{prop}` is given twice")));
                }
                slots[i] = Some((span, value));
            } else {
                let value = match props.get(members.len()) {
                    Some(key) => self.keyed_value(key)?,
                    // Too many arguments: an error once it is parsed.
                    None => {
                        let entered = self.sink.enter_unkeyed();
                        let v = self.value()?;
                        self.sink.leave(entered);
                        v
                    }
                };
                if slots.is_some() {
                    return Err(error(
                        value.span,
                        "positional argument after named ones; expected `name=value`",
                    ));
                }
                if members.len() >= props.len() {
                    return Err(error(
                        value.span,
                        format!(
                            "too many arguments: `{name}` has {} properties ({})",
                            props.len(),
                            list(&props)
                        ),
                    ));
                }
                members.push(Member {
                    key: props[members.len()].clone(),
                    key_span: value.span,
                    value,
                });
            }
            self.after_item(b')', &|| format!("the arguments of `{name}`"))?;
        }
        let close = self.advance();
        self.depth -= 1;
        let filled = |k: usize| match &slots {
            Some(s) => s[k].is_some(),
            None => k < members.len(),
        };
        let missing: Vec<SmolStr> = (0..props.len())
            .filter(|&k| !filled(k))
            .map(|k| props[k].clone())
            .collect();
        if !missing.is_empty() {
            return Err(error(
                Span::new(name_span.start, close.end),
                format!(
                    "`{name}` is missing {}; every property needs a value (write `null` for an absent one)",
                    list(&missing)
                ),
            ));
        }
        if let Some(slots) = slots {
            members = props
                .iter()
                .zip(slots)
                .filter_map(|(key, slot)| {
                    slot.map(|(key_span, value)| Member {
                        key: key.clone(),
                        key_span,
                        value,
                    })
                })
                .collect();
        }
        Ok(Node {
            span: Span::new(name_span.start, close.end),
            kind: Kind::Object(members),
        })
    }
}

/// Parses the items of a taken array elsewhere ([`Parser::skim`]), with
/// the classes defined before it, at its nesting.
struct TronItems {
    classes: Vec<(String, Vec<SmolStr>)>,
    depth: usize,
    opts: Options,
}

impl ItemParser for TronItems {
    fn start<'t>(&'t self, text: &'t str) -> Box<dyn FnMut(Span) -> Option<Node> + 't> {
        let mut p = Parser {
            toks: Vec::new(),
            pos: 0,
            lexer: Lexer::new("", 0),
            lexed_all: false,
            // Classes of its own, and not shared: an instance takes a
            // reference to its class, which shared would be counted from
            // several threads on one cache line.
            classes: self
                .classes
                .iter()
                .map(|(name, props)| {
                    let props = props.clone().into();
                    (name.clone(), Class { props })
                })
                .collect(),
            opts: &self.opts,
            depth: self.depth,
            sink: SinkPath::new(None),
        };
        Box::new(move |span| p.item_at(text, span, self.depth))
    }
}

fn list(names: &[SmolStr]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(text: &str) -> Result<Document, Diagnostic> {
        parse(text, &Options::default())
    }

    struct Taker {
        offered: Vec<String>,
        items: Vec<(usize, serde_json::Value)>,
    }

    impl ItemSink for Taker {
        fn wants(&mut self, path: &[&str]) -> bool {
            let p = path.join(".");
            self.offered.push(p.clone());
            p.ends_with("entries")
        }
        fn item(&mut self, index: usize, node: Node) {
            self.items.push((index, node.to_value()));
        }
    }

    fn split(
        text: &str,
    ) -> (
        Result<Document, Diagnostic>,
        ace_jsonspan::testing::TextTaker<'_>,
    ) {
        let mut t = ace_jsonspan::testing::TextTaker::new(text);
        let doc = parse_with(text, &Options::default(), &mut t);
        (doc, t)
    }

    /// Items skimmed over and parsed alone are the nodes a parse in one
    /// piece gives: brackets, quotes and `#` inside strings and comments,
    /// line feeds and comments inside items, named arguments, objects and
    /// arrays as items. The rest of the document parses as before.
    #[test]
    fn items_handed_as_text_parse_as_they_would_in_place() {
        let items = [
            r##"E("a(", "x ) ] } \" # \\", [1, {"k": "]"}])"##,
            "E(\n    # a comment ) ] \" (\n    \"b\", \"y\",\n    null # ]\n  )",
            r#"E(id="c", text="z", tags=[[], {}])"#,
            r##"{"id": "d", "text": "(", "tags": ["#"]}"##,
            r#"["e", "f", E("g", "h", null)]"#,
            "[1]",
        ];
        let text = format!(
            "class E: id, text, tags\n\nentries: [\n  {}\n]\nafter: E(\"1\", \"2\", [3])\n",
            items.join(",\n  ")
        );
        let whole = parse(&text, &Options::default()).unwrap();
        let (doc, t) = split(&text);
        let doc = doc.unwrap();
        assert_eq!(
            format!("{:?}", doc.root.locate(["after"]).node),
            format!("{:?}", whole.root.locate(["after"]).node)
        );
        let expected = whole.root.locate(["entries"]).node.as_array().unwrap();
        // The last item is so short that the tokens looked ahead at reach
        // past it, so it is parsed in place.
        let as_text = t.assert_items_are(expected);
        let want: Vec<bool> = (0..items.len()).map(|i| i < items.len() - 1).collect();
        assert_eq!(as_text, want);
    }

    /// An item that is not well formed, or not alone at its span, parses
    /// to nothing; the document around it is the sink's to parse again.
    #[test]
    fn items_that_do_not_parse_alone_give_nothing() {
        for (item, why) in [
            (r#"E("a", "b" "c")"#, "a missing comma"),
            (r#"E("a", @, "c")"#, "a character no token starts with"),
            (r#"E("a", "b")"#, "a missing argument"),
            (r#"F("a", "b", "c")"#, "an undefined class"),
            (r#"{"k": 1, "k": 2, "z": "padding"}"#, "a duplicate key"),
            ("E(\"a\", \"b\u{1}\", \"c\")", "a raw control character"),
        ] {
            let text = format!(
                "class E: id, text, tags\n\nentries: [\n  {item},\n  E(\"x\", \"y\", [1, 2])\n]\n"
            );
            assert!(parse(&text, &Options::default()).is_err(), "{why}");
            let (_, t) = split(&text);
            assert!(
                matches!(t.items.first(), Some((0, None, true))),
                "{why}: {:?}",
                t.items.first()
            );
        }
        // Too deep for the limit where it stands, though not alone.
        let deep = format!("{}1{}", "[".repeat(600), "]".repeat(600));
        let text =
            format!("class E: id, text, tags\n\nentries: [\n  E(\"a\", \"b\", {deep}),\n  1\n]\n");
        let (_, t) = split(&text);
        assert!(matches!(t.items.first(), Some((0, None, true))));
    }

    /// Plain runs of every length around the vectorised chunk, escapes
    /// between them, and a raw control character anywhere in a long run,
    /// which is reported where it is.
    #[test]
    fn strings_read_whole_and_control_characters_are_located() {
        for n in [0, 1, 31, 32, 33, 64, 100] {
            let plain = "é".repeat(n / 2) + &"a".repeat(n - n / 2);
            let text = format!("x: \"{plain}\\n{plain}\\u00e9\"\n");
            let doc = strict(&text).unwrap();
            assert_eq!(doc.root.to_value()["x"], format!("{plain}\n{plain}é"));
            for at in [0, n / 2, n] {
                let mut bad = plain.clone();
                let at = (0..=at).rev().find(|&i| bad.is_char_boundary(i)).unwrap();
                bad.insert(at, '\u{1}');
                let text = format!("x: \"{bad}\"\n");
                let e = strict(&text).unwrap_err();
                assert_eq!(e.span.start, 4 + at, "{n} {at}");
                assert!(
                    e.message.contains("raw control character U+0001"),
                    "{}",
                    e.message
                );
            }
        }
        let e = strict(&format!("x: \"{}", "a".repeat(40))).unwrap_err();
        assert!(e.message.contains("unterminated string"), "{}", e.message);
    }

    #[test]
    fn a_sink_takes_items_through_keys_and_property_names() {
        let text = "class P: version, entries\nclass E: id, tags\n\n\
            plan: {playbook: P(1, [E(\"a\", [\"x\"]), E(id=\"b\", tags=[])])}\n\
            entries: [[1]]\n\
            other: P(entries=[2], version=[3])\n";
        let mut t = Taker {
            offered: Vec::new(),
            items: Vec::new(),
        };
        let doc = parse_with(text, &Options::default(), &mut t).unwrap();
        assert_eq!(
            t.offered,
            [
                "plan.playbook.entries",
                "entries",
                "other.entries",
                "other.version"
            ]
        );
        let ids: Vec<_> = t.items.iter().map(|(i, v)| (*i, v.to_string())).collect();
        assert_eq!(
            ids,
            [
                (0, r#"{"id":"a","tags":["x"]}"#.to_owned()),
                (1, r#"{"id":"b","tags":[]}"#.to_owned()),
                (0, "[1]".to_owned()),
                (0, "2".to_owned()),
            ]
        );
        let entries = doc.root.locate(["plan", "playbook", "entries"]).node;
        assert_eq!(entries.as_array(), Some(&[][..]));
        assert_eq!(&text[entries.span.start..entries.span.start + 3], "[E(");
        let version = doc.root.locate(["other", "version"]).node;
        assert_eq!(version.to_value(), serde_json::json!([3]));
        // Without a sink the tree is whole.
        let whole = parse(text, &Options::default()).unwrap();
        assert_eq!(
            whole.root.locate(["entries"]).node.to_value(),
            serde_json::json!([[1]])
        );
    }

    /// Documents longer than the token window parse as a whole: the
    /// window moves on between values, and never past a position the
    /// parser returns to (root keys across blank lines and comments).
    #[test]
    fn documents_longer_than_the_token_window() {
        let mut text = String::from("class E: n, s\n\n");
        let mut want = serde_json::Map::new();
        for i in 0..3000 {
            text.push_str(&format!(
                "k{i}: [E({i}, \"s{i}\"), {{a: [1, 2]}}]\n\n# c\n\n"
            ));
            want.insert(
                format!("k{i}"),
                serde_json::json!([{"n": i, "s": format!("s{i}")}, {"a": [1, 2]}]),
            );
        }
        let doc = strict(&text).unwrap();
        assert_eq!(doc.root.to_value(), serde_json::Value::Object(want));
        let k = doc.root.member("k2999").unwrap();
        assert_eq!(&text[k.key_span.start..k.key_span.end], "k2999");
        // A character no token starts with, far beyond the window, and
        // after a document that would be complete without it.
        let at = text.len();
        text.push_str("k3000: 1\n@\n");
        let e = strict(&text).unwrap_err();
        assert_eq!(e.span.start, at + 9, "{}", e.message);
        assert!(
            e.message.starts_with("unexpected character '@'"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_lexical_error_ends_the_tokens_and_is_the_one_reported() {
        let mut lexer = Lexer::new("a: 1 @ 2 $", 0);
        let toks: Vec<Tok> = (0..6).map(|_| lexer.next_token().tok).collect();
        assert_eq!(
            toks,
            [
                Tok::Ident("a"),
                Tok::Punct(b':'),
                Tok::Num("1"),
                Tok::Eof,
                Tok::Eof,
                Tok::Eof
            ]
        );
        let e = lexer.error.expect("the first error is kept");
        assert_eq!((e.span.start, e.span.end), (5, 6));
        // The parser stops at the stand-in `Eof` and reports the lexer's
        // error, not the `Eof` it found.
        let d = strict("a: [1, @]").unwrap_err();
        assert_eq!(d.span, Span::new(7, 8));
        assert!(
            d.message.contains("unexpected character '@'"),
            "{}",
            d.message
        );
    }

    #[test]
    fn lenient_mode_takes_the_last_definition() {
        let lenient = Options {
            lenient: true,
            ..Options::default()
        };
        for text in [
            "{\"a\":1,\"a\":2}",
            "a: 1\na: 2",
            "class A: x\nclass A: y\nA(1)",
        ] {
            assert!(strict(text).is_err(), "{text}");
            let v = parse(text, &lenient).unwrap().root.to_value();
            assert_ne!(v.to_string(), "", "{text}");
        }
        let v = parse("class A: x\nclass A: y\nA(1)", &lenient)
            .unwrap()
            .root
            .to_value();
        assert_eq!(v.to_string(), "{\"y\":1}");
        let v = parse("{\"a\":1,\"a\":2}", &lenient)
            .unwrap()
            .root
            .to_value();
        assert_eq!(v.to_string(), "{\"a\":2}");
    }

    #[test]
    fn limits_are_errors() {
        let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
        let e = strict(&deep).unwrap_err();
        assert!(
            e.message.contains("nesting deeper than 512"),
            "{}",
            e.message
        );
        let small = Options {
            max_size: 4,
            ..Options::default()
        };
        assert!(parse("[1, 2]", &small)
            .unwrap_err()
            .message
            .contains("limit"));
    }

    #[test]
    fn spans_point_into_the_source() {
        let text = "class P: x, y\n\nroot: P(1, y=\"two\")\n";
        let doc = strict(text).unwrap();
        let p = doc.root.get("root").unwrap();
        assert_eq!(&text[p.span.start..p.span.end], "P(1, y=\"two\")");
        let y = p.member("y").unwrap();
        assert_eq!(&text[y.key_span.start..y.key_span.end], "y");
        assert_eq!(&text[y.value.span.start..y.value.span.end], "\"two\"");
        let e = strict("class P: x\n\nP(1, 2)").unwrap_err();
        assert_eq!(&"class P: x\n\nP(1, 2)"[e.span.start..e.span.end], "2");
        assert!(e.message.contains("too many arguments"));
    }

    #[test]
    fn numbers_keep_their_lexeme_and_a_bom_is_reported() {
        let doc = strict("\u{feff}[53.0, -0, 12345678901234567890123]").unwrap();
        assert_eq!(doc.diagnostics[0].code, "ACE010");
        let items = doc.root.as_array().unwrap();
        let lex: Vec<&Kind> = items.iter().map(|n| &n.kind).collect();
        assert_eq!(
            lex,
            [
                &Kind::Number("53.0".into()),
                &Kind::Number("-0".into()),
                &Kind::Number("12345678901234567890123".into())
            ]
        );
    }
}
