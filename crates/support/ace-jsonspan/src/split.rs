//! A playbook parsed apart: its one large container (the entries array, a
//! skillbook's `skills` object) left as the text of each item, to be
//! parsed and read item by item on every core.
//!
//! The parser skims that container's items (finds where each ends by its
//! brackets) and hands them over as text. A reader parses each where it
//! reads it, and drops its tree there while it is still in the cache
//! ([`Container::read`]); holding every item's tree until all were read
//! made reads of 10,000 entries a third slower. A reader that cannot use
//! the items so asks for the whole tree ([`Apart::whole`]), which is the
//! one a parse in one piece gives.

use std::sync::Arc;

use ace_model::{rules, Diagnostic, Span};
use rayon::prelude::*;

use crate::{duplicate_keys, Document, ItemParser, ItemSink, Kind, Node, Taken};

/// Items parsed by one thread at a time, at the least, when the whole
/// tree is asked for.
const MIN_RUN: usize = 64;

/// The containers a split parse parses apart: the arrays at `arrays`
/// (paths of keys from the root, `*` for any key) and the objects at
/// `members`, whose member values are its items.
#[derive(Clone, Copy)]
pub struct Split<'a> {
    pub arrays: &'a [&'a [&'a str]],
    pub members: &'a [&'a [&'a str]],
}

/// Parses `text` with `parse` (a parse of the text's syntax, given a sink
/// or none) into the tree a parse in one piece gives, with the items of
/// the containers `split` names parsed on every core. When an item does
/// not parse alone, neither does the document, and the parse in one piece
/// says where and why.
pub fn parse_split(
    text: &str,
    split: Split<'_>,
    parse: impl Fn(Option<&mut dyn ItemSink>) -> Result<Document, Diagnostic>,
) -> Result<Document, Diagnostic> {
    match parse_apart(split, &parse)?.whole(text) {
        Some(doc) => Ok(doc),
        None => parse(None),
    }
}

/// A document parsed but for the items of the containers a split names,
/// which are left as the parser handed them over.
pub struct Apart {
    /// The tree: each container taken is there, an empty array or an
    /// object whose member values are `null`s spanning their text.
    pub doc: Document,
    /// The containers taken, in document order.
    pub taken: Vec<Container>,
}

/// A container a split parse took apart.
pub struct Container {
    /// The keys from the root to it.
    pub path: Vec<String>,
    /// An object, whose member values are its items (else an array).
    pub members: bool,
    /// Its items, in order.
    pub items: Vec<Taken>,
    parser: Option<Arc<dyn ItemParser>>,
}

/// Parses `text` with `parse`, leaving the items of the containers `split`
/// names apart ([`Apart`]).
pub fn parse_apart(
    split: Split<'_>,
    parse: impl Fn(Option<&mut dyn ItemSink>) -> Result<Document, Diagnostic>,
) -> Result<Apart, Diagnostic> {
    let mut sink = Collect {
        split,
        taken: Vec::new(),
    };
    match parse(Some(&mut sink)) {
        Ok(doc) => Ok(Apart {
            doc,
            taken: sink.taken,
        }),
        // An error may lie in an item handed over before it, which only a
        // parse in one piece finds first.
        Err(_) => parse(None).map(|doc| Apart {
            doc,
            taken: Vec::new(),
        }),
    }
}

impl Apart {
    /// The container taken at `path` (the last of duplicate keys, as a
    /// value keeps it), out of those taken apart; `None` if what stands
    /// there was not taken.
    pub fn take(&mut self, path: &[&str]) -> Option<Container> {
        let mut node = &self.doc.root;
        for key in path {
            node = &node.members()?.iter().rev().find(|m| m.key == *key)?.value;
        }
        let span = node.span;
        let at = self.taken.iter().rposition(|c| {
            c.path.iter().map(String::as_str).eq(path.iter().copied())
                && c.items
                    .first()
                    .is_none_or(|item| span.start < item.span().start && item.span().end < span.end)
        })?;
        Some(self.taken.remove(at))
    }

    /// The whole tree, with every item parsed (on every core) and put in
    /// its place; `None` if an item does not parse alone.
    pub fn whole(mut self, text: &str) -> Option<Document> {
        let mut duplicates = false;
        for container in &mut self.taken {
            duplicates |= container.resolve(text)?;
        }
        for container in self.taken {
            let Some(first) = container.items.first().map(Taken::span) else {
                continue;
            };
            let place = find(&mut self.doc.root, &container.path, first.start)?;
            if !container.put(place) {
                return None;
            }
        }
        if duplicates {
            // In document order, as a parse in one piece reports them.
            let diags = &mut self.doc.diagnostics;
            diags.retain(|d| d.code != rules::DUPLICATE_KEY.code);
            duplicate_keys(&self.doc.root, diags);
        }
        Some(self.doc)
    }
}

impl Container {
    /// The items of an array at `path` taken out of a whole tree, to be
    /// read as those of a container taken apart are.
    pub fn of_nodes(path: Vec<String>, items: Vec<Node>) -> Container {
        Container {
            path,
            members: false,
            items: items.into_iter().map(Taken::Node).collect(),
            parser: None,
        }
    }

    /// Item `index`, parsed in place if it came as text; `None` if it does
    /// not parse alone.
    pub fn node(&mut self, text: &str, index: usize) -> Option<&mut Node> {
        let mut parse = self.parser.as_deref().map(|p| p.start(text));
        self.items.get_mut(index)?.resolve(parse.as_deref_mut())
    }

    /// `read` of each item (its index and node), in runs on every core, in
    /// order. An item that came as text is parsed first, and its tree
    /// dropped once read. `None` if an item does not parse alone.
    pub fn read<T: Send>(
        &mut self,
        text: &str,
        read: impl Fn(usize, &mut Node) -> T + Sync + Send,
    ) -> Option<Vec<Vec<T>>> {
        let parser = self.parser.as_deref();
        let runs = ace_exec::par::map_runs_mut(&mut self.items, |first, run| {
            let mut parse = parser.map(|p| p.start(text));
            let mut out = Vec::with_capacity(run.len());
            for (i, item) in run.iter_mut().enumerate() {
                let span = item.span();
                out.push(read(first + i, item.resolve(parse.as_deref_mut())?));
                *item = Taken::Text(span);
            }
            Some(out)
        });
        runs.into_iter().collect()
    }

    /// Parses the items that came as text, on every core. `None` if one
    /// does not parse alone; otherwise whether an item has a duplicate key.
    fn resolve(&mut self, text: &str) -> Option<bool> {
        let parser = self.parser.as_deref();
        let run = (self.items.len() / (4 * rayon::current_num_threads())).max(MIN_RUN);
        self.items
            .par_chunks_mut(run)
            .map(|chunk| {
                let mut parse = parser.map(|p| p.start(text));
                let mut dup = false;
                let mut diags = Vec::new();
                for item in chunk {
                    let node = item.resolve(parse.as_deref_mut())?;
                    duplicate_keys(node, &mut diags);
                    dup |= !diags.is_empty();
                    diags.clear();
                }
                Some(dup)
            })
            .try_reduce(|| false, |a, b| Some(a || b))
    }

    /// Puts the parsed items in `node`, the container they were taken
    /// from; false if it is not one that could have held them.
    fn put(self, node: &mut Node) -> bool {
        let nodes = self.items.into_iter().map(|item| match item {
            Taken::Node(node) => node,
            Taken::Text(span) => unreachable!("resolved before, at {span:?}"),
        });
        match &mut node.kind {
            Kind::Array(items) if !self.members && items.is_empty() => {
                items.extend(nodes);
                true
            }
            Kind::Object(members) if self.members && members.len() == nodes.len() => {
                for (m, value) in members.iter_mut().zip(nodes) {
                    m.value = value;
                }
                true
            }
            _ => false,
        }
    }
}

/// The container at `path` below `node` whose text holds offset `at`:
/// among members of the same key, the one taken.
fn find<'n>(node: &'n mut Node, path: &[String], at: usize) -> Option<&'n mut Node> {
    let Some((key, rest)) = path.split_first() else {
        return Some(node);
    };
    let members = match &mut node.kind {
        Kind::Object(members) => members,
        _ => return None,
    };
    let member = members
        .iter_mut()
        .find(|m| m.key == key.as_str() && m.value.span.start <= at && at < m.value.span.end)?;
    find(&mut member.value, rest, at)
}

/// Takes every container the split names, as the parser meets them.
struct Collect<'a> {
    split: Split<'a>,
    taken: Vec<Container>,
}

impl Collect<'_> {
    fn take(&mut self, path: &[&str], members: bool) -> bool {
        let paths = if members {
            self.split.members
        } else {
            self.split.arrays
        };
        let taken = paths.iter().any(|p| {
            p.len() == path.len()
                && p.iter()
                    .zip(path)
                    .all(|(want, key)| *want == "*" || want == key)
        });
        if taken {
            self.taken.push(Container {
                path: path.iter().map(|k| (*k).to_owned()).collect(),
                members,
                parser: None,
                items: Vec::new(),
            });
        }
        taken
    }

    fn last(&mut self) -> &mut Container {
        self.taken
            .last_mut()
            .expect("items come only from a container taken")
    }
}

impl ItemSink for Collect<'_> {
    fn wants(&mut self, path: &[&str]) -> bool {
        self.take(path, false)
    }

    fn wants_members(&mut self, path: &[&str]) -> bool {
        self.take(path, true)
    }

    fn text_items(&mut self, parser: Arc<dyn ItemParser>) -> bool {
        self.last().parser = Some(parser);
        true
    }

    fn item(&mut self, _: usize, node: Node) {
        self.last().items.push(Taken::Node(node));
    }

    fn item_text(&mut self, _: usize, span: Span) {
        self.last().items.push(Taken::Text(span));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Result<Document, Diagnostic> {
        let split = Split {
            arrays: &[&["entries"], &["*", "entries"]],
            members: &[&["skills"]],
        };
        parse_split(text, split, |sink| match sink {
            Some(sink) => crate::parse_with(text, sink),
            None => crate::parse(text),
        })
    }

    fn large(body: impl Fn(usize) -> String) -> String {
        let mut n = 0;
        let mut items = Vec::new();
        let mut len = 0;
        while len < 1 << 19 {
            let item = body(n);
            len += item.len() + 2;
            items.push(item);
            n += 1;
        }
        items.join(",\n")
    }

    #[test]
    fn a_split_parse_gives_the_tree_a_parse_in_one_piece_gives() {
        let entries =
            large(|i| format!(r#"{{"id": "e-{i}", "tags": ["x", {i}], "n": {{"k": null}}}}"#));
        let skills = large(|i| format!(r#""s-{i}": {{"id": "s-{i}", "content": "c"}}"#));
        let cases = [
            format!(r#"{{"v": 1, "entries": [{entries}], "skills": {{{skills}}}}}"#),
            format!(r#"{{"a": {{"entries": [{entries}]}}, "entries": [], "z": [1]}}"#),
            format!(r#"{{"entries": [1, 2], "entries": [{entries}]}}"#),
            format!(r#"{{"entries": [{entries}, {{"d": 1, "d": 2}}], "x": 1, "x": 2}}"#),
            format!("\u{feff}{{\"entries\": [{entries}]}}"),
        ];
        for (i, text) in cases.iter().enumerate() {
            let (a, b) = (json(text).unwrap(), crate::parse(text).unwrap());
            assert_eq!(format!("{:?}", a.root), format!("{:?}", b.root), "case {i}");
            assert_eq!(a.diagnostics, b.diagnostics, "case {i}");
        }
    }

    /// Each item is read from its own tree, in order, whether it came as
    /// text or as a node; an item that does not parse alone stops the
    /// read.
    #[test]
    fn items_are_read_in_order_each_from_its_tree() {
        let entries = large(|i| format!(r#"{{"id": "e-{i}", "n": [{i}]}}"#));
        let text = format!(r#"{{"entries": [{entries}, 7]}}"#);
        let split = Split {
            arrays: &[&["entries"]],
            members: &[],
        };
        let mut apart = parse_apart(split, |sink| match sink {
            Some(sink) => crate::parse_with(&text, sink),
            None => crate::parse(&text),
        })
        .unwrap();
        let [container] = apart.taken.as_mut_slice() else {
            panic!("one container taken");
        };
        let reads = container
            .read(&text, |i, node| (i, node.to_value()))
            .unwrap();
        let whole = crate::parse(&text).unwrap().root.to_value();
        let items = whole["entries"].as_array().unwrap();
        let reads: Vec<_> = reads.into_iter().flatten().collect();
        assert_eq!(reads.len(), items.len());
        for (k, (i, v)) in reads.iter().enumerate() {
            assert_eq!((*i, v), (k, &items[k]));
        }
        let broken = text.replacen(r#""n": [7]"#, r#""n": [7,]"#, 1);
        let mut apart = parse_apart(split, |sink| match sink {
            Some(sink) => crate::parse_with(&broken, sink),
            None => crate::parse(&broken),
        })
        .unwrap();
        assert!(apart.taken[0].read(&broken, |_, _| ()).is_none());
    }

    #[test]
    fn an_item_that_does_not_parse_is_the_error_a_parse_in_one_piece_reports() {
        let entries = large(|i| format!(r#"{{"id": "e-{i}"}}"#));
        for bad in [r#"{"id": 1,}"#, r#"{"id" 1}"#, "[1, 2"] {
            let text = format!(r#"{{"entries": [{entries}, {bad}, {{"x": 1}}]}}"#);
            assert_eq!(
                json(&text).unwrap_err(),
                crate::parse(&text).unwrap_err(),
                "{bad}"
            );
        }
    }
}
