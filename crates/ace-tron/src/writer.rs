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

use ace_model::Out;

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
    Array(Vec<Item<'a>>),
    Object(Obj<'a>),
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

struct Class<'a> {
    name: &'a str,
    props: Vec<&'a str>,
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
    // serde_json escapes exactly what JSON (and so TRON) requires.
    let _ = out.write_str(&serde_json::to_string(s).expect("a string always serialises"));
}

/// TRON text for `root`.
pub fn write(root: &Item<'_>, opts: &WriteOptions) -> String {
    let mut out = Out::new();
    write_into(root, opts, &mut out);
    out.into_string()
}

/// [`write`] into `out`, which may send the text on as it is printed.
pub fn write_into(root: &Item<'_>, opts: &WriteOptions, out: &mut Out<'_>) {
    let mut classes: Vec<Class<'_>> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    collect(root, &mut classes, &mut index);
    let mut w = Writer {
        classes: &classes,
        index: &index,
        width: opts.width.max(20),
        out,
    };
    let mut used: Vec<bool> = vec![false; classes.len()];
    mark_used(root, &w, &mut used);
    for (c, used) in classes.iter().zip(&used) {
        if !used {
            continue;
        }
        w.out.push_str("class ");
        w.out.push_str(c.name);
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

fn collect<'a>(item: &Item<'a>, classes: &mut Vec<Class<'a>>, index: &mut HashMap<&'a str, usize>) {
    match item {
        Item::Value(_) => {}
        Item::Array(items) => items.iter().for_each(|i| collect(i, classes, index)),
        Item::Object(o) => {
            if let Some(name) = o.class {
                let at = *index.entry(name).or_insert_with(|| {
                    classes.push(Class {
                        name,
                        props: Vec::new(),
                    });
                    classes.len() - 1
                });
                let props = &mut classes[at].props;
                // A property first seen here goes right after the one this
                // instance wrote before it, so each instance's order survives
                // where the instances agree.
                let mut after: Option<usize> = None;
                for (key, _) in &o.members {
                    match props.iter().position(|p| p == key) {
                        Some(i) => after = Some(i),
                        None => {
                            let at = after.map_or(0, |i| i + 1);
                            props.insert(at, key);
                            after = Some(at);
                        }
                    }
                }
            }
            o.members
                .iter()
                .for_each(|(_, v)| collect(v, classes, index));
        }
    }
}

fn mark_used(item: &Item<'_>, w: &Writer<'_, '_, '_>, used: &mut [bool]) {
    match item {
        Item::Value(_) => {}
        Item::Array(items) => items.iter().for_each(|i| mark_used(i, w, used)),
        Item::Object(o) => {
            if let Some(c) = w.class_of(o) {
                used[c] = true;
            }
            o.members.iter().for_each(|(_, v)| mark_used(v, w, used));
        }
    }
}

struct Writer<'a, 'o, 'w> {
    classes: &'a [Class<'a>],
    index: &'a HashMap<&'a str, usize>,
    width: usize,
    out: &'o mut Out<'w>,
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
        let fits = c
            .props
            .iter()
            .all(|p| o.members.iter().any(|(k, _)| k == p) || o.null_is_absent.contains(p));
        fits.then_some(at)
    }

    /// Writes `item` at nesting `level`, the line already holding `col`
    /// characters of its own.
    fn value(&mut self, item: &Item<'_>, level: usize, col: usize) {
        let room = self.width.saturating_sub(level * 2 + col);
        if let Some(flat) = self.flat(item, room) {
            self.out.push_str(&flat);
            return;
        }
        match item {
            Item::Value(Value::Array(a)) => {
                let items: Vec<Item<'_>> = a.iter().map(Item::Value).collect();
                self.block("[", "]", &items, level);
            }
            Item::Value(Value::Object(m)) => {
                self.out.push_str("{\n");
                for (i, (k, v)) in m.iter().enumerate() {
                    self.indent(level + 1);
                    let start = self.out.len();
                    push_string(self.out, k);
                    self.out.push_str(": ");
                    let col = self.out.len() - start;
                    self.value(&Item::Value(v), level + 1, col);
                    if i + 1 < m.len() {
                        self.out.push(',');
                    }
                    self.out.push('\n');
                }
                self.indent(level);
                self.out.push('}');
            }
            Item::Value(v) => self.scalar(v),
            Item::Array(items) => self.block("[", "]", items, level),
            Item::Object(o) => match self.class_of(o) {
                Some(c) => {
                    let args = self.args(o, c);
                    let name = self.classes[c].name;
                    self.out.push_str(name);
                    self.block_args(&args, level);
                }
                None => {
                    self.out.push_str("{\n");
                    for (i, (k, v)) in o.members.iter().enumerate() {
                        self.indent(level + 1);
                        let start = self.out.len();
                        push_string(self.out, k);
                        self.out.push_str(": ");
                        let col = self.out.len() - start;
                        self.value(v, level + 1, col);
                        if i + 1 < o.members.len() {
                            self.out.push(',');
                        }
                        self.out.push('\n');
                    }
                    self.indent(level);
                    self.out.push('}');
                }
            },
        }
    }

    /// The arguments of `o` in class `c`'s order, `None` for `null`.
    fn args<'b>(&self, o: &'b Obj<'b>, c: usize) -> Vec<Option<&'b Item<'b>>> {
        self.classes[c]
            .props
            .iter()
            .map(|p| o.members.iter().find(|(k, _)| k == p).map(|(_, v)| v))
            .collect()
    }

    fn block_args(&mut self, args: &[Option<&Item<'_>>], level: usize) {
        self.out.push_str("(\n");
        for (i, a) in args.iter().enumerate() {
            self.indent(level + 1);
            match a {
                Some(v) => self.value(v, level + 1, 0),
                None => self.out.push_str("null"),
            }
            if i + 1 < args.len() {
                self.out.push(',');
            }
            self.out.push('\n');
        }
        self.indent(level);
        self.out.push(')');
    }

    fn block(&mut self, open: &str, close: &str, items: &[Item<'_>], level: usize) {
        if items.is_empty() {
            self.out.push_str(open);
            self.out.push_str(close);
            return;
        }
        self.out.push_str(open);
        self.out.push('\n');
        for (i, v) in items.iter().enumerate() {
            self.indent(level + 1);
            self.value(v, level + 1, 0);
            if i + 1 < items.len() {
                self.out.push(',');
            }
            self.out.push('\n');
        }
        self.indent(level);
        self.out.push_str(close);
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str("  ");
        }
    }

    fn scalar(&mut self, v: &Value) {
        match v {
            Value::String(s) => push_string(self.out, s),
            other => self.out.push_str(&other.to_string()),
        }
    }

    /// `item` on one line if it fits in `room` columns.
    fn flat(&self, item: &Item<'_>, room: usize) -> Option<String> {
        let mut s = String::new();
        self.flat_into(item, &mut s, room)?;
        Some(s)
    }

    fn flat_into(&self, item: &Item<'_>, s: &mut String, room: usize) -> Option<()> {
        let check = |s: &String| (s.len() <= room).then_some(());
        match item {
            Item::Value(Value::Array(a)) => {
                s.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    self.flat_into(&Item::Value(v), s, room)?;
                }
                s.push(']');
            }
            Item::Value(Value::Object(m)) => {
                s.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    push_string(s, k);
                    s.push_str(": ");
                    self.flat_into(&Item::Value(v), s, room)?;
                }
                s.push('}');
            }
            Item::Value(Value::String(v)) => push_string(s, v),
            Item::Value(v) => s.push_str(&v.to_string()),
            Item::Array(items) => {
                s.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    self.flat_into(v, s, room)?;
                }
                s.push(']');
            }
            Item::Object(o) => match self.class_of(o) {
                Some(c) => {
                    s.push_str(self.classes[c].name);
                    s.push('(');
                    for (i, a) in self.args(o, c).into_iter().enumerate() {
                        if i > 0 {
                            s.push_str(", ");
                        }
                        match a {
                            Some(v) => self.flat_into(v, s, room)?,
                            None => s.push_str("null"),
                        }
                    }
                    s.push(')');
                }
                None => {
                    s.push('{');
                    for (i, (k, v)) in o.members.iter().enumerate() {
                        if i > 0 {
                            s.push_str(", ");
                        }
                        push_string(s, k);
                        s.push_str(": ");
                        self.flat_into(v, s, room)?;
                    }
                    s.push('}');
                }
            },
        }
        check(s)
    }
}
