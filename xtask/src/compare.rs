//! `cargo xtask compare OLD NEW`: whether two builds behave the same.
//!
//! OLD and NEW are directories holding the five tools (a `target/release`
//! of each build). Every corpus file (`$ACE_CORPUS` or `--corpus DIR`) and
//! a generated playbook of `--entries N` (default 100,000) in every format
//! is converted to every format by both builds, with the loss report as
//! JSON, and to an AGENTS.md + playbook.yaml directory. Each corpus file is
//! checked with `ace-validate --output-format json`, and each corpus folder
//! is walked by it.
//!
//! The curator's tools are compared on the same inputs (`curation`):
//! every corpus delta applied to every corpus and generated playbook; two
//! edits of each playbook, made by OLD's `ace-apply` from generated
//! patches, compared by `ace-diff` in each output format (whose deltas are
//! applied back) and merged by `ace-merge`. A run differs when its exit
//! status, standard output, standard error or any file it writes differs.
//! The first differing line of each difference is printed; the exit status
//! is 1 when anything differs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub(crate) const TOOLS: [&str; 5] = [
    "ace-convert",
    "ace-validate",
    "ace-apply",
    "ace-diff",
    "ace-merge",
];

/// One command run by both builds, from `dir`, with `args`; `outputs` are
/// files it writes, relative to a scratch directory of its own.
pub(crate) struct Case {
    pub(crate) label: String,
    pub(crate) tool: &'static str,
    pub(crate) args: Vec<String>,
    /// Set: `{out}` in `args` is a fresh directory whose files are compared.
    pub(crate) writes: bool,
}

/// What one build did for one case.
#[derive(PartialEq)]
struct Outcome {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    files: Vec<(String, Vec<u8>)>,
}

pub fn compare(args: &[String]) -> Result<(), String> {
    let usage = "usage: cargo xtask compare OLD_BIN_DIR NEW_BIN_DIR [--corpus DIR] [--entries N]";
    let mut dirs = Vec::new();
    let mut corpus = std::env::var_os("ACE_CORPUS").map(PathBuf::from);
    let mut entries = 100_000;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--corpus" => corpus = Some(PathBuf::from(it.next().ok_or(usage)?)),
            "--entries" => {
                let v = it.next().ok_or(usage)?;
                entries = v
                    .parse()
                    .map_err(|_| format!("--entries {v}: not a number"))?;
            }
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    let [old, new] = <[PathBuf; 2]>::try_from(dirs).map_err(|_| usage.to_owned())?;
    // The runs start in scratch directories of their own.
    let absolute = |p: PathBuf| {
        p.canonicalize()
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let (old, new) = (absolute(old)?, absolute(new)?);
    for dir in [&old, &new] {
        for tool in TOOLS {
            if !dir.join(tool).is_file() {
                return Err(format!("{}: no {tool} here; {usage}", dir.display()));
            }
        }
    }
    let corpus = absolute(corpus.ok_or("no corpus: set ACE_CORPUS or pass --corpus DIR")?)?;
    let scratch = crate::scratch("compare")?;
    let inputs_dir = scratch.join("inputs");
    std::fs::create_dir_all(&inputs_dir).map_err(|e| e.to_string())?;

    let mut cases = vec![Case {
        label: "--list-formats".into(),
        tool: "ace-convert",
        args: vec!["--list-formats".into()],
        writes: false,
    }];
    // Directory walks: which files are recognised as ACE files.
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .map_err(|e| format!("{}: {e}", corpus.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    for dir in subdirs {
        cases.push(Case {
            label: format!("ace-validate {}/", dir.display()),
            tool: "ace-validate",
            args: vec![
                "--isolated".into(),
                "--output-format".into(),
                "json".into(),
                dir.display().to_string(),
            ],
            writes: false,
        });
    }
    let mut corpus_files = Vec::new();
    walk(&corpus, &mut corpus_files)?;
    corpus_files.sort();
    if corpus_files.is_empty() {
        return Err(format!("{}: no files", corpus.display()));
    }
    let generated = generate_inputs(&inputs_dir, entries)?;
    println!(
        "{} corpus files, {} generated playbooks of {entries} entries",
        corpus_files.len(),
        generated.len()
    );
    let names: Vec<&str> = ace_registry::Format::all()
        .iter()
        .map(|f| f.name())
        .collect();
    for (input, validate) in corpus_files
        .iter()
        .map(|p| (p, true))
        .chain(generated.iter().map(|p| (p, false)))
    {
        let shown = input
            .strip_prefix(&corpus)
            .or_else(|_| input.strip_prefix(&scratch))
            .unwrap_or(input)
            .display()
            .to_string();
        let path = input.display().to_string();
        for to in &names {
            cases.push(Case {
                label: format!("{shown} --to {to}"),
                tool: "ace-convert",
                args: vec![
                    path.clone(),
                    "--to".into(),
                    (*to).into(),
                    "--report".into(),
                    "json".into(),
                ],
                writes: false,
            });
        }
        // A format with a companion (AGENTS.md with its playbook.yaml) is
        // also written as the pair, into a directory.
        for to in ace_registry::Format::all()
            .iter()
            .filter(|f| f.companion().is_some())
        {
            cases.push(Case {
                label: format!("{shown} -o DIR/ ({to} with its companion)"),
                tool: "ace-convert",
                args: vec![
                    path.clone(),
                    "--to".into(),
                    to.name().into(),
                    "--report".into(),
                    "json".into(),
                    "-o".into(),
                    "{out}/".into(),
                ],
                writes: true,
            });
        }
        if validate {
            cases.push(Case {
                label: format!("ace-validate {shown}"),
                tool: "ace-validate",
                args: vec![
                    "--isolated".into(),
                    "--output-format".into(),
                    "json".into(),
                    path.clone(),
                ],
                writes: false,
            });
        }
    }
    let derived = scratch.join("derived");
    cases.extend(crate::curation::cases(
        &old,
        &corpus,
        &corpus_files,
        &generated,
        &derived,
    )?);

    let next = AtomicUsize::new(0);
    let differences = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for w in 0..workers {
            let (cases, next, differences, old, new, scratch) =
                (&cases, &next, &differences, &old, &new, &scratch);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let work = scratch.join(format!("w{w}"));
                let a = run(old, case, &work.join("old"));
                let b = run(new, case, &work.join("new"));
                match (a, b) {
                    (Ok(a), Ok(b)) if a == b => {}
                    (Ok(a), Ok(b)) => differences
                        .lock()
                        .unwrap()
                        .push((i, format!("{}: {}", case.label, first_difference(&a, &b)))),
                    (Err(e), _) | (_, Err(e)) => differences
                        .lock()
                        .unwrap()
                        .push((i, format!("{}: {e}", case.label))),
                }
            });
        }
    });
    let mut differences = differences.into_inner().unwrap();
    differences.sort();
    for (_, d) in &differences {
        println!("DIFFERS {d}");
    }
    println!(
        "{} runs compared, {} differ",
        cases.len(),
        differences.len()
    );
    if differences.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} runs differ",
            differences.len(),
            cases.len()
        ))
    }
}

/// The time the curation runs stamp their changes with: 2025-12-01.
pub(crate) const CLOCK: &str = "1764547200";

pub(crate) fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.is_dir() {
            walk(&p, files)?;
        } else if p.is_file() {
            files.push(p);
        }
    }
    Ok(())
}

/// The generated playbook in every format; one with a companion (AGENTS.md
/// and its playbook.yaml) in a folder of its own.
fn generate_inputs(dir: &Path, entries: usize) -> Result<Vec<PathBuf>, String> {
    let pb = crate::gen_playbook(entries);
    let mut paths = Vec::new();
    for &f in ace_registry::Format::all() {
        let files = ace_registry::write_files(f, &pb, &Default::default());
        let to = match f.companion() {
            Some(_) => dir.join(f.name()),
            None => dir.to_owned(),
        };
        let stem = format!("generated-{}", f.name());
        paths.push(files.save_in(f, &to, &stem).map_err(|e| e.to_string())?);
    }
    Ok(paths)
}

fn run(bin: &Path, case: &Case, work: &Path) -> Result<Outcome, String> {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let out_dir = work.join("out");
    let out_str = out_dir.display().to_string();
    if case.writes {
        std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    }
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("{out}", &out_str))
        .collect();
    let mut cmd = Command::new(bin.join(case.tool));
    // Both builds run at one fixed time, seconds apart as they are: a
    // time a conversion stamps is no difference between them.
    cmd.args(&args).env("SOURCE_DATE_EPOCH", CLOCK);
    let output = cmd
        .env("NO_COLOR", "1")
        .current_dir(work)
        .output()
        .map_err(|e| format!("{}: {e}", bin.join(case.tool).display()))?;
    let mut files = Vec::new();
    if case.writes && out_dir.is_dir() {
        let mut found = Vec::new();
        walk(&out_dir, &mut found)?;
        found.sort();
        for p in found {
            let rel = p.strip_prefix(&out_dir).unwrap_or(&p).display().to_string();
            files.push((rel, std::fs::read(&p).map_err(|e| e.to_string())?));
        }
    }
    // Paths of the scratch directory are the only thing that may differ.
    let clean = |b: Vec<u8>| {
        String::from_utf8_lossy(&b)
            .replace(&out_str, "{out}")
            .into_bytes()
    };
    Ok(Outcome {
        status: output.status.code(),
        stdout: clean(output.stdout),
        stderr: clean(output.stderr),
        files,
    })
}

fn first_difference(a: &Outcome, b: &Outcome) -> String {
    if a.status != b.status {
        return format!("exit {:?} vs {:?}", a.status, b.status);
    }
    let line = |what: &str, x: &[u8], y: &[u8]| {
        let (x, y) = (String::from_utf8_lossy(x), String::from_utf8_lossy(y));
        let mut xl = x.lines();
        let mut yl = y.lines();
        for n in 1.. {
            match (xl.next(), yl.next()) {
                (Some(p), Some(q)) if p == q => continue,
                (None, None) => return format!("{what}: same lines, different line ends"),
                (p, q) => {
                    let cut = |s: Option<&str>| {
                        s.map_or("<end>".to_owned(), |s| s.chars().take(160).collect())
                    };
                    return format!("{what} line {n}: {:?} vs {:?}", cut(p), cut(q));
                }
            }
        }
        unreachable!()
    };
    if a.stdout != b.stdout {
        return line("stdout", &a.stdout, &b.stdout);
    }
    if a.stderr != b.stderr {
        return line("stderr", &a.stderr, &b.stderr);
    }
    let names = |o: &Outcome| o.files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    if names(a) != names(b) {
        return format!("files {:?} vs {:?}", names(a), names(b));
    }
    for ((name, x), (_, y)) in a.files.iter().zip(&b.files) {
        if x != y {
            return line(name, x, y);
        }
    }
    "differs".into()
}
