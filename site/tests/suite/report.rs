//! Provider reports of measured results: figures computed from samples,
//! the complete-sample rules, fingerprints never mixed, text escaped.

use crate::common::*;
use serde_json::json;

fn report_of(values: &[(&str, serde_json::Value)]) -> String {
    let dir = results_dir();
    for (rel, v) in values {
        put(dir.path(), rel, v);
    }
    render("example", &accepted_any_profile(dir.path()))
}

#[test]
fn figures_are_computed_from_the_accepted_samples() {
    let report = report_of(&[(GOLDEN_PATH, golden())]);
    for row in [
        // Sample 3 of 5 failed: four accepted samples.
        "| example-linux-x64 | x64 (64-bit) | 33328.37 | 33258.65–33388.35 | 0.14% | 1 / 0 | 4 |",
        // A timed-out disk sample stays visible: 4 / 5 / 5, incomplete.
        "| example-linux-x64 | Pinned | 1024 | 4 / 5 / 5 | incomplete | 1612.42 | 694.66 | 9788.01 | 21327.36 |",
        // 512 MiB ÷ 7.76 s = 65.98 MiB/s (see stats.rs on the seed's 65.97).
        "| example-linux-x64 | GitHub Actions cache | 512.0 | 3/3 | 7.76; 7.12–22.53 | 65.98 | 57.08% | 22.10; 18.53–66.84 | 23.17 | 61.36% |",
        // An attached volume with one pair that did not verify.
        "| example-linux-x64 | Example attached volume | 512.0 | 2/3 | 1.90; 1.88–1.92 | 269.47 | 1.05% | 1.40; 1.39–1.41 | 365.71 | 0.71% |",
        // An upload sample timed out: no speed score at all.
        "| example-linux-x64 | LibreSpeed (Sharktech, Amsterdam) | unavailable | 1024 | — | — | — |",
        "- **example-linux-x64 / github / trial 1 / cleanup**: The cache entry is left to the provider's retention.",
        "| example-linux-x64 | AMD EPYC 9454P 48-Core Processor | 20261116.1.0 | GNU 13.3.0 | -O2 -DNDEBUG; C99; MULTITHREAD=1; TOTAL_DATA_SIZE=2000; ITERATIONS=0 |",
    ] {
        assert!(report.contains(&format!("\n{row}")), "missing {row}\n{report}");
    }
    // Measured results: a section per cache method, a table per backend kind.
    assert!(report.contains("\n\n### Client method\n\nThe collector's own client makes every transfer;"));
    assert!(report.contains("\n\n#### archive-service\n\n") && report.contains("\n\n#### attached-volume\n\n"));
}

#[test]
fn a_cache_pair_verifies_only_with_an_exact_hit_matching_digest_and_routing() {
    let mut v = golden();
    v["stages"]["cache"]["pairs"][0]["verification"]["key_match"] = json!("restore-key");
    v["stages"]["cache"]["pairs"][1]["verification"]["sha256"] = json!("mismatch");
    v["stages"]["cache"]["pairs"][2]["verification"]["routing"]["observed"] = json!("elsewhere");
    v["stages"]["cache"]["pairs"][2]["verification"]["routing"]["matches"] = json!(false);
    let report = report_of(&[(GOLDEN_PATH, v)]);
    let github = report.lines().find(|l| l.contains("| GitHub Actions cache |")).unwrap();
    let volume = report.lines().find(|l| l.contains("| Example attached volume |")).unwrap();
    let verified = |l: &str| l.split(" | ").nth(3).unwrap().to_string();
    // The pairs ran github 1, volume 1, volume 2, github 2, github 3,
    // volume 3, and volume 3 did not verify in the golden file: github
    // loses trial 1, the volume loses trials 1 and 2.
    assert_eq!(verified(github), "2/3");
    assert_eq!(verified(volume), "0/3");
}

#[test]
fn a_runner_that_cannot_pin_gets_the_unpinned_table() {
    let mut v = golden();
    v["machine"]["os"] = json!("macos");
    for s in v["stages"]["cpu"]["samples"].as_array_mut().unwrap() {
        s["affinity"] = json!({"mode": "unpinned"});
    }
    let report = report_of(&[(GOLDEN_PATH, v)]);
    assert!(!report.contains("## Pinned results"));
    assert!(report.contains(
        "## Unpinned results\n\n| Runner | Binary | Median iterations/s | Min–max | Variation | Samples |\n\
         | --- | --- | ---: | ---: | ---: | ---: |\n\
         | example-linux-x64 | x64 (64-bit) | 33328.37 | 33258.65–33388.35 | 0.14% | 4 |\n\n\
         Variation is the population coefficient of variation across accepted samples.\n"
    ));
}

#[test]
fn different_fingerprints_are_never_mixed() {
    let mut other = golden();
    other["runner"]["label"] = json!("example-linux-arm64");
    other["provenance"]["github"]["run_id"] = json!(7);
    another_run(&mut other, 7);
    other["parameters"]["cpu_workload"] = json!("coremark-1.0-total-data-size-1200");
    let params: runner_bench_format::Parameters = serde_json::from_value(other["parameters"].clone()).unwrap();
    other["fingerprint"] = json!(params.fingerprint().to_string());
    let report = report_of(&[(GOLDEN_PATH, golden()), ("example/example-linux-arm64/2026-11-29-7-1.json", other)]);
    assert_eq!(report.matches("## Benchmark parameters").count(), 2);
    assert_eq!(report.matches("## Pinned results").count(), 2);
    let pinned: Vec<&str> = report.split("## Pinned results").skip(1).collect();
    assert_eq!(pinned.iter().filter(|s| s.contains("example-linux-x64 |")).count(), 1);
}

#[test]
fn the_newest_result_of_a_runner_is_shown() {
    let mut newer = golden();
    newer["provenance"]["started_at"] = json!("2026-11-30T10:00:00Z");
    newer["provenance"]["finished_at"] = json!("2026-11-30T10:31:07Z");
    // Its cache transfers move with it: they start within their run.
    for pair in newer["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        for half in ["save", "restore"] {
            let t = pair[half]["started_at"].as_str().unwrap().replace("2026-11-29", "2026-11-30");
            pair[half]["started_at"] = json!(t);
        }
    }
    newer["provenance"]["github"]["run_id"] = json!(9);
    another_run(&mut newer, 9);
    newer["stages"]["cpu"]["samples"][4] = newer["stages"]["cpu"]["samples"][0].clone();
    let report = report_of(&[(GOLDEN_PATH, golden()), ("example/example-linux-x64/2026-11-30-9-1.json", newer)]);
    assert_eq!(report.matches("| example-linux-x64 | x64 (64-bit) |").count(), 1);
    assert!(report.contains("| 1 / 0 | 5 |"), "{report}");
}

#[test]
fn free_text_cannot_break_a_table_or_inject_markup() {
    let mut v = golden();
    v["stages"]["cache"]["backends"][0]["name"] = json!("Evil | cache <script>alert(1)</script>");
    v["notices"][0]["message"] = json!("[click](javascript:alert(1)) **loud** `code`\n| new | row |");
    let report = report_of(&[(GOLDEN_PATH, v)]);
    let row = report.lines().find(|l| l.contains("Evil")).unwrap();
    assert!(row.starts_with("| example-linux-x64 | Evil \\| cache \\<script\\>alert(1)\\</script\\> | 512.0 | 3/3 |"));
    assert_eq!(row.matches(" | ").count(), 9);
    assert!(report.contains(
        "- **example-linux-x64 / internet**: \\[click\\](javascript:alert(1)) \\*\\*loud\\*\\* \\`code\\` \\| new \\| row \\|\n"
    ));
    let html = site::output::markdown_to_html(&report);
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("href=\"javascript"), "{html}");
    assert!(!html.contains("<strong>loud</strong>"), "{html}");
    assert!(html.contains("Evil | cache &lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
}

#[test]
fn raw_html_in_markdown_is_shown_as_text() {
    let html = site::output::markdown_to_html("a <b>bold</b>\n\n<div onclick=x>y</div>\n");
    assert!(!html.contains("<b>") && !html.contains("<div"), "{html}");
    assert!(html.contains("&lt;b&gt;"), "{html}");
}

#[test]
fn an_imported_result_without_a_profile_still_renders() {
    let rel = "starsling/starsling-linux-x64/2026-11-29-imported-196270a7d4b6.json";
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../results/").to_string() + rel);
    let mut v: serde_json::Value = serde_json::from_str(&committed.unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("published_profile");
    let dir = results_dir();
    put(dir.path(), rel, &v);
    let report = render("starsling", &accepted_any_profile(dir.path()));
    assert!(!report.contains("## Benchmark parameters"));
    assert!(!report.contains("waits 120 seconds"));
    assert!(report.contains("for at least 5 seconds against the same file"));
    assert!(report.contains("\n| starsling-linux-x64 | Pinned | 1024 | 6118.47 | 5022.44 | 14237.22 | 14634.05 |\n"));
}

/// The parameters table describes the stages that were measured: a run of
/// CPU and disk only shows no cache or internet columns, although its
/// profile enables them; a group with every stage shows them all.
#[test]
fn the_parameters_table_has_columns_only_for_stages_measured() {
    let table = |report: &str| -> Vec<String> {
        let start = report.find("| Profile |").expect("a parameters table");
        report[start..].lines().take(3).map(str::to_string).collect()
    };
    let mut v = golden();
    let stages = v["stages"].as_object_mut().unwrap();
    stages.retain(|k, _| k == "cpu" || k == "disk");
    let fingerprint = v["fingerprint"].as_str().unwrap().to_string();
    assert_eq!(
        table(&report_of(&[(GOLDEN_PATH, v)])),
        [
            "| Profile | Protocol | CPU/disk samples | CPU seconds | Disk MiB |".to_string(),
            "| --- | --- | ---: | ---: | ---: |".to_string(),
            format!("| `{fingerprint}` | 1 | 5 | 30 | 1024 |"),
        ]
    );
    assert_eq!(
        table(&report_of(&[(GOLDEN_PATH, golden())])),
        [
            "| Profile | Protocol | CPU/disk samples | CPU seconds | Disk MiB | Cache MiB | Internet | Transfer MiB |"
                .to_string(),
            "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |".to_string(),
            format!("| `{fingerprint}` | 1 | 5 | 30 | 1024 | 512 | Enabled | 1024 |"),
        ]
    );
}
