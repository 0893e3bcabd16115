use std::borrow::Cow;
use std::collections::HashMap;

use ace_exec::Out;
use ace_model::ids::{self, IdChange};
use ace_model::normalize::section_key;
use ace_model::Losses;
use ace_model::WriteReport;
use ace_model::{rules, Entry, LossEntry, Playbook, Section};

pub(crate) use crate::line::is_valid_id;
use crate::line::{
    comment_open, entry_head, fence_open, heading, is_blank, looks_like_tail_syntax,
};
use crate::reader::SharedPrefix;
use ace_model::keys::HEADING_LEVEL as HEADING_LEVEL_KEY;

/// The canonical text and what it could not hold.
#[derive(Debug, Clone, Default)]
pub struct WriteOutput {
    pub text: String,
    pub losses: Vec<LossEntry>,
    /// Entries whose IDs the format cannot hold, with the IDs they got.
    pub id_changes: Vec<IdChange>,
}

/// Writes the canonical layout of the playbook format spec: an optional `# title`, then each
/// section as `## TITLE` followed directly by its entries, sections separated
/// by one blank line, LF line endings and a final newline. Descriptions (prose
/// kept from the source) stand after the title or heading, set off by blank
/// lines. An empty playbook is an empty file.
pub fn write(pb: &Playbook) -> WriteOutput {
    let mut out = Out::with_capacity(pb.entries.len() * 160 + 256);
    let report = write_into(pb, &mut out);
    WriteOutput {
        text: out.into_string(),
        losses: report.losses,
        id_changes: report.id_changes,
    }
}

/// [`write`] into `out`, which may send the text on as it is printed.
pub fn write_into(pb: &Playbook, out: &mut Out<'_>) -> WriteReport {
    write_mapped(pb, &ace_model::mapping::BUILT_IN, out)
}

/// [`write_into`] with new IDs' prefixes from `sections`' rows.
pub fn write_mapped(
    pb: &Playbook,
    sections: &ace_model::mapping::SectionMap,
    out: &mut Out<'_>,
) -> WriteReport {
    // An ID without a digit reads back as text (line::is_valid_id), so such
    // entries get playbook-format IDs first.
    let Some((renumbered, id_changes)) = ids::reallocate(pb, is_valid_id, sections) else {
        return write_valid(pb, out);
    };
    let mut report = write_valid(&renumbered, out);
    let reassigned: Vec<LossEntry> = id_changes
        .iter()
        .map(|c| {
            LossEntry::new(
                &rules::ID_REASSIGNED,
                Some(&c.old),
                "id",
                format!(
                    "`{}` is not a markdown playbook ID (letters, digits, `_`, `.`, `-`, with at least one digit); written as `{}`",
                    c.old, c.new
                ),
            )
        })
        .collect();
    report.losses.splice(0..0, reassigned);
    report.id_changes = id_changes;
    report
}

/// Whether a project's name can stand in a `[project]` marker: a name
/// that holds `]` or a line break, or is empty, cannot.
fn marker_holds(project: &str) -> bool {
    !project.is_empty() && !project.contains([']', '\n', '\r'])
}

/// One entry as [`write`] writes it, with its line ending.
pub(crate) fn entry_text(e: &Entry, losses: &mut Vec<LossEntry>) -> String {
    let mut out = Out::with_capacity(e.content.len() + 48);
    let mut w = Writer {
        out: &mut out,
        losses: std::mem::take(losses),
        started: true,
        closers: Closers::default(),
    };
    w.entry(e);
    *losses = w.losses;
    out.into_string()
}

/// [`write`] for a playbook whose IDs are all markdown IDs.
pub(crate) fn write_valid(pb: &Playbook, out: &mut Out<'_>) -> WriteReport {
    let mut w = Writer {
        out,
        losses: Vec::new(),
        started: false,
        closers: Closers::of(pb),
    };
    w.playbook_fields(pb);
    let groups = group(pb);
    let order: Vec<usize> = groups
        .iter()
        .flat_map(|g| g.entries.iter().copied())
        .collect();
    if order.iter().enumerate().any(|(i, &e)| i != e) {
        let moved = order.iter().enumerate().filter(|(i, e)| i != *e).count();
        w.losses.lose(
            &rules::ORDER_CHANGED,
            None,
            "entries",
            format!(
                "entries are grouped by section; {moved} of {} change position",
                order.len()
            ),
        );
    }
    if let Some(title) = &pb.title {
        w.part_from_previous();
        let t = w.one_line(title, None, "title");
        w.out.push_str("# ");
        w.out.push_str(&t);
        w.out.push('\n');
    }
    if let Some(d) = &pb.description {
        w.part_from_previous();
        w.description(d, "description");
    }
    let expected_keys = expected_section_keys(&groups);
    for (g, expected_key) in groups.iter().zip(expected_keys) {
        let starts_file = !w.started;
        w.part_from_previous();
        if let Some(sec) = &g.section {
            w.heading(pb, sec, &g.entries, starts_file, &expected_key);
        }
        // Entries print the same wherever a run starts: runs of them are
        // printed on every core, and their losses kept in entry order.
        ace_exec::par::print_runs_reporting(
            g.entries.len(),
            w.out,
            &mut w.losses,
            |range, out, losses| {
                let mut run = Writer {
                    out,
                    losses: std::mem::take(losses),
                    started: true,
                    closers: Closers::default(),
                };
                for &e in &g.entries[range] {
                    run.entry(&pb.entries[e]);
                }
                *losses = run.losses;
            },
        );
    }
    WriteReport {
        losses: w.losses,
        id_changes: Vec::new(),
    }
}

/// Entries of one heading, in written order.
struct Group<'a> {
    section: Option<Cow<'a, Section>>,
    entries: Vec<usize>,
}

/// Unsectioned entries first, then declared sections in order, then sections
/// that entries name but the playbook does not declare, in order of first use.
fn group(pb: &Playbook) -> Vec<Group<'_>> {
    let mut by_key: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut unsectioned = Vec::new();
    let mut undeclared: Vec<&str> = Vec::new();
    let declared = pb.sections_by_key();
    for (i, e) in pb.entries.iter().enumerate() {
        match e.section.as_deref() {
            None => unsectioned.push(i),
            Some(k) => {
                let list = by_key.entry(k).or_default();
                if list.is_empty() && !declared.contains_key(k) {
                    undeclared.push(k);
                }
                list.push(i);
            }
        }
    }
    let mut groups = Vec::new();
    if !unsectioned.is_empty() {
        groups.push(Group {
            section: None,
            entries: unsectioned,
        });
    }
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for s in &pb.sections {
        let entries = if seen.insert(&s.key, ()).is_none() {
            by_key.remove(s.key.as_str()).unwrap_or_default()
        } else {
            Vec::new()
        };
        groups.push(Group {
            section: Some(Cow::Borrowed(s)),
            entries,
        });
    }
    for k in undeclared {
        let mut s = Section::new(k);
        s.title = Some(k.to_owned());
        groups.push(Group {
            section: Some(Cow::Owned(s)),
            entries: by_key.remove(k).unwrap_or_default(),
        });
    }
    groups
}

/// The keys the reader will derive from the written headings, in order.
fn expected_section_keys(groups: &[Group]) -> Vec<String> {
    let mut taken: HashMap<String, ()> = HashMap::new();
    groups
        .iter()
        .map(|g| {
            let Some(s) = &g.section else {
                return String::new();
            };
            let base = match section_key(&single_line(s.display_title())) {
                k if k.is_empty() => "section".to_owned(),
                k => k,
            };
            let mut key = base.clone();
            let mut n = 2;
            while taken.contains_key(&key) {
                key = format!("{base}_{n}");
                n += 1;
            }
            taken.insert(key.clone(), ());
            key
        })
        .collect()
}

fn single_line(s: &str) -> Cow<'_, str> {
    if s.contains(['\n', '\r']) || s.trim() != s {
        Cow::Owned(
            s.split(['\n', '\r'])
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        )
    } else {
        Cow::Borrowed(s)
    }
}

struct Writer<'a, 'w> {
    out: &'a mut Out<'w>,
    losses: Vec<LossEntry>,
    /// Whether a block has been written, so the next needs a blank line.
    started: bool,
    closers: Closers,
}

/// What in the playbook's text could close a comment or code fence that a
/// description leaves open: an unclosed opener is harmless when nothing
/// after it closes it (the reader then takes it as text), and swallows
/// entries when something does.
#[derive(Debug, Default)]
struct Closers {
    comment: bool,
    /// The longest line of only backticks, and of only tildes (0: none).
    backticks: usize,
    tildes: usize,
}

impl Closers {
    fn of(pb: &Playbook) -> Closers {
        let mut c = Closers::default();
        // Only descriptions are probed with these; without one, the pass
        // over every entry's text is not worth making.
        if pb.description.is_none() && pb.sections.iter().all(|s| s.description.is_none()) {
            return c;
        }
        let texts = pb
            .entries
            .iter()
            .map(|e| e.content.as_str())
            .chain(pb.description.as_deref())
            .chain(pb.sections.iter().filter_map(|s| s.description.as_deref()));
        for line in texts.flat_map(str::lines) {
            c.comment |= line.contains("-->");
            let t = line.trim();
            if t.len() >= 3 && t.bytes().all(|b| b == b'`') {
                c.backticks = c.backticks.max(t.len());
            } else if t.len() >= 3 && t.bytes().all(|b| b == b'~') {
                c.tildes = c.tildes.max(t.len());
            }
        }
        c
    }
}

impl Writer<'_, '_> {
    /// The blank line that parts a block from the one before it.
    fn part_from_previous(&mut self) {
        if std::mem::replace(&mut self.started, true) {
            self.out.push('\n');
        }
    }

    fn one_line<'s>(
        &mut self,
        text: &'s str,
        entry: Option<&str>,
        field: impl Into<Cow<'static, str>>,
    ) -> Cow<'s, str> {
        let fixed = single_line(text);
        if fixed != text {
            self.losses.lose(&rules::ALTERED_TEXT, entry, field, "a heading holds one line without surrounding white space; line breaks became spaces and the ends were trimmed");
        }
        fixed
    }

    fn playbook_fields(&mut self, pb: &Playbook) {
        let fields = [
            ("version", pb.version.is_some()),
            ("project_id", pb.project_id.is_some()),
            ("created_at", pb.created_at.is_some()),
            ("updated_at", pb.updated_at.is_some()),
        ];
        for (name, present) in fields {
            if present {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    name,
                    "the markdown playbook has no place for playbook metadata",
                );
            }
        }
        for key in pb.extra.keys() {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("extra.{key}"),
                "the markdown playbook has no place for extra playbook fields",
            );
        }
    }

    /// Free text, written so that it reads back as the same text: lines that
    /// would read as structure are escaped with a backslash.
    fn description(&mut self, text: &str, field: impl Into<Cow<'static, str>>) {
        // Read in context: an unclosed `<!--` or code fence is harmless when
        // nothing closes it, but swallows the entries up to a `-->` or
        // fence line in one of them. The probe ends with the closers the
        // playbook holds, so that this happens now, where it can be seen.
        let c = &self.closers;
        let mut probe = format!("{text}\n\n[prb-00001] probe\n");
        for (present, line) in [
            (c.comment, "-->".to_owned()),
            (c.backticks > 0, "`".repeat(c.backticks)),
            (c.tildes > 0, "~".repeat(c.tildes)),
        ] {
            if present {
                probe.push_str(&line);
                probe.push('\n');
            }
        }
        let standalone = crate::reader::read(&probe).playbook;
        let round_trips = standalone.description.as_deref() == Some(text)
            && standalone.title.is_none()
            && standalone.sections.is_empty()
            && standalone.entries.len() == 1
            && standalone.entries[0].id == "prb-00001";
        if round_trips {
            self.out.push_str(text);
            self.out.push('\n');
            return;
        }
        self.losses.lose(&rules::ALTERED_TEXT, None, field, "the text holds lines that read as headings, entries, comments, code fences or a byte-order mark, runs of blank lines or carriage returns at line ends; those lines are escaped with `\\`, blank runs collapse and the carriage returns are removed");
        let mut blank = true;
        for line in text.lines() {
            let line = line.trim_end_matches('\r');
            if is_blank(line) {
                if !blank {
                    self.out.push('\n');
                }
                blank = true;
                continue;
            }
            blank = false;
            // A line that starts with U+FEFF would read as a byte-order
            // mark, and be dropped, if it opened the file.
            if heading(line).is_some()
                || entry_head(line).is_some()
                || comment_open(line)
                || fence_open(line).is_some()
                || line.starts_with('\u{feff}')
            {
                self.out.push('\\');
            }
            self.out.push_str(line);
            self.out.push('\n');
        }
        if self.out.ends_with("\n\n") {
            self.out.pop();
        }
    }

    fn heading(
        &mut self,
        pb: &Playbook,
        s: &Section,
        entries: &[usize],
        starts_file: bool,
        expected_key: &str,
    ) {
        let field = |name: &str| format!("sections[{}].{name}", s.key);
        let mut level = 2;
        for (k, v) in &s.extra {
            if k == HEADING_LEVEL_KEY {
                match v.as_u64() {
                    Some(1) if starts_file => self.losses.lose(&rules::DROPPED_FIELD, None, field(k), "a level-1 heading on the first line reads as the playbook title; written at level 2"),
                    Some(n @ 1..=6) => level = n as usize,
                    _ => self.losses.lose(&rules::DROPPED_FIELD, None, field(k), "heading level must be a whole number from 1 to 6; written at level 2"),
                }
            } else {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    field(&format!("extra.{k}")),
                    "the markdown playbook has no place for extra section fields",
                );
            }
        }
        if s.weight.is_some() {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                field("weight"),
                "the markdown playbook has no place for section weights",
            );
        }
        if s.key != expected_key {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                None,
                field("key"),
                format!(
                    "section keys are derived from headings; `{}` reads back as `{expected_key}`",
                    s.key
                ),
            );
        }
        if let Some(p) = &s.prefix {
            let mut shared = SharedPrefix::default();
            entries.iter().for_each(|&e| shared.push(&pb.entries[e].id));
            if shared.get() != Some(p.as_str()) {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    field("prefix"),
                    "the section prefix is read from the entry IDs, which do not all use it",
                );
            }
        }
        let title = self.one_line(s.display_title(), None, field("title"));
        for _ in 0..level {
            self.out.push('#');
        }
        if !title.is_empty() {
            self.out.push(' ');
            self.out.push_str(&title);
        }
        self.out.push('\n');
        if let Some(d) = &s.description {
            self.out.push('\n');
            self.description(d, field("description"));
            if !entries.is_empty() {
                self.out.push('\n');
            }
        }
    }

    fn entry(&mut self, e: &Entry) {
        self.dropped_entry_fields(e);
        let id = e.id.as_str();
        // Nearly all contents are one line: found with memchr, and only the
        // rest, if any, split.
        let (first, more) = match memchr::memchr(b'\n', e.content.as_bytes()) {
            Some(i) => (&e.content[..i], Some(&e.content[i + 1..])),
            None => (e.content.as_str(), None),
        };
        let lines = more.into_iter().flat_map(|rest| rest.split('\n'));
        self.out.push('[');
        self.out.push_str(id);
        self.out.push(']');
        // The spec's line, which ace_claude_mcp's and the paper's parsers
        // match: both counters or none, and no third.
        let any = e.helpful.is_some() || e.harmful.is_some();
        if any {
            if e.helpful.is_none() || e.harmful.is_none() {
                self.losses.lose(
                    &rules::VALUE_DEFAULTED,
                    Some(id),
                    "helpful/harmful",
                    "a counted line carries both counters; the absent one is written as 0",
                );
            }
            for (name, value) in [("helpful", e.helpful), ("harmful", e.harmful)] {
                self.out.push(' ');
                self.out.push_str(name);
                self.out.push('=');
                self.out
                    .push_str(itoa::Buffer::new().format(value.unwrap_or(0)));
            }
        }
        // kayba's neutral count has no place on the spec's line.
        if e.neutral.is_some() {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                "neutral",
                "the markdown playbook's line has helpful and harmful counters only",
            );
        }
        if first.starts_with([' ', '\t']) {
            self.losses.lose(
                &rules::ALTERED_TEXT,
                Some(id),
                "content",
                "leading white space of the content is not kept",
            );
        }
        // ace_claude_mcp's merged view names an entry's project between
        // the counters and `::`.
        let project = e.project_id.as_deref().filter(|p| marker_holds(p));
        if let Some(p) = project {
            self.out.push_str(" [");
            self.out.push_str(p);
            self.out.push(']');
        }
        // The reader takes it as part of the separator; written, it would be
        // gone on the next read, so the output would not be stable.
        let first = first.trim_start_matches([' ', '\t']);
        if any || project.is_some() || (!first.is_empty() && looks_like_tail_syntax(first)) {
            self.out.push_str(" ::");
        }
        if !first.is_empty() {
            self.out.push(' ');
            self.out.push_str(first);
        }
        self.line_end(first, id);
        for line in lines {
            if is_blank(line) {
                self.losses.lose(
                    &rules::ALTERED_TEXT,
                    Some(id),
                    "content",
                    "a blank line inside the content would end the entry; it was removed",
                );
                continue;
            }
            if entry_head(line).is_some()
                || comment_open(line)
                || matches!(heading(line), Some((level, _)) if level >= 2)
            {
                self.losses.lose(&rules::ALTERED_TEXT, Some(id), "content", "a content line that reads as a heading, an entry or a comment was escaped with `\\`");
                self.out.push('\\');
            }
            self.out.push_str(line);
            self.line_end(line, id);
        }
    }

    fn line_end(&mut self, line: &str, id: &str) {
        if line.ends_with('\r') {
            self.losses.lose(
                &rules::ALTERED_TEXT,
                Some(id),
                "content",
                "a carriage return at the end of a content line would read as part of the line ending; it was removed",
            );
            // Written, one would come back as a CRLF line ending and be
            // gone on the next read; removing every one now keeps the
            // output stable.
            while self.out.ends_with("\r") {
                self.out.pop();
            }
        }
        self.out.push('\n');
    }

    fn dropped_entry_fields(&mut self, e: &Entry) {
        let present = e.optional_fields();
        for (name, is_present) in present {
            // Asked of present fields alone: the name is compared for each.
            if is_present
                && !(name == "project_id" && e.project_id.as_deref().is_some_and(marker_holds))
            {
                self.losses.lose(
                    &rules::DROPPED_FIELD,
                    Some(&e.id),
                    name,
                    "the markdown playbook has no place for this field",
                );
            }
        }
        for key in e.extra.keys() {
            self.losses.lose(
                &rules::DROPPED_FIELD,
                Some(&e.id),
                format!("extra.{key}"),
                "the markdown playbook has no place for extra entry fields",
            );
        }
    }
}
