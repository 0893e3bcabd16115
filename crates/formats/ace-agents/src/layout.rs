//! The document around the bullets, as stored in `Playbook::extra`.
//!
//! It is a JSON array so that the canonical model (and its JSON form) can
//! carry it unchanged:
//! - a string is text kept byte for byte;
//! - `{"bullets": "id id ...", "in": key}` is a run of bullets that stood
//!   one after another in section `key` (`null`: before any section) and
//!   read back as the seed renders them, their IDs separated by spaces (an
//!   AGENTS.md ID is letters, digits, `-`, `_` and `.`);
//! - `{"bullet": id, "in": key, "raw": ..., "canon": ...}` is one bullet
//!   whose bytes differ from the seed's rendering (`canon`) of what was
//!   parsed; it is written back as `raw` while it still renders as `canon`;
//! - `{"end": key, "title": ...}` is where a section's bullets end, the
//!   place new bullets of that section go.
//!
//! A run costs a large file about one ID's bytes per bullet, where an
//! object per bullet (a map, two keys and the section again: an older
//! form, still read) costs several times the bullet's entry.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item<'a> {
    Text(&'a str),
    Bullet {
        id: &'a str,
        /// The section the bullet stood in; an entry that moved elsewhere is
        /// written at its new section's end instead.
        section: Option<&'a str>,
        /// The bytes as read and the seed's rendering of what was parsed,
        /// when they differ.
        raw: Option<(&'a str, &'a str)>,
    },
    End {
        section: Option<&'a str>,
        title: Option<&'a str>,
    },
}

/// Builds the stored layout as the reader goes through the document.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    items: Vec<Value>,
    /// The run more bullets may join, kept apart until it closes: its IDs
    /// and its section.
    run: Option<(String, Option<String>)>,
}

fn key_value(key: Option<&str>) -> Value {
    key.map_or(Value::Null, |k| Value::String(k.to_owned()))
}

impl Builder {
    fn close_run(&mut self) {
        if let Some((ids, section)) = self.run.take() {
            let mut m = Map::new();
            m.insert("bullets".into(), Value::String(ids));
            m.insert("in".into(), section.map_or(Value::Null, Value::String));
            self.items.push(Value::Object(m));
        }
    }

    pub(crate) fn text(&mut self, text: String) {
        self.close_run();
        self.items.push(Value::String(text));
    }

    pub(crate) fn bullet(
        &mut self,
        id: &str,
        section: Option<&str>,
        raw: Option<(String, String)>,
    ) {
        if let Some((raw, canon)) = raw {
            self.close_run();
            let mut m = Map::new();
            m.insert("bullet".into(), Value::String(id.to_owned()));
            m.insert("in".into(), key_value(section));
            m.insert("raw".into(), Value::String(raw));
            m.insert("canon".into(), Value::String(canon));
            self.items.push(Value::Object(m));
            return;
        }
        if let Some((ids, in_section)) = &mut self.run {
            if in_section.as_deref() == section {
                ids.push(' ');
                ids.push_str(id);
                return;
            }
        }
        self.close_run();
        self.run = Some((id.to_owned(), section.map(str::to_owned)));
    }

    pub(crate) fn end(&mut self, section: Option<&str>, title: Option<&str>) {
        self.close_run();
        let mut m = Map::new();
        m.insert("end".into(), key_value(section));
        if let Some(t) = title {
            m.insert("title".into(), Value::String(t.to_owned()));
        }
        self.items.push(Value::Object(m));
    }

    pub(crate) fn finish(mut self) -> Value {
        self.close_run();
        Value::Array(self.items)
    }
}

/// `None` when the value is not a layout this version wrote; the writer then
/// falls back to the seed's layout and reports the value as dropped.
pub(crate) fn from_value(v: &Value) -> Option<Vec<Item<'_>>> {
    fn str_of<'a>(m: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
        m.get(k).and_then(Value::as_str)
    }
    /// `Some(None)` for no section, `None` for what is not a key.
    fn section<'a>(m: &'a Map<String, Value>, k: &str) -> Option<Option<&'a str>> {
        match m.get(k) {
            None | Some(Value::Null) => Some(None),
            Some(Value::String(s)) => Some(Some(s.as_str())),
            _ => None,
        }
    }
    let mut out = Vec::new();
    for item in v.as_array()? {
        match item {
            Value::String(t) => out.push(Item::Text(t)),
            Value::Object(m) if m.contains_key("bullets") => {
                let section = section(m, "in")?;
                for id in str_of(m, "bullets")?.split(' ') {
                    out.push(Item::Bullet {
                        id,
                        section,
                        raw: None,
                    });
                }
            }
            Value::Object(m) if m.contains_key("bullet") => out.push(Item::Bullet {
                id: str_of(m, "bullet")?,
                section: section(m, "in")?,
                raw: match (str_of(m, "raw"), str_of(m, "canon")) {
                    (Some(r), Some(c)) => Some((r, c)),
                    (None, None) => None,
                    _ => return None,
                },
            }),
            Value::Object(m) if m.contains_key("end") => out.push(Item::End {
                section: section(m, "end")?,
                title: str_of(m, "title"),
            }),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bullets_in_a_row_in_one_section_are_one_run() {
        let mut b = Builder::default();
        b.text("# T\n\n".into());
        b.bullet("a", Some("s"), None);
        b.bullet("b", Some("s"), None);
        b.bullet("c", Some("s"), None);
        b.bullet("d", Some("t"), None);
        b.bullet("e", Some("t"), Some(("raw\n".into(), "canon\n".into())));
        b.bullet("f", Some("t"), None);
        b.end(Some("t"), Some("T"));
        b.bullet("g", Some("t"), None);
        b.bullet("h", None, None);
        let mut v = b.finish();
        assert_eq!(
            v[v.as_array().unwrap().len() - 1],
            json!({"bullets": "h", "in": null})
        );
        v.as_array_mut()
            .unwrap()
            .push(json!({"bullet": "i", "in": "t"}));
        assert_eq!(
            v,
            json!([
                "# T\n\n",
                {"bullets": "a b c", "in": "s"},
                {"bullets": "d", "in": "t"},
                {"bullet": "e", "in": "t", "raw": "raw\n", "canon": "canon\n"},
                {"bullets": "f", "in": "t"},
                {"end": "t", "title": "T"},
                {"bullets": "g", "in": "t"},
                {"bullets": "h", "in": null},
                // The form of one bullet before runs.
                {"bullet": "i", "in": "t"},
            ])
        );
        let items = from_value(&v).unwrap();
        let bullet = |id, section| Item::Bullet {
            id,
            section,
            raw: None,
        };
        assert_eq!(
            items,
            vec![
                Item::Text("# T\n\n"),
                bullet("a", Some("s")),
                bullet("b", Some("s")),
                bullet("c", Some("s")),
                bullet("d", Some("t")),
                Item::Bullet {
                    id: "e",
                    section: Some("t"),
                    raw: Some(("raw\n", "canon\n")),
                },
                bullet("f", Some("t")),
                Item::End {
                    section: Some("t"),
                    title: Some("T"),
                },
                bullet("g", Some("t")),
                bullet("h", None),
                bullet("i", Some("t")),
            ]
        );
    }

    #[test]
    fn what_is_not_a_layout_is_refused() {
        for v in [
            json!({"bullets": []}),
            json!([{"bullets": ["a"], "in": "s"}]),
            json!([{"bullets": 1, "in": "s"}]),
            json!([{"bullets": ["a"], "in": 3}]),
            json!([{"bullet": "a", "raw": "x"}]),
            json!([{"end": 1}]),
            json!([{"other": 1}]),
            json!([1]),
        ] {
            assert_eq!(from_value(&v), None, "{v}");
        }
    }
}
