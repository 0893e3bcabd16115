//! The deterministic curator: reads deltas of every ACE dialect into the
//! canonical [`Delta`] and applies them to a [`Playbook`] by the rules of
//! the dialect's spec. Each delta is checked first and applied whole or
//! not at all. The playbook's format is a caller's business: what the
//! engine needs of it (does it hold a status, provenance, timestamps) is
//! told in [`Traits`], and the caller writes the result with the format's
//! layout-keeping writer.

pub mod diff;
mod engine;
mod ids;
pub mod merge;

use std::sync::Arc;

use ace_model::delta::Delta;
use ace_model::mapping::SectionMap;
use ace_model::Diagnostic;
use ace_vagenda::Syntax;

pub use ace_model::delta::{Change, Dialect, Op, Reason, Refusal, Target};
pub use engine::{apply, Outcome, Verdict};

/// The delta dialects, as `--delta-format` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeltaFormat {
    /// ace_beads: an AceDelta, an array of them, the curator input
    /// `{deltas}`, reflector insights carrying a `delta`.
    AceDelta,
    /// vAgenda: a PlaybookPatch (AcePatch) or one operation, JSON or TRON.
    AcePatch,
    /// The skill: a delta, a reflector's `proposed_deltas`, a curator's
    /// `clean_delta` or `normalized_delta`.
    SkillDelta,
    /// The paper's code: curator operations with `operation_type`.
    CuratorOps,
    /// The Playbooks extension's events (vAgenda 0.2 final, 0.3, vContext
    /// 0.4): `eventId`, `targetId`, `operation`.
    Events,
}

impl DeltaFormat {
    pub const ALL: [DeltaFormat; 5] = [
        DeltaFormat::AceDelta,
        DeltaFormat::AcePatch,
        DeltaFormat::SkillDelta,
        DeltaFormat::CuratorOps,
        DeltaFormat::Events,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DeltaFormat::AceDelta => "acedelta",
            DeltaFormat::AcePatch => "acepatch",
            DeltaFormat::SkillDelta => "skill-delta",
            DeltaFormat::CuratorOps => "curator-ops",
            DeltaFormat::Events => "playbook-events",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            DeltaFormat::AceDelta => "ace_beads AceDelta: one, an array, the curator input {deltas}, reflector insights",
            DeltaFormat::AcePatch => "vAgenda PlaybookPatch (AcePatch) or one operation, JSON or TRON",
            DeltaFormat::SkillDelta => "the skill's delta, reflector output (proposed_deltas) or curator output (clean_delta)",
            DeltaFormat::CuratorOps => "the paper's curator operations (operation_type), JSON or JSON Lines",
            DeltaFormat::Events => "Playbooks extension events (eventId, targetId, operation): one, an array, {items}, JSON Lines",
        }
    }

    pub fn from_name(name: &str) -> Option<DeltaFormat> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The playbook's text after `outcome`: `src` itself when nothing
/// changed, else edits over it where the format splices, else the whole
/// writer's. What ace-apply, ace-merge and the Python module write.
pub fn written_text(
    format: ace_io::Format,
    src: &str,
    outcome: &Outcome,
    pb: &ace_model::Playbook,
    wctx: &ace_io::WriteCtx,
) -> String {
    if !outcome.changed() {
        return src.to_owned();
    }
    match format.imp().rewrite(src, &outcome.before, pb, wctx) {
        Some((edits, _)) => edits.text(src),
        None => ace_io::write_with(format, pb, wctx).text,
    }
}

/// What writing a delta needs besides the delta.
pub struct WriteDeltaCtx<'a> {
    /// The playbook the delta applies to (an AceDelta names a bullet by
    /// its section and text).
    pub old: &'a ace_model::Playbook,
    pub sections: &'a SectionMap,
    /// The time a delta is stamped with, when its dialect stamps one.
    pub now: &'a str,
    /// Why the delta was made, for a dialect that says (the skill's
    /// `rationale`, an AceDelta's `evidence`).
    pub note: &'a str,
    /// Whether the playbook's format holds an entry field (a canonical
    /// name): what a dialect adds to a field the playbook has no place for
    /// is no difference worth a warning.
    pub holds: &'a dyn Fn(&str) -> bool,
}

/// `delta` written in the dialect `format`, with what the dialect cannot
/// say; `None` for a dialect ace-tools does not write (the paper's
/// operations, the Playbooks extension's events).
pub fn write_delta(
    delta: &Delta,
    format: DeltaFormat,
    ctx: &WriteDeltaCtx<'_>,
) -> Option<(serde_json::Value, Vec<String>)> {
    match format {
        DeltaFormat::AcePatch => Some(ace_vagenda::ops::write_patch(
            delta,
            ctx.sections,
            (ctx.holds)("kind"),
        )),
        DeltaFormat::SkillDelta => Some(ace_skill::ops::write_delta(delta, Some(ctx.note))),
        DeltaFormat::AceDelta => Some(ace_curator::ops::write_deltas(
            delta,
            &ace_curator::ops::WriteOptions {
                old: ctx.old,
                now: ctx.now,
                evidence: ctx.note,
            },
        )),
        DeltaFormat::CuratorOps | DeltaFormat::Events => None,
    }
}

/// What reading a delta file needs besides its text.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Seed 001's gate: the lowest confidence and shortest evidence the
    /// curator accepts.
    pub min_confidence: f64,
    pub min_evidence: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        let c = ace_curator::Options::default();
        ReadOptions {
            min_confidence: c.confidence,
            min_evidence: c.evidence_length,
        }
    }
}

/// Failure to read a delta file at all.
#[derive(Debug)]
pub enum ReadError {
    /// It does not parse; the diagnostic says where.
    Parse(Diagnostic),
    /// It parses but is no dialect's delta (or not the forced one's).
    NotADelta(String),
}

fn is_tron(name: Option<&str>, text: &str) -> bool {
    name.is_some_and(|n| n.to_ascii_lowercase().ends_with(".tron"))
        || !matches!(
            text.trim_start().as_bytes().first(),
            Some(b'{' | b'[') | None
        )
}

fn read_as(
    format: DeltaFormat,
    text: &str,
    name: Option<&str>,
    opts: &ReadOptions,
) -> Result<Option<Vec<Delta>>, Diagnostic> {
    match format {
        DeltaFormat::AceDelta => ace_curator::ops::read_deltas(
            text,
            &ace_curator::Options {
                confidence: opts.min_confidence,
                evidence_length: opts.min_evidence,
            },
        ),
        DeltaFormat::AcePatch => {
            let syntax = if is_tron(name, text) {
                Syntax::Tron
            } else {
                Syntax::Json
            };
            ace_vagenda::ops::read_patch(text, syntax).map(|d| d.map(|d| vec![d]))
        }
        DeltaFormat::SkillDelta => ace_skill::ops::read_delta(text).map(|d| d.map(|d| vec![d])),
        DeltaFormat::CuratorOps => ace_markdown::ops::read_operations(text),
        DeltaFormat::Events => ace_vagenda::ops::read_events(text),
    }
}

/// The deltas in a file, in its dialect: `forced`, else the first dialect
/// that recognises the content. `name` is the file's name, for TRON.
pub fn read_deltas(
    text: &str,
    name: Option<&str>,
    forced: Option<DeltaFormat>,
    opts: &ReadOptions,
) -> Result<(DeltaFormat, Vec<Delta>), ReadError> {
    let order: Vec<DeltaFormat> = match forced {
        Some(f) => vec![f],
        // The paper's operations and the events are told by keys no other
        // dialect has, as are the curator's shapes; the skill's delta by
        // its operation lists; a vAgenda patch by `operations`/`op`, which
        // AceDelta's `op` shares but AceDelta claims first by its
        // `section` and `metadata`.
        None => vec![
            DeltaFormat::CuratorOps,
            DeltaFormat::Events,
            DeltaFormat::AceDelta,
            DeltaFormat::AcePatch,
            DeltaFormat::SkillDelta,
        ],
    };
    let mut first_error = None;
    for f in order {
        match read_as(f, text, name, opts) {
            Ok(Some(d)) => return Ok((f, d)),
            Ok(None) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match (first_error, forced) {
        (Some(e), _) => Err(ReadError::Parse(e)),
        (None, Some(f)) => Err(ReadError::NotADelta(format!(
            "not a {} ({})",
            f.name(),
            f.describe()
        ))),
        (None, None) => Err(ReadError::NotADelta(
            "no delta dialect recognises it: expected an AceDelta, a vAgenda PlaybookPatch, a skill delta or the paper's curator operations (pass --delta-format to say which)".into(),
        )),
    }
}

/// What the engine needs to know of the playbook's format.
#[derive(Debug, Clone, Default)]
pub struct Traits {
    /// Entries have a status: deprecation and archiving set it. Without
    /// one, a deprecated or merged-away entry is removed.
    pub status: bool,
    /// Entries keep provenance, where `ace-apply` records the ID of the
    /// delta that added or amended them.
    pub provenance: bool,
    pub created_at: bool,
    pub updated_at: bool,
    /// For an empty playbook: new IDs are the skill's dated ones, or
    /// ace_beads' hex ones, rather than seed 000's.
    pub dated_ids: bool,
    pub hex_ids: bool,
    /// The document's `sequence` (vAgenda), checked against a patch's
    /// `baseDocumentSequence`.
    pub sequence: Option<i64>,
    pub sections: Arc<SectionMap>,
    /// Where the playbook records the IDs of the deltas applied to it,
    /// besides entry provenance.
    pub delta_log: DeltaLog,
    /// The last event of each target, when the playbook was read from the
    /// Playbooks extension's event log: what `prevEventId` is checked
    /// against.
    pub event_heads: Option<std::collections::HashMap<String, String>>,
}

/// A format's record of applied deltas, beyond the provenance of the
/// entries they added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeltaLog {
    /// Entry provenance only (or nothing, in a format without it).
    #[default]
    Provenance,
    /// The skill playbook's `metadata.applied_deltas`.
    SkillMetadata,
    /// `extra.applied_deltas` of the canonical JSON playbook.
    Extra,
    /// A vAgenda `Change` per delta in the document's `changeLog`, with
    /// the delta's ID in `relatedChanges`, when the document keeps a
    /// `sequence`.
    ChangeLog,
}

impl Traits {
    /// What `format` holds, by the capability table its writer's loss
    /// report makes, and the document sequence `pb` was read with.
    pub fn of(
        format: ace_io::Format,
        pb: &ace_model::Playbook,
        sections: Arc<SectionMap>,
    ) -> Traits {
        use ace_io::capabilities::{entry_fields, Holds};
        // One row covers both of an entry's timestamps.
        let holds = entry_fields(format, &["status", "provenance", "created_at"]);
        let yes = |i: usize| matches!(holds[i], Some(Holds::Yes | Holds::Changed));
        Traits {
            status: yes(0),
            provenance: yes(1),
            created_at: yes(2),
            updated_at: yes(2),
            dated_ids: format.name() == "skill-json",
            hex_ids: format.name() == "agents-md",
            sequence: ace_io::document_sequence(pb),
            sections,
            delta_log: match format.name() {
                "skill-json" => DeltaLog::SkillMetadata,
                "json" => DeltaLog::Extra,
                "vagenda-json" | "vagenda-tron" => DeltaLog::ChangeLog,
                _ => DeltaLog::Provenance,
            },
            event_heads: ace_vagenda::event_heads(pb),
        }
    }
}

/// Which semantics a skill delta is applied with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// The seed's text: counters, new bullets, edits, merges (archive),
    /// deprecations (status).
    #[default]
    Seed,
    /// `scripts/merge_deltas.py`: new bullets, edits, merges (content
    /// appended, `merged` tag), deprecations (tag and note), counters.
    SkillScript,
}

/// How deltas are applied.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub compat: Compat,
    /// Seed 004: refuse any delta that changes or removes content.
    pub append_only: bool,
    /// Seed 000: deprecate (or, without a status, remove) entries with
    /// `harmful > helpful + 3` once the deltas are applied.
    pub prune: bool,
    /// RFC 3339, for the timestamps a delta's spec sets.
    pub now: String,
}
