//! The deterministic curator: reads deltas of every dialect in the
//! registry into the canonical [`Delta`] and applies them to a playbook
//! by the rules of the dialect's spec. Each delta is checked first and
//! applied whole or not at all. What the engine needs of the playbook's
//! format (its ID scheme, whether it holds a status, provenance,
//! timestamps, where it records applied deltas) comes from the format
//! ([`ace_registry::Curation`]); what it does beyond a delta's changes,
//! from the delta's dialect ([`Rules`]).
//!
//! [`pipeline`] is the one path from a playbook's text and delta files to
//! the text to write, which ace-apply, ace-merge and the Python module
//! take; [`diff`] is the entry-by-entry difference of two playbooks and
//! its renderings, [`merge`] the three-way merge.

pub mod dedup;
pub mod diff;
mod engine;
pub mod into;
pub mod merge;
pub mod pipeline;
pub mod place;
pub mod prune;
pub mod render;
mod request;
pub mod rows;

use ace_model::delta::Delta;
use ace_registry::{DeltaDialect, DeltaError, Registry};

pub use ace_model::delta::{Change, Op, Reason, Refusal, Rules, Target};
pub use engine::{apply, Outcome, Passed, Verdict};
pub use pipeline::{
    apply_to, run, run_curated, run_rows, unified, Applied, Curate, CurateArgs, Curated, DeltaFile,
    DeltaSource, Output, RunOptions, Subject, Texts,
};
pub use request::{Config, Ready, Request};

/// What reading a delta file needs besides its text.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// The ace_beads curator's gate: the lowest confidence and shortest
    /// evidence it accepts in an AceDelta.
    pub min_confidence: f64,
    pub min_evidence: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        let c = ace_registry::CuratorGate::default();
        ReadOptions {
            min_confidence: c.confidence,
            min_evidence: c.evidence_length,
        }
    }
}

impl ReadOptions {
    /// The thresholds in force: the ones given, else ace.toml's, else
    /// the curator's defaults.
    pub fn of(
        loaded: &ace_config::Loaded,
        min_confidence: Option<f64>,
        min_evidence: Option<usize>,
    ) -> ReadOptions {
        let defaults = ReadOptions::default();
        let t = &loaded.config.thresholds;
        ReadOptions {
            min_confidence: min_confidence
                .or(t.confidence)
                .unwrap_or(defaults.min_confidence),
            min_evidence: min_evidence
                .or(t.evidence_length)
                .unwrap_or(defaults.min_evidence),
        }
    }
}

/// The deltas in a file, in its dialect: `forced`, else the one the
/// registry detects ([`Registry::read_deltas`]). `name` is the file's
/// name, which tells an AcePatch in TRON.
pub fn read_deltas(
    registry: &Registry,
    text: &str,
    name: Option<&str>,
    forced: Option<&'static dyn DeltaDialect>,
    opts: &ReadOptions,
) -> Result<(&'static dyn DeltaDialect, Vec<Delta>), DeltaError> {
    let ctx = ace_registry::DeltaReadCtx {
        name,
        min_confidence: opts.min_confidence,
        min_evidence: opts.min_evidence,
    };
    registry.read_deltas(text, forced, &ctx)
}

/// Which semantics a delta is applied with, where its dialect's producer
/// ships a script that departs from its spec ([`Rules::script`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// The spec's text (the skill's: counters, new bullets, edits, merges
    /// archiving, deprecations setting a status).
    #[default]
    Spec,
    /// The producer's script (the skill's `scripts/merge_deltas.py`: new
    /// bullets, edits, merges appending content with a `merged` tag,
    /// deprecations as a tag and note, counters).
    Script,
}

/// How deltas are applied.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub compat: Compat,
    /// The append-only update ADR: refuse any delta that changes or
    /// removes content.
    pub append_only: bool,
    /// RFC 3339, for the timestamps a delta's spec sets.
    pub now: String,
    /// The deltas carry entries of another copy of the same file (a
    /// merge's): what they add is kept as it is, not completed to the
    /// format's schema (`Curation::complete_new`), and text a playbook
    /// must not hold (`ace_lint::unsafe_text`) is merged as the file holds
    /// it, for ace-validate to report, rather than refused.
    pub verbatim: bool,
}
