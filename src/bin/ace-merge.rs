//! `ace-merge BASE OURS THEIRS`: a three-way merge of playbooks by the
//! ACE merge rules (counters add, appends commute, deprecation wins, two
//! changes of one field conflict), as git's merge driver:
//! `ace-merge %O %A %B --path %P` writes the result into OURS.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use ace_apply::diff::diff;
use ace_apply::merge::{plan, with_markers, Markers};
use ace_apply::Traits;
use ace_io::{Format, Source};
use ace_model::{LineIndex, Playbook};
use ace_tools::{error, load_input, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use clap::Parser;

const PROG: &str = "ace-merge";

#[derive(Parser, Debug)]
#[command(
    name = PROG,
    version,
    about = "Three-way merge of playbooks by the ACE merge rules (git merge driver: ace-merge %O %A %B --path %P)"
)]
struct Args {
    base: String,
    ours: String,
    theirs: String,
    /// The file's path in the repository (git's %P): names it in messages
    /// and tells its format when the three files are git's temporary ones.
    #[arg(long, value_name = "P")]
    path: Option<String>,
    /// Where the result goes; OURS itself by default, as git expects.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Also write the conflicts as JSON here.
    #[arg(long, value_name = "FILE")]
    conflicts: Option<PathBuf>,
    #[arg(long, value_name = "FMT", value_parser = ace_tools::format_parser())]
    from: Option<Format>,
    /// Conflict markers' length (git's %L).
    #[arg(long, value_name = "N", default_value_t = 7)]
    marker_size: usize,
    /// The name on OURS' conflict marker (git's %X, from git 2.44).
    #[arg(long, value_name = "LABEL", default_value = "ours")]
    ours_label: String,
    /// The name on THEIRS' conflict marker (git's %Y).
    #[arg(long, value_name = "LABEL", default_value = "theirs")]
    theirs_label: String,
    /// The time for changed entries' `updated_at` (RFC 3339); else
    /// SOURCE_DATE_EPOCH, else the clock.
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
}

fn main() -> ExitCode {
    ace_tools::prepare_process();
    let args = Args::parse();
    ExitCode::from(run(&args) as u8)
}

fn read(source: &Source, format: Format) -> Result<Playbook, i32> {
    ace_tools::read_playbook(PROG, source, format)
}

fn run(args: &Args) -> i32 {
    merge(args).unwrap_or_else(|code| code)
}

fn merge(args: &Args) -> Result<i32, i32> {
    let load = |p: &str| {
        load_input(p, "-").map_err(|e| {
            error(PROG, e);
            EXIT_USAGE
        })
    };
    let (base_src, ours_src, theirs_src) =
        (load(&args.base)?, load(&args.ours)?, load(&args.theirs)?);
    let name = args.path.clone().unwrap_or_else(|| ours_src.name.clone());
    let registry = ace_io::Registry::builtin();
    let format = args.from.unwrap_or_else(|| {
        let by_name = args
            .path
            .as_deref()
            .map(Path::new)
            .or(ours_src.path.as_deref());
        registry.detect(by_name, &ours_src.text)
    });
    let base = read(&base_src, format)?;
    let ours = read(&ours_src, format)?;
    let theirs = read(&theirs_src, format)?;
    let p = plan(&base, &ours, &theirs);
    let now = ace_tools::now(args.now.as_deref()).map_err(|e| {
        error(PROG, e);
        EXIT_USAGE
    })?;
    let sections = Arc::new(ace_model::mapping::SectionMap::default());
    let opts = ace_apply::Options {
        now: now.clone(),
        ..ace_apply::Options::default()
    };
    let wctx = ace_io::WriteCtx::default()
        .with_now(Some(now))
        .with_sections(sections.clone());
    // Writes `delta` over `pb` read from `src`, as ace-apply would.
    let write = |src: &str, pb: &Playbook, deltas: &[(usize, ace_model::delta::Delta)]| {
        let mut pb = pb.clone();
        let t = Traits::of(format, &pb, sections.clone());
        let outcome = ace_apply::apply(&mut pb, deltas, &t, &opts);
        let text = text(format, src, &outcome, &pb, &wctx);
        (text, pb, outcome)
    };
    let (merged, merged_pb, outcome) = write(&ours_src.text, &ours, &[(0, p.delta.clone())]);
    for v in outcome.rejected() {
        if let Some(r) = &v.refusal {
            eprintln!("{name}: {PROG}: THEIRS' change not applied: {}", r.message);
        }
    }
    let labels = Markers {
        size: args.marker_size,
        ours: args.ours_label.clone(),
        theirs: args.theirs_label.clone(),
    };
    let markers = takes_markers(format);
    let mut out = merged;
    if markers && !p.conflicts.is_empty() {
        // The merge written again with the conflicts resolved THEIRS'
        // way: the two differ at the conflicting entries alone.
        let theirs_way = ace_apply::merge::theirs_way(&p.conflicts, &merged_pb, &theirs);
        let (alt, _, _) = write(&ours_src.text, &ours, &[(0, p.delta), (1, theirs_way)]);
        out = with_markers(&out, &alt, &labels);
    }
    // What THEIRS changed besides its entries (prose, a title, the rest of
    // a vAgenda document) is the difference between THEIRS and BASE with
    // THEIRS' entry changes written over it; a three-way merge of the text
    // brings it in, if it leaves the merged entries as they are.
    let (bare, _, _) = write(
        &base_src.text,
        &base,
        &[(0, diff(&base, &theirs).to_delta())],
    );
    let mut other: Vec<(usize, String)> = Vec::new();
    let json = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
    if bare.as_str() == &*theirs_src.text {
        // THEIRS changed its entries alone.
    } else if let (Some(b), Some(x), Some(t), Some(mut o)) = (
        json(&base_src.text),
        json(&bare),
        json(&theirs_src.text),
        json(&out),
    ) {
        // A JSON document is merged member by member, so that the
        // timestamps, counts and change log the merge keeps itself are
        // not lines in conflict.
        let was = o.clone();
        let paths = ace_apply::merge::merge_outside(&b, &x, &t, &mut o);
        if o != was {
            match splice_json(&out, &o).filter(|new| same_entries(format, new, &out)) {
                Some(new) => out = new,
                None => other.push((
                    first_difference_line(&bare, &theirs_src.text),
                    "THEIRS' changes outside its entries could not be written without changing the entries; OURS' kept".into(),
                )),
            }
        }
        for p in paths {
            other.push((
                json_line(&out, &p),
                format!("`{p}` changed on both sides to different values; OURS' kept"),
            ));
        }
    } else {
        let at = first_difference_line(&bare, &theirs_src.text);
        match three_way(&bare, &out, &theirs_src.text, &labels) {
            Ok(r) if same_entries(format, &r, &out) => out = r,
            Err(r) if markers && same_entries(format, &strip(&r, &labels), &strip(&out, &labels)) => {
                out = r;
            }
            _ => other.push((
                at,
                format!(
                    "THEIRS changed the file outside its entries (its line {at}) where OURS changed it too; {}",
                    if markers { "OURS' lines kept, THEIRS' not merged" } else { "OURS' kept" }
                ),
            )),
        }
    }
    // Each conflict's line: its marked block, else where OURS' file holds
    // the entry.
    let blocks = marker_blocks(&out, &labels);
    let mut claimed = vec![false; blocks.len()];
    let lines = LineIndex::new(&ours_src.text);
    let mut at: HashMap<String, usize> = HashMap::new();
    for c in &p.conflicts {
        if at.contains_key(&c.entry) {
            continue;
        }
        let block = blocks.iter().position(|(_, b)| b.contains(&c.entry));
        let line = match block {
            Some(k) => {
                claimed[k] = true;
                blocks[k].0
            }
            None => ours
                .entries
                .iter()
                .find(|e| e.id == c.entry || (e.id.is_empty() && e.content == c.entry))
                .and_then(|e| e.origin.0)
                .map_or(1, |s| lines.line_col(&ours_src.text, s.start).line),
        };
        at.insert(c.entry.clone(), line);
    }
    for (k, (line, _)) in blocks.iter().enumerate() {
        if !claimed[k] {
            other.push((
                *line,
                "lines outside the entries changed on both sides; marked".into(),
            ));
        }
    }
    let dest = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.ours));
    ace_io::write_atomic(&dest, out.as_bytes()).map_err(|e| {
        error(PROG, format!("{}: {e}", dest.display()));
        EXIT_USAGE
    })?;
    let line_of = |id: &str| at.get(id).copied().unwrap_or(1);
    let mut report = Vec::new();
    for c in &p.conflicts {
        let line = line_of(&c.entry);
        let how = if markers { "marked" } else { "ours kept" };
        eprintln!(
            "{name}:{line}: conflict: `{}` {}: ours {}, theirs {}; {how}",
            c.entry, c.field, c.ours, c.theirs,
        );
        report.push(
            serde_json::json!({"path": name, "line": line, "entry": c.entry,
            "field": c.field, "ours": c.ours, "theirs": c.theirs}),
        );
    }
    for (line, message) in &other {
        eprintln!("{name}:{line}: conflict: {message}");
        report.push(
            serde_json::json!({"path": name, "line": line, "entry": null,
            "field": null, "message": message}),
        );
    }
    if let Some(f) = &args.conflicts {
        let body = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        ace_io::write_atomic(f, body.as_bytes()).map_err(|e| {
            error(PROG, format!("{}: {e}", f.display()));
            EXIT_USAGE
        })?;
    }
    Ok(if report.is_empty() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    })
}

/// A three-way merge of lines, git's way, its markers labelled as `m`
/// says: `Err` holds the text with conflict markers.
fn three_way(base: &str, ours: &str, theirs: &str, m: &Markers) -> Result<String, String> {
    let mut o = diffy::MergeOptions::new();
    o.set_conflict_style(diffy::ConflictStyle::Merge)
        .set_conflict_marker_length(m.size);
    // diffy names the sides `ours` and `theirs`; a line that is exactly a
    // marker with that name is one of its markers.
    let relabel = |t: String| {
        let (open, close) = ("<".repeat(m.size), ">".repeat(m.size));
        t.split_inclusive('\n')
            .map(|l| {
                let bare = l.trim_end_matches(['\n', '\r']);
                if bare == format!("{open} ours") {
                    l.replacen("ours", &m.ours, 1)
                } else if bare == format!("{close} theirs") {
                    l.replacen("theirs", &m.theirs, 1)
                } else {
                    l.to_owned()
                }
            })
            .collect::<String>()
    };
    o.merge(base, ours, theirs).map_err(relabel)
}

/// The marked blocks of a text: the line of each `<<<<<<<` and the block's
/// text.
fn marker_blocks(text: &str, m: &Markers) -> Vec<(usize, String)> {
    let open = format!("{} ", "<".repeat(m.size));
    let close = format!("{} ", ">".repeat(m.size));
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, l) in text.lines().enumerate() {
        if l.starts_with(&open) && current.is_none() {
            current = Some((i + 1, String::new()));
        } else if l.starts_with(&close) {
            out.extend(current.take());
        } else if let Some((_, b)) = &mut current {
            b.push_str(l);
            b.push('\n');
        }
    }
    out
}

/// `text` without its marker lines: both sides of every block kept, as a
/// reader of the file would see its entries.
fn strip(text: &str, m: &Markers) -> String {
    let bars = ["<", "=", ">"].map(|c| c.repeat(m.size));
    text.split_inclusive('\n')
        .filter(|l| !bars.iter().any(|b| l.starts_with(b.as_str())))
        .collect()
}

/// Whether two texts of one format hold the same entries, whatever they
/// hold around them.
fn same_entries(format: Format, a: &str, b: &str) -> bool {
    let ctx = ace_io::ReadCtx::min(ace_model::Severity::Error);
    let read = |t: &str| format.read(t, &ctx).ok().map(|r| r.parsed.playbook.entries);
    matches!((read(a), read(b)), (Some(x), Some(y)) if x == y)
}

/// `text`, a JSON document, with `new` written over it: only what
/// differs is printed anew.
fn splice_json(text: &str, new: &serde_json::Value) -> Option<String> {
    let doc = ace_jsonspan::parse(text).ok()?;
    let mut edits = Vec::new();
    let mut printer = ace_jsonspan::splice::Plain::of(text);
    ace_jsonspan::splice::edits(text, &doc.root, new, &mut printer, &mut edits);
    ace_model::edit::apply(text, edits)
}

/// The line (from 1) of the value at JSON Pointer `pointer` in `text`.
fn json_line(text: &str, pointer: &str) -> usize {
    let Ok(doc) = ace_jsonspan::parse(text) else {
        return 1;
    };
    let path: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let at = doc.root.locate(&path).value_span().start;
    text[..at].matches('\n').count() + 1
}

/// The line (from 1) of `b` where it first differs from `a`.
fn first_difference_line(a: &str, b: &str) -> usize {
    let same = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    b[..same].matches('\n').count() + 1
}

/// Formats whose conflicts are marked in the file, git's way: those read
/// line by line, where markers are lines like any other prose. In JSON,
/// YAML and TRON they would break the file.
fn takes_markers(format: Format) -> bool {
    matches!(format.name(), "markdown" | "agents-md")
}

/// The merged playbook's text: edits over OURS' where the format splices,
/// else the whole writer's.
fn text(
    format: Format,
    src: &str,
    outcome: &ace_apply::Outcome,
    pb: &Playbook,
    wctx: &ace_io::WriteCtx,
) -> String {
    if !outcome.changed() {
        return src.to_owned();
    }
    match format.imp().rewrite(src, &outcome.before, pb, wctx) {
        Some((edits, _)) => edits.text(src),
        None => ace_io::write_with(format, pb, wctx).text,
    }
}
