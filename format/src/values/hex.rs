//! Lowercase hexadecimal: how every digest and the fingerprint are spelt.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

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
}
