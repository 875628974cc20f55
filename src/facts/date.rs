//! Calendar dates, as the facts write them: `YYYY-MM-DD`.

use std::fmt;
use std::str::FromStr;

/// A day of the proleptic Gregorian calendar.
///
/// ```
/// use tool_carrier::facts::Date;
/// let d: Date = "2026-12-11".parse()?;
/// assert!(d > "2026-12-01".parse()?);
/// assert_eq!(d.to_string(), "2026-12-11");
/// assert!("2026-02-30".parse::<Date>().is_err());
/// # Ok::<(), tool_carrier::facts::BadDate>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

/// A date that is not `YYYY-MM-DD` or names no day of the calendar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a date written YYYY-MM-DD")]
pub struct BadDate(pub String);

impl Date {
    /// The date `year`-`month`-`day`, if the calendar has it.
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (1..=days)
            .contains(&day)
            .then_some(Date { year, month, day })
    }

    /// Today in UTC, from the system clock.
    pub fn today() -> Date {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Date::from_days(secs / 86_400)
    }

    /// The date `days` days later.
    pub fn plus_days(self, days: u32) -> Date {
        Date::from_days(self.days() + u64::from(days))
    }

    /// Days since 1970-01-01 (0 for earlier dates).
    fn days(self) -> u64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        u64::try_from(era * 146_097 + doe - 719_468).unwrap_or(0)
    }

    /// The date `days` days after 1970-01-01 (the civil-from-days
    /// algorithm: eras of 400 years, years starting in March).
    fn from_days(days: u64) -> Date {
        let z = days + 719_468;
        let era = z / 146_097;
        let doe = z % 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + u64::from(month <= 2)) as u16;
        Date { year, month, day }
    }
}

impl FromStr for Date {
    type Err = BadDate;
    fn from_str(s: &str) -> Result<Date, BadDate> {
        let bad = || BadDate(s.to_owned());
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return Err(bad());
        }
        let num = |r: std::ops::Range<usize>| -> Result<u16, BadDate> {
            let part = &s[r];
            if part.bytes().all(|c| c.is_ascii_digit()) {
                part.parse().map_err(|_| bad())
            } else {
                Err(bad())
            }
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        Date::new(y, m as u8, d as u8).ok_or_else(bad)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl serde::Serialize for Date {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_since_the_epoch_land_on_the_calendar() {
        assert_eq!(Date::from_days(0).to_string(), "1970-01-01");
        assert_eq!(Date::from_days(59).to_string(), "1970-03-01");
        // 2000 was a leap year, 2100 will not be.
        assert_eq!(Date::from_days(11_016).to_string(), "2000-02-29");
        assert_eq!(Date::from_days(20_788).to_string(), "2026-12-01");
        assert_eq!(Date::from_days(47_541).to_string(), "2100-03-01");
    }

    #[test]
    fn only_real_days_in_the_one_form_parse() {
        for good in ["2026-12-01", "2024-02-29", "2000-02-29"] {
            assert_eq!(good.parse::<Date>().unwrap().to_string(), good);
        }
        for bad in [
            "2026-12-1",
            "2026/12/01",
            "2100-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-04-31",
            "+026-12-01",
            "2026-1٢-01",
            "",
        ] {
            assert!(bad.parse::<Date>().is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn every_day_round_trips_and_orders_as_days(a in 0u64..200_000, b in 0u64..200_000) {
            let (da, db) = (Date::from_days(a), Date::from_days(b));
            proptest::prop_assert_eq!(da.to_string().parse::<Date>().unwrap(), da);
            proptest::prop_assert_eq!(a.cmp(&b), da.cmp(&db));
            proptest::prop_assert_eq!(da.days(), a);
            proptest::prop_assert_eq!(da.plus_days(30).days(), a + 30);
        }
    }
}
