//! The model into a vAgenda document, JSON or TRON.
//!
//! A playbook read from vAgenda is written back into the document it came
//! from (its layout, owned by [`crate::LAYOUT_KEY`]): only the entries, and what the
//! user changed, differ. Any other playbook becomes a minimal document, a
//! Plan or a TodoList, that the bundled core and ACE schemas accept.

use std::collections::{HashMap, HashSet};

use ace_exec::block::{block, lines, spread_block, Blocks};
use ace_exec::Out;
use ace_model::mapping::SectionMap;
use ace_model::Losses;
use ace_model::WriteReport;
use ace_model::{rules, Entry, LossEntry, Playbook, Section};
use ace_tron::RootStyle;
use serde_json::{Map, Value};

use crate::entry::Field;
use crate::metrics::{metrics_basis, metrics_numbers};
use crate::reader::{as_ace_entry, Shape};
use crate::types::{item_with, Ty};
use crate::{entry, events, Syntax, ACE_TOOLS_KEY, LAYOUT_KEY};

/// The container of a new document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Container {
    #[default]
    Plan,
    TodoList,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    pub syntax: Syntax,
    /// For a playbook that did not come from vAgenda.
    pub container: Container,
    pub tron_root: RootStyle,
    /// The time to stamp on what the model has no timestamp for (RFC 3339).
    /// Without it the latest timestamp of the playbook is used, so the same
    /// input always gives the same output.
    pub now: Option<String>,
    /// The time when neither `now` nor the playbook gives one
    /// (`WriteCtx::clock`); `None`: the Unix epoch.
    pub clock: Option<String>,
    /// The kinds' sections and the sections' kinds.
    pub sections: std::sync::Arc<SectionMap>,
    /// The spec version to write; `None`: the document's own when the
    /// playbook was read from vAgenda, else 0.2 with the ACE extension.
    pub version: Option<crate::Version>,
}

#[derive(Debug, Clone, Default)]
pub struct WriteOutput {
    pub text: String,
    pub losses: Vec<LossEntry>,
}

const EPOCH: &str = "1970-01-01T00:00:00Z";

fn metrics(entries: &[Entry], last_updated: &str) -> Value {
    let (total, avg) = metrics_numbers(entries);
    let mut m = Map::new();
    m.insert("totalEntries".into(), Value::from(total));
    if let Some(a) = avg {
        m.insert("averageConfidence".into(), Value::Number(a));
    }
    m.insert("lastUpdated".into(), Value::String(last_updated.into()));
    Value::Object(m)
}

/// The kind each section maps to, worked out once per write rather than
/// looked up in the mapping's table for every entry.
pub(crate) struct SectionKinds<'p> {
    pb: &'p Playbook,
    /// Beside `pb.sections`.
    kinds: Vec<&'static str>,
    /// The first section of each key, as `Playbook::section` finds it.
    first: HashMap<&'p str, usize>,
    map: &'p SectionMap,
    extras: entry::Extras,
    /// The key order of the file's entries (the layout's `entryKeys`):
    /// each entry is written in it, its other keys after, in ours.
    order: Option<HashMap<String, usize>>,
}

impl<'p> SectionKinds<'p> {
    fn new(pb: &'p Playbook, map: &'p SectionMap) -> Self {
        let kinds = pb
            .sections
            .iter()
            .map(|s| map.kind_for_section(&s.key, s.title.as_deref(), s.prefix.as_deref()))
            .collect();
        let first = pb.section_places();
        SectionKinds {
            pb,
            kinds,
            first,
            map,
            // Fields vAgenda has no place for go to its extension point,
            // under one name, whether the document is new or rewritten.
            extras: entry::Extras::InMetadata,
            order: None,
        }
    }

    /// The fields of `e` as [`entry::fields`] gives them, in the file's
    /// key order when it has one.
    fn fields<'e>(&self, e: &'e Entry) -> entry::Fields<'e> {
        let f = entry::fields(e, self.of(e), self.map, self.extras);
        let Some(order) = &self.order else {
            return f;
        };
        // The file's keys in the file's order; a key the file's order
        // lacks stays right after the key it follows in ours, so that a
        // file written in our order keeps it.
        let mut anchor = None;
        // (the file's key it follows, whether it is not the file's, ours)
        type Rank = (Option<usize>, bool, usize);
        let mut ranked: Vec<(Rank, (&'e str, entry::Field<'e>))> = f
            .into_iter()
            .enumerate()
            .map(|(i, field)| {
                let rank = match order.get(field.0) {
                    Some(&at) => {
                        anchor = Some(at);
                        (Some(at), false, i)
                    }
                    None => (anchor, true, i),
                };
                (rank, field)
            })
            .collect();
        ranked.sort_by_key(|(rank, _)| *rank);
        ranked.into_iter().map(|(_, field)| field).collect()
    }

    /// The kind `e`'s section maps to; `note` without a section.
    fn of(&self, e: &Entry) -> &'static str {
        match e.section.as_deref() {
            Some(key) => match self.first.get(key) {
                Some(&i) => self.kinds[i],
                None => self.map.kind_for_section(key, None, None),
            },
            None => "note",
        }
    }
}

/// The sections a reader derives from the written entries' kinds; the
/// writer keeps the playbook's own list only when it differs.
fn derived_sections(kinds: &SectionKinds) -> Vec<Section> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for e in &kinds.pb.entries {
        let kind = entry::derivation_kind(e, kinds.of(e), kinds.map);
        let Some(row) = kind.as_deref().and_then(|k| kinds.map.section_for_kind(k)) else {
            continue;
        };
        if seen.insert(row.key) {
            out.push(Section {
                key: row.key.into(),
                title: Some(row.title.into()),
                prefix: Some(row.prefix.into()),
                ..Section::default()
            });
        }
    }
    out
}

/// A timestamp as vAgenda's `dateTime` takes it: one without a zone is
/// UTC ([`ace_model::time::with_zone`]).
fn zoned(t: Option<&str>) -> Option<String> {
    t.map(|t| ace_model::time::with_zone(t).unwrap_or_else(|| t.to_owned()))
}

use ace_model::time::ZONE_ADDED;

/// ACE107 for each timestamp written with a zone it did not have.
fn zone_losses(pb: &Playbook, losses: &mut Vec<LossEntry>) {
    let derived = |t: Option<&String>| t.is_some_and(|t| ace_model::time::lacks_zone(t));
    for (field, t) in [
        ("created_at", &pb.created_at),
        ("updated_at", &pb.updated_at),
    ] {
        if derived(t.as_ref()) {
            losses.lose(&rules::VALUE_DERIVED, None, field, ZONE_ADDED);
        }
    }
    for e in &pb.entries {
        for (field, t) in [("created_at", &e.created_at), ("updated_at", &e.updated_at)] {
            if derived(t.as_ref()) {
                losses.lose(&rules::VALUE_DERIVED, Some(&e.id), field, ZONE_ADDED);
            }
        }
    }
}

/// ACE107 for each entry whose kind is its section's: vAgenda requires
/// one of its five, and the entry has none of them.
fn derived_kinds(pb: &Playbook, map: &SectionMap, losses: &mut Vec<LossEntry>) {
    let kinds = SectionKinds::new(pb, map);
    for e in &pb.entries {
        let own = e
            .kind
            .as_deref()
            .is_some_and(|k| ace_model::mapping::KINDS.contains(&k));
        if !own {
            losses.lose(
                &rules::VALUE_DERIVED,
                Some(&e.id),
                "kind",
                format!(
                    "a vAgenda entry needs one of its five kinds; its section's, `{}`, is written",
                    kinds.of(e)
                ),
            );
        }
    }
}

/// The playbook's sections with, after them, those a reader adds for the
/// entries whose section it derives from their kind: the list that reads
/// back as itself, so that writing what was read gives the same text.
fn sections_read_back(kinds: &SectionKinds) -> Vec<Section> {
    let mut out = kinds.pb.sections.clone();
    for row in derived_sections(kinds) {
        if !out.iter().any(|s| s.key == row.key) {
            out.push(row);
        }
    }
    out
}

/// `pb` as a vAgenda document.
pub fn write(pb: &Playbook, opts: &WriteOptions) -> WriteOutput {
    let mut out = Out::new();
    let report = write_into(pb, opts, &mut out);
    WriteOutput {
        text: out.into_string(),
        losses: report.losses,
    }
}

/// The document a playbook is written as, before it is printed: its
/// entries left out (an empty `entries` array) when they are printed from
/// the model as the document is.
pub(crate) struct Prepared<'p> {
    pub doc: Value,
    pub info_key: &'static str,
    pub kinds: SectionKinds<'p>,
    /// Entries are printed from the model into the empty `entries` array.
    pub stream: bool,
    /// Written over the document the playbook was read from.
    pub rewriting: bool,
    pub style: Style,
    pub losses: Vec<LossEntry>,
}

pub(crate) fn prepare<'p>(pb: &'p Playbook, opts: &'p WriteOptions) -> Prepared<'p> {
    let mut losses = Vec::new();
    zone_losses(pb, &mut losses);
    derived_kinds(pb, &opts.sections, &mut losses);
    if pb.version.as_ref().is_some_and(Value::is_null) {
        losses.lose(
            &rules::DROPPED_FIELD,
            None,
            "version",
            "a `version` with no value (YAML's bare `version:`) has nothing to write, and vAgenda writes no nulls",
        );
    }
    let now = opts
        .now
        .clone()
        .or_else(|| zoned(ace_model::time::latest(pb)))
        .or_else(|| opts.clock.clone())
        .unwrap_or_else(|| EPOCH.to_owned());
    let mut kept = pb
        .layout_of(LAYOUT_KEY)
        .and_then(|l| l.get("document"))
        .filter(|d| d.is_object())
        .cloned();
    if let (Some(want), Some(doc)) = (opts.version, kept.as_ref()) {
        let had = document_version(doc);
        if had != Some(want) {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                "document",
                format!(
                    "written as a new vAgenda {} document: the {} document's other parts (its items, narratives, change log, unknown keys) are not carried across versions",
                    want.as_str(),
                    had.map_or("source", crate::Version::as_str)
                ),
            );
            kept = None;
        }
    }
    let rewriting = kept.is_some();
    if kept.is_none() {
        if let Some(v @ (crate::Version::V03 | crate::Version::V04)) = opts.version {
            let kinds = SectionKinds::new(pb, &opts.sections);
            kept = Some(event_document(&kinds, opts.container, v, &now, &mut losses));
        }
    }
    // The entries of an ACE playbook are written one at a time from the
    // model as the document is printed, not built first as one big value
    // (TRON builds each up to three times: its classes come before the
    // data). An event log is diffed against the model, so it builds them.
    let stream = kept.as_ref().is_none_or(|d| {
        playbook_object(d).is_none_or(|p| crate::reader::shape_of(p) == Shape::Ace)
    });
    let mut kinds = SectionKinds::new(pb, &opts.sections);
    if rewriting {
        kinds.extras = entry::Extras::Rewrite;
        kinds.order = pb
            .layout_of(LAYOUT_KEY)
            .and_then(|l| l.get("entryKeys"))
            .and_then(Value::as_array)
            .map(|keys| {
                keys.iter()
                    .filter_map(Value::as_str)
                    .enumerate()
                    .map(|(i, k)| (k.to_owned(), i))
                    .collect()
            });
    }
    let entries: Vec<Map<String, Value>> = if stream {
        Vec::new()
    } else {
        pb.entries
            .iter()
            .map(|e| entry::write(e, kinds.of(e), kinds.map, kinds.extras))
            .collect()
    };
    let style = if rewriting {
        Style::of(pb.layout_of(LAYOUT_KEY))
    } else {
        Style::default()
    };
    let (doc, info_key) = match kept {
        Some(doc) => {
            let mut doc = doc;
            update_kept(&mut doc, &kinds, entries, &now, &mut losses);
            let info = ["vAgendaInfo", "vContextInfo"]
                .into_iter()
                .find(|k| doc.get(*k).is_some())
                .unwrap_or("vAgendaInfo");
            (doc, info)
        }
        None => (
            new_document(&kinds, entries, opts.container, &now, &mut losses),
            "vAgendaInfo",
        ),
    };
    Prepared {
        doc,
        info_key,
        kinds,
        stream,
        rewriting,
        style,
        losses,
    }
}

/// [`write`] into `out`, which may send the text on as it is printed.
pub fn write_into(pb: &Playbook, opts: &WriteOptions, out: &mut Out<'_>) -> WriteReport {
    let Prepared {
        doc,
        info_key,
        kinds,
        stream,
        style,
        losses,
        ..
    } = prepare(pb, opts);
    let slot = playbook_object(&doc)
        .and_then(|p| p.get("entries"))
        .filter(|_| stream);
    match opts.syntax {
        Syntax::Json => {
            Printer {
                slot,
                pb,
                kinds: &kinds,
                out,
                style,
            }
            .value(&doc, 0);
            out.push('\n');
        }
        Syntax::Tron => {
            let root_ty = if doc.get(info_key).is_some() {
                Ty::Root
            } else {
                Ty::Playbook
            };
            let entries = TronEntries {
                pb,
                kinds: &kinds,
                info_key,
            };
            let slot = slot.map(|s| (s, &entries as &dyn ace_tron::Items));
            ace_tron::write_into(
                &item_with(&doc, root_ty, info_key, slot),
                &ace_tron::WriteOptions {
                    root: opts.tron_root,
                    ..ace_tron::WriteOptions::default()
                },
                out,
            )
        }
    }
    WriteReport {
        losses,
        id_changes: Vec::new(),
    }
}

/// The container's `metadata.aceTools`: the description, which vAgenda
/// has no field for.
fn container_tools(pb: &Playbook) -> Map<String, Value> {
    let mut t = Map::new();
    if let Some(d) = &pb.description {
        t.insert("description".into(), Value::String(d.clone()));
    }
    t
}

/// The playbook-level `aceTools`: what the model has beyond vAgenda's
/// Playbook fields.
fn playbook_tools(kinds: &SectionKinds, version_kept: bool) -> Map<String, Value> {
    let pb = kinds.pb;
    let mut t = Map::new();
    match (version_kept, &pb.version) {
        (false, Some(v)) if !v.is_null() => {
            t.insert("version".into(), v.clone());
        }
        _ => {}
    }
    if let Some(p) = &pb.project_id {
        t.insert("projectId".into(), Value::String(p.clone()));
    }
    // Sections a reader derives from the kinds are nothing to keep: none,
    // or some of the derived ones in their order (a playbook that gained
    // an entry of a new kind lacks its section until it is read again).
    let derived = derived_sections(kinds);
    let mut rest = derived.iter();
    let derivable = pb.sections.iter().all(|s| rest.any(|d| d == s));
    if !derivable {
        t.insert(
            "sections".into(),
            serde_json::to_value(sections_read_back(kinds)).unwrap_or(Value::Null),
        );
    }
    if !pb.extra.is_empty() {
        t.insert("extra".into(), Value::Object(pb.extra.clone()));
    }
    t
}

/// The model's version as vAgenda's integer playbook version, if it is one.
fn int_version(pb: &Playbook) -> Option<Value> {
    pb.version
        .as_ref()
        .filter(|v| v.as_u64().is_some())
        .cloned()
}

fn new_document(
    kinds: &SectionKinds,
    entries: Vec<Map<String, Value>>,
    container: Container,
    now: &str,
    losses: &mut Vec<LossEntry>,
) -> Value {
    let pb = kinds.pb;
    let updated = zoned(pb.updated_at.as_deref()).unwrap_or_else(|| now.to_owned());
    // Without a creation time the earliest the playbook has, and never
    // after `updated`.
    let created = match zoned(pb.created_at.as_deref()) {
        Some(c) => c,
        None => zoned(ace_model::time::earliest(pb))
            .map_or_else(|| now.to_owned(), |c| c.min(updated.clone())),
    };
    if pb.created_at.is_none() || pb.updated_at.is_none() {
        let written = match ace_model::time::latest(pb) {
            Some(_) => format!(
                "its entries' earliest and latest times, {created} and {updated}, are written"
            ),
            None => format!("{updated} is written"),
        };
        losses.lose(
            &rules::VALUE_DEFAULTED,
            None,
            "created_at",
            format!(
                "vAgenda requires `playbook.created` and `playbook.updated`; the playbook has no timestamp of its own, so {written} (SOURCE_DATE_EPOCH or --now chooses the time)"
            ),
        );
    }
    let version = int_version(pb);
    let mut playbook = Map::new();
    playbook.insert("version".into(), version.clone().unwrap_or(Value::from(1)));
    playbook.insert("created".into(), Value::String(created));
    playbook.insert("updated".into(), Value::String(updated.clone()));
    let tools = playbook_tools(kinds, version.is_some());
    playbook.insert(
        "entries".into(),
        Value::Array(entries.into_iter().map(Value::Object).collect()),
    );
    playbook.insert("metrics".into(), metrics(&pb.entries, &updated));
    if !tools.is_empty() {
        playbook.insert(ACE_TOOLS_KEY.into(), Value::Object(tools));
    }
    let title = pb.title.clone().unwrap_or_else(|| {
        losses.lose(
            &rules::VALUE_DERIVED,
            None,
            "title",
            "a vAgenda container needs a title; `ACE playbook` is written",
        );
        "ACE playbook".to_owned()
    });
    let meta_tools = container_tools(pb);
    let mut c = Map::new();
    match container {
        Container::Plan => {
            c.insert("title".into(), Value::String(title));
            c.insert("status".into(), Value::String("inProgress".into()));
            let content = pb.description.clone().unwrap_or_else(|| {
                format!(
                    "{} {}, kept up to date through the ACE extension's PlaybookPatch operations.",
                    crate::reader::MADE_PROPOSAL,
                    entries_phrase(pb.entries.len())
                )
            });
            let mut proposal = Map::new();
            proposal.insert("title".into(), Value::String("Playbook".into()));
            proposal.insert("content".into(), Value::String(content));
            let mut narratives = Map::new();
            narratives.insert("proposal".into(), Value::Object(proposal));
            c.insert("narratives".into(), Value::Object(narratives));
        }
        Container::TodoList => {
            c.insert("title".into(), Value::String(title));
            c.insert("items".into(), Value::Array(Vec::new()));
        }
    }
    if !meta_tools.is_empty() {
        let mut meta = Map::new();
        meta.insert(ACE_TOOLS_KEY.into(), Value::Object(meta_tools));
        c.insert("metadata".into(), Value::Object(meta));
    }
    c.insert("playbook".into(), Value::Object(playbook));
    let mut info = Map::new();
    info.insert("version".into(), Value::String("0.2".into()));
    let mut doc = Map::new();
    doc.insert("vAgendaInfo".into(), Value::Object(info));
    let key = match container {
        Container::Plan => "plan",
        Container::TodoList => "todoList",
    };
    doc.insert(key.into(), Value::Object(c));
    Value::Object(doc)
}

/// The version a document declares, if it is one ace-tools writes.
fn document_version(doc: &Value) -> Option<crate::Version> {
    ["vAgendaInfo", "vContextInfo"]
        .into_iter()
        .find_map(|k| doc.get(k))
        .and_then(|info| info.get("version"))
        .and_then(Value::as_str)
        .and_then(crate::Version::parse)
}

/// A new vAgenda 0.3 or vContext 0.4 document whose playbook is an empty
/// event log, for [`update_kept`] to append one event per entry to, as
/// for any log it is given. The container is the 0.2 document's, with
/// vContext's narratives as plain strings.
fn event_document(
    kinds: &SectionKinds,
    container: Container,
    version: crate::Version,
    now: &str,
    losses: &mut Vec<LossEntry>,
) -> Value {
    let mut doc = new_document(kinds, Vec::new(), container, now, losses);
    let Value::Object(root) = &mut doc else {
        return doc;
    };
    let mut info = Map::new();
    info.insert("version".into(), Value::from(version.as_str()));
    let info_key = match version {
        crate::Version::V04 => "vContextInfo",
        _ => "vAgendaInfo",
    };
    root.shift_remove("vAgendaInfo");
    root.shift_insert(0, info_key.into(), Value::Object(info));
    let key = match container {
        Container::Plan => "plan",
        Container::TodoList => "todoList",
    };
    if let Some(Value::Object(c)) = root.get_mut(key) {
        if let Some(Value::Object(p)) = c
            .get_mut("narratives")
            .and_then(|n| n.get_mut("proposal"))
            .filter(|_| kinds.pb.description.is_none())
        {
            p.insert(
                "content".into(),
                Value::String(format!(
                    "{} {}, kept as an append-only event log of the Playbooks extension.",
                    crate::reader::MADE_PROPOSAL,
                    entries_phrase(kinds.pb.entries.len())
                )),
            );
        }
        if version == crate::Version::V04 {
            if let Some(Value::Object(n)) = c.get_mut("narratives") {
                for v in n.values_mut() {
                    if let Some(content) = v.get("content").and_then(Value::as_str) {
                        *v = Value::String(content.to_owned());
                    }
                }
            }
        }
        if let Some(Value::Object(p)) = c.get_mut("playbook") {
            p.shift_remove("entries");
            p.shift_remove("metrics");
            p.shift_remove(ACE_TOOLS_KEY);
            p.insert("items".into(), Value::Array(Vec::new()));
        }
    }
    doc
}

/// The playbook object of a vAgenda document (or the document itself, if
/// it is a playbook), found as [`update_kept`] finds it.
pub(crate) fn playbook_object(doc: &Value) -> Option<&Map<String, Value>> {
    playbook_path(doc)
        .iter()
        .try_fold(doc, |v, k| v.get(k))
        .and_then(Value::as_object)
}

/// [`playbook_object`], to change.
pub(crate) fn playbook_object_mut(doc: &mut Value) -> Option<&mut Map<String, Value>> {
    playbook_path(doc)
        .iter()
        .try_fold(doc, |v, k| v.get_mut(k))
        .and_then(Value::as_object_mut)
}

/// The keys that lead from a document to its playbook: under its
/// container, the document itself when it is a playbook.
pub(crate) fn playbook_path(doc: &Value) -> Vec<&'static str> {
    match ["todoList", "plan", "playbook"]
        .into_iter()
        .find(|k| doc.get(*k).is_some())
    {
        Some("playbook") => vec!["playbook"],
        Some(c) => vec![c, "playbook"],
        None => Vec::new(),
    }
}

/// The kept document with the model's entries and playbook fields in place.
fn update_kept(
    doc: &mut Value,
    kinds: &SectionKinds,
    entries: Vec<Map<String, Value>>,
    now: &str,
    losses: &mut Vec<LossEntry>,
) {
    let pb = kinds.pb;
    let vcontext = doc.get("vContextInfo").is_some();
    let container = ["todoList", "plan", "playbook"]
        .into_iter()
        .find(|k| doc.get(*k).is_some());
    if let (Some(c), Some(title)) = (container, &pb.title) {
        if let Some(Value::Object(cm)) = doc.get_mut(c) {
            if cm.get("title").and_then(Value::as_str) != Some(title.as_str()) && c != "playbook" {
                cm.insert("title".into(), Value::String(title.clone()));
            }
        }
    }
    let basis = pb
        .layout_of(LAYOUT_KEY)
        .and_then(|l| l.get("metricsBasis"))
        .cloned();
    let meta_tools = container_tools(pb);
    if let (Some(c), false) = (
        container.filter(|c| *c != "playbook"),
        meta_tools.is_empty(),
    ) {
        if let Some(Value::Object(cm)) = doc.get_mut(c) {
            let meta = cm
                .entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(ACE_TOOLS_KEY.into(), Value::Object(meta_tools));
            }
        }
    }
    let p = match container {
        Some("playbook") => doc.get_mut("playbook"),
        Some(c) => doc.get_mut(c).and_then(|c| c.get_mut("playbook")),
        None => Some(doc),
    };
    let Some(Value::Object(p)) = p else {
        return;
    };
    let shape = crate::reader::shape_of(p);
    // aceTools is worked out before the entries move into the document.
    let version_kept =
        int_version(pb).is_some() || (pb.version.is_none() && !p.contains_key("version"));
    let tools = playbook_tools(kinds, version_kept);
    match shape {
        Shape::Events(key) => {
            let old: Vec<Value> = p
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            // Compared as models: the log's raw events and the writer's
            // encoding of the same entry can differ (a status the model
            // keeps in `aceTools`), and an entry that did not change must
            // get no event, or every write would add one.
            let as_model = crate::reader::event_entries(&old, &pb.sections, kinds.map);
            let mut by_id: HashMap<&str, Vec<&Entry>> = HashMap::new();
            for e in &pb.entries {
                by_id.entry(e.id.as_str()).or_default().push(e);
            }
            let unchanged: HashSet<&str> = as_model
                .iter()
                .filter(|m| {
                    by_id
                        .get(m.id.as_str())
                        .is_some_and(|es| es.iter().any(|e| same_entry(e, m)))
                })
                .map(|m| m.id.as_str())
                .collect();
            let (view, _) = events::view(&old);
            if as_model.len() != pb.entries.len() || unchanged.len() != as_model.len() {
                let ids: HashSet<String> = old
                    .iter()
                    .filter_map(|e| e.get("eventId").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                // vContext 0.4 events hold content as a `narrative` map;
                // a log without events says so by its document's info.
                let narrative = old.iter().any(|e| e.get("narrative").is_some())
                    || (old.is_empty() && vcontext);
                let old_ace: Vec<events::ViewEntry> = view
                    .into_iter()
                    .map(|mut v| {
                        v.entry = as_ace_entry(v.entry);
                        v
                    })
                    .collect();
                let changed: Vec<Map<String, Value>> = entries
                    .iter()
                    .filter(|m| {
                        !m.get("id")
                            .and_then(Value::as_str)
                            .is_some_and(|id| unchanged.contains(id))
                    })
                    .cloned()
                    .collect();
                let kept_ids: HashSet<&str> = entries
                    .iter()
                    .filter_map(|m| m.get("id").and_then(Value::as_str))
                    .collect();
                let events::Diff {
                    events: added,
                    unlinked,
                } = events::diff(&old_ace, &changed, &kept_ids, &ids, now, narrative);
                for id in unlinked {
                    losses.lose(
                        &rules::DROPPED_FIELD,
                        Some(&id),
                        "entries",
                        "the entry changed, but its last event in the log has no `eventId`, so no event can record the change",
                    );
                }
                if let Some(Value::Array(list)) = p.get_mut(key) {
                    list.extend(added);
                }
            }
        }
        Shape::Other(_) => {}
        Shape::Ace => {
            p.insert(
                "entries".into(),
                Value::Array(entries.into_iter().map(Value::Object).collect()),
            );
            let changed = basis.as_ref() != Some(&metrics_basis(&pb.entries));
            if changed {
                let last = pb.updated_at.clone().unwrap_or_else(|| now.to_owned());
                p.insert("metrics".into(), metrics(&pb.entries, &last));
            }
        }
    }
    if let Some(v) = int_version(pb) {
        p.insert("version".into(), v);
    }
    if let Some(t) = zoned(pb.created_at.as_deref()) {
        p.insert("created".into(), Value::String(t));
    }
    if let Some(t) = zoned(pb.updated_at.as_deref()) {
        p.insert("updated".into(), Value::String(t));
    }
    if !tools.is_empty() {
        p.insert(ACE_TOOLS_KEY.into(), Value::Object(tools));
    }
}

/// Whether two entries are the same apart from where they were read.
fn same_entry(a: &Entry, b: &Entry) -> bool {
    let mut b = b.clone();
    b.origin = a.origin;
    *a == b
}

/// Prints JSON as the vAgenda spec writes it (two-space indentation, arrays
/// of plain values on one line) with, in place of the (empty) array `slot`,
/// the model's entries, each built and printed in turn.
struct Printer<'a, 'w> {
    slot: Option<&'a Value>,
    pb: &'a Playbook,
    kinds: &'a SectionKinds<'a>,
    out: &'a mut Out<'w>,
    style: Style,
}

/// How a rewritten file was printed, where it differs from the spec's
/// style: what `JSON.stringify(doc, null, 4)` or Python's `json.dump`
/// write (each array item on its own line, another indentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// Spaces per level (0: a tab).
    pub indent: usize,
    /// Arrays of plain values on one line.
    pub inline_arrays: bool,
    /// Characters beyond ASCII written as `\u` escapes.
    pub ascii_only: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            indent: 2,
            inline_arrays: true,
            ascii_only: false,
        }
    }
}

impl Style {
    /// The style the layout keeps (`style`), the spec's without one.
    fn of(layout: Option<&Value>) -> Style {
        let d = Style::default();
        let Some(s) = layout.and_then(|l| l.get("style")) else {
            return d;
        };
        Style {
            indent: s
                .get("indent")
                .and_then(Value::as_u64)
                .map_or(d.indent, |n| n.min(16) as usize),
            inline_arrays: s
                .get("inlineArrays")
                .and_then(Value::as_bool)
                .unwrap_or(d.inline_arrays),
            ascii_only: s
                .get("asciiOnly")
                .and_then(Value::as_bool)
                .unwrap_or(d.ascii_only),
        }
    }
}

impl<'w> Blocks<'w> for Printer<'_, 'w> {
    fn out(&mut self) -> &mut Out<'w> {
        self.out
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            match self.style.indent {
                0 => self.out.push('\t'),
                n => (0..n).for_each(|_| self.out.push(' ')),
            }
        }
    }
}

impl Printer<'_, '_> {
    /// A JSON string in the file's style: in an ASCII-only file, as
    /// Python's `ensure_ascii` writes it (DEL and beyond as `\u` escapes),
    /// so that a file Python wrote is written back as it was.
    fn string(&mut self, s: &str) {
        ace_pyjson::escape(s, self.style.ascii_only, self.out);
    }

    fn scalar(&mut self, v: &Value) {
        match v {
            Value::String(s) => self.string(s),
            other => scalar_into(other, self.out),
        }
    }

    fn value(&mut self, v: &Value, level: usize) {
        if self.slot.is_some_and(|s| std::ptr::eq(s, v)) {
            return self.entries(level);
        }
        match v {
            Value::Object(m) => self.object(m, level),
            Value::Array(a) if a.is_empty() => self.out.push_str("[]"),
            Value::Array(a)
                if self.style.inline_arrays
                    && a.iter().all(|x| !x.is_object() && !x.is_array()) =>
            {
                self.out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.scalar(x);
                }
                self.out.push(']');
            }
            Value::Array(a) => block(self, "[", "]", a.len(), level, |p, i| {
                p.value(&a[i], level + 1)
            }),
            other => self.scalar(other),
        }
    }

    fn object(&mut self, m: &Map<String, Value>, level: usize) {
        self.members(m.iter(), level, |p, v| p.value(v, level + 1));
    }

    /// `{}`, or the members one a line at `level + 1`, each value printed
    /// by `value`.
    fn members<K: AsRef<str>, V>(
        &mut self,
        members: impl ExactSizeIterator<Item = (K, V)>,
        level: usize,
        mut value: impl FnMut(&mut Self, V),
    ) {
        let n = members.len();
        let mut members = members;
        block(self, "{", "}", n, level, |p, _| {
            if let Some((k, v)) = members.next() {
                p.string(k.as_ref());
                p.out.push_str(": ");
                value(p, v);
            }
        });
    }

    /// The entries as an array of objects would print, runs of them
    /// printed on several threads.
    fn entries(&mut self, level: usize) {
        let (pb, kinds, style) = (self.pb, self.kinds, self.style);
        let n = pb.entries.len();
        spread_block(self, "[", "]", n, level, |range, out| {
            let mut p = Printer {
                slot: None,
                pb,
                kinds,
                out,
                style,
            };
            lines(&mut p, range, n, level, |p, i| {
                let e = &pb.entries[i];
                p.fields(&kinds.fields(e), level + 1);
            });
        });
    }

    /// An entry's fields as [`Printer::object`] prints them as a map.
    fn fields(&mut self, m: &entry::Fields<'_>, level: usize) {
        self.members(
            m.iter().map(|(k, f)| (*k, f)),
            level,
            |p, field| match field {
                Field::Str(s) => p.string(s),
                Field::Strs([]) => p.out.push_str("[]"),
                Field::Strs(items) if !p.style.inline_arrays => {
                    block(p, "[", "]", items.len(), level + 1, |p, i| {
                        p.string(&items[i]);
                    })
                }
                Field::Strs(items) => {
                    p.out.push('[');
                    for (i, s) in items.iter().enumerate() {
                        if i > 0 {
                            p.out.push_str(", ");
                        }
                        p.string(s);
                    }
                    p.out.push(']');
                }
                Field::Val(v) => p.value(v, level + 1),
                Field::Obj(fields) => p.fields(fields, level + 1),
            },
        );
    }
}

/// Prints the parts of a document that a rewrite writes anew, in the
/// file's style and line endings.
pub(crate) struct Reprint<'a> {
    pub pb: &'a Playbook,
    pub kinds: &'a SectionKinds<'a>,
    pub style: Style,
    pub crlf: bool,
    unit: String,
}

impl<'a> Reprint<'a> {
    pub fn new(pb: &'a Playbook, kinds: &'a SectionKinds<'a>, style: Style, crlf: bool) -> Self {
        let unit = match style.indent {
            0 => "\t".to_owned(),
            n => " ".repeat(n),
        };
        Reprint {
            pb,
            kinds,
            style,
            crlf,
            unit,
        }
    }

    fn print(&self, f: impl FnOnce(&mut Printer<'_, '_>)) -> String {
        let mut out = Out::new();
        f(&mut Printer {
            slot: None,
            pb: self.pb,
            kinds: self.kinds,
            out: &mut out,
            style: self.style,
        });
        let text = out.into_string();
        if self.crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        }
    }

    /// An entry as the whole writer prints it, on a line `level` deep.
    pub fn entry(&self, e: &Entry, level: usize) -> String {
        self.print(|p| p.fields(&self.kinds.fields(e), level))
    }
}

impl ace_jsonspan::splice::Print for Reprint<'_> {
    fn value(&mut self, v: &Value, level: usize) -> String {
        self.print(|p| p.value(v, level))
    }

    fn key(&mut self, k: &str) -> String {
        self.print(|p| p.string(k))
    }

    fn unit(&self) -> &str {
        &self.unit
    }
}

/// The model's entries as TRON items, each built from the model when the
/// TRON writer asks for it.
struct TronEntries<'a> {
    pb: &'a Playbook,
    kinds: &'a SectionKinds<'a>,
    info_key: &'a str,
}

impl std::fmt::Debug for TronEntries<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TronEntries({} entries)", self.pb.entries.len())
    }
}

impl ace_tron::Items for TronEntries<'_> {
    fn len(&self) -> usize {
        self.pb.entries.len()
    }

    /// The item [`item_with`] gives the entry's JSON object, built from its
    /// fields without that object: nothing in an entry is typed below it.
    fn with(&self, i: usize, f: &mut dyn FnMut(&ace_tron::Item<'_>)) {
        use ace_tron::Item;
        let e = &self.pb.entries[i];
        let fields = self.kinds.fields(e);
        f(&Item::Object(ace_tron::Obj {
            class: Ty::PlaybookEntry.class(self.info_key),
            null_is_absent: Ty::PlaybookEntry.typed(),
            members: tron_members(&fields),
        }));
    }

    /// The entry's keys without its TRON item: only the entry object has
    /// a class (an object of fields inside it is written without one).
    fn shapes(&self, i: usize, f: &mut dyn FnMut(&str, &[&str])) {
        let Some(class) = Ty::PlaybookEntry.class(self.info_key) else {
            return;
        };
        let e = &self.pb.entries[i];
        let fields = self.kinds.fields(e);
        let keys: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
        f(class, &keys);
    }
}

/// Fields as TRON members; an object of fields is an object without a
/// class, as a JSON object inside an entry is.
fn tron_members<'f>(fields: &'f entry::Fields<'_>) -> Vec<(&'f str, ace_tron::Item<'f>)> {
    use ace_tron::Item;
    fields
        .iter()
        .map(|(k, field)| {
            let item = match field {
                Field::Str(s) => Item::Str(s),
                Field::Strs(items) => Item::Array(items.iter().map(|s| Item::Str(s)).collect()),
                Field::Val(v) => Item::Value(v),
                Field::Obj(fields) => Item::Object(ace_tron::Obj {
                    class: None,
                    null_is_absent: &[],
                    members: tron_members(fields),
                }),
            };
            (*k, item)
        })
        .collect()
}

/// A string, number, boolean or null as serde_json prints it, without the
/// temporary string per value that `to_string` makes.
fn scalar_into(v: &Value, out: &mut Out<'_>) {
    use std::fmt::Write;
    match v {
        Value::String(s) => ace_pyjson::escape(s, false, out),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        _ => out.push_str("null"),
    }
}

/// `1 playbook entry`, `2 playbook entries`.
fn entries_phrase(n: usize) -> String {
    match n {
        1 => "1 playbook entry".to_owned(),
        n => format!("{n} playbook entries"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Entries whose fields take each way [`entry::fields`] has of holding
    /// them: borrowed strings and lists, borrowed values, built metadata.
    fn varied() -> Playbook {
        let entries = [
            json!({"id": "a", "content": "plain", "section": "strategies_and_insights"}),
            json!({"id": "b\"q", "content": "line\nbreak \u{1} é \\", "title": "t\t",
                   "tags": [], "evidence": ["e", {"kind": "file", "ref": "x.rs", "note": "n"}],
                   "confidence": "high", "helpful": 3, "harmful": 0, "status": "archived",
                   "section": "mine", "links": ["a"], "neutral": 2}),
            json!({"id": "c", "content": "", "tags": ["x\"y", "é"], "supersedes": [],
                   "superseded_by": "a", "duplicate_of": "a", "deprecation_reason": "r",
                   "created_at": "2025-01-01T00:00:00Z", "confidence": 0.25,
                   "extra": {"metadata": {"k": [1, {"deep": null}]}, "feedbackType": "x",
                             "zeta": {"n": 1}, "id2": null}}),
            json!({"id": "d", "content": "m", "extra": {"metadata": "not an object"},
                   "kind": "odd"}),
            json!({"id": "e", "content": "m", "status": "weird", "kind": "warning",
                   "extra": {"metadata": [1], "aceTools": 1, "text": "again"}}),
            // aceTools already in the metadata is replaced where it stands.
            json!({"id": "f", "content": "m",
                   "extra": {"metadata": {"a": 1, "aceTools": {"old": 1}, "z": [2]}}}),
            json!({"id": "g", "content": "m", "section": "strategies_and_insights",
                   "extra": {"metadata": {"a": 1}}}),
        ];
        Playbook {
            entries: entries
                .into_iter()
                .map(|v| serde_json::from_value(v).unwrap())
                .collect(),
            ..Playbook::default()
        }
    }

    /// Arrays of plain values of every type, in each style.
    #[test]
    fn plain_arrays_print_in_the_file_s_style() {
        let pb = Playbook::default();
        let kinds = SectionKinds::new(&pb, &ace_model::mapping::BUILT_IN);
        let v = serde_json::json!({"a": [1, -2.5, true, null, "caf\u{e9}"]});
        let print = |style: Style| {
            let mut out = Out::new();
            Printer {
                slot: None,
                pb: &pb,
                kinds: &kinds,
                out: &mut out,
                style,
            }
            .value(&v, 0);
            out.into_string()
        };
        assert_eq!(
            print(Style::default()),
            "{\n  \"a\": [1, -2.5, true, null, \"caf\u{e9}\"]\n}"
        );
        assert_eq!(
            print(Style {
                indent: 4,
                inline_arrays: false,
                ascii_only: true,
            }),
            "{\n    \"a\": [\n        1,\n        -2.5,\n        true,\n        null,\n        \"caf\\u00e9\"\n    ]\n}"
        );
    }

    #[test]
    fn entry_fields_print_as_the_entry_object_prints() {
        let pb = varied();
        let kinds = SectionKinds::new(&pb, &ace_model::mapping::BUILT_IN);
        let styles = [
            Style::default(),
            Style {
                indent: 4,
                inline_arrays: false,
                ascii_only: true,
            },
            Style {
                indent: 0,
                inline_arrays: true,
                ascii_only: false,
            },
        ];
        for (e, style) in pb.entries.iter().flat_map(|e| styles.map(|s| (e, s))) {
            let (mut a, mut b) = (Out::new(), Out::new());
            for (out, by_fields) in [(&mut a, true), (&mut b, false)] {
                let mut p = Printer {
                    slot: None,
                    pb: &pb,
                    kinds: &kinds,
                    out,
                    style,
                };
                match by_fields {
                    true => p.fields(&kinds.fields(e), 2),
                    false => p.object(&entry::write(e, kinds.of(e), kinds.map, kinds.extras), 2),
                }
            }
            assert_eq!(a.into_string(), b.into_string(), "{} {style:?}", e.id);
        }
    }

    /// [`varied`] entries as the TRON writer is handed them.
    fn with_varied_tron(test: impl FnOnce(&Playbook, &SectionKinds, &TronEntries)) {
        let pb = varied();
        let kinds = SectionKinds::new(&pb, &ace_model::mapping::BUILT_IN);
        let items = TronEntries {
            pb: &pb,
            kinds: &kinds,
            info_key: "vAgendaInfo",
        };
        test(&pb, &kinds, &items);
    }

    #[test]
    fn entry_fields_are_the_tron_item_of_the_entry_object() {
        with_varied_tron(|pb, kinds, items| {
            let opts = ace_tron::WriteOptions {
                root: RootStyle::Braced,
                width: 40,
            };
            for (i, e) in pb.entries.iter().enumerate() {
                let mut by_fields = String::new();
                ace_tron::Items::with(items, i, &mut |item| {
                    by_fields = ace_tron::write(item, &opts);
                });
                let object = Value::Object(entry::write(e, kinds.of(e), kinds.map, kinds.extras));
                let by_object = ace_tron::write(
                    &item_with(&object, Ty::PlaybookEntry, "vAgendaInfo", None),
                    &opts,
                );
                assert_eq!(by_fields, by_object, "{}", e.id);
            }
        });
    }

    /// The entries' shapes as the TRON writer finds them by default, by
    /// building each item and walking it.
    #[derive(Debug)]
    struct Built<'a>(&'a TronEntries<'a>);

    impl ace_tron::Items for Built<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn with(&self, i: usize, f: &mut dyn FnMut(&ace_tron::Item<'_>)) {
            self.0.with(i, f)
        }
    }

    #[test]
    fn entry_shapes_are_those_of_the_built_items() {
        use ace_tron::Items;
        with_varied_tron(|_, _, items| {
            let built = Built(items);
            let shapes = |of: &dyn Items, i: usize| {
                let mut found: Vec<(String, Vec<String>)> = Vec::new();
                of.shapes(i, &mut |class, keys| {
                    found.push((class.into(), keys.iter().map(|k| (*k).to_owned()).collect()))
                });
                found
            };
            for i in 0..items.len() {
                let own = shapes(items, i);
                assert_eq!(own.len(), 1, "{i}");
                assert_eq!(own, shapes(&built, i), "{i}");
            }
            let opts = ace_tron::WriteOptions::default();
            assert_eq!(
                ace_tron::write(&ace_tron::Item::Lazy(items), &opts),
                ace_tron::write(&ace_tron::Item::Lazy(&built), &opts)
            );
        });
    }
}
