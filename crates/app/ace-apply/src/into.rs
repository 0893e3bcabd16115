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
        (block::as_written(host, &content), report)
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

/// What `ace-convert --into FILE` asks for.
pub struct IntoFile<'a> {
    pub file: &'a std::path::Path,
    /// The style asked for; else the block's own, else the prompt form.
    pub style: Option<Style>,
    pub budget: Option<Budget>,
    /// How long to wait for another process's update of the file.
    pub lock_timeout: std::time::Duration,
    /// Replace a read-only file or one with other hard links.
    pub force: bool,
}

/// Why a block was not written.
#[derive(Debug)]
pub enum IntoError {
    /// The file cannot be read, locked or written, or is outside the write
    /// scope.
    Io(ace_model::Error),
    /// The file's markers do not make one block: the finding, at its
    /// line in `host`.
    Markers {
        host: String,
        finding: Box<ace_model::Diagnostic>,
    },
    /// `strict` and the style cannot hold everything.
    Lossy { lost: usize, style: Style },
    /// Over the budget with every entry left out.
    OverBudget(String),
}

/// A block rendered for a file, the file locked, ready to write
/// ([`Planned::write`]).
pub struct Planned {
    held: ace_fs::Held,
    host: String,
    block: Option<block::Block>,
    pub style: Style,
    pub rendered: Rendered,
}

/// `pb` rendered into the managed block of `req.file`, the file locked
/// from its read until [`Planned::write`] renames the new text over it,
/// so that concurrent updates each see the one before. The block is an
/// agent's own write, as ace-apply's are: ace.toml's `[apply]
/// write-scope` bounds it the same way. Unsound markers stop it before
/// anything is written.
pub fn plan(pb: &Playbook, req: &IntoFile<'_>, ctx: &WriteCtx) -> Result<Planned, IntoError> {
    let loaded = ace_check::run::configuration(None, false).map_err(IntoError::Io)?;
    if let Some(scope) = ace_config::WriteScope::of(&[], &loaded).map_err(IntoError::Io)? {
        scope.check(req.file).map_err(IntoError::Io)?;
    }
    let held = ace_fs::Held::lock(&[req.file], req.lock_timeout)
        .map_err(|e| IntoError::Io(e.into()))?
        .forcing(req.force);
    let host = match ace_fs::load(req.file) {
        Ok(source) => String::from(&*source.text),
        Err(ace_fs::LoadError::NotFound(_)) => String::new(),
        Err(e) => return Err(IntoError::Io(e.into())),
    };
    let block = match block::place(&host) {
        Ok(b) => b,
        Err(e) => {
            return Err(IntoError::Markers {
                finding: Box::new(block::marker_diagnostic(&e)),
                host,
            })
        }
    };
    let style = req
        .style
        .or_else(|| {
            let b = block.as_ref()?;
            let inner = &host[b.inner.clone()];
            (!inner.trim().is_empty()).then(|| Style::of(inner))
        })
        .unwrap_or(Style::Prompt);
    let rendered = render(pb, style, ctx, &host, req.budget.as_ref());
    Ok(Planned {
        held,
        host,
        block,
        style,
        rendered,
    })
}

impl Planned {
    /// Writes the block into `file` unless `strict` and something is lost,
    /// or the block is over its budget; whether the file changed.
    pub fn write(self, file: &std::path::Path, strict: bool) -> Result<bool, IntoError> {
        let lost = self
            .rendered
            .report
            .losses
            .iter()
            .filter(|l| l.loses())
            .count();
        if strict && lost > 0 {
            return Err(IntoError::Lossy {
                lost,
                style: self.style,
            });
        }
        if let Some(why) = self.rendered.over_budget() {
            return Err(IntoError::OverBudget(why));
        }
        let text = block::splice(&self.host, self.block.as_ref(), &self.rendered.content);
        if text == self.host && file.exists() {
            return Ok(false);
        }
        let io = |e: &dyn std::fmt::Display, what: &std::path::Path| {
            IntoError::Io(ace_model::Error::io(what, e))
        };
        // A new rule file in a folder not made yet (.cursor/rules/).
        if let Some(dir) = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.exists())
        {
            std::fs::create_dir_all(dir).map_err(|e| io(&e, dir))?;
        }
        ace_fs::write_atomic(file, text.as_bytes(), Some(&self.held)).map_err(|e| io(&e, file))?;
        Ok(true)
    }
}
