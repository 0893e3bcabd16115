//! Line classification shared by the reader and the writer, so that the
//! writer knows exactly which lines the reader would take as structure.

pub(crate) use ace_mdtext::{comment_open, fence_open, heading, is_blank};

/// The start of an entry line: `[id]`, optionally as a list item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryHead<'a> {
    pub list_marker: bool,
    pub id: &'a str,
    /// Byte offset of `[` within the line.
    pub open: usize,
    /// Byte offset just after `]`.
    pub rest: usize,
}

/// An ID is letters, digits, `_`, `.` and `-`, starts with a letter or digit
/// and holds at least one digit. The digit keeps task boxes (`[x]`) and
/// bracketed words (`[TODO]`) from reading as entries.
pub(crate) fn is_valid_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
        && b.iter().any(u8::is_ascii_digit)
}

pub(crate) fn entry_head(line: &str) -> Option<EntryHead<'_>> {
    let b = line.as_bytes();
    let (list_marker, open) = match b {
        [b'-' | b'*' | b'+', b' ' | b'\t', ..] => {
            let skip = b[1..]
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t'))
                .count();
            (true, 1 + skip)
        }
        _ => (false, 0),
    };
    if b.get(open) != Some(&b'[') {
        return None;
    }
    let close = open + 1 + memchr::memchr(b']', &b[open + 1..])?;
    let id = &line[open + 1..close];
    if !is_valid_id(id) {
        return None;
    }
    match b.get(close + 1) {
        None | Some(b' ' | b'\t') => Some(EntryHead {
            list_marker,
            id,
            open,
            rest: close + 1,
        }),
        _ => None,
    }
}

/// What follows the `]` of an entry line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tail {
    pub helpful: Option<i64>,
    pub harmful: Option<i64>,
    pub neutral: Option<i64>,
    pub separator: bool,
    /// The byte range within the tail of the project a line of
    /// ace_claude_mcp's merged view names (`[finance]` before `::`).
    pub project: Option<(usize, usize)>,
    /// Byte offset of the content within the tail.
    pub content: usize,
    /// Offset, length and explanation of a counter token that does not parse.
    pub malformed: Option<(usize, usize, String)>,
}

const COUNTERS: [&str; 3] = ["helpful", "harmful", "neutral"];

fn counter_name(s: &str) -> Option<usize> {
    COUNTERS.iter().position(|name| {
        s.len() > name.len() && s.starts_with(name) && s.as_bytes()[name.len()] == b'='
    })
}

fn skip_ws(s: &str, at: usize) -> usize {
    at + s[at..]
        .bytes()
        .take_while(|&c| c == b' ' || c == b'\t')
        .count()
}

/// Parses `[helpful=N] [harmful=M] [neutral=K] [::] content`. Counters may come
/// in any order and any subset; the separator is optional.
pub(crate) fn parse_tail(tail: &str) -> Tail {
    let mut out = Tail::default();
    let mut at = skip_ws(tail, 0);
    loop {
        let s = &tail[at..];
        if let Some(rest) = s.strip_prefix("::") {
            out.separator = true;
            out.content = skip_ws(tail, tail.len() - rest.len());
            return out;
        }
        if let Some(len) = project_marker(s) {
            out.project = Some((at + 1, at + len - 1));
            at = skip_ws(tail, at + len);
            continue;
        }
        let Some(which) = counter_name(s) else {
            out.content = at;
            return out;
        };
        let token_len = s.find([' ', '\t']).unwrap_or(s.len());
        let token = &s[..token_len];
        let name = COUNTERS[which];
        let value = &token[name.len() + 1..];
        let slot = match which {
            0 => &mut out.helpful,
            1 => &mut out.harmful,
            _ => &mut out.neutral,
        };
        let problem = if slot.is_some() {
            Some(format!("`{name}` appears twice"))
        } else {
            match value.parse::<i64>() {
                Ok(v) if !value.starts_with('+') => {
                    *slot = Some(v);
                    None
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
                    ) =>
                {
                    Some(format!("`{token}`: the number is too large"))
                }
                _ => Some(format!(
                    "`{token}`: expected `{name}=` followed by a whole number"
                )),
            }
        };
        if let Some(msg) = problem {
            return Tail {
                content: skip_ws(tail, 0),
                malformed: Some((at, token_len, msg)),
                ..Tail::default()
            };
        }
        at = skip_ws(tail, at + token_len);
    }
}

/// The length of a project marker at the start of `s`: `[name]`, the
/// name anything but `]`, followed by white space and `::`, as
/// ace_claude_mcp's merged view writes one between the counters and the
/// separator (`helpful=N harmful=M [finance] :: text`).
pub(crate) fn project_marker(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('[')?;
    let close = rest.find(']')?;
    if close == 0 {
        return None;
    }
    let after = &rest[close + 1..];
    let gap = after.len() - after.trim_start_matches([' ', '\t']).len();
    (gap > 0 && after[gap..].starts_with("::")).then_some(close + 2)
}

/// Whether content starting with `s` would be taken for counters, a
/// project marker or a separator if written straight after the ID.
pub(crate) fn looks_like_tail_syntax(s: &str) -> bool {
    s.starts_with("::") || counter_name(s).is_some() || project_marker(s).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_marker_stands_before_the_separator() {
        let t = parse_tail(" helpful=2 harmful=0 [finance] :: Reconcile first");
        let tail = " helpful=2 harmful=0 [finance] :: Reconcile first";
        let (a, b) = t.project.unwrap();
        assert_eq!(&tail[a..b], "finance");
        assert_eq!(&tail[t.content..], "Reconcile first");
        assert!(t.separator);
        assert_eq!(t.helpful, Some(2));
        // Not before `::`: content.
        let t = parse_tail(" helpful=2 harmful=0 :: [finance] :: x");
        assert_eq!(t.project, None);
        assert!(parse_tail(" [] :: x").project.is_none());
        assert!(parse_tail(" [x]:: y").project.is_none());
        assert!(looks_like_tail_syntax("[ops] :: y"));
    }

    #[test]
    fn entry_heads() {
        let h = entry_head("[str-00001] helpful=1 harmful=0 :: x").unwrap();
        assert_eq!(
            (h.id, h.list_marker, h.open, h.rest),
            ("str-00001", false, 0, 11)
        );
        let h = entry_head("- [sr-001] text").unwrap();
        assert_eq!((h.id, h.list_marker, h.open), ("sr-001", true, 2));
        assert_eq!(entry_head("[s6]").unwrap().id, "s6");
        assert!(entry_head("[x] done").is_none());
        assert!(entry_head("- [ ] todo").is_none());
        assert!(entry_head("[link](http://x) 1").is_none());
        assert!(entry_head("[Bullet #1, helpful:0, harmful:0] x").is_none());
        assert!(entry_head("[{prefix}-{id}] x").is_none());
        assert!(entry_head(" [str-00001] x").is_none());
        assert!(entry_head("[str-00001]x").is_none());
        assert!(entry_head("[str-00001").is_none());
    }

    #[test]
    fn headings() {
        assert_eq!(heading("## A B"), Some((2, "A B")));
        assert_eq!(heading("# Create CSV"), Some((1, "Create CSV")));
        assert_eq!(heading("##"), Some((2, "")));
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("####### seven"), None);
    }

    #[test]
    fn tails() {
        let t = parse_tail(" helpful=5 harmful=0 :: Always verify");
        assert_eq!(
            (t.helpful, t.harmful, t.neutral, t.separator),
            (Some(5), Some(0), None, true)
        );
        assert_eq!(
            &" helpful=5 harmful=0 :: Always verify"[t.content..],
            "Always verify"
        );
        let t = parse_tail(" Make sure");
        assert_eq!((t.helpful, t.separator, t.content), (None, false, 1));
        let t = parse_tail(" :: text");
        assert_eq!((t.helpful, t.separator), (None, true));
        let t = parse_tail(" harmful=2 neutral=1 helpful=3 text");
        assert_eq!(
            (t.helpful, t.harmful, t.neutral, t.separator),
            (Some(3), Some(2), Some(1), false)
        );
        let t = parse_tail(" helpful=N harmful=M :: x");
        assert!(t.malformed.is_some());
        assert_eq!(t.content, 1);
        assert!(parse_tail(" helpful=1 helpful=2 :: x").malformed.is_some());
        assert!(parse_tail(" helpful=99999999999999999999 :: x")
            .malformed
            .unwrap()
            .2
            .contains("too large"));
        assert_eq!(parse_tail(" helpful=-2 :: x").helpful, Some(-2));
        assert!(parse_tail(" helpful=+2 :: x").malformed.is_some());
        assert_eq!(parse_tail("").content, 0);
        let t = parse_tail(" helpful=1 ::");
        assert_eq!((t.separator, t.content), (true, 13));
    }
}
