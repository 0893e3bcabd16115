//! ACE curator bullets in AGENTS.md (the curator spec, sjarmak/ace_beads):
//!
//! ```text
//! ## build/patterns
//!
//! [Bullet #a1054514, helpful:3, harmful:0] Run the build before the tests
//! <!-- deltaId=..., beadsId=bead-42, createdAt=..., hash=build/patterns::run the build before the tests -->
//! ```
//!
//! AGENTS.md is a human document first: bullets live among prose, other
//! headings, comments and code. The reader keeps everything that is not a
//! bullet as a *layout* (the playbook's layout slot, owned by
//! [`LAYOUT_KEY`]); the writer puts the model's bullets back into that layout,
//! so an edit changes only the bullets and a no-op rewrite is byte-identical.
//! Without a layout of its own (a conversion from another format) the writer
//! produces the seed's layout.

mod bullet;
mod format;
mod layout;
mod reader;
mod writer;

pub use ace_model::ReadOutput;
pub use format::{AgentsMd, FILE_NAMES, FORMAT};
pub use reader::read;
pub use writer::{write, write_beside, write_into, WriteOutput};

/// `Playbook::extra` key holding the document around the bullets.
pub const LAYOUT_KEY: &str = "agents_md";

/// `Entry::extra` key for bracket fields the seed does not define.
pub const BULLET_FIELDS_KEY: &str = "bullet_fields";
