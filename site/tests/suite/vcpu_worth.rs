//! The runner page's CoreMark on one thread and on all cores, and what a
//! vCPU is worth (issue 56), worked out by hand from the format crate's
//! golden result with the all-core stage.

use crate::common;
use std::path::Path;

#[test]
fn the_runner_page_shows_both_figures_and_the_vcpu_worth() {
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1-allcore.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let results = common::results_dir();
    common::put(results.path(), "example/example-linux-x64/2026-11-29-18342215517-1.json", &v);
    let out = tempfile::tempdir().unwrap();
    let o = common::site_options(results.path());
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let page =
        std::fs::read_to_string(Path::new(out.path()).join("runners/example/example-linux-x64/index.html")).unwrap();
    // One thread: the four accepted samples' middle two, 1000032 ÷ 30.0151
    // = 33317.63 and 998764 ÷ 30.0302 = 33339.11, average 33328.37. All
    // cores: 2 contexts × 600000 ÷ 30.0212 = 39971.75, the middle of three
    // (÷ 30.2145, ÷ 29.987). Worth: 39971.75 ÷ (33328.37 × 2) = 0.5997.
    let row = "<td class=\"num\">33328.37</td><td class=\"num\">39971.75</td><td class=\"num\">2</td><td \
               class=\"num\">0.60</td></tr>";
    assert!(page.contains(row), "{page}");
    assert!(page.contains(
        "what a vCPU is worth: the all-core figure ÷ (the one-thread figure × the logical CPUs), near 1 where each \
         vCPU is a full core and about 0.5–0.6 where two are hyperthreads of one core or the host is oversubscribed"
    ));
}

/// The all-core figure reaches the estimate: the parallel-build preset,
/// with the golden result's runner as its own reference, scales its 540
/// parallel seconds by the all-core figure within the one-thread group.
#[test]
fn the_estimate_scales_the_parallel_share_by_the_all_core_figure() {
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1-allcore.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    // Every sample accepted, so that its rows are ranked (and estimated):
    // the failed ones replaced by copies of accepted ones.
    let one = v["stages"]["cpu"]["samples"][3].clone();
    v["stages"]["cpu"]["samples"][4] = one;
    let all = v["stages"]["cpu_allcore"]["samples"][2].clone();
    v["stages"]["cpu_allcore"]["samples"][3] = all.clone();
    v["stages"]["cpu_allcore"]["samples"][4] = all;
    let results = common::results_dir();
    common::put(results.path(), "example/example-linux-x64/2026-11-29-18342215517-1.json", &v);
    let out = tempfile::tempdir().unwrap();
    site::output::build(&common::site_options(results.path()), out.path(), &mut site::output::BuildMode::Stream)
        .unwrap();
    let figures: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(out.path()).join("estimate/figures.json")).unwrap())
            .unwrap();
    let runner = &figures["runners"][0];
    let group = runner["cpu"][0]["group"].as_str().unwrap().to_string();
    // The all-core samples: 1200000 ÷ 30.2145, ÷ 30.0212 and three times
    // ÷ 29.987, at two decimals.
    assert_eq!(
        runner["allcore"],
        serde_json::json!([{"group": format!("{group}/allcore"), "it_s": {"med": 40017.34, "min": 39716.03, "max": 40017.34}}])
    );
    // The runner as its own reference, 600 CPU seconds, 90 % parallel: 60
    // s serial and 540 s parallel at the medians. Fastest: 60 × 33339.11 ÷
    // 33388.35 = 59.91 and 540 (no faster all-core sample than the
    // median); slowest: 60 × 33339.11 ÷ 33258.65 = 60.15 and 540 ×
    // 40017.34 ÷ 39716.03 = 544.10.
    let runners: Vec<site::model::estimate::Runner> = serde_json::from_value(figures["runners"].clone()).unwrap();
    let job = site::model::estimate::Job {
        reference: runner["id"].as_str().unwrap().to_string(),
        cpu_s: 600.0,
        parallel_pct: 90.0,
        read_mib: 0.0,
        write_mib: 0.0,
        cache: String::new(),
        restore_mib: 0.0,
        save_mib: 0.0,
        download_mib: 0.0,
    };
    let e = site::model::estimate::estimate(&runners, &job);
    assert_eq!(e.tables[0].groups, [format!("CPU {group}"), format!("CPU, all cores {group}/allcore")]);
    let t = e.tables[0].rows[0].total;
    let fixed = site::model::estimate::fixed;
    assert_eq!((fixed(t.med, 2), fixed(t.lo, 2), fixed(t.hi, 2)), ("600.00".into(), "599.91".into(), "604.24".into()));
}
