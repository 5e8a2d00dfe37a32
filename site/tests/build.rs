//! `site build` and the static files `site serve` serves.

mod common;

use std::path::Path;

use common::*;
use serde_json::json;
use site::cmd::serve::{content_type_of, file_for};

#[test]
fn build_writes_reports_pages_and_results() {
    let out = tempfile::tempdir().unwrap();
    let results = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results"));
    let built = site::output::build_site(results, out.path()).unwrap();
    assert_eq!(built.providers, ["latchkey", "rbcs", "starsling", "ubicloud"]);
    assert_eq!(built.result_files, 5);
    let report = std::fs::read_to_string(out.path().join("reports/starsling.md")).unwrap();
    assert!(report.starts_with("# StarSling Runner Benchmarks\n"));
    let page = std::fs::read_to_string(out.path().join("providers/ubicloud/index.html")).unwrap();
    assert!(page.contains("<td style=\"text-align: right\">33392.77</td>"), "{page}");
    assert!(page.contains("Figures imported from the published document 000_a5cbaa4571400c0a.txt"));
    let index = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert!(index.contains("<a href=\"providers/ubicloud/\">Ubicloud</a> (imported)"), "{index}");
    assert!(out.path().join("results/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238.json").is_file());
}

#[test]
fn build_stops_with_the_problems_when_a_file_is_rejected() {
    let dir = results_dir();
    let mut v = golden();
    v["format_version"] = json!(2);
    put(dir.path(), GOLDEN_PATH, &v);
    let out = tempfile::tempdir().unwrap();
    let err = site::output::build_site(dir.path(), out.path()).unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        format!(
            "the results do not pass the check:\n{}/{GOLDEN_PATH}\n  $.format_version: unsupported format version 2; \
             this reader understands version 1\n1 rejected, 0 of 1 result files accepted",
            dir.path().display()
        )
    );
    assert!(!out.path().join("index.html").exists());
}

#[test]
fn serve_maps_urls_to_files() {
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(out.path().join("providers/x")).unwrap();
    std::fs::write(out.path().join("index.html"), "i").unwrap();
    std::fs::write(out.path().join("providers/x/index.html"), "x").unwrap();
    assert_eq!(file_for(out.path(), "/"), Some(out.path().join("index.html")));
    assert_eq!(file_for(out.path(), "/providers/x/?q=1"), Some(out.path().join("providers/x/index.html")));
    assert_eq!(file_for(out.path(), "/../etc/passwd"), None);
    assert_eq!(file_for(out.path(), "/missing.html"), None);
    assert_eq!(content_type_of(Path::new("a.html")), "text/html; charset=utf-8");
    assert_eq!(content_type_of(Path::new("a.json")), "application/json");
}
