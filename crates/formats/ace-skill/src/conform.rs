//! A playbook from another format made into what the skill's bullet schema
//! accepts, before it is written as a new skill playbook: the IDs the
//! schema's pattern asks for, the `title` and `tags` it requires, zoned
//! date-times, statuses from its enum, and no keys it does not list. Each
//! change is reported; a skill file read with its layout never comes here.

use std::collections::HashSet;

use ace_model::ids::{self, IdChange};
use ace_model::mapping::SectionMap;
use ace_model::mint::{Allocator, IdScheme};
use ace_model::time::{self, Shape};
use ace_model::{rules, Entry, Evidence, LossEntry, Losses, Playbook, Status};
use serde_json::Value;

use crate::fields::DEFAULT_ORDER;

/// A title is cut to at most this many characters, at a word boundary.
const TITLE_MAX: usize = 60;
/// The schema's `title.minLength`.
const TITLE_MIN: usize = 5;
/// The tag an entry with neither section nor kind gets.
const FALLBACK_TAG: &str = "general";
/// The date new IDs take when neither the entry, the playbook,
/// `SOURCE_DATE_EPOCH` nor the clock gives one (a library call without a
/// clock).
const EPOCH_DATE: &str = "1970-01-01";
/// The schema's evidence types.
const EVIDENCE_TYPES: [&str; 7] = [
    "execution",
    "validation",
    "user_feedback",
    "test_result",
    "error_log",
    "documentation",
    "low_confidence",
];

/// The conformed playbook, what changed, and the IDs given anew.
pub struct Conformed {
    pub playbook: Playbook,
    pub losses: Vec<LossEntry>,
    pub id_changes: Vec<IdChange>,
}

/// `pb` as the bullet schema takes it. `now` is `SOURCE_DATE_EPOCH`'s time
/// when set.
pub fn conform(pb: &Playbook, now: Option<&str>, clock: Option<&str>) -> Conformed {
    let mut losses = Vec::new();
    let fallback_date = fallback_date(pb, now, clock, &mut losses);
    let (mut playbook, id_changes) = new_ids(pb, &fallback_date);
    // One reason for all, so that the report is one line; `--id-map`
    // lists the pairs.
    for c in &id_changes {
        losses.lose(
            &rules::ID_REASSIGNED,
            Some(&c.old),
            "id",
            "a skill bullet ID is `bullet-YYYY-MM-DD-NNN`, dated by the entry; each got the next number of its date (`--id-map FILE` lists old and new)",
        );
    }
    if let Some(t) = playbook.updated_at.as_mut() {
        if let Some(z) = time::with_zone(t) {
            *t = z;
            losses.lose(&rules::VALUE_DERIVED, None, "updated_at", time::ZONE_ADDED);
        }
    }
    // Each entry alone, in runs on every core; the runs' losses are joined
    // in entry order.
    let n = playbook.entries.len();
    // The sections a new file keeps in `metadata.ace_tools`: a bullet of
    // one of them reads back with its section from its first tag.
    let table: HashSet<String> = playbook.sections.iter().map(|s| s.key.clone()).collect();
    let mut runs: Vec<(&mut [Entry], Vec<LossEntry>)> = playbook
        .entries
        .chunks_mut(ace_exec::par::RUN)
        .map(|run| (run, Vec::new()))
        .collect();
    ace_exec::par::each_heavy_mut(&mut runs, n, |(run, lost)| {
        for e in run.iter_mut() {
            entry(e, &table, lost);
        }
    });
    for (_, lost) in runs {
        losses.extend(lost);
    }
    Conformed {
        playbook,
        losses,
        id_changes,
    }
}

/// Whether `id` has the schema's shape `bullet-YYYY-MM-DD-NNN`.
pub fn is_bullet_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 21
        && b.starts_with(b"bullet-")
        && date_at(&id[7..17]).is_some()
        && b[17] == b'-'
        && b[18..].iter().all(u8::is_ascii_digit)
}

/// The `YYYY-MM-DD` that `s` starts with.
fn date_at(s: &str) -> Option<&str> {
    (time::shape(s) != Shape::NotDate).then(|| &s[..10])
}

fn fallback_date(
    pb: &Playbook,
    now: Option<&str>,
    clock: Option<&str>,
    losses: &mut Vec<LossEntry>,
) -> String {
    let needed = pb
        .entries
        .iter()
        .any(|e| !is_bullet_id(&e.id) && entry_date(e).is_none());
    let found = now
        .and_then(date_at)
        .or_else(|| time::latest(pb).and_then(date_at));
    match found {
        Some(d) => d.to_owned(),
        None => {
            let (date, which) = match clock.and_then(date_at) {
                Some(today) => (today, "today's date"),
                None => (EPOCH_DATE, "the Unix epoch's date"),
            };
            if needed {
                losses.lose(
                    &rules::VALUE_DEFAULTED,
                    None,
                    "id",
                    format!("new bullet IDs carry a date, and neither the entries nor the playbook have one; {which}, {date}, is used (set SOURCE_DATE_EPOCH or --now to choose it)"),
                );
            }
            date.to_owned()
        }
    }
}

fn entry_date(e: &Entry) -> Option<&str> {
    [e.created_at.as_deref(), e.updated_at.as_deref()]
        .into_iter()
        .flatten()
        .find_map(date_at)
}

/// New IDs `bullet-DATE-NNN`: the entry's date, and for each date the
/// numbers after the highest one the playbook already has; past 999 on
/// one date, the next date with a number free (the schema's three
/// digits).
fn new_ids(pb: &Playbook, fallback: &str) -> (Playbook, Vec<IdChange>) {
    let mut alloc = Allocator::with(pb, IdScheme::DATED, 0);
    let sections = SectionMap::default();
    let minted = ids::reallocate_by(pb, is_bullet_id, |e| {
        let day = entry_date(e).unwrap_or(fallback);
        alloc.mint(None, e, &sections, day, None)
    });
    minted.unwrap_or_else(|| (pb.clone(), Vec::new()))
}

fn entry(e: &mut Entry, table: &HashSet<String>, losses: &mut Vec<LossEntry>) {
    let id = e.id.clone();
    let id = id.as_str();
    if e.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
        e.title = Some(title_of(&e.content));
        losses.lose(
            &rules::VALUE_DERIVED,
            Some(id),
            "title",
            "a skill bullet needs a title; the content's first sentence, cut at a word boundary, is used",
        );
    }
    tags(e, id, table, losses);
    for (field, name) in [("created_at", "created"), ("updated_at", "last_updated")] {
        timestamp(e, field, name, id, losses);
    }
    unfit(e, id, false, losses);
}

/// Takes off `e` what the bullet schema refuses, each reported: evidence
/// that is not a `{type, ref}` object of a known type, extra keys that are
/// not the schema's own. Unless `added` (an entry a delta added, whose own
/// keys are kept as another copy of the file may hold them), an own key
/// with a value outside the schema goes too, and a status outside its enum
/// is written as the closest one in it.
fn unfit(e: &mut Entry, id: &str, added: bool, losses: &mut Vec<LossEntry>) {
    if let Some(items) = e.evidence.take() {
        let (kept, lost): (Vec<Evidence>, Vec<Evidence>) =
            items.into_iter().partition(evidence_fits);
        if !lost.is_empty() {
            losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                "evidence",
                unfit_evidence(lost.len(), "not written"),
            );
        }
        if !kept.is_empty() || lost.is_empty() {
            e.evidence = Some(kept);
        }
    }
    if let (false, Some(Status::Quarantined | Status::Other(_))) = (added, &e.status) {
        let from = e.status.clone().map(String::from).unwrap_or_default();
        let to = skill_status(&from);
        e.status = Some(Status::Other(to.to_owned()));
        if from != to {
            losses.lose(
                &rules::VALUE_CONVERTED,
                Some(id),
                "status",
                format!("the skill's statuses are active, deprecated, archived and under_review; `{from}` is written as `{to}`"),
            );
        }
    }
    if !e.extra.is_empty() {
        let dropped: Vec<(String, &'static str)> = e
            .extra
            .iter()
            .filter(|(k, _)| !added || !DEFAULT_ORDER.contains(&k.as_str()))
            .filter_map(|(k, v)| extra_problem(k, v).map(|why| (k.to_string(), why)))
            .collect();
        for (key, why) in dropped {
            e.extra.shift_remove(&key);
            losses.lose(&rules::DROPPED_FIELD, Some(id), format!("extra.{key}"), why);
        }
    }
}

/// Why the bullet schema refuses an entry's extra field, if it does: the
/// keys the model holds no field for are its own only when their values
/// are of the schema's type.
fn extra_problem(key: &str, v: &Value) -> Option<&'static str> {
    match key {
        "author" => (!v
            .as_str()
            .is_some_and(|a| ["agent", "human", "collaborative"].contains(&a)))
        .then_some("the skill's `author` is one of agent, human, collaborative"),
        "prerequisites" => (!v
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string)))
        .then_some("the skill's `prerequisites` is a list of bullet IDs"),
        k if DEFAULT_ORDER.contains(&k) => None,
        _ => Some("the bullet schema allows no keys but its own"),
    }
}

/// The status of the skill's enum closest to `s`.
fn skill_status(s: &str) -> &'static str {
    match s {
        "under_review" => "under_review",
        "invalid" | "superseded" | "removed" | "deleted" | "obsolete" | "retired" => "deprecated",
        _ => "under_review",
    }
}

fn evidence_fits(ev: &Evidence) -> bool {
    match ev {
        Evidence::Text(_) => false,
        Evidence::Ref(r) => {
            r.reference.is_some()
                && r.kind
                    .as_deref()
                    .is_some_and(|k| EVIDENCE_TYPES.contains(&k))
        }
    }
}

fn timestamp(
    e: &mut Entry,
    field: &'static str,
    name: &str,
    id: &str,
    losses: &mut Vec<LossEntry>,
) {
    let slot = match field {
        "created_at" => &mut e.created_at,
        _ => &mut e.updated_at,
    };
    let Some(t) = slot.as_deref() else {
        return;
    };
    match time::shape(t) {
        Shape::DateTime => {}
        Shape::NoZone => {
            *slot = time::with_zone(t);
            losses.lose(&rules::VALUE_DERIVED, Some(id), field, time::ZONE_ADDED);
        }
        Shape::DateOnly => {
            *slot = Some(format!("{t}T00:00:00Z"));
            losses.lose(
                &rules::VALUE_DERIVED,
                Some(id),
                field,
                format!("`{name}` is a date-time; a date alone is written as its midnight UTC"),
            );
        }
        _ => {
            losses.lose(
                &rules::DROPPED_FIELD,
                Some(id),
                field,
                format!(
                    "`{t}` is not a date-time, which the skill's `{name}` must be; not written"
                ),
            );
            *slot = None;
        }
    }
}

/// Tags the schema takes: each `[a-z0-9._-]+`, unique, at least one. An
/// entry without tags is tagged with its section and kind. A section of
/// the `table` written beside is no derived tag: it reads back as the
/// section.
fn tags(e: &mut Entry, id: &str, table: &HashSet<String>, losses: &mut Vec<LossEntry>) {
    let had = e.tags.clone().unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    for t in &had {
        let s = slug(t);
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    }
    if !had.is_empty() && out != had {
        losses.lose(
            &rules::VALUE_CONVERTED,
            Some(id),
            "tags",
            "skill tags are lower-case `[a-z0-9._-]`, each once; the tags were written so",
        );
    }
    if out.is_empty() {
        out = derived_tags(e);
        let only_the_section = e.kind.is_none()
            && e.tags.is_none()
            && e.section
                .as_ref()
                .is_some_and(|s| table.contains(s) && out == [slug(s)]);
        if only_the_section {
            e.tags = Some(out);
            return;
        }
        losses.lose(
            &rules::VALUE_DERIVED,
            Some(id),
            "tags",
            "a skill bullet needs at least one tag; tagged with its section and kind, or `general`",
        );
    }
    e.tags = Some(out);
}

/// The tags of an entry that has none: its section's and its kind's, or
/// `general`.
fn derived_tags(e: &Entry) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in [e.section.as_deref(), e.kind.as_deref()]
        .into_iter()
        .flatten()
        .map(slug)
    {
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    }
    if out.is_empty() {
        out.push(FALLBACK_TAG.to_owned());
    }
    out
}

/// The bullets a delta added, given what the bullet schema requires and
/// the delta did not: a title from the content ([`title_of`]) and, with
/// no tags, [`derived_tags`], unless the file keeps its section table and
/// so tags the bullet with its section. What the schema refuses and
/// another producer's delta gave (kayba's `justification`, evidence as
/// text) is taken off as a conversion takes it ([`unfit`]) and returned as
/// losses. Tags outside the schema's alphabet stay as the delta wrote
/// them, and are reported.
pub fn complete_new(pb: &Playbook, added: Vec<&mut Entry>) -> Vec<LossEntry> {
    let tagged_by_section = crate::layout::sections_kept(pb);
    let mut losses = Vec::new();
    for e in added {
        let id = e.id.clone();
        unfit(e, &id, true, &mut losses);
        if e.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
            e.title = Some(title_of(&e.content));
        }
        let untagged = e.tags.as_ref().is_none_or(Vec::is_empty);
        if untagged && !(tagged_by_section && e.section.is_some()) {
            e.tags = Some(derived_tags(e));
        }
    }
    losses
}

/// A field a delta sets on a bullet the file holds that the bullet schema
/// refuses: a key of another producer's that the bullet does not hold
/// already (kayba's `justification` and `issue`), or evidence the skill
/// cannot hold. The bullet keeps what it had; a key it holds already, the
/// schema's or not, takes the delta's value, so a diff between two skill
/// files applies back.
pub fn refuse_set(to: &Entry, from: &Entry, field: &str) -> Option<LossEntry> {
    let why: std::borrow::Cow<'static, str> = if field == "evidence" {
        let lost = from
            .evidence
            .iter()
            .flatten()
            .filter(|ev| !evidence_fits(ev))
            .count();
        (lost > 0).then(|| unfit_evidence(lost, "the bullet keeps its evidence").into())?
    } else {
        let key = field.strip_prefix("extra.")?;
        if to.extra.contains_key(key) || DEFAULT_ORDER.contains(&key) {
            return None;
        }
        extra_problem(key, from.extra.get(key)?)?.into()
    };
    Some(LossEntry::new(
        &rules::DROPPED_FIELD,
        Some(&to.id),
        field.to_owned(),
        why,
    ))
}

/// Why evidence items the skill cannot hold are lost, and what became of
/// them.
fn unfit_evidence(lost: usize, then: &str) -> String {
    format!(
        "{lost} evidence item(s) are not `{{type, ref}}` objects with a type the skill knows ({}); {then}",
        EVIDENCE_TYPES.join(", ")
    )
}

/// `s` in the tag alphabet: lower-cased, runs of other characters as one
/// `-`, none at either end.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// The content's first sentence on one line, at most [`TITLE_MAX`]
/// characters. A longer sentence is cut at its last clause break (a comma,
/// a semicolon, a dash, an opening parenthesis) when what comes before is
/// a title of its own, else at a word boundary, without the small words a
/// cut leaves dangling (`with`, `such as`, `the`).
pub fn title_of(content: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    let mut len = 0;
    let mut cut = false;
    for w in content.split_whitespace() {
        let would = len + usize::from(!words.is_empty()) + w.chars().count();
        if would > TITLE_MAX {
            if words.is_empty() {
                // One word longer than a title: cut inside it.
                return w.chars().take(TITLE_MAX).collect();
            }
            cut = true;
            break;
        }
        words.push(w);
        len = would;
        if ends_sentence(w) && tidy(&words.join(" ")).chars().count() >= TITLE_MIN {
            break;
        }
    }
    if cut {
        shorten(&mut words);
    }
    let title = words.join(" ");
    let tidied = tidy(&title);
    if tidied.chars().count() >= TITLE_MIN {
        tidied.to_owned()
    } else {
        title
    }
}

/// A clause kept alone must be this long: a short one is often the
/// sentence's "when ..." or "after ..." without its advice.
const CLAUSE_MIN: usize = 40;

/// Words a cut title does not end on.
const DANGLING: [&str; 24] = [
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "for", "with", "by", "at",
    "from", "as", "such", "that", "which", "when", "if", "always", "never", "is",
];

fn shorten(words: &mut Vec<&str>) {
    let len = |ws: &[&str]| ws.join(" ").chars().count();
    // The last clause break: after a word ending in `,;:`, before a dash
    // or a word opening a parenthesis.
    let breaks = (1..words.len()).rev().find(|&i| {
        let before = words[i - 1];
        let at = words[i];
        (before.ends_with([',', ';', ':']) || at.starts_with('(') || matches!(at, "-" | "—" | "–"))
            && len(&words[..i]) >= CLAUSE_MIN
    });
    if let Some(i) = breaks {
        words.truncate(i);
        return;
    }
    // A parenthesis the cut left open goes, with what it opened.
    let opens = |w: &&str| w.matches('(').count() > w.matches(')').count();
    if let Some(i) = words.iter().rposition(opens) {
        if i > 0 && !words[i..].iter().any(|w| w.contains(')')) {
            words.truncate(i);
        }
    }
    while words.len() > 1
        && words
            .last()
            .is_some_and(|w| DANGLING.contains(&w.to_lowercase().as_str()))
    {
        words.pop();
    }
}

/// `t` without the punctuation a cut leaves at its end.
fn tidy(t: &str) -> &str {
    let t = t.trim_end_matches([',', ';', ':', '-', '(', '—', '–']);
    t.strip_suffix('.').unwrap_or(t)
}

fn ends_sentence(word: &str) -> bool {
    let w = word.trim_end_matches(['"', '\'', ')', '*', '`', '”', '’']);
    w.ends_with(['.', '!', '?', ':'])
        // An abbreviation or a version, not the end of a sentence.
        && !matches!(w, "e.g." | "i.e." | "etc." | "vs." | "cf.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_the_first_sentence_cut_at_a_word() {
        assert_eq!(
            title_of("Always check the API docs first. Then call it."),
            "Always check the API docs first"
        );
        assert_eq!(
            title_of("Use e.g. `jq` to read JSON! It is fast."),
            "Use e.g. `jq` to read JSON!"
        );
        let long = "When a paginated endpoint returns fewer items than the page size, stop; otherwise keep going";
        let t = title_of(long);
        assert_eq!(
            t,
            "When a paginated endpoint returns fewer items than the page"
        );
        assert!(t.chars().count() <= TITLE_MAX);
        // Cut at the last clause break, or without a dangling word.
        assert_eq!(
            title_of("When syncing contacts across different platforms, always match on the email address"),
            "When syncing contacts across different platforms"
        );
        assert_eq!(
            title_of("Always look at API specifications (using apis.api_docs) before calling any endpoint"),
            "Always look at API specifications (using apis.api_docs)"
        );
        assert_eq!(
            title_of("Always look at API specifications (using apis.api_docs.show_api_descriptions) first"),
            "Always look at API specifications"
        );
        assert_eq!(
            title_of(
                "Write small chunks of code and only one chunk of code in every step of the task"
            ),
            "Write small chunks of code and only one chunk of code"
        );
        assert_eq!(
            title_of("Note:\nfirst things first"),
            "Note: first things first"
        );
        assert_eq!(title_of("  spaced\n\nout  "), "spaced out");
        let one = "x".repeat(80);
        assert_eq!(title_of(&one).chars().count(), TITLE_MAX);
    }

    #[test]
    fn tags_fit_the_alphabet() {
        assert_eq!(
            slug("STRATEGIES AND HARD RULES"),
            "strategies-and-hard-rules"
        );
        assert_eq!(
            slug("Troubleshooting & Pitfalls:"),
            "troubleshooting-pitfalls"
        );
        assert_eq!(slug("tool.bash_retry-x"), "tool.bash_retry-x");
        assert_eq!(slug("日本"), "");
    }

    #[test]
    fn past_999_ids_a_day_the_next_free_day_is_taken() {
        let mut pb = Playbook::default();
        for i in 0..1001 {
            let mut e = Entry::new(format!("e{i}"), "Check the input first.");
            e.created_at = Some("2025-10-25T12:00:00Z".into());
            pb.entries.push(e);
        }
        pb.entries[5].id = "bullet-2025-10-26-001".into();
        let out = conform(&pb, None, None);
        let ids: Vec<&str> = out.playbook.entries.iter().map(|e| e.id.as_str()).collect();
        assert!(ids.iter().all(|id| is_bullet_id(id)), "{:?}", &ids[995..]);
        assert_eq!(ids[1000], "bullet-2025-10-26-002");
        let unique: std::collections::HashSet<&&str> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        // Days on, entries of another date between, and days already taken
        // by an entry that starts later.
        let mut pb = Playbook::default();
        for i in 0..3500 {
            let mut e = Entry::new(format!("e{i}"), "Check the input first.");
            let day = if i % 7 == 3 { "27" } else { "25" };
            e.created_at = Some(format!("2025-10-{day}T12:00:00Z"));
            pb.entries.push(e);
        }
        let out = conform(&pb, None, None);
        let ids: Vec<&str> = out.playbook.entries.iter().map(|e| e.id.as_str()).collect();
        let unique: std::collections::HashSet<&&str> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        let on = |day: &str| ids.iter().filter(|id| id[7..17] == *day).count();
        // 3000 of the 25th fill it, the 26th and the 27th (with the 500 of
        // the 27th); the last 500 go on to the 28th.
        assert_eq!(
            [
                on("2025-10-25"),
                on("2025-10-26"),
                on("2025-10-27"),
                on("2025-10-28")
            ],
            [999, 999, 999, 503]
        );
        assert_eq!(ids[3], "bullet-2025-10-27-001");
    }

    #[test]
    fn ids_take_the_entry_date_and_number_on() {
        assert!(is_bullet_id("bullet-2025-10-25-001"));
        assert!(!is_bullet_id("bullet-2025-10-25-1"));
        assert!(!is_bullet_id("str-00001"));
        let mut pb = Playbook::default();
        let mut a = Entry::new("bullet-2025-01-02-007", "kept as it is, long enough");
        a.created_at = Some("2025-01-02T00:00:00Z".into());
        let mut b = Entry::new("str-00001", "a second entry, dated the same day");
        b.created_at = Some("2025-01-02T10:00:00".into());
        let c = Entry::new("str-00002", "undated, so the playbook's latest date");
        let mut d = Entry::new("mis-00001", "links to str-00001");
        d.links = Some(vec!["str-00001".into()]);
        pb.entries = vec![a, b, c, d];
        let out = conform(&pb, None, None);
        let ids: Vec<&str> = out.playbook.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "bullet-2025-01-02-007",
                "bullet-2025-01-02-008",
                "bullet-2025-01-02-009",
                "bullet-2025-01-02-010"
            ]
        );
        assert_eq!(
            out.playbook.entries[3].links.as_deref(),
            Some(&["bullet-2025-01-02-008".to_owned()][..])
        );
        assert_eq!(out.id_changes.len(), 3);
        let b = &out.playbook.entries[1];
        assert_eq!(b.created_at.as_deref(), Some("2025-01-02T10:00:00Z"));
        assert_eq!(b.tags.as_deref(), Some(&["general".to_owned()][..]));
        assert_eq!(
            b.title.as_deref(),
            Some("a second entry, dated the same day")
        );
        // Without any date, the epoch's, said once.
        let bare = Playbook {
            entries: vec![Entry::new("x", "some content here")],
            ..Playbook::default()
        };
        let out = conform(&bare, None, None);
        assert_eq!(out.playbook.entries[0].id, "bullet-1970-01-01-001");
        assert_eq!(
            out.losses
                .iter()
                .filter(|l| l.code == rules::VALUE_DEFAULTED.code)
                .count(),
            1
        );
        let out = conform(&bare, Some("2026-11-24T08:00:00Z"), None);
        assert_eq!(out.playbook.entries[0].id, "bullet-2026-11-24-001");
        // The clock, as the tools give it, when nothing else dates it;
        // SOURCE_DATE_EPOCH (`now`) and the playbook's dates come first.
        let out = conform(&bare, None, Some("2026-11-26T16:00:00Z"));
        assert_eq!(out.playbook.entries[0].id, "bullet-2026-11-26-001");
        let out = conform(
            &bare,
            Some("2026-11-24T08:00:00Z"),
            Some("2026-11-26T16:00:00Z"),
        );
        assert_eq!(out.playbook.entries[0].id, "bullet-2026-11-24-001");
    }

    #[test]
    fn what_the_schema_forbids_is_reported() {
        let mut e = Entry::new("bullet-2025-01-02-001", "content long enough to keep");
        e.section = Some("Hard Rules".into());
        e.kind = Some("rule".into());
        e.status = Some(Status::Other("invalid".into()));
        e.evidence = Some(vec![Evidence::Text("saw it".into())]);
        e.extra.insert("justification", "because".into());
        e.extra.insert("author", "human".into());
        let pb = Playbook {
            entries: vec![e],
            ..Playbook::default()
        };
        let out = conform(&pb, None, None);
        let e = &out.playbook.entries[0];
        assert_eq!(
            e.tags.as_deref(),
            Some(&["hard-rules".to_owned(), "rule".to_owned()][..])
        );
        assert_eq!(e.status, Some(Status::Other("deprecated".into())));
        assert!(e.evidence.is_none());
        assert!(e.extra.contains_key("author"));
        assert!(!e.extra.contains_key("justification"));
        let fields: Vec<&str> = out.losses.iter().map(|l| l.field.as_ref()).collect();
        assert!(fields.contains(&"extra.justification"), "{fields:?}");
        assert!(fields.contains(&"evidence"), "{fields:?}");
        assert!(fields.contains(&"status"), "{fields:?}");
    }
}
