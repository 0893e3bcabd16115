//! The ACE curator's `knowledge/playbook.yaml` (the curator spec, sjarmak/ace_beads)
//! and its extension to whole playbooks:
//!
//! ```yaml
//! version: 0.3
//! sections:
//!   - id: "node/tooling"
//!     weight: 0.6
//! ```
//!
//! The curator's file holds only a version and section weights. The same
//! shape with `title`, section fields and an `entries` list holds a whole
//! playbook with no loss (docs/formats/playbook-yaml.md). Parsing is
//! serde-saphyr's: duplicate keys are errors and alias expansion is budgeted.
//! Output is our own emitter, so that it is deterministic and keeps the
//! curator's style (`id: "..."` quoted, numbers as read).

mod emit;
mod format;
mod raw;
mod reader;

pub use ace_model::ReadOutput;
pub use format::{PlaybookYaml, FORMAT};
pub use reader::read;

use ace_model::{LossEntry, Playbook};

/// The owner of the layout a read keeps: the plain scalars of unknown
/// keys, which a rewrite writes back as they were.
pub const LAYOUT_KEY: &str = "playbook-yaml";

/// The weight the curator spec gives a section that has none.
pub const DEFAULT_WEIGHT: f64 = 0.5;

/// The text and what it could not hold.
#[derive(Debug, Clone, Default)]
pub struct WriteOutput {
    pub text: String,
    pub losses: Vec<LossEntry>,
}

/// What to write: the whole playbook, or only what the curator keeps in
/// playbook.yaml when AGENTS.md beside it holds the bullets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Full,
    CuratorSections,
}

pub fn write(pb: &Playbook) -> WriteOutput {
    emit::write(pb, Scope::Full)
}

/// The curator's file: `version`, section ids and weights, and any unknown
/// keys; titles, descriptions and entries are left to AGENTS.md.
pub fn write_sections(pb: &Playbook) -> WriteOutput {
    emit::write(pb, Scope::CuratorSections)
}

/// The sections the curator's file lists, in order. Sections with a weight
/// keep the model's order. When no section has one (a playbook from a format
/// without weights), every section is listed, sorted by id, with the default
/// weight. Otherwise sections without a weight are left out: adding them would
/// change the weights the curator sees, and ace-validate reports them
/// (ACE030) instead.
pub fn listed_sections(pb: &Playbook) -> Vec<&ace_model::Section> {
    if pb.sections.iter().any(|s| s.weight.is_some()) {
        pb.sections.iter().filter(|s| s.weight.is_some()).collect()
    } else {
        let mut all: Vec<&ace_model::Section> = pb.sections.iter().collect();
        all.sort_by(|a, b| a.key.cmp(&b.key));
        all
    }
}
