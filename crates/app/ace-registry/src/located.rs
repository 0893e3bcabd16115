//! What reading a playbook location gives, whether a database or
//! ace_claude_mcp's folder of project files.

use ace_fs::Source;
use ace_model::Playbook;

use crate::Parsed;

/// A location read: a source for the reports (named by the
/// location, its text the listing of the rows that findings point into),
/// the playbook and the reader's findings, and which convention-bound lint
/// rules hold for its rows (its schema's, or its files' format's).
pub struct StoreInput {
    pub source: Source,
    pub parsed: Parsed,
    pub lint: crate::LintProfile,
}

/// What [`crate::store::update`]'s change is given: the playbook read under the write
/// lock, the listing its findings point into, the reader's findings, and
/// how the location's playbooks are curated.
pub struct Reading {
    pub playbook: Playbook,
    pub listing: String,
    pub diagnostics: Vec<ace_model::Diagnostic>,
    pub curation: ace_format::Curation,
}
