//! vAgenda JSON or TRON into the model, with the schema and invariant
//! checks of the vAgenda ACE extension.

use std::collections::{HashMap, HashSet};

use ace_jsonspan::split::{parse_apart, Apart, Container, Split};
use ace_jsonspan::{ItemSink, Kind, Node};
use ace_model::mapping::{self, SectionMap};
use ace_model::{rules, Diagnostic, Playbook, ReadOutput, Section, Span};
use ace_schema::vagenda::{self as schema, VagendaSchema, Version};
use serde_json::{Map, Value};

use crate::types::{drop_absent_nulls, has_absent_nulls, Ty};
use crate::{entry, events, plain, Syntax, ACE_TOOLS_KEY, LAYOUT_KEY};

/// What a vAgenda file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocKind {
    /// A document: its info key, version and container key (`todoList`,
    /// `plan` or `playbook`).
    Document {
        info_key: String,
        version: Version,
        container: String,
    },
    /// A standalone PlaybookPatch (or the first draft's AcePatch).
    Patch,
    /// One PlaybookPatchOp.
    PatchOp,
    /// A playbook object on its own (a type-guide fragment).
    Playbook,
    /// One ACE entry on its own.
    Entry,
    /// One event (or operation) of the Playbooks extension on its own:
    /// `eventId`, `targetId` and `operation`.
    Event,
}

impl DocKind {
    pub fn describe(&self) -> &'static str {
        match self {
            DocKind::Document { .. } => "vAgenda document",
            DocKind::Patch => "PlaybookPatch",
            DocKind::PatchOp => "PlaybookPatchOp",
            DocKind::Playbook => "playbook fragment",
            DocKind::Entry => "playbook entry fragment",
            DocKind::Event => "Playbooks extension event",
        }
    }
}

pub(crate) fn parse(text: &str, syntax: Syntax) -> Result<ace_jsonspan::Document, Diagnostic> {
    match syntax {
        Syntax::Json => ace_jsonspan::parse(text),
        Syntax::Tron => ace_tron::parse(text, &TRON_OPTIONS),
    }
}

/// A playbook of a million entries is a few hundred megabytes; the TRON
/// parser's default (vAgenda's Go API: 10 MiB) is for untrusted network
/// input, not for files a user points us at.
const TRON_OPTIONS: ace_tron::Options = ace_tron::Options {
    max_size: 1 << 30,
    lenient: false,
    max_depth: 512,
};

/// Where a playbook's entries may stand, parsed apart when the file is
/// large.
const ENTRY_ARRAYS: Split = Split {
    arrays: &[
        &["entries"],
        &["playbook", "entries"],
        &["*", "playbook", "entries"],
    ],
    members: &[],
};

/// The ACE entries of a playbook, each read on its own (on every core)
/// from the tree's `entries` array, which they were taken out of.
#[derive(Default)]
struct Entries {
    entries: Vec<ace_model::Entry>,
    derive_from: Vec<Option<String>>,
    diags: Vec<Diagnostic>,
    /// The key order of the first entry, which the writer follows.
    first_keys: Option<Vec<String>>,
}

impl Entries {
    /// The entries of `items`, the array at JSON pointer `base`; `None`
    /// if one is an event or does not parse.
    fn read(text: &str, syntax: Syntax, base: &str, items: &mut Container) -> Option<Entries> {
        let runs = items.read(text, |i, node| read_item(syntax, base, i, node))?;
        let mut out = Entries {
            entries: Vec::with_capacity(items.items.len()),
            derive_from: Vec::with_capacity(items.items.len()),
            ..Entries::default()
        };
        for read in runs.into_iter().flatten() {
            if read.event {
                return None;
            }
            out.diags.extend(read.diags);
            if out.first_keys.is_none() {
                out.first_keys = read.keys;
            }
            if let Some((entry, derive_from)) = read.entry {
                out.entries.push(entry);
                out.derive_from.push(derive_from);
            }
        }
        Some(out)
    }
}

/// What reading one item gives.
#[derive(Default)]
struct ItemRead {
    diags: Vec<Diagnostic>,
    /// It is an event of the Playbooks extension, not an entry.
    event: bool,
    entry: Option<(ace_model::Entry, Option<String>)>,
    /// The keys of the array's first item, in file order.
    keys: Option<Vec<String>>,
}

/// Reads item `index` of the entries array at JSON pointer `base`; what
/// an entry keeps may be taken out of `node`.
fn read_item(syntax: Syntax, base: &str, index: usize, node: &mut Node) -> ItemRead {
    let mut read = ItemRead::default();
    if node.get("eventId").is_some() {
        read.event = true;
        return read;
    }
    if index == 0 {
        read.keys = member_keys(node);
    }
    if syntax == Syntax::Json {
        ace_jsonspan::duplicate_keys(node, &mut read.diags);
    }
    if read.diags.is_empty() {
        if let Some(entry) = plain::read(node, syntax == Syntax::Tron) {
            read.entry = Some(entry);
            return read;
        }
    }
    read_item_checked(syntax, base, index, node, read)
}

/// An object's keys in file order.
fn member_keys(node: &Node) -> Option<Vec<String>> {
    Some(node.members()?.iter().map(|m| m.key.to_string()).collect())
}

/// [`read_item`] through a `Value` checked with jsonschema: for entries
/// that are not plainly valid, whose findings it words.
fn read_item_checked(
    syntax: Syntax,
    base: &str,
    index: usize,
    node: &Node,
    mut read: ItemRead,
) -> ItemRead {
    let mut value = node.to_value();
    // As for the whole document in `read`: TRON's nulls are absent
    // fields before the check, JSON's only for the model.
    if syntax == Syntax::Tron {
        drop_absent_nulls(&mut value, Ty::PlaybookEntry);
    }
    let errors = schema::validate(VagendaSchema::AceEntry, Version::V02, &value);
    if !errors.is_empty() {
        // Named as the whole playbook's check names them, which is what
        // this is, one entry at a time.
        read.diags.extend(ace_schema::diagnostics(
            &errors,
            node,
            &rules::ACE_SCHEMA,
            &format!("{base}/{index}"),
            &schema::schema_name(VagendaSchema::AcePlaybook, Version::V02),
        ));
    }
    // One entry is dropped in place: no copy to avoid, unlike the
    // whole document's.
    if syntax == Syntax::Json {
        drop_absent_nulls(&mut value, Ty::PlaybookEntry);
    }
    match value {
        Value::Object(m) => {
            let derive_from = entry::kind_for_derivation(&m).map(str::to_owned);
            read.entry = Some((entry::read(m, Some(entry::span_of(node))), derive_from));
        }
        _ => read
            .diags
            .push(not_an_entry(index, node.span, node.type_name())),
    }
    read
}

fn not_an_entry(index: usize, span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(
        &rules::ACE_SCHEMA,
        span,
        format!(
            "entry #{} is {what}, expected an object; it is not read",
            index + 1,
        ),
    )
}

const NOT_AN_OBJECT: &str =
    "expected an object (a vAgenda document, a PlaybookPatch or a playbook)";

/// What `value` is, or why it is none of the shapes ace-tools reads.
fn classify(value: &Value) -> Result<DocKind, String> {
    let Value::Object(m) = value else {
        return Err(NOT_AN_OBJECT.into());
    };
    if m.contains_key("vBRIEFInfo") {
        return Err("this is a vBRIEF 0.5 document (`vBRIEFInfo`); ace-tools reads vAgenda 0.2/0.3 and vContext 0.4, and vBRIEF has no playbook".into());
    }
    let info_key = ["vAgendaInfo", "vContextInfo"]
        .into_iter()
        .find(|k| m.contains_key(*k));
    if let Some(info_key) = info_key {
        let raw = m[info_key].get("version").and_then(Value::as_str);
        let version = match raw.and_then(Version::parse) {
            Some(v) => v,
            None => {
                return Err(format!(
                    "`{info_key}.version` is {}; expected \"0.2\", \"0.3\" or \"0.4\"",
                    raw.map_or("missing".to_owned(), |r| format!("{r:?}"))
                ))
            }
        };
        let containers: Vec<&str> = ["todoList", "plan", "playbook"]
            .into_iter()
            .filter(|k| m.contains_key(*k))
            .collect();
        return match containers.as_slice() {
            [one] => Ok(DocKind::Document {
                info_key: info_key.to_owned(),
                version,
                container: (*one).to_owned(),
            }),
            [] => Err("the document has no `todoList`, `plan` or `playbook`".into()),
            many => Err(format!(
                "the document has {} containers ({}); a vAgenda document has exactly one",
                many.len(),
                many.join(", ")
            )),
        };
    }
    // Only the Playbooks extension's events have these three keys (the
    // outline a sniff reads has the keys, not their values).
    if ["eventId", "targetId", "operation"]
        .iter()
        .all(|k| m.contains_key(*k))
    {
        Ok(DocKind::Event)
    } else if m.contains_key("operations") {
        Ok(DocKind::Patch)
    } else if m.contains_key("op") {
        Ok(DocKind::PatchOp)
    } else if m.contains_key("entries")
        || (m.contains_key("items") && (m.contains_key("version") || m.contains_key("created")))
    {
        Ok(DocKind::Playbook)
    } else if m.contains_key("id") && m.contains_key("text") {
        Ok(DocKind::Entry)
    } else {
        Err("expected `vAgendaInfo` or `vContextInfo` (a document), `operations` (a PlaybookPatch) or `entries` (a playbook)".into())
    }
}

/// Takes every array it is offered and keeps nothing of it.
struct Outline;

impl ace_jsonspan::ItemSink for Outline {
    fn wants(&mut self, _: &[&str]) -> bool {
        true
    }
    fn item(&mut self, _: usize, _: Node) {}
}

pub(crate) fn classify_value(value: &Value) -> Option<DocKind> {
    classify(value).ok()
}

/// What the file holds, without reading it into the model; `None` when it
/// does not parse or is no vAgenda shape.
pub fn kind_of(text: &str, syntax: Syntax) -> Option<DocKind> {
    let top = match syntax {
        // The top-level keys, with the `…Info` objects whole; the values
        // below them are skipped unparsed.
        Syntax::Json => ace_format::top::top_level(text, |k| k.ends_with("Info"))?,
        // Only the outline is looked at: the items of every array the
        // parser offers (the entries among them) are dropped as they come.
        Syntax::Tron => ace_tron::parse_with(text, &TRON_OPTIONS, &mut Outline)
            .ok()?
            .root
            .to_value_within(2),
    };
    classify(&top).ok()
}

/// The JSON Pointer segments of the playbook in a document of `kind`.
fn playbook_path(kind: &DocKind) -> Option<Vec<String>> {
    match kind {
        DocKind::Document { container, .. } if container == "playbook" => {
            Some(vec!["playbook".into()])
        }
        DocKind::Document { container, .. } => Some(vec![container.clone(), "playbook".into()]),
        DocKind::Playbook => Some(Vec::new()),
        _ => None,
    }
}

fn get_path<'a>(v: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k.as_str()))
}

fn get_path_mut<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| v.get_mut(k.as_str()))
}

fn pointer(path: &[String]) -> String {
    path.iter().map(|s| format!("/{s}")).collect()
}

fn node_at<'a>(root: &'a Node, path: &[String]) -> &'a Node {
    root.locate(path).node
}

/// The three playbook shapes (notes §3.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Ace,
    /// Events in `entries` (v0.2) or `items` (v0.3+); the key is given.
    Events(&'static str),
    /// A shape that holds no ACE entries; the message says which.
    Other(&'static str),
}

pub(crate) fn shape(playbook: &Value) -> Shape {
    match playbook {
        Value::Object(p) => shape_of(p),
        _ => Shape::Ace,
    }
}

/// [`shape`] of a playbook object.
pub(crate) fn shape_of(playbook: &Map<String, Value>) -> Shape {
    if playbook.get("strategies").is_some() && playbook.get("entries").is_none() {
        return Shape::Other("this playbook has `strategies` and `learnings`: the pre-ACE draft of the initial vAgenda 0.2 README, superseded a day later");
    }
    for key in ["entries", "items"] {
        if let Some(Value::Array(items)) = playbook.get(key) {
            if items.iter().any(|i| i.get("eventId").is_some()) {
                return Shape::Events(if key == "entries" { "entries" } else { "items" });
            }
            if key == "items" && !items.is_empty() {
                return Shape::Other("this playbook's `items` are not events (no `eventId`): the short-lived vContext 0.4 \"minimal playbook\" of commit 6968d2e, replaced the same day by the event log");
            }
            if key == "items" {
                return Shape::Events("items");
            }
        }
    }
    Shape::Ace
}

/// An event's content as an ACE entry would hold it: vContext 0.4 writes a
/// `narrative` map where 0.2/0.3 write `text`.
pub(crate) fn as_ace_entry(mut m: Map<String, Value>) -> Map<String, Value> {
    if m.contains_key("text") {
        return m;
    }
    if let Some(Value::Object(n)) = m.get("narrative") {
        let parts: Vec<&str> = n.values().filter_map(Value::as_str).collect();
        let text = parts.join("\n\n");
        let simple = n.len() == 1 && n.keys().next().is_some_and(|k| k == "Overview");
        if simple {
            m.shift_remove("narrative");
        }
        m.insert("text".into(), Value::String(text));
    }
    m
}

/// Reads a vAgenda document (or patch, or fragment) in `syntax`. Only text
/// that does not parse is an error; every other problem is a diagnostic.
pub fn read(text: &str, syntax: Syntax) -> Result<ReadOutput, Diagnostic> {
    read_classified(text, syntax).map(|(out, _)| out)
}

/// [`read`], and what [`kind_of`] says of the text, from the same parse:
/// a caller that turns patches away need not parse the file twice.
pub fn read_classified(
    text: &str,
    syntax: Syntax,
) -> Result<(ReadOutput, Option<DocKind>), Diagnostic> {
    read_mapped(text, syntax, &mapping::BUILT_IN)
}

/// [`read_classified`] with entries' sections derived from their kinds by
/// `sections`' rows.
pub fn read_mapped(
    text: &str,
    syntax: Syntax,
    sections: &SectionMap,
) -> Result<(ReadOutput, Option<DocKind>), Diagnostic> {
    let parse = |sink: Option<&mut dyn ItemSink>| match (syntax, sink) {
        (Syntax::Json, Some(sink)) => ace_jsonspan::parse_with(text, sink),
        (Syntax::Tron, Some(sink)) => ace_tron::parse_with(text, &TRON_OPTIONS, sink),
        (syntax, None) => parse(text, syntax),
    };
    let mut apart = parse_apart(ENTRY_ARRAYS, parse)?;
    // `classify` looks at the top-level keys and the `…Info` objects.
    let kind = classify(&apart.doc.root.to_value_within(2)).ok();
    let path = kind.as_ref().and_then(playbook_path);
    // The playbook's entries are read on their own, one by one; any other
    // array taken is put back in the tree, which the rest is read from.
    let entries = path.as_deref().and_then(|path| {
        let at: Vec<&str> = path.iter().map(String::as_str).chain(["entries"]).collect();
        apart.take(&at)
    });
    let read = apart
        .whole(text)
        .and_then(|doc| read_parsed(text, syntax, sections, doc, entries, path.as_deref()));
    match read {
        Some(out) => Ok((with_style(out, text, syntax), kind)),
        None => whole(text, syntax, sections, false),
    }
}

/// [`read_mapped`] from a parse in one piece, with the playbook's entries
/// taken out of the tree and read on their own if `take`: what reads an
/// event log (`take` false), and a document that does not parse (its
/// error is the first in the text).
fn whole(
    text: &str,
    syntax: Syntax,
    sections: &SectionMap,
    take: bool,
) -> Result<(ReadOutput, Option<DocKind>), Diagnostic> {
    let mut doc = parse(text, syntax)?;
    let kind = classify(&doc.root.to_value_within(2)).ok();
    let path = kind.as_ref().and_then(playbook_path);
    let entries = match (take, path.as_deref()) {
        (true, Some(path)) => take_entries(&mut doc, path),
        _ => None,
    };
    match read_parsed(text, syntax, sections, doc, entries, path.as_deref()) {
        Some(out) => Ok((with_style(out, text, syntax), kind)),
        None => whole(text, syntax, sections, false),
    }
}

/// The read of a parsed document whose playbook (at `path`) has its
/// `entries` apart. `None` if one of them is an event, or does not parse.
fn read_parsed(
    text: &str,
    syntax: Syntax,
    sections: &SectionMap,
    doc: ace_jsonspan::Document,
    entries: Option<Container>,
    path: Option<&[String]>,
) -> Option<ReadOutput> {
    let tree = Tree::new(doc, syntax);
    let ace = path.is_some_and(|path| {
        let value = tree.copy.as_ref().unwrap_or(&tree.raw);
        get_path(value, path).is_some_and(|p| shape(p) == Shape::Ace)
    });
    Some(match (entries, ace) {
        (Some(mut entries), true) => {
            let base = format!("{}/entries", pointer(path.unwrap_or_default()));
            let entries = Entries::read(text, syntax, &base, &mut entries)?;
            read_tree(tree, Some(entries), sections)
        }
        (Some(entries), false) => {
            // No ACE playbook holds them (an event log, another shape).
            let apart = Apart {
                doc: tree.doc,
                taken: vec![entries],
            };
            read_tree(Tree::new(apart.whole(text)?, syntax), None, sections)
        }
        (None, _) => read_tree(tree, None, sections),
    })
}

/// The `entries` of the playbook at `path`, taken out of a whole tree with
/// the duplicate keys the parse found inside them (their reader reports
/// those).
fn take_entries(doc: &mut ace_jsonspan::Document, path: &[String]) -> Option<Container> {
    let mut node = &mut doc.root;
    for key in path.iter().map(String::as_str).chain(["entries"]) {
        let Kind::Object(members) = &mut node.kind else {
            return None;
        };
        node = &mut members.iter_mut().rev().find(|m| m.key == key)?.value;
    }
    let span = node.span;
    let Kind::Array(items) = &mut node.kind else {
        return None;
    };
    let items = std::mem::take(items);
    doc.diagnostics.retain(|d| {
        d.code != rules::DUPLICATE_KEY.code || d.span.start < span.start || d.span.end > span.end
    });
    let mut at: Vec<String> = path.to_vec();
    at.push("entries".into());
    Some(Container::of_nodes(at, items))
}

/// Keeps in the layout how a JSON file is printed, where it differs from
/// the spec's style, for the writer to print a rewrite the same way.
fn with_style(mut out: ReadOutput, text: &str, syntax: Syntax) -> ReadOutput {
    if syntax != Syntax::Json {
        return out;
    }
    let Some(style) = print_style(text) else {
        return out;
    };
    if let Some(Value::Object(mut layout)) = out.playbook.layout_of(LAYOUT_KEY).cloned() {
        layout.insert("style".into(), style);
        out.playbook.set_layout(LAYOUT_KEY, Value::Object(layout));
    }
    out
}

/// The indentation of a JSON text's first nested line and whether its
/// first array of plain values stands on one line, as a layout `style`;
/// `None` when both are the spec's (two spaces, one line) or cannot be
/// told. Only the text's first megabyte is looked at: a file is printed
/// one way throughout.
fn print_style(text: &str) -> Option<Value> {
    let bytes = &text.as_bytes()[..text.len().min(1 << 20)];
    let mut indent: Option<u64> = None;
    let mut inline: Option<bool> = None;
    let (mut in_string, mut escaped) = (false, false);
    let mut i = 0;
    while i < bytes.len() && (indent.is_none() || inline.is_none()) {
        let b = bytes[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'\n' && indent.is_none() {
            let ws = bytes[i + 1..]
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t'))
                .count();
            if ws > 0 {
                indent = Some(if bytes[i + 1] == b'\t' { 0 } else { ws as u64 });
            }
        } else if b == b'[' && inline.is_none() {
            let rest = &bytes[i + 1..];
            let ws = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
            // An array of plain values: its first item is not a container.
            if rest
                .get(ws)
                .is_some_and(|c| !matches!(c, b'[' | b'{' | b']'))
            {
                inline = Some(!rest[..ws].contains(&b'\n'));
            }
        }
        i += 1;
    }
    let indent = indent.filter(|n| *n != 2);
    let multi_line = inline.filter(|inline| !inline);
    // Nothing beyond ASCII, and escapes: what json.dump's ensure_ascii
    // writes. (Escapes of ASCII alone would say nothing; they are rare.)
    let ascii_only = bytes.is_ascii() && bytes.windows(2).any(|w| w == b"\\u");
    if indent.is_none() && multi_line.is_none() && !ascii_only {
        return None;
    }
    let mut m = Map::new();
    if let Some(n) = indent {
        m.insert("indent".into(), Value::from(n));
    }
    if multi_line.is_some() {
        m.insert("inlineArrays".into(), Value::Bool(false));
    }
    if ascii_only {
        m.insert("asciiOnly".into(), Value::Bool(true));
    }
    Some(Value::Object(m))
}

/// A parsed document made ready to read: its value, what it is, and the
/// copy the model is read from.
struct Tree {
    doc: ace_jsonspan::Document,
    /// The document as a value, with TRON's absent nulls dropped: what the
    /// schemas check.
    raw: Value,
    /// JSON's value without its absent nulls, when it has any: what the
    /// model is read from.
    copy: Option<Value>,
    kind: Result<DocKind, String>,
}

impl Tree {
    fn new(doc: ace_jsonspan::Document, syntax: Syntax) -> Tree {
        let mut raw = doc.root.to_value();
        let kind = classify(&raw);
        let mut copy = None;
        if let Ok(kind) = &kind {
            let root_ty = match kind {
                DocKind::Document { .. } => Ty::Root,
                DocKind::Patch => Ty::PlaybookPatch,
                DocKind::PatchOp => Ty::PlaybookPatchOp,
                DocKind::Playbook => Ty::Playbook,
                DocKind::Entry => Ty::PlaybookEntry,
                DocKind::Event => Ty::PlaybookItem,
            };
            // TRON has no way to leave a class property out, so its nulls
            // are checked as absent; in JSON a null is what the author
            // wrote, and the model is read from a copy without them only if
            // there are any (the copy of a large playbook is most of the
            // read's memory).
            match syntax {
                Syntax::Json if has_absent_nulls(&raw, root_ty) => {
                    let mut v = raw.clone();
                    drop_absent_nulls(&mut v, root_ty);
                    copy = Some(v);
                }
                Syntax::Json => {}
                Syntax::Tron => drop_absent_nulls(&mut raw, root_ty),
            }
        }
        Tree {
            doc,
            raw,
            copy,
            kind,
        }
    }
}

/// [`read`] of a parsed document, with the playbook's ACE entries read on
/// their own when they were taken out of the tree.
fn read_tree(tree: Tree, taken: Option<Entries>, sections: &SectionMap) -> ReadOutput {
    let Tree {
        doc,
        raw,
        copy,
        kind,
    } = tree;
    let mut diags = doc.diagnostics;
    let root = &doc.root;
    let kind = match kind {
        Ok(k) => k,
        Err(msg) => {
            let msg = if root.members().is_none() {
                format!("{msg}, found {}", root.type_name())
            } else {
                msg
            };
            diags.push(Diagnostic::new(&rules::VAGENDA_DIALECT, root.span, msg));
            return ReadOutput {
                playbook: Playbook::default(),
                diagnostics: diags,
            };
        }
    };
    let checked = &raw;
    let value = copy.as_ref().unwrap_or(&raw);
    let version = match &kind {
        DocKind::Document { version, .. } => *version,
        // An event names no release: it is checked by the release whose
        // schema finds the fewest faults in it, the newest among equals.
        DocKind::Event => [Version::V04, Version::V03, Version::V02]
            .into_iter()
            .min_by_key(|v| schema::validate(VagendaSchema::EventItem, *v, checked).len())
            .unwrap_or(Version::V04),
        _ => Version::V02,
    };
    let mut check = |schema: VagendaSchema, path: &[String], rule: &rules::Rule| {
        let Some(v) = get_path(checked, path) else {
            return;
        };
        let errors = schema::validate(schema, version, v);
        diags.extend(ace_schema::diagnostics(
            &errors,
            node_at(root, path),
            rule,
            &pointer(path),
            &schema::schema_name(schema, version),
        ));
    };
    match &kind {
        DocKind::Document { .. } => check(VagendaSchema::Document, &[], &rules::VAGENDA_SCHEMA),
        DocKind::Patch => check(VagendaSchema::AcePatch, &[], &rules::ACE_SCHEMA),
        DocKind::PatchOp => check(VagendaSchema::AcePatchOp, &[], &rules::ACE_SCHEMA),
        DocKind::Entry => check(VagendaSchema::AceEntry, &[], &rules::ACE_SCHEMA),
        DocKind::Event => check(VagendaSchema::EventItem, &[], &rules::ACE_SCHEMA),
        DocKind::Playbook => {}
    }
    let mut pb = Playbook::default();
    let Some(path) = playbook_path(&kind) else {
        return ReadOutput {
            playbook: pb,
            diagnostics: diags,
        };
    };
    let container = path.first().filter(|_| path.len() == 2).cloned();
    // Borrowed, not copied: a playbook of a million entries is most of the
    // document.
    let Some(playbook_value) = get_path(value, &path) else {
        // A todo list or plan without a playbook is valid vAgenda; it
        // simply holds no advice.
        read_container(value, container.as_deref(), &mut pb);
        let mut skeleton = copy.unwrap_or(raw);
        drop_layout_fields(&mut skeleton, container.as_deref());
        pb.set_layout(LAYOUT_KEY, layout(skeleton, None, None));
        return ReadOutput {
            playbook: pb,
            diagnostics: diags,
        };
    };
    let shape = shape(playbook_value);
    match shape {
        Shape::Ace => check(VagendaSchema::AcePlaybook, &path, &rules::ACE_SCHEMA),
        Shape::Events(_) => check(VagendaSchema::EventPlaybook, &path, &rules::ACE_SCHEMA),
        Shape::Other(what) => {
            diags.push(Diagnostic::new(
                &rules::VAGENDA_DIALECT,
                node_at(root, &path).span,
                format!("{what}; the document is kept as it is but has no entries to read"),
            ));
        }
    }
    let pb_node = node_at(root, &path);
    let mut metrics_basis = None;
    let mut entry_keys = None;
    let mut derive_from: Vec<Option<String>> = Vec::new();
    match (shape, taken) {
        (Shape::Ace, taken) => {
            // No array of entries, or not one: none to read.
            let taken = taken.unwrap_or_default();
            entry_keys = taken.first_keys;
            diags.extend(taken.diags);
            pb.entries = taken.entries;
            derive_from = taken.derive_from;
            check_invariants(playbook_value, pb_node, &pb, &mut diags);
            metrics_basis = Some(crate::metrics::metrics_basis(&pb.entries));
        }
        (Shape::Events(key), _) => {
            let items = playbook_value
                .get(key)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let nodes = pb_node.get(key).and_then(Node::as_array).unwrap_or(&[]);
            let span_of = |i: usize| nodes.get(i).map_or(pb_node.span, |n| n.span);
            let (view, problems) = events::view(items);
            for p in problems {
                diags.push(Diagnostic::new(
                    &rules::EVENT_LOG_BROKEN,
                    span_of(p.index),
                    p.message,
                ));
            }
            pb.entries.reserve_exact(view.len());
            for v in &view {
                let m = as_ace_entry(v.entry.clone());
                derive_from.push(entry::kind_for_derivation(&m).map(str::to_owned));
                let at = nodes.get(v.first).map_or(pb_node.span, entry::span_of);
                pb.entries.push(entry::read(m, Some(at)));
            }
            diags.push(Diagnostic::new(
                &rules::EVENT_LOG,
                pb_node.get(key).map_or(pb_node.span, |n| n.span),
                format!(
                    "playbook is an append-only event log: {} events read as the current view of {} entries",
                    items.len(),
                    view.len()
                ),
            ));
            check_invariants(playbook_value, pb_node, &pb, &mut diags);
        }
        (Shape::Other(_), _) => {}
    }
    read_playbook_fields(playbook_value, &mut pb);
    read_container(value, container.as_deref(), &mut pb);
    derive_sections(&mut pb, &derive_from, sections);
    let mut skeleton = copy.unwrap_or(raw);
    if let (Shape::Ace, Some(Value::Object(p))) = (shape, get_path_mut(&mut skeleton, &path)) {
        p.insert("entries".into(), Value::Array(Vec::new()));
        p.shift_remove(ACE_TOOLS_KEY);
    }
    drop_layout_fields(&mut skeleton, container.as_deref());
    let holds = around(&skeleton, container.as_deref(), &path);
    pb.set_layout_holding(
        LAYOUT_KEY,
        layout(skeleton, metrics_basis, entry_keys),
        holds,
    );
    ReadOutput {
        playbook: pb,
        diagnostics: diags,
    }
}

/// Removes from the kept document what the model holds itself.
fn drop_layout_fields(skeleton: &mut Value, container: Option<&str>) {
    if let Some(Value::Object(c)) = container.and_then(|c| skeleton.get_mut(c)) {
        if let Some(Value::Object(meta)) = c.get_mut("metadata") {
            meta.shift_remove(ACE_TOOLS_KEY);
        }
    }
}

/// What of the document around the playbook is content a conversion to
/// another format leaves behind: the container's items, narratives (but a
/// proposal this writer made), change log and whatever else it holds
/// beyond a title and status. Said as one loss, naming the parts.
fn around(skeleton: &Value, container: Option<&str>, path: &[String]) -> Vec<String> {
    let Some(Value::Object(c)) = container.and_then(|c| skeleton.get(c)) else {
        return Vec::new();
    };
    let playbook_key = path.get(1).map(String::as_str).unwrap_or("playbook");
    let mut parts: Vec<String> = Vec::new();
    for (k, v) in c {
        let empty = match v {
            Value::Null => true,
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            Value::String(s) => s.is_empty(),
            _ => false,
        };
        if empty || k == playbook_key || matches!(k.as_str(), "title" | "status") {
            continue;
        }
        if k == "narratives" {
            let made = |(name, n): (&String, &Value)| {
                name == "proposal"
                    && n.get("content")
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.starts_with(MADE_PROPOSAL))
            };
            if v.as_object().is_some_and(|o| o.iter().all(made)) {
                continue;
            }
        }
        parts.push(k.clone());
    }
    match parts.is_empty() {
        true => Vec::new(),
        false => vec![format!(
            "the vAgenda {} around the playbook ({})",
            container.unwrap_or("document"),
            parts.join(", ")
        )],
    }
}

/// How the proposal narrative this crate's writer makes for a playbook
/// from another format begins.
pub(crate) const MADE_PROPOSAL: &str = "Learned strategies and warnings for the agent:";

/// What the writer needs to put the entries back: the document, what the
/// metrics were computed from, and the key order of the entries (the
/// first's, which a tool that wrote the file gave them all). The shape and
/// container are read off the document again.
fn layout(document: Value, metrics_basis: Option<Value>, entry_keys: Option<Vec<String>>) -> Value {
    let mut m = Map::new();
    m.insert("document".into(), document);
    if let Some(b) = metrics_basis {
        m.insert("metricsBasis".into(), b);
    }
    if let Some(keys) = entry_keys {
        m.insert(
            "entryKeys".into(),
            Value::Array(keys.into_iter().map(Value::String).collect()),
        );
    }
    Value::Object(m)
}

/// Playbook-level fields, and what `aceTools` kept for another format.
fn read_playbook_fields(p: &Value, pb: &mut Playbook) {
    pb.version = p.get("version").cloned();
    pb.created_at = p.get("created").and_then(Value::as_str).map(str::to_owned);
    pb.updated_at = p.get("updated").and_then(Value::as_str).map(str::to_owned);
    let Some(Value::Object(tools)) = p.get(ACE_TOOLS_KEY) else {
        return;
    };
    let text = |k: &str| tools.get(k).and_then(Value::as_str).map(str::to_owned);
    if let Some(v) = tools.get("version") {
        pb.version = (!v.is_null()).then(|| v.clone());
    }
    if tools.contains_key("created") {
        pb.created_at = text("created");
    }
    if tools.contains_key("updated") {
        pb.updated_at = text("updated");
    }
    if tools.contains_key("title") {
        pb.title = text("title");
    }
    if tools.contains_key("description") {
        pb.description = text("description");
    }
    if let Some(p) = text("projectId") {
        pb.project_id = Some(p);
    }
    if let Some(s) = tools
        .get("sections")
        .and_then(|s| serde_json::from_value::<Vec<Section>>(s.clone()).ok())
    {
        pb.sections = s;
    }
    if let Some(Value::Object(extra)) = tools.get("extra") {
        for (k, v) in extra {
            pb.extra.insert(k.clone(), v.clone());
        }
    }
}

fn read_container(doc: &Value, container: Option<&str>, pb: &mut Playbook) {
    let Some(c) = container.and_then(|c| doc.get(c)) else {
        return;
    };
    let tools = c
        .get("metadata")
        .and_then(|m| m.get(ACE_TOOLS_KEY))
        .and_then(Value::as_object);
    if let Some(tools) = tools {
        match tools.get("title") {
            Some(v) => pb.title = v.as_str().map(str::to_owned),
            // aceTools kept something else (a description): the title is
            // the container's own.
            None if pb.title.is_none() => {
                pb.title = c.get("title").and_then(Value::as_str).map(str::to_owned);
            }
            None => {}
        }
        if tools.contains_key("description") {
            pb.description = tools
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
    } else if pb.title.is_none() {
        pb.title = c.get("title").and_then(Value::as_str).map(str::to_owned);
    }
}

/// Sections for entries that have none, from their kinds (the table in
/// `ace_model::mapping`), unless the file kept its own list.
/// The entries an event log reads as, sections derived as `read` derives
/// them against `sections`: the writer compares the model with these to
/// find the entries that changed since the log was read.
pub(crate) fn event_entries(
    items: &[Value],
    sections: &[Section],
    map: &SectionMap,
) -> Vec<ace_model::Entry> {
    let (view, _) = events::view(items);
    let mut pb = Playbook {
        sections: sections.to_vec(),
        ..Playbook::default()
    };
    let mut derive_from = Vec::with_capacity(view.len());
    for v in view {
        let m = as_ace_entry(v.entry);
        derive_from.push(entry::kind_for_derivation(&m).map(str::to_owned));
        pb.entries.push(entry::read(m, None));
    }
    derive_sections(&mut pb, &derive_from, map);
    pb.entries
}

fn derive_sections(pb: &mut Playbook, derive_from: &[Option<String>], map: &SectionMap) {
    let mut listed: HashSet<String> = pb.sections.iter().map(|s| s.key.clone()).collect();
    let mut added = Vec::new();
    for (e, kind) in pb.entries.iter_mut().zip(derive_from) {
        if e.section.is_some() {
            continue;
        }
        if let Some(row) = kind.as_deref().and_then(|k| map.section_for_kind(k)) {
            e.section = Some(row.key.to_owned());
            if listed.insert(row.key.to_owned()) {
                added.push(Section {
                    key: row.key.into(),
                    title: Some(row.title.into()),
                    prefix: Some(row.prefix.into()),
                    ..Section::default()
                });
            }
        }
    }
    pb.sections.extend(added);
}

/// The ACE invariants one file can show: links point at entries that exist
/// and agree with each other, and the metrics count the entries. Duplicate
/// ids are the lint rule ACE002's.
fn check_invariants(p: &Value, node: &Node, pb: &Playbook, diags: &mut Vec<Diagnostic>) {
    check_references(node, pb, diags);
    check_metrics(p, node, pb, diags);
}

/// Links between entries that name no entry, the entry itself, or one that
/// does not link back.
fn check_references(node: &Node, pb: &Playbook, diags: &mut Vec<Diagnostic>) {
    // Most playbooks link no entries: then the index of a million IDs,
    // built on one thread after the read, would be for nothing.
    let links = |e: &ace_model::Entry| {
        e.supersedes.as_ref().is_some_and(|s| !s.is_empty())
            || e.superseded_by.is_some()
            || e.duplicate_of.is_some()
    };
    if !pb.entries.iter().any(links) {
        return;
    }
    let ids: HashMap<&str, usize> = pb
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let span = |e: &ace_model::Entry| e.origin.0.unwrap_or(node.span);
    for e in pb.entries.iter().filter(|e| links(e)) {
        let mut refs: Vec<(&str, &str)> = Vec::new();
        for s in e.supersedes.iter().flatten() {
            refs.push(("supersedes", s));
        }
        if let Some(s) = &e.superseded_by {
            refs.push(("supersededBy", s));
        }
        if let Some(s) = &e.duplicate_of {
            refs.push(("duplicateOf", s));
        }
        for (field, target) in refs {
            if target == e.id {
                diags.push(Diagnostic::new(
                    &rules::LINK_MISMATCH,
                    span(e),
                    format!("entry `{}` names itself in `{field}`", e.id),
                ));
                continue;
            }
            let Some(&t) = ids.get(target) else {
                diags.push(
                    Diagnostic::new(
                        &rules::DANGLING_REFERENCE,
                        span(e),
                        format!(
                            "entry `{}`: `{field}` names `{target}`, which is not in the playbook",
                            e.id
                        ),
                    )
                    .with_help("deprecate entries instead of removing them, so links stay valid"),
                );
                continue;
            };
            let other = &pb.entries[t];
            let agrees = match field {
                "supersedes" => other.superseded_by.as_deref() == Some(e.id.as_str()),
                "supersededBy" => other.supersedes.as_ref().is_some_and(|s| s.contains(&e.id)),
                _ => true,
            };
            if !agrees {
                let (other_field, want) = if field == "supersedes" {
                    ("supersededBy", format!("\"{}\"", e.id))
                } else {
                    ("supersedes", format!("[\"{}\", ...]", e.id))
                };
                diags.push(Diagnostic::new(
                    &rules::LINK_MISMATCH,
                    span(e),
                    format!(
                        "entry `{}` has `{field}: {target}`, but `{target}` does not have `{other_field}: {want}`",
                        e.id
                    ),
                ));
            }
        }
    }
}

/// `metrics.totalEntries` against the entries read.
fn check_metrics(p: &Value, node: &Node, pb: &Playbook, diags: &mut Vec<Diagnostic>) {
    let total = p.get("metrics").and_then(|m| m.get("totalEntries"));
    if let Some(n) = total.and_then(Value::as_u64) {
        if n != pb.entries.len() as u64 {
            let at = node
                .get("metrics")
                .and_then(|m| m.get("totalEntries"))
                .map_or(node.span, |n| n.span);
            diags.push(Diagnostic::new(
                &rules::METRICS_MISMATCH,
                at,
                format!(
                    "`metrics.totalEntries` is {n}, but the playbook has {} entries",
                    pb.entries.len()
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reading with the entries parsed apart, on other threads, gives
    /// exactly what a parse in one piece gives, for `text`.
    fn split_equals_whole(name: &str, text: &str, syntax: Syntax) {
        let apart = read_mapped(text, syntax, &mapping::BUILT_IN);
        let whole = whole(text, syntax, &mapping::BUILT_IN, true);
        assert_eq!(format!("{apart:?}"), format!("{whole:?}"), "{name}");
    }

    fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = e.expect("a directory entry").path();
            if path.is_dir() {
                files_under(&path, out);
            } else if path.extension().is_some_and(|x| x == "json" || x == "tron") {
                out.push(path);
            }
        }
    }

    fn split_equals_whole_for_files(files: Vec<std::path::PathBuf>) {
        assert!(files.len() > 20, "{}", files.len());
        for f in files {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            let syntax = if f.extension().is_some_and(|x| x == "tron") {
                Syntax::Tron
            } else {
                Syntax::Json
            };
            split_equals_whole(&f.display().to_string(), &text, syntax);
        }
    }

    #[test]
    fn entries_parsed_apart_read_as_in_one_piece_for_every_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures");
        let mut files = Vec::new();
        files_under(&root, &mut files);
        split_equals_whole_for_files(files);
    }

    #[test]
    #[ignore = "needs ACE_CORPUS"]
    fn entries_parsed_apart_read_as_in_one_piece_for_the_corpus() {
        let corpus = std::env::var_os("ACE_CORPUS").expect("this test needs ACE_CORPUS");
        let mut files = Vec::new();
        for dir in ["vagenda", "tron"] {
            files_under(&std::path::Path::new(&corpus).join(dir), &mut files);
        }
        split_equals_whole_for_files(files);
    }

    /// The shapes where the taken items are not the playbook's entries, and
    /// entries the checks have something to say about.
    #[test]
    fn entries_parsed_apart_read_as_in_one_piece_for_odd_shapes() {
        let entry = r#"{"id": "e1", "kind": "rule", "text": "t"}"#;
        let bad = r#"{"id": "e2", "kind": 3, "text": "t", "text": "u", "confidence": null, "createdAt": "yesterday"}"#;
        let info = r#""vAgendaInfo": {"version": "0.2"}"#;
        let json = [
            format!(
                r#"{{{info}, "playbook": {{"version": 1, "entries": [{entry}, {bad}, 7, null]}}}}"#
            ),
            format!(
                r#"{{{info}, "plan": {{"title": "p", "playbook": {{"entries": [{entry}]}}}}}}"#
            ),
            // Two candidate arrays; only one is the playbook's.
            format!(
                r#"{{{info}, "plan": {{"playbook": {{"entries": [{entry}]}}}}, "todoList": {{"playbook": {{"entries": [{bad}]}}}}}}"#
            ),
            format!(r#"{{{info}, "todoList": {{"items": []}}, "entries": [{entry}]}}"#),
            format!(r#"{{"entries": [{entry}, {bad}]}}"#),
            format!(r#"{{"operations": [], "entries": [{entry}]}}"#),
            // An event log in `entries`, the event after an entry.
            format!(
                r#"{{{info}, "playbook": {{"entries": [{entry}, {{"eventId": "v1", "op": "add", "entry": {entry}}}]}}}}"#
            ),
            format!(
                r#"{{{info}, "playbook": {{"entries": [{{"eventId": "v1", "op": "add", "entry": {entry}}}], "items": [1]}}}}"#
            ),
            format!(r#"{{{info}, "playbook": {{"entries": [{entry}], "items": [1]}}}}"#),
            format!(r#"{{{info}, "playbook": {{"entries": {{"a": {entry}}}}}}}"#),
            format!(
                r#"{{"vContextInfo": {{"version": "0.4"}}, "playbook": {{"entries": [{entry}], "metrics": {{"totalEntries": 3}}}}}}"#
            ),
        ];
        for (i, text) in json.iter().enumerate() {
            assert!(
                serde_json::from_str::<Value>(text).is_ok(),
                "case {i} is JSON"
            );
            split_equals_whole(&format!("json case {i}"), text, Syntax::Json);
        }
        let tron = [
            "class E: id, kind, text, confidence\n\nvAgendaInfo: {version: \"0.2\"}\nplaybook: {version: 1, entries: [E(\"a\", \"rule\", \"t\", null), E(\"b\", 3, \"t\", 2), 5]}\n",
            "class P: version, entries\nclass E: id, kind, text\n\nvAgendaInfo: {version: \"0.2\"}\nplan: {title: \"x\", playbook: P(1, [E(\"a\", \"rule\", \"t\")])}\n",
            "class E: id, kind, text\n\nentries: [E(\"a\", \"rule\", \"t\")]\nplaybook: {entries: [E(\"b\", \"rule\", \"t\")]}\n",
        ];
        for (i, text) in tron.iter().enumerate() {
            split_equals_whole(&format!("tron case {i}"), text, Syntax::Tron);
        }
    }

    /// Entries enough to be read on other threads; bad entries in
    /// different runs, and an event deep in the list, give
    /// what the whole read gives.
    #[test]
    fn entries_of_many_runs_read_as_in_one_piece() {
        let n = 2 * ace_exec::par::MIN_ITEMS + 9;
        let entry = |i: usize| match i {
            i if i == ace_exec::par::MIN_ITEMS + 3 => {
                format!(r#"{{"id": "e{i}", "kind": 3, "text": "t", "text": "u"}}"#)
            }
            i if i % 4099 == 1 => {
                format!(r#"{{"id": "e{i}", "kind": "rule", "text": "t", "createdAt": "then"}}"#)
            }
            i => format!(r#"{{"id": "e{i}", "kind": "rule", "text": "t {i}", "confidence": 0.5}}"#),
        };
        let entries: Vec<String> = (0..n).map(entry).collect();
        let info = r#""vAgendaInfo": {"version": "0.2"}"#;
        let text = format!(
            r#"{{{info}, "playbook": {{"entries": [{}]}}}}"#,
            entries.join(", ")
        );
        split_equals_whole("many", &text, Syntax::Json);
        let mut events = entries.clone();
        events[ace_exec::par::MIN_ITEMS + 100] =
            r#"{"eventId": "v1", "op": "add", "entry": {"id": "x", "kind": "rule", "text": "t"}}"#
                .to_owned();
        let text = format!(
            r#"{{{info}, "playbook": {{"entries": [{}]}}}}"#,
            events.join(", ")
        );
        split_equals_whole("many, with an event", &text, Syntax::Json);
        // Items that do not parse, in different runs, and an error
        // right after the entries: the error of a parse in one piece.
        for (at, bad) in [
            (3, r#"{"id": "a" "kind": "rule"}"#),
            (ace_exec::par::MIN_ITEMS + 7, r#"{"id": "a", "text": "\q"}"#),
            (n - 1, r#"{"id": "a", "tags": [1,]}"#),
        ] {
            let mut broken = entries.clone();
            broken[at] = bad.to_owned();
            let text = format!(
                r#"{{{info}, "playbook": {{"entries": [{}]}}}}"#,
                broken.join(", ")
            );
            split_equals_whole(&format!("json, {bad} at {at}"), &text, Syntax::Json);
        }
        let text = format!(
            r#"{{{info}, "playbook": {{"entries": [{}] x}}}}"#,
            entries.join(", ")
        );
        split_equals_whole("json, then x", &text, Syntax::Json);
    }

    /// TRON entries handed over as text and parsed on the reading threads
    /// read as the whole tree does, over several runs: tricky items
    /// (brackets, quotes and `#` in strings and comments, line feeds,
    /// named arguments, objects) among plain ones. An item that does not
    /// parse, early or late, gives the error a parse in one piece gives;
    /// so do errors after the entries, and one right after an item.
    #[test]
    fn tron_entries_parsed_apart_read_as_in_one_piece() {
        let n = 2 * ace_exec::par::MIN_ITEMS + 9;
        let tricky = [
            r##"E("t(", "rule", "x ) ] } \" # \\", null)"##,
            "E(\n    # a comment ) ] \" (\n    \"c\", \"rule\",\n    \"y\", 0.5 # ]\n  )",
            r#"E(id="n", kind="rule", text="z", confidence=null)"#,
            r##"{"id": "o", "kind": "rule", "text": "(", "tags": ["#"]}"##,
        ];
        let entry = |i: usize| match i % 97 {
            k @ 0..=3 => tricky[k].replacen('"', &format!("\"{i}-"), 1),
            _ => format!("E(\"e{i}\", \"rule\", \"text {i}\", 0.5)"),
        };
        let doc = |entries: &[String], tail: &str| {
            format!(
                "class E: id, kind, text, confidence\nclass P: version, entries\n\n\
                 vAgendaInfo: {{version: \"0.2\"}}\nplaybook: P(1, [\n  {}\n]){tail}\n",
                entries.join(",\n  ")
            )
        };
        let entries: Vec<String> = (0..n).map(entry).collect();
        split_equals_whole("tron, many", &doc(&entries, ""), Syntax::Tron);
        for (at, bad) in [
            (1, r#"E("a", "rule" "t", null)"#),
            (ace_exec::par::MIN_ITEMS + 5, r#"E("a", "rule", @, null)"#),
            (n - 2, r#"E("a", "rule", "t")"#),
            (7, "E(\"a\", \"rule\", \"unterminated, null)"),
            (9, "E\n(\"a\", \"rule\", \"t\", null)"),
        ] {
            let mut entries = entries.clone();
            entries[at] = bad.to_owned();
            split_equals_whole(
                &format!("tron, {bad} at {at}"),
                &doc(&entries, ""),
                Syntax::Tron,
            );
        }
        for tail in [" @", "\nmore: [", "\nclass X: y"] {
            split_equals_whole(
                &format!("tron, then {tail}"),
                &doc(&entries, tail),
                Syntax::Tron,
            );
        }
        let mut entries = entries;
        entries[20].push('@');
        split_equals_whole("tron, @ after an item", &doc(&entries, ""), Syntax::Tron);
        // The first error is a broken item's, before the parser's own.
        entries[20].pop();
        entries[3] = r#"E("a", "rule" "t", null)"#.to_owned();
        split_equals_whole(
            "tron, a broken item, then @",
            &doc(&entries, " @"),
            Syntax::Tron,
        );
    }

    /// The skimming classification agrees with classifying the whole tree.
    #[test]
    fn kind_of_json_agrees_with_the_full_parse() {
        let docs = [
            r#"{"vAgendaInfo": {"version": "0.2"}, "plan": {"playbook": {"entries": []}}}"#,
            r#"{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}"#,
            r#"{"vAgendaInfo": {"version": "9"}, "plan": {}}"#,
            r#"{"vAgendaInfo": {"version": "0.2"}, "plan": {}, "todoList": {}}"#,
            r#"{"vAgendaInfo": {"version": "0.2"}, "vAgendaInfo": {"version": "0.3"}, "plan": {}}"#,
            r#"{"vBRIEFInfo": {"version": "0.5"}}"#,
            r#"{"operations": [], "baseDocumentSequence": 1}"#,
            r#"{"op": "appendEntry"}"#,
            r#"{"entries": [{"id": "a"}]}"#,
            r#"{"items": [], "version": 2}"#,
            r#"{"id": "a", "text": "b"}"#,
            "\u{feff}{\"id\": \"a\", \"text\": \"b\"}",
            r#"[{"vAgendaInfo": {"version": "0.2"}}]"#,
            r#""text""#,
            "null",
            r#"{"a": 1,}"#,
            "",
        ];
        for text in docs {
            let full = parse(text, Syntax::Json)
                .ok()
                .and_then(|d| classify(&d.root.to_value()).ok());
            assert_eq!(kind_of(text, Syntax::Json), full, "{text}");
        }
    }

    #[test]
    fn kind_of_tron_agrees_with_the_full_parse() {
        let docs = [
            "class I: version\nclass P: entries\n\nvAgendaInfo: I(\"0.2\")\nplan: {playbook: P([{id: \"a\"}])}\n",
            "vContextInfo: {version: \"0.4\"}\ntodoList: {items: [[1], {a: [2]}]}\n",
            "vAgendaInfo: {version: [\"0.2\"]}\nplan: {}\n",
            "vAgendaInfo: {version: \"0.2\"}\nplan: {}\ntodoList: {}\n",
            "operations: [{op: \"x\"}]\n",
            "entries: [{id: \"a\"}]\n",
            "[{vAgendaInfo: {version: \"0.2\"}}]\n",
            "{id: \"a\", text: \"b\"}\n",
            "plan: {\n",
        ];
        for text in docs {
            let full = parse(text, Syntax::Tron)
                .ok()
                .and_then(|d| classify(&d.root.to_value()).ok());
            assert_eq!(kind_of(text, Syntax::Tron), full, "{text}");
        }
    }

    /// Keys an entry is generated with: the schema's, an event's, and one
    /// it does not know.
    fn entry_keys() -> Vec<&'static str> {
        let typed = Ty::PlaybookEntry.typed().iter().copied();
        typed.chain(["eventId", "extra"]).collect()
    }

    /// Values that satisfy the field, for most keys, and that do not.
    fn value_for(key: &str, good: bool, pick: usize) -> &'static str {
        let fits: &[&str] = match key {
            "id" | "text" | "title" | "deprecatedReason" | "supersededBy" | "duplicateOf" => {
                &["\"x\"", "\"str-00001\"", "\"é \\u00e9\\n\""]
            }
            "kind" => &["\"strategy\"", "\"warning\"", "\"note\""],
            "tags" | "evidence" | "supersedes" => &["[]", "[\"a\"]", "[\"a\", \"b\"]"],
            "confidence" => &["0", "1", "0.5", "-0", "1.0", "1e-1", "0.80"],
            "helpfulCount" | "harmfulCount" => &["0", "3", "9223372036854775807"],
            "feedbackType" => &["\"humanReview\"", "\"unknown\""],
            "createdAt" | "updatedAt" => {
                &["\"2025-10-25T12:00:00Z\"", "\"2025-10-25T12:00:00+02:00\""]
            }
            "status" => &["\"active\"", "\"deprecated\""],
            "metadata" => &[
                "{}",
                "{\"aceTools\": {\"kind\": null}}",
                "{\"aceTools\": {\"section\": \"str\", \"neutral\": 2}}",
                "{\"aceTools\": {\"section\": null}}",
                "{\"aceTools\": 3, \"b\": [1]}",
                "{\"aceTools\": {\"extra\": {\"title\": 1}, \"links\": [\"a\"]}}",
            ],
            _ => &["1", "\"e-1\"", "null"],
        };
        const ANY: [&str; 24] = [
            "null",
            "true",
            "\"\"",
            "\"x\"",
            "\"bogus\"",
            "\"strategy\"",
            "\"2025-10-25\"",
            "\"2025-10-25T12:00:00+0200\"",
            "\"12:00+٠٢:٠٠\"",
            "0",
            "1",
            "0.5",
            "1.5",
            "-1",
            "-0",
            "1.0",
            "1e2",
            "99999999999999999999",
            "1e400",
            "[]",
            "[\"a\", 1]",
            "{}",
            "[null]",
            "{\"aceTools\": {\"section\": \"x\"}}",
        ];
        if good {
            fits[pick % fits.len()]
        } else {
            ANY[pick % ANY.len()]
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// An entry read straight from its node is what the long way
        /// (a `Value` checked with jsonschema) gives, in JSON and in TRON,
        /// and it is only taken where the long way finds nothing.
        #[test]
        fn plain_entries_are_read_as_the_schema_checked_way_reads_them(
            fields in proptest::collection::vec(
                (0..entry_keys().len(), proptest::bool::weighted(0.85), 0..100usize),
                0..14,
            ),
            core in proptest::bool::weighted(0.8),
            core_fits in proptest::collection::vec((proptest::bool::weighted(0.8), 0..100usize), 3),
        ) {
            let mut keys = Vec::new();
            let mut parts = Vec::new();
            let all_keys = entry_keys();
            let at = |key: &str| all_keys.iter().position(|k| *k == key).expect("a schema key");
            let required: Vec<_> = [at("id"), at("kind"), at("text")]
                .into_iter()
                .zip(&core_fits)
                .map(|(k, &(good, pick))| (k, good, pick))
                .collect();
            let all = if core { [&required[..], &fields[..]].concat() } else { fields.clone() };
            for (k, good, pick) in all {
                let key = all_keys[k];
                if keys.contains(&key) {
                    continue;
                }
                keys.push(key);
                parts.push(format!("\"{key}\": {}", value_for(key, good, pick)));
            }
            let text = format!("{{{}}}", parts.join(", "));
            for syntax in [Syntax::Json, Syntax::Tron] {
                let Ok(mut doc) = parse(&text, syntax) else { continue };
                let empty = ItemRead::default;
                let long = read_item_checked(syntax, "/entries", 0, &doc.root, empty());
                let Some(fast) = plain::read(&mut doc.root, syntax == Syntax::Tron) else {
                    continue;
                };
                proptest::prop_assert!(long.diags.is_empty(), "{:?} {text}: {:?}", syntax, long.diags);
                proptest::prop_assert_eq!(
                    format!("{:?}", long.entry),
                    format!("{:?}", Some(fast)),
                    "{:?} {}", syntax, text
                );
            }
        }
    }

    #[test]
    fn typical_entries_are_read_straight_from_the_tree() {
        let json = r#"{"id": "str-00001", "kind": "strategy", "title": "t", "text": "x", "tags": ["a"],
            "evidence": ["run:1"], "confidence": 0.5, "helpfulCount": 29, "harmfulCount": 7,
            "createdAt": "2025-10-25T12:00:00Z", "metadata": {"aceTools": {"kind": null}}}"#;
        let tron = "class E: id, kind, title, text, helpfulCount\n\nE(\"a\", \"note\", null, \"x\", null)\n";
        for (text, syntax) in [(json, Syntax::Json), (tron, Syntax::Tron)] {
            let mut doc = parse(text, syntax).unwrap();
            assert!(
                plain::read(&mut doc.root, syntax == Syntax::Tron).is_some(),
                "{text}"
            );
        }
        // A JSON null is a type error, not an absent field.
        let mut doc = parse(
            r#"{"id": "a", "kind": "note", "text": "x", "title": null}"#,
            Syntax::Json,
        )
        .unwrap();
        assert!(plain::read(&mut doc.root, false).is_none());
    }
}
