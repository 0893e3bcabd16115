//! Writing a changed playbook over the text it was read from: only the
//! entries that changed, came or went are written; every other byte of the
//! file stays as it was (its blank lines, headings, prose and the entries
//! that deviate from the seed's layout but did not change).
//!
//! The reader records each entry's span and each heading's; those spans
//! are where edits go. Changes the spans cannot place (a title, a heading,
//! an entry moved to another section or another position) give `None`,
//! and the caller writes the whole playbook.

use std::collections::{HashMap, HashSet};

use ace_exec::Out;
use ace_model::edit::{Edit, Edits};
use ace_model::{Before, Entry, LossEntry, Playbook, Section, Span};

use crate::line::is_blank;
use crate::writer::{entry_text, is_valid_id, write_valid};

/// Writes `after` over `src`, the text `before` was read from (by
/// [`crate::read`], whose spans its entries and sections carry). The
/// entries `before` does not list are taken as unchanged.
pub fn rewrite(src: &str, before: &Before, after: &Playbook) -> Option<(Edits, Vec<LossEntry>)> {
    let originals = &before.originals;
    let before = &before.shell;
    if before.title != after.title
        || before.description != after.description
        || after.sections.len() < before.sections.len()
        || after.sections[..before.sections.len()] != before.sections[..]
        || after.sections[before.sections.len()..]
            .iter()
            .any(|s| s.origin.0.is_some())
    {
        return None;
    }
    let newline = if src.contains("\r\n") { "\r\n" } else { "\n" };
    // The entries the change altered or removed, by where they stood.
    let mut original_at: HashMap<usize, usize> = HashMap::with_capacity(originals.len());
    for (i, e) in originals.iter().enumerate() {
        original_at.insert(e.origin.0?.start, i);
    }
    // A new entry goes where the playbook puts it: after the entry before
    // it in its section, or before the section's first entry. Sections are
    // hashed only where the section changes from one entry to the next.
    let mut first_of: HashMap<Option<&str>, Span> = HashMap::new();
    let mut previous: Option<Option<&str>> = None;
    for e in &after.entries {
        if let Some(span) = e.origin.0 {
            let section = e.section.as_deref();
            if previous != Some(section) {
                first_of.entry(section).or_insert(span);
                previous = Some(section);
            }
        }
    }
    let mut last_of: HashMap<Option<&str>, Span> = HashMap::new();
    // The run of kept entries of one section being walked, flushed into
    // `last_of` when the section changes or a new entry asks.
    let mut run: Option<(Option<&str>, Span)> = None;

    let mut losses = Vec::new();
    let mut edits: Vec<Edit> = Vec::new();
    let mut kept = vec![false; originals.len()];
    let mut last_start = None;
    // The points under a section's prose that have had their blank line.
    let mut parted: HashSet<usize> = HashSet::new();
    let mut new_section_entries: Vec<Entry> = Vec::new();
    for e in &after.entries {
        match e.origin.0 {
            Some(span) => {
                if last_start.is_some_and(|s| s >= span.start) {
                    return None;
                }
                last_start = Some(span.start);
                let section = e.section.as_deref();
                match &mut run {
                    Some((s, last)) if *s == section => *last = span,
                    _ => {
                        if let Some((s, last)) = run.replace((section, span)) {
                            last_of.insert(s, last);
                        }
                    }
                }
                let Some(&i) = original_at.get(&span.start) else {
                    continue;
                };
                let old = &originals[i];
                if old.section != e.section {
                    return None;
                }
                kept[i] = true;
                if e != old {
                    let text = render(e, newline, &mut losses)?;
                    edits.push(Edit::replace(span.start, span.end, text));
                }
            }
            None => {
                let section = e.section.as_deref();
                if let Some((s, last)) = run.take() {
                    last_of.insert(s, last);
                }
                if let (None, Some(next)) = (last_of.get(&section), first_of.get(&section)) {
                    let text = render(e, newline, &mut losses)?;
                    edits.push(Edit::insert(next.start, format!("{text}{newline}")));
                    continue;
                }
                let (point, after_prose) = match last_of.get(&section) {
                    Some(span) => (span.end, false),
                    None => match section {
                        Some(k) if before.section(k).is_some() => {
                            empty_section_end(src, before, k)?
                        }
                        Some(_) => {
                            new_section_entries.push(e.clone());
                            continue;
                        }
                        None => return None,
                    },
                };
                let text = render(e, newline, &mut losses)?;
                let lead = if after_prose && parted.insert(point) {
                    format!("{newline}{newline}")
                } else {
                    newline.to_owned()
                };
                edits.push(Edit::insert(point, format!("{lead}{text}")));
            }
        }
    }
    for (i, e) in originals.iter().enumerate() {
        if !kept[i] {
            let span = e.origin.0?;
            let (start, end) = whole_lines(src, span);
            edits.push(Edit::delete(start, end));
        }
    }
    let tail = new_sections(
        src,
        before,
        after,
        new_section_entries,
        newline,
        &mut losses,
    );
    if let Some(t) = tail {
        edits.push(Edit::insert(src.len(), t));
    }
    Some((Edits::new(src, edits)?, losses))
}

/// An entry as the seed writes it, without its last line ending, in the
/// file's line endings. `None` for an ID the format cannot hold: the whole
/// writer reassigns those.
fn render(e: &Entry, newline: &str, losses: &mut Vec<LossEntry>) -> Option<String> {
    if !is_valid_id(&e.id) {
        return None;
    }
    let mut text = entry_text(e, losses);
    if text.ends_with('\n') {
        text.pop();
    }
    Some(if newline == "\n" {
        text
    } else {
        text.replace('\n', newline)
    })
}

/// The bytes an entry's lines take, with one line ending: what removing
/// it removes.
fn whole_lines(src: &str, span: Span) -> (usize, usize) {
    let rest = &src[span.end..];
    if let Some(n) = ["\r\n", "\n"].iter().find(|n| rest.starts_with(**n)) {
        return (span.start, span.end + n.len());
    }
    // The last line of a file without a final newline: the line ending
    // before it goes instead.
    let head = &src[..span.start];
    let start = head
        .strip_suffix("\r\n")
        .or_else(|| head.strip_suffix('\n'))
        .map_or(span.start, str::len);
    (start, span.end)
}

/// Where the first entry of a section that has none goes: after the last
/// non-blank line under its heading, and whether that line is prose, which
/// the writer parts from entries by a blank line.
fn empty_section_end(src: &str, before: &Playbook, key: &str) -> Option<(usize, bool)> {
    let i = before.sections.iter().position(|s| s.key == key)?;
    let heading = before.sections[i].origin.0?;
    let next = match before.sections.get(i + 1) {
        Some(s) => s.origin.0?.start,
        None => src.len(),
    };
    let mut end = heading.end;
    let mut offset = heading.end;
    for line in src[heading.end..next].split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        if !is_blank(text) {
            end = offset + text.len();
        }
        offset += line.len();
    }
    Some((end, end != heading.end))
}

/// The sections the deltas added, with their entries, as the whole writer
/// writes them, parted from the file's end by a blank line.
fn new_sections(
    src: &str,
    before: &Playbook,
    after: &Playbook,
    entries: Vec<Entry>,
    newline: &str,
    losses: &mut Vec<LossEntry>,
) -> Option<String> {
    let sections: Vec<Section> = after.sections[before.sections.len()..].to_vec();
    if sections.is_empty() && entries.is_empty() {
        return None;
    }
    let part = Playbook {
        sections,
        entries,
        ..Playbook::default()
    };
    let mut out = Out::new();
    let report = write_valid(&part, &mut out);
    losses.extend(report.losses);
    let mut text = out.into_string();
    if newline != "\n" {
        text = text.replace('\n', newline);
    }
    let lead = if src.is_empty() || src.ends_with(&format!("{newline}{newline}")) {
        String::new()
    } else if src.ends_with(newline) {
        newline.to_owned()
    } else {
        format!("{newline}{newline}")
    };
    Some(format!("{lead}{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, section: &str, content: &str) -> Entry {
        Entry {
            id: id.into(),
            section: Some(section.into()),
            content: content.into(),
            helpful: Some(0),
            harmful: Some(0),
            ..Entry::default()
        }
    }

    /// Rewrites `src` after `change`, and checks that the result reads
    /// back as the changed playbook.
    fn spliced(src: &str, change: impl FnOnce(&mut Playbook)) -> Option<String> {
        let before = crate::read(src).playbook;
        let mut after = before.clone();
        change(&mut after);
        let (edits, _) = rewrite(src, &Before::of(&before), &after)?;
        let text = edits.text(src);
        let back = crate::read(&text).playbook;
        assert_eq!(back.entries, after.entries, "{text}");
        assert_eq!(back.sections.len(), after.sections.len(), "{text}");
        Some(text)
    }

    const SRC: &str = "# Playbook\n\nSome prose.\n\n## STRATEGIES\n[str-00001]   helpful=1 harmful=0 ::  odd spacing\n[str-00002] helpful=0 harmful=0 :: two\n\n\n## EMPTY\n\n## WITH PROSE\n\nProse under it.\n\n## LAST\n[lst-00001] no counters\n";

    #[test]
    fn a_changed_entry_is_the_only_line_written() {
        let out = spliced(SRC, |pb| pb.entries[1].helpful = Some(4)).unwrap();
        assert_eq!(
            out,
            SRC.replace("[str-00002] helpful=0", "[str-00002] helpful=4")
        );
        // A deviating line that did not change keeps its bytes.
        let out = spliced(SRC, |pb| pb.entries[0].harmful = Some(2)).unwrap();
        assert_eq!(
            out,
            SRC.replace(
                "[str-00001]   helpful=1 harmful=0 ::  odd spacing",
                "[str-00001] helpful=1 harmful=2 :: odd spacing"
            )
        );
    }

    #[test]
    fn new_entries_follow_their_section_s_last_entry() {
        let out = spliced(SRC, |pb| {
            pb.entries
                .insert(2, entry("str-00003", "strategies", "three"));
            pb.entries
                .insert(3, entry("str-00004", "strategies", "four"));
            pb.entries.push(entry("lst-00002", "last", "after"));
        })
        .unwrap();
        assert_eq!(
            out,
            SRC.replace(
                "two\n",
                "two\n[str-00003] helpful=0 harmful=0 :: three\n[str-00004] helpful=0 harmful=0 :: four\n"
            )
            .replace(
                "no counters\n",
                "no counters\n[lst-00002] helpful=0 harmful=0 :: after\n"
            )
        );
    }

    #[test]
    fn a_new_entry_the_playbook_puts_first_goes_before_the_section_s_first() {
        let out = spliced(SRC, |pb| {
            pb.entries
                .insert(0, entry("str-00000", "strategies", "zero"));
        })
        .unwrap();
        assert_eq!(
            out,
            SRC.replace(
                "[str-00001]   helpful",
                "[str-00000] helpful=0 harmful=0 :: zero\n[str-00001]   helpful"
            )
        );
    }

    #[test]
    fn an_empty_section_gets_its_first_entries_under_heading_or_prose() {
        let out = spliced(SRC, |pb| {
            pb.entries.insert(2, entry("emp-00001", "empty", "e1"));
            pb.entries.insert(3, entry("emp-00002", "empty", "e2"));
            pb.entries.insert(4, entry("wp-00001", "with_prose", "w1"));
            pb.entries.insert(5, entry("wp-00002", "with_prose", "w2"));
        })
        .unwrap();
        assert_eq!(
            out,
            SRC.replace(
                "## EMPTY\n",
                "## EMPTY\n[emp-00001] helpful=0 harmful=0 :: e1\n[emp-00002] helpful=0 harmful=0 :: e2\n"
            )
            .replace(
                "Prose under it.\n",
                "Prose under it.\n\n[wp-00001] helpful=0 harmful=0 :: w1\n[wp-00002] helpful=0 harmful=0 :: w2\n"
            )
        );
    }

    #[test]
    fn removed_entries_take_their_lines_with_them() {
        let out = spliced(SRC, |pb| {
            pb.entries.remove(0);
        })
        .unwrap();
        assert_eq!(
            out,
            SRC.replace("[str-00001]   helpful=1 harmful=0 ::  odd spacing\n", "")
        );
        // The last line of a file without a final newline.
        let src = "## S\n[s-1] a\n[s-2] b";
        let out = spliced(src, |pb| {
            pb.entries.pop();
        })
        .unwrap();
        assert_eq!(out, "## S\n[s-1] a");
    }

    #[test]
    fn line_endings_and_a_missing_final_newline_are_kept() {
        let src = "## S\r\n[s-1] a\r\n[s-2] b";
        let out = spliced(src, |pb| {
            pb.entries[0].helpful = Some(1);
            pb.entries[0].harmful = Some(0);
            pb.entries.push(entry("s-3", "s", "c\nmore"));
        })
        .unwrap();
        assert_eq!(
            out,
            "## S\r\n[s-1] helpful=1 harmful=0 :: a\r\n[s-2] b\r\n[s-3] helpful=0 harmful=0 :: c\r\nmore"
        );
    }

    #[test]
    fn new_sections_go_at_the_end_as_the_writer_writes_them() {
        let out = spliced(SRC, |pb| {
            let mut s = Section::new("new_one");
            s.title = Some("NEW ONE".into());
            pb.sections.push(s);
            pb.entries.push(entry("new-00001", "new_one", "fresh"));
        })
        .unwrap();
        assert_eq!(
            out,
            format!("{SRC}\n## NEW ONE\n[new-00001] helpful=0 harmful=0 :: fresh\n")
        );
    }

    #[test]
    fn changes_the_spans_cannot_place_are_left_to_the_whole_writer() {
        assert!(spliced(SRC, |pb| pb.title = Some("Other".into())).is_none());
        assert!(spliced(SRC, |pb| pb.sections[0].title = Some("X".into())).is_none());
        assert!(spliced(SRC, |pb| pb.entries.swap(0, 1)).is_none());
        assert!(spliced(SRC, |pb| pb.entries[0].section = Some("last".into())).is_none());
        // An ID the format cannot hold is reassigned by the whole writer.
        assert!(spliced(SRC, |pb| pb.entries.push(entry("nodigit", "last", "x"))).is_none());
    }
}
