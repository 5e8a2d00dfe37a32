//! Instants and calendar dates, in the forms the collector writes.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// A UTC instant in RFC 3339 form ending in `Z`, e.g. `2026-11-29T22:48:25Z`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(String, jiff::Timestamp);

impl Timestamp {
    /// Checks `s` and wraps it.
    ///
    /// Only RFC 3339's ordinary form is taken: `YYYY-MM-DDTHH:MM:SS`, an
    /// optional fraction of a second, then `Z`. jiff alone would also take a
    /// space or a lowercase `t` for the `T`, an expanded year (`+002026-…`),
    /// the basic form without dashes and colons, a missing minute or second
    /// and a comma for the decimal point, and it would read a leap second
    /// `:60` as `:59`; none of those is what the collector writes. The
    /// message says which rule failed: the form, the calendar, or what jiff
    /// can represent.
    pub fn new(s: impl Into<String>) -> Result<Self, String> {
        let s = s.into();
        let instant = check_timestamp(&s)?;
        Ok(Timestamp(s, instant))
    }

    /// The current time, to the second.
    pub fn now() -> Self {
        let now = jiff::Timestamp::now();
        let secs = jiff::Timestamp::from_second(now.as_second()).unwrap_or(now);
        Timestamp(secs.to_string(), secs)
    }

    /// The instant, parsed on construction: a check reads each of a
    /// result's timestamps several times, and parsing them again each time
    /// was about 1 % of its CPU time (docs/benchmarks.md).
    pub fn instant(&self) -> jiff::Timestamp {
        self.1
    }

    /// The calendar date, `YYYY-MM-DD`.
    pub fn date(&self) -> &str {
        &self.0[..10]
    }

    /// The timestamp as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The most fraction digits jiff represents (nanoseconds).
const TIMESTAMP_MAX_FRACTION_DIGITS: usize = 9;

fn check_timestamp(s: &str) -> Result<jiff::Timestamp, String> {
    let b = s.as_bytes();
    if let [b'+' | b'-', rest @ ..] = b {
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 4 && rest.get(digits) == Some(&b'-') {
            return Err(format!(
                "{s:?} has an expanded year ({}); RFC 3339 takes a year of 4 digits (like 2026-11-29T22:48:25Z)",
                &s[..=digits]
            ));
        }
    }
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    let fraction = if at(19, b'.') { b[20..].iter().take_while(|c| c.is_ascii_digit()).count() } else { 0 };
    let end = if at(19, b'.') { 20 + fraction } else { 19 };
    let form = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18].into_iter().all(digit)
        && at(4, b'-')
        && at(7, b'-')
        && at(10, b'T')
        && at(13, b':')
        && at(16, b':')
        && (!at(19, b'.') || fraction > 0)
        && at(end, b'Z')
        && b.len() == end + 1;
    if !form {
        return Err(format!("{s:?} is not a UTC time in RFC 3339 form (like 2026-11-29T22:48:25Z)"));
    }
    if fraction > TIMESTAMP_MAX_FRACTION_DIGITS {
        return Err(format!(
            "{s:?} has {fraction} fraction digits; the date library represents at most \
             {TIMESTAMP_MAX_FRACTION_DIGITS} (nanoseconds)"
        ));
    }
    let num = |from: usize, to: usize| s[from..to].parse::<i16>().unwrap_or(0);
    let (year, month, day) = (num(0, 4), num(5, 7), num(8, 10));
    let (hour, minute, second) = (num(11, 13), num(14, 16), num(17, 19));
    let no_such = |why: String| Err(format!("{s:?} is in RFC 3339 form but names no real time: {why}"));
    if !(1..=12).contains(&month) {
        return no_such(format!("there is no month {month:02}"));
    }
    let days = jiff::civil::Date::new(year, month as i8, 1).map(|d| d.days_in_month()).unwrap_or(31);
    if day < 1 || day > i16::from(days) {
        return no_such(format!("{}-{month:02} has days 01 to {days}, not {day:02}", &s[..4]));
    }
    if hour > 23 || minute > 59 {
        return no_such(format!("{hour:02}:{minute:02} is not a time of day (00:00 to 23:59)"));
    }
    if second == 60 {
        return Err(format!(
            "{s:?} is a leap second, which the date library cannot represent (it would read it as second 59)"
        ));
    }
    if second > 60 {
        return no_such(format!("there is no second {second:02}"));
    }
    s.parse::<jiff::Timestamp>().map_err(|_| {
        format!(
            "{s:?} is in RFC 3339 form but outside the instants the date library can represent ({} to {})",
            jiff::Timestamp::MIN,
            jiff::Timestamp::MAX
        )
    })
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::new(s).map_err(de::Error::custom)
    }
}

impl JsonSchema for Timestamp {
    fn schema_name() -> Cow<'static, str> {
        "Timestamp".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // The ordinary form `Timestamp::new` takes; `date-time` alone lets
        // an editor accept what RFC 3339 does (a lowercase t, an offset).
        json_schema!({
            "type": "string",
            "format": "date-time",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z$"
        })
    }
}

/// A calendar date, `YYYY-MM-DD`: the day a published report's figures
/// were measured, where its publisher states it (time of day and zone are
/// not published, so none is invented).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(String);

impl Date {
    /// Checks `s` and wraps it: four-digit year, two-digit month and day, a
    /// day that exists.
    pub fn new(s: impl Into<String>) -> Result<Self, String> {
        let s = s.into();
        let b = s.as_bytes();
        let form = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && [0, 1, 2, 3, 5, 6, 8, 9].into_iter().all(|i| b[i].is_ascii_digit());
        if !form {
            return Err(format!("{s:?} is not a date in the form YYYY-MM-DD (like 2026-11-29)"));
        }
        let num = |from: usize, to: usize| s[from..to].parse::<i16>().unwrap_or(0);
        let (year, month, day) = (num(0, 4), num(5, 7), num(8, 10));
        if jiff::civil::Date::new(year, month as i8, day as i8).is_err() {
            return Err(format!("{s:?} is in the form YYYY-MM-DD but names no real day"));
        }
        Ok(Date(s))
    }

    /// The date as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Midnight UTC at the start of the day: where a date stands among
    /// instants (staleness, history order).
    pub fn instant(&self) -> jiff::Timestamp {
        // Checked on construction.
        format!("{}T00:00:00Z", self.0).parse().unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Date::new(s).map_err(de::Error::custom)
    }
}

impl JsonSchema for Date {
    fn schema_name() -> Cow<'static, str> {
        "Date".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "format": "date",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_rules() {
        assert_eq!(Date::new("2026-02-28").unwrap().as_str(), "2026-02-28");
        assert_eq!(Date::new("2024-02-29").unwrap().instant().to_string(), "2024-02-29T00:00:00Z");
        assert_eq!(
            Date::new("2026-2-28").unwrap_err(),
            "\"2026-2-28\" is not a date in the form YYYY-MM-DD (like 2026-11-29)"
        );
        assert_eq!(
            Date::new("2026-11-29T00:00:00Z").unwrap_err(),
            "\"2026-11-29T00:00:00Z\" is not a date in the form YYYY-MM-DD (like 2026-11-29)"
        );
        assert_eq!(
            Date::new("2026-02-29").unwrap_err(),
            "\"2026-02-29\" is in the form YYYY-MM-DD but names no real day"
        );
        assert_eq!(
            Date::new("2026-13-01").unwrap_err(),
            "\"2026-13-01\" is in the form YYYY-MM-DD but names no real day"
        );
        assert!(Date::new("２０２６-01-01").is_err(), "non-ASCII digits");
    }

    #[test]
    fn timestamp_rules() {
        assert_eq!(Timestamp::new("2026-11-29T22:48:25Z").unwrap().date(), "2026-11-29");
        assert!(Timestamp::new("2026-11-29T22:48:25+01:00").is_err());
        assert!(Timestamp::new("yesterday").is_err());
        assert!(Timestamp::now().as_str().ends_with('Z'));
        assert!(Timestamp::new("2026-11-29T22:48:25.123456789Z").is_ok());
        assert!(Timestamp::new("0000-01-01T00:00:00Z").is_ok());
    }

    #[test]
    fn timestamps_outside_the_ordinary_form_say_which_rule_failed() {
        let err = |s: &str| Timestamp::new(s).unwrap_err();
        assert_eq!(
            err("+002026-11-29T22:48:25Z"),
            "\"+002026-11-29T22:48:25Z\" has an expanded year (+002026); RFC 3339 takes a year of 4 digits \
             (like 2026-11-29T22:48:25Z)"
        );
        assert_eq!(
            err("-000001-01-01T00:00:00Z"),
            "\"-000001-01-01T00:00:00Z\" has an expanded year (-000001); RFC 3339 takes a year of 4 digits \
             (like 2026-11-29T22:48:25Z)"
        );
        // Forms jiff takes and RFC 3339's ordinary form does not.
        for s in [
            "2026-11-29 22:48:25Z",
            "2026-11-29t22:48:25Z",
            "2026-11-29T22:48:25z",
            "2026-11-29T22:48Z",
            "2026-11-29T22Z",
            "20261129T224825Z",
            "2026-11-29T22:48:25,5Z",
            "2026-11-29T22:48:25.Z",
            "2026-11-29T22:48:25Z[UTC]",
            "2026-11-29T22:48:25+00:00",
            "02026-11-29T22:48:25Z",
        ] {
            assert_eq!(err(s), format!("{s:?} is not a UTC time in RFC 3339 form (like 2026-11-29T22:48:25Z)"));
        }
        assert_eq!(
            err("2026-11-29T22:48:25.1234567891Z"),
            "\"2026-11-29T22:48:25.1234567891Z\" has 10 fraction digits; the date library represents at most 9 \
             (nanoseconds)"
        );
        assert_eq!(
            err("2026-13-01T00:00:00Z"),
            "\"2026-13-01T00:00:00Z\" is in RFC 3339 form but names no real time: there is no month 13"
        );
        assert_eq!(
            err("2026-02-29T00:00:00Z"),
            "\"2026-02-29T00:00:00Z\" is in RFC 3339 form but names no real time: 2026-02 has days 01 to 28, not 29"
        );
        assert!(Timestamp::new("2028-02-29T00:00:00Z").is_ok());
        assert_eq!(
            err("2026-11-29T24:00:00Z"),
            "\"2026-11-29T24:00:00Z\" is in RFC 3339 form but names no real time: 24:00 is not a time of day \
             (00:00 to 23:59)"
        );
        assert_eq!(
            err("2026-11-29T23:59:61Z"),
            "\"2026-11-29T23:59:61Z\" is in RFC 3339 form but names no real time: there is no second 61"
        );
        assert_eq!(
            err("2026-12-31T23:59:60Z"),
            "\"2026-12-31T23:59:60Z\" is a leap second, which the date library cannot represent (it would read it \
             as second 59)"
        );
        assert_eq!(
            err("9999-12-31T00:00:00Z"),
            "\"9999-12-31T00:00:00Z\" is in RFC 3339 form but outside the instants the date library can represent \
             (-009999-01-02T01:59:59Z to 9999-12-30T22:00:00.999999999Z)"
        );
    }
}
