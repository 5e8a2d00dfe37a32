//! Which CoreMark ran (the project's implementation or EEMBC's own sources)
//! decides what a CPU figure is compared with: the website never ranks,
//! tabulates or plots the two together (docs/methodology.md, "CoreMark
//! implementations").

use crate::common::*;
use runner_bench_format::StageKind;
use serde_json::json;

const EEMBC_PATH: &str = "example/example-linux-arm64/2026-11-29-7-1.json";
const COMMIT: &str = "d5fad6bd094899101a4e5fd53af7298160ced6ab";

/// The golden result with its failed fifth CPU sample replaced by the
/// fourth, so that its CPU row is complete and plotted.
fn cpu_complete() -> serde_json::Value {
    let mut v = golden();
    let samples = v["stages"]["cpu"]["samples"].as_array_mut().unwrap();
    samples[4] = samples[3].clone();
    v
}

/// One fingerprint, two runners: example-linux-x64 ran the project's
/// CoreMark (the golden result), example-linux-arm64 a release build of
/// EEMBC's sources. Built into a fresh folder.
fn built() -> tempfile::TempDir {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &cpu_complete());
    let mut arm = cpu_complete();
    arm["runner"]["label"] = json!("example-linux-arm64");
    arm["machine"]["arch"] = json!("arm64");
    arm["provenance"]["github"]["run_id"] = json!(7);
    arm["build"]["coremark"]["implementation"] = json!("eembc");
    arm["build"]["coremark"]["eembc_commit"] = json!(COMMIT);
    another_run(&mut arm, 1);
    put(results.path(), EEMBC_PATH, &arm);
    let o = site_options(results.path());
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    out
}

#[test]
fn each_implementation_has_its_own_table_plot_and_csv() {
    let out = built();
    let home = read(out.path(), "index.html");
    // The implementation is part of the CoreMark key: one profile, two keys.
    let project_key = stage_key(&cpu_complete(), StageKind::Cpu);
    let mut eembc = cpu_complete();
    eembc["build"]["coremark"]["implementation"] = json!("eembc");
    eembc["build"]["coremark"]["eembc_commit"] = json!(COMMIT);
    let eembc_key = stage_key(&eembc, StageKind::Cpu);
    assert_ne!(project_key, eembc_key);
    assert_eq!(runners(&home, &format!("t-{project_key}-cpu")), ["example-linux-x64"]);
    assert_eq!(runners(&home, &format!("t-{eembc_key}-cpu-eembc")), ["example-linux-arm64"]);
    assert!(!home.contains(&format!("t-{project_key}-cpu-eembc")) && !home.contains(&format!("t-{eembc_key}-cpu\"")));
    assert!(
        home.contains(&format!("<h3 id=\"g-{eembc_key}-cpu-eembc\">CoreMark, EEMBC&#x27;s sources</h3>")),
        "{home}"
    );
    assert!(home.contains(
        "<caption>CoreMark iterations per second on one thread (higher is better), median of the accepted samples, compiled from \
         EEMBC's own sources</caption>"
    ));

    let project = read(out.path(), &format!("plots/{project_key}/coremark.svg"));
    let eembc = read(out.path(), &format!("plots/{eembc_key}/coremark-eembc.svg"));
    assert!(eembc.contains("<title id=\"title\">CoreMark iterations/s, EEMBC&#39;s sources</title>"), "{eembc}");
    assert!(project.contains("example-linux-x64 (Example Cloud)") && !project.contains("example-linux-arm64"));
    assert!(eembc.contains("example-linux-arm64 (Example Cloud)") && !eembc.contains("example-linux-x64"));

    let csv_runners = |file: &str| -> Vec<String> {
        read(out.path(), file).lines().skip(1).map(|l| l.split(',').nth(6).unwrap().to_string()).collect()
    };
    assert_eq!(csv_runners("data/coremark.csv"), ["example-linux-x64"]);
    assert_eq!(csv_runners("data/coremark-eembc.csv"), ["example-linux-arm64"]);

    // The provider's report too: a table per implementation, not one
    // ranking of both.
    let report = read(out.path(), "reports/example.md");
    let table = |heading: &str| -> Vec<String> {
        let body = report.split(&format!("## {heading}\n")).nth(1).unwrap_or_else(|| panic!("no {heading}: {report}"));
        body.trim_start()
            .split("\n\n")
            .next()
            .unwrap()
            .lines()
            .skip(2)
            .map(|l| l.split(" | ").next().unwrap()[2..].to_string())
            .collect()
    };
    assert_eq!(table("Pinned results"), ["example-linux-x64"], "{report}");
    assert_eq!(table("Pinned results, EEMBC's CoreMark sources"), ["example-linux-arm64"]);
    assert!(report.contains(
        "The project's implementation and EEMBC's own sources are two programs: their tables are never ranked together."
    ));
}

/// A runner's CoreMark history plot joins only results the tables compare:
/// after results of EEMBC's sources, the line holds those results alone,
/// not a fall or rise from the project's implementation.
#[test]
fn a_history_line_never_joins_two_implementations() {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &cpu_complete());
    let mut later = cpu_complete();
    later["provenance"]["github"]["run_id"] = json!(8);
    later["build"]["coremark"]["implementation"] = json!("eembc");
    later["build"]["coremark"]["eembc_commit"] = json!(COMMIT);
    another_run(&mut later, 2);
    // An hour later, every time of the run with it.
    let later: serde_json::Value =
        serde_json::from_str(&serde_json::to_string(&later).unwrap().replace("2026-11-29T10:", "2026-11-29T11:"))
            .unwrap();
    put(results.path(), "example/example-linux-x64/2026-11-29-8-1.json", &later);
    // A second result of EEMBC's sources, an hour after that: a line of two.
    let mut last = later.clone();
    last["provenance"]["github"]["run_id"] = json!(9);
    another_run(&mut last, 3);
    let last: serde_json::Value =
        serde_json::from_str(&serde_json::to_string(&last).unwrap().replace("2026-11-29T11:", "2026-11-29T12:"))
            .unwrap();
    put(results.path(), "example/example-linux-x64/2026-11-29-9-1.json", &last);
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let svg = read(out.path(), "plots/runners/example/example-linux-x64.svg");
    // The data lines are drawn 2 wide; axes and ticks 1.
    let lines: Vec<&str> = svg
        .split("<polyline")
        .skip(1)
        .map(|e| e.split("/>").next().unwrap())
        .filter(|e| e.contains("stroke-width=\"2\""))
        .map(|e| e.split("points=\"").nth(1).unwrap().split('"').next().unwrap().trim())
        .collect();
    assert_eq!(lines.len(), 1, "{svg}");
    assert_eq!(lines[0].split(' ').count(), 2, "the line joins other than the two EEMBC results: {lines:?}");
}
