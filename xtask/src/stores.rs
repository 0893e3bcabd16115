//! `cargo xtask bench stores`: playbooks in databases, whole processes.
//! - A generated playbook of `ACE_BENCH_STORE_ENTRIES` entries (100,000 by
//!   default) migrated into SQLite and into Postgres with `ace-convert`,
//!   and back out to markdown.
//! - Twenty agents at once, each running `ace-apply --in-place` fifty times
//!   in turn, one delta of one counted entry each, on a Postgres playbook
//!   of 1,000 entries: deltas per second, beside the same server's rate of
//!   raw single-row `UPDATE`s from twenty connections of this harness (each
//!   its own transaction), the physical limit of a write that is one row.
//!
//! Postgres is the cluster `ACE_POSTGRES_URL` names (tests/postgres/start.sh
//! starts a throwaway one); the benchmark makes and drops its own
//! databases there.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::kayba::timed;

const AGENTS: usize = 20;
const STEPS: usize = 50;

fn database(admin: &str, name: &str) -> Result<String, String> {
    let said = |e: postgres::Error| match e.as_db_error() {
        Some(db) => db.message().to_owned(),
        None => e.to_string(),
    };
    let mut c = postgres::Client::connect(admin, postgres::NoTls).map_err(said)?;
    // One statement each: a database is never made inside a transaction,
    // which a batch of several statements is.
    for sql in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!("CREATE DATABASE {name}"),
    ] {
        c.batch_execute(&sql).map_err(said)?;
    }
    Ok(admin.replacen("/postgres?", &format!("/{name}?"), 1))
}

fn drop_database(admin: &str, name: &str) {
    if let Ok(mut c) = postgres::Client::connect(admin, postgres::NoTls) {
        let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
    }
}

fn row(what: &str, took: Duration, rss: u64, entries: usize) {
    println!(
        "| {what} | {:.2} s | {:.0} MiB | {:.0} entries/s |",
        took.as_secs_f64(),
        rss as f64 / 1048576.0,
        entries as f64 / took.as_secs_f64()
    );
}

/// The median wall time and largest peak memory of three runs, each of
/// the command `make` gives for its run.
fn timed_each(mut make: impl FnMut(usize) -> Command) -> Result<(Duration, u64), String> {
    let mut runs = Vec::new();
    for i in 0..3 {
        let (took, rss, ok) = crate::scale::run_measured(&mut make(i))?;
        if !ok {
            return Err(format!("run {i} failed"));
        }
        runs.push((took, rss));
    }
    runs.sort_by_key(|r| r.0);
    Ok((runs[1].0, runs.iter().map(|r| r.1).max().unwrap_or(0)))
}

fn migrations(bin: &Path, dir: &Path, admin: &str, entries: usize) -> Result<(), String> {
    let md = dir.join("big.md");
    std::fs::write(&md, crate::generate(entries)).map_err(|e| e.to_string())?;
    let out = dir.join("out.md");
    println!("\n## Migrating {entries} entries, median of 3 whole processes\n");
    println!("| step | wall | peak memory | rate |");
    println!("|---|---|---|---|");
    let convert = || Command::new(bin.join("ace-convert"));
    // Each migration in is into a new database.
    let (took, rss) = timed_each(|i| {
        let mut c = convert();
        c.arg(&md).args([
            "-o",
            &format!("sqlite:{}", dir.join(format!("bench-{i}.db")).display()),
            "-q",
            "--now",
            "2026-01-01T00:00:00Z",
        ]);
        c
    })?;
    row("markdown into a new SQLite file", took, rss, entries);
    let sqlite = format!("sqlite:{}", dir.join("bench-0.db").display());
    let (took, rss) = timed(
        convert()
            .args([&sqlite, "--to", "markdown", "-q", "--force", "-o"])
            .arg(&out),
    )?;
    row("SQLite out to markdown", took, rss, entries);
    let mut urls = Vec::new();
    for i in 0..3 {
        urls.push(database(admin, &format!("ace_bench_migrate_{i}"))?);
    }
    let (took, rss) = timed_each(|i| {
        let mut c = convert();
        c.arg(&md)
            .args(["-o", &urls[i], "-q", "--now", "2026-01-01T00:00:00Z"]);
        c
    })?;
    row("markdown into a new Postgres database", took, rss, entries);
    let (took, rss) = timed(
        convert()
            .args([&urls[0], "--to", "markdown", "-q", "--force", "-o"])
            .arg(&out),
    )?;
    row("Postgres out to markdown", took, rss, entries);
    for i in 0..3 {
        drop_database(admin, &format!("ace_bench_migrate_{i}"));
    }
    Ok(())
}

/// Twenty processes' worth of `ace-apply`, each agent's steps in turn.
fn agents(bin: &Path, dir: &Path, url: &str) -> Result<Duration, String> {
    for a in 0..AGENTS {
        for s in 0..STEPS {
            let id = format!("str-{:05}", a * STEPS + s + 1);
            std::fs::write(
                dir.join(format!("d-{a}-{s}.json")),
                format!(
                    r#"{{"delta_id": "delta-2026-01-01-{:03}", "counters": [{{"id": "{id}", "helpful_delta": 1}}]}}"#,
                    a * STEPS + s
                ),
            )
            .map_err(|e| e.to_string())?;
        }
    }
    let start = Instant::now();
    std::thread::scope(|scope| -> Result<(), String> {
        let handles: Vec<_> = (0..AGENTS)
            .map(|a| {
                scope.spawn(move || -> Result<(), String> {
                    for s in 0..STEPS {
                        let delta = dir.join(format!("d-{a}-{s}.json"));
                        let st = Command::new(bin.join("ace-apply"))
                            .arg(url)
                            .arg(&delta)
                            .args(["--in-place", "-q"])
                            .status()
                            .map_err(|e| e.to_string())?;
                        if !st.success() {
                            return Err(format!("agent {a} step {s}: ace-apply failed"));
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join().map_err(|_| "an agent panicked".to_owned())??;
        }
        Ok(())
    })?;
    Ok(start.elapsed())
}

/// The same work as raw single-row `UPDATE`s: twenty connections, each
/// its own transaction per statement.
fn raw_updates(url: &str) -> Result<Duration, String> {
    let start = Instant::now();
    std::thread::scope(|scope| -> Result<(), String> {
        let handles: Vec<_> = (0..AGENTS)
            .map(|a| {
                scope.spawn(move || -> Result<(), String> {
                    let mut c =
                        postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
                    let st = c
                        .prepare("UPDATE entries SET helpful_count = helpful_count + 1 WHERE entry_id = $1")
                        .map_err(|e| e.to_string())?;
                    for s in 0..STEPS {
                        let id = format!("str-{:05}", a * STEPS + s + 1);
                        c.execute(&st, &[&id]).map_err(|e| e.to_string())?;
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join().map_err(|_| "a connection panicked".to_owned())??;
        }
        Ok(())
    })?;
    Ok(start.elapsed())
}

fn sum(url: &str) -> Result<i64, String> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
    let r = c
        .query_one(
            "SELECT CAST(sum(helpful_count) AS BIGINT) FROM entries",
            &[],
        )
        .map_err(|e| e.to_string())?;
    Ok(r.get::<_, Option<i64>>(0).unwrap_or(0))
}

pub fn stores_bench(bin: &Path) -> Result<(), String> {
    let admin = std::env::var("ACE_POSTGRES_URL")
        .map_err(|_| "set ACE_POSTGRES_URL (tests/postgres/start.sh DIR prints it)")?;
    let entries: usize = std::env::var("ACE_BENCH_STORE_ENTRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = crate::scratch("stores")?;
    migrations(bin, &dir, &admin, entries)?;

    let url = database(&admin, "ace_bench_agents")?;
    let md = dir.join("fleet-playbook.md");
    let mut text = String::from("## STRATEGIES & INSIGHTS\n");
    for i in 1..=AGENTS * STEPS {
        text.push_str(&format!(
            "[str-{i:05}] helpful=0 harmful=0 :: Advice number {i}, which an agent counts\n"
        ));
    }
    std::fs::write(&md, text).map_err(|e| e.to_string())?;
    let st = Command::new(bin.join("ace-convert"))
        .arg(&md)
        .args(["-o", &url, "-q"])
        .status()
        .map_err(|e| e.to_string())?;
    if !st.success() {
        return Err("migrating the agents' playbook failed".into());
    }
    let before = sum(&url)?;
    let took = agents(bin, &dir, &url)?;
    let after = sum(&url)?;
    if after - before != (AGENTS * STEPS) as i64 {
        return Err(format!(
            "the agents' deltas counted {} times, not {}",
            after - before,
            AGENTS * STEPS
        ));
    }
    let raw = raw_updates(&url)?;
    let n = (AGENTS * STEPS) as f64;
    println!(
        "\n## {AGENTS} agents, {STEPS} one-entry deltas each, on a {}-entry Postgres playbook\n",
        AGENTS * STEPS
    );
    println!("| writer | wall | per second |");
    println!("|---|---|---|");
    println!(
        "| `ace-apply --in-place`, a process per delta | {:.2} s | {:.0} deltas |",
        took.as_secs_f64(),
        n / took.as_secs_f64()
    );
    println!(
        "| raw `UPDATE ... + 1`, 20 connections | {:.2} s | {:.0} updates |",
        raw.as_secs_f64(),
        n / raw.as_secs_f64()
    );
    println!(
        "\nace-apply reaches {:.1}% of the raw single-row rate.",
        100.0 * raw.as_secs_f64() / took.as_secs_f64()
    );
    drop_database(&admin, "ace_bench_agents");
    Ok(())
}
