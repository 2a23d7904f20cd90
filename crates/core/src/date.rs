//! Calendar dates as day numbers: the timestamps the CD index compares when a source gives
//! publication dates finer than a year (OpenAlex's `publication_date`).
//!
//! Days count from 1970-01-01 (day 0) in the proleptic Gregorian calendar, so a date's day number
//! is what `calendar.timegm` gives divided by 86,400.

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The year.
    pub year: i32,
    /// The month, 1–12.
    pub month: u32,
    /// The day of the month, 1–31.
    pub day: u32,
}

impl Date {
    /// Parse `YYYY-MM-DD` (a time of day after it, `T…`, is ignored); `None` unless it names a
    /// real day.
    pub fn parse(text: &str) -> Option<Date> {
        let text = text.trim();
        let date = text.split_once('T').map_or(text, |(date, _)| date);
        let mut parts = date.split('-');
        let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || year.len() != 4 || month.len() != 2 || day.len() != 2 {
            return None;
        }
        let date = Date { year: year.parse().ok()?, month: month.parse().ok()?, day: day.parse().ok()? };
        ((1..=12).contains(&date.month) && (1..=days_in_month(date.year, date.month)).contains(&date.day))
            .then_some(date)
    }

    /// Days since 1970-01-01.
    pub fn days(self) -> i32 {
        // Howard Hinnant's days_from_civil: years start in March so that the leap day is last.
        let year = if self.month <= 2 { self.year - 1 } else { self.year };
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let month_from_march = (self.month + 9) % 12;
        let day_of_year = (153 * month_from_march + 2) / 5 + self.day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year as i32;
        era * 146_097 + day_of_era - 719_468
    }

    /// The date `years` later, on the same month and day (28 February for 29 February in a
    /// year that has none).
    pub fn plus_years(self, years: i32) -> Date {
        let year = self.year.saturating_add(years);
        Date { year, month: self.month, day: self.day.min(days_in_month(year, self.month)) }
    }

    /// The date of a day number.
    pub fn from_days(days: i32) -> Date {
        let days = days + 719_468;
        let era = days.div_euclid(146_097);
        let day_of_era = days - era * 146_097;
        let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_from_march = (5 * day_of_year + 2) / 153;
        let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
        let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 } as u32;
        let year = year_of_era + era * 400 + i32::from(month <= 2);
        Date { year, month, day }
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

fn is_leap(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_are_unix_days() {
        assert_eq!(Date::parse("1970-01-01").unwrap().days(), 0);
        // calendar.timegm(date(2000, 3, 1).timetuple()) // 86400 == 11017
        assert_eq!(Date::parse("2000-03-01").unwrap().days(), 11_017);
        assert_eq!(Date::parse("1969-12-31").unwrap().days(), -1);
        for days in [-800_000, -1, 0, 59, 11_016, 19_000, 800_000] {
            assert_eq!(Date::from_days(days).days(), days);
        }
    }

    #[test]
    fn only_real_days_parse() {
        assert_eq!(Date::parse("2024-02-29"), Some(Date { year: 2024, month: 2, day: 29 }));
        assert_eq!(Date::parse("2021-03-04T00:00:00Z").unwrap().to_string(), "2021-03-04");
        for bad in ["2023-02-29", "2023-13-01", "2023-1-01", "2023", "2023-04-31", "x-01-01", "2023-01-01-01"] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn years_later_keep_the_day() {
        let leap = Date::parse("2020-02-29").unwrap();
        assert_eq!(leap.plus_years(1).to_string(), "2021-02-28");
        assert_eq!(leap.plus_years(4).to_string(), "2024-02-29");
        assert_eq!(Date::parse("2019-07-15").unwrap().plus_years(5).to_string(), "2024-07-15");
    }
}
