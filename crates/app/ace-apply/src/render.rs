//! What `ace-diff` prints of a [`Diff`]: text grouped by section, the
//! JSON of docs/diff.md, a textconv of one playbook (one line per entry),
//! and the difference as a delta in any dialect that ace-tools writes.

use anstyle::{AnsiColor, Style};
use serde_json::{json, Value};
use std::collections::HashMap;

use ace_model::{Entry, Playbook, Status};
use ace_registry::{DeltaDialect, DeltaWriteCtx, Format};

use crate::diff::{diff, diff_across, field_value, Diff, EntryDiff};

/// The difference of OLD (read as `formats.0`) and NEW: entry by entry
/// in one format; across formats, only the fields both hold are
/// compared (a field one format has no place for, or derives when
/// writing, is no difference).
pub fn difference(old: &Playbook, new: &Playbook, formats: (Format, Format)) -> Diff {
    if formats.0 == formats.1 {
        diff(old, new)
    } else {
        let mut d = diff_across(old, new);
        d.retain_fields(|f| both_hold(formats.0, formats.1, f));
        d
    }
}

/// Whether both formats hold `field`: fields a format has no place for,
/// or derives when writing, are not compared across formats.
pub fn both_hold(a: Format, b: Format, field: &str) -> bool {
    use ace_registry::capabilities::{entry_fields, Holds};
    [a, b]
        .into_iter()
        .all(|f| !matches!(entry_fields(f, &[field])[0], Some(Holds::No)))
}

/// The difference as a delta of `dialect`, for `ace-apply OLD`, and what
/// the dialect cannot say of it; `None` for a dialect ace-tools does not
/// write. `old` is the playbook it applies to, read as `format`; `note`
/// says why it was made.
pub fn as_delta(
    d: &Diff,
    dialect: &dyn DeltaDialect,
    old: &Playbook,
    format: Format,
    now: &str,
    note: &str,
) -> Option<(Value, Vec<String>)> {
    write_delta(&d.to_delta(), dialect, old, format, now, note)
}

/// `delta` in `dialect`, for `ace-apply OLD` (`old` read as `format`),
/// and what the dialect cannot say of it; `None` for a dialect ace-tools
/// does not write. `note` says why it was made.
pub fn write_delta(
    delta: &ace_model::delta::Delta,
    dialect: &dyn DeltaDialect,
    old: &Playbook,
    format: Format,
    now: &str,
    note: &str,
) -> Option<(Value, Vec<String>)> {
    let holds = |field: &str| both_hold(format, format, field);
    let ctx = DeltaWriteCtx {
        old,
        sections: &ace_model::mapping::SectionMap::default(),
        now,
        note,
        holds: &holds,
    };
    dialect.write(delta, &ctx)
}

/// The shape docs/diff.md documents.
pub fn as_json(d: &Diff, names: (&str, &str), formats: (Format, Format)) -> Value {
    let (mut added, mut removed, mut changed) = (0, 0, 0);
    let entries: Vec<Value> = d
        .entries
        .iter()
        .map(|c| match c {
            EntryDiff::Added(e) => {
                added += 1;
                json!({"change": "added", "id": e.id, "section": e.section, "entry": e})
            }
            EntryDiff::Removed(e) => {
                removed += 1;
                json!({"change": "removed", "id": e.id, "section": e.section, "entry": e})
            }
            EntryDiff::Changed {
                old,
                new,
                fields,
                helpful,
                harmful,
            } => {
                changed += 1;
                let fields: Vec<Value> = fields
                    .iter()
                    .map(|f| json!({"field": f, "old": field_value(old, f), "new": field_value(new, f)}))
                    .collect();
                json!({
                    "change": "changed",
                    "id": new.id,
                    "section": new.section,
                    "counters": {
                        "helpful": {"old": old.helpful, "new": new.helpful, "delta": helpful},
                        "harmful": {"old": old.harmful, "new": new.harmful, "delta": harmful},
                    },
                    "fields": fields,
                })
            }
        })
        .collect();
    json!({
        "old": {"file": names.0, "format": formats.0.name()},
        "new": {"file": names.1, "format": formats.1.name()},
        "same": d.is_empty(),
        "summary": {"added": added, "removed": removed, "changed": changed},
        "entries": entries,
    })
}

/// One line for an entry: what `--textconv` prints, and what the text
/// output shows of an added or removed one.
pub fn entry_line(e: &Entry) -> String {
    let mut s = String::new();
    if !e.id.is_empty() {
        s.push_str(&format!("[{}] ", one_line(&e.id)));
    }
    if let Some(h) = e.helpful {
        s.push_str(&format!("helpful={h} "));
    }
    if let Some(h) = e.harmful {
        s.push_str(&format!("harmful={h} "));
    }
    if let Some(st) = &e.status {
        if *st != Status::Active {
            s.push_str(&format!("({}) ", status_name(st)));
        }
    }
    s.push_str(":: ");
    s.push_str(&one_line(&e.content));
    s
}

fn status_name(st: &Status) -> String {
    serde_json::to_value(st)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Text on one line: line breaks as `\n` (`\r`), so that a multi-line
/// entry is still one line of a textconv, and any other character that
/// would break the line or hide text shown as `[U+XXXX]`
/// ([`ace_model::controls::one_line`]).
fn one_line(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace("\r\n", "\\n")
        .replace('\n', "\\n")
        .replace('\r', "\\r");
    ace_model::controls::one_line(&escaped).into_owned()
}

/// One line per entry under its section's heading, in the playbook's
/// order: a rendering that line diffs compare entry by entry.
pub fn textconv(pb: &Playbook) -> String {
    let mut out = String::new();
    if let Some(t) = &pb.title {
        out.push_str(&format!("# {}\n", one_line(t)));
    }
    let mut section: Option<Option<&str>> = None;
    let sections = pb.sections_by_key();
    for e in &pb.entries {
        let s = e.section.as_deref();
        if section != Some(s) {
            let title = s
                .and_then(|k| sections.get(k))
                .map_or(s.unwrap_or("(no section)"), |sec| sec.display_title());
            out.push_str(&format!("## {}\n", one_line(title)));
            section = Some(s);
        }
        out.push_str(&entry_line(e));
        out.push('\n');
    }
    out
}

/// `text` in `style` when `color` is set.
fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        format!("{}{text}{}", style.render(), style.render_reset())
    } else {
        text.to_owned()
    }
}

const HEADER: Style = Style::new().bold();
const SECTION: Style = AnsiColor::Cyan.on_default();
const ADDED: Style = AnsiColor::Green.on_default();
const REMOVED: Style = AnsiColor::Red.on_default();
const CHANGED: Style = AnsiColor::Yellow.on_default();

/// Entries grouped by section (the new playbook's order of sections, then
/// the old one's), each a line: `+` added, `-` removed, `~` changed with
/// its counters and fields below it.
pub fn as_text(
    d: &Diff,
    names: (&str, &str),
    new: &Playbook,
    old: &Playbook,
    color: bool,
) -> String {
    let mut out = String::new();
    out.push_str(&paint(
        &format!("--- {}\n+++ {}\n", one_line(names.0), one_line(names.1)),
        HEADER,
        color,
    ));
    // The changes of each section, the sections in the order of their
    // first change.
    let mut order: Vec<(Option<&str>, Vec<&EntryDiff>)> = Vec::new();
    let mut at: HashMap<Option<&str>, usize> = HashMap::new();
    for c in &d.entries {
        let s = c.entry().section.as_deref();
        let i = *at.entry(s).or_insert_with(|| {
            order.push((s, Vec::new()));
            order.len() - 1
        });
        order[i].1.push(c);
    }
    let (new_at, old_at) = (new.section_places(), old.section_places());
    let rank = |s: Option<&str>| -> usize {
        let i = s.and_then(|k| new_at.get(k).copied());
        let j = s.and_then(|k| old_at.get(k).copied());
        i.or(j.map(|j| j + new.sections.len()))
            .unwrap_or(usize::MAX)
    };
    order.sort_by_key(|(s, _)| rank(*s));
    for (s, changes) in order {
        let title = s
            .and_then(|k| match new_at.get(k) {
                Some(&i) => Some(&new.sections[i]),
                None => old_at.get(k).map(|&i| &old.sections[i]),
            })
            .map_or(s.unwrap_or("(no section)"), |sec| sec.display_title());
        out.push_str(&paint(&format!("## {}\n", one_line(title)), SECTION, color));
        for c in changes {
            match c {
                EntryDiff::Added(e) => {
                    out.push_str(&paint(&format!("+ {}\n", entry_line(e)), ADDED, color))
                }
                EntryDiff::Removed(e) => {
                    out.push_str(&paint(&format!("- {}\n", entry_line(e)), REMOVED, color))
                }
                EntryDiff::Changed {
                    old, new, fields, ..
                } => {
                    let name = one_line(if new.id.is_empty() {
                        &new.content
                    } else {
                        &new.id
                    });
                    out.push_str(&paint(&format!("~ [{name}]\n"), CHANGED, color));
                    for (label, a, b) in [
                        ("helpful", old.helpful, new.helpful),
                        ("harmful", old.harmful, new.harmful),
                    ] {
                        if a != b {
                            let show = |v: Option<i64>| v.map_or("-".to_owned(), |v| v.to_string());
                            out.push_str(&format!("    {label}: {} -> {}\n", show(a), show(b)));
                        }
                    }
                    for f in fields
                        .iter()
                        .filter(|f| !matches!(f.as_str(), "helpful" | "harmful"))
                    {
                        let show = |v: Value| match v {
                            Value::String(s) => format!("{:?}", one_line(&s)),
                            Value::Null => "-".to_owned(),
                            other => other.to_string(),
                        };
                        let (was, now) = (field_value(old, f), field_value(new, f));
                        // A text that moved from another field (a skill's
                        // issue, once its content, beside the insight it
                        // gained) is said to have moved, not to be new.
                        let moved = match (&was, &now) {
                            (Value::Null, Value::String(_)) => fields
                                .iter()
                                .find(|g| *g != f && field_value(old, g) == now)
                                .map(|g| format!(" (was {})", one_line(g))),
                            _ => None,
                        };
                        out.push_str(&format!(
                            "    {}: {} -> {}{}\n",
                            ace_model::controls::line(&one_line(f)),
                            paint(&show(was), REMOVED, color),
                            paint(&show(now), ADDED, color),
                            moved.unwrap_or_default()
                        ));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_the_ansi_codes_terminals_know() {
        assert_eq!(paint("x", HEADER, true), "\x1b[1mx\x1b[0m");
        assert_eq!(paint("x", SECTION, true), "\x1b[36mx\x1b[0m");
        assert_eq!(paint("x", ADDED, true), "\x1b[32mx\x1b[0m");
        assert_eq!(paint("x", REMOVED, true), "\x1b[31mx\x1b[0m");
        assert_eq!(paint("x", CHANGED, true), "\x1b[33mx\x1b[0m");
        assert_eq!(paint("x", CHANGED, false), "x");
    }
}
