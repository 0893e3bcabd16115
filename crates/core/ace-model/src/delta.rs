//! The canonical form of a delta: what every dialect's reader (AceDelta,
//! AcePatch, the skill's delta, the paper's curator operations) turns its
//! file into, and what the apply engine applies. Like [`crate::Playbook`],
//! it knows no format: a dialect maps its fields onto entry fields here.

use crate::{rules, Entry, Span};

/// Which entry an operation is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// The entry with this ID.
    Id(String),
    /// The entry whose curator-spec hash (`section::normalized content`) is this:
    /// how ace_beads' `amend` and `deprecate` find their bullet.
    Key(String),
    /// No entry: the operation lacks the key (this one) its dialect names
    /// entries by. A dialect whose native tool passes such an operation
    /// over (kayba's `skill_id is None`) gives it this, so that the pass
    /// is said in the report rather than the operation dropped unread.
    Unnamed(&'static str),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Id(id) => write!(f, "`{id}`"),
            Target::Key(key) => write!(f, "the bullet with hash `{key}`"),
            Target::Unnamed(key) => write!(f, "no entry (no `{key}`)"),
        }
    }
}

impl Target {
    /// The ID a dialect that names entries by ID (`dialect`, for the
    /// message) writes for the target; `None` for an entry named by its
    /// hash, which such a dialect cannot name, with that said in `lost`.
    pub fn id_for(&self, dialect: &str, lost: &mut Vec<String>) -> Option<String> {
        match self {
            Target::Id(id) => Some(id.clone()),
            Target::Key(k) => {
                lost.push(format!(
                    "the entry with hash `{k}` has no ID for {dialect} to name"
                ));
                None
            }
            Target::Unnamed(key) => {
                lost.push(format!("an operation with no `{key}` names no entry"));
                None
            }
        }
    }
}

/// One change to a playbook.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A new entry. An empty ID asks for one in the playbook's own scheme.
    Add(Entry),
    /// Set the listed fields of the target to `from`'s values. Field names
    /// are the canonical model's (`content`, `tags`, `updated_at`, an
    /// extension field as `extra.NAME`); a field `from` lacks is removed.
    Set {
        target: Target,
        from: Box<Entry>,
        fields: Vec<String>,
    },
    /// Replace the target by `entry`, keeping its ID and section when
    /// `entry` has none (vAgenda's `updateEntry`).
    Replace { target: Target, entry: Box<Entry> },
    /// Add to the counters (`neutral`: kayba's third one).
    Count {
        target: Target,
        helpful: i64,
        harmful: i64,
        neutral: i64,
    },
    /// Append `values` to the list field `field` (`extra.NAME`), each
    /// unless the list holds it already: kayba's `insight_source` on an
    /// update, tag or removal, which joins the skill's `occurrences`.
    Append {
        target: Target,
        field: String,
        values: Vec<serde_json::Value>,
    },
    /// Mark the target deprecated (or remove it, in a format with no status).
    Deprecate {
        target: Target,
        reason: Option<String>,
    },
    /// Fold `merged` into `keep`: the skill spec's merge.
    Merge {
        keep: Target,
        merged: Vec<Target>,
        content: Option<String>,
    },
    /// Delete the target.
    Remove { target: Target },
}

impl Change {
    /// The entries the change reads or writes, other than one it adds.
    pub fn targets(&self) -> Vec<&Target> {
        match self {
            Change::Add(_) => Vec::new(),
            Change::Set { target, .. }
            | Change::Replace { target, .. }
            | Change::Count { target, .. }
            | Change::Append { target, .. }
            | Change::Deprecate { target, .. }
            | Change::Remove { target } => vec![target],
            Change::Merge { keep, merged, .. } => std::iter::once(keep).chain(merged).collect(),
        }
    }

    /// The name the reports use (`add`, `set`, `count`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Change::Add(_) => "add",
            Change::Set { .. } => "set",
            Change::Replace { .. } => "replace",
            Change::Count { .. } => "count",
            Change::Append { .. } => "append",
            Change::Deprecate { .. } => "deprecate",
            Change::Merge { .. } => "merge",
            Change::Remove { .. } => "remove",
        }
    }

    /// What a dialect (`dialect`, for the message) with helpful and
    /// harmful counters only and no list appends cannot say of the change:
    /// a neutral count, or an append.
    pub fn unsaid_by(&self, dialect: &str) -> Option<String> {
        match self {
            Change::Count {
                target, neutral, ..
            } if *neutral != 0 => Some(format!(
                "{target} counts {neutral:+} neutral, and {dialect} has no neutral counter"
            )),
            Change::Append { target, field, .. } => Some(format!(
                "{target} gains items in `{field}`, and {dialect} cannot append to a list"
            )),
            _ => None,
        }
    }

    /// The texts the change writes into the playbook, by field (as
    /// [`Entry::texts`] names them): what agents will read of it.
    pub fn texts(&self) -> Vec<(&str, &str)> {
        match self {
            Change::Add(e) => e.texts(),
            Change::Replace { entry, .. } => entry.texts(),
            Change::Set { from, fields, .. } => from
                .texts()
                .into_iter()
                .filter(|(f, _)| {
                    fields
                        .iter()
                        .any(|x| x == f || x.strip_prefix("extra.") == Some(f))
                })
                .collect(),
            Change::Append { field, values, .. } => values
                .iter()
                .filter_map(|v| v.as_str().map(|t| (field.as_str(), t)))
                .collect(),
            Change::Deprecate { reason, .. } => {
                reason.iter().map(|r| ("reason", r.as_str())).collect()
            }
            Change::Merge { content, .. } => {
                content.iter().map(|c| ("content", c.as_str())).collect()
            }
            Change::Count { .. } | Change::Remove { .. } => Vec::new(),
        }
    }

    /// Whether applying it in any order with other commuting changes gives
    /// the same playbook: the vAgenda ACE extension says appends and increments commute.
    pub fn commutes(&self) -> bool {
        matches!(self, Change::Add(_) | Change::Count { .. })
    }
}

/// A change and where the delta file states it.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub change: Change,
    pub span: Span,
}

/// Why a delta is refused: the curator spec's reason codes and three of ace-tools'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    Duplicate,
    LowEvidence,
    LowConfidence,
    Invalid,
    Conflict,
    UnknownId,
    AlreadyApplied,
}

impl Reason {
    pub fn code(self) -> &'static str {
        match self {
            Reason::Duplicate => "duplicate",
            Reason::LowEvidence => "low-evidence",
            Reason::LowConfidence => "low-confidence",
            Reason::Invalid => "invalid",
            Reason::Conflict => "conflict",
            Reason::UnknownId => "unknown-id",
            Reason::AlreadyApplied => "already-applied",
        }
    }

    pub const ALL: [Reason; 7] = [
        Reason::Duplicate,
        Reason::LowEvidence,
        Reason::LowConfidence,
        Reason::Invalid,
        Reason::Conflict,
        Reason::UnknownId,
        Reason::AlreadyApplied,
    ];
}

impl Reason {
    /// The reason a delta is refused for an error-level finding of rule
    /// `code` in it: the curator's own reasons where a rule is one of
    /// them, `invalid` for every other error.
    pub fn for_rule(code: &str) -> Reason {
        match code {
            c if c == rules::DELTA_LOW_CONFIDENCE.code => Reason::LowConfidence,
            c if c == rules::DELTA_LOW_EVIDENCE.code => Reason::LowEvidence,
            c if c == rules::DELTA_DUPLICATE.code => Reason::Duplicate,
            c if c == rules::DELTA_CONFLICT.code || c == rules::PATCH_UPDATE_CONFLICT.code => {
                Reason::Conflict
            }
            _ => Reason::Invalid,
        }
    }
}

/// A refusal found while reading a delta, before any playbook is seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub reason: Reason,
    pub message: String,
    pub span: Span,
}

/// How the engine applies a dialect's deltas beyond their canonical
/// changes: what the producer's spec adds (the curator's deduplication
/// and deprecation, the skill's stamps, the paper's filing under OTHERS).
/// A dialect declares its own (`DeltaDialect::rules`), and every delta
/// it reads carries them; a delta the tools make themselves (a
/// difference, a prune, a merge) has the plain ones, [`Rules::PLAIN`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rules {
    /// An operation on an ID the playbook lacks is passed over, not
    /// refused.
    pub skip_unknown_ids: bool,
    /// An added entry whose ID the playbook has replaces that entry, in
    /// its place, keeping its `created_at` when the new one has none:
    /// DannyMac180/ACE's `merge.apply_delta` overwrites by ID.
    pub add_replaces: bool,
    /// A new entry whose section and normalized text the playbook, or the
    /// delta, already has is refused.
    pub unique_text: bool,
    /// After the delta, each entry it touched is deprecated once its
    /// counters meet this rule.
    pub deprecate: Option<Deprecation>,
    /// The weight a section the delta adds is given.
    pub new_section_weight: Option<f64>,
    /// A section the playbook lacks is filed under the one whose title
    /// reads as this key, where the playbook has it.
    pub unknown_section_under: Option<&'static str>,
    /// A section the delta adds is titled in capitals, its key's `_` as
    /// spaces.
    pub capital_titles: bool,
    /// New entries are given the time of applying as `created_at` and
    /// `updated_at`, where the playbook's format keeps them.
    pub stamp_new: bool,
    /// The provenance a new entry comes with is kept only where the
    /// playbook's format keeps provenance.
    pub provenance_where_kept: bool,
    /// With `--compat skill-script`, the delta applies as the skill's
    /// `merge_deltas.py` does: kind by kind, merges appending, IDs it
    /// lacks passed over.
    pub script: bool,
    /// The playbook's `metadata.last_curated`, where it has one, is set
    /// to the time of applying.
    pub stamp_curated: bool,
    /// The scheme the entries it adds without an ID are numbered in,
    /// whatever the playbook's; `None`: the playbook's own.
    pub ids: Option<crate::mint::IdScheme>,
}

impl Rules {
    /// The canonical changes and nothing more.
    pub const PLAIN: Rules = Rules {
        skip_unknown_ids: false,
        add_replaces: false,
        unique_text: false,
        deprecate: None,
        new_section_weight: None,
        unknown_section_under: None,
        capital_titles: false,
        stamp_new: false,
        provenance_where_kept: false,
        script: false,
        stamp_curated: false,
        ids: None,
    };
}

/// When an entry a delta touched is deprecated: once harmful is at least
/// `factor` times helpful plus `offset`, and it was found harmful at
/// least once (the curator spec's "harmful > helpful" is factor 1, offset
/// 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deprecation {
    pub factor: i64,
    pub offset: i64,
}

impl Deprecation {
    /// Whether counters `helpful` and `harmful` meet the rule.
    pub fn met(self, helpful: i64, harmful: i64) -> bool {
        harmful > 0
            && harmful
                >= self
                    .factor
                    .saturating_mul(helpful)
                    .saturating_add(self.offset)
    }
}

/// One delta: the unit that is accepted or refused as a whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// The delta's own ID, when its dialect has one: what a playbook
    /// records to apply it exactly once.
    pub id: Option<String>,
    /// How it is applied: its dialect's rules.
    pub rules: Rules,
    /// Where the delta is in its file.
    pub span: Span,
    /// vAgenda's `baseDocumentSequence`.
    pub base_sequence: Option<i64>,
    /// The event of its target's log that the delta follows (the
    /// Playbooks extension's `prevEventId`), with that target's ID.
    pub base_event: Option<(String, String)>,
    /// When the delta was made, if it says.
    pub created_at: Option<String>,
    pub ops: Vec<Op>,
    /// What its reader found wrong with it: a delta with any is refused.
    pub refusals: Vec<Refusal>,
    /// The delta as its file holds it, for a playbook that keeps deltas as
    /// they came: an event of the Playbooks extension, which an event-log
    /// playbook appends as it is.
    pub raw: Option<serde_json::Value>,
}

impl Delta {
    /// A delta with the plain rules, which the registry replaces with
    /// its dialect's when it reads one.
    pub fn new(span: Span) -> Self {
        Delta {
            id: None,
            rules: Rules::PLAIN,
            span,
            base_sequence: None,
            base_event: None,
            created_at: None,
            ops: Vec::new(),
            refusals: Vec::new(),
            raw: None,
        }
    }

    /// A label for reports: its ID, else its place in the batch.
    pub fn label(&self, index: usize) -> String {
        self.id.clone().unwrap_or_else(|| format!("#{}", index + 1))
    }

    pub fn refuse(&mut self, reason: Reason, span: Span, message: impl Into<String>) {
        self.refusals.push(Refusal {
            reason,
            message: message.into(),
            span,
        });
    }
}

/// The entry fields [`copy_field`] knows, by their canonical names; an
/// extension field is `extra.NAME` besides these.
pub const FIELDS: [&str; 22] = [
    "id",
    "section",
    "kind",
    "content",
    "helpful",
    "harmful",
    "title",
    "tags",
    "evidence",
    "confidence",
    "neutral",
    "status",
    "deprecation_reason",
    "created_at",
    "updated_at",
    "supersedes",
    "superseded_by",
    "duplicate_of",
    "links",
    "provenance",
    "scope",
    "project_id",
];

/// Copies `field` (a canonical field name, or `extra.NAME`) from `from` to
/// `to`; a field `from` lacks is removed from `to`. `false` for a name the
/// model does not have.
pub fn copy_field(to: &mut Entry, from: &Entry, field: &str) -> bool {
    match field {
        "id" => to.id = from.id.clone(),
        "section" => to.section = from.section.clone(),
        "kind" => to.kind = from.kind.clone(),
        "content" => to.content = from.content.clone(),
        "helpful" => to.helpful = from.helpful,
        "harmful" => to.harmful = from.harmful,
        "title" => to.title = from.title.clone(),
        "tags" => to.tags = from.tags.clone(),
        "evidence" => to.evidence = from.evidence.clone(),
        "confidence" => to.confidence = from.confidence.clone(),
        "neutral" => to.neutral = from.neutral,
        "status" => to.status = from.status.clone(),
        "deprecation_reason" => to.deprecation_reason = from.deprecation_reason.clone(),
        "created_at" => to.created_at = from.created_at.clone(),
        "updated_at" => to.updated_at = from.updated_at.clone(),
        "supersedes" => to.supersedes = from.supersedes.clone(),
        "superseded_by" => to.superseded_by = from.superseded_by.clone(),
        "duplicate_of" => to.duplicate_of = from.duplicate_of.clone(),
        "links" => to.links = from.links.clone(),
        "provenance" => to.provenance = from.provenance.clone(),
        "scope" => to.scope = from.scope.clone(),
        "project_id" => to.project_id = from.project_id.clone(),
        other => {
            let Some(name) = other.strip_prefix("extra.") else {
                return false;
            };
            match from.extra.get(name) {
                Some(v) => {
                    to.extra.insert(name.to_owned(), v.clone());
                }
                None => {
                    if to.extra.contains_key(name) {
                        to.extra.remove(name);
                    }
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field listed is one `copy_field` knows, and copying each from
    /// an entry that has them all makes an empty entry that entry.
    #[test]
    fn the_field_list_is_every_field_copy_field_knows() {
        let full: Entry = serde_json::from_value(serde_json::json!({
            "id": "x", "section": "s", "kind": "rule", "content": "c",
            "helpful": 1, "harmful": 2, "title": "t", "tags": ["a"],
            "evidence": [{"ref": "r"}], "confidence": 0.5, "neutral": 3,
            "status": "deprecated", "deprecation_reason": "why",
            "created_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-02T00:00:00Z",
            "supersedes": ["y"], "superseded_by": "z", "duplicate_of": "w",
            "links": ["l"], "provenance": {"delta_id": "d"}, "scope": "global",
            "project_id": "pr"
        }))
        .expect("a full entry");
        let mut empty = Entry::default();
        for f in FIELDS {
            assert!(copy_field(&mut empty, &full, f), "{f}");
        }
        assert_eq!(empty, full);
        assert!(!copy_field(&mut empty, &full, "no_such_field"));
    }
}
