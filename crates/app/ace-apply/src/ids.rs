//! IDs for the entries a delta adds without one, in the scheme the
//! playbook's own IDs follow: the playbook format spec's `prefix-NNNNN` (per prefix, or one
//! counter shared by every prefix as the paper's playbooks number them),
//! the skill's `bullet-YYYY-MM-DD-NNN`, or ace_beads' eight hex digits.

use std::collections::{HashMap, HashSet};

use ace_model::{ids, mapping::SectionMap, Entry, Playbook};
use ace_registry::IdScheme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Prefixed { global: bool, width: usize },
    Dated,
    Hex,
    Counter,
}

pub(crate) struct Allocator {
    scheme: Scheme,
    taken: HashSet<String>,
    /// The highest number per prefix (the key `""` for a shared counter),
    /// per date for dated IDs.
    highest: HashMap<String, u64>,
}

fn dated(id: &str) -> Option<(&str, u64)> {
    let rest = id.strip_prefix("bullet-")?;
    let (date, n) = rest.rsplit_once('-')?;
    let ok = date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    (ok && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| (date, n.parse().unwrap_or(0)))
}

fn is_hex8(id: &str) -> bool {
    id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Allocator {
    /// The scheme most of `pb`'s IDs follow; for a playbook with none, the
    /// format's own (`default`). A format that keeps its own counter
    /// (`IdScheme::Counter`, which gave `counter` last) always counts on.
    pub(crate) fn new(pb: &Playbook, default: IdScheme, counter: u64) -> Self {
        let (mut prefixed, mut date, mut hex) = (0usize, 0usize, 0usize);
        let mut highest: HashMap<String, u64> = HashMap::new();
        let mut numbers_seen: HashSet<u64> = HashSet::new();
        let mut repeats = false;
        let mut prefixes: HashSet<&str> = HashSet::new();
        let mut width = 5;
        for e in &pb.entries {
            if let Some((d, n)) = dated(&e.id) {
                date += 1;
                let h = highest.entry(d.to_owned()).or_default();
                *h = (*h).max(n);
            } else if let Some(p) = ids::parse_prefixed(&e.id) {
                prefixed += 1;
                let h = highest.entry(p.prefix.to_owned()).or_default();
                *h = (*h).max(p.number);
                let g = highest.entry(String::new()).or_default();
                *g = (*g).max(p.number);
                repeats |= !numbers_seen.insert(p.number);
                prefixes.insert(p.prefix);
                width = e.id.len() - p.prefix.len() - 1;
            } else if is_hex8(&e.id) {
                hex += 1;
            }
        }
        let scheme = if default == IdScheme::Counter {
            let g = highest.entry(String::new()).or_default();
            *g = (*g).max(counter);
            Scheme::Counter
        } else if date > 0 && date >= prefixed && date >= hex {
            Scheme::Dated
        } else if hex > prefixed {
            Scheme::Hex
        } else if prefixed > 0 {
            // Numbers unique across several prefixes: one shared counter,
            // as the paper's playbooks number their bullets.
            Scheme::Prefixed {
                global: !repeats && prefixes.len() > 1,
                width,
            }
        } else {
            match default {
                IdScheme::Dated => Scheme::Dated,
                IdScheme::Hex => Scheme::Hex,
                IdScheme::Counter => Scheme::Counter,
                IdScheme::Prefixed => Scheme::Prefixed {
                    global: false,
                    width: 5,
                },
            }
        };
        Allocator {
            scheme,
            taken: pb.entries.iter().map(|e| e.id.clone()).collect(),
            highest,
        }
    }

    pub(crate) fn take(&mut self, id: &str) {
        self.taken.insert(id.to_owned());
    }

    /// A new ID for `e`, dated by `today` (`YYYY-MM-DD`) where the scheme
    /// is dated; `seed` (the delta's ID) gives ace_beads' hex IDs.
    pub(crate) fn mint(
        &mut self,
        pb: &Playbook,
        e: &Entry,
        sections: &SectionMap,
        today: &str,
        seed: Option<&str>,
    ) -> String {
        let id = match self.scheme {
            Scheme::Dated => {
                let n = self.highest.entry(today.to_owned()).or_default();
                loop {
                    *n += 1;
                    let id = format!("bullet-{today}-{:03}", *n);
                    if !self.taken.contains(&id) {
                        break id;
                    }
                }
            }
            Scheme::Hex => {
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
            Scheme::Counter => {
                let prefix = ids::kayba_prefix(e.section.as_deref());
                let n = self.highest.entry(String::new()).or_default();
                loop {
                    *n += 1;
                    let id = format!("{prefix}-{:05}", *n);
                    if !self.taken.contains(&id) {
                        break id;
                    }
                }
            }
            Scheme::Prefixed { global, width } => {
                let prefix = ids::prefix_for(pb, e, sections);
                let key = if global {
                    String::new()
                } else {
                    prefix.clone()
                };
                let n = self.highest.entry(key).or_default();
                loop {
                    *n += 1;
                    let id = format!("{prefix}-{:0width$}", *n);
                    if !self.taken.contains(&id) {
                        break id;
                    }
                }
            }
        };
        self.taken.insert(id.clone());
        id
    }
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
            entries: ids.iter().map(|i| Entry::new(*i, "x")).collect(),
            ..Playbook::default()
        }
    }

    fn mint(pb: &Playbook, section: &str) -> String {
        let e = Entry {
            section: Some(section.into()),
            ..Entry::default()
        };
        Allocator::new(pb, IdScheme::Prefixed, 0).mint(
            pb,
            &e,
            &SectionMap::default(),
            "2026-01-02",
            None,
        )
    }

    #[test]
    fn per_prefix_and_shared_counters() {
        let per = pb(&["str-00001", "str-00002", "cal-00001"]);
        assert_eq!(mint(&per, "strategies"), "str-00003");
        let shared = pb(&["shr-00001", "api-00004", "misc-00003"]);
        assert_eq!(mint(&shared, "strategies"), "str-00005");
    }

    #[test]
    fn dated_ids_count_within_the_day() {
        let p = pb(&["bullet-2026-01-02-007", "bullet-2025-12-31-010"]);
        assert_eq!(mint(&p, "x"), "bullet-2026-01-02-008");
    }

    #[test]
    fn hex_ids_come_from_the_delta() {
        let p = pb(&["59835aa2", "43ea43ee"]);
        let e = Entry::default();
        let mut a = Allocator::new(&p, IdScheme::Prefixed, 0);
        let id = a.mint(
            &p,
            &e,
            &SectionMap::default(),
            "",
            Some("19e07c92-66bd-4019"),
        );
        assert_eq!(id, "19e07c92");
        let again = a.mint(
            &p,
            &e,
            &SectionMap::default(),
            "",
            Some("19e07c92-66bd-4019"),
        );
        assert_ne!(again, id);
        assert_eq!(again.len(), 8);
    }
}
