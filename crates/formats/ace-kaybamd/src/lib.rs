//! The markdown kayba's ace-framework writes of a skillbook, in its four
//! shapes ([`Shape`]):
//!
//! - `export-0.8`: 0.8's `ExportSkillbookMarkdownStep`, `# ACE Skillbook`,
//!   `## section`, ``### `id` ``, the content, `**Justification:**`,
//!   `**Evidence:**`, `*Tags: helpful=N, harmful=N, neutral=N*`;
//! - `export`: the same step from 0.12, with `**Keywords:**`, `**Issue:**`,
//!   `**Insight:**` and `**Occurrences:** N` in place of the content;
//! - `prompt`: 0.12's `Skillbook.as_prompt()`, `## context`, `- [id]` and
//!   indented `Keywords:`, `Issue:`, `Insight:` lines, no counters;
//! - `list`: the skills lists of kayba's examples (`skills_*.md`), `##
//!   section`, `- content` and indented `Justification:` and `Evidence:`,
//!   no IDs and no counters.
//!
//! Each is read into the canonical model as the skillbook reader reads the
//! same skill (`ace-skillbook`): v2's issue and insight as the content and
//! `extra.issue`, keywords as tags, justification in `extra`. A file is
//! written back in the shape it was read in, byte for byte where kayba
//! wrote it; a new one in the current release's `export`. What a shape
//! cannot hold is found by reading the text written back and reported
//! field by field.

mod format;

use std::collections::HashMap;

use ace_exec::Out;
use ace_model::ids::IdChange;
use ace_model::{
    rules, Diagnostic, Entry, Evidence, LossEntry, Losses, Playbook, ReadOutput, Section, Span,
    WriteReport,
};
use serde_json::{json, Map, Value};

pub use format::{KaybaMarkdown, FORMAT, SHAPE};

/// The owner name of the layout a file is read with.
pub const LAYOUT_KEY: &str = "kayba-md";

/// Which of kayba's markdown shapes a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Export08,
    Export,
    Prompt,
    List,
}

impl Shape {
    pub const ALL: [Shape; 4] = [Shape::Export, Shape::Export08, Shape::Prompt, Shape::List];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Export08 => "export-0.8",
            Shape::Export => "export",
            Shape::Prompt => "prompt",
            Shape::List => "list",
        }
    }

    pub fn from_name(s: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|x| x.name() == s)
    }
}

const HEADER: &str = "# ACE Skillbook";

/// The shape `text` is in, if it is one of kayba's: what only these
/// files have (the export's header and tag line, `as_prompt`'s indented
/// `Keywords:`/`Issue:` under `- [id]`, a list's indented
/// `Justification:`/`Evidence:` under `- text`).
pub fn detect(text: &str) -> Option<Shape> {
    let mut lines = text.lines().peekable();
    let mut export = false;
    let mut v2 = false;
    let mut prompt = false;
    let mut list = false;
    let mut first = true;
    while let Some(l) = lines.next() {
        if first && !l.trim().is_empty() {
            export |= l.trim_end() == HEADER;
            first = false;
        }
        export |= l.starts_with("*Tags: helpful=") || (l.starts_with("### `") && l.ends_with('`'));
        v2 |= l.starts_with("**Issue:**") || l.starts_with("**Keywords:**");
        let next = lines.peek().copied().unwrap_or("");
        if l.starts_with("- [") && l.trim_end().ends_with(']') {
            prompt |= next.starts_with("  Keywords:") || next.starts_with("  Issue:");
        } else if l.starts_with("- ") {
            list |= next.starts_with("  Justification:") || next.starts_with("  Evidence:");
        }
    }
    if export {
        Some(if v2 { Shape::Export } else { Shape::Export08 })
    } else if prompt {
        Some(Shape::Prompt)
    } else if list {
        Some(Shape::List)
    } else {
        None
    }
}

/// One skill as it is read, before it becomes an entry.
#[derive(Default)]
struct Skill {
    id: String,
    section: Option<String>,
    span: Span,
    content: Vec<String>,
    justification: Option<String>,
    /// One piece of evidence per `Evidence:` line (kayba writes one).
    evidence: Vec<String>,
    keywords: Option<Vec<String>>,
    issue: Option<String>,
    insight: Option<String>,
    occurrences: Option<i64>,
    counters: Option<(i64, i64, i64)>,
    /// The field the next unmarked line continues.
    last: Option<Field>,
}

#[derive(Clone, Copy)]
enum Field {
    Content,
    Justification,
    Evidence,
    Issue,
    Insight,
}

impl Skill {
    fn continue_with(&mut self, line: &str) {
        let line = unescape(line);
        let slot = match self.last {
            Some(Field::Content) | None => {
                self.content.push(line.to_owned());
                return;
            }
            Some(Field::Justification) => &mut self.justification,
            Some(Field::Evidence) => {
                if self.evidence.is_empty() {
                    self.evidence.push(String::new());
                }
                let last = self.evidence.last_mut().expect("one piece at least");
                last.push('\n');
                last.push_str(line);
                return;
            }
            Some(Field::Issue) => &mut self.issue,
            Some(Field::Insight) => &mut self.insight,
        };
        let s = slot.get_or_insert_with(String::new);
        s.push('\n');
        s.push_str(line);
    }

    fn entry(mut self, shape: Shape) -> Entry {
        // The export puts one blank line around the content.
        while self.content.first().is_some_and(|l| l.is_empty()) {
            self.content.remove(0);
        }
        while self.content.last().is_some_and(|l| l.is_empty()) {
            self.content.pop();
        }
        let mut e = Entry {
            id: self.id,
            section: self.section,
            origin: self.span.into(),
            ..Entry::default()
        };
        match shape {
            Shape::Export08 | Shape::List => e.content = self.content.join("\n"),
            Shape::Export | Shape::Prompt => {
                let issue = self.issue.map(|s| trim_end_blank(&s));
                match (issue, self.insight.map(|s| trim_end_blank(&s))) {
                    (Some(issue), Some(insight)) => {
                        e.content = insight;
                        e.extra.insert("issue", Value::String(issue));
                    }
                    (Some(issue), None) => e.content = issue,
                    (None, Some(insight)) => e.content = insight,
                    (None, None) => e.content = self.content.join("\n"),
                }
            }
        }
        if let Some(j) = self.justification {
            e.extra
                .insert("justification", Value::String(trim_end_blank(&j)));
        }
        if !self.evidence.is_empty() {
            e.evidence = Some(
                self.evidence
                    .iter()
                    .map(|ev| Evidence::Text(trim_end_blank(ev)))
                    .collect(),
            );
        }
        if let Some(k) = self.keywords.filter(|k| !k.is_empty()) {
            e.tags = Some(k);
        }
        if let Some(n) = self.occurrences {
            e.extra.insert("occurrence_count", json!(n));
        }
        if let Some((h, x, n)) = self.counters {
            (e.helpful, e.harmful, e.neutral) = (Some(h), Some(x), Some(n));
        }
        e
    }
}

/// A value's line as written: one the reader would take for structure
/// (a heading, a marked field, a list item, an indented field) is written
/// after a `\\`, which the reader drops.
fn unescape(line: &str) -> &str {
    line.strip_prefix('\\').unwrap_or(line)
}

fn escaped(line: &str) -> String {
    let structural = line.starts_with(['#', '*', '\\', '-', ' ', '\t']);
    if structural {
        format!("\\{line}")
    } else {
        line.to_owned()
    }
}

/// A value as a shape can write it: lines without a carriage return at
/// their end, no blank line first or last (nor, where a blank line ends a
/// field, within), each line after the first escaped, and the first too
/// where it starts a line of its own.
fn value(v: &str, shape: Shape, first_alone: bool) -> String {
    let mut lines: Vec<&str> = v.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    if matches!(shape, Shape::Prompt | Shape::List) {
        lines.retain(|l| !l.is_empty());
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i > 0 || first_alone {
                escaped(l)
            } else {
                (*l).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A name on a line of its own (an ID, a section, a keyword): one line.
fn one_line(s: &str, bad: &[char]) -> String {
    s.replace(['\n', '\r'], " ").replace(bad, "_")
}

/// A field's value without the blank lines that separate it from the next.
fn trim_end_blank(s: &str) -> String {
    s.trim_end_matches('\n').to_owned()
}

/// `helpful=3, harmful=0, neutral=1` inside `*Tags: ...*`.
fn counters(line: &str) -> Option<(i64, i64, i64)> {
    let inner = line.strip_prefix("*Tags: ")?.strip_suffix('*')?;
    let mut out = [None; 3];
    for part in inner.split(", ") {
        let (k, v) = part.split_once('=')?;
        let slot = ["helpful", "harmful", "neutral"]
            .iter()
            .position(|x| *x == k)?;
        out[slot] = Some(v.parse().ok()?);
    }
    Some((out[0]?, out[1]?, out[2]?))
}

/// Sets `slot` to `v`, or adds `v` after what it holds and a blank line;
/// `true` when it held something.
fn join(slot: &mut Option<String>, v: String) -> bool {
    match slot {
        Some(first) => {
            // The blank lines before the second were read as the first's.
            first.truncate(first.trim_end_matches('\n').len());
            first.push_str("\n\n");
            first.push_str(&v);
            true
        }
        None => {
            *slot = Some(v);
            false
        }
    }
}

fn keywords(s: &str) -> Vec<String> {
    s.split(", ")
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Reads a file of any shape; text of none reads as an empty playbook.
pub fn read(text: &str) -> ReadOutput {
    let shape = detect(text).unwrap_or(Shape::Export);
    let mut pb = Playbook::default();
    let mut skills: Vec<Skill> = Vec::new();
    let mut section: Option<String> = None;
    let mut offset = 0;
    let mut in_skill = false;
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut headed: std::collections::HashSet<String> = std::collections::HashSet::new();
    for raw in text.split_inclusive('\n') {
        let span = Span::new(offset, offset + raw.len());
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(name) = line.strip_prefix("## ") {
            section = Some(name.to_owned());
            if headed.insert(name.to_owned()) {
                pb.sections.push(Section::new(name));
            }
            in_skill = false;
            continue;
        }
        if line.trim_end() == HEADER && skills.is_empty() && section.is_none() {
            continue;
        }
        let new_id = match shape {
            Shape::Export | Shape::Export08 => line
                .strip_prefix("### `")
                .and_then(|r| r.strip_suffix('`'))
                .map(str::to_owned),
            Shape::Prompt => line
                .strip_prefix("- [")
                .and_then(|r| r.strip_suffix(']'))
                .map(str::to_owned),
            Shape::List => line.strip_prefix("- ").map(|_| String::new()),
        };
        if let Some(id) = new_id {
            let mut s = Skill {
                id,
                section: section.clone(),
                span,
                ..Skill::default()
            };
            if shape == Shape::List {
                s.content.push(line[2..].to_owned());
            }
            skills.push(s);
            in_skill = true;
            continue;
        }
        let Some(s) = skills.last_mut().filter(|_| in_skill) else {
            continue;
        };
        let marked = |prefix: &str| line.strip_prefix(prefix).map(str::to_owned);
        let (j, ev, kw, issue, insight, occ) = match shape {
            Shape::Export | Shape::Export08 => (
                marked("**Justification:** "),
                marked("**Evidence:** "),
                marked("**Keywords:** ").or_else(|| (line == "**Keywords:**").then(String::new)),
                marked("**Issue:** "),
                marked("**Insight:** "),
                marked("**Occurrences:** "),
            ),
            Shape::Prompt => (
                None,
                None,
                marked("  Keywords: ").or_else(|| (line == "  Keywords:").then(String::new)),
                marked("  Issue: "),
                marked("  Insight: "),
                None,
            ),
            Shape::List => (
                marked("  Justification: "),
                marked("  Evidence: "),
                None,
                None,
                None,
                None,
            ),
        };
        // kayba writes each field once; a field given again (an edit, two
        // exports pasted together) is kept with the first, and said.
        let at = Span::new(span.start, span.start + line.len());
        let mut repeated = |id: &str, field: &str, kept: &str| {
            diagnostics.push(Diagnostic::new(
                &rules::REPEATED_FIELD,
                at,
                format!("skill `{id}`: a second `{field}`: {kept}"),
            ));
        };
        if let Some(v) = j {
            if join(&mut s.justification, v) {
                repeated(
                    &s.id,
                    "Justification:",
                    "kept, after the first and a blank line",
                );
            }
            s.last = Some(Field::Justification);
        } else if let Some(v) = ev {
            if !s.evidence.is_empty() {
                repeated(&s.id, "Evidence:", "kept as another piece of evidence");
            }
            s.evidence.push(v);
            s.last = Some(Field::Evidence);
        } else if let Some(v) = kw {
            let more = keywords(&v);
            match &mut s.keywords {
                Some(k) => {
                    let mut seen: std::collections::HashSet<String> = k.iter().cloned().collect();
                    for w in more {
                        if seen.insert(w.clone()) {
                            k.push(w);
                        }
                    }
                    repeated(&s.id, "Keywords:", "its keywords are added to the first's");
                }
                None => s.keywords = Some(more),
            }
            s.last = None;
        } else if let Some(v) = issue {
            if join(&mut s.issue, v) {
                repeated(&s.id, "Issue:", "kept, after the first and a blank line");
            }
            s.last = Some(Field::Issue);
        } else if let Some(v) = insight {
            if join(&mut s.insight, v) {
                repeated(&s.id, "Insight:", "kept, after the first and a blank line");
            }
            s.last = Some(Field::Insight);
        } else if let Some(n) = occ.as_deref().and_then(|v| v.trim().parse::<i64>().ok()) {
            match s.occurrences {
                Some(first) if first != n => repeated(
                    &s.id,
                    "Occurrences:",
                    &format!("{n} is not kept: a skill has one count, and the first, {first}, is"),
                ),
                _ => s.occurrences = Some(n),
            }
            s.last = None;
        } else if let Some(c) = counters(line) {
            s.counters = Some(c);
            s.last = None;
            // The tag line closes an exported skill.
            in_skill = !matches!(shape, Shape::Export | Shape::Export08);
        } else if line.starts_with("*Tags:") && matches!(shape, Shape::Export | Shape::Export08) {
            // Kept as text of the skill, and said: the skill has no counters.
            diagnostics.push(Diagnostic::new(
                &rules::MALFORMED_COUNTERS,
                Span::new(span.start, span.start + line.len()),
                format!(
                    "skill `{}`: expected `*Tags: helpful=N, harmful=N, neutral=N*` with whole numbers",
                    s.id
                ),
            ));
            s.continue_with(line);
        } else if matches!(shape, Shape::Export | Shape::Export08) && s.last.is_none() {
            s.last = Some(Field::Content);
            s.content.push(unescape(line).to_owned());
        } else if matches!(s.last, Some(Field::Content)) {
            s.content.push(unescape(line).to_owned());
        } else if line.is_empty() {
            // A blank line ends a field's value; the next marked line
            // starts another.
            if !matches!(shape, Shape::Export | Shape::Export08) {
                s.last = None;
            } else {
                s.continue_with("");
            }
        } else if shape == Shape::List && s.last.is_none() {
            s.content.push(unescape(line).to_owned());
        } else if s.last.is_some() {
            s.continue_with(line);
        }
    }
    // A list's skills have no IDs: they get kayba's, numbered in order.
    let mut n = 0;
    for s in &mut skills {
        if shape == Shape::List {
            n += 1;
            let prefix = ace_model::mint::section_word(s.section.as_deref());
            s.id = format!("{prefix}-{n:05}");
        }
    }
    // A skill with an issue and no insight reads as its issue; kept by
    // ID, so that an insight it gains later is written beside that issue,
    // as kayba keeps both, and an issue updated alone stays without one.
    // An ID given twice names neither skill.
    let mut times: HashMap<&str, usize> = HashMap::new();
    for s in &skills {
        *times.entry(s.id.as_str()).or_default() += 1;
    }
    let no_insight: Map<String, Value> = skills
        .iter()
        .filter(|s| matches!(shape, Shape::Export | Shape::Prompt) && s.insight.is_none())
        .filter(|s| times[s.id.as_str()] == 1)
        .filter_map(|s| {
            let issue = s.issue.as_deref()?;
            Some((s.id.clone(), Value::String(trim_end_blank(issue))))
        })
        .collect();
    pb.entries = skills.into_iter().map(|s| s.entry(shape)).collect();
    let newlines = text.len() - text.trim_end_matches('\n').len();
    let mut layout = json!({"shape": shape.name(), "newlines": newlines});
    if !no_insight.is_empty() {
        layout["no_insight"] = Value::Object(no_insight);
    }
    pb.set_layout(LAYOUT_KEY, layout);
    ReadOutput {
        playbook: pb,
        diagnostics,
    }
}

/// Writes `pb` in `shape` (else the shape it was read in, else `export`).
pub fn write_into(pb: &Playbook, shape: Option<Shape>, out: &mut Out<'_>) -> WriteReport {
    let layout = pb.layout_of(LAYOUT_KEY);
    let shape = shape
        .or_else(|| {
            layout
                .and_then(|l| l.get("shape"))
                .and_then(Value::as_str)
                .and_then(Shape::from_name)
        })
        .unwrap_or(Shape::Export);
    let newlines = layout
        .and_then(|l| l.get("newlines"))
        .and_then(Value::as_u64)
        .map(|n| n as usize);
    let (text, order) = render(pb, shape, newlines, memo(pb));
    let back = read(&text).playbook;
    let report = losses(pb, &back, &order, shape);
    out.push_str(&text);
    report
}

/// The text of `pb` in `shape`, and the entries' indices in the order
/// written. `no_insight`: the skills read with an issue and no insight,
/// with that issue.
fn render(
    pb: &Playbook,
    shape: Shape,
    newlines: Option<usize>,
    no_insight: Option<&Map<String, Value>>,
) -> (String, Vec<usize>) {
    // Entries under their sections, the sections in the order the
    // entries first name them; entries without a section first, before
    // any heading, where a reader finds no section.
    let mut sections: Vec<Option<&str>> = Vec::new();
    let mut by_section: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
    for (i, e) in pb.entries.iter().enumerate() {
        let s = e.section.as_deref();
        if !by_section.contains_key(&s) {
            sections.push(s);
        }
        by_section.entry(s).or_default().push(i);
    }
    sections.sort_by_key(Option::is_some);
    let mut lines: Vec<String> = Vec::new();
    let mut order = Vec::with_capacity(pb.entries.len());
    if matches!(shape, Shape::Export | Shape::Export08) {
        lines.extend([HEADER.to_owned(), String::new()]);
    }
    for s in sections {
        if let Some(s) = s {
            lines.push(format!("## {}", one_line(s, &[])));
            if shape != Shape::Prompt {
                lines.push(String::new());
            }
        }
        for &i in &by_section[&s] {
            order.push(i);
            let e = &pb.entries[i];
            let read_issue = no_insight
                .and_then(|m| m.get(&e.id))
                .and_then(Value::as_str);
            skill_lines(e, shape, read_issue, &mut lines);
        }
        if shape == Shape::List {
            lines.push(String::new());
        }
    }
    let mut text = lines.join("\n");
    match shape {
        // `"\n".join(parts).rstrip()`
        Shape::Prompt => text.truncate(text.trim_end().len()),
        // kayba's lines end with a blank one: one newline.
        Shape::Export | Shape::Export08 => {}
        Shape::List => text.push('\n'),
    }
    if let Some(n) = newlines {
        let bare = text.trim_end_matches('\n').len();
        text.truncate(bare);
        text.push_str(&"\n".repeat(n));
    }
    (text, order)
}

/// The skills a playbook was read with an issue and no insight, with
/// that issue ([`read`]).
fn memo(pb: &Playbook) -> Option<&Map<String, Value>> {
    pb.layout_of(LAYOUT_KEY)
        .and_then(|l| l.get("no_insight"))
        .and_then(Value::as_object)
}

/// `e` as a v2 shape writes it: the content its insight, beside the
/// issue, or its issue alone ([`issue_insight`]), and its occurrences
/// counted ([`occurrences`]), so that what was written is compared with
/// what it meant, not with how it was kept.
fn as_written<'e>(
    e: &'e Entry,
    shape: Shape,
    memo: Option<&Map<String, Value>>,
) -> std::borrow::Cow<'e, Entry> {
    if !matches!(shape, Shape::Export | Shape::Prompt) {
        return std::borrow::Cow::Borrowed(e);
    }
    let read_issue = memo.and_then(|m| m.get(&e.id)).and_then(Value::as_str);
    let count = (shape == Shape::Export && !e.extra.contains_key("occurrence_count"))
        .then(|| occurrences(e))
        .flatten();
    if read_issue.is_none() && count.is_none() {
        return std::borrow::Cow::Borrowed(e);
    }
    let mut v = e.clone();
    if let Some(n) = count {
        v.extra.insert("occurrence_count", json!(n));
    }
    if read_issue.is_some() {
        let (issue, insight) = parts(e, read_issue);
        match insight {
            Some(insight) => {
                v.content = insight.to_owned();
                v.extra.insert("issue", Value::String(issue.to_owned()));
            }
            None => {
                v.content = issue.to_owned();
                v.extra.remove("issue");
            }
        }
    }
    std::borrow::Cow::Owned(v)
}

/// How many times a skill was seen, as the export counts it: the count
/// an export gave, else the skillbook's list of occurrences, if any.
fn occurrences(e: &Entry) -> Option<i64> {
    e.extra
        .get("occurrence_count")
        .and_then(Value::as_i64)
        .or_else(|| {
            let n = e.extra.get("occurrences")?.as_array()?.len();
            (n > 0).then_some(n as i64)
        })
}

/// A v2 skill's issue and insight, as [`issue_insight`] writes them.
fn parts<'e>(e: &'e Entry, read_issue: Option<&'e str>) -> (&'e str, Option<&'e str>) {
    let own = e.extra.get("issue").and_then(Value::as_str);
    match (own, read_issue) {
        (_, Some(read)) if read == e.content => (own.unwrap_or(read), None),
        (Some(issue), _) => (issue, Some(e.content.as_str())),
        (None, Some(read)) => (read, Some(e.content.as_str())),
        (None, None) => (e.content.as_str(), None),
    }
}

/// A v2 skill's issue and insight. The content is the insight beside an
/// issue of its own, and alone is the issue. `read_issue` is the issue of
/// a skill read without an insight: while the content is still that
/// issue the skill has none, and a content that changed since is the
/// insight it gained.
fn issue_insight(e: &Entry, shape: Shape, read_issue: Option<&str>) -> (String, Option<String>) {
    let (issue, insight) = parts(e, read_issue);
    (
        value(issue, shape, false),
        insight.map(|i| value(i, shape, false)),
    )
}

fn evidence_text(e: &Entry) -> Option<String> {
    let items = e.evidence.as_ref()?;
    Some(
        items
            .iter()
            .map(Evidence::text)
            .collect::<Vec<_>>()
            .join("; "),
    )
}

fn skill_lines(e: &Entry, shape: Shape, read_issue: Option<&str>, lines: &mut Vec<String>) {
    let justification = e
        .extra
        .get("justification")
        .and_then(Value::as_str)
        .map(|j| value(j, shape, false))
        .filter(|j| !j.is_empty());
    let evidence = evidence_text(e)
        .map(|v| value(&v, shape, false))
        .filter(|v| !v.is_empty());
    let tags = e
        .tags
        .iter()
        .flatten()
        .map(|t| one_line(t, &[]))
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    let id = one_line(&e.id, &['`', ']']);
    let content = value(&e.content, shape, shape == Shape::Export08);
    let counts = || {
        format!(
            "*Tags: helpful={}, harmful={}, neutral={}*",
            e.helpful.unwrap_or(0),
            e.harmful.unwrap_or(0),
            e.neutral.unwrap_or(0)
        )
    };
    match shape {
        Shape::Export08 => {
            lines.extend([format!("### `{id}`"), String::new(), content]);
            lines.push(String::new());
            if let Some(j) = justification {
                lines.extend([format!("**Justification:** {j}"), String::new()]);
            }
            if let Some(ev) = evidence {
                lines.extend([format!("**Evidence:** {ev}"), String::new()]);
            }
            lines.extend([counts(), String::new()]);
        }
        Shape::Export => {
            let (issue, insight) = issue_insight(e, shape, read_issue);
            lines.extend([
                format!("### `{id}`"),
                String::new(),
                format!("**Keywords:** {tags}"),
                String::new(),
                format!("**Issue:** {issue}"),
                String::new(),
            ]);
            if let Some(i) = insight.filter(|i| !i.is_empty()) {
                lines.extend([format!("**Insight:** {i}"), String::new()]);
            }
            if let Some(n) = occurrences(e) {
                lines.extend([format!("**Occurrences:** {n}"), String::new()]);
            }
            lines.extend([counts(), String::new()]);
        }
        Shape::Prompt => {
            let (issue, insight) = issue_insight(e, shape, read_issue);
            lines.extend([
                format!("- [{id}]"),
                format!("  Keywords: {tags}"),
                format!("  Issue: {issue}"),
            ]);
            if let Some(i) = insight.filter(|i| !i.is_empty()) {
                lines.push(format!("  Insight: {i}"));
            }
            lines.push(String::new());
        }
        Shape::List => {
            lines.push(format!("- {content}"));
            if let Some(j) = justification {
                lines.push(format!("  Justification: {j}"));
            }
            if let Some(ev) = evidence {
                lines.push(format!("  Evidence: {ev}"));
            }
        }
    }
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// What `back`, the text written read back, does not give of `pb`: each
/// field lost (ACE101), changed (ACE105) or written where `pb` had none
/// (ACE104), and the IDs a list gives anew. `order` is the entries'
/// indices in the order written.
fn losses(pb: &Playbook, back: &Playbook, order: &[usize], shape: Shape) -> WriteReport {
    let mut losses: Vec<LossEntry> = Vec::new();
    let mut id_changes = Vec::new();
    let why = |shape: Shape| {
        match shape {
        Shape::Export08 => "kayba 0.8's markdown export holds a skill's ID, section, content, justification, evidence and three counters",
        Shape::Export => "kayba's markdown export holds a skill's ID, section, keywords, issue, insight, number of occurrences and three counters",
        Shape::Prompt => "kayba's `as_prompt` holds a skill's ID, section, keywords, issue and insight",
        Shape::List => "a skills list holds a skill's section, content, justification and evidence",
    }
    };
    let reason = why(shape);
    let top_a = object(serde_json::to_value(pb).unwrap_or_default());
    let top_b = object(serde_json::to_value(back).unwrap_or_default());
    for (k, va) in &top_a {
        match k.as_str() {
            "sections" | "entries" => {}
            "extra" => {
                for (x, v) in object(va.clone()) {
                    if top_b.get("extra").and_then(|e| e.get(&x)) != Some(&v) {
                        losses.lose(&rules::DROPPED_FIELD, None, format!("extra.{x}"), reason);
                    }
                }
            }
            _ if top_b.get(k) != Some(va) => {
                losses.lose(&rules::DROPPED_FIELD, None, k.clone(), reason);
            }
            _ => {}
        }
    }
    let named = back.sections_by_key();
    for s in &pb.sections {
        let Some(t) = named.get(s.key.as_str()) else {
            losses.lose(
                &rules::DROPPED_FIELD,
                None,
                format!("sections[{}]", s.key),
                "a section is written only with the skills in it",
            );
            continue;
        };
        let (sa, sb) = (
            object(serde_json::to_value(s).unwrap_or_default()),
            object(serde_json::to_value(t).unwrap_or_default()),
        );
        for (k, v) in &sa {
            let default = matches!(k.as_str(), "title" | "prefix") && v.as_str() == Some(&s.key);
            if sb.get(k) != Some(v) && !(default && sb.get(k).is_none()) {
                losses.lose(
                    &rules::DROPPED_FIELD,
                    None,
                    format!("sections[{}].{k}", s.key),
                    "a section is a `## name` heading",
                );
            }
        }
    }
    // The entries written, read back in the same order.
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut positions = vec![usize::MAX; pb.entries.len()];
    for (k, &i) in order.iter().enumerate() {
        positions[i] = k;
    }
    let mut last = None;
    let mut reordered = false;
    for (i, e) in pb.entries.iter().enumerate() {
        let pos = positions[i];
        let Some(f) = back.entries.get(pos) else {
            losses.lose(&rules::DROPPED_FIELD, Some(&e.id), "entry", reason);
            continue;
        };
        // A repeated ID finds its first entry, as readers look it up.
        let first = *seen.entry(e.id.as_str()).or_insert(pos);
        if last.is_some_and(|l| l > first) {
            reordered = true;
        }
        last = Some(first);
        if f.id != e.id {
            losses.lose(&rules::VALUE_CONVERTED, Some(&e.id), "id", reason);
            id_changes.push(IdChange {
                entry: i,
                old: e.id.clone(),
                new: f.id.clone(),
            });
        }
        let (ea, eb) = (
            object(serde_json::to_value(as_written(e, shape, memo(pb))).unwrap_or_default()),
            object(serde_json::to_value(as_written(f, shape, memo(back))).unwrap_or_default()),
        );
        let field = |k: &str, a: Option<&Value>, b: Option<&Value>, losses: &mut Vec<LossEntry>| {
            if a == b {
                return;
            }
            let rule = match (a, b) {
                (Some(_), None) => &rules::DROPPED_FIELD,
                (None, Some(_)) => &rules::VALUE_DEFAULTED,
                _ => &rules::VALUE_CONVERTED,
            };
            losses.lose(rule, Some(&e.id), k.to_owned(), reason);
        };
        let (xa, xb) = (
            object(ea.get("extra").cloned().unwrap_or_default()),
            object(eb.get("extra").cloned().unwrap_or_default()),
        );
        for k in ea.keys().chain(eb.keys().filter(|k| !ea.contains_key(*k))) {
            if matches!(k.as_str(), "id" | "extra") {
                continue;
            }
            field(k, ea.get(k), eb.get(k), &mut losses);
        }
        for k in xa.keys().chain(xb.keys().filter(|k| !xa.contains_key(*k))) {
            field(&format!("extra.{k}"), xa.get(k), xb.get(k), &mut losses);
        }
    }
    if reordered {
        losses.lose(
            &rules::ORDER_CHANGED,
            None,
            "entries",
            "skills are written under their sections, each section once",
        );
    }
    WriteReport { losses, id_changes }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(pb: &Playbook) -> String {
        let mut out = Out::default();
        write_into(pb, None, &mut out);
        out.into_string()
    }

    const EXPORT08: &str = "# ACE Skillbook\n\n## errors\n\n### `errors-00001`\n\nRetry a 503 once\n\n**Justification:** Seen twice\n\n**Evidence:** trace 7\n\n*Tags: helpful=2, harmful=1, neutral=0*\n\n### `errors-00002`\n\nLog the request ID\n\n*Tags: helpful=0, harmful=0, neutral=0*\n";

    #[test]
    fn each_shape_reads_and_writes_back_byte_for_byte() {
        let export = "# ACE Skillbook\n\n## context\n\n### `context-00001`\n\n**Keywords:** reading, questions\n\n**Issue:** Agents answer too early\n\n**Insight:** Read the whole question.\n\n**Occurrences:** 2\n\n*Tags: helpful=3, harmful=0, neutral=1*\n\n## harness\n\n### `harness-00002`\n\n**Keywords:** tests\n\n**Issue:** The runner needs PYTHONPATH\n\n*Tags: helpful=0, harmful=0, neutral=0*\n";
        let prompt = "## context\n- [context-00001]\n  Keywords: reading, questions\n  Issue: Agents answer too early\n  Insight: Read the whole question.\n\n## harness\n- [harness-00002]\n  Keywords: tests\n  Issue: The runner needs PYTHONPATH";
        let list = "## service\n\n- Confirm the task is done.\n  Justification: Gives closure.\n  Evidence: 30 of 30 ended cleanly.\n\n## opening\n\n- Keep the greeting short.\n  Evidence: 70 characters on average.\n\n";
        for (text, shape, n) in [
            (EXPORT08, Shape::Export08, 2),
            (export, Shape::Export, 2),
            (prompt, Shape::Prompt, 2),
            (list, Shape::List, 2),
        ] {
            assert_eq!(detect(text), Some(shape));
            let pb = read(text).playbook;
            assert_eq!(pb.entries.len(), n, "{shape:?}");
            assert_eq!(written(&pb), text, "{shape:?}");
        }
        let pb = read(export).playbook;
        let e = &pb.entries[0];
        assert_eq!(e.content, "Read the whole question.");
        assert_eq!(e.extra["issue"], "Agents answer too early");
        assert_eq!(
            e.tags.as_deref(),
            Some(&["reading".to_owned(), "questions".to_owned()][..])
        );
        assert_eq!(
            (e.helpful, e.harmful, e.neutral),
            (Some(3), Some(0), Some(1))
        );
        assert_eq!(pb.entries[1].content, "The runner needs PYTHONPATH");
        let pb = read(list).playbook;
        assert_eq!(pb.entries[1].id, "opening-00002");
        assert_eq!(pb.entries[0].extra["justification"], "Gives closure.");
        let pb = read(EXPORT08).playbook;
        assert_eq!(pb.entries[0].extra["justification"], "Seen twice");
        assert_eq!(pb.entries[0].helpful, Some(2));
    }

    /// A field given twice is kept with the first and reported; only a
    /// second, different count cannot be, and the finding says so.
    #[test]
    fn a_repeated_field_is_kept_and_reported() {
        let text = EXPORT08
            .replace(
                "**Evidence:** trace 7\n",
                "**Evidence:** trace 7\n\n**Evidence:** trace 8\nand 9\n",
            )
            .replace(
                "**Justification:** Seen twice\n",
                "**Justification:** Seen twice\n\n**Justification:** Once more\n",
            );
        let out = read(&text);
        let e = &out.playbook.entries[0];
        assert_eq!(e.extra["justification"], "Seen twice\n\nOnce more");
        assert_eq!(
            e.evidence,
            Some(vec![
                Evidence::Text("trace 7".into()),
                Evidence::Text("trace 8\nand 9".into())
            ])
        );
        let codes: Vec<(&str, &str)> = out
            .diagnostics
            .iter()
            .map(|d| (d.code, &text[d.span.start..d.span.end]))
            .collect();
        assert_eq!(
            codes,
            [
                ("ACE089", "**Justification:** Once more"),
                ("ACE089", "**Evidence:** trace 8")
            ]
        );
        let export = "# ACE Skillbook\n\n## c\n\n### `c-00001`\n\n**Issue:** a\n\n**Insight:** b\n\n**Insight:** c\n\n**Keywords:** x, y\n\n**Keywords:** y, z\n\n**Occurrences:** 2\n\n**Occurrences:** 3\n\n*Tags: helpful=0, harmful=0, neutral=0*\n";
        let out = read(export);
        let e = &out.playbook.entries[0];
        assert_eq!(e.content, "b\n\nc");
        assert_eq!(e.tags, Some(vec!["x".into(), "y".into(), "z".into()]));
        assert_eq!(e.extra["occurrence_count"], 2);
        assert_eq!(out.diagnostics.len(), 3);
        assert!(out.diagnostics[2].message.contains("3 is not kept"));
    }

    #[test]
    fn a_tag_line_that_does_not_read_is_reported_and_kept() {
        let text = EXPORT08.replace("helpful=2, harmful=1", "helpful=two, harmful=1");
        let out = read(&text);
        assert_eq!(out.diagnostics.len(), 1);
        let d = &out.diagnostics[0];
        assert_eq!(d.code, "ACE004");
        assert!(text[d.span.start..d.span.end].starts_with("*Tags: helpful=two"));
        let e = &out.playbook.entries[0];
        assert_eq!(e.helpful, None);
        assert!(e
            .evidence
            .as_ref()
            .is_some_and(|ev| format!("{ev:?}").contains("helpful=two")));
    }

    #[test]
    fn what_a_shape_cannot_hold_is_reported() {
        let mut pb = read(EXPORT08).playbook;
        pb.entries[0].tags = Some(vec!["a".into()]);
        pb.entries[1].helpful = None;
        pb.title = Some("Team".into());
        let mut out = Out::default();
        let report = write_into(&pb, Some(Shape::Export08), &mut out);
        let said: Vec<(Option<&str>, &str, &str)> = report
            .losses
            .iter()
            .map(|l| (l.entry_id.as_deref(), &*l.field, l.code))
            .collect();
        assert!(said.contains(&(None, "title", "ACE101")), "{said:?}");
        assert!(
            said.contains(&(Some("errors-00001"), "tags", "ACE101")),
            "{said:?}"
        );
        assert!(
            said.contains(&(Some("errors-00002"), "helpful", "ACE104")),
            "{said:?}"
        );
    }
}
