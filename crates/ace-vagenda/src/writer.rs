//! The model into a vAgenda document, JSON or TRON.
//!
//! A playbook read from vAgenda is written back into the document it came
//! from (kept under [`crate::LAYOUT_KEY`]): only the entries, and what the
//! user changed, differ. Any other playbook becomes a minimal document, a
//! Plan or a TodoList, that the bundled core and ACE schemas accept.

use std::collections::{HashMap, HashSet};

use ace_model::{mapping, rules, Confidence, Entry, LossEntry, Playbook, Section};
use ace_tron::RootStyle;
use serde_json::{Map, Number, Value};

use crate::reader::{as_ace_entry, shape, Shape};
use crate::types::{item, Ty};
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
}

#[derive(Debug, Clone, Default)]
pub struct WriteOutput {
    pub text: String,
    pub losses: Vec<LossEntry>,
}

const EPOCH: &str = "1970-01-01T00:00:00Z";

/// What the metrics were computed from, to tell whether the entries changed.
pub(crate) fn metrics_basis(entries: &[Entry]) -> Value {
    let (total, avg) = metrics_numbers(entries);
    let mut m = Map::new();
    m.insert("totalEntries".into(), Value::from(total));
    m.insert(
        "averageConfidence".into(),
        avg.map_or(Value::Null, Value::Number),
    );
    Value::Object(m)
}

/// The entry count and the mean confidence rounded to two places (as the
/// ACE extension's example computes it), `None` without any confidence.
fn metrics_numbers(entries: &[Entry]) -> (u64, Option<Number>) {
    let scores: Vec<f64> = entries
        .iter()
        .filter_map(|e| e.confidence.as_ref().and_then(Confidence::score))
        .collect();
    let avg = (!scores.is_empty())
        .then(|| (scores.iter().sum::<f64>() / scores.len() as f64 * 100.0).round() / 100.0)
        .and_then(Number::from_f64);
    (entries.len() as u64, avg)
}

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

/// The kind each entry's section maps to.
fn section_kind(pb: &Playbook, e: &Entry) -> &'static str {
    match e.section.as_deref() {
        Some(key) => {
            let s = pb.section(key);
            mapping::kind_for_section(
                key,
                s.and_then(|s| s.title.as_deref()),
                s.and_then(|s| s.prefix.as_deref()),
            )
        }
        None => "note",
    }
}

/// The sections a reader derives from these entries' kinds; the writer
/// keeps the playbook's own list only when it differs.
fn derived_sections(entries: &[Map<String, Value>]) -> Vec<Section> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for e in entries {
        let Some(row) = entry::kind_for_derivation(e).and_then(mapping::section_for_kind) else {
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

fn latest_timestamp(pb: &Playbook) -> Option<String> {
    pb.entries
        .iter()
        .flat_map(|e| [e.created_at.as_deref(), e.updated_at.as_deref()])
        .chain([pb.created_at.as_deref(), pb.updated_at.as_deref()])
        .flatten()
        .max()
        .map(str::to_owned)
}

/// `pb` as a vAgenda document.
pub fn write(pb: &Playbook, opts: &WriteOptions) -> WriteOutput {
    let mut losses = Vec::new();
    let now = opts
        .now
        .clone()
        .or_else(|| latest_timestamp(pb))
        .unwrap_or_else(|| EPOCH.to_owned());
    let entries: Vec<Map<String, Value>> = pb
        .entries
        .iter()
        .map(|e| entry::write(e, section_kind(pb, e)))
        .collect();
    let kept = pb
        .extra
        .get(LAYOUT_KEY)
        .and_then(|l| l.get("document"))
        .filter(|d| d.is_object())
        .cloned();
    let (doc, info_key) = match kept {
        Some(doc) => {
            let mut doc = doc;
            update_kept(&mut doc, pb, &entries, &now, &mut losses);
            let info = ["vAgendaInfo", "vContextInfo"]
                .into_iter()
                .find(|k| doc.get(*k).is_some())
                .unwrap_or("vAgendaInfo");
            (doc, info)
        }
        None => (
            new_document(pb, entries, opts.container, &now, &mut losses),
            "vAgendaInfo",
        ),
    };
    let text = match opts.syntax {
        Syntax::Json => json_text(&doc),
        Syntax::Tron => {
            let root_ty = if doc.get(info_key).is_some() {
                Ty::Root
            } else {
                Ty::Playbook
            };
            ace_tron::write(
                &item(&doc, root_ty, info_key),
                &ace_tron::WriteOptions {
                    root: opts.tron_root,
                    ..ace_tron::WriteOptions::default()
                },
            )
        }
    };
    WriteOutput { text, losses }
}

/// The container's `metadata.aceTools`: a title marked as filled in (when
/// the model has none and the written title is the default), and the
/// description, which vAgenda has no field for.
fn container_tools(pb: &Playbook, title_filled: bool) -> Map<String, Value> {
    let mut t = Map::new();
    if pb.title.is_none() && title_filled {
        t.insert("title".into(), Value::Null);
    }
    if let Some(d) = &pb.description {
        t.insert("description".into(), Value::String(d.clone()));
    }
    t
}

/// The playbook-level `aceTools`: what the model has beyond vAgenda's
/// Playbook fields.
fn playbook_tools(
    pb: &Playbook,
    entries: &[Map<String, Value>],
    version_kept: bool,
) -> Map<String, Value> {
    let mut t = Map::new();
    if !version_kept {
        t.insert("version".into(), pb.version.clone().unwrap_or(Value::Null));
    }
    if pb.created_at.is_none() {
        t.insert("created".into(), Value::Null);
    }
    if pb.updated_at.is_none() {
        t.insert("updated".into(), Value::Null);
    }
    if let Some(p) = &pb.project_id {
        t.insert("projectId".into(), Value::String(p.clone()));
    }
    if pb.sections != derived_sections(entries) {
        t.insert(
            "sections".into(),
            serde_json::to_value(&pb.sections).unwrap_or(Value::Null),
        );
    }
    let extra: Map<String, Value> = pb
        .extra
        .iter()
        .filter(|(k, _)| k.as_str() != LAYOUT_KEY)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !extra.is_empty() {
        t.insert("extra".into(), Value::Object(extra));
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
    pb: &Playbook,
    entries: Vec<Map<String, Value>>,
    container: Container,
    now: &str,
    losses: &mut Vec<LossEntry>,
) -> Value {
    let created = pb.created_at.clone().unwrap_or_else(|| now.to_owned());
    let updated = pb.updated_at.clone().unwrap_or_else(|| now.to_owned());
    if pb.created_at.is_none() || pb.updated_at.is_none() {
        losses.push(LossEntry::new(
            &rules::VALUE_DEFAULTED,
            None,
            "created_at",
            format!(
                "vAgenda requires `playbook.created` and `playbook.updated`; the playbook has no timestamp, so {now} is written (kept as absent in metadata.aceTools for ace-tools; set SOURCE_DATE_EPOCH to choose the time)"
            ),
        ));
    }
    let version = int_version(pb);
    let mut playbook = Map::new();
    playbook.insert("version".into(), version.clone().unwrap_or(Value::from(1)));
    playbook.insert("created".into(), Value::String(created));
    playbook.insert("updated".into(), Value::String(updated.clone()));
    let tools = playbook_tools(pb, &entries, version.is_some());
    let model_entries: Vec<Entry> = pb.entries.clone();
    playbook.insert(
        "entries".into(),
        Value::Array(entries.into_iter().map(Value::Object).collect()),
    );
    playbook.insert("metrics".into(), metrics(&model_entries, &updated));
    if !tools.is_empty() {
        playbook.insert(ACE_TOOLS_KEY.into(), Value::Object(tools));
    }
    let title = pb
        .title
        .clone()
        .unwrap_or_else(|| "ACE playbook".to_owned());
    let meta_tools = container_tools(pb, true);
    let mut c = Map::new();
    match container {
        Container::Plan => {
            c.insert("title".into(), Value::String(title));
            c.insert("status".into(), Value::String("inProgress".into()));
            let content = pb.description.clone().unwrap_or_else(|| {
                format!(
                    "Learned strategies and warnings for the agent: {} playbook entries, kept up to date through the ACE extension's PlaybookPatch operations.",
                    pb.entries.len()
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

/// The kept document with the model's entries and playbook fields in place.
fn update_kept(
    doc: &mut Value,
    pb: &Playbook,
    entries: &[Map<String, Value>],
    now: &str,
    losses: &mut Vec<LossEntry>,
) {
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
        .extra
        .get(LAYOUT_KEY)
        .and_then(|l| l.get("metricsBasis"))
        .cloned();
    // What the reader found marked as filled in (reader::filled_fields).
    let filled: Vec<String> = pb
        .extra
        .get(LAYOUT_KEY)
        .and_then(|l| l.get("filled"))
        .and_then(|f| serde_json::from_value(f.clone()).ok())
        .unwrap_or_default();
    let was_filled = |key: &str| filled.iter().any(|f| f == key);
    let meta_tools = container_tools(pb, was_filled("title"));
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
    match shape(&Value::Object(p.clone())) {
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
            let as_model = crate::reader::event_entries(&old, &pb.sections);
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
                let narrative = old.iter().any(|e| e.get("narrative").is_some());
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
                    losses.push(LossEntry::new(
                        &rules::DROPPED_FIELD,
                        Some(&id),
                        "entries",
                        "the entry changed, but its last event in the log has no `eventId`, so no event can record the change",
                    ));
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
                Value::Array(entries.iter().cloned().map(Value::Object).collect()),
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
    if let Some(t) = &pb.created_at {
        p.insert("created".into(), Value::String(t.clone()));
    }
    if let Some(t) = &pb.updated_at {
        p.insert("updated".into(), Value::String(t.clone()));
    }
    let version_kept =
        int_version(pb).is_some() || (pb.version.is_none() && !p.contains_key("version"));
    let tools = playbook_tools(pb, entries, version_kept);
    // Timestamps the kept document has are its own, not defaults, unless
    // they were marked as filled in when it was read.
    let tools: Map<String, Value> = tools
        .into_iter()
        .filter(|(k, _)| !matches!(k.as_str(), "created" | "updated") || was_filled(k))
        .collect();
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

/// JSON as the vAgenda spec writes it: two-space indentation, arrays of
/// plain values on one line, a final newline.
pub fn json_text(v: &Value) -> String {
    let mut out = String::new();
    json_into(v, 0, &mut out);
    out.push('\n');
    out
}

fn json_into(v: &Value, level: usize, out: &mut String) {
    let pad = |out: &mut String, level: usize| {
        for _ in 0..level {
            out.push_str("  ");
        }
    };
    match v {
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Object(m) => {
            out.push_str("{\n");
            for (i, (k, val)) in m.iter().enumerate() {
                pad(out, level + 1);
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                json_into(val, level + 1, out);
                if i + 1 < m.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            pad(out, level);
            out.push('}');
        }
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&x.to_string());
            }
            out.push(']');
        }
        Value::Array(a) => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                pad(out, level + 1);
                json_into(x, level + 1, out);
                if i + 1 < a.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            pad(out, level);
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}
