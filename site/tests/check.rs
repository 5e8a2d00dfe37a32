//! `site check`: every rule, with the exact messages a submitter sees.

mod common;

use common::*;
use runner_bench_format::Parameters;
use serde_json::json;

#[test]
fn the_golden_result_at_its_path_passes() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let runs = accepted(dir.path());
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].rel_path, GOLDEN_PATH);
}

/// A result of the standard profile with the all-core CPU stage passes, as
/// does the shared golden result, of a collector before that stage.
#[test]
fn a_result_with_the_all_core_stage_passes() {
    let allcore = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1-allcore.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(allcore).unwrap()).unwrap();
    assert!(v["stages"]["cpu_allcore"].is_object());
    assert_eq!(problems_of(&v), []);
}

#[test]
fn the_committed_results_pass() {
    let results = concat!(env!("CARGO_MANIFEST_DIR"), "/../results");
    let checked = site::output::testing::check(&[results.into()]).unwrap();
    assert!(checked.problems.is_empty(), "{}", checked.human_report());
    assert_eq!(checked.runs.len(), 5);
    assert_eq!(site::providers(&checked.runs), ["latchkey", "rbcs", "starsling", "ubicloud"]);
}

#[test]
fn a_file_is_read_strictly() {
    let mut v = golden();
    v["format_version"] = json!(2);
    assert_eq!(
        problems_of(&v),
        [golden_problem("$.format_version", "unsupported format version 2; this reader understands version 1")]
    );
    let mut v = golden();
    v["machine"]["extra"] = json!(1);
    let p = problems_of(&v);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].1, "$.machine.extra");
    assert_eq!(
        p[0].2,
        "unknown field `extra`, expected one of `os`, `os_release`, `arch`, `cpu_model`, `logical_cpus`, \
         `memory_bytes`, `kernel`, `virtualization`, `instance` at line 30 column 11"
    );
}

#[test]
fn an_object_written_as_an_array_is_refused() {
    // serde_json alone reads a struct from an array of its fields in order;
    // the format, and its schema, say object.
    let mut v = golden();
    v["provider"] = json!(["example", "Example Cloud"]);
    assert_eq!(
        problems_of(&v),
        [golden_problem("$.provider", "invalid type: sequence, expected struct Provider at line 105 column 3")]
    );
    let mut v = golden();
    v["stages"]["cpu"]["samples"][0]["affinity"] = json!(["pinned", 0, 0]);
    let p = problems_of(&v);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].1, "$.stages.cpu.samples[0].affinity");
    assert_eq!(p[0].2, "invalid type: sequence, expected struct Affinity at line 407 column 11");
}

#[test]
fn the_path_must_agree_with_the_content() {
    let dir = results_dir();
    put(dir.path(), "example/other-runner/2026-11-29-18342215517-1.json", &golden());
    assert_eq!(
        problems(dir.path(), &check(dir.path())),
        [(
            "example/other-runner/2026-11-29-18342215517-1.json".to_string(),
            "$".to_string(),
            "the path does not agree with the content: expected \
             results/example/example-linux-x64/2026-11-29-18342215517-1.json, found \
             results/example/other-runner/2026-11-29-18342215517-1.json"
                .to_string()
        )]
    );
}

#[test]
fn without_github_provenance_the_run_is_named_by_the_content_hash() {
    let mut v = golden();
    v["provenance"].as_object_mut().unwrap().remove("github");
    let dir = results_dir();
    let path = put(dir.path(), "example/example-linux-x64/2026-11-29-000000000000.json", &v);
    let checked = check(dir.path());
    let sha = runner_bench_format::hex(&<sha2::Sha256 as sha2::Digest>::digest(std::fs::read(&path).unwrap()));
    let expected = format!("example/example-linux-x64/2026-11-29-{}.json", &sha[..12]);
    assert_eq!(
        checked.problems[0].reason,
        format!(
            "the path does not agree with the content: expected results/{expected}, found \
             results/example/example-linux-x64/2026-11-29-000000000000.json"
        )
    );
    let dir = results_dir();
    put(dir.path(), &expected, &v);
    assert_eq!(accepted(dir.path()).len(), 1);
}

#[test]
fn the_fingerprint_is_recomputed_from_the_parameters() {
    let mut v = golden();
    v["parameters"]["cpu_workload"] = json!("coremark-1.0-total-data-size-1200");
    let params: Parameters = serde_json::from_value(v["parameters"].clone()).unwrap();
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.fingerprint",
            &format!("recorded 739dba2a6817 but the parameters give {}", params.fingerprint())
        )]
    );
}

#[test]
fn two_files_cannot_claim_one_github_run() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let mut v = golden();
    v["provenance"]["started_at"] = json!("2026-11-30T10:00:00Z");
    v["provenance"]["finished_at"] = json!("2026-11-30T10:31:07Z");
    // Its cache transfers move with it: they start within their run.
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        for half in ["save", "restore"] {
            let t = pair[half]["started_at"].as_str().unwrap().replace("2026-11-29", "2026-11-30");
            pair[half]["started_at"] = json!(t);
        }
    }
    put(dir.path(), "example/example-linux-x64/2026-11-30-18342215517-1.json", &v);
    let first = dir.path().join(GOLDEN_PATH).display().to_string();
    assert_eq!(
        problems(dir.path(), &check(dir.path())),
        [(
            "example/example-linux-x64/2026-11-30-18342215517-1.json".to_string(),
            "$.provenance.github.run_id".to_string(),
            format!("GitHub run 18342215517 attempt 1 of runner example-linux-x64 is already claimed by {first}")
        )]
    );
}

#[test]
fn two_files_cannot_have_the_same_content() {
    let a = results_dir();
    let b = results_dir();
    let first = put(a.path(), GOLDEN_PATH, &golden());
    let second = put(b.path(), GOLDEN_PATH, &golden());
    let checked = site::output::testing::check(&[a.path().to_path_buf(), b.path().to_path_buf()]).unwrap();
    let got: Vec<(String, String, String)> =
        checked.problems.iter().map(|p| (p.file.clone(), p.field.clone(), p.reason.clone())).collect();
    assert_eq!(
        got,
        [(second.display().to_string(), "$".to_string(), format!("has the same content as {}", first.display()))]
    );
}

#[test]
fn a_restore_on_the_save_instance_is_rejected() {
    let mut v = golden();
    let save = v["stages"]["cache"]["pairs"][1]["save"]["instance"].clone();
    v["stages"]["cache"]["pairs"][1]["restore"]["instance"] = save;
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cache.pairs[1].restore.instance",
            "the restore ran on the save's OS instance (boot_id 6f1c2a4e-93b1-4d0e-9a57-2b8c1d0e4f10); a restore \
             must come from a different OS instance than its save"
        )]
    );
}

/// Gives every cache pair of `v` the save instance `save` and the restore
/// instance `restore`.
fn set_instances(v: &mut serde_json::Value, save: &serde_json::Value, restore: &serde_json::Value) {
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        pair["save"]["instance"] = save.clone();
        pair["restore"]["instance"] = restore.clone();
    }
}

/// What the collector records on macOS: kern.bootsessionuuid and the
/// IOPlatformUUID.
fn macos_instance(boot_id: &str, machine_id: &str) -> serde_json::Value {
    json!({ "boot_id": boot_id, "machine_id": machine_id })
}

#[test]
fn macos_pairs_on_two_instances_pass_and_on_one_are_rejected() {
    let save = macos_instance("0F4B2C1A-9D3E-4F5A-8B6C-7D8E9F0A1B2C", "7A2B1C3D-4E5F-4789-ABCD-EF0123456789");
    let other = macos_instance("5C6D7E8F-1A2B-4C3D-9E0F-A1B2C3D4E5F6", "564D8F2B-0C4E-4B0A-9F2C-1D3E5F7A9B0C");
    // Virtual machines cloned from one image may share a platform UUID; the
    // boot session tells them apart.
    let clone = macos_instance("5C6D7E8F-1A2B-4C3D-9E0F-A1B2C3D4E5F6", "7A2B1C3D-4E5F-4789-ABCD-EF0123456789");
    let mut v = golden();
    v["machine"]["os"] = json!("macos");
    v["machine"]["instance"] = save.clone();
    for restore in [&other, &clone] {
        set_instances(&mut v, &save, restore);
        assert_eq!(problems_of(&v), [], "{restore}");
    }
    set_instances(&mut v, &save, &other);
    v["stages"]["cache"]["pairs"][1]["restore"]["instance"] = save.clone();
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cache.pairs[1].restore.instance",
            "the restore ran on the save's OS instance (boot_id 0F4B2C1A-9D3E-4F5A-8B6C-7D8E9F0A1B2C); a restore \
             must come from a different OS instance than its save"
        )]
    );
}

#[test]
fn unknown_instances_are_never_called_the_same() {
    let unknown = json!({ "boot_id": "unknown", "machine_id": "unknown" });
    let linux = golden()["stages"]["cache"]["pairs"][0]["save"]["instance"].clone();
    let boot_only = json!({ "boot_id": linux["boot_id"], "machine_id": "unknown" });
    let mut v = golden();
    v["machine"]["os"] = json!("macos");
    // An old collector's macOS pair: both unknown. Cannot tell, so not
    // rejected; nor a known instance against an unknown one, nor one whose
    // only known id agrees.
    for (save, restore) in [(&unknown, &unknown), (&linux, &unknown), (&unknown, &linux), (&boot_only, &boot_only)] {
        set_instances(&mut v, save, restore);
        assert_eq!(problems_of(&v), [], "save {save}, restore {restore}");
    }
}

#[test]
fn every_requested_sample_is_attempted() {
    let mut v = golden();
    v["stages"]["cpu"]["samples"].as_array_mut().unwrap().pop();
    v["stages"]["disk"]["samples"].as_array_mut().unwrap().pop();
    v["stages"]["internet"]["download"].as_array_mut().unwrap().pop();
    v["stages"]["internet"]["request"].as_array_mut().unwrap().pop();
    let tail = "every requested sample is attempted, including after a sample timeout";
    assert_eq!(
        problems_of(&v),
        [
            golden_problem(
                "$.stages.cpu.samples",
                &format!("4 of 5 requested samples attempted (parameters.cpu_samples); {tail}")
            ),
            golden_problem(
                "$.stages.disk.samples",
                &format!("4 of 5 requested samples attempted (parameters.disk_samples); {tail}")
            ),
            golden_problem(
                "$.stages.internet.download",
                &format!("2 of 3 requested samples attempted (parameters.internet_samples); {tail}")
            ),
            golden_problem(
                "$.stages.internet.request",
                &format!("4 of 5 requested samples attempted (parameters.internet_request_samples); {tail}")
            ),
        ]
    );
}

#[test]
fn more_samples_than_requested_are_rejected() {
    let mut v = golden();
    let extra = v["stages"]["cpu"]["samples"][0].clone();
    v["stages"]["cpu"]["samples"].as_array_mut().unwrap().push(extra);
    assert_eq!(
        problems_of(&v),
        [golden_problem("$.stages.cpu.samples", "6 samples attempted but parameters.cpu_samples requested 5")]
    );
}

#[test]
fn a_failed_coremark_validation_is_never_accepted() {
    let mut v = golden();
    v["stages"]["cpu"]["samples"][0]["validation"] = json!("failed");
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cpu.samples[0].validation",
            "CoreMark validation failed, so the sample is not accepted; its status must not be \"ok\""
        )]
    );
}

#[test]
fn a_failed_sample_needs_a_message() {
    let mut v = golden();
    v["stages"]["disk"]["samples"][0]["status"] = json!("timeout");
    assert_eq!(
        problems_of(&v),
        [golden_problem("$.stages.disk.samples[0].message", "required when status is not \"ok\"")]
    );
}

#[test]
fn a_cache_miss_is_never_retried_or_replaced() {
    let mut v = golden();
    let retry = v["stages"]["cache"]["pairs"][0].clone();
    v["stages"]["cache"]["pairs"].as_array_mut().unwrap().push(retry);
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cache.pairs[6]",
            "backend \"github\" trial 1 appears twice; a miss is a failure and is never retried or replaced"
        )]
    );
}

#[test]
fn every_cache_trial_is_attempted() {
    let mut v = golden();
    let pairs = v["stages"]["cache"]["pairs"].as_array_mut().unwrap();
    let at = pairs.iter().position(|p| p["backend"] == "github" && p["trial"] == 3).unwrap();
    pairs.remove(at);
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cache.pairs",
            "backend \"github\" has 2 of 3 requested pairs (parameters.cache_trials); every trial is attempted"
        )]
    );
}

#[test]
fn routing_that_differs_cannot_be_called_a_match() {
    let mut v = golden();
    v["stages"]["cache"]["pairs"][0]["verification"]["routing"]["observed"] = json!("cache.example.net");
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cache.pairs[0].verification.routing.matches",
            "is true but the observed routing \"cache.example.net\" differs from the expected \
             \"productionresultssa0.blob.core.windows.net\""
        )]
    );
}

#[test]
fn a_services_routing_is_checked_against_its_host_patterns() {
    // The collector writes an archive service's routing as the backend's
    // patterns and the hosts it saw, which are never the same text.
    let mut v = golden();
    let routing = &mut v["stages"]["cache"]["pairs"][0]["verification"]["routing"];
    routing["expected"] = json!("*.blob.core.windows.net");
    routing["observed"] = json!(
        "upload productionresultssa0.blob.core.windows.net; download productionresultssa0.blob.core.windows.net; \
         provider variables: none"
    );
    assert_eq!(problems_of(&v), Vec::<(String, String, String)>::new());
    v["stages"]["cache"]["pairs"][0]["verification"]["routing"]["observed"] = json!(
        "upload productionresultssa0.blob.core.windows.net; download cache.example.net; provider variables: none"
    );
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cache.pairs[0].verification.routing.matches",
            "is true but the observed routing \"upload productionresultssa0.blob.core.windows.net; download \
             cache.example.net; provider variables: none\" differs from the expected \"*.blob.core.windows.net\""
        )]
    );
}

#[test]
fn every_problem_of_every_file_is_reported_grouped_by_file() {
    let dir = results_dir();
    let mut a = golden();
    a["stages"]["cpu"]["samples"][0]["validation"] = json!("failed");
    a["stages"]["cpu"]["samples"][1]["validation"] = json!("failed");
    put(dir.path(), GOLDEN_PATH, &a);
    let mut b = golden();
    b["runner"]["label"] = json!("example-linux-arm64");
    b["provenance"]["github"]["run_id"] = json!(1);
    another_run(&mut b, 1);
    put(dir.path(), "example/example-linux-arm64/2026-11-29-1-2.json", &b);
    let checked = check(dir.path());
    let d = dir.path().display();
    let reason = "CoreMark validation failed, so the sample is not accepted; its status must not be \"ok\"";
    assert_eq!(
        checked.human_report(),
        format!(
            "{d}/example/example-linux-arm64/2026-11-29-1-2.json\n  $: the path does not agree with the content: \
             expected results/example/example-linux-arm64/2026-11-29-1-1.json, found \
             results/example/example-linux-arm64/2026-11-29-1-2.json\n\
             {d}/{GOLDEN_PATH}\n  $.stages.cpu.samples[0].validation: {reason}\n  \
             $.stages.cpu.samples[1].validation: {reason}\n\
             2 rejected, 0 of 2 result files accepted\n"
        )
    );
    // The annotation is on the line of the first sample's "validation" key.
    let text = std::fs::read_to_string(dir.path().join(GOLDEN_PATH)).unwrap();
    let line = 1 + text.lines().position(|l| l.contains("\"validation\"")).unwrap();
    assert_eq!(
        checked.github_report().lines().nth(1).unwrap(),
        format!(
            "::error file={d}/{GOLDEN_PATH},line={line},title=site check::$.stages.cpu.samples[0].validation: {reason}"
        )
    );
}

#[test]
fn github_annotations_escape_their_properties() {
    let checked: site::Checked = site::Checked {
        problems: vec![site::Problem {
            file: "results/a,b:c.json".to_string(),
            field: "$".to_string(),
            reason: "50%\nnext".to_string(),
        }],
        ..Default::default()
    };
    // A line break in a reason is escaped like every control character
    // (issue 13, class 8), so it is never `%0A`.
    assert_eq!(checked.github_report(), "::error file=results/a%2Cb%3Ac.json,title=site check::$: 50%25\\nnext\n");
}

fn exclusions(dir: &std::path::Path, text: &str) {
    std::fs::write(dir.join("exclusions.toml"), text).unwrap();
}

#[test]
fn an_excluded_result_stays_on_record_with_its_reason() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    exclusions(
        dir.path(),
        &format!("[[exclude]]\nfile = \"{GOLDEN_PATH}\"\nreason = \"Image misconfigured | see #12\"\n"),
    );
    let runs = accepted(dir.path());
    assert_eq!(runs[0].excluded.as_deref(), Some("Image misconfigured | see #12"));
    let report = render("example", &runs);
    assert!(!report.contains("## Pinned results"), "{report}");
    assert!(
        report.ends_with(&format!(
            "## Excluded results\n\nKept on record but out of every comparison, for the reason the maintainers \
             give.\n\n- `{GOLDEN_PATH}`: Image misconfigured \\| see #12\n"
        )),
        "{report}"
    );
}

#[test]
fn exclusions_must_name_a_result_and_a_reason() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    exclusions(
        dir.path(),
        "[[exclude]]\nfile = \"example/nope.json\"\nreason = \"x\"\n\n[[exclude]]\nfile = \"example/example-linux-x64/2026-11-29-18342215517-1.json\"\nreason = \" \"\n",
    );
    let file = dir.path().join("exclusions.toml").display().to_string();
    let got: Vec<(String, String, String)> =
        check(dir.path()).problems.into_iter().map(|p| (p.file, p.field, p.reason)).collect();
    assert_eq!(
        got,
        [
            (
                file.clone(),
                "exclude[0].file".to_string(),
                "no result file example/nope.json in this folder".to_string()
            ),
            (file, "exclude[1].reason".to_string(), "must say why the result is excluded".to_string()),
        ]
    );
    // A reason is shown beside the result: text that hides or reorders
    // what is shown is refused, as in a result file's message.
    exclusions(
        dir.path(),
        "[[exclude]]\nfile = \"example/example-linux-x64/2026-11-29-18342215517-1.json\"\nreason = \"ok\\u202Exx\"\n",
    );
    let got: Vec<(String, String)> = check(dir.path()).problems.into_iter().map(|p| (p.field, p.reason)).collect();
    assert_eq!(
        got,
        [(
            "exclude[0].reason".to_string(),
            "text contains U+202E, a bidirectional embedding, override or isolate; displayed text must show what it \
             says"
                .to_string()
        )]
    );
}

#[test]
fn an_exclusion_names_a_file_below_its_folder() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    exclusions(
        dir.path(),
        "[[exclude]]\nfile = \"../../etc/hostname\"\nreason = \"x\"\n\n[[exclude]]\nfile = \"/etc/hostname\"\nreason = \"x\"\n",
    );
    let file = dir.path().join("exclusions.toml").display().to_string();
    let got: Vec<(String, String, String)> =
        check(dir.path()).problems.into_iter().map(|p| (p.file, p.field, p.reason)).collect();
    assert_eq!(
        got,
        [
            (
                file.clone(),
                "exclude[0].file".to_string(),
                "../../etc/hostname leaves this folder; name a result file below it, without ..".to_string()
            ),
            (
                file,
                "exclude[1].file".to_string(),
                "/etc/hostname leaves this folder; name a result file below it, without ..".to_string()
            ),
        ]
    );
}

#[test]
fn an_exclusions_file_that_does_not_parse_is_a_problem() {
    let dir = results_dir();
    exclusions(dir.path(), "[[exclude]]\nfile = \"x\"\n");
    let checked = check(dir.path());
    assert_eq!(checked.problems.len(), 1);
    assert_eq!(checked.problems[0].reason, "not a valid exclusions file: missing field `reason`");
}

#[test]
fn the_command_exits_non_zero_when_a_file_is_rejected() {
    let dir = results_dir();
    let mut v = golden();
    v["format_version"] = json!(2);
    put(dir.path(), GOLDEN_PATH, &v);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["check", "--format", "github"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "::error file={}/{GOLDEN_PATH},line={},title=site check::$.format_version: unsupported format version 2; \
             this reader understands version 1\n",
            dir.path().display().to_string().replace(':', "%3A").replace(',', "%2C"),
            1 + std::fs::read_to_string(dir.path().join(GOLDEN_PATH))
                .unwrap()
                .lines()
                .position(|l| l.contains("\"format_version\""))
                .unwrap()
        )
    );
    let ok = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .arg("check")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../results"))
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stdout));
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    // `site check | head -0`: the reader is gone before the report is
    // written, so its first write fails with a broken pipe; the exit status
    // is 0 even where the report says files were rejected (status 1).
    let dir = results_dir();
    let mut v = golden();
    v["format_version"] = json!(2);
    put(dir.path(), GOLDEN_PATH, &v);
    for results in [dir.path(), std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results"))] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
            .arg("check")
            .arg(results)
            .stdout(writer)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", results.display());
        assert_eq!(String::from_utf8(out.stderr).unwrap(), "", "{}", results.display());
    }
}

#[test]
fn published_aggregates_must_be_consistent() {
    let rel = "ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json";
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../results/").to_string() + rel);
    let mut v: serde_json::Value = serde_json::from_str(&committed.unwrap()).unwrap();
    v["stages"]["cpu"]["iterations_per_s"]["median"] = json!(40000.0);
    v["stages"]["cache"]["backends"][0]["verified_pairs"] = json!(4);
    v["stages"]["disk"]["counts"]["completed"] = json!(6);
    let dir = results_dir();
    put(dir.path(), rel, &v);
    let got: Vec<(String, String)> = check(dir.path()).problems.into_iter().map(|p| (p.field, p.reason)).collect();
    assert_eq!(
        got,
        [
            (
                "$.stages.cpu.iterations_per_s".to_string(),
                "the median 40000 is outside the range 29068.42–37639.26".to_string()
            ),
            ("$.stages.cache.backends[0].verified_pairs".to_string(), "4 verified pairs of 3 pairs".to_string()),
            ("$.stages.disk.counts".to_string(), "6 completed / 5 attempted / 5 requested is not possible".to_string()),
        ]
    );
}

/// The golden result with the jobs of a split run: `failed` names the jobs
/// that ended with which conclusion; every other job succeeded.
fn with_jobs(mut v: serde_json::Value, failed: &[(&str, &str)]) -> serde_json::Value {
    let mut jobs = vec![json!({"job": "measure", "conclusion": "success", "stages": ["cpu", "disk", "internet"]})];
    for t in 1..=3 {
        for phase in ["save", "gap", "restore"] {
            jobs.push(json!({"job": format!("{phase}-{t}"), "conclusion": "success", "stages": ["cache"], "trial": t}));
        }
    }
    for (job, conclusion) in failed {
        let j = jobs.iter_mut().find(|j| j["job"] == *job).unwrap();
        j["conclusion"] = json!(conclusion);
    }
    v["provenance"]["jobs"] = json!(jobs);
    v
}

/// The golden result with its last CPU sample and trial 3's pairs missing.
fn short_of_samples_and_trial_3() -> serde_json::Value {
    let mut v = golden();
    v["stages"]["cpu"]["samples"].as_array_mut().unwrap().pop();
    v["stages"]["cache"]["pairs"].as_array_mut().unwrap().retain(|p| p["trial"] != 3);
    v
}

#[test]
fn a_shortfall_a_failed_job_explains_is_accepted_as_attempted_and_not_completed() {
    let v = with_jobs(
        short_of_samples_and_trial_3(),
        &[("measure", "failure"), ("save-3", "cancelled"), ("gap-3", "skipped"), ("restore-3", "skipped")],
    );
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &v);
    let runs = accepted(dir.path());
    let tail = "the missing ones count as attempted and not completed";
    let notes: Vec<(&str, &str)> = runs[0].notes.iter().map(|n| (n.field.as_str(), n.reason.as_str())).collect();
    assert_eq!(
        notes,
        [
            (
                "$.stages.cpu.samples",
                &*format!(
                    "4 of 5 requested samples attempted (parameters.cpu_samples); {tail}: job measure ended with \
                     conclusion failure"
                )
            ),
            (
                "$.stages.cache.pairs",
                &*format!(
                    "backend \"github\" has 2 of 3 requested pairs (parameters.cache_trials); {tail}: job save-3 \
                     ended with conclusion cancelled; job gap-3 ended with conclusion skipped; job restore-3 ended \
                     with conclusion skipped"
                )
            ),
            (
                "$.stages.cache.pairs",
                &*format!(
                    "backend \"volume\" has 2 of 3 requested pairs (parameters.cache_trials); {tail}: job save-3 \
                     ended with conclusion cancelled; job gap-3 ended with conclusion skipped; job restore-3 ended \
                     with conclusion skipped"
                )
            ),
        ]
    );
    // `site check` prints them under the result, and as notices on their
    // lines for GitHub.
    let human = checked_output(dir.path(), "human");
    let file = format!("{}/{GOLDEN_PATH}", dir.path().display());
    assert_eq!(
        human,
        format!(
            "{file}: self-built: the result records no binary identity (collector before 0.2.0)\n  \
             $.stages.cpu.samples: {}\n  $.stages.cache.pairs: {}\n  $.stages.cache.pairs: {}\n1 files accepted\n",
            notes[0].1, notes[1].1, notes[2].1
        )
    );
    let github = checked_output(dir.path(), "github");
    let text = std::fs::read_to_string(dir.path().join(GOLDEN_PATH)).unwrap();
    let line_of = |needle: &str| 1 + text.lines().position(|l| l.contains(needle)).unwrap();
    let property = file.replace(':', "%3A").replace(',', "%2C");
    assert_eq!(
        github.lines().nth(1).unwrap(),
        format!(
            "::notice file={property},line={},title=site check::$.stages.cpu.samples: {}",
            line_of("\"samples\""),
            notes[0].1
        )
    );
}

#[test]
fn a_shortfall_only_successful_jobs_cover_is_still_rejected() {
    let tail = "no job in provenance.jobs that measures it ended without success";
    let expected = [
        golden_problem(
            "$.stages.cpu.samples",
            &format!(
                "4 of 5 requested samples attempted (parameters.cpu_samples); every requested sample is attempted, \
                 including after a sample timeout; {tail}"
            ),
        ),
        golden_problem(
            "$.stages.cache.pairs",
            &format!(
                "backend \"github\" has 2 of 3 requested pairs (parameters.cache_trials); every trial is attempted; \
                 {tail}"
            ),
        ),
        golden_problem(
            "$.stages.cache.pairs",
            &format!(
                "backend \"volume\" has 2 of 3 requested pairs (parameters.cache_trials); every trial is attempted; \
                 {tail}"
            ),
        ),
    ];
    assert_eq!(problems_of(&with_jobs(short_of_samples_and_trial_3(), &[])), expected);
    // A job of another trial, or of another stage, explains nothing here.
    assert_eq!(
        problems_of(&with_jobs(short_of_samples_and_trial_3(), &[("restore-2", "failure")])),
        expected,
        "restore-2"
    );
}

#[test]
fn a_job_measures_one_of_the_five_stages() {
    let mut v = with_jobs(golden(), &[]);
    v["provenance"]["jobs"][0]["stages"][2] = json!("network");
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.provenance.jobs[0].stages[2]",
            "unknown stage \"network\"; a job measures cpu, cpu_allcore, disk, internet, cache or http_cache"
        )]
    );
}

/// The test release manifests: v0.2.0, with made-up digests `1…1` for
/// x86_64-unknown-linux-gnu and `2…2`, `3…3`, `4…4` for the others.
const FIXTURE_CONTENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/content");

/// `site check --format <format> --content <the fixtures'> <dir>`'s stdout.
fn checked_output(dir: &std::path::Path, format: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["check", "--format", format, "--content", FIXTURE_CONTENT])
        .arg(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn check_says_which_results_a_published_release_measured() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let mut released = golden();
    released["provenance"]["github"]["run_id"] = json!(18342215518_u64);
    released["collector"]["version"] = json!("0.2.0");
    another_run(&mut released, 1);
    released["collector"]["binary"] = json!({"sha256": "1".repeat(64), "target": "x86_64-unknown-linux-gnu"});
    let released_path = "example/example-linux-x64/2026-11-29-18342215518-1.json";
    put(dir.path(), released_path, &released);
    let d = dir.path().display().to_string();
    assert_eq!(
        checked_output(dir.path(), "human"),
        format!(
            "{d}/{GOLDEN_PATH}: self-built: the result records no binary identity (collector before 0.2.0)\n\
             {d}/{released_path}: published release v0.2.0\n2 files accepted\n"
        )
    );
    let p = d.replace(':', "%3A").replace(',', "%2C");
    assert_eq!(
        checked_output(dir.path(), "github"),
        format!(
            "::notice file={p}/{GOLDEN_PATH},title=site check::self-built: the result records no binary identity \
             (collector before 0.2.0)\n::notice file={p}/{released_path},title=site check::published release v0.2.0\n"
        )
    );
    // The library's check knows no manifests: the same result is self-built
    // there, and still accepted.
    let runs = accepted(dir.path());
    assert_eq!(
        runs[1].release,
        Some(site::releases::ReleaseStatus::SelfBuilt {
            reason: "binary sha256 111111111111… for x86_64-unknown-linux-gnu is not in any published release"
                .to_string()
        })
    );
}

#[test]
fn a_bad_release_manifest_fails_the_check_with_its_field() {
    let content = tempfile::tempdir().unwrap();
    let releases = content.path().join("releases");
    std::fs::create_dir(&releases).unwrap();
    let manifest = std::fs::read_to_string(format!("{FIXTURE_CONTENT}/releases/v0.2.0.toml")).unwrap();
    std::fs::write(releases.join("v0.2.0.toml"), manifest.replacen(&"2".repeat(64), "2222", 1)).unwrap();
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["check", "--content"])
        .arg(content.path())
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let file = releases.join("v0.2.0.toml").display().to_string();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "{}/{GOLDEN_PATH}: self-built: the result records no binary identity (collector before 0.2.0)\n\
             {file}\n  binaries[1].sha256: must be 64 lowercase hex digits\n1 rejected, 1 of 1 result files accepted\n",
            dir.path().display()
        )
    );
}

#[test]
fn the_failed_job_fixture_passes() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/failed-job/results");
    let runs = accepted(std::path::Path::new(fixture));
    assert_eq!(runs.len(), 1);
    // Its trial-2 pairs are all there, without their restores: nothing to
    // explain, so no notes.
    assert!(runs[0].notes.is_empty(), "{:?}", runs[0].notes);
}
