//! Every date the site shows is when a figure was measured: an imported
//! report that states no date says so, and has no place on a time axis.

use std::path::Path;

use crate::common::{GOLDEN_PATH, another_run, build_into, golden, put, read, results_dir};

const REPO_RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../results");

/// The first cell of each row of the runner page's table `id`.
fn first_cells(page: &str, id: &str) -> Vec<String> {
    let table = page.split(&format!("id=\"{id}\"")).nth(1).unwrap_or_else(|| panic!("no table {id}"));
    let body = table.split("<tbody>").nth(1).unwrap().split("</tbody>").next().unwrap();
    body.split("<tr")
        .skip(1)
        .map(|row| row.split("<td>").nth(1).unwrap().split("</td>").next().unwrap().to_string())
        .collect()
}

#[test]
fn an_undated_imported_result_shows_no_date_and_no_history_point() {
    let out = tempfile::tempdir().unwrap();
    build_into(Path::new(REPO_RESULTS), out.path());
    let page = read(out.path(), "runners/latchkey/latchkey-linux-x64/index.html");
    for id in ["t-history-cpu", "t-history-disk", "t-history-cache", "t-history-internet"] {
        let cells = first_cells(&page, id);
        assert!(!cells.is_empty(), "{id}");
        for cell in cells {
            assert_eq!(
                cell,
                "<a href=\"#r-2026-11-29-imported-87d31437d07a\">date not published</a> <small \
                 class=\"reason\">published profile 866df6f892c3</small>",
                "{id}"
            );
        }
    }
    assert!(!out.path().join("plots/runners/latchkey/latchkey-linux-x64.svg").exists());
}

#[test]
fn a_measured_result_is_dated_and_plotted_as_one_runners_line() {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &golden());
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert_eq!(
        first_cells(&page, "t-history-cpu"),
        [
            "<a href=\"#r-2026-11-29-18342215517-1\">2026-11-29</a> <small class=\"reason\">standard profile, without the all-core stage</small>"
        ]
    );
    // One result is no history: no plot whose date axis would stretch
    // around a single day.
    assert!(!out.path().join("plots/runners/example/example-linux-x64.svg").exists());

    // The next day's run of the same runner: a line of two points.
    let mut next: serde_json::Value =
        serde_json::from_str(&golden().to_string().replace("\"2026-11-29T", "\"2026-11-30T")).unwrap();
    next["provenance"]["github"]["run_id"] = serde_json::json!(18342215518_u64);
    another_run(&mut next, 1);
    put(results.path(), "example/example-linux-x64/2026-11-30-18342215518-1.json", &next);
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let svg = read(out.path(), "plots/runners/example/example-linux-x64.svg");
    assert!(
        svg.contains(
            "<desc id=\"desc\">Median CoreMark iterations per second of each result of example-linux-x64 over time, \
             of the results measured as its newest was (the same CoreMark key); higher is better. Imported results \
             whose publisher states no measurement date are left out.</desc>"
        ),
        "{svg}"
    );
}
