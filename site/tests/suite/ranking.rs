//! Issue 14: tables rank where the figures can tell runners apart. Each
//! measured median has a bootstrap 95 % interval, shown under it;
//! rows whose intervals overlap share a place, marked "≈"; a row whose
//! headline figure varies by more than 10 % is flagged "variable".

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

/// The golden result with its failed fifth CPU sample replaced by the
/// fourth (a complete CPU row), as runner `label` with GitHub run `run_id`
/// and every sample's iterations scaled by `scale[i]`.
fn runner(label: &str, run_id: u64, scale: [f64; 5]) -> (String, Value) {
    let mut v = golden();
    let samples = v["stages"]["cpu"]["samples"].as_array_mut().unwrap();
    samples[4] = samples[3].clone();
    for (s, k) in samples.iter_mut().zip(scale) {
        let n = s["iterations"].as_f64().unwrap();
        s["iterations"] = json!((n * k).round() as u64);
    }
    v["runner"]["label"] = json!(label);
    v["provenance"]["github"]["run_id"] = json!(run_id);
    another_run(&mut v, run_id as u32);
    (format!("example/{label}/2026-11-29-{run_id}-1.json"), v)
}

/// The place cell and the median cell of each row of the home page's
/// CoreMark table, in order.
fn cpu_rows(home: &str) -> Vec<(String, String, String)> {
    let table = home
        .split("<table class=\"sortable\" id=\"t-")
        .find(|t| t.split('"').next().unwrap().ends_with("-cpu"))
        .expect("a CoreMark table");
    let body = table.split("</table>").next().unwrap().split("<tbody>").nth(1).unwrap();
    body.split("<tr")
        .skip(1)
        .map(|row| {
            let place = row.split("<td class=\"num place\">").nth(1).unwrap().split("</td>").next().unwrap();
            let runner = row.split("</a></th>").next().unwrap().rsplit('>').next().unwrap();
            let median = row.split("<td class=\"num\">").nth(1).unwrap().split("</td>").next().unwrap();
            (place.to_string(), runner.to_string(), median.to_string())
        })
        .collect()
}

#[test]
fn overlapping_intervals_share_a_place_and_a_wide_spread_is_flagged() {
    let results = results_dir();
    for (rel, v) in [
        runner("example-linux-x64", 11, [1.0; 5]),
        // 0.1 % faster: its interval overlaps the first's.
        runner("example-linux-near", 12, [1.001; 5]),
        runner("example-linux-half", 13, [0.5; 5]),
        // Slowest, and varying by 21.5 %.
        runner("example-linux-noisy", 14, [0.3, 0.45, 0.24, 0.3, 0.36]),
    ] {
        put(results.path(), &rel, &v);
    }
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let home = read(out.path(), "index.html");
    let rows = cpu_rows(&home);
    let tie = "<span title=\"Its interval (for an imported row, its published range) overlaps that of another row of \
               this place: the two cannot be told apart\">≈</span>";
    // Five samples: each interval's ends are the samples' smallest and
    // largest (stats.rs's tests), which the Min–max column shows, so none
    // is printed under the median.
    assert_eq!(
        rows,
        [
            (format!("{tie}1"), "example-linux-near".to_string(), "33372.43".to_string()),
            (format!("{tie}1"), "example-linux-x64".to_string(), "33339.10".to_string()),
            ("3".to_string(), "example-linux-half".to_string(), "16669.55".to_string()),
            ("4".to_string(), "example-linux-noisy".to_string(), "10001.73".to_string()),
        ]
    );
    let noisy = home.split("example-linux-noisy</a></th>").nth(1).unwrap().split("</tr>").next().unwrap();
    assert!(noisy.contains("<span class=\"mark variable\""), "{noisy}");
    let steady = home.split("example-linux-x64</a></th>").nth(1).unwrap().split("</tr>").next().unwrap();
    assert!(!steady.contains("mark variable"), "{steady}");
}

#[test]
fn imported_rows_share_a_place_where_their_published_ranges_overlap() {
    let out = tempfile::tempdir().unwrap();
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results"));
    build_into(root, out.path());
    let home = read(out.path(), "index.html");
    let places: Vec<(String, String)> = cpu_rows(&home)
        .into_iter()
        .map(|(place, runner, median)| {
            // Imported rows have no interval of their own under the median.
            assert!(!median.contains("class=\"ci\""), "{runner}: {median}");
            (place.rsplit('>').next().unwrap().to_string(), runner)
        })
        .collect();
    let tied: Vec<bool> = cpu_rows(&home).iter().map(|r| r.0.contains('≈')).collect();
    // The published min–max ranges: StarSling 37,001.79–38,403.09 overlaps
    // Ubicloud x64's 29,068.42–37,639.26; Latchkey's 30,043.11–30,096.09
    // lies below StarSling's, the place's first row, and so does arm64's.
    assert_eq!(
        places,
        [
            ("1".to_string(), "starsling-linux-x64".to_string()),
            ("1".to_string(), "ubicloud-linux-x64".to_string()),
            ("3".to_string(), "latchkey-linux-x64".to_string()),
            ("4".to_string(), "ubicloud-linux-arm64".to_string()),
        ]
    );
    assert_eq!(tied, [true, true, false, false]);
}
