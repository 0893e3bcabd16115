//! `cargo xtask bench mcp`: the round-trip of `read_playbook` and of
//! `update_counters` through ace-mcp and through ace_claude_mcp's own
//! server (tests/ace_claude_mcp, served by FastMCP), measured by the same
//! client (tests/mcp/roundtrip.py, the official `mcp` SDK, from the venv
//! `ACE_MCP_VENV` that tests/mcp/install.sh fills) on the corpus AppWorld
//! online playbook (`ACE_CORPUS`; 359 entries, given counters so that
//! both servers can count them), each server's `~/.ace` a folder of its
//! own. The servers take turns, `ROUNDS` times, each a new process; the
//! median of every call is shown, and ace-mcp's against the peer's.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROUNDS: usize = 3;
const CALLS: usize = 40;
const PLAYBOOK: &str = "markdown-playbook/ace-agent__ace-appworld__experiments__playbooks__appworld_online_trained_playbook.txt";

/// The playbook with `helpful=0 harmful=0 ::` on each counter-less
/// bullet, as ace_claude_mcp's server reads and counts only such lines.
fn with_counters(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for line in text.lines() {
        let bullet = line
            .strip_prefix('[')
            .and_then(|rest| rest.split_once("] "))
            .filter(|(_, body)| !body.starts_with("helpful="));
        match bullet {
            Some((id, body)) => out.push_str(&format!("[{id}] helpful=0 harmful=0 :: {body}")),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn mcp_bench(bin: &Path) -> Result<(), String> {
    let venv = std::env::var_os("ACE_MCP_VENV")
        .map(PathBuf::from)
        .ok_or("set ACE_MCP_VENV to a venv tests/mcp/install.sh filled")?;
    let corpus = std::env::var_os("ACE_CORPUS")
        .map(PathBuf::from)
        .ok_or("set ACE_CORPUS to the shared corpus folder")?;
    let source = corpus.join(PLAYBOOK);
    let text =
        std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
    let playbook = with_counters(&text);
    let entries = playbook.lines().filter(|l| l.contains(" helpful=")).count();
    let entry = playbook
        .lines()
        .find_map(|l| l.strip_prefix('[').and_then(|r| r.split_once(']')))
        .map(|(id, _)| id.to_owned())
        .ok_or("the playbook has no entry")?;
    let dir = crate::scratch("mcp")?;
    let peer = dir.join("peer");
    std::fs::create_dir_all(&peer).map_err(|e| e.to_string())?;
    for f in ["ace_core.py", "ace_server.py"] {
        std::fs::copy(
            crate::root().join("tests/ace_claude_mcp").join(f),
            peer.join(f),
        )
        .map_err(|e| format!("{f}: {e}"))?;
    }
    let python = venv.join("bin/python");
    let client = crate::root().join("tests/mcp/roundtrip.py");
    println!(
        "mcp: round-trips through the official client, {CALLS} calls each x {ROUNDS} rounds, on the AppWorld online playbook ({entries} entries, {} bytes)",
        playbook.len()
    );
    let mut samples: [[Vec<f64>; 2]; 2] = Default::default();
    for _ in 0..ROUNDS {
        for (s, who) in ["ace-mcp", "ace_claude_mcp"].into_iter().enumerate() {
            let home = dir.join(who);
            let playbooks = home.join(".ace/playbooks");
            std::fs::create_dir_all(&playbooks).map_err(|e| e.to_string())?;
            std::fs::write(playbooks.join("global.md"), &playbook).map_err(|e| e.to_string())?;
            let mut cmd = Command::new(&python);
            cmd.arg(&client)
                .arg(CALLS.to_string())
                .arg(&entry)
                .arg("--")
                .env("HOME", &home)
                .env("PYTHONDONTWRITEBYTECODE", "1");
            match who {
                "ace-mcp" => cmd
                    .arg(bin.join("ace-mcp"))
                    .arg(format!("{}/.ace#project=global", home.display())),
                _ => cmd.arg(&python).arg(peer.join("ace_server.py")),
            };
            let out = cmd
                .output()
                .map_err(|e| format!("{}: {e}", python.display()))?;
            if !out.status.success() {
                return Err(format!("{who}: {}", String::from_utf8_lossy(&out.stderr)));
            }
            let v: serde_json::Value =
                serde_json::from_slice(&out.stdout).map_err(|e| format!("{who}: {e}"))?;
            for (t, tool) in ["read_playbook", "update_counters"].into_iter().enumerate() {
                let ms = v[tool].as_array().ok_or(format!("{who}: no {tool}"))?;
                samples[t][s].extend(ms.iter().filter_map(|m| m.as_f64()));
            }
        }
    }
    println!(
        "  {:<18} {:>12} {:>16} {:>10}",
        "median round-trip", "ace-mcp", "ace_claude_mcp", "ratio"
    );
    for (t, tool) in ["read_playbook", "update_counters"].into_iter().enumerate() {
        let ours = median(samples[t][0].clone());
        let theirs = median(samples[t][1].clone());
        println!(
            "  {tool:<18} {ours:>9.2} ms {theirs:>13.2} ms {:>9.1}x",
            theirs / ours
        );
    }
    println!("  (ratio: ace_claude_mcp's time over ace-mcp's; the servers take turns, each round a new process)");
    Ok(())
}
