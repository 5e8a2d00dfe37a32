//! `collector assemble --run-jobs`: the signing job's assembly against
//! GitHub's record of the run. The record is read from response pages of
//! GitHub's jobs API in tests/fixtures/run-record/, a double written after
//! GitHub's published description of the endpoint (the API cannot be
//! reached here); the parts are the format's golden result split into the
//! jobs that write them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{collector, valid_measured};
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/run-record").join(name)
}

fn golden() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A part as job `job` of attempt `attempt` on `runner` writes it in run
/// 4242: the golden result with that job's stages only (the cache stage's
/// trial 1, its restores only in the restore job's part).
fn part(job: &str, attempt: u32, runner: &str) -> Value {
    let mut v = golden();
    let gh = &mut v["provenance"]["github"];
    gh["repository"] = json!("example-org/runner-bench-caller");
    gh["run_id"] = json!(4242);
    gh["run_attempt"] = json!(attempt);
    gh["job"] = json!(job);
    gh["runner_name"] = json!(runner);
    let stages = v["stages"].as_object_mut().unwrap();
    if job == "measure" {
        stages.remove("cache");
        return v;
    }
    stages.retain(|k, _| k == "cache");
    let pairs = v["stages"]["cache"]["pairs"].as_array_mut().unwrap();
    pairs.retain(|p| p["trial"] == 1);
    if job.starts_with("save-") {
        for p in pairs.iter_mut() {
            let p = p.as_object_mut().unwrap();
            for field in ["restore", "verification", "publication_gap_s"] {
                p.remove(field);
            }
        }
    }
    v["notices"] = json!([]);
    v
}

/// The parts of the happy path: measure and save-1 from attempt 1, the
/// re-run restore-1 from attempt 2.
fn parts() -> Vec<(&'static str, Value)> {
    vec![
        ("part-measure.json", part("measure", 1, "runner-m")),
        ("part-save-1.json", part("save-1", 1, "runner-a")),
        ("part-restore-1.json", part("restore-1", 2, "runner-c")),
    ]
}

fn pages() -> Vec<Value> {
    ["jobs-page-1.json", "jobs-page-2.json"]
        .iter()
        .map(|p| serde_json::from_slice(&std::fs::read(fixture(p)).unwrap()).unwrap())
        .collect()
}

/// `collector assemble` in a fresh folder holding `parts` and `pages`
/// (written as jobs-page-N.json), with the signing job's flags; `extra`
/// replaces or adds flags.
fn assemble(dir: &Path, parts: &[(&str, Value)], pages: &[Value], extra: &[&str]) -> Command {
    for (name, v) in parts {
        std::fs::write(dir.join(name), serde_json::to_vec_pretty(v).unwrap()).unwrap();
    }
    let mut cmd = collector();
    cmd.current_dir(dir).args(["assemble", "--out", "result.json"]);
    for (i, page) in pages.iter().enumerate() {
        let name = format!("jobs-page-{}.json", i + 1);
        std::fs::write(dir.join(&name), serde_json::to_vec_pretty(page).unwrap()).unwrap();
        cmd.args(["--run-jobs", &name]);
    }
    let flag = |name: &str, default: &str| {
        extra.iter().position(|e| *e == name).map_or(default.to_string(), |i| extra[i + 1].to_string())
    };
    cmd.args(["--run-repository", &flag("--run-repository", "example-org/runner-bench-caller")])
        .args(["--run-id", &flag("--run-id", "4242")])
        .args(["--run-attempt", &flag("--run-attempt", "2")])
        .args(["--signing-runner", &flag("--signing-runner", "GitHub Actions 7")]);
    cmd.args(parts.iter().map(|(name, _)| *name));
    cmd
}

fn refusal(parts: &[(&str, Value)], pages: &[Value], extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = assemble(dir.path(), parts, pages, extra).output().unwrap();
    assert!(!out.status.success(), "expected a refusal; stdout: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!dir.path().join("result.json").exists(), "a refused assembly wrote its result");
    let err = String::from_utf8(out.stderr).unwrap();
    err.strip_prefix("error: ").and_then(|e| e.strip_suffix('\n')).unwrap_or(&err).to_string()
}

#[test]
fn the_record_of_the_call_is_written_and_names_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let out = assemble(dir.path(), &parts(), &pages(), &[]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = valid_measured(&dir.path().join("result.json"));
    let record = r.provenance.run_record.as_ref().unwrap();
    assert_eq!(
        (record.repository.as_str(), record.run_id, record.run_attempt),
        ("example-org/runner-bench-caller", 4242, 2)
    );
    // This call's jobs of both attempts, in the pages' order: not the
    // caller's lint, not the other call's measure, not the signing jobs.
    let listed: Vec<(&str, u32, Option<&str>, Option<&str>)> = record
        .jobs
        .iter()
        .map(|j| {
            (j.job.as_str(), j.attempt, j.runner_name.as_ref().map(|r| r.as_str()), j.conclusion.map(|c| c.name()))
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("measure", 1, Some("runner-m"), Some("success")),
            ("save-1", 1, Some("runner-a"), Some("success")),
            ("gap-1", 1, Some("GitHub Actions 5"), Some("success")),
            ("restore-1", 1, Some("runner-b"), Some("failure")),
            ("restore-1", 2, Some("runner-c"), Some("success")),
        ]
    );
    let measure = &record.jobs[0];
    assert_eq!(measure.name.as_str(), "benchmark / measure: CPU, disk and internet");
    assert_eq!(measure.labels.iter().map(|l| l.as_str()).collect::<Vec<_>>(), ["example-linux-x64"]);
    assert_eq!(measure.runner_group_name.as_ref().map(|g| g.as_str()), Some("Default"));
    assert_eq!(
        (measure.created_at.as_str(), measure.started_at.as_str(), measure.completed_at.as_ref().map(|t| t.as_str())),
        ("2026-11-29T09:59:40Z", "2026-11-29T09:59:55Z", Some("2026-11-29T10:04:30Z"))
    );
    assert_eq!(measure.queue_s(), 15.0);
    // The run GitHub recorded names the result: the signing job's attempt.
    let gh = r.provenance.github.as_ref().unwrap();
    assert_eq!((gh.repository.as_str(), gh.run_id, gh.run_attempt), ("example-org/runner-bench-caller", 4242, 2));
    // Every part's stages are in it.
    let cache = r.stages.cache.as_ref().unwrap();
    assert!(r.stages.cpu.is_some() && cache.pairs.len() == 2 && cache.pairs.iter().all(|p| p.restore.is_some()));
}

#[test]
fn parts_naming_another_run_are_refused() {
    let mut parts = parts();
    parts[1].1["provenance"]["github"]["run_id"] = json!(4243);
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-save-1.json: it is from run 4243 of example-org/runner-bench-caller, not run 4242 of \
         example-org/runner-bench-caller (--run-id, --run-repository); only that run's parts can be assembled"
    );
    let mut parts = self::parts();
    parts[0].1["provenance"]["github"]["repository"] = json!("someone/fork");
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-measure.json: it is from run 4242 of someone/fork, not run 4242 of example-org/runner-bench-caller \
         (--run-id, --run-repository); only that run's parts can be assembled"
    );
    let mut parts = self::parts();
    parts[0].1["provenance"].as_object_mut().unwrap().remove("github");
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-measure.json: it records no GitHub Actions run (provenance.github is absent), but the result is \
         assembled for run 4242 of example-org/runner-bench-caller; every part must come from a job of that run"
    );
}

#[test]
fn a_part_whose_attempt_and_runner_the_record_lacks_is_refused() {
    let mut parts = parts();
    parts[1].1 = part("save-1", 2, "evil-1");
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-save-1.json: job save-1, attempt 2, runner \"evil-1\" is not in GitHub's record of run 4242 (its save-1 \
         jobs: attempt 1 on \"runner-a\")"
    );
    // The right runner in another attempt is no match either.
    parts[1].1 = part("save-1", 2, "runner-a");
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-save-1.json: job save-1, attempt 2, runner \"runner-a\" is not in GitHub's record of run 4242 (its \
         save-1 jobs: attempt 1 on \"runner-a\")"
    );
    let mut parts = self::parts();
    parts[2].1 = part("restore-1", 2, "runner-b");
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-restore-1.json: job restore-1, attempt 2, runner \"runner-b\" is not in GitHub's record of run 4242 \
         (its restore-1 jobs: attempt 1 on \"runner-b\", attempt 2 on \"runner-c\")"
    );
    // A job the call does not have: the other call's measure is not this
    // call's.
    let mut parts = self::parts();
    parts[0].1 = part("measure", 1, "runner-x");
    parts[0].1["provenance"]["github"]["job"] = json!("save-2");
    parts[0].1["stages"] = json!({});
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-measure.json: job save-2, attempt 1, runner \"runner-x\" is not in GitHub's record of run 4242 (it has \
         no save-2 job)"
    );
}

#[test]
fn parts_of_an_earlier_attempt_that_the_record_has_are_accepted() {
    // The happy path's measure and save-1 parts are attempt 1's, kept by
    // "Re-run failed jobs"; attempt 1's failed restore part is accepted as
    // well, by its own attempt's job.
    let mut parts = parts();
    parts[2].1 = part("restore-1", 1, "runner-b");
    let dir = tempfile::tempdir().unwrap();
    let out = assemble(dir.path(), &parts, &pages(), &[]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = valid_measured(&dir.path().join("result.json"));
    assert_eq!(r.provenance.github.unwrap().run_attempt, 2);
}

#[test]
fn a_save_that_finished_outside_its_save_job_is_refused() {
    let mut parts = parts();
    for (_, v) in parts.iter_mut().skip(1) {
        v["stages"]["cache"]["pairs"][0]["save"]["started_at"] = json!("2026-11-29T10:06:00Z");
    }
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-save-1.json: $.stages.cache.pairs[0] (trial 1, backend github) finished its save at \
         2026-11-29T10:06:07.76Z, outside its save job in GitHub's record of run 4242: save-1 attempt 1 ran from \
         2026-11-29T10:04:50Z to 2026-11-29T10:05:40Z"
    );
    // The restore part's copy of the save is held to the save job too.
    let mut parts = self::parts();
    parts[2].1["stages"]["cache"]["pairs"][1]["save"]["started_at"] = json!("2026-11-29T10:04:40Z");
    parts[2].1["stages"]["cache"]["pairs"][1]["save"]["seconds"] = json!(1.5);
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-restore-1.json: $.stages.cache.pairs[1] (trial 1, backend volume) finished its save at \
         2026-11-29T10:04:41.5Z, outside its save job in GitHub's record of run 4242: save-1 attempt 1 ran from \
         2026-11-29T10:04:50Z to 2026-11-29T10:05:40Z"
    );
}

#[test]
fn a_restore_job_that_started_within_the_gap_is_refused() {
    let mut pages = pages();
    let restore = pages[1]["jobs"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|j| j["name"] == "benchmark / restore-1: cache trial 1, restore" && j["run_attempt"] == 2)
        .unwrap();
    restore["created_at"] = json!("2026-11-29T10:05:50Z");
    restore["started_at"] = json!("2026-11-29T10:06:00Z");
    assert_eq!(
        refusal(&parts(), &pages, &[]),
        "part-restore-1.json: job restore-1 (attempt 2) started at 2026-11-29T10:06:00Z, 51.2 s after trial 1's save \
         finished at 2026-11-29T10:05:08.76Z (GitHub's record of run 4242); the profile's publication gap is 120 s \
         (parameters.cache_publication_gap_s), and a restore job starts after it"
    );
}

#[test]
fn cache_pairs_come_from_their_trials_save_and_restore_jobs() {
    let mut parts = parts();
    parts[0].1["stages"]["cache"] = parts[2].1["stages"]["cache"].clone();
    assert_eq!(
        refusal(&parts, &pages(), &[]),
        "part-measure.json: $.stages.cache.pairs[0] is of trial 1, but the part comes from job measure; trial 1's \
         pairs come from its save-1 and restore-1 jobs"
    );
}

#[test]
fn the_signing_job_must_find_itself_in_the_record() {
    assert_eq!(
        refusal(&parts(), &pages(), &["--signing-runner", "GitHub Actions 8"]),
        "--run-jobs: GitHub's record of run 4242 has no job \"sign: assemble and attest the result\" of attempt 2 in \
         progress on runner \"GitHub Actions 8\" (--signing-runner); the signing job reads the jobs of its own run, \
         every attempt (?filter=all)"
    );
    // Attempt 1's signing job was skipped, not in progress.
    assert_eq!(
        refusal(&parts(), &pages(), &["--run-attempt", "1"]),
        "--run-jobs: GitHub's record of run 4242 has no job \"sign: assemble and attest the result\" of attempt 1 in \
         progress on runner \"GitHub Actions 7\" (--signing-runner); the signing job reads the jobs of its own run, \
         every attempt (?filter=all)"
    );
    assert_eq!(
        refusal(&parts(), &pages(), &["--run-id", "4243"]),
        "jobs-page-1.json: jobs[0] (job id 30433642017) is of run 4242, not run 4243 (--run-id); give the pages of \
         the signing job's own run"
    );
}

#[test]
fn a_record_without_the_calls_jobs_or_with_a_page_missing_is_refused() {
    let mut pages = pages();
    for page in &mut pages {
        page["jobs"].as_array_mut().unwrap().retain(|j| {
            let name = j["name"].as_str().unwrap();
            !name.starts_with("benchmark / ") || name.contains("sign: ")
        });
    }
    let left = pages.iter().map(|p| p["jobs"].as_array().unwrap().len()).sum::<usize>();
    for page in &mut pages {
        page["total_count"] = json!(left);
    }
    assert_eq!(
        refusal(&parts(), &pages, &[]),
        "--run-jobs: GitHub's record of run 4242 has no job of this benchmark call (named \"benchmark / measure: …\", \
         \"benchmark / save-N: …\", \"benchmark / gap-N: …\" or \"benchmark / restore-N: …\")"
    );
    assert_eq!(
        refusal(&parts(), &self::pages()[..1], &[]),
        "--run-jobs: the pages hold 5 jobs but GitHub counts 9 (total_count); give every page of the response"
    );
}

#[test]
fn a_part_carrying_a_run_record_is_refused_with_or_without_the_flags() {
    let with_record: Value = serde_json::from_slice(
        &std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1-run-record.json"))
            .unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("part.json"), serde_json::to_vec(&with_record).unwrap()).unwrap();
    let out = collector().current_dir(dir.path()).args(["assemble", "--out", "m.json", "part.json"]).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: part.json: it carries provenance.run_record; a part is one job's file, and only assembly writes \
         GitHub's record of the run\n"
    );
}

#[test]
fn without_the_run_flags_assembly_writes_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<&str> = parts().iter().map(|(n, _)| *n).collect();
    for (name, v) in parts() {
        std::fs::write(dir.path().join(name), serde_json::to_vec(&v).unwrap()).unwrap();
    }
    let out = collector().current_dir(dir.path()).args(["assemble", "--out", "m.json"]).args(&names).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = valid_measured(&dir.path().join("m.json"));
    assert_eq!(r.provenance.run_record, None);
    // The parts' latest attempt names the result, as before.
    assert_eq!(r.provenance.github.unwrap().run_attempt, 2);
}
