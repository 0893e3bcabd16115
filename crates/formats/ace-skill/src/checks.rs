//! Checks shared by playbooks and deltas: timestamps, which schema generation
//! a bullet follows, and schema validation of bullets by their generation.

use ace_jsonspan::{Kind, Node};
use ace_model::{rules, Diagnostic};
use ace_schema::Generation;

/// Why `s` is not an RFC 3339 date-time, or `None` if it is one.
pub fn timestamp_problem(s: &str) -> Option<&'static str> {
    use ace_model::time::Shape;
    match ace_model::time::shape(s) {
        Shape::DateTime => None,
        Shape::NotDate | Shape::NoTime => {
            Some("is not a date-time (expected YYYY-MM-DDTHH:MM:SS with a timezone)")
        }
        Shape::DateOnly => {
            Some("is a date without a time; expected YYYY-MM-DDTHH:MM:SS with a timezone")
        }
        Shape::EmptyFraction => Some("has a `.` with no fraction digits after the seconds"),
        Shape::NoZone => Some("has no timezone; add `Z` if the time is UTC"),
        Shape::BadZone => Some("has an unreadable timezone; expected `Z` or `+HH:MM`"),
    }
}

/// ACE039 for the string at `node`, if it is not an RFC 3339 date-time.
pub fn check_timestamp(node: &Node, what: &str, out: &mut Vec<Diagnostic>) {
    if let Kind::String(s) = &node.kind {
        if let Some(problem) = timestamp_problem(s) {
            out.push(Diagnostic::new(
                &rules::TIMESTAMP_FORMAT,
                node.span,
                format!("{what} `{s}` {problem}"),
            ));
        }
    }
}

/// Timestamps of one bullet: `created`, `last_updated`, evidence `timestamp`.
pub fn check_bullet_timestamps(bullet: &Node, out: &mut Vec<Diagnostic>) {
    for key in ["created", "last_updated"] {
        if let Some(n) = bullet.get(key) {
            check_timestamp(n, key, out);
        }
    }
    if let Some(items) = bullet.get("evidence").and_then(Node::as_array) {
        for item in items {
            if let Some(n) = item.get("timestamp") {
                check_timestamp(n, "evidence timestamp", out);
            }
        }
    }
}

/// What one bullet's `confidence` and `scope` say about its generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// Neither field, or values of neither generation's type.
    None,
    One,
    Two,
    /// `confidence` says one generation and `scope` the other; the
    /// generation is `confidence`'s.
    Mixed(Generation),
}

pub fn hint(bullet: &Node) -> Hint {
    let of = |key: &str| match bullet.get(key).map(|n| &n.kind) {
        Some(Kind::String(_)) => Some(Generation::One),
        Some(Kind::Number(_)) if key == "confidence" => Some(Generation::Two),
        Some(Kind::Object(_)) if key == "scope" => Some(Generation::Two),
        _ => None,
    };
    match (of("confidence"), of("scope")) {
        (None, None) => Hint::None,
        (Some(a), Some(b)) if a != b => Hint::Mixed(a),
        (Some(g), _) | (None, Some(g)) => match g {
            Generation::One => Hint::One,
            Generation::Two => Hint::Two,
        },
    }
}

impl Hint {
    pub fn generation(self) -> Option<Generation> {
        match self {
            Hint::None => None,
            Hint::One => Some(Generation::One),
            Hint::Two => Some(Generation::Two),
            Hint::Mixed(g) => Some(g),
        }
    }
}

/// The generation a set of bullets follows: the one most of them hint at,
/// generation 2 on a tie or when none hints (it is the schema shipped today).
pub fn majority(hints: &[Hint]) -> Generation {
    let count = |g| hints.iter().filter(|h| h.generation() == Some(g)).count();
    if count(Generation::One) > count(Generation::Two) {
        Generation::One
    } else {
        Generation::Two
    }
}

/// Where a generation shows in a bullet: its `confidence`, else its `scope`,
/// else the bullet's opening brace.
pub fn hint_span(bullet: &Node) -> ace_model::Span {
    bullet
        .get("confidence")
        .or_else(|| bullet.get("scope"))
        .map(|n| n.span)
        .unwrap_or(ace_model::Span::new(
            bullet.span.start,
            bullet.span.start + 1,
        ))
}

pub fn generation_name(g: Generation) -> &'static str {
    match g {
        Generation::One => "generation 1 (confidence as a level, scope as a name; schema of commit c1db146)",
        Generation::Two => "generation 2 (confidence as a number, scope as an object; the schema shipped with the skill today)",
    }
}

/// The id of a bullet for messages.
pub fn bullet_label(bullet: &Node, index: usize) -> String {
    match bullet.get("id").and_then(Node::as_str) {
        Some(id) => format!("bullet `{id}`"),
        None => format!("bullet #{}", index + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(timestamp_problem("2025-10-25T00:00:00Z"), None);
        assert_eq!(timestamp_problem("2025-10-25T00:00:00.123+02:00"), None);
        assert!(timestamp_problem("2025-10-27T12:33:11.269633")
            .unwrap()
            .contains("no timezone"));
        assert!(timestamp_problem("2025-10-27")
            .unwrap()
            .contains("without a time"));
        assert!(timestamp_problem("yesterday")
            .unwrap()
            .contains("not a date-time"));
        assert!(timestamp_problem("2025-10-27T12:33:11+2")
            .unwrap()
            .contains("timezone"));
        assert!(timestamp_problem("2025-10-27T12:33:11.Z").is_some());
        assert!(timestamp_problem("").is_some());
        assert!(timestamp_problem("２０２５-10-27T00:00:00Z").is_some());
    }

    #[test]
    fn generation_hints() {
        let h = |t: &str| hint(&ace_jsonspan::parse(t).unwrap().root);
        assert_eq!(h(r#"{"confidence": "high", "scope": "global"}"#), Hint::One);
        assert_eq!(h(r#"{"confidence": 0.8}"#), Hint::Two);
        assert_eq!(h(r#"{"scope": {"domain": "x"}}"#), Hint::Two);
        assert_eq!(
            h(r#"{"confidence": 0.8, "scope": "global"}"#),
            Hint::Mixed(Generation::Two)
        );
        assert_eq!(h(r#"{"confidence": true}"#), Hint::None);
        assert_eq!(
            majority(&[Hint::One, Hint::Two, Hint::One]),
            Generation::One
        );
        assert_eq!(majority(&[Hint::None]), Generation::Two);
    }
}
