#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use ace_check::run::{self as steps, Overrides};
use ace_check::Companion;
use ace_model::Severity;
use ace_registry::Format;
use ace_report::{FileReport, OutputFormat};
use ace_tools::{error, Color, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use clap::{Parser, ValueEnum};

const PROG: &str = "ace-validate";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Output {
    /// `github` when GITHUB_ACTIONS=true, else `full`.
    Auto,
    /// `path:line:col: severity[CODE]: message`, a code frame, help and a
    /// summary line.
    Full,
    /// One line per finding, then the summary line.
    Concise,
    /// One JSON array of every finding, with positions and byte offsets.
    Json,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
}

/// Check ACE playbooks, deltas and patches against the rules of their specs.
///
/// Exit status: 0 when no error-level finding, 1 when there is one, 2 on a
/// usage or I/O error (including a directory or glob that matches no file).
#[derive(Parser, Debug)]
#[command(name = PROG, version)]
struct Args {
    /// Files, directories (walked for ACE files) or globs to check; `-`
    /// reads standard input.
    paths: Vec<String>,
    /// Input format for every file (detected per file if omitted). A file
    /// that no format claims is then not checked: exit 2.
    #[arg(long, value_name = "FMT", value_parser = ace_tools::format_parser())]
    from: Option<Format>,
    /// How findings are printed.
    #[arg(long, value_enum, default_value = "auto")]
    output_format: Output,
    /// Print the findings only: no summary line.
    #[arg(short, long)]
    quiet: bool,
    /// Print how often each code was found instead of the findings (as a
    /// JSON array with `--output-format json`).
    #[arg(long)]
    statistics: bool,
    /// List the files a run would check, one per line, and check none.
    #[arg(long)]
    show_files: bool,
    /// Colour in human output; `auto` honours NO_COLOR and FORCE_COLOR.
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
    /// Only report these codes (comma-separated, e.g. ACE002,ACE006);
    /// replaces `select` in ace.toml.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    select: Option<Vec<String>>,
    /// Never report these codes; added to `ignore` in ace.toml.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    ignore: Vec<String>,
    /// Curation threshold: report entries with harmful > helpful + N
    /// (`thresholds.curation` in ace.toml; default 3).
    #[arg(long, value_name = "N")]
    threshold: Option<i64>,
    /// The curator's playbook.yaml to check with each AGENTS.md (default:
    /// playbook.yaml beside it, if there is one).
    #[arg(long, value_name = "FILE")]
    sections: Option<PathBuf>,
    /// Check an AGENTS.md alone, without the playbook.yaml beside it.
    #[arg(long, conflicts_with = "sections")]
    no_sections: bool,
    /// The playbook that deltas and patches apply to: the IDs, hashes and
    /// sequence they name are checked against it (any format ace-tools reads).
    #[arg(long, value_name = "FILE")]
    playbook: Option<PathBuf>,
    /// An earlier version to enforce append-only history against: a file,
    /// or a git revision (each file is compared with itself there).
    #[arg(long, value_name = "FILE|REV")]
    baseline: Option<String>,
    /// Use this configuration file instead of the nearest ace.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    config: Option<PathBuf>,
    /// Ignore every ace.toml.
    #[arg(long)]
    isolated: bool,
    /// Apply ace.toml's `exclude` to files named on the command line too
    /// (what pre-commit needs, since it names every staged file).
    #[arg(long)]
    force_exclude: bool,
    /// Exit 0 even when errors are found.
    #[arg(long)]
    exit_zero: bool,
    /// Name to use for standard input in messages (and for format detection).
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    stdin_filename: String,
}

fn main() -> ExitCode {
    ace_tools::prepare_process();
    ExitCode::from(run(Args::parse()) as u8)
}

fn run(args: Args) -> i32 {
    if args.paths.is_empty() {
        error(
            PROG,
            "no input files; pass playbooks, directories or globs, or `-` for standard input",
        );
        return EXIT_USAGE;
    }
    let loaded = match steps::configuration(args.config.as_deref(), args.isolated) {
        Ok(l) => l,
        Err(e) => {
            error(PROG, e);
            return EXIT_USAGE;
        }
    };
    let overrides = Overrides {
        from: args.from,
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        threshold: args.threshold,
        companion: match (&args.sections, args.no_sections) {
            (_, true) => Companion::Never,
            (Some(p), _) => Companion::File(p.clone()),
            (None, false) => Companion::Beside,
        },
        playbook: args.playbook.clone(),
        baseline: args.baseline.clone(),
    };
    let settings = match steps::settings(&loaded, &overrides) {
        Ok(s) => s,
        Err(e) => {
            error(PROG, e);
            return EXIT_USAGE;
        }
    };
    let inputs = match steps::inputs(&args.paths, &loaded, args.force_exclude, &settings) {
        Ok(i) => i,
        Err(e) => {
            error(PROG, e);
            return EXIT_USAGE;
        }
    };
    if args.show_files {
        return show_files(&inputs, &args.stdin_filename);
    }
    let mut failed_io = false;
    let mut results: Vec<(ace_fs::Source, Vec<ace_model::Diagnostic>)> = Vec::new();
    for checked in steps::check_all(&inputs, &args.stdin_filename, &settings) {
        for e in &checked.errors {
            error(PROG, e);
        }
        failed_io |= !checked.errors.is_empty();
        results.extend(checked.reports);
    }
    let format = match args.output_format {
        Output::Auto if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") => {
            OutputFormat::Github
        }
        Output::Auto | Output::Full => OutputFormat::Full,
        Output::Concise => OutputFormat::Concise,
        Output::Json => OutputFormat::Json,
        Output::Github => OutputFormat::Github,
        Output::Sarif => OutputFormat::Sarif,
    };
    let reports: Vec<FileReport> = results
        .iter()
        .map(|(s, d)| FileReport {
            name: &s.name,
            text: &s.text,
            diagnostics: d,
        })
        .collect();
    if reports.is_empty() {
        if inputs.is_empty() && !failed_io {
            // Every named file was excluded with --force-exclude.
            eprintln!("{PROG}: every file given is excluded by ace.toml; nothing to check");
            return EXIT_OK;
        }
        return EXIT_USAGE;
    }
    let has_errors = results
        .iter()
        .flat_map(|(_, d)| d)
        .any(|d| d.severity == Severity::Error);
    let status = if failed_io {
        EXIT_USAGE
    } else if has_errors && !args.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    };
    let mut out = std::io::stdout().lock();
    let options = ace_report::Options {
        color: args.color.enabled() && matches!(format, OutputFormat::Full | OutputFormat::Concise),
        summary: !args.quiet,
    };
    let printed = if args.statistics {
        ace_report::render_statistics(format, &reports, &mut out)
    } else {
        ace_report::render_with(format, &reports, options, &mut out)
    };
    match printed.and_then(|_| out.flush()) {
        Ok(()) => status,
        // A reader that stopped early (`| head`) wanted no more: stop
        // quietly, with the status the findings give, as ripgrep does.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => status,
        Err(e) => {
            error(PROG, format!("<stdout>: {e}"));
            EXIT_USAGE
        }
    }
}

/// `--show-files`: the inputs, one per line.
fn show_files(inputs: &[steps::Input], stdin_name: &str) -> i32 {
    let mut out = std::io::stdout().lock();
    let mut listed = Ok(());
    for input in inputs {
        listed = match input {
            steps::Input::File(p) => writeln!(out, "{}", p.display()),
            steps::Input::Stdin => writeln!(out, "{stdin_name}"),
        };
        if listed.is_err() {
            break;
        }
    }
    match listed.and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            error(PROG, format!("<stdout>: {e}"));
            EXIT_USAGE
        }
        _ => EXIT_OK,
    }
}
