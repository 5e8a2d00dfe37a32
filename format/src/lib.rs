//! Result format v1 of runner-bench: the contract between the `collector`,
//! which writes one result file per run, and the `site`, which reads them.
//!
//! # Layers
//!
//! A module imports only from its own layer and the layers below it:
//! `python3 scripts/check-layers.py` reads this list and fails on an import
//! that points up (`--graph` prints it).
//!
//! 1. `crate`: this file, re-exporting what the collector and the site use;
//! 2. `read`, `schema`, `check`: the strict reader and the writer's
//!    serialization, the generated JSON Schema, and consistency rules that
//!    span fields;
//! 3. `imported`: the imported result file (it reuses measured sections);
//! 4. `measured`: the measured result file;
//! 5. `params`, `common`: measurement parameters, profiles and the
//!    fingerprint, and the parts both kinds of file share;
//! 6. `values`, `stats`, `rng`, `maps_only`: validated leaves (slugs,
//!    bounded text, non-negative numbers, timestamps, hex digests), the
//!    median (the one statistic both the collector's step summary and the
//!    site's reports compute), the project's pseudo-random generator, and
//!    the deserializer that reads a struct only from a JSON object.
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
