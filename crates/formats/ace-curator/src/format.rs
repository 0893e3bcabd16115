//! Seed 001's curator JSON in the registry of document checks.

use ace_format::{CheckCtx, DocumentCheck};
use ace_model::Diagnostic;

pub struct CuratorJson;

/// The check as the registry lists it.
pub static CHECK: CuratorJson = CuratorJson;

impl DocumentCheck for CuratorJson {
    fn name(&self) -> &'static str {
        "curator-json"
    }

    fn describe(&self) -> &'static str {
        "ace_beads curator JSON: AceDelta objects and batches, the curator's input and output"
    }

    /// Curator JSON is JSON that no playbook format claims by a marker, so
    /// it is what a file detected as the skill's or the canonical JSON may
    /// hold instead.
    fn claims(&self, format: &str, text: &str) -> bool {
        matches!(format, "skill-json" | "json") && crate::sniff(text).is_some()
    }

    fn check(&self, text: &str, ctx: &CheckCtx<'_>) -> Vec<Diagnostic> {
        let opts = crate::Options {
            confidence: ctx.min_confidence,
            evidence_length: ctx.min_evidence,
        };
        crate::check(text, ctx.playbook, &opts).unwrap_or_else(|d| vec![d])
    }
}
