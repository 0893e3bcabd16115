//! Timestamps as targets require them.

/// `s` with `Z` added, when it is a date-time with no zone
/// (`2025-10-26T12:53:55.466615`, what Python's `datetime.now().isoformat()`
/// writes): read as UTC, which is what such files mean in practice.
/// `None` when `s` has a zone already, or is not a date-time at all (a
/// value that cannot be fixed is left for the target's schema to report).
pub fn with_zone(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let date_time = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(b.get(10), Some(b'T' | b't'))
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19);
    if !date_time {
        return None;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    (i == b.len()).then(|| format!("{s}Z"))
}

#[cfg(test)]
mod tests {
    use super::with_zone;

    #[test]
    fn only_a_date_time_without_a_zone_gets_one() {
        assert_eq!(
            with_zone("2025-10-26T12:53:55.466615").as_deref(),
            Some("2025-10-26T12:53:55.466615Z")
        );
        assert_eq!(
            with_zone("2025-10-26T12:53:55").as_deref(),
            Some("2025-10-26T12:53:55Z")
        );
        for kept in [
            "2025-10-26T12:53:55Z",
            "2025-10-26T12:53:55+02:00",
            "2025-10-26",
            "2025-10-26T12:53:55.",
            "yesterday",
            "",
        ] {
            assert_eq!(with_zone(kept), None, "{kept}");
        }
    }
}
