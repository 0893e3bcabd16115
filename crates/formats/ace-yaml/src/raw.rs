//! The text each scalar of a playbook.yaml was written as. Two things need
//! it that a parsed value has lost: a number keeps its lexeme (`0.50`,
//! `53.0`, an integer past 64 bits), and an unknown key's plain scalar
//! (`note: kept even though unknown`) is written back plain by a rewrite.

use serde::de::{self, Deserialize, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;

/// A YAML node with where each node is in the text. A scalar holds its
/// value until [`take_value`] moves it out: one parse gives both the value
/// and the positions (serde-saphyr's parse is most of a read's time).
pub(crate) enum Raw {
    Scalar(Value),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(String, Spanned<Raw>)>),
}

/// A scalar's value exactly as `serde_json::Value` would deserialize it
/// (non-finite floats null, 128-bit integers by its own rules).
fn scalar<'de, T: IntoDeserializer<'de, E>, E: de::Error>(v: T) -> Result<Raw, E> {
    Value::deserialize(v.into_deserializer()).map(Raw::Scalar)
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any YAML node")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Raw, E> {
                scalar(v)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
                scalar(v)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
                scalar(v)
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Raw, E> {
                scalar(v)
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Raw, E> {
                scalar(v)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
                scalar(v)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::String(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::String(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
                Ok(Raw::Scalar(Value::Null))
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
            // Keys are read as strings, as `serde_json::Value` reads them,
            // so a key names the same member in the value and in the tree.
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
                let mut pairs = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    pairs.push((k, map.next_value::<Spanned<Raw>>()?));
                }
                Ok(Raw::Map(pairs))
            }
        }
        d.deserialize_any(V)
    }
}

/// Moves the value out of the tree, which keeps its shape and positions.
/// A key given twice keeps its first place and its last value, as
/// `serde_json::Value`'s map does.
pub(crate) fn take_value(node: &mut Raw) -> Value {
    match node {
        Raw::Scalar(v) => std::mem::take(v),
        Raw::Seq(items) => {
            Value::Array(items.iter_mut().map(|n| take_value(&mut n.value)).collect())
        }
        Raw::Map(pairs) => {
            let mut map = Map::with_capacity(pairs.len());
            for (k, n) in pairs.iter_mut() {
                map.insert(k.clone(), take_value(&mut n.value));
            }
            Value::Object(map)
        }
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
    if !matches!(node.value, Raw::Scalar(_)) {
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
        (Value::Number(n), Raw::Scalar(_)) => {
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
        (Value::Array(_) | Value::Object(_), Raw::Scalar(_)) => {}
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
        (v, Raw::Scalar(_)) => {
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
