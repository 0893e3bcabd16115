#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ace_io::Format;
use ace_model::Severity;
use ace_tools::{error, load_input, parse_format, EXIT_FINDINGS, EXIT_USAGE};
use clap::{Parser, ValueEnum};

const PROG: &str = "ace-convert";

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ContainerArg {
    Plan,
    #[value(name = "todoList", alias = "todolist")]
    TodoList,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TronRootArg {
    Implicit,
    Braced,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Report {
    Text,
    Json,
}

/// Convert an ACE playbook between formats, through the canonical model.
///
/// What the target format cannot hold is reported on stderr; nothing is
/// dropped silently. Output is written to a temporary file and renamed.
#[derive(Parser, Debug)]
#[command(name = PROG, version)]
struct Args {
    /// Input file, or `-` for standard input.
    #[arg(required_unless_present = "list_formats")]
    input: Option<String>,
    /// Output file, or `-` for standard output (the default). With
    /// `--to agents-md`, a directory (existing, or ending in `/`) receives
    /// both AGENTS.md and playbook.yaml.
    #[arg(short, long, value_name = "OUT")]
    output: Option<String>,
    /// The curator's playbook.yaml to read with an AGENTS.md input (default:
    /// playbook.yaml beside the input, if there is one).
    #[arg(long, value_name = "FILE")]
    sections: Option<PathBuf>,
    /// Input format (detected from the file name and content if omitted).
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    from: Option<Format>,
    /// Output format (from the output file's extension, or the input format with --in-place).
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    to: Option<Format>,
    /// Fail with exit 1, writing nothing, if anything would be lost.
    #[arg(long)]
    strict: bool,
    /// Rewrite the input file itself.
    #[arg(long, conflicts_with = "output")]
    in_place: bool,
    /// How to report losses on stderr.
    #[arg(long, value_enum, default_value = "text")]
    report: Report,
    /// Do not report losses (they still fail --strict).
    #[arg(short, long)]
    quiet: bool,
    /// Name to use for standard input in messages.
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    stdin_filename: String,
    /// With `--to skill-json`: write `confidence` and `scope` as schema
    /// generation 1 (levels and names) or 2 (numbers and objects).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=2))]
    skill_generation: Option<u8>,
    /// With `--to vagenda-json|vagenda-tron`: the container of a new
    /// document (a playbook read from vAgenda keeps its own).
    #[arg(long, value_enum, default_value = "plan")]
    container: ContainerArg,
    /// With `--to vagenda-tron`: `implicit` writes vAgenda's house style
    /// (`key: value` lines at the top); `braced` writes one braced root that
    /// the official `@tron-format/tron` parser reads.
    #[arg(long, value_enum, default_value = "implicit")]
    tron_root: TronRootArg,
    /// Write the IDs the target could not hold, and the IDs they became,
    /// to FILE as a JSON array of `{"old", "new"}` (empty when none changed).
    #[arg(long, value_name = "FILE")]
    id_map: Option<PathBuf>,
    /// Sections, prefixes and vAgenda kinds to use before the default table
    /// (docs/formats/mapping.md): a JSON array of `{kind, title, prefix, key?}`.
    #[arg(long, value_name = "FILE")]
    section_map: Option<PathBuf>,
    /// List the formats and what each can hold, then exit.
    #[arg(long)]
    list_formats: bool,
}

fn main() -> ExitCode {
    ExitCode::from(run(Args::parse()) as u8)
}

fn list_formats() -> i32 {
    let mut out = std::io::stdout().lock();
    let formats = Format::all();
    for f in formats {
        let _ = writeln!(
            out,
            "{:<14} {:<18} {}",
            f.name(),
            "read, write",
            f.describe()
        );
    }
    // What each format holds, found by writing a playbook that sets every
    // field and reading the loss report (ace_io::capabilities).
    let columns: Vec<Vec<(&str, ace_io::capabilities::Holds)>> = formats
        .iter()
        .map(|f| ace_io::capabilities::capabilities(*f))
        .collect();
    let _ = writeln!(out);
    let _ = write!(out, "{:<28}", "what each holds");
    for f in formats {
        let _ = write!(out, " {:>13}", f.name());
    }
    let _ = writeln!(out);
    for (row, (label, _)) in columns[0].iter().enumerate() {
        let _ = write!(out, "{label:<28}");
        for col in &columns {
            let _ = write!(out, " {:>13}", col[row].1.mark());
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "\nyes: kept as is; changed: written in another form (an ID reassigned, a value defaulted or\nconverted, text escaped); -: no place for it. Either is reported when converting."
    );
    0
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn run(args: Args) -> i32 {
    if args.list_formats {
        return list_formats();
    }
    let sections = match &args.section_map {
        None => std::sync::Arc::default(),
        Some(path) => {
            let loaded = std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| ace_model::mapping::SectionMap::from_json(&text));
            match loaded {
                Ok(map) => std::sync::Arc::new(map),
                Err(e) => {
                    error(PROG, format!("{}:{e}", path.display()));
                    return EXIT_USAGE;
                }
            }
        }
    };
    let input = args.input.as_deref().unwrap_or("-");
    let mut source = match load_input(input, &args.stdin_filename) {
        Ok(s) => s,
        Err(e) => {
            error(PROG, e);
            return EXIT_USAGE;
        }
    };
    let from = args
        .from
        .unwrap_or_else(|| ace_io::detect(source.path.as_deref(), &source.text));
    let to = match (args.to, &args.output, args.in_place) {
        (Some(to), _, _) => to,
        (None, _, true) => from,
        (None, Some(out), false) if out != "-" => match ace_io::format_of_name(Path::new(out)) {
            Some(f) => f,
            None => {
                error(
                    PROG,
                    format!("cannot tell the output format from `{out}`; pass --to FORMAT"),
                );
                return EXIT_USAGE;
            }
        },
        _ => {
            error(
                PROG,
                "no output format; pass --to FORMAT (for example --to json)",
            );
            return EXIT_USAGE;
        }
    };
    // Only errors are shown (print_errors), so checks that find less are
    // not run.
    let ctx = ace_io::ReadCtx {
        sections: sections.clone(),
        ..ace_io::ReadCtx::min(Severity::Error)
    };
    let parsed = match from.read(&source.text, &ctx) {
        Ok(ace_io::Read {
            other: Some(other), ..
        }) => {
            error(
                PROG,
                format!(
                    "{}: this is a {}, not a playbook; check it with ace-validate (applying {} is not supported yet)",
                    source.name, other.what, other.applying,
                ),
            );
            return EXIT_USAGE;
        }
        Ok(read) => read.parsed,
        Err(d) => {
            print_diagnostics(&source.name, &source.text, &[d]);
            return EXIT_FINDINGS;
        }
    };
    let mut parsed = parsed;
    let companion = match args.sections.clone() {
        Some(p) => Some(p),
        None => source
            .path
            .as_deref()
            .and_then(|p| from.companion_beside(p)),
    };
    let companion = match companion {
        Some(path) if from.companion().is_some() => {
            let yaml = match ace_io::load(&path) {
                Ok(y) => y,
                Err(e) => {
                    error(PROG, e);
                    return EXIT_USAGE;
                }
            };
            match from.attach_companion(&mut parsed, &yaml.text) {
                Ok(diags) => {
                    print_errors(&yaml.name, &yaml.text, diags, args.quiet);
                    Some(yaml)
                }
                Err(d) => {
                    print_diagnostics(&yaml.name, &yaml.text, &[d]);
                    return EXIT_FINDINGS;
                }
            }
        }
        Some(path) => {
            error(
                PROG,
                format!(
                    "--sections {}: only an AGENTS.md input reads a playbook.yaml",
                    path.display()
                ),
            );
            return EXIT_USAGE;
        }
        None => None,
    };
    print_errors(&source.name, &source.text, parsed.diagnostics, args.quiet);
    // The model owns copies of what it needs; without the input texts the
    // peak while writing is the model and the output only.
    source.text = Default::default();
    let companion = companion.map(|mut y| {
        y.text = Default::default();
        y
    });
    let now = match ace_tools::source_date_epoch() {
        Ok(now) => now,
        Err(e) => {
            error(PROG, e);
            return EXIT_USAGE;
        }
    };
    let mut ctx = ace_io::WriteCtx::default()
        .with_now(now)
        .with_sections(sections);
    if let Some(n) = args.skill_generation {
        ctx = ctx.with_option("skill-generation", n.to_string());
    }
    ctx = ctx.with_option(
        "container",
        match args.container {
            ContainerArg::Plan => "plan",
            ContainerArg::TodoList => "todoList",
        },
    );
    ctx = ctx.with_option(
        "tron-root",
        match args.tron_root {
            TronRootArg::Implicit => "implicit",
            TronRootArg::Braced => "braced",
        },
    );
    let pair_dir = match args.output.as_deref() {
        Some(out)
            if to.companion().is_some() && (out.ends_with('/') || Path::new(out).is_dir()) =>
        {
            Some(PathBuf::from(out))
        }
        _ => None,
    };
    let pair_in_place = args.in_place && to.companion().is_some() && companion.is_some();
    if let (Some(c), true) = (to.companion(), pair_dir.is_some() || pair_in_place) {
        let pair_name = format!("{to} + {}", c.name());
        let (agents_path, yaml_path) = match (&pair_dir, &source.path, &companion) {
            (Some(dir), _, _) => (dir.join(c.main_file()), dir.join(c.file_names()[0])),
            (None, Some(p), Some(y)) => (p.clone(), y.path.clone().unwrap_or_default()),
            _ => unreachable!("in-place pairs have an input file and a companion"),
        };
        // Under --strict a loss must leave nothing behind, not even the
        // directory: a dry run finds the losses first.
        if args.strict {
            let mut sink = std::io::sink();
            let mut dry = ace_io::Out::to(&mut sink);
            let (_, report) = to.write_with_companion(&parsed.playbook, &ctx, &mut dry);
            if let Some(code) = report_losses(&args, &report.losses, &pair_name) {
                return code;
            }
        }
        if let Some(dir) = &pair_dir {
            if let Err(e) = std::fs::create_dir_all(dir) {
                error(PROG, format!("{}: {e}", dir.display()));
                return EXIT_USAGE;
            }
        }
        for path in [&agents_path, &yaml_path] {
            if !args.in_place && source.path.as_deref().is_some_and(|p| same_file(p, path)) {
                error(
                    PROG,
                    format!(
                        "{}: refusing to overwrite the input; use --in-place",
                        path.display()
                    ),
                );
                return EXIT_USAGE;
            }
        }
        // AGENTS.md goes out as it is printed, as a single output does; both
        // files are renamed into place only once the losses are known.
        let create = |path: &Path| {
            ace_io::AtomicFile::create(path).map_err(|e| format!("{}: {e}", path.display()))
        };
        let (mut agents_file, mut yaml_file) = match (create(&agents_path), create(&yaml_path)) {
            (Ok(a), Ok(y)) => (a, y),
            (Err(e), _) | (_, Err(e)) => {
                error(PROG, e);
                return EXIT_USAGE;
            }
        };
        let mut out = ace_io::Out::to(&mut agents_file);
        let (yaml, report) = to.write_with_companion(&parsed.playbook, &ctx, &mut out);
        let yaml = yaml.unwrap_or_default();
        let sent = out.finish();
        if !args.strict {
            report_losses(&args, &report.losses, &pair_name);
        }
        let result = sent
            .and_then(|_| agents_file.commit())
            .map_err(|e| format!("{}: {e}", agents_path.display()))
            .and_then(|()| {
                yaml_file
                    .write_all(yaml.as_bytes())
                    .and_then(|()| yaml_file.commit())
                    .map_err(|e| format!("{}: {e}", yaml_path.display()))
            });
        release(parsed.playbook);
        if let Err(e) = result {
            error(PROG, e);
            return EXIT_USAGE;
        }
        return 0;
    }
    let target: Option<PathBuf> = if args.in_place {
        match &source.path {
            Some(p) => Some(p.clone()),
            None => {
                error(PROG, "--in-place needs an input file, not standard input");
                return EXIT_USAGE;
            }
        }
    } else {
        match args.output.as_deref() {
            None | Some("-") => None,
            Some(out) => {
                let out = PathBuf::from(out);
                if source.path.as_deref().is_some_and(|p| same_file(p, &out)) {
                    error(
                        PROG,
                        format!(
                            "{}: refusing to overwrite the input; use --in-place",
                            out.display()
                        ),
                    );
                    return EXIT_USAGE;
                }
                Some(out)
            }
        }
    };
    // The text goes out as it is printed, so no copy of the whole output is
    // held. What was lost is known only at the end: a file is renamed into
    // place only then, and standard output under --strict gets a dry run.
    let pb = &parsed.playbook;
    let write = |sink: &mut dyn Write| {
        let mut out = ace_io::Out::to(sink);
        let report = to.write(pb, &ctx, &mut out);
        (report, out.finish())
    };
    let (report, result) = match target {
        Some(path) => {
            let mut file = match ace_io::AtomicFile::create(&path) {
                Ok(f) => f,
                Err(e) => {
                    error(PROG, format!("{}: {e}", path.display()));
                    return EXIT_USAGE;
                }
            };
            let (report, sent) = write(&mut file);
            if let Some(code) = report_losses(&args, &report.losses, to.name()) {
                return code;
            }
            let result = sent
                .and_then(|_| file.commit())
                .map_err(|e| format!("{}: {e}", path.display()));
            (report, result)
        }
        None => {
            if args.strict {
                let (report, _) = write(&mut std::io::sink());
                if let Some(code) = report_losses(&args, &report.losses, to.name()) {
                    return code;
                }
            }
            let (report, sent) = write(&mut std::io::stdout().lock());
            if !args.strict {
                report_losses(&args, &report.losses, to.name());
            }
            (report, sent.map(drop).map_err(|e| format!("<stdout>: {e}")))
        }
    };
    let result = result.and_then(|()| match &args.id_map {
        Some(path) => write_id_map(path, &report.id_changes),
        None => Ok(()),
    });
    release(parsed.playbook);
    match result {
        Ok(()) => 0,
        Err(e) => {
            error(PROG, e);
            EXIT_USAGE
        }
    }
}

/// Lets go of the playbook at the end of the run without freeing it:
/// freeing a million entries one by one takes a fifth of a second or
/// more, and the process ends next, the system taking the memory back at
/// once.
fn release(pb: ace_model::Playbook) {
    std::mem::forget(pb);
}

fn write_id_map(path: &Path, changes: &[ace_model::ids::IdChange]) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(changes).map_err(|e| e.to_string())?;
    text.push('\n');
    ace_io::write_atomic(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Prints the losses; under --strict, any loss stops the conversion with
/// the exit code returned.
fn report_losses(args: &Args, losses: &[ace_model::LossEntry], target: &str) -> Option<i32> {
    if !args.quiet || args.strict {
        let mut err = std::io::stderr().lock();
        let _ = match args.report {
            Report::Text => ace_report::render_losses_text(losses, target, &mut err),
            Report::Json => ace_report::render_losses_json(losses, target, &mut err),
        };
    }
    if args.strict && !losses.is_empty() {
        error(PROG, format!("--strict: {} piece(s) of information would be lost converting to {target}; nothing written", losses.len()));
        return Some(EXIT_FINDINGS);
    }
    None
}

/// Error-level findings are shown; a conversion goes on, since the reader
/// kept everything it could not interpret.
fn print_errors(name: &str, text: &str, diags: Vec<ace_model::Diagnostic>, quiet: bool) {
    let errors: Vec<_> = diags
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if !errors.is_empty() && !quiet {
        print_diagnostics(name, text, &errors);
    }
}

fn print_diagnostics(name: &str, text: &str, diags: &[ace_model::Diagnostic]) {
    let report = [ace_report::FileReport {
        name,
        text,
        diagnostics: diags,
    }];
    let mut err = std::io::stderr().lock();
    let _ = ace_report::render(ace_report::OutputFormat::Concise, &report, false, &mut err);
}
