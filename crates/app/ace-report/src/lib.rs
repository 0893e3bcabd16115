//! Turns diagnostics and loss entries into text for people and machines.

use std::collections::BTreeMap;
use std::io::{self, Write};

use ace_model::{rules, Diagnostic, LineIndex, LossEntry, Severity};
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// `path:line:col: severity[CODE]: message` with a code frame.
    Full,
    /// One line per diagnostic.
    Concise,
    /// One JSON array of every diagnostic.
    Json,
    /// GitHub Actions workflow commands (`::error file=...::message`).
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
}

/// The diagnostics of one input file, with its text for positions and frames.
pub struct FileReport<'a> {
    pub name: &'a str,
    pub text: &'a str,
    pub diagnostics: &'a [Diagnostic],
}

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    fn severity(&self, sev: Severity) -> String {
        let code = match sev {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info => "1;36",
        };
        self.paint(code, sev.as_str())
    }
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    file: &'a str,
    code: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    start_offset: usize,
    end_offset: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related: Vec<JsonRelated<'a>>,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    message: &'a str,
    line: usize,
    column: usize,
}

/// How [`render_with`] prints, past the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// ANSI colour in human output.
    pub color: bool,
    /// The closing summary line of human output (`--quiet` turns it off).
    pub summary: bool,
    /// Characters of a line a code frame shows at most (a longer line is
    /// cut around the span).
    pub frame_width: usize,
    /// Code frames for errors only; warnings and infos one line each:
    /// what a pre-commit hook's output needs, where the one error that
    /// stops the commit must not drown in frames.
    pub frames_for_errors_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            color: false,
            summary: true,
            frame_width: FRAME_CHARS,
            frames_for_errors_only: false,
        }
    }
}

pub fn render(
    format: OutputFormat,
    reports: &[FileReport],
    color: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let options = Options {
        color,
        ..Options::default()
    };
    render_with(format, reports, options, out)
}

pub fn render_with(
    format: OutputFormat,
    reports: &[FileReport],
    options: Options,
    out: &mut dyn Write,
) -> io::Result<()> {
    let style = Style {
        color: options.color,
    };
    match format {
        OutputFormat::Json => render_json(reports, out),
        OutputFormat::Github => render_github(reports, out),
        OutputFormat::Sarif => sarif::render(reports, out),
        OutputFormat::Full | OutputFormat::Concise => {
            for r in reports {
                let index = LineIndex::new(r.text);
                // Errors first, then warnings, then infos, each in file
                // order: the finding that fails the run is seen first.
                let mut order: Vec<&Diagnostic> = r.diagnostics.iter().collect();
                order.sort_by_key(|d| std::cmp::Reverse(d.severity));
                for d in order {
                    let frame = format == OutputFormat::Full
                        && (!options.frames_for_errors_only || d.severity == Severity::Error);
                    render_human(r, &index, d, frame, options.frame_width, &style, out)?;
                }
            }
            if options.summary {
                summary(reports, &style, out)?;
            }
            Ok(())
        }
    }
}

/// How often one code was found (`--statistics`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Statistic {
    pub code: &'static str,
    pub name: &'static str,
    /// The severity findings of this code were reported at; the highest
    /// when configuration gave some another.
    pub severity: Severity,
    pub count: usize,
}

/// A count per code over every report, most frequent first (then by
/// code), as ruff's `--statistics` gives it.
pub fn statistics(reports: &[FileReport]) -> Vec<Statistic> {
    let mut by_code: BTreeMap<&'static str, Statistic> = BTreeMap::new();
    for d in reports.iter().flat_map(|r| r.diagnostics) {
        let s = by_code.entry(d.code).or_insert_with(|| Statistic {
            code: d.code,
            name: rules::by_code(d.code).map_or("", |r| r.name),
            severity: d.severity,
            count: 0,
        });
        s.count += 1;
        s.severity = s.severity.max(d.severity);
    }
    let mut all: Vec<Statistic> = by_code.into_values().collect();
    all.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
    all
}

/// `--statistics`: one line per code (`COUNT  CODE  severity  name`), or
/// with `json` an array of `{code, name, severity, count}`.
pub fn render_statistics(
    format: OutputFormat,
    reports: &[FileReport],
    out: &mut dyn Write,
) -> io::Result<()> {
    let stats = statistics(reports);
    if format == OutputFormat::Json {
        serde_json::to_writer_pretty(&mut *out, &stats)?;
        return writeln!(out);
    }
    let width = stats
        .iter()
        .map(|s| s.count.to_string().len())
        .max()
        .unwrap_or(1);
    for s in &stats {
        writeln!(
            out,
            "{:>width$}  {}  {:<7}  {}",
            s.count,
            s.code,
            s.severity.as_str(),
            s.name
        )?;
    }
    Ok(())
}

fn render_human(
    r: &FileReport,
    index: &LineIndex,
    d: &Diagnostic,
    frame: bool,
    frame_width: usize,
    style: &Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let start = index.line_col(r.text, d.span.start);
    writeln!(
        out,
        "{}:{}:{}: {}[{}]: {}",
        ace_model::controls::line(r.name),
        start.line,
        start.col,
        style.severity(d.severity),
        d.code,
        ace_model::controls::one_line(&d.message)
    )?;
    if !frame {
        return Ok(());
    }
    let gutter = start.line.to_string().len();
    let pad = " ".repeat(gutter);
    // A log (a CI run's, often public) is no place for the credential
    // the finding is about: the line is not shown.
    if d.code == ace_model::rules::SECRET_IN_CONTENT.code {
        writeln!(
            out,
            "{pad} = note: the line is not shown: it would print the credential"
        )?;
    } else {
        let line_text = index.line_text(r.text, start.line);
        let bar = style.paint("34", "|");
        let col_byte = byte_of_col(line_text, start.col);
        let end = index.line_col(r.text, d.span.end);
        let end_byte = if end.line == start.line {
            byte_of_col(line_text, end.col)
        } else {
            line_text.len()
        };
        let shown = clip(line_text, col_byte, end_byte.max(col_byte), frame_width);
        writeln!(out, "{pad} {bar}")?;
        writeln!(
            out,
            "{} {bar} {}",
            style.paint("34", &start.line.to_string()),
            shown.text
        )?;
        let marker = match d.severity {
            Severity::Error => "31",
            Severity::Warning => "33",
            Severity::Info => "36",
        };
        writeln!(
            out,
            "{pad} {bar} {}{}",
            " ".repeat(shown.lead),
            style.paint(marker, &"^".repeat(shown.width))
        )?;
    }
    for rel in &d.related {
        let pos = index.line_col(r.text, rel.span.start);
        writeln!(
            out,
            "{pad} = note: {} at {}:{}:{}",
            ace_model::controls::one_line(&rel.message),
            ace_model::controls::one_line(r.name),
            pos.line,
            pos.col
        )?;
    }
    if let Some(help) = &d.help {
        writeln!(out, "{pad} = help: {}", ace_model::controls::one_line(help))?;
    }
    writeln!(out)
}

/// Characters of a line a code frame shows at most by default: a longer
/// line is cut around the span, so that a 5 MB entry does not print 10 MB
/// of frame.
pub const FRAME_CHARS: usize = 200;
/// Characters of a frame for output no one reads in a wide terminal: a
/// pre-commit hook's, a CI log's.
pub const FRAME_CHARS_NARROW: usize = 100;
const CUT: &str = "…";

/// The part of a line a frame shows, and where its carets go.
struct Shown<'a> {
    text: std::borrow::Cow<'a, str>,
    /// Display columns before the first caret.
    lead: usize,
    /// Carets: the span's display width within what is shown, at least 1.
    width: usize,
}

/// The line, or a window of it around `start..end` (byte offsets on
/// character boundaries) with `…` where it was cut.
fn clip(line: &str, start: usize, end: usize, width: usize) -> Shown<'_> {
    let width = width.max(20);
    // Characters kept before the span's start when a line is cut.
    let keep_before = width / 5;
    let fits = line.len() <= width || line.chars().nth(width).is_none();
    let (from, to) = if fits {
        (0, line.len())
    } else {
        let from = line[..start]
            .char_indices()
            .rev()
            .take(keep_before)
            .last()
            .map_or(start, |(i, _)| i);
        let to = line[from..]
            .char_indices()
            .nth(width)
            .map_or(line.len(), |(i, _)| from + i);
        (from, to)
    };
    let before = if from > 0 { CUT } else { "" };
    let after = if to < line.len() { CUT } else { "" };
    let end = end.min(to).max(start);
    let (lead, span, tail) = (
        ace_model::controls::one_line(&line[from..start]),
        ace_model::controls::one_line(&line[start..end]),
        ace_model::controls::one_line(&line[end..to]),
    );
    Shown {
        text: format!("{before}{lead}{span}{tail}{after}").into(),
        lead: UnicodeWidthStr::width(before) + UnicodeWidthStr::width(&*lead),
        width: UnicodeWidthStr::width(&*span).max(1),
    }
}

/// Byte offset of 1-based character column `col` in `line`.
fn byte_of_col(line: &str, col: usize) -> usize {
    line.char_indices()
        .nth(col.saturating_sub(1))
        .map(|(i, _)| i)
        .unwrap_or(line.len())
}

fn summary(reports: &[FileReport], style: &Style, out: &mut dyn Write) -> io::Result<()> {
    let mut counts = [0usize; 3];
    for d in reports.iter().flat_map(|r| r.diagnostics) {
        counts[d.severity as usize] += 1;
    }
    let [info, warning, error] = counts;
    let files = reports.len();
    let noun = if files == 1 { "file" } else { "files" };
    if info + warning + error == 0 {
        return writeln!(
            out,
            "{} ({files} {noun} checked)",
            style.paint("1;32", "All checks passed.")
        );
    }
    writeln!(
        out,
        "Found {error} error(s), {warning} warning(s), {info} info in {files} {noun}."
    )
}

fn render_json(reports: &[FileReport], out: &mut dyn Write) -> io::Result<()> {
    let mut all = Vec::new();
    for r in reports {
        let index = LineIndex::new(r.text);
        for d in r.diagnostics {
            let s = index.line_col(r.text, d.span.start);
            let e = index.line_col(r.text, d.span.end);
            all.push(JsonDiagnostic {
                file: r.name,
                code: d.code,
                name: rules::by_code(d.code).map(|r| r.name).unwrap_or(""),
                severity: d.severity,
                message: &d.message,
                line: s.line,
                column: s.col,
                end_line: e.line,
                end_column: e.col,
                start_offset: d.span.start,
                end_offset: d.span.end,
                help: d.help.as_deref(),
                related: d
                    .related
                    .iter()
                    .map(|rel| {
                        let p = index.line_col(r.text, rel.span.start);
                        JsonRelated {
                            message: &rel.message,
                            line: p.line,
                            column: p.col,
                        }
                    })
                    .collect(),
            });
        }
    }
    serde_json::to_writer_pretty(&mut *out, &all)?;
    writeln!(out)
}

/// GitHub's workflow-command escaping: `%`, CR and LF in data, plus `,` and
/// `:` in property values.
/// An annotation names its file as the repository does, without the `./`
/// that a walk of `.` puts before each name: GitHub matches it against the
/// pull request's paths as written.
fn repo_relative(name: &str) -> &str {
    let mut name = name;
    while let Some(rest) = name.strip_prefix("./").or_else(|| name.strip_prefix(".\\")) {
        name = rest;
    }
    name
}

fn gh_escape(s: &str, property: bool) -> String {
    let mut o = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    if property {
        o = o.replace(',', "%2C").replace(':', "%3A");
    }
    o
}

/// GitHub shows at most 10 annotations of each level per step and drops the
/// rest silently, so past 10 the first 9 become annotations, the 10th says
/// how many more there are, and those are printed as plain log lines.
const GITHUB_LIMIT: usize = 10;

fn render_github(reports: &[FileReport], out: &mut dyn Write) -> io::Result<()> {
    let level = |sev: Severity| match sev {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
    for d in reports.iter().flat_map(|r| r.diagnostics) {
        *totals.entry(level(d.severity)).or_default() += 1;
    }
    let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
    let mut overflow: Vec<String> = Vec::new();
    for r in reports {
        let index = LineIndex::new(r.text);
        for d in r.diagnostics {
            let s = index.line_col(r.text, d.span.start);
            let e = index.line_col(r.text, d.span.end);
            let level = level(d.severity);
            let n = shown.entry(level).or_default();
            *n += 1;
            let total = totals[level];
            if total > GITHUB_LIMIT && *n >= GITHUB_LIMIT {
                overflow.push(format!(
                    "{}:{}:{}: {level}[{}]: {}",
                    ace_model::controls::line(r.name),
                    s.line,
                    s.col,
                    d.code,
                    ace_model::controls::one_line(&d.message)
                ));
                continue;
            }
            let name = rules::by_code(d.code).map(|r| r.name).unwrap_or("");
            writeln!(
                out,
                "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
                gh_escape(repo_relative(r.name), true),
                s.line,
                s.col,
                e.line,
                e.col,
                gh_escape(&format!("{} {name}", d.code), true),
                gh_escape(&d.message, false)
            )?;
        }
    }
    for (level, total) in &totals {
        if *total > GITHUB_LIMIT {
            let more = total - (GITHUB_LIMIT - 1);
            writeln!(
                out,
                "::{level} title={}::{}",
                gh_escape("ace-validate", true),
                gh_escape(
                    &format!("{more} more {level} finding(s) are not shown as annotations (GitHub shows {GITHUB_LIMIT} per type); they are listed in the log"),
                    false
                )
            )?;
        }
    }
    for line in overflow {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Loss entries grouped by code and field, one line per group, so that a
/// field dropped from 10,000 entries is one line and not 10,000.
pub fn render_losses_text(
    losses: &[LossEntry],
    target: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    // A playbook field and an entry field of one name (`created_at`) are
    // different losses, and so are two reasons for one field.
    type Key<'l> = (&'l str, &'l str, bool, &'l str);
    let mut groups: BTreeMap<Key<'_>, (usize, Option<&str>)> = BTreeMap::new();
    for l in losses {
        let key = (l.code, &*l.field, l.entry_id.is_some(), &*l.reason);
        let g = groups.entry(key).or_insert((0, l.entry_id.as_deref()));
        g.0 += 1;
    }
    for ((code, field, _, reason), (count, first)) in groups {
        let rule = rules::by_code(code);
        let name = rule.map(|r| r.name).unwrap_or("");
        let level = rule.map_or("warning", |r| r.severity.as_str());
        let which = match (count, first) {
            (1, Some(id)) => format!(" (entry `{id}`)"),
            (n, Some(id)) => format!(" ({n} entries, first `{id}`)"),
            (n, None) if n > 1 => format!(" ({n} times)"),
            _ => String::new(),
        };
        let line = format!("{level}[{code}] {name}: {target}: `{field}`{which}: {reason}");
        writeln!(out, "{}", ace_model::controls::line(&line))?;
    }
    Ok(())
}

#[derive(Serialize)]
struct LossReport<'a> {
    target: &'a str,
    lossless: bool,
    losses: &'a [LossEntry],
}

pub fn render_losses_json(
    losses: &[LossEntry],
    target: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let report = LossReport {
        target,
        lossless: losses.is_empty(),
        losses,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

mod sarif;

#[cfg(test)]
mod tests {
    use super::*;
    use ace_model::Span;

    fn diag() -> Diagnostic {
        Diagnostic::new(
            &rules::DUPLICATE_ID,
            Span::new(13, 18),
            "duplicate ID `a-1`",
        )
        .with_related(Span::new(0, 5), "first used here")
        .with_help("renumber it")
    }

    fn render_str(format: OutputFormat, text: &str) -> String {
        let d = [diag()];
        let reports = [FileReport {
            name: "p.md",
            text,
            diagnostics: &d,
        }];
        let mut out = Vec::new();
        render(format, &reports, false, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A long line is shown as a window around the span, with `…` at
    /// each cut, and the carets under the span within it.
    #[test]
    fn long_lines_are_cut_around_the_span() {
        let long = format!("[a-1] {}needle{}\n", "x".repeat(5_000_000), "y".repeat(300));
        let at = long.find("needle").unwrap();
        let d = [Diagnostic::new(
            &rules::DUPLICATE_ID,
            Span::new(at, at + 6),
            "m",
        )];
        let reports = [FileReport {
            name: "p.md",
            text: &long,
            diagnostics: &d,
        }];
        let mut out = Vec::new();
        render(OutputFormat::Full, &reports, false, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.len() < 1_000, "{} bytes of frame", out.len());
        let lines: Vec<&str> = out.lines().collect();
        let shown = lines[2].strip_prefix("1 | ").unwrap();
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert_eq!(shown.chars().count(), FRAME_CHARS + 2);
        let carets = lines[3].strip_prefix("  | ").unwrap();
        let col = shown.chars().position(|c| c == 'n').unwrap();
        assert_eq!(carets, format!("{}^^^^^^", " ".repeat(col)));
        // A short line is shown whole.
        assert_eq!(clip("[a-1] x", 1, 4, FRAME_CHARS).text, "[a-1] x");
        // A span running past the window is underlined to its edge.
        let wide = "z".repeat(1000);
        let c = clip(&wide, 0, 1000, FRAME_CHARS);
        assert_eq!((c.lead, c.width), (0, FRAME_CHARS));
        let c = clip(&wide, 0, 1000, FRAME_CHARS_NARROW);
        assert_eq!((c.lead, c.width), (0, FRAME_CHARS_NARROW));
    }

    /// Errors come first in human output; under a hook, only they have a
    /// frame.
    #[test]
    fn errors_come_first_and_hooks_frame_errors_only() {
        let d = [
            Diagnostic::new(&rules::ID_SHAPE, Span::new(0, 1), "a warning"),
            Diagnostic::new(&rules::DUPLICATE_ID, Span::new(12, 13), "an error"),
        ];
        let reports = [FileReport {
            name: "p.md",
            text: "[a-1] first\n[a-1] second\n",
            diagnostics: &d,
        }];
        let options = Options {
            summary: false,
            frame_width: FRAME_CHARS_NARROW,
            frames_for_errors_only: true,
            ..Options::default()
        };
        let mut out = Vec::new();
        render_with(OutputFormat::Full, &reports, options, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].contains("error[ACE002]"), "{out}");
        assert!(lines[1].trim() == "|", "the error has a frame: {out}");
        let warning = lines
            .iter()
            .position(|l| l.contains("warning[ACE001]"))
            .unwrap();
        assert_eq!(lines.len(), warning + 1, "the warning has none: {out}");
    }

    #[test]
    fn statistics_count_each_code() {
        let d = [
            diag(),
            diag(),
            Diagnostic::new(&rules::ID_SHAPE, Span::new(0, 1), "m"),
        ];
        let reports = [FileReport {
            name: "p.md",
            text: "[a-1] first\n[a-1] second\n",
            diagnostics: &d,
        }];
        let mut out = Vec::new();
        render_statistics(OutputFormat::Full, &reports, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "2  ACE002  error    duplicate-id\n1  ACE001  warning  id-shape\n"
        );
        let mut out = Vec::new();
        render_statistics(OutputFormat::Json, &reports, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v[0]["code"], "ACE002");
        assert_eq!(v[0]["count"], 2);
        // Quiet: the findings without the summary.
        let mut out = Vec::new();
        let quiet = Options {
            color: false,
            summary: false,
            ..Options::default()
        };
        render_with(OutputFormat::Concise, &reports, quiet, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.lines().count(), 3);
        assert!(!out.contains("Found"));
    }

    #[test]
    fn full_output_has_a_code_frame() {
        let out = render_str(OutputFormat::Full, "[a-1] first\n[a-1] second\n");
        let expected = "p.md:2:2: error[ACE002]: duplicate ID `a-1`\n  |\n2 | [a-1] second\n  |  ^^^^^\n  = note: first used here at p.md:1:1\n  = help: renumber it\n\nFound 1 error(s), 0 warning(s), 0 info in 1 file.\n";
        assert_eq!(out, expected);
    }

    #[test]
    fn a_credential_s_line_is_never_shown() {
        let text = "[a-1] The token is ghp_abcdefghijklmnopqrstuvwxyz0123456789\n";
        let d = Diagnostic::new(&rules::SECRET_IN_CONTENT, Span::new(0, 5), "m").with_help("h");
        let report = [FileReport {
            name: "f.md",
            text,
            diagnostics: std::slice::from_ref(&d),
        }];
        for format in [
            OutputFormat::Full,
            OutputFormat::Concise,
            OutputFormat::Json,
            OutputFormat::Github,
        ] {
            let mut out = Vec::new();
            render(format, &report, false, &mut out).unwrap();
            let out = String::from_utf8(out).unwrap();
            assert!(!out.contains("ghp_"), "{format:?}: {out}");
        }
    }

    #[test]
    fn a_frame_shows_what_would_reorder_or_drive_the_terminal() {
        let text = "x \u{202e}evil\u{1b}[2J end\n";
        let d = Diagnostic::new(&ace_model::rules::HIDDEN_TEXT, Span::new(2, 5), "m");
        let report = [FileReport {
            name: "f.md",
            text,
            diagnostics: std::slice::from_ref(&d),
        }];
        let mut out = Vec::new();
        render(OutputFormat::Full, &report, false, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("x [U+202E]evil[U+001B][2J end"), "{out}");
        assert!(
            !out.contains('\u{202e}') && !out.contains('\u{1b}'),
            "{out}"
        );
        assert!(out.contains("|   ^^^^^^^^\n"), "{out}");
    }

    #[test]
    fn carets_follow_display_width() {
        let text = "안녕 [a-1] x\n";
        let d = [Diagnostic::new(&rules::ID_SHAPE, Span::new(7, 12), "m")];
        let reports = [FileReport {
            name: "k",
            text,
            diagnostics: &d,
        }];
        let mut out = Vec::new();
        render(OutputFormat::Full, &reports, false, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("\n  |      ^^^^^\n"), "{out}");
    }

    #[test]
    fn concise_json_and_github() {
        let text = "[a-1] first\n[a-1] second\n";
        assert!(render_str(OutputFormat::Concise, text)
            .starts_with("p.md:2:2: error[ACE002]: duplicate ID `a-1`\nFound"));
        let json: serde_json::Value =
            serde_json::from_str(&render_str(OutputFormat::Json, text)).unwrap();
        assert_eq!(json[0]["line"], 2);
        assert_eq!(json[0]["name"], "duplicate-id");
        assert_eq!(json[0]["related"][0]["line"], 1);
        let gh = render_str(OutputFormat::Github, text);
        assert_eq!(gh, "::error file=p.md,line=2,col=2,endLine=2,endColumn=7,title=ACE002 duplicate-id::duplicate ID `a-1`\n");
    }

    #[test]
    fn annotations_name_files_as_the_repository_does() {
        assert_eq!(repo_relative("./knowledge/p.md"), "knowledge/p.md");
        assert_eq!(repo_relative(".\\knowledge\\p.md"), "knowledge\\p.md");
        assert_eq!(repo_relative("knowledge/p.md"), "knowledge/p.md");
        assert_eq!(repo_relative("../p.md"), "../p.md");
    }

    #[test]
    fn color_is_off_unless_asked() {
        assert!(!render_str(OutputFormat::Full, "[a-1] first\n[a-1] second\n").contains('\x1b'));
    }

    #[test]
    fn losses_are_grouped() {
        let losses = vec![
            LossEntry::new(&rules::DROPPED_FIELD, Some("a-1"), "title", "no place"),
            LossEntry::new(&rules::DROPPED_FIELD, Some("a-2"), "title", "no place"),
            LossEntry::new(&rules::DROPPED_FIELD, None, "version", "no place"),
            // The playbook's field of the same name is a line of its own.
            LossEntry::new(&rules::DROPPED_FIELD, None, "title", "no heading"),
        ];
        let mut out = Vec::new();
        render_losses_text(&losses, "markdown", &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.lines().count(), 3, "{out}");
        assert!(out.contains("`title` (2 entries, first `a-1`): no place\n"));
        assert!(out.contains("`title`: no heading\n"));
        let mut out = Vec::new();
        render_losses_json(&[], "markdown", &mut out).unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .contains("\"lossless\": true"));
    }
}
