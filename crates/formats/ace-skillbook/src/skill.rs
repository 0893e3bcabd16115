//! One skill of a skillbook read into an entry, whichever era saved it,
//! and the names a skill's reading and writing share.

use std::borrow::Cow;
use std::collections::HashSet;

use ace_jsonspan::{Kind, Member, Node};
use ace_model::{
    rules, Diagnostic, Entry, Evidence, Extra, Origin, Severity, SmolStr, Span, Status,
};

use crate::lint::{is_normal_keyword, keyword, section};
use crate::member::{bit, extra_key, key_bit, Field, Keys, Val, MEMBER_DEPTH};
use serde_json::Value;

/// The status of a skill kayba soft-deleted: 0.6 to 0.10 write it as
/// `status: "invalid"`, v2 as `active: false`.
pub(crate) const INACTIVE: &str = "invalid";

pub(crate) fn shape(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&rules::SKILLBOOK_SHAPE, span, message)
}

/// The era the file is in: `skills`, or the `bullets` of releases before
/// 0.7 when there is no `skills`.
pub(crate) fn era_of(root: &Node) -> &'static str {
    if root.get("skills").is_none() && root.get("bullets").is_some() {
        "bullets"
    } else {
        "skills"
    }
}

/// The key order of a skill: the template is the first skill's that is an
/// object, and only skills that differ from it keep their own.
pub(crate) fn key_order(skill: &Node) -> Option<Vec<String>> {
    skill
        .members()
        .map(|fields| fields.iter().map(|f| f.key.to_string()).collect())
}

/// The skills of the era's object as they were read apart, and the key
/// order of the first (an object: they are read apart no other way).
pub(crate) struct Skills {
    /// In runs, in order.
    pub(crate) runs: Vec<Run>,
    pub(crate) template: Option<Vec<String>>,
}

/// A run of skills read and given their IDs: their entries, and what else
/// their reads say, in order. Each run is settled on the core that read
/// it, while its reads are in that core's cache.
pub(crate) struct Run {
    pub(crate) entries: Vec<Entry>,
    pub(crate) diags: Vec<Diagnostic>,
    /// The v2 skills whose `insight` is `null`, with their issue.
    pub(crate) no_insight: Vec<(String, Value)>,
    /// The key orders that differ from the template.
    pub(crate) differing: Vec<(String, Value)>,
    /// Whether any skill has v2 keys.
    pub(crate) v2_skills: bool,
    /// The first list of scalars in the run's skills.
    pub(crate) list: Option<Span>,
    /// Whether the file is v2 (it has `schema_version`).
    v2: bool,
    /// Whether what only a rewrite uses is kept.
    layout: bool,
}

impl Run {
    pub(crate) fn new(v2: bool, layout: bool) -> Run {
        Run {
            entries: Vec::new(),
            diags: Vec::new(),
            no_insight: Vec::new(),
            differing: Vec::new(),
            v2_skills: false,
            list: None,
            v2,
            layout,
        }
    }

    /// Adds skill `m`, read as `read`: its entry, given its ID, unless it
    /// gives none; what else the read says goes to the run.
    pub(crate) fn settle(&mut self, m: &Member, read: SkillRead) {
        if self.list.is_none() {
            self.list = read.list;
        }
        let key = m.key.as_str();
        let Some(mut e) = read.entry else {
            if let Some(odd) = read.odd {
                self.diags.extend(odd.diags);
            }
            return;
        };
        e.origin = Origin::from(read.content_at.unwrap_or(m.key_span));
        self.v2_skills |= read.v2;
        let Some(odd) = read.odd else {
            if e.id.is_empty() {
                e.id = key.to_owned();
            }
            self.entries.push(e);
            return;
        };
        let odd = *odd;
        self.diags.extend(odd.diags);
        match odd.id_field {
            Some((Some(id), _)) if id == key => e.id = id,
            Some((_, span)) => {
                e.id = key.to_owned();
                let mut d = shape(
                    span,
                    format!(
                        "the skill's `id` is not its key `{key}`; the framework looks skills up by key, and a rewrite writes the key for both"
                    ),
                );
                d.severity = Severity::Warning;
                self.diags.push(d);
            }
            None if e.id.is_empty() => e.id = key.to_owned(),
            // The reader made it from the `id` field, which is the key.
            None => {}
        }
        match (self.v2, odd.no_issue, odd.no_content) {
            (true, Some(at), _) => self.diags.push(shape(
                at,
                format!("skill `{key}` has no `issue`: kayba 0.13 refuses to load the skillbook (`issue is required and must be non-empty`)"),
            )),
            (false, _, Some(at)) if !read.v2 => {
                self.diags.push(shape(at, format!("skill `{key}` has no `content`")))
            }
            _ => {}
        }
        if odd.no_insight && self.layout {
            self.no_insight
                .push((key.to_owned(), Value::from(e.content.as_str())));
        }
        if let Some(order) = odd.order {
            self.differing.push((key.to_owned(), order));
        }
        self.entries.push(e);
    }
}

/// A skill's value read on its own: all of it but what needs its key (its
/// ID), which [`Run::settle`] adds. The read apart makes these on any
/// thread, one for each of a large skillbook's skills, so what a skill
/// kayba saved never has is boxed apart.
#[derive(Debug, PartialEq)]
pub(crate) struct SkillRead {
    /// The entry, its ID still empty unless the reader found its `id`
    /// field is its key; `None` if the skill is not an object.
    pub(crate) entry: Option<Entry>,
    /// Where its text is, which its findings point at (else its key).
    pub(crate) content_at: Option<Span>,
    /// Whether it is a v2 skill (it has an `issue` or `insight` key).
    pub(crate) v2: bool,
    /// The first list of scalars in it.
    pub(crate) list: Option<Span>,
    pub(crate) odd: Option<Box<Odd>>,
}

/// What a [`SkillRead`] holds of a skill unlike those kayba saves.
#[derive(Debug, PartialEq, Default)]
pub(crate) struct Odd {
    /// The `id` field: its string, if it is one, and where it is (unless
    /// the entry's ID was made from it).
    pub(crate) id_field: Option<(Option<String>, Span)>,
    /// Where an object without `content` opens.
    pub(crate) no_content: Option<Span>,
    /// Where a v2 skill without `issue` opens.
    pub(crate) no_issue: Option<Span>,
    /// A v2 skill whose `insight` is `null`: its content is its `issue`.
    pub(crate) no_insight: bool,
    /// Its key order, where it is not the template's, as the layout
    /// holds it.
    pub(crate) order: Option<Value>,
    pub(crate) diags: Vec<Diagnostic>,
}

impl SkillRead {
    pub(crate) fn new(list: Option<Span>) -> Self {
        SkillRead {
            entry: None,
            content_at: None,
            v2: false,
            list,
            odd: None,
        }
    }

    /// The odd part, made when something is put in it.
    pub(crate) fn odd(&mut self) -> &mut Odd {
        self.odd.get_or_insert_with(Box::default)
    }
}

/// The fields of an object node, and what their keys are; a key may be
/// met twice.
fn fields_of(members: &[ace_jsonspan::Member]) -> (Vec<Field<'_>>, Keys) {
    let fields: Vec<Field<'_>> = members
        .iter()
        .map(|m| Field {
            key: &m.key,
            bit: key_bit(&m.key),
            key_span: m.key_span,
            span: m.value.span,
            value: match &m.value.kind {
                Kind::Null => Val::Null,
                Kind::Bool(b) => Val::Bool(*b),
                Kind::String(s) => Val::Str(s),
                Kind::Number(n) if !n.contains(['.', 'e', 'E']) => Val::Int(n),
                _ => Val::Node(&m.value),
            },
        })
        .collect();
    let keys = fields.iter().fold(
        Keys {
            bits: 0,
            others: 0,
            unique: false,
        },
        |k, f| Keys {
            bits: k.bits | f.bit,
            others: k.others + usize::from(f.bit == 0),
            ..k
        },
    );
    (fields, keys)
}

/// Reads skill `node`; `template`: the key order to keep its own against,
/// if key orders are kept.
pub(crate) fn read_skill(node: &Node, template: Option<&[String]>) -> SkillRead {
    let Some(members) = node.members() else {
        let mut read = SkillRead::new(node.first_scalar_list().map(|l| l.span));
        read.odd()
            .diags
            .push(shape(node.span, "a skill is an object"));
        return read;
    };
    let (fields, keys) = fields_of(members);
    read_fields(&fields, keys, node.span, template, None)
}

/// Reads the skill whose value is the text at `span` of `text`, straight
/// from the text when its members are plain, else from its parsed tree,
/// its repeated keys reported; `None` when the text is no JSON value (the
/// document's parse says where). `key`: the skill's key when it needs no
/// unescaping, which an `id` field equal to it is taken as here;
/// `scratch`: room for the members, kept from skill to skill.
pub(crate) fn read_skill_text<'t>(
    text: &'t str,
    span: Span,
    template: Option<&[String]>,
    key: Option<&str>,
    scratch: &mut Vec<Field<'t>>,
) -> Option<SkillRead> {
    if let Some(keys) = crate::cursor::fields(text, span, scratch) {
        return Some(read_fields(scratch, keys, span, template, key));
    }
    let node = ace_jsonspan::parse_at_depth(text, span.start..span.end, MEMBER_DEPTH)?;
    Some(read_taken_skill(&node, template))
}

/// [`read_skill`] of a skill taken from the document's parse, which did not
/// see the repeated keys inside it: they are reported here.
pub(crate) fn read_taken_skill(node: &Node, template: Option<&[String]>) -> SkillRead {
    let mut read = read_skill(node, template);
    let mut repeated = Vec::new();
    ace_jsonspan::duplicate_keys(node, &mut repeated);
    if !repeated.is_empty() {
        read.odd().diags.append(&mut repeated);
    }
    read
}

/// The reading of a skill's members: the one place what each key means
/// is decided, whichever way the members were read.
fn read_fields(
    fields: &[Field<'_>],
    keys: Keys,
    at: Span,
    template: Option<&[String]>,
    key: Option<&str>,
) -> SkillRead {
    use bit::*;
    let mut read = SkillRead::new(None);
    let mut diags = Vec::new();
    let diags = &mut diags;
    let mut e = Entry::new(String::new(), "");
    // The members kept in `extra`, counted first so that it is made once
    // with room for them: those of no era, those the model has no field
    // for, and a v2 skill's issue beside its insight.
    let kept_apart = JUSTIFICATION | EMBEDDING | SOURCES | OCCURRENCES | USED_COUNT | ISSUE;
    let room = keys.others + (keys.bits & kept_apart).count_ones() as usize;
    if room > 0 {
        e.extra = Extra::with_capacity(room);
    }
    let keep = |extra: &mut Extra, f: &Field<'_>| {
        put(extra, keys.unique, extra_key(f), f.value.to_value());
    };
    if let Some(order) = template.and_then(|t| own_order(t, fields.iter().map(|f| f.key))) {
        read.odd().order = Some(order);
    }
    let mut has_content = false;
    // A v2 skill's two texts, which become its content (docs/formats/skillbook.md).
    let mut issue: Option<String> = None;
    let mut insight: Option<String> = None;
    // Where the first `content`, `insight` and `issue` that is a string
    // stands: the skill's text is the first of these there is.
    let mut texts: [Option<Span>; 3] = [None; 3];
    let mut last = Last::default();
    for (i, f) in fields.iter().enumerate() {
        let v = &f.value;
        if read.list.is_none() {
            read.list = v.first_list(f.span);
        }
        if f.bit == 0 {
            keep(&mut e.extra, f);
            continue;
        }
        last.0[f.bit.trailing_zeros() as usize] = i;
        let text = match f.bit {
            CONTENT => Some(0),
            INSIGHT => Some(1),
            ISSUE => Some(2),
            _ => None,
        };
        if let Some(t) = text.filter(|_| v.as_str().is_some()) {
            texts[t].get_or_insert(f.span);
        }
        if matches!(v, Val::Null) {
            // Absent in the model; the key order writes the null back.
            read.v2 |= f.bit == INSIGHT;
            continue;
        }
        // A value of the wrong type is reported and kept under its key,
        // which the writer gives back as it was.
        let kept = match f.bit {
            ID => {
                match v.as_str() {
                    Some(id) if key == Some(id) => e.id = id.to_owned(),
                    id => read.odd().id_field = Some((id.map(str::to_owned), f.span)),
                }
                true
            }
            SECTION => set(&mut e.section, string(f, diags)),
            CONTENT => match string(f, diags) {
                Some(s) => {
                    e.content = s;
                    has_content = true;
                    true
                }
                None => false,
            },
            HELPFUL | HELPFUL_COUNT => set(&mut e.helpful, counter(f, diags)),
            HARMFUL | HARMFUL_COUNT => set(&mut e.harmful, counter(f, diags)),
            NEUTRAL | NEUTRAL_COUNT => set(&mut e.neutral, counter(f, diags)),
            ISSUE => {
                read.v2 = true;
                set(&mut issue, string(f, diags))
            }
            INSIGHT => {
                read.v2 = true;
                set(&mut insight, string(f, diags))
            }
            KEYWORDS => {
                read.v2 = true;
                set(&mut e.tags, keywords(f, diags))
            }
            ACTIVE => match v {
                Val::Bool(b) => {
                    e.status = Some(if *b {
                        Status::Active
                    } else {
                        Status::Other(INACTIVE.to_owned())
                    });
                    true
                }
                _ => {
                    diags.push(shape(f.span, "`active` is `true` or `false`"));
                    false
                }
            },
            CREATED_AT => set(&mut e.created_at, string(f, diags)),
            UPDATED_AT => set(&mut e.updated_at, string(f, diags)),
            STATUS => set(&mut e.status, string(f, diags).map(Status::from)),
            EVIDENCE => set(
                &mut e.evidence,
                v.as_str().map(|s| vec![Evidence::Text(s.to_owned())]),
            ),
            _ => false,
        };
        if !kept {
            keep(&mut e.extra, f);
        }
    }
    read.content_at = texts.into_iter().flatten().next();
    let opens = Span::new(at.start, at.start + 1);
    if read.v2 {
        check_v2(fields, &last, opens, diags);
    }
    if !diags.is_empty() {
        read.odd().diags.append(diags);
    }
    finish(
        &mut read,
        e,
        (issue, insight),
        has_content,
        opens,
        keys.unique,
    );
    read
}

/// The place among a skill's members of the last of each key of any era,
/// by its [`bit`]: a later member is the one kayba keeps. A place for
/// each bit of a `u32`, so that no bit falls outside it.
struct Last([usize; 32]);

impl Default for Last {
    fn default() -> Self {
        Last([usize::MAX; 32])
    }
}

impl Last {
    fn get<'f, 'a>(&self, fields: &'f [Field<'a>], bit: u32) -> Option<&'f Field<'a>> {
        fields.get(self.0[bit.trailing_zeros() as usize])
    }
}

/// The key order `keys` of a skill, where it is not `template`'s.
pub(crate) fn own_order<'k>(
    template: &[String],
    keys: impl Iterator<Item = &'k str> + Clone,
) -> Option<Value> {
    let same = template.iter().map(String::as_str).eq(keys.clone());
    (!same).then(|| keys.map(Value::from).collect())
}

/// Puts entry `e` of a skill into `read`, its content made from a v2
/// skill's `issue` and `insight` (docs/formats/skillbook.md), and what the
/// read says of them. `has_content`: whether it had `content`; `opens`:
/// where the skill opens; `unique`: whether each key was met once, when
/// a string `issue` is not in `extra` already.
fn finish(
    read: &mut SkillRead,
    mut e: Entry,
    texts: (Option<String>, Option<String>),
    mut has_content: bool,
    opens: Span,
    unique: bool,
) {
    match texts {
        (Some(issue), Some(insight)) => {
            e.content = insight;
            let key = SmolStr::new_static("issue");
            put(&mut e.extra, unique, key, Value::String(issue));
            has_content = true;
        }
        (Some(issue), None) => {
            e.content = issue;
            read.odd().no_insight = true;
            has_content = true;
        }
        (None, Some(insight)) => {
            e.content = insight;
            has_content = true;
            if !e.extra.contains_key("issue") {
                read.odd().no_issue = Some(opens);
            }
        }
        (None, None) if read.v2 && !e.extra.contains_key("issue") => {
            read.odd().no_issue = Some(opens);
        }
        (None, None) => {}
    }
    if !has_content && !e.extra.contains_key("content") {
        read.odd().no_content = Some(opens);
    }
    read.entry = Some(e);
}

/// Puts `key` in `extra`; `unique`: whether each key of the skill was met
/// once, when it is put there without a search for it.
fn put(extra: &mut Extra, unique: bool, key: SmolStr, value: Value) {
    match unique {
        true => extra.insert_new(key, value),
        false => drop(extra.insert(key, value)),
    }
}

/// Sets `slot` to a value read; `false` when there is none.
fn set<T>(slot: &mut Option<T>, v: Option<T>) -> bool {
    let read = v.is_some();
    if read {
        *slot = v;
    }
    read
}

/// A string field; another type is reported (and kept in `extra` by the
/// caller).
fn string(f: &Field<'_>, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let s = f.value.as_str().map(str::to_owned);
    if s.is_none() {
        diags.push(shape(f.span, format!("`{}` is a string", f.key)));
    }
    s
}

/// A v2 skill's `keywords`: a list of strings.
fn keywords(f: &Field<'_>, diags: &mut Vec<Diagnostic>) -> Option<Vec<String>> {
    let words: Option<Vec<String>> = match &f.value {
        Val::Words(words) => Some(words.iter().map(|&(w, _)| w.to_owned()).collect()),
        v => v
            .items()
            .and_then(|items| items.iter().map(|(w, _)| w.map(str::to_owned)).collect()),
    };
    if words.is_none() {
        diags.push(shape(f.span, "`keywords` is a list of strings"));
    }
    words
}

fn counter(f: &Field<'_>, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    let name = f.key;
    match &f.value {
        Val::Int(n) => n.parse().ok().or_else(|| {
            diags.push(shape(f.span, format!("`{name}` is out of range")));
            None
        }),
        _ => {
            diags.push(shape(f.span, format!("`{name}` is an integer count")));
            None
        }
    }
}

/// The section kayba files a skill under: in v2, a legacy section's
/// skill is in `context`.
pub(crate) fn section_of(e: &Entry, v2: bool) -> Option<&str> {
    let s = e.section.as_deref()?;
    if v2 && crate::lint::section(s) != Some(s) {
        return Some(crate::lint::section(s).unwrap_or("context"));
    }
    Some(s)
}

/// The number of an ID the framework made (`{section}-{n:05d}`).
pub(crate) fn id_number(id: &str) -> Option<i64> {
    let (_, digits) = id.rsplit_once('-')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

fn warn(span: Span, message: String) -> Diagnostic {
    Diagnostic::new(&rules::SKILLBOOK_V2, span, message)
}

/// kayba 0.13's findings on v2 skill `fields` (`ace/core/skillbook.py`):
/// what its loader changes, and what it refuses; `opens`: where the skill
/// opens.
fn check_v2(fields: &[Field<'_>], last: &Last, opens: Span, diags: &mut Vec<Diagnostic>) {
    use bit::*;
    let get = |b: u32| last.get(fields, b);
    if let Some((v, s)) = get(SECTION).and_then(|v| Some((v, v.value.as_str()?))) {
        match section(s) {
            None => diags.push(warn(
                v.span,
                format!("kayba 0.13 has two sections, `context` and `harness`: it reads `{}` as `context` and puts `{}` first in the keywords", s.trim(), keyword(s).unwrap_or_default()),
            )),
            Some(kayba) if kayba != s => diags.push(warn(
                v.span,
                format!("kayba reads this section as `{kayba}`"),
            )),
            Some(_) => {}
        }
    }
    // kayba's own keywords, each normal already and none repeated, have
    // nothing to say: told without a set or a copy.
    let plain_words = |v: &Field<'_>| match &v.value {
        Val::Words(words) => {
            !words.is_empty()
                && words.len() <= 32
                && words.iter().enumerate().all(|(i, (w, _))| {
                    is_normal_keyword(w) && !words[..i].iter().any(|(x, _)| x == w)
                })
        }
        _ => false,
    };
    if let Some(v) = get(KEYWORDS).filter(|v| !plain_words(v)) {
        let items = v.value.items();
        let mut seen: HashSet<Cow<'_, str>> = HashSet::new();
        for &(w, at) in items.iter().flatten() {
            let Some(w) = w else { continue };
            // Most keywords are kayba's own already: nothing to make.
            let normal = match is_normal_keyword(w) {
                true => Some(Cow::Borrowed(w)),
                false => keyword(w).map(Cow::Owned),
            };
            match normal {
                None => diags.push(warn(at, "an empty keyword: kayba drops it".into())),
                Some(k) if seen.contains(&k) => diags.push(warn(
                    at,
                    format!("keyword `{k}` is already listed: kayba keeps it once"),
                )),
                Some(k) => {
                    if k != w {
                        diags.push(warn(at, format!("kayba reads this keyword as `{k}`")));
                    }
                    seen.insert(k);
                }
            }
        }
        if seen.is_empty() && items.is_some() {
            diags.push(warn(
                v.span,
                "no keywords: kayba fills them with the section's name".into(),
            ));
        }
    }
    match get(ISSUE).and_then(|v| Some((v, v.value.as_str()?))) {
        Some((v, s)) if s.trim().is_empty() => diags.push(Diagnostic::new(
            &rules::SKILLBOOK_SHAPE,
            v.span,
            "an empty `issue`: kayba 0.13 refuses to load the skillbook (`issue is required and must be non-empty`)",
        )),
        Some((v, s)) if s.trim() != s => {
            diags.push(warn(v.span, "kayba strips the white space around the issue".into()))
        }
        _ => {}
    }
    let insight = get(INSIGHT).and_then(|v| v.value.as_str()).map(str::trim);
    if let Some(v) = get(INSIGHT).filter(|_| insight.is_some_and(|i| i.is_empty())) {
        diags.push(warn(
            v.span,
            "an empty insight: kayba reads it as none".into(),
        ));
    }
    let is_context = get(SECTION)
        .and_then(|v| v.value.as_str())
        .and_then(section)
        == Some("context");
    if is_context && insight.is_none_or(str::is_empty) {
        diags.push(warn(
            get(INSIGHT).map_or(opens, |v| v.span),
            "a `context` skill without an insight: kayba loads it, but its `update_skill` refuses to change it (`context skills require a non-empty insight`)".into(),
        ));
    }
    if let Some(f) = fields.iter().find(|f| f.bit == EMBEDDING) {
        diags.push(warn(
            f.key_span,
            "kayba 0.12 and later keep embeddings in `<stem>.embeddings.npz`, not in the JSON: it drops this on load".into(),
        ));
    }
    if let Some(v) = get(OCCURRENCES) {
        if v.value.items().is_none() {
            diags.push(warn(
                v.span,
                "`occurrences` is a list of insight sources: kayba drops this".into(),
            ));
        }
    }
    if let Some(v) = get(USED_COUNT) {
        if !v.value.is_integer() {
            diags.push(Diagnostic::new(
                &rules::SKILLBOOK_SHAPE,
                v.span,
                "`used_count` is an integer count",
            ));
        }
    }
    for f in fields {
        if f.bit & (V2 | EMBEDDING) == 0 {
            diags.push(warn(
                f.key_span,
                format!(
                    "`{}` is not a key of a v2 skill: kayba drops it on load",
                    f.key
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skills of every shape read the same from their text as from their
    /// parsed tree: plain ones straight from the text, the others parsed.
    #[test]
    fn a_skill_reads_the_same_from_its_text_and_its_tree() {
        let skills = [
            r#"{"id": "a-1", "section": "context", "keywords": ["x", "y_z"], "issue": "i", "insight": "n", "occurrences": [], "active": true, "used_count": 0, "helpful_count": 1, "harmful_count": 0, "neutral_count": 0, "created_at": "t", "updated_at": "t"}"#,
            r#"{"id": "a-1", "section": "Strategies", "content": "line\none \"q\" \u00e9", "helpful": 3, "harmful": -0, "neutral": 0, "created_at": "t", "updated_at": "t", "embedding": null, "status": "active", "sources": [{"a": 1}, [2, "x"]]}"#,
            r#"{"id": "other", "section": 3, "content": ["not", "text"], "helpful": 1.5, "harmful": 99999999999999999999, "active": "yes", "keywords": "k", "evidence": {"e": 1}}"#,
            r#"{"issue": " padded ", "insight": null, "keywords": ["Two  Words", "two_words", ""], "used_count": null, "occurrences": 3, "extra_key": {"n": [1]}, "embedding": [0.1]}"#,
            r#"{"section": "harness", "issue": "", "insight": " ", "keywords": [], "justification": "j\tk"}"#,
            r#"{"id": null, "content": null, "unknown": null, "evidence": "e", "status": "invalid"}"#,
            r#"{ "content" : "spaced" ,"helpful":0 }"#,
            r#"{"helpful": 9223372036854775807, "harmful": -9223372036854775808, "neutral": 9223372036854775808, "used_count": -9223372036854775809, "helpful_count": 10}"#,
            r#"{}"#,
        ];
        let template: Vec<String> = crate::V2_KEYS.iter().map(|k| k.to_string()).collect();
        for text in skills {
            let span = Span::new(0, text.len());
            let node = ace_jsonspan::parse(text).unwrap().root;
            for t in [None, Some(template.as_slice())] {
                let from_text = read_skill_text(text, span, t, None, &mut Vec::new()).unwrap();
                let from_tree = read_skill(&node, t);
                assert_eq!(from_text, from_tree, "{text}");
            }
            let plain = crate::cursor::fields(text, span, &mut Vec::new()).is_some();
            assert!(plain || text.contains("1.5"), "read from its tree: {text}");
        }
        // The text's own key: an `id` equal to it makes the entry's ID.
        let text = r#"{"id": "k-1", "content": "c"}"#;
        let read = read_skill_text(
            text,
            Span::new(0, text.len()),
            None,
            Some("k-1"),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(read.entry.unwrap().id, "k-1");
        assert!(read.odd.is_none());
    }

    #[test]
    fn each_key_of_every_era_has_its_own_bit() {
        let mut bits = 0u32;
        for k in crate::SKILL_KEYS.iter().chain(crate::V2_KEYS.iter()) {
            bits |= key_bit(k);
        }
        assert_eq!(bits.count_ones(), 22);
        for i in 0..32 {
            let name = crate::member::key_name(i);
            assert_eq!(name.map(key_bit), (i < 22).then_some(1 << i), "{i}");
        }
        let v2 = crate::V2_KEYS.iter().fold(0, |m, k| m | key_bit(k));
        assert_eq!(v2, bit::V2);
        for near in [
            "ID",
            "",
            "i",
            "ids",
            "sectionx",
            "contents",
            "helpful_",
            "harmful_counts",
        ] {
            assert_eq!(key_bit(near), 0, "{near}");
        }
        for near in [
            "neutrals",
            "used_counts",
            "statu",
            "keyword",
            "issues",
            "insights",
            "actives",
        ] {
            assert_eq!(key_bit(near), 0, "{near}");
        }
    }

    /// A repeated key is reported where the text is read, the later value
    /// used; text that is no JSON gives nothing.
    #[test]
    fn repeated_keys_and_broken_text() {
        let text = r#"{"content": "a", "content": "b"}"#;
        let read =
            read_skill_text(text, Span::new(0, text.len()), None, None, &mut Vec::new()).unwrap();
        assert_eq!(read.entry.as_ref().unwrap().content, "b");
        let codes: Vec<&str> = read.odd.unwrap().diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, [rules::DUPLICATE_KEY.code]);
        let broken = r#"{"content": "a",}"#;
        assert!(read_skill_text(
            broken,
            Span::new(0, broken.len()),
            None,
            None,
            &mut Vec::new()
        )
        .is_none());
    }

    /// The read of skill `skill` standing in a skillbook from its text, and
    /// from its parsed tree with the repeated keys the parse found; `None`
    /// for the tree when the skill does not parse.
    fn both(skill: &str, template: Option<&[String]>) -> (Option<SkillRead>, Option<SkillRead>) {
        let head = "{\"skills\": {\"k-00001\": ";
        let text = format!("{head}{skill}}}}}");
        let span = Span::new(head.len(), head.len() + skill.len());
        let new = read_skill_text(&text, span, template, None, &mut Vec::new());
        let old = ace_jsonspan::parse_at_depth(&text, span.start..span.end, 2).map(|node| {
            let mut read = read_skill(&node, template);
            let mut repeated = Vec::new();
            ace_jsonspan::duplicate_keys(&node, &mut repeated);
            if !repeated.is_empty() {
                read.odd().diags.append(&mut repeated);
            }
            read
        });
        (new, old)
    }

    const PLAIN_V2: &str = r#"{
      "id": "context-00001",
      "section": "context",
      "keywords": ["retry", "api_limits"],
      "issue": "Calls fail at the rate limit.",
      "insight": "Back off and retry.",
      "occurrences": [{"source_id": "t1", "reflection_index": 0, "reason": null}],
      "active": true,
      "used_count": 2,
      "helpful_count": 3,
      "harmful_count": 0,
      "neutral_count": 1,
      "created_at": "2026-01-01T00:00:00+00:00",
      "updated_at": "2026-01-02T00:00:00+00:00"
    }"#;

    const PLAIN_V08: &str = r#"{"id": "s-00002", "section": "Strategies", "content": "Check first.",
      "justification": "j", "evidence": "e", "helpful": 1, "harmful": 0, "neutral": 0,
      "created_at": "c", "updated_at": "u", "embedding": null, "status": "active",
      "sources": ["a", "b"]}"#;

    /// A member of a generated skill: a key, and its value as written.
    fn member() -> impl proptest::strategy::Strategy<Value = (String, String)> {
        let keys: Vec<String> = crate::SKILL_KEYS
            .iter()
            .chain(crate::V2_KEYS.iter())
            .map(|k| k.to_string())
            .chain([
                "other".to_owned(),
                "ID".to_owned(),
                "is\\u0073ue".to_owned(),
            ])
            .collect();
        let values = [
            r#""context""#,
            r#""harness""#,
            r#""Context""#,
            r#"" pad ""#,
            r#""""#,
            r#""a \"q\" b""#,
            r#""plain text""#,
            "null",
            "true",
            "false",
            "truex",
            "0",
            "-0",
            "01",
            "1.5",
            "1e3",
            "42",
            "-",
            "9223372036854775808",
            "[]",
            r#"["kw"]"#,
            r#"["kw", "other_kw"]"#,
            r#"["Kw", "kw"]"#,
            r#"["a b"]"#,
            r#"[""]"#,
            "[1]",
            r#"["kw",]"#,
            r#"[{"a": 1, "a": 2}]"#,
            r#"[{"source_id": "t", "n": 1e2}]"#,
            "{}",
            "[[1], [\"x\"]]",
            r#""tab	in""#,
        ];
        (
            proptest::sample::select(keys),
            proptest::sample::select(values.map(str::to_owned).to_vec()),
        )
    }

    /// The members of one of kayba's skills, a few of them changed,
    /// added, left out or repeated: one step or two from what is read
    /// from the text, so that each of the cursor's conditions is crossed.
    fn skill() -> impl proptest::strategy::Strategy<Value = Vec<(String, String)>> {
        use proptest::prelude::*;
        let members = |text: &str| -> Vec<(String, String)> {
            let node = ace_jsonspan::parse(text).expect("a test skill parses");
            node.root
                .members()
                .unwrap_or_default()
                .iter()
                .map(|m| {
                    (
                        m.key.to_string(),
                        text[m.value.span.start..m.value.span.end].to_owned(),
                    )
                })
                .collect()
        };
        let bases = vec![members(PLAIN_V2), members(PLAIN_V08), Vec::new()];
        (
            proptest::sample::select(bases),
            proptest::collection::vec((0..4u8, any::<proptest::sample::Index>(), member()), 0..3),
        )
            .prop_map(|(mut skill, changes)| {
                for (op, at, (key, value)) in changes {
                    let i = if skill.is_empty() {
                        0
                    } else {
                        at.index(skill.len())
                    };
                    match op {
                        0 if !skill.is_empty() => skill[i].1 = value,
                        1 => skill.insert(i, (key, value)),
                        2 if !skill.is_empty() => {
                            skill.remove(i);
                        }
                        3 if !skill.is_empty() => skill.insert(i, skill[i].clone()),
                        _ => {}
                    }
                }
                skill
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(20_000))]
        /// One of kayba's skills a step or two changed reads the same from
        /// its text as from its parsed tree.
        #[test]
        fn a_changed_skill_reads_the_same_from_its_text_and_its_tree(
            members in skill(),
            space in proptest::sample::select(vec!["", " ", "\n  ", "\u{a0}", "\t"]),
            trailing in proptest::bool::ANY,
            ordered in proptest::bool::ANY,
        ) {
            let body: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{space}\"{k}\":{space}{v}"))
                .collect();
            let comma = if trailing && !body.is_empty() { "," } else { "" };
            let skill = format!("{{{}{comma}{space}}}", body.join(","));
            let template: Vec<String> = crate::V2_KEYS.iter().map(|k| k.to_string()).collect();
            let (text_read, tree_read) = both(&skill, ordered.then_some(template.as_slice()));
            let order = |r: &Option<SkillRead>| {
                r.as_ref().and_then(|r| r.entry.as_ref().map(|e| e.extra.keys().cloned().collect::<Vec<_>>()))
            };
            proptest::prop_assert_eq!(order(&text_read), order(&tree_read), "{}", skill);
            proptest::prop_assert_eq!(text_read, tree_read, "{}", skill);
        }
    }
}
