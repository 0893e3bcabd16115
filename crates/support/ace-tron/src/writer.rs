//! The TRON writer. It knows nothing of vAgenda: the caller hands it a tree
//! in which each object says which class it belongs to (if any) and which of
//! its class's properties read back as absent when written as `null`.
//!
//! Output is deterministic (classes in order of first use, properties in
//! order of first appearance) and uses only constructs both reference
//! parsers agree on (notes §2.6): single-line class headers, JSON-escaped
//! strings, quoted keys in `{}` objects, no named arguments, no inheritance,
//! no trailing commas.

use std::collections::HashMap;

use ace_exec::block::{block, lines, spread_block, Blocks};
use ace_exec::Out;

use serde_json::Value;

use crate::lexer::is_keyword;

/// How the top level is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RootStyle {
    /// vAgenda house style: `key: value` lines with no braces. Only vAgenda's
    /// own Go parser and ace-tools read it.
    #[default]
    Implicit,
    /// One braced value, which the official `@tron-format/tron` parser reads.
    Braced,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    pub root: RootStyle,
    /// Values that fit in this many columns are written on one line.
    pub width: usize,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            root: RootStyle::Implicit,
            width: 100,
        }
    }
}

/// A value to write, with class information on its objects.
#[derive(Debug, Clone)]
pub enum Item<'a> {
    /// Written as it is; objects inside use `{}` notation.
    Value(&'a Value),
    /// A string held elsewhere than in a [`Value`]: a caller writing its
    /// own model need not copy each string into one first.
    Str(&'a str),
    Array(Vec<Item<'a>>),
    Object(Obj<'a>),
    /// An array whose items are built when they are needed and dropped
    /// after: the writer visits them up to three times (classes, which
    /// classes are used, the text) instead of holding them all.
    Lazy(&'a dyn Items),
}

/// The items of an [`Item::Lazy`] array. `with` must build the same item
/// each time it is asked for the same index.
/// `Sync`, because a long array's items are built on several threads.
pub trait Items: std::fmt::Debug + Sync {
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Builds item `i` and hands it to `f`.
    fn with(&self, i: usize, f: &mut dyn FnMut(&Item<'_>));

    /// Calls `f` with the class and keys of every object with a class in
    /// item `i`, in document order: what the writer settles the classes
    /// from. By default the item is built and walked; a caller that knows
    /// its items' keys can skip building their values.
    fn shapes(&self, i: usize, f: &mut dyn FnMut(&str, &[&str])) {
        self.with(i, &mut |item| visit(item, f, false));
    }
}

#[derive(Debug, Clone)]
pub struct Obj<'a> {
    /// The class to write this object as; `None` means `{}` notation.
    pub class: Option<&'a str>,
    /// Properties that mean the same absent as `null`: an instance lacking
    /// one of them can still use the class, with `null` in its place.
    pub null_is_absent: &'a [&'a str],
    pub members: Vec<(&'a str, Item<'a>)>,
}

/// Owned, because the instances of a lazy array are gone by the time the
/// headers are printed.
struct Class {
    name: String,
    props: Vec<String>,
}

/// Whether `name` can be written without quotes (an identifier that is not
/// a keyword).
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !is_keyword(name)
}

fn push_name(out: &mut impl std::fmt::Write, name: &str) {
    if is_name(name) {
        let _ = out.write_str(name);
    } else {
        push_string(out, name);
    }
}

fn push_string(out: &mut impl std::fmt::Write, s: &str) {
    // serde_json escapes exactly what JSON (and so TRON) requires: quotes,
    // backslashes and control characters. Text without them is copied.
    if s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        let _ = out.write_str(&serde_json::to_string(s).expect("a string always serialises"));
    } else {
        let _ = out.write_char('"');
        let _ = out.write_str(s);
        let _ = out.write_char('"');
    }
}

/// TRON text for `root`.
pub fn write(root: &Item<'_>, opts: &WriteOptions) -> String {
    let mut out = Out::new();
    write_into(root, opts, &mut out);
    out.into_string()
}

/// [`write`] into `out`, which may send the text on as it is printed.
pub fn write_into(root: &Item<'_>, opts: &WriteOptions, out: &mut Out<'_>) {
    let mut classes: Vec<Class> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    collect(root, &mut classes, &mut index);
    let mut w = Writer {
        classes: &classes,
        index: &index,
        width: opts.width.max(20),
        out,
        scratch: String::new(),
        exact: opts.root == RootStyle::Braced,
    };
    let mut used: Vec<bool> = vec![false; classes.len()];
    let mut unused = classes.len();
    mark_used(root, &w, &mut used, &mut unused);
    for (c, used) in classes.iter().zip(&used) {
        if !used {
            continue;
        }
        w.out.push_str("class ");
        w.out.push_str(&c.name);
        w.out.push_str(": ");
        for (i, p) in c.props.iter().enumerate() {
            if i > 0 {
                w.out.push_str(", ");
            }
            push_name(w.out, p);
        }
        w.out.push('\n');
    }
    if used.iter().any(|u| *u) {
        w.out.push('\n');
    }
    match (opts.root, root) {
        (RootStyle::Implicit, Item::Object(o)) if o.class.is_none() && !o.members.is_empty() => {
            for (key, value) in &o.members {
                let start = w.out.len();
                push_name(w.out, key);
                w.out.push_str(": ");
                let col = w.out.len() - start;
                w.value(value, 0, col);
                w.out.push('\n');
            }
        }
        (RootStyle::Implicit, Item::Value(Value::Object(m))) if !m.is_empty() => {
            for (key, value) in m {
                let start = w.out.len();
                push_name(w.out, key);
                w.out.push_str(": ");
                let col = w.out.len() - start;
                w.value(&Item::Value(value), 0, col);
                w.out.push('\n');
            }
        }
        _ => {
            w.value(root, 0, 0);
            w.out.push('\n');
        }
    }
}

fn collect(item: &Item<'_>, classes: &mut Vec<Class>, index: &mut HashMap<String, usize>) {
    visit(
        item,
        &mut |class, keys| add_instance(classes, index, class, keys),
        true,
    );
}

/// Calls `f` with the class and keys of every object with a class in
/// `item`, in document order. With `spread`, a long lazy array's items are
/// built on several threads, each run reporting only the shapes (class and
/// keys) it sees first: an instance whose shape came before adds nothing
/// (see [`add_instance`]), so the first of each shape, in order, settles
/// the classes exactly as every instance would.
fn visit(item: &Item<'_>, f: &mut dyn FnMut(&str, &[&str]), spread: bool) {
    match item {
        Item::Value(_) | Item::Str(_) => {}
        Item::Array(items) => items.iter().for_each(|i| visit(i, f, spread)),
        Item::Lazy(items) if spread && ace_exec::par::worth_it(items.len()) => {
            ace_exec::par::map_runs(
                items.len(),
                |range| {
                    let mut shapes = Shapes::default();
                    for i in range {
                        items.shapes(i, &mut |class, keys| shapes.record(class, keys));
                    }
                    shapes.first
                },
                |first| {
                    for (class, keys) in &first {
                        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                        f(class, &keys);
                    }
                },
            );
        }
        Item::Lazy(items) => {
            for i in 0..items.len() {
                items.shapes(i, f);
            }
        }
        Item::Object(o) => {
            if let Some(class) = o.class {
                let keys: Vec<&str> = o.members.iter().map(|(k, _)| *k).collect();
                f(class, &keys);
            }
            o.members.iter().for_each(|(_, v)| visit(v, f, spread));
        }
    }
}

/// The shapes of a run of instances, each the first time it is seen.
#[derive(Default)]
struct Shapes {
    /// Looked up, never iterated: the hasher's seed changes nothing.
    seen: std::collections::HashSet<Vec<u8>, foldhash::fast::RandomState>,
    first: Vec<(String, Vec<String>)>,
    /// The class and keys joined, to look a shape up without building it.
    scratch: Vec<u8>,
}

impl Shapes {
    fn record(&mut self, class: &str, keys: &[&str]) {
        self.scratch.clear();
        // Each name after its length: keys may hold any character
        // (`"\u0000"` included), so no separator would do.
        for name in std::iter::once(&class).chain(keys) {
            self.scratch.extend_from_slice(&name.len().to_le_bytes());
            self.scratch.extend_from_slice(name.as_bytes());
        }
        if !self.seen.contains(&self.scratch) {
            self.seen.insert(self.scratch.clone());
            self.first.push((
                class.to_owned(),
                keys.iter().map(|k| (*k).to_owned()).collect(),
            ));
        }
    }
}

/// Adds an instance of `class` with `keys` to the classes. An instance
/// whose keys are all known already changes nothing.
fn add_instance(
    classes: &mut Vec<Class>,
    index: &mut HashMap<String, usize>,
    class: &str,
    keys: &[&str],
) {
    let at = match index.get(class) {
        Some(at) => *at,
        None => {
            classes.push(Class {
                name: class.to_owned(),
                props: Vec::new(),
            });
            index.insert(class.to_owned(), classes.len() - 1);
            classes.len() - 1
        }
    };
    let props = &mut classes[at].props;
    // A property first seen here goes right after the one this instance
    // wrote before it, so each instance's order survives where the
    // instances agree.
    let mut after: Option<usize> = None;
    for key in keys {
        match props.iter().position(|p| p == key) {
            Some(i) => after = Some(i),
            None => {
                let at = after.map_or(0, |i| i + 1);
                props.insert(at, (*key).to_owned());
                after = Some(at);
            }
        }
    }
}

/// Marks the classes some instance is written as, stopping once every
/// class is (the usual case after the first few instances). Lazy arrays
/// are visited last: their items are built to be looked at, and a class
/// used only after a long lazy array (a playbook's metrics after its
/// entries) would otherwise cost a build of every item.
fn mark_used(root: &Item<'_>, w: &Writer<'_, '_, '_>, used: &mut [bool], unused: &mut usize) {
    let mut lazy = Vec::new();
    mark_eager(root, w, used, unused, &mut lazy);
    for items in lazy {
        mark_lazy(items, w, used, unused);
    }
}

fn mark_lazy(items: &dyn Items, w: &Writer<'_, '_, '_>, used: &mut [bool], unused: &mut usize) {
    for i in 0..items.len() {
        if *unused == 0 {
            return;
        }
        items.with(i, &mut |item| {
            // The item is dropped after this call, so the lazy arrays
            // inside it are visited now.
            let mut inner = Vec::new();
            mark_eager(item, w, used, unused, &mut inner);
            for nested in inner {
                mark_lazy(nested, w, used, unused);
            }
        });
    }
}

/// Marks what `item` holds outside its lazy arrays, which go to `lazy`.
fn mark_eager<'i>(
    item: &Item<'i>,
    w: &Writer<'_, '_, '_>,
    used: &mut [bool],
    unused: &mut usize,
    lazy: &mut Vec<&'i dyn Items>,
) {
    if *unused == 0 {
        return;
    }
    match item {
        Item::Value(_) | Item::Str(_) => {}
        Item::Array(items) => items
            .iter()
            .for_each(|i| mark_eager(i, w, used, unused, lazy)),
        Item::Lazy(items) => lazy.push(*items),
        Item::Object(o) => {
            if let Some(c) = w.class_of(o) {
                if !used[c] {
                    used[c] = true;
                    *unused -= 1;
                }
            }
            o.members
                .iter()
                .for_each(|(_, v)| mark_eager(v, w, used, unused, lazy));
        }
    }
}

struct Writer<'a, 'o, 'w> {
    classes: &'a [Class],
    index: &'a HashMap<String, usize>,
    width: usize,
    out: &'o mut Out<'w>,
    scratch: String,
    /// Every instance of a class has all its properties: no `null` stands
    /// for an absent one. Braced TRON is for the official parser, which
    /// reads such a `null` as a null (`metadata: null`, which the ACE
    /// schema rejects), so an object lacking a property is written in
    /// `{}` notation there.
    exact: bool,
}

impl<'w> Blocks<'w> for Writer<'_, '_, 'w> {
    fn out(&mut self) -> &mut Out<'w> {
        self.out
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }
}

impl Writer<'_, '_, '_> {
    /// The class `o` is written as, if it can be: every property of the
    /// class that `o` lacks must read back as absent from `null`.
    fn class_of(&self, o: &Obj<'_>) -> Option<usize> {
        let at = *self.index.get(o.class?)?;
        let c = &self.classes[at];
        if c.props.is_empty() {
            return None;
        }
        let mut cursor = 0;
        let fits = c.props.iter().all(|p| {
            o.arg_from(p, &mut cursor).is_some()
                || (!self.exact && o.null_is_absent.contains(&p.as_str()))
        });
        fits.then_some(at)
    }

    /// Writes `item` at nesting `level`, the line already holding `col`
    /// characters of its own.
    fn value(&mut self, item: &Item<'_>, level: usize, col: usize) {
        let room = self.width.saturating_sub(level * 2 + col);
        // One scratch line for every attempt: each value of every entry is
        // tried flat first.
        let mut flat = std::mem::take(&mut self.scratch);
        flat.clear();
        let fits = self.flat_into(item, &mut flat, room).is_some();
        if fits {
            self.out.push_str(&flat);
        }
        self.scratch = flat;
        if fits {
            return;
        }
        match item {
            Item::Value(Value::Array(a)) => {
                block(self, "[", "]", a.len(), level, |w, i| {
                    w.value(&Item::Value(&a[i]), level + 1, 0)
                });
            }
            Item::Value(Value::Object(m)) => {
                let members: Vec<(&str, &Value)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
                self.braced(members.len(), level, |w, i| {
                    w.member(members[i].0, &Item::Value(members[i].1), level)
                });
            }
            Item::Value(v) => self.scalar(v),
            Item::Str(v) => push_string(self.out, v),
            Item::Array(items) => {
                block(self, "[", "]", items.len(), level, |w, i| {
                    w.value(&items[i], level + 1, 0)
                });
            }
            Item::Lazy(items) => {
                let n = items.len();
                let (classes, index, width, exact) =
                    (self.classes, self.index, self.width, self.exact);
                spread_block(self, "[", "]", n, level, |range, out| {
                    let mut w = Writer {
                        classes,
                        index,
                        width,
                        out,
                        scratch: String::new(),
                        exact,
                    };
                    lines(&mut w, range, n, level, |w, i| {
                        items.with(i, &mut |item| w.value(item, level + 1, 0))
                    });
                });
            }
            Item::Object(o) => match self.class_of(o) {
                Some(c) => {
                    let classes = self.classes;
                    let props = &classes[c].props;
                    self.out.push_str(&classes[c].name);
                    let mut cursor = 0;
                    block(self, "(", ")", props.len(), level, |w, i| {
                        match o.arg_from(&props[i], &mut cursor) {
                            Some(v) => w.value(v, level + 1, 0),
                            None => w.out.push_str("null"),
                        }
                    });
                }
                None => self.braced(o.members.len(), level, |w, i| {
                    let (k, v) = &o.members[i];
                    w.member(k, v, level)
                }),
            },
        }
    }

    /// `"key": value` inside a `{}` object at `level`.
    fn member(&mut self, key: &str, value: &Item<'_>, level: usize) {
        let start = self.out.len();
        push_string(self.out, key);
        self.out.push_str(": ");
        let col = self.out.len() - start;
        self.value(value, level + 1, col);
    }

    /// A `{}` object of `n` members, one a line.
    fn braced(&mut self, n: usize, level: usize, member: impl FnMut(&mut Self, usize)) {
        block(self, "{", "}", n, level, member)
    }

    fn scalar(&mut self, v: &Value) {
        scalar_into(self.out, v);
    }

    /// Appends `item` on one line to `s`; `None` as soon as `s` is longer
    /// than `room`.
    fn flat_into(&self, item: &Item<'_>, s: &mut String, room: usize) -> Option<()> {
        match item {
            Item::Value(Value::Array(a)) => {
                self.flat_list(s, room, '[', ']', a.len(), |w, s, i| {
                    w.flat_into(&Item::Value(&a[i]), s, room)
                })?;
            }
            Item::Value(Value::Object(m)) => {
                let mut members = m.iter();
                self.flat_list(s, room, '{', '}', m.len(), |w, s, _| {
                    let (k, v) = members.next()?;
                    push_string(s, k);
                    s.push_str(": ");
                    w.flat_into(&Item::Value(v), s, room)
                })?;
            }
            Item::Value(Value::String(v)) => return self.flat_into(&Item::Str(v), s, room),
            Item::Value(v) => scalar_into(s, v),
            Item::Str(v) => {
                // Escaping only lengthens a string: one that cannot fit
                // unescaped is not copied first.
                if s.len() + v.len() + 2 > room {
                    return None;
                }
                push_string(s, v);
            }
            Item::Array(items) => {
                self.flat_list(s, room, '[', ']', items.len(), |w, s, i| {
                    w.flat_into(&items[i], s, room)
                })?;
            }
            Item::Lazy(items) => {
                self.flat_list(s, room, '[', ']', items.len(), |w, s, i| {
                    let mut fits = None;
                    items.with(i, &mut |item| fits = w.flat_into(item, s, room));
                    fits
                })?;
            }
            Item::Object(o) => match self.class_of(o) {
                Some(c) => {
                    let class = &self.classes[c];
                    s.push_str(&class.name);
                    let mut cursor = 0;
                    self.flat_list(s, room, '(', ')', class.props.len(), |w, s, i| {
                        match o.arg_from(&class.props[i], &mut cursor) {
                            Some(v) => w.flat_into(v, s, room),
                            None => {
                                s.push_str("null");
                                Some(())
                            }
                        }
                    })?;
                }
                None => {
                    self.flat_list(s, room, '{', '}', o.members.len(), |w, s, i| {
                        let (k, v) = &o.members[i];
                        push_string(s, k);
                        s.push_str(": ");
                        w.flat_into(v, s, room)
                    })?;
                }
            },
        }
        (s.len() <= room).then_some(())
    }

    /// `n` items separated by `, ` between `open` and `close`, each
    /// appended by `item`; `None` when one of them does not fit.
    fn flat_list(
        &self,
        s: &mut String,
        room: usize,
        open: char,
        close: char,
        n: usize,
        mut item: impl FnMut(&Self, &mut String, usize) -> Option<()>,
    ) -> Option<()> {
        s.push(open);
        for i in 0..n {
            if i > 0 {
                s.push_str(", ");
            }
            item(self, s, i)?;
        }
        s.push(close);
        (s.len() <= room).then_some(())
    }
}

impl Obj<'_> {
    /// The value of property `name`, if `self` has it, looked for first at
    /// `cursor`, which is left after it. Asked for its class's properties
    /// in order, an instance whose members come in that order (nearly all
    /// of them) is looked through once, not once per property.
    fn arg_from(&self, name: &str, cursor: &mut usize) -> Option<&Item<'_>> {
        let m = &self.members;
        let at = match m.get(*cursor) {
            Some((k, _)) if *k == name => *cursor,
            _ => m.iter().position(|(k, _)| *k == name)?,
        };
        *cursor = at + 1;
        Some(&m[at].1)
    }
}

/// A string, number, boolean or null as JSON (and TRON) writes it, without
/// a temporary string per value.
fn scalar_into(out: &mut impl std::fmt::Write, v: &Value) {
    match v {
        Value::String(s) => push_string(out, s),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Bool(true) => {
            let _ = out.write_str("true");
        }
        Value::Bool(false) => {
            let _ = out.write_str("false");
        }
        Value::Array(_) | Value::Object(_) => {
            let _ = out.write_str(&v.to_string());
        }
        Value::Null => {
            let _ = out.write_str("null");
        }
    }
}
