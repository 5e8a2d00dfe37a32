//! Issue 14: runner pages. A runner's history flags a result whose headline
//! figure's 95 % interval does not overlap the previous result's (on the
//! page and in the feed); every stage, every cache backend, the machine and
//! the build of each result are shown, each stage row marked on its own
//! with its reason.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

/// Run `n` of the golden runner, started at hour 10 + n of its day, with
/// every accepted CoreMark sample's iterations scaled by `scale` (its
/// failed fifth sample stays failed).
fn run(n: usize, scale: f64) -> (String, Value) {
    let run_id = 18342215517 + n as u64;
    let text = std::fs::read_to_string(GOLDEN)
        .unwrap()
        .replace("2026-11-29T10:", &format!("2026-11-29T{}:", 10 + n))
        .replace("18342215517", &run_id.to_string())
        // Each run's own machine and restore instance (`site check` rejects
        // a file that repeats another's run).
        .replace("2b8c1d0e4f10", &format!("{n:012x}"))
        .replace("7f2a1c0e9b33", &format!("{:012x}", 0x8000_0000_0000u64 + n as u64));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    for s in v["stages"]["cpu"]["samples"].as_array_mut().unwrap() {
        let k = s["iterations"].as_f64().unwrap();
        // Distinct first samples, as distinct runs have.
        s["iterations"] = json!((k * scale).round() as u64 + n as u64);
    }
    (format!("example/example-linux-x64/2026-11-29-{run_id}-1.json"), v)
}

/// The `<tr>` of the runner page's history table with id `r-<stem>`.
fn history_row<'a>(page: &'a str, stem: &str) -> &'a str {
    let at = page.find(&format!("<tr id=\"r-{stem}\"")).unwrap_or_else(|| panic!("no row {stem}: {page}"));
    page[at..].split("</tr>").next().unwrap()
}

#[test]
fn a_result_whose_interval_leaves_the_previous_one_is_flagged_on_the_page_and_in_the_feed() {
    let results = results_dir();
    // 0.1 % faster: within the first's interval. Then half as fast.
    for (n, scale) in [(0, 1.0), (1, 1.001), (2, 0.5)] {
        let (rel, v) = run(n, scale);
        put(results.path(), &rel, &v);
    }
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    let changed = "<span class=\"change\"><span class=\"mark change worse\" title=\"A hint, not proof: the intervals of this result and \
                   the previous one (the samples' ranges where there are 3 to 5) do not overlap, as they do not for an unchanged runner 1 time in 10 at 3 samples each\">may have changed</span> \
                   CoreMark median iterations&#x2F;s lower \
                   (worse): 33291.95–33421.78 → 16629.39–16694.26 <small>since 2026-11-29</small></span>";
    let third = history_row(&page, "2026-11-29-18342215519-1");
    assert!(third.contains(&format!("<td>{changed}</td>")), "{third}");
    // The second run's interval overlaps the first's; the first has no
    // previous result. Disk, cache and internet did not move.
    for stem in ["2026-11-29-18342215518-1", "2026-11-29-18342215517-1"] {
        let row = history_row(&page, stem);
        assert!(row.contains("</code></td><td>—</td>"), "{row}");
    }
    assert_eq!(page.matches("<span class=\"mark change").count(), 1, "{page}");

    let feed = read(out.path(), "feed.xml");
    let entry = feed.split("<entry>").find(|e| e.contains("18342215519")).unwrap();
    assert!(
        entry.contains("<title>2026-11-29: example-linux-x64 (Example Cloud), changed: CoreMark</title>"),
        "{entry}"
    );
    assert!(
        entry.contains(
            "<summary>Result of example-linux-x64 (Example Cloud) from 2026-11-29: CoreMark median 16664.25 \
             iterations/s. Changed beyond the intervals of the medians (the ranges of the samples where there are \
             3 to 5): CoreMark median iterations/s lower (worse) since 2026-11-29: 33291.95–33421.78 → \
             16629.39–16694.26.</summary>"
        ),
        "{entry}"
    );
    for e in feed.split("<entry>").filter(|e| !e.contains("18342215519")) {
        assert!(!e.contains("changed") && !e.contains("Changed"), "{e}");
    }
}

#[test]
fn a_faster_result_is_flagged_better_and_a_slower_cache_restore_worse() {
    let results = results_dir();
    let (rel, v) = run(0, 1.0);
    put(results.path(), &rel, &v);
    let (rel, mut v) = run(1, 2.0);
    // The GitHub Actions cache's three restores take ten times as long.
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        if pair["backend"] == "github" {
            let s = pair["restore"]["seconds"].as_f64().unwrap();
            pair["restore"]["seconds"] = json!(s * 10.0);
        }
    }
    put(results.path(), &rel, &v);
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    let row = history_row(&page, "2026-11-29-18342215518-1");
    assert!(
        row.contains(
            "<span class=\"mark change better\" title=\"A hint, not proof: the intervals of this result and the previous one (the \
             samples' ranges where there are 3 to 5) do not overlap, as they do not for an unchanged runner 1 time in 10 at 3 samples each\">may have changed</span> CoreMark median \
             iterations&#x2F;s higher (better): 33258.65–33388.35 → \
             66517.34–66776.74 <small>since 2026-11-29</small></span>"
        ),
        "{row}"
    );
    assert!(
        row.contains(
            "<span class=\"mark change worse\" title=\"A hint, not proof: the intervals of this result and the previous one (the \
             samples' ranges where there are 3 to 5) do not overlap, as they do not for an unchanged runner 1 time in 10 at 3 samples each\">may have changed</span> Cache restore s, GitHub \
             Actions cache (client) higher (worse): \
             18.53–66.84 → 185.30–668.40 <small>since 2026-11-29</small></span>"
        ),
        "{row}"
    );
    let feed = read(out.path(), "feed.xml");
    assert!(feed.contains("<title>2026-11-29: example-linux-x64 (Example Cloud), changed: CoreMark, Cache</title>"));
}

#[test]
fn imported_results_have_no_interval_and_are_never_flagged() {
    let out = tempfile::tempdir().unwrap();
    build_into(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results")), out.path());
    let page = read(out.path(), "runners/ubicloud/ubicloud-linux-x64/index.html");
    assert!(page.contains("<td><span class=\"muted\">no interval (imported)</span></td>"), "{page}");
    assert!(page.contains("Imported results publish no samples: they have no interval and are never flagged."));
    assert!(!page.contains("mark change"));
    assert!(!read(out.path(), "feed.xml").contains("changed"));
}

#[test]
fn a_runner_page_shows_every_stage_and_backend_each_marked_on_its_own() {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &golden());
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    let date = "<td><a href=\"#r-2026-11-29-18342215517-1\">2026-11-29</a> <small class=\"reason\">standard profile, without the all-core stage</small></td>";
    let incomplete = "<span class=\"mark incomplete\">incomplete</span>";
    // The history row is not greyed for a stage's failure.
    assert!(page.contains("<tr id=\"r-2026-11-29-18342215517-1\"><td><code>"), "{page}");
    // CoreMark: four of five samples, the fifth's reason.
    assert!(
        page.contains(&format!(
            "<tr class=\"marked\">{date}<td>x64 (64-bit)</td><td class=\"num\">33328.37</td><td \
             class=\"num\">33258.65–33388.35</td><td \
             class=\"num\">0.14%</td><td class=\"num\">4</td><td>{incomplete}<span class=\"reason\">sample 5: \
             error: CoreMark validation CRC mismatch: crclist 0x1234, expected \
             0xe714</span></td></tr>"
        )),
        "{page}"
    );
    // Disk: its timed-out sample.
    assert!(page.contains(&format!(
        "{incomplete}<span class=\"reason\">sample 5: timeout: sample exceeded 60s during the 4 KiB random \
         write</span></td></tr>"
    )));
    // Cache: both backends, each its own row; only the volume's is marked.
    let cache = page.split("id=\"t-history-cache\"").nth(1).unwrap().split("</table>").next().unwrap();
    let rows: Vec<&str> = cache.split("<tr").skip(2).collect();
    assert_eq!(rows.len(), 2, "{cache}");
    assert_eq!(
        rows[0],
        format!(
            ">{date}<td>GitHub Actions cache</td><td>client</td><td class=\"num\">3&#x2F;3</td><td class=\"num\">7.76; \
             7.12–22.53</td><td class=\"num\">65.98</td><td class=\"num\">22.10; 18.53–66.84 <small \
             class=\"ci\">18.53–66.84</small></td><td class=\"num\">23.17</td><td>ok <span class=\"mark \
             variable\">variable</span></td></tr>\n"
        )
    );
    assert!(
        rows[1].starts_with(&format!(
            " class=\"marked\">{date}<td>Example attached volume</td><td>client</td><td class=\"num\">2&#x2F;3</td>"
        )),
        "{}",
        rows[1]
    );
    assert!(
        rows[1].contains(&format!(
            "<td>{incomplete}<span class=\"reason\">trial 3 restore: error: cache miss: no entry for key \
             runner-bench-18342215517-3-volume</span></td>"
        )),
        "{}",
        rows[1]
    );
    // Internet: the upload sample that timed out.
    assert!(page.contains(&format!(
        "<td>{incomplete}<span class=\"reason\">upload sample 2: timeout: HTTPS upload sample 2 exceeded 60s; \
         872415232 bytes reported; no speed score</span></td></tr>"
    )));
    // The build-cache server of the result, with its document page.
    assert!(page.contains(&format!(
        "<tr>{date}<td>RBCS 0.3.0</td><td>http:&#x2F;&#x2F;127.0.0.1:8080&#x2F;</td><td><a \
         href=\"&#x2F;build-cache&#x2F;example&#x2F;example-linux-x64&#x2F;2026-11-29-18342215517-1&#x2F;\">Document</a></td></tr>"
    )), "{page}");
    // Machine and build, as the file records them (a run of results, so
    // no one profile).
    let date = "<td><a href=\"#r-2026-11-29-18342215517-1\">2026-11-29</a></td>";
    assert!(
        page.contains(&format!(
            "<tr>{date}<td>AMD EPYC 9454P 48-Core Processor</td><td class=\"num\">2</td><td class=\"num\">7.75 \
         GiB</td><td>linux, Ubuntu 24.04.3 LTS</td><td>6.8.0-1040-azure</td><td>kvm</td><td>ubuntu24 \
         20261116.1.0</td><td>x64</td><td>—</td></tr>"
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "<tr>{date}<td>0.1.0 (3c9e1f0a7b2d)</td><td>the project&#x27;s (vendor&#x2F;coremark)</td><td>GNU \
         13.3.0</td><td>-O2 -DNDEBUG; C99; MULTITHREAD=1; TOTAL_DATA_SIZE=2000; ITERATIONS=0</td><td>—</td></tr>"
        )),
        "{page}"
    );
}

#[test]
fn text_a_runner_page_shows_from_the_result_is_escaped() {
    let mut v = golden();
    v["machine"]["cpu_model"] = json!("<script>alert(1)</script>");
    v["machine"]["kernel"] = json!("\"><img src=x onerror=alert(2)>");
    v["stages"]["cpu"]["samples"][4]["message"] = json!("<b>crc</b>");
    v["stages"]["cache"]["backends"][1]["name"] = json!("<i>vol</i>");
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &v);
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    for raw in ["<script>alert", "<img src=x", "<b>crc", "<i>vol"] {
        assert!(!page.contains(raw), "{raw}: {page}");
    }
    assert!(page.contains("<td>&lt;script&gt;alert(1)&lt;&#x2F;script&gt;</td>"));
    assert!(page.contains("<td>&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</td>"));
    assert!(page.contains("sample 5: error: &lt;b&gt;crc&lt;&#x2F;b&gt;</span>"));
    assert!(page.contains("<td>&lt;i&gt;vol&lt;&#x2F;i&gt;</td>"));
}

#[test]
fn a_failed_job_marks_only_the_rows_of_its_stage_with_the_job() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/failed-job/results");
    let out = tempfile::tempdir().unwrap();
    build_into(Path::new(fixture), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    // Trial 2's restore job failed: both backends lack its pair, and say so.
    let cache = page.split("id=\"t-history-cache\"").nth(1).unwrap().split("</table>").next().unwrap();
    let reason = "<span class=\"mark incomplete\">incomplete</span><span class=\"reason\">trial 2: no restore; job \
                  restore-2 failure</span>";
    assert_eq!(cache.matches(reason).count(), 2, "{cache}");
    // The other stages' rows are not marked.
    for id in ["t-history-cpu", "t-history-disk"] {
        let table = page.split(&format!("id=\"{id}\"")).nth(1).unwrap().split("</table>").next().unwrap();
        assert!(!table.contains("class=\"marked\"") && table.contains("<td>ok</td>"), "{id}: {table}");
    }
}

#[test]
fn an_excluded_result_is_neither_flagged_nor_compared_with() {
    let results = results_dir();
    // The excluded middle run is half as fast; the third is as fast as the
    // first, so against the first nothing moved.
    for (n, scale) in [(0, 1.0), (1, 0.5), (2, 1.0)] {
        let (rel, v) = run(n, scale);
        put(results.path(), &rel, &v);
    }
    std::fs::write(
        results.path().join("exclusions.toml"),
        "[[exclude]]\nfile = \"example/example-linux-x64/2026-11-29-18342215518-1.json\"\nreason = \"Misconfigured.\"\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert!(!page.contains("mark change"), "{page}");
    let excluded = history_row(&page, "2026-11-29-18342215518-1");
    assert!(excluded.starts_with("<tr id=\"r-2026-11-29-18342215518-1\" class=\"marked\">"), "{excluded}");
    // Not excluded, the middle run is a change down and the third one up.
    std::fs::remove_file(results.path().join("exclusions.toml")).unwrap();
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert_eq!(page.matches("<span class=\"mark change worse\"").count(), 1);
    assert_eq!(page.matches("<span class=\"mark change better\"").count(), 1);
}

#[test]
fn the_provider_report_reads_the_same_runs_in_whatever_order_the_check_offers_them() {
    let dir = results_dir();
    let paths: Vec<String> = (0..5)
        .map(|n| {
            let (rel, v) = run(n, 1.0);
            put(dir.path(), &rel, &v);
            rel
        })
        .collect();
    // The newest run is excluded: the report lists it, and reads run 3.
    std::fs::write(
        dir.path().join("exclusions.toml"),
        format!("[[exclude]]\nfile = \"{}\"\nreason = \"r\"\n", paths[4]),
    )
    .unwrap();
    let runs = accepted(dir.path());
    let report = render("example", &runs);
    let order: std::collections::HashMap<&str, usize> =
        runs.iter().enumerate().map(|(i, r)| (r.rel_path.as_str(), i)).collect();
    for offered in [vec![0, 1, 2, 3, 4], vec![4, 3, 2, 1, 0], vec![2, 4, 0, 3, 1]] {
        let kept = site::report::ReportRuns::default();
        for i in offered {
            kept.offer(&runs[i]);
        }
        let kept = kept.into_runs(&order);
        let kept_paths: Vec<&str> = kept.iter().map(|r| r.rel_path()).collect();
        assert_eq!(kept_paths, [paths[3].as_str(), paths[4].as_str()]);
        assert_eq!(render_kept("example", &kept), report);
    }
}
