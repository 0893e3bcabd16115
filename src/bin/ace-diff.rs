//! `ace-diff OLD NEW`: what changed between two playbooks, entry by entry,
//! in any two readable formats. Exit status as diff(1): 0 the same, 1
//! different, 2 trouble. Also git's `textconv` (`--textconv FILE`) and
//! external diff (`GIT_EXTERNAL_DIFF`, seven arguments).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use ace_apply::diff::{diff, diff_across, field_value, Diff, EntryDiff};
use ace_io::{Format, Source};
use ace_model::{Entry, Playbook, Status};
use ace_tools::{error, load_input, Color, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use clap::{Parser, ValueEnum};
use serde_json::{json, Value};

const PROG: &str = "ace-diff";

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum OutputFormat {
    Text,
    Json,
    /// The difference as a vAgenda PlaybookPatch, for `ace-apply OLD`.
    Acepatch,
    /// The difference as a skill delta, for `ace-apply OLD`.
    SkillDelta,
    /// The difference as ace_beads AceDeltas, for `ace-apply OLD`.
    Acedelta,
}

#[derive(Parser, Debug)]
#[command(
    name = PROG,
    version,
    about = "What changed between two playbooks, entry by entry",
    after_help = "As git's external diff (GIT_EXTERNAL_DIFF=ace-diff), it takes git's seven arguments and always exits 0."
)]
struct Args {
    /// OLD NEW, or git's seven external-diff arguments.
    #[arg(value_name = "FILE", num_args = 0..)]
    files: Vec<String>,
    /// Print FILE as one line per entry, for git's `diff.<driver>.textconv`.
    #[arg(long, value_name = "FILE", conflicts_with = "files")]
    textconv: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    output_format: OutputFormat,
    /// The format of both files, when detection should not decide.
    #[arg(long, value_name = "FMT", value_parser = ace_tools::format_parser())]
    from: Option<Format>,
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
    #[arg(long, default_value = "-", hide = true)]
    stdin_filename: String,
}

fn main() -> ExitCode {
    ace_tools::prepare_process();
    let args = Args::parse();
    ExitCode::from(run(&args) as u8)
}

/// A playbook read for comparing, or why it could not be.
fn read(name: &str, args: &Args) -> Result<(Source, Format, Playbook), i32> {
    let source = load_input(name, &args.stdin_filename).map_err(|e| {
        error(PROG, e);
        EXIT_USAGE
    })?;
    let registry = ace_io::Registry::builtin();
    let format = args
        .from
        .unwrap_or_else(|| registry.detect(source.path.as_deref(), &source.text));
    let pb = ace_tools::read_playbook(PROG, &source, format)?;
    Ok((source, format, pb))
}

fn run(args: &Args) -> i32 {
    if let Some(file) = &args.textconv {
        return match read(file, args) {
            Ok((_, _, pb)) => print(&textconv(&pb)),
            Err(code) => code,
        };
    }
    // git runs an external diff as `path old-file old-hex old-mode
    // new-file new-hex new-mode`, and takes any status but 0 as a failure.
    let (old, new, external) = match args.files.as_slice() {
        [old, new] => (old, new, None),
        [path, old, _, _, new, _, _] => (old, new, Some(path)),
        _ => {
            error(
                PROG,
                "expected OLD NEW (or git's seven external-diff arguments)",
            );
            return EXIT_USAGE;
        }
    };
    let (old_src, old_fmt, old_pb) = match read(old, args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (new_src, new_fmt, new_pb) = match read(new, args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let d = if old_fmt == new_fmt {
        diff(&old_pb, &new_pb)
    } else {
        let mut d = diff_across(&old_pb, &new_pb);
        d.retain_fields(|f| both_hold(old_fmt, new_fmt, f));
        d
    };
    let names = match external {
        Some(path) => (format!("a/{path}"), format!("b/{path}")),
        None => (old_src.name.clone(), new_src.name.clone()),
    };
    let code = match args.output_format {
        OutputFormat::Json => print(&format!(
            "{}\n",
            serde_json::to_string_pretty(&as_json(&d, &names, (old_fmt, new_fmt)))
                .unwrap_or_default()
        )),
        OutputFormat::Acepatch | OutputFormat::SkillDelta | OutputFormat::Acedelta => {
            let dialect = match args.output_format {
                OutputFormat::Acepatch => ace_apply::DeltaFormat::AcePatch,
                OutputFormat::SkillDelta => ace_apply::DeltaFormat::SkillDelta,
                _ => ace_apply::DeltaFormat::AceDelta,
            };
            let now = match ace_tools::now(None) {
                Ok(n) => n,
                Err(e) => {
                    error(PROG, e);
                    return EXIT_USAGE;
                }
            };
            let note = format!("ace-diff {} {}", names.0, names.1);
            let holds = |field: &str| both_hold(old_fmt, old_fmt, field);
            let ctx = ace_apply::WriteDeltaCtx {
                old: &old_pb,
                sections: &ace_model::mapping::SectionMap::default(),
                now: &now,
                note: &note,
                holds: &holds,
            };
            let (delta, lost) = ace_apply::write_delta(&d.to_delta(), dialect, &ctx)
                .expect("ace-tools writes the dialects ace-diff offers");
            for l in &lost {
                eprintln!("{PROG}: warning: {l}");
            }
            print(&format!(
                "{}\n",
                serde_json::to_string_pretty(&delta).unwrap_or_default()
            ))
        }
        OutputFormat::Text => {
            let color = args.color.enabled();
            if d.is_empty() {
                EXIT_OK
            } else {
                print(&as_text(&d, &names, &new_pb, &old_pb, color))
            }
        }
    };
    if code != EXIT_OK || external.is_some() {
        return code;
    }
    if d.is_empty() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    }
}

/// Whether both formats hold `field`: fields a format has no place for,
/// or derives when writing, are not compared across formats.
fn both_hold(a: Format, b: Format, field: &str) -> bool {
    use ace_io::capabilities::{entry_fields, Holds};
    [a, b]
        .into_iter()
        .all(|f| !matches!(entry_fields(f, &[field])[0], Some(Holds::No)))
}

fn print(text: &str) -> i32 {
    match ace_tools::write_stdout([text]) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            error(PROG, format!("<stdout>: {e}"));
            EXIT_USAGE
        }
    }
}

/// The shape docs/diff.md documents.
fn as_json(d: &Diff, names: &(String, String), formats: (Format, Format)) -> Value {
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
fn entry_line(e: &Entry) -> String {
    let mut s = String::new();
    if !e.id.is_empty() {
        s.push_str(&format!("[{}] ", e.id));
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

/// Text on one line: line breaks as `\n`, so that a multi-line entry is
/// still one line of a textconv.
fn one_line(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace("\r\n", "\\n")
        .replace('\n', "\\n")
}

/// One line per entry under its section's heading, in the playbook's
/// order: a rendering that line diffs compare entry by entry.
fn textconv(pb: &Playbook) -> String {
    let mut out = String::new();
    if let Some(t) = &pb.title {
        out.push_str(&format!("# {}\n", one_line(t)));
    }
    let mut section: Option<Option<&str>> = None;
    for e in &pb.entries {
        let s = e.section.as_deref();
        if section != Some(s) {
            let title = s
                .and_then(|k| pb.section(k))
                .map_or(s.unwrap_or("(no section)"), |sec| sec.display_title());
            out.push_str(&format!("## {}\n", one_line(title)));
            section = Some(s);
        }
        out.push_str(&entry_line(e));
        out.push('\n');
    }
    out
}

fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// Entries grouped by section (the new playbook's order of sections, then
/// the old one's), each a line: `+` added, `-` removed, `~` changed with
/// its counters and fields below it.
fn as_text(
    d: &Diff,
    names: &(String, String),
    new: &Playbook,
    old: &Playbook,
    color: bool,
) -> String {
    let mut out = String::new();
    out.push_str(&paint(
        &format!("--- {}\n+++ {}\n", names.0, names.1),
        "1",
        color,
    ));
    let mut order: Vec<Option<&str>> = Vec::new();
    for c in &d.entries {
        let s = c.entry().section.as_deref();
        if !order.contains(&s) {
            order.push(s);
        }
    }
    let rank = |s: &Option<&str>| -> usize {
        let i = s.and_then(|k| new.sections.iter().position(|x| x.key == k));
        let j = s.and_then(|k| old.sections.iter().position(|x| x.key == k));
        i.or(j.map(|j| j + new.sections.len()))
            .unwrap_or(usize::MAX)
    };
    order.sort_by_key(rank);
    for s in order {
        let title = s
            .and_then(|k| new.section(k).or_else(|| old.section(k)))
            .map_or(s.unwrap_or("(no section)"), |sec| sec.display_title());
        out.push_str(&paint(&format!("## {title}\n"), "36", color));
        for c in d
            .entries
            .iter()
            .filter(|c| c.entry().section.as_deref() == s)
        {
            match c {
                EntryDiff::Added(e) => {
                    out.push_str(&paint(&format!("+ {}\n", entry_line(e)), "32", color))
                }
                EntryDiff::Removed(e) => {
                    out.push_str(&paint(&format!("- {}\n", entry_line(e)), "31", color))
                }
                EntryDiff::Changed {
                    old, new, fields, ..
                } => {
                    let name = if new.id.is_empty() {
                        one_line(&new.content)
                    } else {
                        new.id.clone()
                    };
                    out.push_str(&paint(&format!("~ [{name}]\n"), "33", color));
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
                        out.push_str(&format!(
                            "    {f}: {} -> {}\n",
                            paint(&show(field_value(old, f)), "31", color),
                            paint(&show(field_value(new, f)), "32", color)
                        ));
                    }
                }
            }
        }
    }
    out
}
