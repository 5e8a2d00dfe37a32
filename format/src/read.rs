//! The strict reader: bytes → `AnyResult`, or one error that names the file,
//! the JSON path of the field and the reason.
//!
//! Reading never panics, whatever the input: every failure is a `ReadError`.

use std::fmt;
use std::path::Path;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;

use crate::imported::ImportedResult;
use crate::maps_only::MapsOnly;
use crate::measured::MeasuredResult;

/// The only format version this reader understands.
pub const FORMAT_VERSION: u32 = 1;

/// Largest result file accepted, bytes. A standard run writes about 20 KB;
/// the limit leaves room for long failure messages but not for a data dump.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// A result file of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyResult {
    /// Written by the collector.
    Measured(Box<MeasuredResult>),
    /// Imported from a published report.
    Imported(Box<ImportedResult>),
}

/// Why a file could not be read as a result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {field}: {reason}")]
pub struct ReadError {
    /// The file, as the caller named it.
    pub file: String,
    /// JSON path of the field, `$` for the whole document.
    pub field: String,
    /// What is wrong, and where possible what would be right.
    pub reason: String,
}

impl ReadError {
    fn new(file: &Path, field: impl fmt::Display, reason: impl fmt::Display) -> Self {
        ReadError { file: file.display().to_string(), field: field.to_string(), reason: reason.to_string() }
    }
}

/// Reads and checks one result file.
pub fn read_file(path: &Path) -> Result<AnyResult, ReadError> {
    let size =
        std::fs::metadata(path).map_err(|e| ReadError::new(path, "$", format!("cannot read the file: {e}")))?.len();
    if size > MAX_FILE_BYTES {
        return Err(too_big(path, size));
    }
    let bytes = std::fs::read(path).map_err(|e| ReadError::new(path, "$", format!("cannot read the file: {e}")))?;
    from_slice(&bytes, path)
}

fn too_big(path: &Path, size: u64) -> ReadError {
    ReadError::new(path, "$", format!("the file is {size} bytes; the limit is {MAX_FILE_BYTES} bytes"))
}

/// Reads and checks a result from bytes; `path` names it in errors.
pub fn from_slice(bytes: &[u8], path: &Path) -> Result<AnyResult, ReadError> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big(path, bytes.len() as u64));
    }
    // The common case, a valid measured result, in one plain pass: tracking
    // the JSON path of every value and reading the head first costs more
    // than the parse itself, and is only needed to explain a failure. Any
    // document this pass accepts, the careful reader below accepts too.
    // The document's UTF-8 is checked once, whole, and the text parsed as
    // `str`: checking each string as it is read (`from_slice`) took 0.46 s
    // against 0.38 s to parse the 10,000 results of the `site build`
    // benchmark on one thread (e9536e6). A file that is not UTF-8 goes to
    // the careful reader, which says where.
    // A struct is read only from an object (`MapsOnly`), here and in the
    // careful reader.
    if let Ok(text) = std::str::from_utf8(bytes)
        && let Ok(result) = plain::<MeasuredResult>(text)
        && result.format_version == FORMAT_VERSION
    {
        return Ok(AnyResult::Measured(Box::new(result)));
    }
    careful(bytes, path)
}

/// `serde_json::from_str`, with structs read only from objects.
fn plain<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(MapsOnly(&mut de))?;
    de.end()?;
    Ok(value)
}

/// Reads a document that is not a valid measured result: either an
/// imported result or a file with an error to explain.
fn careful(bytes: &[u8], path: &Path) -> Result<AnyResult, ReadError> {
    // Some Windows editors write one; JSON forbids it (RFC 8259, 8.1), and
    // serde_json's "expected value at line 1 column 1" does not say so.
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(ReadError::new(
            path,
            "$",
            "the file starts with a byte-order mark (EF BB BF), which JSON does not allow; save it as UTF-8 without one",
        ));
    }
    let head = head(bytes, path)?;
    check_version(&head, path)?;
    match head.kind.as_ref().and_then(Value::as_str) {
        Some("measured") => Ok(AnyResult::Measured(Box::new(typed(bytes, path)?))),
        Some("imported") => Ok(AnyResult::Imported(Box::new(typed(bytes, path)?))),
        _ => Err(ReadError::new(path, "$.kind", "must be \"measured\" or \"imported\"")),
    }
}

/// The two fields that decide how the rest is read, from one pass that
/// also checks the syntax of the whole document. Only when it fails does a
/// second pass tell a syntax error from a document of another shape.
fn head(bytes: &[u8], path: &Path) -> Result<Head, ReadError> {
    let is_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    match serde_json::from_slice::<Head>(bytes) {
        Ok(head) if is_object => Ok(head),
        Ok(_) => Err(ReadError::new(path, "$", "a result file holds one JSON object")),
        Err(head_error) => {
            serde_json::from_slice::<IgnoredAny>(bytes)
                .map_err(|e| ReadError::new(path, "$", format!("not valid JSON: {}", plain_words(&e.to_string()))))?;
            let reason = if is_object {
                plain_words(&head_error.to_string())
            } else {
                "a result file holds one JSON object".into()
            };
            Err(ReadError::new(path, "$", reason))
        }
    }
}

/// The format version this reader understands, and no other.
fn check_version(head: &Head, path: &Path) -> Result<(), ReadError> {
    match &head.format_version {
        None => Err(ReadError::new(
            path,
            "$.format_version",
            format!("missing; this reader understands format version {FORMAT_VERSION}"),
        )),
        Some(v) if v.as_u64() != Some(u64::from(FORMAT_VERSION)) => Err(ReadError::new(
            path,
            "$.format_version",
            format!("unsupported format version {v}; this reader understands version {FORMAT_VERSION}"),
        )),
        Some(_) => Ok(()),
    }
}

/// The two fields that decide how the rest is read.
#[derive(serde::Deserialize)]
struct Head {
    format_version: Option<Value>,
    kind: Option<Value>,
}

/// Deserializes straight from the bytes, so that a bad number (such as
/// `1e999`, which is not finite) is reported at its field, with its line.
fn typed<T: DeserializeOwned>(bytes: &[u8], path: &Path) -> Result<T, ReadError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(MapsOnly(&mut de)).map_err(|e| {
        let field = json_path(&e.path().to_string());
        ReadError::new(path, field, plain_words(&e.into_inner().to_string()))
    })
}

/// The whole numbers of the format, by the name serde gives their Rust type
/// in its messages, with their ranges.
const WHOLE_NUMBERS: [(&str, &str); 6] = [
    ("u8", "0 to 255"),
    ("u16", "0 to 65535"),
    ("u32", "0 to 4294967295"),
    ("u64", "0 to 18446744073709551615"),
    ("i32", "-2147483648 to 2147483647"),
    ("i64", "-9223372036854775808 to 9223372036854775807"),
];

/// serde_json's message in a submitter's words: Rust's type names (`expected
/// u32`) become the numbers they hold, a number read as a float where a
/// whole number belongs (`1e3`, `2.0`, `-0`, too many digits) says so, and
/// the escapes it names by its parser's terms say
/// what is wrong with them. `at line … column …` is kept as it is. The
/// site says the same of its TOML content files (serde's words are the
/// same there).
pub fn plain_words(message: &str) -> String {
    let (body, at) = message.rfind(" at line ").map_or((message, ""), |i| message.split_at(i));
    let body = match body {
        // A high surrogate followed by something other than a low one; a
        // low one alone is reported as "lone leading" too.
        "unexpected end of hex escape" | "lone leading surrogate in hex escape" => {
            "a \\u escape of half a UTF-16 surrogate pair (\\uD800 to \\uDFFF without its other half), which is no \
             character; write the character itself, or both halves"
                .to_string()
        }
        "invalid escape" => "an invalid escape: a backslash must be followed by one of \" \\ / b f n r t, or by u and \
                             four hex digits"
            .to_string(),
        _ => plain_numbers(body),
    };
    format!("{body}{at}")
}

fn plain_numbers(body: &str) -> String {
    for (ty, range) in WHOLE_NUMBERS {
        let Some(found) = body.strip_suffix(&format!(", expected {ty}")) else { continue };
        let want = format!("a whole number from {range}");
        let quoted = |prefix: &str| found.strip_prefix(prefix).and_then(|rest| rest.strip_suffix('`'));
        // serde_json reads a number as a float where it has a fraction or
        // an exponent, is -0, or has too many digits for an integer; TOML
        // also has inf and nan.
        if let Some(n) = quoted("invalid type: floating point `") {
            return format!(
                "expected {want}, found {n}, which was read as a floating-point number (such as one with a \
                 fraction or an exponent, or one too large)"
            );
        }
        if let Some(n) = quoted("invalid value: integer `") {
            return format!("{n} is not {want}");
        }
        return format!("{found}, expected {want}");
    }
    match body.strip_suffix(", expected f64") {
        Some(found) => format!("{found}, expected a number"),
        None => body.to_string(),
    }
}

/// serde_path_to_error writes `a.b[0].c`, or `.` for the root.
fn json_path(path: &str) -> String {
    if path == "." { "$".to_string() } else { format!("$.{path}") }
}

/// Serializes a result as submitted files are written: two-space indented
/// JSON with a trailing newline, which keeps diffs in pull requests clean.
pub fn to_json<T: serde::Serialize>(result: &T) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(result).expect("result types always serialize");
    out.push(b'\n');
    out
}

impl AnyResult {
    /// Serializes either kind (see `to_json`).
    pub fn to_json(&self) -> Vec<u8> {
        match self {
            AnyResult::Measured(r) => to_json(r),
            AnyResult::Imported(r) => to_json(r),
        }
    }
}
