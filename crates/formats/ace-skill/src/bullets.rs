//! The bullets of a skill playbook, each parsed and read on its own, on
//! every core ([`ace_jsonspan::split`]), and what needs every bullet
//! settled after.
//! - The file's generation is the one most bullets' hints show: a bullet
//!   without a hint is checked against both, and the file's is kept; a
//!   hinted one against its own, with a note where that is not the file's.
//! - The first bullet's key order is the template, and only the bullets it
//!   does not give are recorded (repeated IDs are filled in at the end).
//! - Whether a rewrite keeps the layout: each bullet's printing is compared
//!   with its own bytes (as if lists of scalars stand as its own first one
//!   does), the separators between bullets with theirs, and the document
//!   with the bullets' array as `[]`. Where that fails, the whole tree is
//!   compared, which finds the place.

use ace_jsonspan::split::{parse_apart, Container, Split};
use ace_jsonspan::{ItemSink, Kind, Node};
use ace_model::{rules, Diagnostic, Entry, Playbook, ReadOutput, Span};
use ace_schema::Generation;
use serde_json::Value;

use crate::checks::{self, Hint};
use crate::fields::KeyOrder;
use crate::layout::Layout;
use crate::parts::{
    check_layout, finish, generation_note, key_order_refs, mixed_generation, not_a_bullet,
    other_generation, read_bullet, read_wrapper, schema_diagnostics, wrapper_checks,
};
use crate::style::{indent_at, indent_of, Compare, Style};

/// The bullets' arrays.
const BULLETS: Split = Split {
    arrays: &[&[], &["bullets"]],
    members: &[],
};

/// Reads a skill playbook, what [`crate::sniff`] says it is, and the root
/// object's keys (detection's confirmation of a guess from a large file's
/// head need not scan the text again). `schema`: run the bullet schema
/// checks.
pub(crate) fn read(text: &str, schema: bool) -> Result<crate::Classified, Diagnostic> {
    let parse = |sink: Option<&mut dyn ItemSink>| match sink {
        Some(sink) => ace_jsonspan::parse_with(text, sink),
        None => ace_jsonspan::parse(text),
    };
    let mut apart = parse_apart(BULLETS, parse)?;
    let array_root = match &apart.doc.root.kind {
        Kind::Array(_) => true,
        Kind::Object(_) => false,
        _ => return Err(not_a_playbook(&apart.doc.root)),
    };
    let path: &[&str] = if array_root { &[] } else { &["bullets"] };
    let items = apart.take(path);
    // A taken item that does not parse alone: neither does the document,
    // whose parse in one piece says where.
    let unparsed = || match parse(None) {
        Err(e) => e,
        Ok(doc) => not_a_playbook(&doc.root),
    };
    // Any other array taken (an earlier `bullets`) goes back in the tree.
    let Some(doc) = apart.whole(text) else {
        return Err(unparsed());
    };
    let mut items = items.unwrap_or_else(|| Container::of_nodes(Vec::new(), Vec::new()));
    let kind = crate::kind_of(&doc.root);
    let top = ace_jsonspan::top_keys(&doc.root, text);
    let Some(read) = read_items(text, schema, array_root, &doc, &mut items) else {
        return Err(unparsed());
    };
    Ok((read.assemble(doc, &items), kind, top))
}

/// Reads the bullets `items` of `doc`; `None` if one does not parse.
fn read_items<'t>(
    text: &'t str,
    schema: bool,
    array_root: bool,
    doc: &ace_jsonspan::Document,
    items: &mut Container,
) -> Option<Bullets<'t>> {
    // The first object's key order is the template the others are
    // compared with.
    let mut keys: Vec<String> = Vec::new();
    for i in 0..items.items.len() {
        let node = items.node(text, i)?;
        if node.members().is_some() {
            keys = key_order_refs(node)
                .into_iter()
                .map(str::to_owned)
                .collect();
            break;
        }
    }
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root = &doc.root;
    let first = items.items.first().map(|item| item.span().start);
    let style = Style {
        indent: match (array_root, first) {
            (true, Some(first)) => indent_at(text, root.span.start, first),
            (true, None) => None,
            (false, _) => indent_of(root, text),
        },
        inline_scalar_arrays: false,
        ascii: body.is_ascii(),
        final_newline: text.ends_with('\n'),
    };
    let reader = ReadBullets {
        text,
        schema,
        array_root,
        style,
        level: if array_root { 1 } else { 2 },
        template: KeyOrder::new(keys.clone()),
    };
    let runs = items.read(text, |i, node| reader.read(i, node))?;
    let mut bullets = Bullets::new(text, array_root, style, KeyOrder::new(keys));
    // At size: a list grown by doubling faults in its pages twice.
    bullets.entries.reserve_exact(items.items.len());
    bullets.id_hashes.reserve_exact(items.items.len());
    runs.into_iter()
        .flatten()
        .for_each(|read| bullets.take(read));
    Some(bullets)
}

fn not_a_playbook(root: &Node) -> Diagnostic {
    Diagnostic::new(
        &rules::SKILL_SHAPE,
        root.span,
        format!(
            "expected an object with `bullets` or an array of bullets, found {}",
            root.type_name()
        ),
    )
}

fn gen_index(g: Generation) -> usize {
    match g {
        Generation::One => 0,
        Generation::Two => 1,
    }
}

/// What the bullets give, taken in order.
struct Bullets<'t> {
    text: &'t str,
    /// A bare array of bullets rather than `{"bullets": [...]}`.
    array_root: bool,
    /// The file's style, but for whether lists of scalars stay on one
    /// line, which [`Bullets::assemble`] settles.
    style: Style,
    /// Whether every bullet printed in the style gives its bytes back, as
    /// far as the bullets themselves can tell.
    kept: bool,
    /// The first list of scalars in a bullet.
    first_list: Option<Span>,
    /// Which ways bullets' first lists of scalars stand: on several lines,
    /// on one.
    lists: [bool; 2],
    first_start: Option<usize>,
    entries: Vec<Entry>,
    /// What reading a bullet found.
    item_diags: Vec<Diagnostic>,
    /// Mixed generations and schema errors under a hinted bullet's own
    /// generation.
    gen_diags: Vec<Diagnostic>,
    /// Schema errors of bullets without a hint, under generations 1 and 2.
    unhinted: [Vec<Diagnostic>; 2],
    /// Hinted bullets by generation: where the hint is and the label.
    hinted: [Vec<(Span, String)>; 2],
    /// Bullets whose hints mix generations, by `confidence`'s generation.
    mixed: [usize; 2],
    first_hint: [Option<Span>; 2],
    template: KeyOrder<'static>,
    /// Bullets (by entry index) whose key order the template does not give.
    orders: Vec<(usize, Vec<String>)>,
    /// A hash of each entry's ID, taken while the ID is at hand
    /// ([`repeated_ids`]).
    id_hashes: Vec<u64>,
    /// Items that are not objects, with their index.
    non_bullets: Vec<(usize, Value)>,
}

impl<'t> Bullets<'t> {
    fn new(text: &'t str, array_root: bool, style: Style, template: KeyOrder<'static>) -> Self {
        Bullets {
            text,
            array_root,
            style,
            kept: true,
            first_list: None,
            lists: [false, false],
            first_start: None,
            entries: Vec::new(),
            item_diags: Vec::new(),
            gen_diags: Vec::new(),
            unhinted: [Vec::new(), Vec::new()],
            hinted: [Vec::new(), Vec::new()],
            mixed: [0, 0],
            first_hint: [None, None],
            template,
            orders: Vec::new(),
            id_hashes: Vec::new(),
            non_bullets: Vec::new(),
        }
    }

    fn take(&mut self, read: BulletRead) {
        let BulletRead {
            index,
            item,
            list,
            kept,
            id_hash,
            hint,
        } = read;
        self.kept &= kept;
        if let Some((span, inline)) = list {
            self.first_list.get_or_insert(span);
            self.lists[usize::from(inline)] = true;
        }
        let Prepared {
            diags,
            entry,
            order,
            span,
        } = match item {
            ItemRead::Entry(prepared) => prepared,
            ItemRead::NotObject(value, diag) => {
                self.item_diags.push(diag);
                self.non_bullets.push((index, value));
                return;
            }
        };
        self.first_start.get_or_insert(span.start);
        self.item_diags.extend(diags);
        if let Some(order) = order {
            self.orders.push((self.entries.len(), order));
        }
        self.id_hashes.push(id_hash);
        self.entries.push(entry);
        match hint {
            HintRead::None(checked) => {
                let [one, two] = *checked;
                self.unhinted[0].extend(one);
                self.unhinted[1].extend(two);
            }
            HintRead::Some(hinted) => {
                let Hinted {
                    generation: g,
                    span,
                    label,
                    mixed,
                    schema,
                } = *hinted;
                self.first_hint[gen_index(g)].get_or_insert(span);
                match mixed {
                    // Its own note; it never gets the other-generation one.
                    Some(note) => {
                        self.mixed[gen_index(g)] += 1;
                        self.gen_diags.push(note);
                    }
                    None => self.hinted[gen_index(g)].push((span, label)),
                }
                self.gen_diags.extend(schema);
            }
        }
    }

    /// The generation most bullets hint at ([`checks::majority`]'s rule).
    fn majority(&self) -> Generation {
        let votes = |g: Generation| self.hinted[gen_index(g)].len() + self.mixed[gen_index(g)];
        if votes(Generation::One) > votes(Generation::Two) {
            Generation::One
        } else {
            Generation::Two
        }
    }

    /// Whether lists of scalars stay on one line, and whether the bytes
    /// around and between the bullets are what the style prints there.
    fn settle_layout(&mut self, root: &Node, items: &Container) -> bool {
        let text = self.text;
        let around = root.first_scalar_list().map(|n| n.span);
        let bullets = match self.array_root {
            true => Some(root),
            false => root
                .members()
                .and_then(|m| m.iter().rev().find(|m| m.key == "bullets"))
                .map(|m| &m.value),
        };
        // The array the bullets were taken from, empty in the tree; with
        // none, the whole tree is the document.
        let arr = bullets
            .filter(|n| matches!(&n.kind, Kind::Array(items) if items.is_empty()))
            .map(|n| n.span);
        let first = match (around, arr) {
            (Some(s), Some(arr)) if s.start < arr.start => Some(s),
            _ => self.first_list.or(around),
        };
        let inline = first.is_some_and(|s| !text[s.start..s.end].contains('\n'));
        self.style.inline_scalar_arrays = inline;
        // Each bullet was printed as if lists stand as its own first one
        // does: a bullet whose first list stands the other way is not kept.
        if self.lists[usize::from(!inline)] {
            return false;
        }
        if !self.kept {
            return false;
        }
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        let shift = text.len() - body.len();
        let Some(arr) = arr else {
            let mut compare = Compare::new(body);
            self.style.render_into(root, &mut compare);
            return compare.finish().is_none();
        };
        let spans: Vec<Span> = items.items.iter().map(|i| i.span()).collect();
        let level = if self.array_root { 1 } else { 2 };
        let pad = |level: usize| " ".repeat(level * self.style.indent.unwrap_or(0));
        let (between, open, close) = match self.style.indent {
            Some(_) => (
                format!(",\n{}", pad(level)),
                format!("\n{}", pad(level)),
                format!("\n{}", pad(level - 1)),
            ),
            None => (", ".to_owned(), String::new(), String::new()),
        };
        match (spans.first(), spans.last()) {
            (Some(first), Some(last)) => {
                if text.get(arr.start + 1..first.start) != Some(open.as_str())
                    || text.get(last.end..arr.end.saturating_sub(1)) != Some(close.as_str())
                    || spans
                        .windows(2)
                        .any(|w| text.get(w[0].end..w[1].start) != Some(between.as_str()))
                {
                    return false;
                }
            }
            _ => {
                if text.get(arr.start..arr.end) != Some("[]") {
                    return false;
                }
            }
        }
        let mut compare = Compare::spliced(body, arr.start - shift..arr.end - shift, "[]");
        self.style.render_into(root, &mut compare);
        compare.finish().is_none()
    }

    /// The read, from what the bullets gave and the rest of the document.
    fn assemble(mut self, doc: ace_jsonspan::Document, items: &Container) -> ReadOutput {
        let text = self.text;
        let file_gen = self.majority();
        let kept = self.settle_layout(&doc.root, items);
        let root = &doc.root;
        let mut pb = Playbook::default();
        let mut layout = Layout {
            array: self.array_root,
            style: self.style,
            non_bullets: std::mem::take(&mut self.non_bullets),
            ..Layout::default()
        };
        let mut diags = doc.diagnostics;
        if let Kind::Object(members) = &root.kind {
            read_wrapper(members, &mut pb, &mut layout, &mut diags);
        }
        diags.extend(self.item_diags);

        // Key orders: every bullet of a repeated ID records its order.
        let repeated = repeated_ids(&self.entries, &self.id_hashes);
        let mut recorded = self.orders.into_iter().peekable();
        for (k, e) in self.entries.iter().enumerate() {
            let keys = match recorded.next_if(|(i, _)| *i == k) {
                Some((_, keys)) => keys,
                None if repeated(k) => self
                    .template
                    .keys(e)
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
                None => continue,
            };
            layout.bullet_orders.push((e.id.clone(), keys));
        }
        drop(repeated);
        layout.bullet_keys = self.template.into_order();

        if let (false, Some(start)) = (self.entries.is_empty(), self.first_start) {
            let all_none = self.hinted.iter().all(Vec::is_empty) && self.mixed == [0, 0];
            let first = self.first_hint[gen_index(file_gen)].unwrap_or(Span::new(start, start + 1));
            diags.push(generation_note(file_gen, all_none, first));
            diags.extend(self.gen_diags);
            let other = file_gen.other();
            for (span, label) in std::mem::take(&mut self.hinted[gen_index(other)]) {
                diags.push(other_generation(span, &label, other, file_gen));
            }
            diags.append(&mut self.unhinted[gen_index(file_gen)]);
        }
        pb.entries = self.entries;
        wrapper_checks(root, &pb.entries, &mut diags);
        if !kept {
            // Where the printing differs, found on the whole tree.
            if let Ok(whole) = ace_jsonspan::parse(text) {
                check_layout(&whole.root, text, &layout, &mut diags);
            }
        }
        finish(pb, layout, diags)
    }
}

fn id_hash(id: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(id)
}

/// Which entries share their ID with another, by index. A map of every ID,
/// built after the last bullet is read, is on one core and nearly all
/// cache misses; sorting the IDs' hashes (taken as the bullets were read)
/// finds the few that may repeat, and only those IDs are compared.
fn repeated_ids<'e>(entries: &'e [Entry], hashes: &[u64]) -> impl Fn(usize) -> bool + 'e {
    let mut sorted = hashes.to_vec();
    sorted.sort_unstable();
    let mut twice: Vec<u64> = sorted
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    twice.dedup();
    let mut counts: foldhash::HashMap<&str, usize> = foldhash::HashMapExt::new();
    let mut candidates = Vec::new();
    if !twice.is_empty() {
        for (k, h) in hashes.iter().enumerate() {
            if twice.binary_search(h).is_ok() {
                candidates.push(k);
                *counts.entry(entries[k].id.as_str()).or_default() += 1;
            }
        }
    }
    move |k| candidates.binary_search(&k).is_ok() && counts.get(entries[k].id.as_str()) > Some(&1)
}

/// What a bullet gives on its own ([`ReadBullets::prepare`]).
struct Prepared {
    diags: Vec<Diagnostic>,
    entry: Entry,
    /// The bullet's key order, when the template does not give it.
    order: Option<Vec<String>>,
    span: Span,
}

/// What an item of the bullets array is, read on its own.
enum ItemRead {
    Entry(Prepared),
    /// Not an object: kept in place, with its note.
    NotObject(Value, Diagnostic),
}

/// What a bullet's generation hints give on their own.
enum HintRead {
    /// No hint: the schema checks under generations 1 and 2, when run.
    None(Box<[Vec<Diagnostic>; 2]>),
    Some(Box<Hinted>),
}

struct Hinted {
    generation: Generation,
    span: Span,
    label: String,
    /// The note on hints of both generations.
    mixed: Option<Diagnostic>,
    /// The schema checks under its generation, when run.
    schema: Vec<Diagnostic>,
}

/// A bullet read on its own, on whichever thread read its run.
struct BulletRead {
    index: usize,
    item: ItemRead,
    /// Its first list of scalars, and whether that stands on one line.
    list: Option<(Span, bool)>,
    /// Whether its printing, with lists standing as its first one does,
    /// gives back its bytes.
    kept: bool,
    id_hash: u64,
    hint: HintRead,
}

/// Reads bullets, on whichever thread takes them.
struct ReadBullets<'t> {
    text: &'t str,
    schema: bool,
    array_root: bool,
    /// The file's style, but for whether lists of scalars stay on one line.
    style: Style,
    /// The nesting level of a bullet.
    level: usize,
    /// The first bullet's key order, which the others are compared with.
    template: KeyOrder<'static>,
}

impl ReadBullets<'_> {
    /// Reads item `index`.
    fn read(&self, index: usize, node: &mut Node) -> BulletRead {
        let list = node.first_scalar_list().map(|a| {
            let inline = !self.text[a.span.start..a.span.end].contains('\n');
            (a.span, inline)
        });
        let mut style = self.style;
        style.inline_scalar_arrays = list.is_some_and(|(_, inline)| inline);
        let kept = style.keeps(node, self.text, self.level) || {
            let mut compare = Compare::new(&self.text[node.span.start..node.span.end]);
            style.write(&*node, self.level, &mut compare);
            compare.finish().is_none()
        };
        let item = self.prepare(index, node);
        let (id_hash, hint) = match &item {
            ItemRead::Entry(p) => (id_hash(&p.entry.id), self.hint(index, node)),
            ItemRead::NotObject(..) => (0, HintRead::None(Box::default())),
        };
        BulletRead {
            index,
            item,
            list,
            kept,
            id_hash,
            hint,
        }
    }

    /// What a bullet gives that depends on no other.
    fn prepare(&self, index: usize, node: &Node) -> ItemRead {
        let Kind::Object(members) = &node.kind else {
            return ItemRead::NotObject(node.to_value(), not_a_bullet(index, node));
        };
        // The parse left the bullets to us, duplicate keys and all.
        let mut diags = Vec::new();
        ace_jsonspan::duplicate_keys(node, &mut diags);
        let entry = read_bullet(node, members, index, &mut diags);
        let keys = key_order_refs(node);
        let order = (self.template.keys(&entry) != keys)
            .then(|| keys.into_iter().map(str::to_owned).collect());
        ItemRead::Entry(Prepared {
            diags,
            entry,
            order,
            span: node.span,
        })
    }

    fn hint(&self, index: usize, node: &Node) -> HintRead {
        let hint = checks::hint(node);
        let checked = |g| match self.schema {
            true => schema_diagnostics(node, index, g, self.array_root),
            false => Vec::new(),
        };
        let Some(g) = hint.generation() else {
            return HintRead::None(Box::new([
                checked(Generation::One),
                checked(Generation::Two),
            ]));
        };
        let label = checks::bullet_label(node, index);
        HintRead::Some(Box::new(Hinted {
            generation: g,
            span: checks::hint_span(node),
            mixed: matches!(hint, Hint::Mixed(_)).then(|| mixed_generation(node, &label, g)),
            label,
            schema: checked(g),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_jsonspan::testing::outcome;

    fn fixture_files(under: &str) -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures");
        ace_jsonspan::testing::json_files(&root.join(under))
    }

    fn corpus_files() -> Vec<std::path::PathBuf> {
        let corpus = std::env::var_os("ACE_CORPUS").expect("this test needs ACE_CORPUS");
        ace_jsonspan::testing::json_files(&std::path::Path::new(&corpus).join("skill-json"))
    }

    /// The schema warnings left out of `files` by reading for errors
    /// only; each read is otherwise the same.
    fn left_out_for_errors_only(files: &[std::path::PathBuf]) -> usize {
        let mut left_out = 0;
        for f in files {
            let text = std::fs::read_to_string(f).unwrap();
            let (Ok(all), Ok(errors)) = (
                crate::read(&text),
                crate::read_with(&text, ace_model::Severity::Error),
            ) else {
                continue;
            };
            let (pb, mut diags, spans) = outcome(all);
            let before = diags.len();
            diags.retain(|d| d.code != ace_model::rules::PLAYBOOK_SCHEMA.code);
            left_out += before - diags.len();
            assert_eq!(outcome(errors), (pb, diags, spans), "{}", f.display());
        }
        left_out
    }

    /// Leaving out the warnings below `Error` changes nothing else: the
    /// same playbook, and every finding but the bullet schema warnings.
    #[test]
    fn reading_for_errors_only_leaves_out_the_schema_warnings_alone() {
        assert!(left_out_for_errors_only(&fixture_files("skill-json")) > 0);
    }

    #[test]
    #[ignore = "needs ACE_CORPUS"]
    fn reading_the_corpus_for_errors_only_leaves_out_the_schema_warnings_alone() {
        assert!(left_out_for_errors_only(&corpus_files()) > 0);
    }

    /// A document whose bullets were not taken apart (it has none, or
    /// its `bullets` is no array) is compared whole: a layout the style
    /// does not print is reported where it differs.
    #[test]
    fn a_document_without_a_bullets_array_is_compared_whole() {
        for text in [
            "{\n  \"a\": 1,\n    \"b\": 2\n}",
            "{\n  \"bullets\": 3,\n    \"b\": 2\n}",
            "{\n  \"bullets\": {\n    \"x\": 1\n  },\n    \"b\": 2\n}",
        ] {
            let out = crate::read(text).unwrap();
            let layout: Vec<_> = out
                .diagnostics
                .iter()
                .filter(|d| d.code == rules::LAYOUT_NOT_KEPT.code)
                .collect();
            assert_eq!(layout.len(), 1, "{text}: {:?}", out.diagnostics);
            let line = |at: usize| text[..at].matches('\n').count();
            let b = text.find("\"b\"").unwrap();
            assert_eq!(line(layout[0].span.start), line(b), "{text}");
        }
    }

    /// Repeated IDs are found exactly: by their hashes, and IDs whose
    /// hashes collide are told apart by comparing them.
    #[test]
    fn repeated_ids_are_found_and_hash_collisions_told_apart() {
        let ids = ["a", "b", "a", "c", "d", "b", "e"];
        let entries: Vec<Entry> = ids.iter().map(|id| Entry::new(*id, "x")).collect();
        let real: Vec<u64> = ids.iter().map(|id| id_hash(id)).collect();
        let repeated = repeated_ids(&entries, &real);
        let found: Vec<bool> = (0..ids.len()).map(&repeated).collect();
        assert_eq!(found, [true, true, true, false, false, true, false]);
        // "c", "d" and "e" made to collide with each other and with "a".
        let mut colliding = real.clone();
        colliding[3] = real[0];
        colliding[4] = real[0];
        colliding[6] = 7;
        colliding[1] = 7;
        colliding[5] = 7;
        let repeated = repeated_ids(&entries, &colliding);
        let found: Vec<bool> = (0..ids.len()).map(&repeated).collect();
        assert_eq!(found, [true, true, true, false, false, true, false]);
        let none = repeated_ids(&entries[3..5], &real[3..5]);
        assert!(!none(0) && !none(1));
    }

    /// Bullets enough to be parsed and read on every core give their
    /// findings at their own places and in order, and the file the skill's
    /// writer printed is kept byte for byte.
    #[test]
    fn a_large_file_read_on_every_core_keeps_each_bullets_findings() {
        use ace_exec::par::{MIN_ITEMS, RUN};
        let n = MIN_ITEMS + 11;
        let (dup, bare, late) = (RUN + 5, 3 * RUN + 1, 5007);
        let bullet = |i: usize| match i {
            i if i == dup => {
                format!(r#"{{"id": "b-{i}", "content": "c", "content": "d", "confidence": 0.5}}"#)
            }
            i if i == bare => format!(r#"{{"id": "b-{i}"}}"#),
            i if i == late => format!(r#"{{"content": "late {i}", "id": "b-{i}"}}"#),
            i => format!(
                r#"{{"id": "b-{i}", "content": "c\u00e9 {i}", "tags": ["t"], "confidence": 0.5}}"#
            ),
        };
        let items: Vec<String> = (0..n).map(bullet).collect();
        let text = format!(
            "{{\n  \"bullets\": [\n    {}\n  ]\n}}",
            items.join(",\n    ")
        );
        let out = crate::read(&text).unwrap();
        assert_eq!(out.playbook.entries.len(), n);
        let at = |i: usize| text.find(&format!("\"b-{i}\"")).unwrap();
        let found = |code: &str, i: usize| {
            out.diagnostics
                .iter()
                .any(|d| d.code == code && d.span.start > at(i) - 20 && d.span.start < at(i + 1))
        };
        assert!(
            found(rules::DUPLICATE_KEY.code, dup),
            "{:?}",
            out.diagnostics
        );
        assert!(
            found(rules::PLAYBOOK_SCHEMA.code, bare),
            "{:?}",
            out.diagnostics
        );
        assert_eq!(out.playbook.entries[dup].content, "d");
        let pb = out.playbook;
        assert_eq!(pb.entries[late].content, format!("late {late}"));
        let written = crate::write(&pb).text;
        let again = crate::read(&written).unwrap();
        assert_eq!(crate::write(&again.playbook).text, written);
        assert!(
            !again
                .diagnostics
                .iter()
                .any(|d| d.code == rules::LAYOUT_NOT_KEPT.code),
            "{:?}",
            again.diagnostics
        );
    }
}
