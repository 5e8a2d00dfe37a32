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
//! installs them. With REHEARSAL_KEEP=1 the rehearsals' folders (every
//! job's workspace, logs and the artifacts) are kept and their paths printed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workflow::{self, CacheFront, Conclusion, Fault, FileServer, JobReport, Run, Settings, Workflow};
use crate::{azurite, librespeed_server, script};
use clap::Parser as _;
use runner_bench_format::Affinity;
use runner_bench_format::measured::{CacheMethod, DigestCheck, KeyMatch, Observation, Status};
use runner_bench_format::{AnyResult, MeasuredResult, read_file};

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
        hosts: Vec::new(),
        repository: "rehearsal/caller".into(),
        run_id: 4242,
        sha: head_sha(),
        faults: Vec::new(),
        stop_after: None,
        // As a provider calls it: from a job of its own workflow.
        caller_job: Some(CALLER.into()),
        github_files: Vec::new(),
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
    let run = wf.run(&s).unwrap();
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
    assert!(always.outputs["attested"].as_str().unwrap().ends_with("/jobs/always/temp/attestation-1.json"));
    assert_eq!(always.step("attest").notes, ["attestation simulated for repo/scripts/collector.sh"]);
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
    let err = wf.run(&settings(dir.path())).unwrap_err();
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
    let run = wf.run(&s).unwrap();
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

/// The calling job's name in the rehearsals (GitHub lists the called
/// workflow's jobs as `benchmark / <job's name>`).
const CALLER: &str = "benchmark";

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
            "WarpBuilds/cache/restore",
            "WarpBuilds/cache/save",
            "actions/attest-build-provenance",
            "actions/cache/restore",
            "actions/cache/save",
            "actions/checkout",
            "actions/download-artifact",
            "actions/github-script",
            "actions/upload-artifact",
            "runs-on/cache/restore",
            "runs-on/cache/save"
        ]
    );
    assert!(wf.actions().iter().all(|(_, a)| a.sha.len() == 40));
    let order: Vec<&str> = wf.order().unwrap().iter().map(|j| j.id.as_str()).collect();
    assert_eq!(
        order,
        [
            "preflight",
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
            "sign",
            "submit"
        ]
    );
}

#[test]
fn the_sign_job_assembles_whatever_the_measuring_jobs_ended_but_never_without_preflight() {
    // The sign job's and submit's `if:` alone, by the rehearsal's
    // evaluator. The sign job signs whatever the inputs: what it signs says
    // which collector measured (the parts' binary digests, and a notice
    // where the inputs chose another source), and it assembles with the
    // release this workflow pins.
    let wf = benchmark_workflow();
    let dir = tempfile::tempdir().unwrap();
    let runs = |job: &str, inputs: &[(&str, &str)], ended: &[(&str, Conclusion)]| {
        let mut s = settings(dir.path());
        s.inputs = pairs(&[("runs-on", "rehearsal"), ("provider", PROVIDER), ("runner", RUNNER)]);
        s.inputs.extend(pairs(inputs));
        wf.job_runs(&s, job, ended).unwrap()
    };
    assert!(runs("sign", &[], &[]));
    assert!(runs("sign", &[("collector-ref", "main"), ("collector-source", "build")], &[]));
    // An incomplete result (a lost restore runner) is still assembled and
    // signed, and then submitted.
    assert!(runs("sign", &[], &[("restore-2", Conclusion::Failure)]));
    assert!(runs("sign", &[], &[("measure", Conclusion::Failure), ("save-1", Conclusion::Skipped)]));
    assert!(!runs("sign", &[], &[("preflight", Conclusion::Failure)]));
    // Nothing measures after a failed preflight, though the trials run
    // after a failed measure.
    assert!(!runs("measure", &[], &[("preflight", Conclusion::Failure)]));
    assert!(runs("save-1", &[], &[("measure", Conclusion::Failure)]));
    assert!(!runs("save-1", &[], &[("preflight", Conclusion::Failure), ("measure", Conclusion::Skipped)]));
    assert!(runs("submit", &[], &[]));
    assert!(!runs("submit", &[], &[("sign", Conclusion::Failure)]));
}

#[test]
fn runs_on_takes_a_label_a_json_label_list_or_a_group() {
    // Every job on the measured runner has the same runs-on, which the
    // rehearsal's evaluator reads as GitHub would.
    let wf = benchmark_workflow();
    let on_runner = ["measure", "save-1", "restore-1", "save-2", "restore-2", "save-3", "restore-3"];
    let text = &wf.job("measure").unwrap().runs_on[0];
    for id in on_runner {
        assert_eq!(wf.job(id).unwrap().runs_on, [text.as_str()], "{id}");
    }
    let eval = |given: &str| {
        let mut contexts = serde_json::Map::new();
        contexts.insert("inputs".into(), serde_json::json!({"runs-on": given}));
        workflow::evaluate(text, &contexts).unwrap()
    };
    assert_eq!(eval("my-runner"), serde_json::json!("my-runner"));
    assert_eq!(eval(r#"["self-hosted", "linux", "x64"]"#), serde_json::json!(["self-hosted", "linux", "x64"]));
    assert_eq!(
        eval(r#"{"group": "my-group", "labels": ["linux"]}"#),
        serde_json::json!({"group": "my-group", "labels": ["linux"]})
    );
}

/// A release manifest (content/releases/README.md) of the binary under
/// test, as upstream would have committed it.
fn release_manifest(version: &str, sha256: &str) -> String {
    format!(
        "tag = \"v{version}\"\nversion = \"{version}\"\npublished = \"2026-12-01\"\nrepository = \"runner-bench/runner-bench\"\n\
         workflow_commit = \"{}\"\n\n[[binaries]]\ntarget = \"x86_64-unknown-linux-gnu\"\n\
         file = \"collector-x86_64-unknown-linux-gnu\"\nsha256 = \"{sha256}\"\n",
        head_sha()
    )
}

const PROVIDER: &str = "rehearsal";
const RUNNER: &str = "rehearsal-linux-x64";

/// What GitHub would provide, on loopback, for one rehearsal.
struct Stage {
    // Dropped in this order: the front before the double behind it.
    _front: CacheFront,
    _cache: azurite::Services,
    _librespeed: librespeed_server::Server,
    _release: FileServer,
    dir: tempfile::TempDir,
    settings: Settings,
}

impl Drop for Stage {
    fn drop(&mut self) {
        if std::env::var_os("REHEARSAL_KEEP").is_some() {
            let kept = std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap()).keep();
            eprintln!("rehearsal: kept {}", kept.display());
        }
    }
}

impl Stage {
    /// The cache service hands out SAS URLs in Azure's form
    /// (`<account>.blob.core.windows.net`, mapped to loopback by azure.rs),
    /// as GitHub's does, so the collector's routing check passes as on a
    /// real runner.
    fn new(faults: Vec<Fault>) -> Stage {
        let cache = azurite::Services::start();
        let front = CacheFront::start(&cache.url).unwrap();
        let results_url = front.url.clone();
        let speed = librespeed_server::Server::start();
        let dir = tempfile::tempdir().unwrap();
        // The release: the collector under test, as collector.sh names the
        // Linux x64 binary, and SHA256SUMS in sha256sum's format.
        let release = dir.path().join("release");
        std::fs::create_dir(&release).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_collector"), release.join("collector-x86_64-unknown-linux-gnu")).unwrap();
        let sums =
            Command::new("sha256sum").arg("collector-x86_64-unknown-linux-gnu").current_dir(&release).output().unwrap();
        assert!(sums.status.success());
        std::fs::write(release.join("SHA256SUMS"), &sums.stdout).unwrap();
        let server = FileServer::start(&release).unwrap();
        // What the sign job reads from upstream: the release manifest of the
        // version the workflow pins, through the contents API, and the
        // binary from the release's download URL.
        let version = env!("CARGO_PKG_VERSION");
        let digest = String::from_utf8(sums.stdout).unwrap().split_whitespace().next().unwrap().to_string();
        let manifest = dir.path().join("manifest.toml");
        std::fs::write(&manifest, release_manifest(version, &digest)).unwrap();
        let volume = dir.path().join("volume");
        std::fs::create_dir(&volume).unwrap();
        let mut s = settings(&dir.path().join("run"));
        s.inputs = pairs(&[
            ("runs-on", "rehearsal"),
            ("provider", PROVIDER),
            ("runner", RUNNER),
            ("profile", "quick"),
            // The client method here; the action method has its own test.
            ("cache-method", "client"),
            // An extra backend: an attached volume, a folder every instance sees.
            (
                "backends",
                &format!("id=volume;name=Rehearsal volume;kind=attached-volume;endpoint={}", volume.display()),
            ),
        ]);
        // The workflow has no inputs for these: the release's location and
        // the LibreSpeed server reach the collector as the runner's variables.
        s.runner_env = pairs(&[
            ("RUNNER_BENCH_RELEASE_BASE_URL", &server.url),
            ("RUNNER_BENCH_INTERNET_URL", &speed.url(true, "backend")),
            ("RUNNER_BENCH_INTERNET_NAME", "LibreSpeed (rehearsal, loopback)"),
            ("RUNNER_BENCH_INTERNET_CA_CERT", &speed.ca_cert().display().to_string()),
        ]);
        s.js_env = pairs(&[("ACTIONS_RUNTIME_TOKEN", azurite::TOKEN), ("ACTIONS_RESULTS_URL", &results_url)]);
        s.hosts = vec![(workflow::blob_host(), "127.0.0.1".into())];
        s.faults = faults;
        s.github_files = vec![
            (format!("/api/repos/runner-bench/runner-bench/contents/content/releases/v{version}.toml"), manifest),
            (
                format!("/runner-bench/runner-bench/releases/download/v{version}/collector-x86_64-unknown-linux-gnu"),
                release.join("collector-x86_64-unknown-linux-gnu"),
            ),
        ];
        Stage { _front: front, _cache: cache, _librespeed: speed, _release: server, dir, settings: s }
    }

    /// The action method, as the workflow runs it by default, with the
    /// routing pattern of the cache service double's host (returned). The
    /// rehearsal starts every step from this process, as the runner's worker
    /// does on GitHub: prepare pins it (`unpin_this_process` undoes that).
    fn use_action_method(&mut self) -> String {
        let s = &mut self.settings;
        let results_url = s.js_env.iter().find(|(k, _)| k == "ACTIONS_RESULTS_URL").unwrap().1.clone();
        let host = results_url.split('/').nth(2).unwrap().to_string();
        s.inputs.retain(|(k, _)| k != "backends" && k != "cache-method");
        s.inputs.push(("cache-actions".into(), format!("actions-cache;routing={host}")));
        s.js_env.push(("ACTIONS_CACHE_SERVICE_V2".into(), "True".into()));
        let me = std::fs::read_to_string("/proc/self/comm").unwrap().trim().to_string();
        s.runner_env.push(("RUNNER_BENCH_WORKER_PROCESS".into(), me));
        host
    }

    fn rehearse(&self) -> Run {
        let run = benchmark_workflow().run(&self.settings).unwrap();
        eprintln!("{}", run.table());
        run
    }
}

/// The result the sign job wrote, at the path its `path` output names.
fn assembled(run: &Run) -> (PathBuf, String, MeasuredResult) {
    let job = run.job("sign");
    let rel = job.outputs["path"].as_str().unwrap().to_string();
    assert!(rel.starts_with(&format!("results/{PROVIDER}/{RUNNER}/")), "{rel}");
    let path = job.workspace.as_ref().unwrap().join(&rel);
    let result = match read_file(&path).unwrap() {
        AnyResult::Measured(r) => *r,
        AnyResult::Imported(_) => panic!("the sign job wrote an imported result"),
    };
    (path, rel, result)
}

/// `site check FILE`: no problems.
fn site_check(path: &Path) {
    let checked = site::output::testing::check(&[path.to_path_buf()]).unwrap();
    assert!(checked.problems.is_empty(), "site check: {}", checked.human_report());
    assert_eq!(checked.runs.len(), 1);
}

/// The site built from a results folder holding only this result, with
/// the repository's content, docs and templates: the runner page's HTML,
/// and `(backend, verified, incomplete)` of every row of the CSV file `csv`
/// in data/ (cache.csv for the client method, cache-action.csv for the
/// action method).
///
/// The site's library is called in-process, through its own command-line
/// definitions (`site::cli::Cli`) and `cmd::build::run`, which is all the
/// `site` binary does: `cargo run -p site` from inside a test would build
/// the package again with its own feature set, for no more coverage.
fn site_build(rel: &str, result: &Path, work: &Path, csv: &str) -> (String, Vec<(String, String, String)>) {
    let results = work.join("results");
    let dest = results.join(rel.trim_start_matches("results/"));
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    std::fs::copy(result, &dest).unwrap();
    let out = work.join("public");
    let root = repo();
    let arg = |p: PathBuf| p.display().to_string();
    let cli = site::cli::Cli::try_parse_from([
        "site".to_string(),
        "build".into(),
        "--results".into(),
        arg(results),
        "--out".into(),
        arg(out.clone()),
        "--content".into(),
        arg(root.join("content")),
        "--docs".into(),
        arg(root.join("docs")),
        "--templates".into(),
        arg(root.join("templates")),
    ])
    .unwrap();
    let site::cli::Command::Build { site: args } = cli.command else { panic!("parsed as build") };
    site::cmd::build::run(&args).unwrap();
    let page = out.join(format!("runners/{PROVIDER}/{RUNNER}/index.html"));
    let page = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let csv = std::fs::read_to_string(out.join("data").join(csv)).unwrap();
    let mut lines = csv.lines();
    let head: Vec<String> = fields(lines.next().unwrap());
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("cache.csv has no {name}"));
    let (backend, verified, trials, incomplete) =
        (col("backend"), col("verified_trials"), col("trials"), col("incomplete"));
    // Verified trials as the pages print them, "2/3".
    let mut rows: Vec<(String, String, String)> = lines
        .map(|l| {
            let f = fields(l);
            (f[backend].to_string(), format!("{}/{}", f[verified], f[trials]), f[incomplete].to_string())
        })
        .collect();
    rows.sort();
    (page, rows)
}

/// The fields of one CSV line (RFC 4180: quoted fields may hold commas and
/// doubled quotes; the site writes no line breaks inside fields).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn row(backend: &str, verified: &str, incomplete: &str) -> (String, String, String) {
    (backend.to_string(), verified.to_string(), incomplete.to_string())
}

/// The action method (the workflow's default) end to end: every trial's
/// save and restore run the real cache action's entry points between the
/// collector's prepare and record steps.
#[test]
fn the_benchmark_workflow_runs_from_measure_to_submit() {
    if !in_own_process("rehearsal::the_benchmark_workflow_runs_from_measure_to_submit") {
        return;
    }
    let mut stage = Stage::new(Vec::new());
    let results_host = stage.use_action_method();
    let watch = ZstdWatch::start();
    let run = stage.rehearse();
    unpin_this_process();
    let zstd = watch.finish();
    let all: Vec<(&str, &str)> = run.jobs.iter().map(|j| (j.id.as_str(), "success")).collect();
    assert_eq!(run.conclusions(), all, "{}", run.jobs.iter().map(JobLog).map(|l| l.to_string()).collect::<String>());
    assert_eq!(run.jobs.len(), 13);

    // Thirteen jobs, thirteen OS instances.
    let mut boots: Vec<&str> = run.jobs.iter().map(|j| j.instance.as_ref().unwrap().boot_id.as_str()).collect();
    boots.sort_unstable();
    boots.dedup();
    assert_eq!(boots.len(), 13);
    // collector.sh verified the release before using it.
    assert!(run.job("measure").step("Get the collector").log.contains("collector-x86_64-unknown-linux-gnu SHA-256 "));
    // Only the slot's action ran; slot 2 had no action.
    let saved = run.job("save-1");
    assert_eq!(saved.step("actions/cache/save (slot 1)").outcome, Conclusion::Success);
    assert_eq!(saved.step("WarpBuilds/cache/save (slot 1)").outcome, Conclusion::Skipped);
    assert_eq!(saved.step("Prepare the cache action of slot 2 (save)").outcome, Conclusion::Success);
    assert_eq!(saved.step("actions/cache/save (slot 2)").outcome, Conclusion::Skipped);
    assert_eq!(saved.step("Save the payload to every backend (client method)").outcome, Conclusion::Skipped);

    let (path, rel, result) = assembled(&run);
    assert_eq!(result.problems(), vec![]);
    assert_eq!(result.provenance.jobs.len(), 10);
    // The job that signs checks out nothing and runs no script: it reads
    // the run's jobs from GitHub, takes the parts by artifact id and the
    // pinned release checked against its manifest, assembles, and signs
    // the digest of the file it wrote.
    assert_eq!(
        steps(&run, "sign"),
        [
            step("Read this run's jobs from GitHub", "success", "success"),
            step("List the measuring jobs' parts", "success", "success"),
            step("Get the parts by artifact id", "success", "success"),
            step("Get upstream's collector release and check it against its manifest", "success", "success"),
            step("Assemble the result", "success", "success"),
            step("The result's SHA-256", "success", "success"),
            step("Upload the result", "success", "success"),
            step("Attest the result", "success", "success")
        ]
    );
    let sha256 = runner_bench_format::hex(&<sha2::Sha256 as sha2::Digest>::digest(std::fs::read(&path).unwrap()));
    assert_eq!(run.job("sign").outputs["sha256"].as_str(), Some(sha256.as_str()));
    assert_eq!(
        run.job("sign").step("Attest the result").notes,
        [format!("attestation simulated for {rel} (sha256 {sha256})")]
    );
    assert!(
        run.job("sign")
            .step("Get upstream's collector release and check it against its manifest")
            .log
            .contains("collector-x86_64-unknown-linux-gnu of v0.2.0: SHA-256 "),
        "{}",
        run.job("sign").log()
    );
    // The signed file carries GitHub's record of this call's measuring jobs,
    // the ones whose parts it holds.
    assert_run_record(&path, &run);
    let cache = result.stages.cache.as_ref().unwrap();
    let mut trials: Vec<(u32, &str)> = cache.pairs.iter().map(|p| (p.trial, p.backend.as_str())).collect();
    trials.sort_unstable();
    assert_eq!(trials, [(1, "actions-cache"), (2, "actions-cache"), (3, "actions-cache")]);
    for p in &cache.pairs {
        assert_eq!(p.method, CacheMethod::Action);
        let restore = p.restore.as_ref().unwrap_or_else(|| panic!("pair {} has no restore", p.key));
        assert_eq!(restore.status, Status::Ok, "{p:?}");
        assert_ne!(restore.instance, p.save.instance, "pair {} restored on the OS instance that saved", p.key);
        let v = p.verification.as_ref().unwrap();
        assert_eq!((v.key_match, v.sha256), (KeyMatch::Exact, DigestCheck::Match), "{p:?}");
        assert_eq!(v.routing.observed.as_str(), format!("runtime service {results_host}; provider variables: none"));
        assert!(v.routing.matches, "{p:?}");
        assert!(p.publication_gap_s.is_some(), "{p:?}");
        let Affinity::Pinned { cpu, .. } = p.save.affinity else { panic!("the save's action ran unpinned: {p:#?}") };
        for (half, t) in [("save", &p.save), ("restore", restore)] {
            let a = t.action.as_ref().unwrap();
            assert_eq!(a.uses.as_str(), format!("actions/cache/{half}@27d5ce7f107fe9357f9df03efb73ab90386fccae"));
            assert_eq!((a.single_thread, a.affinity_inherited), (Observation::Held, Observation::Held), "{a:#?}");
            assert!(a.processes.iter().all(|p| p.cpus.as_str() == cpu.to_string()), "{a:#?}");
            let roles: Vec<&str> = a.processes.iter().map(|p| p.role.as_str()).collect();
            // GNU tar compresses through `sh -c zstdmt` and decompresses with
            // `unzstd -d` directly.
            let want: &[&str] = if half == "save" {
                &["compressor", "shell", "archiver", "action"]
            } else {
                &["compressor", "archiver", "action"]
            };
            assert_eq!(roles, want, "{half}: {a:#?}");
            let (tar, node) = (&a.processes[roles.len() - 2], &a.processes[roles.len() - 1]);
            let op = if half == "save" { "--posix -cf cache.tzst" } else { "-xf " };
            assert!(tar.command.as_str().starts_with(&format!("/usr/bin/tar {op}")), "{a:#?}");
            assert!(node.command.as_str().contains("action.mjs"), "{a:#?}");
            assert!(t.seconds.unwrap().get() > 0.0);
        }
    }
    // Seen from outside, by /proc, not the shim: every zstd that tar ran had
    // --single-thread and one CPU. zstd 1.5 keeps two I/O threads beside its
    // one compression thread with --single-thread; zstdmt on this machine
    // would run a worker per CPU besides (4 or more threads).
    assert!(zstd.len() >= 6, "zstd ran for three saves and three restores: {zstd:?}");
    for (cmd, cpus, threads) in &zstd {
        assert!(cmd.ends_with("--single-thread"), "{zstd:?}");
        assert!(!cpus.contains([',', '-']), "{zstd:?}");
        assert!(*threads <= 3, "{zstd:?}");
    }

    site_check(&path);
    let artifact =
        stage.settings.root.join(format!("artifacts/{RUNNER}-result")).join(rel.trim_start_matches("results/"));
    assert_eq!(std::fs::read(&artifact).unwrap(), std::fs::read(&path).unwrap());
    let (page, cache_rows) = site_build(&rel, &path, stage.dir.path(), "cache-action.csv");
    assert!(page.contains(&format!("<h1>{RUNNER}</h1>")), "{page}");
    assert_eq!(cache_rows, [row("actions/cache", "3/3", "no")]);

    // Without a submit token, submit writes the commands to the summary.
    let submit = run.job("submit");
    assert!(submit.summary.contains(&format!("git add {rel}")), "{}", submit.summary);
}

/// The file's run record, read as JSON: the run of the rehearsal, and one
/// entry per measuring and gap job, named as GitHub lists a called
/// workflow's jobs, on the runner that ran it, with the job's labels.
fn assert_run_record(path: &Path, run: &Run) {
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let record = &file["provenance"]["run_record"];
    assert_eq!(
        (&record["repository"], &record["run_id"], &record["run_attempt"]),
        (&serde_json::json!("rehearsal/caller"), &serde_json::json!(4242), &serde_json::json!(1)),
        "{record:#}"
    );
    let wf = benchmark_workflow();
    let listed: Vec<(String, String, String, serde_json::Value)> = record["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["job"].as_str().unwrap().to_string(),
                j["name"].as_str().unwrap().to_string(),
                j["runner_name"].as_str().unwrap_or("").to_string(),
                j["labels"].clone(),
            )
        })
        .collect();
    let want: Vec<(String, String, String, serde_json::Value)> = run
        .jobs
        .iter()
        .filter(|j| !["preflight", "sign", "submit"].contains(&j.id.as_str()) && j.conclusion != Conclusion::Skipped)
        .map(|j| {
            let name = wf.job(&j.id).unwrap().name.clone().unwrap();
            (
                j.id.clone(),
                format!("{CALLER} / {name}"),
                format!("rehearsal-runner-{}", j.id),
                serde_json::json!(j.runs_on),
            )
        })
        .collect();
    assert_eq!(listed, want, "{record:#}");
}

/// A bash step that tries to get an OIDC token: it needs the request URL
/// and token the runner gives a job with `id-token: write`.
const MINT: &str = r#"if [ -z "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ] || [ -z "${ACTIONS_ID_TOKEN_REQUEST_TOKEN:-}" ]; then
  echo "no OIDC token request variables: cannot mint a token"
  exit 1
fi
echo "could request a token from $ACTIONS_ID_TOKEN_REQUEST_URL with $ACTIONS_ID_TOKEN_REQUEST_TOKEN"
"#;

/// Hostile code in the run: a step of a save job (the caller chooses the
/// scripts those jobs run) tries to mint an OIDC token, and a caller's job
/// beside the benchmark's replaces the result artifact before `submit`.
/// Only the sign job can request a token, and nothing other than what it
/// wrote is submitted.
#[test]
fn hostile_jobs_can_neither_sign_nor_swap_the_result() {
    let result = format!("{RUNNER}-result");
    let stage = Stage::new(vec![
        Fault::AddStep { job: "save-1".into(), name: "Mint an OIDC token".into(), script: MINT.into() },
        Fault::AddStep { job: "sign".into(), name: "Mint an OIDC token".into(), script: MINT.into() },
        Fault::OverwriteArtifact { before: "submit".into(), name: result.clone(), append: " ".into() },
    ]);
    let run = stage.rehearse();
    let mint = run.job("save-1").step("Mint an OIDC token");
    assert_eq!((mint.outcome, mint.conclusion), (Conclusion::Failure, Conclusion::Success));
    assert!(mint.log.contains("no OIDC token request variables"), "{}", mint.log);
    // The double is there for the job that signs (its token masked).
    let mint = run.job("sign").step("Mint an OIDC token");
    assert_eq!(mint.outcome, Conclusion::Success, "{}", mint.log);
    assert!(mint.log.contains("rehearsal-oidc?job=sign with ***"), "{}", mint.log);
    assert_eq!(run.job("sign").conclusion, Conclusion::Success, "{}", run.job("sign").log());
    // The replaced artifact has another id: submit finds nothing to submit.
    let id = run.job("sign").outputs["artifact-id"].as_str().unwrap().to_string();
    let submit = run.job("submit");
    assert_eq!(submit.conclusion, Conclusion::Failure);
    let got = submit.step("Get the result the sign job uploaded");
    assert_eq!(got.outcome, Conclusion::Failure);
    assert!(got.log.contains(&format!("Artifact not found for ID(s): {id}")), "{}", got.log);
    assert_eq!(submit.step("Open the pull request, or print how to").outcome, Conclusion::Skipped);
}

/// A caller's job that replaces a measuring job's part (under the same
/// name, so with another id) before the sign job starts: the sign job takes
/// parts by the ids the measuring jobs gave, finds the replaced one gone,
/// and signs nothing.
#[test]
fn a_part_replaced_after_its_job_is_not_signed() {
    let stage = Stage::new(vec![Fault::OverwriteArtifact {
        before: "sign".into(),
        name: format!("{RUNNER}-part-measure"),
        append: " ".into(),
    }]);
    let run = stage.rehearse();
    let sign = run.job("sign");
    assert_eq!(sign.conclusion, Conclusion::Failure);
    let got = sign.step("Get the parts by artifact id");
    assert_eq!(got.outcome, Conclusion::Failure);
    let id = run.job("measure").outputs["part"].as_str().unwrap().to_string();
    assert!(got.log.contains(&format!("Artifact not found for ID(s): {id}")), "{}", got.log);
    assert_eq!(sign.step("Attest the result").outcome, Conclusion::Skipped);
    assert_eq!(run.job("submit").conclusion, Conclusion::Skipped);
}

/// The digest check of `submit` on its own: a result file other than the
/// one the sign job hashed is refused.
#[test]
fn a_result_other_than_the_signed_one_is_refused() {
    let wf = benchmark_workflow();
    let submit = wf.job("submit").unwrap();
    let check =
        submit.steps.iter().find(|s| s.display_name() == "Refuse a result that is not the one the sign job wrote");
    let script = check.unwrap().script().expect("a run: step");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.json");
    std::fs::write(&file, "{}\n").unwrap();
    let sum = runner_bench_format::hex(&<sha2::Sha256 as sha2::Digest>::digest(b"{}\n"));
    let check = |sha: &str| {
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .env("RESULT", &file)
            .env("SHA256", sha)
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    assert_eq!(check(&sum), (true, format!("{}: sha256 {sum}, as the sign job wrote and signed it\n", file.display())));
    let other = "0".repeat(64);
    assert_eq!(
        check(&other),
        (
            false,
            format!(
                "::error::{} has sha256 {sum}, not the {other} the sign job wrote and signed: refusing it\n",
                file.display()
            )
        )
    );
    assert_eq!(check(""), (false, "::error::the sign job gave no SHA-256 of the result\n".into()));
}

/// `preflight` alone, before any runner of the provider is taken: a token
/// without actions: read (a caller that did not grant it), and a runs-on
/// text in another spelling than its one, each fail it with a message that
/// says what to change.
#[test]
fn preflight_refuses_a_call_without_actions_read_and_a_second_spelling_of_runs_on() {
    let dir = tempfile::tempdir().unwrap();
    let preflight = |wf: &Workflow, runs_on: &str, n: usize| {
        let mut s = settings(&dir.path().join(format!("run-{n}")));
        s.inputs = pairs(&[("runs-on", runs_on), ("provider", PROVIDER), ("runner", RUNNER)]);
        s.stop_after = Some("preflight".into());
        let run = wf.run(&s).unwrap();
        let job = run.job("preflight");
        let errors: Vec<String> =
            job.log().lines().filter(|l| l.starts_with("::error::")).map(str::to_string).collect();
        (job.conclusion, errors)
    };
    let wf = benchmark_workflow();
    assert_eq!(preflight(&wf, "rehearsal", 1), (Conclusion::Success, vec![]));
    assert_eq!(preflight(&wf, r#"["linux","self-hosted"]"#, 2), (Conclusion::Success, vec![]));
    assert_eq!(preflight(&wf, r#"{"group": "g", "labels": ["x"]}"#, 3), (Conclusion::Success, vec![]));
    assert_eq!(
        preflight(&wf, r#"["self-hosted", "linux", "linux"]"#, 4),
        (
            Conclusion::Failure,
            vec![
                r#"::error::runs-on: write ["self-hosted", "linux", "linux"] as ["linux","self-hosted"] (labels sorted, each once, compact JSON; one label as plain text): the concurrency group is this text, and the same machines must always share it"#
                    .to_string()
            ]
        )
    );
    assert_eq!(
        preflight(&wf, r#"["rehearsal"]"#, 5).1,
        [
            r#"::error::runs-on: write ["rehearsal"] as rehearsal (labels sorted, each once, compact JSON; one label as plain text): the concurrency group is this text, and the same machines must always share it"#
        ]
    );
    assert_eq!(
        preflight(&wf, r#"{"labels": ["x"]}"#, 6).1,
        [r#"::error::runs-on: a JSON object must name a runner group: {"group": "my-group"}"#]
    );
    // The same workflow with preflight's grant taken away, as a caller that
    // grants no actions: read leaves it.
    let text = std::fs::read_to_string(repo().join(".github/workflows/benchmark.yml")).unwrap();
    let grant = "      actions: read # list this run's jobs, as the sign job will\n";
    assert!(text.contains(grant));
    let dir2 = tempfile::tempdir().unwrap();
    let path = dir2.path().join("benchmark.yml");
    std::fs::write(&path, text.replace(grant, "      contents: read\n")).unwrap();
    let capped = Workflow::load(&path).unwrap();
    assert_eq!(
        preflight(&capped, "rehearsal", 7),
        (
            Conclusion::Failure,
            vec!["::error::GitHub answered HTTP 403 when this run listed its own jobs: the calling job must grant actions: read (permissions: { contents: read, actions: read, id-token: write, attestations: write }; docs/running.md)".to_string()]
        )
    );
}

#[test]
fn a_lost_restore_runner_leaves_an_incomplete_result() {
    let stage = Stage::new(vec![Fault::LoseRunner { job: "restore-2".into() }]);
    let run = stage.rehearse();
    // GitHub's default `if: success()` looks at every ancestor job, so each
    // trial's gap and restore ask for their own save and gap only: after
    // restore-2 fails, trial 3 runs whole, and the incomplete result is
    // still assembled and submitted.
    assert_eq!(
        run.conclusions(),
        [
            ("preflight", "success"),
            ("measure", "success"),
            ("save-1", "success"),
            ("gap-1", "success"),
            ("restore-1", "success"),
            ("save-2", "success"),
            ("gap-2", "success"),
            ("restore-2", "failure"),
            ("save-3", "success"),
            ("gap-3", "success"),
            ("restore-3", "success"),
            ("sign", "success"),
            ("submit", "success"),
        ]
    );
    // The lost runner's `always()` step still ran, and found nothing to keep.
    assert_eq!(
        steps(&run, "restore-2"),
        [
            step("Check out the benchmark's scripts", "failure", "failure"),
            step("Get the collector", "skipped", "skipped"),
            step("Read the cache service's runtime variables", "skipped", "skipped"),
            step("Get the save's hand-off file", "skipped", "skipped"),
            step("Restore and verify every backend (client method)", "skipped", "skipped"),
        ]
        .into_iter()
        .chain((1..=2).flat_map(|slot| {
            let mut s = vec![step(&format!("Prepare the cache action of slot {slot} (restore)"), "skipped", "skipped")];
            for action in ["actions/cache", "WarpBuilds/cache", "runs-on/cache"] {
                s.push(step(&format!("{action}/restore (slot {slot})"), "skipped", "skipped"));
            }
            s.push(step(&format!("Record the cache action of slot {slot} (restore)"), "skipped", "skipped"));
            s
        }))
        .chain([step("Keep the part", "success", "success")])
        .collect::<Vec<_>>()
    );

    let (path, rel, result) = assembled(&run);
    site_check(&path);
    let cache = result.stages.cache.as_ref().unwrap();
    for p in &cache.pairs {
        assert_eq!(p.restore.is_some(), p.trial != 2, "trial {} pair {}: {:?}", p.trial, p.backend, p.restore);
    }
    let workflow_notices: Vec<&str> =
        result.notices.iter().filter(|n| n.stage.as_str() == "workflow").map(|n| n.message.as_str()).collect();
    assert_eq!(
        workflow_notices,
        ["job restore-2 ended with conclusion failure: trial 2's cache pairs are attempted and not completed"]
    );
    let (page, cache_rows) = site_build(&rel, &path, stage.dir.path(), "cache.csv");
    assert!(page.contains(r#"<span class="mark incomplete""#), "{page}");
    // Trial 2's restores were lost with their runner.
    assert_eq!(cache_rows, [row("GitHub Actions cache", "2/3", "yes"), row("Rehearsal volume", "2/3", "yes")]);
}

#[test]
fn a_restore_on_the_instance_that_saved_is_refused() {
    let mut stage = Stage::new(vec![Fault::ShareInstance { job: "restore-1".into(), with: "save-1".into() }]);
    stage.settings.stop_after = Some("restore-1".into());
    let run = stage.rehearse();
    assert_eq!(
        run.conclusions(),
        [
            ("preflight", "success"),
            ("measure", "success"),
            ("save-1", "success"),
            ("gap-1", "success"),
            ("restore-1", "failure")
        ]
    );
    let (save, restore) = (run.job("save-1"), run.job("restore-1"));
    assert_eq!(save.instance.as_ref().unwrap().boot_id, restore.instance.as_ref().unwrap().boot_id);
    let step = restore.step("Restore and verify every backend (client method)");
    assert_eq!(step.outcome, Conclusion::Failure);
    assert!(step.log.contains("refusing to restore on the OS instance that saved"), "{}", step.log);
    // The save's archive went to Azure's host name (on loopback).
    let handoff: serde_json::Value =
        serde_json::from_slice(&std::fs::read(save.workspace.as_ref().unwrap().join("handoff-1.json")).unwrap())
            .unwrap();
    let seen: Vec<(&str, &str)> = handoff["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["backend"].as_str().unwrap(), p["routing_seen"].as_str().unwrap().split(':').next().unwrap()))
        .collect();
    assert_eq!(seen, [("github", "devstoreaccount1.blob.core.windows.net"), ("volume", "/ (ext4)")]);
}

/// A job's log for a failure message.
struct JobLog<'a>(&'a JobReport);

impl std::fmt::Display for JobLog<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.conclusion == Conclusion::Failure {
            write!(f, "=== {} ===\n{}", self.0.id, self.0.log())?;
        }
        Ok(())
    }
}

/// scripts/collector.sh, the first step of every job, run alone against a
/// release folder: it accepts the release's binary, and refuses one whose
/// digest SHA256SUMS does not list or whose version is not the release's.
#[test]
fn collector_sh_refuses_a_binary_that_is_not_the_release() {
    let dir = tempfile::tempdir().unwrap();
    let release = dir.path().join("release");
    std::fs::create_dir(&release).unwrap();
    let name = "collector-x86_64-unknown-linux-gnu";
    let publish = |binary: &[u8]| {
        std::fs::write(release.join(name), binary).unwrap();
        let sums = Command::new("sha256sum").arg(name).current_dir(&release).output().unwrap();
        std::fs::write(release.join("SHA256SUMS"), sums.stdout).unwrap();
    };
    let server = FileServer::start(&release).unwrap();
    let fetch = |version: &str| {
        let temp = tempfile::tempdir().unwrap();
        let out = Command::new("bash")
            .arg(repo().join("scripts/collector.sh"))
            .env("RUNNER_TEMP", temp.path())
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("VERSION", version)
            .env("RUNNER_BENCH_RELEASE_BASE_URL", &server.url)
            .env_remove("GH_TOKEN")
            .env_remove("GITHUB_OUTPUT")
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let collector = std::fs::read(env!("CARGO_BIN_EXE_collector")).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    publish(&collector);
    assert_eq!(fetch(version), (Some(0), String::new()));

    // The same SHA256SUMS with Windows line endings, upper-case hex and
    // the binary-mode `*` names the same digest.
    let sums = std::fs::read_to_string(release.join("SHA256SUMS")).unwrap();
    let (digest, _) = sums.split_once("  ").unwrap();
    std::fs::write(release.join("SHA256SUMS"), format!("{} *{name}\r\n", digest.to_uppercase())).unwrap();
    assert_eq!(fetch(version), (Some(0), String::new()));

    // The release folder's SHA256SUMS no longer lists this binary's digest.
    let other = b"#!/bin/sh\necho collector 9.9.9\n";
    std::fs::write(release.join(name), other).unwrap();
    let sha256 = |bytes: &[u8]| format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes));
    assert_eq!(
        fetch(version),
        (
            Some(1),
            format!(
                "collector.sh: {name} has SHA-256 {} but SHA256SUMS says {}; refusing to run it\n",
                sha256(other),
                sha256(&collector)
            )
        )
    );

    // A binary of another version, listed by its own SHA256SUMS.
    publish(b"#!/bin/sh\necho collector 9.9.9\n");
    assert_eq!(
        fetch(version),
        (Some(1), format!("collector.sh: release v{version}'s binary reports version 9.9.9; refusing to run it\n"))
    );
}

/// Runs scripts/collector.sh with `env` and PATH set to `bin` and the
/// system's folders only (no rustup, rustc or cargo but the stand-ins in
/// `bin`), with RUNNER_TEMP beside `bin`: (exit status, stderr, the path
/// it wrote to GITHUB_OUTPUT).
fn collector_sh(bin: &Path, env: &[(&str, &Path)]) -> (Option<i32>, String, String) {
    let temp = bin.with_file_name("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let output = temp.join("github-output");
    let _ = std::fs::remove_file(&output);
    let out = Command::new("bash")
        .arg(repo().join("scripts/collector.sh"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("RUNNER_TEMP", &temp)
        .env("GITHUB_OUTPUT", &output)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("GH_TOKEN")
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .output()
        .unwrap();
    let path = std::fs::read_to_string(&output).unwrap_or_default();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), path)
}

/// A runner with no release binary (macOS on Intel here; a musl Linux
/// below): collector.sh refuses to download one, and with SOURCE=build
/// builds for the machine's own triple, rustc's host, into cargo's
/// CARGO_TARGET_DIR. rustc and cargo are stand-ins (a real build of the
/// `dist` profile takes minutes); cargo records its arguments and leaves a
/// binary that answers `--version`.
#[test]
fn collector_sh_builds_for_the_host_where_no_release_binary_fits() {
    let dir = tempfile::tempdir().unwrap();
    let (bin, built) = (dir.path().join("bin"), dir.path().join("cargo-target"));
    let os = |os: &'static str, arch: &'static str| [("RUNNER_OS", Path::new(os)), ("RUNNER_ARCH", Path::new(arch))];
    let (code, stderr, _) =
        collector_sh(&bin, &[os("macOS", "X64").as_slice(), &[("VERSION", Path::new("0.2.0"))]].concat());
    assert_eq!(
        (code, stderr.as_str()),
        (
            Some(1),
            "collector.sh: no released collector for macOS/X64; build one with SOURCE=build (the workflow's \
             collector-source: build)\n"
        )
    );

    script::executable(&bin.join("rustc"), "#!/bin/sh\necho 'rustc 1.95.0'; echo 'host: x86_64-apple-darwin'\n");
    script::executable(
        &bin.join("cargo"),
        &format!(
            "#!/bin/sh\necho \"$*\" > '{args}'\nmkdir -p \"$CARGO_TARGET_DIR/x86_64-apple-darwin/dist\"\n\
             printf '#!/bin/sh\\necho collector 0.2.0\\n' > \"$CARGO_TARGET_DIR/x86_64-apple-darwin/dist/collector\"\n\
             chmod +x \"$CARGO_TARGET_DIR/x86_64-apple-darwin/dist/collector\"\n",
            args = dir.path().join("cargo-args").display()
        ),
    );
    let env = [os("macOS", "X64").as_slice(), &[("SOURCE", Path::new("build")), ("CARGO_TARGET_DIR", &built)]].concat();
    let (code, stderr, path) = collector_sh(&bin, &env);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cargo-args")).unwrap(),
        "build --profile dist --locked -p collector --target x86_64-apple-darwin\n"
    );
    let path = path.strip_prefix("path=").unwrap().trim_end();
    assert!(path.ends_with("/collector"), "{path}");
    assert_eq!(Command::new(path).arg("--version").output().unwrap().stdout, b"collector 0.2.0\n");

    // A Linux whose C library is musl (its ldd says so) cannot run the
    // glibc release binaries.
    script::executable(
        &bin.join("ldd"),
        "#!/bin/sh\necho 'musl libc (x86_64)' >&2; echo 'Version 1.2.5' >&2; exit 1\n",
    );
    let (code, stderr, _) =
        collector_sh(&bin, &[os("Linux", "X64").as_slice(), &[("VERSION", Path::new("0.2.0"))]].concat());
    assert_eq!(
        (code, stderr.as_str()),
        (
            Some(1),
            "collector.sh: no released collector for Linux/X64 (musl); build one with SOURCE=build (the workflow's \
             collector-source: build)\n"
        )
    );
}

/// Every zstd process seen while it runs: `(command line, CPUs allowed,
/// most threads seen)`, from /proc, by a thread of the test (independent of
/// the shim's own log).
struct ZstdWatch {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<std::collections::BTreeMap<u32, (String, String, u32)>>,
}

impl ZstdWatch {
    fn start() -> ZstdWatch {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut seen = std::collections::BTreeMap::new();
            while !flag.load(Ordering::Relaxed) {
                for e in std::fs::read_dir("/proc").unwrap().flatten() {
                    let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
                    if !std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "zstd") {
                        continue;
                    }
                    if !descends_from_this_process(pid) {
                        continue;
                    }
                    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
                    let field = |n: &str| {
                        status.lines().find_map(|l| l.strip_prefix(n)).map(|v| v.trim().to_string()).unwrap_or_default()
                    };
                    let threads: u32 = field("Threads:").parse().unwrap_or(0);
                    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ").trim().to_string();
                    let entry = seen.entry(pid).or_insert((cmd, field("Cpus_allowed_list:"), 0));
                    entry.2 = entry.2.max(threads);
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            seen
        });
        ZstdWatch { stop, thread }
    }

    fn finish(self) -> Vec<(String, String, u32)> {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        // Left out: the compression method check (`zstd --quiet --version`)
        // and processes caught exiting, whose command line is already gone.
        self.thread
            .join()
            .unwrap()
            .into_values()
            .filter(|(cmd, _, _)| !cmd.is_empty() && !cmd.contains("--version"))
            .collect()
    }
}

/// Whether `pid` was started (indirectly) by this test process; other
/// tests may run zstd on the machine meanwhile.
fn descends_from_this_process(mut pid: u32) -> bool {
    let me = std::process::id();
    for _ in 0..64 {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { return false };
        let Some(parent) = status.lines().find_map(|l| l.strip_prefix("PPid:")).and_then(|v| v.trim().parse().ok())
        else {
            return false;
        };
        if parent == me {
            return true;
        }
        if parent <= 1 {
            return false;
        }
        pid = parent;
    }
    false
}

/// Set in the process `in_own_process` starts.
const OWN_PROCESS: &str = "RUNNER_BENCH_TEST_OWN_PROCESS";

/// Whether to run the calling test's body here: true in a process of its
/// own; elsewhere it runs `test` (its full name) again in a child process of
/// this test binary, alone, asserts that it passed, and returns false. The
/// action method pins the process the rehearsal runs in to one CPU, as
/// `collector cache prepare` pins a runner's worker: in a process of its own
/// the pin cannot reach the other tests of this binary, nor a collector one
/// of them starts meanwhile.
fn in_own_process(test: &str) -> bool {
    if std::env::var_os(OWN_PROCESS).is_some() {
        return true;
    }
    let allowed = || {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        status.lines().find(|l| l.starts_with("Cpus_allowed_list:")).unwrap().to_string()
    };
    let before = allowed();
    let me = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(me)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(OWN_PROCESS, "1")
        .output()
        .expect("start the test binary again");
    // Printed through the harness, which shows it only when asked or failed.
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{test}, run in a process of its own, failed ({}): its output is above", out.status);
    assert_eq!(allowed(), before, "{test}: the pin reached this process");
    false
}

/// Gives every thread of this process every CPU again (the action method
/// pins the rehearsal's process, which stands in for the runner's worker).
fn unpin_this_process() {
    // SAFETY: a zeroed cpu_set_t is empty; CPU_SET sets bits below
    // CPU_SETSIZE; sched_setaffinity reads the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for cpu in 0..libc::CPU_SETSIZE as usize {
            libc::CPU_SET(cpu, &mut set);
        }
        for e in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
            if let Some(tid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) {
                libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set);
            }
        }
    }
}
