use std::collections::HashMap;

use ace_model::{rules, Diagnostic, Entry, Origin, Playbook, ReadOutput, Section, Span};
use serde::de::IgnoredAny;
use serde_json::{Map, Value};
use serde_saphyr::options::DuplicateKeyPolicy;
use serde_saphyr::{Location, Spanned};

use crate::raw;

/// Where each list item starts; `None` when `sections` or `entries` is
/// there but no list (the read reports that).
struct DocSpans {
    sections: Option<Vec<Spanned<IgnoredAny>>>,
    entries: Option<Vec<Spanned<IgnoredAny>>>,
}

/// Where `id` and `weight` of a section are.
struct ItemSpans {
    id: Option<Spanned<IgnoredAny>>,
    weight: Option<Spanned<IgnoredAny>>,
}

fn located(n: &Spanned<raw::Raw>) -> Spanned<IgnoredAny> {
    Spanned::new(IgnoredAny, n.referenced, n.defined)
}

/// The items' spans of the list `key`: `Ok(None)` when there is none,
/// `Err` when its value is no list.
fn list_spans(
    value: &Value,
    root: &raw::Raw,
    key: &str,
) -> Result<Option<Vec<Spanned<IgnoredAny>>>, ()> {
    match (value.get(key), root.get(key).map(|n| &n.value)) {
        (None | Some(Value::Null), _) => Ok(None),
        (Some(Value::Array(_)), Some(raw::Raw::Seq(items))) => {
            Ok(Some(items.iter().map(located).collect()))
        }
        _ => Err(()),
    }
}

fn doc_spans(value: &Value, root: &raw::Raw) -> Option<DocSpans> {
    Some(DocSpans {
        sections: list_spans(value, root, "sections").ok()?,
        entries: list_spans(value, root, "entries").ok()?,
    })
}

/// The `id` and `weight` spans of every section, when every section is a
/// mapping; none otherwise (the reader then finds them in the text).
fn field_spans(root: &raw::Raw) -> Vec<ItemSpans> {
    let Some(raw::Raw::Seq(items)) = root.get("sections").map(|n| &n.value) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if !matches!(item.value, raw::Raw::Map(_)) {
            return Vec::new();
        }
        out.push(ItemSpans {
            id: item.value.get("id").map(located),
            weight: item.value.get("weight").map(located),
        });
    }
    out
}

/// serde-saphyr's defaults, with the budgets that count nodes, events and
/// scalar bytes raised to what `len` bytes of text can hold without
/// aliases. Its defaults (250,000 nodes) rejected a 40,000-entry
/// playbook.yaml that ace-tools itself wrote; alias bombs stay bounded by the
/// alias and anchor budgets, which are left as they are.
fn options(len: usize) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = budget.max_nodes.max(len);
    budget.max_events = budget.max_events.max(len.saturating_mul(2));
    budget.max_total_scalar_bytes = budget.max_total_scalar_bytes.max(len);
    serde_saphyr::options! {
        duplicate_keys: DuplicateKeyPolicy::Error,
        budget: Some(budget),
    }
}

/// Byte offset of a 1-based line and character column.
fn offset(src: &str, loc: Location) -> usize {
    if let Some(b) = loc.span().byte_offset() {
        return usize::try_from(b).unwrap_or(0).min(src.len());
    }
    let line = usize::try_from(loc.line()).unwrap_or(1).max(1);
    let col = usize::try_from(loc.column()).unwrap_or(1).max(1);
    let start = src
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum::<usize>()
        .min(src.len());
    src[start..]
        .char_indices()
        .nth(col - 1)
        .map_or(src.len(), |(i, _)| start + i)
}

fn span_of(src: &str, loc: Option<Location>) -> Span {
    let start = loc.map_or(0, |l| offset(src, l));
    let end = src[start..].find('\n').map_or(src.len(), |p| start + p);
    Span::new(start, end)
}

/// Reads playbook.yaml. A file that is not YAML gives one ACE000 error with
/// its position; a file of the wrong shape is read as far as it goes, with
/// an error for each value that does not fit, and nothing is dropped.
pub fn read(src: &str) -> Result<ReadOutput, Diagnostic> {
    // One parse gives the value and where every node is: list items and
    // section fields their positions, numbers their lexemes, unknown keys
    // their plain scalars.
    let (mut value, tree) = if src.trim().is_empty() {
        (Value::Object(Map::new()), None)
    } else {
        let mut tree =
            serde_saphyr::from_str_with_options::<Spanned<raw::Raw>>(src, options(src.len()))
                .map_err(|e| {
                    let plain = e.render_with_options(serde_saphyr::render_options! {
                        snippets: serde_saphyr::SnippetMode::Off,
                    });
                    let message = plain
                        .split(" at line ")
                        .next()
                        .unwrap_or(&plain)
                        .replace(", set DuplicateKeyPolicy in Options if acceptable", "");
                    Diagnostic::new(
                        &rules::PARSE_ERROR,
                        span_of(src, e.location()),
                        format!("invalid YAML: {message}"),
                    )
                })?;
        (raw::take_value(&mut tree.value), Some(tree))
    };
    if let Some(t) = &tree {
        raw::keep_number_lexemes(src, &mut value, t);
    }
    let root = tree.as_ref().map(|t| &t.value);
    let spans = root.and_then(|r| doc_spans(&value, r));
    let fields = root.map(field_spans).unwrap_or_default();
    let top = |key: &str| {
        root.and_then(|r| r.get(key))
            .map(|n| span_of(src, Some(n.referenced)))
    };
    let mut r = Reader {
        src,
        diags: Vec::new(),
        top_sections: top("sections"),
        top_entries: top("entries"),
        entry_items: Vec::new(),
    };
    let mut playbook = r.playbook(value, spans, fields);
    if let Some(t) = &tree {
        keep_plain_scalars(src, &mut playbook, t, &r.entry_items);
    }
    let mut diags = r.diags;
    diags.sort_by_key(|d| (d.span.start, d.code));
    Ok(ReadOutput {
        playbook,
        diagnostics: diags,
    })
}

struct Reader<'a> {
    src: &'a str,
    diags: Vec<Diagnostic>,
    /// Where the values of `sections` and `entries` start.
    top_sections: Option<Span>,
    top_entries: Option<Span>,
    /// For each entry read, the index of its item in `entries`.
    entry_items: Vec<usize>,
}

/// Records the plain scalars of every unknown key, by the JSON pointer
/// the writer will emit it at, in the playbook's layout.
fn keep_plain_scalars(
    src: &str,
    pb: &mut Playbook,
    tree: &Spanned<raw::Raw>,
    entry_items: &[usize],
) {
    let mut plain = Map::new();
    let root = &tree.value;
    for (k, v) in &pb.extra {
        if let Some(n) = root.get(k) {
            let at = format!("/{}", raw::pointer_token(k));
            raw::plain_scalars(src, &at, v, n, &mut plain);
        }
    }
    let items = |list: &str, i: usize| root.get(list).and_then(|l| l.value.at(i));
    for (i, s) in pb.sections.iter().enumerate() {
        let Some(item) = items("sections", i) else {
            continue;
        };
        for (k, v) in &s.extra {
            if let Some(n) = item.value.get(k) {
                let at = format!("/sections/{i}/{}", raw::pointer_token(k));
                raw::plain_scalars(src, &at, v, n, &mut plain);
            }
        }
    }
    for (j, e) in pb.entries.iter().enumerate() {
        let Some(item) = entry_items.get(j).and_then(|&i| items("entries", i)) else {
            continue;
        };
        for (k, v) in &e.extra {
            if let Some(n) = item.value.get(k) {
                let at = format!("/entries/{j}/{}", raw::pointer_token(k));
                raw::plain_scalars(src, &at, v, n, &mut plain);
            }
        }
    }
    if !plain.is_empty() {
        let mut layout = Map::new();
        layout.insert("plain".into(), Value::Object(plain));
        pb.set_layout(crate::LAYOUT_KEY, Value::Object(layout));
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

impl Reader<'_> {
    /// Takes a string field out of `map`. A value of another type is
    /// reported and kept in `extra` under the same key, so nothing is lost.
    fn string_field(
        &mut self,
        map: &mut Map<String, Value>,
        key: &str,
        extra: &mut Map<String, Value>,
        span: Span,
        owner: &str,
    ) -> Option<String> {
        match map.shift_remove(key)? {
            Value::String(s) => Some(s),
            other => {
                self.shape(
                    span,
                    format!(
                        "{owner}`{key}` should be a string, found {}; kept as an extra field",
                        type_name(&other)
                    ),
                );
                extra.insert(key.into(), other);
                None
            }
        }
    }

    fn shape(&mut self, span: Span, msg: String) {
        self.diags
            .push(Diagnostic::new(&rules::YAML_SHAPE, span, msg));
    }

    fn playbook(
        &mut self,
        value: Value,
        spans: Option<DocSpans>,
        fields: Vec<ItemSpans>,
    ) -> Playbook {
        let mut pb = Playbook::default();
        let whole = Span::new(0, self.src.find('\n').unwrap_or(self.src.len()));
        let mut map = match value {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                self.shape(
                    whole,
                    format!(
                        "expected a mapping with `version` and `sections`, found {}",
                        type_name(&other)
                    ),
                );
                pb.extra.insert("value".into(), other);
                return pb;
            }
        };
        let (section_spans, entry_spans) = match spans {
            Some(s) => (
                s.sections.unwrap_or_default(),
                s.entries.unwrap_or_default(),
            ),
            None => Default::default(),
        };
        pb.version = map.shift_remove("version");
        for (key, slot) in [
            ("title", &mut pb.title),
            ("description", &mut pb.description),
            ("project_id", &mut pb.project_id),
            ("created_at", &mut pb.created_at),
            ("updated_at", &mut pb.updated_at),
        ] {
            *slot = self.string_field(&mut map, key, &mut pb.extra, whole, "");
        }
        match map.shift_remove("sections") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                let mut seen: HashMap<String, usize> = HashMap::new();
                for (i, item) in items.into_iter().enumerate() {
                    let at = section_spans.get(i).map(|s| s.referenced);
                    let s = self.section(i, item, at, fields.get(i), &mut seen);
                    pb.sections.push(s);
                }
            }
            Some(other) => {
                let at = self.top_sections.unwrap_or(whole);
                self.shape(at, format!("`sections` should be a list of `{{id, weight}}` mappings, found {}; kept as an extra field", type_name(&other)));
                pb.extra.insert("sections".into(), other);
            }
        }
        match map.shift_remove("entries") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                let mut unreadable = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    let span = span_of(self.src, entry_spans.get(i).map(|s| s.referenced));
                    match self.entry(i, item.clone(), span) {
                        Some(e) => {
                            pb.entries.push(e);
                            self.entry_items.push(i);
                        }
                        None => unreadable.push(item),
                    }
                }
                if !unreadable.is_empty() {
                    pb.extra
                        .insert("unreadable_entries".into(), Value::Array(unreadable));
                }
            }
            Some(other) => {
                self.shape(
                    self.top_entries.unwrap_or(whole),
                    format!(
                        "`entries` should be a list of mappings, found {}; kept as an extra field",
                        type_name(&other)
                    ),
                );
                pb.extra.insert("entries".into(), other);
            }
        }
        pb.extra.extend(map);
        pb
    }

    /// Where `key`'s value starts in the block mapping that starts at
    /// `item`, found in the text. Used when the spanned pass could not run
    /// because another section is not a mapping: the value is on the item's
    /// first line or on a later line indented deeper than the item's dash.
    fn value_of_key(&self, item: Span, key: &str) -> Option<Span> {
        let src = self.src;
        let line_start = src[..item.start].rfind('\n').map_or(0, |p| p + 1);
        let indent = item.start - line_start;
        let mut pos = item.start;
        let mut first = true;
        for line in src[item.start..].split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            let lead = body.len() - body.trim_start().len();
            if !first && !body.trim().is_empty() && lead < indent {
                return None;
            }
            let text = body.trim_start().trim_start_matches("- ").trim_start();
            if let Some(rest) = text.strip_prefix(key).and_then(|r| r.strip_prefix(':')) {
                let value = rest.trim_start();
                if !value.is_empty() {
                    let start = pos + (body.len() - value.len());
                    return Some(Span::new(start, pos + body.len()));
                }
            }
            pos += line.len();
            first = false;
        }
        None
    }

    fn section(
        &mut self,
        i: usize,
        item: Value,
        at: Option<Location>,
        sp: Option<&ItemSpans>,
        seen: &mut HashMap<String, usize>,
    ) -> Section {
        let span = span_of(self.src, at);
        let mut m = match item {
            Value::Object(m) => m,
            other => {
                let key = format!("section_{}", i + 1);
                self.shape(span, format!("section {} should be a mapping with `id` and `weight`, found {}; kept as `{key}`", i + 1, type_name(&other)));
                let mut s = Section::new(key);
                s.origin = Origin::from(span);
                s.extra.insert("value".into(), other);
                return s;
            }
        };
        let id_span = sp
            .and_then(|s| s.id.as_ref())
            .map(|s| span_of(self.src, Some(s.referenced)))
            .or_else(|| self.value_of_key(span, "id"))
            .unwrap_or(span);
        let key = match m.shift_remove("id") {
            Some(Value::String(s)) if !s.is_empty() => s,
            Some(other) => {
                let key = match &other {
                    Value::Number(n) => n.to_string(),
                    _ => format!("section_{}", i + 1),
                };
                self.shape(
                    id_span,
                    format!(
                        "section id should be a non-empty string, found {}; read as `{key}`",
                        type_name(&other)
                    ),
                );
                key
            }
            None => {
                let key = format!("section_{}", i + 1);
                self.shape(
                    span,
                    format!("section {} has no `id`; read as `{key}`", i + 1),
                );
                key
            }
        };
        if let Some(&first) = seen.get(&key) {
            self.diags.push(Diagnostic::new(
                &rules::DUPLICATE_SECTION,
                id_span,
                format!(
                    "section id `{key}` is listed twice (first as section {})",
                    first + 1
                ),
            ));
        } else {
            seen.insert(key.clone(), i);
        }
        let mut s = Section::new(key);
        s.origin = Origin::from(id_span);
        let weight_span = sp
            .and_then(|s| s.weight.as_ref())
            .map(|s| span_of(self.src, Some(s.referenced)))
            .or_else(|| self.value_of_key(span, "weight"))
            .unwrap_or(span);
        match m.shift_remove("weight") {
            None => {}
            Some(Value::Number(n)) => {
                if !n.as_f64().is_some_and(|w| (0.0..=1.0).contains(&w)) {
                    self.diags.push(Diagnostic::new(
                        &rules::WEIGHT_RANGE,
                        weight_span,
                        format!("weight {n} of section `{}` is outside 0..1", s.key),
                    ));
                }
                s.weight = Some(n);
            }
            Some(other) => {
                self.diags.push(Diagnostic::new(
                    &rules::WEIGHT_RANGE,
                    weight_span,
                    format!("weight of section `{}` should be a number in 0..1, found {}; kept as written", s.key, type_name(&other)),
                ));
                s.extra.insert("weight".into(), other);
            }
        }
        let owner = format!("section `{}`: ", s.key);
        for (key, slot) in [
            ("title", &mut s.title),
            ("prefix", &mut s.prefix),
            ("description", &mut s.description),
        ] {
            *slot = self.string_field(&mut m, key, &mut s.extra, span, &owner);
        }
        s.extra.extend(m);
        s
    }

    fn entry(&mut self, i: usize, item: Value, span: Span) -> Option<Entry> {
        let Value::Object(m) = item else {
            self.shape(
                span,
                format!(
                    "entry {} should be a mapping, found {}; kept under `unreadable_entries`",
                    i + 1,
                    type_name(&item)
                ),
            );
            return None;
        };
        if let Some(mut e) = whole_entry(&m) {
            e.origin = Origin::from(span);
            return Some(e);
        }
        // Known fields go through the model's own serde; the rest is extra.
        // A known field whose value the model cannot hold (`content: 42`) is
        // kept as an extra field too, so that the entry is still read: the
        // skill and vAgenda readers do the same, and an entry they read must
        // survive a trip through this format.
        let mut known = Map::new();
        let mut extra = Map::new();
        for (k, v) in m {
            // A null where an optional field goes is kept as written: read
            // as no field, a skill bullet's `"evidence": null` written here
            // would be gone on the way back.
            if !is_entry_field(&k) || (v.is_null() && !matches!(k.as_str(), "id" | "content")) {
                extra.insert(k, v);
                continue;
            }
            match field_error(&k, &v) {
                None => {
                    known.insert(k, v);
                }
                Some(err) => {
                    self.shape(
                        span,
                        format!("entry {}: `{k}`: {err}; kept as an extra field", i + 1),
                    );
                    if matches!(k.as_str(), "id" | "content") {
                        known.insert(k.clone(), Value::String(String::new()));
                    }
                    extra.insert(k, v);
                }
            }
        }
        if !extra.is_empty() {
            known.insert("extra".into(), Value::Object(extra));
        }
        match serde_json::from_value::<Entry>(Value::Object(known)) {
            Ok(mut e) => {
                e.origin = Origin::from(span);
                Some(e)
            }
            Err(err) => {
                self.shape(
                    span,
                    format!("entry {}: {err}; kept under `unreadable_entries`", i + 1),
                );
                None
            }
        }
    }
}

/// The entry, when the model holds every known field of `m` as written: one
/// read and one write of the whole entry, instead of a probe per field (the
/// common case, and the one a large file pays for per entry).
fn whole_entry(m: &Map<String, Value>) -> Option<Entry> {
    let mut all = Map::new();
    let mut extra = Map::new();
    for (k, v) in m {
        if is_entry_field(k) {
            all.insert(k.clone(), v.clone());
        } else {
            extra.insert(k.clone(), v.clone());
        }
    }
    if !extra.is_empty() {
        all.insert("extra".into(), Value::Object(extra));
    }
    let e: Entry = serde_json::from_value(Value::Object(all)).ok()?;
    let back = serde_json::to_value(&e).ok()?;
    m.iter()
        .filter(|(k, _)| is_entry_field(k))
        .all(|(k, v)| back.get(k) == Some(v))
        .then_some(e)
}

/// Why the model cannot hold `value` as the entry field `key`, if it cannot.
pub(crate) fn field_error(key: &str, value: &Value) -> Option<String> {
    let mut probe = Map::new();
    probe.insert("id".into(), Value::String(String::new()));
    probe.insert("content".into(), Value::String(String::new()));
    probe.insert(key.to_owned(), value.clone());
    match serde_json::from_value::<Entry>(Value::Object(probe)) {
        Err(e) => Some(e.to_string()),
        // Read without error is not enough: a `scope` object with a key the
        // model does not know would lose that key, silently.
        Ok(e) => {
            let back = serde_json::to_value(&e).ok();
            // `null` reads as absent (only `id` and `content` come here
            // as null: the entry reader keeps any other null as extra).
            let same = value.is_null() || back.as_ref().and_then(|b| b.get(key)) == Some(value);
            (!same).then(|| "the model cannot hold this value as it is".to_owned())
        }
    }
}

/// Whether `key` is one of `Entry`'s serde fields (`extra` excepted). The
/// optional ones come from the model itself, so a field added there is
/// known here too.
pub(crate) fn is_entry_field(key: &str) -> bool {
    matches!(
        key,
        "id" | "section" | "content" | "helpful" | "harmful" | "neutral"
    ) || Entry::default()
        .optional_fields()
        .iter()
        .any(|(name, _)| *name == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_file_is_read_past_the_default_node_budget() {
        // 300,000 tags: more nodes than serde-saphyr's default 250,000.
        let tags = vec!["t"; 300_000].join(", ");
        let src = format!("entries:\n  - id: \"s-1\"\n    content: \"x\"\n    tags: [{tags}]\n");
        let out = read(&src).expect("a large file reads");
        assert_eq!(
            out.playbook.entries[0].tags.as_ref().map(Vec::len),
            Some(300_000)
        );
    }

    #[test]
    fn an_alias_bomb_is_still_refused() {
        let mut src = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let prev = format!("*a{}", i - 1);
            src.push_str(&format!(
                "a{i}: &a{i} [{}]\n",
                [prev.as_str(); 10].join(", ")
            ));
        }
        let e = read(&src).expect_err("a billion laughs does not expand");
        assert!(e.message.contains("budget"), "{}", e.message);
    }
}
