//! The all-core CPU stage's section: its golden file, how its figures
//! derive, and the checks with their exact paths and reasons.

use std::path::{Path, PathBuf};

use runner_bench_format::measured::{Status, vcpu_worth};
use runner_bench_format::{AnyResult, MeasuredResult, Problem, Profile, from_slice, read_file};
use serde_json::{Value, json};

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/result-v1-allcore.json")
}

fn golden_value() -> Value {
    serde_json::from_slice(&std::fs::read(golden()).unwrap()).unwrap()
}

fn read(value: &Value) -> MeasuredResult {
    match from_slice(&serde_json::to_vec_pretty(value).unwrap(), Path::new("results/x.json")) {
        Ok(AnyResult::Measured(m)) => *m,
        other => panic!("not a measured result: {:?}", other.err()),
    }
}

/// `UPDATE_GOLDEN=1` rewrites it after a deliberate format change, as the
/// shared golden file (contract.rs).
#[test]
fn golden_round_trips_byte_for_byte() {
    let path = golden();
    let written = read_file(&path).unwrap().to_json();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &written).unwrap();
    }
    assert_eq!(String::from_utf8(written).unwrap(), std::fs::read_to_string(&path).unwrap());
}

#[test]
fn golden_is_the_standard_profile_and_consistent() {
    let r = read(&golden_value());
    assert_eq!(r.problems(), vec![]);
    assert_eq!(r.parameters, Profile::Standard.parameters());
    assert_eq!(r.fingerprint, Profile::Standard.parameters().fingerprint());
    let all = r.stages.cpu_allcore.as_ref().unwrap();
    assert_eq!(all.samples.iter().filter(|s| s.status == Status::Ok).count(), 3);
    assert!(all.samples.iter().any(|s| s.status == Status::Timeout));
}

#[test]
fn golden_figures_derive_as_documented() {
    let r = read(&golden_value());
    let all = r.stages.cpu_allcore.as_ref().unwrap();
    // contexts × iterations ÷ seconds to the last join.
    let ips = all.samples[0].iterations_per_s().unwrap();
    assert!((ips - 2.0 * 600000.0 / 30.0212).abs() < 1e-9);
    // A failed CRC check and a timeout are never a score.
    assert_eq!(all.samples[3].iterations_per_s(), None);
    assert_eq!(all.samples[4].iterations_per_s(), None);
    // Medians: all-core 2 × 600000 ÷ 30.0212 (the middle of three); one
    // thread the golden CPU stage's median, from its four ok samples.
    let one: Vec<f64> = r.stages.cpu.as_ref().unwrap().samples.iter().filter_map(|s| s.iterations_per_s()).collect();
    let one_median = runner_bench_format::median(&one).unwrap();
    let worth = vcpu_worth(r.stages.cpu.as_ref().unwrap(), all).unwrap();
    assert!((worth - (1_200_000.0 / 30.0212) / (one_median * 2.0)).abs() < 1e-12, "{worth}");
}

#[test]
fn an_ok_sample_records_every_context_and_its_crcs() {
    let mut v = golden_value();
    v["stages"]["cpu_allcore"]["samples"][0]["threads"].as_array_mut().unwrap().pop();
    v["stages"]["cpu_allcore"]["samples"][1]["threads"][0].as_object_mut().unwrap().remove("crcs");
    v["stages"]["cpu_allcore"]["samples"][2].as_object_mut().unwrap().remove("elapsed_s");
    v["stages"]["cpu_allcore"]["samples"][3]["contexts"] = json!(0);
    assert_eq!(
        read(&v).problems(),
        vec![
            Problem {
                field: "$.stages.cpu_allcore.samples[0].threads".to_string(),
                reason: "1 threads recorded for 2 contexts: an \"ok\" sample records every context".to_string(),
            },
            Problem {
                field: "$.stages.cpu_allcore.samples[1].threads[0].crcs".to_string(),
                reason: "required when status is \"ok\"".to_string(),
            },
            Problem {
                field: "$.stages.cpu_allcore.samples[2].elapsed_s".to_string(),
                reason: "required when status is \"ok\"".to_string(),
            },
            Problem {
                field: "$.stages.cpu_allcore.samples[3].contexts".to_string(),
                reason: "0 contexts: a sample runs one per logical CPU, at least one".to_string(),
            },
        ]
    );
}

#[test]
fn the_stage_belongs_to_a_profile_that_has_it_and_within_its_samples() {
    let mut v = golden_value();
    v["parameters"].as_object_mut().unwrap().remove("cpu_allcore");
    v["parameters"]["cpu_samples"] = json!(4);
    let params: runner_bench_format::Parameters = serde_json::from_value(v["parameters"].clone()).unwrap();
    v["fingerprint"] = json!(params.fingerprint().as_str());
    assert_eq!(
        read(&v).problems(),
        vec![
            Problem {
                field: "$.stages.cpu.samples".to_string(),
                reason: "5 samples attempted but parameters.cpu_samples requested 4".to_string(),
            },
            Problem {
                field: "$.stages.cpu_allcore".to_string(),
                reason: "the parameters have no all-core stage (parameters.cpu_allcore is not true)".to_string(),
            },
            Problem {
                field: "$.stages.cpu_allcore.samples".to_string(),
                reason: "5 samples attempted but parameters.cpu_samples requested 4".to_string(),
            },
        ]
    );
}

#[test]
fn a_thread_is_read_strictly() {
    let mut v = golden_value();
    v["stages"]["cpu_allcore"]["samples"][0]["threads"][0]["first_cpu"] = json!({ "cpu": 1 });
    let err = from_slice(&serde_json::to_vec_pretty(&v).unwrap(), Path::new("results/x.json")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("results/x.json: $.stages.cpu_allcore.samples[0].threads[0].first_cpu: missing field `group`"),
        "{err}"
    );
}
