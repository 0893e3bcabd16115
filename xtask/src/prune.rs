//! `cargo xtask bench prune`: `ace-apply FILE --prune` against a no-op
//! rewrite of the same file (`ace-convert FILE --to FORMAT`), per format,
//! on a generated playbook of `ACE_BENCH_APPLY_ENTRIES` entries (1,000,000
//! by default), median of three processes.
//!
//! `--prune --max-entries` keeps nine entries in ten: the rule's entries
//! and the lowest-scoring go. The target is at most 1.5x the baseline.
//! Two rows for information, on markdown up to 100,000 entries: `--prune
//! --max-tokens` (a token budget of nine tenths of the file, counted
//! exactly) and `--dedup`.

use std::path::Path;
use std::process::Command;

use ace_registry::Format;

use crate::apply::{median, run};

fn formats() -> Vec<Format> {
    [
        "markdown",
        "agents-md",
        "skill-json",
        "vagenda-json",
        "skillbook",
    ]
    .iter()
    .filter_map(|n| Format::from_name(n))
    .collect()
}

pub fn prune_bench(bin: &Path) -> Result<(), String> {
    let n = crate::apply::entries()?;
    let dir = crate::scratch("prune")?;
    let pb = crate::gen_playbook(n);
    let runs = 3;
    let max_entries = (n * 9 / 10).to_string();
    println!(
        "\n## ace-apply --prune --max-entries {max_entries} on {n} entries, median of {runs} runs"
    );
    println!("| format | file | no-op rewrite (ace-convert) | ace-apply --prune | ratio (target <= 1.5x) |");
    println!("|---|---|---|---|---|");
    for format in formats() {
        let files = ace_registry::write_files(format, &pb, &Default::default());
        let fdir = dir.join(format.name());
        let input = files
            .save_in(format, &fdir, "playbook")
            .map_err(|e| format!("{}: {e}", fdir.display()))?;
        let size = std::fs::metadata(&input).map_err(|e| e.to_string())?.len();
        let out_dir = dir.join(format!("{}-out", format.name()));
        std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
        let out = out_dir.join(input.file_name().expect("a file name"));
        let convert = median(runs, || {
            run(Command::new(bin.join("ace-convert"))
                .arg(&input)
                .args(["--to", format.name(), "-q", "-o"])
                .arg(&out))
        })?;
        let prune = |extra: &[&str]| {
            median(runs, || {
                run(Command::new(bin.join("ace-apply"))
                    .arg(&input)
                    .args(["--now", "2026-01-01T00:00:00Z", "--isolated", "-q", "-o"])
                    .arg(&out)
                    .args(extra))
            })
        };
        let pruned = prune(&["--prune", "--max-entries", &max_entries])?;
        let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
        let left = ace_registry::read(format, &text)
            .map_err(|d| d.message)?
            .playbook
            .entries
            .len();
        if left > n * 9 / 10 {
            return Err(format!("{format}: {left} entries left of {n}"));
        }
        println!(
            "| {} | {:.0} MB | {:.0} ms | {:.0} ms | {:.2}x |",
            format.name(),
            size as f64 / 1e6,
            crate::ms(convert),
            crate::ms(pruned),
            pruned.as_secs_f64() / convert.as_secs_f64()
        );
        // Counting tokens exactly costs what it costs (`bench tokens`): the
        // rows for information are measured up to 100,000 entries.
        if format == Format::MARKDOWN && n <= 100_000 {
            let source = std::fs::read_to_string(&input).map_err(|e| e.to_string())?;
            let budget = (ace_tokens::Encoding::Cl100k.count(&source) * 9 / 10).to_string();
            let tokens = prune(&["--prune", "--max-tokens", &budget])?;
            let dedup = prune(&["--dedup"])?;
            println!(
                "| markdown, --prune --max-tokens {budget} | | | {:.0} ms | {:.2}x |",
                crate::ms(tokens),
                tokens.as_secs_f64() / convert.as_secs_f64()
            );
            println!(
                "| markdown, --dedup | | | {:.0} ms | {:.2}x |",
                crate::ms(dedup),
                dedup.as_secs_f64() / convert.as_secs_f64()
            );
        }
    }
    Ok(())
}
