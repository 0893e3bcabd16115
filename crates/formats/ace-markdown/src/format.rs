//! The markdown playbook in the format registry.

use ace_exec::Out;
use ace_format::{Confidence, LintProfile, PlaybookFormat, Read, ReadCtx, Sniff, Syntax, WriteCtx};
use ace_model::WriteReport;
use ace_model::{Diagnostic, Playbook};

pub struct Markdown;

/// The format as the registry lists it.
pub static FORMAT: Markdown = Markdown;

/// Bytes of a text looked at for an entry line: a playbook has one early.
const HEAD: usize = 1 << 16;

impl PlaybookFormat for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn describe(&self) -> &'static str {
        "markdown playbook `[str-00001] helpful=N harmful=M :: text` (ACE playbook format spec)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["md", "markdown", "txt"]
    }

    /// Any text may be a markdown playbook; one with a line that starts
    /// like an entry is one.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        if input.syntax() != Syntax::Text {
            return None;
        }
        let mut end = input.text.len().min(HEAD);
        while !input.text.is_char_boundary(end) {
            end -= 1;
        }
        if input.text[..end].lines().any(is_entry_line) {
            Some(Confidence::Content)
        } else {
            Some(Confidence::Likely)
        }
    }

    fn read(&self, text: &str, _: &ReadCtx) -> Result<Read, Diagnostic> {
        Ok(crate::read(text).into())
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        crate::write_mapped(pb, &ctx.sections, out)
    }

    fn rewrite(
        &self,
        src: &str,
        before: &ace_model::Before,
        after: &Playbook,
        _: &WriteCtx,
    ) -> Option<(ace_model::edit::Edits, WriteReport)> {
        crate::rewrite(src, before, after).map(|(edits, losses)| {
            (
                edits,
                WriteReport {
                    losses,
                    id_changes: Vec::new(),
                },
            )
        })
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            suppression_comments: true,
            ..LintProfile::default()
        }
    }
}

/// `[str-00001]`, `- [calc-014]`: a line that starts like a seed-000 entry.
fn is_entry_line(line: &str) -> bool {
    let l = line.trim_start();
    let l = l
        .strip_prefix("- ")
        .or_else(|| l.strip_prefix("* "))
        .unwrap_or(l);
    let Some(rest) = l.strip_prefix('[') else {
        return false;
    };
    let Some((id, _)) = rest.split_once(']') else {
        return false;
    };
    let Some((prefix, num)) = id.split_once('-') else {
        return false;
    };
    !prefix.is_empty()
        && prefix.bytes().all(|b| b.is_ascii_alphabetic())
        && !num.is_empty()
        && num.bytes().all(|b| b.is_ascii_digit())
}
