//! The model as a skillbook. With the layout a skillbook was read with,
//! the output is that file again, changed only where the model changed;
//! with none, it is what the framework's `save_to_file` writes, and every
//! field it has no place for is reported.

use std::collections::{HashMap, HashSet};

use ace_exec::Out;
use ace_model::ids::IdChange;
use ace_model::{rules, Entry, Evidence, LossEntry, Losses, Playbook, Status, WriteReport};
use serde_json::{Map, Value};

use crate::read::id_number;
use crate::{EXTRA_KEYS, LAYOUT_KEY, SKILL_KEYS};

/// A written skillbook and its report.
#[derive(Debug, Default)]
pub struct Output {
    pub text: String,
    pub report: WriteReport,
}

pub fn write(pb: &Playbook) -> Output {
    let mut out = Out::new();
    let report = write_into(pb, &mut out);
    Output {
        text: out.into_string(),
        report,
    }
}

/// The section a skill without one is filed under: the framework requires
/// one.
const NO_SECTION: &str = "general";

/// The skill fields the framework saves as `null` when they have no value;
/// the others it always fills.
const NULLABLE: [&str; 3] = ["justification", "evidence", "embedding"];

/// The layout's parts, with the framework's own choices for a new file.
struct Layout {
    era: String,
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
    fn new_file() -> Layout {
        Layout {
            era: "skills".into(),
            top: crate::TOP_KEYS.iter().map(|k| (*k).to_owned()).collect(),
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
            era: v
                .get("era")
                .and_then(Value::as_str)
                .unwrap_or("skills")
                .to_owned(),
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

    fn order_of(&self, id: &str) -> Vec<String> {
        match self.orders.get(id).and_then(Value::as_array) {
            Some(keys) => keys
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            None => self.template.clone(),
        }
    }
}

/// [`write`] into `out`.
pub fn write_into(pb: &Playbook, out: &mut Out<'_>) -> WriteReport {
    let mut losses = Vec::new();
    let (layout, fresh) = match pb.layout_of(LAYOUT_KEY) {
        Some(v) => (Layout::from_value(v), false),
        None => (Layout::new_file(), true),
    };
    let conformed;
    let pb = if fresh {
        conformed = conform(pb, &mut losses);
        &conformed
    } else {
        pb
    };
    let (pb, id_changes) = unique_ids(pb, &mut losses);
    let pb = pb.as_ref();
    let mut root = Map::new();
    let mut put = |key: &str, root: &mut Map<String, Value>| {
        if root.contains_key(key) {
            return;
        }
        let v = match key {
            k if k == layout.era => Some(skills(pb, &layout, fresh, &mut losses)),
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
    put(&layout.era.clone(), &mut root);
    for key in pb.extra.keys() {
        put(key, &mut root);
    }
    let mut text = String::new();
    let root = Value::Object(root);
    if layout.indent == 0 {
        // `json.dumps(data)` without indent: one line.
        ace_pyjson::dump_line(&root, layout.ascii, &mut text);
    } else {
        let style = ace_pyjson::Layout {
            indent: layout.indent,
            ascii: layout.ascii,
            inline_scalar_lists: layout.inline_lists,
        };
        ace_pyjson::dump_with(&root, &style, &mut text);
    }
    if layout.newline {
        text.push('\n');
    }
    out.push_str(&text);
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
    let mut out = pb.clone();
    let mut changes = Vec::new();
    for i in repeats {
        let old = pb.entries[i].id.clone();
        let new = (2..)
            .map(|n| format!("{old}-{n}"))
            .find(|c| !taken.contains(c))
            .unwrap_or_default();
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

fn skills(pb: &Playbook, layout: &Layout, fresh: bool, losses: &mut Vec<LossEntry>) -> Value {
    let mut m = Map::new();
    for e in &pb.entries {
        let order: Vec<String> = if fresh {
            Vec::new()
        } else {
            layout.order_of(&e.id)
        };
        let mut skill = Map::new();
        for key in &order {
            match field(e, key, losses) {
                Some(v) => {
                    skill.insert(key.clone(), v);
                }
                // The framework's optional fields are saved as null.
                None if NULLABLE.contains(&key.as_str()) => {
                    skill.insert(key.clone(), Value::Null);
                }
                None => {}
            }
        }
        for key in SKILL_KEYS {
            if !skill.contains_key(key) {
                match field(e, key, losses) {
                    Some(v) => {
                        skill.insert(key.to_owned(), v);
                    }
                    // A new file is what `save_to_file` writes: the
                    // framework saves its optional fields as null, so a
                    // skillbook converted away and back keeps them.
                    None if fresh && NULLABLE.contains(&key) => {
                        skill.insert(key.to_owned(), Value::Null);
                    }
                    None => {}
                }
            }
        }
        for (k, v) in &e.extra {
            if !skill.contains_key(k) {
                skill.insert(k.clone(), v.clone());
            }
        }
        m.insert(e.id.clone(), Value::Object(skill));
    }
    Value::Object(m)
}

/// The value of skill key `key` the entry holds.
fn field(e: &Entry, key: &str, losses: &mut Vec<LossEntry>) -> Option<Value> {
    if let Some(v) = e.extra.get(key) {
        return Some(v.clone());
    }
    let s = |v: &Option<String>| v.clone().map(Value::String);
    match key {
        "id" => Some(Value::String(e.id.clone())),
        "section" => s(&e.section),
        "content" => Some(Value::String(e.content.clone())),
        "helpful" => e.helpful.map(Value::from),
        "harmful" => e.harmful.map(Value::from),
        "neutral" => e.neutral.map(Value::from),
        "created_at" => s(&e.created_at),
        "updated_at" => s(&e.updated_at),
        "status" => e.status.clone().map(|st| Value::String(st.into())),
        "evidence" => e.evidence.as_ref().map(|items| evidence(e, items, losses)),
        _ => None,
    }
}

/// The framework's evidence is one string: several items, or references,
/// become lines of it.
fn evidence(e: &Entry, items: &[Evidence], losses: &mut Vec<LossEntry>) -> Value {
    if let [Evidence::Text(t)] = items {
        return Value::String(t.clone());
    }
    let lines: Vec<String> = items
        .iter()
        .map(|ev| match ev {
            Evidence::Text(t) => t.clone(),
            Evidence::Ref(r) => {
                let mut line = [r.kind.as_deref(), r.reference.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(": ");
                if let Some(note) = &r.note {
                    line.push_str(&format!(" ({note})"));
                }
                line
            }
        })
        .collect();
    losses.lose(
        &rules::VALUE_CONVERTED,
        Some(&e.id),
        "evidence",
        "a skill's evidence is one text; the items were written as its lines",
    );
    Value::String(lines.join("\n"))
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
        let Some(section) = e.section.as_deref() else {
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
fn conform(pb: &Playbook, losses: &mut Vec<LossEntry>) -> Playbook {
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
    for s in &mut out.sections {
        let used = pb
            .entries
            .iter()
            .any(|e| e.section.as_deref() == Some(s.key.as_str()));
        if !used {
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
        let key = s.key.clone();
        *s = ace_model::Section::new(key);
    }
    out.sections.retain(|s| {
        pb.entries
            .iter()
            .any(|e| e.section.as_deref() == Some(s.key.as_str()))
    });
    out.entries = pb.entries.iter().map(|e| skill(e, losses)).collect();
    if out
        .entries
        .iter()
        .any(|e| e.section.as_deref() == Some(NO_SECTION))
        && !out.sections.iter().any(|s| s.key == NO_SECTION)
    {
        out.sections.push(ace_model::Section::new(NO_SECTION));
    }
    out
}

fn skill(e: &Entry, losses: &mut Vec<LossEntry>) -> Entry {
    let id = e.id.as_str();
    for (name, present) in [
        ("title", e.title.is_some()),
        ("tags", e.tags.is_some()),
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
    let mut s = Entry::new(e.id.clone(), e.content.clone());
    s.origin = e.origin;
    s.helpful = e.helpful;
    s.harmful = e.harmful;
    s.neutral = e.neutral;
    s.created_at = e.created_at.clone();
    s.updated_at = e.updated_at.clone();
    s.evidence = e.evidence.clone();
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
    for (k, v) in &e.extra {
        if EXTRA_KEYS.contains(&k.as_str()) {
            s.extra.insert(k.clone(), v.clone());
        } else {
            losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                format!("extra.{k}"),
                "a skill has no place for this field (the framework drops keys it does not know)",
            );
        }
    }
    s
}
