//! `cargo xtask bench apply`: `ace-apply` against a no-op rewrite of the
//! same file, per format.
//!
//! For each of the five variants and the canonical JSON, a generated
//! playbook of `ACE_BENCH_APPLY_ENTRIES` entries (10,000 by default: a large playbook
//! an agent keeps) is
//! written, then timed as processes:
//! - the baseline, `ace-convert FILE --to FORMAT -o OUT`: the same file read
//!   and written whole, which is what applying would cost with no changes;
//! - `ace-apply FILE PATCH -o OUT` with an AcePatch of 10,000
//!   `incrementCounter` and 1,000 `appendEntry` operations.
//!
//! The target is at most 1.5x the baseline.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ace_registry::Format;

pub(crate) const FORMATS: [Format; 6] = [
    Format::MARKDOWN,
    Format::JSON,
    Format::AGENTS_MD,
    Format::SKILL_JSON,
    Format::VAGENDA_JSON,
    Format::VAGENDA_TRON,
];

const COUNTS: usize = 10_000;
const APPENDS: usize = 1_000;

/// The patch: counters of entries spread over the playbook, and new
/// entries of kind `strategy`, which the vAgenda reader files under the
/// strategies section.
pub(crate) fn patch(pb: &ace_model::Playbook) -> String {
    let step = (pb.entries.len() / COUNTS).max(1);
    let mut ops: Vec<serde_json::Value> = pb
        .entries
        .iter()
        .step_by(step)
        .take(COUNTS)
        .map(|e| {
            serde_json::json!({"op": "incrementCounter", "entryId": e.id, "delta": {"helpfulCount": 1}})
        })
        .collect();
    for i in 0..APPENDS {
        ops.push(serde_json::json!({"op": "appendEntry", "entry": {
            "id": format!("new-{:05}", i + 1),
            "kind": "strategy",
            "text": format!("Appended advice number {i}: check the input before the loop."),
            "helpfulCount": 0,
            "harmfulCount": 0,
        }}));
    }
    serde_json::json!({ "operations": ops }).to_string()
}

pub(crate) fn run(cmd: &mut Command) -> Result<Duration, String> {
    let t = std::time::Instant::now();
    let out = cmd.output().map_err(|e| e.to_string())?;
    let elapsed = t.elapsed();
    // ace-apply exits 1 when a delta is refused: the bench's patch must
    // apply whole, or the figure measures less than it says.
    if !out.status.success() {
        return Err(format!(
            "{:?} failed: {}",
            cmd,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(elapsed)
}

pub(crate) fn median(
    runs: usize,
    mut f: impl FnMut() -> Result<Duration, String>,
) -> Result<Duration, String> {
    let mut v = (0..runs).map(|_| f()).collect::<Result<Vec<_>, _>>()?;
    v.sort();
    Ok(v[v.len() / 2])
}

/// `ACE_BENCH_APPLY_ENTRIES`, else 10,000: the size of the playbooks
/// `bench apply` and `bench prune` make.
pub(crate) fn entries() -> Result<usize, String> {
    std::env::var("ACE_BENCH_APPLY_ENTRIES")
        .ok()
        .map(|v| {
            v.parse::<usize>()
                .map_err(|_| format!("ACE_BENCH_APPLY_ENTRIES={v}: not a number"))
        })
        .transpose()
        .map(|n| n.unwrap_or(10_000))
}

pub fn apply_bench(bin: &Path) -> Result<(), String> {
    let n = entries()?;
    let dir = crate::scratch("apply")?;
    let pb = crate::gen_playbook(n);
    let runs = 3;
    println!("\n## ace-apply: {COUNTS} counter updates and {APPENDS} new entries on {n} entries, median of {runs} runs");
    println!(
        "| format | file | no-op rewrite (ace-convert) | ace-apply | ratio (target <= 1.5x) |"
    );
    println!("|---|---|---|---|---|");
    for format in FORMATS {
        let files = ace_registry::write_files(format, &pb, &Default::default());
        let fdir = dir.join(format.name());
        let input = files
            .save_in(format, &fdir, "playbook")
            .map_err(|e| format!("{}: {e}", fdir.display()))?;
        let size = std::fs::metadata(&input).map_err(|e| e.to_string())?.len();
        // The IDs as the format holds them: some formats give entries IDs
        // of their own scheme.
        let text = std::fs::read_to_string(&input).map_err(|e| e.to_string())?;
        let held = ace_registry::read(format, &text)
            .map_err(|d| format!("{}: {}", input.display(), d.message))?
            .playbook;
        let patch_file = fdir.join("patch.json");
        std::fs::write(&patch_file, patch(&held)).map_err(|e| e.to_string())?;
        let out_dir = dir.join(format!("{}-out", format.name()));
        std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
        let out = out_dir.join(input.file_name().expect("a file name"));
        let convert = median(runs, || {
            run(Command::new(bin.join("ace-convert"))
                .arg(&input)
                .args(["--to", format.name(), "-q", "-o"])
                .arg(&out))
        })?;
        let apply = median(runs, || {
            run(Command::new(bin.join("ace-apply"))
                .arg(&input)
                .arg(&patch_file)
                .args(["--now", "2026-01-01T00:00:00Z", "-q", "-o"])
                .arg(&out))
        })?;
        println!(
            "| {} | {:.0} MB | {:.0} ms | {:.0} ms | {:.2}x |",
            format.name(),
            size as f64 / 1e6,
            crate::ms(convert),
            crate::ms(apply),
            apply.as_secs_f64() / convert.as_secs_f64()
        );
    }
    Ok(())
}
