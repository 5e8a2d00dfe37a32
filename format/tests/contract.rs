//! The contract: the golden result file, the fingerprint vectors and the
//! committed JSON Schema.
//!
//! `UPDATE_GOLDEN=1 cargo test -p runner-bench-format` rewrites the golden
//! file and the schema after a deliberate format change; review the diff.

use std::path::{Path, PathBuf};

use runner_bench_format::measured::Status;
use runner_bench_format::{AnyResult, Profile, read_file, schema};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// The golden file shared by the collector's and the site's tests.
pub fn golden() -> PathBuf {
    repo("format/tests/golden/result-v1.json")
}

/// The golden file again, as the signing job assembles it: with GitHub's
/// record of the run (`provenance.run_record`). The plain golden file keeps
/// none, as files assembled without it do.
pub fn golden_with_run_record() -> PathBuf {
    repo("format/tests/golden/result-v1-run-record.json")
}

fn update() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some()
}

#[test]
fn golden_round_trips_byte_for_byte() {
    let path = golden();
    let result = read_file(&path).unwrap();
    let written = result.to_json();
    if update() {
        std::fs::write(&path, &written).unwrap();
    }
    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(String::from_utf8(written).unwrap(), String::from_utf8(on_disk).unwrap());
}

#[test]
fn golden_with_run_record_round_trips_byte_for_byte_and_is_consistent() {
    let path = golden_with_run_record();
    let result = read_file(&path).unwrap();
    let written = result.to_json();
    if update() {
        std::fs::write(&path, &written).unwrap();
    }
    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(String::from_utf8(written).unwrap(), String::from_utf8(on_disk).unwrap());
    let AnyResult::Measured(r) = result else { panic!("golden is a measured result") };
    assert_eq!(r.problems(), vec![]);
    let AnyResult::Measured(plain) = read_file(&golden()).unwrap() else { panic!() };
    assert_eq!(plain.provenance.run_record, None);
    // The same result but for the record.
    let mut without = (*r).clone();
    let record = without.provenance.run_record.take().unwrap();
    assert_eq!(without, *plain);
    let ids: Vec<&str> = record.jobs.iter().map(|j| j.job.as_str()).collect();
    assert_eq!(
        ids,
        ["measure", "save-1", "save-2", "save-3", "gap-1", "gap-2", "gap-3", "restore-1", "restore-2", "restore-3"]
    );
}

#[test]
fn golden_fills_every_section_and_is_consistent() {
    let AnyResult::Measured(r) = read_file(&golden()).unwrap() else { panic!("golden is a measured result") };
    assert_eq!(r.problems(), vec![]);
    let s = &r.stages;
    let (cpu, disk, cache, net, http) = (
        s.cpu.as_ref().unwrap(),
        s.disk.as_ref().unwrap(),
        s.cache.as_ref().unwrap(),
        s.internet.as_ref().unwrap(),
        s.http_cache.as_ref().unwrap(),
    );
    assert!(r.provenance.github.is_some() && r.provenance.image.is_some() && r.machine.virtualization.is_some());
    // Every kind of sample outcome appears, so readers meet each one.
    assert_eq!(cpu.samples.iter().filter(|x| x.status == Status::Ok).count(), 4);
    assert!(disk.samples.iter().any(|x| x.status == Status::Timeout));
    assert!(cache.pairs.iter().any(|p| !p.verified()) && cache.pairs.iter().any(|p| p.verified()));
    assert!(net.upload.iter().any(|x| x.status == Status::Timeout));
    assert!(http.runs.iter().any(|x| x.get.status == Status::Error));
    assert_eq!(r.build.flags_label(), "-O2 -DNDEBUG; C99; MULTITHREAD=1; TOTAL_DATA_SIZE=2000; ITERATIONS=0");
    assert_eq!(r.notices.len(), 2);
}

#[test]
fn golden_figures_derive_as_documented() {
    let AnyResult::Measured(r) = read_file(&golden()).unwrap() else { panic!() };
    let cpu = r.stages.cpu.unwrap();
    let ips = cpu.samples[0].iterations_per_s().unwrap();
    assert!((ips - 1000032.0 / 30.0151).abs() < 1e-9);
    // A failed CRC check is never a score.
    assert_eq!(cpu.samples[4].iterations_per_s(), None);
    let disk = r.stages.disk.unwrap();
    let op = disk.samples[0].seq_read.unwrap();
    assert!((op.mib_per_s() - 8064.0 / 5.0021).abs() < 1e-9);
    let net = r.stages.internet.unwrap();
    assert!((net.download[0].mbps().unwrap() - 1073741824.0 * 8.0 / 1e6 / 42.61).abs() < 1e-9);
    assert_eq!(net.upload[1].mbps(), None);
    let http = r.stages.http_cache.unwrap();
    assert!((http.runs[0].put.requests_per_s().unwrap() - 1000.0 / 0.2343).abs() < 1e-9);
}

#[test]
fn fingerprint_vectors() {
    // Computed independently with Python:
    // json.dumps(params, sort_keys=True, separators=(',', ':')) and
    // hashlib.sha256(...).hexdigest()[:12].
    let vectors: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo("format/tests/golden/fingerprint-vectors.json")).unwrap()).unwrap();
    for profile in Profile::ALL {
        let v = &vectors[profile.name()];
        let params = profile.parameters();
        assert_eq!(params.canonical_json(), v["canonical"].as_str().unwrap(), "{}", profile.name());
        assert_eq!(params.fingerprint().as_str(), v["fingerprint"].as_str().unwrap(), "{}", profile.name());
    }
    assert_eq!(Profile::Standard.parameters().fingerprint().as_str(), "ff3be33c0c3c");
    assert_eq!(Profile::Quick.parameters().fingerprint().as_str(), "29c30736ae15");
}

#[test]
fn committed_schema_is_current() {
    let path = repo("docs/result-v1.schema.json");
    let generated = schema::json_schema();
    if update() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/result-v1.schema.json is out of date; run UPDATE_GOLDEN=1 cargo test -p runner-bench-format"
    );
}
