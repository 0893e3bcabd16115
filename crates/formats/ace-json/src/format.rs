//! The canonical JSON in the format registry.

use ace_exec::Out;
use ace_format::{
    AppliedDelta, Confidence, Curation, Ledger, PlaybookFormat, Read, ReadCtx, Sniff, Syntax,
    WriteCtx,
};
use ace_model::WriteReport;
use ace_model::{Diagnostic, Playbook, ReadOutput};

pub struct Canonical;

/// The format as the registry lists it.
pub static FORMAT: Canonical = Canonical;

impl PlaybookFormat for Canonical {
    fn name(&self) -> &'static str {
        "json"
    }

    /// Holds every field; applied deltas in `extra.applied_deltas`.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            status: true,
            provenance: true,
            timestamps: true,
            ledger: Some(&LEDGER),
            ..Curation::default()
        }
    }

    fn describe(&self) -> &'static str {
        "the canonical ace-tools model, for debugging and lossless storage"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    /// The document names its format in its first key.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        (input.syntax() == Syntax::Json && crate::sniff(input.text)).then_some(Confidence::Declared)
    }

    fn read(&self, text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
        crate::read(text).map(|playbook| {
            ReadOutput {
                playbook,
                diagnostics: Vec::new(),
            }
            .into()
        })
    }

    /// Every field the model holds has a place here: nothing is lost.
    fn write(&self, pb: &Playbook, _: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        crate::write_into(pb, out);
        WriteReport::default()
    }
}

/// Where the canonical JSON records the deltas applied to it:
/// `extra.applied_deltas`, as the skill's playbook names its list.
const APPLIED_KEY: &str = "applied_deltas";

/// The canonical JSON's record of applied deltas.
pub struct CanonicalLedger;

pub static LEDGER: CanonicalLedger = CanonicalLedger;

impl Ledger for CanonicalLedger {
    fn applied(&self, pb: &Playbook) -> Vec<String> {
        pb.extra
            .get(APPLIED_KEY)
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    }

    fn record(&self, pb: &mut Playbook, applied: &[AppliedDelta], _now: &str) {
        let mut ids = applied.iter().filter_map(|a| a.id.clone()).peekable();
        if ids.peek().is_none() {
            return;
        }
        if let serde_json::Value::Array(list) = pb
            .extra
            .entry(APPLIED_KEY)
            .or_insert_with(|| serde_json::Value::Array(Vec::new()))
        {
            list.extend(ids.map(serde_json::Value::String));
        }
    }
}
