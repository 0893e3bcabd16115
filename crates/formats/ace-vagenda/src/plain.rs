//! Entries read straight from the parsed tree when they plainly satisfy
//! `PlaybookEntry`.
//!
//! Checking each of a million entries with jsonschema needs it as a JSON
//! value first (a map per entry, its keys hashed), and the two together
//! were most of a vAgenda read after parsing. Nearly every entry is plain:
//! known fields of the expected types. For those this check, written from
//! the schema, says "valid" with certainty and the entry is read from its
//! fields in order. Anything else (a wrong type, an unknown kind, a
//! timestamp this check is unsure of, an event) is not a finding here: it
//! goes the long way, through jsonschema, which words what is wrong.

use ace_jsonspan::{Kind, Node};
use ace_model::Entry;
use serde_json::Value;

use crate::entry;
use crate::types::Ty;

/// `PlaybookEntry.kind`'s enum.
const KINDS: [&str; 5] = ["strategy", "learning", "rule", "warning", "note"];
/// `PlaybookEntry.feedbackType`'s enum.
const FEEDBACK: [&str; 4] = ["humanReview", "executionOutcome", "selfReport", "unknown"];
/// `PlaybookEntry.status`'s enum.
const STATUSES: [&str; 3] = ["active", "deprecated", "quarantined"];

/// The required fields, one bit each.
const REQUIRED: u8 = 0b111;

fn required_bit(key: &str) -> u8 {
    match key {
        "id" => 1,
        "kind" => 2,
        "text" => 4,
        _ => 0,
    }
}

/// Whether `value` certainly satisfies what `PlaybookEntry` asks of field
/// `key`. `false` means "not sure", never "invalid".
fn plainly_valid(key: &str, value: &Node) -> bool {
    match (key, &value.kind) {
        // `minLength: 1` counts characters; a non-empty string has one.
        ("id" | "text", Kind::String(s)) => !s.is_empty(),
        ("title" | "deprecatedReason" | "supersededBy" | "duplicateOf", Kind::String(_)) => true,
        ("kind", Kind::String(s)) => KINDS.contains(&s.as_str()),
        ("feedbackType", Kind::String(s)) => FEEDBACK.contains(&s.as_str()),
        ("status", Kind::String(s)) => STATUSES.contains(&s.as_str()),
        ("tags" | "evidence" | "supersedes", Kind::Array(items)) => {
            items.iter().all(|i| matches!(i.kind, Kind::String(_)))
        }
        ("confidence", Kind::Number(n)) => ace_jsonspan::number(n)
            .as_f64()
            .is_some_and(|f| (0.0..=1.0).contains(&f)),
        // Digits alone: an integer the model keeps as a count (`1.0` and
        // `1e2` are integers to the schema but not to the model).
        ("helpfulCount" | "harmfulCount", Kind::Number(n)) => {
            n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<i64>().is_ok()
        }
        ("createdAt" | "updatedAt", Kind::String(s)) => plainly_zoned(s),
        ("metadata", Kind::Object(_)) => true,
        // An event, not an entry: the playbook is an event log.
        ("eventId", _) => false,
        (k, _) => !Ty::PlaybookEntry.typed().contains(&k),
    }
}

/// Whether `s` matches `dateTime`'s pattern `(Z|[+-]\d{2}:\d{2})$` with
/// ASCII digits (the only ones this check is sure the pattern's `\d`
/// takes).
fn plainly_zoned(s: &str) -> bool {
    let b = s.as_bytes();
    if b.last() == Some(&b'Z') {
        return true;
    }
    match b.len().checked_sub(6).map(|at| &b[at..]) {
        Some([sign, h1, h2, b':', m1, m2]) => {
            matches!(sign, b'+' | b'-') && [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit())
        }
        _ => false,
    }
}

/// Entry `node` read into the model with the kind to derive its section
/// from, when it plainly satisfies `PlaybookEntry`; `None` otherwise.
///
/// Its keys must be unique: the JSON reader reports repeats first and
/// reads such an entry the long way, and the TRON parser rejects them. In
/// TRON a `null` of a typed field means the field is absent.
///
/// The entry's strings are moved out of `node` when it is read.
pub(crate) fn read(node: &mut Node, tron: bool) -> Option<(Entry, Option<String>)> {
    let span = entry::span_of(node);
    let Kind::Object(members) = &mut node.kind else {
        return None;
    };
    debug_assert!(!ace_jsonspan::repeats_a_key(members));
    let absent = |m: &ace_jsonspan::Member| {
        tron && matches!(m.value.kind, Kind::Null)
            && Ty::PlaybookEntry.typed().contains(&m.key.as_str())
    };
    let mut required = 0;
    for m in members.iter().filter(|m| !absent(m)) {
        if !plainly_valid(&m.key, &m.value) {
            return None;
        }
        required |= required_bit(&m.key);
    }
    if required != REQUIRED {
        return None;
    }
    let fields: Vec<(&str, Value)> = members
        .iter_mut()
        .filter(|m| !absent(m))
        .map(|m| (m.key.as_str(), m.value.take_value()))
        .collect();
    let find = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
    let derive_from = entry::derivation(find("kind"), find("metadata")).map(str::to_owned);
    Some((entry::read_fields(fields, Some(span)), derive_from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_plain_only_when_the_pattern_certainly_matches() {
        for ok in [
            "2025-10-25T12:00:00Z",
            "Z",
            "2025-10-25T12:00:00+02:00",
            "x-00:00",
        ] {
            assert!(plainly_zoned(ok), "{ok}");
        }
        for unsure in [
            "",
            "2025-10-25",
            "+02:00Z1",
            "2025-10-25T12:00:00+0200",
            "+2:000",
            "+٠٢:٠٠",
        ] {
            assert!(!plainly_zoned(unsure), "{unsure}");
        }
    }
}
