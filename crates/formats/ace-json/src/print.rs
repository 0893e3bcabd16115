//! The canonical JSON of one entry, printed by hand: the bytes
//! serde_json's pretty printer gives for [`Entry`]'s `Serialize`, with
//! strings escaped eight bytes at a time. The entries are nearly all of a
//! large playbook's document, and serde_json's escaping, a byte at a
//! time, was the largest part of printing them. A test holds the two to
//! the same bytes over generated entries.

use ace_exec::Out;
use ace_model::{Entry, Rare};
use serde_json::Value;

use crate::nested;

fn line(out: &mut Out<'_>, depth: usize) {
    // Out gathers what it cannot send and reports it at its end.
    let _ = crate::line_break(out, depth);
}

/// Prints `e` as `nested(out, depth, e)` does.
pub(crate) fn entry(out: &mut Out<'_>, depth: usize, e: &Entry) {
    let r: &Rare = e;
    let mut f = Fields {
        out,
        depth: depth + 1,
        first: true,
    };
    f.out.push_str("{");
    f.string("id", &e.id);
    f.some_string("section", e.section.as_deref());
    f.some_string("kind", e.kind.as_deref());
    f.some_string("title", r.title.as_deref());
    f.string("content", &e.content);
    f.some_strings("tags", r.tags.as_deref());
    f.some_value("evidence", r.evidence.as_ref());
    f.some_value("confidence", r.confidence.as_ref());
    f.some_int("helpful", e.helpful);
    f.some_int("harmful", e.harmful);
    f.some_int("neutral", r.neutral);
    f.some_string("status", r.status.as_ref().map(|s| s.as_str()));
    f.some_string("deprecation_reason", r.deprecation_reason.as_deref());
    f.some_string("created_at", r.created_at.as_deref());
    f.some_string("updated_at", r.updated_at.as_deref());
    f.some_strings("supersedes", r.supersedes.as_deref());
    f.some_string("superseded_by", r.superseded_by.as_deref());
    f.some_string("duplicate_of", r.duplicate_of.as_deref());
    f.some_strings("links", r.links.as_deref());
    f.some_value("provenance", r.provenance.as_deref());
    f.some_value("scope", r.scope.as_ref());
    f.some_string("project_id", r.project_id.as_deref());
    if !r.extra.is_empty() {
        f.key("extra");
        let depth = f.depth;
        let out = &mut *f.out;
        out.push_str("{");
        for (i, (k, v)) in r.extra.iter().enumerate() {
            out.push_str(if i == 0 { "" } else { "," });
            line(out, depth + 1);
            string(out, k);
            out.push_str(": ");
            match v {
                Value::String(s) => string(out, s),
                v => nested(out, depth + 1, v),
            }
        }
        line(out, depth);
        out.push_str("}");
    }
    line(f.out, depth);
    f.out.push_str("}");
}

/// The members of an object being printed, at `depth`.
struct Fields<'o, 'w> {
    out: &'o mut Out<'w>,
    depth: usize,
    first: bool,
}

impl Fields<'_, '_> {
    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push_str(",");
        }
        self.first = false;
        line(self.out, self.depth);
        self.out.push_str("\"");
        self.out.push_str(key);
        self.out.push_str("\": ");
    }

    fn string(&mut self, key: &str, v: &str) {
        self.key(key);
        string(self.out, v);
    }

    fn some_string(&mut self, key: &str, v: Option<&str>) {
        if let Some(v) = v {
            self.string(key, v);
        }
    }

    fn some_int(&mut self, key: &str, v: Option<i64>) {
        if let Some(v) = v {
            self.key(key);
            // Digits from the last, as itoa (serde_json's) writes them.
            let mut buf = [0u8; 20];
            let mut at = buf.len();
            let mut n = v.unsigned_abs();
            loop {
                at -= 1;
                buf[at] = b'0' + (n % 10) as u8;
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            if v < 0 {
                self.out.push_str("-");
            }
            self.out
                .push_str(std::str::from_utf8(&buf[at..]).expect("digits"));
        }
    }

    fn some_strings(&mut self, key: &str, v: Option<&[String]>) {
        let Some(items) = v else {
            return;
        };
        self.key(key);
        if items.is_empty() {
            self.out.push_str("[]");
            return;
        }
        self.out.push_str("[");
        for (i, s) in items.iter().enumerate() {
            self.out.push_str(if i == 0 { "" } else { "," });
            line(self.out, self.depth + 1);
            string(self.out, s);
        }
        line(self.out, self.depth);
        self.out.push_str("]");
    }

    fn some_value(&mut self, key: &str, v: Option<&impl serde::Serialize>) {
        if let Some(v) = v {
            self.key(key);
            nested(self.out, self.depth, v);
        }
    }
}

/// `s` as a JSON string, escaped as serde_json escapes it.
pub(crate) fn string(out: &mut Out<'_>, s: &str) {
    ace_pyjson::escape(s, false, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_model::{Confidence, ConfidenceLevel, Evidence, Provenance, Scope, Status};
    use proptest::prelude::*;

    /// Text with what JSON escapes in it: quotes, backslashes, every
    /// control character, DEL, and characters of two to four bytes.
    fn text() -> impl Strategy<Value = String> {
        let c = prop_oneof![
            4 => proptest::char::range('a', 'z'),
            1 => Just('"'),
            1 => Just('\\'),
            1 => (0u8..0x20).prop_map(char::from),
            1 => Just('\u{7f}'),
            1 => any::<char>(),
        ];
        proptest::collection::vec(c, 0..24).prop_map(|v| v.into_iter().collect())
    }

    fn texts() -> impl Strategy<Value = Option<Vec<String>>> {
        proptest::option::of(proptest::collection::vec(text(), 0..3))
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            text().prop_map(Value::String),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::Null),
            Just(serde_json::json!(1.5e-7)),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                proptest::collection::vec((text(), inner), 0..3)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    prop_compose! {
        fn entry()(
            id in text(),
            content in text(),
            strings in proptest::collection::vec(proptest::option::of(text()), 10),
            lists in (texts(), texts(), texts()),
            counts in proptest::collection::vec(proptest::option::of(any::<i64>()), 3),
            status in 0..6usize,
            odd in proptest::collection::vec(any::<bool>(), 4),
            extra in proptest::collection::vec((text(), value()), 0..4),
        ) -> Entry {
            let mut e = Entry::new(id, content);
            e.section = strings[0].clone();
            e.kind = strings[1].clone();
            e.helpful = counts[0];
            e.harmful = counts[1];
            if strings[2..].iter().any(Option::is_some)
                || lists.0.is_some()
                || counts[2].is_some()
                || status > 0
                || odd.iter().any(|x| *x)
                || !extra.is_empty()
            {
                e.title = strings[2].clone();
                e.deprecation_reason = strings[3].clone();
                e.created_at = strings[4].clone();
                e.updated_at = strings[5].clone();
                e.superseded_by = strings[6].clone();
                e.duplicate_of = strings[7].clone();
                e.project_id = strings[8].clone();
                e.tags = lists.0;
                e.supersedes = lists.1;
                e.links = lists.2;
                e.neutral = counts[2];
                e.status = match status {
                    1 => Some(Status::Active),
                    2 => Some(Status::Deprecated),
                    3 => Some(Status::Other(strings[9].clone().unwrap_or_default())),
                    4 => Some(Status::Quarantined),
                    5 => Some(Status::Archived),
                    _ => None,
                };
                if odd[0] {
                    e.evidence = Some(vec![Evidence::Text("seen \"twice\"".into())]);
                }
                if odd[1] {
                    e.confidence = Some(Confidence::Level(ConfidenceLevel::High));
                }
                if odd[2] {
                    e.scope = Some(Scope::Name("global".into()));
                }
                if odd[3] {
                    e.provenance = Some(Box::new(Provenance {
                        delta_id: Some("d-1".into()),
                        ..Provenance::default()
                    }));
                }
                e.extra.extend(extra);
            }
            e
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]
        /// The hand printer gives serde_json's bytes, at any depth.
        #[test]
        fn entries_print_as_serde_json_prints_them(e in entry(), depth in 0..5usize) {
            let mut ours = Out::new();
            super::entry(&mut ours, depth, &e);
            let mut serde = Out::new();
            nested(&mut serde, depth, &e);
            prop_assert_eq!(ours.into_string(), serde.into_string());
        }
    }

    #[test]
    fn escapes_are_found_in_every_byte_of_a_word() {
        for at in 0..40 {
            for c in (0u8..0x20).chain([b'"', b'\\', 0x7f, b'~', b' ']) {
                let mut s = "abcdefghijklmnopqrstuvwxyzabcdefghijklmn"
                    .as_bytes()
                    .to_vec();
                s[at] = c;
                let s = String::from_utf8(s).expect("ASCII");
                let mut out = Out::new();
                string(&mut out, &s);
                assert_eq!(
                    out.into_string(),
                    serde_json::to_string(&s).unwrap(),
                    "{c} at {at}"
                );
            }
        }
    }
}
