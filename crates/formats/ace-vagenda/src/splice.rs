//! A changed playbook written over the vAgenda JSON document it was read
//! from: the entries that changed, came or went, and the document's parts
//! the change moved (`sequence`, `updated`, `metrics`, the change log), are
//! written; every other byte stays, hand layout included (blank lines,
//! one-line entries, the spacing of each array).
//!
//! The document around the entries is compared with what the writer would
//! write, part by part ([`ace_jsonspan::splice`]). The entries are placed
//! by the spans of the array's items: each entry's origin lies in its item.
//! A change the spans cannot place (entries out of their file order, an
//! empty array, a TRON file, another spec version) gives `None`, and the
//! caller writes the whole document.

use std::collections::HashMap;

use ace_jsonspan::splice::{self, Print};
use ace_jsonspan::{ItemParser, ItemSink, Node};
use ace_model::edit::{Edit, Edits};
use ace_model::{Before, LossEntry, Playbook, Span};

use crate::writer::{playbook_path, prepare, Reprint, WriteOptions};
use crate::Syntax;

/// Takes the items of the entries array as the spans of their text.
struct Items {
    path: Vec<&'static str>,
    spans: Vec<Span>,
}

impl ItemSink for Items {
    fn wants(&mut self, path: &[&str]) -> bool {
        path == self.path.as_slice()
    }

    fn item(&mut self, _: usize, node: Node) {
        self.spans.push(node.span);
    }

    fn text_items(&mut self, _: std::sync::Arc<dyn ItemParser>) -> bool {
        true
    }

    fn item_text(&mut self, _: usize, span: Span) {
        self.spans.push(span);
    }
}

/// `after` written over `src`, the JSON text `before` was read from.
pub(crate) fn rewrite(
    src: &str,
    before: &Before,
    after: &Playbook,
    opts: &WriteOptions,
) -> Option<(Edits, Vec<LossEntry>)> {
    if opts.syntax != Syntax::Json {
        return None;
    }
    let prep = prepare(after, opts);
    if !prep.rewriting {
        return None;
    }
    let mut items = Items {
        path: playbook_path(&prep.doc),
        spans: Vec::new(),
    };
    items.path.push("entries");
    let tree = if prep.stream {
        ace_jsonspan::parse_with(src, &mut items).ok()?
    } else {
        ace_jsonspan::parse(src).ok()?
    };
    // The file's line endings, by its first.
    let crlf = src.find('\n').is_some_and(|i| src[..i].ends_with('\r'));
    let mut print = Reprint::new(after, &prep.kinds, prep.style, crlf);
    let mut edits = Vec::new();
    splice::edits(src, &tree.root, &prep.doc, &mut print, &mut edits);
    if prep.stream {
        let found = tree.root.locate(items.path.iter().copied());
        if !found.exact {
            return None;
        }
        let array = found.node;
        entry_edits(
            src,
            array,
            &items.spans,
            before,
            after,
            &mut print,
            &mut edits,
        )?;
    }
    Some((Edits::new(src, edits)?, prep.losses))
}

fn entry_edits(
    src: &str,
    array: &Node,
    spans: &[Span],
    before: &Before,
    after: &Playbook,
    print: &mut Reprint<'_>,
    edits: &mut Vec<Edit>,
) -> Option<()> {
    if spans.is_empty() {
        return None;
    }
    let item_of = |o: Span| -> Option<usize> {
        let k = spans
            .partition_point(|s| s.start <= o.start)
            .checked_sub(1)?;
        (o.end <= spans[k].end).then_some(k)
    };
    let originals = &before.originals;
    let mut original_at: HashMap<usize, usize> = HashMap::with_capacity(originals.len());
    for (i, e) in originals.iter().enumerate() {
        original_at.insert(item_of(e.origin.0?)?, i);
    }
    // What stands before item `k`, or after it for the first: a new entry
    // is parted from the one before it as its neighbours are.
    let sep = |k: usize| -> String {
        match k {
            0 => splice::separator(src, array, spans.iter().copied()),
            k => src[spans[k - 1].end..spans[k].start].to_owned(),
        }
    };
    let one_line = |k: usize| !src[spans[k].start..spans[k].end].contains('\n');
    let padded = |k: usize| src[spans[k].start..].starts_with("{ ");
    // How a new or changed entry prints where item `k` stands.
    let entry_at = |print: &Reprint<'_>, e: &ace_model::Entry, k: usize| {
        let text = print.entry(e, splice::level_at(src, spans[k].start, print.unit()));
        if one_line(k) {
            flatten(&text, padded(k))
        } else {
            text
        }
    };
    let mut kept = vec![true; spans.len()];
    for &k in original_at.keys() {
        kept[k] = false;
    }
    let mut last: Option<usize> = None;
    let mut ahead = String::new();
    for e in &after.entries {
        match e.origin.0 {
            Some(o) => {
                let k = item_of(o)?;
                if last.is_some_and(|l| l >= k) {
                    return None;
                }
                if !ahead.is_empty() {
                    edits.push(Edit::insert(spans[k].start, std::mem::take(&mut ahead)));
                }
                last = Some(k);
                if let Some(&i) = original_at.get(&k) {
                    kept[k] = true;
                    if *e != originals[i] {
                        let text = entry_at(print, e, k);
                        edits.push(Edit::replace(spans[k].start, spans[k].end, text));
                    }
                }
            }
            None => match last {
                Some(k) => {
                    let text = entry_at(print, e, k);
                    edits.push(Edit::insert(spans[k].end, format!("{}{text}", sep(k))));
                }
                None => {
                    ahead.push_str(&entry_at(print, e, 0));
                    ahead.push_str(&sep(0));
                }
            },
        }
    }
    if !ahead.is_empty() || !splice::cut(spans, &kept, edits) {
        // New entries with no old one after them, or every old one gone.
        return None;
    }
    Some(())
}

/// A printed value on one line: JSON's separators with a space after, as
/// one-line entries written by hand have them; `pad` puts a space inside
/// an object's braces (`{ "id": ... }`).
fn flatten(text: &str, pad: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '\r' | '\n' => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                let prev = out.chars().last();
                let next = chars.peek().copied();
                let space = match (prev, next) {
                    (Some('{'), _) | (_, Some('}')) => pad,
                    (Some('['), _) | (_, Some(']')) => false,
                    _ => true,
                };
                if space {
                    out.push(' ');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::flatten;

    #[test]
    fn printed_values_flatten_to_one_line() {
        let text = "{\n  \"id\": \"a\",\n  \"tags\": [\n    \"x\",\n    \"y\"\n  ],\n  \"text\": \"line\\n \\\" {\"\n}";
        assert_eq!(
            flatten(text, false),
            "{\"id\": \"a\", \"tags\": [\"x\", \"y\"], \"text\": \"line\\n \\\" {\"}"
        );
        assert_eq!(flatten("{\n  \"a\": {}\n}", true), "{ \"a\": {} }");
    }
}
