//! `cargo xtask bench tokens`: `ace-validate --tokens` against js-tiktoken
//! (`tests/js/tokens.mjs`, with `ACE_TRON_JS` the folder `npm ci` filled)
//! counting the generated 100,000-entry markdown playbook with
//! cl100k_base, whole processes side by side, median of three: with the
//! encoder read from the cache an earlier run left (`ACE_TOOLS_CACHE`),
//! as every run but the first, and built from the ranks
//! (`ACE_TOOLS_CACHE=off`), as the first. The target is at least 10x.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn timed(cmd: &mut Command) -> Result<(Duration, String), String> {
    let mut runs = Vec::new();
    let mut out = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        let o = cmd.output().map_err(|e| e.to_string())?;
        runs.push(t.elapsed());
        if !o.status.success() {
            return Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&o.stderr)));
        }
        out = String::from_utf8_lossy(&o.stdout).into_owned();
    }
    runs.sort();
    Ok((runs[1], out))
}

pub fn tokens_bench(bin: &Path) -> Result<(), String> {
    let js = std::env::var_os("ACE_TRON_JS")
        .map(PathBuf::from)
        .ok_or("set ACE_TRON_JS to tests/js after `npm ci` there")?;
    let dir = crate::scratch("tokens")?;
    let file = dir.join("playbook.md");
    let text = crate::generate(100_000);
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    // Cold: the encoder built from the ranks in every process; warm: read
    // from the cache the first run leaves (what every later run does).
    let cache = dir.join("cache");
    let (cold, _) = timed(
        Command::new(bin.join("ace-validate"))
            .env("ACE_TOOLS_CACHE", "off")
            .args(["--tokens", "--isolated", "--output-format", "json"])
            .arg(&file),
    )?;
    let (ours, out) = timed(
        Command::new(bin.join("ace-validate"))
            .env("ACE_TOOLS_CACHE", &cache)
            .args(["--tokens", "--isolated", "--output-format", "json"])
            .arg(&file),
    )?;
    let (theirs, js_out) = timed(
        Command::new("node")
            .arg(js.join("tokens.mjs"))
            .arg("cl100k_base")
            .arg(&file),
    )?;
    let counted: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    let mine = counted[0]["tokens"].as_u64().unwrap_or(0);
    let js_count: u64 = js_out
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    if mine != js_count {
        return Err(format!(
            "ace-validate counted {mine}, js-tiktoken {js_count}"
        ));
    }
    println!(
        "\n## Token counts: 100,000 entries ({:.1} MB of markdown), cl100k_base, {mine} tokens, median of 3",
        text.len() as f64 / 1e6
    );
    println!("| ace-validate --tokens | js-tiktoken | speed-up (target >= 10x) |");
    println!("|---|---|---|");
    println!(
        "| {:.0} ms (encoder cached) | {:.0} ms | {:.1}x |",
        crate::ms(ours),
        crate::ms(theirs),
        theirs.as_secs_f64() / ours.as_secs_f64()
    );
    println!(
        "| {:.0} ms (first run: encoder built) | {:.0} ms | {:.1}x |",
        crate::ms(cold),
        crate::ms(theirs),
        theirs.as_secs_f64() / cold.as_secs_f64()
    );
    Ok(())
}
