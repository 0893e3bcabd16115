//! Deltas applied to a playbook kept in a database: read under the write
//! lock, applied by the engine with the schema's curation, written back in
//! the same transaction, the applied delta IDs recorded with it.

use std::time::Duration;

use ace_model::{Error, Severity};
use ace_registry::store::{self, Change, StoreLocation, WriteOptions, Written};

use crate::pipeline::{run_rows, Applied, DeltaSource, RunOptions};

/// What an apply to a database did: the engine's result (its report) and
/// what was written, `None` when nothing changed or nothing was to be
/// written.
pub struct RowsApplied<'a> {
    pub applied: Applied<'a>,
    pub written: Option<Written>,
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
}

/// Applies `deltas` to the playbook at `location` in one transaction. A
/// delta file that does not read writes nothing, as with a file. A row
/// the reader finds wrong (ACE091) refuses the whole apply: writing the
/// playbook back would write the row without the value it could not
/// read.
pub fn apply<'a>(
    location: &StoreLocation,
    deltas: &[DeltaSource<'a>],
    opts: &RunOptions<'_>,
    how: RowsOptions,
) -> Result<RowsApplied<'a>, Error> {
    let (wait, write) = (how.wait, how.write);
    let mut db = store::open(location, false)?;
    let options = WriteOptions {
        now: opts.apply.now.clone(),
        wait,
        ..WriteOptions::default()
    };
    let (written, applied) = db.update(&options, |read| {
        if let Some(d) = read
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
        {
            return Err(Error::Refused(format!(
                "{location}: {} {}; fix the row before applying; nothing written",
                d.code, d.message
            )));
        }
        let curation = read.schema.curation();
        let mut applied = run_rows(read.playbook, &curation, deltas, opts);
        let unreadable = applied.files.iter().any(|f| f.unreadable.is_some());
        let refused = how.strict && applied.refused() > 0;
        let playbook = (write && !unreadable && !refused && applied.outcome.changed())
            .then(|| std::mem::take(&mut applied.playbook));
        Ok(Change {
            playbook,
            value: applied,
        })
    })?;
    Ok(RowsApplied { applied, written })
}
