//! The bullets of a skill playbook, read one by one: as the parser meets
//! them ([`read`]), or in order from the whole span tree ([`read_tree`]).
//! Both feed the same [`Bullets`], which reads each bullet into an entry,
//! runs its checks and keeps what needs every bullet small, settled at the
//! end:
//! - the file's generation is the majority of the bullets' hints, so a
//!   bullet without a hint has its schema errors kept under both
//!   generations (usually none), and a hinted one its label, for the note
//!   on a bullet whose generation is not the file's;
//! - the first bullet's key order is the template, and only the bullets it
//!   does not give are recorded (repeated IDs are filled in at the end);
//! - streamed, the layout check compares each bullet's printing with its
//!   own bytes, the separators between bullets with theirs, then the
//!   document with the bullets' array read as `[]`; from the tree, the
//!   whole document is compared once.
//!
//! The span tree of a bullet is several times its text, so a large file
//! is read streamed, and each bullet's tree dropped once read. What that
//! cannot settle exactly (a bullet that is not an object, a layout that
//! differs, two `bullets` arrays, a style the first bullets guessed wrong)
//! makes [`read`] return `None`, and the caller reads the tree: a unit
//! test requires the same output both ways on every fixture and corpus
//! file.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;

use ace_jsonspan::stream::{read_items, Plan, ReadItems, TakeItems};
use ace_jsonspan::{Kind, Node, Taken};
use ace_model::{rules, Diagnostic, Entry, Playbook, ReadOutput, Span};
use ace_schema::Generation;
use serde_json::Value;

use crate::checks::{self, Hint};
use crate::delta::DocumentKind;
use crate::fields::KeyOrder;
use crate::layout::Layout;
use crate::parts::{
    check_layout, finish, generation_note, key_order_refs, mixed_generation, not_a_bullet,
    other_generation, read_bullet, read_wrapper, schema_diagnostics, schema_diagnostics_of,
    wrapper_checks,
};
use crate::style::{indent_at, indent_of, Compare, Style};

const BOM: &str = "\u{feff}";

/// The bullets of `text` read as they are parsed; `None` when the whole
/// tree must be read instead. A parse error is the same either way.
pub(crate) fn read(
    text: &str,
    schema: bool,
) -> Result<Option<(ReadOutput, DocumentKind)>, Diagnostic> {
    let Some(bullets) = Bullets::new(text, schema) else {
        return Ok(None);
    };
    let plan = BulletArray {
        array_root: bullets.array_root,
        text,
    };
    let (doc, streamed) = read_items(text, true, plan, bullets, |sink| {
        ace_jsonspan::parse_with(text, sink)
    });
    let mut bullets = streamed.take;
    bullets.taken = streamed.arrays;
    let doc = match doc {
        Ok(doc) => doc,
        // A bullet handed over as text, before the place of this error,
        // may not parse either, and its error is the one to report: the
        // whole read's parse finds the first.
        Err(_) if streamed.handed_text => return Ok(None),
        Err(e) => return Err(e),
    };
    // The taken bullets leave the root's keys, all the kind looks at.
    let kind = crate::kind_of(&doc.root);
    Ok(bullets.finish(doc).map(|out| (out, kind)))
}

/// [`crate::read`] from the whole span tree: what reads the files the
/// streamed read cannot settle, and the reference it is checked against
/// (here and by the fuzz targets). The bullets are read by the same code,
/// in order, from the tree. `schema`: run the bullet schema checks.
pub(crate) fn read_tree(
    text: &str,
    schema: bool,
) -> Result<(ReadOutput, DocumentKind), Diagnostic> {
    let doc = ace_jsonspan::parse(text)?;
    let kind = crate::kind_of(&doc.root);
    let root = &doc.root;
    let items: &[Node] = match &root.kind {
        Kind::Array(items) => items,
        Kind::Object(_) => root.get("bullets").and_then(Node::as_array).unwrap_or(&[]),
        _ => return Err(not_a_playbook(root)),
    };
    let Some(bullets) = Bullets::new(text, schema) else {
        return Err(not_a_playbook(root));
    };
    let style = Style::detect(root, text);
    let bullets = bullets.read_tree(items, style);
    Ok((bullets.assemble(doc, style), kind))
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

fn is_json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

struct Bullets<'t> {
    text: &'t str,
    /// A bare array of bullets rather than `{"bullets": [...]}`.
    array_root: bool,
    /// The file's style; `inline_scalar_arrays` is a guess until the end.
    style: Style,
    /// Whether a bullet's printing depended on the guess.
    inline_guessed: bool,
    /// The nesting level of a bullet.
    level: usize,
    /// What stands between bullets, before the first and after the last.
    between: String,
    open: String,
    close: String,
    taken: usize,
    /// Something the end cannot settle: read the whole tree.
    odd: bool,
    /// Whether to run the bullet schema checks.
    schema: bool,
    first_start: Option<usize>,
    prev_end: usize,
    entries: Vec<Entry>,
    /// Duplicate keys and what reading a bullet found.
    item_diags: Vec<Diagnostic>,
    /// Mixed generations and schema errors under a bullet's own generation.
    gen_diags: Vec<Diagnostic>,
    /// Schema errors of bullets without a hint, under the generation they
    /// were checked against.
    unhinted: [Vec<Diagnostic>; 2],
    /// Bullets without a hint that fail a generation they were not checked
    /// against: index and span.
    recheck: [Vec<(usize, Span)>; 2],
    /// Hinted bullets by generation: where the hint is and the label.
    hinted: [Vec<(Span, String)>; 2],
    /// Bullets whose hints mix generations, by `confidence`'s generation.
    mixed: [usize; 2],
    first_hint: [Option<Span>; 2],
    all_none: bool,
    template: KeyOrder<'static>,
    /// Bullets (by entry index) whose key order the template does not give.
    orders: Vec<(usize, Vec<String>)>,
    /// A hash of each entry's ID, taken while the ID is at hand
    /// ([`repeated_ids`]).
    id_hashes: Vec<u64>,
    /// The first array of scalars inside a bullet.
    first_scalar_array: Option<Span>,
    /// What the threads reading bullets learn from here.
    told: Arc<Told>,
    /// Fed from the whole tree: the style is known, the layout is checked
    /// on the whole document at the end, and items that are not objects
    /// are kept in place.
    tree: bool,
    /// Items that are not objects, with their index (read from the tree).
    non_bullets: Vec<(usize, Value)>,
}

/// What the bullets' readers are told as the bullets are taken in order.
#[derive(Default)]
struct Told {
    /// Whether lists of scalars stay on one line, once settled: 0 not yet,
    /// 1 no, 2 yes.
    inline: AtomicU8,
    /// The file is read whole: reading more bullets is of no use.
    odd: AtomicBool,
}

impl Told {
    fn inline(&self) -> Option<bool> {
        match self.inline.load(Ordering::Relaxed) {
            0 => None,
            v => Some(v == 2),
        }
    }
}

impl<'t> Bullets<'t> {
    /// `None` for a root that is neither an object nor an array: the whole
    /// read reports it.
    fn new(text: &'t str, schema: bool) -> Option<Self> {
        let bytes = text.as_bytes();
        let mut at = if text.starts_with(BOM) { BOM.len() } else { 0 };
        while bytes.get(at).copied().is_some_and(is_json_space) {
            at += 1;
        }
        let root = at;
        let array_root = match bytes.get(root) {
            Some(b'[') => true,
            Some(b'{') => false,
            _ => return None,
        };
        at += 1;
        while bytes.get(at).copied().is_some_and(is_json_space) {
            at += 1;
        }
        let has_child = bytes.get(at).is_some_and(|b| !matches!(b, b']' | b'}'));
        let body = text.strip_prefix(BOM).unwrap_or(text);
        let style = Style {
            indent: has_child.then(|| indent_at(text, root, at)).flatten(),
            inline_scalar_arrays: false,
            ascii: body.is_ascii(),
            final_newline: text.ends_with('\n'),
        };
        let level = if array_root { 1 } else { 2 };
        let pad = |level: usize| " ".repeat(level * style.indent.unwrap_or(0));
        let (between, open, close) = match style.indent {
            Some(_) => (
                format!(",\n{}", pad(level)),
                format!("\n{}", pad(level)),
                format!("\n{}", pad(level - 1)),
            ),
            None => (", ".to_owned(), String::new(), String::new()),
        };
        Some(Bullets {
            text,
            array_root,
            style,
            inline_guessed: false,
            level,
            between,
            open,
            close,
            taken: 0,
            odd: false,
            schema,
            first_start: None,
            prev_end: 0,
            entries: Vec::new(),
            item_diags: Vec::new(),
            gen_diags: Vec::new(),
            unhinted: [Vec::new(), Vec::new()],
            recheck: [Vec::new(), Vec::new()],
            hinted: [Vec::new(), Vec::new()],
            mixed: [0, 0],
            first_hint: [None, None],
            all_none: true,
            template: KeyOrder::new(Vec::new()),
            orders: Vec::new(),
            id_hashes: Vec::new(),
            first_scalar_array: None,
            told: Arc::default(),
            tree: false,
            non_bullets: Vec::new(),
        })
    }

    /// Takes a run of bullets read on their own: what depends on the
    /// bullets before, in order.
    fn take_run(&mut self, run: RunRead) {
        if self.odd {
            return;
        }
        if run.unparsed {
            self.mark_odd();
            return;
        }
        for read in run.reads {
            if self.bullet(read).is_none() {
                self.mark_odd();
                return;
            }
        }
    }

    fn mark_odd(&mut self) {
        self.odd = true;
        self.told.odd.store(true, Ordering::Relaxed);
    }

    fn bullet(&mut self, read: BulletRead) -> Option<()> {
        let BulletRead {
            index,
            span: node_span,
            scalar_array,
            inline_used,
            item,
            id_hash,
            hint,
        } = read;
        // Lists of scalars stay on one line or not as the first bullet
        // with one has them; a bullet read under another guess (its run
        // was read before that bullet was taken) is read whole.
        if let Some(array) = scalar_array {
            if !self.inline_guessed {
                self.style.inline_scalar_arrays =
                    !self.text.get(array.start..array.end)?.contains('\n');
                self.inline_guessed = true;
                self.first_scalar_array = Some(array);
                let told = 1 + u8::from(self.style.inline_scalar_arrays);
                self.told.inline.store(told, Ordering::Relaxed);
            }
            if inline_used != self.style.inline_scalar_arrays {
                return None;
            }
        }
        // The layout first: a streamed file that will not keep it is read
        // whole.
        if !self.tree {
            match index {
                0 => self.first_start = Some(node_span.start),
                _ => {
                    if self.text.get(self.prev_end..node_span.start)? != self.between {
                        return None;
                    }
                }
            }
        }
        let Prepared {
            diags,
            entry: e,
            order,
        } = match item {
            ItemRead::Entry(prepared) => prepared,
            ItemRead::NotObject(value, diag) => {
                self.item_diags.push(diag);
                self.non_bullets.push((index, value));
                return Some(());
            }
            ItemRead::Unsettled => return None,
        };
        self.first_start.get_or_insert(node_span.start);
        self.prev_end = node_span.end;

        self.item_diags.extend(diags);
        if let Some(order) = order {
            self.orders.push((self.entries.len(), order));
        }
        self.id_hashes.push(id_hash);
        self.entries.push(e);

        match hint {
            HintRead::None { schema: None } => {}
            HintRead::None {
                schema: Some(checked),
            } => {
                // Checked against the generation most bullets so far hint
                // at, which is nearly always the file's; against the other
                // only for whether it passes. A bullet that fails the
                // file's generation but was checked against the other is
                // parsed again from its text at the end.
                let Unhinted { mut diags, valid } = *checked;
                let guess = self.majority();
                let other = guess.other();
                self.unhinted[gen_index(guess)].append(&mut diags[gen_index(guess)]);
                if !valid[gen_index(other)] {
                    self.recheck[gen_index(other)].push((index, node_span));
                }
            }
            HintRead::Some {
                generation: g,
                span,
                label,
                mixed,
                schema,
            } => {
                self.all_none = false;
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
        Some(())
    }

    /// The generation most bullets read so far hint at
    /// ([`checks::majority`]'s rule).
    fn majority(&self) -> Generation {
        let votes = |g: Generation| self.hinted[gen_index(g)].len() + self.mixed[gen_index(g)];
        if votes(Generation::One) > votes(Generation::Two) {
            Generation::One
        } else {
            Generation::Two
        }
    }

    fn finish(self, doc: ace_jsonspan::Document) -> Option<ReadOutput> {
        if self.odd || self.taken != 1 {
            return None;
        }
        let text = self.text;
        let root = &doc.root;
        let bullets = if self.array_root {
            root
        } else {
            root.get("bullets")?
        };
        // The taken array is what the whole read would take: the last
        // `bullets` of the root, left empty in the tree.
        if !matches!(&bullets.kind, Kind::Array(items) if items.is_empty()) {
            return None;
        }
        let arr = bullets.span;

        // The style the whole read detects, from the whole document.
        let mut style = self.style;
        let indent = match (self.array_root, self.first_start) {
            (true, Some(first)) => indent_at(text, root.span.start, first),
            (true, None) => None,
            (false, _) => indent_of(root, text),
        };
        if indent != style.indent {
            return None;
        }
        let around = root.first_scalar_list().map(|n| n.span);
        let first = match around {
            Some(s) if s.start < arr.start => Some(s),
            _ => self.first_scalar_array.or(around),
        };
        let inline = match first {
            Some(s) => !text.get(s.start..s.end)?.contains('\n'),
            None => false,
        };
        if self.inline_guessed && inline != style.inline_scalar_arrays {
            return None;
        }
        style.inline_scalar_arrays = inline;

        // The layout around the bullets.
        match self.first_start {
            Some(first) => {
                if text.get(arr.start + 1..first)? != self.open
                    || text.get(self.prev_end..arr.end.checked_sub(1)?)? != self.close
                {
                    return None;
                }
            }
            None => {
                if text.get(arr.start..arr.end)? != "[]" {
                    return None;
                }
            }
        }
        let body = text.strip_prefix(BOM).unwrap_or(text);
        let shift = text.len() - body.len();
        let mut compare = Compare::spliced(body, arr.start - shift..arr.end - shift, "[]");
        style.render_into(root, &mut compare);
        if compare.finish().is_some() {
            return None;
        }

        Some(self.assemble(doc, style))
    }

    /// Reads the items of the tree's bullets array (`items`) in order: the
    /// style is the whole document's, and the layout is checked on the
    /// whole document when the read is assembled.
    fn read_tree(mut self, items: &[Node], style: Style) -> Self {
        self.tree = true;
        self.style = style;
        self.inline_guessed = true;
        let told = 1 + u8::from(style.inline_scalar_arrays);
        self.told.inline.store(told, Ordering::Relaxed);
        let keys: Vec<String> = items
            .iter()
            .find(|n| n.members().is_some())
            .map(|n| key_order_refs(n).into_iter().map(str::to_owned).collect())
            .unwrap_or_default();
        self.template = KeyOrder::new(keys.clone());
        let reader = ReadBullets {
            text: self.text,
            style,
            level: self.level,
            schema: self.schema,
            array_root: self.array_root,
            template: KeyOrder::new(keys),
            told: Arc::clone(&self.told),
            tree: true,
        };
        let mut run = reader.run(items.len());
        for (index, node) in items.iter().enumerate() {
            reader.read(&mut run, index, node);
        }
        self.take_run(run);
        self
    }

    /// The read, from what the bullets gave and the rest of the document.
    fn assemble(mut self, doc: ace_jsonspan::Document, style: Style) -> ReadOutput {
        let text = self.text;
        let file_gen = self.majority();
        let root = &doc.root;
        let count = self.entries.len();
        let mut pb = Playbook::default();
        let mut layout = Layout {
            array: self.array_root,
            style,
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

        if let (true, Some(start)) = (count > 0, self.first_start) {
            let first = self.first_hint[gen_index(file_gen)].unwrap_or(Span::new(start, start + 1));
            diags.push(generation_note(file_gen, self.all_none, first));
            diags.extend(self.gen_diags);
            let other = file_gen.other();
            for (span, label) in std::mem::take(&mut self.hinted[gen_index(other)]) {
                diags.push(other_generation(span, &label, other, file_gen));
            }
            diags.append(&mut self.unhinted[gen_index(file_gen)]);
            for (index, span) in std::mem::take(&mut self.recheck[gen_index(file_gen)]) {
                // It parsed as part of the document: the span is one value.
                if let Some(node) = ace_jsonspan::parse_at(text, span.start..span.end) {
                    diags.extend(schema_diagnostics(&node, index, file_gen, self.array_root));
                }
            }
        }
        pb.entries = self.entries;
        wrapper_checks(root, &pb.entries, &mut diags);
        if self.tree {
            check_layout(root, text, &layout, &mut diags);
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
}

/// What an item of the bullets array is, read on its own.
enum ItemRead {
    Entry(Prepared),
    /// Not an object (read from the tree): kept in place, with its note.
    NotObject(Value, Diagnostic),
    /// Not an object, or not in the layout, in a streamed read: the file
    /// is read whole.
    Unsettled,
}

/// What a bullet's generation hints give on their own.
enum HintRead {
    /// No hint; the schema checks under either generation, when run.
    None { schema: Option<Box<Unhinted>> },
    Some {
        generation: Generation,
        span: Span,
        label: String,
        /// The note on hints of both generations.
        mixed: Option<Diagnostic>,
        /// The schema checks under its generation, when run.
        schema: Vec<Diagnostic>,
    },
}

/// The schema checks of a bullet without a hint, under generations 1 and
/// 2: which applies depends on the bullets before it.
struct Unhinted {
    diags: [Vec<Diagnostic>; 2],
    valid: [bool; 2],
}

/// A bullet read on its own, on whichever thread read its run.
struct BulletRead {
    index: usize,
    span: Span,
    /// Its first list of scalars, and whether it was read as if such lists
    /// stay on one line.
    scalar_array: Option<Span>,
    inline_used: bool,
    item: ItemRead,
    id_hash: u64,
    hint: HintRead,
}

/// A run of bullets read.
struct RunRead {
    reads: Vec<BulletRead>,
    /// A bullet handed over as text did not parse.
    unparsed: bool,
    /// Whether lists of scalars stay on one line, as far as this run
    /// knows: until a bullet before it settles that, the run's own first
    /// list of scalars is the guess, and its bullets are taken only if the
    /// guess was right.
    inline: Option<bool>,
}

/// Reads runs of bullets on whichever thread takes the run.
struct ReadBullets<'t> {
    text: &'t str,
    /// The file's style, but for whether lists of scalars stay on one line.
    style: Style,
    level: usize,
    schema: bool,
    array_root: bool,
    /// The first bullet's key order, which the others are compared with.
    template: KeyOrder<'static>,
    told: Arc<Told>,
    /// Items come from the whole tree ([`Bullets::read_tree`]).
    tree: bool,
}

impl ReadBullets<'_> {
    /// What a bullet gives that depends on no other.
    fn prepare(&self, index: usize, node: &Node, style: &Style) -> ItemRead {
        let Kind::Object(members) = &node.kind else {
            if self.tree {
                return ItemRead::NotObject(node.to_value(), not_a_bullet(index, node));
            }
            return ItemRead::Unsettled;
        };
        let mut diags = Vec::new();
        if !self.tree {
            if !style.keeps(node, self.text, self.level) {
                let Some(own) = self.text.get(node.span.start..node.span.end) else {
                    return ItemRead::Unsettled;
                };
                let mut compare = Compare::new(own);
                style.write(node, self.level, &mut compare);
                if compare.finish().is_some() {
                    return ItemRead::Unsettled;
                }
            }
            // The parser reports those of the items it keeps in the tree.
            ace_jsonspan::duplicate_keys(node, &mut diags);
        }
        let entry = read_bullet(node, members, index, &mut diags);
        let keys = key_order_refs(node);
        let order = (self.template.keys(&entry) != keys)
            .then(|| keys.into_iter().map(str::to_owned).collect());
        ItemRead::Entry(Prepared {
            diags,
            entry,
            order,
        })
    }

    fn hint(&self, index: usize, node: &Node) -> HintRead {
        let hint = checks::hint(node);
        let Some(g) = hint.generation() else {
            if !self.schema {
                return HintRead::None { schema: None };
            }
            let value = node.to_value();
            let mut checked = Unhinted {
                diags: [Vec::new(), Vec::new()],
                valid: [true, true],
            };
            for g in [Generation::One, Generation::Two] {
                let diags = schema_diagnostics_of(node, &value, index, g, self.array_root);
                checked.valid[gen_index(g)] =
                    ace_schema::is_valid(ace_schema::SkillSchema::Bullet, g, &value);
                checked.diags[gen_index(g)] = diags;
            }
            return HintRead::None {
                schema: Some(Box::new(checked)),
            };
        };
        let label = checks::bullet_label(node, index);
        HintRead::Some {
            generation: g,
            span: checks::hint_span(node),
            mixed: matches!(hint, Hint::Mixed(_)).then(|| mixed_generation(node, &label, g)),
            label,
            schema: if self.schema {
                schema_diagnostics(node, index, g, self.array_root)
            } else {
                Vec::new()
            },
        }
    }
}

impl ReadItems for ReadBullets<'_> {
    type Run = RunRead;

    fn run(&self, len: usize) -> RunRead {
        RunRead {
            reads: Vec::with_capacity(len),
            unparsed: false,
            inline: self.told.inline(),
        }
    }

    fn item(&self, run: &mut RunRead, index: usize, node: Option<&mut Node>) -> bool {
        if run.reads.is_empty() && self.told.odd.load(Ordering::Relaxed) {
            return false;
        }
        let Some(node) = node else {
            run.unparsed = true;
            return false;
        };
        self.read(run, index, node);
        true
    }
}

impl ReadBullets<'_> {
    /// Reads item `index` into `run`.
    fn read(&self, run: &mut RunRead, index: usize, node: &Node) {
        let scalar_array = node.first_scalar_list().map(|a| a.span);
        if let (None, Some(array)) = (run.inline, scalar_array) {
            run.inline = self
                .text
                .get(array.start..array.end)
                .map(|t| !t.contains('\n'));
        }
        let mut style = self.style;
        style.inline_scalar_arrays = run.inline.unwrap_or(false);
        let item = self.prepare(index, node, &style);
        let (id_hash, hint) = match &item {
            ItemRead::Entry(p) => (id_hash(&p.entry.id), self.hint(index, node)),
            _ => (0, HintRead::None { schema: None }),
        };
        run.reads.push(BulletRead {
            index,
            span: node.span,
            scalar_array,
            inline_used: style.inline_scalar_arrays,
            item,
            id_hash,
            hint,
        });
    }
}

impl TakeItems<RunRead> for Bullets<'_> {
    fn take(&mut self, run: RunRead) {
        self.take_run(run);
    }
}

/// The bullets' array, taken from the parser: its first bullet, parsed
/// here, gives the key order the others are compared with, and may settle
/// the guess of whether lists of scalars stay on one line, before any
/// other is read.
struct BulletArray<'t> {
    array_root: bool,
    text: &'t str,
}

impl<'t> Plan<'t> for BulletArray<'t> {
    type Read = ReadBullets<'t>;
    type Take = Bullets<'t>;

    fn wants(&mut self, path: &[&str]) -> bool {
        if self.array_root {
            path.is_empty()
        } else {
            path == ["bullets"]
        }
    }

    fn begin(
        &mut self,
        bullets: &mut Bullets<'t>,
        first: &mut Taken,
        parse: Option<&mut (dyn FnMut(Span) -> Option<Node> + '_)>,
    ) -> ReadBullets<'t> {
        let mut template = KeyOrder::new(Vec::new());
        if let Some(node) = first.resolve(parse) {
            let keys: Vec<String> = key_order_refs(node)
                .into_iter()
                .map(str::to_owned)
                .collect();
            template = KeyOrder::new(keys.clone());
            bullets.template = KeyOrder::new(keys);
            if let Some(a) = node.first_scalar_list() {
                if let Some(t) = self.text.get(a.span.start..a.span.end) {
                    let told = 1 + u8::from(!t.contains('\n'));
                    bullets.told.inline.store(told, Ordering::Relaxed);
                }
            }
        }
        ReadBullets {
            text: self.text,
            style: bullets.style,
            level: bullets.level,
            schema: bullets.schema,
            array_root: bullets.array_root,
            template,
            told: Arc::clone(&bullets.told),
            tree: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_jsonspan::testing::outcome;

    /// The streamed read (or its fallback) gives what the whole read
    /// gives; returns whether the stream settled it alone.
    fn same_as_whole(name: &str, text: &str) -> bool {
        let with = same_as_whole_with(name, text, true);
        let without = same_as_whole_with(name, text, false);
        assert_eq!(with, without, "{name}");
        with
    }

    fn same_as_whole_with(name: &str, text: &str, schema: bool) -> bool {
        let whole = read_tree(text, schema);
        let streamed = read(text, schema);
        match (whole, streamed) {
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{name}");
                false
            }
            (Ok((whole, whole_kind)), Ok(Some((streamed, kind)))) => {
                assert_eq!(outcome(streamed), outcome(whole), "{name}");
                assert_eq!(kind, whole_kind, "{name}");
                true
            }
            // Left to the whole read, whatever it finds.
            (_, Ok(None)) => false,
            (a, b) => panic!("{name}: whole {a:?}, streamed {b:?}"),
        }
    }

    fn fixture_files(under: &str) -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures");
        ace_jsonspan::testing::json_files(&root.join(under))
    }

    fn corpus_files() -> Vec<std::path::PathBuf> {
        let corpus = std::env::var_os("ACE_CORPUS").expect("this test needs ACE_CORPUS");
        ace_jsonspan::testing::json_files(&std::path::Path::new(&corpus).join("skill-json"))
    }

    /// How many of `files` the streamed read took without falling back
    /// to the whole read; each read gives what the whole read gives.
    fn streamed_as_whole(files: &[std::path::PathBuf]) -> usize {
        let mut streamed = 0;
        for f in files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            streamed += usize::from(same_as_whole(&f.display().to_string(), &text));
        }
        streamed
    }

    #[test]
    fn streamed_bullets_read_as_the_whole_tree_does_for_every_fixture() {
        let files = fixture_files("");
        assert!(files.len() > 20, "{}", files.len());
        let streamed = streamed_as_whole(&files);
        // Not every file falls back to the whole read.
        assert!(streamed >= 3, "{streamed} of {} streamed", files.len());
    }

    #[test]
    #[ignore = "needs ACE_CORPUS"]
    fn streamed_bullets_read_as_the_whole_tree_does_for_the_corpus() {
        let files = corpus_files();
        assert!(streamed_as_whole(&files) >= 1, "{} files", files.len());
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

    #[test]
    fn streamed_bullets_read_as_the_whole_tree_does_for_odd_shapes() {
        let b1 = r#"{"id": "a-1", "content": "x", "tags": ["t", "u"], "helpful_count": 1}"#;
        let b2 = r#"{"content": "y", "id": "a-2", "confidence": "high", "scope": "global"}"#;
        let b3 = r#"{"id": "a-1", "content": "z", "confidence": 0.5, "scope": {"domain": "d"}}"#;
        let mixed = r#"{"id": "m", "content": "w", "confidence": "low", "scope": {"d": 1}}"#;
        let bad = r#"{"id": 3, "content": "v", "id": "dup", "confidence": 7, "created": "no"}"#;
        let cases = [
            format!("{{\n  \"version\": \"1\",\n  \"bullets\": [\n    {b1},\n    {b2}\n  ]\n}}"),
            format!("[{b1}, {b2}, {b3}]"),
            format!("[\n  {b1},\n  {b3},\n  {mixed},\n  {bad}\n]\n"),
            format!("{{\"bullets\": [{b1}], \"bullets\": [{b2}]}}"),
            format!("{{\"bullets\": [{b1}], \"bullets\": 3}}"),
            format!("{{\"bullets\": [{b1}, 7, null], \"metadata\": {{\"total_bullets\": 9}}}}"),
            format!("{{\"tags\": [\"a\",\n \"b\"], \"bullets\": [{b1}]}}"),
            format!("{{\"bullets\": [{b2}, {b2}], \"metadata\": {{\"x\": [1, 2]}}}}"),
            "{\"bullets\": []}".to_owned(),
            "{\"bullets\": [ ]}".to_owned(),
            "[]".to_owned(),
            "{}".to_owned(),
            "3".to_owned(),
            format!("\u{feff}[{b1}]"),
            format!("{{\"bullets\": [{b1},{b2}]}}"),
        ];
        for (i, text) in cases.iter().enumerate() {
            same_as_whole(&format!("case {i}: {text}"), text);
        }
    }

    /// Files laid out as the detected style prints them are read in one
    /// pass, whatever their bullets hold: the generation notes, schema
    /// errors, repeated IDs, key orders and metadata counts come out as the
    /// whole read gives them.
    #[test]
    fn styled_files_with_findings_are_read_in_one_pass_as_whole() {
        let docs = [
            serde_json::json!({"version": "1", "bullets": [
                {"id": "a", "content": "x", "confidence": "high", "scope": "global", "tags": ["t"]},
                {"content": "y", "id": "b", "confidence": 0.5, "scope": {"domain": "d"}},
                {"id": "m", "content": "w", "confidence": "low", "scope": {"d": 1}},
                {"id": 3, "content": "v", "confidence": 7, "created": "no"},
                {"id": "a", "content": "again", "helpful_count": 2.5},
                {"id": "n", "content": "none"}
            ], "metadata": {"total_bullets": 9, "last_curated": "yesterday"}}),
            serde_json::json!([
                {"id": "a", "content": "x", "confidence": 0.9},
                {"id": "b", "content": "y", "confidence": "low"},
                {"id": "c", "content": "z", "confidence": "high"},
                {"id": "d", "content": "n", "tags": ["p", "q"]}
            ]),
            serde_json::json!({"bullets": [{"id": "a", "content": "x"}], "tags": ["late"]}),
            // Bullets without a hint before the hints make generation 1
            // the file's: checked against 2 as they came, so read again.
            serde_json::json!([
                {"id": "n1", "content": "x", "tags": ["t"], "extra": 1},
                {"id": 5, "content": 6},
                {"id": "a", "content": "x", "confidence": "high"},
                {"id": "b", "content": "y", "confidence": "low", "scope": "global"}
            ]),
            serde_json::json!({"bullets": [{"id": "a", "content": "\u{e9}\u{1F600}"}]}),
        ];
        let styles = Style::samples();
        for doc in &docs {
            for style in styles {
                let text = style.render(doc);
                assert!(same_as_whole(&text, &text), "fell back on\n{text}");
            }
        }
    }

    /// What the skill's own writer prints is read in one pass, without the
    /// whole tree, in both generations and both shapes.
    #[test]
    fn files_of_many_runs_read_as_the_whole_tree_does() {
        // Bullets enough to be read on other threads: generations mixed
        // late, a duplicate key, a bullet without `content` and one in
        // another key order, each in a different run, must give the whole
        // read's findings in order.
        let n = 3 * ace_exec::par::MIN_ITEMS + 11;
        let bullet = |i: usize| match i {
            i if i == ace_exec::par::MIN_ITEMS + 5 => {
                format!(
                    r#"{{"id": "b-{i}", "content": "c", "content": "d", "confidence": "high"}}"#
                )
            }
            i if i == 2 * ace_exec::par::MIN_ITEMS + 1 => format!(r#"{{"id": "b-{i}"}}"#),
            i if i % 5000 == 7 => format!(r#"{{"content": "late {i}", "id": "b-{i}"}}"#),
            i => format!(
                r#"{{"id": "b-{i}", "content": "c\u00e9 {i}", "tags": ["t"], "confidence": 0.5}}"#
            ),
        };
        let items: Vec<String> = (0..n).map(bullet).collect();
        let text = format!(
            "{{\n  \"bullets\": [\n    {}\n  ]\n}}",
            items.join(",\n    ")
        );
        let pb = crate::read_whole(&text, true).unwrap().playbook;
        assert_eq!(pb.entries.len(), n);
        let written = crate::write(&pb).text;
        assert!(
            same_as_whole("written", &written),
            "the written file fell back"
        );
    }

    /// Whether lists of scalars stay on one line is settled by the first
    /// bullet that has one, which may come late, in a run read before the
    /// bullets ahead of it were taken: read in one pass when the bullets
    /// agree, read whole when they do not.
    #[test]
    fn a_late_first_list_settles_the_layout_of_runs_read_before_it() {
        use ace_exec::par::{MIN_ITEMS, ORDERED_RUN};
        let n = MIN_ITEMS + 6 * ORDERED_RUN;
        let first = MIN_ITEMS + 2 * ORDERED_RUN + 7;
        let later = MIN_ITEMS + 4 * ORDERED_RUN + 1;
        let text = |first_list: &str, later_list: &str| {
            let bullets: Vec<String> = (0..n)
                .map(|i| {
                    let tags = match i {
                        i if i == first => format!(",\n      \"tags\": {first_list}"),
                        i if i == later => format!(",\n      \"tags\": {later_list}"),
                        _ => String::new(),
                    };
                    format!(
                        "{{\n      \"id\": \"b-{i}\",\n      \"content\": \"c {i}\"{tags}\n    }}"
                    )
                })
                .collect();
            format!(
                "{{\n  \"bullets\": [\n    {}\n  ]\n}}\n",
                bullets.join(",\n    ")
            )
        };
        let inline = r#"["a", "b"]"#;
        let broken = "[\n        \"a\",\n        \"b\"\n      ]";
        assert!(same_as_whole("agree, inline", &text(inline, inline)));
        assert!(same_as_whole("agree, broken", &text(broken, broken)));
        assert!(!same_as_whole("disagree", &text(inline, broken)));
        assert!(!same_as_whole("disagree", &text(broken, inline)));
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

    #[test]
    fn written_files_are_read_in_one_pass() {
        let playbooks = [
            r#"{"bullets": [
                {"id": "a-1", "content": "x\u00e9", "tags": ["t"], "helpful_count": 1, "harmful_count": 0},
                {"id": "a-2", "content": "y", "confidence": 0.8, "scope": {"domain": "d"}},
                {"id": "a-1", "content": "z", "confidence": 0.5, "tags": []}
            ], "metadata": {"total_bullets": 3}}"#,
            r#"[{"id": "b-1", "content": "x", "confidence": "high", "scope": "global"}]"#,
        ];
        for text in playbooks {
            let pb = crate::read_whole(text, true).unwrap().playbook;
            let written = crate::write(&pb).text;
            assert!(same_as_whole(&written, &written), "fell back on\n{written}");
        }
    }
}
