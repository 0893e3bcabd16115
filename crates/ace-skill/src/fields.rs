//! Bullet keys and the order they are written in. The reader and the writer
//! both go through [`keys_for`], so "would the writer give back this key
//! order?" has one answer.

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
pub fn model_has(e: &Entry, key: &str, ordered: bool) -> bool {
    match key {
        "id" => !e.id.is_empty() || ordered,
        "content" => !e.content.is_empty() || ordered,
        "title" => e.title.is_some(),
        "tags" => e.tags.is_some(),
        "evidence" => e.evidence.is_some(),
        "helpful_count" => e.helpful.is_some(),
        "harmful_count" => e.harmful.is_some(),
        "last_updated" => e.updated_at.is_some(),
        "created" => e.created_at.is_some(),
        "links" => e.links.is_some(),
        "confidence" => e.confidence.is_some(),
        "scope" => e.scope.is_some(),
        "status" => e.status.is_some(),
        "deprecation_reason" => e.deprecation_reason.is_some(),
        _ => false,
    }
}

/// The keys a bullet is written with, in order: those of `order` that the
/// entry has, then the rest ranked by [`DEFAULT_ORDER`] and, after those,
/// extra fields in their own order.
pub fn keys_for(e: &Entry, order: &[String]) -> Vec<String> {
    key_refs(e, order).into_iter().map(str::to_owned).collect()
}

/// [`keys_for`] without copying the keys: the reader asks it of every
/// bullet, to compare with the order the bullet was written in.
pub fn key_refs<'a>(e: &'a Entry, order: &'a [String]) -> Vec<&'a str> {
    let present =
        |k: &str| e.extra.contains_key(k) || model_has(e, k, order.iter().any(|o| o == k));
    let mut keys: Vec<&str> = order
        .iter()
        .map(String::as_str)
        .filter(|k| present(k))
        .collect();
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
        // An extra key named like a default one is ranked twice; keep the first.
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_order_first_then_default_then_extras() {
        let mut e = Entry::new("b-1", "text");
        e.helpful = Some(1);
        e.title = Some("t".into());
        e.extra.insert("zeta".into(), 1.into());
        e.extra.insert("author".into(), "agent".into());
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

    #[test]
    fn empty_id_is_written_only_when_the_file_had_it() {
        let e = Entry::new("", "text");
        assert_eq!(keys_for(&e, &[]), ["content"]);
        assert_eq!(keys_for(&e, &["id".to_string()]), ["id", "content"]);
    }
}
