//! vAgenda documents, in JSON and in TRON, their patches and the
//! Playbooks extension's events, in the registry.

use ace_exec::Out;
use ace_format::{
    AppliedDelta, CheckCtx, Confidence, Curation, DeltaDialect, DeltaReadCtx, DeltaWriteCtx,
    DocumentCheck, Ledger, LintProfile, Other, PlaybookFormat, Read, ReadCtx, Sniff, WriteCtx,
    WriteOption, WrittenDelta,
};
use ace_model::delta::Delta;
use ace_model::WriteReport;
use std::collections::HashMap;

use ace_model::{Diagnostic, Playbook};

use crate::{Container, DocKind, RootStyle, Syntax};

/// vAgenda in one syntax.
pub struct Vagenda {
    syntax: Syntax,
}

/// The formats as the registry lists them.
pub static JSON: Vagenda = Vagenda {
    syntax: Syntax::Json,
};
pub static TRON: Vagenda = Vagenda {
    syntax: Syntax::Tron,
};

/// A PlaybookPatch or one patch operation, in one syntax.
pub struct Patches {
    syntax: Syntax,
}

pub static JSON_PATCHES: Patches = Patches {
    syntax: Syntax::Json,
};
pub static TRON_PATCHES: Patches = Patches {
    syntax: Syntax::Tron,
};

/// `--container`: what holds the playbook in a new document.
pub const CONTAINER: WriteOption = WriteOption {
    name: "container",
    values: &["plan", "todoList"],
    help:
        "the container of a new document (default plan); a playbook read from vAgenda keeps its own",
};

/// `--tron-root`: how the TRON document's root is written.
/// `--vagenda-version`: the spec version of the document written.
pub const VERSION: WriteOption = WriteOption {
    name: "vagenda-version",
    values: &["0.2", "0.3", "0.4"],
    help: "write vAgenda 0.2 with the ACE extension, vAgenda 0.3 with the Playbooks extension's event log, or vContext 0.4 with its event log; default: the source's own version when it is vAgenda, else 0.2",
};

pub const TRON_ROOT: WriteOption = WriteOption {
    name: "tron-root",
    values: &["implicit", "braced"],
    help: "`implicit` (default) is vAgenda's house style with `key: value` lines at the top; `braced` writes one braced root that @tron-format/tron reads",
};

/// The info keys of vAgenda's versions and of its successor's, which a
/// document has at its root.
const INFO_KEYS: [&str; 3] = ["vAgendaInfo", "vContextInfo", "vBRIEFInfo"];

/// The file names vAgenda and its successors give their JSON documents.
const NAME_ENDINGS: [&str; 3] = [".vagenda.json", ".vcontext.json", ".vbrief.json"];

/// What only a vAgenda patch has: the skill has no `baseDocumentSequence`
/// and no camel-case entry operations (the vAgenda ACE extension).
const PATCH_KEYS: [&str; 5] = [
    "\"baseDocumentSequence\"",
    "\"appendEntry\"",
    "\"updateEntry\"",
    "\"incrementCounter\"",
    "\"deprecateEntry\"",
];

/// Words a TRON file of vAgenda's has somewhere.
const TRON_WORDS: [&str; 5] = [
    "vAgendaInfo",
    "vContextInfo",
    "playbook",
    "operations",
    "entries",
];

impl Vagenda {
    fn options(&self, ctx: &WriteCtx) -> crate::WriteOptions {
        crate::WriteOptions {
            syntax: self.syntax,
            container: match ctx.option(CONTAINER.name) {
                Some("todoList") => Container::TodoList,
                _ => Container::Plan,
            },
            tron_root: match ctx.option(TRON_ROOT.name) {
                Some("braced") => RootStyle::Braced,
                _ => RootStyle::Implicit,
            },
            now: ctx.now.clone(),
            clock: ctx.clock.clone(),
            sections: ctx.sections.clone(),
            version: ctx.option(VERSION.name).and_then(crate::Version::parse),
        }
    }
}

impl PlaybookFormat for Vagenda {
    fn name(&self) -> &'static str {
        match self.syntax {
            Syntax::Json => "vagenda-json",
            Syntax::Tron => "vagenda-tron",
        }
    }

    fn describe(&self) -> &'static str {
        match self.syntax {
            Syntax::Json => "vAgenda document with the ACE extension, JSON",
            Syntax::Tron => "vAgenda document with the ACE extension, TRON",
        }
    }

    fn extensions(&self) -> &'static [&'static str] {
        match self.syntax {
            Syntax::Json => &["json"],
            Syntax::Tron => &["tron"],
        }
    }

    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        match (self.syntax, input.syntax()) {
            (Syntax::Json, ace_format::Syntax::Json) => {
                if input.top_has("vBRIEFInfo") {
                    Some(Confidence::Related)
                } else if ["eventId", "targetId", "operation"]
                    .iter()
                    .all(|k| input.top_has(k))
                {
                    // Only the Playbooks extension's events have these.
                    Some(Confidence::Marker)
                } else if INFO_KEYS.iter().any(|k| input.top_has(k)) {
                    Some(Confidence::Declared)
                } else if input.name_ends_with(&NAME_ENDINGS) {
                    Some(Confidence::Name)
                } else if input.top_opens("entries") == Some(b'[')
                    && (input.top_has("created") || input.top_has("metrics"))
                    || ["id", "kind", "text"].iter().all(|k| input.top_has(k))
                    || ["plan", "todoList"]
                        .iter()
                        .any(|k| input.top_opens(k) == Some(b'{'))
                {
                    // A container without its info key, a playbook or an
                    // entry on its own, as the spec's examples show them.
                    Some(Confidence::Content)
                } else {
                    (input.could_win(Confidence::Marker) && input.contains_any(&PATCH_KEYS))
                        .then_some(Confidence::Marker)
                }
            }
            (Syntax::Tron, ace_format::Syntax::Tron) => {
                if input.extension().as_deref() != Some("tron") {
                    // `class ` opening a file without the extension.
                    Some(Confidence::Content)
                } else if input.contains_any(&TRON_WORDS) {
                    Some(Confidence::Name)
                } else {
                    Some(Confidence::Likely)
                }
            }
            _ => None,
        }
    }

    fn read(&self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        let (parsed, kind) = crate::read_mapped(text, self.syntax, &ctx.sections)?;
        let other = kind.and_then(|kind| {
            let check: &'static Patches = match self.syntax {
                Syntax::Json => &JSON_PATCHES,
                Syntax::Tron => &TRON_PATCHES,
            };
            match kind {
                DocKind::Document { .. } | DocKind::Playbook => None,
                DocKind::Patch | DocKind::PatchOp => Some(Other {
                    what: kind.describe(),
                    applying: "patches",
                    check: Some(check as &dyn DocumentCheck),
                    keeps_read_findings: true,
                }),
                DocKind::Entry => Some(Other {
                    what: kind.describe(),
                    applying: "patches",
                    check: None,
                    keeps_read_findings: true,
                }),
                DocKind::Event => Some(Other {
                    what: kind.describe(),
                    applying: "events",
                    check: None,
                    keeps_read_findings: true,
                }),
            }
        });
        Ok(Read {
            parsed,
            other,
            top: None,
        })
    }

    fn write(&self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        crate::write_into(pb, &self.options(ctx), out)
    }

    fn rewrite(
        &self,
        src: &str,
        before: &ace_model::Before,
        after: &Playbook,
        ctx: &WriteCtx,
    ) -> Option<(ace_model::edit::Edits, WriteReport)> {
        let (edits, losses) = crate::splice::rewrite(src, before, after, &self.options(ctx))?;
        Some((
            edits,
            WriteReport {
                losses,
                id_changes: Vec::new(),
            },
        ))
    }

    fn layout_owner(&self) -> Option<&'static str> {
        Some(crate::LAYOUT_KEY)
    }

    /// vAgenda ids are free-form (`entry-task-first`) and kinds are not
    /// sections: the ACE schema and invariants check what it defines.
    /// AppliedDelta deltas in the document's change log or event log.
    fn curation(&self, _: &Playbook) -> Curation {
        Curation {
            status: true,
            provenance: true,
            timestamps: true,
            ledger: Some(&LEDGER),
            dialect: Some("acepatch"),
            ..Curation::default()
        }
    }

    fn lint_profile(&self) -> LintProfile {
        LintProfile {
            id_shape: false,
            prefixes: false,
            ..LintProfile::default()
        }
    }

    fn write_options(&self) -> &'static [WriteOption] {
        match self.syntax {
            Syntax::Json => &[CONTAINER, VERSION],
            Syntax::Tron => &[CONTAINER, VERSION, TRON_ROOT],
        }
    }
}

impl DocumentCheck for Patches {
    fn name(&self) -> &'static str {
        match self.syntax {
            Syntax::Json => "vagenda-patch-json",
            Syntax::Tron => "vagenda-patch-tron",
        }
    }

    fn describe(&self) -> &'static str {
        "a vAgenda PlaybookPatch or one patch operation (vAgenda ACE extension)"
    }

    fn claims(&self, _: &str, _: &str) -> bool {
        false
    }

    fn check(&self, text: &str, ctx: &CheckCtx<'_>) -> Vec<Diagnostic> {
        let target = ctx.playbook.map(|playbook| crate::Target {
            playbook,
            sequence: ctx.sequence,
        });
        crate::check_patch(text, self.syntax, target)
    }
}

/// The vAgenda PlaybookPatch (AcePatch) as a delta dialect, in JSON or
/// TRON.
pub struct AcePatches;

pub static ACEPATCH: AcePatches = AcePatches;

/// Whether a patch file is TRON: by its name, else by not opening as JSON
/// does.
fn is_tron(name: Option<&str>, text: &str) -> bool {
    name.is_some_and(|n| n.to_ascii_lowercase().ends_with(".tron"))
        || !matches!(
            text.trim_start().as_bytes().first(),
            Some(b'{' | b'[') | None
        )
}

impl DeltaDialect for AcePatches {
    fn name(&self) -> &'static str {
        "acepatch"
    }

    fn describe(&self) -> &'static str {
        "vAgenda PlaybookPatch (AcePatch) or one operation, JSON or TRON"
    }

    fn what(&self) -> &'static str {
        "a vAgenda PlaybookPatch"
    }

    /// Any JSON or TRON may be one; the read tells, and gives the parse
    /// error of a text that is neither.
    fn sniff(&self, _: &Sniff<'_>) -> Option<Confidence> {
        Some(Confidence::Likely)
    }

    fn read(&self, text: &str, ctx: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        let syntax = if is_tron(ctx.name, text) {
            Syntax::Tron
        } else {
            Syntax::Json
        };
        crate::ops::read_patch(text, syntax).map(|d| d.map(|d| vec![d]))
    }

    fn writes(&self) -> bool {
        true
    }

    fn write(&self, delta: &Delta, ctx: &DeltaWriteCtx<'_>) -> Option<WrittenDelta> {
        Some(crate::ops::write_patch(
            delta,
            ctx.sections,
            (ctx.holds)("kind"),
        ))
    }

    fn checks(&self) -> &'static [&'static dyn DocumentCheck] {
        &ACEPATCH_CHECKS
    }
}

/// The Playbooks extension's events (vAgenda 0.2 final, 0.3, vContext
/// 0.4) as a delta dialect.
pub struct Events;

pub static EVENTS: Events = Events;

impl DeltaDialect for Events {
    fn name(&self) -> &'static str {
        "playbook-events"
    }

    fn describe(&self) -> &'static str {
        "Playbooks extension events (eventId, targetId, operation): one, an array, {items}, JSON Lines"
    }

    fn what(&self) -> &'static str {
        "Playbooks extension events"
    }

    /// Every event names its target: a text without the key holds none.
    fn sniff(&self, input: &Sniff<'_>) -> Option<Confidence> {
        input
            .text
            .contains("\"targetId\"")
            .then_some(Confidence::Marker)
    }

    fn read(&self, text: &str, _: &DeltaReadCtx<'_>) -> Result<Option<Vec<Delta>>, Diagnostic> {
        crate::ops::read_events(text)
    }
}

static ACEPATCH_CHECKS: [&dyn DocumentCheck; 2] = [&JSON_PATCHES, &TRON_PATCHES];

/// A vAgenda document's record of applied deltas: a `Change` per delta in
/// its `changeLog` when it keeps a `sequence`, and its playbook's event log.
pub struct VagendaLedger;

pub static LEDGER: VagendaLedger = VagendaLedger;

impl Ledger for VagendaLedger {
    fn applied(&self, pb: &Playbook) -> Vec<String> {
        crate::logged_deltas(pb)
    }

    /// A `Change` per delta, with its ID in `relatedChanges`.
    fn record(&self, pb: &mut Playbook, applied: &[AppliedDelta], now: &str) {
        let changes = applied
            .iter()
            .filter_map(|a| {
                let mut c = serde_json::Map::new();
                c.insert("sequence".into(), a.sequence?.into());
                c.insert("timestamp".into(), now.into());
                c.insert(
                    "agent".into(),
                    serde_json::json!({"id": "ace-apply", "type": "system"}),
                );
                c.insert("operation".into(), "update".into());
                c.insert("path".into(), "playbook".into());
                c.insert(
                    "reason".into(),
                    match &a.id {
                        Some(id) => format!("ace-apply: delta {id}, {} operation(s)", a.ops),
                        None => format!("ace-apply: {} operation(s)", a.ops),
                    }
                    .into(),
                );
                if let Some(id) = &a.id {
                    c.insert("relatedChanges".into(), serde_json::json!([id]));
                }
                Some(serde_json::Value::Object(c))
            })
            .collect::<Vec<_>>();
        if !changes.is_empty() {
            crate::log_changes(pb, changes);
        }
    }

    fn sequence(&self, pb: &Playbook) -> Option<i64> {
        crate::document_sequence(pb)
    }

    fn set_sequence(&self, pb: &mut Playbook, sequence: i64) {
        crate::set_document_sequence(pb, sequence);
    }

    fn event_heads(&self, pb: &Playbook) -> Option<HashMap<String, String>> {
        crate::event_heads(pb)
    }

    fn append_events(&self, pb: &mut Playbook, events: Vec<serde_json::Value>) {
        crate::append_events(pb, events);
    }
}
