//! [`Extra`]: the fields of an entry that no field of the model holds.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use smol_str::SmolStr;

/// Fields past which a key is found through an index rather than by
/// comparing it with each.
const LINEAR: usize = 16;

/// An entry's fields that no field of the model holds, in the order they
/// were read, each key once.
///
/// An entry has a handful at most (a kayba v2 skill three: `issue`,
/// `occurrences`, `used_count`), so they are a list: a `serde_json::Map`
/// of three took 560 bytes in four allocations (its entries, its hash
/// table, a string for each key), this takes 288 bytes in one, keys of up
/// to 23 bytes held inline. On a 100,000-skill skillbook that is a fifth
/// of what the read allocates. A map with more than sixteen fields gets
/// an index, so that no file makes its reading quadratic.
///
/// Equality is a map's (the order of the fields does not count), as it
/// was for the `serde_json::Map` this replaced.
#[derive(Clone, Default)]
pub struct Extra {
    items: Vec<(SmolStr, Value)>,
    /// Each key's place in `items`, once there are more than [`LINEAR`].
    /// Boxed: 8 bytes in every entry's rare fields rather than 48.
    #[allow(clippy::box_collection)]
    index: Option<Box<HashMap<SmolStr, usize>>>,
}

impl Extra {
    pub fn new() -> Self {
        Extra::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        Extra {
            items: Vec::with_capacity(n),
            index: None,
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn clear(&mut self) {
        self.items.clear();
        self.index = None;
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.items.iter().position(|(k, _)| k == key),
        }
    }

    fn reindex(&mut self) {
        self.index = (self.items.len() > LINEAR).then(|| {
            Box::new(
                self.items
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.clone(), i))
                    .collect(),
            )
        });
    }

    /// Sets `key` to `value`: in its place if the key is there (the old
    /// value returned), else last.
    pub fn insert(&mut self, key: impl Into<SmolStr>, value: Value) -> Option<Value> {
        let key = key.into();
        if let Some(i) = self.position(&key) {
            return Some(std::mem::replace(&mut self.items[i].1, value));
        }
        self.insert_new(key, value);
        None
    }

    /// Puts `key`, which the caller knows is not there, last: a reader
    /// whose keys are unique already does not look for each.
    pub fn insert_new(&mut self, key: impl Into<SmolStr>, value: Value) {
        let key = key.into();
        debug_assert!(self.position(&key).is_none(), "{key} is there already");
        match &mut self.index {
            Some(index) => {
                index.insert(key.clone(), self.items.len());
                self.items.push((key, value));
            }
            None => {
                // Most entries that have an extra field have one (a kayba
                // ADD's `issue`): room for one, not the four a push makes.
                if self.items.capacity() == 0 {
                    self.items.reserve_exact(1);
                }
                self.items.push((key, value));
                if self.items.len() > LINEAR {
                    self.reindex();
                }
            }
        }
    }

    /// The value of `key`, set to `make()` last if the key is not there.
    pub fn get_or_insert_with(
        &mut self,
        key: impl Into<SmolStr>,
        make: impl FnOnce() -> Value,
    ) -> &mut Value {
        let key = key.into();
        let i = match self.position(&key) {
            Some(i) => i,
            None => {
                self.insert(key, make());
                self.items.len() - 1
            }
        };
        &mut self.items[i].1
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).map(|i| &self.items[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.position(key).map(|i| &mut self.items[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Takes `key` out, the fields after it keeping their order.
    pub fn shift_remove(&mut self, key: &str) -> Option<Value> {
        let i = self.position(key)?;
        let (_, value) = self.items.remove(i);
        if self.index.is_some() {
            self.reindex();
        }
        Some(value)
    }

    /// [`Extra::shift_remove`]: the order of the rest is kept.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.shift_remove(key)
    }

    /// Keeps the fields `keep` says yes to, in their order.
    pub fn retain(&mut self, mut keep: impl FnMut(&SmolStr, &mut Value) -> bool) {
        self.items.retain_mut(|(k, v)| keep(k, v));
        if self.index.is_some() {
            self.reindex();
        }
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&SmolStr, &Value)> + ExactSizeIterator {
        self.items.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &SmolStr> + ExactSizeIterator {
        self.items.iter().map(|(k, _)| k)
    }
}

impl std::fmt::Debug for Extra {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl PartialEq for Extra {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl<K: Into<SmolStr>> Extend<(K, Value)> for Extra {
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: Into<SmolStr>> FromIterator<(K, Value)> for Extra {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        let mut extra = Extra::new();
        extra.extend(iter);
        extra
    }
}

impl IntoIterator for Extra {
    type Item = (SmolStr, Value);
    type IntoIter = std::vec::IntoIter<(SmolStr, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a> IntoIterator for &'a Extra {
    type Item = (&'a SmolStr, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (SmolStr, Value)>,
        fn(&'a (SmolStr, Value)) -> (&'a SmolStr, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter().map(|(k, v)| (k, v))
    }
}

impl std::ops::Index<&str> for Extra {
    type Output = Value;

    /// `Value::Null` for a key that is not there, as a JSON object's
    /// index gives.
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl From<Map<String, Value>> for Extra {
    fn from(map: Map<String, Value>) -> Self {
        map.into_iter().collect()
    }
}

impl From<Extra> for Map<String, Value> {
    fn from(extra: Extra) -> Self {
        extra.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }
}

impl From<Extra> for Value {
    fn from(extra: Extra) -> Self {
        Value::Object(extra.into())
    }
}

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k.as_str(), v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Extra;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Extra, A::Error> {
                let mut extra = Extra::with_capacity(access.size_hint().unwrap_or(0).min(LINEAR));
                while let Some((k, v)) = access.next_entry::<SmolStr, Value>()? {
                    extra.insert(k, v);
                }
                Ok(extra)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// The schema of a JSON object of any values, as the map's was.
impl JsonSchema for Extra {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Map<String, Value> as JsonSchema>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <Map<String, Value> as JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Map<String, Value> as JsonSchema>::json_schema(generator)
    }

    fn inline_schema() -> bool {
        <Map<String, Value> as JsonSchema>::inline_schema()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_order_read_and_one_place_per_key() {
        let mut e = Extra::new();
        assert_eq!(e.insert("b", Value::from(1)), None);
        e.insert("a", Value::from(2));
        assert_eq!(e.insert("b", Value::from(3)), Some(Value::from(1)));
        let keys: Vec<&str> = e.keys().map(SmolStr::as_str).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"b":3,"a":2}"#);
        assert_eq!(e.shift_remove("b"), Some(Value::from(3)));
        assert_eq!(e["a"], Value::from(2));
        assert_eq!(e["gone"], Value::Null);
    }

    #[test]
    fn a_large_map_is_indexed_and_stays_in_step() {
        let mut e = Extra::new();
        for i in 0..100 {
            e.insert(format!("k{i}"), Value::from(i));
        }
        assert!(e.index.is_some());
        e.insert("k5", Value::from("five"));
        assert_eq!(e.shift_remove("k3"), Some(Value::from(3)));
        e.retain(|k, _| k != "k7");
        for i in 0..100 {
            let want = match i {
                3 | 7 => None,
                5 => Some(Value::from("five")),
                _ => Some(Value::from(i)),
            };
            assert_eq!(e.get(&format!("k{i}")), want.as_ref(), "k{i}");
        }
        assert_eq!(e.len(), 98);
        assert_eq!(e.keys().nth(3).map(SmolStr::as_str), Some("k4"));
    }

    #[test]
    fn reads_and_writes_as_the_json_map_did() {
        let text = r#"{"z":1,"a":{"x":[1,2]},"z":2}"#;
        let map: Map<String, Value> = serde_json::from_str(text).unwrap();
        let extra: Extra = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&extra).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(Extra::from(map.clone()), extra);
        assert_eq!(Map::from(extra), map);
        let swapped: Extra = serde_json::from_str(r#"{"a":{"x":[1,2]},"z":2}"#).unwrap();
        assert_eq!(swapped, serde_json::from_str::<Extra>(text).unwrap());
    }
}
