//! Issue 57, "Reasons and names": every "incomplete" mark has its reason
//! beside it, an imported stage that failed shows its report's notice and
//! is not ticked on the coverage page. The fixture is the committed
//! Ubicloud x64 report, whose internet test failed with an HTTP 403; the
//! standard-profile result without cache and internet stages is the
//! golden result with those stages taken out (a `--stages cpu,disk` run).

use crate::common;
use std::path::Path;

use crate::common::{build_into, copy_dir, golden, put, read, results_dir};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/reasons/results");
const NOTICE: &str = "HTTPS download sample 1: HTTPS test failed: curl: (22) The requested URL returned error: 403";

fn built() -> tempfile::TempDir {
    let results = results_dir();
    copy_dir(Path::new(FIXTURE), results.path());
    let mut v = golden();
    let stages = v["stages"].as_object_mut().unwrap();
    stages.remove("cache");
    stages.remove("internet");
    stages.remove("http_cache");
    put(results.path(), common::GOLDEN_PATH, &v);
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    out
}

fn row_of<'a>(page: &'a str, table: &str, containing: &str) -> &'a str {
    let t = page.split(&format!("id=\"{table}\"")).nth(1).unwrap_or_else(|| panic!("no table {table}: {page}"));
    let t = t.split("</table>").next().unwrap();
    t.split("<tr").find(|r| r.contains(containing)).unwrap_or_else(|| panic!("no row with {containing}: {t}"))
}

#[test]
fn every_incomplete_mark_has_its_reason() {
    let out = built();
    // A standard run of CoreMark and disk only: its history row says why.
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    let row = row_of(&page, "t-history", "2026-11-29-18342215517-1");
    assert!(
        row.contains(
            "<span class=\"reason\">Incomplete: the run has no cache or internet stage, which its profile asks \
             for; CoreMark: sample 5: error: CoreMark validation CRC mismatch: crclist 0x1234, expected 0xe714; \
             Disk: sample 5: timeout: sample exceeded 60s during the 4 KiB random write</span>"
        ),
        "{row}"
    );
    // The imported internet stage that failed: its stage row gives the
    // report's notice, and so does its history row.
    let page = read(out.path(), "runners/ubicloud/ubicloud-linux-x64/index.html");
    let row = row_of(&page, "t-history-internet", "LibreSpeed");
    assert!(
        row.contains(&format!(
            "<span class=\"mark incomplete\">incomplete</span><span class=\"reason\">{NOTICE}</span>"
        )),
        "{row}"
    );
    let row = row_of(&page, "t-history", "imported");
    assert!(row.contains(&format!("<span class=\"reason\">Incomplete: Internet: {NOTICE}</span>")), "{row}");
}

#[test]
fn the_coverage_page_ticks_no_failed_stage() {
    let out = built();
    let page = read(out.path(), "coverage/index.html");
    let row = row_of(&page, "t-coverage", "ubicloud-linux-x64");
    assert!(
        row.contains(
            "<td class=\"yes\">✓</td><td class=\"yes\">✓</td><td class=\"yes\">✓</td><td class=\"old\">incomplete</td>"
        ),
        "{row}"
    );
    assert!(row.contains(&format!("<span class=\"reason\">Incomplete: Internet: {NOTICE}</span>")), "{row}");
    assert!(page.contains("(0 of 2 runners have all four runner stages, complete;"), "{page}");
}

/// An imported result whose report states no date is "date not published"
/// in every table of its runner page, the Machine and Build tables too,
/// never a bare day of its import.
#[test]
fn no_bare_import_day_in_an_imported_runners_tables() {
    let out = built();
    let page = read(out.path(), "runners/ubicloud/ubicloud-linux-x64/index.html");
    for table in ["t-history-machine", "t-history-build"] {
        let row = row_of(&page, table, "<td><a href=");
        assert!(
            row.starts_with("><td><a href=\"#r-2026-11-29-imported-2c7ad0467348\">date not published</a></td>"),
            "{row}"
        );
    }
    // Every day of 2026-11-29 the page prints is an import's, said so.
    let bare = page.matches(">2026-11-29<").count();
    let said = page.matches("imported <time datetime=\"2026-11-29T").count();
    assert_eq!((bare, said), (1, 1), "{page}");
}

/// A result that names no provider is shown under its provider file's
/// `name`, never the bare id, on every page and in the data files.
#[test]
fn a_provider_file_names_a_result_that_names_none() {
    let results = results_dir();
    let mut v = golden();
    v["provider"] = serde_json::json!({ "id": "acme-ci" });
    v["runner"]["label"] = serde_json::json!("acme-linux-x64");
    put(results.path(), "acme-ci/acme-linux-x64/2026-11-29-18342215517-1.json", &v);
    let mut o = common::site_options(results.path());
    o.content = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/reasons/content")).to_path_buf();
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = read(out.path(), "index.html");
    assert!(home.contains("<td><a href=\"&#x2F;providers&#x2F;acme-ci&#x2F;\">Acme CI</a></td>"), "{home}");
    assert!(!home.contains(">acme-ci<"), "{home}");
    let coverage = read(out.path(), "coverage/index.html");
    assert!(coverage.contains("<td><a href=\"/providers/acme-ci/\">Acme CI</a></td>"), "{coverage}");
    let index = read(out.path(), "index.json");
    assert!(index.contains("\"Acme CI\""), "{index}");
}

/// The runner page words a change flag as a hint and states its
/// false-alarm rates, which are those the method gives
/// (`stats::disjoint_ranges_chance`).
#[test]
fn change_flags_are_hints_with_their_false_alarm_rate() {
    let one_in = |n: u32| (1.0 / site::stats::disjoint_ranges_chance(n, n)).round();
    assert_eq!([one_in(3), one_in(4), one_in(5)], [10.0, 35.0, 126.0]);
    let out = built();
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert!(
        page.contains(
            "A flag is a hint to look, not proof of a change: for an unchanged runner, two results of 3 samples \
             each have ranges that do not overlap 1 time in 10 (2 of the 20 equally likely orders of their 6 \
             values), of 4 samples each 1 time in 35, of 5 each 1 time in 126, and a result with several figures \
             is flagged more often than one figure is."
        ),
        "{page}"
    );
}
