//! The append-only rules of the vAgenda ACE extension and the append-only ADR, checked by comparing a
//! playbook with an earlier version of itself (`ace-validate --baseline`).

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use ace_model::{rules, Diagnostic, Playbook, Span};
use serde_json::Value;

use crate::span;

/// One version of a playbook: the model and the vAgenda document `sequence`
/// when the file has one.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot<'a> {
    pub playbook: &'a Playbook,
    pub sequence: Option<i64>,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Compares a version number as the vAgenda ACE extension does (a number), or a dotted
/// version part by part; `None` when the two cannot be compared.
fn compare_versions(old: &Value, new: &Value) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (old.as_f64(), new.as_f64()) {
        return a.partial_cmp(&b);
    }
    let parts = |v: &Value| -> Option<Vec<u64>> {
        let s = match v {
            Value::String(s) => s.trim().trim_start_matches('v').to_owned(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        s.split('.').map(|p| p.parse().ok()).collect()
    };
    let (a, b) = (parts(old)?, parts(new)?);
    Some(a.cmp(&b))
}

/// What the file's own format can record: which changes history allows
/// and which fix a hint may ask for. A markdown playbook has no `status`
/// and no links, so it cannot deprecate or supersede an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Form {
    /// An entry can be marked deprecated (`status`) rather than removed.
    pub status: bool,
    /// An entry can name the entry it revises (`supersedes`).
    pub links: bool,
    /// The pruning rule's N (`harmful > helpful + N`): where `status`
    /// cannot be held, an entry whose baseline counters meet it may be
    /// removed, as the paper's curator removes it.
    pub threshold: i64,
}

impl Default for Form {
    /// A format that holds everything (vAgenda, the canonical JSON).
    fn default() -> Self {
        Form {
            status: true,
            links: true,
            threshold: 3,
        }
    }
}

/// Whether the baseline's counters of `e` meet the pruning rule.
fn prunable(e: &ace_model::Entry, threshold: i64) -> bool {
    match (e.helpful, e.harmful) {
        (Some(helpful), Some(harmful)) => harmful > helpful.saturating_add(threshold),
        _ => false,
    }
}

/// Every way `new` rewrites the history recorded in `old`, for a file of a
/// format that records what `form` says. Findings point at the entry in
/// `new`, or at the start of the file for what is gone.
pub fn history(old: Snapshot, new: Snapshot, form: Form) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let at_start = Span::new(0, 0);
    let now: HashMap<&str, &ace_model::Entry> = new
        .playbook
        .entries
        .iter()
        .map(|e| (e.id.as_str(), e))
        .collect();
    let superseded: HashSet<&str> = new
        .playbook
        .entries
        .iter()
        .flat_map(|e| e.supersedes.iter().flatten().map(String::as_str))
        .collect();
    let mut removed = Vec::new();
    let mut seen = HashSet::new();
    for before in &old.playbook.entries {
        if !seen.insert(before.id.as_str()) {
            continue;
        }
        let Some(after) = now.get(before.id.as_str()) else {
            if form.status || !prunable(before, form.threshold) {
                removed.push(before.id.as_str());
            }
            continue;
        };
        let linked = after.superseded_by.is_some()
            || after.supersedes.as_ref().is_some_and(|s| !s.is_empty())
            || superseded.contains(after.id.as_str());
        if collapse(&before.content) != collapse(&after.content) && !linked {
            out.push(
                Diagnostic::new(
                    &rules::HISTORY_CONTENT_CHANGED,
                    span(after),
                    format!(
                        "entry `{}` changed its content since the baseline, with no `supersedes`/`supersededBy` link",
                        after.id
                    ),
                )
                .with_help(if form.links {
                    "keep the old entry, add the revision as a new entry that supersedes it"
                } else {
                    "keep the old entry as it was, and add the revision as a new entry with an ID of its own"
                }),
            );
        }
        for (name, was, is) in [
            ("helpful", before.helpful, after.helpful),
            ("harmful", before.harmful, after.harmful),
            ("neutral", before.neutral, after.neutral),
        ] {
            let message = match (was, is) {
                (Some(w), Some(i)) if i < w => format!(
                    "entry `{}`: `{name}` went down from {w} to {i}; counters only grow",
                    after.id
                ),
                (Some(w), None) => format!(
                    "entry `{}`: `{name}` was {w} in the baseline and is gone",
                    after.id
                ),
                _ => continue,
            };
            out.push(Diagnostic::new(
                &rules::HISTORY_COUNTER_DECREASED,
                span(after),
                message,
            ));
        }
    }
    if !removed.is_empty() {
        let list = removed
            .iter()
            .take(10)
            .map(|id| format!("`{id}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let more = if removed.len() > 10 {
            format!(" and {} more", removed.len() - 10)
        } else {
            String::new()
        };
        out.push(
            Diagnostic::new(
                &rules::HISTORY_ENTRY_REMOVED,
                at_start,
                format!(
                    "{} entr{} of the baseline removed: {list}{more}",
                    removed.len(),
                    if removed.len() == 1 { "y" } else { "ies" }
                ),
            )
            .with_help(if form.status {
                "put the entries back and set `status: deprecated` instead".to_owned()
            } else {
                format!(
                    "put the entries back: this format has no `status` to retire an entry with, so an entry may go only once its counters meet the pruning rule (harmful > helpful + {})",
                    form.threshold
                )
            }),
        );
    }
    if let (Some(a), Some(b)) = (&old.playbook.version, &new.playbook.version) {
        if compare_versions(a, b) == Some(Ordering::Greater) {
            out.push(Diagnostic::new(
                &rules::HISTORY_VERSION_BACKWARDS,
                at_start,
                format!("playbook version went back from {a} to {b}"),
            ));
        }
    }
    if let (Some(a), Some(b)) = (old.sequence, new.sequence) {
        if b < a {
            out.push(Diagnostic::new(
                &rules::HISTORY_VERSION_BACKWARDS,
                at_start,
                format!("document sequence went back from {a} to {b}"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ace_model::Entry;

    fn pb(entries: Vec<Entry>, version: Option<Value>) -> Playbook {
        Playbook {
            entries,
            version,
            ..Playbook::default()
        }
    }

    fn counted(id: &str, content: &str, helpful: i64) -> Entry {
        let mut e = Entry::new(id, content);
        e.helpful = Some(helpful);
        e.harmful = Some(0);
        e
    }

    fn codes(old: &Playbook, new: &Playbook) -> Vec<&'static str> {
        codes_in(old, new, Form::default())
    }

    fn snap(p: &Playbook) -> Snapshot<'_> {
        Snapshot {
            playbook: p,
            sequence: None,
        }
    }

    fn codes_in(old: &Playbook, new: &Playbook, form: Form) -> Vec<&'static str> {
        history(snap(old), snap(new), form)
            .into_iter()
            .map(|d| d.code)
            .collect()
    }

    /// The markdown playbook's form: no status, no links.
    const PLAIN: Form = Form {
        status: false,
        links: false,
        threshold: 3,
    };

    #[test]
    fn a_format_without_status_may_prune_by_the_papers_rule() {
        let mut bad = counted("bad", "Always retry", 1);
        bad.harmful = Some(5);
        let mut close = counted("close", "Sometimes retry", 1);
        close.harmful = Some(4);
        let old = pb(vec![bad, close, counted("ok", "Use x", 1)], None);
        let new = pb(vec![counted("ok", "Use x", 1)], None);
        let found = history(snap(&old), snap(&new), PLAIN);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].code, "ACE073");
        assert!(found[0].message.contains("`close`") && !found[0].message.contains("`bad`"));
        let help = found[0].help.as_deref().unwrap();
        assert!(!help.contains("status:"), "{help}");
        assert!(help.contains("harmful > helpful + 3"), "{help}");
        // Where `status` can be held, pruning is still a removal.
        assert_eq!(codes(&old, &new), ["ACE073"]);
    }

    #[test]
    fn hints_ask_only_for_what_the_format_can_hold() {
        let old = pb(vec![counted("a", "Use x", 1)], None);
        let new = pb(vec![counted("a", "Use z", 1)], None);
        let plain = history(snap(&old), snap(&new), PLAIN);
        let linked = history(snap(&old), snap(&new), Form::default());
        assert!(!plain[0].help.as_deref().unwrap().contains("supersedes"));
        assert!(linked[0].help.as_deref().unwrap().contains("supersedes"));
    }

    #[test]
    fn append_only_changes_pass() {
        let old = pb(vec![counted("a", "Use x", 1)], Some(3.into()));
        let mut revised = counted("a", "Use  x ", 2);
        revised.status = Some(ace_model::Status::Deprecated);
        let new = pb(vec![revised, counted("b", "new", 0)], Some(4.into()));
        assert!(codes(&old, &new).is_empty());
    }

    #[test]
    fn each_rewrite_of_history_is_reported() {
        let old = pb(
            vec![counted("a", "Use x", 3), counted("b", "Use y", 0)],
            Some("1.2".into()),
        );
        let new = pb(vec![counted("a", "Use z", 1)], Some("1.10".into()));
        assert_eq!(codes(&old, &new), ["ACE074", "ACE075", "ACE073"]);
        let newer = pb(vec![], Some("1.1".into()));
        assert!(codes(&old, &newer).contains(&"ACE076"));
    }

    #[test]
    fn a_linked_revision_may_change_content() {
        let old = pb(vec![counted("a", "Use x", 1)], None);
        let mut a = counted("a", "Use x, then y", 1);
        a.superseded_by = Some("b".into());
        let mut b = counted("b", "Use y", 0);
        b.supersedes = Some(vec!["a".into()]);
        assert!(codes(&old, &pb(vec![a, b], None)).is_empty());
    }
}
