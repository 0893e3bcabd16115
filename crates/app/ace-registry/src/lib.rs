//! The one place that knows every format and dialect: the registry
//! ([`Registry`]), detection over it, the AGENTS.md + playbook.yaml pair,
//! what each format holds ([`capabilities`]), and reading and writing
//! playbooks through it ([`convert`]). Format crates know only the model
//! and the `ace-format` contract; file I/O is `ace-fs`'s.

pub mod block;
pub mod capabilities;
mod conflict;
pub mod convert;
mod folder;
mod located;
mod mapping_doc;
mod pair;
mod registry;
pub mod store;

/// The ace_beads curator's gate on an AceDelta (the lowest confidence and
/// the shortest evidence it accepts), which ace.toml's thresholds and the
/// tools' flags set.
pub use ace_curator::Options as CuratorGate;
pub use ace_exec::Out;
pub use ace_format::{
    AppliedDelta, CheckCtx, Companion, Confidence, Curation, DeltaDialect, DeltaReadCtx,
    DeltaWriteCtx, DocumentCheck, IdScheme, Ledger, LintProfile, Other, PlaybookFormat, Prompt,
    Read, ReadCtx, Sniff, Syntax, TopKeys, WriteCtx, WriteOption, WrittenDelta,
};
use ace_model::WriteReport;
pub use mapping_doc::markdown_doc as mapping_doc;
pub use registry::{DeltaError, Detected, Format, Registry};

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use ace_model::{Diagnostic, LossEntry, Playbook};

/// A playbook and the reader's diagnostics.
pub type Parsed = ace_model::ReadOutput;

/// The built-in format of an input, from its file name and content
/// ([`Registry::detect`]).
pub fn detect(path: Option<&Path>, text: &str) -> Format {
    Registry::builtin().detect(path, text)
}

/// The built-in format a new file of this name is written in
/// ([`Registry::for_output`]).
pub fn format_of_name(path: &Path) -> Option<Format> {
    Registry::builtin().for_output(path)
}

/// Whether a file found by walking a directory is an ACE file
/// ([`Registry::recognise`]).
pub fn recognise(path: &Path) -> bool {
    Registry::builtin().recognise(path)
}

impl Format {
    /// Reads `text`: the playbook, the findings, and what the file holds
    /// instead of a playbook, if it does. A text holding a merge's
    /// conflict markers is refused whatever its format (ACE093).
    pub fn read(self, text: &str, ctx: &ReadCtx) -> Result<Read, Diagnostic> {
        if let Some(conflict) = conflict::markers(text) {
            return Err(conflict);
        }
        self.imp().read(text, ctx)
    }

    /// Prints `pb` into `out`, which may send the text on (to a file, say)
    /// as it is printed. What the target could not hold is known only at
    /// the end, so a caller that must write nothing on a loss writes into
    /// a temporary file or into [`std::io::sink`] first.
    pub fn write(self, pb: &Playbook, ctx: &WriteCtx, out: &mut Out<'_>) -> WriteReport {
        let (pb, escapes) = self.text_safe(pb);
        let mut report = self.imp().write(&pb, ctx, out);
        report.losses.extend(escapes);
        self.layout_losses(&pb, &mut report);
        report
    }

    /// `pb` as a file of this format can hold it, borrowed when it can as
    /// it is, with what was changed: in plain text, raw control
    /// characters written as `\uXXXX`, each reported (ACE102).
    pub fn text_safe(self, pb: &Playbook) -> (Cow<'_, Playbook>, Vec<LossEntry>) {
        let escaped = (self.imp().syntax() == ace_format::Syntax::Text)
            .then(|| ace_model::controls::escape_controls(pb))
            .flatten();
        match escaped {
            Some((safe, losses)) => (Cow::Owned(safe), losses),
            None => (Cow::Borrowed(pb), Vec::new()),
        }
    }

    /// What another format's layout kept of the file's content (AGENTS.md's
    /// prose, the vAgenda document around the playbook), which this
    /// format's writer does not use: lost, and said so.
    fn layout_losses(self, pb: &Playbook, report: &mut WriteReport) {
        let Some((owner, holds)) = pb.layout_holds() else {
            return;
        };
        if self.imp().layout_owner() == Some(owner) {
            return;
        }
        for what in holds {
            report.losses.push(ace_model::LossEntry::new(
                &ace_model::rules::DROPPED_FIELD,
                None,
                "layout",
                format!("{what}: kept only by a rewrite in the source's own format"),
            ));
        }
    }

    /// The file kept beside this format's file, if it has one.
    pub fn companion(self) -> Option<&'static dyn Companion> {
        self.imp().companion()
    }

    /// The companion of `input` beside it, when the format has one and it
    /// is there.
    pub fn companion_beside(self, input: &Path) -> Option<PathBuf> {
        let companion = self.companion()?;
        let dir = input
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        companion
            .file_names()
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.is_file())
    }

    /// Reads a companion's text into `parsed` ([`Companion::attach`]); a
    /// format without one takes nothing from it.
    pub fn attach_companion(
        self,
        parsed: &mut Parsed,
        text: &str,
    ) -> Result<Vec<Diagnostic>, Diagnostic> {
        match self.companion() {
            Some(c) => c.attach(parsed, text),
            None => Ok(Vec::new()),
        }
    }

    /// Prints `pb` into `out` as this format's file and returns its
    /// companion's text with the pair's report; without a companion, the
    /// text is `None` and the report is [`Format::write`]'s.
    pub fn write_with_companion(
        self,
        pb: &Playbook,
        ctx: &WriteCtx,
        out: &mut Out<'_>,
    ) -> (Option<String>, WriteReport) {
        match self.companion() {
            Some(c) => {
                let (pb, escapes) = self.text_safe(pb);
                let (text, mut report) = c.write(&pb, ctx, out);
                report.losses.extend(escapes);
                self.layout_losses(&pb, &mut report);
                (Some(text), report)
            }
            None => (None, self.write(pb, ctx, out)),
        }
    }
}

/// Reads a playbook with every finding.
pub fn read(format: Format, text: &str) -> Result<Parsed, Diagnostic> {
    format.read(text, &ReadCtx::default()).map(|r| r.parsed)
}

/// What a file read as `format` holds instead of a playbook, if anything
/// ([`Read::other`]); a file that does not parse holds nothing else.
pub fn other_document(format: Format, text: &str) -> Option<Other> {
    let ctx = ReadCtx::min(ace_model::Severity::Error);
    format.read(text, &ctx).ok()?.other
}

/// Output text and what the target could not hold.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub text: String,
    pub losses: Vec<LossEntry>,
    /// Entries given new IDs because the target could not hold theirs.
    pub id_changes: Vec<ace_model::ids::IdChange>,
}

/// A playbook written as a format's files: its own, and its companion's
/// when it has one ([`Format::write_with_companion`]).
#[derive(Debug, Clone, Default)]
pub struct Files {
    pub main: String,
    pub companion: Option<String>,
    pub losses: Vec<LossEntry>,
    pub id_changes: Vec<ace_model::ids::IdChange>,
}

impl Files {
    /// Writes the files into `dir` (made if missing) and returns the main
    /// file's path: with a companion, under the names the pair has
    /// (`AGENTS.md`, `playbook.yaml`), else as `STEM.EXT` with the format's
    /// first extension.
    pub fn save_in(&self, format: Format, dir: &Path, stem: &str) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let main = match format.companion() {
            Some(c) => {
                let text = self.companion.as_deref().unwrap_or_default();
                ace_fs::write_atomic(&dir.join(c.file_names()[0]), text.as_bytes(), None)?;
                dir.join(c.main_file())
            }
            None => {
                let ext = format.imp().extensions().first().copied().unwrap_or("txt");
                dir.join(format!("{stem}.{ext}"))
            }
        };
        ace_fs::write_atomic(&main, self.main.as_bytes(), None)?;
        Ok(main)
    }
}

pub fn write_files(format: Format, pb: &Playbook, ctx: &WriteCtx) -> Files {
    let mut out = Out::new();
    let (companion, report) = format.write_with_companion(pb, ctx, &mut out);
    Files {
        main: out.into_string(),
        companion,
        losses: report.losses,
        id_changes: report.id_changes,
    }
}

/// Reads a format's files back: its own text, and its companion's.
pub fn read_files(
    format: Format,
    main: &str,
    companion: Option<&str>,
) -> Result<Parsed, Diagnostic> {
    let mut parsed = read(format, main)?;
    if let Some(text) = companion {
        format.attach_companion(&mut parsed, text)?;
    }
    Ok(parsed)
}

pub fn write(format: Format, pb: &Playbook) -> Written {
    write_with(format, pb, &WriteCtx::default())
}

pub fn write_with(format: Format, pb: &Playbook, ctx: &WriteCtx) -> Written {
    let mut out = Out::new();
    let report = format.write(pb, ctx, &mut out);
    Written {
        text: out.into_string(),
        losses: report.losses,
        id_changes: report.id_changes,
    }
}

/// The text an agent is shown of `pb`, read as `format`, where that is
/// not the file ([`PlaybookFormat::prompt`]), and what prints it: the
/// active entries, written by the format the prompt names.
pub fn prompt_text(format: Format, pb: &Playbook) -> Option<(String, &'static str)> {
    let prompt = format.imp().prompt()?;
    let writer = Registry::builtin().by_name(prompt.format)?;
    let mut shown = pb.clone();
    shown.layout = Default::default();
    shown.entries.retain(|e| {
        e.status
            .as_ref()
            .is_none_or(|s| *s == ace_model::Status::Active)
    });
    let mut ctx = WriteCtx::default();
    if let Some((name, value)) = prompt.option {
        ctx = ctx.with_option(name, value);
    }
    Some((write_with(writer, &shown, &ctx).text, prompt.describe))
}

/// `pb` as one line of the canonical JSON (`serde_json::to_string` of the
/// `ace-canonical` document): what the Python module hands to
/// `json.loads`.
pub fn canonical_json(pb: &Playbook) -> String {
    ace_json::to_compact_string(pb)
}

/// The vAgenda document `sequence` a playbook was read with, if any.
pub fn document_sequence(pb: &Playbook) -> Option<i64> {
    ace_vagenda::document_sequence(pb)
}
