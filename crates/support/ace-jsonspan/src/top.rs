//! The top level of a JSON text without parsing what lies below it.

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// A JSON text reduced to its top level: an object root keeps its keys,
/// with the values of the keys `whole` picks parsed and every other value
/// `null`; an array root is an empty array and any other root `null`.
/// `None` if the text is not JSON (a leading byte-order mark is skipped).
///
/// Telling what kind of document a file is needs only its top-level keys.
/// The values are skipped by serde_json's validating skip, several times
/// faster than building them: ace-convert and ace-validate ask this of
/// every JSON file before reading it.
pub fn top_level(text: &str, whole: fn(&str) -> bool) -> Option<Value> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Top(whole).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

struct Top(fn(&str) -> bool);

impl<'de> DeserializeSeed<'de> for Top {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = a.next_key::<String>()? {
            let v = if (self.0)(&k) {
                a.next_value::<Value>()?
            } else {
                a.next_value::<IgnoredAny>()?;
                Value::Null
            };
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::Array(Vec::new()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_the_keys_and_only_the_values_asked_for() {
        let text = "\u{feff}{\"a\": [1, {\"x\": 2}], \"bInfo\": {\"v\": \"1\"}, \"c\": \"s\"}";
        assert_eq!(
            top_level(text, |k| k.ends_with("Info")),
            Some(json!({"a": null, "bInfo": {"v": "1"}, "c": null}))
        );
        assert_eq!(top_level("[1, 2]", |_| true), Some(json!([])));
        assert_eq!(top_level("3", |_| true), Some(Value::Null));
    }

    #[test]
    fn text_that_is_not_json_gives_none() {
        for bad in ["{\"a\": [1,}", "{\"a\": 1} x", "", "{\"a\" 1}"] {
            assert_eq!(top_level(bad, |_| false), None, "{bad}");
        }
    }
}
