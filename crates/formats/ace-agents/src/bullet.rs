//! One bullet line and its provenance comment: parsing and the seed's
//! rendering. Reader and writer share these so that "would a rewrite change
//! this line" is a plain string comparison.

use nom::bytes::complete::{tag, take_while};
use nom::character::complete::{anychar, char, satisfy};
use nom::combinator::{all_consuming, not, recognize};
use nom::multi::{many0_count, separated_list1};
use nom::sequence::separated_pair;
use nom::Parser;

/// A parsed `[Bullet #id, helpful:N, harmful:M, ...] Content` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bullet<'a> {
    pub list_marker: bool,
    pub id: &'a str,
    pub helpful: Option<i64>,
    pub harmful: Option<i64>,
    pub aggregated: Option<u64>,
    /// Bracket fields the seed does not define, kept verbatim.
    pub other_fields: Vec<&'a str>,
    pub content: &'a str,
    /// Byte offset of `[` in the line.
    pub open: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Parsed<'a> {
    Bullet(Bullet<'a>),
    /// Starts like a bullet but does not parse: offset in the line and why.
    Malformed(usize, String),
    NotBullet,
}

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')
}

/// Offset of `[Bullet` after optional indentation and one list marker.
fn bullet_open(line: &str) -> Option<(usize, bool)> {
    let b = line.as_bytes();
    let mut at = b.iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
    let mut list_marker = false;
    if matches!(b.get(at), Some(b'-' | b'*' | b'+')) && matches!(b.get(at + 1), Some(b' ' | b'\t'))
    {
        list_marker = true;
        at += 1;
        at += b[at..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
    }
    let rest = line[at..].strip_prefix("[Bullet")?;
    rest.starts_with([' ', '#']).then_some((at, list_marker))
}

fn parse_count(field: &str, name: &str) -> Option<Result<i64, String>> {
    let rest = field.strip_prefix(name)?.trim_start();
    let value = rest
        .strip_prefix(':')
        .or_else(|| rest.strip_prefix('='))?
        .trim();
    Some(
        value
            .parse::<i64>()
            .map_err(|_| format!("`{name}` must be a whole number, found `{value}`")),
    )
}

fn parse_aggregated(field: &str) -> Option<Result<u64, String>> {
    let rest = field.strip_prefix("Aggregated from ")?;
    let number = rest
        .strip_suffix(" instances")
        .or_else(|| rest.strip_suffix(" instance"))?;
    Some(
        number
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("`Aggregated from` needs a count, found `{number}`")),
    )
}

pub(crate) fn parse(line: &str) -> Parsed<'_> {
    let Some((open, list_marker)) = bullet_open(line) else {
        return Parsed::NotBullet;
    };
    let after = open + "[Bullet".len();
    let Some(close_rel) = line[after..].find(']') else {
        return Parsed::Malformed(open, "expected `]` to close the bullet's fields".into());
    };
    let close = after + close_rel;
    let inner = &line[after..close];
    let Some(hash_rel) = inner.find('#').filter(|&h| inner[..h].trim().is_empty()) else {
        return Parsed::Malformed(after, "expected ` #id` after `[Bullet`".into());
    };
    let mut fields = inner[hash_rel + 1..].split(',');
    let id = fields.next().unwrap_or("").trim();
    if id.is_empty() || !id.bytes().all(is_id_char) {
        return Parsed::Malformed(
            after + hash_rel,
            format!("expected an ID of letters, digits, `-`, `_` or `.` after `#`, found `{id}`"),
        );
    }
    let mut bullet = Bullet {
        list_marker,
        id,
        helpful: None,
        harmful: None,
        aggregated: None,
        other_fields: Vec::new(),
        content: "",
        open,
    };
    for raw in fields {
        let field = raw.trim();
        let at =
            raw.as_ptr() as usize - line.as_ptr() as usize + (raw.len() - raw.trim_start().len());
        if let Some(v) = parse_count(field, "helpful") {
            match v {
                Ok(n) => bullet.helpful = Some(n),
                Err(msg) => return Parsed::Malformed(at, msg),
            }
        } else if let Some(v) = parse_count(field, "harmful") {
            match v {
                Ok(n) => bullet.harmful = Some(n),
                Err(msg) => return Parsed::Malformed(at, msg),
            }
        } else if let Some(v) = parse_aggregated(field) {
            match v {
                Ok(n) => bullet.aggregated = Some(n),
                Err(msg) => return Parsed::Malformed(at, msg),
            }
        } else if !field.is_empty() {
            bullet.other_fields.push(field);
        }
    }
    let rest = &line[close + 1..];
    bullet.content = rest.strip_prefix(' ').unwrap_or(rest);
    Parsed::Bullet(bullet)
}

/// The seed's form of a bullet line (no line ending), appended to `out`:
/// the reader renders every bullet it reads, so this appends in place
/// rather than formatting a new string.
fn render_into(
    out: &mut String,
    id: &str,
    helpful: i64,
    harmful: i64,
    aggregated: Option<u64>,
    other_fields: &[String],
    content: &str,
) {
    let mut num = itoa::Buffer::new();
    out.push_str("[Bullet #");
    out.push_str(id);
    out.push_str(", helpful:");
    out.push_str(num.format(helpful));
    out.push_str(", harmful:");
    out.push_str(num.format(harmful));
    if let Some(n) = aggregated {
        out.push_str(", Aggregated from ");
        out.push_str(num.format(n));
        out.push_str(" instances");
    }
    for f in other_fields {
        out.push_str(", ");
        out.push_str(f);
    }
    out.push_str("] ");
    out.push_str(content);
}

/// Keys of the curator spec's provenance comment, in the seed's order.
pub(crate) const PROVENANCE_KEYS: [&str; 4] = ["deltaId", "beadsId", "createdAt", "hash"];

/// `key` of a provenance pair: an ASCII letter, then letters, digits, `_`.
fn key(i: &str) -> nom::IResult<&str, &str> {
    let rest = take_while(|c: char| c.is_ascii_alphanumeric() || c == '_');
    recognize((satisfy(|c| c.is_ascii_alphabetic()), rest)).parse(i)
}

/// `<!-- deltaId=..., beadsId=..., createdAt=..., hash=... -->` as ordered
/// pairs. A value may itself contain `, `: it runs to the next `, key=`.
/// `None` unless at least one seed key is present, so that an ordinary
/// comment is never taken for provenance.
pub(crate) fn parse_provenance(line: &str) -> Option<Vec<(&str, &str)>> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    let value = recognize(many0_count((not((tag(", "), key, char('='))), anychar)));
    let pair = separated_pair(key, char('='), value);
    let (_, pairs) = all_consuming(separated_list1(tag(", "), pair))
        .parse(inner)
        .ok()?;
    pairs
        .iter()
        .any(|(k, _)| PROVENANCE_KEYS.contains(k))
        .then_some(pairs)
}

pub(crate) fn render_provenance(pairs: &[(&str, &str)]) -> String {
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("<!-- {} -->", body.join(", "))
}

/// The seed's rendering of an entry: the bullet line and, when the entry has
/// provenance, the comment line, each ending in `\n`. The writer sanitises
/// what cannot be written before it calls this; the reader compares the
/// result with the bytes it read.
pub(crate) fn render_entry(e: &ace_model::Entry) -> String {
    use serde_json::Value;
    let aggregated = e
        .extra
        .get(ace_model::keys::AGGREGATED_FROM)
        .and_then(Value::as_u64);
    let other: Vec<String> = match e.extra.get(crate::BULLET_FIELDS_KEY) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let mut out = String::with_capacity(48 + e.id.len() + e.content.len());
    render_into(
        &mut out,
        &e.id,
        e.helpful.unwrap_or(0),
        e.harmful.unwrap_or(0),
        aggregated,
        &other,
        &e.content,
    );
    out.push('\n');
    if let Some(p) = &e.provenance {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (k, v) in PROVENANCE_KEYS
            .iter()
            .zip([&p.delta_id, &p.beads_id, &p.created_at, &p.hash])
        {
            if let Some(v) = v {
                pairs.push((k, v.clone()));
            }
        }
        for (k, v) in &p.extra {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            pairs.push((k, v));
        }
        if !pairs.is_empty() {
            let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
            out.push_str(&render_provenance(&borrowed));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bullet(line: &str) -> Bullet<'_> {
        match parse(line) {
            Parsed::Bullet(b) => b,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn seed_form_and_aggregated_field() {
        let b = bullet(
            "[Bullet #43ea43ee, helpful:0, harmful:2, Aggregated from 2 instances] Generic error",
        );
        assert_eq!(
            (b.id, b.helpful, b.harmful, b.aggregated),
            ("43ea43ee", Some(0), Some(2), Some(2))
        );
        assert_eq!(b.content, "Generic error");
        let mut line = String::new();
        render_into(&mut line, b.id, 0, 2, b.aggregated, &[], b.content);
        assert_eq!(
            line,
            "[Bullet #43ea43ee, helpful:0, harmful:2, Aggregated from 2 instances] Generic error"
        );
    }

    #[test]
    fn lenient_shapes() {
        let b = bullet("- [Bullet #47, helpful:1, harmful:0] dashed");
        assert!(b.list_marker);
        assert_eq!(b.id, "47");
        let b = bullet("[Bullet #test-good-1] no counters");
        assert_eq!((b.helpful, b.harmful), (None, None));
        let b = bullet("[Bullet #x1, harmful:1, helpful:2, source:manual]tight");
        assert_eq!(
            (b.helpful, b.harmful, b.content),
            (Some(2), Some(1), "tight")
        );
        assert_eq!(b.other_fields, ["source:manual"]);
    }

    #[test]
    fn quoted_and_broken_lines() {
        assert_eq!(
            parse("> [Bullet #abc123, helpful:0, harmful:0] quoted"),
            Parsed::NotBullet
        );
        assert_eq!(parse("[Bulletin] news"), Parsed::NotBullet);
        assert_eq!(
            parse("[Bullet id] x"),
            Parsed::Malformed(7, "expected ` #id` after `[Bullet`".into())
        );
        assert!(matches!(
            parse("[Bullet #a b, helpful:0] x"),
            Parsed::Malformed(8, _)
        ));
        assert!(
            matches!(parse("[Bullet #ab, helpful:many] x"), Parsed::Malformed(13, m) if m.contains("whole number"))
        );
        assert!(matches!(
            parse("[Bullet #ab, helpful:1"),
            Parsed::Malformed(0, _)
        ));
    }

    #[test]
    fn provenance_comments() {
        let p = parse_provenance("<!-- deltaId=d-1, beadsId=bead-42, createdAt=2025-01-15T10:30:00Z, hash=build::run tests, then lint -->").unwrap();
        assert_eq!(p[3], ("hash", "build::run tests, then lint"));
        // A piece that is no `key=` belongs to the value before it.
        assert_eq!(
            parse_provenance("<!-- hash=a, b c=d, , x=1 -->"),
            Some(vec![("hash", "a, b c=d, "), ("x", "1")])
        );
        assert_eq!(
            parse_provenance("<!-- Curator adds patterns here -->"),
            None
        );
        assert_eq!(parse_provenance("<!-- note=x -->"), None);
        assert_eq!(
            render_provenance(&p),
            "<!-- deltaId=d-1, beadsId=bead-42, createdAt=2025-01-15T10:30:00Z, hash=build::run tests, then lint -->"
        );
    }
}
