//! Reading a skill playbook; the bullets are read by [`crate::bullets`].

use ace_model::{rules, Diagnostic, ReadOutput, Severity};

/// Reads a skill playbook: `{version, schema_version, last_updated,
/// bullets: [...], metadata?}` or a bare array of bullets. Only JSON that
/// does not parse is an error.
pub fn read(text: &str) -> Result<ReadOutput, Diagnostic> {
    read_with(text, Severity::Info)
}

/// [`read`] for a caller that wants findings of severity `min` and above
/// only: the bullet schema checks (warnings, and most of a read's time on a
/// file that breaks its schema) are left out below `Warning`. The
/// playbook read is the same.
pub fn read_with(text: &str, min: Severity) -> Result<ReadOutput, Diagnostic> {
    read_classified(text, min).map(|(out, _, _)| out)
}

/// [`read_with`], and what [`crate::sniff`] says the text is, found from
/// the same parse: a caller that refuses deltas need not parse a large
/// playbook twice to learn it is not one. A delta read this way is read as
/// a playbook; only the kind is of use then. Last, the keys of the root
/// object with the first byte of each value ([`ace_format::Read::top`]).
pub fn read_classified(text: &str, min: Severity) -> Result<crate::Classified, Diagnostic> {
    crate::bullets::read(text, rules::PLAYBOOK_SCHEMA.severity >= min)
}
