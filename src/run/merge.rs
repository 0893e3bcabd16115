//! `ace-merge`: its command-line flow, from the parsed arguments to the
//! exit status. What it does lives in the library crates.

//! `ace-merge BASE OURS THEIRS`: a three-way merge of playbooks by the
//! ACE merge rules (counters add, appends commute, deprecation wins, two
//! changes of one field conflict), as git's merge driver:
//! `ace-merge %O %A %B --path=%P` writes the result into OURS.

use std::path::{Path, PathBuf};

use crate::{error, load_input, ExitStatus};
use ace_apply::merge::{Caller, FileOptions, Markers, ThreeWay};
use ace_fs::Source;
use ace_model::Playbook;
use ace_registry::Format;

use crate::cli::merge::*;

/// The playbook `source` holds, or why it is not one: the findings that
/// stop reading it, in one line.
fn read(source: &Source, format: Format) -> Result<Playbook, String> {
    ace_registry::convert::read_playbook(source, format).map_err(|stop| stop.to_string())
}

/// `--from`, else the format `--path` (git's name for the file) or the
/// file's own name and its content say.
fn format_of(args: &Args, src: &Source) -> Format {
    args.from.unwrap_or_else(|| {
        let by_name = args.path.as_deref().or(src.path.as_deref());
        ace_registry::Registry::builtin().detect(by_name, &src.text)
    })
}

/// The tool's run: what it does with `args`, and the status it exits with.
pub fn run(args: &Args) -> ExitStatus {
    merge(args).unwrap_or_else(|code| code)
}

fn load(p: &str) -> Result<Source, ExitStatus> {
    load_input(p, "-").map_err(|e| {
        error(PROG, e);
        ExitStatus::Refused
    })
}

fn merge(args: &Args) -> Result<ExitStatus, ExitStatus> {
    if let Some(base) = &args.base {
        return merge_runs(args, base);
    }
    let [base, ours, theirs] = args.files.as_slice() else {
        error(
            PROG,
            format!(
                "a three-way merge takes BASE OURS THEIRS ({} given); to merge runs from one base, give it with --base",
                args.files.len()
            ),
        );
        return Err(ExitStatus::Refused);
    };
    let (base_src, ours_src, theirs_src) = (load(base)?, load(ours)?, load(theirs)?);
    let name = args
        .path
        .as_ref()
        .map_or_else(|| ours_src.name.clone(), |p| p.display().to_string());
    let format = format_of(args, &ours_src);
    let now = crate::now(args.now.as_deref()).map_err(|e| {
        error(PROG, e);
        ExitStatus::Refused
    })?;
    let markers = Markers {
        size: args.marker_size,
        ours: args.ours_label.clone(),
        theirs: args.theirs_label.clone(),
    };
    let dest = args.output.clone().unwrap_or_else(|| PathBuf::from(ours));
    let permit = ace_fs::Held::default().forcing(args.force);
    let write = |text: &str| {
        ace_fs::write_atomic(&dest, text.as_bytes(), Some(&permit)).map_err(|e| {
            error(PROG, format!("{}: {e}", dest.display()));
            ExitStatus::Refused
        })
    };
    let three = ace_apply::merge::merge_three(
        format,
        &base_src,
        &ours_src,
        &theirs_src,
        &FileOptions { now, markers },
        args.allow_empty,
    );
    // A refused side leaves OURS as it was, and git takes the non-zero
    // exit for a conflict.
    let three = three.map_err(|(side, unfit)| {
        error(PROG, unfit.message(&side, format, Caller::Cli));
        ExitStatus::Refused
    })?;
    write(three.text())?;
    let mut report = Vec::new();
    match &three {
        ThreeWay::ByLines {
            file, why, clean, ..
        } => {
            crate::say!(
                "{name}: {PROG}: {file} is not a readable {} playbook ({why}); merged line by line",
                format.name()
            );
            if !clean {
                crate::say!("{name}: conflict: lines changed on both sides; marked");
            }
        }
        ThreeWay::Merged { merged, .. } => {
            for r in &merged.refused {
                crate::say!("{name}: {PROG}: THEIRS' change not applied: {r}");
            }
            let theirs = || args.theirs_label.clone();
            let ids = ace_apply::merge::id_map_json(
                merged.renumbered.iter().map(|r| (theirs(), r)),
                merged.joined.iter().map(|j| (theirs(), j)),
            );
            report_ids(args, &name, &ids)?;
            for r in &merged.conflicts {
                crate::say!("{name}:{}: conflict: {}", r.line, r.message);
                report.push(r.to_json(&name));
            }
            write_json(args, args.conflicts.as_deref(), &report)?;
        }
    }
    if let ThreeWay::Merged {
        unreadable: Some(why),
        ..
    }
    | ThreeWay::ByLines {
        unreadable: Some(why),
        ..
    } = &three
    {
        crate::say!(
            "{name}: conflict: the merged file does not read as a {} playbook ({why}); resolve it by hand",
            format.name()
        );
    }
    Ok(match three.clean() {
        true => ExitStatus::Ok,
        false => ExitStatus::Findings,
    })
}

/// Says on stderr which new entries took other IDs, and writes them to
/// `--id-map`.
fn report_ids(args: &Args, name: &str, ids: &[serde_json::Value]) -> Result<(), ExitStatus> {
    for m in ids {
        let (run, old, new) = (&m["run"], &m["old"], &m["new"]);
        let (run, old, new) = (
            run.as_str().unwrap_or_default(),
            old.as_str().unwrap_or_default(),
            new.as_str().unwrap_or_default(),
        );
        if m["joined"] == true {
            crate::say!("{name}: {PROG}: new entry `{old}` of {run} is `{new}`, added before it: one entry, counters added");
        } else {
            crate::say!("{name}: {PROG}: new entry `{old}` of {run} renumbered `{new}`: the ID was taken by another new entry");
        }
    }
    write_json(args, args.id_map.as_deref(), ids)
}

/// Writes `list` as a JSON array to `path` (`--conflicts`, `--id-map`),
/// if one was given.
fn write_json(
    args: &Args,
    path: Option<&Path>,
    list: &[serde_json::Value],
) -> Result<(), ExitStatus> {
    let Some(f) = path else { return Ok(()) };
    let body = serde_json::to_string_pretty(list).unwrap_or_default() + "\n";
    let permit = ace_fs::Held::default().forcing(args.force);
    ace_fs::write_atomic(f, body.as_bytes(), Some(&permit)).map_err(|e| {
        error(PROG, format!("{}: {e}", f.display()));
        ExitStatus::Refused
    })
}

/// `ace-merge --base BASE RUN...`: the runs merged into one, written to
/// `-o` (standard output by default).
fn merge_runs(args: &Args, base_path: &str) -> Result<ExitStatus, ExitStatus> {
    let base_src = load(base_path)?;
    let run_srcs: Vec<Source> = args
        .files
        .iter()
        .map(|p| load(p))
        .collect::<Result<_, _>>()?;
    let format = format_of(args, &base_src);
    let base = read(&base_src, format).map_err(|why| {
        error(
            PROG,
            ace_apply::merge::Unfit::Unreadable(why).message(&base_src.name, format, Caller::Cli),
        );
        ExitStatus::Findings
    })?;
    let runs: Vec<Playbook> = run_srcs
        .iter()
        .map(|s| {
            ace_apply::merge::read_side(s, format, (&base_src.text, &base), args.allow_empty)
                .map_err(|unfit| {
                    error(PROG, unfit.message(&s.name, format, Caller::Cli));
                    match unfit {
                        ace_apply::merge::Unfit::Unreadable(_) => ExitStatus::Findings,
                        _ => ExitStatus::Refused,
                    }
                })
        })
        .collect::<Result<_, _>>()?;
    let now = ace_model::time::now_of(args.now.as_deref(), &runs).map_err(|e| {
        error(PROG, e);
        ExitStatus::Refused
    })?;
    let refs: Vec<&Playbook> = runs.iter().collect();
    let merged = ace_apply::merge::merge_runs(format, &base_src.text, &base, &refs, &now);
    let run_name = |i: usize| run_srcs[i].name.clone();
    for (i, r) in &merged.refused {
        crate::say!("{}: {PROG}: change not applied: {r}", run_name(*i));
    }
    let out_name = match args.output.as_deref() {
        Some(p) if p != Path::new("-") => {
            let permit = ace_fs::Held::default().forcing(args.force);
            ace_fs::write_atomic(p, merged.text.as_bytes(), Some(&permit)).map_err(|e| {
                error(PROG, format!("{}: {e}", p.display()));
                ExitStatus::Refused
            })?;
            p.display().to_string()
        }
        _ => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            if out
                .write_all(merged.text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return Err(ExitStatus::Refused);
            }
            "-".to_owned()
        }
    };
    let names: Vec<String> = run_srcs.iter().map(|s| s.name.clone()).collect();
    report_ids(args, &out_name, &merged.id_map_json(&names))?;
    let report = merged.conflicts_json(format, &out_name, &names);
    for c in &report {
        let kept = c["kept_run"].as_str().unwrap_or("BASE");
        crate::say!(
            "{out_name}:{}: conflict: `{}` {}: {kept} kept {}, {}'s {} not applied",
            c["line"],
            c["entry"].as_str().unwrap_or_default(),
            c["field"].as_str().unwrap_or_default(),
            c["kept"],
            c["run"].as_str().unwrap_or_default(),
            c["value"]
        );
    }
    write_json(args, args.conflicts.as_deref(), &report)?;
    Ok(if report.is_empty() && merged.refused.is_empty() {
        ExitStatus::Ok
    } else {
        ExitStatus::Findings
    })
}
