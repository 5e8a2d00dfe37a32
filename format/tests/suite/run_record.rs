//! `provenance.run_record`: GitHub's record of a benchmark call's jobs.
//! Optional, so files without it stay valid; where present, it agrees with
//! itself and with `provenance.github`, each problem named by its JSON path.

use std::path::Path;

use runner_bench_format::measured::{JobConclusion, MeasuredResult};
use runner_bench_format::{AnyResult, Problem, from_slice};
use serde_json::{Value, json};

fn golden() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/result-v1-run-record.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn read(value: &Value) -> Result<MeasuredResult, String> {
    match from_slice(&serde_json::to_vec_pretty(value).unwrap(), Path::new("results/x.json")) {
        Ok(AnyResult::Measured(r)) => Ok(*r),
        Ok(AnyResult::Imported(_)) => panic!("golden is measured"),
        Err(e) => Err(e.to_string()),
    }
}

fn problems(value: &Value) -> Vec<Problem> {
    read(value).unwrap().problems()
}

fn problem(field: &str, reason: &str) -> Problem {
    Problem { field: field.to_string(), reason: reason.to_string() }
}

#[test]
fn queue_time_is_started_at_less_created_at() {
    let r = read(&golden()).unwrap();
    let record = r.provenance.run_record.unwrap();
    assert_eq!(record.jobs[0].queue_s(), 15.0);
    assert_eq!(record.jobs[1].trial(), Some(1));
    assert_eq!(record.jobs[0].trial(), None);
    // A record whose start precedes its creation is a problem (below); the
    // queue time still never reads below 0.
    let mut v = golden();
    v["provenance"]["run_record"]["jobs"][0]["started_at"] = json!("2026-11-29T09:59:00Z");
    let r = read(&v).unwrap();
    assert_eq!(r.provenance.run_record.unwrap().jobs[0].queue_s(), 0.0);
}

#[test]
fn runner_completion_and_conclusion_are_optional_as_in_githubs_api() {
    let mut v = golden();
    let job = v["provenance"]["run_record"]["jobs"][4].as_object_mut().unwrap();
    for field in ["runner_name", "runner_group_name", "completed_at", "conclusion"] {
        job.remove(field);
    }
    let r = read(&v).unwrap();
    assert_eq!(r.problems(), vec![]);
    let gap = &r.provenance.run_record.unwrap().jobs[4];
    assert_eq!((gap.runner_name.as_ref(), gap.completed_at.as_ref(), gap.conclusion), (None, None, None));
}

#[test]
fn conclusions_are_githubs_documented_words() {
    for (i, word) in ["success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required"]
        .into_iter()
        .enumerate()
    {
        let mut v = golden();
        v["provenance"]["run_record"]["jobs"][0]["conclusion"] = json!(word);
        let r = read(&v).unwrap();
        assert_eq!(r.provenance.run_record.unwrap().jobs[0].conclusion, Some(JobConclusion::ALL[i]));
        assert_eq!(JobConclusion::ALL[i].name(), word);
    }
    let mut v = golden();
    v["provenance"]["run_record"]["jobs"][0]["conclusion"] = json!("stale");
    assert_eq!(
        read(&v).unwrap_err(),
        "results/x.json: $.provenance.run_record.jobs[0].conclusion: unknown variant `stale`, expected one of \
         `success`, `failure`, `neutral`, `cancelled`, `skipped`, `timed_out`, `action_required` at line 105 column \
         31"
    );
}

#[test]
fn unknown_fields_are_refused() {
    let mut v = golden();
    v["provenance"]["run_record"]["jobs"][0]["steps"] = json!([]);
    let err = read(&v).unwrap_err();
    assert!(
        err.starts_with(
            "results/x.json: $.provenance.run_record.jobs[0].steps: unknown field `steps`, expected one of"
        ),
        "{err}"
    );
}

#[test]
fn attempts_count_from_1_up_to_the_runs() {
    let mut v = golden();
    v["provenance"]["run_record"]["jobs"][1]["attempt"] = json!(0);
    v["provenance"]["run_record"]["jobs"][2]["attempt"] = json!(2);
    assert_eq!(
        problems(&v),
        [
            problem("$.provenance.run_record.jobs[1].attempt", "is 0; GitHub counts a run's attempts from 1"),
            problem(
                "$.provenance.run_record.jobs[2].attempt",
                "attempt 2 is after the run's attempt 1 (run_record.run_attempt); the record is read in the run's \
                 latest attempt"
            ),
        ]
    );
}

#[test]
fn times_follow_one_another() {
    let mut v = golden();
    v["provenance"]["run_record"]["jobs"][0]["started_at"] = json!("2026-11-29T09:59:39Z");
    v["provenance"]["run_record"]["jobs"][1]["completed_at"] = json!("2026-11-29T10:04:49Z");
    assert_eq!(
        problems(&v),
        [
            problem("$.provenance.run_record.jobs[0].started_at", "is earlier than created_at"),
            problem("$.provenance.run_record.jobs[1].completed_at", "is earlier than started_at"),
        ]
    );
}

#[test]
fn jobs_are_benchmark_jobs_named_as_github_names_them_and_listed_once_per_attempt() {
    let mut v = golden();
    v["provenance"]["run_record"]["jobs"][0]["job"] = json!("sign");
    v["provenance"]["run_record"]["jobs"][1]["name"] = json!("benchmark / save-2: cache trial 2, save");
    v["provenance"]["run_record"]["jobs"][2]["job"] = json!("save-1");
    v["provenance"]["run_record"]["jobs"][2]["name"] = json!("save-1: cache trial 1, save");
    assert_eq!(
        problems(&v),
        [
            problem(
                "$.provenance.run_record.jobs[0].job",
                "\"sign\" is not a measuring job of benchmark.yml (measure, save-N, gap-N, restore-N)"
            ),
            problem(
                "$.provenance.run_record.jobs[1].name",
                "\"benchmark / save-2: cache trial 2, save\" is not the name of job save-1; GitHub names it \"save-1: \
                 <description>\", after the calling job's name and \" / \" in a called workflow"
            ),
            problem(
                "$.provenance.run_record.jobs[2]",
                "job save-1 of attempt 1 is listed twice; a job runs once in each attempt"
            ),
        ]
    );
}

#[test]
fn the_record_is_of_the_run_the_file_names() {
    let mut v = golden();
    v["provenance"]["github"]["run_id"] = json!(7);
    v["provenance"]["github"]["run_attempt"] = json!(2);
    v["provenance"]["github"]["repository"] = json!("someone/fork");
    assert_eq!(
        problems(&v),
        [
            problem(
                "$.provenance.github.repository",
                "is someone/fork but run_record.repository is runner-bench/runner-bench; the file names the run \
                 GitHub's record is of"
            ),
            problem(
                "$.provenance.github.run_id",
                "is 7 but run_record.run_id is 18342215517; the file names the run GitHub's record is of"
            ),
            problem(
                "$.provenance.github.run_attempt",
                "is 2 but run_record.run_attempt is 1; the file names the run GitHub's record is of"
            ),
        ]
    );
    let mut v = golden();
    v["provenance"].as_object_mut().unwrap().remove("github");
    assert_eq!(
        problems(&v),
        [problem("$.provenance.github", "required with run_record: the file names the run whose record it carries")]
    );
    let mut v = golden();
    v["provenance"]["run_record"]["run_attempt"] = json!(0);
    v["provenance"]["github"]["run_attempt"] = json!(0);
    v["provenance"]["run_record"]["jobs"] = json!([]);
    assert_eq!(
        problems(&v),
        [problem("$.provenance.run_record.run_attempt", "is 0; GitHub counts a run's attempts from 1")]
    );
}
