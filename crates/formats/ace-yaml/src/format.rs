//! playbook.yaml in the format registry.

use ace_exec::Out;
use ace_format::{
    Confidence, Curation, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, Syntax, WriteCtx,
};
use ace_model::WriteReport;
use ace_model::{Diagnostic, Playbook};

pub struct PlaybookYaml;

/// The format as the registry lists it.
pub static FORMAT: PlaybookYaml = PlaybookYaml;

impl PlaybookFormat for PlaybookYaml {
    fn name(&self) -> &'static str {
        "playbook-yaml"
    }

    fn describe(&self) -> &'static str {
        "curator knowledge/playbook.yaml (ace_beads curator spec)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["yaml", "yml"]
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        if matches!(
            input.file_name().as_deref(),
            Some("playbook.yaml" | "playbook.yml")
        ) {
            return Some(Confidence::Name);
        }
        if input.syntax() != Syntax::Yaml {
            return None;
        }
        let listed = input
            .text
            .lines()
            .any(|l| l.starts_with("sections:") || l.starts_with("entries:"));
        Some(if listed {
            Confidence::Content
        } else {
            Confidence::Likely
        })
    }

    fn read(&self, text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
        crate::read(text).map(Read::from)
    }

    /// The YAML is written whole: it is a few lines when it is the
    /// curator's file, and its emitter works on a string.
    fn write(&self, pb: &Playbook, _: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let w = crate::write(pb);
        out.push_str(&w.text);
        WriteReport {
            losses: w.losses,
            id_changes: Vec::new(),
        }
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// The curator's section ids and bullet hashes follow no playbook-format
    /// shape, and the deprecation rule is the curator's.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            status: true,
            provenance: true,
            timestamps: true,
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            deprecation: true,
            suppression_comments: false,
            ..LintProfile::default()
        }
    }
}
