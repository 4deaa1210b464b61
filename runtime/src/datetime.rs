//! ISO 8601 text <-> Delphi `TDateTime` (days since 1899-12-30 as a Double; the fraction is the
//! time of day, also for negative values, as in Delphi).
//!
//! Accepted forms (no time zone: a TDateTime has none): `YYYY-MM-DDTHH:MM:SS[.fff]` for
//! TDateTime, `YYYY-MM-DD` for TDate, `HH:MM:SS[.fff]` for TTime; years 0001-9999; at most
//! three fraction digits (TDateTime resolution is a millisecond).

use delphi_mcp_manifest::DateTimePart;

const MS_PER_DAY: i64 = 86_400_000;

/// Days from 1970-01-01 to y-m-d (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days from 1970-01-01 to Delphi's day 0 (1899-12-30).
const DELPHI_EPOCH: i64 = -25_569;

fn digits(text: &str, n: usize) -> Option<i64> {
    (text.len() == n && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

fn parse_date(text: &str) -> Option<i64> {
    let mut parts = text.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (y, m, d) = (digits(y, 4)?, digits(m, 2)?, digits(d, 2)?);
    if y < 1 || !(1..=12).contains(&m) || d < 1 {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if d > month_days[(m - 1) as usize] {
        return None;
    }
    Some(days_from_civil(y, m, d) - DELPHI_EPOCH)
}

fn parse_time(text: &str) -> Option<i64> {
    let (hms, fraction) = match text.split_once('.') {
        Some((hms, f)) => (hms, Some(f)),
        None => (text, None),
    };
    let mut parts = hms.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (h, m, s) = (digits(h, 2)?, digits(m, 2)?, digits(s, 2)?);
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    let ms = match fraction {
        None => 0,
        Some(f) if (1..=3).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{f:0<3}").parse::<i64>().ok()?
        }
        Some(_) => return None,
    };
    Some(((h * 60 + m) * 60 + s) * 1000 + ms)
}

/// The expected form, for messages.
pub fn expected_form(part: DateTimePart) -> &'static str {
    match part {
        DateTimePart::DateTime => {
            "an ISO 8601 date and time YYYY-MM-DDTHH:MM:SS[.fff] without time zone"
        }
        DateTimePart::Date => "an ISO 8601 date YYYY-MM-DD",
        DateTimePart::Time => "an ISO 8601 time HH:MM:SS[.fff]",
    }
}

/// Parses `text` as `part`; `None` when it is not of the expected form or not a real date.
pub fn parse(text: &str, part: DateTimePart) -> Option<f64> {
    let (day, ms) = match part {
        DateTimePart::DateTime => {
            let (date, time) = text.split_once('T')?;
            (parse_date(date)?, parse_time(time)?)
        }
        DateTimePart::Date => (parse_date(text)?, 0),
        DateTimePart::Time => (0, parse_time(text)?),
    };
    let fraction = ms as f64 / MS_PER_DAY as f64;
    Some(if day < 0 {
        day as f64 - fraction
    } else {
        day as f64 + fraction
    })
}

/// Formats a TDateTime value as `part`; `None` when it is not finite or outside years 1-9999.
pub fn format(value: f64, part: DateTimePart) -> Option<String> {
    if !value.is_finite() || value.abs() > 3.0e6 {
        return None;
    }
    let day = value.trunc();
    let fraction = (value - day).abs();
    let mut day = day as i64;
    let mut ms = (fraction * MS_PER_DAY as f64).round() as i64;
    if ms >= MS_PER_DAY {
        ms -= MS_PER_DAY;
        day += if value < 0.0 { -1 } else { 1 };
    }
    let (y, m, d) = civil_from_days(day + DELPHI_EPOCH);
    if !(1..=9999).contains(&y) {
        return None;
    }
    let date = format!("{y:04}-{m:02}-{d:02}");
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (min, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    let time = if milli == 0 {
        format!("{h:02}:{min:02}:{s:02}")
    } else {
        format!("{h:02}:{min:02}:{s:02}.{milli:03}")
    };
    Some(match part {
        DateTimePart::DateTime => format!("{date}T{time}"),
        DateTimePart::Date => date,
        DateTimePart::Time => time,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_match_delphi() {
        // Values from the Delphi documentation of TDateTime.
        assert_eq!(
            parse("1899-12-30T00:00:00", DateTimePart::DateTime),
            Some(0.0)
        );
        assert_eq!(
            parse("1900-01-01T00:00:00", DateTimePart::DateTime),
            Some(2.0)
        );
        assert_eq!(
            parse("1900-01-01T06:00:00", DateTimePart::DateTime),
            Some(2.25)
        );
        assert_eq!(
            parse("1899-12-29T06:00:00", DateTimePart::DateTime),
            Some(-1.25)
        );
        assert_eq!(parse("12:00:00", DateTimePart::Time), Some(0.5));
        assert_eq!(parse("2000-01-01", DateTimePart::Date), Some(36526.0));
    }

    #[test]
    fn round_trips() {
        for text in [
            "2026-07-28T13:45:10.250",
            "0001-01-01T00:00:00",
            "9999-12-31T23:59:59.999",
            "1899-12-29T06:00:00",
        ] {
            let v = parse(text, DateTimePart::DateTime).expect(text);
            assert_eq!(format(v, DateTimePart::DateTime).as_deref(), Some(text));
        }
    }

    #[test]
    fn rejects_malformed() {
        for text in [
            "2026-02-30T00:00:00",
            "2026-07-28",
            "2026-07-28T25:00:00",
            "2026-07-28T10:00:00Z",
            "2026-07-28T10:00:00.1234",
            "26-07-28T10:00:00",
            "2026-07-28 10:00:00",
        ] {
            assert_eq!(parse(text, DateTimePart::DateTime), None, "{text}");
        }
    }
}
