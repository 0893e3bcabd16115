//! The document around the bullets, as stored in `Playbook::extra`.
//!
//! It is a JSON array so that the canonical model (and its JSON form) can
//! carry it unchanged: a string is text kept byte for byte, `{"bullet": id}`
//! is where a bullet stood, and `{"end": key}` is where a section's bullets
//! end, the place new bullets of that section go.

use serde_json::{json, Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Text(String),
    Bullet {
        id: String,
        /// The section the bullet stood in; an entry that moved elsewhere is
        /// written at its new section's end instead.
        section: Option<String>,
        /// The bytes as read, when they differ from `canon`, the seed's
        /// rendering of what was parsed. A bullet whose rendering still
        /// equals `canon` is written back as `raw`.
        raw: Option<(String, String)>,
    },
    End {
        section: Option<String>,
        title: Option<String>,
    },
}

pub(crate) fn to_value(items: &[Item]) -> Value {
    Value::Array(
        items
            .iter()
            .map(|item| match item {
                Item::Text(t) => Value::String(t.clone()),
                Item::Bullet { id, section, raw } => {
                    let mut m = Map::new();
                    m.insert("bullet".into(), json!(id));
                    m.insert("in".into(), json!(section));
                    if let Some((raw, canon)) = raw {
                        m.insert("raw".into(), json!(raw));
                        m.insert("canon".into(), json!(canon));
                    }
                    Value::Object(m)
                }
                Item::End { section, title } => {
                    let mut m = Map::new();
                    m.insert("end".into(), json!(section));
                    if let Some(t) = title {
                        m.insert("title".into(), json!(t));
                    }
                    Value::Object(m)
                }
            })
            .collect(),
    )
}

/// `None` when the value is not a layout this version wrote; the writer then
/// falls back to the seed's layout and reports the value as dropped.
pub(crate) fn from_value(v: &Value) -> Option<Vec<Item>> {
    let str_of =
        |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    v.as_array()?
        .iter()
        .map(|item| match item {
            Value::String(t) => Some(Item::Text(t.clone())),
            Value::Object(m) if m.contains_key("bullet") => Some(Item::Bullet {
                id: str_of(m, "bullet")?,
                section: match m.get("in") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    _ => return None,
                },
                raw: match (str_of(m, "raw"), str_of(m, "canon")) {
                    (Some(r), Some(c)) => Some((r, c)),
                    (None, None) => None,
                    _ => return None,
                },
            }),
            Value::Object(m) if m.contains_key("end") => Some(Item::End {
                section: match m.get("end")? {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    _ => return None,
                },
                title: str_of(m, "title"),
            }),
            _ => None,
        })
        .collect()
}
