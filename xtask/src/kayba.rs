//! `cargo xtask bench kayba`: ace-tools against kayba's own skillbook code
//! (0.13.0, unpacked by tests/kayba/install.sh into `ACE_KAYBA`), whole
//! processes side by side on a skillbook of `ACE_BENCH_KAYBA_SKILLS`
//! skills (10,000 by default) that kayba's API made: reading it, a no-op
//! rewrite, and applying one update batch. Each run is timed three times;
//! the median wall time and the peak resident memory (`wait4`) are shown,
//! with ace-tools' speed-up and memory against kayba's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::scale::run_measured;

const RUNS: usize = 3;

fn median(mut v: Vec<(Duration, u64)>) -> (Duration, u64) {
    v.sort_by_key(|x| x.0);
    let peak = v.iter().map(|x| x.1).max().unwrap_or(0);
    (v[v.len() / 2].0, peak)
}

/// Median wall time and the largest peak memory of three runs of `cmd`,
/// which must succeed.
pub(crate) fn timed(cmd: &mut Command) -> Result<(Duration, u64), String> {
    timed_exiting(cmd, true)
}

/// [`timed`], with `must_succeed` false for a command whose exit status
/// is its findings.
pub(crate) fn timed_exiting(
    cmd: &mut Command,
    must_succeed: bool,
) -> Result<(Duration, u64), String> {
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        let (took, rss, ok) = run_measured(cmd)?;
        if must_succeed && !ok {
            return Err(format!("{cmd:?} failed"));
        }
        runs.push((took, rss));
    }
    Ok(median(runs))
}

pub fn kayba_bench(bin: &Path) -> Result<(), String> {
    let root = std::env::var_os("ACE_KAYBA")
        .map(PathBuf::from)
        .ok_or("set ACE_KAYBA to a folder tests/kayba/install.sh filled")?;
    let skills: usize = std::env::var("ACE_BENCH_KAYBA_SKILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let oracle = crate::root().join("tests/kayba/oracle.py");
    let dir = crate::scratch("kayba")?;
    let book = dir.join("skillbook.json");
    let batch = dir.join("batch.json");
    let out = dir.join("out.json");
    println!("generating {skills} skills with kayba 0.13.0's API ...");
    let status = Command::new("python3")
        .arg(&oracle)
        .arg(&root)
        .args(["0.13.0", "generate", &skills.to_string()])
        .arg(&book)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("the oracle could not generate the skillbook".into());
    }
    std::fs::write(
        &batch,
        r#"{"reasoning": "one increment", "operations": [{"type": "TAG", "section": "context", "skill_id": "context-00002", "metadata": {"delta": 1}}]}"#,
    )
    .map_err(|e| e.to_string())?;
    let size = std::fs::metadata(&book).map_err(|e| e.to_string())?.len();
    let kayba = |args: &[&Path]| {
        let mut c = Command::new("python3");
        c.arg(&oracle).arg(&root).arg("0.13.0").args(args);
        c
    };
    let tool = |name: &str| Command::new(bin.join(name));
    let rows: Vec<(&str, Command, Command)> = vec![
        (
            "read (ace-convert --to json)",
            kayba(&[Path::new("read"), &book]),
            {
                let mut c = tool("ace-convert");
                c.arg(&book)
                    .args(["--to", "json", "-o"])
                    .arg(dir.join("read.json"));
                c
            },
        ),
        (
            "read and lint (ace-validate)",
            kayba(&[Path::new("read"), &book]),
            {
                let mut c = tool("ace-validate");
                c.arg(&book);
                c
            },
        ),
        (
            "no-op rewrite",
            kayba(&[Path::new("resave"), &book, &out]),
            {
                let mut c = tool("ace-convert");
                c.arg(&book).args(["--to", "skillbook", "-o"]).arg(&out);
                c
            },
        ),
        (
            "apply one batch",
            kayba(&[Path::new("apply"), &book, &batch, &out]),
            {
                let mut c = tool("ace-apply");
                c.arg(&book).arg(&batch).arg("-o").arg(&out);
                c
            },
        ),
    ];
    println!(
        "\nkayba 0.13.0 against ace-tools, {skills} skills ({:.1} MB), median of {RUNS}",
        size as f64 / 1e6
    );
    println!(
        "{:<30} {:>10} {:>10} {:>9} {:>11} {:>11} {:>8}",
        "operation", "kayba", "ace-tools", "speed-up", "kayba RSS", "ace RSS", "memory"
    );
    for (label, mut k, mut a) in rows {
        // ace-validate exits 1 on findings; only its time counts here.
        let (kt, km) = timed(&mut k)?;
        let (at, am) = match timed(&mut a) {
            Ok(x) => x,
            Err(_) if label.contains("validate") => {
                let mut runs = Vec::new();
                for _ in 0..RUNS {
                    let (t, m, _) = run_measured(&mut a)?;
                    runs.push((t, m));
                }
                median(runs)
            }
            Err(e) => return Err(e),
        };
        println!(
            "{label:<30} {:>9.2}s {:>9.2}s {:>8.1}x {:>8.0} MB {:>8.0} MB {:>7.2}x",
            kt.as_secs_f64(),
            at.as_secs_f64(),
            kt.as_secs_f64() / at.as_secs_f64(),
            km as f64 / 1e6,
            am as f64 / 1e6,
            am as f64 / km.max(1) as f64,
        );
    }
    Ok(())
}
