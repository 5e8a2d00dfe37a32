//! The runner page's CoreMark on one thread and on all cores, and what a
//! vCPU is worth (issue 56), worked out by hand from the format crate's
//! golden result with the all-core stage.

mod common;

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
