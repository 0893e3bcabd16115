//! Control characters in a playbook's text. JSON, YAML and TRON write
//! them escaped; a markdown file has no escape for them, and a raw NUL
//! makes the file binary, which every reader (ours included) refuses. A
//! writer of such a file writes each as the visible text `\u0000` instead,
//! and says so (ACE102).

use std::borrow::Cow;

use serde_json::Value;

use crate::{rules, Entry, LossEntry, Playbook, Status};

/// A character a text file should not hold raw: a C0 control other than
/// tab, line feed and carriage return, or DEL.
pub fn is_raw_control(c: char) -> bool {
    (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{7f}'
}

/// `s` as a terminal may show it: a control character (an escape
/// sequence would be run by the terminal) and a character that reorders
/// or hides text (ACE090) written as `[U+XXXX]`. Tab, line feed and
/// carriage return stay: messages are laid out with them.
pub fn visible(s: &str) -> Cow<'_, str> {
    shown(s, false)
}

/// `s` for one line of output: as [`visible`] shows it, and a line break
/// (`\n`, `\r`, U+2028, U+2029) shown as `[U+XXXX]` too, and the `#` that
/// makes `##[` (GitHub's legacy workflow command, obeyed anywhere in a line
/// of a CI log). Every line a tool prints is its own: a file name or a
/// section name holding a line break would start the next line with text
/// of the file's choosing, a forged finding or a command to the runner
/// reading the log (`::stop-commands::`, `::add-mask::`, `##[error]`).
pub fn one_line(s: &str) -> Cow<'_, str> {
    let shown = shown(s, true);
    if !shown.contains("##[") {
        return shown;
    }
    // In a run of `#` before `[`, every `#` after the first is shown, so
    // that no `##[` is left (`###[` too).
    let mut out = String::with_capacity(shown.len() + 8);
    let mut hashes = 0;
    for c in shown.chars() {
        match c {
            '#' => hashes += 1,
            _ => {
                let tail = if c == '[' { hashes.min(1) } else { hashes };
                out.push_str(&"#".repeat(tail));
                out.push_str(&"[U+0023]".repeat(hashes - tail));
                hashes = 0;
                out.push(c);
            }
        }
    }
    out.push_str(&"#".repeat(hashes));
    out.into()
}

/// A whole line of output, `s` shown as [`one_line`] shows it, and, where
/// it would start with `::` (GitHub's workflow command, after any white
/// space), that first `:` as `[U+003A]`: a file named `::stop-commands::x`
/// at the start of a finding's line.
pub fn line(s: &str) -> Cow<'_, str> {
    let shown = one_line(s);
    let lead = shown.len() - shown.trim_start().len();
    if !shown[lead..].starts_with("::") {
        return shown;
    }
    format!("{}[U+003A]{}", &shown[..lead], &shown[lead + 1..]).into()
}

/// Appends `line` to `out` as one line of output ([`line`]) and a line
/// end.
pub fn push_line(out: &mut String, args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    out.push_str(&line(&text));
    out.push('\n');
}

fn shown(s: &str, breaks: bool) -> Cow<'_, str> {
    let shown = |c: char| {
        is_raw_control(c)
            || ('\u{80}'..'\u{a0}').contains(&c)
            || hidden(c).is_some()
            || (breaks && matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
    };
    if !s.chars().any(shown) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if shown(c) {
            out.push_str(&format!("[U+{:04X}]", c as u32));
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// What a character that hides text is, when it is one: a bidirectional
/// control, which reorders what is shown (Trojan Source, CVE-2021-42574),
/// a Unicode tag character, which no one sees but a model reads (hidden
/// instructions), or an invisible format character. Joiners and the
/// one-character direction marks are left alone: scripts and emoji
/// sequences use them as they should be used.
pub fn hidden(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{e0000}'..='\u{e007f}' => "a TAG character",
        '\u{200b}' => "ZERO WIDTH SPACE",
        '\u{2060}' => "WORD JOINER",
        '\u{2061}'..='\u{2064}' => "an invisible operator",
        '\u{feff}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{180e}' => "MONGOLIAN VOWEL SEPARATOR",
        _ => return None,
    })
}

/// The first character of `s` that hides text ([`hidden`]): its index in
/// characters, the character and its name.
pub fn first_hidden(s: &str) -> Option<(usize, char, &'static str)> {
    // Every such character is three or four bytes long and starts with
    // 0xE1, 0xE2, 0xEF or 0xF3: text without these bytes has none.
    if !s.bytes().any(|b| matches!(b, 0xe1 | 0xe2 | 0xef | 0xf3)) {
        return None;
    }
    s.chars()
        .enumerate()
        .find_map(|(i, c)| hidden(c).map(|name| (i, c, name)))
}

fn has_control(s: &str) -> bool {
    // Every such character is one byte below 0x20, or 0x7f.
    s.bytes()
        .any(|b| (b < b' ' && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
}

/// `s` with each raw control character written as `\uXXXX`.
pub fn escaped(s: &str) -> Cow<'_, str> {
    if !has_control(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_raw_control(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn value_has_control(v: &Value) -> bool {
    match v {
        Value::String(s) => has_control(s),
        Value::Array(a) => a.iter().any(value_has_control),
        Value::Object(o) => o
            .iter()
            .any(|(k, v)| has_control(k) || value_has_control(v)),
        _ => false,
    }
}

fn escape_value(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Cow::Owned(e) = escaped(s) {
                *s = e;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(escape_value),
        Value::Object(o) => {
            let old = std::mem::take(o);
            for (k, mut v) in old {
                escape_value(&mut v);
                o.insert(escaped(&k).into_owned(), v);
            }
        }
        _ => {}
    }
}

/// Whether any text of `e` holds a raw control character. The common
/// fields are looked at directly; an entry with rarer fields is looked at
/// whole only when it has any.
fn entry_has_control(e: &Entry) -> bool {
    if has_control(&e.id)
        || has_control(&e.content)
        || e.section.as_deref().is_some_and(has_control)
        || e.kind.as_deref().is_some_and(has_control)
    {
        return true;
    }
    let Some(rare) = e.rare.as_deref() else {
        return false;
    };
    // A skill or vAgenda entry has these on every entry: they are looked
    // at directly, as serialising each entry was most of the time of a
    // conversion of 10,000 skills. Rarer ones send the entry through serde.
    let texts = [&rare.created_at, &rare.updated_at];
    texts.iter().any(|t| t.as_deref().is_some_and(has_control))
        || rare.tags.iter().flatten().any(|t| has_control(t))
        || matches!(&rare.status, Some(Status::Other(s)) if has_control(s))
        || rare
            .extra
            .iter()
            .any(|(k, v)| has_control(k) || value_has_control(v))
        || ((rare.rarer.is_some() || rare.evidence.as_ref().is_some_and(|v| !v.is_empty()))
            && serde_json::to_value(e)
                .map(|v| value_has_control(&v))
                .unwrap_or(false))
}

/// `pb` with every raw control character in its text written as `\uXXXX`,
/// and an ACE102 loss for each entry (or the playbook's own text) that had
/// one; `None` when nothing has one, which is the common case and costs a
/// scan of the common fields only.
pub fn escape_controls(pb: &Playbook) -> Option<(Playbook, Vec<LossEntry>)> {
    let in_sections = pb.sections.iter().any(|s| {
        has_control(&s.key)
            || s.title.as_deref().is_some_and(has_control)
            || s.prefix.as_deref().is_some_and(has_control)
    });
    let entries: Vec<usize> = pb
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| entry_has_control(e))
        .map(|(i, _)| i)
        .collect();
    if !in_sections && entries.is_empty() {
        return None;
    }
    let why =
        "a control character, which this text format cannot hold raw, is written as `\\uXXXX`";
    let mut out = pb.clone();
    let mut losses = Vec::new();
    if in_sections {
        for s in &mut out.sections {
            s.key = escaped(&s.key).into_owned();
            for t in [&mut s.title, &mut s.prefix].into_iter().flatten() {
                *t = escaped(t).into_owned();
            }
        }
        for e in &mut out.entries {
            if let Some(sec) = &mut e.section {
                *sec = escaped(sec).into_owned();
            }
        }
        losses.push(LossEntry::new(&rules::ALTERED_TEXT, None, "sections", why));
    }
    for i in entries {
        let e = &mut out.entries[i];
        let id = e.id.clone();
        let mut v = match serde_json::to_value(&*e) {
            Ok(v) => v,
            Err(_) => continue,
        };
        escape_value(&mut v);
        if let Ok(fixed) = serde_json::from_value::<Entry>(v) {
            let origin = std::mem::take(&mut e.origin);
            *e = fixed;
            e.origin = origin;
        }
        losses.push(LossEntry::new(&rules::ALTERED_TEXT, Some(&id), "text", why));
    }
    Some((out, losses))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_shows_line_breaks_and_visible_keeps_them() {
        let s = "a\n::x\r\u{2028}b\u{1b}\tc";
        assert_eq!(one_line(s), "a[U+000A]::x[U+000D][U+2028]b[U+001B]\tc");
        assert_eq!(visible(s), "a\n::x\r\u{2028}b[U+001B]\tc");
        assert!(matches!(one_line("plain, é ## [x] #[y]"), Cow::Borrowed(_)));
        assert_eq!(one_line("see ##[error]x"), "see #[U+0023][error]x");
        assert_eq!(one_line("###[e] ## # ##"), "#[U+0023][U+0023][e] ## # ##");
        assert_eq!(
            line("  ::stop-commands::t.md:1:1"),
            "  [U+003A]:stop-commands::t.md:1:1"
        );
        assert_eq!(line("a ::b"), "a ::b");
        let mut out = String::new();
        push_line(&mut out, format_args!("{}: {}", "f\nx", 1));
        push_line(&mut out, format_args!("{}: {}", "::f", 2));
        assert_eq!(out, "f[U+000A]x: 1\n[U+003A]:f: 2\n");
    }

    #[test]
    fn hidden_characters_are_found_and_joiners_are_not() {
        assert_eq!(
            first_hidden("ok \u{202e}evil"),
            Some((3, '\u{202e}', "RIGHT-TO-LEFT OVERRIDE"))
        );
        assert_eq!(
            first_hidden("x\u{e0041}").map(|h| h.2),
            Some("a TAG character")
        );
        assert_eq!(first_hidden("👩\u{200d}💻 caf\u{e9} \u{200f}"), None);
        assert_eq!(first_hidden("plain — text"), None);
    }

    #[test]
    fn controls_are_written_visibly_and_reported() {
        let mut pb = Playbook::default();
        let mut e = Entry {
            id: "s-1".into(),
            content: "a\u{0}b\tc\nd\u{1b}[31m".into(),
            ..Entry::default()
        };
        e.extra
            .insert("justification", Value::String("x\u{7}".into()));
        pb.entries.push(e);
        pb.entries.push(Entry {
            id: "s-2".into(),
            content: "plain".into(),
            ..Entry::default()
        });
        let (out, losses) = escape_controls(&pb).unwrap();
        assert_eq!(out.entries[0].content, "a\\u0000b\tc\nd\\u001b[31m");
        assert_eq!(out.entries[0].extra["justification"], "x\\u0007");
        assert_eq!(out.entries[1], pb.entries[1]);
        assert_eq!(losses.len(), 1);
        assert_eq!(losses[0].code, "ACE102");
        assert!(escape_controls(&out).is_none());
    }

    /// A control character in any of an entry's rarer texts is found,
    /// whether those are looked at directly or through serde.
    #[test]
    fn controls_in_each_rare_field_are_found() {
        let plain = || Entry {
            id: "s-1".into(),
            content: "plain".into(),
            ..Entry::default()
        };
        let mut base = plain();
        base.created_at = Some("t".into());
        base.tags = Some(vec!["a".into()]);
        base.extra.insert("k", serde_json::json!({"x": ["y"]}));
        assert!(!entry_has_control(&base));
        let edits: [fn(&mut Entry); 8] = [
            |e| e.created_at = Some("t\u{1}".into()),
            |e| e.updated_at = Some("\u{7f}".into()),
            |e| e.tags = Some(vec!["a".into(), "b\u{2}".into()]),
            |e| e.status = Some(Status::Other("x\u{3}".into())),
            |e| _ = e.extra.insert("k\u{4}", Value::Null),
            |e| _ = e.extra.insert("k", serde_json::json!({"x": ["y\u{5}"]})),
            |e| e.title = Some("\u{6}".into()),
            |e| e.links = Some(vec!["\u{8}".into()]),
        ];
        for (i, edit) in edits.iter().enumerate() {
            let mut e = base.clone();
            edit(&mut e);
            assert!(entry_has_control(&e), "edit {i}");
        }
    }
}
