//! Checking and applying deltas. A delta is checked against the playbook as
//! it stands after the deltas before it, and applied whole only when no
//! operation of it is refused. New entries are placed after the last entry
//! of their section, and the entry list is rebuilt once at the end, so that
//! a thousand additions to a million entries move each entry once.

// foldhash: the maps hold an entry per playbook entry, and SipHash was a
// measurable share of applying to a large playbook.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use ace_model::delta::{copy_field, Change, Delta, Reason, Refusal, Rules, Target};
use ace_model::ids::natural_cmp;
use ace_model::{normalize, Entry, Playbook, Provenance, Section, Span, Status};

use ace_model::mint::Allocator;
use ace_registry::AppliedDelta;

use crate::{Compat, Options};
use ace_model::mapping::BUILT_IN;
use ace_registry::Curation;

/// What became of one delta.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The delta's ID, else `#N`: its place among the deltas applied.
    pub id: String,
    /// Which of the caller's delta files it came from.
    pub source: usize,
    pub span: Span,
    /// Why it was refused; `None`: applied.
    pub refusal: Option<Refusal>,
    /// How many operations it applied.
    pub applied: usize,
}

/// An operation passed over: the entry it names is not in the playbook.
#[derive(Debug, Clone, PartialEq)]
pub struct Passed {
    /// The delta's label, as its [`Verdict`]'s `id`.
    pub delta: String,
    /// The canonical operation (`count`, `set`, ...).
    pub operation: &'static str,
    pub target: Target,
}

/// What applying a batch did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub verdicts: Vec<Verdict>,
    /// Whether `--dedup` or `--prune` changed the playbook (their deltas'
    /// verdicts are not listed).
    pub curated: bool,
    /// IDs given to new entries that came without one, or whose own was
    /// taken: `(delta label, new id)`.
    pub minted: Vec<(String, String)>,
    /// Operations on an entry the playbook does not have, passed over as
    /// their dialect's rules say (`Rules::skip_unknown_ids`).
    pub passed_over: Vec<Passed>,
    /// The playbook as it was, as far as writing the change over its file
    /// needs (what `PlaybookFormat::rewrite` takes).
    pub before: ace_model::Before,
    /// What the format took off the entries the deltas added, because its
    /// schema refuses it there.
    pub losses: Vec<ace_model::LossEntry>,
}

impl Outcome {
    pub fn accepted(&self) -> impl Iterator<Item = &Verdict> {
        self.verdicts.iter().filter(|v| v.refusal.is_none())
    }

    pub fn rejected(&self) -> impl Iterator<Item = &Verdict> {
        self.verdicts.iter().filter(|v| v.refusal.is_some())
    }

    /// Whether the playbook changed: an operation applied, or an entry
    /// merged or pruned. When it did not, the file's own bytes are the
    /// output.
    pub fn changed(&self) -> bool {
        self.accepted().any(|v| v.applied > 0) || self.curated
    }

    /// the curator spec's report: `{accepted: [id], rejected: [{id, reason, message}]}`,
    /// and `passed_over: [{id, operation, target}]` when an operation named
    /// an entry the playbook does not have and its dialect passes it over.
    pub fn report_json(&self) -> serde_json::Value {
        let accepted: Vec<_> = self.accepted().map(|v| v.id.clone()).collect();
        let rejected: Vec<_> = self
            .rejected()
            .filter_map(|v| {
                let r = v.refusal.as_ref()?;
                Some(serde_json::json!({
                    "id": v.id,
                    "reason": r.reason.code(),
                    "message": r.message,
                }))
            })
            .collect();
        let mut report = serde_json::json!({ "accepted": accepted, "rejected": rejected });
        if !self.passed_over.is_empty() {
            report["passed_over"] = self
                .passed_over
                .iter()
                .map(|p| {
                    let (key, name) = match &p.target {
                        Target::Id(id) => ("target", id.as_str()),
                        Target::Key(k) => ("target_key", k.as_str()),
                        Target::Unnamed(k) => ("missing", *k),
                    };
                    serde_json::json!({ "id": p.delta, "operation": p.operation, key: name })
                })
                .collect();
        }
        report
    }

    /// [`Outcome::report_json`], with the delta files that could not be
    /// read at all rejected as `invalid`, each `(name, why)`: what ace-apply
    /// and the Python module report.
    pub fn report_json_with<'a>(
        &self,
        unreadable: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> serde_json::Value {
        let mut report = self.report_json();
        if let Some(rejected) = report["rejected"].as_array_mut() {
            rejected.extend(unreadable.into_iter().map(
                |(id, why)| serde_json::json!({ "id": id, "reason": "invalid", "message": why }),
            ));
        }
        report
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Slot {
    Old(usize),
    New(usize),
}

/// The old entries of a section (indices into the playbook's, in order),
/// and for each place in that list the entry of least ID from there on:
/// what finds the last entry whose ID sorts before a new one by bisection.
/// A section's IDs need not be in order, and walking back from its end
/// entry by entry took 2 s for 1,000 appends to 125,000 entries.
#[derive(Debug, Default)]
struct OfSection {
    list: Vec<usize>,
    least_from: Vec<usize>,
}

impl OfSection {
    fn new<'a>(list: Vec<usize>, id: impl Fn(usize) -> &'a str) -> Self {
        let mut least_from = list.clone();
        for k in (0..list.len().saturating_sub(1)).rev() {
            let (here, after) = (least_from[k], least_from[k + 1]);
            if natural_cmp(id(after), id(here)).is_lt() {
                least_from[k] = after;
            }
        }
        OfSection { list, least_from }
    }

    /// The last entry whose ID sorts before `new`, with every entry live:
    /// the least ID from a place on is before `new` up to that entry's
    /// place and not after it.
    fn last_less<'a>(&self, new: &str, id: impl Fn(usize) -> &'a str) -> Option<usize> {
        let before = self
            .least_from
            .partition_point(|&i| natural_cmp(id(i), new).is_lt());
        before.checked_sub(1).map(|k| self.list[k])
    }
}

struct State<'p> {
    pb: &'p mut Playbook,
    /// What the playbook's format keeps and how it numbers entries.
    curation: &'p Curation,
    /// The number the file's own counter gave last.
    counter: u64,
    opts: &'p Options,
    /// The old entries with an ID the deltas name, and every new entry.
    by_id: HashMap<String, Slot>,
    by_key: Option<HashMap<String, Slot>>,
    /// New entries, each with the old entry it goes before (the number of
    /// old entries: the end).
    added: Vec<(usize, Entry)>,
    gone_old: Vec<bool>,
    gone_new: Vec<bool>,
    /// The old entries of each section, computed on the first addition.
    of_section: Option<HashMap<Option<String>, OfSection>>,
    /// The places in the list of sections of those with old entries, in
    /// order, computed with `of_section` (sections are only appended).
    old_places: Vec<usize>,
    /// The sections by the names an operation may give them, computed on
    /// the first lookup.
    section_names: Option<SectionNames>,
    /// Whether an old entry was removed: [`OfSection::least_from`] counts
    /// them all.
    removed_old: bool,
    /// The allocator of new IDs, with the scheme a delta named for it.
    alloc: Option<(Option<ace_model::mint::IdScheme>, Allocator)>,
    applied_ids: Option<HashSet<String>>,
    sequence: Option<i64>,
    minted: Vec<(String, String)>,
    passed_over: Vec<Passed>,
    logged: Vec<AppliedDelta>,
    /// The last event of each target of an event-log playbook, as the
    /// batch moves them on.
    heads: Option<std::collections::HashMap<String, String>>,
    /// Events to append to an event-log playbook's log as they came.
    raw_events: Vec<serde_json::Value>,
    /// Old entries as they were before their first change.
    originals: Vec<(usize, Entry)>,
    saved: HashSet<usize>,
    /// What the format's schema refused of the fields deltas set.
    refused: Vec<ace_model::LossEntry>,
}

fn key_of(e: &Entry) -> String {
    normalize::dedup_key(e.section.as_deref().unwrap_or(""), &e.content)
}

impl<'p> State<'p> {
    fn entry(&self, s: Slot) -> &Entry {
        match s {
            Slot::Old(i) => &self.pb.entries[i],
            Slot::New(i) => &self.added[i].1,
        }
    }

    fn entry_mut(&mut self, s: Slot) -> &mut Entry {
        match s {
            Slot::Old(i) => {
                self.save(i);
                &mut self.pb.entries[i]
            }
            Slot::New(i) => &mut self.added[i].1,
        }
    }

    fn gone(&self, s: Slot) -> bool {
        match s {
            Slot::Old(i) => self.gone_old[i],
            Slot::New(i) => self.gone_new[i],
        }
    }

    fn keys(&mut self) -> &mut HashMap<String, Slot> {
        if self.by_key.is_none() {
            let mut m = HashMap::with_capacity(self.pb.entries.len());
            for (i, e) in self.pb.entries.iter().enumerate() {
                if !self.gone_old[i] {
                    m.entry(key_of(e)).or_insert(Slot::Old(i));
                }
            }
            for (i, (_, e)) in self.added.iter().enumerate() {
                if !self.gone_new[i] {
                    m.entry(key_of(e)).or_insert(Slot::New(i));
                }
            }
            self.by_key = Some(m);
        }
        self.by_key.as_mut().expect("built above")
    }

    /// [`State::find`] for an operation of a dialect that passes over an
    /// ID the playbook lacks (as kayba's `apply_update` does): what was
    /// passed over is said in the report, not lost without a word.
    fn find_or_pass(&mut self, t: &Target, op: &'static str, label: &str) -> Option<Slot> {
        let found = self.find(t);
        if found.is_none() {
            self.passed_over.push(Passed {
                delta: label.to_owned(),
                operation: op,
                target: t.clone(),
            });
        }
        found
    }

    fn find(&mut self, t: &Target) -> Option<Slot> {
        let s = match t {
            Target::Id(id) => self.by_id.get(id).copied(),
            Target::Key(k) => self.keys().get(k).copied(),
            Target::Unnamed(_) => None,
        }?;
        (!self.gone(s)).then_some(s)
    }

    fn applied_ids(&mut self) -> &HashSet<String> {
        if self.applied_ids.is_none() {
            // A format with no provenance records no delta there: nothing
            // to scan.
            let mut ids: HashSet<String> = if !self.curation.provenance {
                HashSet::new()
            } else {
                self.pb
                    .entries
                    .iter()
                    .filter_map(|e| e.provenance.as_ref()?.delta_id.clone())
                    .collect()
            };
            if let Some(ledger) = self.curation.ledger {
                ids.extend(ledger.applied(self.pb));
            }
            self.applied_ids = Some(ids);
        }
        self.applied_ids.as_ref().expect("built above")
    }

    /// A new ID for `e`: in `scheme` where a delta's rules name one, else
    /// in the playbook's own, dated by `day`; `seed` gives a hash. No
    /// entry has it, nor any given so far.
    fn mint(
        &mut self,
        e: &Entry,
        scheme: Option<ace_model::mint::IdScheme>,
        day: &str,
        seed: Option<&str>,
    ) -> String {
        if self.alloc.as_ref().map(|a| a.0) != Some(scheme) {
            let mut a = match scheme {
                Some(s) => Allocator::with(self.pb, s, self.counter),
                None => Allocator::new(self.pb, self.curation.ids, self.counter),
            };
            for (_, added) in &self.added {
                a.take(&added.id);
            }
            if let Some(ledger) = self.curation.ledger {
                for id in ledger.reserved(self.pb) {
                    a.take(&id);
                }
            }
            self.alloc = Some((scheme, a));
        }
        let (_, alloc) = self.alloc.as_mut().expect("made above");
        let names = SectionNames::of(&mut self.section_names, self.pb);
        let section = (e.section.as_ref())
            .and_then(|k| names.keys.get(k))
            .map(|&i| &self.pb.sections[i]);
        alloc.mint(section, e, &BUILT_IN, day, seed)
    }

    /// The section key `name` means: a section whose key or title it is,
    /// or whose title reads as the same key (`STRATEGIES & INSIGHTS` for
    /// `strategies_and_insights`). A new section otherwise, unless the
    /// delta's rules file an unknown section under another.
    fn section(&mut self, name: &str, rules: &Rules) -> String {
        if let Some(key) = self.known_section(name) {
            return key;
        }
        if let Some(under) = rules.unknown_section_under {
            if let Some(s) = self
                .pb
                .sections
                .iter()
                .find(|s| normalize::section_key(s.display_title()) == under)
            {
                return s.key.clone();
            }
        }
        let mut s = Section::new(name);
        // A section the kinds map to (an AcePatch entry's, derived from
        // its kind) gets the title and prefix a reader of the kinds gives.
        if let Some(row) = BUILT_IN.rows().find(|r| r.key == name) {
            s.title = Some(row.title.to_owned());
            s.prefix = Some(row.prefix.to_owned());
        }
        if rules.capital_titles {
            s.title = Some(name.replace('_', " ").to_uppercase());
        }
        if let Some(w) = rules.new_section_weight {
            s.weight = serde_json::Number::from_f64(w);
        }
        if let Some(names) = &mut self.section_names {
            names.add(self.pb.sections.len(), &s);
        }
        self.pb.sections.push(s);
        name.to_owned()
    }

    /// Where a new entry goes: after its section's last entry, and, where
    /// IDs are ordered (`IdScheme::ordered`), ahead of the old entries at
    /// the section's end whose IDs sort after its own. Appends with ordered
    /// IDs therefore commute: whatever order they arrive in, they end up in
    /// ID order after what was there before, and IDs a playbook numbers
    /// upward simply go last. Hash IDs go last in their section, in the
    /// order they come.
    fn anchor(&mut self, e: &Entry) -> usize {
        let n = self.pb.entries.len();
        if self.curation.appends {
            return n;
        }
        if self.of_section.is_none() {
            let mut m: HashMap<Option<String>, Vec<usize>> = HashMap::new();
            // Entries come in runs of one section: the key is looked up
            // once per run, not cloned and hashed once per entry.
            let mut run: Option<(&Option<String>, Vec<usize>)> = None;
            for (i, e) in self.pb.entries.iter().enumerate() {
                match &mut run {
                    Some((s, list)) if **s == e.section => list.push(i),
                    _ => {
                        if let Some((s, list)) = run.replace((&e.section, vec![i])) {
                            m.entry(s.clone()).or_default().extend(list);
                        }
                    }
                }
            }
            if let Some((s, list)) = run {
                m.entry(s.clone()).or_default().extend(list);
            }
            self.old_places = (self.pb.sections.iter().enumerate())
                .filter(|(_, s)| m.contains_key(&Some(s.key.clone())))
                .map(|(i, _)| i)
                .collect();
            let entries = &self.pb.entries;
            self.of_section = Some(
                m.into_iter()
                    .map(|(k, list)| (k, OfSection::new(list, |i| entries[i].id.as_str())))
                    .collect(),
            );
        }
        let m = self.of_section.as_ref().expect("built above");
        let live = |i: &&usize| !self.gone_old[**i];
        if let Some(section) = m.get(&e.section) {
            let list = &section.list;
            if !self.curation.ids.ordered {
                if let Some(&last) = list.iter().rev().find(live) {
                    return last + 1;
                }
            } else if !self.removed_old {
                let id = |i: usize| self.pb.entries[i].id.as_str();
                return match section.last_less(&e.id, id) {
                    Some(i) => i + 1,
                    None => list[0],
                };
            }
            let mut at = None;
            for &i in list.iter().rev().filter(live) {
                at = Some(i);
                if natural_cmp(&self.pb.entries[i].id, &e.id).is_lt() {
                    return i + 1;
                }
            }
            if let Some(first) = at {
                return first;
            }
        }
        // A section with no entry yet: after the entries of the section
        // before it, so that its entries sit under it.
        let names = SectionNames::of(&mut self.section_names, self.pb);
        let Some(pos) = e.section.as_ref().and_then(|k| names.keys.get(k).copied()) else {
            return n;
        };
        let before = self.old_places.partition_point(|&p| p < pos);
        self.old_places[..before]
            .iter()
            .rev()
            .find_map(|&p| {
                let s = &self.pb.sections[p];
                m.get(&Some(s.key.clone()))?.list.iter().rev().find(live)
            })
            .map_or(n, |i| i + 1)
    }

    fn touch(&mut self, s: Slot) {
        if self.curation.timestamps {
            let now = self.opts.now.clone();
            self.entry_mut(s).updated_at = Some(now);
        }
    }

    fn deprecate(&mut self, s: Slot, status: Status, reason: Option<String>) {
        if self.curation.status {
            let e = self.entry_mut(s);
            e.status = Some(status);
            if reason.is_some() {
                e.deprecation_reason = reason;
            }
            self.touch(s);
        } else {
            self.remove(s);
        }
    }

    /// Keeps old entry `i` as it was, before its first change.
    fn save(&mut self, i: usize) {
        if self.saved.insert(i) {
            self.originals.push((i, self.pb.entries[i].clone()));
        }
    }

    fn remove(&mut self, s: Slot) {
        match s {
            Slot::Old(i) => {
                // Not cloned here: the entry as it was is taken out of the
                // playbook when it is rebuilt (unless a change saved it
                // before).
                self.gone_old[i] = true;
                self.removed_old = true;
            }
            Slot::New(i) => self.gone_new[i] = true,
        }
        self.by_key = None;
    }
}

/// A section name as a key with its `and`s dropped: the paper's curator
/// writes `CONTEXT CLUES & INDICATORS` as `context_clues_indicators` and
/// `STRATEGIES & INSIGHTS` as `strategies_and_insights`.
fn loose_key(name: &str) -> String {
    normalize::section_key(name)
        .split('_')
        .filter(|w| *w != "and")
        .collect::<Vec<_>>()
        .join("_")
}

/// What a refusal of an operation says, before any change is made.
fn check_delta(st: &mut State<'_>, d: &Delta) -> Option<Refusal> {
    if let Some(r) = d.refusals.first() {
        return Some(r.clone());
    }
    let refuse = |reason, span, message: String| {
        Some(Refusal {
            reason,
            message,
            span,
        })
    };
    if let Some(id) = &d.id {
        if st.applied_ids().contains(id) {
            return refuse(
                Reason::AlreadyApplied,
                d.span,
                format!("the playbook records delta `{id}` as applied already"),
            );
        }
    }
    if let (Some(base), Some(seq)) = (d.base_sequence, st.sequence) {
        if base != seq && !d.ops.iter().all(|o| o.change.commutes()) {
            return refuse(
                Reason::Conflict,
                d.span,
                format!("`baseDocumentSequence` is {base} but the document is at sequence {seq}, and the patch does more than append and increment, which commute"),
            );
        }
    }
    if let (Some((target, prev)), Some(heads)) = (&d.base_event, &st.heads) {
        if let Some(head) = heads.get(target).filter(|h| *h != prev) {
            return refuse(
                Reason::Conflict,
                d.span,
                format!("the event follows `{prev}`, but the log's last event for `{target}` is `{head}`: it was made against an older state of the entry"),
            );
        }
    }
    let script = st.opts.compat == Compat::Script && d.rules.script;
    // What the ops before this one in the delta add and remove.
    let mut new_ids: HashSet<&str> = HashSet::new();
    let mut new_keys: HashSet<String> = HashSet::new();
    let mut removed: HashSet<Slot> = HashSet::new();
    let mut removed_new: HashSet<String> = HashSet::new();
    let exists = |st: &mut State<'_>, t: &Target, removed: &HashSet<Slot>| -> bool {
        match st.find(t) {
            Some(s) => !removed.contains(&s),
            None => false,
        }
    };
    for op in ordered(d, st.opts.compat) {
        let span = op.span;
        let change = &op.change;
        if let Some((rule, message)) = ace_lint::unsafe_text(change).filter(|_| !st.opts.verbatim) {
            return refuse(Reason::Invalid, span, format!("{message} ({})", rule.code));
        }
        if st.opts.append_only {
            if let Some(what) = content_change(change, script) {
                return refuse(
                    Reason::Invalid,
                    span,
                    format!("{what}, and the playbook is append-only (--append-only): content never changes, only counters"),
                );
            }
        }
        match change {
            Change::Add(e) => {
                if !e.id.is_empty()
                    && !d.rules.add_replaces
                    && (st.find(&Target::Id(e.id.clone())).is_some() || !new_ids.insert(&e.id))
                {
                    return refuse(
                        Reason::Duplicate,
                        span,
                        format!("it adds `{}`, an ID the playbook already has", e.id),
                    );
                }
                if d.rules.unique_text {
                    let section = e.section.clone().unwrap_or_default();
                    let key = normalize::dedup_key(
                        &st.known_section(&section).unwrap_or(section),
                        &e.content,
                    );
                    if st.find(&Target::Key(key.clone())).is_some() || !new_keys.insert(key.clone())
                    {
                        return refuse(
                            Reason::Duplicate,
                            span,
                            format!("it adds `{key}`, which the playbook already has"),
                        );
                    }
                }
            }
            Change::Merge { keep, merged, .. } => {
                if !exists(st, keep, &removed) && !is_new(keep, &new_ids) {
                    return refuse(
                        Reason::UnknownId,
                        span,
                        format!("the merge keeps {keep}, which the playbook does not have"),
                    );
                }
                if merged.contains(keep) && !script {
                    return refuse(
                        Reason::Invalid,
                        span,
                        format!("the merge both keeps and archives {keep}"),
                    );
                }
                if !script {
                    for m in merged {
                        if !exists(st, m, &removed) && !is_new(m, &new_ids) {
                            return refuse(
                                Reason::UnknownId,
                                span,
                                format!("the merge folds in {m}, which the playbook does not have"),
                            );
                        }
                    }
                }
            }
            other => {
                for t in other.targets() {
                    let skip = d.rules.skip_unknown_ids
                        || script
                            && matches!(other, Change::Count { .. } | Change::Deprecate { .. });
                    let gone = match t {
                        Target::Id(id) => removed_new.contains(id),
                        Target::Key(_) | Target::Unnamed(_) => false,
                    };
                    if (gone || (!exists(st, t, &removed) && !is_new(t, &new_ids))) && !skip {
                        return refuse(
                            Reason::UnknownId,
                            span,
                            format!(
                                "`{}` names {t}, which the playbook does not have",
                                other.name()
                            ),
                        );
                    }
                    if let Change::Count {
                        helpful,
                        harmful,
                        neutral,
                        ..
                    } = other
                    {
                        if let Some(field) = st.find(t).and_then(|s| {
                            let e = st.entry(s);
                            [
                                ("helpful", e.helpful, *helpful),
                                ("harmful", e.harmful, *harmful),
                                ("neutral", e.neutral, *neutral),
                            ]
                            .into_iter()
                            .find(|(_, was, by)| was.unwrap_or(0).checked_add(*by).is_none())
                            .map(|(field, _, _)| field)
                        }) {
                            // Saturating would count the delta applied and
                            // change nothing; no playbook holds a larger
                            // counter (ACE004), so the count is refused.
                            return refuse(
                                Reason::Invalid,
                                span,
                                format!("`count` would take `{field}` of {t} past {}, the largest counter a playbook holds", i64::MAX),
                            );
                        }
                    }
                    if matches!(other, Change::Remove { .. }) {
                        match st.find(t) {
                            Some(s) => {
                                removed.insert(s);
                            }
                            None => {
                                if let Target::Id(id) = t {
                                    removed_new.insert(id.clone());
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    None
}

fn is_new(t: &Target, new_ids: &HashSet<&str>) -> bool {
    matches!(t, Target::Id(id) if new_ids.contains(id.as_str()))
}

/// Why a change alters content, if it does: what the append-only ADR forbids.
fn content_change(c: &Change, script: bool) -> Option<String> {
    match c {
        Change::Set { fields, .. } if fields.iter().any(|f| f == "content") => {
            Some("it edits an entry's content".into())
        }
        Change::Replace { .. } => Some("it replaces an entry".into()),
        Change::Merge { .. } => Some("it merges entries".into()),
        Change::Remove { .. } => Some("it removes an entry".into()),
        Change::Deprecate { .. } if script => {
            Some("the skill script's deprecation appends to the content".into())
        }
        _ => None,
    }
}

impl State<'_> {
    /// The key of the section `name` means, if the playbook has it.
    fn known_section(&mut self, name: &str) -> Option<String> {
        let wanted = loose_key(name);
        let names = SectionNames::of(&mut self.section_names, self.pb);
        let exact = names.exact.get(name).copied();
        let loose = names.loose.get(&wanted).copied();
        let first = match (exact, loose) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        first.map(|i| self.pb.sections[i].key.clone())
    }
}

/// Each section's first place under each name an operation may give it:
/// its key, its title, or either as a [`loose_key`]. The first section
/// that a name means is the least of its places.
#[derive(Default)]
struct SectionNames {
    keys: HashMap<String, usize>,
    exact: HashMap<String, usize>,
    loose: HashMap<String, usize>,
}

impl SectionNames {
    /// `kept`, built from `pb`'s sections if it is not yet.
    fn of<'a>(kept: &'a mut Option<SectionNames>, pb: &Playbook) -> &'a SectionNames {
        kept.get_or_insert_with(|| {
            let mut names = SectionNames::default();
            for (i, s) in pb.sections.iter().enumerate() {
                names.add(i, s);
            }
            names
        })
    }

    fn add(&mut self, i: usize, s: &Section) {
        self.keys.entry(s.key.clone()).or_insert(i);
        for name in [Some(&s.key), s.title.as_ref()].into_iter().flatten() {
            self.exact.entry(name.clone()).or_insert(i);
        }
        for name in [loose_key(s.display_title()), loose_key(&s.key)] {
            self.loose.entry(name).or_insert(i);
        }
    }
}

/// The delta's operations in the order they apply: as read (the seed's
/// order), or `merge_deltas.py`'s for a skill delta under `--compat
/// skill-script`.
fn ordered(d: &Delta, compat: Compat) -> Vec<&ace_model::delta::Op> {
    let mut ops: Vec<_> = d.ops.iter().collect();
    if in_rank_order(d, compat) {
        ops.sort_by_key(|o| rank(&o.change));
    }
    ops
}

/// [`ordered`], the operations taken out of `d`.
fn take_ordered(d: &mut Delta, compat: Compat) -> Vec<ace_model::delta::Op> {
    let mut ops = std::mem::take(&mut d.ops);
    if in_rank_order(d, compat) {
        ops.sort_by_key(|o| rank(&o.change));
    }
    ops
}

/// Whether `d`'s operations apply kind by kind, as the skill's
/// `merge_deltas.py` applies them, rather than in the order written.
fn in_rank_order(d: &Delta, compat: Compat) -> bool {
    compat == Compat::Script && d.rules.script
}

fn rank(c: &Change) -> u8 {
    match c {
        Change::Add(_) => 0,
        Change::Set { .. } | Change::Replace { .. } => 1,
        Change::Merge { .. } => 2,
        Change::Deprecate { .. } | Change::Remove { .. } => 3,
        Change::Count { .. } | Change::Append { .. } => 4,
    }
}

fn union_sorted(a: Option<&Vec<String>>, b: &[String]) -> Vec<String> {
    let mut v: Vec<String> = a.cloned().unwrap_or_default();
    v.extend(b.iter().cloned());
    v.sort();
    v.dedup();
    v
}

/// Applies `d`'s operations, taking them out of it: a new entry is moved
/// into the playbook, not copied.
fn run(st: &mut State<'_>, d: &mut Delta, label: &str) -> usize {
    let script = st.opts.compat == Compat::Script && d.rules.script;
    let now = st.opts.now.clone();
    let mut count = 0;
    let mut touched: Vec<Slot> = Vec::new();
    let ops = take_ordered(d, st.opts.compat);
    let adds = ops
        .iter()
        .filter(|o| matches!(o.change, Change::Add(_)))
        .count();
    st.added.reserve(adds);
    for mut op in ops {
        count += 1;
        let name = op.change.name();
        match &mut op.change {
            Change::Add(e) => {
                let mut e = std::mem::take(e);
                e.origin = ace_model::Origin::default();
                if let Some(s) = e.section.clone() {
                    e.section = Some(st.section(&s, &d.rules));
                }
                let same = (d.rules.add_replaces && !e.id.is_empty())
                    .then(|| st.find(&Target::Id(e.id.clone())))
                    .flatten();
                if let Some(s) = same {
                    let old = st.entry_mut(s);
                    e.origin = old.origin;
                    if e.created_at.is_none() {
                        e.created_at.clone_from(&old.created_at);
                    }
                    *old = e;
                    st.by_key = None;
                    touched.push(s);
                    continue;
                }
                if e.id.is_empty() || st.by_id.contains_key(&e.id) {
                    let today = now.get(..10).unwrap_or("1970-01-01");
                    e.id = st.mint(&e, d.rules.ids, today, d.id.as_deref());
                    st.minted.push((label.to_owned(), e.id.clone()));
                } else if let Some((_, a)) = st.alloc.as_mut() {
                    a.take(&e.id);
                }
                // In a file without statuses every entry is active: a
                // new one's `active` is said by having none.
                if !st.curation.status && e.status == Some(ace_model::Status::Active) {
                    e.status = None;
                }
                if d.rules.stamp_new && st.curation.timestamps {
                    e.created_at = Some(now.clone());
                    e.updated_at = Some(now.clone());
                }
                // An event-log playbook records the event itself.
                let logged_as_event = d.raw.is_some() && st.heads.is_some();
                if st.curation.provenance && !logged_as_event {
                    if let Some(id) = &d.id {
                        let p = e.provenance.get_or_insert_with(Box::default);
                        p.delta_id.get_or_insert_with(|| id.clone());
                    }
                } else if d.rules.provenance_where_kept {
                    e.provenance = None;
                }
                let anchor = st.anchor(&e);
                let slot = Slot::New(st.added.len());
                st.by_id.insert(e.id.clone(), slot);
                if let Some(k) = st.by_key.as_mut() {
                    k.entry(key_of(&e)).or_insert(slot);
                }
                st.added.push((anchor, e));
                st.gone_new.push(false);
                touched.push(slot);
            }
            Change::Set {
                target,
                from,
                fields,
            } => {
                let Some(s) = st.find_or_pass(target, name, label) else {
                    count -= 1;
                    continue;
                };
                let holds_provenance = st.curation.provenance;
                let refuse = st.curation.refuse_set.filter(|_| !st.opts.verbatim);
                let mut refused = Vec::new();
                // A title derived from the content follows the content a
                // delta that says nothing of titles gives it (kayba's
                // UPDATE); one of the author's own stays, and so does the
                // title of an entry given whole (a difference, a merge's
                // run), and the skill script's, which keeps it.
                let retitle = st
                    .curation
                    .title_of
                    .filter(|_| {
                        from.title.is_none()
                            && !script
                            && !st.opts.verbatim
                            && fields.iter().any(|f| f == "content")
                    })
                    .filter(|title_of| {
                        let e = st.entry(s);
                        e.title.as_deref() == Some(title_of(&e.content).as_str())
                    });
                let e = st.entry_mut(s);
                for f in fields.iter() {
                    if f == "id" {
                        continue;
                    }
                    if let Some(loss) = refuse.and_then(|refuse| refuse(e, from, f)) {
                        refused.push(loss);
                        continue;
                    }
                    if f == "provenance" {
                        // The curator's comment gains the new delta's ID
                        // and keeps what else it said.
                        let mut p = e.provenance.clone().unwrap_or_default();
                        if let Some(new) = &from.provenance {
                            let keep_extra = std::mem::take(&mut p.extra);
                            *p = Provenance {
                                extra: keep_extra,
                                ..(**new).clone()
                            };
                        }
                        e.provenance = Some(p);
                        continue;
                    }
                    copy_field(e, from, f);
                }
                if !holds_provenance {
                    e.provenance = None;
                }
                if let Some(title_of) = retitle {
                    e.title = Some(title_of(&e.content));
                }
                st.refused.append(&mut refused);
                st.by_key = None;
                // A change that says when it was made keeps that time.
                if !fields.iter().any(|f| f == "updated_at") {
                    st.touch(s);
                }
                touched.push(s);
            }
            Change::Replace { target, entry } => {
                let Some(s) = st.find_or_pass(target, name, label) else {
                    count -= 1;
                    continue;
                };
                let e = st.entry_mut(s);
                let mut new = (**entry).clone();
                new.origin = e.origin;
                new.id.clone_from(&e.id);
                if new.section.is_none() {
                    new.section.clone_from(&e.section);
                }
                *e = new;
                st.by_key = None;
                touched.push(s);
            }
            Change::Count {
                target,
                helpful,
                harmful,
                neutral,
            } => {
                let Some(s) = st.find_or_pass(target, name, label) else {
                    count -= 1;
                    continue;
                };
                let e = st.entry_mut(s);
                // A counted entry has helpful and harmful, the pair every
                // counted line of the spec has: an entry without counters
                // counted helpful once is `helpful=1 harmful=0`. kayba's
                // neutral stays absent unless the count moves it. A count
                // down stops at 0, as ace_claude_mcp's `update_counters`
                // stops it: a counter is never negative (ACE005).
                let add = |counter: &mut Option<i64>, by: i64, always: bool| {
                    if by != 0 || counter.is_some() || always {
                        let was = counter.unwrap_or(0);
                        *counter = Some(was.saturating_add(by).max(was.min(0)));
                    }
                };
                add(&mut e.helpful, *helpful, true);
                add(&mut e.harmful, *harmful, true);
                add(&mut e.neutral, *neutral, false);
                st.touch(s);
                touched.push(s);
            }
            Change::Append {
                target,
                field,
                values,
            } => {
                let Some(s) = st.find_or_pass(target, name, label) else {
                    count -= 1;
                    continue;
                };
                let e = st.entry_mut(s);
                let name = field.strip_prefix("extra.").unwrap_or(field);
                let list = e
                    .extra
                    .get_or_insert_with(name, || serde_json::Value::Array(Vec::new()));
                if let serde_json::Value::Array(items) = list {
                    for v in values {
                        if !items.contains(v) {
                            items.push(v.clone());
                        }
                    }
                }
                st.touch(s);
                touched.push(s);
            }
            Change::Deprecate { target, reason } => {
                let Some(s) = st.find_or_pass(target, name, label) else {
                    count -= 1;
                    continue;
                };
                if script {
                    let e = st.entry_mut(s);
                    e.tags = Some(union_sorted(e.tags.as_ref(), &["deprecated".into()]));
                    e.content.push_str(&format!(
                        "\n\n[Deprecated]: {}",
                        reason.as_deref().unwrap_or("")
                    ));
                    st.by_key = None;
                    st.touch(s);
                } else {
                    st.deprecate(s, Status::Deprecated, reason.clone());
                }
                touched.push(s);
            }
            Change::Merge {
                keep,
                merged,
                content,
            } => {
                let Some(k) = st.find_or_pass(keep, name, label) else {
                    count -= 1;
                    continue;
                };
                let keep_id = st.entry(k).id.clone();
                for m in merged {
                    let Some(ms) = st.find_or_pass(m, name, label) else {
                        continue;
                    };
                    if ms == k {
                        continue;
                    }
                    let other = st.entry(ms).clone();
                    let e = st.entry_mut(k);
                    e.helpful = Some(e.helpful.unwrap_or(0) + other.helpful.unwrap_or(0));
                    e.harmful = Some(e.harmful.unwrap_or(0) + other.harmful.unwrap_or(0));
                    if script {
                        e.tags = Some(union_sorted(
                            e.tags.as_ref(),
                            other.tags.as_deref().unwrap_or(&[]),
                        ));
                        let pre = |x: &Entry| -> Vec<String> {
                            x.extra
                                .get("prerequisites")
                                .and_then(|v| v.as_array())
                                .map(|a| {
                                    a.iter()
                                        .filter_map(|s| s.as_str().map(str::to_owned))
                                        .collect()
                                })
                                .unwrap_or_default()
                        };
                        let prereq = union_sorted(Some(&pre(e)), &pre(&other));
                        e.extra
                            .insert("prerequisites", serde_json::Value::from(prereq));
                        e.content.push_str(&format!(
                            "\n\n[Merged from {}]: {}",
                            other.id, other.content
                        ));
                        let o = st.entry_mut(ms);
                        o.tags = Some(union_sorted(o.tags.as_ref(), &["merged".into()]));
                    } else if st.curation.status {
                        // The skill spec archives the merged bullet and leaves
                        // its `last_updated` as it was.
                        let o = st.entry_mut(ms);
                        o.status = Some(Status::Archived);
                        o.deprecation_reason = Some(format!("Merged into {keep_id}"));
                    } else {
                        st.remove(ms);
                    }
                    touched.push(ms);
                }
                if let (Some(c), false) = (content, script) {
                    st.entry_mut(k).content.clone_from(c);
                }
                st.by_key = None;
                st.touch(k);
                touched.push(k);
            }
            Change::Remove { target } => {
                let Some(s) = st.find_or_pass(target, name, label) else {
                    count -= 1;
                    continue;
                };
                st.remove(s);
            }
        }
    }
    if let Some(rule) = d.rules.deprecate {
        for s in touched {
            let e = st.entry(s);
            if !st.gone(s) && rule.met(e.helpful.unwrap_or(0), e.harmful.unwrap_or(0)) {
                st.deprecate(s, Status::Deprecated, None);
            }
        }
    }
    // The counts a playbook's metadata keeps are its writer's.
    if d.rules.stamp_curated {
        if let Some(serde_json::Value::Object(meta)) = st.pb.extra.get_mut("metadata") {
            if meta.contains_key("last_curated") {
                meta.insert(
                    "last_curated".into(),
                    serde_json::Value::String(now.clone()),
                );
            }
        }
    }
    if count > 0 && st.pb.updated_at.is_some() {
        st.pb.updated_at = Some(now.clone());
    }
    if let Some(id) = &d.id {
        if let Some(ids) = st.applied_ids.as_mut() {
            ids.insert(id.clone());
        }
    }
    if let (Some((target, _)), Some(id), Some(heads)) = (&d.base_event, &d.id, st.heads.as_mut()) {
        heads.insert(target.clone(), id.clone());
    }
    // An event-log playbook keeps an applied event as it came.
    if let (true, Some(raw), Some(_)) = (count > 0, &d.raw, &st.heads) {
        st.raw_events.push(raw.clone());
    }
    if count > 0 {
        if let Some(seq) = st.sequence.as_mut() {
            *seq += 1;
        }
        st.logged.push(AppliedDelta {
            id: d.id.clone(),
            sequence: st.sequence,
            ops: count,
        });
    }
    count
}

/// Applies `deltas` (each with the index of the file it came from) to
/// `pb`, in order. A refused delta changes nothing; the others are applied.
/// Each delta is consumed as it is applied, so that a batch of a million
/// new entries is not held beside them.
pub fn apply(
    pb: &mut Playbook,
    deltas: Vec<(usize, Delta)>,
    curation: &Curation,
    opts: &Options,
) -> Outcome {
    // The document state the playbook was read with.
    let sequence_before = curation.ledger.and_then(|l| l.sequence(pb));
    let heads = curation.ledger.and_then(|l| l.event_heads(pb));
    let counter = curation.counter.map_or(0, |f| f(pb));
    let n = pb.entries.len();
    let shell = ace_model::Before::shell_of(pb);
    // Only the IDs the deltas name are looked up: a map of those, filled
    // in one pass, rather than a million owned keys for ten thousand
    // lookups.
    let mut wanted: HashSet<&str> = HashSet::new();
    for (_, d) in &deltas {
        for op in &d.ops {
            if let Change::Add(e) = &op.change {
                wanted.insert(&e.id);
            }
            for t in op.change.targets() {
                if let Target::Id(id) = t {
                    wanted.insert(id);
                }
            }
        }
    }
    let mut by_id = HashMap::with_capacity(wanted.len());
    if !wanted.is_empty() {
        for (i, e) in pb.entries.iter().enumerate() {
            if wanted.contains(e.id.as_str()) {
                by_id.entry(e.id.clone()).or_insert(Slot::Old(i));
            }
        }
    }
    let mut st = State {
        pb,
        curation,
        counter,
        opts,
        by_id,
        by_key: None,
        added: Vec::new(),
        gone_old: vec![false; n],
        gone_new: Vec::new(),
        of_section: None,
        old_places: Vec::new(),
        section_names: None,
        removed_old: false,
        alloc: None,
        applied_ids: None,
        sequence: sequence_before,
        minted: Vec::new(),
        passed_over: Vec::new(),
        logged: Vec::new(),
        originals: Vec::new(),
        saved: HashSet::new(),
        refused: Vec::new(),
        heads,
        raw_events: Vec::new(),
    };
    let mut out = Outcome::default();
    for (i, (source, mut d)) in deltas.into_iter().enumerate() {
        let label = d.label(i);
        let refusal = check_delta(&mut st, &d);
        let applied = if refusal.is_none() {
            run(&mut st, &mut d, &label)
        } else {
            0
        };
        out.verdicts.push(Verdict {
            id: label,
            source,
            span: d.span,
            refusal,
            applied,
        });
    }
    let sequence = st.sequence;
    out.minted = std::mem::take(&mut st.minted);
    out.passed_over = std::mem::take(&mut st.passed_over);
    let logged = std::mem::take(&mut st.logged);
    let raw_events = std::mem::take(&mut st.raw_events);
    let mut originals = std::mem::take(&mut st.originals);
    let State {
        pb,
        mut added,
        gone_old,
        gone_new,
        saved,
        refused,
        ..
    } = st;
    out.losses = refused;
    if let Some(complete) = curation.complete_new.filter(|_| !opts.verbatim) {
        out.losses
            .extend(complete(pb, added.iter_mut().map(|(_, e)| e).collect()));
    }
    let removed = rebuild(pb, added, &gone_old, &gone_new, curation.ids.ordered);
    originals.extend(removed.into_iter().filter(|(i, _)| !saved.contains(i)));
    originals.sort_by_key(|(i, _)| *i);
    out.before = ace_model::Before {
        shell,
        originals: originals.into_iter().map(|(_, e)| e).collect(),
    };
    if let Some(ledger) = curation.ledger {
        if let (Some(seq), Some(before)) = (sequence, sequence_before) {
            if seq != before {
                ledger.set_sequence(pb, seq);
            }
        }
        ledger.record(pb, &logged, &opts.now);
        if !raw_events.is_empty() {
            ledger.append_events(pb, raw_events);
        }
    }
    out
}

/// Puts the new entries in place and takes the removed ones out,
/// returning them with their places. The new
/// entries bound for one place stand in section order, then ID order where
/// IDs are `ordered`, else in the order they came.
fn rebuild(
    pb: &mut Playbook,
    mut added: Vec<(usize, Entry)>,
    gone_old: &[bool],
    gone_new: &[bool],
    ordered: bool,
) -> Vec<(usize, Entry)> {
    let mut removed = Vec::new();
    if added.is_empty() && !gone_old.iter().any(|g| *g) {
        return removed;
    }
    let rank: HashMap<&str, usize> = pb
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (s.key.as_str(), i))
        .collect();
    // The new entries sorted by the place they go before (a stable sort:
    // those of one place keep the order they came in), then merged into
    // the old ones in one pass, each moved once.
    let mut gone = gone_new.iter();
    added.retain(|_| !gone.next().copied().unwrap_or(false));
    let section_rank = |e: &Entry| e.section.as_deref().and_then(|k| rank.get(k).copied());
    added.sort_by(|(at_a, a), (at_b, b)| {
        let by_section = at_a
            .cmp(at_b)
            .then_with(|| section_rank(a).cmp(&section_rank(b)));
        match ordered {
            true => by_section.then_with(|| natural_cmp(&a.id, &b.id)),
            false => by_section,
        }
    });
    let old = std::mem::take(&mut pb.entries);
    let mut entries = Vec::with_capacity(old.len() + added.len());
    let mut new = added.into_iter().peekable();
    for (i, e) in old.into_iter().enumerate() {
        while let Some((_, e)) = new.next_if(|(at, _)| *at <= i) {
            entries.push(e);
        }
        if !gone_old[i] {
            entries.push(e);
        } else {
            removed.push((i, e));
        }
    }
    entries.extend(new.map(|(_, e)| e));
    pb.entries = entries;
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk back from a section's end that the bisection stands for.
    fn walked(ids: &[String], new: &str) -> Option<usize> {
        (0..ids.len())
            .rev()
            .find(|&i| natural_cmp(&ids[i], new).is_lt())
    }

    #[test]
    fn the_last_entry_before_a_new_id_is_found_by_bisection() {
        // IDs in no order, numbered, repeated, and new IDs before, among
        // and after them. The list holds indices of a larger playbook.
        let ids: Vec<String> = [
            "str-10", "str-2", "new-7", "str-2", "a", "str-010", "zz", "str-9", "b-1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for len in 0..=ids.len() {
            let ids = &ids[..len];
            let list: Vec<usize> = (0..len).map(|k| 3 * k + 1).collect();
            let id = |i: usize| ids[(i - 1) / 3].as_str();
            let section = OfSection::new(list.clone(), id);
            for new in [
                "", "a", "b-0", "b-2", "new-10", "str-1", "str-2", "str-9", "str-11", "zzz",
            ] {
                let want = walked(ids, new).map(|k| list[k]);
                assert_eq!(section.last_less(new, id), want, "{new} in {ids:?}");
            }
        }
    }
}
