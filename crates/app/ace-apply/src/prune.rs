//! `ace-apply PLAYBOOK --prune`: entries removed (or deprecated) until the
//! playbook fits its budget, in an order that is documented and
//! deterministic (docs/budget.md):
//!
//! 1. entries already deprecated or archived (removed; left as they are
//!    under `--deprecate`), and entries the ACE playbook format spec prunes,
//!    `harmful > helpful + N`;
//! 2. then, while a limit is exceeded, the active entries of lowest score
//!    (`helpful - harmful`), the least recently updated first where the
//!    format keeps times, ties broken by ID: the number of a
//!    `prefix-NNNNN` ID (the order entries were added in, across
//!    prefixes), else the whole ID.
//!
//! Pruning is a delta of removals or deprecations applied by the engine,
//! so the kept entries keep their bytes, and `--check` and `--diff` work
//! as for any delta. The token limit is met exactly: the estimate from
//! each entry's own text picks the entries, the written result is counted,
//! and the count decides.

use ace_check::budget::{self, Budget, Usage};
use ace_model::delta::{Change, Delta, Op};
use ace_model::{Entry, Playbook, Span};
use ace_registry::Format;

/// What `--prune` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct PruneOptions {
    pub budget: Budget,
    /// The spec's rule: `harmful > helpful + threshold` goes first (3).
    pub threshold: i64,
    /// Deprecate rather than remove, where the format holds a status.
    pub deprecate: bool,
    /// Which entries may go: a project's own, in a playbook that holds
    /// several (ace_claude_mcp's curation of one project). A budget
    /// counts only these.
    pub among: Among,
}

/// The entries a prune may choose from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Among {
    #[default]
    All,
    /// Those in no project (or in `shared`, the project every other
    /// reads beside its own).
    Unmarked { shared: String },
    /// Those in this project.
    Project(String),
}

impl Among {
    pub fn holds(&self, e: &Entry) -> bool {
        match self {
            Among::All => true,
            Among::Unmarked { shared } => e.project_id.as_ref().is_none_or(|p| p == shared),
            Among::Project(p) => e.project_id.as_deref() == Some(p),
        }
    }
}

/// Why an entry was pruned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// It was already deprecated or archived.
    Retired,
    /// `harmful > helpful + threshold`.
    Harmful {
        helpful: i64,
        harmful: i64,
        threshold: i64,
    },
    /// The budget: the lowest score left, `helpful - harmful`.
    Budget { score: i64, limit: &'static str },
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Retired => f.write_str("already inactive: its status is not active"),
            Why::Harmful {
                helpful,
                harmful,
                threshold,
            } => write!(f, "harmful {harmful} > helpful {helpful} + {threshold}"),
            Why::Budget { score, limit } => {
                write!(f, "lowest score left ({score}) while over {limit}")
            }
        }
    }
}

impl Why {
    /// The short name `--report json` gives.
    pub fn code(&self) -> &'static str {
        match self {
            Why::Retired => "inactive",
            Why::Harmful { .. } => "harmful",
            Why::Budget { .. } => "budget",
        }
    }
}

/// One entry pruned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    pub id: String,
    pub section: Option<String>,
    pub why: Why,
    /// Deprecated (kept, marked) rather than removed.
    pub deprecated: bool,
}

/// A plan of pruning: the delta that does it and what it prunes.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub delta: Option<Delta>,
    pub pruned: Vec<Pruned>,
    /// The result's tokens as measured, when the budget has a token limit.
    pub tokens: Option<usize>,
}

/// An entry's standing: lower goes first.
fn rank_key(e: &Entry) -> (i64, Option<&str>, (bool, u64), &str) {
    let score = e
        .helpful
        .unwrap_or(0)
        .saturating_sub(e.harmful.unwrap_or(0));
    let when = e.updated_at.as_deref().or(e.created_at.as_deref());
    // Numbered IDs first, by number.
    let n = numbered(&e.id);
    (score, when, (n.is_none(), n.unwrap_or(0)), e.id.as_str())
}

/// The number of a `prefix-NNNNN` ID (the markdown playbook's, kayba's):
/// the order its entries were added in, across prefixes. Other IDs (dated,
/// hashes) are compared whole.
fn numbered(id: &str) -> Option<u64> {
    let (prefix, n) = id.rsplit_once('-')?;
    let word = !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_');
    match word && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
        true => n.parse().ok(),
        false => None,
    }
}

fn harmful(e: &Entry, threshold: i64) -> bool {
    e.harmful.unwrap_or(0) > e.helpful.unwrap_or(0).saturating_add(threshold)
}

/// The entries to prune from `pb` (read from `text`, in `format`) to meet
/// the budget, with the delta that prunes them. `measure` counts a
/// candidate result's tokens exactly: the plan is checked against it
/// until the token limit is met with the fewest entries pruned.
pub fn plan(
    text: &str,
    pb: &Playbook,
    opts: &PruneOptions,
    status: bool,
    mut measure: impl FnMut(&Delta) -> Option<usize>,
) -> Plan {
    // Each count, by how many entries were chosen: the plan's own is one.
    let mut counted: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut measure = |d: &Delta, n: usize| {
        let t = measure(d);
        if let Some(t) = t {
            counted.insert(n, t);
        }
        t
    };
    let b = &opts.budget;
    let mut chosen: Vec<(usize, Why)> = Vec::new();
    let mut gone = vec![false; pb.entries.len()];
    for (i, e) in pb.entries.iter().enumerate() {
        if !opts.among.holds(e) {
            gone[i] = true;
        } else if budget::retired(e) {
            if !opts.deprecate {
                chosen.push((i, Why::Retired));
                gone[i] = true;
            }
        } else if harmful(e, opts.threshold) {
            chosen.push((i, harmful_why(e, opts.threshold)));
            gone[i] = true;
        }
    }
    // The active entries left, lowest standing first: all of them in
    // order where sections or tokens are counted one by one, else only as
    // many as the entry limit lets go.
    let mut keyed: Vec<_> = (0..pb.entries.len())
        .filter(|&i| !gone[i] && !budget::retired(&pb.entries[i]))
        .map(|i| (rank_key(&pb.entries[i]), i))
        .collect();
    match b.whole.max_entries {
        Some(max) if b.sections.is_empty() && b.whole.max_tokens.is_none() => {
            let over = keyed.len().saturating_sub(max);
            if over > 0 && over < keyed.len() {
                keyed.select_nth_unstable(over);
            }
            keyed[..over].sort_unstable();
        }
        _ => keyed.sort_unstable(),
    }
    let mut ranked: Vec<usize> = keyed.iter().map(|(_, i)| *i).collect();
    drop(keyed);
    let score = |i: usize| rank_key(&pb.entries[i]).0;
    // Sections first: each section over a limit gives up its own lowest.
    let enc = b.encoding;
    let section_of = |e: &Entry| e.section.clone().unwrap_or_default();
    let title_of = |key: &str| {
        pb.sections
            .iter()
            .find(|s| s.key == key)
            .and_then(|s| s.title.clone())
    };
    if !b.sections.is_empty() {
        let mut keys: Vec<String> = ranked.iter().map(|&i| section_of(&pb.entries[i])).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let Some(limits) = b.of_section(&key, title_of(&key).as_deref()) else {
                continue;
            };
            let mine: Vec<usize> = ranked
                .iter()
                .copied()
                .filter(|&i| section_of(&pb.entries[i]) == key)
                .collect();
            let mut entries = mine.len();
            let mut tokens: usize = match limits.max_tokens {
                Some(_) => mine
                    .iter()
                    .map(|&i| budget::entry_tokens(&pb.entries[i], enc))
                    .sum(),
                None => 0,
            };
            for &i in &mine {
                let over_entries = limits.max_entries.is_some_and(|m| entries > m);
                let over_tokens = limits.max_tokens.is_some_and(|m| tokens > m);
                if !over_entries && !over_tokens {
                    break;
                }
                let limit = if over_entries {
                    "the section's entry budget"
                } else {
                    "the section's token budget"
                };
                chosen.push((
                    i,
                    Why::Budget {
                        score: score(i),
                        limit,
                    },
                ));
                gone[i] = true;
                entries -= 1;
                if limits.max_tokens.is_some() {
                    tokens -= budget::entry_tokens(&pb.entries[i], enc);
                }
            }
        }
        ranked.retain(|&i| !gone[i]);
    }
    if let Some(max) = b.whole.max_entries {
        let over = ranked.len().saturating_sub(max);
        for &i in &ranked[..over] {
            chosen.push((
                i,
                Why::Budget {
                    score: score(i),
                    limit: "the entry budget",
                },
            ));
            gone[i] = true;
        }
        ranked.drain(..over);
    }
    let base = chosen.len();
    let why_tokens = |i: usize| Why::Budget {
        score: score(i),
        limit: "the token budget",
    };
    let delta_of = |chosen: &[(usize, Why)]| delta(pb, chosen, opts.deprecate, status);
    if let Some(max) = b.whole.max_tokens {
        // Each entry's own text as written, an estimate of what removing
        // it saves; computed only as far as the search goes.
        let cost = |i: usize| {
            let e = &pb.entries[i];
            match e.origin.0.and_then(|s| text.get(s.start..s.end)) {
                Some(t) => enc.count(t) + 1,
                None => budget::entry_tokens(e, enc),
            }
        };
        let mut tokens = match measure(&delta_of(&chosen), chosen.len()) {
            Some(t) => t,
            None => return finish(pb, chosen, opts.deprecate, status, None),
        };
        // Forward: take entries until the estimate fits, then count.
        let mut k = 0;
        while tokens > max && k < ranked.len() {
            let mut saved = 0;
            let need = tokens - max;
            while saved < need && k < ranked.len() {
                saved += cost(ranked[k]);
                chosen.push((ranked[k], why_tokens(ranked[k])));
                k += 1;
            }
            tokens = measure(&delta_of(&chosen), chosen.len()).unwrap_or(0);
        }
        // Back: the estimate may have taken one too many.
        while k > 0 {
            let last = chosen.pop().expect("k entries were taken");
            match measure(&delta_of(&chosen), chosen.len()) {
                Some(t) if t <= max => k -= 1,
                _ => {
                    chosen.push(last);
                    break;
                }
            }
        }
        debug_assert!(chosen.len() >= base);
        let tokens = counted.get(&chosen.len()).copied();
        return finish(pb, chosen, opts.deprecate, status, tokens);
    }
    finish(pb, chosen, opts.deprecate, status, None)
}

fn harmful_why(e: &Entry, threshold: i64) -> Why {
    Why::Harmful {
        helpful: e.helpful.unwrap_or(0),
        harmful: e.harmful.unwrap_or(0),
        threshold,
    }
}

fn finish(
    pb: &Playbook,
    chosen: Vec<(usize, Why)>,
    deprecate: bool,
    status: bool,
    tokens: Option<usize>,
) -> Plan {
    if chosen.is_empty() {
        return Plan {
            tokens,
            ..Plan::default()
        };
    }
    let d = delta(pb, &chosen, deprecate, status);
    let pruned = chosen
        .into_iter()
        .map(|(i, why)| {
            let e = &pb.entries[i];
            Pruned {
                id: e.id.clone(),
                section: e.section.clone(),
                deprecated: deprecate && status && why != Why::Retired,
                why,
            }
        })
        .collect();
    Plan {
        delta: Some(d),
        pruned,
        tokens,
    }
}

/// The delta that prunes `chosen`: a removal each, or a deprecation with
/// its reason under `--deprecate` in a format with a status.
fn delta(pb: &Playbook, chosen: &[(usize, Why)], deprecate: bool, status: bool) -> Delta {
    let mut d = Delta::new(Span::default());
    d.ops.reserve(chosen.len());
    // Each entry is chosen once: a chosen entry leaves the lists.
    for (i, why) in chosen {
        let target = crate::diff::target(&pb.entries[*i]);
        // In a format without a status a deprecation removes the entry:
        // said so, the delta reads the same in dialects without a removal.
        let change = match (deprecate && status, status) {
            (true, _) => Change::Deprecate {
                target,
                reason: Some(format!("pruned: {why}")),
            },
            (false, false) => Change::Deprecate {
                target,
                reason: None,
            },
            (false, true) => Change::Remove { target },
        };
        d.ops.push(Op {
            change,
            span: Span::default(),
        });
    }
    d
}

/// The entries of `pb` that fit `budget` when the playbook is shown
/// elsewhere (a managed block in an agent's context file): the best by
/// the pruning order (score, age, ID) that fit, with what was left out.
/// Entries are left out only for the budget: an entry whose harmful
/// count outweighs its helpful one goes first only because its score is
/// lowest. `measure` counts the tokens of a candidate exactly.
pub fn fit(
    pb: &Playbook,
    budget: &Budget,
    mut measure: impl FnMut(&Playbook) -> usize,
) -> (Playbook, Vec<Pruned>) {
    let opts = PruneOptions {
        budget: budget.clone(),
        threshold: i64::MAX,
        deprecate: false,
        among: Among::All,
    };
    let without = |d: Option<&Delta>| {
        let mut kept = pb.clone();
        if let Some(d) = d {
            let gone: std::collections::HashSet<&ace_model::delta::Target> =
                d.ops.iter().flat_map(|op| op.change.targets()).collect();
            kept.entries
                .retain(|e| !gone.contains(&crate::diff::target(e)));
        }
        kept
    };
    let plan = plan("", pb, &opts, false, |d| Some(measure(&without(Some(d)))));
    (without(plan.delta.as_ref()), plan.pruned)
}

/// The usage of `text` read as `format`, as `budget` counts it.
pub fn usage_of(format: Format, text: &str, b: &Budget) -> Option<Usage> {
    let pb = ace_registry::read(format, text).ok()?.playbook;
    Some(budget::usage(format.imp().playbook_text(text), &pb, b))
}
