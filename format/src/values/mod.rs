//! Validated value types: the leaves of the result format.
//!
//! Each type checks itself while it is deserialized, so a bad value is
//! reported by the strict reader with the JSON path of the field it sits in
//! (see `read.rs`). Each also describes its own constraints in the JSON
//! Schema, so an editor can flag the same problems before a file is submitted.
//!
//! One file per kind of value: `slug`, `text` (names and messages),
//! `number`, `time` (timestamps and dates) and `hex` (digests and the
//! fingerprint). This file only declares them and re-exports their items,
//! so that every type keeps its one path, `values::X`.

mod hex;
mod number;
mod slug;
mod text;
mod time;

pub use hex::{Fingerprint, Hex, Sha256Hex, hex};
pub use number::NonNeg;
pub use slug::{SLUG_MAX_CHARS, Slug};
pub use text::{MESSAGE_MAX_CHARS, Message, NAME_MAX_CHARS, Name, Text};
pub use time::{Date, Timestamp};
