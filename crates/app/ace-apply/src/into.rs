//! A playbook rendered for a managed block (`ace-convert --into`,
//! `ace_tools.render`): the block's text in a style, within a token budget
//! when one is given.

use ace_check::budget::Budget;
use ace_model::{Playbook, WriteReport};
use ace_registry::block::{self, Style};
use ace_registry::WriteCtx;

use crate::prune::Pruned;

/// A block's content as it will stand between the markers.
#[derive(Debug)]
pub struct Rendered {
    /// The text between the markers, with the host's line breaks.
    pub content: String,
    /// What the style could not hold.
    pub report: WriteReport,
    /// Entries left out: those not active, then those the budget has no
    /// room for, best last.
    pub left_out: Vec<Pruned>,
    /// The content's tokens, when a budget counted them.
    pub tokens: Option<usize>,
    /// The budget's limit and encoding, when there was one.
    pub limit: Option<(usize, ace_tokens::Encoding)>,
    /// The entries the block holds.
    pub entries: usize,
}

/// The budget of a block of at most `max_tokens` tokens of `tokenizer`
/// (cl100k_base by default): the flag's alone, not ace.toml's, which is
/// the playbook file's.
pub fn budget(max_tokens: usize, tokenizer: Option<ace_tokens::Encoding>) -> Budget {
    Budget {
        encoding: tokenizer.unwrap_or_default(),
        whole: ace_check::budget::Limits {
            max_tokens: Some(max_tokens),
            max_entries: None,
        },
        sections: Vec::new(),
    }
}

impl Rendered {
    /// Why the block cannot be written: over its budget even with every
    /// entry left out (its headings alone do not fit).
    pub fn over_budget(&self) -> Option<String> {
        let ((max, enc), tokens) = (self.limit?, self.tokens?);
        (tokens > max).then(|| {
            format!(
                "the block holds {tokens} tokens ({}) with {} entries, over the budget of {max}",
                enc.name(),
                self.entries
            )
        })
    }
}

/// `pb` in `style` for the block of `host` (the context file's text,
/// whose line breaks the content takes). With a budget, the best entries
/// that fit: counted exactly, on the text as it will be written.
pub fn render(
    pb: &Playbook,
    style: Style,
    ctx: &WriteCtx,
    host: &str,
    budget: Option<&Budget>,
) -> Rendered {
    let text_of = |pb: &Playbook| {
        let (content, report) = block::render(pb, style, ctx);
        (ace_block::as_written(host, &content), report)
    };
    // An entry deprecated, archived or switched off is no advice to
    // follow: the block holds the active entries.
    let (kept, left_out) = match budget {
        Some(b) if b.whole.max_tokens.is_some() => {
            crate::prune::fit(pb, b, |cand| b.encoding.count(&text_of(cand).0))
        }
        _ => {
            let mut kept = pb.clone();
            let mut left_out = Vec::new();
            kept.entries.retain(|e| {
                let retired = ace_check::budget::retired(e);
                if retired {
                    left_out.push(Pruned {
                        id: e.id.clone(),
                        section: e.section.clone(),
                        why: crate::prune::Why::Retired,
                        deprecated: false,
                    });
                }
                !retired
            });
            (kept, left_out)
        }
    };
    let (content, report) = text_of(&kept);
    Rendered {
        tokens: budget.map(|b| b.encoding.count(&content)),
        limit: budget.and_then(|b| Some((b.whole.max_tokens?, b.encoding))),
        entries: kept.entries.len(),
        content,
        report,
        left_out,
    }
}
