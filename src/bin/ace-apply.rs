#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ace_apply::{Compat, DeltaSource, Output, RunOptions, Subject};
use ace_config::Loaded;
use ace_fs::Source;
use ace_model::{LossEntry, Severity};
use ace_registry::convert::{self, Destination, Stop};
use ace_registry::{DeltaDialect, Format};
use ace_tools::{error, load_input, print_diagnostics, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, ValueEnum};

const PROG: &str = "ace-apply";

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Report {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum OutputFormat {
    /// The playbook, in its own format.
    Playbook,
    /// The ace_beads curator's output object: `{patchAgentsMd,
    /// playbookYaml, accepted, rejected}` (AGENTS.md playbooks only).
    Curator,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum CompatArg {
    /// The skill's SKILL.md merge algorithm: counters, new bullets, edits, merges
    /// (archived), deprecations (status).
    Spec,
    /// The skill's scripts/merge_deltas.py: new bullets, edits, merges
    /// (content appended, `merged` tag), deprecations (tag and note), counters.
    SkillScript,
}

/// The registry's delta dialects as the possible values, each with its
/// one-line description.
fn delta_format_parser() -> impl TypedValueParser<Value = &'static dyn DeltaDialect> {
    let values = ace_registry::Registry::builtin()
        .dialects()
        .iter()
        .map(|d| clap::builder::PossibleValue::new(d.name()).help(d.describe()));
    PossibleValuesParser::new(values).try_map(|name| {
        ace_registry::Registry::builtin()
            .dialect(&name)
            .ok_or_else(|| format!("unknown delta format `{name}`"))
    })
}

/// Apply ACE deltas to a playbook, as the curator's deterministic merge.
///
/// Each delta is checked first and applied whole or not at all; a refused
/// delta is reported with the curator's reason code. The playbook keeps
/// its format and layout: only what the deltas change is rewritten.
#[derive(Parser, Debug)]
#[command(name = PROG, version)]
struct Args {
    /// The playbook, in any format ace-convert reads (`-` for standard input).
    playbook: String,
    /// Delta files, applied in this order.
    #[arg(required = true, value_name = "DELTA")]
    deltas: Vec<PathBuf>,
    /// Write the result to OUT (`-`: standard output, the default). With
    /// an AGENTS.md, a directory receives AGENTS.md and playbook.yaml.
    #[arg(short, long, value_name = "OUT")]
    output: Option<String>,
    /// Rewrite the playbook (and its playbook.yaml) itself.
    #[arg(long, conflicts_with = "output")]
    in_place: bool,
    /// With --in-place: how long to wait, in seconds, while another
    /// process updates the same playbook (each update holds a lock on the
    /// playbook and its playbook.yaml from reading to writing).
    #[arg(long, value_name = "SECONDS", default_value = ace_tools::LOCK_WAIT, value_parser = ace_tools::lock_wait)]
    lock_timeout: std::time::Duration,
    /// Write nothing; exit 1 if applying would change the playbook.
    #[arg(long, conflicts_with_all = ["diff", "in_place"])]
    check: bool,
    /// Print a unified diff of what applying would change; write nothing.
    #[arg(long, conflicts_with = "in_place")]
    diff: bool,
    /// How to report each delta's verdict on stderr: text, or
    /// `{accepted, rejected[{id, reason, message}]}` as the ace_beads curator gives it.
    #[arg(long, value_enum, default_value = "text")]
    report: Report,
    /// What to print: the playbook, or the curator's whole output object.
    #[arg(long, value_enum, default_value = "playbook")]
    output_format: OutputFormat,
    /// The deltas' dialect (detected from each file's content if omitted).
    #[arg(long, value_name = "DIALECT", value_parser = delta_format_parser())]
    delta_format: Option<&'static dyn DeltaDialect>,
    /// The playbook's format (detected from its name and content if omitted).
    #[arg(long, value_name = "FMT", value_parser = ace_tools::format_parser())]
    from: Option<Format>,
    /// The curator's playbook.yaml to read with an AGENTS.md (default: the
    /// one beside it).
    #[arg(long, value_name = "FILE")]
    sections: Option<PathBuf>,
    /// Which semantics skill deltas follow.
    #[arg(long, value_enum, default_value = "spec")]
    compat: CompatArg,
    /// Refuse any delta that changes or removes content (the append-only
    /// playbook ADR): only additions, counters and status change.
    #[arg(long)]
    append_only: bool,
    /// After applying, deprecate entries with harmful > helpful + 3 (the
    /// playbook format's threshold); formats without a status remove them.
    #[arg(long)]
    prune: bool,
    /// The time to stamp changes with (RFC 3339). Default:
    /// SOURCE_DATE_EPOCH, else the clock.
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    /// Write nothing if any delta is refused.
    #[arg(long)]
    strict: bool,
    /// Refuse (exit 2) to write outside these globs, relative to the
    /// current directory (the curator's `knowledge/**` `prompts/**`);
    /// replaces ace.toml's `[apply] write-scope`, whose globs are relative
    /// to the folder of ace.toml.
    #[arg(long, value_name = "GLOB", num_args = 1..)]
    write_scope: Vec<String>,
    /// The lowest confidence an AceDelta may have [default: ace.toml's
    /// `thresholds.confidence`, else 0.80].
    #[arg(long, value_name = "N")]
    min_confidence: Option<f64>,
    /// The fewest characters of evidence an AceDelta may give [default:
    /// ace.toml's `thresholds.evidence-length`, else 8].
    #[arg(long, value_name = "N")]
    min_evidence: Option<usize>,
    /// Use this configuration file instead of the nearest ace.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    config: Option<PathBuf>,
    /// Ignore every ace.toml.
    #[arg(long)]
    isolated: bool,
    /// Print no verdicts or losses, only errors.
    #[arg(short, long)]
    quiet: bool,
    /// Name to use for standard input in messages.
    #[arg(long, value_name = "NAME", default_value = "<stdin>")]
    stdin_filename: String,
}

fn main() -> ExitCode {
    ace_tools::prepare_process();
    let args = Args::parse();
    ExitCode::from(run(&args) as u8)
}

fn run(args: &Args) -> i32 {
    match apply(args) {
        Ok(code) => code,
        Err(stop) => stopped(*stop),
    }
}

type Stopped = Box<(Stop, Option<Source>)>;

fn usage(message: impl Into<String>) -> Stopped {
    Box::new((Stop::Usage(message.into()), None))
}

/// The delta files named on the command line, loaded.
fn load_delta_files(args: &Args) -> Result<Vec<(Source, Option<String>)>, Stopped> {
    args.deltas
        .iter()
        .map(|path| {
            let source = load_input(&path.to_string_lossy(), &args.stdin_filename)
                .map_err(|e| usage(e.to_string()))?;
            let name = source
                .path
                .as_ref()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned());
            Ok((source, name))
        })
        .collect()
}

fn now(args: &Args) -> Result<String, Stopped> {
    ace_tools::now(args.now.as_deref()).map_err(usage)
}

fn check_scope(args: &Args, loaded: &Loaded, dest: &Destination) -> Result<(), Stopped> {
    let Some(scope) =
        ace_config::WriteScope::of(&args.write_scope, loaded).map_err(|e| usage(e.to_string()))?
    else {
        return Ok(());
    };
    let paths: Vec<&Path> = match dest {
        Destination::Stdout => Vec::new(),
        Destination::File(p) => vec![p],
        Destination::Pair {
            main, companion, ..
        } => vec![main, companion],
    };
    for p in paths {
        scope.check(p).map_err(usage)?;
    }
    Ok(())
}

fn apply(args: &Args) -> Result<i32, Stopped> {
    let loaded =
        ace_check::run::configuration(args.config.as_deref(), args.isolated).map_err(usage)?;
    // Held from before the read until after the write, so that concurrent
    // updates of one playbook each see the one before.
    let mut held = match args.in_place {
        true => Some(ace_tools::lock_input(&args.playbook, args.lock_timeout).map_err(usage)?),
        false => None,
    };
    let source =
        load_input(&args.playbook, &args.stdin_filename).map_err(|e| usage(e.to_string()))?;
    let registry = ace_registry::Registry::builtin();
    let format = match args.from {
        Some(f) => f,
        None => registry.detect(source.path.as_deref(), &source.text),
    };
    if args.output_format == OutputFormat::Curator && format.companion().is_none() {
        return Err(usage(format!(
            "--output-format curator writes the AGENTS.md curator's output; {} is {format}",
            source.name
        )));
    }
    if let Some(held) = held.as_mut() {
        ace_tools::lock_companion(
            held,
            format,
            source.path.as_deref(),
            args.sections.as_deref(),
            args.lock_timeout,
        )
        .map_err(usage)?;
    }
    let ctx = ace_registry::ReadCtx::min(Severity::Error);
    let input = match convert::read_input(&source, format, args.sections.as_deref(), &ctx) {
        Ok(i) => i,
        Err(stop) => return Err(Box::new((stop, Some(source)))),
    };
    let now = now(args)?;
    let loaded_deltas = load_delta_files(args)?;
    let deltas: Vec<DeltaSource> = loaded_deltas
        .iter()
        .map(|(s, name)| DeltaSource {
            name: &s.name,
            file_name: name.as_deref(),
            text: &s.text,
        })
        .collect();
    let opts = RunOptions {
        registry,
        dialect: args.delta_format,
        read: ace_apply::ReadOptions::of(&loaded, args.min_confidence, args.min_evidence),
        apply: ace_apply::Options {
            compat: match args.compat {
                CompatArg::Spec => Compat::Seed,
                CompatArg::SkillScript => Compat::SkillScript,
            },
            append_only: args.append_only,
            prune: args.prune,
            now,
        },
    };
    let subject = Subject {
        format,
        text: &source.text,
        companion: input.companion.as_ref().map(|c| &*c.text),
        playbook: input.parsed.playbook,
    };
    // Freeing a million entries at exit takes longer than the process
    // needs them: the playbook is left to the operating system.
    let applied = std::mem::ManuallyDrop::new(ace_apply::run(subject, &deltas, &opts));
    // A file that is no delta of any dialect is an input error, as an
    // unreadable playbook is: the user named the wrong file, or it is
    // broken, and writing the playbook as if applied would hide that.
    let unreadable: Vec<&str> = applied
        .files
        .iter()
        .filter_map(|f| f.unreadable.as_deref())
        .collect();
    if !unreadable.is_empty() {
        for why in &unreadable {
            eprintln!("{why}");
        }
        error(
            PROG,
            format!(
                "{} delta file(s) could not be read; nothing applied or written",
                unreadable.len()
            ),
        );
        return Ok(EXIT_USAGE);
    }
    let refused = applied.refused();
    if !args.quiet || args.report == Report::Json {
        let mut err = std::io::stderr().lock();
        let _ = match args.report {
            Report::Json => writeln!(
                err,
                "{}",
                serde_json::to_string(&applied.report_json()).unwrap_or_default()
            ),
            Report::Text => write!(err, "{}", applied.report_text(PROG)),
        };
    }
    if args.strict && refused > 0 {
        error(
            PROG,
            format!("--strict: {refused} delta(s) refused; nothing written"),
        );
        return Ok(EXIT_FINDINGS);
    }
    let findings_code = if refused > 0 { EXIT_FINDINGS } else { EXIT_OK };
    if let Output::Spliced(_) = applied.output {
        report_losses(args, &applied.splice_losses, format.name());
    }
    if args.check || args.diff || args.output_format == OutputFormat::Curator {
        let texts = applied.texts();
        if let Output::Whole = applied.output {
            report_losses(args, &texts.losses, format.name());
        }
        let old_companion = input.companion.as_ref().map(|c| &*c.text);
        let changed = *texts.main != *source.text
            || matches!((old_companion, &texts.companion), (Some(old), Some(new)) if old != new);
        if args.output_format == OutputFormat::Curator {
            let mut obj = serde_json::Map::new();
            obj.insert(
                "patchAgentsMd".into(),
                ace_apply::unified(&source.name, &source.text, &texts.main).into(),
            );
            obj.insert(
                "playbookYaml".into(),
                texts.companion.unwrap_or_default().into(),
            );
            let r = applied.outcome.report_json();
            obj.insert("accepted".into(), r["accepted"].clone());
            obj.insert("rejected".into(), r["rejected"].clone());
            print_stdout(&format!(
                "{}\n",
                serde_json::to_string_pretty(&obj).unwrap_or_default()
            ))?;
            return Ok(findings_code);
        }
        if args.diff {
            let mut d = ace_apply::unified(&source.name, &source.text, &texts.main);
            if let (Some(c), Some(new)) = (input.companion.as_ref(), texts.companion.as_deref()) {
                d.push_str(&ace_apply::unified(&c.name, &c.text, new));
            }
            print_stdout(&d)?;
        }
        if args.check && changed {
            if !args.quiet {
                error(
                    PROG,
                    format!("{}: applying the deltas would change it", source.name),
                );
            }
            return Ok(EXIT_FINDINGS);
        }
        return Ok(findings_code);
    }
    let dest = convert::destination(
        format,
        args.output.as_deref(),
        args.in_place,
        &source,
        input.companion.as_ref(),
    )
    .map_err(|s| Box::new((s, None)))?;
    check_scope(args, &loaded, &dest)?;
    let mut on_losses = |losses: &[LossEntry], target: &str| report_losses(args, losses, target);
    applied
        .write_to(&dest, args.in_place, held.as_ref(), &mut on_losses)
        .map_err(|s| Box::new((s, None)))?;
    Ok(findings_code)
}

fn print_stdout(s: &str) -> Result<(), Stopped> {
    ace_tools::write_stdout([s]).map_err(|e| usage(format!("<stdout>: {e}")))
}

fn report_losses(args: &Args, losses: &[LossEntry], target: &str) {
    if !args.quiet {
        let mut err = std::io::stderr().lock();
        let _ = ace_report::render_losses_text(losses, target, &mut err);
    }
}

fn stopped((stop, file): (Stop, Option<Source>)) -> i32 {
    match stop {
        Stop::Usage(message) => {
            error(PROG, message);
            EXIT_USAGE
        }
        Stop::Findings {
            companion,
            diagnostics,
        } => {
            if let Some(f) = companion.as_ref().or(file.as_ref()) {
                print_diagnostics(&f.name, &f.text, &diagnostics);
            }
            error(PROG, "the playbook has errors; nothing applied");
            EXIT_USAGE
        }
        Stop::Lossy { lost, target } => {
            error(
                PROG,
                format!("{lost} piece(s) of information would be lost writing {target}"),
            );
            EXIT_FINDINGS
        }
    }
}
