use std::collections::HashMap;

use ace_model::normalize::section_key;
use ace_model::{ids, rules, Diagnostic, Entry, Origin, Playbook, ReadOutput, Section, Span};
use serde_json::Value;

use crate::line::{comment_open, entry_head, fence_open, heading, is_blank, parse_tail};
use ace_model::keys::HEADING_LEVEL as HEADING_LEVEL_KEY;

/// One physical line. `start..end` excludes the line ending.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    cr: bool,
    newline: bool,
}

fn split_lines(src: &str, from: usize) -> Vec<Line<'_>> {
    let bytes = src.as_bytes();
    let mut lines = Vec::with_capacity(bytes.len() / 64 + 1);
    let mut start = from;
    for nl in memchr::memchr_iter(b'\n', &bytes[from..]) {
        let nl = from + nl;
        let cr = nl > start && bytes[nl - 1] == b'\r';
        let end = if cr { nl - 1 } else { nl };
        lines.push(Line {
            text: &src[start..end],
            start,
            end,
            cr,
            newline: true,
        });
        start = nl + 1;
    }
    if start < bytes.len() {
        lines.push(Line {
            text: &src[start..],
            start,
            end: bytes.len(),
            cr: false,
            newline: false,
        });
    }
    lines
}

/// What the previous non-blank line was, for layout checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    Nothing,
    Title,
    Heading,
    Entry,
    Text,
}

/// Where stray text goes: the playbook's description or a section's.
struct TextSink {
    blank_since_text: bool,
}

impl TextSink {
    fn push(&mut self, slot: &mut Option<String>, line: &str, keep_gap: bool) {
        match slot {
            None => *slot = Some(line.to_owned()),
            Some(s) => {
                s.push('\n');
                if keep_gap && self.blank_since_text {
                    s.push('\n');
                }
                s.push_str(line);
            }
        }
        self.blank_since_text = false;
    }
}

struct Reader<'a> {
    lines: Vec<Line<'a>>,
    pb: Playbook,
    diags: Vec<Diagnostic>,
    current: Option<usize>,
    entry_counts: Vec<usize>,
    prefixes: Vec<SharedPrefix<'a>>,
    /// An entry head found while scanning for continuation lines, so that
    /// the main loop does not parse the same line twice.
    pending_head: Option<(usize, crate::line::EntryHead<'a>)>,
    keys: HashMap<String, usize>,
    sink: TextSink,
    block_ends: ace_mdtext::BlockEnds,
}

/// Reads a markdown playbook. Never fails: every deviation from the playbook format spec is a
/// diagnostic, and every byte of the input ends up in the model (entries,
/// titles, or descriptions).
pub fn read(src: &str) -> ReadOutput {
    let mut diags = Vec::new();
    let base = if src.starts_with('\u{feff}') {
        diags.push(Diagnostic::new(
            &rules::BOM,
            Span::new(0, 3),
            "file starts with a UTF-8 byte-order mark",
        ));
        3
    } else {
        0
    };
    let mut r = Reader {
        lines: split_lines(src, base),
        pb: Playbook::default(),
        diags,
        current: None,
        entry_counts: Vec::new(),
        prefixes: Vec::new(),
        pending_head: None,
        keys: HashMap::new(),
        sink: TextSink {
            blank_since_text: false,
        },
        block_ends: ace_mdtext::BlockEnds::default(),
    };
    let likely_entries = r
        .lines
        .iter()
        .filter(|l| l.text.starts_with(['[', '-', '*', '+']))
        .count();
    r.pb.entries.reserve_exact(likely_entries);
    r.run(src);
    ReadOutput {
        playbook: r.pb,
        diagnostics: r.diags,
    }
}

impl<'a> Reader<'a> {
    fn run(&mut self, src: &str) {
        let n = self.lines.len();
        let mut prev = Prev::Nothing;
        let mut blank_run = 0usize;
        let mut i = 0;
        while i < n {
            let line = self.lines[i];
            if is_blank(line.text) {
                if !line.text.is_empty() {
                    self.trailing_ws(line);
                }
                blank_run += 1;
                self.sink.blank_since_text = true;
                i += 1;
                continue;
            }
            if let Some((level, title)) = heading(line.text) {
                self.spacing_before_heading(line, prev, blank_run);
                self.trailing_ws(line);
                if level == 1 && prev == Prev::Nothing && self.pb.title.is_none() {
                    self.pb.title = Some(title.to_owned());
                    prev = Prev::Title;
                } else {
                    self.section(line, level, title);
                    prev = Prev::Heading;
                }
                i += 1;
            } else if ace_mdtext::tool_directive(line.text).is_some() {
                // Kept as text, but invisible to the spacing and stray-text
                // rules it exists to silence.
                i = self.text(i);
                continue;
            } else {
                self.spacing_other(line, prev, blank_run);
                let head = match self.pending_head.take() {
                    Some((at, head)) if at == i => Some(head),
                    _ => entry_head(line.text),
                };
                if let Some(head) = head {
                    i = self.entry(i, head);
                    prev = Prev::Entry;
                } else {
                    if prev != Prev::Text {
                        self.diags.push(Diagnostic::new(
                            &rules::STRAY_TEXT,
                            Span::new(line.start, line.end),
                            "text outside entries is kept as a description",
                        ));
                    }
                    i = self.text(i);
                    prev = Prev::Text;
                }
            }
            blank_run = 0;
        }
        self.finish(src, blank_run);
    }

    fn spacing_before_heading(&mut self, line: Line, prev: Prev, blank_run: usize) {
        let msg = match (prev, blank_run) {
            (Prev::Nothing, 0) | (_, 1) => return,
            (Prev::Nothing, n) => format!("{n} blank line(s) at the start of the file"),
            (_, 0) => "no blank line before this section heading".to_owned(),
            (_, n) => format!("{n} blank lines before this section heading; expected one"),
        };
        self.diags.push(
            Diagnostic::new(
                &rules::SECTION_SPACING,
                Span::new(line.start, line.end),
                msg,
            )
            .with_help("separate sections with exactly one blank line"),
        );
    }

    fn spacing_other(&mut self, line: Line, prev: Prev, blank_run: usize) {
        let msg = match (prev, blank_run) {
            (Prev::Nothing, n) if n > 0 => format!("{n} blank line(s) at the start of the file"),
            (_, n) if n > 1 => format!("{n} consecutive blank lines"),
            _ => return,
        };
        self.diags.push(Diagnostic::new(
            &rules::SECTION_SPACING,
            Span::new(line.start, line.end),
            msg,
        ));
    }

    fn trailing_ws(&mut self, line: Line) {
        let trimmed = line.text.trim_end_matches([' ', '\t']).len();
        if trimmed < line.text.len() {
            self.diags.push(Diagnostic::new(
                &rules::TRAILING_WHITESPACE,
                Span::new(line.start + trimmed, line.end),
                "trailing whitespace",
            ));
        }
    }

    fn section(&mut self, line: Line, level: usize, title: &str) {
        let span = Span::new(line.start, line.end);
        let base_key = match section_key(title) {
            k if k.is_empty() => "section".to_owned(),
            k => k,
        };
        let mut key = base_key.clone();
        if let Some(&first) = self.keys.get(&key) {
            let mut n = 2;
            while self.keys.contains_key(&format!("{base_key}_{n}")) {
                n += 1;
            }
            key = format!("{base_key}_{n}");
            let first_span = self.pb.sections[first].origin.0.unwrap_or_default();
            self.diags.push(
                Diagnostic::new(
                    &rules::DUPLICATE_SECTION,
                    span,
                    format!(
                        "section `{title}` repeats an earlier heading; kept separately as `{key}`"
                    ),
                )
                .with_related(first_span, "first heading with this key"),
            );
        }
        let mut problems = Vec::new();
        if level != 2 {
            problems.push(format!("level {level} heading"));
        }
        if title.ends_with(':') {
            problems.push("trailing colon".to_owned());
        }
        if title.chars().any(char::is_lowercase) {
            problems.push("not upper case".to_owned());
        }
        if !problems.is_empty() {
            self.diags.push(Diagnostic::new(
                &rules::HEADING_STYLE,
                span,
                format!("section heading style: {}", problems.join(", ")),
            ));
        }
        let mut section = Section::new(key.clone());
        section.title = Some(title.to_owned());
        section.origin = Origin::from(span);
        if level != 2 {
            section
                .extra
                .insert(HEADING_LEVEL_KEY.to_owned(), Value::from(level));
        }
        self.keys.insert(key, self.pb.sections.len());
        self.current = Some(self.pb.sections.len());
        self.pb.sections.push(section);
        self.entry_counts.push(0);
        self.prefixes.push(SharedPrefix::Empty);
        self.sink.blank_since_text = false;
    }

    /// Reports an entry head (`[ID] helpful=N`) inside `text`, an entry's
    /// content starting at byte `at` of the file: two entries glued on one
    /// line by an append to a file without a final newline.
    fn glued(&mut self, text: &str, at: usize) {
        let Some(pos) = glued_head(text) else {
            return;
        };
        self.diags.push(
            Diagnostic::new(
                &rules::GLUED_ENTRY,
                Span::new(at + pos, at + text.len()),
                "another entry's head inside this entry's text; two entries on one line?",
            )
            .with_help("put the second entry on a line of its own"),
        );
    }

    /// Reads the entry starting at line `i`; returns the index of the next line.
    fn entry(&mut self, i: usize, head: crate::line::EntryHead<'a>) -> usize {
        let line = self.lines[i];
        let tail_text = &line.text[head.rest..];
        let tail = parse_tail(tail_text);
        let abs = |off: usize| line.start + head.rest + off;
        let first = Span::new(line.start, line.end);
        if let Some((off, len, msg)) = &tail.malformed {
            self.diags.push(
                Diagnostic::new(&rules::MALFORMED_COUNTERS, Span::new(abs(*off), abs(off + len)), msg.clone())
                    .with_help("the text after the ID is kept as content; write counters as `helpful=N harmful=M ::`"),
            );
        } else if tail.helpful.is_none() || tail.harmful.is_none() {
            let msg = match (tail.helpful, tail.harmful) {
                (None, None) => "entry has no counters".to_owned(),
                (None, _) => "entry has no `helpful` counter".to_owned(),
                _ => "entry has no `harmful` counter".to_owned(),
            };
            self.diags
                .push(Diagnostic::new(&rules::MISSING_COUNTERS, first, msg));
        }
        let has_counters =
            tail.helpful.is_some() || tail.harmful.is_some() || tail.neutral.is_some();
        if has_counters && !tail.separator {
            self.diags.push(Diagnostic::new(
                &rules::MISSING_SEPARATOR,
                Span::new(abs(tail.content), abs(tail.content)),
                "expected `::` between the counters and the content",
            ));
        }
        if head.list_marker {
            self.diags.push(Diagnostic::new(
                &rules::LIST_MARKER,
                Span::new(line.start, line.start + head.open),
                "entry written as a list item",
            ));
        }
        if self.current.is_none() {
            self.diags.push(Diagnostic::new(
                &rules::ENTRY_BEFORE_SECTION,
                first,
                format!(
                    "entry `{}` appears before the first section heading",
                    head.id
                ),
            ));
        }
        self.trailing_ws(line);

        let mut content = tail_text[tail.content..].to_owned();
        self.glued(&tail_text[tail.content..], abs(tail.content));
        let mut j = i + 1;
        while let Some(next) = self.lines.get(j) {
            // A comment after an entry annotates it; it is not more content.
            if is_blank(next.text) || comment_open(next.text) {
                break;
            }
            if let Some(h) = entry_head(next.text) {
                self.pending_head = Some((j, h));
                break;
            }
            match heading(next.text) {
                Some((1, _)) => self.diags.push(Diagnostic::new(
                    &rules::HEADING_IN_ENTRY,
                    Span::new(next.start, next.end),
                    "continuation line starts with `# `; other tools read it as a heading",
                )),
                Some(_) => break,
                None => {}
            }
            let next = *next;
            self.trailing_ws(next);
            self.glued(next.text, next.start);
            content.push('\n');
            content.push_str(next.text);
            j += 1;
        }
        if j > i + 1 {
            self.diags.push(
                Diagnostic::new(
                    &rules::MULTI_LINE_ENTRY,
                    first,
                    format!(
                        "entry `{}` continues over {} more line(s)",
                        head.id,
                        j - i - 1
                    ),
                )
                .with_help("line-oriented tools read only the first line of an entry"),
            );
        }
        let span = Span::new(line.start, self.lines[j - 1].end);
        let mut entry = Entry {
            id: head.id.to_owned(),
            section: self.current.map(|s| self.pb.sections[s].key.clone()),
            content,
            helpful: tail.helpful,
            harmful: tail.harmful,
            origin: Origin::from(span),
            ..Entry::default()
        };
        if tail.neutral.is_some() {
            entry.neutral = tail.neutral;
        }
        if let Some((a, b)) = tail.project {
            entry.project_id = Some(tail_text[a..b].to_owned());
        }
        if let Some(s) = self.current {
            self.entry_counts[s] += 1;
            self.prefixes[s].push(head.id);
        }
        self.pb.entries.push(entry);
        j
    }

    /// Stray text at line `i`: a fenced block, an HTML comment or one line.
    fn text(&mut self, i: usize) -> usize {
        let line = self.lines[i];
        let block_end = if let Some((ch, run)) = fence_open(line.text) {
            self.fence_end(i, ch, run)
        } else if comment_open(line.text) {
            let after_open = line.text.find("<!--").map(|p| p + 4).unwrap_or(0);
            if line.text[after_open..].contains("-->") {
                self.inline_comment_entry(line, after_open);
                Some(i)
            } else {
                self.comment_end(i)
            }
        } else {
            None
        };
        let end = match block_end {
            Some(end) => end,
            None => {
                if fence_open(line.text).is_some() || comment_open(line.text) {
                    self.diags.push(Diagnostic::new(
                        &rules::UNCLOSED_BLOCK,
                        Span::new(line.start, line.end),
                        "this block is never closed; the line is read as plain text",
                    ));
                }
                i
            }
        };
        for k in i..=end {
            let l = self.lines[k];
            if k > i && k < end && entry_head(l.text).is_some() {
                self.diags.push(Diagnostic::new(
                    &rules::ENTRY_IN_BLOCK,
                    Span::new(l.start, l.end),
                    "entry-like line inside a block is text, not an entry",
                ));
            }
            let slot = match self.current {
                Some(s) => &mut self.pb.sections[s].description,
                None => &mut self.pb.description,
            };
            self.sink.push(slot, l.text, k == i);
        }
        end + 1
    }

    fn inline_comment_entry(&mut self, line: Line, after_open: usize) {
        if entry_head(line.text[after_open..].trim_start()).is_some() {
            self.diags.push(Diagnostic::new(
                &rules::ENTRY_IN_BLOCK,
                Span::new(line.start, line.end),
                "commented-out entry is text, not an entry",
            ));
        }
    }

    fn fence_end(&mut self, i: usize, ch: u8, run: usize) -> Option<usize> {
        let lines = &self.lines;
        self.block_ends
            .fence_end(i, lines.len(), ch, run, |k| lines[k].text)
    }

    fn comment_end(&mut self, i: usize) -> Option<usize> {
        let lines = &self.lines;
        self.block_ends
            .comment_end(i, lines.len(), |k| lines[k].text)
    }

    fn finish(&mut self, src: &str, trailing_blank: usize) {
        let crlf = self.lines.iter().filter(|l| l.cr).count();
        if let Some(first) = self.lines.iter().find(|l| l.cr) {
            self.diags.push(Diagnostic::new(
                &rules::CRLF,
                Span::new(first.end, first.end + 1),
                format!("{crlf} line(s) end with CR LF; expected LF"),
            ));
        }
        if let Some(last) = self.lines.last() {
            if trailing_blank > 0 {
                self.diags.push(Diagnostic::new(
                    &rules::SECTION_SPACING,
                    Span::new(last.start, last.end),
                    format!("{trailing_blank} blank line(s) at the end of the file"),
                ));
            }
            if !last.newline {
                self.diags.push(Diagnostic::new(
                    &rules::MISSING_FINAL_NEWLINE,
                    Span::new(src.len(), src.len()),
                    "file does not end with a newline",
                ));
            }
        }
        let derived = std::mem::take(&mut self.prefixes)
            .into_iter()
            .map(|p| p.get().map(str::to_owned));
        for ((section, prefix), count) in self
            .pb
            .sections
            .iter_mut()
            .zip(derived)
            .zip(&self.entry_counts)
        {
            section.prefix = prefix;
            if *count == 0 {
                self.diags.push(Diagnostic::new(
                    &rules::EMPTY_SECTION,
                    section.origin.0.unwrap_or_default(),
                    format!("section `{}` has no entries", section.display_title()),
                ));
            }
        }
        self.diags.sort_by_key(|d| (d.span.start, d.code));
    }
}

/// The ID prefix a section's entries share, built one ID at a time. The
/// reader derives `Section::prefix` with it and the writer checks with it
/// whether a prefix will survive a round trip, so the two cannot disagree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum SharedPrefix<'a> {
    #[default]
    Empty,
    One(&'a str),
    Mixed,
}

impl<'a> SharedPrefix<'a> {
    pub(crate) fn push(&mut self, id: &'a str) {
        *self = match (*self, ids::prefix_of(id)) {
            (SharedPrefix::Empty, Some(p)) => SharedPrefix::One(p),
            (SharedPrefix::One(q), Some(p)) if q == p => SharedPrefix::One(q),
            _ => SharedPrefix::Mixed,
        };
    }

    pub(crate) fn get(self) -> Option<&'a str> {
        match self {
            SharedPrefix::One(p) => Some(p),
            _ => None,
        }
    }
}

/// Where `text` holds, after its start, an entry head with counters:
/// `[ID] helpful=` with an ID of letters, digits, `-` and `_`. A reference
/// such as `see [str-00001]` has no counters after it and is no head.
fn glued_head(text: &str) -> Option<usize> {
    let mut from = 0;
    // Each `]` is looked at: a substring search, set up anew for each
    // entry's text, cost more than the text's scan.
    while let Some(k) = text[from..].find(']') {
        let close = from + k;
        from = close + 1;
        if !text[close..].starts_with("] helpful=") {
            continue;
        }
        let open = text[..close].rfind('[');
        if let Some(open) = open.filter(|&o| o > 0) {
            let id = &text[open + 1..close];
            let after = &text[close + "] helpful=".len()..];
            if !id.is_empty()
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                && after.starts_with(|c: char| c.is_ascii_digit())
            {
                return Some(open);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::SharedPrefix;

    fn shared<'a>(ids: &[&'a str]) -> Option<&'a str> {
        let mut acc = SharedPrefix::default();
        ids.iter().for_each(|id| acc.push(id));
        acc.get()
    }

    #[test]
    fn shared_prefix_needs_every_id_to_agree() {
        assert_eq!(shared(&[]), None);
        assert_eq!(shared(&["str-00001", "str-00002"]), Some("str"));
        assert_eq!(shared(&["str-00001", "cal-00002"]), None);
        assert_eq!(shared(&["str-00001", "42"]), None);
        assert_eq!(shared(&["42", "str-00001"]), None);
        assert_eq!(shared(&["ctx1", "ctx-2"]), Some("ctx"));
    }
}
