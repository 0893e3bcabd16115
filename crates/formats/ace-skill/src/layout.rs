//! What a skill file looks like beyond its data, kept as the playbook's
//! layout (owned by [`crate::LAYOUT_KEY`]) so that a rewrite of a skill
//! playbook gives back the same bytes. Every part is optional: a missing or damaged layout
//! means the seed's layout, never an error.

use ace_model::Playbook;
use serde_json::{Map, Value};

use crate::style::Style;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// A bare array of bullets instead of the `{bullets: [...]}` wrapper.
    pub array: bool,
    /// Top-level keys in file order (wrapper only).
    pub keys: Vec<String>,
    /// The key order most bullets follow (the first bullet's).
    pub bullet_keys: Vec<String>,
    /// Bullets whose key order the template does not give, by id, in order.
    pub bullet_orders: Vec<(String, Vec<String>)>,
    /// Items of `bullets` that are not objects, with their index.
    pub non_bullets: Vec<(usize, Value)>,
    /// Keys of the wrapper's `metadata`, in file order. Counts that agree
    /// with the bullets are derived and not kept in the model; this is
    /// where they are written back.
    pub metadata_keys: Vec<String>,
    pub style: Style,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn list(keys: &[String]) -> Value {
    Value::Array(keys.iter().map(|k| Value::String(k.clone())).collect())
}

impl Layout {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "shape".into(),
            Value::from(if self.array { "array" } else { "object" }),
        );
        if !self.keys.is_empty() {
            m.insert("keys".into(), list(&self.keys));
        }
        if !self.bullet_keys.is_empty() {
            m.insert("bullet_keys".into(), list(&self.bullet_keys));
        }
        if !self.bullet_orders.is_empty() {
            m.insert(
                "bullet_orders".into(),
                Value::Array(
                    self.bullet_orders
                        .iter()
                        .map(|(id, keys)| Value::Array(vec![Value::from(id.as_str()), list(keys)]))
                        .collect(),
                ),
            );
        }
        if !self.non_bullets.is_empty() {
            m.insert(
                "non_bullets".into(),
                Value::Array(
                    self.non_bullets
                        .iter()
                        .map(|(i, v)| Value::Array(vec![Value::from(*i as u64), v.clone()]))
                        .collect(),
                ),
            );
        }
        if !self.metadata_keys.is_empty() {
            m.insert("metadata_keys".into(), list(&self.metadata_keys));
        }
        m.insert("style".into(), self.style.to_value());
        Value::Object(m)
    }

    pub fn from_value(v: &Value) -> Layout {
        let pairs = |key: &str| -> Vec<(Value, Value)> {
            v.get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|p| match p.as_array().map(Vec::as_slice) {
                            Some([a, b]) => Some((a.clone(), b.clone())),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        Layout {
            array: v.get("shape").and_then(Value::as_str) == Some("array"),
            keys: strings(v.get("keys")),
            bullet_keys: strings(v.get("bullet_keys")),
            bullet_orders: pairs("bullet_orders")
                .into_iter()
                .filter_map(|(id, keys)| Some((id.as_str()?.to_owned(), strings(Some(&keys)))))
                .collect(),
            non_bullets: pairs("non_bullets")
                .into_iter()
                .filter_map(|(i, v)| Some((i.as_u64()? as usize, v)))
                .collect(),
            metadata_keys: strings(v.get("metadata_keys")),
            style: v.get("style").map(Style::from_value).unwrap_or_default(),
        }
    }
}

/// Whether writing `pb` keeps its section table, so that each bullet is
/// tagged with its section.
pub(crate) fn sections_kept(pb: &Playbook) -> bool {
    let stored = pb.layout_of(crate::LAYOUT_KEY);
    let layout = stored.map(Layout::from_value).unwrap_or_default();
    keeps_sections(pb, &layout, stored.is_none())
}

/// Whether the section table goes into `metadata.ace_tools`: in a new
/// file, and in a file that had one. A skill file of the skill's own tools
/// is not given one because a delta named a section; the section is
/// reported lost instead, as the skill has no place for it.
pub(crate) fn keeps_sections(pb: &Playbook, layout: &Layout, fresh: bool) -> bool {
    !layout.array
        && !pb.sections.is_empty()
        && (fresh
            || layout
                .metadata_keys
                .iter()
                .any(|k| k == crate::ACE_TOOLS_KEY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_a_value() {
        let l = Layout {
            array: true,
            keys: vec!["version".into()],
            bullet_keys: vec!["id".into(), "content".into()],
            bullet_orders: vec![("b-2".into(), vec!["content".into(), "id".into()])],
            non_bullets: vec![(3, Value::from("stray"))],
            metadata_keys: vec!["total_bullets".into(), "last_curated".into()],
            style: Style {
                indent: None,
                ..Style::default()
            },
        };
        assert_eq!(Layout::from_value(&l.to_value()), l);
        assert_eq!(Layout::from_value(&Value::Null), Layout::default());
    }
}
