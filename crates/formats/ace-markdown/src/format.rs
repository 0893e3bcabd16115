//! The markdown playbook, and the paper's curator operations, in the
//! registry.

use ace_exec::Out;
use ace_format::{
    Confidence, Curation, DeltaDialect, DeltaReadCtx, LintProfile, PlaybookFormat, Read, ReadCtx,
    Sniff, Syntax, WriteCtx,
};
use ace_model::delta::{Delta, Rules};
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
        if ace_format::head(input.text, HEAD)
            .lines()
            .any(is_entry_line)
        {
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

    /// The playbook format's `prefix-NNNNN` IDs; a line-based file with no
    /// bookkeeping fields.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            line_based: true,
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            suppression_comments: true,
            ..LintProfile::default()
        }
    }
}

/// `[str-00001]`, `- [calc-014]`: a line that starts like a playbook-format entry.
fn is_entry_line(line: &str) -> bool {
    let l = line.trim_start();
    let l = l
        .strip_prefix("- ")
        .or_else(|| l.strip_prefix("* "))
        .unwrap_or(l);
    let Some(rest) = l.strip_prefix('[') else {
        return false;
    };
    let Some((id, after)) = rest.split_once(']') else {
        return false;
    };
    // Counters say it whatever the ID (`[s6] helpful=1 harmful=0 :: ...`).
    if !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && after.trim_start().starts_with("helpful=")
    {
        return true;
    }
    let Some((prefix, num)) = id.split_once('-') else {
        return false;
    };
    !prefix.is_empty()
        && prefix.bytes().all(|b| b.is_ascii_alphabetic())
        && !num.is_empty()
        && num.bytes().all(|b| b.is_ascii_digit())
}

/// The paper's curator operations, the markdown playbook's own deltas, as
/// a delta dialect.
pub struct CuratorOps;

pub static CURATOR_OPS: CuratorOps = CuratorOps;

impl DeltaDialect for CuratorOps {
    /// The paper's code: a section the playbook lacks is filed under
    /// OTHERS, where it has one; a new section is titled in capitals.
    fn rules(&self) -> Rules {
        Rules {
            unknown_section_under: Some("others"),
            capital_titles: true,
            ..Rules::PLAIN
        }
    }

    fn name(&self) -> &'static str {
        "curator-ops"
    }

    fn describe(&self) -> &'static str {
        "the paper's curator operations (operation_type), JSON or JSON Lines"
    }

    fn what(&self) -> &'static str {
        "the paper's curator operations"
    }

    /// Every operation names its type: a text without the key holds none.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        memchr::memmem::find(input.text.as_bytes(), b"\"operation_type\"")
            .map(|_| Confidence::Marker)
    }

    fn read(&self, text: &str, _: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        crate::ops::read_operations(text)
    }
}
