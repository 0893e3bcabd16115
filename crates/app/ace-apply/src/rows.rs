//! Deltas applied to a playbook kept in a database: read under the write
//! lock, applied by the engine with the schema's curation, written back in
//! the same transaction, the applied delta IDs recorded with it.

use std::time::Duration;

use ace_model::{Diagnostic, Error, Severity};
use ace_registry::store::{self, Access, Change, StoreLocation, WriteOptions, Written};

use crate::pipeline::{run_rows, Applied, DeltaSource};
use crate::Ready;

/// What an apply to a database did: the engine's result (its report) and
/// what was written, `None` when nothing changed or nothing was to be
/// written.
pub struct RowsApplied<'a> {
    /// The playbook as read, before the deltas.
    pub before: ace_model::Playbook,
    pub applied: Applied<'a>,
    pub written: Option<Written>,
}

/// A playbook whose rows do not read (ACE091): the listing of its rows,
/// which the findings' spans point into, and the findings. Nothing was
/// applied or written; the caller reports it as an input that does not
/// read as a playbook.
pub struct Unreadable {
    pub listing: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// How [`apply`] writes.
#[derive(Debug, Clone, Copy)]
pub struct RowsOptions {
    /// How long to wait for another writer of the playbook.
    pub wait: Duration,
    /// False: apply, report and write nothing (`--check`).
    pub write: bool,
    /// Write nothing when a delta is refused (`--strict`).
    pub strict: bool,
    /// Write to a SQLite file marked read-only (`--force`).
    pub force: bool,
}

/// Applies `deltas` to the playbook at `location` in one transaction. A
/// delta file that does not read writes nothing, as with a file. A row
/// the reader finds wrong (ACE091) stops the whole apply ([`Unreadable`]):
/// writing the playbook back would write the row without the value it
/// could not read. A SQLite file or a folder's project files are written
/// only inside the write scope, as a playbook file is; a database on a
/// server is no file, and the scope does not bound it.
pub fn apply<'a>(
    location: &StoreLocation,
    deltas: &[DeltaSource<'a>],
    ready: &Ready,
    how: RowsOptions,
) -> Result<Result<RowsApplied<'a>, Unreadable>, Error> {
    let (wait, write, opts) = (how.wait, how.write, &ready.run);
    if ready.curate.dedup.is_some() {
        return Err(Error::Usage(format!(
            "{}: --dedup merges entries of a playbook file; a database location takes --prune",
            location.shown()
        )));
    }
    if let Some(p) = &ready.curate.prune {
        let b = &p.budget;
        if b.whole.max_tokens.is_some() || b.sections.iter().any(|(_, l)| l.max_tokens.is_some()) {
            return Err(Error::Usage(format!(
                "{}: a token budget counts a file's text; a database location is pruned to --max-entries",
                location.shown()
            )));
        }
    }
    let access = match write {
        true => {
            if let Some(scope) = &ready.scope {
                for path in store::files(location) {
                    scope.check(&path)?;
                }
            }
            Access::Write {
                create: false,
                force: how.force,
            }
        }
        false => Access::Read,
    };
    let options = WriteOptions {
        now: opts.apply.now.clone(),
        wait,
        ..WriteOptions::default()
    };
    let (written, applied) = store::update(location, access, &options, |read| {
        if read
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
        {
            let diagnostics = read
                .diagnostics
                .into_iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            return Ok(Change {
                playbook: None,
                value: Err(Unreadable {
                    listing: read.listing,
                    diagnostics,
                }),
            });
        }
        let before = read.playbook.clone();
        let applied = run_rows(read.playbook, &read.curation, deltas, opts, &ready.curate);
        let unreadable = applied.files.iter().any(|f| f.unreadable.is_some());
        let refused = how.strict && applied.refused() > 0;
        let playbook = (write && !unreadable && !refused && applied.outcome.changed())
            .then(|| applied.playbook.clone());
        Ok(Change {
            playbook,
            value: Ok((before, applied)),
        })
    })?;
    Ok(applied.map(|(before, applied)| RowsApplied {
        before,
        applied,
        written,
    }))
}
