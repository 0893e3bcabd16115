//! Deltas applied to a playbook where it lives, as `ace-apply --in-place`
//! applies them: a file of any format locked before it is read and
//! rewritten under the lock, or a database location in one transaction.
//! The steps are public for ace-apply's own flow, which adds its report,
//! `--check`, `--diff` and the curator's output between them; [`apply`]
//! is the whole of it for a caller that only applies (ace-mcp).

use std::path::Path;
use std::time::Duration;

use ace_fs::Held;
use ace_model::{Error, LossEntry, Playbook, Severity};
use ace_registry::convert::{self, Destination, Stop};
use ace_registry::{Format, Registry};

use crate::pipeline::DeltaSource;
use crate::{Ready, Subject};

/// Locks the input of an update in place before it is read, so that
/// concurrent updates of one playbook take turns (`ace_fs::Held`). The
/// companion is locked after it, once the format is known
/// ([`lock_companion`]). Standard input holds nothing.
pub fn lock_input(arg: impl AsRef<std::ffi::OsStr>, wait: Duration) -> Result<Held, Error> {
    let arg = arg.as_ref();
    if arg == "-" {
        return Ok(Held::default());
    }
    Held::lock(&[Path::new(arg)], wait).map_err(Into::into)
}

/// Adds to `held` the companion an update of `input` as `format` will
/// read and rewrite: `sections` when given, else the one beside it.
pub fn lock_companion(
    held: &mut Held,
    format: Format,
    input: Option<&Path>,
    sections: Option<&Path>,
    wait: Duration,
) -> Result<(), Error> {
    if format.companion().is_none() {
        return Ok(());
    }
    let path = match sections {
        Some(p) => Some(p.to_owned()),
        None => input.and_then(|p| format.companion_beside(p)),
    };
    match path {
        Some(p) => held.lock_more(&p, wait).map_err(Into::into),
        None => Ok(()),
    }
}

/// Refuses a write to `dest` outside `scope`, when one bounds writes.
pub fn check_scope(
    scope: Option<&ace_config::WriteScope>,
    dest: &Destination,
) -> Result<(), Error> {
    let Some(scope) = scope else {
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
        scope.check(p)?;
    }
    Ok(())
}

/// How [`apply`] writes.
#[derive(Debug, Clone, Copy)]
pub struct InPlace {
    /// How long to wait for another writer of the playbook.
    pub wait: Duration,
    /// Replace a read-only file (`--force`).
    pub force: bool,
    /// Write nothing when a delta is refused (`--strict`).
    pub strict: bool,
}

/// What [`apply`] did.
pub struct Placed {
    /// ace-apply's report, as `--report json` prints it.
    pub report: serde_json::Value,
    /// The report as ace-apply prints it, one line per delta.
    pub report_text: String,
    /// How many deltas were refused.
    pub refused: usize,
    /// Why a delta did not read, when one did not: then nothing was
    /// applied or written.
    pub unreadable: Option<String>,
    /// The playbook as read, and as applied to (written, unless a delta
    /// did not read or `strict` refused).
    pub before: Playbook,
    pub after: Playbook,
    /// Whether the playbook was written.
    pub written: bool,
    /// What the target could not hold, with the target's name.
    pub losses: Vec<(Vec<LossEntry>, String)>,
}

/// Applies `deltas` to the playbook at `location` (a file of any format,
/// or a database location) in place, under its lock, with `ready`'s
/// options and write scope.
pub fn apply(
    location: &str,
    deltas: &[DeltaSource<'_>],
    ready: &Ready,
    how: InPlace,
) -> Result<Placed, Stop> {
    if let Some(store) = ace_registry::store::location(location)? {
        return apply_rows(&store, deltas, ready, how);
    }
    let mut held = lock_input(location, how.wait)?.forcing(how.force);
    let source = ace_fs::load(Path::new(location))?;
    let ctx = ace_registry::ReadCtx::min(Severity::Error);
    let detected = convert::read_detected(Registry::builtin(), &source, None, |format| {
        lock_companion(&mut held, format, source.path.as_deref(), None, how.wait)?;
        Ok(((), convert::read_input(&source, format, None, &ctx)))
    })?;
    let format = detected.from;
    let input = detected.read?;
    let before = input.parsed.playbook.clone();
    let subject = Subject {
        format,
        text: &source.text,
        companion: input.companion.as_ref().map(|c| &*c.text),
        playbook: input.parsed.playbook,
    };
    let applied = crate::run_curated(subject, deltas, &ready.run, &ready.curate);
    let unreadable = applied.files.iter().find_map(|f| f.unreadable.clone());
    let refused = applied.refused();
    let mut losses = Vec::new();
    let write = unreadable.is_none() && !(how.strict && refused > 0);
    if write {
        let dest = convert::destination(format, None, true, &source, input.companion.as_ref())?;
        check_scope(ready.scope.as_ref(), &dest)?;
        applied.write_to(&dest, true, Some(&held), &mut |l, target| {
            losses.push((l.to_vec(), target.to_owned()))
        })?;
        if let crate::Output::Spliced(_) = applied.output {
            losses.push((applied.splice_losses.clone(), format.name().to_owned()));
        }
    }
    Ok(Placed {
        report: applied.report_json(),
        report_text: applied.report_text("ace-apply"),
        refused,
        unreadable,
        before,
        written: write && applied.outcome.changed(),
        after: applied.playbook,
        losses,
    })
}

/// [`apply`] to a database location, in one transaction.
fn apply_rows(
    location: &ace_registry::store::StoreLocation,
    deltas: &[DeltaSource<'_>],
    ready: &Ready,
    how: InPlace,
) -> Result<Placed, Stop> {
    let rows = crate::rows::RowsOptions {
        wait: how.wait,
        write: true,
        strict: how.strict,
        force: how.force,
    };
    let done = match crate::rows::apply(location, deltas, ready, rows)? {
        Ok(done) => done,
        Err(unread) => {
            return Err(Stop::Findings {
                companion: Some(ace_fs::Source {
                    name: location.shown(),
                    path: None,
                    text: unread.listing.into(),
                }),
                diagnostics: unread.diagnostics,
            })
        }
    };
    let applied = &done.applied;
    Ok(Placed {
        report: applied.report_json(),
        report_text: applied.report_text("ace-apply"),
        refused: applied.refused(),
        unreadable: applied.files.iter().find_map(|f| f.unreadable.clone()),
        before: done.before,
        after: applied.playbook.clone(),
        written: done.written.is_some(),
        losses: Vec::new(),
    })
}
