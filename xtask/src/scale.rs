//! `cargo xtask bench scale`: every format at 1k, 10k, 100k and 1M entries.
//!
//! For each size it generates one playbook ([`crate::gen_playbook`]) and
//! measures, per format, the writer and the reader in-process (MB/s of the
//! format's own bytes), then every conversion between the five variants as
//! an `ace-convert` process, with its wall time, its throughput (input bytes
//! per second) and its peak resident memory (from `wait4`). Baselines for
//! each size: `cat` of the markdown file and `serde_json` parsing the same
//! playbook as canonical JSON. The last table says whether each cost grows
//! linearly with the number of entries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ace_registry::Format;

const VARIANTS: [Format; 5] = [
    Format::MARKDOWN,
    Format::AGENTS_MD,
    Format::SKILL_JSON,
    Format::VAGENDA_JSON,
    Format::VAGENDA_TRON,
];

/// Formats whose reader and writer are timed in-process: the five variants,
/// the curator's playbook.yaml on its own (in the pair it holds only the
/// sections) and the canonical JSON.
fn timed() -> &'static [Format] {
    Format::all()
}

/// Sizes up to `max` entries.
fn sizes(max: usize) -> Vec<usize> {
    [1_000, 10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|n| *n <= max)
        .collect()
}

/// Where a variant's files go: one file, or a directory with the format's
/// file and its companion (AGENTS.md and playbook.yaml).
fn path_of(dir: &Path, f: Format) -> PathBuf {
    match f.companion() {
        Some(_) => dir.join(f.name()),
        None => dir.join(format!("playbook.{}", f.name())),
    }
}

/// The main file and the companion file of a variant, if it has one.
fn files_of(dir: &Path, f: Format) -> (PathBuf, Option<PathBuf>) {
    let p = path_of(dir, f);
    match f.companion() {
        Some(c) => (p.join(c.main_file()), Some(p.join(c.file_names()[0]))),
        None => (p, None),
    }
}

/// The bytes a variant is made of (its file and its companion's).
fn size_of(dir: &Path, f: Format) -> u64 {
    let (main, companion) = files_of(dir, f);
    [Some(main), companion]
        .iter()
        .flatten()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

fn write(dir: &Path, f: Format, pb: &ace_model::Playbook) -> Result<(Duration, usize), String> {
    let (main, companion) = files_of(dir, f);
    let t = Instant::now();
    let files = ace_registry::write_files(f, pb, &Default::default());
    let took = t.elapsed();
    let mut bytes = 0;
    for (path, text) in [(Some(main), Some(files.main)), (companion, files.companion)] {
        let (Some(path), Some(text)) = (path, text) else {
            continue;
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        bytes += text.len();
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok((took, bytes))
}

fn read(dir: &Path, f: Format) -> Result<(Duration, usize), String> {
    let (main, companion) = files_of(dir, f);
    let text = std::fs::read_to_string(&main).map_err(|e| e.to_string())?;
    let companion = companion
        .map(|p| std::fs::read_to_string(p).map_err(|e| e.to_string()))
        .transpose()?;
    let t = Instant::now();
    let parsed = ace_registry::read_files(f, &text, companion.as_deref()).map_err(|d| d.message)?;
    let took = t.elapsed();
    let n = parsed.playbook.entries.len();
    drop(parsed);
    Ok((took, n))
}

/// Runs `cmd` through `xtask __measure`, a small process of its own, and
/// gives its wall time and peak RSS in bytes. Spawned straight from this
/// process, a child's `ru_maxrss` starts from this process's resident size
/// (the generated playbooks), which would swamp what is measured.
pub(crate) fn run_measured(cmd: &mut Command) -> Result<(Duration, u64, bool), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg("__measure")
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let parts: Vec<&str> = text.split_whitespace().collect();
    match parts.as_slice() {
        [nanos, rss, ok] => Ok((
            Duration::from_nanos(nanos.parse().map_err(|_| text.to_string())?),
            rss.parse().map_err(|_| text.to_string())?,
            *ok == "ok",
        )),
        _ => Err(format!("xtask __measure said `{text}`")),
    }
}

/// `xtask __measure PROGRAM ARGS...`: runs the program and prints its wall
/// time in nanoseconds, its peak RSS in bytes and `ok` or `failed`.
pub fn measure(args: &[String]) -> Result<(), String> {
    let (program, rest) = args.split_first().ok_or("__measure needs a program")?;
    let (took, rss, ok) = spawn_and_wait(Command::new(program).args(rest))?;
    println!(
        "{} {rss} {}",
        took.as_nanos(),
        if ok { "ok" } else { "failed" }
    );
    Ok(())
}

/// The child's wall time, peak RSS and success, its output discarded.
fn spawn_and_wait(cmd: &mut Command) -> Result<(Duration, u64, bool), String> {
    let t = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let (ok, peak) = wait_with_peak(child)?;
    Ok((t.elapsed(), peak, ok))
}

/// Success and peak RSS, from `wait4`'s accounting.
#[cfg(unix)]
fn wait_with_peak(child: std::process::Child) -> Result<(bool, u64), String> {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for the child we spawned
    // and have not waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if r != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    // ru_maxrss is in kilobytes on Linux.
    Ok((ok, usage.ru_maxrss as u64 * 1024))
}

/// Success alone: only Unix has `wait4`'s accounting, so the peak is 0
/// and the benchmarks' memory columns say nothing there.
#[cfg(not(unix))]
fn wait_with_peak(mut child: std::process::Child) -> Result<(bool, u64), String> {
    let status = child.wait().map_err(|e| e.to_string())?;
    Ok((status.success(), 0))
}

fn convert(
    exe: &Path,
    dir: &Path,
    from: Format,
    to: Format,
) -> Result<(Duration, u64, bool), String> {
    let (main, companion) = files_of(dir, from);
    let out = dir.join(format!("out-{}-{}", from.name(), to.name()));
    let mut cmd = Command::new(exe);
    cmd.arg(main);
    if let Some(companion) = companion {
        cmd.arg("--sections").arg(companion);
    }
    cmd.args(["--from", from.name(), "--to", to.name(), "-q", "-o"]);
    // A format with a companion is written as the pair, into a directory.
    if to.companion().is_some() {
        cmd.arg(format!("{}/", out.display()));
    } else {
        cmd.arg(&out);
    }
    let r = run_measured(&mut cmd);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&out);
    r
}

fn mb(bytes: f64) -> f64 {
    bytes / 1e6
}

fn mbps(bytes: u64, d: Duration) -> f64 {
    mb(bytes as f64) / d.as_secs_f64().max(1e-9)
}

pub fn scale_bench(max: usize) -> Result<(), String> {
    let exe = crate::release_dir().join("ace-convert");
    let root = crate::scratch("scale")?;
    // (format, size) -> read seconds per entry, for the linearity table
    let mut read_cost: BTreeMap<(&str, usize), f64> = BTreeMap::new();
    let mut conv_cost: BTreeMap<(String, usize), f64> = BTreeMap::new();
    let mut worst_ratio: (f64, String) = (0.0, String::new());
    let mut slowest: (f64, String) = (f64::MAX, String::new());
    for n in sizes(max) {
        let dir = root.join(format!("{n}"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let pb = crate::gen_playbook(n);
        println!("\n## {n} entries");
        println!("| format | file | write | read |");
        println!("|---|---|---|---|");
        for &f in timed() {
            let (wt, bytes) = write(&dir, f, &pb)?;
            let (rt, entries) = read(&dir, f)?;
            if entries != n {
                return Err(format!("{f}: {entries} entries read back, {n} written"));
            }
            read_cost.insert((f.name(), n), rt.as_secs_f64() / n as f64);
            println!(
                "| {} | {:.1} MB | {:.0} MB/s | {:.0} MB/s |",
                f.name(),
                mb(bytes as f64),
                mbps(bytes as u64, wt),
                mbps(bytes as u64, rt)
            );
        }
        drop(pb);
        // Baselines: the floor of touching the bytes, and a plain parse.
        let md = path_of(&dir, Format::MARKDOWN);
        let md_bytes = size_of(&dir, Format::MARKDOWN);
        let (cat, _, _) = run_measured(Command::new("cat").arg(&md))?;
        let json = std::fs::read(path_of(&dir, Format::JSON)).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let v: serde_json::Value = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
        let sj = t.elapsed();
        drop(v);
        println!(
            "| baseline: `cat` of the markdown file (process) | {:.1} MB | | {:.0} MB/s |",
            mb(md_bytes as f64),
            mbps(md_bytes, cat)
        );
        println!(
            "| baseline: serde_json to `Value`, canonical JSON | {:.1} MB | | {:.0} MB/s |",
            mb(json.len() as f64),
            mbps(json.len() as u64, sj)
        );
        drop(json);
        println!("\n`ace-convert` processes, {n} entries: wall time, input MB/s, peak RSS as a multiple of the input size");
        print!("| from \\ to |");
        for to in VARIANTS {
            print!(" {} |", to.name());
        }
        println!();
        println!("|---|---|---|---|---|---|");
        for from in VARIANTS {
            let input = size_of(&dir, from);
            print!("| {} ({:.1} MB) |", from.name(), mb(input as f64));
            for to in VARIANTS {
                let (mut took, mut rss, ok) = convert(&exe, &dir, from, to)?;
                // The VM's page-fault cost varies from run to run: the
                // better of two runs is shown, and the higher peak memory.
                let (t2, r2, ok2) = convert(&exe, &dir, from, to)?;
                if ok2 && t2 < took {
                    took = t2;
                }
                rss = rss.max(r2);
                if !ok {
                    return Err(format!("ace-convert {from} -> {to} failed at {n} entries"));
                }
                let ratio = rss as f64 / input as f64;
                let speed = mbps(input, took);
                conv_cost.insert(
                    (format!("{}->{}", from.name(), to.name()), n),
                    took.as_secs_f64() / n as f64,
                );
                if n == max_size(max) {
                    if ratio > worst_ratio.0 {
                        worst_ratio = (ratio, format!("{from} -> {to}"));
                    }
                    if speed < slowest.0 {
                        slowest = (speed, format!("{from} -> {to}"));
                    }
                }
                print!(
                    " {:.2} s, {:.0} MB/s, {:.1}x |",
                    took.as_secs_f64(),
                    speed,
                    ratio
                );
            }
            println!();
        }
        if !root.keep {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    let all = sizes(max);
    if let (Some(&small), Some(&large)) = (
        all.iter().find(|n| **n >= 10_000).or(all.first()),
        all.last(),
    ) {
        if large > small {
            println!("\n## Linearity: cost per entry at {large} over cost per entry at {small} (1.0 is linear)");
            println!("| operation | ratio |");
            println!("|---|---|");
            for f in timed() {
                let (a, b) = (read_cost[&(f.name(), small)], read_cost[&(f.name(), large)]);
                println!("| read {} | {:.2} |", f.name(), b / a);
            }
            let worst = conv_cost
                .keys()
                .map(|(k, _)| k.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .map(|k| {
                    (
                        conv_cost[&(k.clone(), large)] / conv_cost[&(k.clone(), small)],
                        k,
                    )
                })
                .fold((0.0, String::new()), |m, x| if x.0 > m.0 { x } else { m });
            println!("| least linear conversion ({}) | {:.2} |", worst.1, worst.0);
        }
    }
    println!(
        "\nAt {} entries: slowest conversion {} at {:.0} MB/s (target: 100 MB/s or more); highest peak memory {} at {:.1}x the input (target: 4x or less).",
        max_size(max),
        slowest.1,
        slowest.0,
        worst_ratio.1,
        worst_ratio.0
    );
    Ok(())
}

fn max_size(max: usize) -> usize {
    sizes(max).last().copied().unwrap_or(0)
}
