//! The kayba ace-framework's skillbook (`pip install ace-framework`,
//! `Skillbook.save_to_file`), in each of its eras ([`Era`]): `{"bullets":
//! {...}}` before 0.7, `{"skills": {ID: skill}, "sections": {SECTION: [ID,
//! ...]}, "next_id": N, "similarity_decisions": {...}}` from 0.7 (with
//! counters to 0.8, without in 0.9 and 0.10), and v2 from 0.12
//! (`schema_version` "2", skills of `issue`, `insight`, `keywords`,
//! `occurrences`, `active` and `*_count`), each saved by
//! `json.dumps(indent=2, ensure_ascii=False)`. Every era is read, and a
//! file is written back in the era it was read in.
//!
//! Reading keeps the file's key orders, its `null`s and its index, so that
//! an unchanged file is written back byte for byte. A skillbook written
//! from another format, or into another era, is what that release saves,
//! with what it has no field for reported. The mapping is in
//! docs/formats/skillbook.md.

mod apart;
mod batch;
mod cursor;
mod era;
mod format;
mod lint;
mod member;
mod read;
mod skill;
mod write;

pub use batch::{insight_source, read_batches, write_batch, Generation};
pub use era::Era;
pub use format::{KaybaBatches, KAYBA_BATCH};
pub use format::{Skillbook, FORMAT, VERSION};
pub use read::{read, read_data, read_with};
pub use write::{era_written, write, write_into, write_with, Options};

/// The `schema_version` of the skillbook kayba 0.12 and later save.
pub const SCHEMA_VERSION: &str = "2";

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

/// A v2 skill's keys as kayba 0.12 and later save it (`asdict` without
/// `embedding`), in its order.
pub(crate) const V2_KEYS: [&str; 13] = [
    "id",
    "section",
    "keywords",
    "issue",
    "insight",
    "occurrences",
    "active",
    "used_count",
    "helpful_count",
    "harmful_count",
    "neutral_count",
    "created_at",
    "updated_at",
];
