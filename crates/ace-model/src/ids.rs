//! Entry ID helpers: parsing the `prefix-NNNNN` family and allocating new IDs.

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

/// Seed 000's shape: three lower-case letters, a dash, five digits.
pub fn is_canonical(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 9
        && b[..3].iter().all(u8::is_ascii_lowercase)
        && b[3] == b'-'
        && b[4..].iter().all(u8::is_ascii_digit)
}

/// How the number of a new ID is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbering {
    /// Seed 000: highest number among IDs with the same prefix, plus one.
    PerPrefix,
    /// The paper's code: one counter shared by every prefix.
    Global,
}

/// The next free ID for `prefix`, zero-padded to five digits as seed 000 says.
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn canonical_shape() {
        assert!(is_canonical("str-00001"));
        assert!(!is_canonical("calc-00014"));
        assert!(!is_canonical("STR-00001"));
        assert!(!is_canonical("sr-001"));
        assert!(!is_canonical("str-0000١"));
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
