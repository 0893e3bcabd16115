//! vAgenda / vContext documents with a playbook (the vAgenda ACE extension, the ACE
//! extension, and its successor the Playbooks extension), in JSON and TRON.
//!
//! Reading maps `playbook.entries` to the model and keeps the rest of the
//! document (items, phases, narratives, change log, unknown keys) as the
//! playbook's layout, owned by [`LAYOUT_KEY`], so that vAgenda -> vAgenda
//! (JSON or TRON) changes only what the user changed; no other format's
//! writer sees it. The mapping is documented in
//! docs/formats/vagenda.md.

mod entry;
mod events;
mod format;
mod metrics;
pub mod ops;
mod patch;
mod plain;
mod reader;
mod splice;
mod types;
mod writer;

pub use ace_model::ReadOutput;
pub use ace_schema::vagenda::Version;
pub use ace_tron::RootStyle;
pub use format::{
    AcePatches, Events, Patches, Vagenda, ACEPATCH, CONTAINER, EVENTS, JSON, JSON_PATCHES, TRON,
    TRON_PATCHES, TRON_ROOT,
};
pub use patch::{
    append_events, check_patch, document_sequence, event_heads, log_changes, logged_deltas,
    set_document_sequence, Target,
};
pub use reader::{kind_of, read, read_classified, read_mapped, DocKind};
pub use writer::{write, write_into, Container, WriteOptions, WriteOutput};

/// The playbook `extra` key that holds the rest of the document.
pub const LAYOUT_KEY: &str = "vagenda";

/// The key, in a vAgenda `metadata` object, under which ace-tools keeps what
/// another format had and vAgenda has no field for, so that X -> vAgenda ->
/// X gives X back.
pub const ACE_TOOLS_KEY: &str = "aceTools";

/// Removes every `null` that stands for an absent typed field of a vAgenda
/// document, patch or playbook (notes §5), leaving nulls inside free-form
/// values (`metadata`, `oldValue`, unknown fields) alone.
pub fn drop_absent_nulls(doc: &mut serde_json::Value) {
    let ty = match reader::classify_value(doc) {
        Some(DocKind::Document { .. }) => types::Ty::Root,
        Some(DocKind::Patch) => types::Ty::PlaybookPatch,
        Some(DocKind::PatchOp) => types::Ty::PlaybookPatchOp,
        Some(DocKind::Playbook) => types::Ty::Playbook,
        Some(DocKind::Entry) => types::Ty::PlaybookEntry,
        Some(DocKind::Event) => types::Ty::PlaybookItem,
        None => return,
    };
    types::drop_absent_nulls(doc, ty);
}

/// How a document is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    #[default]
    Json,
    Tron,
}
