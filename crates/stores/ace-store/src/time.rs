//! Times between the model's RFC 3339 and SQL's `YYYY-MM-DD HH:MM:SS`,
//! which `CURRENT_TIMESTAMP`, Postgres's `timestamp` and SQLAlchemy's
//! `DateTime` write and read. The columns hold UTC without a zone.

use ace_model::time::{shape, Shape};

/// `t` as a timestamp column holds it: an RFC 3339 time in UTC, its
/// fraction kept, `T` as a space and no zone; a time with an offset moved
/// to UTC; a time without a zone read as UTC. Any other text as it is.
pub(crate) fn to_sql(t: &str) -> String {
    match shape(t) {
        Shape::DateTime | Shape::NoZone => {}
        _ => return t.to_owned(),
    }
    let (clock, zone) = split_zone(t);
    let offset = zone_minutes(zone);
    if offset == 0 {
        return format!("{} {}", &clock[..10], &clock[11..]);
    }
    let num = |r: std::ops::Range<usize>| clock[r].parse::<i64>().unwrap_or(0);
    let days = days_from_civil(num(0..4), num(5..7), num(8..10));
    let secs = days * 86_400 + num(11..13) * 3600 + num(14..16) * 60 + num(17..19) - offset * 60;
    let utc = ace_model::time::rfc3339(secs);
    format!("{} {}{}", &utc[..10], &utc[11..19], &clock[19..])
}

/// A timestamp column's `YYYY-MM-DD HH:MM:SS[.f]` as RFC 3339 in UTC
/// (`T`, `Z`); any other text as it is.
pub(crate) fn from_sql(t: &str) -> String {
    let b = t.as_bytes();
    if b.len() >= 19 && b[10] == b' ' {
        let candidate = format!("{}T{}Z", &t[..10], &t[11..]);
        if shape(&candidate) == Shape::DateTime {
            return candidate;
        }
    }
    t.to_owned()
}

/// The date-time and its zone (`Z`, `+HH:MM`, or empty).
fn split_zone(t: &str) -> (&str, &str) {
    match t
        .char_indices()
        .skip(19)
        .find(|(_, c)| matches!(c, 'Z' | 'z' | '+' | '-'))
    {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t, ""),
    }
}

/// The zone's offset east of UTC, in minutes.
fn zone_minutes(zone: &str) -> i64 {
    let b = zone.as_bytes();
    if b.len() != 6 {
        return 0;
    }
    let n = |r: std::ops::Range<usize>| zone[r].parse::<i64>().unwrap_or(0);
    let m = n(1..3) * 60 + n(4..6);
    match b[0] {
        b'-' => -m,
        _ => m,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// days-from-civil).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_go_to_utc_without_a_zone_and_back() {
        assert_eq!(to_sql("2026-01-02T03:04:05Z"), "2026-01-02 03:04:05");
        assert_eq!(
            to_sql("2026-01-02T03:04:05.123456"),
            "2026-01-02 03:04:05.123456"
        );
        assert_eq!(to_sql("2026-01-02T01:04:05+02:00"), "2026-01-01 23:04:05");
        assert_eq!(
            to_sql("2025-12-31T23:30:00.5-01:00"),
            "2026-01-01 00:30:00.5"
        );
        assert_eq!(to_sql("2026-01-02 03:04:05"), "2026-01-02 03:04:05");
        assert_eq!(to_sql("yesterday"), "yesterday");
        assert_eq!(from_sql("2026-01-02 03:04:05"), "2026-01-02T03:04:05Z");
        assert_eq!(
            from_sql("2026-01-02 03:04:05.25"),
            "2026-01-02T03:04:05.25Z"
        );
        assert_eq!(from_sql("2026-01-02"), "2026-01-02");
        for t in [
            "1970-01-01T00:00:00Z",
            "2000-02-29T12:00:00Z",
            "2026-11-29T14:36:56Z",
        ] {
            assert_eq!(from_sql(&to_sql(t)), t);
        }
    }
}
