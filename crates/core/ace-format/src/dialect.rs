//! The contract between a delta dialect's crate and the tools:
//! [`DeltaDialect`], as [`crate::PlaybookFormat`] is for playbook files.
//! A dialect reads its files into the canonical [`Delta`], may write a
//! canonical difference in its own shape, and names the checks
//! `ace-validate` runs on its files. The registry lists every dialect;
//! `ace-apply --delta-format`, `ace-diff --output-format` and detection
//! iterate that list.

use ace_model::delta::{Delta, Rules};
use ace_model::mapping::SectionMap;
use ace_model::{Diagnostic, Playbook};

use crate::{Confidence, DocumentCheck, Sniff};

/// What reading a delta file needs besides its text.
#[derive(Debug, Clone, Copy)]
pub struct DeltaReadCtx<'a> {
    /// The file's name, when it has one: a dialect written in two
    /// syntaxes (an AcePatch in JSON or TRON) tells them apart by it.
    pub name: Option<&'a str>,
    /// The ace_beads curator's gate: the lowest confidence and the
    /// shortest evidence it accepts in a delta.
    pub min_confidence: f64,
    pub min_evidence: usize,
}

/// What writing a delta needs besides the delta.
pub struct DeltaWriteCtx<'a> {
    /// The playbook the delta applies to (an AceDelta names a bullet by
    /// its section and text).
    pub old: &'a Playbook,
    pub sections: &'a SectionMap,
    /// The time a delta is stamped with, when its dialect stamps one.
    pub now: &'a str,
    /// Why the delta was made, for a dialect that says (the skill's
    /// `rationale`, an AceDelta's `evidence`).
    pub note: &'a str,
    /// Whether the playbook's format holds an entry field (a canonical
    /// name): what a dialect adds to a field the playbook has no place for
    /// is no difference worth a warning.
    pub holds: &'a dyn Fn(&str) -> bool,
}

/// A delta written in a dialect, and what the dialect could not say of
/// it, one sentence each.
pub type WrittenDelta = (serde_json::Value, Vec<String>);

/// One delta dialect: how to recognise, read, write and check its files.
pub trait DeltaDialect: Sync {
    /// The name `--delta-format` and `--output-format` take (`acepatch`).
    fn name(&self) -> &'static str;

    /// One line for help texts.
    fn describe(&self) -> &'static str;

    /// What one of its files is, in a sentence ("an AceDelta"): how a
    /// message lists the dialects a file could have been.
    fn what(&self) -> &'static str;

    /// How sure this dialect is that the input is one of its files, before
    /// reading it. `None` only where [`DeltaDialect::read`] would find no
    /// delta; detection reads the dialects that claim a file, surest first.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence>;

    /// The deltas in `text`: `Ok(None)` when it holds none of this
    /// dialect's, the error when it does not parse. A delta that its
    /// dialect's rules refuse is read, with the refusal in it.
    fn read(&self, text: &str, ctx: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic>;

    /// How the engine applies this dialect's deltas beyond their changes:
    /// what its producer's spec adds. Every delta the registry reads with
    /// this dialect carries them.
    fn rules(&self) -> Rules {
        Rules::PLAIN
    }

    /// Whether ace-tools writes this dialect ([`DeltaDialect::write`]).
    fn writes(&self) -> bool {
        false
    }

    /// `delta` in this dialect, and what the dialect cannot say of it;
    /// `None` for a dialect that ace-tools reads only.
    fn write(&self, _delta: &Delta, _ctx: &DeltaWriteCtx<'_>) -> Option<WrittenDelta> {
        None
    }

    /// The checks `ace-validate` runs on this dialect's files.
    fn checks(&self) -> &'static [&'static dyn DocumentCheck] {
        &[]
    }
}

impl std::fmt::Debug for dyn DeltaDialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeltaDialect({})", self.name())
    }
}
