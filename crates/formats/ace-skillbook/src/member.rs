//! A member of a skill as the reader takes it, from the text or from the
//! parsed tree, and the keys of every era as bits.

use ace_jsonspan::Node;
use ace_model::Span;
use serde_json::Value;

/// How deep a skill's member values stand in the document (the root
/// object, the era object, the skill), for the parser's nesting limit.
pub(crate) const MEMBER_DEPTH: usize = 3;

/// One member of a skill: its key, where the key and the value are, and
/// the value.
pub(crate) struct Field<'a> {
    pub(crate) key: &'a str,
    /// The key's bit among the keys of every era ([`key_bit`]), 0 for
    /// another key.
    pub(crate) bit: u32,
    pub(crate) key_span: Span,
    pub(crate) span: Span,
    pub(crate) value: Val<'a>,
}

/// What the reader of a skill's members found of their keys.
#[derive(Clone, Copy)]
pub(crate) struct Keys {
    /// The [`bit`]s of all.
    pub(crate) bits: u32,
    /// How many are of no era.
    pub(crate) others: usize,
    /// Whether each key is met once.
    pub(crate) unique: bool,
}

/// A member's value as the reader takes it: read straight from the text
/// where it has a plain shape ([`crate::cursor`]), else from the parsed
/// tree.
pub(crate) enum Val<'a> {
    Null,
    Bool(bool),
    Str(&'a str),
    /// A string whose escapes were decoded.
    Text(String),
    /// An integer, as its lexeme.
    Int(&'a str),
    /// A list of strings, each with where it is.
    Words(Vec<(&'a str, Span)>),
    Node(&'a Node),
    Parsed(Box<Node>),
}

impl Val<'_> {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            Val::Text(s) => Some(s),
            Val::Node(n) => n.as_str(),
            Val::Parsed(n) => n.as_str(),
            _ => None,
        }
    }

    pub(crate) fn node(&self) -> Option<&Node> {
        match self {
            Val::Node(n) => Some(n),
            Val::Parsed(n) => Some(n),
            _ => None,
        }
    }

    /// The items of a list, each a string or not, with where each is.
    pub(crate) fn items(&self) -> Option<Vec<(Option<&str>, Span)>> {
        match self {
            Val::Words(words) => Some(words.iter().map(|&(w, at)| (Some(w), at)).collect()),
            v => Some(
                v.node()?
                    .as_array()?
                    .iter()
                    .map(|i| (i.as_str(), i.span))
                    .collect(),
            ),
        }
    }

    pub(crate) fn is_integer(&self) -> bool {
        matches!(self, Val::Int(_))
    }

    /// The first list of scalars in the value, and where it is.
    pub(crate) fn first_list(&self, span: Span) -> Option<Span> {
        match self {
            Val::Words(words) if !words.is_empty() => Some(span),
            v => v.node().and_then(Node::first_scalar_list).map(|n| n.span),
        }
    }

    pub(crate) fn to_value(&self) -> Value {
        match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Str(s) => Value::String((*s).to_owned()),
            Val::Text(s) => Value::String(s.clone()),
            Val::Int(lexeme) => Value::Number(ace_jsonspan::number(lexeme)),
            Val::Words(words) => words.iter().map(|(w, _)| Value::from(*w)).collect(),
            Val::Node(n) => n.to_value(),
            Val::Parsed(n) => n.to_value(),
        }
    }
}

/// The bit of each key of a skill in every era (kayba's
/// [`crate::SKILL_KEYS`] and [`crate::V2_KEYS`]): a skill's members are
/// told apart by these, a key's text compared once ([`key_bit`]).
pub(crate) mod bit {
    pub(crate) const ID: u32 = 1 << 0;
    pub(crate) const SECTION: u32 = 1 << 1;
    pub(crate) const CONTENT: u32 = 1 << 2;
    pub(crate) const JUSTIFICATION: u32 = 1 << 3;
    pub(crate) const EVIDENCE: u32 = 1 << 4;
    pub(crate) const HELPFUL: u32 = 1 << 5;
    pub(crate) const HARMFUL: u32 = 1 << 6;
    pub(crate) const NEUTRAL: u32 = 1 << 7;
    pub(crate) const CREATED_AT: u32 = 1 << 8;
    pub(crate) const UPDATED_AT: u32 = 1 << 9;
    pub(crate) const EMBEDDING: u32 = 1 << 10;
    pub(crate) const STATUS: u32 = 1 << 11;
    pub(crate) const SOURCES: u32 = 1 << 12;
    pub(crate) const KEYWORDS: u32 = 1 << 13;
    pub(crate) const ISSUE: u32 = 1 << 14;
    pub(crate) const INSIGHT: u32 = 1 << 15;
    pub(crate) const OCCURRENCES: u32 = 1 << 16;
    pub(crate) const ACTIVE: u32 = 1 << 17;
    pub(crate) const USED_COUNT: u32 = 1 << 18;
    pub(crate) const HELPFUL_COUNT: u32 = 1 << 19;
    pub(crate) const HARMFUL_COUNT: u32 = 1 << 20;
    pub(crate) const NEUTRAL_COUNT: u32 = 1 << 21;
    /// A v2 skill's keys ([`crate::V2_KEYS`]).
    pub(crate) const V2: u32 = ID
        | SECTION
        | CREATED_AT
        | UPDATED_AT
        | KEYWORDS
        | ISSUE
        | INSIGHT
        | OCCURRENCES
        | ACTIVE
        | USED_COUNT
        | HELPFUL_COUNT
        | HARMFUL_COUNT
        | NEUTRAL_COUNT;
}

/// The key of the [`bit`] at place `i` (`bit.trailing_zeros()`): the
/// bits follow kayba 0.8's keys in their order, then the v2 keys it lacks.
pub(crate) fn key_name(i: usize) -> Option<&'static str> {
    let v2_only = &crate::V2_KEYS[2..11];
    crate::SKILL_KEYS
        .get(i)
        .or_else(|| v2_only.get(i - crate::SKILL_KEYS.len()))
        .copied()
}

/// The key of `f` to keep in an entry's `extra`: a key of an era is not
/// copied, as each skill of a large skillbook keeps several.
pub(crate) fn extra_key(f: &Field<'_>) -> ace_model::SmolStr {
    match key_name(f.bit.trailing_zeros() as usize) {
        Some(name) if f.bit != 0 => ace_model::SmolStr::new_static(name),
        _ => ace_model::SmolStr::new(f.key),
    }
}

/// The [`bit`] of `key`, 0 for a key of no era.
pub(crate) fn key_bit(key: &str) -> u32 {
    use bit::*;
    match key {
        "id" => ID,
        "section" => SECTION,
        "content" => CONTENT,
        "justification" => JUSTIFICATION,
        "evidence" => EVIDENCE,
        "helpful" => HELPFUL,
        "harmful" => HARMFUL,
        "neutral" => NEUTRAL,
        "created_at" => CREATED_AT,
        "updated_at" => UPDATED_AT,
        "embedding" => EMBEDDING,
        "status" => STATUS,
        "sources" => SOURCES,
        "keywords" => KEYWORDS,
        "issue" => ISSUE,
        "insight" => INSIGHT,
        "occurrences" => OCCURRENCES,
        "active" => ACTIVE,
        "used_count" => USED_COUNT,
        "helpful_count" => HELPFUL_COUNT,
        "harmful_count" => HARMFUL_COUNT,
        "neutral_count" => NEUTRAL_COUNT,
        _ => 0,
    }
}
