//! AGENTS.md in the format registry.

use ace_exec::Out;
use ace_format::{
    Confidence, Curation, IdScheme, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, Syntax,
    WriteCtx,
};
use ace_model::WriteReport;
use ace_model::{Diagnostic, Playbook};

pub struct AgentsMd;

/// The format as the registry lists it.
pub static FORMAT: AgentsMd = AgentsMd;

/// The file names the curator reads and writes.
pub const FILE_NAMES: [&str; 3] = ["agents.md", "agent.md", "agents.archive.md"];

impl PlaybookFormat for AgentsMd {
    fn name(&self) -> &'static str {
        "agents-md"
    }

    fn describe(&self) -> &'static str {
        "AGENTS.md bullets `[Bullet #id, helpful:N, harmful:M]` (ace_beads curator spec)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        if input
            .file_name()
            .is_some_and(|n| FILE_NAMES.contains(&n.as_str()))
        {
            return Some(Confidence::Name);
        }
        (input.syntax() == Syntax::Text && input.text.contains("[Bullet #"))
            .then_some(Confidence::Marker)
    }

    fn read(&self, text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
        Ok(crate::read(text).into())
    }

    fn write(&self, pb: &Playbook, _: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        crate::write_into(pb, out)
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// Curator bullet IDs are hashes (`#88f22305`) without sections'
    /// prefixes, and the curator spec's deprecation rule is the curator's own.
    /// ace_beads' eight-hex-digit IDs; provenance in the comment after a
    /// bullet; a line-based file.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            ids: IdScheme::HEX,
            provenance: true,
            line_based: true,
            dialect: Some("acedelta"),
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            deprecation: true,
            suppression_comments: true,
            ..LintProfile::default()
        }
    }
}
