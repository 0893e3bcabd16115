//! New entry IDs, in a scheme given as data ([`IdScheme`]): a format's
//! curation names its own, a dialect may name one for what it adds, and a
//! playbook whose IDs follow one of the common shapes is numbered the way
//! most of them are.

// foldhash: an allocator holds every ID of the playbook, and SipHash was
// a tenth of writing a new skill file of 10,000 bullets.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::{ids, mapping::SectionMap, Entry, Playbook, Section};

/// What comes before an ID's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stem {
    /// The entry's section's prefix ([`ids::prefix_for`]): `str`, `cm`.
    SectionPrefix,
    /// The first word of the entry's section, lower-cased (`skill` for
    /// none), as kayba's `_generate_id` makes it.
    SectionWord,
    /// This text, `{date}` in it standing for the day the entry is added
    /// (`YYYY-MM-DD`).
    Text(&'static str),
    /// No stem and no number: eight hex digits, from the ID of the delta
    /// that adds the entry or else from its section and text.
    Hash,
}

/// How new entries are numbered: `{stem}-{number}`, the number
/// zero-padded to `width` digits and counted per stem, or once for the
/// whole file; eight hex digits for [`Stem::Hash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdScheme {
    pub stem: Stem,
    pub width: usize,
    /// The largest number one stem takes: past it, a dated stem moves on
    /// to the next day with a number free (a schema's three digits).
    pub max: Option<u64>,
    /// One counter for the whole file, which the file may keep itself
    /// (kayba's `next_id`): the scheme is followed whatever the IDs
    /// already there look like.
    pub shared: bool,
    /// Whether the IDs tell the order entries were added in: numbered and
    /// dated IDs do, so a new entry is placed among those at its
    /// section's end by ID, and appends from two branches land in one
    /// order whichever merges first. Hash IDs carry no order, nor do
    /// IDs whose file lists a section's entries in the order they came.
    pub ordered: bool,
}

impl IdScheme {
    /// `prefix-NNNNN`, one counter per prefix: the playbook format spec's.
    pub const PREFIXED: IdScheme = IdScheme {
        stem: Stem::SectionPrefix,
        width: 5,
        max: None,
        shared: false,
        ordered: true,
    };
    /// `bullet-YYYY-MM-DD-NNN`, dated by the day the entry is added.
    pub const DATED: IdScheme = IdScheme {
        stem: Stem::Text("bullet-{date}"),
        width: 3,
        max: Some(999),
        shared: false,
        ordered: true,
    };
    /// Eight hex digits.
    pub const HEX: IdScheme = IdScheme {
        stem: Stem::Hash,
        width: 8,
        max: None,
        shared: false,
        ordered: false,
    };
    /// `{first word of the section}-NNNNN` from one counter for the file.
    pub const SECTION_COUNTER: IdScheme = IdScheme {
        stem: Stem::SectionWord,
        width: 5,
        max: None,
        shared: true,
        ordered: false,
    };

    /// The stem and number of `id` if it is one of this scheme's (the
    /// number 0 for a hash).
    pub fn parse(self, id: &str) -> Option<(String, u64)> {
        match self.stem {
            Stem::Hash => is_hex8(id).then(|| (String::new(), 0)),
            // A dated ID is not a prefix and a number: its number counts
            // for its day alone. Nor is a UUID (ace-playbook's bullets),
            // whose last digits only look like one.
            Stem::SectionPrefix | Stem::SectionWord
                if IdScheme::DATED.parse(id).is_some() || is_uuid(id) =>
            {
                None
            }
            Stem::SectionPrefix | Stem::SectionWord => {
                let p = ids::parse_prefixed(id)?;
                Some((p.prefix.to_owned(), p.number))
            }
            Stem::Text(t) => {
                // Told first by the text before `{date}`: most IDs a file
                // has are of another scheme, and each is parsed.
                let parts = dated(t);
                if !id.starts_with(parts.map_or(t, |(before, _)| before)) {
                    return None;
                }
                // Any number of digits: a file's IDs may have outgrown the
                // width new ones are written in.
                let (stem, n) = id.rsplit_once('-')?;
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let ok = match parts {
                    Some((before, after)) => stem
                        .strip_prefix(before)
                        .and_then(|r| r.strip_suffix(after))
                        .is_some_and(is_date),
                    None => stem == t,
                };
                ok.then(|| (stem.to_owned(), n.parse().unwrap_or(0)))
            }
        }
    }
}

impl Default for IdScheme {
    fn default() -> Self {
        IdScheme::PREFIXED
    }
}

/// The first word of `section`, lower-cased; `skill` for none.
pub fn section_word(section: Option<&str>) -> String {
    section
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or("skill")
        .to_lowercase()
}

fn is_hex8(id: &str) -> bool {
    id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `8-4-4-4-12` hex digits.
fn is_uuid(id: &str) -> bool {
    id.len() == 36
        && id.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// A text stem's parts before and after `{date}`, if it has one. Looked
/// for by its `{`: every ID of a file is parsed, and a substring search
/// is set up anew for each.
fn dated(t: &str) -> Option<(&str, &str)> {
    t.match_indices('{')
        .find_map(|(at, _)| Some((&t[..at], t[at..].strip_prefix("{date}")?)))
}

fn is_date(s: &str) -> bool {
    s.len() == 10
        && s.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// The day after `YYYY-MM-DD` (proleptic Gregorian); `None` past 9999.
pub fn next_day(date: &str) -> Option<String> {
    let y: u32 = date.get(0..4)?.parse().ok()?;
    let m: u32 = date.get(5..7)?.parse().ok()?;
    let d: u32 = date.get(8..10)?.parse().ok()?;
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    let (y, m, d) = match (d < days, m < 12) {
        (true, _) => (y, m, d + 1),
        (false, true) => (y, m + 1, 1),
        (false, false) => (y + 1, 1, 1),
    };
    (y <= 9999).then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// Gives new entries IDs no entry has, in one scheme.
pub struct Allocator {
    scheme: IdScheme,
    taken: HashSet<String>,
    /// The highest number per stem (the key `""` for a shared counter).
    highest: HashMap<String, u64>,
    /// For a dated stem's first day, the day its last ID was taken on:
    /// every day before that is full for good (numbers only grow), so the
    /// next search starts there.
    resume: HashMap<String, String>,
}

impl Allocator {
    /// For `pb`, in the scheme most of its IDs follow among the common
    /// shapes (dated, prefixed, hex; `own` first where it is none of
    /// them), else `own`. A shared scheme is always followed, from
    /// `counter`, the number the file's own counter gave last.
    pub fn new(pb: &Playbook, own: IdScheme, counter: u64) -> Self {
        if own.shared {
            return Allocator::with(pb, own, counter);
        }
        let common = [IdScheme::DATED, IdScheme::PREFIXED, IdScheme::HEX];
        let mut candidates: Vec<IdScheme> = Vec::new();
        if !common.iter().any(|c| c.stem == own.stem) {
            candidates.push(own);
        }
        candidates.extend(common);
        // Each ID counts for the first scheme it reads as.
        let mut counts = vec![0usize; candidates.len()];
        for e in &pb.entries {
            if let Some(i) = candidates.iter().position(|c| c.parse(&e.id).is_some()) {
                counts[i] += 1;
            }
        }
        // The most IDs; a tie goes to the scheme listed first.
        let best = (0..candidates.len())
            .rev()
            .max_by_key(|&i| counts[i])
            .filter(|&i| counts[i] > 0);
        match best.map(|i| candidates[i]) {
            None => Allocator::with(pb, own, counter),
            Some(s) if s.stem == Stem::SectionPrefix => {
                Allocator::with(pb, numbered_like(pb, own), counter)
            }
            Some(s) => Allocator::with(pb, s, counter),
        }
    }

    /// For `pb`, in `scheme` whatever its IDs look like.
    pub fn with(pb: &Playbook, scheme: IdScheme, counter: u64) -> Self {
        let mut highest: HashMap<String, u64> = HashMap::new();
        for e in &pb.entries {
            if let Some((stem, n)) = scheme.parse(&e.id) {
                let key = if scheme.shared { String::new() } else { stem };
                let h = highest.entry(key).or_default();
                *h = (*h).max(n);
            }
        }
        if scheme.shared {
            let g = highest.entry(String::new()).or_default();
            *g = (*g).max(counter);
        }
        // A fixed stem mints only IDs its own parse reads: the others
        // cannot be met again (a file of 10,000 other IDs held them all).
        let could_meet = |id: &str| match scheme.stem {
            Stem::Text(_) => scheme.parse(id).is_some(),
            _ => true,
        };
        Allocator {
            scheme,
            taken: pb
                .entries
                .iter()
                .filter(|e| could_meet(&e.id))
                .map(|e| e.id.clone())
                .collect(),
            highest,
            resume: HashMap::new(),
        }
    }

    /// Marks `id` as taken.
    pub fn take(&mut self, id: &str) {
        self.taken.insert(id.to_owned());
    }

    /// A new ID for `e`, whose section in its playbook is `section`,
    /// dated by `day` (`YYYY-MM-DD`) where the stem is dated; `seed` (the
    /// delta's ID) gives a hash.
    pub fn mint(
        &mut self,
        section: Option<&Section>,
        e: &Entry,
        sections: &SectionMap,
        day: &str,
        seed: Option<&str>,
    ) -> String {
        let id = match self.scheme.stem {
            Stem::Hash => self.hash(e, seed),
            Stem::SectionPrefix => self.numbered(ids::prefix_for(section, e, sections)),
            Stem::SectionWord => self.numbered(section_word(e.section.as_deref())),
            Stem::Text(t) => match dated(t) {
                Some(parts) => self.dated(parts, day),
                None => self.numbered(t.to_owned()),
            },
        };
        self.taken.insert(id.clone());
        id
    }

    fn numbered(&mut self, stem: String) -> String {
        let width = self.scheme.width;
        let key = if self.scheme.shared {
            String::new()
        } else {
            stem.clone()
        };
        let n = self.highest.entry(key).or_default();
        loop {
            *n += 1;
            let id = numbered_id(&stem, *n, width);
            if !self.taken.contains(&id) {
                return id;
            }
        }
    }

    /// The next number of the day, or of the first later day with one
    /// free when the day is full.
    fn dated(&mut self, (before, after): (&str, &str), day: &str) -> String {
        let width = self.scheme.width;
        let max = self.scheme.max.unwrap_or(u64::MAX);
        let resumed = self.resume.get(day).cloned();
        let mut date = resumed.as_deref().unwrap_or(day).to_owned();
        loop {
            let stem = [before, date.as_str(), after].concat();
            let n = match self.highest.get_mut(&stem) {
                Some(n) => n,
                None => self.highest.entry(stem.clone()).or_insert(0),
            };
            while *n < max {
                *n += 1;
                let id = numbered_id(&stem, *n, width);
                if !self.taken.contains(&id) {
                    if resumed.as_deref() != Some(date.as_str()) && date != day {
                        self.resume.insert(day.to_owned(), date);
                    }
                    return id;
                }
            }
            match next_day(&date) {
                Some(d) => date = d,
                None => return numbered_id(&stem, max, width),
            }
        }
    }

    fn hash(&self, e: &Entry, seed: Option<&str>) -> String {
        let from_seed: Option<String> = seed
            .map(|s| {
                s.chars()
                    .filter(char::is_ascii_hexdigit)
                    .collect::<String>()
            })
            .filter(|h| h.len() >= 8)
            .map(|h| h[..8].to_ascii_lowercase());
        let mut candidate = from_seed.unwrap_or_else(|| {
            format!(
                "{:08x}",
                fnv(&format!("{:?}::{}", e.section, e.content)) as u32
            )
        });
        let mut salt = 0u64;
        while self.taken.contains(&candidate) {
            salt += 1;
            candidate = format!(
                "{:08x}",
                fnv(&format!("{candidate}{salt}{}", e.content)) as u32
            );
        }
        candidate
    }
}

/// `prefix-NNNNN` as `pb`'s IDs write it: their width, and one counter
/// for every prefix where their numbers are unique across several
/// prefixes, as the paper's playbooks number their bullets.
fn numbered_like(pb: &Playbook, own: IdScheme) -> IdScheme {
    let mut seen: HashSet<u64> = HashSet::new();
    let mut prefixes: HashSet<&str> = HashSet::new();
    let mut repeats = false;
    let mut width = if own.stem == Stem::SectionPrefix {
        own.width
    } else {
        IdScheme::PREFIXED.width
    };
    for e in &pb.entries {
        if IdScheme::DATED.parse(&e.id).is_some() {
            continue;
        }
        if let Some(p) = ids::parse_prefixed(&e.id) {
            repeats |= !seen.insert(p.number);
            prefixes.insert(p.prefix);
            width = e.id.len() - p.prefix.len() - 1;
        }
    }
    IdScheme {
        shared: !repeats && prefixes.len() > 1,
        width,
        ..IdScheme::PREFIXED
    }
}

/// `{stem}-{n}`, `n` zero-padded to `width` digits, made in one
/// allocation without `fmt`: a conversion to a dated scheme mints one for
/// every entry.
fn numbered_id(stem: &str, n: u64, width: usize) -> String {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(n);
    let zeros = width.saturating_sub(digits.len());
    let mut id = String::with_capacity(stem.len() + 1 + zeros + digits.len());
    id.push_str(stem);
    id.push('-');
    id.extend(std::iter::repeat_n('0', zeros));
    id.push_str(digits);
    id
}

/// FNV-1a: a stable hash, the same on every machine and in every version.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pb(ids: &[&str]) -> Playbook {
        Playbook {
            entries: ids
                .iter()
                .map(|id| Entry {
                    id: (*id).to_owned(),
                    section: Some("strategies".into()),
                    ..Entry::default()
                })
                .collect(),
            ..Playbook::default()
        }
    }

    fn next(pb: &Playbook, own: IdScheme, day: &str) -> String {
        let e = Entry {
            section: Some("strategies".into()),
            content: "x".into(),
            ..Entry::default()
        };
        Allocator::new(pb, own, 0).mint(None, &e, &SectionMap::default(), day, None)
    }

    #[test]
    fn uuids_are_not_numbered_ids_whose_digits_end_them() {
        let uuids = pb(&[
            "e7fb45bf-f85f-4690-81d0-1163d1306bd2",
            "a93d995d-2c64-4a3d-818d-d4c52911e7c0",
            "bc050bb0-af91-44a5-b8f4-e7bf9bc4523a",
        ]);
        let id = next(&uuids, IdScheme::HEX, "2026-01-02");
        assert!(is_hex8(&id), "{id}");
    }

    #[test]
    fn a_playbook_is_numbered_the_way_most_of_its_ids_are() {
        let dated = pb(&["bullet-2026-01-02-001", "bullet-2026-01-02-002"]);
        assert_eq!(
            next(&dated, IdScheme::PREFIXED, "2026-01-02"),
            "bullet-2026-01-02-003"
        );
        let hex = pb(&["88f22305", "1a2b3c4d", "str-00001"]);
        assert_eq!(next(&hex, IdScheme::PREFIXED, "2026-01-02").len(), 8);
        let shared = pb(&["str-00001", "cm-00002"]);
        assert_eq!(next(&shared, IdScheme::DATED, "2026-01-02"), "str-00003");
        assert_eq!(
            next(&pb(&[]), IdScheme::DATED, "2026-01-02"),
            "bullet-2026-01-02-001"
        );
    }

    #[test]
    fn a_scheme_of_a_formats_own_is_followed_and_counted() {
        let own = IdScheme {
            stem: Stem::Text("note"),
            width: 4,
            ..IdScheme::PREFIXED
        };
        assert_eq!(next(&pb(&["note-0007"]), own, "2026-01-02"), "note-0008");
        let kayba = pb(&["harness-00003"]);
        let mut a = Allocator::new(&kayba, IdScheme::SECTION_COUNTER, 40);
        let e = Entry {
            section: Some("context".into()),
            ..Entry::default()
        };
        assert_eq!(
            a.mint(None, &e, &SectionMap::default(), "2026-01-02", None),
            "context-00041"
        );
    }

    #[test]
    fn a_dated_id_counts_for_its_day_not_as_a_prefixed_number() {
        let mixed = pb(&[
            "app-login-001",
            "app-search-002",
            "bullet-2025-10-27-001727",
        ]);
        let e = Entry {
            section: Some("integration".into()),
            ..Entry::default()
        };
        let mut a = Allocator::new(&mixed, IdScheme::DATED, 0);
        assert_eq!(
            a.mint(None, &e, &SectionMap::default(), "2026-01-02", None),
            "int-003"
        );
    }

    #[test]
    fn a_full_day_moves_on_to_the_next_day_with_a_number_free() {
        let full = pb(&["bullet-2026-12-31-999"]);
        assert_eq!(
            next(&full, IdScheme::DATED, "2026-12-31"),
            "bullet-2027-01-01-001"
        );
        assert_eq!(next_day("2024-02-28").as_deref(), Some("2024-02-29"));
        assert_eq!(next_day("2025-02-28").as_deref(), Some("2025-03-01"));
        assert_eq!(next_day("2025-12-31").as_deref(), Some("2026-01-01"));
        assert_eq!(next_day("9999-12-31"), None);
    }
}
