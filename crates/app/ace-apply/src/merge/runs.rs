//! Runs that started from one playbook, merged into one: each run's
//! difference from BASE is planned against what the runs before it made
//! ([`super::plan_diffs`]) and applied in turn, and the deltas together
//! are written over BASE's file as ace-apply writes, keeping its layout.
//! Counters end as BASE plus every run's change; new entries are kept in
//! run order, the same lesson learned by two runs once with its counters
//! added, an ID two runs gave different entries renumbered in the later
//! run; two runs changing one field differently conflict, the earlier
//! run's value kept.

use std::collections::HashMap;

use ace_model::delta::Delta;
use ace_model::Playbook;
use ace_registry::Format;

use super::{plan_diffs, Conflict, Fresh, Joined, Renumbered};
use crate::diff::{diff, EntryDiff};
use crate::{apply, apply_to, Options, Subject};

/// Two runs' changes of one field that cannot both be made.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConflict {
    /// The run whose value was kept (an earlier one), if one run made it.
    pub kept_run: Option<usize>,
    /// The run whose change was not made.
    pub run: usize,
    /// `ours`: the value kept; `theirs`: the run's.
    pub conflict: Conflict,
}

/// What [`merge_runs`] made.
#[derive(Debug, Clone)]
pub struct MergedRuns {
    pub text: String,
    pub playbook: Playbook,
    pub conflicts: Vec<RunConflict>,
    /// `(run, renumbering)`: a run's new entry given the next free ID.
    pub renumbered: Vec<(usize, Renumbered)>,
    /// `(run, joined)`: a run's new entry that an earlier run added.
    pub joined: Vec<(usize, Joined)>,
    /// `(run, message)`: changes the engine refused.
    pub refused: Vec<(usize, String)>,
}

/// Merges `runs` (each a playbook read from a file of `format`) that all
/// started from `base`, whose text `base_text` the result is written over.
/// `now` (RFC 3339) is the time of what the merge itself stamps.
pub fn merge_runs(
    format: Format,
    base_text: &str,
    base: &Playbook,
    runs: &[&Playbook],
    now: &str,
) -> MergedRuns {
    let opts = Options {
        now: now.to_owned(),
        verbatim: true,
        ..Options::default()
    };
    let curation = format.imp().curation(base);
    let mut current = base.clone();
    let mut batch: Vec<(usize, Delta)> = Vec::with_capacity(runs.len());
    // Which run made each change first: (entry, field), and (entry,
    // "entry") for one it added, removed or changed at all.
    let mut owner: HashMap<(String, String), usize> = HashMap::new();
    let mut out = MergedRuns {
        text: String::new(),
        playbook: Playbook::default(),
        conflicts: Vec::new(),
        renumbered: Vec::new(),
        joined: Vec::new(),
        refused: Vec::new(),
    };
    for (i, run) in runs.iter().enumerate() {
        let fresh = Fresh {
            sum_same: true,
            ..Fresh::of(format, &current, now)
        };
        let d_ours = diff(base, &current);
        let d_run = diff(base, run);
        let p = plan_diffs(&d_ours, d_run, &current, &fresh);
        for c in &p.conflicts {
            let kept_run = owner
                .get(&(c.entry.clone(), c.field.clone()))
                .or_else(|| owner.get(&(c.entry.clone(), "entry".to_owned())))
                .copied();
            out.conflicts.push(RunConflict {
                kept_run,
                run: i,
                conflict: c.clone(),
            });
        }
        for c in &p.theirs.entries {
            let (entry, fields): (String, &[String]) = match c {
                EntryDiff::Added(e) => (super::name(e), &[]),
                EntryDiff::Removed(e) => (super::name(e), &[]),
                EntryDiff::Changed { old, fields, .. } => (super::name(old), fields),
            };
            for f in fields.iter().map(String::as_str).chain(["entry"]) {
                owner.entry((entry.clone(), f.to_owned())).or_insert(i);
            }
        }
        out.renumbered
            .extend(p.renumbered.iter().cloned().map(|r| (i, r)));
        out.joined.extend(p.joined.iter().cloned().map(|j| (i, j)));
        let applied = apply(&mut current, vec![(i, p.delta.clone())], &curation, &opts);
        out.refused.extend(
            applied
                .rejected()
                .filter_map(|v| Some((i, v.refusal.as_ref()?.message.clone()))),
        );
        batch.push((i, p.delta));
    }
    // The deltas together over BASE's own file: what the fold made,
    // written as ace-apply writes it.
    let subject = Subject {
        format,
        text: base_text,
        companion: None,
        playbook: base.clone(),
    };
    let applied = apply_to(subject, &batch, &opts);
    out.text = applied.main_text();
    out.playbook = applied.playbook;
    out
}

impl MergedRuns {
    /// The conflicts as `ace-merge --conflicts` lists them, for the merged
    /// text at `path`, the runs named by `names`: `{path, line, entry,
    /// field, run, value, kept_run, kept}`, `line` being the entry's in
    /// the merged text and `kept_run` null where BASE's value was kept.
    pub fn conflicts_json(
        &self,
        format: Format,
        path: &str,
        names: &[String],
    ) -> Vec<serde_json::Value> {
        if self.conflicts.is_empty() {
            return Vec::new();
        }
        let ctx = ace_registry::ReadCtx::min(ace_model::Severity::Error);
        let origins: HashMap<String, usize> = format
            .read(&self.text, &ctx)
            .map(|r| {
                r.parsed
                    .playbook
                    .entries
                    .into_iter()
                    .filter_map(|e| Some((e.id, e.origin.0?.start)))
                    .collect()
            })
            .unwrap_or_default();
        let lines = ace_model::LineIndex::new(&self.text);
        let name = |i: usize| run_name(names, i);
        self.conflicts
            .iter()
            .map(|rc| {
                let c = &rc.conflict;
                let line = origins
                    .get(&c.entry)
                    .map_or(1, |&at| lines.line_col(&self.text, at).line);
                serde_json::json!({
                    "path": path, "line": line, "entry": c.entry, "field": c.field,
                    "run": name(rc.run), "value": c.theirs,
                    "kept_run": rc.kept_run.map(name), "kept": c.ours,
                })
            })
            .collect()
    }

    /// The new entries given other IDs, as `ace-merge --id-map` lists
    /// them: `{run, old, new}`, with `"joined": true` where the entry is
    /// one an earlier run added.
    pub fn id_map_json(&self, names: &[String]) -> Vec<serde_json::Value> {
        super::id_map_json(
            self.renumbered
                .iter()
                .map(|(i, r)| (run_name(names, *i), r)),
            self.joined.iter().map(|(i, j)| (run_name(names, *i), j)),
        )
    }
}

/// Run `i`'s name: `names[i]`, else `#i+1`, as the Python module names
/// runs.
fn run_name(names: &[String], i: usize) -> String {
    names
        .get(i)
        .cloned()
        .unwrap_or_else(|| format!("#{}", i + 1))
}
