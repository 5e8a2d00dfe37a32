//! The values of Bazel's action cache (`/ac/`): `ActionResult` messages of
//! the Remote Execution API (build.bazel.remote.execution.v2), protobuf
//! wire format, encoded by hand: the collector writes one message shape
//! and never reads one, which a protobuf code generator and its build step
//! would be far more than.
//!
//! Each message holds one output file, inlined: its path, its digest
//! (SHA-256 and size of its contents) and its contents, as a server
//! answers when the client asks for an output inline, and where the size
//! needs it an explicit `exit_code: 0`. The contents are
//! random and sized so that the whole message is exactly the cell's value
//! size, so that an `/ac/` cell moves as many bytes as a `/cas/` one.
//!
//! Field numbers (remote_execution.proto): ActionResult.output_files = 2,
//! ActionResult.exit_code = 4;
//! OutputFile.path = 1, OutputFile.digest = 2, OutputFile.contents = 5;
//! Digest.hash = 1 (lowercase hex), Digest.size_bytes = 2.

use runner_bench_format::hex;
use sha2::{Digest, Sha256};

/// The output file's path, before the padding that makes a message its
/// exact size.
const PATH: &str = "out";

/// Protobuf tags: field number << 3 | wire type (0 varint, 2 length-delimited).
const ACTION_RESULT_OUTPUT_FILES: u8 = 2 << 3 | 2;
const ACTION_RESULT_EXIT_CODE: u8 = 4 << 3;
const OUTPUT_FILE_PATH: u8 = 1 << 3 | 2;
const OUTPUT_FILE_DIGEST: u8 = 2 << 3 | 2;
const OUTPUT_FILE_CONTENTS: u8 = 5 << 3 | 2;
const DIGEST_HASH: u8 = 1 << 3 | 2;
const DIGEST_SIZE_BYTES: u8 = 2 << 3;

/// The hex SHA-256's length.
const HASH_CHARS: usize = 64;

/// The smallest message: empty contents and the unpadded path.
pub const MIN_BYTES: u64 = 79;

/// An `ActionResult` of exactly `value_bytes` bytes whose output file's
/// contents are the first bytes of `random` (which must hold at least
/// `value_bytes`), or why no message has that size.
pub fn encode(value_bytes: u64, random: &[u8]) -> Result<Vec<u8>, String> {
    let target = usize::try_from(value_bytes).map_err(|_| format!("{value_bytes} bytes do not fit in memory"))?;
    let Layout { contents, padding, exit_code } = layout(target).ok_or_else(|| {
        format!("bazel-ac values are ActionResult messages of at least {MIN_BYTES} bytes, not {value_bytes}")
    })?;
    let path = format!("{PATH}{}", "-".repeat(padding));
    let mut message = message(&path, &random[..contents]);
    if exit_code {
        message.extend_from_slice(&[ACTION_RESULT_EXIT_CODE, 0]);
    }
    debug_assert_eq!(message.len(), target);
    Ok(message)
}

/// How a message of a given size is made up.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    /// The output's contents, bytes.
    contents: usize,
    /// Bytes added to the output's path.
    padding: usize,
    /// Whether the message ends with an explicit `exit_code: 0` (2 bytes).
    exit_code: bool,
}

/// The layout of a message of `target` bytes. A length prefix grows a
/// byte at 128, 16384, ..., so some sizes are met by a longer path, and
/// those just past the output file's prefix growing (130 bytes, for one,
/// is neither 129 nor 131) by a shorter output and an explicit exit code.
fn layout(target: usize) -> Option<Layout> {
    let most = target.checked_sub(MIN_BYTES as usize)?;
    for contents in (0..=most).rev() {
        let size = size_of(PATH.len(), contents);
        if size > target {
            continue;
        }
        if target - size > 8 {
            break;
        }
        for exit_code in [false, true] {
            for padding in 0..=4 {
                if size_of(PATH.len() + padding, contents) + if exit_code { 2 } else { 0 } == target {
                    return Some(Layout { contents, padding, exit_code });
                }
            }
        }
    }
    None
}

/// The encoded size of a message with this path length and contents length.
fn size_of(path: usize, contents: usize) -> usize {
    let file = output_file_size(path, contents);
    1 + varint_len(file as u64) + file
}

fn digest_size(contents: usize) -> usize {
    (1 + varint_len(HASH_CHARS as u64) + HASH_CHARS) + (1 + varint_len(contents as u64))
}

fn output_file_size(path: usize, contents: usize) -> usize {
    let digest = digest_size(contents);
    (1 + varint_len(path as u64) + path)
        + (1 + varint_len(digest as u64) + digest)
        + (1 + varint_len(contents as u64) + contents)
}

fn message(path: &str, contents: &[u8]) -> Vec<u8> {
    let file_len = output_file_size(path.len(), contents.len());
    let mut out = Vec::with_capacity(1 + varint_len(file_len as u64) + file_len);
    out.push(ACTION_RESULT_OUTPUT_FILES);
    varint(&mut out, file_len as u64);
    out.push(OUTPUT_FILE_PATH);
    varint(&mut out, path.len() as u64);
    out.extend_from_slice(path.as_bytes());
    out.push(OUTPUT_FILE_DIGEST);
    varint(&mut out, digest_size(contents.len()) as u64);
    out.push(DIGEST_HASH);
    varint(&mut out, HASH_CHARS as u64);
    out.extend_from_slice(hex(&Sha256::digest(contents)).as_bytes());
    out.push(DIGEST_SIZE_BYTES);
    varint(&mut out, contents.len() as u64);
    out.push(OUTPUT_FILE_CONTENTS);
    varint(&mut out, contents.len() as u64);
    out.extend_from_slice(contents);
    out
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A reader of the fields this module writes, for the tests: the wire
/// format read back independently of how it was written.
#[cfg(test)]
pub mod read {
    /// The length-delimited and varint fields of one message, in order:
    /// (field number, bytes) or (field number, value).
    #[derive(Debug, PartialEq, Eq)]
    pub enum Field<'a> {
        Bytes(u32, &'a [u8]),
        Varint(u32, u64),
    }

    pub fn fields(mut buf: &[u8]) -> Result<Vec<Field<'_>>, String> {
        let mut fields = Vec::new();
        while !buf.is_empty() {
            let key = take_varint(&mut buf)?;
            let (number, wire) = ((key >> 3) as u32, key & 7);
            match wire {
                0 => fields.push(Field::Varint(number, take_varint(&mut buf)?)),
                2 => {
                    let len = take_varint(&mut buf)? as usize;
                    if len > buf.len() {
                        return Err(format!("field {number} runs {len} bytes past a buffer of {}", buf.len()));
                    }
                    let (value, rest) = buf.split_at(len);
                    fields.push(Field::Bytes(number, value));
                    buf = rest;
                }
                other => return Err(format!("wire type {other} of field {number}")),
            }
        }
        Ok(fields)
    }

    fn take_varint(buf: &mut &[u8]) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = buf.split_first().ok_or("a varint ends early")?;
            *buf = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a varint longer than 10 bytes".into())
    }
}

#[cfg(test)]
mod tests {
    use super::read::{Field, fields};
    use super::*;

    /// Decodes an ActionResult as the tests expect it: one output file,
    /// returning (path, digest hash, digest size, contents).
    fn decode(message: &[u8]) -> (String, String, u64, Vec<u8>) {
        let top = fields(message).unwrap();
        let (Field::Bytes(2, file), [] | [Field::Varint(4, 0)]) = (&top[0], &top[1..]) else {
            panic!("one output_files field, then at most exit_code 0: {top:?}")
        };
        let file = fields(file).unwrap();
        let [Field::Bytes(1, path), Field::Bytes(2, digest), Field::Bytes(5, contents)] = file.as_slice() else {
            panic!("path, digest and contents: {file:?}")
        };
        let digest = fields(digest).unwrap();
        let [Field::Bytes(1, hash), Field::Varint(2, size)] = digest.as_slice() else {
            panic!("hash and size: {digest:?}")
        };
        (String::from_utf8(path.to_vec()).unwrap(), String::from_utf8(hash.to_vec()).unwrap(), *size, contents.to_vec())
    }

    #[test]
    fn every_size_from_the_smallest_is_met_exactly_and_decodes() {
        let random: Vec<u8> = (0..70_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let sizes = (MIN_BYTES..400).chain(16_370..16_400).chain([511, 512, 4096, 65_536]);
        for size in sizes {
            let message = encode(size, &random).unwrap();
            assert_eq!(message.len() as u64, size, "size {size}");
            let (path, hash, digest_size, contents) = decode(&message);
            assert!(path.starts_with(PATH), "{path}");
            assert_eq!(digest_size, contents.len() as u64);
            assert_eq!(hash, hex(&Sha256::digest(&contents)));
            assert_eq!(contents, random[..contents.len()]);
        }
    }

    #[test]
    fn a_size_below_the_smallest_message_is_refused() {
        assert_eq!(size_of(PATH.len(), 0) as u64, MIN_BYTES);
        assert_eq!(encode(MIN_BYTES, &[0; 100]).map(|m| m.len()), Ok(MIN_BYTES as usize));
        assert_eq!(
            encode(MIN_BYTES - 1, &[0; 100]),
            Err("bazel-ac values are ActionResult messages of at least 79 bytes, not 78".to_string())
        );
    }
}
