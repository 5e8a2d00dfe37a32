//! Measurement parameters, the named profiles, the parameter fingerprint and
//! the parameters each runner stage uses (`StageKind::inputs`).
//!
//! Parameters define the measurement protocol and nothing about the runner
//! or its provider. The fingerprint names the whole set; a stage's figures
//! depend only on the parameters that stage uses, so the site compares a
//! stage wherever those are equal (docs/methodology.md, "Comparability
//! keys"). The canonical form hashed for the fingerprint is specified in
//! docs/result-format.md, so that anyone can recompute it by hand.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::values::Fingerprint;

/// The protocol version written by this collector. Raise it whenever the
/// way a figure is measured changes, even if no parameter below does.
pub const PROTOCOL_VERSION: u32 = 1;

/// Everything that changes what is measured. Integers, booleans and strings
/// only, so that the canonical form needs no rules for fractions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parameters {
    /// Measurement protocol version.
    pub protocol: u32,
    /// CoreMark samples requested.
    pub cpu_samples: u32,
    /// Least seconds of CoreMark work in one sample.
    pub cpu_seconds: u32,
    /// The CPU workload: algorithm, version and data size.
    pub cpu_workload: String,
    /// Whether the all-core CoreMark stage is part of the protocol: one
    /// context per logical CPU, `cpu_samples` samples of `cpu_seconds`
    /// each. Absent in the profiles before that stage, whose fingerprints
    /// it therefore leaves as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_allcore: Option<bool>,
    /// Disk samples requested.
    pub disk_samples: u32,
    /// Size of the disk test file, MiB.
    pub disk_file_mib: u32,
    /// Least seconds each disk operation repeats for in one sample.
    pub disk_op_seconds: u32,
    /// Block size of sequential disk I/O, KiB.
    pub disk_seq_block_kib: u32,
    /// Block size of random disk I/O, KiB.
    pub disk_rand_block_kib: u32,
    /// Disk queue depth.
    pub disk_queue_depth: u32,
    /// Limit on one sample of any stage, seconds.
    pub sample_timeout_s: u32,
    /// Cache payload, MiB.
    pub cache_payload_mib: u32,
    /// Files the cache payload is split into.
    pub cache_payload_files: u32,
    /// Save/restore pairs per cache backend.
    pub cache_trials: u32,
    /// Wait between the save job's end and the first restore, seconds.
    pub cache_publication_gap_s: u32,
    /// zstd level of archive-service caches (single thread).
    pub cache_zstd_level: u32,
    /// Whether the internet stage is part of the protocol.
    pub internet: bool,
    /// Download samples and upload samples, each.
    pub internet_samples: u32,
    /// Bytes moved by one internet sample, MiB.
    pub internet_transfer_mib: u32,
    /// Largest single HTTP request of an internet sample, MiB.
    pub internet_max_request_mib: u32,
    /// Zero-byte HTTPS requests timed.
    pub internet_request_samples: u32,
    /// Entries written and read per build-cache run.
    pub http_cache_entries: u32,
    /// Entry sizes of the build-cache stage, bytes.
    pub http_cache_value_bytes: Vec<u64>,
    /// Client connection counts of the build-cache stage.
    pub http_cache_connections: Vec<u32>,
}

/// A named set of parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The published protocol.
    Standard,
    /// Small sizes, seconds not minutes: for trying the tool and for tests.
    Quick,
}

impl Profile {
    /// Every profile, in the order they are documented.
    pub const ALL: [Profile; 2] = [Profile::Standard, Profile::Quick];

    /// The profile's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Standard => "standard",
            Profile::Quick => "quick",
        }
    }

    /// The profile with this name, if any.
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The parameters of this profile.
    pub fn parameters(self) -> Parameters {
        let standard = Parameters {
            protocol: PROTOCOL_VERSION,
            cpu_samples: 5,
            cpu_seconds: 30,
            cpu_workload: "coremark-1.0-total-data-size-2000".to_string(),
            cpu_allcore: Some(true),
            disk_samples: 5,
            disk_file_mib: 1024,
            disk_op_seconds: 5,
            disk_seq_block_kib: 1024,
            disk_rand_block_kib: 4,
            disk_queue_depth: 1,
            sample_timeout_s: 60,
            cache_payload_mib: 512,
            cache_payload_files: 16,
            cache_trials: 3,
            cache_publication_gap_s: 120,
            cache_zstd_level: 3,
            internet: true,
            internet_samples: 3,
            internet_transfer_mib: 1024,
            internet_max_request_mib: 32,
            internet_request_samples: 5,
            http_cache_entries: 1000,
            http_cache_value_bytes: vec![128, 512, 4096, 65536],
            http_cache_connections: vec![10, 100],
        };
        match self {
            Profile::Standard => standard,
            Profile::Quick => Parameters {
                cpu_samples: 3,
                cpu_seconds: 1,
                disk_samples: 3,
                disk_file_mib: 16,
                disk_op_seconds: 1,
                sample_timeout_s: 30,
                cache_payload_mib: 8,
                cache_payload_files: 4,
                cache_publication_gap_s: 0,
                internet_transfer_mib: 8,
                internet_max_request_mib: 4,
                internet_request_samples: 3,
                http_cache_entries: 100,
                http_cache_value_bytes: vec![4096],
                http_cache_connections: vec![4],
                ..standard
            },
        }
    }
}

impl Parameters {
    /// The canonical JSON form that the fingerprint hashes: keys sorted by
    /// their UTF-8 bytes, no whitespace, integers in plain decimal.
    pub fn canonical_json(&self) -> String {
        // Serializing through a Value and re-emitting by hand keeps the form
        // independent of serde_json's map-ordering feature flags.
        let value = serde_json::to_value(self).expect("parameters always serialize");
        let mut out = String::new();
        write_canonical(&value, &mut out);
        out
    }

    /// First 12 hex digits of SHA-256 over `canonical_json()`.
    pub fn fingerprint(&self) -> Fingerprint {
        // Results of one profile share their parameters, and a check of
        // 10,000 results computed the same canonical JSON (through a
        // `Value`) and its hash 10,000 times: 5.5 % of its CPU time
        // (docs/benchmarks.md). Each thread keeps the last parameters it
        // hashed, and compares before it hashes again.
        thread_local! {
            static LAST: std::cell::RefCell<Option<(Parameters, Fingerprint)>> = const { std::cell::RefCell::new(None) };
        }
        LAST.with_borrow_mut(|last| match last {
            Some((params, fingerprint)) if params == self => fingerprint.clone(),
            _ => {
                let fingerprint = self.hashed_fingerprint();
                *last = Some((self.clone(), fingerprint.clone()));
                fingerprint
            }
        })
    }

    fn hashed_fingerprint(&self) -> Fingerprint {
        let digest = Sha256::digest(self.canonical_json().as_bytes());
        let hex = crate::values::hex(&digest);
        Fingerprint::new(&hex[..12]).expect("a SHA-256 prefix is hex")
    }
}

/// A runner stage that the site compares by its own comparability key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StageKind {
    /// CoreMark.
    Cpu,
    /// Disk I/O.
    Disk,
    /// Cache backends.
    Cache,
    /// Internet.
    Internet,
}

impl StageKind {
    /// Every keyed stage, in table order.
    pub const ALL: [StageKind; 4] = [StageKind::Cpu, StageKind::Disk, StageKind::Cache, StageKind::Internet];

    /// Its name in keys, ids and file names.
    pub fn name(self) -> &'static str {
        match self {
            StageKind::Cpu => "cpu",
            StageKind::Disk => "disk",
            StageKind::Cache => "cache",
            StageKind::Internet => "internet",
        }
    }

    /// The parameters (field names of `Parameters`) the stage's figures
    /// depend on. `protocol` is in every list: a collector raises it when
    /// the way any figure is measured changes, and no parameter says which.
    /// `sample_timeout_s` is too: every stage's samples are cut off by it
    /// (the cache stage's jobs at ten times it).
    pub fn inputs(self) -> &'static [&'static str] {
        match self {
            StageKind::Cpu => &["protocol", "cpu_samples", "cpu_seconds", "cpu_workload", "sample_timeout_s"],
            StageKind::Disk => &[
                "protocol",
                "disk_samples",
                "disk_file_mib",
                "disk_op_seconds",
                "disk_seq_block_kib",
                "disk_rand_block_kib",
                "disk_queue_depth",
                "sample_timeout_s",
            ],
            StageKind::Cache => &[
                "protocol",
                "cache_payload_mib",
                "cache_payload_files",
                "cache_trials",
                "cache_publication_gap_s",
                "cache_zstd_level",
                "sample_timeout_s",
            ],
            StageKind::Internet => &[
                "protocol",
                "internet",
                "internet_samples",
                "internet_transfer_mib",
                "internet_max_request_mib",
                "internet_request_samples",
                "sample_timeout_s",
            ],
        }
    }
}

/// Parameters that no keyed stage uses: the build-cache stage's, whose
/// results are grouped by the whole fingerprint.
pub const UNKEYED_INPUTS: [&str; 3] = ["http_cache_entries", "http_cache_value_bytes", "http_cache_connections"];

/// The parameters the all-core CoreMark stage's figures depend on, the
/// inputs of its comparability key once the site compares it: the one-thread
/// stage's (its samples, seconds, workload and timeout are the same) and
/// `cpu_allcore`. It is no `StageKind` yet, since every keyed stage has its
/// tables on the site. `cpu_allcore` is in no `StageKind`'s inputs, so
/// adding the stage to a profile changes no other stage's key.
pub const ALL_CORE_INPUTS: [&str; 6] =
    ["protocol", "cpu_allcore", "cpu_samples", "cpu_seconds", "cpu_workload", "sample_timeout_s"];

impl Parameters {
    /// The parameters `stage` uses, as a JSON object of `stage.inputs()`.
    pub fn stage_inputs(&self, stage: StageKind) -> serde_json::Map<String, serde_json::Value> {
        let serde_json::Value::Object(all) = serde_json::to_value(self).expect("parameters always serialize") else {
            unreachable!("parameters serialize as an object")
        };
        stage.inputs().iter().map(|&k| (k.to_string(), all.get(k).cloned().unwrap_or_default())).collect()
    }
}

/// The canonical JSON form of any value, as `Parameters::canonical_json`
/// writes it: keys sorted by their UTF-8 bytes, no whitespace. Strings are
/// escaped as serde_json escapes them; numbers must be integers.
pub fn canonical_json_of(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

/// First 12 hex digits of SHA-256 over `canonical_json_of(value)`: the
/// fingerprint's scheme, for the site's per-stage comparability keys.
pub fn key_of(value: &serde_json::Value) -> Fingerprint {
    let digest = Sha256::digest(canonical_json_of(value).as_bytes());
    let hex = crate::values::hex(&digest);
    Fingerprint::new(&hex[..12]).expect("a SHA-256 prefix is hex")
}

fn write_canonical(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        // Parameters hold no fractions (see the type), so every number here
        // is an integer and prints in plain decimal.
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_is_sorted_and_compact() {
        let canonical = Profile::Standard.parameters().canonical_json();
        assert!(canonical.starts_with(r#"{"cache_payload_files":16,"cache_payload_mib":512,"#));
        assert!(!canonical.contains(' '));
        assert!(canonical.contains(r#""http_cache_value_bytes":[128,512,4096,65536]"#));
    }

    #[test]
    fn every_parameter_is_a_stage_input_or_named_unkeyed() {
        let serde_json::Value::Object(all) = serde_json::to_value(Profile::Standard.parameters()).unwrap() else {
            panic!("an object")
        };
        for field in all.keys() {
            let used = StageKind::ALL.iter().any(|s| s.inputs().contains(&field.as_str()));
            let listed = UNKEYED_INPUTS.contains(&field.as_str()) || ALL_CORE_INPUTS.contains(&field.as_str());
            assert!(used || listed, "{field} is in no stage's inputs");
        }
        for s in StageKind::ALL {
            for input in s.inputs() {
                assert!(all.contains_key(*input), "{input} of {} is no parameter", s.name());
            }
        }
    }

    #[test]
    fn a_stage_input_changes_only_the_stages_that_use_it() {
        let standard = Profile::Standard.parameters();
        let other_disk = Parameters { disk_file_mib: 2048, ..standard.clone() };
        let inputs = |p: &Parameters, s| serde_json::Value::Object(p.stage_inputs(s));
        for s in StageKind::ALL {
            let same = key_of(&inputs(&standard, s)) == key_of(&inputs(&other_disk, s));
            assert_eq!(same, s != StageKind::Disk, "{}", s.name());
        }
        let longer_timeout = Parameters { sample_timeout_s: 120, ..standard.clone() };
        for s in StageKind::ALL {
            assert_ne!(key_of(&inputs(&standard, s)), key_of(&inputs(&longer_timeout, s)), "{}", s.name());
        }
    }

    /// Profiles before the all-core stage had no `cpu_allcore`: their
    /// canonical form, and so their fingerprint, is what it was.
    #[test]
    fn a_profile_without_the_all_core_stage_keeps_its_fingerprint() {
        for (profile, before) in [(Profile::Standard, "739dba2a6817"), (Profile::Quick, "7a737381e8dd")] {
            let older = Parameters { cpu_allcore: None, ..profile.parameters() };
            assert!(!older.canonical_json().contains("cpu_allcore"));
            assert_eq!(older.fingerprint().as_str(), before, "{}", profile.name());
        }
        let standard = Profile::Standard.parameters();
        let older = Parameters { cpu_allcore: None, ..standard.clone() };
        let inputs = |p: &Parameters, s| serde_json::Value::Object(p.stage_inputs(s));
        for s in StageKind::ALL {
            assert_eq!(key_of(&inputs(&standard, s)), key_of(&inputs(&older, s)), "{}", s.name());
        }
    }

    #[test]
    fn the_kept_fingerprint_is_the_one_hashed() {
        let standard = Profile::Standard.parameters();
        let mut changed = standard.clone();
        changed.cpu_samples += 1;
        // Alternating, so that each call finds the other's parameters kept.
        for params in [&standard, &changed, &changed, &standard] {
            assert_eq!(params.fingerprint(), params.hashed_fingerprint());
        }
        assert_ne!(standard.fingerprint(), changed.fingerprint());
    }

    #[test]
    fn profiles_differ() {
        assert_ne!(Profile::Standard.parameters().fingerprint(), Profile::Quick.parameters().fingerprint());
        assert_eq!(Profile::from_name("quick"), Some(Profile::Quick));
        assert_eq!(Profile::from_name("fast"), None);
    }
}
