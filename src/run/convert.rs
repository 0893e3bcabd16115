//! `ace-convert`: its command-line flow, from the parsed arguments to the
//! exit status. What it does lives in the library crates.

use crate::{load_input, print_diagnostics, ExitStatus};
use ace_fs::Source;
use ace_model::LossEntry;
use ace_model::Severity;
use ace_registry::convert::{self, Destination, Stop};

use crate::cli::convert::*;

fn list_formats() -> ExitStatus {
    let table = ace_registry::capabilities::format_table(ace_registry::Registry::builtin());
    match ace_fs::write_stdout([table.as_str()]) {
        Ok(()) => ExitStatus::Ok,
        Err(e) => {
            crate::say!("{PROG}: error: standard output: {e}");
            ExitStatus::Refused
        }
    }
}

/// The tool's run: what it does with `args`, and the status it exits with.
pub fn run(args: Args) -> ExitStatus {
    if args.list_formats {
        return list_formats();
    }
    match convert(&args) {
        Ok(()) => ExitStatus::Ok,
        Err(stop) => stopped(*stop),
    }
}

/// Why the conversion stopped, the input when its text shows why, and a
/// note to print after the findings.
type Stopped = Box<(Stop, Option<Source>, Option<String>)>;

/// The conversion, step by step (`ace_registry::convert`); what it prints on
/// the way is the readers' errors and the loss report.
fn convert(args: &Args) -> Result<(), Stopped> {
    let at = |stop| Box::new((stop, None, None));
    let sections = convert::section_map(args.section_map.as_deref()).map_err(at)?;
    let input = args.input.as_deref().unwrap_or(std::ffi::OsStr::new("-"));
    let to_store = match args.output.as_deref() {
        Some(out) => ace_registry::store::location(out).map_err(|e| at(e.into()))?,
        None => None,
    };
    if let Some(from) = ace_registry::store::location(input).map_err(|e| at(e.into()))? {
        return from_store(args, &from, to_store.as_ref(), sections);
    }
    // Held from before the read until after the write, so that concurrent
    // updates of one file each see the one before.
    let mut held = match args.in_place {
        true => Some(
            ace_apply::place::lock_input(input, args.lock_timeout)
                .map_err(|e| at(e.into()))?
                .forcing(args.force),
        ),
        false => None,
    };
    let mut source = load_input(input, &args.stdin_filename).map_err(|e| at(e.into()))?;
    let registry = ace_registry::Registry::builtin();
    let convert::DetectedInput {
        from,
        told,
        with: to,
        read,
    } = convert::read_detected(registry, &source, args.from, |from| {
        read_as(
            args,
            from,
            &source,
            &sections,
            held.as_mut(),
            to_store.is_some(),
        )
    })
    .map_err(at)?;
    // When nothing in the name or the content said the format and the read
    // fails, the user is told which formats there are.
    let input = match read {
        Ok(input) => input,
        Err(stop) => {
            let note = match &stop {
                Stop::Findings {
                    companion: None, ..
                } if !told => Some(format!(
                    "cannot tell the format of {} from its name or content, and it does not read as {from}; pass --from FORMAT, one of: {} (`ace-convert --list-formats` says what each is)",
                    source.name,
                    registry
                        .formats()
                        .iter()
                        .map(|f| f.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                _ => None,
            };
            return Err(Box::new((stop, Some(source), note)));
        }
    };
    let parsed = crate::leave_to_exit(input.parsed);
    // What is left of the errors are schema findings: the file was read
    // and is converted, and the user sees where it fails its schema.
    if !args.quiet {
        let errors: Vec<_> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        if !errors.is_empty() {
            print_diagnostics(&source.name, &source.text, &errors);
        }
    }
    if let Some(into) = &args.into {
        return into_block(args, &parsed.playbook, into, sections).map_err(|stop| {
            let (stop, file) = *stop;
            Box::new((stop, file, None))
        });
    }
    // The model owns copies of what it needs; without the input texts the
    // peak while writing is the model and the output only.
    source.text = Default::default();
    let companion = input.companion.map(|mut y| {
        y.text = Default::default();
        y
    });
    let now = match &args.now {
        Some(n) => crate::now(Some(n)).map(Some),
        None => crate::source_date_epoch(),
    }
    .map_err(|e| at(e.into()))?;
    if let Some(store) = &to_store {
        return into_store(args, &parsed.playbook, store, now).map_err(at);
    }
    let ctx = write_ctx(args, now, sections);
    let dest = convert::destination(
        to,
        args.output.as_deref(),
        args.in_place,
        &source,
        companion.as_ref(),
    )
    .map_err(at)?;
    // A new output holds no lock, and may replace what `--force` allows.
    let output = ace_fs::Held::default().forcing(args.force);
    let held = held.as_ref().unwrap_or(&output);
    write_file(args, &parsed.playbook, to, &ctx, dest, held).map_err(at)
}

/// `pb` written as `to` to `dest` (its losses reported, `--strict`
/// refusing them), and `--id-map`'s file beside it.
fn write_file(
    args: &Args,
    pb: &ace_model::Playbook,
    to: ace_registry::Format,
    ctx: &ace_registry::WriteCtx,
    dest: Destination,
    held: &ace_fs::Held,
) -> Result<(), Stop> {
    let mut report = |losses: &[LossEntry], target: &str| report_losses(args, losses, target);
    let written = convert::write_output(pb, to, ctx, &dest, args.strict, Some(held), &mut report)?;
    match (&args.id_map, dest) {
        (Some(path), Destination::File(_) | Destination::Stdout) => {
            convert::write_id_map(path, &written.id_changes, held).map_err(Stop::from)
        }
        _ => Ok(()),
    }
}

/// A database location converted: into a file (`-o FILE`, `--to`), or
/// into another database.
fn from_store(
    args: &Args,
    from: &ace_registry::store::StoreLocation,
    to_store: Option<&ace_registry::store::StoreLocation>,
    sections: std::sync::Arc<ace_model::mapping::SectionMap>,
) -> Result<(), Stopped> {
    let at = |stop| Box::new((stop, None, None));
    if args.in_place || args.into.is_some() {
        return Err(at(usage_stop(format!(
            "{from}: --in-place and --into take a file; write a database with -o LOCATION"
        ))));
    }
    let ace_registry::store::StoreInput { source, parsed, .. } =
        ace_registry::store::read(from).map_err(at)?;
    if ace_registry::store::has_errors(&parsed) {
        return Err(Box::new((
            Stop::Findings {
                companion: None,
                diagnostics: parsed.diagnostics,
            },
            Some(source),
            None,
        )));
    }
    let now = match &args.now {
        Some(n) => crate::now(Some(n)).map(Some),
        None => crate::source_date_epoch(),
    }
    .map_err(|e| at(e.into()))?;
    if let Some(store) = to_store {
        return into_store(args, &parsed.playbook, store, now).map_err(at);
    }
    let markdown = ace_registry::Format::MARKDOWN;
    let to = args.to_format().map_err(usage_stop).map_err(at)?;
    let to = convert::target_format(markdown, to, args.output.as_deref(), false).map_err(at)?;
    let ctx = write_ctx(args, now, sections);
    let dest =
        convert::destination(to, args.output.as_deref(), false, &source, None).map_err(at)?;
    let output = ace_fs::Held::default().forcing(args.force);
    write_file(args, &parsed.playbook, to, &ctx, dest, &output).map_err(at)
}

/// `pb` written into the database at `store`, in one transaction, after
/// what its schema cannot hold is reported (and, with `--strict`, nothing
/// written if anything is lost).
fn into_store(
    args: &Args,
    pb: &ace_model::Playbook,
    store: &ace_registry::store::StoreLocation,
    now: Option<String>,
) -> Result<(), Stop> {
    let (losses, target) = ace_registry::store::losses(store, pb)?;
    report_losses(args, &losses, &target);
    let lost = losses.iter().filter(|l| l.loses()).count();
    if args.strict && lost > 0 {
        return Err(Stop::Lossy { lost, target });
    }
    let opts = ace_registry::store::WriteOptions {
        now: now.unwrap_or_else(ace_model::time::clock),
        wait: args.lock_timeout,
        applied: Vec::new(),
        with_shared: false,
    };
    ace_registry::store::write(store, pb, &opts, args.force)?;
    Ok(())
}

/// The target format for input format `from`, and the input read as
/// `from` (its companion locked with it when the input is).
fn read_as(
    args: &Args,
    from: ace_registry::Format,
    source: &Source,
    sections: &std::sync::Arc<ace_model::mapping::SectionMap>,
    held: Option<&mut ace_fs::Held>,
    to_store: bool,
) -> Result<(ace_registry::Format, Result<convert::Input, Stop>), Stop> {
    let to = match &args.into {
        Some(_) => ace_registry::Format::new(&ace_registry::block::MANAGED_BLOCK),
        // A database output has no file format: the input's stands in.
        None if to_store => from,
        None => {
            let to = args.to_format().map_err(usage_stop)?;
            convert::target_format(from, to, args.output.as_deref(), args.in_place)?
        }
    };
    if let Some(held) = held {
        ace_apply::place::lock_companion(
            held,
            from,
            source.path.as_deref(),
            args.sections.as_deref(),
            args.lock_timeout,
        )
        .map_err(Stop::from)?;
    }
    // Only errors matter (they stop the conversion), so checks that find
    // less are not run; the file's layout is kept only for a rewrite in
    // its own format.
    let ctx = ace_registry::ReadCtx {
        sections: sections.clone(),
        layout: from == to,
        ..ace_registry::ReadCtx::min(Severity::Error)
    };
    let read = convert::read_input(source, from, args.sections.as_deref(), &ctx);
    Ok((to, read))
}

/// `--into FILE`: the playbook rendered into FILE's managed block
/// (`ace_apply::into`), what the block leaves out said before it is
/// written.
fn into_block(
    args: &Args,
    pb: &ace_model::Playbook,
    into: &std::path::Path,
    sections: std::sync::Arc<ace_model::mapping::SectionMap>,
) -> Result<(), Box<(Stop, Option<Source>)>> {
    use ace_apply::into::IntoError;
    let name = into.display().to_string();
    let usage = |e: String| Box::new((usage_stop(e), None));
    let now = match &args.now {
        Some(n) => crate::now(Some(n)).map(Some),
        None => crate::source_date_epoch(),
    }
    .map_err(|e| usage(e.to_string()))?;
    let req = ace_apply::into::IntoFile {
        file: into,
        style: args.style().map_err(usage)?,
        budget: args
            .max_tokens
            .map(|n| ace_apply::into::budget(n, args.tokenizer)),
        lock_timeout: args.lock_timeout,
        force: args.force,
    };
    let stopped = |e: IntoError| match e {
        IntoError::Io(e) => usage(e.to_string()),
        IntoError::Markers { host, finding } => {
            // Which lines are the user's is unknown until the markers are
            // fixed: nothing is written.
            print_diagnostics(&name, &host, &[*finding]);
            usage(format!(
                "{name}: nothing written: fix the managed block's markers first"
            ))
        }
        IntoError::Lossy { lost, style } => Box::new((
            Stop::Lossy {
                lost,
                target: format!("a managed block ({} style)", style.name()),
            },
            None,
        )),
        IntoError::OverBudget(why) => usage(format!("{name}: {why}; nothing written")),
    };
    let planned =
        ace_apply::into::plan(pb, &req, &write_ctx(args, now, sections)).map_err(stopped)?;
    let r = &planned.rendered;
    report_block_losses(args, &r.report.losses, &name);
    if !args.quiet {
        for p in &r.left_out {
            crate::say!("{PROG}: {name}: left out `{}` ({})", p.id, p.why);
        }
        if let (Some((max, enc)), Some(tokens), None) = (r.limit, r.tokens, r.over_budget()) {
            crate::say!(
                "{PROG}: {name}: {} entries, {tokens} tokens ({}, budget {max}); {} left out",
                r.entries,
                enc.name(),
                r.left_out.len()
            );
        }
    }
    planned
        .write(into, args.strict)
        .map(|_| ())
        .map_err(stopped)
}

/// The writers' options, as the flags set them.
fn write_ctx(
    args: &Args,
    now: Option<String>,
    sections: std::sync::Arc<ace_model::mapping::SectionMap>,
) -> ace_registry::WriteCtx {
    // A target that needs a time the source lacks gets today's, not the
    // Unix epoch's: a 1970 date inside a new ID would be taken for the
    // entry's real date by the next conversion.
    let mut ctx = ace_registry::WriteCtx::default()
        .with_now(now)
        .with_clock(Some(ace_model::time::clock()))
        .with_sections(sections);
    for (name, value) in &args.options {
        ctx = ctx.with_option(name, value.clone());
    }
    ctx
}

/// Says why the conversion stopped; the exit status.
fn stopped((stop, file, note): (Stop, Option<Source>, Option<String>)) -> ExitStatus {
    crate::print_stop(
        PROG,
        stop,
        file.as_ref(),
        note.as_deref(),
        |lost, target| {
            format!("--strict: {lost} piece(s) of information would be lost converting to {target}; nothing written")
        },
    )
}

/// What a block could not hold. The block is what the agent reads, drawn
/// from a playbook that keeps every field: the fields it has no place for
/// are one line naming them, not a warning each, unless `--strict` or
/// `--report json` asks for every one. Anything else is reported in full.
fn report_block_losses(args: &Args, losses: &[LossEntry], name: &str) {
    if args.strict || matches!(args.report, Report::Json) {
        return report_losses(args, losses, "managed-block");
    }
    let (dropped, other): (Vec<LossEntry>, Vec<LossEntry>) = losses
        .iter()
        .cloned()
        .partition(|l| l.code == ace_model::rules::DROPPED_FIELD.code);
    report_losses(args, &other, "managed-block");
    let mut fields: Vec<&str> = dropped.iter().map(|l| &*l.field).collect();
    fields.sort_unstable();
    fields.dedup();
    if !fields.is_empty() && !args.quiet {
        crate::say!(
            "{PROG}: {name}: the block leaves out fields the agent does not read, which the playbook keeps: {} (--strict or --report json lists each)",
            fields.join(", ")
        );
    }
}

/// Prints the losses, unless `--quiet` (under `--strict` they are printed
/// all the same: they are why nothing is written).
fn report_losses(args: &Args, losses: &[LossEntry], target: &str) {
    if !args.quiet || args.strict {
        let mut err = std::io::stderr().lock();
        let _ = match args.report {
            Report::Text => ace_report::render_losses_text(losses, target, &mut err),
            Report::Json => ace_report::render_losses_json(losses, target, &mut err),
        };
    }
}

/// A usage error said in one line.
fn usage_stop(message: String) -> Stop {
    Stop::Usage(ace_model::Error::Usage(message))
}
