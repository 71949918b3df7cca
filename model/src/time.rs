//! Timestamps as the collector writes them: RFC 3339 in UTC,
//! `2026-11-30T09:00:14Z` or with a fraction of a second. They are parsed,
//! never sliced: a string is only shown as a date once it is one.

use std::fmt;

/// A parsed UTC timestamp; orders by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcTime {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub nanos: u32,
}

impl UtcTime {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
    pub fn parse(s: &str) -> Result<UtcTime, String> {
        let bad = || {
            format!(
                "is not a UTC timestamp like 2026-11-30T09:00:14Z: {}",
                crate::json::quoted(s)
            )
        };
        let b = s.as_bytes();
        if b.len() < 20 || b.len() > 30 || !s.is_ascii() {
            return Err(bad());
        }
        let digits = |from: usize, to: usize| -> Result<u32, String> {
            // `get`: ASCII, so never `None`, and no panic path in the page.
            let part = s.get(from..to).unwrap_or_default();
            if part.bytes().all(|c| c.is_ascii_digit()) {
                part.parse().map_err(|_| bad())
            } else {
                Err(bad())
            }
        };
        let seps = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
        if seps.iter().any(|&(i, c)| b[i] != c) || b[b.len() - 1] != b'Z' {
            return Err(bad());
        }
        let nanos = match s.get(19..s.len() - 1).unwrap_or_default() {
            "" => 0,
            frac => {
                let f = frac.strip_prefix('.').ok_or_else(bad)?;
                if f.is_empty() || f.len() > 9 || !f.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(bad());
                }
                f.parse::<u32>().map_err(|_| bad())? * 10u32.pow(9 - f.len() as u32)
            }
        };
        let t = UtcTime {
            year: digits(0, 4)? as u16,
            month: digits(5, 7)? as u8,
            day: digits(8, 10)? as u8,
            hour: digits(11, 13)? as u8,
            minute: digits(14, 16)? as u8,
            second: digits(17, 19)? as u8,
            nanos,
        };
        let valid = (1..=12).contains(&t.month)
            && (1..=days_in(t.year, t.month)).contains(&t.day)
            && t.hour < 24
            && t.minute < 60
            && t.second < 61;
        if valid {
            Ok(t)
        } else {
            Err(bad())
        }
    }

    /// Seconds since 1970-01-01T00:00:00Z (leap seconds not counted).
    pub fn unix_seconds(&self) -> i64 {
        // Days from the civil date (Howard Hinnant's `days_from_civil`).
        let (m, d) = (i64::from(self.month), i64::from(self.day));
        let y = i64::from(self.year) - i64::from(m <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        days * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    /// The time `secs` after 1970-01-01T00:00:00Z (the inverse of
    /// [`UtcTime::unix_seconds`]; Hinnant's `civil_from_days`).
    pub fn from_unix_seconds(secs: i64) -> UtcTime {
        let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        UtcTime {
            year: year as u16,
            month: month as u8,
            day: day as u8,
            hour: (rest / 3600) as u8,
            minute: (rest % 3600 / 60) as u8,
            second: (rest % 60) as u8,
            nanos: 0,
        }
    }

    /// `2026-11-30T09:00:14Z`, as the collector writes it (whole seconds).
    pub fn rfc3339(&self) -> String {
        format!(
            "{}T{:02}:{:02}:{:02}Z",
            self.date(),
            self.hour,
            self.minute,
            self.second
        )
    }

    /// `2026-11-30`.
    pub fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl fmt::Display for UtcTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:02}:{:02} UTC", self.date(), self.hour, self.minute)
    }
}

fn days_in(year: u16, month: u8) -> u8 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_the_collector_writes() {
        let t = UtcTime::parse("2026-11-30T09:00:14.123456Z").unwrap();
        assert_eq!(t.date(), "2026-11-30");
        assert_eq!(t.nanos, 123_456_000);
        assert_eq!(t.to_string(), "2026-11-30 09:00 UTC");
        assert!(UtcTime::parse("2024-02-29T00:00:00Z").is_ok());
    }

    #[test]
    fn refuses_anything_else() {
        for s in [
            "2099-12-3\u{e9}<img src=x onerror=alert(9)>",
            "2026-11-30",
            "2026-11-30T09:00:14+01:00",
            "2026-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-11-30T09:00:14.Z",
            "2026-11-30 09:00:14Z",
            "",
        ] {
            assert!(UtcTime::parse(s).is_err(), "{s}");
        }
    }

    #[test]
    fn unix_seconds_match_the_calendar() {
        let at = |s: &str| UtcTime::parse(s).unwrap().unix_seconds();
        assert_eq!(at("1970-01-01T00:00:00Z"), 0);
        assert_eq!(at("2000-03-01T00:00:00Z"), 951_868_800);
        assert_eq!(at("2026-11-30T09:00:14Z"), 1_796_029_214);
        assert_eq!(at("2024-02-29T23:59:59Z") + 1, at("2024-03-01T00:00:00Z"));
        for s in [
            "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z",
            "2026-11-30T09:00:14Z",
        ] {
            assert_eq!(UtcTime::from_unix_seconds(at(s)).rfc3339(), s);
        }
    }

    #[test]
    fn orders_by_time() {
        let a = UtcTime::parse("2026-11-30T09:00:14Z").unwrap();
        let b = UtcTime::parse("2026-11-30T09:00:14.5Z").unwrap();
        assert!(a < b);
    }
}
