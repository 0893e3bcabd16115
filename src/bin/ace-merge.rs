//! `ace-merge BASE OURS THEIRS`: a three-way merge of playbooks by the
//! ACE merge rules (counters add, appends commute, deprecation wins, two
//! changes of one field conflict), as git's merge driver:
//! `ace-merge %O %A %B --path %P` writes the result into OURS.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ace_apply::merge::{merge_file, merge_lines, FileOptions, Markers};
use ace_fs::Source;
use ace_model::Playbook;
use ace_registry::Format;
use ace_tools::{error, load_input, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use clap::Parser;

use ace_tools::cli::merge::*;

fn main() -> ExitCode {
    ace_tools::prepare_process();
    let args = Args::parse();
    ExitCode::from(run(&args) as u8)
}

/// The playbook `source` holds, or why it is not one: the findings that
/// stop reading it, in one line.
fn read(source: &Source, format: Format) -> Result<Playbook, String> {
    ace_registry::convert::read_playbook(source, format).map_err(|stop| stop.to_string())
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
    let registry = ace_registry::Registry::builtin();
    let format = args.from.unwrap_or_else(|| {
        let by_name = args
            .path
            .as_deref()
            .map(Path::new)
            .or(ours_src.path.as_deref());
        registry.detect(by_name, &ours_src.text)
    });
    let now = ace_tools::now(args.now.as_deref()).map_err(|e| {
        error(PROG, e);
        EXIT_USAGE
    })?;
    let markers = Markers {
        size: args.marker_size,
        ours: args.ours_label.clone(),
        theirs: args.theirs_label.clone(),
    };
    let dest = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.ours));
    let write = |text: &str| {
        ace_fs::write_atomic(&dest, text.as_bytes(), None).map_err(|e| {
            error(PROG, format!("{}: {e}", dest.display()));
            EXIT_USAGE
        })
    };
    let read_all = || -> Result<_, (String, String)> {
        let read = |s: &Source| read(s, format).map_err(|e| (s.name.clone(), e));
        Ok((read(&base_src)?, read(&ours_src)?, read(&theirs_src)?))
    };
    let (base, ours, theirs) = match read_all() {
        Ok(all) => all,
        Err((file, why)) => {
            // Never worse than git without the driver: the lines merged as
            // git merges them.
            eprintln!(
                "{name}: {PROG}: {file} is not a readable {} playbook ({why}); merged line by line",
                format.name()
            );
            let (text, clean) =
                match merge_lines(&base_src.text, &ours_src.text, &theirs_src.text, &markers) {
                    Ok(t) => (t, true),
                    Err(t) => (t, false),
                };
            write(&text)?;
            if !clean {
                eprintln!("{name}: conflict: lines changed on both sides; marked");
                return Ok(EXIT_FINDINGS);
            }
            return Ok(readable(&name, &text, format));
        }
    };
    let merged = merge_file(
        format,
        side(&base_src, &base),
        side(&ours_src, &ours),
        side(&theirs_src, &theirs),
        &FileOptions { now, markers },
    );
    for r in &merged.refused {
        eprintln!("{name}: {PROG}: THEIRS' change not applied: {r}");
    }
    write(&merged.text)?;
    let mut report = Vec::new();
    for r in &merged.conflicts {
        eprintln!("{name}:{}: conflict: {}", r.line, r.message);
        report.push(r.to_json(&name));
    }
    if let Some(f) = &args.conflicts {
        let body = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        ace_fs::write_atomic(f, body.as_bytes(), None).map_err(|e| {
            error(PROG, format!("{}: {e}", f.display()));
            EXIT_USAGE
        })?;
    }
    if !report.is_empty() {
        return Ok(EXIT_FINDINGS);
    }
    Ok(readable(&name, &merged.text, format))
}

/// A merge that leaves no conflict marked is clean only if its result
/// reads as a playbook: git commits a clean result as it is, and a
/// broken side (a truncated JSON) must not pass through as a clean merge.
fn readable(name: &str, text: &str, format: Format) -> i32 {
    let source = Source {
        name: name.to_owned(),
        path: None,
        text: text.to_owned().into(),
    };
    match read(&source, format) {
        Ok(_) => EXIT_OK,
        Err(why) => {
            eprintln!(
                "{name}: conflict: the merged file does not read as a {} playbook ({why}); resolve it by hand",
                format.name()
            );
            EXIT_FINDINGS
        }
    }
}

fn side<'a>(src: &'a Source, playbook: &'a Playbook) -> ace_apply::merge::Side<'a> {
    ace_apply::merge::Side {
        text: &src.text,
        playbook,
    }
}
