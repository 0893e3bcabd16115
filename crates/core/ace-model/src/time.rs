//! Timestamps as targets require them.

/// What an RFC 3339 date-time check finds in a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `YYYY-MM-DDTHH:MM:SS(.f+)?` and `Z` or `+HH:MM`.
    DateTime,
    /// A date-time with no zone after it.
    NoZone,
    /// A date-time whose zone is neither `Z` nor `+HH:MM`.
    BadZone,
    /// A `.` after the seconds with no digit after it.
    EmptyFraction,
    /// `YYYY-MM-DD` alone.
    DateOnly,
    /// A date followed by something other than a time.
    NoTime,
    /// Not even a date.
    NotDate,
}

/// The [`Shape`] of `s`. Digits are ASCII only, as the schemas'
/// patterns and formats read them.
pub fn shape(s: &str) -> Shape {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let date = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10);
    if !date {
        return Shape::NotDate;
    }
    if b.len() == 10 {
        return Shape::DateOnly;
    }
    let time = matches!(b.get(10), Some(b'T' | b't'))
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19);
    if !time {
        return Shape::NoTime;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return Shape::EmptyFraction;
        }
    }
    match &b[i..] {
        [] => Shape::NoZone,
        [b'Z' | b'z'] => Shape::DateTime,
        [b'+' | b'-', h1, h2, b':', m1, m2]
            if [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()) =>
        {
            Shape::DateTime
        }
        _ => Shape::BadZone,
    }
}

/// Whether `s` is a date-time with no zone (`2025-10-26T12:53:55.466615`,
/// what Python's `datetime.now().isoformat()` writes).
pub fn lacks_zone(s: &str) -> bool {
    shape(s) == Shape::NoZone
}

/// `s` with `Z` added when it [lacks a zone](lacks_zone): read as UTC,
/// which is what such files mean in practice. `None` when `s` has a zone
/// already, or is not a date-time at all (a value that cannot be fixed is
/// left for the target's schema to report).
pub fn with_zone(s: &str) -> Option<String> {
    lacks_zone(s).then(|| format!("{s}Z"))
}

/// What a writer says of a timestamp it wrote with `Z` ([`with_zone`]).
pub const ZONE_ADDED: &str =
    "written with `Z`: the target's date-time needs a zone, and a time without one is read as UTC";

/// The latest of the playbook's and its entries' timestamps, as written:
/// the time a writer that must invent one uses, so that the output depends
/// on the input alone. Compared as strings, which orders RFC 3339 times
/// of one zone.
pub fn latest(pb: &crate::Playbook) -> Option<&str> {
    pb.entries
        .iter()
        .flat_map(|e| [e.created_at.as_deref(), e.updated_at.as_deref()])
        .chain([pb.created_at.as_deref(), pb.updated_at.as_deref()])
        .flatten()
        .max()
}

/// The earliest of the playbook's and its entries' timestamps, as written:
/// the creation time a writer that must invent one uses.
pub fn earliest(pb: &crate::Playbook) -> Option<&str> {
    pb.entries
        .iter()
        .flat_map(|e| [e.created_at.as_deref(), e.updated_at.as_deref()])
        .chain([pb.created_at.as_deref(), pb.updated_at.as_deref()])
        .flatten()
        .min()
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
