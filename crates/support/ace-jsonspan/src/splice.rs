//! A new value written over the JSON text an old one was parsed from, as
//! edits that leave every byte of an unchanged part as it was: its blank
//! lines, its one-line objects, its number lexemes (`0.80`) and escapes.
//!
//! The new value is compared with the tree part by part. An object keeps
//! its members and has the changed ones edited, the removed ones cut with
//! their separator and the new ones inserted after the member before them;
//! an array that only grew has its new items inserted after its last; any
//! other changed value is printed anew in place, by the caller's [`Print`],
//! at the indentation of the line it stands on. Separators of inserted
//! members and items are copied from their neighbours.

use ace_model::edit::Edit;
use serde_json::{Map, Value};

use crate::{Kind, Member, Node};

/// How the file's writer prints what is new.
pub trait Print {
    /// `v` as it stands on a line indented `level` deep: nested lines are
    /// indented deeper, the closing bracket at `level`.
    fn value(&mut self, v: &Value, level: usize) -> String;
    /// An object key, quoted and escaped as the file writes strings.
    fn key(&mut self, k: &str) -> String;
    /// One level of indentation.
    fn unit(&self) -> &str;
}

/// Whether `node` holds `v`: the same keys in the same order, numbers equal
/// as numbers (`0.80` holds 0.8).
pub fn same(node: &Node, v: &Value) -> bool {
    match (&node.kind, v) {
        (Kind::Null, Value::Null) => true,
        (Kind::Bool(a), Value::Bool(b)) => a == b,
        (Kind::Number(lexeme), Value::Number(n)) => crate::number(lexeme) == *n,
        (Kind::String(a), Value::String(b)) => a == b,
        (Kind::Array(items), Value::Array(vs)) => {
            items.len() == vs.len() && items.iter().zip(vs).all(|(n, v)| same(n, v))
        }
        (Kind::Object(members), Value::Object(map)) => {
            members.len() == map.len()
                && members
                    .iter()
                    .zip(map)
                    .all(|(m, (k, v))| m.key == k.as_str() && same(&m.value, v))
        }
        _ => false,
    }
}

/// The edits that turn `node`'s text in `src` into `new`'s.
pub fn edits(src: &str, node: &Node, new: &Value, p: &mut dyn Print, out: &mut Vec<Edit>) {
    if same(node, new) {
        return;
    }
    match (&node.kind, new) {
        (Kind::Object(members), Value::Object(map))
            if !members.is_empty() && !crate::repeats_a_key(members) && in_order(members, map) =>
        {
            object(src, node, members, map, p, out)
        }
        (Kind::Array(items), Value::Array(vs)) if !items.is_empty() => {
            if vs.len() > items.len() && items.iter().zip(vs).all(|(n, v)| same(n, v)) {
                let Some(last) = items.last() else { return };
                let sep = separator(src, node, items.iter().map(|n| n.span));
                let level = level_at(src, last.span.start, p.unit());
                let text: String = vs[items.len()..]
                    .iter()
                    .map(|v| format!("{sep}{}", p.value(v, level)))
                    .collect();
                out.push(Edit::insert(last.span.end, text));
            } else if vs.len() == items.len() {
                for (n, v) in items.iter().zip(vs) {
                    edits(src, n, v, p, out);
                }
            } else {
                reprint(src, node, new, p, out);
            }
        }
        _ => reprint(src, node, new, p, out),
    }
}

/// Whether the keys `members` and `map` share come in the same order.
fn in_order(members: &[Member], map: &Map<String, Value>) -> bool {
    let old = members
        .iter()
        .map(|m| m.key.as_str())
        .filter(|k| map.contains_key(*k));
    let new = map.keys().map(String::as_str).filter(|k| {
        // Linear in the members: objects compared here are small.
        members.iter().any(|m| m.key == *k)
    });
    old.eq(new)
}

fn object(
    src: &str,
    node: &Node,
    members: &[Member],
    map: &Map<String, Value>,
    p: &mut dyn Print,
    out: &mut Vec<Edit>,
) {
    let spans: Vec<ace_model::Span> = members
        .iter()
        .map(|m| ace_model::Span::new(m.key_span.start, m.value.span.end))
        .collect();
    let kept: Vec<bool> = members
        .iter()
        .map(|m| map.contains_key(m.key.as_str()))
        .collect();
    if !cut(&spans, &kept, out) {
        return reprint(src, node, &Value::Object(map.clone()), p, out);
    }
    let sep = separator(src, node, spans.iter().copied());
    let colon = &src[members[0].key_span.end..members[0].value.span.start];
    let level = level_at(src, members[0].key_span.start, p.unit());
    // New members go after the member before them in the new order, or
    // ahead of the first member.
    let mut after: Option<usize> = None;
    let mut ahead = String::new();
    for (k, v) in map {
        match members.iter().position(|m| m.key == k.as_str()) {
            Some(i) => {
                if !ahead.is_empty() {
                    out.push(Edit::insert(spans[i].start, std::mem::take(&mut ahead)));
                }
                edits(src, &members[i].value, v, p, out);
                after = Some(i);
            }
            None => {
                let member = format!("{}{colon}{}", p.key(k), p.value(v, level));
                match after {
                    Some(i) => out.push(Edit::insert(spans[i].end, format!("{sep}{member}"))),
                    None => ahead.push_str(&format!("{member}{sep}")),
                }
            }
        }
    }
}

/// Cuts the members or items at `spans` not `kept`, each run of them with
/// the separator before it (after it, for a run at the start). `false`
/// when none is kept: a container cannot be emptied by cuts.
pub fn cut(spans: &[ace_model::Span], kept: &[bool], out: &mut Vec<Edit>) -> bool {
    if !kept.iter().any(|k| *k) {
        return spans.is_empty();
    }
    let mut i = 0;
    while i < spans.len() {
        if kept[i] {
            i += 1;
            continue;
        }
        let first = i;
        while i < spans.len() && !kept[i] {
            i += 1;
        }
        let last = i - 1;
        if first > 0 {
            out.push(Edit::delete(spans[first - 1].end, spans[last].end));
        } else if let Some(next) = spans.get(i) {
            out.push(Edit::delete(spans[first].start, next.start));
        }
    }
    true
}

/// What stands between two members or items of `node`: copied from the
/// first two, or made for a container of one from whether it spans lines.
pub fn separator(
    src: &str,
    node: &Node,
    mut spans: impl Iterator<Item = ace_model::Span>,
) -> String {
    let first = spans.next();
    match (first, spans.next()) {
        (Some(a), Some(b)) => src[a.end..b.start].to_owned(),
        (Some(a), None) => {
            let body = &src[node.span.start..node.span.end];
            if body.contains('\n') {
                let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
                format!(",{newline}{}", line_indent(src, a.start))
            } else {
                ", ".to_owned()
            }
        }
        _ => ", ".to_owned(),
    }
}

fn reprint(src: &str, node: &Node, new: &Value, p: &mut dyn Print, out: &mut Vec<Edit>) {
    let level = level_at(src, node.span.start, p.unit());
    out.push(Edit::replace(
        node.span.start,
        node.span.end,
        p.value(new, level),
    ));
}

/// The whitespace that opens the line `at` is on.
fn line_indent(src: &str, at: usize) -> &str {
    let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &src[start..at];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// A [`Print`] for a JSON file with no writer of its own: serde_json's
/// pretty form, indented by the unit the file's own first indented line
/// uses (two spaces when none is).
pub struct Plain {
    unit: String,
}

impl Plain {
    pub fn of(src: &str) -> Plain {
        let unit = src
            .lines()
            .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
            .find(|ws| !ws.is_empty())
            .unwrap_or("  ");
        Plain {
            unit: unit.to_owned(),
        }
    }
}

impl Print for Plain {
    fn value(&mut self, v: &Value, level: usize) -> String {
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        let text = match serde::Serialize::serialize(v, &mut ser) {
            Ok(()) => String::from_utf8(buf).unwrap_or_default(),
            Err(_) => v.to_string(),
        };
        text.replace('\n', &format!("\n{}", self.unit.repeat(level)))
    }
    fn key(&mut self, k: &str) -> String {
        Value::String(k.to_owned()).to_string()
    }
    fn unit(&self) -> &str {
        &self.unit
    }
}

/// How many indentation `unit`s open the line `at` is on.
pub fn level_at(src: &str, at: usize, unit: &str) -> usize {
    let ws = line_indent(src, at);
    if unit.is_empty() {
        return 0;
    }
    ws.len() / unit.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spliced(src: &str, new: Value) -> String {
        let doc = crate::parse(src).unwrap();
        let mut out = Vec::new();
        edits(src, &doc.root, &new, &mut Plain::of(src), &mut out);
        let text = ace_model::edit::apply(src, out).unwrap();
        assert_eq!(crate::parse(&text).unwrap().root.to_value(), new, "{text}");
        text
    }

    const SRC: &str = "{\n  \"a\": 0.80,\n\n  \"list\": [1, 2],\n  \"obj\": {\"x\": 1, \"y\": [ ]},\n  \"z\": \"\\u00e9\"\n}\n";

    #[test]
    fn unchanged_parts_keep_their_bytes() {
        let v = crate::parse(SRC).unwrap().root.to_value();
        assert_eq!(spliced(SRC, v.clone()), SRC);
        let mut changed = v;
        changed["obj"]["x"] = json!(2);
        assert_eq!(
            spliced(SRC, changed),
            SRC.replace("{\"x\": 1,", "{\"x\": 2,")
        );
    }

    #[test]
    fn members_come_and_go_with_their_separators() {
        let mut v = crate::parse(SRC).unwrap().root.to_value();
        let m = v.as_object_mut().unwrap();
        m.shift_remove("list");
        m.insert("new".into(), json!({"k": true}));
        let out = spliced(SRC, v);
        assert_eq!(
            out,
            "{\n  \"a\": 0.80,\n  \"obj\": {\"x\": 1, \"y\": [ ]},\n  \"z\": \"\\u00e9\",\n\n  \"new\": {\n    \"k\": true\n  }\n}\n"
        );
    }

    #[test]
    fn a_grown_array_gets_its_new_items_after_the_last() {
        let mut v = crate::parse(SRC).unwrap().root.to_value();
        v["list"].as_array_mut().unwrap().push(json!(3));
        assert_eq!(spliced(SRC, v), SRC.replace("[1, 2]", "[1, 2, 3]"));
        let src = "[\n  {\"id\": 1},\n  {\"id\": 2}\n]";
        let out = spliced(src, json!([{"id": 1}, {"id": 2}, {"id": 3}]));
        assert_eq!(
            out,
            "[\n  {\"id\": 1},\n  {\"id\": 2},\n  {\n    \"id\": 3\n  }\n]"
        );
    }

    #[test]
    fn a_member_new_ahead_of_every_old_one_goes_first() {
        let src = "{\"b\": 1}";
        let out = spliced(src, json!({"a": 0, "b": 1}));
        assert_eq!(out, "{\"a\": 0, \"b\": 1}");
    }

    #[test]
    fn runs_of_cut_members_take_one_separator_each() {
        let src = "{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4}";
        assert_eq!(
            spliced(src, json!({"c": 3, "d": 4})),
            "{\"c\": 3, \"d\": 4}"
        );
        assert_eq!(
            spliced(src, json!({"a": 1, "d": 4})),
            "{\"a\": 1, \"d\": 4}"
        );
        assert_eq!(spliced(src, json!({"a": 1})), "{\"a\": 1}");
    }

    #[test]
    fn reordered_or_emptied_values_are_printed_anew() {
        let src = "{\n  \"o\": {\"a\": 1, \"b\": 2}\n}";
        let out = spliced(src, json!({"o": {"b": 2, "a": 1}}));
        assert_eq!(out, "{\n  \"o\": {\n    \"b\": 2,\n    \"a\": 1\n  }\n}");
    }

    use proptest::prelude::*;

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-50i64..50).prop_map(Value::from),
            "[a-c\\n\"é]{0,4}".prop_map(Value::String),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[a-d]", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// `v` changed at the places `picks` choose: a leaf replaced, an item
    /// pushed, a member removed or added.
    fn mutate(v: &mut Value, picks: &mut impl Iterator<Item = u8>, fresh: &Value) {
        let Some(p) = picks.next() else { return };
        match v {
            Value::Array(items) if !items.is_empty() && p % 3 != 0 => {
                let i = p as usize % items.len();
                mutate(&mut items[i], picks, fresh);
            }
            Value::Array(items) => items.push(fresh.clone()),
            Value::Object(m) if !m.is_empty() && p % 4 != 0 => {
                let Some(key) = m.keys().nth(p as usize % m.len()).cloned() else {
                    return;
                };
                if p % 4 == 1 {
                    m.shift_remove(&key);
                } else if let Some(v) = m.get_mut(&key) {
                    mutate(v, picks, fresh);
                }
            }
            Value::Object(m) => {
                m.insert(format!("n{p}"), fresh.clone());
            }
            other => *other = fresh.clone(),
        }
    }

    proptest! {
        /// Whatever the change and however the old text was printed, the
        /// edited text holds the new value.
        #[test]
        fn the_edited_text_holds_the_new_value(
            old in value(),
            fresh in value(),
            picks in prop::collection::vec(any::<u8>(), 1..8),
            pretty in any::<bool>(),
        ) {
            let src = if pretty {
                serde_json::to_string_pretty(&old).unwrap()
            } else {
                serde_json::to_string(&old).unwrap()
            };
            let mut new = old.clone();
            mutate(&mut new, &mut picks.into_iter(), &fresh);
            let doc = crate::parse(&src).unwrap();
            let mut out = Vec::new();
            edits(&src, &doc.root, &new, &mut Plain::of(&src), &mut out);
            let text = ace_model::edit::apply(&src, out).expect("edits do not overlap");
            prop_assert_eq!(crate::parse(&text).unwrap().root.to_value(), new);
        }
    }
}
