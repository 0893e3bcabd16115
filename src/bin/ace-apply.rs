#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ace_model::edit::Edits;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ace_apply::{Compat, DeltaFormat, Outcome, ReadError, Traits};
use ace_config::Loaded;
use ace_io::convert::{self, Destination, Stop};
use ace_io::{Format, Source};
use ace_model::delta::Delta;
use ace_model::{LineIndex, LossEntry, Severity};
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

fn delta_format_parser() -> impl TypedValueParser<Value = DeltaFormat> {
    let values = DeltaFormat::ALL
        .iter()
        .map(|f| clap::builder::PossibleValue::new(f.name()).help(f.describe()));
    PossibleValuesParser::new(values).try_map(|name| {
        DeltaFormat::from_name(&name).ok_or_else(|| format!("unknown delta format `{name}`"))
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
    delta_format: Option<DeltaFormat>,
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

/// A delta file and what was read from it.
struct DeltaFile {
    source: Source,
    deltas: Vec<Delta>,
    /// Set when the file could not be read as any dialect: its one verdict.
    unreadable: Option<String>,
}

fn read_delta_files(args: &Args, loaded: &Loaded) -> Result<Vec<DeltaFile>, Stopped> {
    let defaults = ace_apply::ReadOptions::default();
    let t = &loaded.config.thresholds;
    let opts = ace_apply::ReadOptions {
        min_confidence: args
            .min_confidence
            .or(t.confidence)
            .unwrap_or(defaults.min_confidence),
        min_evidence: args
            .min_evidence
            .or(t.evidence_length)
            .unwrap_or(defaults.min_evidence),
    };
    let mut files = Vec::new();
    for path in &args.deltas {
        let source = load_input(&path.to_string_lossy(), &args.stdin_filename)
            .map_err(|e| usage(e.to_string()))?;
        let name = source
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        let (deltas, unreadable) =
            match ace_apply::read_deltas(&source.text, name.as_deref(), args.delta_format, &opts) {
                Ok((_, deltas)) => (deltas, None),
                Err(ReadError::Parse(d)) => {
                    let at = LineIndex::new(&source.text).line_col(&source.text, d.span.start);
                    (
                        Vec::new(),
                        Some(format!(
                            "{}:{}:{}: {}",
                            source.name, at.line, at.col, d.message
                        )),
                    )
                }
                Err(ReadError::NotADelta(why)) => {
                    (Vec::new(), Some(format!("{}: {why}", source.name)))
                }
            };
        files.push(DeltaFile {
            source,
            deltas,
            unreadable,
        });
    }
    Ok(files)
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
    let source =
        load_input(&args.playbook, &args.stdin_filename).map_err(|e| usage(e.to_string()))?;
    let registry = ace_io::Registry::builtin();
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
    let sections = std::sync::Arc::new(ace_model::mapping::SectionMap::default());
    let ctx = ace_io::ReadCtx::min(Severity::Error);
    let input = match convert::read_input(&source, format, args.sections.as_deref(), &ctx) {
        Ok(i) => i,
        Err(stop) => return Err(Box::new((stop, Some(source)))),
    };
    let now = now(args)?;
    let files = read_delta_files(args, &loaded)?;
    // Freeing a million entries at exit takes longer than the process
    // needs them: the playbook is left to the operating system.
    let mut pb = std::mem::ManuallyDrop::new(input.parsed.playbook);
    let deltas: Vec<(usize, Delta)> = files
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.deltas.iter().cloned().map(move |d| (i, d)))
        .collect();
    let t = Traits::of(format, &pb, sections.clone());
    let opts = ace_apply::Options {
        compat: match args.compat {
            CompatArg::Spec => Compat::Seed,
            CompatArg::SkillScript => Compat::SkillScript,
        },
        append_only: args.append_only,
        prune: args.prune,
        now: now.clone(),
    };
    let outcome = ace_apply::apply(&mut pb, &deltas, &t, &opts);
    let unreadable: Vec<&DeltaFile> = files.iter().filter(|f| f.unreadable.is_some()).collect();
    let refused = outcome.rejected().count() + unreadable.len();
    if !args.quiet || args.report == Report::Json {
        report(args, &files, &outcome);
    }
    if args.strict && refused > 0 {
        error(
            PROG,
            format!("--strict: {refused} delta(s) refused; nothing written"),
        );
        return Ok(EXIT_FINDINGS);
    }
    let findings_code = if refused > 0 { EXIT_FINDINGS } else { EXIT_OK };
    // Nothing applied: the file is left as it is, byte for byte, rather
    // than rewritten by a writer that may not keep every byte of it.
    let applied = outcome.changed();
    let old_companion = input.companion.as_ref().map(|c| c.text.to_string());
    let wctx = ace_io::WriteCtx::default()
        .with_now(Some(now))
        .with_sections(sections);
    let spliced = match applied {
        true => format
            .imp()
            .rewrite(&source.text, &outcome.before, &pb, &wctx),
        false => None,
    };
    if let Some((_, report)) = &spliced {
        report_losses(args, &report.losses, format.name());
    }
    if args.check || args.diff || args.output_format == OutputFormat::Curator {
        let (main, companion) = if let Some((edits, _)) = &spliced {
            (edits.text(&source.text), None)
        } else if applied {
            let mut main = Vec::new();
            let mut out = ace_io::Out::to(&mut main);
            let (companion, written) = format.write_with_companion(&pb, &wctx, &mut out);
            out.finish().map_err(|e| usage(e.to_string()))?;
            report_losses(args, &written.losses, format.name());
            let main = String::from_utf8(main).map_err(|e| usage(e.to_string()))?;
            (main, companion)
        } else {
            (source.text.to_string(), old_companion.clone())
        };
        let changed = *main != *source.text
            || matches!((&old_companion, &companion), (Some(old), Some(new)) if old != new);
        if args.output_format == OutputFormat::Curator {
            let mut obj = serde_json::Map::new();
            obj.insert(
                "patchAgentsMd".into(),
                unified(&source.name, &source.text, &main).into(),
            );
            obj.insert("playbookYaml".into(), companion.unwrap_or_default().into());
            let r = outcome.report_json();
            obj.insert("accepted".into(), r["accepted"].clone());
            obj.insert("rejected".into(), r["rejected"].clone());
            print_stdout(&format!(
                "{}\n",
                serde_json::to_string_pretty(&obj).unwrap_or_default()
            ))?;
            return Ok(findings_code);
        }
        if args.diff {
            let mut d = unified(&source.name, &source.text, &main);
            if let (Some(c), Some(new)) = (input.companion.as_ref(), companion.as_deref()) {
                d.push_str(&unified(&c.name, &c.text, new));
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
    if !applied {
        return write_text(
            args,
            &loaded,
            format,
            (&source, input.companion.as_ref()),
            None,
            findings_code,
        );
    }
    if let Some((edits, _)) = &spliced {
        return write_text(
            args,
            &loaded,
            format,
            (&source, input.companion.as_ref()),
            Some(edits),
            findings_code,
        );
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
    convert::write_output(&pb, format, &wctx, &dest, false, &mut on_losses)
        .map_err(|s| Box::new((s, None)))?;
    Ok(findings_code)
}

fn io(p: &Path) -> impl Fn(std::io::Error) -> Stopped + '_ {
    move |e| usage(format!("{}: {e}", p.display()))
}

/// Writes the input with `edits` made where the output goes, or the
/// input's own bytes (`None`: what applying deltas that change nothing
/// writes); the companion, if any, is written as it was.
fn write_text(
    args: &Args,
    loaded: &Loaded,
    format: Format,
    (source, companion): (&Source, Option<&Source>),
    edits: Option<&Edits>,
    code: i32,
) -> Result<i32, Stopped> {
    let same = edits.is_none();
    let none = Edits::default();
    let pieces = || edits.unwrap_or(&none).pieces(&source.text);
    let dest = convert::destination(
        format,
        args.output.as_deref(),
        args.in_place,
        source,
        companion,
    )
    .map_err(|s| Box::new((s, None)))?;
    check_scope(args, loaded, &dest)?;
    match &dest {
        Destination::Stdout => print_pieces(pieces())?,
        // In place, the file already is what it would become.
        Destination::File(_) if args.in_place && same => {}
        Destination::File(p) => ace_io::write_atomic_pieces(p, pieces()).map_err(io(p))?,
        Destination::Pair {
            dir,
            main,
            companion: c,
        } => {
            if args.in_place && dir.is_none() && same {
                return Ok(code);
            }
            if let Some(d) = dir {
                std::fs::create_dir_all(d).map_err(io(d))?;
            }
            ace_io::write_atomic_pieces(main, pieces()).map_err(io(main))?;
            let text = companion.map(|c| c.text.to_string()).unwrap_or_default();
            ace_io::write_atomic(c, text.as_bytes()).map_err(io(c))?;
        }
    }
    Ok(code)
}

fn print_stdout(s: &str) -> Result<(), Stopped> {
    print_pieces([s])
}

fn print_pieces<'a>(pieces: impl IntoIterator<Item = &'a str>) -> Result<(), Stopped> {
    ace_tools::write_stdout(pieces).map_err(|e| usage(format!("<stdout>: {e}")))
}

/// A unified diff of `old` to `new`, as `diff -u` and git print it.
fn unified(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

fn report(args: &Args, files: &[DeltaFile], outcome: &Outcome) {
    let mut err = std::io::stderr().lock();
    if args.report == Report::Json {
        let r = outcome.report_json_with(
            files
                .iter()
                .filter_map(|f| Some((f.source.name.as_str(), f.unreadable.as_deref()?))),
        );
        let _ = writeln!(err, "{}", serde_json::to_string(&r).unwrap_or_default());
        return;
    }
    for f in files {
        if let Some(why) = &f.unreadable {
            let _ = writeln!(err, "{why}: rejected (invalid): not read as a delta");
        }
    }
    let indexes: Vec<LineIndex> = files
        .iter()
        .map(|f| LineIndex::new(&f.source.text))
        .collect();
    for v in &outcome.verdicts {
        let f = &files[v.source];
        let span = v.refusal.as_ref().map_or(v.span, |r| r.span);
        let at = indexes[v.source].line_col(&f.source.text, span.start);
        let place = format!("{}:{}:{}", f.source.name, at.line, at.col);
        let _ = match &v.refusal {
            None => writeln!(
                err,
                "{place}: applied {} ({} change{})",
                v.id,
                v.applied,
                if v.applied == 1 { "" } else { "s" }
            ),
            Some(r) => writeln!(
                err,
                "{place}: rejected {} ({}): {}",
                v.id,
                r.reason.code(),
                r.message
            ),
        };
    }
    for (label, id) in &outcome.minted {
        let _ = writeln!(err, "{PROG}: {label}: new entry given ID `{id}`");
    }
    for id in &outcome.pruned {
        let _ = writeln!(err, "{PROG}: --prune: `{id}` has harmful > helpful + 3");
    }
    let (a, r) = (
        outcome.accepted().count(),
        outcome.rejected().count() + files.iter().filter(|f| f.unreadable.is_some()).count(),
    );
    let _ = writeln!(err, "{PROG}: {a} delta(s) applied, {r} rejected");
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
