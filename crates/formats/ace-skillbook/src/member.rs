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

/// A bit for each key of a skill in every era (kayba's
/// [`crate::SKILL_KEYS`] and [`crate::V2_KEYS`]), 0 for any other: a
/// `match` the compiler makes into a few comparisons, where a search of
/// the lists compared a key with each in turn.
pub(crate) fn key_bit(key: &str) -> u32 {
    1 << match key {
        "id" => 0,
        "section" => 1,
        "content" => 2,
        "justification" => 3,
        "evidence" => 4,
        "helpful" => 5,
        "harmful" => 6,
        "neutral" => 7,
        "created_at" => 8,
        "updated_at" => 9,
        "embedding" => 10,
        "status" => 11,
        "sources" => 12,
        "keywords" => 13,
        "issue" => 14,
        "insight" => 15,
        "occurrences" => 16,
        "active" => 17,
        "used_count" => 18,
        "helpful_count" => 19,
        "harmful_count" => 20,
        "neutral_count" => 21,
        _ => return 0,
    }
}

/// The bits of a v2 skill's keys ([`crate::V2_KEYS`]).
pub(crate) const V2_BITS: u32 = 1 << 0
    | 1 << 1
    | 1 << 8
    | 1 << 9
    | 1 << 13
    | 1 << 14
    | 1 << 15
    | 1 << 16
    | 1 << 17
    | 1 << 18
    | 1 << 19
    | 1 << 20
    | 1 << 21;
