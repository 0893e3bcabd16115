//! The text each scalar of a playbook.yaml was written as. Two things need
//! it that a parsed value has lost: a number keeps its lexeme (`0.50`,
//! `53.0`, an integer past 64 bits), and an unknown key's plain scalar
//! (`note: kept even though unknown`) is written back plain by a rewrite.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;

/// A YAML node with where each scalar is in the text.
pub(crate) enum Raw {
    Scalar,
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(String, Spanned<Raw>)>),
}

/// A mapping key as text, whatever scalar it was.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(v.to_owned()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key("null".into()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any YAML node")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_i128<E: de::Error>(self, _: i128) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_u128<E: de::Error>(self, _: u128) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
                Ok(Raw::Scalar)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
                Raw::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Raw>>()? {
                    items.push(item);
                }
                Ok(Raw::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
                let mut pairs = Vec::new();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    pairs.push((k, map.next_value::<Spanned<Raw>>()?));
                }
                Ok(Raw::Map(pairs))
            }
        }
        d.deserialize_any(V)
    }
}

impl Raw {
    pub(crate) fn get(&self, key: &str) -> Option<&Spanned<Raw>> {
        match self {
            Raw::Map(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn at(&self, i: usize) -> Option<&Spanned<Raw>> {
        match self {
            Raw::Seq(items) => items.get(i),
            _ => None,
        }
    }
}

/// The text of a scalar node as written, when it is one line.
pub(crate) fn text<'s>(src: &'s str, node: &Spanned<Raw>) -> Option<&'s str> {
    if !matches!(node.value, Raw::Scalar) {
        return None;
    }
    let span = node.referenced.span();
    let start = usize::try_from(span.byte_offset()?).ok()?;
    let len = usize::try_from(span.byte_len()?).ok()?;
    let t = src.get(start..start.checked_add(len)?)?.trim_end();
    (!t.is_empty() && !t.contains('\n')).then_some(t)
}

/// A plain scalar's text: not quoted, not a block scalar, not an alias
/// or a tagged value.
pub(crate) fn plain<'s>(src: &'s str, node: &Spanned<Raw>) -> Option<&'s str> {
    text(src, node).filter(|t| !t.starts_with(['"', '\'', '|', '>', '*', '&', '!']))
}

/// Every number of `value` given the lexeme it was written as, where that
/// is a JSON number: `0.50` stays `0.50`, and an integer past 64 bits
/// keeps every digit, where the parser gave a float.
pub(crate) fn keep_number_lexemes(src: &str, value: &mut Value, node: &Spanned<Raw>) {
    match (value, &node.value) {
        (Value::Number(n), Raw::Scalar) => {
            if let Some(lexeme) = plain(src, node) {
                // Only a lexeme of the very number read: YAML's own forms
                // (`0x1F`, `012`, `.inf`) are no JSON numbers and stay.
                match lexeme.parse::<Number>() {
                    Ok(kept) if kept.as_f64().is_some() && kept.as_f64() == n.as_f64() => {
                        *n = kept;
                    }
                    _ => {}
                }
            }
        }
        (Value::Array(items), Raw::Seq(nodes)) => {
            for (v, n) in items.iter_mut().zip(nodes) {
                keep_number_lexemes(src, v, n);
            }
        }
        (Value::Object(map), Raw::Map(_)) => {
            for (k, v) in map.iter_mut() {
                if let Some(n) = node.value.get(k) {
                    keep_number_lexemes(src, v, n);
                }
            }
        }
        _ => {}
    }
}

/// The plain scalars inside `value` (an extra field's value) at JSON
/// pointer `at`, each as `[text, value]`: what a rewrite writes back
/// plain when the value there is still the same.
pub(crate) fn plain_scalars(
    src: &str,
    at: &str,
    value: &Value,
    node: &Spanned<Raw>,
    out: &mut Map<String, Value>,
) {
    match (value, &node.value) {
        (Value::Array(_) | Value::Object(_), Raw::Scalar) => {}
        (Value::Array(items), Raw::Seq(nodes)) => {
            for (i, (v, n)) in items.iter().zip(nodes).enumerate() {
                plain_scalars(src, &format!("{at}/{i}"), v, n, out);
            }
        }
        (Value::Object(map), Raw::Map(_)) => {
            for (k, v) in map {
                if let Some(n) = node.value.get(k) {
                    plain_scalars(src, &format!("{at}/{}", pointer_token(k)), v, n, out);
                }
            }
        }
        (v, Raw::Scalar) => {
            if let Some(t) = plain(src, node) {
                out.insert(at.to_owned(), Value::Array(vec![t.into(), v.clone()]));
            }
        }
        _ => {}
    }
}

/// A key as a JSON pointer token (RFC 6901).
pub(crate) fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
