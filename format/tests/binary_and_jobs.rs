//! `collector.binary` and `provenance.jobs`: optional, so files written
//! before them still read; when present, read strictly and checked.

use std::path::Path;

use runner_bench_format::measured::{Conclusion, JobOutcome};
use runner_bench_format::{AnyResult, MeasuredResult, Name, Problem, Slug, from_slice, to_json};
use serde_json::{Value, json};

fn golden() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/result-v1.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn read(value: &Value) -> Result<MeasuredResult, String> {
    match from_slice(&serde_json::to_vec_pretty(value).unwrap(), Path::new("results/x.json")) {
        Ok(AnyResult::Measured(m)) => Ok(*m),
        Ok(AnyResult::Imported(_)) => panic!("golden is measured"),
        Err(e) => Err(e.to_string()),
    }
}

fn with_binary_and_jobs() -> Value {
    let mut v = golden();
    v["collector"]["binary"] = json!({ "sha256": "ab".repeat(32), "target": "x86_64-unknown-linux-gnu" });
    v["provenance"]["jobs"] = json!([
        { "job": "measure", "conclusion": "success", "stages": ["cpu", "disk", "internet"] },
        { "job": "restore-2", "conclusion": "failure", "stages": ["cache"], "trial": 2 },
        { "job": "submit", "conclusion": "skipped", "stages": [] }
    ]);
    v
}

#[test]
fn a_file_without_them_reads_and_writes_without_them() {
    let r = read(&golden()).unwrap();
    assert_eq!(r.collector.binary, None);
    assert!(r.provenance.jobs.is_empty());
    let written: Value = serde_json::from_slice(&to_json(&r)).unwrap();
    assert!(written["collector"].get("binary").is_none() && written["provenance"].get("jobs").is_none());
}

#[test]
fn a_file_with_them_round_trips() {
    let v = with_binary_and_jobs();
    let r = read(&v).unwrap();
    assert_eq!(r.collector.binary.as_ref().unwrap().target.as_str(), "x86_64-unknown-linux-gnu");
    assert_eq!(
        r.provenance.jobs[1],
        JobOutcome {
            job: Slug::new("restore-2").unwrap(),
            conclusion: Conclusion::Failure,
            stages: vec![Name::new("cache").unwrap()],
            trial: Some(2),
        }
    );
    assert_eq!(r.provenance.jobs[2].trial, None);
    assert_eq!(r.problems(), vec![]);
    assert_eq!(serde_json::from_slice::<Value>(&to_json(&r)).unwrap(), v);
}

#[test]
fn conclusions_are_githubs_lowercase_words() {
    let words: Vec<&str> = [Conclusion::Success, Conclusion::Failure, Conclusion::Cancelled, Conclusion::Skipped]
        .map(Conclusion::name)
        .into();
    assert_eq!(words, ["success", "failure", "cancelled", "skipped"]);
    let mut v = with_binary_and_jobs();
    v["provenance"]["jobs"][1]["conclusion"] = json!("Failure");
    let err = read(&v).unwrap_err();
    assert!(
        err.starts_with(
            "results/x.json: $.provenance.jobs[1].conclusion: unknown variant `Failure`, expected one of `success`, \
             `failure`, `cancelled`, `skipped`"
        ),
        "{err}"
    );
}

#[test]
fn the_binary_digest_is_64_lowercase_hex_digits() {
    let mut v = with_binary_and_jobs();
    v["collector"]["binary"]["sha256"] = json!("AB".repeat(32));
    let err = read(&v).unwrap_err();
    assert!(
        err.starts_with(&format!(
            "results/x.json: $.collector.binary.sha256: \"{}\" is not 64 lowercase hexadecimal digits",
            "AB".repeat(32)
        )),
        "{err}"
    );
}

#[test]
fn a_job_measures_only_the_six_stages() {
    let mut v = with_binary_and_jobs();
    v["provenance"]["jobs"][0]["stages"][1] = json!("gpu");
    assert_eq!(
        read(&v).unwrap().problems(),
        vec![Problem {
            field: "$.provenance.jobs[0].stages[1]".to_string(),
            reason: "unknown stage \"gpu\"; a job measures cpu, cpu_allcore, disk, internet, cache or http_cache"
                .to_string(),
        }]
    );
}

#[test]
fn a_job_explains_its_own_stages_and_trial_when_it_did_not_succeed() {
    let r = read(&with_binary_and_jobs()).unwrap();
    let (measure, restore) = (&r.provenance.jobs[0], &r.provenance.jobs[1]);
    // Succeeded: explains nothing.
    assert!(!measure.explains("cpu", None));
    assert!(restore.explains("cache", Some(2)));
    assert!(!restore.explains("cache", Some(1)));
    assert!(!restore.explains("cpu", None));
    let mut any_trial = restore.clone();
    any_trial.trial = None;
    assert!(any_trial.explains("cache", Some(1)));
}
