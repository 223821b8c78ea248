//! RFC 3339 dates and date-times, as sortable values.

use std::fmt;

/// A point in time from an RFC 3339 `full-date` or `date-time`
/// ([RFC 3339 §5.6]), normalised to UTC so that values sort in time order.
///
/// A date without a time is midnight UTC that day. Leap seconds (`:60`)
/// are kept as the next second.
///
/// [RFC 3339 §5.6]: https://www.rfc-editor.org/rfc/rfc3339#section-5.6
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    secs: i64,
    nanos: u32,
}

impl Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub fn unix_seconds(self) -> i64 {
        self.secs
    }

    /// The time `secs` seconds after 1970-01-01T00:00:00Z.
    pub fn from_unix_seconds(secs: i64) -> Timestamp {
        Timestamp { secs, nanos: 0 }
    }

    /// The time `secs` seconds and `nanos` nanoseconds after the epoch
    /// (as [`Timestamp::unix_seconds`] and [`Timestamp::nanos`] give them).
    pub(crate) fn from_parts(secs: i64, nanos: u32) -> Timestamp {
        Timestamp { secs, nanos }
    }

    /// Nanoseconds within the second.
    pub fn nanos(self) -> u32 {
        self.nanos
    }

    /// A bare RFC 3339 `full-date` (`2019-03-01`, exactly those ten
    /// bytes) at midnight UTC; `None` for anything else, valid or not.
    /// [`Timestamp::parse_rfc3339`] reads its date part with it. Most
    /// `registered` values of a CSV export are such dates: read from the
    /// field's bytes at once, without the UTF-8 check, the trimming and the
    /// general parser's steps (10M-row CSV: see CHANGELOG, "CSV records
    /// without quotes").
    pub(crate) fn of_bare_date(b: &[u8]) -> Option<Timestamp> {
        let &[y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = b else { return None };
        if ![y0, y1, y2, y3, m0, m1, d0, d1].iter().all(u8::is_ascii_digit) {
            return None;
        }
        let two = |hi: u8, lo: u8| i64::from(hi - b'0') * 10 + i64::from(lo - b'0');
        let (y, m, d) = (two(y0, y1) * 100 + two(y2, y3), two(m0, m1), two(d0, d1));
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
            return None;
        }
        Some(Timestamp { secs: days_from_civil(y, m, d) * 86_400, nanos: 0 })
    }

    /// Parses an RFC 3339 `full-date` (`2019-03-01`) or `date-time`
    /// (`2019-03-01T12:00:00Z`, `2019-03-01 12:00:00.5+02:00`)
    /// ([RFC 3339 §5.6]).
    ///
    /// # Errors
    ///
    /// A short description of what is wrong.
    ///
    /// [RFC 3339 §5.6]: https://www.rfc-editor.org/rfc/rfc3339#section-5.6
    pub fn parse_rfc3339(s: &str) -> Result<Timestamp, String> {
        let b = s.trim().as_bytes();
        let bad = || format!("not an RFC 3339 date or date-time: {s:?}");
        let num = |r: std::ops::Range<usize>| -> Result<i64, String> {
            let d = b.get(r).ok_or_else(bad)?;
            if d.is_empty() || !d.iter().all(u8::is_ascii_digit) {
                return Err(bad());
            }
            Ok(d.iter().fold(0i64, |a, &c| a * 10 + i64::from(c - b'0')))
        };
        let date = b.get(..10).and_then(Timestamp::of_bare_date).ok_or_else(bad)?;
        if b.len() == 10 {
            return Ok(date);
        }
        if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 19 || b[13] != b':' || b[16] != b':' {
            return Err(bad());
        }
        let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if hh > 23 || mm > 59 || ss > 60 {
            return Err(bad());
        }
        let mut i = 19;
        let mut nanos = 0u32;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                if i - start < 9 {
                    nanos = nanos * 10 + u32::from(b[i] - b'0');
                }
                i += 1;
            }
            if i == start {
                return Err(bad());
            }
            for _ in (i - start)..9 {
                nanos *= 10;
            }
        }
        let offset = match b.get(i) {
            Some(b'Z' | b'z') if b.len() == i + 1 => 0,
            Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
                let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
                if oh > 23 || om > 59 {
                    return Err(bad());
                }
                let o = oh * 3600 + om * 60;
                if sign == b'+' { o } else { -o }
            }
            _ => return Err(bad()),
        };
        let secs = date.secs + hh * 3600 + mm * 60 + ss - offset;
        Ok(Timestamp { secs, nanos })
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
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

impl fmt::Display for Timestamp {
    /// Formats as an RFC 3339 date-time in UTC.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.secs.div_euclid(86_400);
        let rem = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(f, "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}", rem / 3600, rem / 60 % 60, rem % 60)?;
        if self.nanos != 0 {
            write!(f, ".{:09}", self.nanos)?;
        }
        f.write_str("Z")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_sorts() {
        let a = Timestamp::parse_rfc3339("2019-03-01").unwrap();
        let b = Timestamp::parse_rfc3339("2019-03-01T00:00:00.5Z").unwrap();
        let c = Timestamp::parse_rfc3339("2019-03-01T03:00:00+02:00").unwrap();
        assert!(a < b && b < c);
        assert_eq!(c.to_string(), "2019-03-01T01:00:00Z");
        assert_eq!(a.unix_seconds(), 1_551_398_400);
        assert_eq!(Timestamp::parse_rfc3339("1969-12-31T23:59:59Z").unwrap().unix_seconds(), -1);
        for bad in ["2019-02-30", "2019-3-01", "yesterday", "2019-03-01T25:00:00Z", "2019-03-01T"] {
            assert!(Timestamp::parse_rfc3339(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bare_dates_read_as_the_parser_reads_them() {
        // Every day from 1899 to 2101, written by `Display` (its own
        // calendar arithmetic), reads back as that day; and what is near
        // one: each 10-byte text a bare date, or nothing the parser takes.
        let mut next = crate::testutil::random_u64s(5);
        let mut dates = 0;
        for day in -25_600..48_000 {
            let midnight = Timestamp::from_unix_seconds(day * 86_400);
            let mut text = midnight.to_string()[..10].to_string();
            assert!(Timestamp::of_bare_date(text.as_bytes()).is_some(), "{text}");
            assert_eq!(Timestamp::of_bare_date(text.as_bytes()), Some(midnight), "{text}");
            if next().is_multiple_of(2) {
                let mut b = text.into_bytes();
                b[(next() % 10) as usize] = b"0123456789-T :"[(next() % 14) as usize];
                text = String::from_utf8(b).unwrap();
            }
            let parsed = Timestamp::parse_rfc3339(&text).ok();
            assert_eq!(Timestamp::of_bare_date(text.as_bytes()), parsed, "{text}");
            dates += usize::from(parsed.is_some());
        }
        assert!(dates > 40_000, "{dates}");
        for not_bare in ["2019-03-01 ", " 2019-03-01", "2019-03-01T00:00:00Z", "2019-02-29"] {
            assert_eq!(Timestamp::of_bare_date(not_bare.as_bytes()), None, "{not_bare}");
        }
    }
}
