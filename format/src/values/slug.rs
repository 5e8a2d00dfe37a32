//! Slugs: the lowercase identifiers of providers, runners and backends.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// Longest slug accepted for provider ids, runner labels and backend ids.
pub const SLUG_MAX_CHARS: usize = 64;

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

/// A slug looks up a map keyed by slugs as its text does (its order and
/// hash are the text's).
impl std::borrow::Borrow<str> for Slug {
    fn borrow(&self) -> &str {
        &self.0
    }
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
}
