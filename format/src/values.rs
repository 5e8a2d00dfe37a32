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
        Ok(Text(s))
    }

    /// Wraps `s`, cutting it to `MAX` characters and replacing control
    /// characters, for messages the collector builds from foreign errors.
    pub fn lossy(s: &str) -> Self {
        let cleaned: String = s
            .chars()
            .map(|c| if (c.is_control() && c != '\n' && c != '\t') || hidden(c).is_some() { ' ' } else { c })
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
        '\u{2028}' | '\u{2029}' => Some("a line or paragraph separator"),
        '\u{E0000}'..='\u{E007F}' => Some("an invisible tag character"),
        _ => None,
    }
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
        // (ECMA-262 regex; the tag characters beyond U+FFFF are left out).
        json_schema!({
            "type": "string",
            "maxLength": MAX,
            "pattern": "^[^\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u00AD\\u061C\\u180E\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]*$"
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
pub struct Timestamp(String);

impl Timestamp {
    /// Checks `s` and wraps it.
    pub fn new(s: impl Into<String>) -> Result<Self, String> {
        let s = s.into();
        if !s.ends_with('Z') || s.parse::<jiff::Timestamp>().is_err() {
            return Err(format!("{s:?} is not a UTC time in RFC 3339 form (like 2026-11-29T22:48:25Z)"));
        }
        Ok(Timestamp(s))
    }

    /// The current time, to the second.
    pub fn now() -> Self {
        let now = jiff::Timestamp::now();
        let secs = jiff::Timestamp::from_second(now.as_second()).unwrap_or(now);
        Timestamp(secs.to_string())
    }

    /// The instant, parsed.
    pub fn instant(&self) -> jiff::Timestamp {
        // Checked on construction.
        self.0.parse().unwrap_or(jiff::Timestamp::UNIX_EPOCH)
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
        json_schema!({ "type": "string", "format": "date-time", "pattern": "Z$" })
    }
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
        assert!(Text::<20>::new("Intel® Xeon® 日本語").is_ok());
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
    }
}
