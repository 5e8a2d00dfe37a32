//! What the site may trust of a measured result: "measured by <owner>"
//! from its GitHub run record, "measured by the provider" where the
//! provider's file lists that owner, "self-built" where it has no record,
//! and each measuring job's queue time as GitHub reported it.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

/// The golden result with a run record (owner `runner-bench`).
const RUN_RECORD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1-run-record.json");
/// Content whose provider file for `example` lists `runner-bench`.
const CONTENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trust/content");

fn with_record() -> Value {
    serde_json::from_str(&std::fs::read_to_string(RUN_RECORD).unwrap()).unwrap()
}

/// `v` as run `run_id` of `repository` (the file's and its record's).
fn run_of(v: &mut Value, repository: &str, run_id: u64, n: u32) {
    v["provenance"]["github"]["repository"] = json!(repository);
    v["provenance"]["github"]["run_id"] = json!(run_id);
    if v["provenance"].get("run_record").is_some() {
        v["provenance"]["run_record"]["repository"] = json!(repository);
        v["provenance"]["run_record"]["run_id"] = json!(run_id);
    }
    another_run(v, n);
}

const DIR: &str = "example/example-linux-x64";

/// Three results of one runner: without a record (oldest), with a record
/// of the provider's organisation, and with one of another owner (newest).
fn three() -> tempfile::TempDir {
    let dir = results_dir();
    let mut plain = golden();
    run_of(&mut plain, "runner-bench/runner-bench", 18342215515, 1);
    put(dir.path(), &format!("{DIR}/2026-11-29-18342215515-1.json"), &plain);
    put(dir.path(), &format!("{DIR}/2026-11-29-18342215517-1.json"), &with_record());
    let mut other = with_record();
    run_of(&mut other, "some-one/bench<x>", 18342215519, 2);
    put(dir.path(), &format!("{DIR}/2026-11-29-18342215519-1.json"), &other);
    dir
}

fn build(results: &Path) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let mut o = site_options(results);
    o.content = Path::new(CONTENT).to_path_buf();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    out
}

#[test]
fn the_golden_with_a_run_record_passes_the_check() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &with_record());
    assert_eq!(problems(dir.path(), &check(dir.path())), Vec::<(String, String, String)>::new());
}

#[test]
fn a_runner_page_says_who_measured_each_result_and_its_jobs_queue_times() {
    let dir = three();
    let checked = check(dir.path());
    assert_eq!(problems(dir.path(), &checked), Vec::<(String, String, String)>::new());
    let out = build(dir.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    let runs = page.split("<h2 id=\"runs\">").nth(1).expect("a runs section");
    // The provider's organisation.
    let provider = runs.split("<table id=\"t-run-r-2026-11-29-18342215517-1\">").nth(1).unwrap();
    let provider = provider.split("</table>").next().unwrap();
    assert!(
        provider.starts_with(
            "\n<caption><a href=\"#r-2026-11-29-18342215517-1\">2026-11-29</a>: measured by \
             <a href=\"https://github.com/runner-bench\">runner-bench</a>, measured by the provider, in \
             <a href=\"https:&#x2F;&#x2F;github.com&#x2F;runner-bench&#x2F;runner-bench&#x2F;actions&#x2F;runs&#x2F;18342215517&#x2F;attempts&#x2F;1\">\
             run 18342215517 attempt 1</a> of runner-bench&#x2F;runner-bench</caption>\n\
             <thead><tr><th scope=\"col\">Job</th><th scope=\"col\">Runner</th><th scope=\"col\" class=\"num\">Queued</th>\
             <th scope=\"col\" class=\"num\">Ran</th></tr></thead>\n<tbody>\n\
             <tr><td>measure</td><td>example-runner-42</td><td class=\"num\">15 s</td><td class=\"num\">4 min 35 s</td></tr>\n\
             <tr><td>save-1</td><td>example-runner-43</td><td class=\"num\">19 s</td><td class=\"num\">52 s</td></tr>"
        ),
        "{provider}"
    );
    assert!(
        provider.contains(
            "<tr><td>gap-1</td><td>GitHub Actions 1</td><td class=\"num\">8 s</td><td class=\"num\">1 min 39 s</td></tr>"
        ),
        "{provider}"
    );
    assert_eq!(provider.matches("<tr><td>").count(), 10);
    // Another owner: measured by it, not by the provider; its text escaped.
    let other = runs.split("<table id=\"t-run-r-2026-11-29-18342215519-1\">").nth(1).unwrap();
    let caption = other.split("</caption>").next().unwrap();
    assert_eq!(
        caption,
        "\n<caption><a href=\"#r-2026-11-29-18342215519-1\">2026-11-29</a>: measured by \
         <a href=\"https://github.com/some-one\">some-one</a>, in \
         <a href=\"https:&#x2F;&#x2F;github.com&#x2F;some-one&#x2F;bench&lt;x&gt;&#x2F;actions&#x2F;runs&#x2F;18342215519&#x2F;attempts&#x2F;1\">\
         run 18342215519 attempt 1</a> of some-one&#x2F;bench&lt;x&gt;"
    );
    assert!(!page.contains("bench<x>"));
    // No record: self-built, for that reason.
    let unrecorded = runs.split("<p id=\"runs-unrecorded\">").nth(1).unwrap().split("</p>").next().unwrap();
    assert_eq!(
        unrecorded,
        "<span class=\"mark self-built\">self-built</span> no GitHub run record; not attested: \
         <a href=\"#r-2026-11-29-18342215515-1\">2026-11-29</a>."
    );
}

#[test]
fn a_result_without_a_run_record_is_self_built_for_that_reason_apart_from_its_collector() {
    let out = build(three().path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    let release = "the result records no binary identity (collector before 0.2.0)";
    let row = |stem: &str| {
        let row = page.split(&format!("<tr id=\"r-2026-11-29-{stem}-1\"")).nth(1).unwrap();
        row.split("</tr>").next().unwrap().to_string()
    };
    let plain = row("18342215515");
    // The mark names both reasons; each has its own line, after any
    // other mark's (the result is also incomplete).
    assert!(
        plain.contains(&format!(
            "<span class=\"mark self-built\" title=\"{release}; no GitHub run record; not attested\">self-built</span>"
        )),
        "{plain}"
    );
    assert!(
        plain.contains(&format!(
            "<span class=\"reason\">Self-built: {release}</span>\
             <span class=\"reason\">Self-built: no GitHub run record; not attested</span>"
        )),
        "{plain}"
    );
    let recorded = row("18342215517");
    assert!(
        recorded.contains(&format!("<span class=\"mark self-built\" title=\"{release}\">self-built</span>")),
        "{recorded}"
    );
    assert!(recorded.contains(&format!("<span class=\"reason\">Self-built: {release}</span></td>")), "{recorded}");
    assert!(!recorded.contains("run record"), "{recorded}");
    let index: Value = serde_json::from_str(&read(out.path(), "index.json")).unwrap();
    let flags: Vec<(&Value, &Value)> =
        index["results"].as_array().unwrap().iter().map(|r| (&r["rel_path"], &r["no_run_record"])).collect();
    assert_eq!(
        flags,
        [
            (&json!(format!("{DIR}/2026-11-29-18342215515-1.json")), &json!(true)),
            (&json!(format!("{DIR}/2026-11-29-18342215517-1.json")), &json!(false)),
            (&json!(format!("{DIR}/2026-11-29-18342215519-1.json")), &json!(false)),
        ]
    );
}

#[test]
fn the_overview_shows_the_median_queue_time_where_the_newest_result_has_a_record() {
    let out = build(three().path());
    let overview = read(out.path(), "overview/index.html");
    // measure, save-1..3, restore-1..3 waited 15, 19, 20, 21, 69, 69, 69 s;
    // the gap jobs, on GitHub's runners, are left out.
    assert!(overview.contains("<th scope=\"col\" class=\"num\">Queued (median)</th></tr></thead>"), "{overview}");
    assert!(overview.contains("<td class=\"num\">21 s</td></tr>"), "{overview}");
    assert!(overview.contains("<dt>Queued (median)</dt>"));

    // Without a record on the newest result: no column, no legend.
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let out = build(dir.path());
    let overview = read(out.path(), "overview/index.html");
    assert!(!overview.contains("Queued (median)"), "{overview}");
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert!(!page.contains("measured by <a") && page.contains("<p id=\"runs-unrecorded\">"), "no run record, no owner");
}

#[test]
fn imported_results_are_neither_measured_by_anyone_nor_self_built() {
    // The repository's results/ holds imports only.
    let out = build(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results")));
    let mut pages = 0;
    for entry in std::fs::read_dir(out.path().join("runners")).unwrap() {
        for runner in std::fs::read_dir(entry.unwrap().path()).unwrap() {
            let page = std::fs::read_to_string(runner.unwrap().path().join("index.html")).unwrap();
            assert!(!page.contains("id=\"runs\"") && !page.contains("class=\"mark self-built\""), "{page}");
            pages += 1;
        }
    }
    assert!(pages > 0);
}

#[test]
fn a_provider_file_s_organisations_are_github_owner_names() {
    let text = "name = \"Example Cloud\"\nbenchmark_organisations = [\"runner-bench\", \"bad/owner\", \"-x\"]\n";
    let errors: Vec<String> = site::providers::parse("content/providers/example.toml", "example", text)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    let rule = "must be a GitHub owner name (1 to 39 letters, digits and single dashes, neither first nor last)";
    assert_eq!(
        errors,
        [
            format!("content/providers/example.toml: benchmark_organisations[1]: {rule}, found \"bad/owner\""),
            format!("content/providers/example.toml: benchmark_organisations[2]: {rule}, found \"-x\""),
        ]
    );
    let ok = site::providers::parse("example.toml", "example", "name = \"E\"\nbenchmark_organisations = [\"acme\"]\n");
    assert_eq!(ok.unwrap().benchmark_organisations, ["acme"]);
}
