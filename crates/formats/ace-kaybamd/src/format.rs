//! kayba's markdown exports in the format registry.

use ace_exec::Out;
use ace_format::{
    Confidence, Curation, IdScheme, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, Syntax,
    WriteCtx, WriteOption,
};
use ace_model::{Diagnostic, Playbook, WriteReport};

use crate::Shape;

pub struct KaybaMarkdown;

/// The format as the registry lists it.
pub static FORMAT: KaybaMarkdown = KaybaMarkdown;

/// `--kayba-md-shape`: which of kayba's shapes to write.
pub const SHAPE: WriteOption = WriteOption {
    name: "kayba-md-shape",
    values: &["export", "export-0.8", "prompt", "list"],
    help: "the shape of kayba markdown to write: export (ExportSkillbookMarkdownStep of 0.12 and later), export-0.8 (the same step in 0.8), prompt (Skillbook.as_prompt) or list (the skills lists of kayba's examples); unset, a file keeps its shape and a new one is export",
};

/// Bytes of the head the sniff reads.
const HEAD: usize = 1 << 16;

impl PlaybookFormat for KaybaMarkdown {
    fn name(&self) -> &'static str {
        "kayba-md"
    }

    fn describe(&self) -> &'static str {
        "kayba ace-framework markdown: the skillbook export (0.8 and 0.12 on), as_prompt, skills lists"
    }

    /// `.md` is the markdown playbook's: a new file of this format is
    /// `NAME.skillbook.md`, as kayba names its export `ace_skillbook.md`.
    fn extensions(&self) -> &'static [&'static str] {
        &["skillbook.md"]
    }

    /// A name ending in `skillbook.md` says it; so do a shape's own lines
    /// (the export's header and tag line, `as_prompt`'s indented fields
    /// under `- [id]`, a list's under `- text`).
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        if input.syntax() != Syntax::Text {
            return None;
        }
        if input
            .file_name()
            .is_some_and(|n| n.to_ascii_lowercase().ends_with("skillbook.md"))
        {
            return Some(Confidence::Name);
        }
        crate::detect(ace_format::head(input.text, HEAD)).map(|_| Confidence::Marker)
    }

    fn read(&self, text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
        Ok(crate::read(text).into())
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let shape = ctx.option(SHAPE.name).and_then(Shape::from_name);
        crate::write_into(pb, shape, out)
    }

    fn write_options(&self) -> &'static [WriteOption] {
        &[SHAPE]
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// kayba's IDs, `{section}-NNNNN` from one counter; a line-based file
    /// with no bookkeeping fields.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            ids: IdScheme::SECTION_COUNTER,
            line_based: true,
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            guardrail: false,
            ..LintProfile::default()
        }
    }
}
