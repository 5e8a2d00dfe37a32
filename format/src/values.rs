//! Validated value types: the leaves of the result format.
//!
//! Each type checks itself while it is deserialized, so a bad value is
//! reported by the strict reader with the JSON path of the field it sits in
//! (see `read.rs`). Each also describes its own constraints in the JSON
//! Schema, so an editor can flag the same problems before a file is submitted.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// Longest slug accepted for provider ids, runner labels and backend ids.
pub const SLUG_MAX_CHARS: usize = 64;
/// Longest display name (runner, provider, backend, CPU model, ...).
pub const NAME_MAX_CHARS: usize = 200;
/// Longest free-text message (notices, sample errors).
pub const MESSAGE_MAX_CHARS: usize = 2000;

/// A lowercase identifier: ASCII letters, digits and single dashes between
/// them, for example `ubicloud-linux-x64`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slug(String);

impl Slug {
    /// Checks `s` and wraps it; the error says why it is not a slug.
    pub fn new(s: impl Into<String>) -> Result<Self, String> {
        let s = s.into();
        check_slug(&s)?;
        Ok(Slug(s))
    }

    /// The slug as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn check_slug(s: &str) -> Result<(), String> {
    let valid_chars = s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if s.is_empty()
        || s.len() > SLUG_MAX_CHARS
        || !valid_chars
        || s.starts_with('-')
        || s.ends_with('-')
        || s.contains("--")
    {
        return Err(format!(
            "{s:?} is not a slug (1 to {SLUG_MAX_CHARS} lowercase letters, digits and single dashes, \
             starting and ending with a letter or digit)"
        ));
    }
    Ok(())
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Slug {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Slug {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Slug::new(s).map_err(de::Error::custom)
    }
}

impl JsonSchema for Slug {
    fn schema_name() -> Cow<'static, str> {
        "Slug".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
            "maxLength": SLUG_MAX_CHARS,
            "description": "Lowercase letters, digits and single dashes."
        })
    }
}

/// Free text of at most `MAX` characters, without control characters other
/// than newline and tab. Free text is untrusted: every renderer escapes it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text<const MAX: usize>(String);

/// A display name.
pub type Name = Text<NAME_MAX_CHARS>;
/// A free-text message.
pub type Message = Text<MESSAGE_MAX_CHARS>;

impl<const MAX: usize> Text<MAX> {
    /// Checks `s` and wraps it.
    pub fn new(s: impl Into<String>) -> Result<Self, String> {
        let s = s.into();
        // Nearly all text in a result is ASCII, where a character is a byte
        // and no hidden character (all beyond U+00AD) can occur: one pass
        // over the bytes instead of three over decoded characters. A check
        // of 10,000 results reads about 1.5 million texts.
        if s.is_ascii() && s.len() <= MAX && !s.bytes().any(|b| b.is_ascii_control() && b != b'\n' && b != b'\t') {
            return Ok(Text(s));
        }
        let chars = s.chars().count();
        if chars > MAX {
            return Err(format!("text is {chars} characters long; at most {MAX} are allowed"));
        }
        if let Some(c) = s.chars().find(|c| c.is_control() && *c != '\n' && *c != '\t') {
            return Err(format!("text contains the control character U+{:04X}", c as u32));
        }
        if let Some((c, what)) = s.chars().find_map(|c| hidden(c).map(|what| (c, what))) {
            return Err(format!("text contains U+{:04X}, {what}; displayed text must show what it says", c as u32));
        }
        if let Some(c) = s.chars().find(|&c| noncharacter(c)) {
            return Err(format!(
                "text contains U+{:04X}, a Unicode noncharacter, which is not for interchange (XML, the site's feed \
                 and plots, cannot hold U+FFFE or U+FFFF)",
                c as u32
            ));
        }
        Ok(Text(s))
    }

    /// Wraps `s`, cutting it to `MAX` characters and replacing control
    /// characters, for messages the collector builds from foreign errors.
    pub fn lossy(s: &str) -> Self {
        let cleaned: String = s
            .chars()
            .map(|c| {
                if (c.is_control() && c != '\n' && c != '\t') || hidden(c).is_some() || noncharacter(c) {
                    ' '
                } else {
                    c
                }
            })
            .take(MAX)
            .collect();
        Text(cleaned)
    }

    /// The text as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a character that changes how text around it is shown, or is not
/// shown at all, would do, for the characters that free text may not hold:
/// a name that reads one way and is another (a bidirectional override that
/// reverses `xelf` into `flex`, a zero-width space between two letters) would
/// let a result pass for another runner's in a review and on the site. Line
/// and paragraph separators break a terminal or annotation line the way a
/// newline would, where a newline is not expected.
fn hidden(c: char) -> Option<&'static str> {
    match c {
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Some("a bidirectional embedding, override or isolate"),
        '\u{200E}' | '\u{200F}' | '\u{061C}' => Some("a bidirectional mark"),
        '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}' | '\u{00AD}' => {
            Some("a zero-width or invisible character")
        }
        // Format characters that show nothing where a name is shown:
        // the interlinear annotation marks, Egyptian and shorthand format
        // controls, and musical beam and slur controls.
        '\u{FFF9}'..='\u{FFFB}'
        | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{034F}'
        | '\u{17B4}'
        | '\u{17B5}' => Some("an invisible format character"),
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' => Some("a Hangul filler, which is shown as blank"),
        '\u{2028}' | '\u{2029}' => Some("a line or paragraph separator"),
        '\u{E0000}'..='\u{E007F}' => Some("an invisible tag character"),
        _ => None,
    }
}

/// Whether `c` is one of Unicode's 66 noncharacters (U+FDD0 to U+FDEF and
/// the last two code points of every plane), kept for a program's internal
/// use: U+FFFE and U+FFFF are not XML characters, so one in a name would
/// make the site's Atom feed or a plot unreadable for every reader.
fn noncharacter(c: char) -> bool {
    matches!(c, '\u{FDD0}'..='\u{FDEF}') || (c as u32) & 0xFFFE == 0xFFFE
}

impl<const MAX: usize> fmt::Display for Text<MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<const MAX: usize> Serialize for Text<MAX> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Text::new(s).map_err(de::Error::custom)
    }
}

impl<const MAX: usize> JsonSchema for Text<MAX> {
    fn schema_name() -> Cow<'static, str> {
        format!("Text{MAX}").into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // The characters `Text::new` refuses, for an editor to flag
        // (ECMA-262 regex; the characters beyond U+FFFF are left out).
        json_schema!({
            "type": "string",
            "maxLength": MAX,
            "pattern": "^[^\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180E\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\u3164\\uFDD0-\\uFDEF\\uFEFF\\uFFA0\\uFFF9-\\uFFFB\\uFFFE\\uFFFF]*$"
        })
    }
}

/// A finite, non-negative measurement (seconds, MiB/s, percent, ...). The
/// unit is carried by the name of the field that holds it.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct NonNeg(f64);

impl NonNeg {
    /// Checks `v` and wraps it.
    pub fn new(v: f64) -> Result<Self, String> {
        if !v.is_finite() {
            return Err(format!("{v} is not a finite number"));
        }
        if v < 0.0 {
            return Err(format!("{v} is negative; this value cannot be"));
        }
        Ok(NonNeg(v))
    }

    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Serialize for NonNeg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

impl<'de> Deserialize<'de> for NonNeg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        NonNeg::new(v).map_err(de::Error::custom)
    }
}

impl JsonSchema for NonNeg {
    fn schema_name() -> Cow<'static, str> {
        "NonNegativeNumber".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "number", "minimum": 0 })
    }
}

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

/// Lowercase hexadecimal of `bytes`, two digits a byte: how the collector
/// and the site write every digest (payload, archive and document SHA-256s,
/// the fingerprint), so the two always spell one digest the same way.
pub fn hex(bytes: &[u8]) -> String {
    // From a table, not `write!(out, "{b:02x}")`: the site spells the
    // SHA-256 of each of its 10,000 benchmark results, and the formatter
    // made that 1 % of a build's CPU time (docs/benchmarks.md).
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// Lowercase hexadecimal of a fixed length: SHA-256 digests (64) and
/// fingerprints (12).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hex<const LEN: usize>(String);

/// A SHA-256 digest in lowercase hexadecimal.
pub type Sha256Hex = Hex<64>;
/// A parameter fingerprint: the first 12 hex digits of a SHA-256.
pub type Fingerprint = Hex<12>;

impl<const LEN: usize> Hex<LEN> {
    /// Checks `s` and wraps it.
    pub fn new(s: impl Into<String>) -> Result<Self, String> {
        let s = s.into();
        if s.len() != LEN || !s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(format!("{s:?} is not {LEN} lowercase hexadecimal digits"));
        }
        Ok(Hex(s))
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<const LEN: usize> fmt::Display for Hex<LEN> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<const LEN: usize> Serialize for Hex<LEN> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de, const LEN: usize> Deserialize<'de> for Hex<LEN> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Hex::new(s).map_err(de::Error::custom)
    }
}

impl<const LEN: usize> JsonSchema for Hex<LEN> {
    fn schema_name() -> Cow<'static, str> {
        format!("Hex{LEN}").into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": format!("^[0-9a-f]{{{LEN}}}$") })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(hex(&[]), "");
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        use sha2::Digest;
        assert_eq!(
            hex(&sha2::Sha256::digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

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
    fn slug_rules() {
        assert!(Slug::new("ubicloud-linux-x64").is_ok());
        assert_eq!(
            Slug::new("Ubicloud").unwrap_err(),
            "\"Ubicloud\" is not a slug (1 to 64 lowercase letters, digits and single dashes, \
             starting and ending with a letter or digit)"
        );
        for bad in ["", "-a", "a-", "a--b", "a b", "a_b", &"a".repeat(65)] {
            assert!(Slug::new(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn text_rules() {
        assert_eq!(Text::<3>::new("abcd").unwrap_err(), "text is 4 characters long; at most 3 are allowed");
        assert_eq!(Text::<9>::new("a\u{1b}[").unwrap_err(), "text contains the control character U+001B");
        assert_eq!(Text::<3>::lossy("a\u{7}bcd").as_str(), "a b");
        assert!(Text::<9>::new("a\nb\tc").is_ok());
        assert_eq!(
            Text::<20>::new("runner-\u{202E}46x").unwrap_err(),
            "text contains U+202E, a bidirectional embedding, override or isolate; displayed text must show what it \
             says"
        );
        assert_eq!(
            Text::<20>::new("ubi\u{200B}cloud").unwrap_err(),
            "text contains U+200B, a zero-width or invisible character; displayed text must show what it says"
        );
        assert_eq!(
            Text::<20>::new("a\u{2028}b").unwrap_err(),
            "text contains U+2028, a line or paragraph separator; displayed text must show what it says"
        );
        assert_eq!(Text::<9>::lossy("a\u{2066}b\u{FEFF}").as_str(), "a b ");
        assert_eq!(
            Text::<20>::new("ubi\u{3164}").unwrap_err(),
            "text contains U+3164, a Hangul filler, which is shown as blank; displayed text must show what it says"
        );
        for c in ['\u{034F}', '\u{115F}', '\u{17B5}', '\u{FFA0}', '\u{FFFA}', '\u{13430}', '\u{1BCA3}', '\u{1D173}'] {
            assert!(Text::<9>::new(format!("a{c}")).is_err(), "U+{:04X} accepted", c as u32);
        }
        assert_eq!(
            Text::<20>::new("Example\u{FFFE}").unwrap_err(),
            "text contains U+FFFE, a Unicode noncharacter, which is not for interchange (XML, the site's feed and \
             plots, cannot hold U+FFFE or U+FFFF)"
        );
        for c in ['\u{FDD0}', '\u{FDEF}', '\u{FFFF}', '\u{1FFFE}', '\u{10FFFF}'] {
            assert!(Text::<9>::new(format!("a{c}")).is_err(), "U+{:04X} accepted", c as u32);
        }
        for c in ['\u{FDCF}', '\u{FDF0}', '\u{FFFD}', '\u{1FFFD}'] {
            assert!(Text::<9>::new(format!("a{c}")).is_ok(), "U+{:04X} refused", c as u32);
        }
        assert_eq!(Text::<9>::lossy("a\u{FFFF}b").as_str(), "a b");
        assert!(Text::<20>::new("Intel® Xeon® 日本語").is_ok());
        // The limit counts characters, not bytes, on both the ASCII path and
        // the other: nine bytes of three characters fit in three.
        assert!(Text::<3>::new("abc").is_ok());
        assert!(Text::<3>::new("日本語").is_ok());
        assert_eq!(Text::<3>::new("日本語x").unwrap_err(), "text is 4 characters long; at most 3 are allowed");
        assert_eq!(Text::<9>::new("a\u{7f}b").unwrap_err(), "text contains the control character U+007F");
        assert_eq!(Text::<9>::new("é\u{85}").unwrap_err(), "text contains the control character U+0085");
        // Too long and holding a control character: the length is reported.
        assert_eq!(Text::<2>::new("a\rb").unwrap_err(), "text is 3 characters long; at most 2 are allowed");
    }

    #[test]
    fn number_rules() {
        assert_eq!(NonNeg::new(-1.0).unwrap_err(), "-1 is negative; this value cannot be");
        assert_eq!(NonNeg::new(f64::NAN).unwrap_err(), "NaN is not a finite number");
        assert_eq!(NonNeg::new(1.5).unwrap().get(), 1.5);
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
