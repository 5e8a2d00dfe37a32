//! Result format v1 of runner-bench: the contract between the `collector`,
//! which writes one result file per run, and the `site`, which reads them.
//!
//! - `values`: validated leaves (slugs, bounded text, non-negative numbers,
//!   timestamps, hex digests);
//! - `params`: measurement parameters, profiles and the fingerprint;
//! - `measured` and `imported`: the two kinds of result file;
//! - `read`: the strict reader and the writer's serialization;
//! - `check`: consistency rules that span fields;
//! - `schema`: the generated JSON Schema;
//! - `stats`: the median, the one statistic both the collector's step
//!   summary and the site's reports compute.
//!
//! docs/result-format.md describes the format for people.

pub mod check;
pub mod common;
pub mod imported;
mod maps_only;
pub mod measured;
pub mod params;
pub mod read;
pub mod rng;
pub mod schema;
pub mod stats;
pub mod values;

pub use check::Problem;
pub use common::{Affinity, Notice, Os, Provider, Runner, arch_label};
pub use imported::ImportedResult;
pub use measured::MeasuredResult;
pub use params::{PROTOCOL_VERSION, Parameters, Profile, StageKind};
pub use read::{AnyResult, FORMAT_VERSION, MAX_FILE_BYTES, ReadError, from_slice, plain_words, read_file, to_json};
pub use stats::median;
pub use values::{Date, Fingerprint, Message, Name, NonNeg, Sha256Hex, Slug, Text, Timestamp, hex};
