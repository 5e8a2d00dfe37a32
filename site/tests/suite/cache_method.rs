//! A cache pair's method (the collector's client or a workflow action) is
//! part of what makes cache figures comparable: `site check` keeps one
//! method per backend and an action step exactly on action pairs, and the
//! website never ranks, tabulates or plots the two methods together.

use std::path::Path;

use crate::common::*;
use runner_bench_format::StageKind;
use serde_json::{Value, json};

const ARM_PATH: &str = "example/example-linux-arm64/2026-11-29-7-1.json";
const ACTION_LABEL: &str = "action: actions/cache/save@27d5ce7, actions/cache/restore@27d5ce7";

// The check

#[test]
fn a_backend_is_measured_one_way() {
    // github's trial 2 by an action step, its trials 1 and 3 by the client.
    let mut v = golden();
    v["stages"]["cache"]["pairs"][3] = action_fixture()["stages"]["cache"]["pairs"][3].clone();
    assert_eq!(
        problems_of(&v),
        [golden_problem(
            "$.stages.cache.pairs[3].method",
            "method action differs from the client of backend \"github\"'s earlier pairs; one backend is measured \
             one way"
        )]
    );
}

#[test]
fn an_action_step_is_recorded_exactly_on_action_pairs() {
    assert_eq!(problems_of(&action_fixture()), []);
    let mut v = action_fixture();
    let restore_step = v["stages"]["cache"]["pairs"][0]["restore"]["action"].clone();
    v["stages"]["cache"]["pairs"][0]["save"].as_object_mut().unwrap().remove("action");
    // Pair 1 is the volume's, by the client.
    v["stages"]["cache"]["pairs"][1]["restore"]["action"] = restore_step;
    assert_eq!(
        problems_of(&v),
        [
            golden_problem(
                "$.stages.cache.pairs[0].save.action",
                "required for a pair of method action (the action step and what was observed of it)"
            ),
            golden_problem("$.stages.cache.pairs[1].restore.action", "only a pair of method action has an action step"),
        ]
    );
}

// The website

/// Gives the volume's trial 3 (a miss in the golden result) trial 2's
/// restore, so that every cache row is complete and plotted.
fn volume_verified(mut v: Value) -> Value {
    let pairs = v["stages"]["cache"]["pairs"].as_array_mut().unwrap();
    pairs[5]["restore"] = pairs[2]["restore"].clone();
    pairs[5]["verification"] = pairs[2]["verification"].clone();
    v
}

/// One fingerprint, two runners: example-linux-x64 measured github by an
/// action and its volume by the client; example-linux-arm64 both by the
/// client. Built into a fresh folder.
fn built() -> tempfile::TempDir {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &volume_verified(action_fixture()));
    let mut arm = volume_verified(golden());
    arm["runner"]["label"] = json!("example-linux-arm64");
    arm["machine"]["arch"] = json!("arm64");
    arm["provenance"]["github"]["run_id"] = json!(7);
    another_run(&mut arm, 1);
    put(results.path(), ARM_PATH, &arm);
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    out
}

/// `(runner, backend, method)` of each row of the table `id`, in order:
/// the method from the row's cell, or from the caption where every row has
/// the same one (the table then leaves the column out).
fn rows(html: &str, id: &str) -> Vec<(String, String, String)> {
    let table = html
        .split(&format!("id=\"{id}\">"))
        .nth(1)
        .unwrap_or_else(|| panic!("no table {id}"))
        .split("</table>")
        .next()
        .unwrap();
    let caption = table.split("<caption>").nth(1).unwrap().split("</caption>").next().unwrap();
    let same = caption.split("; Method in every row: ").nth(1);
    let body = table.split("<tbody>").nth(1).unwrap();
    body.split("<tr")
        .skip(1)
        .map(|row| {
            let runner = row.split("</a></th>").next().unwrap().rsplit('>').next().unwrap().to_string();
            let cells: Vec<&str> = row.split("<td>").skip(1).map(|c| c.split("</td>").next().unwrap()).collect();
            // Provider, backend, method.
            let method = same.unwrap_or_else(|| cells[2]);
            (runner, cells[1].to_string(), method.replace("&#x2F;", "/"))
        })
        .collect()
}

/// The golden result's cache key, which names its cache group.
fn key() -> String {
    stage_key(&golden(), StageKind::Cache)
}

fn row(runner: &str, backend: &str, method: &str) -> (String, String, String) {
    (runner.to_string(), backend.to_string(), method.to_string())
}

#[test]
fn each_method_has_its_own_table_ranked_alone() {
    let out = built();
    let home = read(out.path(), "index.html");
    let key = key();
    // Ranked by restore seconds: the volumes (1.39 s) before github (22.10 s),
    // within the client method only.
    assert_eq!(
        rows(&home, &format!("t-{key}-cache")),
        [
            row("example-linux-arm64", "Example attached volume", "client"),
            row("example-linux-x64", "Example attached volume", "client"),
            row("example-linux-arm64", "GitHub Actions cache", "client"),
        ]
    );
    assert_eq!(
        rows(&home, &format!("t-{key}-cache-action")),
        [row("example-linux-x64", "GitHub Actions cache", ACTION_LABEL)]
    );
    assert!(home.contains(&format!("<h3 id=\"g-{key}-cache\">Cache, client method</h3>")), "{home}");
    assert!(home.contains(&format!("<h3 id=\"g-{key}-cache-action\">Cache, action method</h3>")), "{home}");
    assert!(home.contains(
        "<caption>Cache save and restore per backend, action method (the action step with its node start-up and \
         adjacent step transitions): seconds as median; min–max (lower is better), and MiB/s from the \
         median</caption>"
    ));
}

#[test]
fn each_method_has_its_own_plot() {
    let out = built();
    let key = key();
    let client = read(out.path(), &format!("plots/{key}/cache.svg"));
    let action = read(out.path(), &format!("plots/{key}/cache-action.svg"));
    assert!(client.contains(&format!(
        "<title id=\"title\">Cache save and restore seconds, client method</title><desc id=\"desc\">Median seconds \
         to save and to restore the cache payload per runner and backend, timed by the client method (the \
         collector&#39;s own client, no step transitions), with min–max whiskers; lower is better (key {key} \
         (fingerprint 739dba2a6817)).</desc>"
    )));
    assert!(action.contains("<title id=\"title\">Cache save and restore seconds, action method</title>"));
    let bars = |svg: &str| svg.matches(" · save").count() + svg.matches(" · restore").count();
    // Three client rows and one action row, a save and a restore bar each.
    assert_eq!((bars(&client), bars(&action)), (6, 2));
    assert!(!client.contains("example-linux-x64 (Example Cloud) · GitHub Actions cache"));
    assert!(action.contains("example-linux-x64 (Example Cloud) · GitHub Actions cache · restore"));
}

#[test]
fn each_method_has_its_own_csv_with_the_method() {
    let out = built();
    let key = key();
    let head = "fingerprint,protocol,stage_key,place,tied,provider,runner,backend,method,verified_trials,trials,save_median_s,save_min_s,\
                save_max_s,save_mib_s,restore_median_s,restore_min_s,restore_max_s,restore_mib_s,date,imported_on,collector,\
                imported,stale,incomplete,excluded,source\r\n";
    // The result lacks a CPU sample; its cache rows are complete, and say so.
    let tail = "2026-11-29,,0.1.0,no,no,no,,/results/example";
    assert_eq!(
        read(out.path(), "data/cache-action.csv"),
        format!(
            "{head}739dba2a6817,1,{key},1,no,example,example-linux-x64,GitHub Actions cache,\"{ACTION_LABEL}\",3,3,7.76,\
             7.12,22.53,65.98,22.10,18.53,66.84,23.17,{tail}/example-linux-x64/2026-11-29-18342215517-1.json\r\n"
        )
    );
    let client = read(out.path(), "data/cache.csv");
    assert!(client.starts_with(head));
    assert_eq!(client.lines().count(), 4, "{client}");
    assert!(!client.contains("action"), "{client}");
    // Two runners with the same volume figures share place 1.
    assert!(client.contains(&format!(
        "739dba2a6817,1,{key},1,yes,example,example-linux-x64,Example attached volume,client,3,3,1.92,1.88,1.95,266.67,\
         1.39,1.39,1.41,368.35,{tail}/example-linux-x64/2026-11-29-18342215517-1.json\r\n"
    )), "{client}");
}

#[test]
fn a_runner_page_shows_the_cache_method() {
    let out = built();
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert!(page.contains("<th scope=\"col\">Backend</th><th scope=\"col\">Method</th>"));
    // Every backend has its own row, with its method: the GitHub cache by
    // the action's steps, the volume by the collector's client.
    let date = "<td><a href=\"#r-2026-11-29-18342215517-1\">2026-11-29</a> <small class=\"reason\">standard profile, without the all-core stage</small></td>";
    let action = "action: actions&#x2F;cache&#x2F;save@27d5ce7, actions&#x2F;cache&#x2F;restore@27d5ce7";
    for (backend, method) in [("GitHub Actions cache", action), ("Example attached volume", "client")] {
        assert!(page.contains(&format!("<tr>{date}<td>{backend}</td><td>{method}</td>")), "{backend}: {page}");
    }
    let page = read(out.path(), "runners/example/example-linux-arm64/index.html");
    let date = "<td><a href=\"#r-2026-11-29-7-1\">2026-11-29</a> <small class=\"reason\">standard profile, without the all-core stage</small></td>";
    for backend in ["GitHub Actions cache", "Example attached volume"] {
        assert!(page.contains(&format!("<tr>{date}<td>{backend}</td><td>client</td>")), "{backend}: {page}");
    }
}

/// The published reports timed action steps: their figures are in the
/// action tables, never beside the collector's client.
#[test]
fn imported_figures_are_action_figures() {
    let out = tempfile::tempdir().unwrap();
    let results = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results"));
    build_into(results, out.path());
    let home = read(out.path(), "index.html");
    // The three reports' cache sections are the same (tests/keys.rs): one
    // action table, ranked by restore seconds.
    assert!(!home.contains("id=\"t-1c0e0dc62819-cache\""));
    assert_eq!(
        rows(&home, "t-1c0e0dc62819-cache-action"),
        [
            row("latchkey-linux-x64", "Latchkey Fast Cache", "action"),
            row("latchkey-linux-x64", "GitHub Actions cache", "action"),
            row("starsling-linux-x64", "GitHub Actions cache", "action"),
            row("ubicloud-linux-arm64", "Ubicloud transparent cache", "action"),
            row("ubicloud-linux-x64", "Ubicloud transparent cache", "action"),
            row("ubicloud-linux-arm64", "GitHub Actions cache", "action"),
            row("ubicloud-linux-x64", "GitHub Actions cache", "action"),
        ]
    );
}
