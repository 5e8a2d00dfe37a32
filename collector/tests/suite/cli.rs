//! The collector as a user runs it: real runs of the quick profile, and the
//! exact messages of invocations that must fail before measuring.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{collector, measured};
use runner_bench_format::Profile;
use runner_bench_format::measured::{Status, Validation};

fn stderr_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "expected failure; stdout: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_quick_cpu_run_writes_a_valid_result() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let status = collector()
        .args(["run", "--profile", "quick", "--stages", "cpu", "--provider", "local", "--runner", "dev-linux-x64"])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    assert_eq!(r.fingerprint, Profile::Quick.parameters().fingerprint());
    let cpu = r.stages.cpu.unwrap();
    assert_eq!(cpu.samples.len(), 3);
    for s in &cpu.samples {
        assert_eq!((s.status, s.validation), (Status::Ok, Some(Validation::Passed)), "{:?}", s.message);
        // About the profile's second: the count that lasts it is found by
        // shorter runs, which a busy test machine may slow down or speed up.
        let elapsed = s.elapsed_s.unwrap().get();
        assert!(elapsed > 0.2 && elapsed < 10.0, "{elapsed} s");
        if cfg!(target_os = "linux") {
            assert!(matches!(s.affinity, runner_bench_format::Affinity::Pinned { group: 0, .. }), "{:?}", s.affinity);
            // Steal time of the pinned CPU, never more than the sample took.
            let steal = s.steal_s.expect("Linux reports steal time").get();
            assert!(steal <= s.elapsed_s.unwrap().get() + 0.01, "steal {steal} s");
        }
    }
    let flags = if cfg!(target_os = "linux") { "-O2 -fPIE -DNDEBUG" } else { "-O2 -DNDEBUG" };
    assert_eq!(r.build.flags_label(), format!("{flags}; C99; MULTITHREAD=1; TOTAL_DATA_SIZE=2000; ITERATIONS=0"));
    assert_eq!(r.build.coremark.eembc_commit, None);
    for s in &cpu.samples {
        // The measured process's CPU time, and the validation run's CRCs, the
        // published ones of one iteration.
        let cpu_s = s.cpu_s.expect("the process's CPU time on the test platforms").get();
        assert!(cpu_s > 0.0 && cpu_s <= s.elapsed_s.unwrap().get(), "cpu_s {cpu_s}");
        let v = s.validation_crcs.expect("validation CRCs");
        assert_eq!([v.seed, v.list, v.matrix, v.state, v.final_], [0x18f2, 0xe3c1, 0x0747, 0x8d84, 0xe3c1]);
    }
    // `collector workload` writes the very programs the run recorded.
    let programs = [
        (None, "one-thread", r.build.coremark.executable_sha256.expect("the one-thread program's SHA-256")),
        (Some("--all-core"), "all-core", r.build.coremark.allcore_executable_sha256.expect("the all-core one's")),
    ];
    for (flag, which, recorded) in programs {
        let program = dir.path().join(format!("coremark-{which}"));
        let out = collector().arg("workload").args(flag).arg(&program).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let bytes = std::fs::read(&program).unwrap();
        assert_eq!(runner_bench_format::hex(&<sha2::Sha256 as sha2::Digest>::digest(&bytes)), recorded.as_str());
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!(
                "wrote the {which} CoreMark program ({} bytes, SHA-256 {recorded}) to {}\n",
                bytes.len(),
                program.display()
            )
        );
    }
}

/// The program is written beside nothing: an existing file is never
/// replaced, and the refusal names it.
#[test]
fn the_workload_program_never_replaces_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("taken");
    std::fs::write(&path, "mine").unwrap();
    let message = stderr_of(collector().arg("workload").arg(&path));
    let reason = if cfg!(windows) { "The file exists. (os error 80)" } else { "File exists (os error 17)" };
    assert_eq!(message, format!("error: cannot create {}: {reason}\n", path.display()));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
}

#[test]
fn in_github_actions_it_records_provenance_and_writes_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let summary = dir.path().join("summary.md");
    let output = collector()
        .args(["run", "--profile", "quick", "--stages", "cpu", "--out"])
        .arg(&out)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_BENCH_PROVIDER", "example")
        .env("RUNNER_BENCH_RUNNER", "example-linux-x64")
        .envs([
            ("GITHUB_REPOSITORY", "o/r"),
            ("GITHUB_WORKFLOW", "benchmark"),
            ("GITHUB_RUN_ID", "123"),
            ("GITHUB_RUN_ATTEMPT", "1"),
            ("GITHUB_JOB", "measure"),
            ("GITHUB_SHA", "abc123"),
            ("RUNNER_NAME", "runner-7"),
            ("ImageOS", "ubuntu24"),
            ("ImageVersion", "20261116.1.0"),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("::group::CPU (CoreMark, one pinned thread)\n"), "{stderr}");
    assert!(stderr.contains("::endgroup::\n"), "{stderr}");
    let r = measured(&out);
    let gh = r.provenance.github.unwrap();
    assert_eq!((gh.run_id, gh.job.as_str(), gh.runner_name.unwrap().as_str()), (123, "measure", "runner-7"));
    assert_eq!(r.provenance.image.unwrap().name.as_str(), "ubuntu24");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("### runner-bench: example / example-linux-x64\n"), "{md}");
}

#[test]
fn a_run_killed_mid_stage_leaves_a_valid_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let mut child = collector()
        .args(["run", "--profile", "quick", "--stages", "cpu", "--provider", "local", "--runner", "dev"])
        .arg("--out")
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first sample to land, then kill during the second.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "no sample was written in 20 s");
        if out.exists() && measured(&out).stages.cpu.is_some_and(|c| !c.samples.is_empty()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    let samples = r.stages.cpu.unwrap().samples;
    assert!((1..3).contains(&samples.len()), "{} samples", samples.len());
    assert!(samples.iter().all(|s| s.status == Status::Ok));
}

#[test]
fn a_quick_disk_run_writes_a_valid_result_and_removes_its_file() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = dir.path().join("r.json");
    let status = collector()
        .args(["run", "--profile", "quick", "--stages", "disk", "--provider", "local", "--runner", "dev"])
        .arg("--out")
        .arg(&out)
        .arg("--disk-dir")
        .arg(&work)
        .status()
        .unwrap();
    assert!(status.success());
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    let disk = r.stages.disk.unwrap();
    assert_eq!(disk.directory.as_str(), work.display().to_string());
    assert_eq!(disk.samples.len(), 3);
    assert!(disk.samples.iter().all(|s| s.status == Status::Ok && s.rand_write.is_some()), "{:?}", disk.samples);
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "the test file is gone");
}

#[test]
fn a_disk_dir_that_is_not_a_folder_is_explained() {
    let err = stderr_of(collector().args(["run", "--provider", "p", "--runner", "r", "--disk-dir", "/no/such/dir"]));
    assert_eq!(err, "error: --disk-dir: /no/such/dir is not a folder; create it or choose another\n");
}

#[test]
fn a_runner_temp_that_is_not_a_folder_is_explained_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let err = stderr_of(
        collector()
            .args(["run", "--provider", "p", "--runner", "r", "--stages", "disk", "--out"])
            .arg(&out)
            .env("RUNNER_TEMP", "/no/such/dir"),
    );
    assert_eq!(
        err,
        "error: --disk-dir: RUNNER_TEMP, its default, is /no/such/dir, which is not a folder; set --disk-dir or fix \
         RUNNER_TEMP\n"
    );
    assert!(!out.exists());
}

/// The job summary is a view of the result file: a run whose file is
/// written succeeds though the summary cannot be, and says so.
#[test]
fn a_summary_that_cannot_be_written_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = collector()
        .args(["run", "--profile", "quick", "--stages", "cpu", "--provider", "p", "--runner", "r", "--out"])
        .arg(&out)
        .env("GITHUB_STEP_SUMMARY", dir.path().join("no/such/summary.md"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("warning: cannot open GITHUB_STEP_SUMMARY"), "{stderr}");
    assert_eq!(measured(&out).stages.cpu.unwrap().samples.len(), 3);
}

#[test]
fn a_missing_provider_is_explained() {
    let err = stderr_of(collector().args(["run", "--runner", "x"]));
    assert_eq!(
        err,
        "error: no provider given: pass --provider ID (or set RUNNER_BENCH_PROVIDER), e.g. --provider ubicloud\n"
    );
}

#[test]
fn a_runner_label_that_is_not_a_slug_is_explained() {
    let err = stderr_of(collector().args(["run", "--provider", "p", "--runner", "My Runner"]));
    assert_eq!(
        err,
        "error: --runner: \"My Runner\" is not a slug (1 to 64 lowercase letters, digits and single dashes, \
         starting and ending with a letter or digit)\n"
    );
}

#[test]
fn a_bad_output_path_fails_before_measuring() {
    let started = Instant::now();
    let err =
        stderr_of(collector().args(["run", "--provider", "p", "--runner", "r", "--out", "/nonexistent/dir/r.json"]));
    assert_eq!(
        err,
        "error: --out /nonexistent/dir/r.json: the folder /nonexistent/dir does not exist; create it first\n"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "it measured before failing");
}

/// The all-core stage: one context per logical CPU, the same iterations
/// each, every context's CRCs, the threads' CPUs recorded.
#[test]
fn a_quick_all_core_run_writes_a_valid_result() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let status = collector()
        .args(["run", "--profile", "quick", "--stages", "cpu-allcore", "--provider", "local", "--runner", "dev"])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    assert!(r.stages.cpu.is_none());
    let all = r.stages.cpu_allcore.unwrap();
    assert_eq!(all.samples.len(), 3);
    let cpus = std::thread::available_parallelism().unwrap().get() as u32;
    for s in &all.samples {
        assert_eq!((s.status, s.validation), (Status::Ok, Some(Validation::Passed)), "{:?}", s.message);
        assert_eq!(s.contexts, cpus);
        assert_eq!(s.threads.len(), cpus as usize);
        let performance = s.threads[0].crcs.unwrap();
        assert_eq!(
            [performance.seed, performance.list, performance.matrix, performance.state],
            [0xe9f5, 0xe714, 0x1fd7, 0x8e3a]
        );
        assert!(s.threads.iter().all(|t| t.crcs == Some(performance)));
        if cfg!(target_os = "linux") {
            assert!(
                s.threads.iter().all(|t| t.first_cpu.is_some_and(|c| c.group == 0 && c.cpu < r.machine.logical_cpus))
            );
        }
    }
}

#[test]
fn help_states_what_the_all_core_stage_adds() {
    let out = collector().args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("about 2.5 minutes more in a standard run (5 samples of 30 s)"), "{help}");
    assert!(help.contains("cpu-allcore, disk, internet; http-cache runs only when named"), "{help}");
}

#[test]
fn the_cache_stage_is_refused_with_where_it_runs() {
    let err = stderr_of(collector().args(["run", "--provider", "p", "--runner", "r", "--stages", "cpu,cache"]));
    assert_eq!(
        err,
        "error: --stages: the `cache` stage does not run in `collector run`: it saves in one job and restores in \
         another, with `collector cache` (see `collector cache --help` and docs/cache.md); `run` has cpu, \
         cpu-allcore, disk, internet, http-cache\n"
    );
    let err = stderr_of(collector().args(["run", "--provider", "p", "--runner", "r", "--stages", "cpu,cpu"]));
    assert_eq!(err, "error: --stages: `cpu` is given twice; list each stage once\n");
}

#[test]
fn help_explains_every_option() {
    let out = collector().args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for option in
        ["--profile", "--stages", "--out", "--provider", "--provider-name", "--runner", "--runner-name", "--cpu"]
    {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
    assert!(help.contains("RUNNER_BENCH_PROVIDER"), "{help}");
    for option in [
        "--http-cache-url",
        "--http-cache-protocol",
        "--http-cache-ca-cert",
        "--http-cache-token-env",
        "--http-cache-basic-env",
        "--http-cache-team",
        "--http-cache-software",
        "--http-cache-backend",
        "--http-cache-cpu-quota",
        "--http-cache-memory-quota-gb",
        "--http-cache-compression",
        "--http-cache-digest",
    ] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
    for protocol in ["gradle", "bazel", "turborepo", "webdav"] {
        assert!(help.contains(protocol), "{protocol} missing from:\n{help}");
    }
    // The cache stage runs with `collector cache`, not here.
    assert!(help.contains("- http-cache:") && !help.contains("- cache:"), "{help}");
}

#[test]
fn profile_prints_the_fingerprint() {
    let out = collector().args(["profile", "quick"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with("fingerprint 29c30736ae15\n"), "{text}");
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    // `collector profile standard | head -0`: the reader is gone before the
    // collector writes, so its first write fails with a broken pipe.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = collector().args(["profile", "standard"]).stdout(writer).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
}

#[test]
fn a_run_whose_stderr_reader_is_gone_measures_every_sample() {
    // `collector run … 2>&1 | head -1`: progress goes to a pipe nobody reads
    // from the start; each write fails with a broken pipe, and the run goes
    // on to its last sample, where `eprintln!` panicked on the first.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = collector()
        .args(["run", "--profile", "quick", "--stages", "cpu", "--provider", "local", "--runner", "dev-linux-x64"])
        .arg("--out")
        .arg(&out)
        .stderr(writer)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let cpu = measured(&out).stages.cpu.unwrap();
    assert_eq!(cpu.samples.iter().map(|s| s.status).collect::<Vec<_>>(), [Status::Ok; 3]);
}

#[test]
fn assemble_refuses_parts_of_different_runs() {
    let dir = tempfile::tempdir().unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
    let mut other: serde_json::Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
    other["parameters"]["cpu_seconds"] = 10.into();
    let params: runner_bench_format::Parameters = serde_json::from_value(other["parameters"].clone()).unwrap();
    other["fingerprint"] = params.fingerprint().as_str().into();
    let other_path = dir.path().join("other.json");
    std::fs::write(&other_path, serde_json::to_vec(&other).unwrap()).unwrap();
    let err = stderr_of(
        collector().arg("assemble").arg("--out").arg(dir.path().join("m.json")).arg(&golden).arg(&other_path),
    );
    assert_eq!(
        err,
        format!(
            "error: {}: its fingerprint is {} but {} has 739dba2a6817; only parts of one run can be assembled\n",
            other_path.display(),
            params.fingerprint(),
            golden.display()
        )
    );
    // A part whose own fingerprint disagrees with its parameters is refused too.
    other["parameters"]["cpu_seconds"] = 11.into();
    std::fs::write(&other_path, serde_json::to_vec(&other).unwrap()).unwrap();
    let err = stderr_of(collector().arg("assemble").arg("--out").arg(dir.path().join("m.json")).arg(&other_path));
    let given: runner_bench_format::Parameters = serde_json::from_value(other["parameters"].clone()).unwrap();
    assert_eq!(
        err,
        format!(
            "error: {}: $.fingerprint: recorded {} but the parameters give {}\n",
            other_path.display(),
            params.fingerprint(),
            given.fingerprint()
        )
    );
}

/// Two parts of one run that name a cache backend or a trial's pair
/// differently cannot both be right: the merge is refused, not one side
/// silently dropped or both kept.
#[test]
fn assemble_refuses_parts_that_disagree_on_a_cache_backend_or_pair() {
    let dir = tempfile::tempdir().unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
    let golden: serde_json::Value = serde_json::from_slice(&std::fs::read(golden).unwrap()).unwrap();
    // Part a: the whole file; part b: only its cache stage, changed.
    let a = dir.path().join("a.json");
    std::fs::write(&a, serde_json::to_vec(&golden).unwrap()).unwrap();
    let b = dir.path().join("b.json");
    let part_b = |change: &dyn Fn(&mut serde_json::Value)| {
        let mut v = golden.clone();
        let cache = v["stages"]["cache"].clone();
        v["stages"] = serde_json::json!({ "cache": cache });
        change(&mut v["stages"]["cache"]);
        std::fs::write(&b, serde_json::to_vec(&v).unwrap()).unwrap();
        stderr_of(collector().arg("assemble").arg("--out").arg(dir.path().join("m.json")).arg(&a).arg(&b))
    };
    let err = part_b(&|c| {
        c["pairs"] = serde_json::json!([c["pairs"][0].clone()]);
        c["pairs"][0]["key"] = "runner-bench-18342215517-1-github-again".into();
    });
    assert_eq!(
        err,
        format!(
            "error: {}: trial 1 of cache backend github has key runner-bench-18342215517-1-github-again here but \
             runner-bench-18342215517-1-github in an earlier part; a run saves each trial to each backend once\n",
            b.display()
        )
    );
    let err = part_b(&|c| {
        c["pairs"] = serde_json::json!([]);
        c["backends"][0]["kind"] = "attached-volume".into();
    });
    assert_eq!(
        err,
        format!(
            "error: {}: cache backend github is attached-volume here but archive-service in an earlier part; one \
             run's parts name one backend by one id\n",
            b.display()
        )
    );
    assert!(!dir.path().join("m.json").exists());
}

#[test]
fn assemble_writes_the_submission_path_and_records_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
    let whole = measured(&golden);
    // The measure job's part and the cache jobs' part of one run.
    let mut value: serde_json::Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
    let stages = value["stages"].as_object_mut().unwrap();
    let cache = stages.remove("cache").unwrap();
    let measure = dir.path().join("part-measure.json");
    std::fs::write(&measure, serde_json::to_vec(&value).unwrap()).unwrap();
    let mut cache_part: serde_json::Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
    cache_part["stages"] = serde_json::json!({ "cache": cache });
    cache_part["notices"] = serde_json::json!([]);
    let save = dir.path().join("part-save-1.json");
    std::fs::write(&save, serde_json::to_vec(&cache_part).unwrap()).unwrap();

    let outputs = dir.path().join("github-output");
    let summary = dir.path().join("summary.md");
    let status = collector()
        .arg("assemble")
        .arg("--results-dir")
        .arg(dir.path().join("results"))
        .env(
            "RUNNER_BENCH_JOBS",
            r#"{"measure": {"result": "success", "outputs": {}}, "restore-2": {"result": "cancelled"}}"#,
        )
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .arg(&measure)
        .arg(&save)
        .status()
        .unwrap();
    assert!(status.success());
    let gh = whole.provenance.github.as_ref().unwrap();
    let rel = format!(
        "example/example-linux-x64/{}-{}-{}.json",
        whole.provenance.started_at.instant().strftime("%Y-%m-%d"),
        gh.run_id,
        gh.run_attempt
    );
    let path = dir.path().join("results").join(&rel);
    let merged = measured(&path);
    assert_eq!(merged.stages, whole.stages);
    let jobs: Vec<(&str, Option<u32>)> = merged.provenance.jobs.iter().map(|j| (j.job.as_str(), j.trial)).collect();
    assert_eq!(jobs, [("measure", None), ("restore-2", Some(2))]);
    assert_eq!(
        merged.notices.last().unwrap().message.as_str(),
        "job restore-2 ended with conclusion cancelled: trial 2's cache pairs are attempted and not completed"
    );
    assert_eq!(std::fs::read_to_string(&outputs).unwrap(), format!("path={}\n", path.display()));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("Jobs: 1 of 2 succeeded."), "{md}");
    assert!(md.contains("- workflow: job restore-2 ended with conclusion cancelled"), "{md}");
}

#[test]
fn assemble_needs_a_destination_and_a_run_id_for_the_submission_path() {
    let dir = tempfile::tempdir().unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
    let err = stderr_of(collector().arg("assemble").arg(&golden));
    assert!(
        err.starts_with(
            "error: the following required arguments were not provided:\n  <--out <OUT>|--results-dir <RESULTS_DIR>>"
        ),
        "{err}"
    );
    let mut value: serde_json::Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
    value["provenance"].as_object_mut().unwrap().remove("github");
    let part = dir.path().join("part.json");
    std::fs::write(&part, serde_json::to_vec(&value).unwrap()).unwrap();
    let err = stderr_of(collector().arg("assemble").arg("--results-dir").arg(dir.path()).arg(&part));
    assert_eq!(
        err,
        "error: the parts record no GitHub Actions run, so the result has no run id for its file name; use --out\n"
    );
}

/// `collector cache prepare save` with the given actions, in a fresh
/// workspace and state folder, outside GitHub Actions.
fn prepare_save(dir: &Path, actions: &[&str]) -> Command {
    let mut cmd = collector();
    cmd.args(["cache", "prepare", "save", "--slot", "1", "--trial", "1", "--profile", "quick"])
        .args(["--provider", "example", "--runner", "example-linux-x64"])
        .arg("--workspace")
        .arg(dir)
        .arg("--state-dir")
        .arg(dir)
        .env_remove("GITHUB_PATH")
        .env_remove("WARPBUILD_RUNNER_VERIFICATION_TOKEN");
    for a in actions {
        cmd.args(["--action", a]);
    }
    cmd
}

#[test]
fn prepare_refuses_an_action_it_cannot_time() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        stderr_of(&mut prepare_save(dir.path(), &["buildjet"])),
        "error: --action: unknown action \"buildjet\"; the workflow runs actions-cache, warpbuild, runs-on\n"
    );
    assert_eq!(
        stderr_of(&mut prepare_save(dir.path(), &["warpbuild"])),
        "error: WarpBuilds/cache needs WARPBUILD_RUNNER_VERIFICATION_TOKEN in the job's environment to reach its \
         provider's cache; without it the action uses GitHub's cache or does nothing, so it is not timed on this \
         runner\n"
    );
    assert_eq!(
        stderr_of(&mut prepare_save(dir.path(), &["actions-cache", "actions-cache"])),
        "error: --action: actions-cache is given twice\n"
    );
    assert_eq!(
        stderr_of(&mut prepare_save(dir.path(), &["actions-cache", "runs-on", "warpbuild"])),
        "error: --action: 3 actions given; a job has 2 slots (benchmark.yml)\n"
    );
}

#[test]
fn prepare_then_record_around_a_step_that_did_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = prepare_save(dir.path(), &["actions-cache"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let key = err.lines().find_map(|l| l.strip_prefix("action=actions-cache key=")).unwrap();
    let key = key.split(' ').next().unwrap().to_string();
    assert!(key.starts_with("runner-bench-example-linux-x64-actions-cache-t1-"), "{err}");
    // No worker process and no GITHUB_PATH outside Actions: both noticed.
    let record = |steps: &str| {
        let mut cmd = collector();
        cmd.args(["cache", "record", "save", "--slot", "1", "--trial", "1", "--steps", steps])
            .arg("--workspace")
            .arg(dir.path())
            .arg("--state-dir")
            .arg(dir.path())
            .arg("--handoff")
            .arg(dir.path().join("handoff-1.json"))
            .arg("--out")
            .arg(dir.path().join("part-save-1.json"));
        cmd
    };
    assert_eq!(
        stderr_of(&mut record("{}")),
        "error: the steps context has no step save-1-actions-cache with an outcome; the action's step must have that \
         id (see .github/workflows/benchmark.yml)\n"
    );
    let out = record(r#"{"save-1-actions-cache":{"outcome":"failure","outputs":{}}}"#).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = measured(&dir.path().join("part-save-1.json"));
    let pair = &r.stages.cache.as_ref().unwrap().pairs[0];
    assert_eq!(pair.key.as_str(), key);
    assert_eq!(pair.save.status, Status::Error);
    assert_eq!(pair.save.message.as_ref().unwrap().as_str(), "the action step's outcome is failure");
    let a = pair.save.action.as_ref().unwrap();
    assert_eq!(a.uses.as_str(), "actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae");
    // Nothing ran through the shim, which was never on the step's PATH.
    assert_eq!(a.single_thread, runner_bench_format::measured::Observation::NotObserved);
    let notices: Vec<&str> = r.notices.iter().map(|n| n.message.as_str()).collect();
    assert!(
        notices.contains(
            &"GITHUB_PATH is not set: the zstd shim could not be put on the action's PATH, so the compressor threads \
              were not forced to one"
        ),
        "{notices:?}"
    );
    assert!(pair.save.seconds.is_some());
    // A slot is recorded once: a second record of it (a re-run step, a
    // workspace reused from another run) is refused, not added beside it.
    assert_eq!(
        stderr_of(&mut record(r#"{"save-1-actions-cache":{"outcome":"failure","outputs":{}}}"#)),
        format!(
            "error: {}: trial 1 of actions-cache is recorded already; each slot is recorded once\n",
            dir.path().join("part-save-1.json").display()
        )
    );
}

/// prepare pins its worker ancestor, and what the worker starts afterwards
/// (the action's step, here `grep`) runs on that CPU. The worker is a copy
/// of sh named as RUNNER_BENCH_WORKER_PROCESS says, as Runner.Worker starts
/// every step of a job on GitHub.
#[cfg(target_os = "linux")]
#[test]
fn prepare_pins_the_worker_and_what_it_starts_later() {
    let dir = tempfile::tempdir().unwrap();
    let allowed = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = allowed.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap().trim().to_string();
    let cpu = list.split([',', '-']).filter_map(|c| c.parse::<u32>().ok()).max().unwrap();
    let worker = dir.path().join("Worker.Test");
    std::fs::copy("/bin/sh", &worker).unwrap();
    let mut prepare = prepare_save(dir.path(), &["actions-cache"]);
    prepare.args(["--cpu", &cpu.to_string()]);
    let cmd = Command::new(&worker)
        .args(["-c", r#""$@" 2>&1 || exit 9; grep Cpus_allowed_list /proc/self/status"#, "Worker.Test"])
        .arg(prepare.get_program())
        .args(prepare.get_args())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_OUTPUT")
        .env_remove("GITHUB_PATH")
        .env("RUNNER_BENCH_WORKER_PROCESS", "Worker.Test")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&cmd.stdout);
    assert!(cmd.status.success(), "{out}");
    assert_eq!(out.lines().last(), Some(format!("Cpus_allowed_list:\t{cpu}").as_str()), "{out}");
}
