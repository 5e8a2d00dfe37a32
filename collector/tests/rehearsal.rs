//! The rehearsal: the jobs of the benchmark workflow
//! (.github/workflows/benchmark.yml) run on this machine, in the workflow's
//! order, by a small runner that reads the job graph and every step from
//! the workflow file itself (tests/support/workflow). Each job runs in a
//! simulated OS instance of its own, as on GitHub, so the cache trials'
//! save and restore run on different "runners".
//!
//! What GitHub would provide is on loopback: the GitHub Actions cache
//! service (its test double over Azurite, tests/support/azurite.rs), a
//! LibreSpeed server (tests/librespeed), and the collector release that
//! scripts/collector.sh downloads and verifies (the binary under test and
//! its SHA256SUMS, served by http.rs). The result is checked and rendered
//! by the site's code.
//!
//! Needs root (mount namespaces), node with `npm ci --prefix
//! tests/cache-service`, nginx, php-fpm, openssl and curl: scripts/test.sh
//! installs them.

#[path = "support/workflow/mod.rs"]
mod workflow;

use std::path::{Path, PathBuf};
use std::process::Command;

use workflow::Workflow;
use workflow::run::{Conclusion, Fault, Run, Settings};

/// The repository: the working tree `actions/checkout` copies.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("collector/ has a parent").to_path_buf()
}

fn head_sha() -> String {
    let out = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(repo()).output().unwrap();
    assert!(out.status.success(), "git rev-parse HEAD: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn settings(root: &Path) -> Settings {
    Settings {
        repo: repo(),
        root: root.to_path_buf(),
        inputs: Vec::new(),
        secrets: Vec::new(),
        runner_env: Vec::new(),
        js_env: Vec::new(),
        repository: "rehearsal/caller".into(),
        run_id: 4242,
        sha: head_sha(),
        faults: Vec::new(),
        stop_after: None,
    }
}

/// Step `(name, outcome, conclusion)` of a job, in order.
fn steps(run: &Run, job: &str) -> Vec<(String, &'static str, &'static str)> {
    run.job(job).steps.iter().map(|s| (s.name.clone(), s.outcome.as_str(), s.conclusion.as_str())).collect()
}

fn step(name: &str, outcome: &'static str, conclusion: &'static str) -> (String, &'static str, &'static str) {
    (name.to_string(), outcome, conclusion)
}

// ------------------------------------------------ the runner, on a fixture

#[test]
fn the_runner_runs_its_fixture_as_github_would() {
    let dir = tempfile::tempdir().unwrap();
    let wf =
        Workflow::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rehearsal-engine.yml")).unwrap();
    let mut s = settings(dir.path());
    s.secrets = pairs(&[("token", "s3cret-value")]);
    s.js_env =
        pairs(&[("ACTIONS_RUNTIME_TOKEN", "rehearsal-runtime-token"), ("ACTIONS_RESULTS_URL", "http://127.0.0.1:9/")]);
    let run = workflow::run::run(&wf, &s).unwrap();
    eprintln!("{}", run.table());
    assert_eq!(
        run.conclusions(),
        [
            ("produce", "success"),
            ("consume", "failure"),
            ("after-failure", "skipped"),
            ("always", "success"),
            ("transitive", "skipped"),
            ("not-cancelled", "success"),
            ("slow", "failure"),
        ],
        "{}",
        run.job("consume").log()
    );

    let produce = run.job("produce");
    assert_eq!(produce.runs_on, ["self-hosted", "hello"]);
    assert_eq!(produce.outputs["saved-at"], "12:00");
    assert_eq!(produce.outputs["body"], "line 1\nline 2");
    assert_eq!(produce.outputs["js"], r#"{"n":1}"#);
    assert_eq!(produce.summary, "## produced\n");
    assert_eq!(
        steps(&run, "produce"),
        [
            step("Check out the scripts", "success", "success"),
            step("Sparse cone checkout", "success", "success"),
            step("Run echo \"saved-at=12:00\" >> \"$GITHUB_OUTPUT\"", "success", "success"),
            step("What a run step sees", "success", "success"),
            step("No pipefail without shell bash", "success", "success"),
            step("Pipefail with shell bash", "failure", "success"),
            step("Run actions/github-script", "success", "success"),
            step("Masked", "success", "success"),
            step(
                "Run echo \"boot-id=$(cat /proc/sys/kernel/random/boot_id)\" >> \"$GITHUB_OUTPUT\"",
                "success",
                "success"
            ),
            step("Write a note", "success", "success"),
            step("Keep the note", "success", "success"),
            step("Only on failure", "skipped", "skipped"),
        ]
    );
    assert!(
        produce.steps[0].notes[0].starts_with("checkout of rehearsal/caller at vquiet simulated: "),
        "{:?}",
        produce.steps[0].notes
    );
    // Step env over job env over workflow env; GITHUB_ENV and GITHUB_PATH
    // reach the later steps; run: steps never see the runtime token.
    assert_eq!(produce.step("out").log, "shadowed=step workflow=from-workflow trial=1\n");
    assert_eq!(
        produce.step("What a run step sees").log,
        "exported=yes shadowed=job tool=tool ran\ntoken=unset url=unset\n\
         actions=true ci=true os=Linux arch=X64 job=produce cwd=scripts\n"
    );
    assert_eq!(produce.step("Pipefail with shell bash").log, "##[error]Process completed with exit code 1.\n");
    // The token reached the script, which masked it; secrets are masked too.
    assert_eq!(produce.step("Masked").log, "token=*** secret=*** from-js=js encoding=json\n");

    // Every job its own OS instance.
    let instance = produce.instance.as_ref().unwrap();
    assert_eq!(produce.outputs["boot-id"], instance.boot_id.as_str());
    assert_eq!(produce.outputs["machine-id"], instance.machine_id.as_str());
    assert_ne!(run.job("not-cancelled").outputs["boot-id"], instance.boot_id.as_str());
    let host = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    assert_ne!(host.trim(), instance.boot_id);

    assert_eq!(
        steps(&run, "consume"),
        [
            step("Get the artifact", "success", "success"),
            step("Check what came", "success", "success"),
            step("Run exit 3", "failure", "success"),
            step("Run exit 1", "failure", "failure"),
            step("Skipped after a failure", "skipped", "skipped"),
            step("Cleanup runs anyway", "success", "success"),
            step("Runs on failure", "success", "success"),
        ]
    );
    assert_eq!(run.job("consume").step("Cleanup runs anyway").log, "tolerated=failure/success broken=failure\n");

    let always = run.job("always");
    assert!(Path::new(always.outputs["attested"].as_str().unwrap()).is_file());
    assert!(always.step("Unknown action").log.contains("actions/cache is not an action the rehearsal can simulate"));

    let slow = run.job("slow");
    assert!(slow.seconds < 10.0, "the timeout of 0.02 minutes ended the job after {} s", slow.seconds);
    assert_eq!(
        slow.steps[0].log,
        "##[error]The job has exceeded the maximum execution time of 0.02 minutes (timeout-minutes).\n"
    );
    assert_eq!(slow.steps[1].outcome, Conclusion::Skipped);
}

#[test]
fn what_the_runner_cannot_evaluate_stops_the_rehearsal_naming_where() {
    let dir = tempfile::tempdir().unwrap();
    let text = "on: { workflow_call: {} }\njobs:\n  a:\n    runs-on: x\n    steps:\n      - id: collector\n        run: echo\n      - name: Use it\n        env: { COLLECTOR: '${{ steps.colector.outputs.path }}' }\n        run: echo\n";
    let wf = Workflow::parse(text, Path::new("typo.yml")).unwrap();
    let err = workflow::run::run(&wf, &settings(dir.path())).unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        "job a: step 2 (Use it): env.COLLECTOR: `${{ steps.colector.outputs.path }}`: steps.colector does not exist"
    );
}

#[test]
fn faults_are_injected_where_asked() {
    let dir = tempfile::tempdir().unwrap();
    let wf =
        Workflow::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rehearsal-engine.yml")).unwrap();
    let mut s = settings(dir.path());
    s.faults = vec![
        Fault::ShareInstance { job: "not-cancelled".into(), with: "produce".into() },
        Fault::LoseRunner { job: "slow".into() },
    ];
    let run = workflow::run::run(&wf, &s).unwrap();
    let produce = run.job("produce");
    assert_eq!(run.job("not-cancelled").outputs["boot-id"], produce.instance.as_ref().unwrap().boot_id.as_str());
    assert!(produce.workspace.as_ref().unwrap().join("note.txt").is_file());
    // The lost runner's first step failed without running; the `always()`
    // step after it ran.
    let slow = run.job("slow");
    assert_eq!(slow.conclusion, Conclusion::Failure);
    assert_eq!(
        slow.steps[0].log,
        "rehearsal: the runner of this job was lost (injected failure); the step did not run\n"
    );
    assert_eq!(slow.steps[1].log, "after the timeout\n");
}

// ------------------------------------------ the benchmark workflow

fn benchmark_workflow() -> Workflow {
    Workflow::load(&repo().join(".github/workflows/benchmark.yml")).unwrap()
}

#[test]
fn every_action_of_the_workflow_is_pinned_to_a_commit() {
    // Loading refuses a `uses:` whose ref is not 40 hex digits; this lists
    // what the workflow uses, so a new action shows here.
    let wf = benchmark_workflow();
    let mut used: Vec<&str> = wf.actions().iter().map(|(_, a)| a.name.as_str()).collect();
    used.sort_unstable();
    used.dedup();
    assert_eq!(
        used,
        [
            "actions/attest-build-provenance",
            "actions/checkout",
            "actions/download-artifact",
            "actions/github-script",
            "actions/upload-artifact"
        ]
    );
    assert!(wf.actions().iter().all(|(_, a)| a.sha.len() == 40));
    let order: Vec<&str> = wf.order().unwrap().iter().map(|j| j.id.as_str()).collect();
    assert_eq!(
        order,
        [
            "measure",
            "save-1",
            "gap-1",
            "restore-1",
            "save-2",
            "gap-2",
            "restore-2",
            "save-3",
            "gap-3",
            "restore-3",
            "assemble",
            "submit"
        ]
    );
}
