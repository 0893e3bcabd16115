//! The canonical JSON in the format registry.

use ace_exec::Out;
use ace_format::{Confidence, PlaybookFormat, Read, ReadCtx, Sniff, Syntax, WriteCtx};
use ace_model::WriteReport;
use ace_model::{Diagnostic, Playbook, ReadOutput};

pub struct Canonical;

/// The format as the registry lists it.
pub static FORMAT: Canonical = Canonical;

impl PlaybookFormat for Canonical {
    fn name(&self) -> &'static str {
        "json"
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
