//! Timestamps as targets require them.

use crate::Error;

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

/// The time to stamp on what a run changes: `--now` (an RFC 3339 time),
/// else `SOURCE_DATE_EPOCH`, else the clock.
pub fn now(given: Option<&str>) -> Result<String, Error> {
    if let Some(n) = given {
        if shape(n) != Shape::DateTime {
            return Err(Error::value(
                "--now",
                n,
                "an RFC 3339 time such as 2026-01-31T12:00:00Z",
            ));
        }
        return Ok(n.to_owned());
    }
    if let Some(t) = source_date_epoch()? {
        return Ok(t);
    }
    Ok(clock())
}

/// [`now`] for a result made of other playbooks (merged runs): without
/// `--now` or `SOURCE_DATE_EPOCH`, the latest time they hold, so that the
/// same inputs give the same bytes; the clock only when they hold none.
pub fn now_of<'a>(
    given: Option<&str>,
    from: impl IntoIterator<Item = &'a crate::Playbook>,
) -> Result<String, Error> {
    if given.is_some() || source_date_epoch()?.is_some() {
        return now(given);
    }
    Ok(from
        .into_iter()
        .filter_map(latest)
        .max()
        .map_or_else(clock, str::to_owned))
}

/// The current time, RFC 3339 in UTC, to the second.
pub fn clock() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    rfc3339(secs)
}

/// `SOURCE_DATE_EPOCH` (the reproducible-builds convention) as an RFC 3339
/// UTC time, for timestamps a conversion must invent. Unset: `None`, and
/// writers fall back to the input's own latest timestamp, so the output
/// depends on nothing but the input.
pub fn source_date_epoch() -> Result<Option<String>, Error> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Err(_) => Ok(None),
        Ok(v) => v
            .trim()
            .parse::<i64>()
            .map(|secs| Some(rfc3339(secs)))
            .map_err(|_| Error::value("SOURCE_DATE_EPOCH", &v, "whole seconds since 1970-01-01")),
    }
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic
/// Gregorian; the days-to-civil algorithm of H. Hinnant).
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn epoch_seconds_become_utc_times() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(1_766_880_000), "2025-12-28T00:00:00Z");
        assert_eq!(super::rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

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
