//! `grammars/agents-md.pest` run as a parser, and the bullets of an
//! AGENTS.md built from its parse: each with its fields, content,
//! provenance pairs and byte range. The grammar takes every input (an
//! AGENTS.md never fails to read); what it leaves to the builder: a count
//! must be a whole number of 64 bits (else the line is text), and a comment
//! is provenance only right after a bullet and with a seed key.

use std::collections::BTreeMap;

use ace_model::Span;
use pest::iterators::Pair;
use pest::Parser as _;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "../../../grammars/agents-md.pest"]
struct Grammar;

/// A bullet as both sides give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bullet {
    pub id: String,
    pub helpful: Option<i64>,
    pub harmful: Option<i64>,
    pub aggregated: Option<u64>,
    /// Bracket fields of no meaning to the seed, trimmed, in order.
    pub other_fields: Vec<String>,
    pub content: String,
    /// The provenance comment's pairs (the last of a repeated key).
    pub provenance: Option<BTreeMap<String, String>>,
    /// The bullet's line, and its provenance line, without the ending.
    pub span: Span,
}

/// The curator spec's provenance keys: a comment is provenance when it has one.
const SEED_KEYS: [&str; 4] = ["deltaId", "beadsId", "createdAt", "hash"];

fn line_end(p: &Pair<'_, Rule>) -> usize {
    let s = p.as_span();
    let text = s.as_str();
    // A last line may end in a lone CR (LENIENT-7).
    let cut = if text.ends_with("\r\n") {
        2
    } else {
        usize::from(text.ends_with('\n') || text.ends_with('\r'))
    };
    s.end() - cut
}

/// The bullets of `text` as the grammar reads them, and whether it starts
/// with a BOM.
pub fn bullets(text: &str) -> Result<(bool, Vec<Bullet>), String> {
    let document = Grammar::parse(Rule::document, text)
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no document")?;
    let mut bom = false;
    let mut out: Vec<Bullet> = Vec::new();
    // Whether the line before was a bullet, which a provenance comment
    // must follow directly.
    let mut after_bullet = false;
    for line in document.into_inner() {
        let was_bullet = std::mem::take(&mut after_bullet);
        match line.as_rule() {
            Rule::bom => bom = true,
            Rule::bullet => {
                if let Some(b) = bullet(line) {
                    out.push(b);
                    after_bullet = true;
                }
            }
            Rule::provenance if was_bullet => {
                let end = line_end(&line);
                let mut pairs = BTreeMap::new();
                for pair in line.into_inner() {
                    let mut kv = pair.into_inner();
                    if let (Some(k), Some(v)) = (kv.next(), kv.next()) {
                        pairs.insert(k.as_str().to_owned(), v.as_str().to_owned());
                    }
                }
                if SEED_KEYS.iter().any(|k| pairs.contains_key(*k)) {
                    if let Some(b) = out.last_mut() {
                        b.provenance = Some(pairs);
                        b.span = Span::new(b.span.start, end);
                    }
                }
            }
            _ => {}
        }
    }
    Ok((bom, out))
}

/// A bullet line's bullet, or none when a count or an aggregate does not
/// parse (the line is then text).
fn bullet(p: Pair<'_, Rule>) -> Option<Bullet> {
    let mut b = Bullet {
        span: Span::new(p.as_span().start(), line_end(&p)),
        ..Bullet::default()
    };
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::id => b.id = part.as_str().to_owned(),
            Rule::count => {
                let mut inner = part.into_inner();
                let name = inner.next()?;
                let value = inner.next()?.as_str().trim().parse::<i64>().ok()?;
                match name.as_str() {
                    "helpful" => b.helpful = Some(value),
                    _ => b.harmful = Some(value),
                }
            }
            Rule::aggregated => {
                let number = part.into_inner().next()?;
                b.aggregated = Some(number.as_str().trim().parse::<u64>().ok()?);
            }
            Rule::other_field => {
                let field = part.as_str().trim();
                if !field.is_empty() {
                    b.other_fields.push(field.to_owned());
                }
            }
            Rule::content => b.content = part.as_str().to_owned(),
            _ => {}
        }
    }
    Some(b)
}
