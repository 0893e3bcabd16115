//! `grammars/markdown-playbook.pest` run as a parser, and the outline of a
//! playbook built from its parse: the title, the section headings and the
//! entries, each with its byte range. The grammar takes every input (a
//! markdown playbook never fails to read); what it cannot say, a counter
//! given twice or past 64 bits, is checked here.

use ace_model::Span;
use pest::iterators::Pair;
use pest::Parser as _;
use pest_derive::Parser;

use crate::outline::{Entry, Heading, Outline};

#[derive(Parser)]
#[grammar = "../../../grammars/markdown-playbook.pest"]
struct Grammar;

/// A line's range without its line ending (`\n`, or `\r\n`).
fn line_span(p: &Pair<'_, Rule>) -> Span {
    let s = p.as_span();
    let text = s.as_str();
    let cut = if text.ends_with("\r\n") {
        2
    } else {
        usize::from(text.ends_with('\n'))
    };
    Span::new(s.start(), s.end() - cut)
}

fn without_ending(text: &str) -> &str {
    text.strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(text)
}

/// The outline of `text` as the grammar reads it.
pub fn outline(text: &str) -> Result<Outline, String> {
    let document = Grammar::parse(Rule::document, text)
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no document")?;
    let mut out = Outline::default();
    // Only a level-1 heading before any other line (but blank lines and
    // directives) is the title.
    let mut first = true;
    for line in document.into_inner() {
        match line.as_rule() {
            Rule::bom => out.bom = true,
            Rule::blank | Rule::directive | Rule::EOI => {}
            Rule::heading => {
                let span = line_span(&line);
                let mut level = 0;
                let mut title = "";
                for part in line.into_inner() {
                    match part.as_rule() {
                        Rule::heading_marks => level = part.as_str().len(),
                        Rule::heading_text => title = part.as_str(),
                        _ => {}
                    }
                }
                let title = title.trim().to_owned();
                if level == 1 && first && out.title.is_none() {
                    out.title = Some(title);
                } else {
                    out.sections.push(Heading { level, title, span });
                }
                first = false;
            }
            Rule::entry => {
                out.entries
                    .push(entry(line, out.sections.len().checked_sub(1))?);
                first = false;
            }
            _ => first = false,
        }
    }
    Ok(out)
}

fn entry(p: Pair<'_, Rule>, section: Option<usize>) -> Result<Entry, String> {
    let span = p.as_span();
    let mut end = span.start();
    let mut e = Entry {
        section,
        ..Entry::default()
    };
    for line in p.into_inner() {
        end = line_span(&line).end;
        match line.as_rule() {
            Rule::entry_line => {
                for part in line.into_inner() {
                    match part.as_rule() {
                        Rule::entry_head => {
                            e.id = part
                                .into_inner()
                                .find(|x| x.as_rule() == Rule::id)
                                .ok_or("an entry without an ID")?
                                .as_str()
                                .to_owned();
                        }
                        Rule::tail => tail(part, &mut e),
                        _ => {}
                    }
                }
            }
            Rule::continuation => {
                e.content.push('\n');
                e.content.push_str(without_ending(line.as_str()));
            }
            _ => {}
        }
    }
    e.span = Span::new(span.start(), end);
    Ok(e)
}

/// Counters and content. A counter given twice, or whose number does not
/// fit 64 bits, makes the whole tail content, as a malformed one does.
fn tail(p: Pair<'_, Rule>, e: &mut Entry) {
    let whole = p.as_str().trim_start_matches([' ', '\t']);
    let mut counters: [Option<i64>; 3] = [None; 3];
    let mut malformed = false;
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::counter => {
                let mut inner = part.into_inner();
                let (Some(name), Some(value)) = (inner.next(), inner.next()) else {
                    malformed = true;
                    continue;
                };
                let slot = match name.as_str() {
                    "helpful" => 0,
                    "harmful" => 1,
                    _ => 2,
                };
                match value.as_str().parse::<i64>() {
                    Ok(v) if counters[slot].is_none() => counters[slot] = Some(v),
                    _ => malformed = true,
                }
            }
            Rule::content => e.content = part.as_str().to_owned(),
            Rule::project => {
                e.project = part.into_inner().next().map(|n| n.as_str().to_owned());
            }
            _ => {}
        }
    }
    if malformed {
        e.content = whole.to_owned();
        e.project = None;
    } else {
        [e.helpful, e.harmful, e.neutral] = counters;
    }
}
