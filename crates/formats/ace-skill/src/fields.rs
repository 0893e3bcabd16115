//! Bullet keys and the order they are written in. The reader and the writer
//! both go through [`KeyOrder::keys`], so "would the writer give back this key
//! order?" has one answer.

use std::borrow::Cow;

use ace_model::{Entry, Status};

/// The counts the skill keeps in `metadata`, computed from the bullets.
pub fn metadata_counts(entries: &[Entry]) -> [(&'static str, i64); 4] {
    // One pass: at a million entries each walk of the list is a cache miss
    // per entry.
    let (mut active, mut deprecated, mut archived) = (0, 0, 0);
    for e in entries {
        match e.status {
            // The schema's default status is `active`.
            None | Some(Status::Active) => active += 1,
            Some(Status::Deprecated) => deprecated += 1,
            Some(Status::Archived) => archived += 1,
            _ => {}
        }
    }
    [
        ("total_bullets", entries.len() as i64),
        ("active_bullets", active),
        ("deprecated_bullets", deprecated),
        ("archived_bullets", archived),
    ]
}

/// The seed playbook's key order (`.claude/.claude/skills/.../playbook.json`),
/// used for new bullets and to rank keys no recorded order mentions.
pub const DEFAULT_ORDER: [&str; 16] = [
    "id",
    "title",
    "content",
    "tags",
    "evidence",
    "helpful_count",
    "harmful_count",
    "last_updated",
    "created",
    "links",
    "confidence",
    "scope",
    "prerequisites",
    "author",
    "status",
    "deprecation_reason",
];

/// Whether the model holds a value for skill key `key` of `e`. `id` and
/// `content` are required by the model, so an empty one counts as absent
/// unless `ordered` says the file had the key.
#[cfg(test)]
pub fn model_has(e: &Entry, key: &str, ordered: bool) -> bool {
    DEFAULT_ORDER
        .iter()
        .position(|d| *d == key)
        .is_some_and(|i| has(e, i, ordered))
}

/// [`model_has`] for `DEFAULT_ORDER[i]`.
fn has(e: &Entry, i: usize, ordered: bool) -> bool {
    match i {
        0 => !e.id.is_empty() || ordered,
        1 => e.title.is_some(),
        2 => !e.content.is_empty() || ordered,
        3 => e.tags.is_some(),
        4 => e.evidence.is_some(),
        5 => e.helpful.is_some(),
        6 => e.harmful.is_some(),
        7 => e.updated_at.is_some(),
        8 => e.created_at.is_some(),
        9 => e.links.is_some(),
        10 => e.confidence.is_some(),
        11 => e.scope.is_some(),
        14 => e.status.is_some(),
        15 => e.deprecation_reason.is_some(),
        // `prerequisites` and `author` live in `extra`.
        _ => false,
    }
}

/// [`KeyOrder::keys`] of `order`, owned.
#[cfg(test)]
pub fn keys_for(e: &Entry, order: &[String]) -> Vec<String> {
    KeyOrder::new(order)
        .keys(e)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// A recorded key order, matched against [`DEFAULT_ORDER`] once: the
/// reader compares every bullet's keys with it, and the writer writes
/// every bullet by it.
pub struct KeyOrder<'a> {
    order: Cow<'a, [String]>,
    /// Each key of `order`'s place in `DEFAULT_ORDER`.
    known: Vec<Option<usize>>,
    /// The places in `DEFAULT_ORDER` of the keys `order` does not name.
    unnamed: Vec<usize>,
    /// `order` names a key twice (a hand-edited layout): a bullet is
    /// written with it once, at its first place.
    repeats: bool,
}

impl<'a> KeyOrder<'a> {
    pub fn new(order: impl Into<Cow<'a, [String]>>) -> Self {
        let order = order.into();
        let place = |k: &str| DEFAULT_ORDER.iter().position(|d| *d == k);
        KeyOrder {
            known: order.iter().map(|k| place(k)).collect(),
            unnamed: (0..DEFAULT_ORDER.len())
                .filter(|&i| !order.iter().any(|k| k == DEFAULT_ORDER[i]))
                .collect(),
            repeats: order
                .iter()
                .enumerate()
                .any(|(i, k)| order[..i].contains(k)),
            order,
        }
    }

    pub fn into_order(self) -> Vec<String> {
        self.order.into_owned()
    }

    /// The keys a bullet is written with, in order: those of the order
    /// that the entry has, then the rest ranked by [`DEFAULT_ORDER`] and,
    /// after those, extra fields in their own order.
    pub fn keys<'e>(&'e self, e: &'e Entry) -> Vec<&'e str> {
        // Most bullets have no extra fields: no lookups then.
        let extra = |k: &str| !e.extra.is_empty() && e.extra.contains_key(k);
        let mut keys: Vec<&str> = Vec::with_capacity(self.order.len() + 4);
        for (k, place) in self.order.iter().zip(&self.known) {
            if (extra(k) || place.is_some_and(|i| has(e, i, true)))
                && !(self.repeats && keys.contains(&k.as_str()))
            {
                keys.push(k);
            }
        }
        // A default key the order names was settled above, present or not.
        for &i in &self.unnamed {
            let k = DEFAULT_ORDER[i];
            if extra(k) || has(e, i, false) {
                keys.push(k);
            }
        }
        for k in e.extra.keys() {
            // An extra key named like a default one is ranked there.
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_order_first_then_default_then_extras() {
        let mut e = Entry::new("b-1", "text");
        e.helpful = Some(1);
        e.title = Some("t".into());
        e.extra.insert("zeta", 1.into());
        e.extra.insert("author", "agent".into());
        let order: Vec<String> = ["helpful_count", "id", "missing"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            keys_for(&e, &order),
            ["helpful_count", "id", "title", "content", "author", "zeta"]
        );
        assert_eq!(
            keys_for(&e, &[]),
            ["id", "title", "content", "helpful_count", "author", "zeta"]
        );
    }

    /// The rule as first written, key by key with string lookups.
    fn reference_keys(e: &Entry, order: &[String]) -> Vec<String> {
        let present =
            |k: &str| e.extra.contains_key(k) || model_has(e, k, order.iter().any(|o| o == k));
        // A key the order names twice is written once, as a JSON object
        // of the bullet holds it.
        let mut keys: Vec<&str> = Vec::new();
        for k in order.iter().map(String::as_str).filter(|k| present(k)) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        let mut rest: Vec<(usize, &str)> = DEFAULT_ORDER
            .iter()
            .enumerate()
            .filter(|(_, k)| present(k))
            .map(|(i, k)| (i, *k))
            .chain(
                e.extra
                    .keys()
                    .enumerate()
                    .map(|(i, k)| (DEFAULT_ORDER.len() + i, k.as_str())),
            )
            .filter(|(_, k)| !keys.contains(k))
            .collect();
        rest.sort_by_key(|(rank, _)| *rank);
        for (_, k) in rest {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys.into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn key_orders_follow_the_rule_for_every_mix_of_fields() {
        let orders: Vec<Vec<String>> = [
            &[][..],
            &["id", "content"],
            &["content", "zeta", "id", "helpful_count", "missing"],
            &["status", "author", "title", "id", "id"],
            &[
                "created",
                "confidence",
                "tags",
                "prerequisites",
                "zeta",
                "content",
            ],
        ]
        .iter()
        .map(|o| o.iter().map(|k| (*k).to_owned()).collect())
        .collect();
        let mut checked = 0;
        // Each bit of `mask` sets one field, model or extra.
        for mask in 0u32..1 << 11 {
            let on = |i: usize| mask & (1 << i) != 0;
            let mut e = Entry::new(if on(0) { "b-1" } else { "" }, if on(1) { "x" } else { "" });
            if on(2) {
                e.title = Some("t".into());
            }
            if on(3) {
                e.tags = Some(vec![]);
            }
            if on(4) {
                e.helpful = Some(0);
            }
            if on(5) {
                e.extra.insert("status", "odd".into());
            }
            if on(6) {
                e.extra.insert("author", "a".into());
            }
            if on(7) {
                e.status = Some(Status::Active);
            }
            if on(8) {
                e.extra.insert("zeta", 1.into());
            }
            if on(9) {
                e.extra.insert("prerequisites", 1.into());
            }
            if on(10) {
                e.created_at = Some("2025-01-01".into());
            }
            for order in &orders {
                assert_eq!(
                    keys_for(&e, order),
                    reference_keys(&e, order),
                    "{mask:b} {order:?}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 5 << 11);
    }

    #[test]
    fn empty_id_is_written_only_when_the_file_had_it() {
        let e = Entry::new("", "text");
        assert_eq!(keys_for(&e, &[]), ["content"]);
        assert_eq!(keys_for(&e, &["id".to_string()]), ["id", "content"]);
    }
}
