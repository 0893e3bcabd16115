//! `cargo xtask speed OLD NEW`: two builds timed side by side, at the
//! sizes users have.
//!
//! OLD and NEW are directories holding the tools (a `target/release` of
//! each build). For each size of `--entries` (1,000 and 10,000 by
//! default) a generated playbook is written in every format, and each
//! build runs, as whole processes:
//! - read: `ace-convert FILE --to json`;
//! - convert: `ace-convert FILE --to markdown` (a markdown file to
//!   skill-json);
//! - apply: `ace-apply FILE PATCH` with the AcePatch of `bench apply`
//!   (counter updates spread over the playbook and new entries), for the
//!   formats that patch applies to.
//!
//! The two builds take turns, the one to start swapping every round, so
//! that a change in the machine's load falls on both; the table gives
//! each one's median of `--runs` (5 by default) and NEW's time as a
//! multiple of OLD's. Formats OLD does not list (`--list-formats`) are
//! left out.
//!
//! With `--instructions`, each build runs each operation once under
//! valgrind's cachegrind, and the table gives the instructions each
//! executed, on all its threads: the work done, which a shared or busy
//! machine does not change the way it changes times.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ace_registry::Format;

pub fn speed(args: &[String]) -> Result<(), String> {
    let usage = "usage: cargo xtask speed OLD_BIN_DIR NEW_BIN_DIR [--entries N[,N...]] [--runs N] [--instructions]";
    let mut dirs = Vec::new();
    let mut sizes = vec![1_000, 10_000];
    let mut runs = 5;
    let mut count = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--entries" => {
                let v = it.next().ok_or(usage)?;
                sizes = v
                    .split(',')
                    .map(|n| {
                        n.trim()
                            .parse()
                            .map_err(|_| format!("--entries {v}: not a list of numbers"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--runs" => {
                let v = it.next().ok_or(usage)?;
                runs = v.parse().map_err(|_| format!("--runs {v}: not a number"))?;
            }
            "--instructions" => count = true,
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    let [old, new] = <[PathBuf; 2]>::try_from(dirs).map_err(|_| usage.to_owned())?;
    for dir in [&old, &new] {
        for tool in ["ace-convert", "ace-apply"] {
            if !dir.join(tool).is_file() {
                return Err(format!("{}: no {tool} here; {usage}", dir.display()));
            }
        }
    }
    // A format newer than OLD is left out: OLD has nothing to time.
    let known = listed_formats(&old)?;
    let dir = crate::scratch("speed")?;
    println!("| entries | format | operation | old | new | new / old |");
    println!("|---|---|---|---|---|---|");
    for &n in &sizes {
        let pb = crate::gen_playbook(n);
        for &format in Format::all() {
            if !known.iter().any(|k| k == format.name()) {
                continue;
            }
            let fdir = dir.join(format!("{n}-{}", format.name()));
            let files = ace_registry::write_files(format, &pb, &Default::default());
            let input = files
                .save_in(format, &fdir, "playbook")
                .map_err(|e| format!("{}: {e}", fdir.display()))?;
            let out = fdir.join("out");
            let to = if format == Format::MARKDOWN {
                Format::SKILL_JSON
            } else {
                Format::MARKDOWN
            };
            let mut ops: Vec<(String, Vec<String>, &str)> = vec![
                (
                    "read".into(),
                    convert_args(&input, Format::JSON, &out),
                    "ace-convert",
                ),
                (
                    format!("convert to {}", to.name()),
                    convert_args(&input, to, &out),
                    "ace-convert",
                ),
            ];
            if crate::apply::FORMATS.contains(&format) {
                let text = std::fs::read_to_string(&input).map_err(|e| e.to_string())?;
                let held = ace_registry::read(format, &text)
                    .map_err(|d| format!("{}: {}", input.display(), d.message))?
                    .playbook;
                let patch = fdir.join("patch.json");
                std::fs::write(&patch, crate::apply::patch(&held)).map_err(|e| e.to_string())?;
                let args = [
                    input.display().to_string(),
                    patch.display().to_string(),
                    "--now".into(),
                    "2026-01-01T00:00:00Z".into(),
                    "-q".into(),
                    "-o".into(),
                    out.display().to_string(),
                ];
                ops.push(("apply".into(), args.to_vec(), "ace-apply"));
            }
            for (op, args, tool) in ops {
                let (o, w, ratio) = if count {
                    let [o, w] = [&old, &new].map(|b| instructions(b, tool, &args));
                    let [o, w] = [o?, w?].map(|i| i as f64 / 1e6);
                    (format!("{o:.1} M"), format!("{w:.1} M"), w / o)
                } else {
                    let [o, w] = alternate(runs, [&old, &new], tool, &args)?;
                    let ms = |d| format!("{:.1} ms", crate::ms(d));
                    (ms(o), ms(w), w.as_secs_f64() / o.as_secs_f64())
                };
                println!(
                    "| {n} | {} | {op} | {o} | {w} | {ratio:.3} |",
                    format.name()
                );
            }
        }
    }
    Ok(())
}

/// The formats the ace-convert in `dir` lists (`--list-formats`): the
/// first word of each line up to the blank line before the table.
fn listed_formats(dir: &Path) -> Result<Vec<String>, String> {
    let tool = dir.join("ace-convert");
    let out = Command::new(&tool)
        .arg("--list-formats")
        .output()
        .map_err(|e| format!("{}: {e}", tool.display()))?;
    if !out.status.success() {
        return Err(format!("{} --list-formats failed", tool.display()));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect())
}

fn convert_args(input: &Path, to: Format, out: &Path) -> Vec<String> {
    let out = out.with_extension(if to == Format::MARKDOWN { "md" } else { "json" });
    vec![
        input.display().to_string(),
        "--to".into(),
        to.name().into(),
        "-q".into(),
        "-o".into(),
        out.display().to_string(),
    ]
}

/// Each build's median of `runs` runs of `tool args`, the builds taking
/// turns and swapping which goes first every round.
fn alternate(
    runs: usize,
    bins: [&Path; 2],
    tool: &str,
    args: &[String],
) -> Result<[Duration; 2], String> {
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for round in 0..runs.max(1) {
        for k in 0..2 {
            let b = (k + round) % 2;
            let took = crate::apply::run(
                Command::new(bins[b].join(tool))
                    .args(args)
                    .env("SOURCE_DATE_EPOCH", "1767225600"),
            )?;
            times[b].push(took);
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    Ok([median(&mut times[0]), median(&mut times[1])])
}

/// The instructions one run of `tool args` executes, all threads
/// together, as cachegrind counts them.
fn instructions(bin: &Path, tool: &str, args: &[String]) -> Result<u64, String> {
    let out = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(bin.join(tool))
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .output()
        .map_err(|e| format!("valgrind (needed by --instructions): {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{tool} under valgrind failed: {err}"));
    }
    err.lines()
        .find_map(|l| l.split_once("I   refs:"))
        .and_then(|(_, n)| n.trim().replace(',', "").parse().ok())
        .ok_or_else(|| format!("no instruction count in valgrind's report: {err}"))
}
