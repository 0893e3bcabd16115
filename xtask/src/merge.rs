//! `cargo xtask bench merge`: `ace-merge --base` of twenty runs against
//! `ace-diff` of the same twenty pairs.
//!
//! A generated markdown playbook of `ACE_BENCH_MERGE_ENTRIES` entries
//! (100,000 by default) is BASE; each of twenty runs bumps 1,000 counters
//! (a different spread in each run, so that runs overlap) and adds 50
//! entries under the next free IDs, which every run takes the same, so
//! that the merge renumbers 950 of the 1,000. Timed as processes, median
//! of three: the merge, and the twenty `ace-diff BASE RUN` one after the
//! other. The target is at most 2x.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ace_registry::Format;

const RUNS: usize = 20;
const BUMPS: usize = 1_000;
const NEW: usize = 50;

/// Run `k`: BASE with its bumps and new entries, as markdown.
fn run_of(base: &ace_model::Playbook, k: usize) -> String {
    let mut pb = base.clone();
    let n = pb.entries.len();
    let step = (n / BUMPS).max(1);
    for j in 0..BUMPS.min(n) {
        let e = &mut pb.entries[(j * step + k * 37) % n];
        e.helpful = Some(e.helpful.unwrap_or(0) + 1 + (k % 3) as i64);
    }
    let top = pb
        .entries
        .iter()
        .filter_map(|e| ace_model::ids::parse_prefixed(&e.id).map(|p| p.number))
        .max()
        .unwrap_or(0);
    let section = pb.entries.first().and_then(|e| e.section.clone());
    for j in 0..NEW {
        pb.entries.push(ace_model::Entry {
            id: format!("str-{:05}", top + 1 + j as u64),
            section: section.clone(),
            content: format!("Run {k} learned lesson {j}: check the page size first."),
            helpful: Some(1),
            harmful: Some(0),
            ..ace_model::Entry::default()
        });
    }
    ace_registry::write(Format::MARKDOWN, &pb).text
}

fn timed(mut f: impl FnMut() -> Result<(), String>) -> Result<Duration, String> {
    let mut v = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        f()?;
        v.push(t.elapsed());
    }
    v.sort();
    Ok(v[1])
}

pub fn merge_bench(bin: &Path) -> Result<(), String> {
    let n = std::env::var("ACE_BENCH_MERGE_ENTRIES")
        .ok()
        .map(|v| {
            v.parse::<usize>()
                .map_err(|_| format!("ACE_BENCH_MERGE_ENTRIES={v}: not a number"))
        })
        .transpose()?
        .unwrap_or(100_000);
    let dir = crate::scratch("merge")?;
    let text = crate::generate(n);
    let base = ace_markdown::read(&text).playbook;
    let base_file = dir.join("base.md");
    std::fs::write(&base_file, &text).map_err(|e| e.to_string())?;
    let mut runs = Vec::new();
    for k in 0..RUNS {
        let f = dir.join(format!("run{:02}.md", k + 1));
        std::fs::write(&f, run_of(&base, k)).map_err(|e| e.to_string())?;
        runs.push(f);
    }
    let out = dir.join("merged.md");
    let merge = timed(|| {
        let o = Command::new(bin.join("ace-merge"))
            .arg("--base")
            .arg(&base_file)
            .args(&runs)
            .args(["--now", "2026-01-01T00:00:00Z", "-o"])
            .arg(&out)
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!(
                "ace-merge failed: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        Ok(())
    })?;
    let diffs = timed(|| {
        for r in &runs {
            let o = Command::new(bin.join("ace-diff"))
                .arg(&base_file)
                .arg(r)
                .output()
                .map_err(|e| e.to_string())?;
            // 1: the two differ, as they do.
            if o.status.code() != Some(1) {
                return Err(format!(
                    "ace-diff failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
        }
        Ok(())
    })?;
    // The merge did what it says: BASE's entries, and every run's new
    // entries once each.
    let merged = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let got = ace_markdown::read(&merged).playbook.entries.len();
    if got != n + RUNS * NEW {
        return Err(format!(
            "the merge has {got} entries, not {}",
            n + RUNS * NEW
        ));
    }
    println!(
        "\n## ace-merge --base: {RUNS} runs of {n} entries, each {BUMPS} counter changes and {NEW} new entries, median of 3"
    );
    println!("| ace-merge (one process) | ace-diff ({RUNS} processes) | ratio (target <= 2x) |");
    println!("|---|---|---|");
    println!(
        "| {:.0} ms | {:.0} ms | {:.2}x |",
        crate::ms(merge),
        crate::ms(diffs),
        merge.as_secs_f64() / diffs.as_secs_f64()
    );
    Ok(())
}
