//! `ace-validate`: its command-line flow, from the parsed arguments to the
//! exit status. What it does lives in the library crates.

use std::io::Write;

use crate::{error, ExitStatus};
use ace_check::run::{self as steps, Overrides};
use ace_check::Companion;
use ace_model::Severity;
use ace_report::{FileReport, OutputFormat};

use crate::cli::validate::*;

/// The tool's run: what it does with `args`, and the status it exits with.
pub fn run(args: Args) -> ExitStatus {
    if args.paths.is_empty() {
        error(
            PROG,
            "no input files; pass playbooks, directories or globs, or `-` for standard input",
        );
        return ExitStatus::Refused;
    }
    let loaded = match steps::configuration(args.config.as_deref(), args.isolated) {
        Ok(l) => l,
        Err(e) => {
            error(PROG, e);
            return ExitStatus::Refused;
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
        max_tokens: args.max_tokens,
        max_entries: args.max_entries,
        tokenizer: args.tokenizer,
    };
    let settings = match steps::settings(&loaded, &overrides) {
        Ok(s) => s,
        Err(e) => {
            error(PROG, e);
            return ExitStatus::Refused;
        }
    };
    // Database locations are checked beside the files, after them.
    let mut stores = Vec::new();
    let mut paths = Vec::new();
    for p in &args.paths {
        // A location is words (`sqlite:`, `postgres://`); a name that is
        // not UTF-8 is a file's.
        match p.to_str().map_or(Ok(None), ace_registry::store::location) {
            Ok(Some(l)) => stores.push(l),
            Ok(None) => paths.push(p.clone()),
            Err(e) => {
                error(PROG, e);
                return ExitStatus::Refused;
            }
        }
    }
    let inputs = match paths.is_empty() {
        true => Ok(Vec::new()),
        false => steps::inputs(
            &paths,
            &loaded,
            args.force_exclude,
            args.only_ace,
            &settings,
        ),
    };
    let inputs = match inputs {
        Ok(i) => i,
        Err(e) => {
            error(PROG, e);
            return ExitStatus::Refused;
        }
    };
    if args.show_files {
        return show_files(&inputs, &args.stdin_filename);
    }
    if args.tokens {
        return print_tokens(&args, &inputs, settings.budget.encoding);
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
    for store in &stores {
        let checked = ace_check::check_store(store, &settings);
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
            // Every named file was excluded with --force-exclude, or is
            // no ACE file under --only-ace.
            let why = match args.only_ace {
                true => "is no ACE file or is excluded by ace.toml",
                false => "is excluded by ace.toml",
            };
            crate::say!("{PROG}: every file given {why}; nothing to check");
            return ExitStatus::Ok;
        }
        return ExitStatus::Refused;
    }
    let has_errors = results
        .iter()
        .flat_map(|(_, d)| d)
        .any(|d| d.severity == Severity::Error);
    let status = if failed_io {
        ExitStatus::Refused
    } else if has_errors && !args.exit_zero {
        ExitStatus::Findings
    } else {
        ExitStatus::Ok
    };
    let mut out = std::io::stdout().lock();
    // Under a pre-commit hook (PRE_COMMIT=1), the error that stops the
    // commit must stand out: frames for errors only, and narrow.
    let hook = std::env::var_os("PRE_COMMIT").is_some_and(|v| !v.is_empty() && v != "0");
    let options = ace_report::Options {
        color: args.color.enabled() && matches!(format, OutputFormat::Full | OutputFormat::Concise),
        summary: !args.quiet,
        frame_width: match hook {
            true => ace_report::FRAME_CHARS_NARROW,
            false => ace_report::FRAME_CHARS,
        },
        frames_for_errors_only: hook,
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
            ExitStatus::Refused
        }
    }
}

/// `--tokens`: each file's tokens and its sections', in text or as one
/// JSON array, the files read but not checked; exit 2 if one could not be
/// read.
fn print_tokens(args: &Args, inputs: &[steps::Input], enc: ace_tokens::Encoding) -> ExitStatus {
    let counted = ace_check::run::count_all(inputs, &args.stdin_filename, args.from, enc);
    let mut status = ExitStatus::Ok;
    let mut counts = Vec::new();
    for c in counted {
        match c {
            Ok(c) => counts.push(c),
            Err(e) => {
                error(PROG, e);
                status = ExitStatus::Refused;
            }
        }
    }
    let json = matches!(args.output_format, Output::Json);
    let mut out = std::io::stdout().lock();
    let printed = if json {
        let list: Vec<serde_json::Value> = counts.iter().map(|(n, c)| c.to_json(n)).collect();
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        )
    } else {
        counts
            .iter()
            .try_for_each(|(n, c)| out.write_all(c.to_text(n).as_bytes()))
    };
    match printed.and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            error(PROG, format!("<stdout>: {e}"));
            ExitStatus::Refused
        }
        _ => status,
    }
}

/// `--show-files`: the inputs, one per line.
fn show_files(inputs: &[steps::Input], stdin_name: &str) -> ExitStatus {
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
            ExitStatus::Refused
        }
        _ => ExitStatus::Ok,
    }
}
