//! `grammars/tron.pest` run as a parser, and the tree built from its parse:
//! an instance becomes an object of its class's properties, numbers keep
//! their lexemes, every node keeps its byte range, exactly as
//! `ace_tron::parse` builds it. What the grammar cannot say (classes
//! defined before use, one value per property, no repeated key or class)
//! is checked here, as the EBNF's comments say.

use std::collections::HashMap;

use ace_jsonspan::{Document, Kind, Member, Node, SmolStr};
use ace_model::{rules, Diagnostic, Span};
use pest::iterators::Pair;
use pest::Parser as _;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "../../../grammars/tron.pest"]
struct Grammar;

/// The settings of `ace_tron::parse`, whose defaults (strict, 10 MiB, 512
/// levels) both parsers apply.
pub use ace_tron::Options;

type Res<T> = Result<T, Diagnostic>;

fn error(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&rules::PARSE_ERROR, span, message)
}

fn span_of(p: &Pair<'_, Rule>) -> Span {
    let s = p.as_span();
    Span::new(s.start(), s.end())
}

/// The stack a parse runs on: pest descends a few frames per nesting level,
/// and documents may nest `max_depth` (512) levels.
const STACK: usize = 256 * 1024 * 1024;

/// Parses `text` as TRON with the grammar, and builds its span tree.
pub fn parse(text: &str, opts: &Options) -> Result<Document, Diagnostic> {
    if text.len() > opts.max_size {
        return Err(error(Span::new(0, 0), "the input is larger than the limit"));
    }
    // The nesting limit holds before pest recurses into the nesting.
    if let Some(at) = too_deep(text, opts.max_depth) {
        return Err(error(
            Span::new(at, at + 1),
            "nesting deeper than the limit",
        ));
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, || parse_here(text, opts))
            .map_err(|e| error(Span::new(0, 0), format!("no thread to parse on: {e}")))?
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// Where brackets outside strings and comments first nest deeper than
/// `max`: beyond it no value can be read (only values open brackets, but
/// for the one pair around a class's parent).
fn too_deep(text: &str, max: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

fn parse_here(text: &str, opts: &Options) -> Res<Document> {
    let mut pairs = Grammar::parse(Rule::document, text).map_err(|e| crate::parse_error(&e))?;
    let document = pairs
        .next()
        .ok_or_else(|| error(Span::new(0, 0), "no document"))?;
    let mut b = Builder {
        classes: HashMap::new(),
        opts,
        depth: 0,
    };
    let mut diagnostics = Vec::new();
    let mut root = None;
    for p in document.into_inner() {
        match p.as_rule() {
            Rule::bom => diagnostics.push(Diagnostic::new(
                &rules::BOM,
                span_of(&p),
                "the file starts with a UTF-8 byte-order mark; it is skipped",
            )),
            Rule::header => {
                for c in p.into_inner().filter(|x| x.as_rule() == Rule::classdef) {
                    b.classdef(c)?;
                }
            }
            Rule::rootobj => root = Some(b.rootobj(p)?),
            Rule::NL | Rule::EOI => {}
            _ => root = Some(b.value(p)?),
        }
    }
    let root = root.ok_or_else(|| error(Span::new(text.len(), text.len()), "no data"))?;
    Ok(Document { root, diagnostics })
}

struct Builder<'o> {
    classes: HashMap<String, Vec<SmolStr>>,
    opts: &'o Options,
    depth: usize,
}

impl Builder<'_> {
    /// classdef = "class" , NAME , [ "(" , NAME , ")" ] , ":" , proplist
    fn classdef(&mut self, p: Pair<'_, Rule>) -> Res<()> {
        let mut name = None;
        let mut props: Vec<SmolStr> = Vec::new();
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::NAME => name = Some((part.as_str().to_owned(), span_of(&part))),
                Rule::parent => {
                    let parent = part
                        .into_inner()
                        .find(|x| x.as_rule() == Rule::NAME)
                        .ok_or_else(|| error(Span::new(0, 0), "a parent without a name"))?;
                    match self.classes.get(parent.as_str()) {
                        Some(inherited) => props.extend(inherited.iter().cloned()),
                        None => return Err(error(span_of(&parent), "unknown parent class")),
                    }
                }
                Rule::proplist => {
                    for prop in part.into_inner().filter(|x| x.as_rule() == Rule::propname) {
                        let span = span_of(&prop);
                        let prop = propname(prop)?;
                        if props.contains(&prop) {
                            return Err(error(span, "a property given twice"));
                        }
                        props.push(prop);
                    }
                }
                _ => {}
            }
        }
        let (name, span) = name.ok_or_else(|| error(Span::new(0, 0), "a class without a name"))?;
        if self.classes.contains_key(&name) && !self.opts.lenient {
            return Err(error(span, "a class defined twice"));
        }
        self.classes.insert(name, props);
        Ok(())
    }

    fn enter(&mut self, span: Span) -> Res<()> {
        self.depth += 1;
        if self.depth > self.opts.max_depth {
            return Err(error(span, "nesting deeper than the limit"));
        }
        Ok(())
    }

    fn push(&self, members: &mut Vec<Member>, m: Member) -> Res<()> {
        if !self.opts.lenient && members.iter().any(|x| x.key == m.key) {
            return Err(error(m.key_span, "a key given twice"));
        }
        members.push(m);
        Ok(())
    }

    /// `key , ":" , value` (an entry or a member): its key and value.
    fn member(&mut self, p: Pair<'_, Rule>) -> Res<Member> {
        let mut key = None;
        let mut value = None;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::key => key = Some(part),
                Rule::NL => {}
                _ => value = Some(self.value(part)?),
            }
        }
        let key = key.ok_or_else(|| error(Span::new(0, 0), "a member without a key"))?;
        let key_span = span_of(&key);
        let value = value.ok_or_else(|| error(key_span, "a member without a value"))?;
        Ok(Member {
            key: propname(key)?,
            key_span,
            value,
        })
    }

    /// rootobj = entry , { rsep , entry } , [ "," ]. It ends where its
    /// last token does: a line feed after a trailing comma is one byte,
    /// whatever comment lines went with it.
    fn rootobj(&mut self, p: Pair<'_, Rule>) -> Res<Node> {
        let span = span_of(&p);
        let mut members = Vec::new();
        let mut end = span.start;
        for part in p.into_inner() {
            let s = span_of(&part);
            match part.as_rule() {
                Rule::entry => {
                    end = s.end;
                    let m = self.member(part)?;
                    self.push(&mut members, m)?;
                }
                Rule::NL => end = s.start + 1,
                _ => end = s.end,
            }
        }
        Ok(Node {
            span: Span::new(span.start, end.max(span.start)),
            kind: Kind::Object(members),
        })
    }

    /// value = "null" | "true" | "false" | NUMBER | STRING | array | object | instance
    fn value(&mut self, p: Pair<'_, Rule>) -> Res<Node> {
        let span = span_of(&p);
        let kind = match p.as_rule() {
            Rule::null => Kind::Null,
            Rule::boolean => Kind::Bool(p.as_str() == "true"),
            Rule::NUMBER => Kind::Number(SmolStr::new(p.as_str())),
            Rule::STRING => Kind::String(unescape(p.as_str(), span)?),
            Rule::array => {
                self.enter(span)?;
                let mut items = Vec::new();
                for part in p.into_inner() {
                    if !matches!(part.as_rule(), Rule::NL | Rule::close_bracket) {
                        items.push(self.value(part)?);
                    }
                }
                self.depth -= 1;
                Kind::Array(items)
            }
            Rule::object => {
                self.enter(span)?;
                let mut members = Vec::new();
                for part in p.into_inner().filter(|x| x.as_rule() == Rule::member) {
                    let m = self.member(part)?;
                    self.push(&mut members, m)?;
                }
                self.depth -= 1;
                Kind::Object(members)
            }
            Rule::instance => return self.instance(p),
            other => return Err(error(span, format!("expected a value, found {other:?}"))),
        };
        Ok(Node { span, kind })
    }

    /// instance = NAME , "(" , args , ")": positional arguments first,
    /// then named ones; every property of the class gets one value, and
    /// the object keeps the class's property order. A positional
    /// argument's key is placed at its value, a named one's at its name.
    fn instance(&mut self, p: Pair<'_, Rule>) -> Res<Node> {
        let span = span_of(&p);
        let mut parts = p.into_inner();
        let name = parts
            .next()
            .ok_or_else(|| error(span, "an instance without a name"))?;
        let Some(props) = self.classes.get(name.as_str()).cloned() else {
            return Err(error(span_of(&name), "undefined class"));
        };
        self.enter(span)?;
        let mut slots: Vec<Option<(Span, Node)>> = vec![None; props.len()];
        let mut positional = 0;
        let mut named = false;
        for part in parts {
            match part.as_rule() {
                Rule::NL | Rule::close_paren => {}
                Rule::namedarg => {
                    let mut inner = part.into_inner().filter(|x| x.as_rule() != Rule::NL);
                    let (Some(prop), Some(value)) = (inner.next(), inner.next()) else {
                        return Err(error(span, "a named argument without a value"));
                    };
                    let prop_span = span_of(&prop);
                    let prop = propname(prop)?;
                    let value = self.value(value)?;
                    let Some(i) = props.iter().position(|x| *x == prop) else {
                        return Err(error(prop_span, "no such property"));
                    };
                    if slots[i].is_some() {
                        return Err(error(prop_span, "a property given twice"));
                    }
                    slots[i] = Some((prop_span, value));
                    named = true;
                }
                _ => {
                    let value = self.value(part)?;
                    if named {
                        return Err(error(value.span, "a positional argument after named ones"));
                    }
                    if positional >= props.len() {
                        return Err(error(value.span, "too many arguments"));
                    }
                    slots[positional] = Some((value.span, value));
                    positional += 1;
                }
            }
        }
        self.depth -= 1;
        let mut members = Vec::with_capacity(props.len());
        for (key, slot) in props.into_iter().zip(slots) {
            let Some((key_span, value)) = slot else {
                return Err(error(span, format!("no value for `{key}`")));
            };
            members.push(Member {
                key,
                key_span,
                value,
            });
        }
        Ok(Node {
            span,
            kind: Kind::Object(members),
        })
    }
}

/// A propname or key: a NAME as written, a STRING unescaped.
fn propname(p: Pair<'_, Rule>) -> Res<SmolStr> {
    let span = span_of(&p);
    let inner = p
        .into_inner()
        .next()
        .ok_or_else(|| error(span, "empty name"))?;
    Ok(match inner.as_rule() {
        Rule::STRING => SmolStr::from(unescape(inner.as_str(), span)?),
        _ => SmolStr::new(inner.as_str()),
    })
}

/// The value of a STRING the grammar matched (so its escapes are well
/// formed, surrogates paired).
fn unescape(quoted: &str, span: Span) -> Res<String> {
    let body = &quoted[1..quoted.len() - 1];
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    let bad = || error(span, "a malformed escape the grammar let through");
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next().ok_or_else(bad)?;
        out.push(match e {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let hex = |chars: &mut std::str::Chars<'_>| {
                    let h: String = chars.take(4).collect();
                    u32::from_str_radix(&h, 16).ok().filter(|_| h.len() == 4)
                };
                let u = hex(&mut chars).ok_or_else(bad)?;
                if (0xD800..0xDC00).contains(&u) {
                    if chars.next() != Some('\\') || chars.next() != Some('u') {
                        return Err(bad());
                    }
                    let low = hex(&mut chars).ok_or_else(bad)?;
                    char::from_u32(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))
                        .ok_or_else(bad)?
                } else {
                    char::from_u32(u).ok_or_else(bad)?
                }
            }
            _ => return Err(bad()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Node {
        parse(text, &Options::default())
            .unwrap_or_else(|d| panic!("{text:?}: {d}"))
            .root
    }

    #[test]
    fn an_instance_is_an_object_of_its_class() {
        let root = ok("class P: x, y\nP(1, y=\"a\\u00e9\")");
        let Kind::Object(m) = &root.kind else {
            panic!("{root:?}")
        };
        assert_eq!(m[0].key, "x");
        assert_eq!(m[0].key_span, Span::new(16, 17));
        assert_eq!(m[1].key_span, Span::new(19, 20));
        assert_eq!(m[1].value.kind, Kind::String("a\u{e9}".into()));
        assert_eq!(root.span, Span::new(14, 31));
    }

    #[test]
    fn what_the_grammar_cannot_say_is_refused_here() {
        for text in [
            "class A: x\nA()",
            "class P: x, y\nP(x=10, 20)",
            "class P: x, y\nP(1, 2, 3)",
            "class B(A): y\nB(1)",
            "class A: x\nclass A: y\nA(1)",
            "a: 1\na: 2",
            "A(1)",
        ] {
            assert!(parse(text, &Options::default()).is_err(), "{text:?}");
        }
    }

    #[test]
    fn nesting_past_the_limit_is_refused_before_the_parse() {
        let deep = format!("{}{}", "[".repeat(513), "]".repeat(513));
        assert!(parse(&deep, &Options::default()).is_err());
        let fits = format!("{}{}", "[".repeat(512), "]".repeat(512));
        assert!(parse(&fits, &Options::default()).is_ok());
    }
}
