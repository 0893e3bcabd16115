//! `cargo xtask docs [--check]` regenerates docs/rules.md.
//! `cargo xtask bench` measures the markdown reader and writer and the
//! ace-validate process against named baselines.
//! `cargo xtask compare OLD NEW` checks that two builds behave the same.

mod apply;
mod compare;
mod curation;
mod hostile;
mod kayba;
mod mcp;
mod merge;
mod prune;
mod scale;
mod shell;
mod speed;
mod stores;
mod tokens;

// The binaries' allocator, so that in-process read and write figures are
// those of ace-convert (glibc's malloc made million-entry reads 2x slower
// per entry than ten-thousand-entry ones).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("docs") => docs(args.iter().any(|a| a == "--check")),
        Some("bench") => bench(&args[1..]),
        Some("fuzz-seed") => fuzz_seed(),
        Some("gen") => gen(&args[1..]),
        Some("compare") => compare::compare(&args[1..]),
        Some("speed") => speed::speed(&args[1..]),
        Some("completions") => shell::completions(&args[1..]),
        Some("man") => shell::man(&args[1..]),
        Some("__measure") => scale::measure(&args[1..]),
        _ => Err(
            "usage: cargo xtask docs [--check] | cargo xtask bench [markdown|skill|tron|batch|process|scale|apply|prune|merge|tokens|kayba|hostile]... | cargo xtask fuzz-seed | cargo xtask gen --entries N --format F [-o PATH] | cargo xtask compare OLD_BIN_DIR NEW_BIN_DIR | cargo xtask speed OLD_BIN_DIR NEW_BIN_DIR [--entries N,N] [--runs N] | cargo xtask completions [--out DIR] | cargo xtask man [--out DIR]"
                .to_owned(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Every generated file that is committed: the rules reference, the
/// schemas derived from Rust types and the pre-commit hooks.
fn generated() -> [(&'static str, String); 6] {
    [
        (".pre-commit-hooks.yaml", ace_tools::precommit_hooks(false)),
        (
            "packaging/pre-commit-mirror/.pre-commit-hooks.yaml",
            ace_tools::precommit_hooks(true),
        ),
        ("docs/rules.md", ace_model::rules::markdown_doc()),
        ("docs/formats/mapping.md", ace_registry::mapping_doc()),
        ("schemas/ace-canonical.schema.json", ace_json::json_schema()),
        ("schemas/ace-toml.schema.json", ace_config::json_schema()),
    ]
}

fn docs(check: bool) -> Result<(), String> {
    for (rel, fresh) in generated() {
        let path = root().join(rel);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == fresh {
            println!("{rel} is up to date");
            continue;
        }
        if check {
            return Err(format!("{rel} is stale; run `cargo xtask docs`"));
        }
        std::fs::write(&path, fresh).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {rel}");
    }
    Ok(())
}

/// Fills `fuzz/corpus/TARGET/` from `tests/fixtures`: each fixture goes to
/// the reader target of the format it is detected as, and to `round_trip`
/// behind the byte that selects that format (`fuzz/src/lib.rs`).
fn fuzz_seed() -> Result<(), String> {
    use ace_registry::Format;
    // fuzz/src/lib.rs: the round trip's first byte indexes the registry.
    let round_trip_order = Format::all();
    let corpus = root().join("fuzz/corpus");
    let mut files = Vec::new();
    let mut stack = vec![root().join("tests/fixtures")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let p = e.map_err(|e| e.to_string())?.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut written = 0;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let format = ace_registry::detect(Some(&path), &text);
        // Each format's reader target is `read_NAME`; the canonical JSON
        // has none, being serde's.
        let target = format!("read_{}", format.name().replace('-', "_"));
        if !root()
            .join("fuzz/fuzz_targets")
            .join(format!("{target}.rs"))
            .is_file()
        {
            continue;
        }
        let rel = path
            .strip_prefix(root().join("tests/fixtures"))
            .unwrap_or(&path)
            .to_string_lossy()
            .replace(['/', '\\'], "__");
        let pick = round_trip_order
            .iter()
            .position(|f| *f == format)
            .unwrap_or(0) as u8;
        let mut tagged = vec![pick];
        tagged.extend_from_slice(text.as_bytes());
        // Two TRON fixtures are too few: every vAgenda JSON fixture also
        // seeds the TRON reader in TRON.
        let tron = (format == Format::VAGENDA_JSON)
            .then(|| ace_registry::read(format, &text).ok())
            .flatten()
            .map(|p| ace_registry::write(Format::VAGENDA_TRON, &p.playbook))
            .map(|w| w.text);
        if let Some(tron) = &tron {
            let dir = corpus.join("read_vagenda_tron");
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            std::fs::write(dir.join(format!("{rel}.tron")), tron).map_err(|e| e.to_string())?;
            written += 1;
        }
        // grammar_diff: TRON to the TRON grammar, every text to the
        // markdown and AGENTS.md ones (any text is either), each once behind
        // the byte that picks the grammar (fuzz/src/lib.rs, GRAMMARS) and
        // once bare for runs pinned to one grammar (ACE_FUZZ_GRAMMAR).
        let as_tron = match format == Format::VAGENDA_TRON {
            true => Some(text.clone()),
            false => tron,
        };
        let mut grammar_seeds = vec![
            ("markdown", 1u8, text.clone()),
            ("agents-md", 2u8, text.clone()),
        ];
        if let Some(t) = as_tron {
            grammar_seeds.push(("tron", 0u8, t));
        }
        for (grammar, pick, seed) in grammar_seeds {
            let mut picked = vec![pick];
            picked.extend_from_slice(seed.as_bytes());
            for (dir, bytes) in [
                (corpus.join("grammar_diff"), picked),
                (
                    corpus.join(format!("grammar_diff_{grammar}")),
                    seed.into_bytes(),
                ),
            ] {
                std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                std::fs::write(dir.join(format!("{grammar}__{rel}")), bytes)
                    .map_err(|e| e.to_string())?;
                written += 1;
            }
        }
        for (t, bytes) in [
            (target.as_str(), text.as_bytes()),
            ("round_trip", &tagged[..]),
        ] {
            let dir = corpus.join(t);
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            std::fs::write(dir.join(&rel), bytes).map_err(|e| e.to_string())?;
            written += 1;
        }
    }
    println!("wrote {written} seed files under fuzz/corpus/");
    Ok(())
}

/// `cargo xtask gen --entries N --format F [-o PATH]`: a generated playbook
/// ([`gen_playbook`]) in any format, on stdout or in PATH. A format with a
/// companion (AGENTS.md with its playbook.yaml) needs `-o DIR`.
fn gen(args: &[String]) -> Result<(), String> {
    let usage = "usage: cargo xtask gen --entries N --format FORMAT [-o PATH]";
    let mut entries = None;
    let mut format = None;
    let mut output = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value; {usage}"))
        };
        match a.as_str() {
            "--entries" => {
                let v = value()?;
                entries = Some(
                    v.parse::<usize>()
                        .map_err(|_| format!("--entries {v}: not a number"))?,
                );
            }
            "--format" => {
                let v = value()?;
                format = Some(ace_registry::Format::from_name(&v).ok_or_else(|| {
                    let names: Vec<&str> = ace_registry::Format::all()
                        .iter()
                        .map(|f| f.name())
                        .collect();
                    format!("--format {v}: expected one of {}", names.join(", "))
                })?);
            }
            "-o" | "--output" => output = Some(PathBuf::from(value()?)),
            other => return Err(format!("unexpected `{other}`; {usage}")),
        }
    }
    let (Some(n), Some(format)) = (entries, format) else {
        return Err(usage.to_owned());
    };
    let pb = gen_playbook(n);
    if let Some(c) = format.companion() {
        let dir = output.ok_or(format!(
            "{format} is two files ({} and {}); pass -o DIR",
            c.main_file(),
            c.file_names()[0]
        ))?;
        ace_registry::write_files(format, &pb, &Default::default())
            .save_in(format, &dir, "playbook")
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        return Ok(());
    }
    let text = ace_registry::write(format, &pb).text;
    match output {
        Some(path) => ace_fs::write_atomic(&path, text.as_bytes(), None)
            .map_err(|e| format!("{}: {e}", path.display())),
        None => {
            use std::io::Write as _;
            std::io::stdout()
                .lock()
                .write_all(text.as_bytes())
                .map_err(|e| e.to_string())
        }
    }
}

/// A realistic playbook of `n` entries: [`generate`]'s sections, IDs,
/// counters and text, and on a share of the entries what the richer formats
/// hold (a title on every third, tags and a confidence on every fourth,
/// evidence on every fifth, timestamps on every second), so that no format
/// is measured on less than it would carry.
fn gen_playbook(n: usize) -> ace_model::Playbook {
    let mut pb = ace_markdown::read(&generate(n)).playbook;
    pb.title = Some("Generated playbook".into());
    pb.created_at = Some("2025-10-25T00:00:00Z".into());
    pb.updated_at = Some("2025-11-01T00:00:00Z".into());
    for (i, e) in pb.entries.iter_mut().enumerate() {
        if i % 3 == 0 {
            let words: Vec<&str> = e.content.split(' ').take(5).collect();
            e.title = Some(words.join(" "));
        }
        if i % 4 == 0 {
            e.tags = Some(vec!["api.pagination".into(), format!("batch.b{}", i % 16)]);
            e.confidence = serde_json::Number::from_f64(0.5 + (i % 5) as f64 / 10.0)
                .map(ace_model::Confidence::Score);
        }
        if i % 5 == 0 {
            e.evidence = Some(vec![ace_model::Evidence::Text(format!("run:{}", 1000 + i))]);
        }
        if i % 2 == 0 {
            e.created_at = Some("2025-10-25T12:00:00Z".into());
        }
    }
    pb
}

/// A deterministic playbook of `n` entries in eight sections, with counters,
/// varied lengths and some non-ASCII text, about 150 bytes per entry.
pub(crate) fn generate(n: usize) -> String {
    const SECTIONS: [(&str, &str); 8] = [
        ("str", "STRATEGIES & INSIGHTS"),
        ("cal", "FORMULAS & CALCULATIONS"),
        ("mis", "COMMON MISTAKES TO AVOID"),
        ("dom", "DOMAIN KNOWLEDGE"),
        ("cod", "CODE SNIPPETS & TEMPLATES"),
        ("prb", "PROBLEM-SOLVING HEURISTICS"),
        ("ctx", "CONTEXT CLUES & INDICATORS"),
        ("oth", "OTHERS"),
    ];
    const WORDS: [&str; 16] = [
        "verify",
        "the",
        "API",
        "response",
        "before",
        "retrying",
        "pagination",
        "loops",
        "timezone",
        "conversion",
        "Σ(cash flow)",
        "→",
        "안전",
        "handles",
        "edge",
        "cases",
    ];
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut out = String::with_capacity(n * 160);
    let per = n.div_ceil(SECTIONS.len());
    let mut id = 0;
    for (i, (prefix, title)) in SECTIONS.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("## ");
        out.push_str(title);
        out.push('\n');
        for _ in 0..per.min(n - id) {
            id += 1;
            let r = next();
            out.push_str(&format!(
                "[{prefix}-{id:05}] helpful={} harmful={} ::",
                r % 40,
                (r >> 8) % 9
            ));
            for w in 0..(14 + (r >> 16) % 12) {
                out.push(' ');
                out.push_str(WORDS[((r >> (w % 48)) as usize + w as usize) % WORDS.len()]);
            }
            out.push('\n');
        }
    }
    out
}

/// Where a benchmark writes its input files, removed when dropped (an
/// error on the way included). With `ACE_BENCH_DIR` set they go to
/// `$ACE_BENCH_DIR/GROUP` and are kept, so that a figure (a peer's above
/// all) can be checked by hand on the same files.
pub(crate) struct Scratch {
    dir: PathBuf,
    pub keep: bool,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.dir
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub(crate) fn scratch(group: &str) -> Result<Scratch, String> {
    let (dir, keep) = match std::env::var_os("ACE_BENCH_DIR") {
        Some(d) => (PathBuf::from(d).join(group), true),
        None => (
            std::env::temp_dir().join(format!("ace-bench-{group}-{}", std::process::id())),
            false,
        ),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(Scratch { dir, keep })
}

/// Where `cargo build --release` puts the binaries: under
/// `CARGO_TARGET_DIR` when it is set (relative to the repository, where
/// the build runs), else under the repository's `target`.
pub(crate) fn release_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|d| root().join(d))
        .unwrap_or_else(|| root().join("target"));
    target.join("release")
}

/// The vAgenda 0.2 core schema with the ACE extension's definitions copied
/// in and `plan.playbook` pointing at its `Playbook`: one self-contained
/// file, because check-jsonschema would resolve the extension's relative
/// `$ref`s against its `https://vagenda.dev/` `$id` and go to the network.
fn core_with_ace() -> Result<String, String> {
    let read = |rel: &str| -> Result<serde_json::Value, String> {
        let text = std::fs::read_to_string(root().join(rel)).map_err(|e| format!("{rel}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{rel}: {e}"))
    };
    let mut core = read("schemas/vagenda/vagenda-core.v0.2.schema.json")?;
    let ace = read("schemas/vagenda/vagenda-extension-ace.schema.json")?;
    let ace_defs = serde_json::to_string(&ace["$defs"])
        .map_err(|e| e.to_string())?
        .replace("./vagenda-core.schema.json#/$defs/", "#/$defs/");
    let ace_defs: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&ace_defs).map_err(|e| e.to_string())?;
    let defs = core["$defs"]
        .as_object_mut()
        .ok_or("the core schema has no $defs")?;
    for (k, v) in ace_defs {
        defs.insert(k, v);
    }
    defs["Plan"]["properties"]["playbook"] = serde_json::json!({"$ref": "#/$defs/Playbook"});
    serde_json::to_string_pretty(&core).map_err(|e| e.to_string())
}

/// Wall time of a process run to the end, its output read and dropped.
fn wall(cmd: &mut Command) -> Duration {
    let t = Instant::now();
    let out = cmd.output().expect("spawn");
    std::hint::black_box(&out);
    t.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median time of `f`; freeing its result happens outside the timing.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                let value = std::hint::black_box(f());
                let elapsed = t.elapsed();
                drop(value);
                elapsed
            })
            .collect(),
    )
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

/// Runs the named benchmark groups, or all of them when none is named, so
/// that one figure can be re-measured without the minutes the others take.
fn bench(only: &[String]) -> Result<(), String> {
    const GROUPS: [&str; 14] = [
        "markdown", "skill", "tron", "batch", "process", "scale", "apply", "prune", "merge",
        "tokens", "kayba", "hostile", "stores", "mcp",
    ];
    if let Some(bad) = only.iter().find(|g| !GROUPS.contains(&g.as_str())) {
        return Err(format!(
            "unknown benchmark group `{bad}`; expected one of {}",
            GROUPS.join(", ")
        ));
    }
    // The kayba comparison needs kayba's code (ACE_KAYBA), the tokens one
    // node and js-tiktoken (ACE_TRON_JS), the stores one a Postgres
    // (ACE_POSTGRES_URL), the MCP one the client's venv and the corpus
    // (ACE_MCP_VENV, ACE_CORPUS), and the hostile inputs take minutes and
    // gigabytes: asked for only.
    let wants = |g: &str| {
        (only.is_empty() && !["kayba", "tokens", "hostile", "stores", "mcp"].contains(&g))
            || only.iter().any(|o| o == g)
    };
    println!("building release binaries ...");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "-p", "ace-tools"])
        .current_dir(root())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("cargo build --release failed".into());
    }

    let big = generate(100_000);
    let pb = ace_markdown::read(&big).playbook;
    if wants("markdown") {
        markdown_bench(&big, &pb);
    }
    if wants("skill") {
        skill_bench(&pb);
    }
    if wants("tron") {
        tron_bench(&pb);
    }
    if wants("batch") {
        batch_bench()?;
    }
    if wants("process") {
        process_bench()?;
    }
    if wants("scale") {
        // ACE_BENCH_MAX_ENTRIES bounds the sizes (100,000 by default: the
        // largest is a scale test, not a race).
        let max = std::env::var("ACE_BENCH_MAX_ENTRIES")
            .ok()
            .map(|v| {
                v.parse()
                    .map_err(|_| format!("ACE_BENCH_MAX_ENTRIES={v}: not a number"))
            })
            .transpose()?
            .unwrap_or(100_000);
        scale::scale_bench(max)?;
    }
    if wants("apply") {
        apply::apply_bench(&release_dir())?;
    }
    if wants("prune") {
        prune::prune_bench(&release_dir())?;
    }
    if wants("merge") {
        merge::merge_bench(&release_dir())?;
    }
    if wants("tokens") {
        tokens::tokens_bench(&release_dir())?;
    }
    if wants("kayba") {
        kayba::kayba_bench(&release_dir())?;
    }
    if wants("hostile") {
        hostile::hostile_bench(&release_dir())?;
    }
    if wants("stores") {
        stores::stores_bench(&release_dir())?;
    }
    if wants("mcp") {
        mcp::mcp_bench(&release_dir())?;
    }
    Ok(())
}

/// Markdown: read and write of a 100,000-entry playbook against a memchr
/// line count (the floor), serde_json on the canonical JSON twin and the
/// paper's regex parser.
fn markdown_bench(big: &str, pb: &ace_model::Playbook) {
    let bytes = big.len();
    let entries = ace_markdown::read(big).playbook.entries.len();
    println!(
        "\n## markdown reader and writer: {entries} entries, {:.1} MB, median of 7 runs",
        bytes as f64 / 1e6
    );
    let floor = time(7, || memchr::memchr_iter(b'\n', big.as_bytes()).count());
    let read = time(7, || ace_markdown::read(big));
    let write = time(7, || ace_markdown::write(pb));
    let out = ace_markdown::write(pb).text;
    assert_eq!(out, big, "the generated playbook is canonical");
    let json = ace_json::write(pb);
    let json_read = time(7, || ace_json::read(&json));
    println!("| operation | time | throughput | vs. baseline |");
    println!("|---|---|---|---|");
    println!(
        "| memchr line count (floor) | {:.1} ms | {:.0} MB/s | 1.00x |",
        ms(floor),
        mbps(bytes, floor)
    );
    println!(
        "| ace_markdown::read | {:.1} ms | {:.0} MB/s | {:.2}x of floor |",
        ms(read),
        mbps(bytes, read),
        floor.as_secs_f64() / read.as_secs_f64()
    );
    println!(
        "| ace_markdown::write | {:.1} ms | {:.0} MB/s | {:.2}x of floor |",
        ms(write),
        mbps(bytes, write),
        floor.as_secs_f64() / write.as_secs_f64()
    );
    println!("| canonical JSON read (serde_json, {:.1} MB) | {:.1} ms | {:.0} MB/s | markdown read is {:.1}x faster |", json.len() as f64 / 1e6, ms(json_read), mbps(json.len(), json_read), json_read.as_secs_f64() / read.as_secs_f64());
    if let Some(py) = python_baseline(big) {
        println!("| paper's regex parser (python3 re, in-process) | {:.1} ms | {:.0} MB/s | ace read is {:.1}x faster |", ms(py), mbps(bytes, py), py.as_secs_f64() / read.as_secs_f64());
    }
}

/// ace-validate as a process on a 30 KB playbook, start-up included, against
/// `true` (the fork/exec floor) and a bare Python start-up.
fn process_bench() -> Result<(), String> {
    // Issue 6's budget is stated for a 30 KB playbook.
    let mut n = 150;
    while generate(n).len() < 30_000 {
        n += 5;
    }
    let (label, text) = ("generated", generate(n));
    let dir = scratch("process")?;
    let file = dir.join("playbook.txt");
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    let exe = release_dir().join("ace-validate");
    let runs = 31;
    let validate = median(
        (0..runs)
            .map(|_| {
                wall(
                    Command::new(&exe)
                        .arg(&file)
                        .args(["--output-format", "concise"]),
                )
            })
            .collect(),
    );
    let truth = median((0..runs).map(|_| wall(&mut Command::new("true"))).collect());
    println!("\n## ace-validate process on a {:.0} KB playbook ({label}), median of {runs} runs, start-up included", text.len() as f64 / 1e3);
    println!("| command | wall time | vs. baseline |");
    println!("|---|---|---|");
    println!("| `true` (fork/exec floor) | {:.2} ms | 1.00x |", ms(truth));
    println!(
        "| ace-validate | {:.2} ms | {:.1}x of floor |",
        ms(validate),
        validate.as_secs_f64() / truth.as_secs_f64()
    );
    if Command::new("python3")
        .arg("-c")
        .arg("pass")
        .output()
        .is_ok()
    {
        let py = median(
            (0..runs)
                .map(|_| wall(Command::new("python3").args(["-c", "pass"])))
                .collect(),
        );
        println!(
            "| `python3 -c pass` (start-up of a Python validator) | {:.2} ms | {:.1}x of floor |",
            ms(py),
            py.as_secs_f64() / truth.as_secs_f64()
        );
    }
    Ok(())
}

/// Skill JSON: read and write of the generated playbook as a skill file,
/// against serde_json parsing the same bytes into a `Value`.
fn skill_bench(pb: &ace_model::Playbook) {
    let mut small = pb.clone();
    small.entries.truncate(20_000);
    small.sections.clear();
    for e in &mut small.entries {
        e.section = None;
    }
    let text = ace_skill::write(&small).text;
    let bytes = text.len();
    let read = time(7, || {
        ace_skill::read(&text).expect("generated skill JSON reads")
    });
    let parsed = ace_skill::read(&text).expect("reads").playbook;
    let write = time(7, || ace_skill::write(&parsed));
    assert_eq!(
        ace_skill::write(&parsed).text,
        text,
        "rewrite is byte-identical"
    );
    let value = time(7, || {
        serde_json::from_str::<serde_json::Value>(&text).expect("json")
    });
    println!(
        "\n## skill-json reader and writer: {} bullets, {:.1} MB, median of 7 runs",
        small.entries.len(),
        bytes as f64 / 1e6
    );
    println!("| operation | time | throughput | vs. baseline |");
    println!("|---|---|---|---|");
    println!(
        "| serde_json::from_str::<Value> (baseline) | {:.1} ms | {:.0} MB/s | 1.00x |",
        ms(value),
        mbps(bytes, value)
    );
    println!(
        "| ace_skill::read (spans, layout, schema checks) | {:.1} ms | {:.0} MB/s | {:.2}x of baseline time |",
        ms(read),
        mbps(bytes, read),
        read.as_secs_f64() / value.as_secs_f64()
    );
    println!(
        "| ace_skill::write | {:.1} ms | {:.0} MB/s | {:.2}x of baseline time |",
        ms(write),
        mbps(bytes, write),
        write.as_secs_f64() / value.as_secs_f64()
    );
}

/// 200 vAgenda plans (about 50 KB each) checked in one call, the way
/// pre-commit calls a hook, against check-jsonschema validating the same
/// files: once against the bare core schema (which leaves `playbook` an
/// unchecked object) and once against the core schema with the ACE
/// extension's definitions bundled in, the checks ace-validate makes. A
/// serde_json parse of the same files in-process is the floor any validator
/// pays. check-jsonschema is found on PATH or through `CHECK_JSONSCHEMA`;
/// without it only our rows are printed.
fn batch_bench() -> Result<(), String> {
    let dir = scratch("batch")?;
    let mut files = Vec::new();
    let mut bytes = 0;
    for i in 0..200 {
        let md = generate(110 + i % 7).replace("Prefer", &format!("Prefer ({i})"));
        let pb = ace_markdown::read(&md).playbook;
        let text = ace_vagenda::write(&pb, &ace_vagenda::WriteOptions::default()).text;
        bytes += text.len();
        let f = dir.join(format!("plan-{i:03}.json"));
        std::fs::write(&f, text).map_err(|e| e.to_string())?;
        files.push(f);
    }
    let exe = release_dir().join("ace-validate");
    let ours = median(
        (0..5)
            .map(|_| {
                wall(
                    Command::new(&exe)
                        .args(["--isolated", "--output-format", "concise"])
                        .args(&files),
                )
            })
            .collect(),
    );
    println!(
        "\n## 200 vAgenda plans in one call ({:.1} MB), median wall time",
        bytes as f64 / 1e6
    );
    println!("| command | wall time | vs. baseline |");
    println!("|---|---|---|");
    println!(
        "| ace-validate (every rule, core + ACE schemas) | {:.1} ms | 1.0x |",
        ms(ours)
    );
    let texts: Vec<Vec<u8>> = files
        .iter()
        .map(std::fs::read)
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let floor = time(7, || {
        texts
            .iter()
            .map(|t| serde_json::from_slice::<serde_json::Value>(t).is_ok())
            .filter(|ok| *ok)
            .count()
    });
    println!(
        "| serde_json::from_slice::<Value> of the same files, in-process (parse floor) | {:.1} ms | {:.1}x of ace-validate's time |",
        ms(floor),
        floor.as_secs_f64() / ours.as_secs_f64()
    );
    let peer = std::env::var_os("CHECK_JSONSCHEMA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("check-jsonschema"));
    let probe = Command::new(&peer).arg("--version").output();
    let Some(version) = probe
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    else {
        println!("| check-jsonschema | not installed (set CHECK_JSONSCHEMA) | |");
        return Ok(());
    };
    let core = root().join("schemas/vagenda/vagenda-core.v0.2.schema.json");
    let bundled = dir.join("vagenda-core-with-ace.schema.json");
    std::fs::write(&bundled, core_with_ace()?).map_err(|e| e.to_string())?;
    for (schema, what) in [
        (&core, "core schema only"),
        (&bundled, "core + ACE extension bundled: the same checks"),
    ] {
        let theirs = median(
            (0..3)
                .map(|_| {
                    wall(
                        Command::new(&peer)
                            .arg("--schemafile")
                            .arg(schema)
                            .args(&files),
                    )
                })
                .collect(),
        );
        println!(
            "| {version} ({what}) | {:.1} ms | ace-validate is {:.1}x faster |",
            ms(theirs),
            theirs.as_secs_f64() / ours.as_secs_f64()
        );
    }
    Ok(())
}

/// TRON: parse throughput on a 100,000-entry vAgenda document, against
/// serde_json parsing its JSON twin and, when `tests/js` is installed, the
/// official `@tron-format/tron` parsing the braced form in the same Node
/// process (start-up excluded).
fn tron_bench(pb: &ace_model::Playbook) {
    let mut big = pb.clone();
    big.entries.truncate(100_000);
    let write = |syntax, root| {
        ace_vagenda::write(
            &big,
            &ace_vagenda::WriteOptions {
                syntax,
                tron_root: root,
                ..ace_vagenda::WriteOptions::default()
            },
        )
        .text
    };
    let tron = write(ace_vagenda::Syntax::Tron, ace_vagenda::RootStyle::Implicit);
    let braced = write(ace_vagenda::Syntax::Tron, ace_vagenda::RootStyle::Braced);
    let json = write(ace_vagenda::Syntax::Json, ace_vagenda::RootStyle::Implicit);
    let opts = ace_tron::Options::default();
    let opts = ace_tron::Options {
        max_size: tron.len() * 2,
        ..opts
    };
    let parse = time(7, || {
        ace_tron::parse(&tron, &opts).expect("generated TRON parses")
    });
    let parse_braced = time(7, || {
        ace_tron::parse(&braced, &opts).expect("braced TRON parses")
    });
    let value = time(7, || {
        serde_json::from_str::<serde_json::Value>(&json).expect("json")
    });
    let read = time(3, || ace_vagenda::read(&tron, ace_vagenda::Syntax::Tron));
    let tron_write = time(3, || {
        write(ace_vagenda::Syntax::Tron, ace_vagenda::RootStyle::Implicit)
    });
    println!(
        "\n## TRON: a vAgenda plan with {} entries, {:.1} MB as TRON, {:.1} MB as JSON; median of 7 runs",
        big.entries.len(),
        tron.len() as f64 / 1e6,
        json.len() as f64 / 1e6
    );
    println!("| operation | time | throughput | vs. baseline |");
    println!("|---|---|---|---|");
    println!(
        "| serde_json::from_str::<Value> on the JSON twin (baseline) | {:.1} ms | {:.0} MB/s | 1.00x |",
        ms(value),
        mbps(json.len(), value)
    );
    println!(
        "| ace_tron::parse (spans, number lexemes) | {:.1} ms | {:.0} MB/s | {:.2}x of baseline time |",
        ms(parse),
        mbps(tron.len(), parse),
        parse.as_secs_f64() / value.as_secs_f64()
    );
    println!(
        "| ace_tron::parse, braced root | {:.1} ms | {:.0} MB/s | {:.2}x of baseline time |",
        ms(parse_braced),
        mbps(braced.len(), parse_braced),
        parse_braced.as_secs_f64() / value.as_secs_f64()
    );
    if let Some(js) = js_tron_parse(&braced) {
        println!(
            "| @tron-format/tron 0.1.3 TRON.parse, braced root (node, in-process) | {:.1} ms | {:.0} MB/s | ace_tron::parse is {:.1}x faster |",
            ms(js),
            mbps(braced.len(), js),
            js.as_secs_f64() / parse_braced.as_secs_f64()
        );
    } else {
        println!("| @tron-format/tron | not measured: run `npm ci` in tests/js | | |");
    }
    println!(
        "| ace_vagenda::read (parse, schema checks, model) | {:.1} ms | {:.0} MB/s | {:.2}x of baseline time |",
        ms(read),
        mbps(tron.len(), read),
        read.as_secs_f64() / value.as_secs_f64()
    );
    println!(
        "| ace_vagenda::write (TRON, house style) | {:.1} ms | {:.0} MB/s | |",
        ms(tron_write),
        mbps(tron.len(), tron_write)
    );
}

/// Median of 7 `TRON.parse` calls in one Node process, if Node and the
/// parser (tests/js) are installed.
fn js_tron_parse(text: &str) -> Option<Duration> {
    let dir = root().join("tests/js");
    if !dir.join("node_modules/@tron-format/tron").is_dir() {
        return None;
    }
    let file = std::env::temp_dir().join(format!("ace-bench-{}.tron", std::process::id()));
    std::fs::write(&file, text).ok()?;
    let script = r#"
import { readFileSync } from "node:fs";
import { TRON } from "@tron-format/tron";
const text = readFileSync(process.argv[1], "utf8");
const times = [];
for (let i = 0; i < 7; i++) {
  const t = process.hrtime.bigint();
  TRON.parse(text);
  times.push(Number(process.hrtime.bigint() - t) / 1e9);
}
times.sort((a, b) => a - b);
console.log(times[3]);
"#;
    let out = Command::new("node")
        .args(["--input-type=module", "-e", script])
        .arg(&file)
        .current_dir(&dir)
        .output()
        .ok();
    let _ = std::fs::remove_file(&file);
    let out = out?;
    if !out.status.success() {
        eprintln!("node: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let secs: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    Some(Duration::from_secs_f64(secs))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The ACE paper's own parser (`playbook_utils.py`) reads each line with one
/// regular expression; this is that approach, timed inside Python so that
/// interpreter start-up is excluded.
fn python_baseline(text: &str) -> Option<Duration> {
    let script = r#"
import re, sys, time
data = sys.stdin.read()
pat = re.compile(r'\[([^\]]+)\]\s*helpful=(\d+)\s*harmful=(\d+)\s*::\s*(.*)')
best = None
for _ in range(5):
    t = time.perf_counter()
    out = []
    for line in data.split('\n'):
        m = pat.match(line)
        if m:
            out.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
    d = time.perf_counter() - t
    best = d if best is None or d < best else best
print(best)
"#;
    use std::io::Write;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    let secs: f64 = String::from_utf8(out.stdout).ok()?.trim().parse().ok()?;
    Some(Duration::from_secs_f64(secs))
}
