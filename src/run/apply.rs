//! `ace-apply`: its command-line flow, from the parsed arguments to the
//! exit status. What it does lives in the library crates.

use std::io::Write;
use std::path::Path;

use crate::{error, load_input, ExitStatus};
use ace_apply::{Compat, DeltaSource, Output, Subject};
use ace_fs::Source;
use ace_model::{LossEntry, Severity};
use ace_registry::convert::{self, Stop};

use crate::cli::apply::*;

/// The tool's run: what it does with `args`, and the status it exits with.
pub fn run(args: &Args) -> ExitStatus {
    match apply(args) {
        Ok(code) => code,
        Err(stop) => stopped(*stop),
    }
}

type Stopped = Box<(Stop, Option<Source>)>;

fn usage(message: impl Into<String>) -> Stopped {
    Box::new((Stop::Usage(ace_model::Error::Usage(message.into())), None))
}

/// The delta files named on the command line, loaded.
fn load_delta_files(args: &Args) -> Result<Vec<(Source, Option<String>)>, Stopped> {
    args.deltas
        .iter()
        .map(|path| {
            let source =
                load_input(path, &args.stdin_filename).map_err(|e| usage(e.to_string()))?;
            let name = source
                .path
                .as_ref()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned());
            Ok((source, name))
        })
        .collect()
}

/// The loaded delta files as the pipeline reads them.
fn delta_sources(loaded: &[(Source, Option<String>)]) -> Vec<DeltaSource<'_>> {
    loaded
        .iter()
        .map(|(s, name)| DeltaSource {
            name: &s.name,
            file_name: name.as_deref(),
            text: &s.text,
        })
        .collect()
}

/// The apply the flags ask for.
fn request(args: &Args) -> ace_apply::Request {
    ace_apply::Request {
        caller: ace_apply::merge::Caller::Cli,
        config: match (&args.config, args.isolated) {
            (_, true) => ace_apply::Config::Nothing,
            (Some(p), false) => ace_apply::Config::File(p.clone()),
            (None, false) => ace_apply::Config::Find,
        },
        now: args.now.clone(),
        min_confidence: args.min_confidence,
        min_evidence: args.min_evidence,
        delta_format: args.delta_format,
        compat: match args.compat {
            CompatArg::Spec => Compat::Spec,
            CompatArg::Script => Compat::Script,
        },
        append_only: args.append_only,
        write_scope: args.write_scope.clone(),
        curate: ace_apply::CurateArgs {
            dedup: args.dedup,
            prune: args.prune,
            similarity: args.similarity,
            across_sections: args.across_sections,
            deprecate: args.deprecate,
            max_tokens: args.max_tokens,
            max_entries: args.max_entries,
            tokenizer: args.tokenizer,
            threshold: args.threshold,
        },
    }
}

fn apply(args: &Args) -> Result<ExitStatus, Stopped> {
    let ready = request(args).ready().map_err(usage)?;
    if args.emit_delta.is_some() && ready.curate.is_empty() {
        return Err(usage(
            "--emit-delta writes what --prune or --dedup would do",
        ));
    }
    if let Some(location) =
        ace_registry::store::location(&args.playbook).map_err(|e| usage(e.to_string()))?
    {
        return apply_rows(args, &ready, &location);
    }
    // Held from before the read until after the write, so that concurrent
    // updates of one playbook each see the one before.
    let mut held = match args.in_place {
        true => Some(
            ace_apply::place::lock_input(&args.playbook, args.lock_timeout)
                .map_err(usage)?
                .forcing(args.force),
        ),
        false => None,
    };
    let source =
        load_input(&args.playbook, &args.stdin_filename).map_err(|e| usage(e.to_string()))?;
    let ctx = ace_registry::ReadCtx::min(Severity::Error);
    let as_usage = |m: String| Stop::Usage(ace_model::Error::Usage(m));
    let detected = convert::read_detected(
        ace_registry::Registry::builtin(),
        &source,
        args.from,
        |format| {
            if args.output_format == OutputFormat::Curator && format.companion().is_none() {
                return Err(as_usage(format!(
                    "--output-format curator writes the AGENTS.md curator's output; {} is {format}",
                    source.name
                )));
            }
            if let Some(held) = held.as_mut() {
                ace_apply::place::lock_companion(
                    held,
                    format,
                    source.path.as_deref(),
                    args.sections.as_deref(),
                    args.lock_timeout,
                )
                .map_err(|e| as_usage(e.into()))?;
            }
            let read = convert::read_input(&source, format, args.sections.as_deref(), &ctx);
            Ok(((), read))
        },
    )
    .map_err(|stop| Box::new((stop, None)))?;
    let format = detected.from;
    let input = match detected.read {
        Ok(i) => i,
        Err(stop) => return Err(Box::new((stop, Some(source)))),
    };
    let now = ready.run.apply.now.clone();
    let loaded_deltas = load_delta_files(args)?;
    let deltas = delta_sources(&loaded_deltas);
    let (opts, curate) = (&ready.run, &ready.curate);
    let subject = Subject {
        format,
        text: &source.text,
        companion: input.companion.as_ref().map(|c| &*c.text),
        playbook: input.parsed.playbook,
    };
    let old_playbook = args.emit_delta.as_ref().map(|_| subject.playbook.clone());
    let applied = crate::leave_to_exit(ace_apply::run_curated(subject, &deltas, opts, curate));
    if let Some(stop) = report(args, &applied) {
        return Ok(stop);
    }
    let refused = applied.refused();
    let findings_code = if refused > 0 {
        ExitStatus::Findings
    } else {
        ExitStatus::Ok
    };
    if let (Some(path), Some(old)) = (&args.emit_delta, &old_playbook) {
        emit_delta(args, path, &applied.curated, old, format, &now)?;
        return Ok(findings_code);
    }
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
            let obj = applied.curator_output(&source.name, &texts);
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
            return Ok(ExitStatus::Findings);
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
    ace_apply::place::check_scope(ready.scope.as_ref(), &dest).map_err(|e| usage(e.to_string()))?;
    let mut on_losses = |losses: &[LossEntry], target: &str| report_losses(args, losses, target);
    // A new output holds no lock, and may replace what `--force` allows.
    let output = ace_fs::Held::default().forcing(args.force);
    applied
        .write_to(
            &dest,
            args.in_place,
            Some(held.as_ref().unwrap_or(&output)),
            &mut on_losses,
        )
        .map_err(|s| Box::new((s, None)))?;
    Ok(findings_code)
}

/// The deltas applied to a playbook in a database: with `--in-place`, in
/// one transaction with the read; with `--check`, nothing written.
fn apply_rows(
    args: &Args,
    ready: &ace_apply::Ready,
    location: &ace_registry::store::StoreLocation,
) -> Result<ExitStatus, Stopped> {
    if !(args.in_place || args.check)
        || args.output.is_some()
        || args.diff
        || args.emit_delta.is_some()
        || !ready.curate.is_empty()
        || args.output_format == OutputFormat::Curator
    {
        return Err(usage(format!(
            "{location}: a database is applied to with --in-place, or checked with --check; \
             -o, --diff, --emit-delta, --dedup, --prune and --output-format curator take a file"
        )));
    }
    let loaded_deltas = load_delta_files(args)?;
    let deltas = delta_sources(&loaded_deltas);
    let how = ace_apply::rows::RowsOptions {
        wait: args.lock_timeout,
        write: args.in_place && !args.check,
        strict: args.strict,
        force: args.force,
    };
    let done = match ace_apply::rows::apply(location, &deltas, ready, how)
        .map_err(|e| Box::new((Stop::Usage(e), None)))?
    {
        Ok(done) => done,
        // Rows that do not read, as a playbook file that does not: its
        // findings, exit 1, nothing applied.
        Err(unread) => {
            crate::print_diagnostics(&location.shown(), &unread.listing, &unread.diagnostics);
            error(
                PROG,
                format!("{location}: the playbook has errors; nothing applied"),
            );
            return Ok(ExitStatus::Findings);
        }
    };
    let applied = &done.applied;
    if let Some(stop) = report(args, applied) {
        return Ok(stop);
    }
    let refused = applied.refused();
    if args.check && applied.outcome.changed() {
        if !args.quiet {
            error(
                PROG,
                format!("{location}: applying the deltas would change it"),
            );
        }
        return Ok(ExitStatus::Findings);
    }
    Ok(match refused {
        0 => ExitStatus::Ok,
        _ => ExitStatus::Findings,
    })
}

/// Says what the apply did: the delta files that did not read (then
/// nothing was written, exit 1), and the report unless `--quiet`. The
/// status to stop with, when it stops the run: unreadable files, or a
/// refusal under `--strict`.
fn report(args: &Args, applied: &ace_apply::Applied<'_>) -> Option<ExitStatus> {
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
            crate::say!("{why}");
        }
        error(
            PROG,
            format!(
                "{} delta file(s) could not be read; nothing applied or written",
                unreadable.len()
            ),
        );
        return Some(ExitStatus::Findings);
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
        return Some(ExitStatus::Findings);
    }
    None
}

/// `--emit-delta`: what `--dedup` and `--prune` would change, as one delta
/// in the chosen dialect (else the playbook format's own, else vAgenda's
/// AcePatch, whose operations name entries by ID alone), written
/// atomically.
fn emit_delta(
    args: &Args,
    path: &Path,
    curated: &ace_apply::Curated,
    old: &ace_model::Playbook,
    format: ace_registry::Format,
    now: &str,
) -> Result<(), Stopped> {
    let registry = ace_registry::Registry::builtin();
    let dialect = args
        .emit_format
        .or_else(|| registry.dialect_for(format, old))
        .ok_or_else(|| usage("no dialect to write the delta in"))?;
    let empty = ace_model::delta::Delta::new(ace_model::Span::default());
    let delta = curated.delta.as_ref().unwrap_or(&empty);
    let note = match (curated.dedup, curated.prune) {
        (true, true) => "ace-apply --dedup --prune",
        (true, false) => "ace-apply --dedup",
        _ => "ace-apply --prune",
    };
    let (value, lost) = ace_apply::render::write_delta(delta, dialect, old, format, now, note)
        .ok_or_else(|| usage(format!("ace-tools does not write {}", dialect.name())))?;
    for l in &lost {
        crate::say!("{PROG}: warning: {l}");
    }
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    );
    let permit = ace_fs::Held::default().forcing(args.force);
    ace_fs::write_atomic(path, text.as_bytes(), Some(&permit))
        .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    if !args.quiet {
        crate::say!(
            "{PROG}: wrote {} change(s) as {} to {}; the playbook is left as it is",
            delta.ops.len(),
            dialect.what(),
            path.display()
        );
    }
    Ok(())
}

fn print_stdout(s: &str) -> Result<(), Stopped> {
    crate::write_stdout([s]).map_err(|e| usage(format!("<stdout>: {e}")))
}

fn report_losses(args: &Args, losses: &[LossEntry], target: &str) {
    if !args.quiet {
        let mut err = std::io::stderr().lock();
        let _ = ace_report::render_losses_text(losses, target, &mut err);
    }
}

fn stopped((stop, file): (Stop, Option<Source>)) -> ExitStatus {
    crate::print_stop(
        PROG,
        stop,
        file.as_ref(),
        Some("the playbook has errors; nothing applied"),
        |lost, target| format!("{lost} piece(s) of information would be lost writing {target}"),
    )
}
