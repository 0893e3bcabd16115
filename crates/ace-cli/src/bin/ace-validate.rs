use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use ace_cli::{error, load_input, parse_format, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use ace_io::Format;
use ace_model::{rules, Diagnostic, Severity};
use ace_report::{FileReport, OutputFormat};
use clap::{Parser, ValueEnum};

const PROG: &str = "ace-validate";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Output {
    /// `github` when GITHUB_ACTIONS=true, else `full`.
    Auto,
    Full,
    Concise,
    Json,
    Github,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// Check ACE playbooks against the rules of their specs.
///
/// Exit status: 0 when no error-level finding, 1 when there is one, 2 on a
/// usage or I/O error.
#[derive(Parser, Debug)]
#[command(name = PROG, version)]
struct Args {
    /// Files to check; `-` reads standard input.
    files: Vec<String>,
    /// Input format for every file (detected per file if omitted).
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    from: Option<Format>,
    #[arg(long, value_enum, default_value = "auto")]
    output_format: Output,
    /// Colour in human output; NO_COLOR and FORCE_COLOR are honoured with `auto`.
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
    /// Only report these codes (comma-separated, e.g. ACE002,ACE006).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    select: Vec<String>,
    /// Never report these codes.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    ignore: Vec<String>,
    /// Curation threshold: report entries with harmful > helpful + N.
    #[arg(long, default_value_t = 3, value_name = "N")]
    threshold: i64,
    /// The curator's playbook.yaml to check with each AGENTS.md (default:
    /// playbook.yaml beside it, if there is one).
    #[arg(long, value_name = "FILE")]
    sections: Option<std::path::PathBuf>,
    /// Check an AGENTS.md alone, without the playbook.yaml beside it.
    #[arg(long, conflicts_with = "sections")]
    no_sections: bool,
    /// The playbook that delta files apply to: IDs they name are checked
    /// against its entries (any format ace-tools reads).
    #[arg(long, value_name = "FILE")]
    playbook: Option<std::path::PathBuf>,
    /// Exit 0 even when errors are found.
    #[arg(long)]
    exit_zero: bool,
    /// Name to use for standard input in messages.
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    stdin_filename: String,
}

fn main() -> ExitCode {
    ExitCode::from(run(Args::parse()) as u8)
}

fn codes(list: &[String]) -> Result<Vec<&'static str>, String> {
    list.iter()
        .filter(|c| !c.is_empty())
        .map(|c| {
            rules::by_code(c.trim())
                .map(|r| r.code)
                .ok_or_else(|| format!("unknown rule code `{c}`"))
        })
        .collect()
}

fn use_color(choice: Color) -> bool {
    let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto if set("NO_COLOR") => false,
        Color::Auto if set("FORCE_COLOR") => true,
        Color::Auto => std::io::stdout().is_terminal(),
    }
}

/// The playbook named by `--playbook`, read in whatever format it is.
fn load_target(path: &std::path::Path) -> Result<ace_model::Playbook, String> {
    let source = ace_io::load(path).map_err(|e| e.to_string())?;
    let format = ace_io::detect(source.path.as_deref(), &source.text);
    match ace_io::read(format, &source.text) {
        Ok(parsed) => Ok(parsed.playbook),
        Err(ace_io::ReadError::Syntax(d)) => {
            let pos = ace_model::LineIndex::new(&source.text).line_col(&source.text, d.span.start);
            Err(format!(
                "--playbook {}:{}:{}: {}",
                source.name, pos.line, pos.col, d.message
            ))
        }
        Err(e) => Err(format!("--playbook {}: {e}", source.name)),
    }
}

fn run(args: Args) -> i32 {
    if args.files.is_empty() {
        error(
            PROG,
            "no input files; pass one or more playbooks, or `-` for standard input",
        );
        return EXIT_USAGE;
    }
    let (select, ignore) = match (codes(&args.select), codes(&args.ignore)) {
        (Ok(s), Ok(i)) => (s, i),
        (Err(e), _) | (_, Err(e)) => {
            error(PROG, e);
            return EXIT_USAGE;
        }
    };
    let opts = ace_lint::Options {
        threshold: args.threshold,
        ..ace_lint::Options::default()
    };
    let mut failed_io = false;
    let target = match &args.playbook {
        None => None,
        Some(path) => match load_target(path) {
            Ok(pb) => Some(pb),
            Err(e) => {
                error(PROG, e);
                return EXIT_USAGE;
            }
        },
    };
    let mut results: Vec<(ace_io::Source, Vec<Diagnostic>)> = Vec::new();
    for file in &args.files {
        let source = match load_input(file, &args.stdin_filename) {
            Ok(s) => s,
            Err(e) => {
                error(PROG, e);
                failed_io = true;
                continue;
            }
        };
        let format = args
            .from
            .unwrap_or_else(|| ace_io::detect(source.path.as_deref(), &source.text));
        let keep = |mut diags: Vec<Diagnostic>| {
            diags.retain(|d| {
                (select.is_empty() || select.contains(&d.code)) && !ignore.contains(&d.code)
            });
            diags
        };
        if ace_io::skill_document(format, &source.text).is_some() {
            let diags = ace_io::validate_skill_delta(&source.text, target.as_ref());
            results.push((source, keep(diags)));
            continue;
        }
        let mut parsed = match ace_io::read(format, &source.text) {
            Ok(p) => p,
            Err(ace_io::ReadError::Syntax(d)) => {
                results.push((source, keep(vec![d])));
                continue;
            }
            Err(e) => {
                error(PROG, format!("{}: {e}", source.name));
                failed_io = true;
                continue;
            }
        };
        let companion = match (&args.sections, args.no_sections) {
            (_, true) => None,
            (Some(p), _) => Some(p.clone()),
            (None, false) => source
                .path
                .as_deref()
                .and_then(|p| ace_io::sections_beside(format, p)),
        };
        let mut companion_result = None;
        if let Some(path) = companion.filter(|_| format == Format::AgentsMd) {
            match ace_io::load(&path) {
                Ok(yaml) => {
                    let diags = ace_io::attach_sections(&mut parsed, &yaml.text)
                        .unwrap_or_else(|d| vec![d]);
                    companion_result = Some((yaml, keep(diags)));
                }
                Err(e) => {
                    error(PROG, e);
                    failed_io = true;
                }
            }
        }
        let diags = ace_io::validate_parsed(format, parsed, &opts);
        results.push((source, keep(diags)));
        results.extend(companion_result);
    }
    let format = match args.output_format {
        Output::Auto if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") => {
            OutputFormat::Github
        }
        Output::Auto | Output::Full => OutputFormat::Full,
        Output::Concise => OutputFormat::Concise,
        Output::Json => OutputFormat::Json,
        Output::Github => OutputFormat::Github,
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
        return EXIT_USAGE;
    }
    let mut out = std::io::stdout().lock();
    let color =
        use_color(args.color) && matches!(format, OutputFormat::Full | OutputFormat::Concise);
    if let Err(e) = ace_report::render(format, &reports, color, &mut out).and_then(|_| out.flush())
    {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            error(PROG, format!("<stdout>: {e}"));
        }
        return EXIT_USAGE;
    }
    let has_errors = results
        .iter()
        .flat_map(|(_, d)| d)
        .any(|d| d.severity == Severity::Error);
    if failed_io {
        EXIT_USAGE
    } else if has_errors && !args.exit_zero {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
