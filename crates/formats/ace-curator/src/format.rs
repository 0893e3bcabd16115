//! The ace_beads curator's JSON in the registry: its document check, and
//! the AceDelta as a delta dialect.

use ace_format::{
    CheckCtx, Confidence, DeltaDialect, DeltaReadCtx, DeltaWriteCtx, DocumentCheck, Sniff,
    WrittenDelta,
};
use ace_model::delta::{Delta, Deprecation, Rules};
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

/// The AceDelta in the registry of delta dialects.
pub struct AceDeltas;

pub static ACEDELTA: AceDeltas = AceDeltas;

impl DeltaDialect for AceDeltas {
    /// The curator spec: a bullet whose section and text the playbook
    /// has is refused; a bullet is deprecated once harmful > helpful; a
    /// section the curator adds weighs 0.5; a bullet keeps its source
    /// only where the playbook keeps provenance.
    fn rules(&self) -> Rules {
        Rules {
            unique_text: true,
            deprecate: Some(Deprecation {
                factor: 1,
                offset: 1,
            }),
            new_section_weight: Some(0.5),
            provenance_where_kept: true,
            ..Rules::PLAIN
        }
    }

    fn name(&self) -> &'static str {
        "acedelta"
    }

    fn describe(&self) -> &'static str {
        "ace_beads AceDelta: one, an array, the curator input {deltas}, reflector insights"
    }

    fn what(&self) -> &'static str {
        "an AceDelta"
    }

    /// Any JSON may be one; the read tells, and gives the parse error of
    /// a text that is no JSON.
    fn sniff(&self, _: &Sniff<'_>) -> Option<Confidence> {
        Some(Confidence::Likely)
    }

    fn read(&self, text: &str, ctx: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        crate::ops::read_deltas(
            text,
            &crate::Options {
                confidence: ctx.min_confidence,
                evidence_length: ctx.min_evidence,
            },
        )
    }

    fn writes(&self) -> bool {
        true
    }

    fn write(&self, delta: &Delta, ctx: &DeltaWriteCtx<'_>) -> Option<WrittenDelta> {
        Some(crate::ops::write_deltas(
            delta,
            &crate::ops::WriteOptions {
                old: ctx.old,
                now: ctx.now,
                evidence: ctx.note,
            },
        ))
    }

    fn checks(&self) -> &'static [&'static dyn DocumentCheck] {
        &ACEDELTA_CHECKS
    }
}

static ACEDELTA_CHECKS: [&dyn DocumentCheck; 2] = [&INSIGHTS, &CHECK];

/// The ace_beads reflector's insights, which `ace-apply` reads as AceDeltas
/// where they carry one: said for what they are, never read as a playbook.
pub struct ReflectorInsights;

pub static INSIGHTS: ReflectorInsights = ReflectorInsights;

impl DocumentCheck for ReflectorInsights {
    fn name(&self) -> &'static str {
        "reflector-insights"
    }

    fn describe(&self) -> &'static str {
        "ace_beads reflector insights: {insights}, a bare array or JSON Lines"
    }

    /// Whatever format a file was taken for by its first bytes (a bare
    /// array looks like skill bullets; JSON Lines like nothing), insights
    /// are insights.
    fn claims(&self, _format: &str, text: &str) -> bool {
        let t = text.trim_start_matches('\u{feff}').trim_start();
        (t.starts_with('{') || t.starts_with('['))
            && (text.contains("\"pattern\"")
                || text.contains("\"recommendation\"")
                || text.contains("\"insights\""))
            && crate::ops::is_insights_file(text)
    }

    fn check(&self, text: &str, ctx: &CheckCtx<'_>) -> Vec<Diagnostic> {
        let opts = crate::Options {
            confidence: ctx.min_confidence,
            evidence_length: ctx.min_evidence,
        };
        let deltas = match crate::ops::read_deltas(text, &opts) {
            Ok(Some(d)) => d,
            Ok(None) => Vec::new(),
            Err(d) => return vec![d],
        };
        let proposing: Vec<&ace_model::delta::Delta> = deltas
            .iter()
            .filter(|d| !d.ops.is_empty() || !d.refusals.is_empty())
            .collect();
        let refused = proposing.iter().filter(|d| !d.refusals.is_empty()).count();
        let mut out = vec![Diagnostic::new(
            &ace_model::rules::REFLECTOR_INSIGHTS,
            ace_model::Span::new(0, text.len().min(1)),
            format!(
                "reflector insights: {} insight{}, {} with a delta ({} the curator would refuse); `ace-apply` applies the rest",
                deltas.len(),
                if deltas.len() == 1 { "" } else { "s" },
                proposing.len(),
                refused
            ),
        )];
        for d in proposing {
            for r in &d.refusals {
                out.push(Diagnostic::new(
                    &ace_model::rules::REFLECTOR_INSIGHTS,
                    r.span,
                    format!(
                        "the curator would refuse this insight's delta ({}): {}",
                        r.reason.code(),
                        r.message
                    ),
                ));
            }
        }
        out
    }
}
