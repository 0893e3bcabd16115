//! The one path from a playbook and delta files to what is written:
//! [`run`] reads the delta files (each in its dialect, detected or named),
//! applies them with the engine, and decides the text to write: the
//! playbook's own bytes when nothing changed, edits over them where the
//! format splices, else the format's whole writer (with its companion,
//! AGENTS.md's playbook.yaml). `ace-apply`, `ace-merge` and the Python
//! module call it; each keeps only its own way of taking input and
//! reporting.

use ace_model::controls::push_line;
use std::borrow::Cow;

use ace_model::delta::{Delta, Target};
use ace_model::edit::Edits;
use ace_model::{LineIndex, LossEntry, Playbook};
use ace_registry::convert::{Destination, Stop};
use ace_registry::{DeltaDialect, DeltaError, Format, Registry, WriteCtx};

use crate::{Options, Outcome, ReadOptions};

/// A delta file as given: its name for messages, its file name (which
/// tells an AcePatch in TRON), its text.
#[derive(Debug, Clone, Copy)]
pub struct DeltaSource<'a> {
    pub name: &'a str,
    pub file_name: Option<&'a str>,
    pub text: &'a str,
}

/// A delta file and how it was read (its deltas go to the batch).
#[derive(Debug, Clone)]
pub struct DeltaFile<'a> {
    pub source: DeltaSource<'a>,
    /// The dialect it was read as.
    pub dialect: Option<&'static dyn DeltaDialect>,
    /// Why it could not be read as any dialect's, as `NAME:LINE:COL:
    /// message` or `NAME: why`: the file is then one rejected delta.
    pub unreadable: Option<String>,
}

/// Reads one delta file, in dialect `forced` or the one `registry`
/// detects: the file, and its deltas.
fn read_delta_file<'a>(
    registry: &Registry,
    source: DeltaSource<'a>,
    forced: Option<&'static dyn DeltaDialect>,
    opts: &ReadOptions,
) -> (DeltaFile<'a>, Vec<Delta>) {
    let read = crate::read_deltas(registry, source.text, source.file_name, forced, opts);
    let (dialect, deltas, unreadable) = match read {
        Ok((d, deltas)) => (Some(d), deltas, None),
        Err(DeltaError::Parse(d)) => {
            let at = LineIndex::new(source.text).line_col(source.text, d.span.start);
            let why = format!("{}:{}:{}: {}", source.name, at.line, at.col, d.message);
            (None, Vec::new(), Some(why))
        }
        Err(DeltaError::NotADelta(why)) => {
            (None, Vec::new(), Some(format!("{}: {why}", source.name)))
        }
    };
    let file = DeltaFile {
        source,
        dialect,
        unreadable,
    };
    (file, deltas)
}

/// The playbook deltas are applied to: its format, the text it was read
/// from, its companion's text (AGENTS.md's playbook.yaml) if it was read
/// with one, and the playbook read, with its layout.
pub struct Subject<'a> {
    pub format: Format,
    pub text: &'a str,
    pub companion: Option<&'a str>,
    pub playbook: Playbook,
}

/// How [`run`] reads and applies.
#[derive(Clone)]
pub struct RunOptions<'r> {
    pub registry: &'r Registry,
    /// The delta files' dialect, when it is not to be detected.
    pub dialect: Option<&'static dyn DeltaDialect>,
    pub read: ReadOptions,
    pub apply: Options,
}

/// What the playbook's file becomes.
#[derive(Debug)]
pub enum Output {
    /// Nothing applied: the file's own bytes, and its companion's.
    Same,
    /// Edits over the file's text (a format that splices).
    Spliced(Edits),
    /// The whole playbook, written by its format's writer with its
    /// companion.
    Whole,
}

/// The playbook's files as text.
#[derive(Debug, Clone)]
pub struct Texts {
    pub main: String,
    /// The companion's text, when the playbook has one.
    pub companion: Option<String>,
    /// What the format could not hold.
    pub losses: Vec<LossEntry>,
}

/// What [`run`] did, and what to write.
pub struct Applied<'a> {
    pub format: Format,
    pub text: &'a str,
    pub companion: Option<&'a str>,
    pub playbook: Playbook,
    pub files: Vec<DeltaFile<'a>>,
    pub outcome: Outcome,
    pub output: Output,
    /// What the format took off the entries the deltas added and what a
    /// splice could not hold; a whole write reports its losses as it
    /// writes.
    pub splice_losses: Vec<LossEntry>,
    /// What `--dedup` and `--prune` did.
    pub curated: Curated,
    wctx: WriteCtx,
}

/// What to do after the deltas: merge near-duplicates, then prune to the
/// budget.
#[derive(Debug, Clone, Default)]
pub struct Curate {
    pub dedup: Option<crate::dedup::DedupOptions>,
    pub prune: Option<crate::prune::PruneOptions>,
}

impl Curate {
    pub fn is_empty(&self) -> bool {
        self.dedup.is_none() && self.prune.is_none()
    }

    /// What `asked` asks, with `config`'s thresholds and `[budget]` under
    /// it: ace-apply's flags and the Python module's arguments alike.
    pub fn of(asked: &CurateArgs, config: &ace_config::Config) -> Result<Curate, ace_model::Error> {
        let t = &config.thresholds;
        // Below 0 the rule holds for an entry never counted harmful, and
        // pruning would empty the playbook.
        if let Some(n) = asked.threshold.filter(|n| *n < 0) {
            return Err(ace_model::Error::Usage(format!(
                "the threshold is {n}; expected a whole number 0 or more"
            )));
        }
        if let Some(x) = asked.similarity.filter(|x| !(0.0..=1.0).contains(x)) {
            return Err(ace_model::Error::Usage(format!(
                "the similarity is {x}; expected a number from 0 to 1"
            )));
        }
        if asked.deprecate && !asked.dedup && !asked.prune {
            return Err(ace_model::Error::Usage(
                "--deprecate goes with --prune or --dedup".into(),
            ));
        }
        let dedup = asked.dedup.then(|| {
            let d = crate::dedup::DedupOptions::default();
            crate::dedup::DedupOptions {
                similarity: asked.similarity.or(t.similarity).unwrap_or(d.similarity),
                tag_overlap: t.tag_overlap.unwrap_or(d.tag_overlap),
                across_sections: asked.across_sections,
                deprecate: asked.deprecate,
            }
        });
        let prune = match asked.prune {
            false => None,
            true => Some(crate::prune::PruneOptions {
                budget: ace_check::budget::Budget::of(
                    &config.budget,
                    asked.max_tokens,
                    asked.max_entries,
                    asked.tokenizer,
                )?,
                threshold: asked
                    .threshold
                    .or(t.curation)
                    .unwrap_or(ace_check::LintOptions::default().threshold),
                deprecate: asked.deprecate,
                among: crate::prune::Among::All,
            }),
        };
        Ok(Curate { dedup, prune })
    }
}

/// What `--dedup` and `--prune` were asked, before ace.toml fills in the
/// rest ([`Curate::of`]).
#[derive(Debug, Clone, Default)]
pub struct CurateArgs {
    pub dedup: bool,
    pub prune: bool,
    pub similarity: Option<f64>,
    pub across_sections: bool,
    pub deprecate: bool,
    pub max_tokens: Option<usize>,
    pub max_entries: Option<usize>,
    pub tokenizer: Option<ace_tokens::Encoding>,
    pub threshold: Option<i64>,
}

/// What `--dedup` and `--prune` did, and the delta that does it.
#[derive(Debug, Clone, Default)]
pub struct Curated {
    /// Whether `--dedup` and `--prune` were asked for.
    pub dedup: bool,
    pub prune: bool,
    pub merged: Vec<crate::dedup::Merged>,
    pub pruned: Vec<crate::prune::Pruned>,
    /// The playbook's size before (the file as read) and after, as the
    /// budget counts it, when pruning.
    pub usage: Option<(ace_check::budget::Usage, ace_check::budget::Usage)>,
    /// The changes, in the order applied: what `--emit-delta` writes.
    pub delta: Option<Delta>,
    /// `--deprecate` asked for where the format has no status: the entries
    /// were removed.
    pub removed_for_deprecated: bool,
}

impl Curated {
    /// A line per merge and per entry pruned, and the size before and
    /// after.
    pub fn report_text(&self, prog: &str) -> String {
        let mut out = String::new();
        let ids = |l: &[String]| {
            l.iter()
                .map(|i| format!("`{i}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for m in &self.merged {
            push_line(
                &mut out,
                format_args!(
                "{prog}: --dedup: merged {} into `{}` ({:.0}% similar; now helpful={} harmful={})",
                ids(&m.merged),
                m.keep,
                m.similarity * 100.0,
                m.helpful,
                m.harmful
            ),
            );
        }
        for p in &self.pruned {
            let did = if p.deprecated {
                "deprecated"
            } else {
                "removed"
            };
            push_line(
                &mut out,
                format_args!("{prog}: --prune: {did} `{}` ({})", p.id, p.why),
            );
        }
        if self.removed_for_deprecated {
            push_line(
                &mut out,
                format_args!(
                "{prog}: warning: --deprecate: the format has no status; the entries were removed"
            ),
            );
        }
        if let Some((before, after)) = &self.usage {
            let tokens = match (before.tokens, after.tokens) {
                (Some(b), Some(a)) => format!("{b} -> {a} tokens ({}), ", before.encoding.name()),
                _ => String::new(),
            };
            push_line(
                &mut out,
                format_args!(
                    "{prog}: --prune: {tokens}{} -> {} active entries; {} pruned",
                    before.entries,
                    after.entries,
                    self.pruned.len()
                ),
            );
        }
        out
    }

    /// `{merged: [...], pruned: [...], budget: {...}}`, the keys of what
    /// was asked for, for `--report json`: none when nothing was.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let mut obj = serde_json::Map::new();
        if self.dedup {
            let merged: Vec<_> = self
                .merged
                .iter()
                .map(|m| {
                    json!({"keep": m.keep, "merged": m.merged, "section": m.section,
                        "similarity": (m.similarity * 1000.0).round() / 1000.0,
                        "helpful": m.helpful, "harmful": m.harmful})
                })
                .collect();
            obj.insert("merged".into(), merged.into());
        }
        if self.prune {
            let pruned: Vec<_> = self
                .pruned
                .iter()
                .map(|p| {
                    json!({"id": p.id, "section": p.section, "reason": p.why.code(),
                        "message": p.why.to_string(),
                        "action": if p.deprecated { "deprecated" } else { "removed" }})
                })
                .collect();
            obj.insert("pruned".into(), pruned.into());
        }
        if let Some((before, after)) = &self.usage {
            let size =
                |u: &ace_check::budget::Usage| json!({"tokens": u.tokens, "entries": u.entries});
            obj.insert(
                "budget".into(),
                json!({"encoding": before.encoding.name(), "before": size(before), "after": size(after)}),
            );
        }
        serde_json::Value::Object(obj)
    }
}

/// The verdict source of the deltas `--dedup` and `--prune` make, which
/// no file gave.
const CURATION: usize = usize::MAX;

/// [`run`], then `--dedup` and `--prune` over the result: the deltas that
/// merge and prune are planned on the playbook the deltas give, and
/// applied with them in one pass over the file, so the kept entries keep
/// their bytes.
pub fn run_curated<'a>(
    subject: Subject<'a>,
    deltas: &[DeltaSource<'a>],
    opts: &RunOptions<'_>,
    curate: &Curate,
) -> Applied<'a> {
    let (files, mut batch) = read_all(deltas, opts);
    if curate.is_empty() {
        let mut applied = apply_to(subject, batch, &opts.apply);
        applied.files = files;
        return applied;
    }
    let Subject {
        format,
        text,
        companion,
        playbook,
    } = subject;
    let subject_of = |pb: Playbook| Subject {
        format,
        text,
        companion,
        playbook: pb,
    };
    let apply =
        |batch: &[(usize, Delta)]| apply_to(subject_of(playbook.clone()), batch, &opts.apply);
    let mut curated = Curated {
        dedup: curate.dedup.is_some(),
        prune: curate.prune.is_some(),
        ..Curated::default()
    };
    let c = format.imp().curation(&playbook);
    let holds = |field: &str| crate::render::both_hold(format, format, field);
    // The playbook as the deltas leave it, which the plans are made on.
    let mut current: std::borrow::Cow<'_, Playbook> = match batch.is_empty() {
        true => std::borrow::Cow::Borrowed(&playbook),
        false => std::borrow::Cow::Owned(apply(&batch).playbook),
    };
    if let Some(d) = &curate.dedup {
        let apart = c.kept_apart.map(|f| f(&current)).unwrap_or_default();
        let (delta, merged) = crate::dedup::plan(
            &current,
            d,
            &crate::dedup::Holds {
                status: c.status,
                field: &holds,
                kept_apart: &apart,
            },
        );
        curated.merged = merged;
        curated.removed_for_deprecated |= d.deprecate && !c.status && delta.is_some();
        if let Some(delta) = delta {
            batch.push((CURATION, delta));
            current = std::borrow::Cow::Owned(apply(&batch).playbook);
        }
    }
    let mut after_tokens = None;
    let mut before = None;
    if let Some(p) = &curate.prune {
        // The file as read: its playbook's spans are the text's. Where
        // only entries are limited, only they are counted.
        let brief = p.budget.whole.max_tokens.is_none() && p.budget.sections.is_empty();
        let usage = |text: &str, pb: &Playbook, b: &ace_check::budget::Budget| match brief {
            true => ace_check::budget::entries_only(pb, b),
            false => ace_check::budget::usage(text, pb, b),
        };
        let counted = usage(format.imp().playbook_text(text), &playbook, &p.budget);
        let measure = |d: &Delta| {
            if d.ops.is_empty() && batch.is_empty() {
                return counted.tokens;
            }
            let mut b = batch.clone();
            b.push((CURATION, d.clone()));
            let t = apply(&b).main_text();
            crate::prune::usage_of(format, &t, &p.budget).and_then(|u| u.tokens)
        };
        let plan = crate::prune::plan(text, &current, p, c.status, measure);
        curated.removed_for_deprecated |= p.deprecate && !c.status && plan.delta.is_some();
        curated.pruned = plan.pruned;
        after_tokens = plan.tokens;
        if let Some(delta) = plan.delta {
            batch.push((CURATION, delta));
        }
        before = Some(counted);
    }
    drop(current);
    let applied = apply_to(subject_of(playbook), &batch, &opts.apply);
    // The curation's changes as one delta, for --emit-delta.
    let mut whole = Delta::new(ace_model::Span::default());
    for (source, d) in batch {
        if source == CURATION {
            whole.ops.extend(d.ops);
        }
    }
    curated.delta = (!whole.ops.is_empty()).then_some(whole);
    if let (Some(p), Some(before)) = (&curate.prune, before) {
        // Entries and sections from the playbook written; its tokens as the
        // plan counted the written text.
        let mut b = p.budget.clone();
        b.whole.max_tokens = None;
        let mut after = match b.sections.is_empty() {
            true => ace_check::budget::entries_only(&applied.playbook, &b),
            false => ace_check::budget::usage("", &applied.playbook, &b),
        };
        after.tokens = after_tokens;
        curated.usage = Some((before, after));
    }
    finish_curated(applied, files, curated)
}

/// `applied` with the curation deltas' verdicts taken out of the list (no
/// file gave them) and what they did kept.
fn finish_curated<'a>(
    mut applied: Applied<'a>,
    files: Vec<DeltaFile<'a>>,
    curated: Curated,
) -> Applied<'a> {
    let v = &mut applied.outcome.verdicts;
    applied.outcome.curated = v.iter().any(|v| v.source == CURATION && v.applied > 0);
    v.retain(|v| v.source != CURATION);
    applied.files = files;
    applied.curated = curated;
    applied
}

/// Reads the delta files and applies them to the playbook: the one
/// pipeline of ace-apply and the Python module.
pub fn run<'a>(
    subject: Subject<'a>,
    deltas: &[DeltaSource<'a>],
    opts: &RunOptions<'_>,
) -> Applied<'a> {
    let (files, batch) = read_all(deltas, opts);
    let mut applied = apply_to(subject, batch, &opts.apply);
    applied.files = files;
    applied
}

/// Reads the delta files and applies them to a playbook that is no file's
/// (a database's rows), curated as `curation` says; the caller writes the
/// playbook back. The result reports as [`run`]'s does; its text is the
/// canonical model's, as it has no file of its own.
pub fn run_rows<'a>(
    playbook: Playbook,
    curation: &ace_registry::Curation,
    deltas: &[DeltaSource<'a>],
    opts: &RunOptions<'_>,
    curate: &Curate,
) -> Applied<'a> {
    let (files, mut batch) = read_all(deltas, opts);
    let mut playbook = playbook;
    let mut curated = Curated {
        prune: curate.prune.is_some(),
        ..Curated::default()
    };
    if let Some(p) = &curate.prune {
        // Planned on the rows as the deltas leave them; a database has no
        // text whose tokens a plan could measure (`rows::apply` refuses a
        // token budget).
        let mut current = playbook.clone();
        crate::apply(&mut current, batch.clone(), curation, &opts.apply);
        let plan = crate::prune::plan("", &current, p, curation.status, |_| None);
        curated.removed_for_deprecated |= p.deprecate && !curation.status && plan.delta.is_some();
        curated.pruned = plan.pruned;
        if let Some(delta) = plan.delta {
            batch.push((CURATION, delta));
        }
    }
    let outcome = crate::apply(&mut playbook, batch, curation, &opts.apply);
    let output = match outcome.changed() {
        true => Output::Whole,
        false => Output::Same,
    };
    let applied = Applied {
        format: Format::JSON,
        text: "",
        companion: None,
        playbook,
        files: Vec::new(),
        outcome,
        output,
        splice_losses: Vec::new(),
        curated: Curated::default(),
        wctx: WriteCtx::default().with_now(Some(opts.apply.now.clone())),
    };
    finish_curated(applied, files, curated)
}

/// The delta files read, and their deltas as one batch, each with the
/// index of its file.
fn read_all<'a>(
    deltas: &[DeltaSource<'a>],
    opts: &RunOptions<'_>,
) -> (Vec<DeltaFile<'a>>, Vec<(usize, Delta)>) {
    let mut files = Vec::with_capacity(deltas.len());
    let mut batch = Vec::new();
    for (i, s) in deltas.iter().enumerate() {
        let (file, read) = read_delta_file(opts.registry, *s, opts.dialect, &opts.read);
        files.push(file);
        batch.extend(read.into_iter().map(|d| (i, d)));
    }
    (files, batch)
}

/// Applies deltas already read (each with the index of the file it came
/// from) to the playbook: [`run`] without reading, for a caller that made
/// its deltas (ace-merge's plan). A batch given by value is consumed as it
/// is applied; a borrowed one is copied.
pub fn apply_to<'a, 'b>(
    subject: Subject<'a>,
    batch: impl Into<Cow<'b, [(usize, Delta)]>>,
    opts: &Options,
) -> Applied<'a> {
    let Subject {
        format,
        text,
        companion,
        mut playbook,
    } = subject;
    let curation = format.imp().curation(&playbook);
    let outcome = crate::apply(&mut playbook, batch.into().into_owned(), &curation, opts);
    let wctx = WriteCtx::default().with_now(Some(opts.now.clone()));
    let (output, splice_losses) = if !outcome.changed() {
        // Nothing applied: the file is left as it is, byte for byte,
        // rather than rewritten by a writer that may not keep every byte.
        (Output::Same, Vec::new())
    } else {
        // The file's own writer splices what changed; in plain text, what
        // it cannot hold raw is escaped first, as a whole write does.
        let (spliced, escapes) = format.text_safe(&playbook);
        match format.imp().rewrite(text, &outcome.before, &spliced, &wctx) {
            Some((edits, report)) => {
                let mut losses = outcome.losses.clone();
                losses.extend(report.losses);
                losses.extend(escapes);
                (Output::Spliced(edits), losses)
            }
            None => (Output::Whole, Vec::new()),
        }
    };
    Applied {
        format,
        text,
        companion,
        playbook,
        files: Vec::new(),
        outcome,
        output,
        splice_losses,
        curated: Curated::default(),
        wctx,
    }
}

impl<'a> Applied<'a> {
    /// How many deltas were refused, counting each unreadable file as one.
    pub fn refused(&self) -> usize {
        self.outcome.rejected().count() + self.unreadable().count()
    }

    fn unreadable(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files
            .iter()
            .filter_map(|f| Some((f.source.name, f.unreadable.as_deref()?)))
    }

    /// The playbook's files after the deltas, as text.
    pub fn texts(&self) -> Texts {
        match &self.output {
            Output::Same => Texts {
                main: self.text.to_owned(),
                companion: self.companion.map(str::to_owned),
                losses: Vec::new(),
            },
            Output::Spliced(edits) => Texts {
                main: edits.text(self.text),
                companion: self.companion.map(str::to_owned),
                losses: self.splice_losses.clone(),
            },
            Output::Whole => {
                let files = ace_registry::write_files(self.format, &self.playbook, &self.wctx);
                let mut losses = self.outcome.losses.clone();
                losses.extend(files.losses);
                Texts {
                    main: files.main,
                    companion: files.companion,
                    losses,
                }
            }
        }
    }

    /// The playbook's own file after the deltas, as its format's writer
    /// alone writes it when it writes the whole playbook (no companion).
    pub fn main_text(&self) -> String {
        match &self.output {
            Output::Same => self.text.to_owned(),
            Output::Spliced(edits) => edits.text(self.text),
            Output::Whole => ace_registry::write_with(self.format, &self.playbook, &self.wctx).text,
        }
    }

    /// The AGENTS.md curator's output object for these texts:
    /// `{patchAgentsMd, playbookYaml, accepted, rejected}`, the patch a
    /// unified diff of the playbook's file (named `name`) and the YAML the
    /// new companion.
    pub fn curator_output(&self, name: &str, texts: &Texts) -> serde_json::Value {
        let r = self.outcome.report_json();
        serde_json::json!({
            "patchAgentsMd": crate::unified(name, self.text, &texts.main),
            "playbookYaml": texts.companion.clone().unwrap_or_default(),
            "accepted": r["accepted"],
            "rejected": r["rejected"],
        })
    }

    /// The ace_beads curator's report, `{accepted: [id], rejected: [{id,
    /// reason, message}]}`, with each unreadable file rejected as
    /// `invalid`; with `--dedup` or `--prune`, also what they did
    /// ([`Curated::to_json`]).
    pub fn report_json(&self) -> serde_json::Value {
        let mut r = self.outcome.report_json_with(self.unreadable());
        if let (Some(obj), serde_json::Value::Object(c)) =
            (r.as_object_mut(), self.curated.to_json())
        {
            obj.extend(c);
        }
        r
    }

    /// A line per delta (`FILE:LINE:COL: applied ID (N changes)` or
    /// `rejected ID (REASON): message`), the IDs given to new entries, the
    /// operations passed over, what `--prune` deprecated, and a summary;
    /// `prog` names the tool.
    /// File names, IDs and messages come from the files: a control
    /// character or a line break in them is shown as `[U+XXXX]`
    /// ([`push_line`]), so each line is the tool's.
    pub fn report_text(&self, prog: &str) -> String {
        let mut out = String::new();
        for f in &self.files {
            if let Some(why) = &f.unreadable {
                push_line(
                    &mut out,
                    format_args!("{why}: rejected (invalid): not read as a delta"),
                );
            }
        }
        let indexes: Vec<LineIndex> = self
            .files
            .iter()
            .map(|f| LineIndex::new(f.source.text))
            .collect();
        for v in &self.outcome.verdicts {
            let (name, text, index) = match self.files.get(v.source) {
                Some(f) => (f.source.name, f.source.text, &indexes[v.source]),
                None => continue,
            };
            let span = v.refusal.as_ref().map_or(v.span, |r| r.span);
            let at = index.line_col(text, span.start);
            let place = format!("{name}:{}:{}", at.line, at.col);
            match &v.refusal {
                None => push_line(
                    &mut out,
                    format_args!(
                        "{place}: applied {} ({} change{})",
                        v.id,
                        v.applied,
                        if v.applied == 1 { "" } else { "s" }
                    ),
                ),
                Some(r) => push_line(
                    &mut out,
                    format_args!(
                        "{place}: rejected {} ({}): {}",
                        v.id,
                        r.reason.code(),
                        r.message
                    ),
                ),
            };
        }
        for (label, id) in &self.outcome.minted {
            push_line(
                &mut out,
                format_args!("{prog}: {label}: new entry given ID `{id}`"),
            );
        }
        for p in &self.outcome.passed_over {
            match p.target {
                Target::Unnamed(key) => push_line(
                    &mut out,
                    format_args!(
                        "{prog}: {}: passed over `{}`, which has no `{key}` and so names no entry",
                        p.delta, p.operation
                    ),
                ),
                Target::Id(_) | Target::Key(_) => push_line(
                    &mut out,
                    format_args!(
                        "{prog}: {}: passed over `{}` on {}, which the playbook does not have",
                        p.delta, p.operation, p.target
                    ),
                ),
            }
        }
        out.push_str(&self.curated.report_text(prog));
        if !self.files.is_empty() {
            push_line(
                &mut out,
                format_args!(
                    "{prog}: {} delta(s) applied, {} rejected",
                    self.outcome.accepted().count(),
                    self.refused()
                ),
            );
        }
        out
    }

    /// Writes the playbook's files to `dest`: the file's own bytes or the
    /// edits over them as pieces, else the format's writer straight into
    /// the file (and its companion). `in_place` with nothing applied
    /// leaves the files as they are. `on_losses` gets what the writer
    /// could not hold, with the target's name. Files of `held` are renamed
    /// over only if they are as they were read.
    pub fn write_to(
        &self,
        dest: &Destination,
        in_place: bool,
        held: Option<&ace_fs::Held>,
        on_losses: &mut dyn FnMut(&[LossEntry], &str),
    ) -> Result<(), Stop> {
        let io = |p: &std::path::Path, e: std::io::Error| Stop::Usage(ace_model::Error::io(p, e));
        let edits = match &self.output {
            Output::Whole => {
                if !self.outcome.losses.is_empty() {
                    on_losses(&self.outcome.losses, self.format.name());
                }
                ace_registry::convert::write_output(
                    &self.playbook,
                    self.format,
                    &self.wctx,
                    dest,
                    false,
                    held,
                    on_losses,
                )?;
                return Ok(());
            }
            Output::Spliced(edits) => Some(edits),
            Output::Same => None,
        };
        let none = Edits::default();
        let pieces = || edits.unwrap_or(&none).pieces(self.text);
        let same = edits.is_none();
        match dest {
            Destination::Stdout => ace_fs::write_stdout(pieces()).map_err(|e| {
                Stop::Usage(ace_model::Error::io(std::path::Path::new("<stdout>"), e))
            })?,
            // In place, the file already is what it would become.
            Destination::File(_) if in_place && same => {}
            Destination::File(p) => {
                ace_fs::write_atomic_pieces(p, pieces(), held).map_err(|e| io(p, e))?
            }
            Destination::Pair {
                dir,
                main,
                companion,
            } => {
                if in_place && dir.is_none() && same {
                    return Ok(());
                }
                if let Some(d) = dir {
                    std::fs::create_dir_all(d).map_err(|e| io(d, e))?;
                }
                if let Some(h) = held {
                    h.unchanged()
                        .map_err(|e| Stop::Usage(ace_model::Error::Refused(e.to_string())))?;
                }
                ace_fs::write_atomic_pieces(main, pieces(), held).map_err(|e| io(main, e))?;
                let text = self.companion.unwrap_or_default();
                ace_fs::write_atomic(companion, text.as_bytes(), held)
                    .map_err(|e| io(companion, e))?;
            }
        }
        Ok(())
    }
}

/// A unified diff of `old` to `new`, as `diff -u` and git print it, with
/// `name` in its headers; empty when they are the same.
pub fn unified(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}
