//! The kayba ace-framework's skillbook (`pip install ace-framework`,
//! `Skillbook.save_to_file`): `{"skills": {ID: skill}, "sections":
//! {SECTION: [ID, ...]}, "next_id": N, "similarity_decisions": {...}}`,
//! saved by `json.dumps(indent=2, ensure_ascii=False)`. Releases before 0.7
//! called skills bullets (`{"bullets": {...}}`, the playbook era); both are
//! read, and a file is written back in the era it was read in.
//!
//! Reading keeps the file's key orders, its `null`s and its index, so that
//! an unchanged file is written back byte for byte. A skillbook written
//! from another format is what the framework saves, with what it has no
//! field for reported. The mapping is in docs/formats/skillbook.md.

mod format;
mod read;
mod stream;
mod write;

pub use format::{Skillbook, FORMAT};
pub use read::{read, read_data, read_with};
pub use write::{write, write_into};

/// The owner name of the layout a skillbook is read with.
pub const LAYOUT_KEY: &str = "skillbook";

/// A skill's keys as the framework saves them (0.8 to 0.9), in its order:
/// the order of a new file.
pub(crate) const SKILL_KEYS: [&str; 13] = [
    "id",
    "section",
    "content",
    "justification",
    "evidence",
    "helpful",
    "harmful",
    "neutral",
    "created_at",
    "updated_at",
    "embedding",
    "status",
    "sources",
];

/// The keys of a skill the model holds no field for: kept in the entry's
/// `extra` under the same names.
pub(crate) const EXTRA_KEYS: [&str; 3] = ["justification", "embedding", "sources"];

/// The top-level keys the framework saves, in its order.
pub(crate) const TOP_KEYS: [&str; 4] = ["skills", "sections", "next_id", "similarity_decisions"];
