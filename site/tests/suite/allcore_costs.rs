//! Issue 56, items 2 and 3, with issue 57's ties: the overview's all-core
//! CoreMark, vCPU worth and cost of all-core work, the pages ordered by
//! each cost, and the same figures, places and ties in overview.csv and
//! index.json, worked out by hand from results made of the format crate's
//! golden result with the all-core stage.
//!
//! Four runners, one CoreMark group, the same five one-thread samples each
//! (1000000 iterations in 30.0, 30.0, 30.0, 30.1 and 30.2 s, plus a few µs
//! that tell the runs apart: median 1000000 ÷ 30.0 = 33333.33 it/s, so all
//! four share one-thread place 1). Every sample runs at least the
//! profile's 30 s, as `site check` asks:
//! - acme-2vcpu, $0.008/min: 2 contexts × 600000 iterations in 30.0, 30.0,
//!   30.0, 30.1 and 30.2 s, median 1200000 ÷ 30.0 = 40000.00 it/s (range
//!   39735.10–40000.00);
//! - acme-8vcpu, $0.032/min: 8 × 900000 in the same times, median 7200000
//!   ÷ 30.0 = 240000.00 (238410.60–240000.00);
//! - bolt-8vcpu, $0.040/min: 8 × 900000 in 30.1, 30.1, 30.1, 30.2 and 30.3
//!   s, median 7200000 ÷ 30.1 = 239202.66 (237623.76–239202.66), whose
//!   range overlaps acme-8vcpu's: a tie;
//! - acme-4vcpu, $0.016/min: a result of the standard profile before the
//!   all-core stage.

use std::path::Path;

use serde_json::{Value, json};

use crate::common;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1-allcore.json");

const ACME: &str = "name = \"Acme\"\n\
                    [runners.acme-2vcpu]\nvcpu = 2\narch = \"x64\"\nos = \"linux\"\nprice = { usd_per_minute = 0.008, \
                    source = \"https://acme.example/pricing\", read_on = \"2026-11-20\" }\n\
                    [runners.acme-4vcpu]\nvcpu = 4\narch = \"x64\"\nos = \"linux\"\nprice = { usd_per_minute = 0.016, \
                    source = \"https://acme.example/pricing\", read_on = \"2026-11-20\" }\n\
                    [runners.acme-8vcpu]\nvcpu = 8\narch = \"x64\"\nos = \"linux\"\nprice = { usd_per_minute = 0.032, \
                    source = \"https://acme.example/pricing\", read_on = \"2026-11-20\" }\n";
const BOLT: &str = "name = \"Bolt\"\n[runners.bolt-8vcpu]\nvcpu = 8\narch = \"x64\"\nos = \"linux\"\nprice = { \
                    usd_per_minute = 0.040, source = \"https://bolt.example/pricing\", read_on = \"2026-11-20\" }\n";

/// The golden result as run `n` of `provider`'s `label` on `cpus` logical
/// CPUs: every sample accepted, the one-thread samples above, and the
/// all-core samples `iterations` per context in `elapsed_s` (none: a
/// result of the profile before the all-core stage).
fn result(n: u32, provider: &str, label: &str, cpus: u32, all_core: Option<(u64, [f64; 5])>) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(GOLDEN).unwrap()).unwrap();
    v["provider"] = json!({"id": provider, "name": provider});
    v["runner"] = json!({"label": label, "name": label});
    v["machine"]["logical_cpus"] = json!(cpus);
    let one = v["stages"]["cpu"]["samples"][0].clone();
    let samples: Vec<Value> = [30.0, 30.0, 30.0, 30.1, 30.2]
        .iter()
        .map(|&e| {
            let mut s = one.clone();
            s["iterations"] = json!(1_000_000);
            s["elapsed_s"] = json!(e);
            s
        })
        .collect();
    v["stages"]["cpu"]["samples"] = json!(samples);
    match all_core {
        Some((iterations, elapsed)) => {
            let sample = v["stages"]["cpu_allcore"]["samples"][0].clone();
            let thread = sample["threads"][0].clone();
            let samples: Vec<Value> = elapsed
                .iter()
                .map(|&e| {
                    let mut s = sample.clone();
                    s["contexts"] = json!(cpus);
                    s["iterations"] = json!(iterations);
                    s["elapsed_s"] = json!(e);
                    s["threads"] = json!(
                        (0..cpus)
                            .map(|cpu| {
                                let mut t = thread.clone();
                                t["first_cpu"]["cpu"] = json!(cpu);
                                t["last_cpu"]["cpu"] = json!(cpu);
                                t
                            })
                            .collect::<Vec<_>>()
                    );
                    s
                })
                .collect();
            v["stages"]["cpu_allcore"]["samples"] = json!(samples);
        }
        None => {
            // The standard profile as collectors before the all-core stage
            // defined it (`validate::profiles::BEFORE_ALL_CORE`).
            v["stages"].as_object_mut().unwrap().remove("cpu_allcore");
            v["parameters"].as_object_mut().unwrap().remove("cpu_allcore");
            v["fingerprint"] = json!("739dba2a6817");
        }
    }
    common::another_run(&mut v, n);
    v
}

/// Builds the four runners with their provider files into `out`.
fn build(out: &Path) {
    let results = common::results_dir();
    let at = |provider: &str, label: &str| format!("{provider}/{label}/2026-11-29-18342215517-1.json");
    let runs = [
        ("acme", "acme-2vcpu", 2, Some((600_000, [30.0, 30.0, 30.0, 30.1, 30.2]))),
        ("acme", "acme-8vcpu", 8, Some((900_000, [30.0, 30.0, 30.0, 30.1, 30.2]))),
        ("bolt", "bolt-8vcpu", 8, Some((900_000, [30.1, 30.1, 30.1, 30.2, 30.3]))),
        ("acme", "acme-4vcpu", 4, None),
    ];
    for (n, (provider, label, cpus, all_core)) in (1..).zip(runs) {
        common::put(results.path(), &at(provider, label), &result(n, provider, label, cpus, all_core));
    }
    let content = tempfile::tempdir().unwrap();
    let providers = content.path().join("providers");
    std::fs::create_dir_all(&providers).unwrap();
    std::fs::write(providers.join("acme.toml"), ACME).unwrap();
    std::fs::write(providers.join("bolt.toml"), BOLT).unwrap();
    let mut o = common::site_options(results.path());
    o.content = content.path().to_path_buf();
    site::output::build(&o, out, &mut site::output::BuildMode::Stream).unwrap();
}

/// The text of an HTML fragment, its tags dropped.
fn text(html: &str) -> String {
    let mut t = String::new();
    let mut tag = false;
    for ch in html.chars() {
        match ch {
            '<' => tag = true,
            '>' => tag = false,
            _ if !tag => t.push(ch),
            _ => {}
        }
    }
    t
}

/// The rows of the one section of an overview page: runner, one-thread
/// CoreMark with its share, all-core CoreMark, vCPU worth, cost of
/// one-thread work, cost of all-core work, as the cells read.
fn rows(out: &Path, page: &str) -> Vec<[String; 6]> {
    let page = common::read(out, &format!("{page}/index.html"));
    let sections: Vec<&str> = page.split("<section class=\"group\"").skip(1).collect();
    assert_eq!(sections.len(), 1, "{page}");
    let body = &sections[0][sections[0].find("<tbody>").unwrap() + 7..sections[0].find("</tbody>").unwrap()];
    body.lines()
        .filter(|l| !l.is_empty())
        .map(|row| {
            let label = row.split("</a>").next().unwrap().rsplit('>').next().unwrap().to_string();
            let cells: Vec<String> = row.split("<td").skip(1).map(|c| text(&format!("<td{c}"))).collect();
            [label, cells[0].clone(), cells[1].clone(), cells[2].clone(), cells[3].clone(), cells[4].clone()]
        })
        .collect()
}

#[test]
fn the_overview_shows_both_figures_the_vcpu_worth_and_both_costs_with_ties() {
    let out = tempfile::tempdir().unwrap();
    build(out.path());
    let row = |cells: [&str; 6]| cells.map(str::to_string);
    // vCPU worth: 40000.00 ÷ (33333.33 × 2) = 0.6000 → 0.60; 240000.00 ÷
    // (33333.33 × 8) = 0.9000 → 0.90; 239202.66 ÷ (33333.33 × 8) = 0.8970
    // → 0.90.
    // Cost of one-thread work: the four share place 1, so each costs its
    // price × 33333.33 ÷ 33333.33, marked ≈.
    // Cost of all-core work, price ÷ 60 × 10⁹ ÷ all-core it/s:
    // - acme-2vcpu: 0.008 ÷ 60 × 10⁹ ÷ 40000 = 3.3333 → $3.33;
    // - acme-8vcpu: 0.032 ÷ 60 × 10⁹ ÷ 240000 = 2.2222 → ≈ $2.22;
    // - bolt-8vcpu, tied with acme-8vcpu: from the place's figure, 0.040 ÷
    //   60 × 10⁹ ÷ 240000 = 2.7778 → ≈ $2.78 (its own figure would give
    //   0.040 ÷ 60 × 10⁹ ÷ 239202.66 = 2.7871 → $2.79).
    let two = row(["acme-2vcpu", "33333.33 ≈ 100 %", "40000.00", "0.60", "≈ $0.00800", "$3.33"]);
    let four = row([
        "acme-4vcpu",
        "33333.33 ≈ 100 %",
        // The reason as the page escapes it.
        "—no all-core stage in this result&#x27;s profile",
        "—",
        "≈ $0.0160",
        "—",
    ]);
    let eight = row(["acme-8vcpu", "33333.33 ≈ 100 %", "240000.00", "0.90", "≈ $0.0320", "≈ $2.22"]);
    let bolt = row(["bolt-8vcpu", "33333.33 ≈ 100 %", "239202.66", "0.90", "≈ $0.0400", "≈ $2.78"]);
    // By one-thread CoreMark (all tied): provider and label.
    assert_eq!(rows(out.path(), "overview"), [two.clone(), four.clone(), eight.clone(), bolt.clone()]);
    // By cost of one-thread work: 0.008, 0.016, 0.032, 0.040.
    assert_eq!(rows(out.path(), "overview/by-cost"), [two.clone(), four.clone(), eight.clone(), bolt.clone()]);
    // By cost of all-core work: 2.22, 2.78, 3.33, then none.
    assert_eq!(rows(out.path(), "overview/by-allcore-cost"), [eight, bolt, two, four]);

    let page = common::read(out.path(), "overview/by-allcore-cost/index.html");
    assert!(page.contains("<h1>Overview by cost of all-core work</h1>"), "{page}");
    assert!(page.contains(
        "Ordered by cost of all-core work, cheapest first; also <a href=\"/overview/\">by one-thread CoreMark</a> \
         and <a href=\"/overview/by-cost/\">by cost of one-thread work</a>."
    ));
    let overview = common::read(out.path(), "overview/index.html");
    assert!(overview.contains(
        "Ordered by one-thread CoreMark, fastest first; also <a href=\"/overview/by-cost/\">by cost of one-thread \
         work</a> and <a href=\"/overview/by-allcore-cost/\">by cost of all-core work</a>."
    ));
    assert!(overview.contains(
        "<dt>vCPU worth</dt><dd>What one vCPU is worth in full cores: the all-core figure ÷ (the one-thread figure \
         × the logical CPUs), near 1 where each vCPU is a full core and about 0.5–0.6 where two are hyperthreads \
         of one core or the host is oversubscribed.</dd>"
    ));
    assert!(overview.contains(
        "<dt>Cost of all-core work</dt><dd>What this runner costs, at its price for the whole runner, to run 10⁹ \
         CoreMark iterations on all its logical CPUs at once: price per minute ÷ 60 × 10⁹ ÷ the all-core figure, \
         in US dollars."
    ));
    let sitemap = common::read(out.path(), "sitemap.xml");
    assert!(sitemap.contains("/overview/by-allcore-cost/</loc>"), "{sitemap}");
}

#[test]
fn the_data_files_carry_the_figures_places_and_ties() {
    let out = tempfile::tempdir().unwrap();
    build(out.path());
    // overview.csv: a row per runner in the overview's order, the costs
    // unrounded (0.008 ÷ 60 × 10⁹ ÷ 40000 = 3.3333…).
    let csv = common::read(out.path(), "data/overview.csv");
    let lines: Vec<Vec<String>> = csv.lines().map(|l| l.split(',').map(str::to_string).collect()).collect::<Vec<_>>();
    let head = &lines[0];
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let pick = |names: &[&str]| -> Vec<Vec<String>> {
        lines[1..].iter().map(|l| names.iter().map(|n| l[col(n)].clone()).collect()).collect()
    };
    let figures = pick(&[
        "runner",
        "coremark_it_s",
        "coremark_place",
        "coremark_tied",
        "all_core_it_s",
        "all_core_place",
        "all_core_tied",
        "vcpu_worth",
        "cost_all_core_tied",
    ]);
    let row = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    assert_eq!(
        figures,
        [
            row(&["acme-2vcpu", "33333.33", "1", "yes", "40000.00", "3", "no", "0.60", "no"]),
            row(&["acme-4vcpu", "33333.33", "1", "yes", "", "", "", "", ""]),
            row(&["acme-8vcpu", "33333.33", "1", "yes", "240000.00", "1", "yes", "0.90", "yes"]),
            row(&["bolt-8vcpu", "33333.33", "1", "yes", "239202.66", "1", "yes", "0.90", "yes"]),
        ]
    );
    let costs: Vec<f64> =
        pick(&["cost_all_core_usd_per_1e9_it"]).iter().map(|c| c[0].parse().unwrap_or(f64::NAN)).collect();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(costs[0], 0.008 / 60.0 * 1e9 / 40000.0), "{costs:?}");
    assert!(costs[1].is_nan());
    assert!(close(costs[2], 0.032 / 60.0 * 1e9 / 240000.0));
    // Tied: from acme-8vcpu's figure, not its own.
    assert!(close(costs[3], 0.040 / 60.0 * 1e9 / 240000.0));
    assert_eq!(pick(&["all_core_missing"])[1], ["no all-core stage in this result's profile"]);

    // coremark.csv: each result's all-core median, least and greatest
    // sample (1200000 ÷ 30.2 = 39735.10), the reason where it has none, and
    // the vCPU worth.
    let coremark = common::read(out.path(), "data/coremark.csv");
    let line = |runner: &str| coremark.lines().find(|l| l.contains(&format!(",{runner},"))).unwrap().to_string();
    assert!(line("acme-2vcpu").contains(",5,40000.00,39735.10,40000.00,,0.60,"), "{coremark}");
    assert!(line("acme-4vcpu").contains(",5,,,,no all-core stage in this result's profile,,"), "{coremark}");

    // index.json: each result's CoreMark place and tie within its group
    // (as coremark.csv), its all-core figure and vCPU worth; the
    // overview's rows with both costs.
    let index: Value = serde_json::from_str(&common::read(out.path(), "index.json")).unwrap();
    let results = index["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    for r in results {
        assert_eq!((&r["coremark_place"], &r["coremark_tied"]), (&json!(1), &json!(true)), "{r}");
        assert!(r["coremark_stage_key"].is_string());
    }
    let by_runner = |rows: &Vec<Value>, label: &str| rows.iter().find(|r| r["runner"] == label).unwrap().clone();
    let two = by_runner(results, "acme-2vcpu");
    assert_eq!(two["coremark_all_core_median_it_s"], json!(40000.0));
    // Its one-thread median is 1000000 ÷ 30.000001 (run 1).
    assert!(close(two["vcpu_worth"].as_f64().unwrap(), 40000.0 / (1e6 / 30.000001 * 2.0)));
    let four = by_runner(results, "acme-4vcpu");
    assert_eq!(four["coremark_all_core_median_it_s"], Value::Null);
    assert_eq!(four["coremark_all_core_missing"], json!("no all-core stage in this result's profile"));
    let overview = index["overview"].as_array().unwrap();
    let bolt = by_runner(overview, "bolt-8vcpu");
    assert_eq!((&bolt["all_core_place"], &bolt["all_core_tied"]), (&json!(1), &json!(true)));
    assert_eq!(bolt["cost_all_core_tied"], json!(true));
    assert!(close(bolt["cost_all_core_usd_per_1e9_it"].as_f64().unwrap(), 0.040 / 60.0 * 1e9 / 240000.0));
    // The overview's rows are of the results' CoreMark table, their
    // figures unrounded: acme-2vcpu's one-thread median is 1000000 ÷
    // 30.000001 (run 1).
    assert_eq!(bolt["stage_key"], results[0]["coremark_stage_key"]);
    let two = by_runner(overview, "acme-2vcpu");
    assert!(close(two["coremark_it_s"].as_f64().unwrap(), 1e6 / 30.000001));
    assert_eq!((&two["all_core_place"], &two["all_core_tied"]), (&json!(3), &json!(false)));
    assert_eq!(two["cost_all_core_tied"], json!(false));
    let four = by_runner(overview, "acme-4vcpu");
    assert_eq!((&four["all_core_place"], &four["cost_all_core_tied"]), (&Value::Null, &Value::Null));
    assert!(close(two["cost_one_thread_usd"].as_f64().unwrap(), 0.008));
    assert_eq!(two["cost_one_thread_tied"], json!(true));
}
