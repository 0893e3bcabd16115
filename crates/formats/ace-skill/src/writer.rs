//! The model as a skill playbook. With the layout a skill file was read with,
//! the output is that file again, changed only where the model changed; with
//! none, the output is what the skill's own scripts write.

use std::collections::{HashMap, HashSet, VecDeque};

use ace_model::{
    rules, Confidence, ConfidenceLevel, Entry, Evidence, LossEntry, Playbook, Scope, ScopeDetail,
};
use ace_model::{Losses, WriteReport};
use ace_schema::Generation;
use serde_json::{Map, Number, Value};

use crate::fields::KeyOrder;
use crate::layout::{keeps_sections, Layout};
use crate::style::{escape, Style, Text};
use crate::LAYOUT_KEY;

/// Options for [`write_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Convert `confidence` and `scope` to this generation's form. `None`
    /// writes each value of a skill file in the form it was read in, and a
    /// new skill playbook in the current generation's.
    pub generation: Option<Generation>,
    /// `SOURCE_DATE_EPOCH`'s time, for the date of new bullet IDs.
    pub now: Option<String>,
    /// The date of new bullet IDs when neither `now` nor the playbook
    /// gives one (`WriteCtx::clock`); `None`: 1970-01-01.
    pub clock: Option<String>,
}

/// The text and what it could not hold.
#[derive(Debug, Clone, Default)]
pub struct WriteOutput {
    pub text: String,
    pub losses: Vec<LossEntry>,
}

const WRAPPER_ORDER: [&str; 5] = [
    "version",
    "schema_version",
    "last_updated",
    "bullets",
    "metadata",
];

/// One entry as the bullet object this writer prints into a skill file
/// (each value in the form it was read in, keys in the skill's order), and
/// what the bullet could not hold: what a skill delta carries.
pub fn bullet_value(e: &Entry) -> (Value, Vec<LossEntry>) {
    let mut w = Writer {
        losses: Vec::new(),
        opts: WriteOptions::default(),
        sections: None,
    };
    let v = w.bullet(e, &KeyOrder::new(&[][..]));
    (v, w.losses)
}

pub fn write(pb: &Playbook) -> WriteOutput {
    write_with(pb, &WriteOptions::default())
}

pub fn write_with(pb: &Playbook, opts: &WriteOptions) -> WriteOutput {
    let mut out = ace_exec::Out::new();
    let report = write_into(pb, opts, &mut out);
    WriteOutput {
        text: out.into_string(),
        losses: report.losses,
    }
}

/// [`write_with`] onto `out`, one bullet at a time: no bullet is held as a
/// JSON value longer than it takes to print it. A long playbook's bullets
/// are printed on every core, in runs appended in order. A playbook read
/// from another format is first made into what the bullet schema accepts
/// ([`crate::conform`]). Gives what the file could not hold and the IDs
/// given anew.
pub fn write_into(pb: &Playbook, opts: &WriteOptions, out: &mut ace_exec::Out) -> WriteReport {
    if pb.layout_of(LAYOUT_KEY).is_some() {
        return WriteReport {
            losses: write_kept(pb, opts, out),
            id_changes: Vec::new(),
        };
    }
    let conformed = crate::conform::conform(pb, opts.now.as_deref(), opts.clock.as_deref());
    let opts = WriteOptions {
        generation: opts.generation.or(Some(Generation::CURRENT)),
        now: None,
        clock: None,
    };
    let mut losses = conformed.losses;
    losses.extend(write_kept(&conformed.playbook, &opts, out));
    WriteReport {
        losses,
        id_changes: conformed.id_changes,
    }
}

fn write_kept(pb: &Playbook, opts: &WriteOptions, out: &mut ace_exec::Out) -> Vec<LossEntry> {
    let stored = pb.layout_of(LAYOUT_KEY);
    let layout = stored.map(Layout::from_value).unwrap_or_default();
    let sections = keeps_sections(pb, &layout, stored.is_none())
        .then(|| std::sync::Arc::new(pb.sections.iter().map(|s| s.key.clone()).collect()));
    let mut w = Writer {
        losses: Vec::new(),
        opts: opts.clone(),
        sections: sections.clone(),
    };
    w.playbook_losses(pb, layout.array);
    // Which recorded key order each entry takes, settled in entry order
    // before any is printed: a repeated ID takes its orders one by one.
    let mut orders: HashMap<&str, VecDeque<&[String]>> = HashMap::new();
    for (id, keys) in &layout.bullet_orders {
        orders.entry(id.as_str()).or_default().push_back(keys);
    }
    let order_of: Vec<Option<&[String]>> = match orders.is_empty() {
        true => Vec::new(),
        false => pb
            .entries
            .iter()
            .map(|e| orders.get_mut(e.id.as_str()).and_then(VecDeque::pop_front))
            .collect(),
    };
    // Matched against the default order once, not for every bullet.
    let template = KeyOrder::new(&layout.bullet_keys[..]);
    let bullets = Bullets::new(&layout.non_bullets, pb.entries.len());
    let style = layout.style;
    let print_run = |range: std::ops::Range<usize>,
                     level: usize,
                     one_line: bool,
                     out: &mut ace_exec::Out<'_>,
                     losses: &mut Vec<LossEntry>| {
        let mut w = Writer {
            losses: std::mem::take(losses),
            opts: opts.clone(),
            sections: sections.clone(),
        };
        style.items(
            range,
            level,
            one_line,
            out,
            &mut |i, level, out| match bullets.at(i) {
                Slot::Kept(v) => style.write(v, level, out),
                Slot::Entry(k) => {
                    let e = w.with_section_tag(&pb.entries[k]);
                    let e = &*e;
                    match order_of.get(k).copied().flatten() {
                        Some(own) => w.write_bullet(e, &KeyOrder::new(own), &style, level, out),
                        None => w.write_bullet(e, &template, &style, level, out),
                    }
                }
            },
        );
        *losses = w.losses;
    };
    let mut print_bullets = |level: usize, out: &mut ace_exec::Out<'_>| {
        style.write_array_by(
            bullets.len(),
            bullets.all_scalar(),
            level,
            out,
            &mut |one_line, out| {
                ace_exec::par::print_runs_reporting(
                    bullets.len(),
                    out,
                    &mut w.losses,
                    |range, out, losses| print_run(range, level, one_line, out, losses),
                );
            },
        );
    };
    if layout.array {
        print_bullets(0, out);
    } else {
        let members = wrapper(pb, &layout, bullets.len() == 0, stored.is_none());
        style.write_object(
            members.len(),
            &|i| members[i].0.as_str(),
            0,
            out,
            &mut |i, level, out| match &members[i].1 {
                Member::Value(v) => style.write(v, level, out),
                Member::Bullets => print_bullets(level, out),
            },
        );
    }
    style.end(out);
    w.losses
}

/// The bullets array as printed: the entries, with what the file held
/// that was no bullet object put back where it was.
struct Bullets<'a> {
    /// At which printed index each kept item goes, in order.
    kept: Vec<(usize, &'a Value)>,
    len: usize,
}

enum Slot<'a> {
    /// The entry of this index.
    Entry(usize),
    Kept(&'a Value),
}

impl<'a> Bullets<'a> {
    fn new(non_bullets: &'a [(usize, Value)], entries: usize) -> Self {
        // Each kept item goes in at its old index, or at the end if the
        // array is no longer that long, one after the other; an insertion
        // moves the kept items at or after it one on. Only their places are
        // worked out (there are few), not the whole array's.
        let mut kept: Vec<(usize, &Value)> = Vec::with_capacity(non_bullets.len());
        for (n, (i, v)) in non_bullets.iter().enumerate() {
            let at = (*i).min(entries + n);
            for (k, _) in kept.iter_mut().filter(|(k, _)| *k >= at) {
                *k += 1;
            }
            kept.push((at, v));
        }
        kept.sort_by_key(|(k, _)| *k);
        Bullets {
            len: entries + kept.len(),
            kept,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// Whether every item is a scalar (no entries, and only scalars kept).
    fn all_scalar(&self) -> bool {
        self.len == self.kept.len()
            && self
                .kept
                .iter()
                .all(|(_, v)| !matches!(v, Value::Array(_) | Value::Object(_)))
    }

    fn at(&self, i: usize) -> Slot<'a> {
        match self.kept.binary_search_by_key(&i, |(k, _)| *k) {
            Ok(k) => Slot::Kept(self.kept[k].1),
            // `k` kept items stand before it.
            Err(k) => Slot::Entry(i - k),
        }
    }
}

/// A member of the wrapper object: a value, or the bullets, printed as
/// they are made.
enum Member {
    Value(Value),
    Bullets,
}

fn wrapper(pb: &Playbook, layout: &Layout, no_bullets: bool, fresh: bool) -> Vec<(String, Member)> {
    let extra = |k: &str| pb.extra.get(k).cloned();
    let mut bullets_left = true;
    let mut value_of = |key: &str| -> Option<Member> {
        match key {
            "version" => match version_in_wrapper(pb, layout, fresh) {
                true => pb.version.clone().map(Member::Value),
                false => extra(key).map(Member::Value),
            },
            "last_updated" => pb
                .updated_at
                .clone()
                .map(Value::String)
                .or_else(|| extra(key))
                .map(Member::Value),
            "bullets" => {
                if !std::mem::take(&mut bullets_left) {
                    return None;
                }
                if no_bullets && pb.extra.contains_key("bullets") {
                    extra(key).map(Member::Value)
                } else {
                    Some(Member::Bullets)
                }
            }
            "metadata" => metadata(pb, layout, fresh).map(Member::Value),
            _ => extra(key).map(Member::Value),
        }
    };
    let mut m: Vec<(String, Member)> = Vec::new();
    for key in &layout.keys {
        if let Some(v) = value_of(key) {
            m.push((key.clone(), v));
        }
    }
    let rest = WRAPPER_ORDER
        .iter()
        .map(|k| k.to_string())
        .chain(pb.extra.keys().cloned());
    for key in rest {
        if m.iter().any(|(k, _)| *k == key) {
            continue;
        }
        if let Some(v) = value_of(&key) {
            m.push((key, v));
        }
    }
    m
}

/// Whether the playbook's version is the skill's own `version`: a string
/// (`"1.0.0"`), or whatever a skill file being rewritten had there. A
/// number from another format (playbook.yaml's `0.3`) means something
/// else, and goes into `metadata.ace_tools`.
fn version_in_wrapper(pb: &Playbook, layout: &Layout, fresh: bool) -> bool {
    match &pb.version {
        None => false,
        Some(Value::String(_)) => true,
        Some(_) => !fresh && layout.keys.iter().any(|k| k == "version"),
    }
}

/// `metadata.ace_tools` ([`crate::ACE_TOOLS_KEY`]): the section table and
/// a version the wrapper does not carry, when there is either.
fn ace_tools(pb: &Playbook, layout: &Layout, fresh: bool) -> Option<Value> {
    let mut m = Map::new();
    if !version_in_wrapper(pb, layout, fresh) {
        if let Some(v) = &pb.version {
            m.insert("version".into(), v.clone());
        }
    }
    if keeps_sections(pb, layout, fresh) {
        m.insert(
            "sections".into(),
            serde_json::to_value(&pb.sections).unwrap_or_default(),
        );
    }
    (!m.is_empty()).then_some(Value::Object(m))
}

/// The wrapper's `metadata`: the keys the file had, in its order, with the
/// counts computed from the bullets (reader::split_metadata kept only the
/// wrong ones). The skill's merge script reads `metadata.total_bullets` and
/// fails without it, so a new file gets all four counts.
fn metadata(pb: &Playbook, layout: &Layout, fresh: bool) -> Option<Value> {
    let kept = pb.extra.get("metadata");
    let tools = ace_tools(pb, layout, fresh);
    if !fresh && kept.is_none() && layout.metadata_keys.is_empty() && tools.is_none() {
        return None;
    }
    let counts = crate::fields::metadata_counts(&pb.entries);
    let mut order: Vec<String> = if fresh {
        counts.iter().map(|(k, _)| (*k).to_owned()).collect()
    } else {
        layout.metadata_keys.clone()
    };
    if let Some(Value::Object(kept)) = kept {
        let more: Vec<String> = kept
            .keys()
            .filter(|k| !order.contains(k))
            .cloned()
            .collect();
        order.extend(more);
    }
    if tools.is_some() && !order.iter().any(|k| k == crate::ACE_TOOLS_KEY) {
        order.push(crate::ACE_TOOLS_KEY.to_owned());
    }
    let mut m = Map::new();
    for key in order {
        if key == crate::ACE_TOOLS_KEY {
            if let Some(v) = &tools {
                m.insert(key, v.clone());
                continue;
            }
        }
        let value = kept.and_then(|k| k.get(&key)).cloned().or_else(|| {
            counts
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, n)| Value::from(*n))
        });
        if let Some(v) = value {
            m.insert(key, v);
        }
    }
    match kept {
        Some(v) if !v.is_object() => Some(v.clone()),
        _ => Some(Value::Object(m)),
    }
}

/// A bullet's field as [`Writer::write_bullet`] prints it.
enum Field<'e> {
    Extra(&'e Value),
    Value(Value),
    Str(&'e str),
    List(&'e [String]),
}

impl Field<'_> {
    fn into_value(self) -> Value {
        match self {
            Field::Extra(v) => v.clone(),
            Field::Value(v) => v,
            Field::Str(s) => Value::String(s.to_owned()),
            Field::List(items) => Value::Array(items.iter().cloned().map(Value::String).collect()),
        }
    }
}

/// The names generation 1 allows for `scope`.
const SCOPE_NAMES: [&str; 4] = ["global", "project", "domain", "temporary"];

struct Writer {
    losses: Vec<LossEntry>,
    opts: WriteOptions,
    /// The keys of the section table written in `metadata.ace_tools`: an
    /// entry of one of them carries its section as its first tag.
    sections: Option<std::sync::Arc<HashSet<String>>>,
}

impl Writer {
    fn playbook_losses(&mut self, pb: &Playbook, array: bool) {
        for (name, present) in [
            ("title", pb.title.is_some()),
            ("description", pb.description.is_some()),
            ("project_id", pb.project_id.is_some()),
            ("created_at", pb.created_at.is_some()),
        ] {
            if present {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    name,
                    "a skill playbook has no place for this playbook field",
                );
            }
        }
        if array {
            for (name, present) in [
                ("version", pb.version.is_some()),
                ("updated_at", pb.updated_at.is_some()),
            ] {
                if present {
                    self.losses.lose(
                        &rules::DROPPED_FIELD,
                        None,
                        name,
                        "a bare array of bullets has no place for playbook fields",
                    );
                }
            }
            for key in pb.extra.keys() {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    format!("extra.{key}"),
                    "a bare array of bullets has no place for playbook fields",
                );
            }
        }
        // A new file keeps the section table in `metadata.ace_tools`; a
        // bare array of bullets, or a skill file without the table, has
        // nowhere to.
        for s in pb.sections.iter().filter(|_| self.sections.is_none()) {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}]", s.key),
                "a skill playbook has no sections; each entry's section is reported with it",
            );
        }
    }

    /// Prints the bullet [`Writer::bullet`] builds, straight from the
    /// entry: building each bullet as a `Value` (copying its strings into
    /// a map, hashing its keys) was two fifths of a million-bullet write.
    fn write_bullet<O: Text>(
        &mut self,
        e: &Entry,
        order: &KeyOrder<'_>,
        style: &Style,
        level: usize,
        out: &mut O,
    ) {
        self.bullet_losses(e);
        let mut fields: Vec<(&str, Field<'_>)> = Vec::with_capacity(12);
        for key in order.keys(e) {
            let field = match e.extra.get(key) {
                Some(v) => Some(Field::Extra(v)),
                None => self.model_field(e, key),
            };
            if let Some(field) = field {
                fields.push((key, field));
            }
        }
        let ascii = style.ascii;
        style.write_object(
            fields.len(),
            &|i| fields[i].0,
            level,
            out,
            &mut |i, level, out| match &fields[i].1 {
                Field::Extra(v) => style.write(*v, level, out),
                Field::Value(v) => style.write(v, level, out),
                Field::Str(s) => escape(s, ascii, out),
                Field::List(items) => {
                    style.write_array(items.len(), true, level, out, &mut |j, _, out| {
                        escape(&items[j], ascii, out)
                    })
                }
            },
        );
    }

    /// The model's field named `key`: strings and lists of them borrowed
    /// from the entry, the rare rest built as values.
    fn model_field<'e>(&mut self, e: &'e Entry, key: &str) -> Option<Field<'e>> {
        match key {
            "id" => Some(Field::Str(&e.id)),
            "content" => Some(Field::Str(&e.content)),
            "title" => e.title.as_deref().map(Field::Str),
            "tags" => e.tags.as_deref().map(Field::List),
            "links" => e.links.as_deref().map(Field::List),
            "deprecation_reason" => e.deprecation_reason.as_deref().map(Field::Str),
            "created" => e.created_at.as_deref().map(Field::Str),
            "last_updated" => e.updated_at.as_deref().map(Field::Str),
            _ => self.model_value(e, key).map(Field::Value),
        }
    }

    /// `e` with its section as its first tag, where the section table is
    /// written and the tags do not have it yet (a bullet read back from
    /// such a file had it taken off).
    fn with_section_tag<'e>(&self, e: &'e Entry) -> std::borrow::Cow<'e, Entry> {
        let tag = match (&e.section, &self.sections) {
            (Some(s), Some(table)) if table.contains(s) => crate::conform::slug(s),
            _ => return std::borrow::Cow::Borrowed(e),
        };
        let tags = e.tags.as_deref().unwrap_or_default();
        if tag.is_empty() || tags.contains(&tag) {
            return std::borrow::Cow::Borrowed(e);
        }
        let mut owned = e.clone();
        owned.tags = Some(std::iter::once(tag).chain(tags.iter().cloned()).collect());
        std::borrow::Cow::Owned(owned)
    }

    fn bullet_losses(&mut self, e: &Entry) {
        let id = e.id.as_str();
        let tagged = e.section.as_ref().is_some_and(|s| {
            let tag = crate::conform::slug(s);
            self.sections.as_ref().is_some_and(|t| t.contains(s))
                && !tag.is_empty()
                && e.tags.as_deref().unwrap_or_default().contains(&tag)
        });
        if e.section.is_some() && !tagged {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                "section",
                "a skill bullet has no section (a new file has it among the bullet's tags)",
            );
        }
        for (name, present) in [
            ("kind", e.kind.is_some()),
            ("neutral", e.neutral.is_some()),
            ("supersedes", e.supersedes.is_some()),
            ("superseded_by", e.superseded_by.is_some()),
            ("duplicate_of", e.duplicate_of.is_some()),
            ("provenance", e.provenance.is_some()),
            ("project_id", e.project_id.is_some()),
        ] {
            if present {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    Some(id),
                    name,
                    "a skill bullet has no place for this field",
                );
            }
        }
    }

    /// A bullet as a JSON object: the reference [`Writer::write_bullet`]
    /// prints the same as.
    fn bullet(&mut self, e: &Entry, order: &KeyOrder<'_>) -> Value {
        self.bullet_losses(e);
        let mut m = Map::new();
        for key in order.keys(e) {
            let v = match e.extra.get(key) {
                Some(v) => Some(v.clone()),
                None => self.model_field(e, key).map(Field::into_value),
            };
            if let Some(v) = v {
                m.insert(key.to_owned(), v);
            }
        }
        Value::Object(m)
    }

    /// The model's fields that are printed through a value: the rare ones
    /// and the counters.
    fn model_value(&mut self, e: &Entry, key: &str) -> Option<Value> {
        match key {
            "evidence" => e.evidence.as_ref().map(|items| {
                Value::Array(
                    items
                        .iter()
                        .map(|ev| match ev {
                            Evidence::Text(t) => Value::String(t.clone()),
                            Evidence::Ref(r) => {
                                let mut m = Map::new();
                                for (k, v) in
                                    [("type", &r.kind), ("ref", &r.reference), ("note", &r.note)]
                                {
                                    if let Some(v) = v {
                                        m.insert(k.into(), Value::String(v.clone()));
                                    }
                                }
                                m.extend(r.extra.clone());
                                Value::Object(m)
                            }
                        })
                        .collect(),
                )
            }),
            "helpful_count" => e.helpful.map(Value::from),
            "harmful_count" => e.harmful.map(Value::from),
            "status" => e.status.clone().map(|st| Value::String(st.into())),
            "confidence" => e.confidence.as_ref().map(|c| self.confidence(&e.id, c)),
            "scope" => e.scope.as_ref().map(|sc| self.scope(&e.id, sc)),
            _ => None,
        }
    }

    fn confidence(&mut self, id: &str, c: &Confidence) -> Value {
        match (c, self.opts.generation) {
            (Confidence::Score(n), Some(Generation::One)) => {
                let score = n.as_f64().unwrap_or(0.0);
                let level = ConfidenceLevel::from_score(score);
                if level.score() != score {
                    self.losses.lose(
                        &rules::VALUE_CONVERTED,
                        Some(id),
                        "confidence",
                        "generation 1 holds a level, not a number; the score became the level of its band",
                    );
                }
                Value::from(level.as_str())
            }
            (Confidence::Level(l), Some(Generation::Two)) => {
                self.losses.lose(
                    &rules::VALUE_CONVERTED,
                    Some(id),
                    "confidence",
                    format!(
                        "generation 2 holds a number; the level `{}` became {}",
                        l.as_str(),
                        l.score()
                    ),
                );
                Value::Number(Number::from_f64(l.score()).unwrap_or_else(|| Number::from(0)))
            }
            (Confidence::Score(n), _) => Value::Number(n.clone()),
            (Confidence::Level(l), _) => Value::from(l.as_str()),
        }
    }

    fn scope(&mut self, id: &str, sc: &Scope) -> Value {
        match (sc, self.opts.generation) {
            (Scope::Detail(d), Some(Generation::One)) => {
                let empty = |v: &Option<Value>| {
                    v.as_ref()
                        .is_none_or(|v| v.as_array().is_some_and(Vec::is_empty))
                };
                let name = d.domain.as_deref().filter(|n| SCOPE_NAMES.contains(n));
                match name {
                    Some(n) if empty(&d.inputs) && empty(&d.outputs) && d.extra.is_empty() => {
                        Value::from(n)
                    }
                    _ => {
                        self.losses.lose(
                            &rules::VALUE_CONVERTED,
                            Some(id),
                            "scope",
                            "generation 1 holds a scope name; a structured scope became `domain`, and its domain, inputs and outputs are dropped",
                        );
                        Value::from("domain")
                    }
                }
            }
            (Scope::Name(n), Some(Generation::Two)) => {
                self.losses.lose(
                    &rules::VALUE_CONVERTED,
                    Some(id),
                    "scope",
                    format!("generation 2 holds a scope object; the name `{n}` became its `domain`, with no inputs or outputs"),
                );
                detail_value(&ScopeDetail {
                    domain: Some(n.clone()),
                    inputs: Some(Value::Array(Vec::new())),
                    outputs: Some(Value::Array(Vec::new())),
                    extra: Map::new(),
                })
            }
            (Scope::Name(n), _) => Value::String(n.clone()),
            (Scope::Detail(d), _) => detail_value(d),
        }
    }
}

fn detail_value(d: &ScopeDetail) -> Value {
    let mut m = Map::new();
    if let Some(x) = &d.domain {
        m.insert("domain".into(), Value::String(x.clone()));
    }
    if let Some(x) = &d.inputs {
        m.insert("inputs".into(), x.clone());
    }
    if let Some(x) = &d.outputs {
        m.insert("outputs".into(), x.clone());
    }
    m.extend(d.extra.clone());
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries with every field a bullet prints, odd ones included.
    fn varied_entries() -> Vec<Entry> {
        let mut out = vec![Entry::new("a-1", "plain")];
        let mut e = Entry::new(
            "b-\u{e9}",
            "quote \" slash \\ tab\t nl\n del\u{7f} \u{1F600} \u{2028}",
        );
        e.title = Some("t\u{e9}".into());
        e.tags = Some(vec!["x".into(), "y\"z".into()]);
        e.links = Some(Vec::new());
        e.helpful = Some(-3);
        e.harmful = Some(0);
        e.created_at = Some("2025-01-01".into());
        e.updated_at = Some("2025-01-02".into());
        e.deprecation_reason = Some("old".into());
        e.status = Some(ace_model::Status::Other("weird".into()));
        e.evidence = Some(vec![
            Evidence::Text("run:1".into()),
            Evidence::Ref(ace_model::EvidenceRef {
                kind: Some("file".into()),
                reference: Some("a.rs".into()),
                note: None,
                extra: [("line".to_owned(), Value::from(3))].into_iter().collect(),
            }),
        ]);
        e.confidence = Some(Confidence::Level(ConfidenceLevel::High));
        e.scope = Some(Scope::Name("global".into()));
        e.section = Some("s".into());
        e.supersedes = Some(vec!["a-1".into()]);
        e.extra
            .insert("zeta", serde_json::json!({"k": [1, 2.5, null, "v"]}));
        e.extra.insert("title", Value::from("extra title"));
        out.push(e);
        let mut e = Entry::new("c-3", "");
        e.evidence = Some(vec![Evidence::Text("only text".into())]);
        e.confidence = Some(Confidence::Score(Number::from_f64(0.25).unwrap()));
        e.tags = Some(vec!["solo".into()]);
        e.extra.insert("empty", serde_json::json!([]));
        out.push(e);
        out
    }

    #[test]
    fn bullets_print_as_their_json_objects_do() {
        let orders: Vec<Vec<String>> = vec![
            Vec::new(),
            ["content", "id", "zeta", "tags"].map(String::from).to_vec(),
            ["id", "id", "title", "content", "title"]
                .map(String::from)
                .to_vec(),
        ];
        let styles = Style::samples();
        for generation in [None, Some(Generation::One), Some(Generation::Two)] {
            let opts = WriteOptions {
                generation,
                now: None,
                clock: None,
            };
            for e in varied_entries() {
                for order in &orders {
                    let order = KeyOrder::new(&order[..]);
                    for style in styles {
                        for level in [0, 2] {
                            let mut reference = Writer {
                                losses: Vec::new(),
                                opts: opts.clone(),
                                sections: None,
                            };
                            let mut expected = String::new();
                            style.write(&reference.bullet(&e, &order), level, &mut expected);
                            let mut w = Writer {
                                losses: Vec::new(),
                                opts: opts.clone(),
                                sections: None,
                            };
                            let mut printed = String::new();
                            w.write_bullet(&e, &order, &style, level, &mut printed);
                            assert_eq!(printed, expected, "{}", e.id);
                            assert_eq!(
                                format!("{:?}", w.losses),
                                format!("{:?}", reference.losses),
                                "{}",
                                e.id
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn level_and_score_rules_agree() {
        for l in [
            ConfidenceLevel::High,
            ConfidenceLevel::Medium,
            ConfidenceLevel::Low,
        ] {
            assert_eq!(ConfidenceLevel::from_score(l.score()), l);
        }
        assert_eq!(ConfidenceLevel::from_score(0.8), ConfidenceLevel::High);
        assert_eq!(ConfidenceLevel::from_score(0.5), ConfidenceLevel::Medium);
        assert_eq!(ConfidenceLevel::from_score(0.1), ConfidenceLevel::Low);
    }
}

#[cfg(test)]
mod bullets_tests {
    use super::*;

    /// The items in print order: entries as `"e"`, kept items as they are.
    fn printed(non_bullets: &[(usize, Value)], entries: usize) -> Vec<Value> {
        let b = Bullets::new(non_bullets, entries);
        let mut next = 0;
        (0..b.len())
            .map(|i| match b.at(i) {
                Slot::Entry(k) => {
                    // Each entry once, in order, wherever the kept go.
                    assert_eq!(k, next, "slot {i}");
                    next += 1;
                    Value::from("e")
                }
                Slot::Kept(v) => v.clone(),
            })
            .collect()
    }

    /// Kept items inserted one after the other, each at its index or at
    /// the end: the order the reader's layout is defined by.
    fn inserted(non_bullets: &[(usize, Value)], entries: usize) -> Vec<Value> {
        let mut all = vec![Value::from("e"); entries];
        for (i, v) in non_bullets {
            let at = (*i).min(all.len());
            all.insert(at, v.clone());
        }
        all
    }

    #[test]
    fn kept_items_go_back_where_they_were() {
        let cases: &[(&[usize], usize)] = &[
            (&[], 0),
            (&[], 3),
            (&[0], 0),
            (&[0, 1, 2], 0),
            (&[1, 3], 3),
            (&[0, 5, 9], 2),
            (&[7], 2),
            // Not as a reader records them.
            (&[3, 1], 4),
            (&[2, 2, 0], 1),
        ];
        for (idx, entries) in cases {
            let nb: Vec<(usize, Value)> = idx
                .iter()
                .enumerate()
                .map(|(n, i)| (*i, Value::from(n as i64)))
                .collect();
            assert_eq!(
                printed(&nb, *entries),
                inserted(&nb, *entries),
                "{idx:?} {entries}"
            );
        }
        assert!(Bullets::new(&[(0, Value::from(1))], 0).all_scalar());
        assert!(!Bullets::new(&[(0, Value::from(1))], 1).all_scalar());
    }

    /// Long playbooks are printed in runs on several threads: the text and
    /// the losses, in order, are what one thread gives, with items that are
    /// not bullets kept in their places and the key orders of repeated IDs
    /// taken in turn across runs.
    #[test]
    fn a_long_playbook_is_written_as_one_thread_writes_it() {
        let n = 3 * ace_exec::par::MIN_ITEMS + 5;
        let bullet = |i: usize| match i {
            // Not bullets: kept where they were.
            i if i % 4099 == 3 => format!("{i}"),
            i if i % 5003 == 1 => "null".to_owned(),
            // One ID, its bullets in other key orders, across runs.
            i if i % 3001 == 7 => {
                format!(r#"{{"content": "again {i}", "id": "same", "tags": ["t"]}}"#)
            }
            i => format!(
                r#"{{"id": "b-{i}", "content": "c\u00e9 {i}", "helpful_count": {}, "tags": ["t", "u"]}}"#,
                i % 13
            ),
        };
        let items: Vec<String> = (0..n).map(bullet).collect();
        let text = format!(
            "{{\n  \"bullets\": [\n    {}\n  ]\n}}\n",
            items.join(",\n    ")
        );
        let mut pb = crate::read(&text).unwrap().playbook;
        assert_eq!(pb.entries.len(), n - n / 4099 - n / 5003 - 2);
        // Losses in every run: a section the skill cannot hold.
        for (k, e) in pb.entries.iter_mut().enumerate() {
            if k % 7 == 0 {
                e.section = Some("s".into());
            }
        }
        let write = |pb: &Playbook| {
            let mut out = ace_exec::Out::new();
            let report = write_into(pb, &WriteOptions::default(), &mut out);
            (out.into_string(), report.losses)
        };
        let spread = write(&pb);
        let one = ace_exec::par::on_one_thread(|| write(&pb));
        assert!(spread.1.len() > 3_000, "{}", spread.1.len());
        assert!(spread.0 == one.0, "the text differs from one thread's");
        assert_eq!(spread.1, one.1);
        // What was written reads back to a playbook that writes it again
        // byte for byte, the kept items and key orders in their places.
        let back = crate::read(&spread.0).unwrap().playbook;
        assert_eq!(back.entries.len(), pb.entries.len());
        assert!(write(&back).0 == spread.0, "not written back byte for byte");
        assert_eq!(spread.0.matches("\n    null,\n").count(), n / 5003 + 1);
        assert_eq!(
            spread.0.matches("\"content\": \"again").count(),
            n / 3001 + 1
        );
        let reordered = "{\n      \"content\": \"again 3008\",\n      \"id\": \"same\"";
        assert!(
            spread.0.contains(reordered),
            "a repeated ID lost its key order"
        );
    }
}
