//! The collector's own record of a run a signal interrupted: `site check`
//! treats it as incomplete (docs/result-format.md, "The collector's own output").

use crate::common::*;
use runner_bench_format::measured::{INTERRUPTED_NOTICE, INTERRUPTED_SAMPLE};
use serde_json::json;

/// The golden result as the collector leaves it when a signal stops CPU
/// sample `k` (of 5): the samples before it, that one as an error, and the
/// interruption's notice (at index 2, after the golden's two).
fn interrupted_at_cpu_sample(k: usize) -> serde_json::Value {
    let mut v = golden();
    let samples = v["stages"]["cpu"]["samples"].as_array_mut().unwrap();
    samples.truncate(k - 1);
    samples.push(json!({
        "status": "error",
        "message": INTERRUPTED_SAMPLE,
        "affinity": {"mode": "pinned", "cpu": 1, "group": 0}
    }));
    v["notices"].as_array_mut().unwrap().push(json!({
        "stage": "cpu",
        "message": format!(
            "{INTERRUPTED_NOTICE} during sample {k} of 5, which is recorded as not completed; the samples and stages \
             after it did not run"
        )
    }));
    v
}

const REFUSED: &str = "the collector recorded that a signal interrupted the run (stage \"cpu\"), so the stage and \
                       every stage after it are incomplete; no job in provenance.jobs that measures \"cpu\" ended \
                       without success to explain it; an interrupted run is not accepted: run the collector again to \
                       the end";

#[test]
fn an_interrupted_run_is_refused_with_its_shortfall() {
    assert_eq!(
        problems_of(&interrupted_at_cpu_sample(2)),
        [
            golden_problem(
                "$.stages.cpu.samples",
                "2 of 5 requested samples attempted (parameters.cpu_samples); every requested sample is attempted, \
                 including after a sample timeout"
            ),
            golden_problem("$.notices[2]", REFUSED),
        ]
    );
}

#[test]
fn a_run_interrupted_at_a_stages_last_sample_is_refused_too() {
    // Every CPU sample is there; what the signal cost is the stages after.
    assert_eq!(problems_of(&interrupted_at_cpu_sample(5)), [golden_problem("$.notices[2]", REFUSED)]);
}

#[test]
fn a_cancelled_job_explains_the_interruption() {
    let mut v = interrupted_at_cpu_sample(5);
    v["provenance"]["jobs"] =
        json!([{"job": "measure", "conclusion": "cancelled", "stages": ["cpu", "disk", "internet"]}]);
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &v);
    let runs = accepted(dir.path());
    let notes: Vec<(&str, &str)> = runs[0].notes.iter().map(|n| (n.field.as_str(), n.reason.as_str())).collect();
    assert_eq!(
        notes,
        [(
            "$.notices[2]",
            "interrupted by a signal (stage \"cpu\"); the missing ones count as attempted and not completed: job \
             measure ended with conclusion cancelled"
        )]
    );
    // A job that succeeded explains nothing.
    v["provenance"]["jobs"][0]["conclusion"] = json!("success");
    let problems = problems_of(&v);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].2,
        "the collector recorded that a signal interrupted the run (stage \"cpu\"), so the stage and every stage \
         after it are incomplete; no job in provenance.jobs that measures \"cpu\" ended without success to \
         explain it; an interrupted run is not accepted: run the collector again to the end"
    );
}

#[test]
fn other_notices_are_not_interruptions() {
    let mut v = golden();
    v["notices"]
        .as_array_mut()
        .unwrap()
        .push(json!({"stage": "cpu", "message": "the runner was interrupted by nothing"}));
    assert_eq!(problems_of(&v), []);
}
