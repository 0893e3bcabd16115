//! `ace-apply PLAYBOOK --dedup`: each cluster of near-duplicate entries
//! becomes one, as the skill spec's curator merges bullets (docs/budget.md).
//!
//! - Alike: ACE061's lexical similarity (the Jaccard index of the word sets
//!   of title and content above `similarity`), with the tags' overlap
//!   above `tag-overlap` where both entries have tags; the same normalised
//!   content (ACE008) too. Active entries only, within a section unless
//!   asked otherwise; a pair the file keeps apart on purpose (kayba's
//!   `similarity_decisions` of `KEEP`) is never merged.
//! - A cluster is the entries joined by such pairs. The entry kept has the
//!   best score (`helpful - harmful`), the earliest in the file among
//!   equals; the others' counters are added to it, with their evidence
//!   and the items of their list fields (a skillbook's `occurrences`).
//! - The others are removed, or with `--deprecate` in a format with a
//!   status archived with `superseded_by` naming the entry kept (and their
//!   IDs in its `supersedes`), where the format holds those fields: the
//!   skill spec's merge.

use std::collections::{HashMap, HashSet};

use ace_model::delta::{Change, Delta, Op};
use ace_model::{Entry, Playbook, Span, Status};

/// What `--dedup` is asked to do.
#[derive(Debug, Clone)]
pub struct DedupOptions {
    /// ACE061's `similarity` (0.8).
    pub similarity: f64,
    /// ACE061's `tag-overlap` (0.7).
    pub tag_overlap: f64,
    /// Merge entries of different sections too.
    pub across_sections: bool,
    /// Archive the merged entries rather than remove them, where the format
    /// holds a status.
    pub deprecate: bool,
}

impl Default for DedupOptions {
    fn default() -> Self {
        let lint = ace_lint::Options::default();
        DedupOptions {
            similarity: lint.similarity,
            tag_overlap: lint.tag_overlap,
            across_sections: false,
            deprecate: false,
        }
    }
}

/// One cluster merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The entry kept.
    pub keep: String,
    /// The entries folded into it, in file order.
    pub merged: Vec<String>,
    pub section: Option<String>,
    /// The least similarity of the pairs that joined the cluster.
    pub similarity: f64,
    /// Its counters once merged.
    pub helpful: i64,
    pub harmful: i64,
}

/// What the format holds, as de-duplication needs it.
pub struct Holds<'a> {
    pub status: bool,
    /// Whether an entry field (`supersedes`, `superseded_by`) is held.
    pub field: &'a dyn Fn(&str) -> bool,
    /// Pairs kept apart on purpose.
    pub kept_apart: &'a [(String, String)],
}

/// The merges of `pb`'s near-duplicates, and the delta that makes them.
pub fn plan(pb: &Playbook, opts: &DedupOptions, holds: &Holds<'_>) -> (Option<Delta>, Vec<Merged>) {
    let active: Vec<usize> = (0..pb.entries.len())
        .filter(|&i| !ace_check::budget::retired(&pb.entries[i]))
        .collect();
    let entries: Vec<&Entry> = active.iter().map(|&i| &pb.entries[i]).collect();
    // ACE061's relation: each entry joins the earliest entry it repeats,
    // so a cluster is the entries linked to its first; searched section
    // by section unless asked otherwise.
    let how = ace_lint::Similarity {
        similarity: opts.similarity,
        tag_overlap: opts.tag_overlap,
        untagged: true,
        exact: true,
    };
    let apart: HashSet<(&str, &str)> = holds
        .kept_apart
        .iter()
        .flat_map(|(a, b)| [(a.as_str(), b.as_str()), (b.as_str(), a.as_str())])
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    if opts.across_sections {
        groups.push((0..entries.len()).collect());
    } else {
        let mut at: HashMap<Option<&str>, usize> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            let g = *at.entry(e.section.as_deref()).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
        }
    }
    let mut parent: Vec<usize> = (0..entries.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut least: HashMap<usize, f64> = HashMap::new();
    for group in &groups {
        let members: Vec<&Entry> = group.iter().map(|&i| entries[i]).collect();
        for p in ace_lint::similar_pairs(&members, &how) {
            let (earlier, later) = (group[p.earlier], group[p.later]);
            let (a, b) = (entries[earlier], entries[later]);
            if apart.contains(&(a.id.as_str(), b.id.as_str())) {
                continue;
            }
            let (ra, rb) = (root(&mut parent, earlier), root(&mut parent, later));
            let r = ra.min(rb);
            let s = [least.remove(&ra), least.remove(&rb), Some(p.similarity)]
                .into_iter()
                .flatten()
                .fold(f64::INFINITY, f64::min);
            parent[ra] = r;
            parent[rb] = r;
            least.insert(r, s);
        }
    }
    let mut clusters: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut at: HashMap<usize, usize> = HashMap::new();
    for i in 0..entries.len() {
        let r = root(&mut parent, i);
        if r == i && !least.contains_key(&r) {
            continue;
        }
        let c = *at.entry(r).or_insert_with(|| {
            clusters.push((r, Vec::new()));
            clusters.len() - 1
        });
        clusters[c].1.push(i);
    }
    if clusters.is_empty() {
        return (None, Vec::new());
    }
    let mut d = Delta::new(Span::default());
    let mut merged = Vec::new();
    let op = |change| Op {
        change,
        span: Span::default(),
    };
    for (r, members) in clusters {
        // The best score, the earliest among equals.
        let keep = *members
            .iter()
            .min_by_key(|&&i| {
                let e = entries[i];
                (
                    std::cmp::Reverse(e.helpful.unwrap_or(0) - e.harmful.unwrap_or(0)),
                    i,
                )
            })
            .expect("a cluster has members");
        let k = entries[keep];
        let target = crate::diff::target(k);
        let others: Vec<&Entry> = members
            .iter()
            .filter(|&&i| i != keep)
            .map(|&i| entries[i])
            .collect();
        let sum =
            |f: fn(&Entry) -> Option<i64>| others.iter().map(|e| f(e).unwrap_or(0)).sum::<i64>();
        let (helpful, harmful, neutral) =
            (sum(|e| e.helpful), sum(|e| e.harmful), sum(|e| e.neutral));
        if (helpful, harmful, neutral) != (0, 0, 0) {
            d.ops.push(op(Change::Count {
                target: target.clone(),
                helpful,
                harmful,
                neutral,
            }));
        }
        // Evidence and list items, each joined once.
        let mut kept = k.clone();
        for o in &others {
            for c in crate::merge::provenance_of(o, &kept) {
                match &c {
                    Change::Set { from, .. } => kept.evidence.clone_from(&from.evidence),
                    Change::Append { field, values, .. } => {
                        let name = field.trim_start_matches("extra.");
                        let list = kept
                            .extra
                            .get_or_insert_with(name, || serde_json::Value::Array(Vec::new()));
                        if let Some(a) = list.as_array_mut() {
                            a.extend(values.iter().cloned());
                        }
                    }
                    _ => {}
                }
                d.ops.push(op(c));
            }
        }
        // The merged entries' IDs, where they stay in the file to be named.
        if opts.deprecate && holds.status && (holds.field)("supersedes") {
            let mut list = k.supersedes.clone().unwrap_or_default();
            for o in &others {
                if !list.contains(&o.id) {
                    list.push(o.id.clone());
                }
            }
            let mut from = k.clone();
            from.supersedes = Some(list);
            d.ops.push(op(Change::Set {
                target: target.clone(),
                from: Box::new(from),
                fields: vec!["supersedes".into()],
            }));
        }
        for o in &others {
            let t = crate::diff::target(o);
            if opts.deprecate && holds.status {
                let mut from = (*o).clone();
                from.status = Some(Status::Archived);
                from.deprecation_reason = Some(format!("Merged into {}", k.id));
                let mut fields = vec!["status".to_owned(), "deprecation_reason".to_owned()];
                if (holds.field)("superseded_by") {
                    from.superseded_by = Some(k.id.clone());
                    fields.push("superseded_by".into());
                }
                d.ops.push(op(Change::Set {
                    target: t,
                    from: Box::new(from),
                    fields,
                }));
            } else if !holds.status {
                // A deprecation removes the entry here, and reads the same
                // in dialects without a removal.
                d.ops.push(op(Change::Deprecate {
                    target: t,
                    reason: Some(format!("Merged into {}", k.id)),
                }));
            } else {
                d.ops.push(op(Change::Remove { target: t }));
            }
        }
        merged.push(Merged {
            keep: k.id.clone(),
            merged: others.iter().map(|o| o.id.clone()).collect(),
            section: k.section.clone(),
            similarity: least.get(&r).copied().unwrap_or(1.0),
            helpful: k.helpful.unwrap_or(0) + helpful,
            harmful: k.harmful.unwrap_or(0) + harmful,
        });
    }
    (Some(d), merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, section: &str, content: &str, helpful: i64, harmful: i64) -> Entry {
        let mut e = Entry::new(id, content);
        e.section = Some(section.into());
        e.helpful = Some(helpful);
        e.harmful = Some(harmful);
        e
    }

    fn pb(entries: Vec<Entry>) -> Playbook {
        Playbook {
            entries,
            ..Playbook::default()
        }
    }

    fn holds<'a>(apart: &'a [(String, String)], f: &'a dyn Fn(&str) -> bool) -> Holds<'a> {
        Holds {
            status: false,
            field: f,
            kept_apart: apart,
        }
    }

    #[test]
    fn near_duplicates_in_a_section_merge_into_the_best_scored() {
        let p = pb(vec![
            entry(
                "s-1",
                "a",
                "Always check the HTTP status code before parsing the body",
                1,
                0,
            ),
            entry(
                "s-2",
                "a",
                "Always check the HTTP status code before parsing a body",
                4,
                1,
            ),
            entry(
                "s-3",
                "b",
                "Always check the HTTP status code before parsing the body",
                2,
                0,
            ),
            entry("s-4", "a", "Use pagination for listing endpoints", 0, 0),
        ]);
        let no = |_: &str| false;
        let (d, merged) = plan(&p, &DedupOptions::default(), &holds(&[], &no));
        assert_eq!(merged.len(), 1, "{merged:?}");
        assert_eq!(merged[0].keep, "s-2");
        assert_eq!(merged[0].merged, vec!["s-1".to_owned()]);
        assert_eq!((merged[0].helpful, merged[0].harmful), (5, 1));
        let d = d.expect("a delta");
        assert!(matches!(
            &d.ops[0].change,
            Change::Count {
                helpful: 1,
                harmful: 0,
                ..
            }
        ));
        assert!(matches!(
            &d.ops.last().expect("ops").change,
            Change::Deprecate { .. }
        ));
        let across = DedupOptions {
            across_sections: true,
            ..DedupOptions::default()
        };
        let (_, merged) = plan(&p, &across, &holds(&[], &no));
        assert_eq!(merged[0].merged, vec!["s-1".to_owned(), "s-3".to_owned()]);
    }

    #[test]
    fn a_pair_kept_apart_is_not_merged() {
        let p = pb(vec![
            entry(
                "s-1",
                "a",
                "Always check the HTTP status code before parsing the body",
                1,
                0,
            ),
            entry(
                "s-2",
                "a",
                "Always check the HTTP status code before parsing a body",
                4,
                1,
            ),
        ]);
        let no = |_: &str| false;
        let apart = vec![("s-2".to_owned(), "s-1".to_owned())];
        let (d, merged) = plan(&p, &DedupOptions::default(), &holds(&apart, &no));
        assert!(d.is_none() && merged.is_empty());
    }
}
