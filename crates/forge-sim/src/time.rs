//! RFC 3339 timestamps without a date-time dependency: the simulator only needs to format
//! and parse UTC instants (`2024-05-01T12:00:00Z`) and step them by seconds.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, now.
pub(crate) fn now_unix() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn format_rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` into seconds since the epoch.
pub(crate) fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut rest = &text[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        rest = &frac[digits..];
    }
    // Only ASCII can follow a valid timestamp; checking first keeps every slice below on a
    // character boundary (scenario files are input, not trusted).
    if !rest.is_ascii() {
        return None;
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && matches!(&rest[..1], "+" | "-") && &rest[3..4] == ":" => {
            let hh = rest[1..3].parse::<i64>().ok()?;
            let mm = rest[4..6].parse::<i64>().ok()?;
            let sign = if &rest[..1] == "-" { -1 } else { 1 };
            sign * (hh * 3600 + mm * 60)
        }
        _ => return None,
    };
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset)
}

// Howard Hinnant's civil-date algorithms (public domain), proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_utc_instants() {
        for text in [
            "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z",
            "2031-12-31T00:00:01Z",
        ] {
            let secs = parse_rfc3339(text).unwrap();
            assert_eq!(format_rfc3339(secs), text);
        }
        assert_eq!(
            parse_rfc3339("2024-01-01T01:00:00+01:00"),
            parse_rfc3339("2024-01-01T00:00:00Z")
        );
        assert_eq!(
            parse_rfc3339("2024-01-01T00:00:00.123Z"),
            Some(1_704_067_200)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn malformed_offsets_are_rejected_not_panics() {
        for text in [
            "2024-01-01T00:00:00é1:00",
            "2024-01-01T00:00:00+é:00",
            "2024-01-01T00:00:00+01é0",
            "2024-01-01T00:00:00.5ü",
            "2024-01-01T00:00:00+1:000",
        ] {
            assert_eq!(parse_rfc3339(text), None, "{text}");
        }
    }
}
