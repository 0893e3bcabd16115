//! Entry ID helpers: parsing the `prefix-NNNNN` family and allocating new IDs.

use std::collections::HashMap;

use crate::{mapping, Entry, Playbook, Section};

/// An ID of the form `prefix-digits` or `prefixdigits` (`str-00001`, `s6`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixedId<'a> {
    pub prefix: &'a str,
    pub number: u64,
    /// Number of digits as written, zero padding included.
    pub width: usize,
    /// Whether a `-` separates prefix and number.
    pub dashed: bool,
}

/// Splits an ID into prefix and number. Returns `None` for IDs outside the
/// family (hex hashes, UUIDs, slugs without a trailing number).
pub fn parse_prefixed(id: &str) -> Option<PrefixedId<'_>> {
    let b = id.as_bytes();
    let digits_start = b.len() - b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let digits = &id[digits_start..];
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let number = digits.parse().ok()?;
    let (prefix, dashed) = match id[..digits_start].strip_suffix('-') {
        Some(p) => (p, true),
        None => (&id[..digits_start], false),
    };
    let pb = prefix.as_bytes();
    let valid_prefix = pb.first().is_some_and(u8::is_ascii_alphabetic)
        && pb
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    valid_prefix.then_some(PrefixedId {
        prefix,
        number,
        width: digits.len(),
        dashed,
    })
}

/// Just the prefix of [`parse_prefixed`], without parsing the number; the
/// markdown reader calls this once per entry.
pub fn prefix_of(id: &str) -> Option<&str> {
    let b = id.as_bytes();
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 19 {
        return None;
    }
    let head = &b[..b.len() - digits];
    let prefix = head.strip_suffix(b"-").unwrap_or(head);
    let valid = prefix.first().is_some_and(u8::is_ascii_alphabetic)
        && prefix
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    valid.then(|| &id[..prefix.len()])
}

/// Whether the tools of the playbook format spec can number past `id`:
/// it ends in `-` and digits after a prefix of lower-case letters, digits
/// or `_` (`str-00001`, `calc-00014`, `vc-00230`, `sr-001`). The paper's
/// code reads an ID as anything between the brackets and numbers new ones
/// by the digits after the last `-` (`get_next_global_id`); an ID without
/// them (`s6`, `formula`) is skipped there, and one with white space or
/// capitals is none it would write.
pub fn is_numbered(id: &str) -> bool {
    let Some((prefix, number)) = id.rsplit_once('-') else {
        return false;
    };
    !prefix.is_empty()
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && prefix
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// How the number of a new ID is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbering {
    /// The playbook format spec: highest number among IDs with the same prefix, plus one.
    PerPrefix,
    /// The paper's code: one counter shared by every prefix.
    Global,
}

/// The next free ID for `prefix`, zero-padded to five digits as the playbook format spec says.
pub fn next_id<'a>(
    existing: impl IntoIterator<Item = &'a str>,
    prefix: &str,
    numbering: Numbering,
) -> String {
    let max = existing
        .into_iter()
        .filter_map(parse_prefixed)
        .filter(|p| numbering == Numbering::Global || p.prefix == prefix)
        .map(|p| p.number)
        .max()
        .unwrap_or(0);
    format!("{prefix}-{:05}", max.saturating_add(1))
}

/// One entry given a new ID because the target could not hold its own.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IdChange {
    /// Index of the entry in the playbook.
    #[serde(skip)]
    pub entry: usize,
    pub old: String,
    pub new: String,
}

/// The prefix a new ID gets for `e`: its section's prefix, the prefix of
/// its section's row in the mapping (`str`, `mis`, `dom`, ...), the key's
/// first three letters, or the table's prefix for the entry's kind; `oth`
/// when none of these says anything.
/// `section` is the playbook's section of `e`'s key, if it has one.
pub fn prefix_for(section: Option<&Section>, e: &Entry, sections: &mapping::SectionMap) -> String {
    if let Some(p) = section
        .and_then(|s| s.prefix.as_deref())
        .filter(|p| is_prefix(p))
    {
        return p.to_owned();
    }
    if let Some(key) = e.section.as_deref() {
        if let Some(row) = sections.row_for_section(key, None, None) {
            return row.prefix.to_owned();
        }
        let letters: String = key
            .chars()
            .filter(char::is_ascii_alphabetic)
            .take(3)
            .collect::<String>()
            .to_ascii_lowercase();
        if !letters.is_empty() {
            return letters;
        }
    }
    e.kind
        .as_deref()
        .and_then(|k| sections.section_for_kind(k))
        .map_or("oth", |row| row.prefix)
        .to_owned()
}

fn is_prefix(p: &str) -> bool {
    p.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && p.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

/// Gives every entry whose ID `valid` rejects a new one by the playbook format spec's rule
/// (the prefix from [`prefix_for`], then the highest number among that
/// prefix's IDs plus one), and rewrites references to the old IDs. Returns
/// `None` when every ID is valid, so that callers copy nothing then.
pub fn reallocate(
    pb: &Playbook,
    valid: impl Fn(&str) -> bool,
    sections: &mapping::SectionMap,
) -> Option<(Playbook, Vec<IdChange>)> {
    let mut highest: HashMap<String, u64> = HashMap::new();
    for e in &pb.entries {
        if let Some(p) = parse_prefixed(&e.id).filter(|_| valid(&e.id)) {
            let h = highest.entry(p.prefix.to_owned()).or_default();
            *h = (*h).max(p.number);
        }
    }
    let by_key = pb.sections_by_key();
    reallocate_by(pb, valid, |e| {
        let section = e.section.as_deref().and_then(|k| by_key.get(k).copied());
        let prefix = prefix_for(section, e, sections);
        let n = highest.entry(prefix.clone()).or_default();
        *n = n.saturating_add(1);
        format!("{prefix}-{:05}", *n)
    })
}

/// Gives every entry whose ID `valid` rejects the ID `mint` makes for it,
/// in entry order, and rewrites references to the old IDs (`supersedes`,
/// `superseded_by`, `duplicate_of`, `links`). `None` when every ID is
/// valid.
pub fn reallocate_by(
    pb: &Playbook,
    valid: impl Fn(&str) -> bool,
    mut mint: impl FnMut(&Entry) -> String,
) -> Option<(Playbook, Vec<IdChange>)> {
    if pb.entries.iter().all(|e| valid(&e.id)) {
        return None;
    }
    let mut out = pb.clone();
    let mut changes = Vec::new();
    let mut map: HashMap<String, String> = HashMap::new();
    for (i, e) in pb.entries.iter().enumerate() {
        if valid(&e.id) {
            continue;
        }
        let new = mint(e);
        // The first entry of a repeated ID is the one references meant.
        map.entry(e.id.clone()).or_insert_with(|| new.clone());
        out.entries[i].id.clone_from(&new);
        changes.push(IdChange {
            entry: i,
            old: e.id.clone(),
            new,
        });
    }
    let rewrite = |id: &mut String| {
        if let Some(new) = map.get(id.as_str()) {
            id.clone_from(new);
        }
    };
    // Only entries that have rare fields can hold references; touching the
    // others through `DerefMut` would give each an empty box.
    for e in out.entries.iter_mut().filter(|e| e.rare.is_some()) {
        e.supersedes.iter_mut().flatten().for_each(rewrite);
        e.links.iter_mut().flatten().for_each(rewrite);
        e.superseded_by.iter_mut().for_each(rewrite);
        e.duplicate_of.iter_mut().for_each(rewrite);
    }
    Some((out, changes))
}

/// Orders IDs as people read them: runs of digits by their value, so that
/// `str-9` comes before `str-10`; the rest byte by byte. Digit runs sort
/// before other text, and IDs equal in value (`str-01`, `str-1`) fall back
/// to byte order, so that the order is total.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn run(s: &[u8], digits: bool) -> usize {
        s.iter()
            .position(|c| c.is_ascii_digit() != digits)
            .unwrap_or(s.len())
    }
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while let (Some(&cx), Some(&cy)) = (x.first(), y.first()) {
        let (dx, dy) = (cx.is_ascii_digit(), cy.is_ascii_digit());
        if dx != dy {
            return if dx {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (nx, ny) = (run(x, dx), run(y, dy));
        let (rx, ry) = (&x[..nx], &y[..ny]);
        let ord = if dx {
            let tx = &rx[rx.iter().position(|&c| c != b'0').unwrap_or(nx)..];
            let ty = &ry[ry.iter().position(|&c| c != b'0').unwrap_or(ny)..];
            tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty))
        } else {
            rx.cmp(ry)
        };
        if ord != Ordering::Equal {
            return ord;
        }
        x = &x[nx..];
        y = &y[ny..];
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    #[test]
    fn natural_order_reads_digit_runs_as_numbers() {
        use std::cmp::Ordering::*;
        let mut ids = vec![
            "str-10",
            "str-9",
            "str-00010",
            "b",
            "a10",
            "a9",
            "a",
            "7f1c2a9e",
            "10",
            "str-01",
            "str-1",
        ];
        ids.sort_by(|a, b| super::natural_cmp(a, b));
        assert_eq!(
            ids,
            [
                "7f1c2a9e",
                "10",
                "a",
                "a9",
                "a10",
                "b",
                "str-01",
                "str-1",
                "str-9",
                "str-00010",
                "str-10"
            ]
        );
        assert_eq!(super::natural_cmp("x-2", "x-2"), Equal);
        assert_eq!(super::natural_cmp("x", "x-1"), Less);
    }

    use super::*;
    use crate::Section;

    #[test]
    fn invalid_ids_get_the_next_number_of_their_prefix_and_references_follow() {
        let mut pb = Playbook::default();
        let mut s = Section::new("strategies_and_insights");
        s.prefix = Some("str".into());
        pb.sections.push(s);
        let mut entries = vec![
            Entry::new("str-00007", "kept"),
            Entry::new("a", "old"),
            Entry::new("b", "new"),
            Entry::new("c", "no section"),
            Entry::new("a", "same id again"),
        ];
        for e in &mut entries[..3] {
            e.section = Some("strategies_and_insights".into());
        }
        entries[1].superseded_by = Some("b".into());
        entries[2].supersedes = Some(vec!["a".into(), "zz".into()]);
        entries[3].kind = Some("warning".into());
        entries[3].links = Some(vec!["str-00007".into(), "a".into()]);
        pb.entries = entries;
        let valid = |id: &str| id.bytes().any(|b| b.is_ascii_digit());
        let (out, changes) = reallocate(&pb, valid, &mapping::BUILT_IN).expect("some IDs change");
        let ids: Vec<&str> = out.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "str-00007",
                "str-00008",
                "str-00009",
                "mis-00001",
                "oth-00001"
            ]
        );
        assert_eq!(out.entries[1].superseded_by.as_deref(), Some("str-00009"));
        assert_eq!(
            out.entries[2].supersedes.as_deref(),
            Some(&["str-00008".to_owned(), "zz".to_owned()][..])
        );
        assert_eq!(
            out.entries[3].links.as_deref(),
            Some(&["str-00007".to_owned(), "str-00008".to_owned()][..])
        );
        let pairs: Vec<(&str, &str)> = changes
            .iter()
            .map(|c| (c.old.as_str(), c.new.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("a", "str-00008"),
                ("b", "str-00009"),
                ("c", "mis-00001"),
                ("a", "oth-00001")
            ]
        );
        assert!(
            reallocate(&out, valid, &mapping::BUILT_IN).is_none(),
            "nothing left to change"
        );
    }

    #[test]
    fn parses_every_shape_in_the_wild() {
        let p = parse_prefixed("str-00001").unwrap();
        assert_eq!((p.prefix, p.number, p.width, p.dashed), ("str", 1, 5, true));
        let p = parse_prefixed("calc-00014").unwrap();
        assert_eq!((p.prefix, p.number), ("calc", 14));
        let p = parse_prefixed("sr-001").unwrap();
        assert_eq!((p.prefix, p.number, p.width), ("sr", 1, 3));
        let p = parse_prefixed("s6").unwrap();
        assert_eq!((p.prefix, p.number, p.dashed), ("s", 6, false));
        let p = parse_prefixed("web_interaction_patterns-00001").unwrap();
        assert_eq!(p.prefix, "web_interaction_patterns");
        let p = parse_prefixed("bullet-2025-10-25-001").unwrap();
        assert_eq!((p.prefix, p.number), ("bullet-2025-10-25", 1));
        assert_eq!(parse_prefixed("88f22305"), None);
        assert_eq!(parse_prefixed("test-good"), None);
        assert_eq!(parse_prefixed("-1"), None);
        assert_eq!(parse_prefixed("x-99999999999999999999999"), None);
        for id in [
            "str-00001",
            "s6",
            "sr-001",
            "bullet-2025-10-25-001",
            "88f22305",
            "test-good",
            "-1",
            "a--1",
        ] {
            assert_eq!(prefix_of(id), parse_prefixed(id).map(|p| p.prefix), "{id}");
        }
    }

    #[test]
    fn numbered_shape() {
        for id in [
            "str-00001",
            "calc-00014",
            "vc-00230",
            "misc-00003",
            "sr-001",
            "reasoning-00007",
            "general_notes-00001",
        ] {
            assert!(is_numbered(id), "{id}");
        }
        for id in [
            "s6",
            "formula",
            "STR-00001",
            "str-",
            "-00001",
            "str-0000١",
            "my id-1",
        ] {
            assert!(!is_numbered(id), "{id}");
        }
    }

    #[test]
    fn allocation_per_prefix_and_global() {
        let ids = ["shr-00001", "psw-00002", "misc-00003", "shr-00005"];
        assert_eq!(next_id(ids, "shr", Numbering::PerPrefix), "shr-00006");
        assert_eq!(next_id(ids, "psw", Numbering::PerPrefix), "psw-00003");
        assert_eq!(next_id(ids, "new", Numbering::PerPrefix), "new-00001");
        assert_eq!(next_id(ids, "psw", Numbering::Global), "psw-00006");
    }
}
