//! What a writer could not carry into its target format.

use std::borrow::Cow;

use serde::Serialize;
use smol_str::SmolStr;

/// One piece of information a conversion drops or alters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LossEntry {
    /// A loss rule code from [`crate::rules`] (`ACE1xx`).
    pub code: &'static str,
    /// The entry concerned, if the loss is on an entry. IDs are short and a
    /// conversion can report several losses per entry: held inline up to
    /// 23 bytes, an ID costs no allocation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<SmolStr>,
    /// Dotted path of the field (`title`, `sections[str].weight`, ...).
    /// Borrowed where it is a fixed name, as the reason nearly always is:
    /// a conversion of a large playbook reports a loss or two per entry,
    /// and neither string is allocated for it.
    pub field: Cow<'static, str>,
    pub reason: Cow<'static, str>,
}

impl LossEntry {
    pub fn new(
        rule: &crate::rules::Rule,
        entry_id: Option<&str>,
        field: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Self {
        LossEntry {
            code: rule.code,
            entry_id: entry_id.map(SmolStr::new),
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// Whether something was lost: a value derived from the entry (ACE107)
    /// is reported, but loses nothing, and `--strict` lets it pass.
    pub fn loses(&self) -> bool {
        self.code != crate::rules::VALUE_DERIVED.code
    }
}

/// How a writer records what it could not carry: `losses.lose(rule,
/// entry, field, why)` on the list it reports.
pub trait Losses {
    fn lose(
        &mut self,
        rule: &crate::rules::Rule,
        entry_id: Option<&str>,
        field: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    );
}

impl Losses for Vec<LossEntry> {
    fn lose(
        &mut self,
        rule: &crate::rules::Rule,
        entry_id: Option<&str>,
        field: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) {
        self.push(LossEntry::new(rule, entry_id, field, reason));
    }
}

/// What a writer reports besides its text.
#[derive(Debug, Clone, Default)]
pub struct WriteReport {
    /// What the target could not hold.
    pub losses: Vec<LossEntry>,
    /// Entries whose IDs the target cannot hold, with the IDs they got.
    pub id_changes: Vec<crate::ids::IdChange>,
}
