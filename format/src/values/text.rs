//! Free text and display names: bounded, and without characters that hide
//! or disguise what the text says.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// Longest display name (runner, provider, backend, CPU model, ...).
pub const NAME_MAX_CHARS: usize = 200;
/// Longest free-text message (notices, sample errors).
pub const MESSAGE_MAX_CHARS: usize = 2000;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
