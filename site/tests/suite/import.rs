//! `site import`: the seed reports round-trip exactly, the RBCS document's
//! every figure is kept, and a malformed document gets its line named.

use std::path::{Path, PathBuf};

use crate::common::*;
use runner_bench_format::{Date, Timestamp, to_json};
use site::import::{ImportError, ImportSource, import, path_of};

/// The date recorded in the committed imported seeds.
const IMPORTED_AT: &str = "2026-11-29T00:00:00Z";

fn seed(prefix: &str) -> PathBuf {
    std::fs::read_dir(SEEDS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .unwrap()
}

fn source(path: &Path) -> ImportSource {
    ImportSource {
        document: path.file_name().unwrap().to_string_lossy().into_owned(),
        bytes: std::fs::read(path).unwrap(),
        imported_at: Timestamp::new(IMPORTED_AT).unwrap(),
        measured_on: None,
    }
}

fn source_of(text: &str) -> ImportSource {
    ImportSource {
        document: "report.md".to_string(),
        bytes: text.as_bytes().to_vec(),
        imported_at: Timestamp::new(IMPORTED_AT).unwrap(),
        measured_on: None,
    }
}

/// The command's dates: imported at `t`, measurement day not stated.
fn at(t: &str) -> site::cmd::import::When {
    site::cmd::import::When { imported_at: Some(Timestamp::new(t).unwrap()), measured_on: None }
}

/// Imports `prefix`'s seed into a fresh results folder and checks it.
fn import_seed(prefix: &str) -> (tempfile::TempDir, Vec<site::Run>) {
    let dir = results_dir();
    for r in import(&source(&seed(prefix))).unwrap() {
        let path = dir.path().join(path_of(&r));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, to_json(&r)).unwrap();
    }
    let runs = accepted(dir.path());
    (dir, runs)
}

/// Every table row, figure and paragraph of seeds 000–002 comes back
/// exactly; no paragraph differs. The one difference: the seed files are
/// stored without a final newline, and a rendered report ends with one.
#[test]
fn runner_report_seeds_round_trip_exactly() {
    for (prefix, provider) in [("000_", "ubicloud"), ("001_", "starsling"), ("002_", "latchkey")] {
        let (_dir, runs) = import_seed(prefix);
        let expected = std::fs::read_to_string(seed(prefix)).unwrap();
        let rendered = render(provider, &runs);
        assert_eq!(rendered, format!("{expected}\n"), "seed {prefix}");
    }
}

/// The committed files say which `site` version imported them; a later
/// version imports the same document to the same file but for that name.
#[test]
fn the_committed_results_are_the_imported_seeds() {
    let results = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results"));
    for prefix in ["000_", "001_", "002_", "003_"] {
        for mut r in import(&source(&seed(prefix))).unwrap() {
            let committed = String::from_utf8(std::fs::read(results.join(path_of(&r))).unwrap()).unwrap();
            let value: serde_json::Value = serde_json::from_str(&committed).unwrap();
            let importer = value["source"]["importer"].as_str().unwrap();
            assert!(importer.starts_with("site "), "{importer}");
            r.source.importer = runner_bench_format::Name::lossy(importer);
            assert_eq!(committed, String::from_utf8(to_json(&r)).unwrap());
        }
    }
}

#[test]
fn a_runner_report_gives_one_result_per_runner() {
    let results = import(&source(&seed("000_"))).unwrap();
    let labels: Vec<&str> = results.iter().map(|r| r.runner.label.as_str()).collect();
    assert_eq!(labels, ["ubicloud-linux-x64", "ubicloud-linux-arm64"]);
    let arm = &results[1];
    assert_eq!(arm.provider.id.as_str(), "ubicloud");
    assert_eq!(arm.provider.name.as_ref().unwrap().as_str(), "Ubicloud");
    assert_eq!(arm.source.title.as_str(), "Ubicloud Runner Benchmarks");
    assert_eq!(arm.source.document.as_str(), "000_a5cbaa4571400c0a.txt");
    assert_eq!(arm.published_profile.as_ref().unwrap().fingerprint.as_str(), "e021cd7ddc71");
    assert_eq!(arm.published_profile.as_ref().unwrap().cache_publication_gap_s, Some(120));
    let cpu = arm.stages.cpu.as_ref().unwrap();
    assert_eq!(cpu.iterations_per_s.median.get(), 21630.02);
    let stages: Vec<&str> = arm.notices.iter().map(|n| n.stage.as_str()).collect();
    assert_eq!(
        stages,
        ["internet", "ubicloud / trial 1 / cleanup", "ubicloud / trial 2 / cleanup", "ubicloud / trial 3 / cleanup"]
    );
    assert_eq!(path_of(arm), "ubicloud/ubicloud-linux-arm64/2026-11-29-imported-2c7ad0467348.json");
}

#[test]
fn the_rbcs_benchmark_keeps_every_row() {
    let path = seed("003_");
    let text = std::fs::read_to_string(&path).unwrap();
    let results = import(&source(&path)).unwrap();
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!((r.provider.id.as_str(), r.runner.label.as_str()), ("rbcs", "celeron-j3455"));
    assert_eq!(r.source.title.as_str(), "RBCS performance benchmarks");
    let http = r.stages.http_cache.as_ref().unwrap();
    assert_eq!(http.software.as_str(), "RBCS");
    let conditions: Vec<String> = http.conditions.iter().map(|c| format!("{}: {}", c.name, c.value)).collect();
    assert_eq!(
        conditions,
        [
            "CPU: Intel Celeron J3455 (4 physical cores)",
            "memory: 8GB DDR3L 1600 MHz",
            "disk: SATA3 120GB SSD",
            "HTTP compression: disabled",
            "cache compression: disabled",
            "digest: none",
            "authentication: disabled",
            "TLS: disabled",
            "network RTT: 14ms",
            "network bandwidth: 112 MiB/s",
        ]
    );
    let titles: Vec<&str> = http.tables.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, ["In memory cache backend", "Filesystem cache backend", "Memcache cache backend"]);
    let table_conditions: Vec<String> = http
        .tables
        .iter()
        .map(|t| t.conditions.iter().map(|c| format!("{}={}", c.name, c.value)).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        table_conditions,
        [
            "",
            "compression=disabled digest=none authentication=disabled TLS=disabled",
            "compression=disabled digest=MD5 authentication=disabled TLS=disabled"
        ]
    );
    // Every row of the document, figure by figure, in order.
    let published: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.contains('\t') && !l.starts_with("Cache backend"))
        .map(|l| l.split('\t').collect())
        .collect();
    let imported: Vec<Vec<String>> = http
        .tables
        .iter()
        .flat_map(|t| &t.rows)
        .map(|r| {
            vec![
                r.backend.to_string(),
                r.cpu.to_string(),
                format!("{:.2}", r.cpu_quota.get()),
                r.memory_quota_gb.get().to_string(),
                r.value_bytes.to_string(),
                r.connections.to_string(),
                r.put_per_s.get().to_string(),
                r.get_per_s.get().to_string(),
            ]
        })
        .collect();
    assert_eq!(published.len(), 48);
    assert_eq!(imported, published);
}

#[test]
fn the_rbcs_report_renders_every_row() {
    let (_dir, runs) = import_seed("003_");
    let report = render("rbcs", &runs);
    assert!(report.starts_with("# RBCS performance benchmarks\n\n## Build-cache server: RBCS on celeron-j3455\n"));
    assert!(report.contains("\n| memcache | Intel Celeron J3455 | 3.50 | 0.25 | 65536 | 100 | 1633 | 1317 |"));
    assert!(report.contains("\n### Filesystem cache backend\n\ncompression: disabled, digest: none, authentication: disabled, TLS: disabled\n"));
    assert_eq!(report.matches("\n| in-memory |").count(), 16);
}

fn error(text: &str) -> String {
    match import(&source_of(text)) {
        Ok(_) => panic!("imported"),
        Err(ImportError { .. }) => import(&source_of(text)).unwrap_err().to_string(),
    }
}

#[test]
fn a_malformed_report_names_the_line_and_what_was_expected() {
    assert_eq!(
        error("# Ubicloud benchmarks\n"),
        "line 1: expected a title \"# <Provider> Runner Benchmarks\", found \"# Ubicloud benchmarks\""
    );
    let seed = std::fs::read_to_string(seed("000_")).unwrap();
    assert_eq!(error(&seed.replace("| 33392.77 |", "| 33392,77 |")), "line 19: expected a number, found \"33392,77\"");
    assert_eq!(
        error(&seed.replace("| 0 / 0 | 5 |\n| ubicloud-linux-arm64", "| 0 / 0 |\n| ubicloud-linux-arm64")),
        "line 19: expected a row of 7 cells (Runner | Binary | Median iterations/s | Min–max | Variation | CPU / group \
         | Samples), found \"| ubicloud-linux-x64 | x64 (64-bit) | 33392.77 | 29068.42–37639.26 | 9.29% | 0 / 0 |\""
    );
    assert_eq!(
        error(&seed.replace("| Runner | CPU model |", "| Runner | CPU |")),
        "line 73: expected the table header \"| Runner | CPU model | OS image | Compiler | Flags |\", found \
         \"| Runner | CPU | OS image | Compiler | Flags |\""
    );
    assert_eq!(
        error(&seed.replace("- **ubicloud-linux-x64 / internet**", "- **someone-else / internet**")),
        "line 66: expected a notice that begins with a runner of the report, found \"someone-else / internet\""
    );
    // Rows that would be lost or would replace others are refused: a
    // runner twice in a stage, a row after a break, a heading twice.
    let x64 = "| ubicloud-linux-x64 | x64 (64-bit) | 33392.77 | 29068.42–37639.26 | 9.29% | 0 / 0 | 5 |";
    assert_eq!(
        error(&seed.replacen(x64, &format!("{x64}\n{x64}"), 1)),
        "line 20: expected each runner once per stage, found \"ubicloud-linux-x64\""
    );
    assert_eq!(
        error(&seed.replacen(&format!("{x64}\n"), &format!("{x64}\n\n"), 1)),
        "line 21: expected no table row apart from the section's table, found \"| ubicloud-linux-arm64 | arm64 (64-bit) \
         | 21630.02 | 21545.06–21636.67 | 0.19% | 0 / 0 | 5 |\""
    );
    assert_eq!(
        error(&seed.replacen("## Internet", "## Pinned results", 1)),
        "line 49: expected a section heading not used before, found \"## Pinned results\""
    );
    assert_eq!(
        error(&seed.replacen("## Disk I/O", "## Disk IO", 1)),
        "line 24: expected a section of a runner report (Benchmark parameters, Pinned results, Unpinned results, Disk \
         I/O, Cache backends, Internet, Optional stages and notices, Machine and build details), found \"## Disk IO\""
    );
    let cut = |n: usize| seed.lines().take(n).collect::<Vec<_>>().join("\n");
    assert_eq!(error(&cut(12)), "line 13: expected a parameters row, found the end of the document");
    assert_eq!(
        error(&cut(13)),
        "line 14: expected a \"## Machine and build details\" section, found the end of the document"
    );
}

#[test]
fn a_malformed_rbcs_document_names_the_line() {
    let seed = std::fs::read_to_string(seed("003_")).unwrap();
    assert_eq!(
        error(&seed.replace(
            "in-memory\tIntel Celeron J3455\t1.00\t4\t128\t10\t7867",
            "in-memory\tIntel Celeron J3455\t1.00\t4\t128\t10"
        )),
        "line 21: expected a row of 8 tab-separated cells, found \"in-memory\\tIntel Celeron J3455\\t1.00\\t4\\t128\\t10\\t13762\""
    );
    assert_eq!(
        error(&seed.replace("• memory: 8GB", "• memory 8GB")),
        "line 8: expected a condition \"• <name>: <value>\", found \"• memory 8GB DDR3L 1600 MHz\""
    );
}

#[test]
fn the_import_command_writes_the_files_where_check_expects_them() {
    let dir = results_dir();
    let written = site::cmd::import::run(&seed("002_"), dir.path(), at(IMPORTED_AT), None).unwrap();
    assert_eq!(written, [dir.path().join("latchkey/latchkey-linux-x64/2026-11-29-imported-87d31437d07a.json")]);
    assert_eq!(accepted(dir.path()).len(), 1);
}

#[test]
fn a_document_is_imported_once() {
    let dir = results_dir();
    site::cmd::import::run(&seed("001_"), dir.path(), at(IMPORTED_AT), None).unwrap();
    let again = site::cmd::import::run(&seed("001_"), dir.path(), at("2026-11-30T00:00:00Z"), None).unwrap();
    let checked = check(dir.path());
    let first = dir.path().join("starsling/starsling-linux-x64/2026-11-29-imported-196270a7d4b6.json");
    let got: Vec<(String, String, String)> =
        checked.problems.into_iter().map(|p| (p.file, p.field, p.reason)).collect();
    assert_eq!(
        got,
        [(
            again[0].display().to_string(),
            "$.source.document_sha256".to_string(),
            format!("runner starsling-linux-x64 of this document is already imported by {}", first.display())
        )]
    );
}

#[test]
fn the_measurement_day_is_recorded_where_given() {
    let dir = results_dir();
    let when = site::cmd::import::When { measured_on: Some(Date::new("2026-11-20").unwrap()), ..at(IMPORTED_AT) };
    let written = site::cmd::import::run(&seed("002_"), dir.path(), when, None).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&written[0]).unwrap()).unwrap();
    assert_eq!(json["source"]["measured_on"], "2026-11-20");
    assert_eq!(accepted(dir.path()).len(), 1);
    // Without it, the file says nothing of the day.
    let dir = results_dir();
    let written = site::cmd::import::run(&seed("002_"), dir.path(), at(IMPORTED_AT), None).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&written[0]).unwrap()).unwrap();
    assert!(json["source"].get("measured_on").is_none());
}

/// (A day that is no date is refused as the command line is parsed:
/// tests/flags.rs.)
#[test]
fn a_measurement_day_after_the_import_is_refused_before_anything_is_written() {
    let dir = results_dir();
    let when = site::cmd::import::When { measured_on: Some(Date::new("2026-11-30").unwrap()), ..at(IMPORTED_AT) };
    assert_eq!(
        format!("{:#}", site::cmd::import::run(&seed("002_"), dir.path(), when, None).unwrap_err()),
        "--measured-on: 2026-11-30 is after the import's own date (2026-11-29); a report cannot be measured after it is imported"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A document the importer reads whose figures the check refuses is not
/// imported at all: nothing is written, and the check's findings say why.
#[test]
fn an_import_that_fails_the_check_writes_nothing() {
    let dir = results_dir();
    let text = std::fs::read_to_string(seed("002_")).unwrap();
    // A save speed that disagrees with the payload over the median time.
    let mangled = text.replacen("| 3.24; 3.22–4.60 | 158.14 |", "| 3.24; 3.22–4.60 | 58.14 |", 1);
    assert_ne!(mangled, text);
    let file = dir.path().join("report.md");
    std::fs::write(&file, mangled).unwrap();
    let out = dir.path().join("results");
    let err = format!("{:#}", site::cmd::import::run(&file, &out, at(IMPORTED_AT), None).unwrap_err());
    assert_eq!(
        err,
        format!(
            "cannot import {}: its results do not pass the check, so none was written:\n\
             {}\n  \
             $.stages.cache.backends[0].save_mib_per_s: 58.14 MiB/s disagrees with payload_mib 512 ÷ save_s.median \
             3.24 s = 158.02 MiB/s (the published rounding allows 157.76 to 158.29)\n\
             1 rejected, 0 of 1 result files accepted",
            file.display(),
            out.join("latchkey/latchkey-linux-x64/2026-11-29-imported-3c338969a913.json").display()
        )
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0, "nothing written, no staging folder left");
}

/// Bytes that are not UTF-8 are refused at their line, not replaced; a
/// byte order mark is no part of the text. (An empty --document is refused
/// as the command line is parsed: tests/flags.rs.)
#[test]
fn text_is_taken_as_written_or_refused() {
    let text = std::fs::read(seed("002_")).unwrap();
    let mut bad = text.clone();
    let at_line_3 = bad.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(1).unwrap().0 + 1;
    bad.insert(at_line_3, 0xff);
    let src = ImportSource { bytes: bad, ..source(&seed("002_")) };
    assert_eq!(
        import(&src).unwrap_err().to_string(),
        "line 3: expected UTF-8 text, found \"bytes that are not UTF-8\""
    );
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend_from_slice(&text);
    let src = ImportSource { bytes: bom, ..source(&seed("002_")) };
    // The same figures; only the document's SHA-256 differs, of the bytes.
    let (with, without) = (import(&src).unwrap(), import(&source(&seed("002_"))).unwrap());
    assert_eq!((&with[0].stages, &with[0].source.title), (&without[0].stages, &without[0].source.title));
}
