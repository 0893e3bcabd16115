//! The model as a skillbook. With the layout a skillbook was read with,
//! the output is that file again, changed only where the model changed;
//! with none, it is what the framework's `save_to_file` writes, and every
//! field it has no place for is reported.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use ace_exec::Out;
use ace_model::ids::IdChange;
use ace_model::{rules, Entry, Evidence, LossEntry, Losses, Playbook, Status, WriteReport};
use serde_json::{Map, Value};

use crate::skill::{id_number, INACTIVE};
use crate::{Era, LAYOUT_KEY};

/// A written skillbook and its report.
#[derive(Debug, Default)]
pub struct Output {
    pub text: String,
    pub report: WriteReport,
}

/// What a write is asked for besides the playbook.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The era to write (`--skillbook-version`); unset, a skillbook keeps
    /// its own and a new file is v2, the current release's.
    pub era: Option<Era>,
    /// The time a skill without timestamps is given where the era saves
    /// them (v2 always does); `None` writes the Unix epoch.
    pub clock: Option<String>,
}

pub fn write(pb: &Playbook) -> Output {
    write_with(pb, &Options::default())
}

pub fn write_with(pb: &Playbook, opts: &Options) -> Output {
    let mut out = Out::new();
    let report = write_into(pb, opts, &mut out);
    Output {
        text: out.into_string(),
        report,
    }
}

/// The section a skill without one is filed under: the framework requires
/// one.
const NO_SECTION: &str = "general";

/// The layout's parts, with the framework's own choices for a new file.
struct Layout {
    era: Era,
    /// The v2 file's `schema_version` as it was written.
    schema: Option<Value>,
    /// The v2 skills whose insight was `null`, with their issue.
    no_insight: Map<String, Value>,
    top: Vec<String>,
    template: Vec<String>,
    orders: Map<String, Value>,
    index: Option<Value>,
    unlisted: HashSet<String>,
    next_id: Option<Value>,
    /// The highest ID number when the file was read, if above `next_id`.
    used: Option<i64>,
    indent: usize,
    ascii: bool,
    inline_lists: bool,
    newline: bool,
}

impl Layout {
    fn new_file(era: Era) -> Layout {
        Layout {
            era,
            schema: None,
            no_insight: Map::new(),
            top: era.top_keys().iter().map(|k| (*k).to_owned()).collect(),
            template: Vec::new(),
            orders: Map::new(),
            index: None,
            unlisted: HashSet::new(),
            next_id: None,
            used: None,
            indent: 2,
            ascii: false,
            inline_lists: false,
            newline: false,
        }
    }

    fn from_value(v: &Value) -> Layout {
        let strings = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        Layout {
            era: era_of(v),
            schema: v.get("schema_version").cloned(),
            no_insight: v
                .get("no_insight")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            top: strings(v.get("top")),
            template: strings(v.get("template")),
            orders: v
                .get("orders")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            index: v.get("sections").cloned(),
            unlisted: strings(v.get("unlisted")).into_iter().collect(),
            next_id: v.get("next_id").cloned(),
            used: v.get("used").and_then(Value::as_i64),
            indent: v
                .get("indent")
                .and_then(Value::as_u64)
                .map_or(2, |n| n as usize),
            ascii: v.get("ascii").and_then(Value::as_bool).unwrap_or(false),
            inline_lists: v
                .get("inline_lists")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            newline: v.get("newline").and_then(Value::as_bool).unwrap_or(false),
        }
    }

    fn order_of(&self, id: &str) -> Vec<&str> {
        match self.orders.get(id).and_then(Value::as_array) {
            Some(keys) => keys.iter().filter_map(Value::as_str).collect(),
            None => self.template.iter().map(String::as_str).collect(),
        }
    }
}

/// The era of a skillbook's layout.
pub(crate) fn era_of(layout: &Value) -> Era {
    layout
        .get("version")
        .and_then(Value::as_str)
        .and_then(Era::from_value)
        .unwrap_or(Era::Counters)
}

/// The era a write of `pb` gives: the one asked for, else the file's own,
/// else v2.
pub fn era_written(pb: &Playbook, asked: Option<Era>) -> Era {
    asked
        .or_else(|| pb.layout_of(LAYOUT_KEY).map(era_of))
        .unwrap_or(Era::V2)
}

/// [`write_with`] into `out`.
pub fn write_into(pb: &Playbook, opts: &Options, out: &mut Out<'_>) -> WriteReport {
    let mut losses = Vec::new();
    let era = era_written(pb, opts.era);
    let clock = opts
        .clock
        .clone()
        .unwrap_or_else(|| "1970-01-01T00:00:00+00:00".to_owned());
    let (layout, fresh) = match pb.layout_of(LAYOUT_KEY) {
        Some(v) if era_of(v) == era => (Layout::from_value(v), false),
        Some(v) => {
            // Another era's file: written as that era's new file, keeping
            // the counter of IDs so that kayba's next ID is a new one.
            let mut layout = Layout::new_file(era);
            layout.next_id = v.get("next_id").filter(|n| n.is_i64()).cloned();
            (layout, true)
        }
        None => (Layout::new_file(era), true),
    };
    let conformed;
    let pb = if fresh {
        conformed = conform(pb, era, &clock, &mut losses);
        &conformed
    } else {
        // The file's own layout prints each skill as it was; a field no
        // skill has a place for (an entry added by a delta from another
        // format) is said lost here, as a conversion says it.
        for e in &pb.entries {
            unplaced(e, &mut losses);
        }
        pb
    };
    let (pb, id_changes) = unique_ids(pb, &mut losses);
    let pb = pb.as_ref();
    let skills_key = layout.era.object();
    let mut root = Map::new();
    let put = |key: &str, root: &mut Map<String, Value>| {
        if root.contains_key(key) {
            return;
        }
        let v = match key {
            // The skills are printed in place of this, a run at a time.
            k if k == skills_key => Some(Value::Null),
            "schema_version" if layout.era == Era::V2 => Some(
                layout
                    .schema
                    .clone()
                    .unwrap_or_else(|| Value::from(crate::SCHEMA_VERSION)),
            ),
            "sections" => Some(index(pb, &layout)),
            "next_id" => Some(next_id(pb, &layout)),
            "similarity_decisions" => Some(
                pb.extra
                    .get(key)
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new())),
            ),
            _ => pb.extra.get(key).cloned(),
        };
        if let Some(v) = v {
            root.insert(key.to_owned(), v);
        }
    };
    for key in &layout.top {
        put(key, &mut root);
    }
    put(skills_key, &mut root);
    for key in pb.extra.keys() {
        put(key, &mut root);
    }
    let print = Print {
        style: ace_pyjson::Layout {
            indent: layout.indent,
            ascii: layout.ascii,
            inline_scalar_lists: layout.inline_lists,
        },
        one_line: layout.indent == 0,
    };
    out.reserve(pb.entries.len() * 600);
    out.push('{');
    for (i, (key, v)) in root.iter().enumerate() {
        print.member(i, 1, key, out);
        if key == skills_key {
            let skills = Skills {
                layout: &layout,
                fresh,
                clock: &clock,
                print: &print,
            };
            print_skills(pb, &skills, out, &mut losses);
        } else {
            print.value(v, 1, out);
        }
    }
    print.close(root.is_empty(), 0, '}', out);
    if layout.newline {
        out.push('\n');
    }
    WriteReport { losses, id_changes }
}

/// Skills keyed by ID: a repeated ID would be one key twice, and the
/// framework (like Python's `json.load`) keeps only the last. Each repeat
/// gets the ID with a number after it.
fn unique_ids<'a>(
    pb: &'a Playbook,
    losses: &mut Vec<LossEntry>,
) -> (std::borrow::Cow<'a, Playbook>, Vec<IdChange>) {
    let mut seen: HashSet<&str> = HashSet::with_capacity(pb.entries.len());
    let repeats: Vec<usize> = (0..pb.entries.len())
        .filter(|&i| !seen.insert(pb.entries[i].id.as_str()))
        .collect();
    if repeats.is_empty() {
        return (std::borrow::Cow::Borrowed(pb), Vec::new());
    }
    let mut taken: HashSet<String> = pb.entries.iter().map(|e| e.id.clone()).collect();
    // The number each repeated ID's next suffix is tried from, so that the
    // thousandth repeat does not try the 998 suffixes before it again.
    let mut next: HashMap<&str, usize> = HashMap::new();
    let mut out = pb.clone();
    let mut changes = Vec::new();
    for i in repeats {
        let old = pb.entries[i].id.clone();
        let n = next.entry(pb.entries[i].id.as_str()).or_insert(2);
        let new = loop {
            let c = format!("{old}-{n}");
            *n += 1;
            if !taken.contains(&c) {
                break c;
            }
        };
        taken.insert(new.clone());
        losses.lose(
            &rules::ID_REASSIGNED,
            Some(&old),
            "id",
            format!("skills are keyed by ID and `{old}` is taken; written as `{new}`"),
        );
        out.entries[i].id.clone_from(&new);
        changes.push(IdChange { entry: i, old, new });
    }
    (std::borrow::Cow::Owned(out), changes)
}

/// How `json.dumps` lays the file out: with the file's indentation, or on
/// one line (`json.dumps(data)` without indent).
struct Print {
    style: ace_pyjson::Layout,
    one_line: bool,
}

impl Print {
    /// What comes before member `i` of an object whose members are
    /// `level` deep, and its key.
    fn member(&self, i: usize, level: usize, key: &str, out: &mut Out<'_>) {
        if i > 0 {
            out.push_str(if self.one_line { ", " } else { "," });
        }
        if !self.one_line {
            ace_pyjson::newline(self.style.indent, level, out);
        }
        ace_pyjson::escape(key, self.style.ascii, out);
        out.push_str(": ");
    }

    fn value(&self, v: &Value, level: usize, out: &mut Out<'_>) {
        if self.one_line {
            ace_pyjson::dump_line(v, self.style.ascii, out);
        } else {
            ace_pyjson::dump_at(v, &self.style, level, out);
        }
    }

    fn val(&self, v: &Val<'_>, level: usize, out: &mut Out<'_>) {
        match v {
            Val::Str(s) => ace_pyjson::escape(s, self.style.ascii, out),
            Val::Int(i) => ace_pyjson::push_int(*i, out),
            Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Val::Null => out.push_str("null"),
            Val::Json(v) => self.value(v, level, out),
        }
    }

    /// The end of an object or list `level` deep; an empty one is closed
    /// on the line it opened (`{}`).
    fn close(&self, empty: bool, level: usize, bracket: char, out: &mut Out<'_>) {
        if !empty && !self.one_line {
            ace_pyjson::newline(self.style.indent, level, out);
        }
        out.push(bracket);
    }
}

/// The skills object, keyed by ID: each skill built and printed on its
/// own, runs of them on every core, so that the whole file is never held
/// as values.
fn print_skills(
    pb: &Playbook,
    skills: &Skills<'_>,
    out: &mut Out<'_>,
    losses: &mut Vec<LossEntry>,
) {
    out.push('{');
    ace_exec::par::print_runs_reporting(pb.entries.len(), out, losses, |range, out, losses| {
        for i in range {
            let e = &pb.entries[i];
            skills.print.member(i, 2, &e.id, out);
            print_skill(e, skills, out, losses);
        }
    });
    skills.print.close(pb.entries.is_empty(), 1, '}', out);
}

/// What every skill is printed by: the file's layout (or a new file's),
/// the time of a skill without one, and the printer.
struct Skills<'a> {
    layout: &'a Layout,
    fresh: bool,
    clock: &'a str,
    print: &'a Print,
}

/// Prints one skill as the era saves it, its keys in the file's order,
/// straight from the entry: a map of it per skill would cost more than
/// the printing.
fn print_skill(e: &Entry, skills: &Skills<'_>, out: &mut Out<'_>, losses: &mut Vec<LossEntry>) {
    let Skills {
        layout,
        fresh,
        clock,
        print,
    } = *skills;
    let era = layout.era;
    let nullable = era.nullable();
    let order: Vec<&str> = if fresh {
        Vec::new()
    } else {
        layout.order_of(&e.id)
    };
    let at = Field { era, layout, clock };
    // A dozen keys: a list is searched faster than a set is built.
    let mut printed: Vec<&str> = Vec::with_capacity(16);
    out.push('{');
    fn put<'k>(
        print: &Print,
        key: &'k str,
        v: &Val<'_>,
        printed: &mut Vec<&'k str>,
        out: &mut Out<'_>,
    ) {
        print.member(printed.len(), 3, key, out);
        print.val(v, 3, out);
        printed.push(key);
    }
    for &key in &order {
        if printed.contains(&key) {
            continue;
        }
        match at.value(e, key, losses) {
            Some(v) => put(print, key, &v, &mut printed, out),
            // The framework's optional fields are saved as null.
            None if nullable.contains(&key) => put(print, key, &Val::Null, &mut printed, out),
            None => {}
        }
    }
    for &key in era.skill_keys() {
        if printed.contains(&key) {
            continue;
        }
        match at.value(e, key, losses) {
            Some(v) => put(print, key, &v, &mut printed, out),
            // A new file is what `save_to_file` writes: the framework
            // saves its optional fields as null, so a skillbook converted
            // away and back keeps them.
            None if fresh && nullable.contains(&key) => {
                put(print, key, &Val::Null, &mut printed, out)
            }
            None => {}
        }
    }
    for (k, v) in &e.extra {
        if !printed.contains(&k.as_str()) {
            put(print, k, &Val::Json(Cow::Borrowed(v)), &mut printed, out);
        }
    }
    print.close(printed.is_empty(), 2, '}', out);
}

/// How a skill's keys are valued in an era.
struct Field<'a> {
    era: Era,
    layout: &'a Layout,
    clock: &'a str,
}

impl<'a> Field<'a> {
    /// The issue of a skill read with a null insight.
    fn issue_read(&self, e: &Entry) -> Option<&str> {
        self.layout.no_insight.get(&e.id).and_then(Value::as_str)
    }

    /// The value of skill key `key` the entry holds.
    fn value<'e>(&self, e: &'e Entry, key: &str, losses: &mut Vec<LossEntry>) -> Option<Val<'e>>
    where
        'a: 'e,
    {
        if let Some(v) = e.extra.get(key) {
            return Some(Val::Json(Cow::Borrowed(v)));
        }
        let s = |v: &'e Option<String>| v.as_deref().map(Val::Str);
        let time = |v: &'e Option<String>| Val::Str(v.as_deref().unwrap_or(self.clock));
        if self.era == Era::V2 {
            return match key {
                "id" => Some(Val::Str(&e.id)),
                "section" => s(&e.section),
                "keywords" => Some(Val::Json(Cow::Owned(Value::from(keywords_of(e))))),
                "issue" => Some(match self.issue_read(e) {
                    // Its insight was null and the content was its issue:
                    // a content that changed since is the insight.
                    Some(issue) if issue != e.content => Val::Json(Cow::Owned(issue.into())),
                    _ => Val::Str(&e.content),
                }),
                "insight" => {
                    // The content is the insight beside an issue of its
                    // own; alone, it is the issue, and the insight is null
                    // where the file had it null (while the content is
                    // still that issue, though the issue itself may have
                    // been updated since), else kayba's for a skill it
                    // adds: the issue again in `context`, none in
                    // `harness`.
                    let own = match self.issue_read(e) {
                        Some(issue) => issue != e.content,
                        None => {
                            e.extra.contains_key("issue") || e.section.as_deref() != Some("harness")
                        }
                    };
                    own.then_some(Val::Str(&e.content))
                }
                "occurrences" => Some(Val::Json(Cow::Owned(Value::Array(Vec::new())))),
                "active" => Some(Val::Bool(is_active(e))),
                "used_count" => Some(Val::Int(0)),
                "helpful_count" => Some(Val::Int(e.helpful.unwrap_or(0))),
                "harmful_count" => Some(Val::Int(e.harmful.unwrap_or(0))),
                "neutral_count" => Some(Val::Int(e.neutral.unwrap_or(0))),
                "created_at" => Some(time(&e.created_at)),
                "updated_at" => Some(time(&e.updated_at)),
                _ => None,
            };
        }
        match key {
            "id" => Some(Val::Str(&e.id)),
            "section" => s(&e.section),
            "content" => Some(Val::Str(&e.content)),
            "helpful" => e.helpful.map(Val::Int),
            "harmful" => e.harmful.map(Val::Int),
            "neutral" => e.neutral.map(Val::Int),
            "created_at" => s(&e.created_at),
            "updated_at" => s(&e.updated_at),
            "status" => e.status.as_ref().map(|st| Val::Str(st.as_str())),
            "evidence" => e
                .evidence
                .as_ref()
                .map(|items| Val::Json(Cow::Owned(evidence(e, items, losses)))),
            _ => None,
        }
    }
}

/// A skill key's value as printed: the entry's own text where it holds
/// it, so that printing a skill copies none of its strings.
enum Val<'e> {
    Str(&'e str),
    Int(i64),
    Bool(bool),
    Null,
    Json(Cow<'e, Value>),
}

/// Whether kayba holds the skill active.
fn is_active(e: &Entry) -> bool {
    matches!(e.status, None | Some(Status::Active))
}

/// A v2 skill's keywords: its tags as kayba normalises them, else its
/// section's name.
fn keywords_of(e: &Entry) -> Vec<String> {
    let words = crate::lint::keywords(e.tags.iter().flatten().map(String::as_str));
    if words.is_empty() {
        crate::lint::keywords(e.section.as_deref())
    } else {
        words
    }
}

/// The framework's evidence is one string: several items, or references,
/// become lines of it.
fn evidence(e: &Entry, items: &[Evidence], losses: &mut Vec<LossEntry>) -> Value {
    if let [Evidence::Text(t)] = items {
        return Value::String(t.clone());
    }

    losses.lose(
        &rules::VALUE_CONVERTED,
        Some(&e.id),
        "evidence",
        "a skill's evidence is one text; the items were written as its lines",
    );
    Value::String(evidence_text(items))
}

/// Each section's skill IDs, in entry order: what the framework keeps.
pub(crate) fn derived_index(pb: &Playbook) -> Value {
    // One pass over the skills, grouped by section, then the sections in
    // the model's order and those only skills name after them.
    let mut by_section: HashMap<&str, Vec<Value>> = HashMap::new();
    let mut named: Vec<&str> = Vec::new();
    for e in &pb.entries {
        if let Some(s) = e.section.as_deref() {
            let ids = by_section.entry(s).or_insert_with(|| {
                named.push(s);
                Vec::new()
            });
            ids.push(Value::String(e.id.clone()));
        }
    }
    let mut m: Map<String, Value> = Map::new();
    for s in &pb.sections {
        if let Some(ids) = by_section.remove(s.key.as_str()) {
            m.insert(s.key.clone(), Value::Array(ids));
        }
    }
    for s in named {
        if let Some(ids) = by_section.remove(s) {
            m.insert(s.to_owned(), Value::Array(ids));
        }
    }
    Value::Object(m)
}

/// Adds `id` to the end of `section`'s list in an index.
fn list_under(index: &mut Map<String, Value>, section: &str, id: &str) {
    let list = index
        .entry(section.to_owned())
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(ids) = list {
        ids.push(Value::String(id.to_owned()));
    }
}

/// The index as the file had it, with the skills added since it was read
/// listed under their sections; without one, [`derived_index`].
fn index(pb: &Playbook, layout: &Layout) -> Value {
    let Some(Value::Object(kept)) = &layout.index else {
        return derived_index(pb);
    };
    let mut m = kept.clone();
    // Sets, not searches per skill: the index of 100,000 skills.
    let unlisted: HashSet<&str> = layout.unlisted.iter().map(String::as_str).collect();
    let listed: HashSet<(&str, &str)> = kept
        .iter()
        .flat_map(|(section, ids)| {
            ids.as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(move |id| Some((section.as_str(), id.as_str()?)))
        })
        .collect();
    let mut added: Vec<(&str, &str)> = Vec::new();
    for e in pb
        .entries
        .iter()
        .filter(|e| !unlisted.contains(e.id.as_str()))
    {
        let Some(section) = crate::skill::section_of(e, layout.era == Era::V2) else {
            continue;
        };
        if !listed.contains(&(section, e.id.as_str())) {
            added.push((section, e.id.as_str()));
        }
    }
    let mut seen = HashSet::new();
    for (section, id) in added {
        // A skill listed twice in the model is added once, as before.
        if seen.insert((section, id)) {
            list_under(&mut m, section, id);
        }
    }
    Value::Object(m)
}

/// The file's `next_id`, raised when a skill added since has a higher
/// number, so that the framework's next ID is a new one.
fn next_id(pb: &Playbook, layout: &Layout) -> Value {
    let used = pb
        .entries
        .iter()
        .filter_map(|e| id_number(&e.id))
        .max()
        .unwrap_or(0);
    match &layout.next_id {
        Some(v) => match v.as_i64() {
            Some(n) if used > n.max(layout.used.unwrap_or(n)) => Value::from(used),
            _ => v.clone(),
        },
        None => Value::from(used),
    }
}

/// A playbook of another format as the framework would hold it: every
/// skill in a section, statuses of its two, and what it has no field for
/// reported and left out.
fn conform(pb: &Playbook, era: Era, clock: &str, losses: &mut Vec<LossEntry>) -> Playbook {
    let mut out = Playbook {
        sections: pb.sections.clone(),
        extra: Map::new(),
        ..Playbook::default()
    };
    for (name, present) in [
        ("title", pb.title.is_some()),
        ("description", pb.description.is_some()),
        ("version", pb.version.is_some()),
        ("project_id", pb.project_id.is_some()),
        ("created_at", pb.created_at.is_some()),
        ("updated_at", pb.updated_at.is_some()),
    ] {
        if present {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                name,
                "a skillbook has no place for this playbook field",
            );
        }
    }
    for (k, v) in &pb.extra {
        if k == "similarity_decisions" && v.is_object() {
            out.extra.insert(k.clone(), v.clone());
        } else {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("extra.{k}"),
                "a skillbook has no place for this playbook field",
            );
        }
    }
    let used: HashSet<&str> = pb
        .entries
        .iter()
        .filter_map(|e| e.section.as_deref())
        .collect();
    for s in &mut out.sections {
        if !used.contains(s.key.as_str()) {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}]", s.key),
                "a skillbook lists only sections that have skills",
            );
            continue;
        }
        // A title or prefix that is the key is no loss: the skills' IDs
        // (`{section}-N`) and every writer's heading give it back.
        let not_key = |v: &Option<String>| v.as_ref().is_some_and(|v| *v != s.key);
        for (name, present) in [
            ("title", not_key(&s.title)),
            ("prefix", not_key(&s.prefix)),
            ("weight", s.weight.is_some()),
            ("description", s.description.is_some()),
        ] {
            if present {
                losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    format!("sections[{}].{name}", s.key),
                    "a skillbook's section is a name and its skill IDs",
                );
            }
        }
        for k in s.extra.keys() {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}].extra.{k}", s.key),
                "a skillbook's section is a name and its skill IDs",
            );
        }
        if era == Era::V2 && crate::lint::section(&s.key) != Some(s.key.as_str()) {
            losses.lose(
                &rules::VALUE_CONVERTED,
                None,
                format!("sections[{}]", s.key),
                "a v2 skillbook has two sections, `context` and `harness`: this one's skills are in `context`, its name in their keywords",
            );
        }
        let key = s.key.clone();
        *s = ace_model::Section::new(key);
    }
    out.sections.retain(|s| used.contains(s.key.as_str()));
    out.entries = pb
        .entries
        .iter()
        .map(|e| match era {
            Era::V2 => skill_v2(e, clock, losses),
            _ => skill(e, era, losses),
        })
        .collect();
    // Sections only skills name (v2's two, the legacy ones' stand-in).
    let named: HashSet<&str> = out
        .entries
        .iter()
        .filter_map(|e| e.section.as_deref())
        .collect();
    out.sections.retain(|s| named.contains(s.key.as_str()));
    let mut listed: HashSet<String> = out.sections.iter().map(|s| s.key.clone()).collect();
    for e in &out.entries {
        if let Some(name) = e.section.as_deref() {
            if listed.insert(name.to_owned()) {
                out.sections.push(ace_model::Section::new(name));
            }
        }
    }
    out
}

/// The fields of entry `e` no skill of any era has a place for.
fn unplaced(e: &Entry, losses: &mut Vec<LossEntry>) {
    let id = e.id.as_str();
    for (name, present) in [
        ("title", e.title.is_some()),
        ("kind", e.kind.is_some()),
        ("confidence", e.confidence.is_some()),
        ("scope", e.scope.is_some()),
        ("links", e.links.is_some()),
        ("supersedes", e.supersedes.is_some()),
        ("superseded_by", e.superseded_by.is_some()),
        ("duplicate_of", e.duplicate_of.is_some()),
        ("provenance", e.provenance.is_some()),
        ("project_id", e.project_id.is_some()),
        ("deprecation_reason", e.deprecation_reason.is_some()),
    ] {
        if present {
            losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                name,
                "a skill has no place for this field",
            );
        }
    }
}

/// A skill of kayba 0.12 and later from any entry: the mapping of
/// docs/formats/skillbook.md, every derived or dropped value reported.
fn skill_v2(e: &Entry, clock: &str, losses: &mut Vec<LossEntry>) -> Entry {
    let id = e.id.as_str();
    unplaced(e, losses);
    let mut s = Entry::new(e.id.clone(), e.content.clone());
    s.origin = e.origin;
    s.helpful = e.helpful;
    s.harmful = e.harmful;
    s.neutral = e.neutral;
    // Sections: kayba's own rule for a legacy one (`_coerce_section_and_keywords`).
    let raw = e.section.as_deref().map(str::trim).unwrap_or_default();
    let mut words: Vec<&str> = Vec::new();
    let section = if let Some(s) = crate::lint::section(raw) {
        s.to_owned()
    } else {
        if raw.is_empty() {
            losses.lose(
                &rules::VALUE_DERIVED,
                Some(id),
                "section",
                "every v2 skill is in `context` or `harness`; filed under `context`",
            );
        } else {
            words.push(raw);
            losses.lose(
                &rules::VALUE_CONVERTED,
                Some(id),
                "section",
                format!("a v2 skill is in `context` or `harness`: `{raw}` is written as `context`, its name first in the keywords (kayba's rule for a legacy section)"),
            );
        }
        "context".to_owned()
    };
    let tags: Vec<&str> = e.tags.iter().flatten().map(String::as_str).collect();
    words.extend(tags.iter().copied());
    let mut keywords = crate::lint::keywords(words.iter().copied());
    let derived = keywords.is_empty();
    if derived {
        keywords = crate::lint::keywords([section.as_str()]);
    }
    if e.tags.as_ref() != Some(&keywords) {
        let why = if derived {
            "a v2 skill has keywords: the section's name is written, as kayba fills them"
        } else {
            "keywords are lower case, with `_` for white space, each once, a legacy section's name first (kayba's rules): the tags are written so"
        };
        losses.lose(&rules::VALUE_DERIVED, Some(id), "tags", why);
    }
    s.section = Some(section);
    s.tags = Some(keywords);
    // The issue: the skill's own, else what the older eras said of why
    // and whence, else the content (kayba's rule for a legacy skill).
    let own = e.extra.get("issue").and_then(Value::as_str);
    let justification = e.extra.get("justification").and_then(Value::as_str);
    let evidence = e.evidence.as_deref().map(evidence_text);
    let issue = match (own, justification, evidence.as_deref()) {
        (Some(i), _, _) if !i.trim().is_empty() => i.to_owned(),
        (_, None, None) => {
            losses.lose(
                &rules::VALUE_DERIVED,
                Some(id),
                "extra.issue",
                "a v2 skill requires an issue: the content is written as it, and as the insight (kayba's rule for a legacy skill)",
            );
            e.content.clone()
        }
        (_, j, ev) => {
            let mut parts: Vec<String> = j.map(str::to_owned).into_iter().collect();
            if let Some(ev) = ev {
                parts.push(format!("Evidence: {ev}"));
            }
            for (field, present) in [
                ("extra.justification", j.is_some()),
                ("evidence", ev.is_some()),
            ] {
                if present {
                    losses.lose(
                        &rules::VALUE_CONVERTED,
                        Some(id),
                        field,
                        "a v2 skill has no justification or evidence: they are written as its issue, the content as its insight",
                    );
                }
            }
            parts.join("\n\n")
        }
    };
    if issue.trim().is_empty() {
        losses.lose(
            &rules::VALUE_DERIVED,
            Some(id),
            "extra.issue",
            "the skill has no text: kayba refuses an empty issue",
        );
    }
    s.extra.insert("issue", Value::String(issue));
    if let Some(occ) = e
        .extra
        .get("occurrences")
        .or_else(|| e.extra.get("sources"))
    {
        s.extra.insert("occurrences", occ.clone());
    }
    if let Some(n) = e.extra.get("used_count") {
        s.extra.insert("used_count", n.clone());
    }
    s.status = e.status.clone();
    if let Some(st) = &e.status {
        if !matches!(st, Status::Active) && String::from(st.clone()) != INACTIVE {
            losses.lose(
                &rules::VALUE_CONVERTED,
                Some(id),
                "status",
                format!(
                    "a v2 skill is active or not: `{}` is written as `active: false`",
                    String::from(st.clone())
                ),
            );
        }
    }
    for (name, at) in [("created_at", &e.created_at), ("updated_at", &e.updated_at)] {
        match at {
            Some(t) => {
                if name == "created_at" {
                    s.created_at = Some(t.clone());
                } else {
                    s.updated_at = Some(t.clone());
                }
            }
            None => losses.lose(
                &rules::VALUE_DERIVED,
                Some(id),
                name,
                format!("a v2 skill is dated: written as {clock}, as kayba dates a skill it makes"),
            ),
        }
    }
    for (k, _) in &e.extra {
        match k.as_str() {
            "issue" | "justification" | "occurrences" | "sources" | "used_count" | "insight" => {}
            "embedding" => losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                "extra.embedding",
                "kayba 0.12 and later keep embeddings beside the file (`<stem>.embeddings.npz`), which ace-tools does not write: kayba computes them again",
            ),
            _ => losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                format!("extra.{k}"),
                "a skill has no place for this field (kayba drops keys it does not know)",
            ),
        }
    }
    s
}

/// Evidence items as one text, an item per line.
pub(crate) fn evidence_text(items: &[Evidence]) -> String {
    items
        .iter()
        .map(Evidence::text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn skill(e: &Entry, era: Era, losses: &mut Vec<LossEntry>) -> Entry {
    let id = e.id.as_str();
    unplaced(e, losses);
    if e.tags.is_some() {
        losses.lose(
            &rules::DROPPED_FIELD,
            Some(id),
            "tags",
            "a skill of this era has no keywords",
        );
    }
    let mut s = Entry::new(e.id.clone(), e.content.clone());
    s.origin = e.origin;
    if era.counts() {
        s.helpful = e.helpful;
        s.harmful = e.harmful;
        s.neutral = e.neutral;
    } else {
        for (name, n) in [
            ("helpful", e.helpful),
            ("harmful", e.harmful),
            ("neutral", e.neutral),
        ] {
            if n.is_some_and(|n| n != 0) {
                losses.lose(
                    &rules::DROPPED_FIELD,
                    Some(id),
                    name,
                    "kayba 0.9 and 0.10 keep no counters",
                );
            }
        }
    }
    s.created_at = e.created_at.clone();
    s.updated_at = e.updated_at.clone();
    if era == Era::Bullets {
        if e.evidence.is_some() {
            losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                "evidence",
                "a bullet before kayba 0.7 has no evidence",
            );
        }
    } else {
        s.evidence = e.evidence.clone();
    }
    s.section = match &e.section {
        Some(x) => Some(x.clone()),
        None => {
            losses.lose(
                &rules::VALUE_DERIVED,
                Some(id),
                "section",
                format!("every skill is in a section; filed under `{NO_SECTION}`"),
            );
            Some(NO_SECTION.to_owned())
        }
    };
    s.status = e.status.as_ref().map(|st| {
        let from = String::from(st.clone());
        let to = match st {
            Status::Active => "active",
            _ => "invalid",
        };
        if from != to {
            losses.lose(
                &rules::VALUE_CONVERTED,
                Some(id),
                "status",
                format!("a skill is `active` or `invalid` (soft-deleted); `{from}` is written as `{to}`"),
            );
        }
        Status::from(to.to_owned())
    });
    // What a v2 skill said, in the older eras' words.
    let mut issue_kept = false;
    for (k, v) in &e.extra {
        let key = match k.as_str() {
            "issue" if !e.extra.contains_key("justification") && era != Era::Bullets => {
                issue_kept = true;
                "justification"
            }
            "occurrences" if !e.extra.contains_key("sources") => "sources",
            k => k,
        };
        let placed = match key {
            "justification" | "sources" => era != Era::Bullets,
            "embedding" => true,
            _ => false,
        };
        if placed {
            s.extra.insert(key.to_owned(), v.clone());
        } else {
            losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                format!("extra.{k}"),
                "a skill of this era has no place for this field (kayba drops keys it does not know)",
            );
        }
    }
    if issue_kept {
        losses.lose(
            &rules::VALUE_CONVERTED,
            Some(id),
            "extra.issue",
            "a skill before v2 has no issue: it is written as the justification",
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(pb: &Playbook, opts: &Options) -> (String, Vec<LossEntry>) {
        let mut out = Out::new();
        let report = write_into(pb, opts, &mut out);
        (out.into_string(), report.losses)
    }

    /// Each repeat of an ID takes the next free number after it, passing
    /// over a number another entry holds, and once only.
    #[test]
    fn repeated_ids_are_numbered_on_past_those_taken() {
        let mut pb = Playbook::default();
        for (i, id) in ["a", "a", "a-3", "a", "a", "b", "b"].iter().enumerate() {
            pb.entries.push(Entry::new(*id, format!("rule {i}")));
        }
        let mut losses = Vec::new();
        let (out, changes) = unique_ids(&pb, &mut losses);
        let ids: Vec<&str> = out.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["a", "a-2", "a-3", "a-4", "a-5", "b", "b-2"]);
        assert_eq!(changes.len(), 4);
        assert_eq!(losses.len(), 4);
    }

    /// Long skillbooks are printed in runs on several threads: the text
    /// and the losses, in order, are what one thread gives, in each era,
    /// indented or on one line, kept layout or new file, and a file read
    /// back is written again byte for byte.
    #[test]
    fn a_long_skillbook_is_written_as_one_thread_writes_it() {
        let n = 3 * ace_exec::par::MIN_ITEMS + 5;
        let skill = |i: usize| match i {
            // Its own key order, a null insight, a key kayba does not
            // have: kept in place across runs.
            i if i % 3001 == 7 => format!(
                r#"{{"issue": "again {i}", "id": "context-{i:05}", "section": "context", "keywords": ["k"], "insight": null, "occurrences": [], "active": false, "used_count": 0, "helpful_count": 1, "harmful_count": 0, "neutral_count": 0, "created_at": "t", "updated_at": "t", "mine": {{"a": [1, 2]}}}}"#
            ),
            i => format!(
                r#"{{"id": "context-{i:05}", "section": "context", "keywords": ["w{}", "caf\u00e9"], "issue": "issue {i}", "insight": "insight \"{i}\"", "occurrences": [], "active": true, "used_count": 0, "helpful_count": {}, "harmful_count": 0, "neutral_count": 0, "created_at": "t", "updated_at": "t"}}"#,
                i % 17,
                i % 13
            ),
        };
        let skills: Vec<String> = (0..n)
            .map(|i| format!("\"context-{i:05}\": {}", skill(i)))
            .collect();
        let text = format!(
            "{{\"schema_version\": \"2\", \"skills\": {{{}}}, \"sections\": {{}}, \"next_id\": {n}, \"similarity_decisions\": {{}}}}",
            skills.join(", ")
        );
        let pb = crate::read(&text).unwrap().playbook;
        assert_eq!(pb.entries.len(), n);
        // One line as read; indented and in another era as new files,
        // with losses in every run (the 0.8 era has no keywords).
        let mut new_file = pb.clone();
        new_file.layout = Default::default();
        for (pb, era) in [
            (&pb, None),
            (&new_file, None),
            (&new_file, Some(Era::Counters)),
        ] {
            let opts = Options { era, clock: None };
            let spread = written(pb, &opts);
            let one = ace_exec::par::on_one_thread(|| written(pb, &opts));
            assert!(spread.0 == one.0, "the text differs from one thread's");
            assert_eq!(spread.1, one.1);
            let back = crate::read(&spread.0).unwrap().playbook;
            assert_eq!(back.entries.len(), n);
            assert!(
                written(&back, &Options::default()).0 == spread.0,
                "not written back byte for byte"
            );
            if era.is_some() {
                assert!(spread.1.len() >= n, "{}", spread.1.len());
            }
        }
        assert!(written(&pb, &Options::default()).0 == text);
    }
}
