//! `ace-merge BASE OURS THEIRS`: a three-way merge of playbooks by the
//! ACE merge rules (counters add, appends commute, deprecation wins, two
//! changes of one field conflict), as git's merge driver:
//! `ace-merge %O %A %B --path %P` writes the result into OURS.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use ace_apply::merge::plan;
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
    let mut ours = read(&ours_src, format)?;
    let theirs = read(&theirs_src, format)?;
    let p = plan(&base, &ours, &theirs);
    let now = ace_tools::now(args.now.as_deref()).map_err(|e| {
        error(PROG, e);
        EXIT_USAGE
    })?;
    // Lines of OURS' entries, for the conflicts' messages.
    let lines = LineIndex::new(&ours_src.text);
    let at: std::collections::HashMap<String, usize> = p
        .conflicts
        .iter()
        .map(|c| {
            let line = ours
                .entries
                .iter()
                .find(|e| e.id == c.entry || e.content == c.entry)
                .and_then(|e| e.origin.0)
                .map_or(1, |s| lines.line_col(&ours_src.text, s.start).line);
            (c.entry.clone(), line)
        })
        .collect();
    let line_of = |id: &str| at.get(id).copied().unwrap_or(1);
    for c in &p.conflicts {
        eprintln!(
            "{name}:{}: conflict: `{}` {}: ours {}, theirs {}; ours kept",
            line_of(&c.entry),
            c.entry,
            c.field,
            c.ours,
            c.theirs
        );
    }
    let sections = Arc::new(ace_model::mapping::SectionMap::default());
    let t = Traits::of(format, &ours, sections.clone());
    let opts = ace_apply::Options {
        now: now.clone(),
        ..ace_apply::Options::default()
    };
    let outcome = ace_apply::apply(&mut ours, &[(0, p.delta)], &t, &opts);
    for v in outcome.rejected() {
        if let Some(r) = &v.refusal {
            eprintln!("{name}: {PROG}: THEIRS' change not applied: {}", r.message);
        }
    }
    let dest = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.ours));
    // As ace-apply writes: OURS as it is when nothing changed, else edits
    // over its text where the format splices, else the whole writer's.
    let src: &str = &ours_src.text;
    let written = if outcome.changed() {
        let wctx = ace_io::WriteCtx::default()
            .with_now(Some(now))
            .with_sections(sections);
        match format.imp().rewrite(src, &outcome.before, &ours, &wctx) {
            Some((edits, _)) => ace_io::write_atomic_pieces(&dest, edits.pieces(src)),
            None => ace_io::write_atomic(
                &dest,
                ace_io::write_with(format, &ours, &wctx).text.as_bytes(),
            ),
        }
    } else {
        ace_io::write_atomic(&dest, src.as_bytes())
    };
    written.map_err(|e| {
        error(PROG, format!("{}: {e}", dest.display()));
        EXIT_USAGE
    })?;
    if let Some(f) = &args.conflicts {
        let report: Vec<serde_json::Value> = p
            .conflicts
            .iter()
            .map(|c| {
                serde_json::json!({"path": name, "line": line_of(&c.entry), "entry": c.entry,
                    "field": c.field, "ours": c.ours, "theirs": c.theirs})
            })
            .collect();
        let body = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        ace_io::write_atomic(f, body.as_bytes()).map_err(|e| {
            error(PROG, format!("{}: {e}", f.display()));
            EXIT_USAGE
        })?;
    }
    Ok(if p.conflicts.is_empty() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    })
}
