//! The model as a skill playbook. With the layout a skill file was read with,
//! the output is that file again, changed only where the model changed; with
//! none, the output is what the skill's own scripts write.

use std::collections::{HashMap, VecDeque};

use ace_model::{
    rules, Confidence, ConfidenceLevel, Entry, Evidence, LossEntry, Playbook, Scope, ScopeDetail,
};
use ace_schema::Generation;
use serde_json::{Map, Number, Value};

use crate::fields::keys_for;
use crate::layout::Layout;
use crate::LAYOUT_KEY;

/// Options for [`write_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Convert `confidence` and `scope` to this generation's form; `None`
    /// writes each value in the form the model holds.
    pub generation: Option<Generation>,
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

pub fn write(pb: &Playbook) -> WriteOutput {
    write_with(pb, &WriteOptions::default())
}

pub fn write_with(pb: &Playbook, opts: &WriteOptions) -> WriteOutput {
    let stored = pb.extra.get(LAYOUT_KEY);
    let layout = stored.map(Layout::from_value).unwrap_or_default();
    let mut w = Writer {
        losses: Vec::new(),
        opts: *opts,
    };
    w.playbook_losses(pb, layout.array);
    let mut orders: HashMap<&str, VecDeque<&[String]>> = HashMap::new();
    for (id, keys) in &layout.bullet_orders {
        orders.entry(id.as_str()).or_default().push_back(keys);
    }
    let mut bullets: Vec<Value> = pb
        .entries
        .iter()
        .map(|e| {
            let order = orders
                .get_mut(e.id.as_str())
                .and_then(VecDeque::pop_front)
                .unwrap_or(&layout.bullet_keys);
            w.bullet(e, order)
        })
        .collect();
    for (i, v) in &layout.non_bullets {
        let at = (*i).min(bullets.len());
        bullets.insert(at, v.clone());
    }
    let value = if layout.array {
        Value::Array(bullets)
    } else {
        wrapper(pb, &layout, bullets, stored.is_none())
    };
    WriteOutput {
        text: layout.style.render(&value),
        losses: w.losses,
    }
}

fn wrapper(pb: &Playbook, layout: &Layout, bullets: Vec<Value>, fresh: bool) -> Value {
    let extra = |k: &str| pb.extra.get(k).filter(|_| k != LAYOUT_KEY).cloned();
    let mut bullets = Some(bullets);
    let mut value_of = |key: &str| -> Option<Value> {
        match key {
            "version" => pb.version.clone().or_else(|| extra(key)),
            "last_updated" => pb
                .updated_at
                .clone()
                .map(Value::String)
                .or_else(|| extra(key)),
            "bullets" => {
                let b = bullets.take()?;
                if b.is_empty() && pb.extra.contains_key("bullets") {
                    extra(key)
                } else {
                    Some(Value::Array(b))
                }
            }
            "metadata" => metadata(pb, layout, fresh),
            _ => extra(key),
        }
    };
    let mut m = Map::new();
    for key in &layout.keys {
        if let Some(v) = value_of(key) {
            m.insert(key.clone(), v);
        }
    }
    let rest = WRAPPER_ORDER
        .iter()
        .map(|k| k.to_string())
        .chain(pb.extra.keys().cloned());
    for key in rest {
        if m.contains_key(&key) || key == LAYOUT_KEY {
            continue;
        }
        if let Some(v) = value_of(&key) {
            m.insert(key, v);
        }
    }
    Value::Object(m)
}

/// The wrapper's `metadata`: the keys the file had, in its order, with the
/// counts computed from the bullets (reader::split_metadata kept only the
/// wrong ones). The skill's merge script reads `metadata.total_bullets` and
/// fails without it, so a new file gets all four counts.
fn metadata(pb: &Playbook, layout: &Layout, fresh: bool) -> Option<Value> {
    let kept = pb.extra.get("metadata");
    if !fresh && kept.is_none() && layout.metadata_keys.is_empty() {
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
    let mut m = Map::new();
    for key in order {
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

/// The names generation 1 allows for `scope`.
const SCOPE_NAMES: [&str; 4] = ["global", "project", "domain", "temporary"];

struct Writer {
    losses: Vec<LossEntry>,
    opts: WriteOptions,
}

impl Writer {
    fn lose(
        &mut self,
        rule: &rules::Rule,
        entry: Option<&str>,
        field: impl Into<String>,
        why: &str,
    ) {
        self.losses.push(LossEntry::new(rule, entry, field, why));
    }

    fn playbook_losses(&mut self, pb: &Playbook, array: bool) {
        for (name, present) in [
            ("title", pb.title.is_some()),
            ("description", pb.description.is_some()),
            ("project_id", pb.project_id.is_some()),
            ("created_at", pb.created_at.is_some()),
        ] {
            if present {
                self.lose(
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
                    self.lose(
                        &rules::DROPPED_FIELD,
                        None,
                        name,
                        "a bare array of bullets has no place for playbook fields",
                    );
                }
            }
            for key in pb.extra.keys().filter(|k| *k != LAYOUT_KEY) {
                self.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    format!("extra.{key}"),
                    "a bare array of bullets has no place for playbook fields",
                );
            }
        }
        for s in &pb.sections {
            self.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}]", s.key),
                "a skill playbook has no sections; entries keep their ids, and their section is reported per entry",
            );
        }
    }

    fn bullet(&mut self, e: &Entry, order: &[String]) -> Value {
        let id = e.id.as_str();
        for (name, present) in [
            ("section", e.section.is_some()),
            ("kind", e.kind.is_some()),
            ("neutral", e.neutral.is_some()),
            ("supersedes", e.supersedes.is_some()),
            ("superseded_by", e.superseded_by.is_some()),
            ("duplicate_of", e.duplicate_of.is_some()),
            ("provenance", e.provenance.is_some()),
            ("project_id", e.project_id.is_some()),
        ] {
            if present {
                self.lose(
                    &rules::DROPPED_FIELD,
                    Some(id),
                    name,
                    "a skill bullet has no place for this field",
                );
            }
        }
        let mut m = Map::new();
        for key in keys_for(e, order) {
            let v = match e.extra.get(&key) {
                Some(v) => Some(v.clone()),
                None => self.model_value(e, &key),
            };
            if let Some(v) = v {
                m.insert(key, v);
            }
        }
        Value::Object(m)
    }

    fn model_value(&mut self, e: &Entry, key: &str) -> Option<Value> {
        let s = |v: &Option<String>| v.clone().map(Value::String);
        let list = |v: &Option<Vec<String>>| {
            v.as_ref()
                .map(|l| Value::Array(l.iter().cloned().map(Value::String).collect()))
        };
        match key {
            "id" => Some(Value::String(e.id.clone())),
            "content" => Some(Value::String(e.content.clone())),
            "title" => s(&e.title),
            "tags" => list(&e.tags),
            "links" => list(&e.links),
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
            "deprecation_reason" => s(&e.deprecation_reason),
            "created" => s(&e.created_at),
            "last_updated" => s(&e.updated_at),
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
                    self.lose(
                        &rules::VALUE_CONVERTED,
                        Some(id),
                        "confidence",
                        "generation 1 holds a level, not a number; the score became the level of its band",
                    );
                }
                Value::from(level.as_str())
            }
            (Confidence::Level(l), Some(Generation::Two)) => {
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
                        self.lose(
                            &rules::VALUE_CONVERTED,
                            Some(id),
                            "scope",
                            "generation 1 holds a scope name; a structured scope became `domain`, and its domain, inputs and outputs are dropped",
                        );
                        Value::from("domain")
                    }
                }
            }
            (Scope::Name(n), Some(Generation::Two)) => detail_value(&ScopeDetail {
                domain: Some(n.clone()),
                inputs: Some(Value::Array(Vec::new())),
                outputs: Some(Value::Array(Vec::new())),
                extra: Map::new(),
            }),
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
