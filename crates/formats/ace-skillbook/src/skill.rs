//! One skill of a skillbook read into an entry, whichever era saved it,
//! and the names a skill's reading and writing share.

use ace_jsonspan::{Kind, Node};
use ace_model::{rules, Diagnostic, Entry, Evidence, Span, Status};
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

/// The skills of the era's object as the stream read them, and the key
/// order of the first (an object: the stream reads no other way).
pub(crate) struct Skills {
    /// In runs, in order.
    pub(crate) reads: Vec<Vec<SkillRead>>,
    pub(crate) template: Option<Vec<String>>,
}

/// A skill's value read on its own: all of it but what needs its key (its
/// ID), which [`settle`] adds. The streamed read makes these on any
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

/// Reads skill `node`; `template`: the key order to keep its own against,
/// if key orders are kept.
pub(crate) fn read_skill(node: &Node, template: Option<&[String]>) -> SkillRead {
    let mut read = SkillRead::new(first_scalar_list(node).map(|l| l.span));
    let Some(fields) = node.members() else {
        read.odd()
            .diags
            .push(shape(node.span, "a skill is an object"));
        return read;
    };
    let mut diags = Vec::new();
    let diags = &mut diags;
    let mut e = Entry::new(String::new(), "");
    // A v2 skill's content is its insight, else its issue.
    read.content_at = ["content", "insight", "issue"].iter().find_map(|k| {
        fields
            .iter()
            .find(|f| f.key == *k && f.value.as_str().is_some())
            .map(|f| f.value.span)
    });
    if let Some(order) = template.and_then(|t| own_order(t, fields.iter().map(|f| f.key.as_str())))
    {
        read.odd().order = Some(order);
    }
    let mut has_content = false;
    // A v2 skill's two texts, which become its content (docs/formats/skillbook.md).
    let mut issue: Option<String> = None;
    let mut insight: Option<String> = None;
    for f in fields {
        let v = &f.value;
        if matches!(v.kind, Kind::Null)
            && (crate::SKILL_KEYS.contains(&f.key.as_str())
                || crate::V2_KEYS.contains(&f.key.as_str()))
        {
            // Absent in the model; the key order writes the null back.
            read.v2 |= f.key == "insight";
            continue;
        }
        // A value of the wrong type is reported and kept under its key,
        // which the writer gives back as it was.
        let kept = match f.key.as_str() {
            "id" => {
                read.odd().id_field = Some((v.as_str().map(str::to_owned), v.span));
                true
            }
            "section" => set(&mut e.section, string(v, "section", diags)),
            "content" => match string(v, "content", diags) {
                Some(s) => {
                    e.content = s;
                    has_content = true;
                    true
                }
                None => false,
            },
            "helpful" | "helpful_count" => set(&mut e.helpful, counter(v, &f.key, diags)),
            "harmful" | "harmful_count" => set(&mut e.harmful, counter(v, &f.key, diags)),
            "neutral" | "neutral_count" => set(&mut e.neutral, counter(v, &f.key, diags)),
            "issue" => {
                read.v2 = true;
                set(&mut issue, string(v, "issue", diags))
            }
            "insight" => {
                read.v2 = true;
                set(&mut insight, string(v, "insight", diags))
            }
            "keywords" => {
                read.v2 = true;
                set(&mut e.tags, keywords(v, diags))
            }
            "active" => match v.kind {
                Kind::Bool(b) => {
                    e.status = Some(if b {
                        Status::Active
                    } else {
                        Status::Other(INACTIVE.to_owned())
                    });
                    true
                }
                _ => {
                    diags.push(shape(v.span, "`active` is `true` or `false`"));
                    false
                }
            },
            "created_at" => set(&mut e.created_at, string(v, "created_at", diags)),
            "updated_at" => set(&mut e.updated_at, string(v, "updated_at", diags)),
            "status" => set(&mut e.status, string(v, "status", diags).map(Status::from)),
            "evidence" => set(
                &mut e.evidence,
                v.as_str().map(|s| vec![Evidence::Text(s.to_owned())]),
            ),
            _ => false,
        };
        if !kept {
            e.extra.insert(f.key.to_string(), v.to_value());
        }
    }
    let opens = Span::new(node.span.start, node.span.start + 1);
    if read.v2 {
        crate::lint::check_skill(fields, opens, diags);
    }
    if !diags.is_empty() {
        read.odd().diags.append(diags);
    }
    finish(&mut read, e, (issue, insight), has_content, opens);
    read
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
/// where the skill opens. Both readers end with it (`read_skill` and the
/// direct reader).
pub(crate) fn finish(
    read: &mut SkillRead,
    mut e: Entry,
    texts: (Option<String>, Option<String>),
    mut has_content: bool,
    opens: Span,
) {
    match texts {
        (Some(issue), Some(insight)) => {
            e.content = insight;
            e.extra.insert("issue", Value::String(issue));
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
fn string(v: &Node, name: &str, diags: &mut Vec<Diagnostic>) -> Option<String> {
    match &v.kind {
        Kind::String(s) => Some(s.clone()),
        _ => {
            diags.push(shape(v.span, format!("`{name}` is a string")));
            None
        }
    }
}

/// A v2 skill's `keywords`: a list of strings.
fn keywords(v: &Node, diags: &mut Vec<Diagnostic>) -> Option<Vec<String>> {
    let words: Option<Vec<String>> = v.as_array().and_then(|items| {
        items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect()
    });
    if words.is_none() {
        diags.push(shape(v.span, "`keywords` is a list of strings"));
    }
    words
}

fn counter(v: &Node, name: &str, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    match &v.kind {
        Kind::Number(n) if !n.contains(['.', 'e', 'E']) => n.parse().ok().or_else(|| {
            diags.push(shape(v.span, format!("`{name}` is out of range")));
            None
        }),
        _ => {
            diags.push(shape(v.span, format!("`{name}` is an integer count")));
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

/// The first non-empty list of scalars, depth first: how the file writes
/// such lists (the index's ID lists, most often).
pub(crate) fn first_scalar_list(node: &Node) -> Option<&Node> {
    match &node.kind {
        Kind::Array(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|i| !matches!(i.kind, Kind::Array(_) | Kind::Object(_))) =>
        {
            Some(node)
        }
        Kind::Array(items) => items.iter().find_map(first_scalar_list),
        Kind::Object(members) => members.iter().find_map(|m| first_scalar_list(&m.value)),
        _ => None,
    }
}
