//! One ACE `PlaybookEntry` to and from a model entry.
//!
//! Fields vAgenda has are mapped one to one. What the model holds and vAgenda
//! has no field for (a section, a confidence level, typed evidence, a neutral
//! counter, links, provenance, scope) goes into `metadata.aceTools`, and a
//! value of an unexpected type stays under its own key, so nothing is lost
//! in either direction.

use std::borrow::Cow;

use ace_model::{mapping, Confidence, Entry, Evidence, Span, Status};
use serde_json::{Map, Number, Value};

use crate::types::Ty;
use crate::ACE_TOOLS_KEY;

fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

fn list_value(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
}

/// Fills a field of the entry; nothing is left for `extra`.
fn set<T>(slot: &mut T, value: T) -> Option<Value> {
    *slot = value;
    None
}

/// The strings of an array of strings, moved out; anything else back.
fn take_strings(v: Value) -> Result<Vec<String>, Value> {
    match v {
        Value::Array(items) if items.iter().all(Value::is_string) => Ok(items
            .into_iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect()),
        other => Err(other),
    }
}

/// Where an entry's findings point: its `text`, which is what a reader of
/// the frame wants to see, rather than the `{` that opens it. An event of
/// an event log holds the entry one level down.
pub(crate) fn span_of(node: &ace_jsonspan::Node) -> Span {
    let text = |n: &ace_jsonspan::Node| {
        n.get("text")
            .filter(|t| t.as_str().is_some())
            .map(|t| t.span)
    };
    text(node)
        .or_else(|| {
            node.members()?
                .iter()
                .find_map(|m| m.value.members().and(text(&m.value)))
        })
        .unwrap_or(node.span)
}

/// A model entry from an ACE entry object, its strings moved into the
/// entry: a reader builds the object for the entry alone.
pub fn read(obj: Map<String, Value>, span: Option<Span>) -> Entry {
    read_fields(obj, span)
}

/// [`read`] from an entry's fields in order, keys unique: the reader of a
/// plainly valid entry gives them without building its map.
pub(crate) fn read_fields<K>(
    fields: impl IntoIterator<Item = (K, Value)>,
    span: Option<Span>,
) -> Entry
where
    K: AsRef<str> + Into<String>,
{
    let mut e = Entry {
        origin: ace_model::Origin(span),
        ..Entry::default()
    };
    let mut tools_found: Option<Map<String, Value>> = None;
    for (key, value) in fields {
        let left = match (key.as_ref(), value) {
            ("id", Value::String(s)) => set(&mut e.id, s),
            ("kind", Value::String(s)) => set(&mut e.kind, Some(s)),
            ("title", Value::String(s)) => set(&mut e.title, Some(s)),
            ("text", Value::String(s)) => set(&mut e.content, s),
            ("tags", v) => take_strings(v).map(|t| e.tags = Some(t)).err(),
            ("evidence", v) => take_strings(v)
                .map(|t| e.evidence = Some(t.into_iter().map(Evidence::Text).collect()))
                .err(),
            ("confidence", Value::Number(n)) => set(&mut e.confidence, Some(Confidence::Score(n))),
            ("helpfulCount", Value::Number(n)) if n.is_i64() => set(&mut e.helpful, n.as_i64()),
            ("harmfulCount", Value::Number(n)) if n.is_i64() => set(&mut e.harmful, n.as_i64()),
            ("createdAt", Value::String(s)) => set(&mut e.created_at, Some(s)),
            ("updatedAt", Value::String(s)) => set(&mut e.updated_at, Some(s)),
            ("status", Value::String(s)) => set(&mut e.status, Some(Status::from(s))),
            ("deprecatedReason", Value::String(s)) => set(&mut e.deprecation_reason, Some(s)),
            ("supersedes", v) => take_strings(v).map(|t| e.supersedes = Some(t)).err(),
            ("supersededBy", Value::String(s)) => set(&mut e.superseded_by, Some(s)),
            ("duplicateOf", Value::String(s)) => set(&mut e.duplicate_of, Some(s)),
            ("metadata", Value::Object(mut rest)) if rest.contains_key(ACE_TOOLS_KEY) => {
                match rest.shift_remove(ACE_TOOLS_KEY) {
                    Some(Value::Object(tools)) => tools_found = Some(tools),
                    // Not ours after all: keep it where it was.
                    Some(other) => {
                        rest.insert(ACE_TOOLS_KEY.into(), other);
                    }
                    None => {}
                }
                (!rest.is_empty()).then_some(Value::Object(rest))
            }
            (_, v) => Some(v),
        };
        if let Some(v) = left {
            e.extra.insert(key.into(), v);
        }
    }
    if let Some(tools) = tools_found {
        restore(&mut e, &tools);
    }
    e
}

/// The kind to derive a section from: the entry's written `kind`, unless
/// `metadata.aceTools` says the section (or its absence) outright.
pub fn kind_for_derivation(obj: &Map<String, Value>) -> Option<&str> {
    derivation(obj.get("kind"), obj.get("metadata"))
}

/// [`kind_for_derivation`] from the entry's `kind` and `metadata`.
pub(crate) fn derivation<'v>(kind: Option<&'v Value>, metadata: Option<&Value>) -> Option<&'v str> {
    let kept = metadata
        .and_then(|m| m.get(ACE_TOOLS_KEY))
        .is_some_and(|t| t.get("section").is_some());
    if kept {
        return None;
    }
    kind.and_then(Value::as_str)
}

/// What [`kind_for_derivation`] gives for `write(e, section_kind)`, without
/// building the entry: the writer needs it for every entry before it
/// writes any. An entry whose own metadata already holds an `aceTools` is
/// built, so the answer is the same by construction.
pub fn derivation_kind(
    e: &Entry,
    section_kind: &'static str,
    sections: &mapping::SectionMap,
) -> Option<String> {
    let own_tools = e
        .extra
        .get("metadata")
        .and_then(|m| m.get(ACE_TOOLS_KEY))
        .is_some();
    if own_tools {
        return kind_for_derivation(&write(e, section_kind, sections, Extras::OnEntry))
            .map(str::to_owned);
    }
    let (kind, _) = kind_of(e, section_kind);
    let derived = sections.section_for_kind(kind).map(|r| r.key);
    match &e.section {
        Some(s) if derived != Some(s.as_str()) => None,
        _ => Some(kind.to_owned()),
    }
}

/// Puts back what `metadata.aceTools` kept for another format.
fn restore(e: &mut Entry, tools: &Map<String, Value>) {
    let text = |k: &str| tools.get(k).and_then(Value::as_str).map(str::to_owned);
    fn parse<T: serde::de::DeserializeOwned>(tools: &Map<String, Value>, k: &str) -> Option<T> {
        tools
            .get(k)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }
    if let Some(v) = tools.get("section") {
        e.section = v.as_str().map(str::to_owned);
    }
    if let Some(v) = tools.get("kind") {
        e.kind = v.as_str().map(str::to_owned);
    }
    if let Some(c) = parse(tools, "confidence") {
        e.confidence = Some(c);
    }
    if let Some(ev) = parse(tools, "evidence") {
        e.evidence = Some(ev);
    }
    if let Some(v) = tools.get("status") {
        e.status = v.as_str().map(|s| Status::from(s.to_owned()));
    }
    if let Some(n) = tools.get("neutral").and_then(Value::as_i64) {
        e.neutral = Some(n);
    }
    if let Some(l) = tools.get("links").and_then(string_list) {
        e.links = Some(l);
    }
    if let Some(p) = parse(tools, "provenance") {
        e.provenance = Some(Box::new(p));
    }
    if let Some(s) = parse(tools, "scope") {
        e.scope = Some(s);
    }
    if let Some(p) = text("projectId") {
        e.project_id = Some(p);
    }
    if let Some(Value::Object(extra)) = tools.get("extra") {
        for (k, v) in extra {
            e.extra.insert(k.clone(), v.clone());
        }
    }
}

/// The fields an ACE entry writes itself (the schema's, in its order); an
/// `extra` key with one of these names goes into `metadata.aceTools.extra`.
fn own_fields() -> &'static [&'static str] {
    Ty::PlaybookEntry.typed()
}

/// The kind an entry is written with, and whether it is the entry's own.
fn kind_of<'e>(e: &'e Entry, section_kind: &'static str) -> (&'e str, bool) {
    match &e.kind {
        Some(k) if mapping::KINDS.contains(&k.as_str()) => (k.as_str(), true),
        _ => (section_kind, false),
    }
}

fn evidence_text(ev: &Evidence) -> String {
    match ev {
        Evidence::Text(s) => s.clone(),
        Evidence::Ref(r) => {
            let main = match (&r.kind, &r.reference) {
                (Some(k), Some(r)) => format!("{k}:{r}"),
                (Some(k), None) => k.clone(),
                (None, Some(r)) => r.clone(),
                (None, None) => String::new(),
            };
            match &r.note {
                Some(n) if main.is_empty() => n.clone(),
                Some(n) => format!("{main} ({n})"),
                None => main,
            }
        }
    }
}

/// A field of a written entry, borrowed from the model entry where it can
/// be: writers print a million of them, and building each as a JSON map
/// (its keys and strings copied, its keys hashed) cost them more than
/// printing.
#[derive(Debug, Clone, PartialEq)]
pub enum Field<'e> {
    Str(&'e str),
    /// An array of strings.
    Strs(&'e [String]),
    /// Any other value: the entry's own, or one built for it (numbers,
    /// evidence texts).
    Val(Cow<'e, Value>),
    /// An object of fields: `metadata` with what ace-tools keeps in it,
    /// which nearly every converted entry has.
    Obj(Fields<'e>),
}

impl Field<'_> {
    pub fn into_value(self) -> Value {
        match self {
            Field::Str(s) => Value::String(s.to_owned()),
            Field::Strs(items) => list_value(items),
            Field::Val(v) => v.into_owned(),
            Field::Obj(fields) => Value::Object(
                fields
                    .into_iter()
                    .map(|(k, f)| (k.to_owned(), f.into_value()))
                    .collect(),
            ),
        }
    }
}

/// An entry's fields in the order they are written; no key comes twice.
pub type Fields<'e> = Vec<(&'e str, Field<'e>)>;

/// Where an entry's fields that neither vAgenda nor ace-tools defines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extras {
    /// On the entry, as the vAgenda document read had them.
    OnEntry,
    /// Under `metadata.aceTools.extra`, the extension point: a new
    /// document from another format's playbook.
    InMetadata,
    /// As `InMetadata`, but a counter the model could not hold (`53.0`,
    /// or past 64 bits) goes back to its own key: a rewrite of the
    /// document it was read from.
    Rewrite,
}

/// An ACE entry object for `e`; `section_kind` is the kind its section maps
/// to, written when the entry has no vAgenda kind of its own.
pub fn write(
    e: &Entry,
    section_kind: &'static str,
    sections: &mapping::SectionMap,
    extras: Extras,
) -> Map<String, Value> {
    fields(e, section_kind, sections, extras)
        .into_iter()
        .map(|(k, f)| (k.to_owned(), f.into_value()))
        .collect()
}

/// The fields [`write`] gives `e`, borrowed where they can be.
pub fn fields<'e>(
    e: &'e Entry,
    section_kind: &'static str,
    sections: &mapping::SectionMap,
    extras: Extras,
) -> Fields<'e> {
    use Field::{Str, Strs};
    let built = |v: Value| Field::Val(Cow::Owned(v));
    let borrowed = |v: &'e Value| Field::Val(Cow::Borrowed(v));
    let mut m: Fields<'e> = Vec::with_capacity(12);
    // What ace-tools keeps under `metadata`; each key comes at most once.
    let mut tools: Fields<'e> = Vec::new();
    let (kind, own) = kind_of(e, section_kind);
    m.push(("id", Str(&e.id)));
    m.push(("kind", Str(kind)));
    // A kind that is not one of vAgenda's five is kept; an absent one is
    // derived from the section and nothing is written for the absence.
    if let (false, Some(k)) = (own, &e.kind) {
        tools.push(("kind", Str(k)));
    }
    if let Some(t) = &e.title {
        m.push(("title", Str(t)));
    }
    m.push(("text", Str(&e.content)));
    if let Some(t) = &e.tags {
        m.push(("tags", Strs(t)));
    }
    if let Some(ev) = &e.evidence {
        let texts: Vec<String> = ev.iter().map(evidence_text).collect();
        if ev.iter().any(|x| matches!(x, Evidence::Ref(_))) {
            tools.push((
                "evidence",
                built(serde_json::to_value(ev).unwrap_or(Value::Null)),
            ));
        }
        m.push(("evidence", built(list_value(&texts))));
    }
    match &e.confidence {
        Some(Confidence::Score(n)) => {
            m.push(("confidence", built(Value::Number(n.clone()))));
        }
        Some(Confidence::Level(l)) => {
            if let Some(n) = Number::from_f64(l.score()) {
                m.push(("confidence", built(Value::Number(n))));
            }
            tools.push(("confidence", Str(l.as_str())));
        }
        None => {}
    }
    if let Some(n) = e.helpful {
        m.push(("helpfulCount", built(Value::from(n))));
    }
    if let Some(n) = e.harmful {
        m.push(("harmfulCount", built(Value::from(n))));
    }
    if let Some(v) = e.extra.get("feedbackType") {
        m.push(("feedbackType", borrowed(v)));
    }
    // vAgenda's dateTime needs a zone: one written without is UTC.
    let time = |t: &'e String| match ace_model::time::with_zone(t) {
        Some(z) => built(Value::String(z)),
        None => Str(t),
    };
    if let Some(t) = &e.created_at {
        m.push(("createdAt", time(t)));
    }
    if let Some(t) = &e.updated_at {
        m.push(("updatedAt", time(t)));
    }
    match &e.status {
        Some(Status::Active) => m.push(("status", Str("active"))),
        Some(Status::Deprecated) => m.push(("status", Str("deprecated"))),
        Some(Status::Quarantined) => m.push(("status", Str("quarantined"))),
        // vAgenda has no `archived`: the nearest is deprecated, which is
        // what an archived entry is to a reader of the playbook.
        Some(Status::Archived) => {
            m.push(("status", Str("deprecated")));
            tools.push(("status", Str("archived")));
        }
        Some(Status::Other(s)) => {
            tools.push(("status", Str(s)));
        }
        None => {}
    }
    if let Some(r) = &e.deprecation_reason {
        m.push(("deprecatedReason", Str(r)));
    }
    if let Some(s) = &e.supersedes {
        m.push(("supersedes", Strs(s)));
    }
    if let Some(s) = &e.superseded_by {
        m.push(("supersededBy", Str(s)));
    }
    if let Some(s) = &e.duplicate_of {
        m.push(("duplicateOf", Str(s)));
    }
    // A reader derives the section from the kind (docs/formats/vagenda.md),
    // so the section is kept only where that would not give it back.
    let derived = sections.section_for_kind(kind).map(|r| r.key);
    match &e.section {
        Some(s) if derived != Some(s.as_str()) => tools.push(("section", Str(s))),
        _ => {}
    }
    if let Some(n) = e.neutral {
        tools.push(("neutral", built(Value::from(n))));
    }
    if let Some(l) = &e.links {
        tools.push(("links", Strs(l)));
    }
    if let Some(p) = &e.provenance {
        tools.push((
            "provenance",
            built(serde_json::to_value(p).unwrap_or(Value::Null)),
        ));
    }
    if let Some(s) = &e.scope {
        tools.push((
            "scope",
            built(serde_json::to_value(s).unwrap_or(Value::Null)),
        ));
    }
    if let Some(p) = &e.project_id {
        tools.push(("projectId", Str(p)));
    }
    let mut colliding = Map::new();
    // The fields ACE does not define go last, after `metadata`: the ones
    // above are pushed in schema order already.
    let mut others = Vec::new();
    for (k, v) in &e.extra {
        match k.as_str() {
            "feedbackType" | "metadata" => {}
            // A counter the model could not hold (53.0, or past 64 bits)
            // goes back to its own key in a rewrite, as written, when
            // nothing else is written there.
            k2 if matches!(extras, Extras::OnEntry | Extras::Rewrite)
                && matches!(k2, "helpfulCount" | "harmfulCount")
                && v.is_number()
                && !m.iter().any(|(written, _)| *written == k2) =>
            {
                others.push((k.as_str(), borrowed(v)));
            }
            k2 if own_fields().contains(&k2)
                || k2 == ACE_TOOLS_KEY
                || extras != Extras::OnEntry =>
            {
                colliding.insert(k.to_string(), v.clone());
            }
            _ => others.push((k.as_str(), borrowed(v))),
        }
    }
    if !colliding.is_empty() {
        tools.push(("extra", built(Value::Object(colliding))));
    }
    let metadata = e.extra.get("metadata");
    match metadata {
        None if tools.is_empty() => {}
        None => m.push((
            "metadata",
            Field::Obj(vec![(ACE_TOOLS_KEY, Field::Obj(tools))]),
        )),
        Some(v) if tools.is_empty() => m.push(("metadata", borrowed(v))),
        Some(Value::Object(o)) => {
            // The entry's own metadata with aceTools in it: in its place if
            // the metadata had one (it is replaced), else last.
            let mut tools = Some(Field::Obj(tools));
            let mut meta: Fields<'e> = Vec::with_capacity(o.len() + 1);
            for (k, v) in o {
                match (k.as_str(), tools.take_if(|_| k == ACE_TOOLS_KEY)) {
                    (k, Some(t)) => meta.push((k, t)),
                    (k, None) => meta.push((k, borrowed(v))),
                }
            }
            if let Some(t) = tools {
                meta.push((ACE_TOOLS_KEY, t));
            }
            m.push(("metadata", Field::Obj(meta)));
        }
        Some(other) => {
            // A non-object `metadata` cannot hold aceTools beside it: it
            // goes into aceTools' `extra`.
            let mut extra = match tools.iter().position(|(k, _)| *k == "extra") {
                Some(at) => match tools.remove(at).1.into_value() {
                    Value::Object(o) => o,
                    _ => Map::new(),
                },
                None => Map::new(),
            };
            extra.insert("metadata".into(), other.clone());
            tools.push(("extra", built(Value::Object(extra))));
            m.push((
                "metadata",
                Field::Obj(vec![(ACE_TOOLS_KEY, Field::Obj(tools))]),
            ));
        }
    }
    m.extend(others);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_written_in_schema_order_then_the_others() {
        let mut e: Entry = serde_json::from_value(serde_json::json!({
            "id": "str-00001", "content": "x", "title": "t", "tags": ["a"],
            "evidence": ["e"], "confidence": 0.5, "helpful": 1, "harmful": 2,
            "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-02T00:00:00Z",
            "status": "deprecated", "deprecation_reason": "r", "supersedes": ["a"],
            "superseded_by": "b", "duplicate_of": "c", "section": "mine"
        }))
        .unwrap();
        e.extra.insert("zeta", Value::from(1));
        e.extra.insert("feedbackType", Value::from("f"));
        e.extra.insert("alpha", Value::from(2));
        let keys: Vec<String> = write(&e, "note", &mapping::BUILT_IN, Extras::OnEntry)
            .keys()
            .cloned()
            .collect();
        let mut expected: Vec<String> = own_fields().iter().map(|k| k.to_string()).collect();
        expected.extend(["zeta".to_owned(), "alpha".to_owned()]);
        assert_eq!(keys, expected);
    }

    #[test]
    fn derivation_kind_is_what_the_written_entry_gives() {
        let mut cases = Vec::new();
        for section in [None, Some("strategies_and_insights"), Some("mine")] {
            for kind in [None, Some("warning"), Some("odd")] {
                let mut e = Entry::new("str-00001", "x");
                e.section = section.map(str::to_owned);
                e.kind = kind.map(str::to_owned);
                cases.push(e.clone());
                let tools = serde_json::json!({"aceTools": {"section": "kept"}});
                e.extra.insert("metadata", tools);
                cases.push(e);
            }
        }
        for e in &cases {
            for section_kind in ["strategy", "note"] {
                assert_eq!(
                    derivation_kind(e, section_kind, &mapping::BUILT_IN).as_deref(),
                    kind_for_derivation(&write(
                        e,
                        section_kind,
                        &mapping::BUILT_IN,
                        Extras::OnEntry
                    )),
                    "{e:?} in a {section_kind} section"
                );
            }
        }
    }
}
