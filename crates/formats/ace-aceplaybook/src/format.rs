//! ace-playbook's files in the format registry.

use ace_exec::Out;
use ace_format::{
    Confidence, Curation, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, Syntax, WriteCtx,
    WriteOption,
};
use ace_model::{Diagnostic, Playbook, WriteReport};

use crate::Shape;

pub struct AcePlaybook;

/// The format as the registry lists it.
pub static FORMAT: AcePlaybook = AcePlaybook;

/// `--ace-playbook-shape`: which of the two shapes to write.
pub const SHAPE: WriteOption = WriteOption {
    name: "ace-playbook-shape",
    values: &["trainer", "list"],
    help: "the shape of an ace-playbook file to write: trainer (OfflineTrainer.save_playbook's {version, created_at, training_config, bullets}) or list (the bullet list its README documents); unset, a file keeps its shape and a new one is trainer",
};

impl PlaybookFormat for AcePlaybook {
    fn name(&self) -> &'static str {
        "ace-playbook"
    }

    fn describe(&self) -> &'static str {
        "jmanhype/ace-playbook's playbook files: the offline trainer's, and its README's bullet list"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        (input.syntax() == Syntax::Json && crate::sniff(input).is_some())
            .then_some(Confidence::Marker)
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        crate::read(text, ctx)
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let shape = ctx.option(SHAPE.name).and_then(Shape::from_name);
        let (text, report) = crate::write(pb, shape);
        out.push_str(&text);
        report
    }

    fn write_options(&self) -> &'static [WriteOption] {
        &[SHAPE]
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// Append-only, as its ADR 0002 has it: a new bullet goes last, as the
    /// trainer appends it.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            appends: true,
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            ..LintProfile::default()
        }
    }
}
