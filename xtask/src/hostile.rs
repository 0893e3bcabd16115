//! `cargo xtask bench hostile`: costs that must grow with the input, not
//! faster, on inputs made to be hard. Each size runs as a whole process
//! (`wait4`: wall time and peak memory), median of three; the figures per
//! unit of input show whether the growth is linear.
//!
//! - one kayba ADD with 10,000 to 500,000 keywords, applied and validated;
//! - ACE061 on skillbooks of 10,000 and 100,000 skills made of the same
//!   30 sentences under 2 of 8 keywords each (its cost: ace-validate less
//!   ace-validate --ignore ACE061), beside kayba 0.13's own load of the
//!   same file when `ACE_KAYBA` names its code;
//! - a kayba batch of 100,000 and 1,000,000 ADD operations, applied and
//!   validated, beside kayba 0.13 applying it when `ACE_KAYBA` is set;
//! - ace-view of a playbook with a 100 KB and a 500 KB word, and Chromium
//!   laying the page out (`--dump-dom`) when `ACE_CHROMIUM` names it;
//! - playbooks of 10,000 and 40,000 entries each in a section of its own,
//!   and of one ID 10,000 and 40,000 times: converted to every format,
//!   validated, shown, compared, merged, and given an entry in as many new
//!   sections.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::kayba::{timed, timed_exiting};

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// The sentences the near-duplicate inputs repeat.
const SENTENCES: [&str; 30] = [
    "Read the API documentation before calling an endpoint.",
    "Retry a failed request once after a short pause.",
    "Check the status code before parsing the body.",
    "Page through every result instead of trusting the first page.",
    "Log the request ID so the failure can be traced.",
    "Validate the input before writing it to the database.",
    "Prefer small commits that each pass the tests.",
    "Run the tests locally before pushing a branch.",
    "Set a timeout on every network call.",
    "Cache responses that do not change within a session.",
    "Never store credentials in the repository.",
    "Confirm the task is done before reporting success.",
    "Ask for the missing parameter rather than guessing it.",
    "Use the search tool once per entity and batch the results.",
    "Keep the greeting short and answer the question first.",
    "Quote the error message exactly when reporting a failure.",
    "Close files and connections in a finally block.",
    "Prefer the official client library to raw HTTP calls.",
    "Sort the results before comparing them.",
    "Convert dates to UTC before storing them.",
    "Escape user input before building a query.",
    "Read the whole error message before retrying.",
    "Check the premise before deducing from it.",
    "Answer factual questions with facts, not deductions.",
    "Measure before optimising a slow path.",
    "Write a failing test that reproduces the bug first.",
    "Pin dependency versions in the lock file.",
    "Prefer idempotent operations for retries.",
    "Handle an empty list as a normal case.",
    "Split long functions at their natural steps.",
];

const KEYWORDS: [&str; 8] = [
    "api", "testing", "errors", "network", "db", "security", "style", "tools",
];

/// A fixed pseudo-random sequence (xorshift), so that every run measures
/// the same files.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// Two different indices below `n`.
    fn two(&mut self, n: usize) -> (usize, usize) {
        let a = self.below(n);
        let b = (a + 1 + self.below(n - 1)) % n;
        (a, b)
    }
}

/// A kayba 0.13 skillbook of `n` skills, each two of [`SENTENCES`] as its
/// insight, one as its issue, two of [`KEYWORDS`].
fn repeated_sentences(n: usize) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut s = String::from("{\n  \"schema_version\": \"2\",\n  \"skills\": {\n");
    let mut ids = Vec::with_capacity(n);
    for i in 1..=n {
        let id = format!("context-{i:05}");
        let (a, b) = rng.two(SENTENCES.len());
        let (k1, k2) = rng.two(KEYWORDS.len());
        let issue = SENTENCES[rng.below(SENTENCES.len())];
        let _ = writeln!(
            s,
            "    \"{id}\": {{\"id\": \"{id}\", \"section\": \"context\", \"keywords\": [\"{}\", \"{}\"], \"issue\": \"{issue}\", \"insight\": \"{} {}\", \"occurrences\": [], \"active\": true, \"used_count\": 0, \"helpful_count\": {}, \"harmful_count\": 0, \"neutral_count\": 0, \"created_at\": \"2026-01-01T00:00:00+00:00\", \"updated_at\": \"2026-01-01T00:00:00+00:00\"}}{}",
            KEYWORDS[k1],
            KEYWORDS[k2],
            SENTENCES[a],
            SENTENCES[b],
            rng.below(6),
            if i < n { "," } else { "" }
        );
        ids.push(format!("\"{id}\""));
    }
    let _ = write!(
        s,
        "  }},\n  \"sections\": {{\"context\": [{}], \"harness\": []}},\n  \"next_id\": {}\n}}\n",
        ids.join(", "),
        n + 1
    );
    s
}

/// A kayba update batch of one ADD with `n` keywords.
fn keywords_batch(n: usize) -> String {
    let words: Vec<String> = (0..n).map(|i| format!("\"kw{i}\"")).collect();
    format!(
        "{{\"reasoning\": \"r\", \"operations\": [{{\"type\": \"ADD\", \"section\": \"context\", \"content\": \"Set a timeout.\", \"issue\": \"hangs\", \"insight\": \"Set a timeout.\", \"keywords\": [{}]}}]}}\n",
        words.join(", ")
    )
}

/// A kayba update batch of `n` ADD operations.
fn adds_batch(n: usize) -> String {
    let mut s = String::from("{\"reasoning\": \"r\", \"operations\": [\n");
    for i in 0..n {
        let _ = writeln!(
            s,
            "{{\"type\": \"ADD\", \"section\": \"context\", \"content\": \"Lesson {i} about retries.\", \"issue\": \"issue {i}\", \"insight\": \"Lesson {i} about retries.\"}}{}",
            if i + 1 < n { "," } else { "" }
        );
    }
    s.push_str("]}\n");
    s
}

/// kayba 0.13's own code doing `what` (tests/kayba/oracle.py).
fn kayba_013(root: &Path, what: &str) -> Command {
    let mut c = Command::new("python3");
    c.arg(crate::root().join("tests/kayba/oracle.py"))
        .arg(root)
        .args(["0.13.0", what]);
    c
}

pub fn hostile_bench(bin: &Path) -> Result<(), String> {
    let dir = crate::scratch("hostile")?;
    let tool = |name: &str| Command::new(bin.join(name));
    // A kayba 0.13 skillbook to apply to.
    let book = dir.join("book.json");
    let status = tool("ace-convert")
        .arg(crate::root().join("examples/kayba-skillbook.json"))
        .args(["--to", "skillbook", "--skillbook-version", "2", "-q", "-o"])
        .arg(&book)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("ace-convert could not make the skillbook".into());
    }

    println!("\nkeywords of one ADD (kayba batch): de-duplicated as kayba does");
    println!("| keywords | apply | per 1,000 | validate | per 1,000 | peak memory |");
    println!("|---|---|---|---|---|---|");
    for n in [10_000, 40_000, 100_000, 500_000] {
        let batch = dir.join(format!("keywords-{n}.json"));
        write(&batch, &keywords_batch(n))?;
        let (apply, rss) = timed(
            tool("ace-apply")
                .arg(&book)
                .arg(&batch)
                .arg("-o")
                .arg(dir.join("keywords-out.json")),
        )?;
        let (validate, _) = timed(tool("ace-validate").arg(&batch))?;
        let per = |d: Duration| d.as_secs_f64() * 1e3 / (n as f64 / 1e3);
        println!(
            "| {n} | {:.3} s | {:.3} ms | {:.3} s | {:.3} ms | {:.0} MiB |",
            apply.as_secs_f64(),
            per(apply),
            validate.as_secs_f64(),
            per(validate),
            mib(rss)
        );
    }

    println!("\nACE061 on skills repeating 30 sentences (ace-validate less ace-validate --ignore ACE061)");
    let kayba = std::env::var_os("ACE_KAYBA").map(PathBuf::from);
    println!("| skills | file | ace-validate | --ignore ACE061 | ACE061 | per 1,000 | kayba 0.13 load | ACE061 / kayba |");
    println!("|---|---|---|---|---|---|---|---|");
    for n in [10_000, 100_000] {
        let file = dir.join(format!("repeated-{n}.json"));
        let text = repeated_sentences(n);
        write(&file, &text)?;
        // Findings are its exit status 1: timed whatever it exits with.
        let (all, _) = timed_exiting(tool("ace-validate").arg(&file).arg("-q"), false)?;
        let (without, _) = timed_exiting(
            tool("ace-validate")
                .arg(&file)
                .args(["-q", "--ignore", "ACE061"]),
            false,
        )?;
        let rule = all.saturating_sub(without);
        let load = match &kayba {
            Some(root) => Some(timed(kayba_013(root, "read").arg(&file))?.0),
            None => None,
        };
        println!(
            "| {n} | {:.0} MB | {:.2} s | {:.2} s | {:.2} s | {:.1} ms | {} | {} |",
            text.len() as f64 / 1e6,
            all.as_secs_f64(),
            without.as_secs_f64(),
            rule.as_secs_f64(),
            rule.as_secs_f64() * 1e3 / (n as f64 / 1e3),
            load.map_or("(ACE_KAYBA unset)".to_owned(), |d| format!(
                "{:.2} s",
                d.as_secs_f64()
            )),
            load.map_or("-".to_owned(), |d| format!(
                "{:.2}",
                rule.as_secs_f64() / d.as_secs_f64()
            )),
        );
    }

    println!("\nADD operations of one kayba batch, applied, and kayba 0.13 applying it");
    println!("| operations | batch | ace-apply | per 1,000 | peak memory | memory / batch | ace-validate memory | kayba apply | kayba memory | ace-apply / kayba (time, memory) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for n in [10_000, 100_000] {
        let batch = dir.join(format!("adds-{n}.json"));
        let text = adds_batch(n);
        write(&batch, &text)?;
        let (took, rss) = timed(
            tool("ace-apply")
                .arg(&book)
                .arg(&batch)
                .args(["-q", "-o"])
                .arg(dir.join("adds-out.json")),
        )?;
        let (_, checked) = timed(tool("ace-validate").arg(&batch).arg("-q"))?;
        let theirs = match &kayba {
            Some(root) => Some(timed(
                kayba_013(root, "apply")
                    .arg(&book)
                    .arg(&batch)
                    .arg(dir.join("adds-kayba.json")),
            )?),
            None => None,
        };
        let size = text.len() as f64;
        println!(
            "| {n} | {:.0} MB | {:.2} s | {:.2} ms | {:.0} MiB | {:.1}x | {:.1}x | {} | {} | {} |",
            size / 1e6,
            took.as_secs_f64(),
            took.as_secs_f64() * 1e3 / (n as f64 / 1e3),
            mib(rss),
            rss as f64 / size,
            checked as f64 / size,
            theirs.map_or("(ACE_KAYBA unset)".to_owned(), |(d, _)| format!(
                "{:.1} s",
                d.as_secs_f64()
            )),
            theirs.map_or("-".to_owned(), |(_, m)| format!("{:.0} MiB", mib(m))),
            theirs.map_or("-".to_owned(), |(d, m)| format!(
                "{:.2}, {:.2}",
                took.as_secs_f64() / d.as_secs_f64(),
                rss as f64 / m as f64
            )),
        );
    }

    println!("\nace-view of one long word, and Chromium laying the page out");
    let chromium = std::env::var_os("ACE_CHROMIUM").map(PathBuf::from);
    println!("| word | ace-view | Chromium --dump-dom |");
    println!("|---|---|---|");
    for kb in [100, 500] {
        let pb = dir.join(format!("word-{kb}.md"));
        write(
            &pb,
            &format!(
                "## S\n\n[s-00001] helpful=1 harmful=0 :: {}\n",
                "a".repeat(kb * 1000)
            ),
        )?;
        let page = dir.join(format!("word-{kb}.html"));
        let (view, _) = timed(
            tool("ace-view")
                .arg(&pb)
                .arg("-o")
                .arg(&page)
                .arg("--force"),
        )?;
        let layout = match &chromium {
            Some(c) => {
                let (took, _) = timed(
                    Command::new(c)
                        .args([
                            "--headless",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--virtual-time-budget=60000",
                            "--dump-dom",
                        ])
                        .arg(format!("file://{}", page.display())),
                )?;
                format!("{:.2} s", took.as_secs_f64())
            }
            None => "(ACE_CHROMIUM unset)".to_owned(),
        };
        println!("| {kb} KB | {:.3} s | {layout} |", view.as_secs_f64());
    }
    shapes(&dir, &tool)
}

/// `n` entries of `shape`: `sections`, each in a section of its own, or
/// `repeated`, all of one ID in one section; `counted` raises each
/// entry's helpful count by `counted`.
fn shaped(shape: &str, n: usize, counted: u32) -> String {
    let mut s = String::new();
    for i in 0..n {
        let helpful = 1 + counted;
        let _ = match shape {
            "sections" => writeln!(
                s,
                "## S{i}\n[s{i}-00001] helpful={helpful} harmful=0 :: rule {i}"
            ),
            _ if i == 0 => writeln!(s, "## S\n[s-00001] helpful={helpful} harmful=0 :: rule {i}"),
            _ => writeln!(s, "[s-00001] helpful={helpful} harmful=0 :: rule {i}"),
        };
    }
    s
}

/// The shapes of [`shaped`] through every tool: the growth from 10,000
/// to 40,000 entries is 4× when the cost is linear.
fn shapes(dir: &Path, tool: &dyn Fn(&str) -> Command) -> Result<(), String> {
    println!("\nentries each in a section of their own, and one ID repeated: time at 10,000 and 40,000 entries");
    println!("| shape | what | 10,000 | 40,000 | growth |");
    println!("|---|---|---|---|---|");
    let formats = ace_registry::Registry::builtin()
        .formats()
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>();
    for shape in ["sections", "repeated"] {
        let mut rows: Vec<(String, Vec<Duration>)> = Vec::new();
        for n in [10_000, 40_000] {
            let pb = dir.join(format!("{shape}-{n}.md"));
            let changed = dir.join(format!("{shape}-{n}-changed.md"));
            write(&pb, &shaped(shape, n, 0))?;
            write(&changed, &shaped(shape, n, 1))?;
            let batch = dir.join(format!("{shape}-{n}-batch.json"));
            let ops: Vec<String> = (0..n)
                .map(|i| {
                    format!(
                        "{{\"type\": \"ADD\", \"section\": \"new{i}\", \"content\": \"rule {i}\"}}"
                    )
                })
                .collect();
            write(
                &batch,
                &format!("{{\"operations\": [{}]}}", ops.join(",\n")),
            )?;
            let out = |ext: &str| dir.join(format!("{shape}-out.{ext}"));
            let mut runs: Vec<(String, Command)> = Vec::new();
            for f in &formats {
                let mut c = tool("ace-convert");
                c.arg(&pb)
                    .args(["--to", f, "-q", "--force", "-o"])
                    .arg(out(f));
                runs.push((format!("ace-convert --to {f}"), c));
            }
            let mut c = tool("ace-validate");
            c.arg(&pb);
            runs.push(("ace-validate".into(), c));
            let mut c = tool("ace-view");
            c.arg(&pb).args(["--force", "-o"]).arg(out("html"));
            runs.push(("ace-view".into(), c));
            let mut c = tool("ace-diff");
            c.arg(&pb).arg(&changed);
            runs.push(("ace-diff".into(), c));
            let mut c = tool("ace-merge");
            c.arg("--base")
                .arg(&pb)
                .arg(&changed)
                .arg(&changed)
                .arg("-o")
                .arg(out("merged.md"));
            runs.push(("ace-merge".into(), c));
            let mut c = tool("ace-apply");
            c.arg(&pb)
                .arg(&batch)
                .args(["-q", "-o"])
                .arg(out("applied.md"));
            runs.push((
                "ace-apply of an ADD to each of as many new sections".into(),
                c,
            ));
            // A finding or a refused operation is not a failure here: the
            // time to say so is what is measured. A conversion must write.
            for (i, (what, mut c)) in runs.into_iter().enumerate() {
                let (took, _) = timed_exiting(&mut c, what.starts_with("ace-convert"))?;
                match rows.get_mut(i) {
                    Some((_, times)) => times.push(took),
                    None => rows.push((what, vec![took])),
                }
            }
        }
        for (what, t) in rows {
            println!(
                "| {shape} | {what} | {:.2} s | {:.2} s | {:.1}× |",
                t[0].as_secs_f64(),
                t[1].as_secs_f64(),
                t[1].as_secs_f64() / t[0].as_secs_f64().max(1e-3)
            );
        }
    }
    Ok(())
}
