//! What the curator (`ace-apply`, `ace-merge`) needs to know of a playbook
//! format, told by the format itself ([`crate::PlaybookFormat::curation`])
//! so that no tool compares format names.

use std::collections::HashMap;

use ace_model::Playbook;

pub use ace_model::mint::IdScheme;

/// The pairs of entry IDs a playbook keeps apart on purpose.
pub type KeptApart = fn(&ace_model::Playbook) -> Vec<(String, String)>;

/// Completes the entries a delta added to a playbook; returns what it
/// took off them.
pub type CompleteNew = fn(&Playbook, Vec<&mut ace_model::Entry>) -> Vec<ace_model::LossEntry>;

/// Whether a format's schema refuses a field a delta sets (the field's
/// name, as `Change::Set` gives it) from an entry (the second) on an entry
/// the file holds (the first): the loss to report when it does.
pub type RefuseSet = fn(&ace_model::Entry, &ace_model::Entry, &str) -> Option<ace_model::LossEntry>;

/// What the curator needs of a format's files.
#[derive(Clone, Copy, Default)]
pub struct Curation {
    pub ids: IdScheme,
    /// Entries have a status: a deprecation sets it. Without one, a
    /// deprecated or merged-away entry is removed.
    pub status: bool,
    /// Entries keep provenance, where `ace-apply` records the ID of the
    /// delta that added or amended them.
    pub provenance: bool,
    /// Entries keep `created_at` and `updated_at`.
    pub timestamps: bool,
    /// The file is read line by line and lines it does not know are kept
    /// as prose: a merge conflict goes between git's markers, which in
    /// JSON, YAML or TRON would break the file.
    pub line_based: bool,
    /// Where the format records the deltas applied to a playbook, beyond
    /// entry provenance.
    pub ledger: Option<&'static dyn Ledger>,
    /// The number the file's own counter gave last (kayba's `next_id`),
    /// for a shared [`IdScheme`]: the next new entry takes the one after.
    pub counter: Option<fn(&ace_model::Playbook) -> u64>,
    /// Pairs of entry IDs the file records as kept apart on purpose
    /// (kayba's `similarity_decisions` of `KEEP`): de-duplication never
    /// merges them.
    pub kept_apart: Option<KeptApart>,
    /// The file is one list in the order its project's store keeps, which
    /// appends: a new entry goes after every other, not after the last of
    /// its section.
    pub appends: bool,
    /// The delta dialect that speaks of this format's files, by name: what
    /// `ace-apply --emit-delta` writes unless told otherwise.
    pub dialect: Option<&'static str>,
    /// Fills in what this format requires of the entries a delta added
    /// and the delta did not give (the skill's title and tags), and takes
    /// off what the format's schema refuses on them (another producer's
    /// fields), returning what it took as losses.
    pub complete_new: Option<CompleteNew>,
    /// Names the fields a delta sets on an entry the file holds that the
    /// format's schema refuses (another producer's fields): the entry
    /// keeps what it had, and each is reported as a loss.
    pub refuse_set: Option<RefuseSet>,
    /// How the format derives an entry's title from its content, where it
    /// does (the skill's bullets need one): a title that is the
    /// derivation of the old content follows a delta's new content.
    pub title_of: Option<fn(&str) -> String>,
}

impl std::fmt::Debug for Curation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Curation")
            .field("ids", &self.ids)
            .field("status", &self.status)
            .field("provenance", &self.provenance)
            .field("timestamps", &self.timestamps)
            .field("line_based", &self.line_based)
            .field("ledger", &self.ledger.is_some())
            .field("complete_new", &self.complete_new.is_some())
            .field("refuse_set", &self.refuse_set.is_some())
            .field("title_of", &self.title_of.is_some())
            .finish()
    }
}

/// A delta that changed the playbook, for the format's record of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedDelta {
    pub id: Option<String>,
    /// The document's sequence once the delta was applied, in a format
    /// that keeps one.
    pub sequence: Option<i64>,
    /// How many operations it applied.
    pub ops: usize,
}

/// A format's own record of the deltas applied to a playbook (the skill's
/// `metadata.applied_deltas`, a vAgenda document's change log), and the
/// document state a delta may be checked against.
pub trait Ledger: Sync {
    /// The IDs of the deltas `pb` records as applied.
    fn applied(&self, pb: &Playbook) -> Vec<String>;

    /// Records `applied`, in the order they were applied, at time `now`.
    fn record(&self, pb: &mut Playbook, applied: &[AppliedDelta], now: &str);

    /// The document's sequence, which a patch's `baseDocumentSequence` is
    /// checked against, when the playbook was read with one.
    fn sequence(&self, _pb: &Playbook) -> Option<i64> {
        None
    }

    /// Sets the document's sequence after a batch moved it on.
    fn set_sequence(&self, _pb: &mut Playbook, _sequence: i64) {}

    /// The last event of each target, when the playbook was read from an
    /// event log: what an event's `prevEventId` is checked against.
    fn event_heads(&self, _pb: &Playbook) -> Option<HashMap<String, String>> {
        None
    }

    /// Appends applied events to the playbook's event log, as they came.
    fn append_events(&self, _pb: &mut Playbook, _events: Vec<serde_json::Value>) {}

    /// IDs the playbook's store holds outside the playbook read (another
    /// project's rows in a table keyed by ID), which a new entry must not
    /// take.
    fn reserved(&self, _pb: &Playbook) -> Vec<String> {
        Vec::new()
    }
}
