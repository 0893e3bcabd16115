//! The ACE skill's `playbook.json` (the skill spec, jmanhype/claude-code-plugin-marketplace)
//! and its delta files.
//!
//! A playbook is `{version, schema_version, last_updated, bullets: [...],
//! metadata?}` or a bare array of bullets; bullets follow one of two
//! incompatible schema generations (see `ace_schema::Generation`). Reading
//! keeps every key, its order and the file's JSON layout, so that an
//! unchanged playbook is written back byte for byte; the mapping to the model
//! is documented in docs/formats/skill-json.md. Deltas are recognised and
//! checked ([`delta`]), not applied.

mod bullets;
mod checks;
mod conform;
pub mod delta;
mod fields;
mod format;
mod keep;
mod layout;
pub mod ops;
mod parts;
mod read;
mod style;
mod writer;

pub use ace_model::ReadOutput;
pub use ace_schema::Generation;
pub use delta::{check as check_delta, kind_of, sniff, DocumentKind};
pub use format::{Deltas, SkillDeltas, SkillJson, DELTAS, FORMAT, GENERATION, SKILL_DELTA};
pub use read::{read, read_classified, read_with};
pub use writer::{write, write_into, write_with, WriteOptions, WriteOutput};

/// A read ([`read_classified`]), what the text is ([`sniff`]'s kind), and
/// its root object's keys.
pub type Classified = (ReadOutput, DocumentKind, Option<ace_format::TopKeys>);

/// The playbook `extra` key that holds the file's layout.
pub const LAYOUT_KEY: &str = "skill_json";

/// The key of the playbook's `metadata` where what another format gave
/// and a skill playbook has no field for is kept: the section table
/// (`sections`, each section's canonical object) and a `version` that
/// means something else than the skill's (playbook.yaml's `0.3`). A
/// bullet's section is then its first tag (the section key in the tag
/// alphabet). The skill spec's merge updates `metadata` key by key, so the
/// object survives the skill's own tools.
pub const ACE_TOOLS_KEY: &str = "ace_tools";
