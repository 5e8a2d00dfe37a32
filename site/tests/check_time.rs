//! `site check`: the time rules (issue 13, class 3) and the profile and
//! protocol rules (class 5), with the exact messages a submitter sees, and
//! imported figures never ranked with measured ones. The time of the check
//! is fixed (`site::Context`), so that no test depends on the day it runs.

mod common;

use std::sync::Arc;

use common::*;
use runner_bench_format::{AnyResult, Parameters, from_slice};
use serde_json::{Value, json};

/// The time every check here runs at, unless a test says otherwise.
const NOW: &str = "2026-12-31T00:00:00Z";
/// An imported result with every section and its path below results/.
const UBICLOUD: &str = "ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json";
const UBICLOUD_ARM: &str = "ubicloud/ubicloud-linux-arm64/2026-11-29-imported-2c7ad0467348.json";

fn committed(rel: &str) -> Value {
    let path = format!("{}/../results/{rel}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn context(now: &str) -> site::Context {
    site::Context { now: now.parse().unwrap(), unpublished_profiles: false }
}

/// The problems of a folder holding `files`, checked at `now`, as
/// `(file below the folder, field, reason)`.
fn problems_at(now: &str, files: &[(&str, &Value)]) -> Vec<(String, String, String)> {
    let dir = results_dir();
    for (rel, v) in files {
        put(dir.path(), rel, v);
    }
    let checked = site::output::testing::check_in(&[dir.path().to_path_buf()], None, context(now)).unwrap();
    problems(dir.path(), &checked)
}

fn golden_at(now: &str, v: &Value) -> Vec<(String, String, String)> {
    problems_at(now, &[(GOLDEN_PATH, v)])
}

fn problem(file: &str, field: &str, reason: &str) -> (String, String, String) {
    (file.to_string(), field.to_string(), reason.to_string())
}

/// Every date of the golden result moved to `day` (`YYYY-MM-DD`), and the
/// path it then belongs at.
fn golden_on(day: &str) -> (String, Value) {
    let mut v = golden();
    for field in ["started_at", "finished_at"] {
        let t = v["provenance"][field].as_str().unwrap().replace("2026-11-29", day);
        v["provenance"][field] = json!(t);
    }
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        for half in ["save", "restore"] {
            if pair[half].is_object() {
                let t = pair[half]["started_at"].as_str().unwrap().replace("2026-11-29", day);
                pair[half]["started_at"] = json!(t);
            }
        }
    }
    (GOLDEN_PATH.replace("2026-11-29", day), v)
}

#[test]
fn the_committed_results_and_the_fixtures_pass_at_a_fixed_time_and_now() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut folders = vec![format!("{root}/results")];
    for entry in std::fs::read_dir(format!("{root}/site/tests/fixtures")).unwrap() {
        let results = entry.unwrap().path().join("results");
        if results.is_dir() {
            folders.push(results.display().to_string());
        }
    }
    assert!(folders.len() >= 3, "{folders:?}");
    for folder in folders {
        for ctx in [context(NOW), site::Context::default()] {
            let checked = site::output::testing::check_in(&[folder.clone().into()], None, ctx).unwrap();
            assert!(checked.problems.is_empty(), "{folder}: {}", checked.human_report());
            assert!(!checked.runs.is_empty(), "{folder}");
        }
    }
}

#[test]
fn a_date_more_than_ten_minutes_after_the_check_is_refused() {
    // finished_at is 2026-11-29T10:31:07Z: ten minutes ahead is allowed.
    assert_eq!(golden_at("2026-11-29T10:21:07Z", &golden()), []);
    assert_eq!(
        golden_at("2026-11-29T10:21:06Z", &golden()),
        [golden_problem(
            "$.provenance.finished_at",
            "2026-11-29T10:31:07Z is in the future: the check ran at 2026-11-29T10:21:06Z, and at most 10 min of clock \
             skew is allowed"
        )]
    );
    // Every date: the start, and each cache transfer.
    let p = golden_at("2026-11-29T09:00:00Z", &golden());
    assert_eq!(p.len(), 14, "{p:?}");
    assert_eq!(
        p[0],
        golden_problem(
            "$.provenance.started_at",
            "2026-11-29T10:00:00Z is in the future: the check ran at 2026-11-29T09:00:00Z, and at most 10 min of clock \
             skew is allowed"
        )
    );
    assert_eq!(p[2].1, "$.stages.cache.pairs[0].save.started_at");
    assert_eq!(p[3].1, "$.stages.cache.pairs[0].restore.started_at");
    // An import's date too.
    assert_eq!(
        problems_at("2026-11-28T23:00:00Z", &[(UBICLOUD, &committed(UBICLOUD))]),
        [problem(
            UBICLOUD,
            "$.source.imported_at",
            "2026-11-29T00:00:00Z is in the future: the check ran at 2026-11-28T23:00:00Z, and at most 10 min of clock \
             skew is allowed"
        )]
    );
}

#[test]
fn a_date_before_the_project_existed_is_refused() {
    let (path, v) = golden_on("2026-11-28");
    let p = problems_at(NOW, &[(&path, &v)]);
    assert_eq!(p.len(), 14, "{p:?}");
    assert_eq!(
        p[0],
        problem(
            &path,
            "$.provenance.started_at",
            "2026-11-28T10:00:00Z is before the project existed (its first day is 2026-11-29, the date of the \
             repository's first commit); no result can be dated earlier"
        )
    );
    assert_eq!(p[13].1, "$.stages.cache.pairs[5].restore.started_at");

    let mut i = committed(UBICLOUD);
    i["source"]["imported_at"] = json!("2026-11-28T23:59:59Z");
    let path = UBICLOUD.replace("2026-11-29", "2026-11-28");
    assert_eq!(
        problems_at(NOW, &[(&path, &i)]),
        [problem(
            &path,
            "$.source.imported_at",
            "2026-11-28T23:59:59Z is before the project existed (its first day is 2026-11-29, the date of the \
             repository's first commit); no result can be dated earlier"
        )]
    );
}

#[test]
fn a_date_says_which_rule_of_the_form_it_breaks() {
    let at = |t: &str| {
        let mut v = golden();
        v["provenance"]["finished_at"] = json!(t);
        golden_at(NOW, &v)
    };
    assert_eq!(
        at("+002026-11-29T10:31:07Z"),
        [golden_problem(
            "$.provenance.finished_at",
            "\"+002026-11-29T10:31:07Z\" has an expanded year (+002026); RFC 3339 takes a year of 4 digits (like \
             2026-11-29T22:48:25Z) at line 86 column 44"
        )]
    );
    assert_eq!(
        at("2026-11-29 10:31:07Z"),
        [golden_problem(
            "$.provenance.finished_at",
            "\"2026-11-29 10:31:07Z\" is not a UTC time in RFC 3339 form (like 2026-11-29T22:48:25Z) at line 86 \
             column 41"
        )]
    );
    assert_eq!(
        at("2026-11-31T10:31:07Z"),
        [golden_problem(
            "$.provenance.finished_at",
            "\"2026-11-31T10:31:07Z\" is in RFC 3339 form but names no real time: 2026-11 has days 01 to 30, not 31 \
             at line 86 column 41"
        )]
    );
    assert_eq!(
        at("9999-12-31T10:31:07Z"),
        [golden_problem(
            "$.provenance.finished_at",
            "\"9999-12-31T10:31:07Z\" is in RFC 3339 form but outside the instants the date library can represent \
             (-009999-01-02T01:59:59Z to 9999-12-30T22:00:00.999999999Z) at line 86 column 41"
        )]
    );
}

#[test]
fn one_collector_run_lasts_no_longer_than_its_samples_allow() {
    // Without a cache stage or jobs, one `collector run` wrote it: 5 CPU,
    // 5 disk, 3 + 3 + 5 internet and 2 build-cache samples of at most 60 s,
    // and 30 minutes.
    let mut v = golden();
    v["stages"].as_object_mut().unwrap().remove("cache");
    assert_eq!(golden_at(NOW, &v), []);
    v["provenance"]["finished_at"] = json!("2026-11-29T10:53:00Z");
    assert_eq!(golden_at(NOW, &v), []);
    v["provenance"]["finished_at"] = json!("2026-11-29T10:53:01Z");
    assert_eq!(
        golden_at(NOW, &v),
        [golden_problem(
            "$.provenance.finished_at",
            "the run lasted 53 min 1 s (from started_at 2026-11-29T10:00:00Z to 2026-11-29T10:53:01Z); one collector \
             run of 23 samples (23 × sample_timeout_s 60 s, plus 30 min for setup and overruns) lasts at most 53 min"
        )]
    );
}

#[test]
fn an_assembled_run_lasts_no_longer_than_its_workflow() {
    // Ten jobs' waits for a runner (24 h each) and timeouts: 10 d 4 h 45 min.
    let mut v = golden();
    v["provenance"]["finished_at"] = json!("2026-12-09T14:45:00Z");
    assert_eq!(golden_at(NOW, &v), []);
    v["provenance"]["finished_at"] = json!("2026-12-09T14:45:01Z");
    assert_eq!(
        golden_at(NOW, &v),
        [golden_problem(
            "$.provenance.finished_at",
            "the run lasted 10 d 4 h (from started_at 2026-11-29T10:00:00Z to 2026-12-09T14:45:01Z); a benchmark \
             workflow of 3 cache trials (each job's wait for a runner and timeout-minutes) lasts at most 10 d 4 h"
        )]
    );
    // A re-run may come up to 30 days later.
    v["provenance"]["github"]["run_attempt"] = json!(2);
    let path = GOLDEN_PATH.replace("-1.json", "-2.json");
    assert_eq!(problems_at("2027-02-01T00:00:00Z", &[(&path, &v)]), []);
    v["provenance"]["finished_at"] = json!("2027-01-08T14:45:01Z");
    assert_eq!(
        problems_at("2027-02-01T00:00:00Z", &[(&path, &v)]),
        [problem(
            &path,
            "$.provenance.finished_at",
            "the run lasted 40 d 4 h (from started_at 2026-11-29T10:00:00Z to 2027-01-08T14:45:01Z); a benchmark \
             workflow of 3 cache trials (each job's wait for a runner and timeout-minutes, plus GitHub's 30-day \
             re-run window) lasts at most 40 d 4 h"
        )]
    );
}

#[test]
fn a_cache_transfer_starts_within_its_run() {
    let mut v = golden();
    v["stages"]["cache"]["pairs"][0]["save"]["started_at"] = json!("2026-11-29T09:50:00Z");
    v["stages"]["cache"]["pairs"][0]["restore"]["started_at"] = json!("2026-11-29T10:41:07Z");
    assert_eq!(golden_at(NOW, &v), []);
    v["stages"]["cache"]["pairs"][0]["save"]["started_at"] = json!("2026-11-29T09:49:59Z");
    v["stages"]["cache"]["pairs"][0]["restore"]["started_at"] = json!("2026-11-29T10:41:08Z");
    assert_eq!(
        golden_at(NOW, &v),
        [
            golden_problem(
                "$.stages.cache.pairs[0].save.started_at",
                "2026-11-29T09:49:59Z is outside its run (2026-11-29T10:00:00Z to 2026-11-29T10:31:07Z, with 10 min \
                 of clock skew allowed); a transfer starts during the run that records it"
            ),
            golden_problem(
                "$.stages.cache.pairs[0].restore.started_at",
                "2026-11-29T10:41:08Z is outside its run (2026-11-29T10:00:00Z to 2026-11-29T10:31:07Z, with 10 min \
                 of clock skew allowed); a transfer starts during the run that records it"
            ),
        ]
    );
}

#[test]
fn a_measured_result_uses_a_profile_its_collector_defines() {
    let standard = runner_bench_format::Profile::Standard.parameters().fingerprint();
    let quick = runner_bench_format::Profile::Quick.parameters().fingerprint();
    let mut v = golden();
    v["parameters"]["disk_queue_depth"] = json!(2);
    let params: Parameters = serde_json::from_value(v["parameters"].clone()).unwrap();
    v["fingerprint"] = json!(params.fingerprint().to_string());
    assert_eq!(
        golden_at(NOW, &v),
        [golden_problem(
            "$.fingerprint",
            &format!(
                "{} is not a profile collector 0.1.0 defines; it defines standard ({standard}), quick ({quick}), \
                 standard without the all-core stage (739dba2a6817) and quick without the all-core stage \
                 (7a737381e8dd), and results of other parameters are not published",
                params.fingerprint()
            )
        )]
    );
    let mut v = golden();
    v["collector"]["version"] = json!("0.9.0");
    assert_eq!(
        golden_at(NOW, &v),
        [golden_problem(
            "$.collector.version",
            "collector 0.9.0 is not a version the site knows (0.1.0, 0.2.0), so the profiles it defines are unknown"
        )]
    );
}

#[test]
fn an_imported_result_keeps_its_publishers_fingerprint_and_a_protocol_it_can_have() {
    let standard = runner_bench_format::Profile::Standard.parameters().fingerprint();
    let mut i = committed(UBICLOUD);
    i["published_profile"]["fingerprint"] = json!(standard.to_string());
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [problem(
            UBICLOUD,
            "$.published_profile.fingerprint",
            &format!(
                "{standard} is the fingerprint of the measured profile standard; an imported result keeps its \
                 publisher's fingerprint, so that its figures are never ranked with measured ones"
            )
        )]
    );
    let mut i = committed(UBICLOUD);
    i["published_profile"]["protocol"] = json!(0);
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [problem(
            UBICLOUD,
            "$.published_profile.protocol",
            "protocol 0 is no protocol: the published reports number their protocols from 1"
        )]
    );
    let mut i = committed(UBICLOUD);
    i["stages"]["cache"]["backends"][1]["pairs"] = json!(4);
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [problem(
            UBICLOUD,
            "$.stages.cache.backends[1].pairs",
            "4 pairs, but protocol 6 measures three pairs per backend (the published reports: \"Protocol 2 and later \
             measure three unique-key save/restore pairs per backend\")"
        )]
    );
}

#[test]
fn one_published_fingerprint_has_one_profile() {
    let arm = committed(UBICLOUD_ARM);
    let mut x64 = committed(UBICLOUD);
    assert_eq!(problems_at(NOW, &[(UBICLOUD_ARM, &arm), (UBICLOUD, &x64)]), []);
    x64["published_profile"]["protocol"] = json!(5);
    let dir = results_dir();
    put(dir.path(), UBICLOUD_ARM, &arm);
    put(dir.path(), UBICLOUD, &x64);
    let checked = site::output::testing::check_in(&[dir.path().to_path_buf()], None, context(NOW)).unwrap();
    assert_eq!(
        problems(dir.path(), &checked),
        [problem(
            UBICLOUD,
            "$.published_profile",
            &format!(
                "fingerprint e021cd7ddc71 is published with other parameters or protocol in {} (protocol 6); a \
                 fingerprint hashes the protocol and the parameters, so one fingerprint has one profile",
                dir.path().join(UBICLOUD_ARM).display()
            )
        )]
    );
}

#[test]
fn an_imported_variation_agrees_with_its_range() {
    let mut i = committed(UBICLOUD);
    i["stages"]["cpu"]["iterations_per_s"]["variation_pct"] = json!(0.0);
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [problem(
            UBICLOUD,
            "$.stages.cpu.iterations_per_s.variation_pct",
            "0% is less than 5 samples from 29068.42 to 37639.26 vary (at least 7.20%)"
        )]
    );
    let mut i = committed(UBICLOUD);
    let a = &mut i["stages"]["cache"]["backends"][0]["save_s"];
    a["min"] = json!(7.38);
    a["max"] = json!(7.38);
    a["variation_pct"] = json!(1.0);
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [problem(
            UBICLOUD,
            "$.stages.cache.backends[0].save_s.variation_pct",
            "1% is more than samples from 7.38 to 7.38 can vary (at most 0.07%)"
        )]
    );
    // Whatever the minimum, the number of samples bounds the variation.
    let mut i = committed(UBICLOUD);
    let a = &mut i["stages"]["cpu"]["iterations_per_s"];
    a["min"] = json!(0.01);
    a["variation_pct"] = json!(1e308);
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [problem(
            UBICLOUD,
            "$.stages.cpu.iterations_per_s.variation_pct",
            "1.000e308% is more than any 5 samples can vary (at most 200.00%)"
        )]
    );
}

#[test]
fn imported_figures_agree_with_the_published_profile() {
    let mut i = committed(UBICLOUD);
    i["stages"]["cpu"]["samples"] = json!(6);
    i["stages"]["disk"]["counts"]["requested"] = json!(6);
    i["stages"]["disk"]["file_mib"] = json!(512);
    i["stages"]["cache"]["backends"][0]["payload_mib"] = json!(256.0);
    i["stages"]["cache"]["backends"][0]["save_mib_per_s"] = json!(34.69);
    i["stages"]["cache"]["backends"][0]["restore_mib_per_s"] = json!(6.6);
    i["stages"]["internet"]["transfer_mib"] = json!(8);
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [
            problem(
                UBICLOUD,
                "$.stages.cpu.samples",
                "6 samples, but the published profile takes 5 (published_profile.cpu_disk_samples)"
            ),
            problem(
                UBICLOUD,
                "$.stages.disk.counts.requested",
                "6 samples requested, but the published profile takes 5 (published_profile.cpu_disk_samples)"
            ),
            problem(
                UBICLOUD,
                "$.stages.disk.file_mib",
                "512 MiB, but the published profile's disk file is 1024 MiB (published_profile.disk_file_mib)"
            ),
            problem(
                UBICLOUD,
                "$.stages.cache.backends[0].payload_mib",
                "256 MiB, but the published profile's payload is 512 MiB (published_profile.cache_payload_mib)"
            ),
            problem(
                UBICLOUD,
                "$.stages.internet.transfer_mib",
                "8 MiB, but the published profile transfers 1024 MiB (published_profile.internet_transfer_mib)"
            ),
        ]
    );
}

#[test]
fn an_imported_cache_speed_agrees_with_payload_and_time() {
    // 512 MiB in a median of 7.38 s is 69.38 MiB/s; the report printed
    // 69.37 from the unrounded median.
    let mut i = committed(UBICLOUD);
    i["stages"]["cache"]["backends"][0]["save_mib_per_s"] = json!(75.0);
    i["stages"]["cache"]["backends"][1]["restore_mib_per_s"] = json!(40.0);
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [
            problem(
                UBICLOUD,
                "$.stages.cache.backends[0].save_mib_per_s",
                "75 MiB/s disagrees with payload_mib 512 ÷ save_s.median 7.38 s = 69.38 MiB/s (the published \
                 rounding allows 69.32 to 69.44)"
            ),
            problem(
                UBICLOUD,
                "$.stages.cache.backends[1].restore_mib_per_s",
                "40 MiB/s disagrees with payload_mib 512 ÷ restore_s.median 11.14 s = 45.96 MiB/s (the published \
                 rounding allows 45.93 to 45.99)"
            ),
        ]
    );
}

/// A run made without `site check`, as `site build` would get one if the
/// check let it through.
fn run_of(rel: &str, v: &Value) -> site::Run {
    let bytes = serde_json::to_vec(v).unwrap();
    let result: AnyResult = from_slice(&bytes, std::path::Path::new(rel)).unwrap();
    site::Run {
        file: rel.to_string(),
        rel_path: rel.to_string(),
        result: Arc::new(result),
        sha256: String::new(),
        excluded: None,
        release: None,
        notes: vec![],
    }
}

#[test]
fn imported_and_measured_figures_are_never_ranked_in_one_table() {
    // Even when an imported result carried a measured profile's fingerprint
    // (the check refuses it), the site keeps the two apart. The golden
    // result's is the standard profile's before the all-core stage.
    let standard = golden()["fingerprint"].as_str().unwrap().to_string();
    let mut i = committed(UBICLOUD);
    i["published_profile"]["fingerprint"] = json!(standard);
    let runs = [run_of(GOLDEN_PATH, &golden()), run_of(UBICLOUD, &i)];
    let model = site::model::build(&runs, "2026-01-01T00:00:00Z".parse().unwrap(), None);
    let groups: Vec<&site::model::Group> =
        model.groups.iter().filter(|g| g.profiles.iter().any(|p| p.fingerprint == standard)).collect();
    // Each stage has a group (a comparability key) of each kind; the
    // measured one comes first, although the imported one states a newer
    // protocol (6 against 1): a report's protocol number is its claim.
    for stage in ["cpu", "disk", "cache", "internet"] {
        let kinds: Vec<bool> = groups.iter().filter(|g| g.stage == stage).map(|g| g.imported).collect();
        assert_eq!(kinds, [false, true], "{stage}");
    }
    for g in &groups {
        let kinds = |imported: Vec<bool>| {
            let mut k = imported;
            k.dedup();
            k.len()
        };
        assert!(kinds(g.cpu.iter().map(|r| r.meta.imported).collect()) <= 1, "{}", g.id);
        assert!(kinds(g.disk.iter().map(|r| r.meta.imported).collect()) <= 1, "{}", g.id);
        assert!(kinds(g.cache_action.iter().map(|r| r.meta.imported).collect()) <= 1, "{}", g.id);
        assert!(kinds(g.internet.iter().map(|r| r.meta.imported).collect()) <= 1, "{}", g.id);
    }
    // The providers' reports group by kind and fingerprint as well.
    let mut golden_ubicloud = golden();
    golden_ubicloud["provider"]["id"] = json!("ubicloud");
    golden_ubicloud["runner"]["label"] = json!("ubicloud-linux-arm64");
    let runs = [run_of("a.json", &golden_ubicloud), run_of(UBICLOUD, &i)];
    let view = site::report::build_view("ubicloud", &runs);
    assert_eq!(view.groups.len(), 2);
    assert_eq!(view.groups.iter().filter(|g| g.imported).count(), 1);
}

#[test]
fn a_measurement_day_may_precede_the_project_but_not_the_import() {
    let mut i = committed(UBICLOUD);
    i["source"]["measured_on"] = json!("2025-06-01");
    assert_eq!(problems_at(NOW, &[(UBICLOUD, &i)]), Vec::<(String, String, String)>::new());
    i["source"]["measured_on"] = json!("2026-11-30");
    assert_eq!(
        problems_at(NOW, &[(UBICLOUD, &i)]),
        [problem(
            UBICLOUD,
            "$.source.measured_on",
            "2026-11-30 is after the import (2026-11-29T00:00:00Z): a report cannot be measured after it is imported"
        )]
    );
}
