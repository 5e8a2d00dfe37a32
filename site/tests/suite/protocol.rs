//! What a measured result's report says about how it was measured: every
//! sentence, stage by stage, made from the result it describes (its
//! parameters, cache methods, recorded affinities, jobs and gaps, and action
//! observations), and the published wording word for word where that is
//! true of the result.
//!
//! Each fixture is the golden result or the action-method fixture, edited,
//! and accepted by `site check` before its sentences are read.

use crate::common::*;
use runner_bench_format::{AnyResult, Parameters};
use serde_json::{Value, json};
use site::report::protocol::{self, Facts, ProtocolText};

const NOT_ONLY_THE_RUNNER: &str = "These are runner + compiler measurements; VM host scheduling, other workloads, \
                                   turbo, and image updates can affect them.";
const CHECKS: &str = "Identical random payload bytes across trials and backends on each runner; an empty local target \
                      before restore, exact cache hit, SHA-256 and backend routing checked.";
const SEPARATE_JOB: &str = "Each trial restores in a separate runner job after the save job completes; reused save \
                            OS instances are rejected.";
const GAP_SHARED: [&str; 3] = [
    "All providers use this publication gap; it is excluded from transfer speeds.",
    "It gives cache publication time to settle but does not guarantee cache availability.",
    "Misses remain failures; there are no retries or payload fallbacks.",
];
const MACOS_PATH: &str = "example/example-macos-arm64/2026-11-29-7-1.json";

/// The sentences of the results at `values` (one fingerprint), after
/// `site check` accepted every file.
fn text_of(values: &[(&str, Value)]) -> ProtocolText {
    let dir = results_dir();
    for (rel, v) in values {
        put(dir.path(), rel, v);
    }
    let runs = accepted_any_profile(dir.path());
    let facts: Vec<Facts> = runs
        .iter()
        .map(|r| match &*r.result {
            AnyResult::Measured(m) => Facts::of(m),
            AnyResult::Imported(_) => panic!("a measured fixture"),
        })
        .collect();
    protocol::measured(&facts.iter().collect::<Vec<_>>())
}

fn text(v: Value) -> ProtocolText {
    text_of(&[(GOLDEN_PATH, v)])
}

/// Edits the parameters and records the fingerprint they give.
fn set_parameters(v: &mut Value, edit: impl FnOnce(&mut Value)) {
    edit(&mut v["parameters"]);
    let params: Parameters = serde_json::from_value(v["parameters"].clone()).unwrap();
    v["fingerprint"] = json!(params.fingerprint().to_string());
}

fn fingerprint(v: &Value) -> String {
    v["fingerprint"].as_str().unwrap().to_string()
}

/// Sets `field` of every CoreMark and disk sample and every cache transfer.
fn set_affinity(v: &mut Value, affinity: &Value) {
    for stage in ["cpu", "disk"] {
        for s in v["stages"][stage]["samples"].as_array_mut().unwrap() {
            s["affinity"] = affinity.clone();
        }
    }
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        pair["save"]["affinity"] = affinity.clone();
        if pair["restore"].is_object() {
            pair["restore"]["affinity"] = affinity.clone();
        }
    }
}

/// The golden result as a second runner, on macOS: unpinned throughout.
fn macos_runner(mut v: Value) -> Value {
    v["runner"]["label"] = json!("example-macos-arm64");
    v["provenance"]["github"]["run_id"] = json!(7);
    another_run(&mut v, 7);
    v["machine"]["os"] = json!("macos");
    v["machine"]["arch"] = json!("arm64");
    set_affinity(&mut v, &json!({"mode": "unpinned"}));
    v
}

/// The golden result as the seed reports' protocol measured it: protocol
/// 6, two archive services, both timed by action steps whose every
/// compressor run was single-threaded and every process kept the job's
/// one-CPU affinity, the gap waited in the workflow's gap jobs.
fn as_published() -> Value {
    let mut v = action_fixture();
    set_parameters(&mut v, |p| p["protocol"] = json!(6));
    let backends = v["stages"]["cache"]["backends"].as_array_mut().unwrap();
    backends[1] = json!({
        "id": "ubicloud",
        "name": "Ubicloud transparent cache",
        "kind": "archive-service",
        "endpoint": "https://cache.ubicloud.com/"
    });
    let github_pair = v["stages"]["cache"]["pairs"][0].clone();
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        if pair["backend"] == "volume" {
            pair["backend"] = json!("ubicloud");
            pair["method"] = json!("action");
            pair["save"]["action"] = github_pair["save"]["action"].clone();
            pair["restore"]["action"] = github_pair["restore"]["action"].clone();
        }
    }
    v
}

/// The paragraph of seed report 000 that starts with `start`.
fn seed_paragraph(start: &str) -> String {
    let path = std::fs::read_dir(SEEDS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("000_"))
        .unwrap();
    let seed = std::fs::read_to_string(path).unwrap();
    seed.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no paragraph {start}")).to_string()
}

// CoreMark

#[test]
fn cpu_of_a_pinned_linux_runner_is_the_published_wording() {
    assert_eq!(
        text(golden()).cpu,
        [
            vec!["CoreMark, one execution thread, 2000-byte dataset.", "Higher iterations/s is better."],
            vec![
                "Linux/Windows require hard affinity to one logical CPU.",
                "macOS is explicitly **unpinned**: its one thread may migrate between CPUs.",
                NOT_ONLY_THE_RUNNER,
            ]
        ]
    );
    // A Linux runner pinned and a macOS runner unpinned: as published.
    let both = text_of(&[(GOLDEN_PATH, golden()), (MACOS_PATH, macos_runner(golden()))]);
    assert_eq!(both.cpu, text(golden()).cpu);
}

#[test]
fn cpu_says_the_recorded_dataset_and_affinity() {
    let mut v = golden();
    set_parameters(&mut v, |p| p["cpu_workload"] = json!("coremark-1.0-total-data-size-1200"));
    unpin_failed(&mut v);
    assert_eq!(
        text(v).cpu,
        [
            vec!["CoreMark, one execution thread, 1200-byte dataset.", "Higher iterations/s is better."],
            vec![
                "As recorded, CoreMark ran unpinned on example-linux-x64.",
                "An unpinned thread may migrate between CPUs.",
                NOT_ONLY_THE_RUNNER,
            ]
        ]
    );
    // Two runners, one pinned to another CPU.
    let mut other = golden();
    other["runner"]["label"] = json!("example-linux-arm64");
    other["provenance"]["github"]["run_id"] = json!(8);
    another_run(&mut other, 8);
    for s in other["stages"]["cpu"]["samples"].as_array_mut().unwrap() {
        s["affinity"] = json!({"mode": "pinned", "cpu": 0, "group": 0});
    }
    let mut unpinned = golden();
    unpin_failed(&mut unpinned);
    let two = text_of(&[(GOLDEN_PATH, unpinned), ("example/example-linux-arm64/2026-11-29-8-1.json", other)]);
    assert_eq!(
        two.cpu[1][0],
        "As recorded, CoreMark ran pinned to CPU 0 / group 0 on example-linux-arm64; unpinned on example-linux-x64."
    );
}

/// Makes every CoreMark sample one whose pinning failed: on Linux an ok
/// sample is pinned (`site check` refuses an unpinned one), and a sample
/// that could not be pinned records the affinity it had.
fn unpin_failed(v: &mut Value) {
    for s in v["stages"]["cpu"]["samples"].as_array_mut().unwrap() {
        s["affinity"] = json!({"mode": "unpinned"});
        s["status"] = json!("error");
        s["message"] = json!("cannot pin the thread to CPU 1");
    }
}

// Disk

#[test]
fn disk_of_protocol_1_says_protocol_1() {
    assert_eq!(
        text(golden()).disk,
        [
            "One worker, queue depth one, 1 MiB sequential I/O, 4 KiB random I/O.",
            "OS file-cache bypass is required; write timings include the final flush.",
            "Protocol 1 repeats each operation for at least 5 seconds against the same file; total transferred bytes \
             can exceed the file size.",
            "Medians across fully verified samples.",
            "Every requested sample is attempted, including after a 60-second sample timeout.",
            "Incomplete results remain visible and are excluded from complete-sample comparisons.",
        ]
    );
}

#[test]
fn disk_says_the_parameters() {
    let mut v = golden();
    set_parameters(&mut v, |p| {
        p["protocol"] = json!(2);
        p["disk_op_seconds"] = json!(1);
        p["disk_rand_block_kib"] = json!(8);
        p["disk_seq_block_kib"] = json!(512);
        p["disk_queue_depth"] = json!(2);
        p["sample_timeout_s"] = json!(30);
    });
    // Every I/O call moves one block of the new sizes.
    for s in v["stages"]["disk"]["samples"].as_array_mut().unwrap() {
        for (op, kib) in [("seq_read", 512), ("seq_write", 512), ("rand_read", 8), ("rand_write", 8)] {
            if s[op].is_object() {
                s[op]["bytes"] = json!(s[op]["ops"].as_u64().unwrap() * kib * 1024);
            }
        }
    }
    assert_eq!(
        text(v).disk,
        [
            "One worker, queue depth two, 512 KiB sequential I/O, 8 KiB random I/O.",
            "OS file-cache bypass is required; write timings include the final flush.",
            "Protocol 2 and later repeat each operation for at least 1 second against the same file; total \
             transferred bytes can exceed the file size.",
            "Medians across fully verified samples.",
            "Every requested sample is attempted, including after a 30-second sample timeout.",
            "Incomplete results remain visible and are excluded from complete-sample comparisons.",
        ]
    );
}

// Cache

#[test]
fn cache_of_a_client_method_result_of_protocol_1() {
    let t = text(golden());
    assert_eq!(
        t.cache,
        [
            "Profile `739dba2a6817` (protocol 1) measures three unique-key save/restore pairs per backend, each with \
             a payload of 512 MiB in 16 files.",
            SEPARATE_JOB,
            "Backend order reverses on trial two.",
            CHECKS,
        ]
    );
    // No jobs recorded: where the gap was waited is not said, only what
    // the pairs record.
    let mut gap = vec![
        "Profile `739dba2a6817` has a publication gap of 120 seconds: at least 120 seconds passed between the save \
         job's end and each restore.",
    ];
    gap.extend(GAP_SHARED);
    assert_eq!(t.gap, gap);
    assert_eq!(t.cache_methods.len(), 1);
    assert_eq!(t.cache_methods[0].method.name(), "client");
    assert_eq!(
        t.cache_methods[0].text,
        [
            "The collector's own client makes every transfer; no workflow action runs.",
            "The collector writes archive-service archives itself, with zstd level 3 on one thread; attached-volume \
             transfers use one thread without compression.",
            "As recorded, the collector's transfers ran pinned to CPU 1 / group 0 on example-linux-x64.",
            "Each archive-service save is timed from the start of archiving to the end of the finalize call, and \
             each restore from the cache lookup to the end of extraction.",
            "Each attached-volume save and restore is timed over the copy, including syncing every written file.",
            "No time includes node start-up or step transitions.",
            "MiB/s uses logical payload bytes, including compression/extraction for archive services.",
        ]
    );
}

#[test]
fn cache_says_the_trials_it_measured() {
    // Protocol 2, but two trials: not the published "three".
    let mut v = golden();
    set_parameters(&mut v, |p| {
        p["protocol"] = json!(2);
        p["cache_trials"] = json!(2);
        p["cache_payload_files"] = json!(1);
        p["cache_zstd_level"] = json!(19);
    });
    v["stages"]["cache"]["pairs"].as_array_mut().unwrap().retain(|pair| pair["trial"] != 3);
    let fp = fingerprint(&v);
    let t = text(v);
    assert_eq!(
        t.cache,
        [
            format!(
                "Profile `{fp}` (protocol 2) measures two unique-key save/restore pairs per backend, each with a \
                 payload of 512 MiB in one file."
            )
            .as_str(),
            SEPARATE_JOB,
            "Backend order reverses on trial two.",
            CHECKS,
        ]
    );
    assert_eq!(
        t.cache_methods[0].text[1],
        "The collector writes archive-service archives itself, with zstd level 19 on one thread; attached-volume \
         transfers use one thread without compression."
    );
    // One trial: nothing to reverse.
    let mut v = golden();
    set_parameters(&mut v, |p| p["cache_trials"] = json!(1));
    v["stages"]["cache"]["pairs"].as_array_mut().unwrap().retain(|pair| pair["trial"] == 1);
    let fp = fingerprint(&v);
    assert_eq!(
        text(v).cache,
        [
            format!(
                "Profile `{fp}` (protocol 1) measures one unique-key save/restore pair per backend, each with a \
                 payload of 512 MiB in 16 files."
            )
            .as_str(),
            SEPARATE_JOB,
            CHECKS,
        ]
    );
}

#[test]
fn cache_of_an_action_method_backend_beside_a_client_one() {
    let t = text(action_fixture());
    assert_eq!(
        t.cache,
        [
            "Profile `739dba2a6817` (protocol 1) measures three unique-key save/restore pairs per backend, each with \
             a payload of 512 MiB in 16 files.",
            SEPARATE_JOB,
            "Backend order reverses on trial two.",
            CHECKS,
        ]
    );
    // The jobs record gap-1 to gap-3, each before its restore job.
    let mut gap = vec![
        "Profile `739dba2a6817` waits 120 seconds after the save job finishes, before allocating its first restore \
         runner.",
    ];
    gap.extend(GAP_SHARED);
    assert_eq!(t.gap, gap);
    let methods: Vec<&str> = t.cache_methods.iter().map(|m| m.method.name()).collect();
    assert_eq!(methods, ["client", "action"]);
    assert_eq!(
        t.cache_methods[0].text,
        [
            "The collector's own client makes every transfer; no workflow action runs.",
            "Attached-volume transfers use one thread without compression.",
            "As recorded, the collector's transfers ran pinned to CPU 1 / group 0 on example-linux-x64.",
            "Each attached-volume save and restore is timed over the copy, including syncing every written file.",
            "No time includes node start-up or step transitions.",
            "MiB/s uses logical payload bytes.",
        ]
    );
    assert_eq!(
        t.cache_methods[1].text,
        [
            "Saves use actions/cache/save@27d5ce7; restores use actions/cache/restore@27d5ce7.",
            "Archive services use zstd `--single-thread`; attached-volume transfers use one thread without \
             compression.",
            "Linux/Windows action processes inherit one-CPU affinity; macOS is unpinned.",
            "Each time includes the action and adjacent step transitions; MiB/s uses logical payload bytes, \
             including compression/extraction for archive services.",
        ]
    );
}

#[test]
fn cache_of_actions_says_what_was_observed() {
    let mut v = action_fixture();
    let pairs = v["stages"]["cache"]["pairs"].as_array_mut().unwrap();
    pairs[0]["save"]["action"]["single_thread"] = json!("failed");
    pairs[0]["restore"]["action"]["affinity_inherited"] = json!("not-observed");
    let action = &text(v).cache_methods[1].text;
    assert_eq!(
        action[1..3],
        [
            "As observed, zstd in archive-service actions was not forced to one thread in every observed run on \
             example-linux-x64.",
            "As recorded, action steps ran pinned to CPU 1 / group 0 (inherited where observed, but not observed in \
             every transfer) on example-linux-x64.",
        ]
    );
    // Nothing observed at all.
    let mut v = action_fixture();
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        for half in ["save", "restore"] {
            if pair[half]["action"].is_object() {
                pair[half]["action"]["single_thread"] = json!("not-observed");
                pair[half]["action"]["affinity_inherited"] = json!("failed");
            }
        }
    }
    let action = &text(v).cache_methods[1].text;
    assert_eq!(
        action[1..3],
        [
            "As observed, zstd in archive-service actions was not observed on example-linux-x64.",
            "As recorded, action steps ran pinned to CPU 1 / group 0 (not inherited by every observed process) on \
             example-linux-x64.",
        ]
    );
    // A volume measured by action steps too: their threads are not seen.
    let mut v = action_fixture();
    let github = v["stages"]["cache"]["pairs"][0].clone();
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        if pair["backend"] == "volume" {
            pair["method"] = json!("action");
            pair["save"]["action"] = github["save"]["action"].clone();
            pair["restore"]["action"] = github["restore"]["action"].clone();
        }
    }
    let t = text(v);
    assert_eq!(t.cache_methods.len(), 1);
    assert_eq!(
        t.cache_methods[0].text[1..3],
        [
            "Archive services use zstd `--single-thread`.",
            "Whether attached-volume actions run on one thread is not observed.",
        ]
    );
}

#[test]
fn cache_says_which_routing_was_not_checked() {
    // A provider's own action: any host passes its routing.
    let mut v = action_fixture();
    for pair in v["stages"]["cache"]["pairs"].as_array_mut().unwrap() {
        if pair["backend"] == "github" {
            pair["verification"]["routing"] = json!({
                "expected": "*",
                "observed": "runtime service cache.example.com; provider variables: none",
                "matches": true
            });
        }
    }
    assert_eq!(
        text(v).cache[3],
        "Identical random payload bytes across trials and backends on each runner; an empty local target before \
         restore, exact cache hit and SHA-256 checked, and backend routing except for GitHub Actions cache, whose \
         action uses a service of its own (routing `*`: any host)."
    );
}

#[test]
fn the_gap_says_only_what_the_result_records() {
    // A restore that does not record its gap.
    let mut v = golden();
    v["stages"]["cache"]["pairs"][0].as_object_mut().unwrap().remove("publication_gap_s");
    assert_eq!(
        text(v).gap[0],
        "Profile `739dba2a6817` has a publication gap of 120 seconds: at least 120 seconds passed between the save \
         job's end and each restore that records it."
    );
    // Jobs recorded, but no gap job before trial 2's restore.
    let mut v = action_fixture();
    v["provenance"]["jobs"].as_array_mut().unwrap().retain(|j| j["job"] != "gap-2");
    assert_eq!(
        text(v).gap[0],
        "Profile `739dba2a6817` has a publication gap of 120 seconds: at least 120 seconds passed between the save \
         job's end and each restore."
    );
    // No gap at all.
    let mut v = golden();
    set_parameters(&mut v, |p| p["cache_publication_gap_s"] = json!(0));
    let fp = fingerprint(&v);
    assert_eq!(
        text(v).gap,
        [
            format!("Profile `{fp}` has no publication gap.").as_str(),
            "Misses remain failures; there are no retries or payload fallbacks."
        ]
    );
}

#[test]
fn cache_affinity_is_said_per_runner() {
    let t = text_of(&[(GOLDEN_PATH, golden()), (MACOS_PATH, macos_runner(golden()))]);
    assert_eq!(
        t.cache_methods[0].text[2],
        "As recorded, the collector's transfers ran pinned to CPU 1 / group 0 on example-linux-x64; unpinned on \
         example-macos-arm64."
    );
    // Action steps: as published, Linux pinned and macOS unpinned.
    let t = text_of(&[(GOLDEN_PATH, action_fixture()), (MACOS_PATH, macos_runner(action_fixture()))]);
    assert_eq!(
        t.cache_methods[1].text[2],
        "Linux/Windows action processes inherit one-CPU affinity; macOS is unpinned."
    );
}

// Internet

#[test]
fn internet_says_the_samples_and_requests() {
    assert_eq!(
        text(golden()).internet,
        [
            "One HTTP/1.1 stream at a time, three downloads and three uploads.",
            "Each sample transfers the configured payload through sequential requests of at most 32 MiB on one \
             persistent connection.",
            "Mbps uses decimal megabits.",
            "Zero-byte HTTPS request time includes connection/TLS/DNS overhead and is not ICMP RTT.",
            "Compare only results using the same endpoint and payload size.",
            "Unavailable tests have no speed score.",
        ]
    );
    let mut v = golden();
    set_parameters(&mut v, |p| {
        p["internet_samples"] = json!(1);
        p["internet_max_request_mib"] = json!(4);
    });
    for half in ["download", "upload"] {
        v["stages"]["internet"][half].as_array_mut().unwrap().truncate(1);
    }
    let internet = text(v).internet;
    assert_eq!(
        internet[..2],
        [
            "One HTTP/1.1 stream at a time, one download and one upload.",
            "Each sample transfers the configured payload through sequential requests of at most 4 MiB on one \
             persistent connection.",
        ]
    );
}

// The published wording, where it is true

/// A measured result that the seed reports' protocol describes gets their
/// sentences word for word: every paragraph of seed 000 but the profile's
/// fingerprint; the cache paragraph split into the stage's sentences and
/// the action method's, which say which steps ran too.
#[test]
fn a_result_measured_as_published_gets_the_published_sentences() {
    let v = as_published();
    let fp = fingerprint(&v);
    let t = text(v);
    let cpu: Vec<String> = t.cpu.iter().map(|p| p.join(" ")).collect();
    assert_eq!(cpu, [seed_paragraph("CoreMark, one"), seed_paragraph("Linux/Windows require")]);
    assert_eq!(t.disk.join(" "), seed_paragraph("One worker"));
    assert_eq!(t.internet.join(" "), seed_paragraph("One HTTP/1.1"));
    assert_eq!(t.gap.join(" ").replace(&fp, "e021cd7ddc71"), seed_paragraph("Profile `e021cd7ddc71` waits"));
    let methods: Vec<&str> = t.cache_methods.iter().map(|m| m.method.name()).collect();
    assert_eq!(methods, ["action"]);
    let action = &t.cache_methods[0].text;
    assert_eq!(action[0], "Saves use actions/cache/save@27d5ce7; restores use actions/cache/restore@27d5ce7.");
    let mut stage = t.cache.clone();
    stage.insert(3, action[1].clone());
    stage.insert(4, action[2].clone());
    stage.push(action[3].clone());
    assert_eq!(stage.join(" "), seed_paragraph("Protocol 2 and later measure"));
}

// The report

#[test]
fn a_report_has_a_section_per_cache_method() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &action_fixture());
    let report = render("example", &accepted_any_profile(dir.path()));
    let cache = report.split("## Cache backends\n").nth(1).unwrap().split("\n\n## Internet").next().unwrap();
    let head = "| Runner | Cache backend | Payload MiB | Verified pairs | Save s (median; range) | Save MiB/s | Save \
                variation | Restore s (median; range) | Restore MiB/s | Restore variation |\n| --- | --- | ---: | --- \
                | --- | ---: | --- | --- | ---: | --- |";
    assert_eq!(
        cache,
        format!(
            "\nProfile `739dba2a6817` (protocol 1) measures three unique-key save/restore pairs per backend, each with \
             a payload of 512 MiB in 16 files. {SEPARATE_JOB} Backend order reverses on trial two. {CHECKS}\n\n\
             Profile `739dba2a6817` waits 120 seconds after the save job finishes, before allocating its first \
             restore runner. {}\n\n\
             ### Client method\n\n\
             The collector's own client makes every transfer; no workflow action runs. Attached-volume transfers \
             use one thread without compression. As recorded, the collector's transfers ran pinned to CPU 1 / group \
             0 on example-linux-x64. Each attached-volume save and restore is timed over the copy, including syncing \
             every written file. No time includes node start-up or step transitions. MiB/s uses logical payload \
             bytes.\n\n\
             #### attached-volume\n\n{head}\n\
             | example-linux-x64 | Example attached volume | 512.0 | 2/3 | 1.90; 1.88–1.92 | 269.47 | 1.05% | 1.40; \
             1.39–1.41 | 365.71 | 0.71% |\n\n\
             ### Action method\n\n\
             Saves use actions/cache/save@27d5ce7; restores use actions/cache/restore@27d5ce7. Archive services use \
             zstd `--single-thread`; attached-volume transfers use one thread without compression. Linux/Windows \
             action processes inherit one-CPU affinity; macOS is unpinned. Each time includes the action and \
             adjacent step transitions; MiB/s uses logical payload bytes, including compression/extraction for \
             archive services.\n\n\
             #### archive-service\n\n{head}\n\
             | example-linux-x64 | GitHub Actions cache | 512.0 | 3/3 | 7.76; 7.12–22.53 | 65.98 | 57.08% | 22.10; \
             18.53–66.84 | 23.17 | 61.36% |",
            GAP_SHARED.join(" ")
        )
    );
}

/// The CoreMark introduction stands above every group where all say the
/// same, and in each group where they differ.
#[test]
fn groups_that_describe_coremark_differently_each_say_their_own() {
    let mut other = golden();
    other["runner"]["label"] = json!("example-linux-arm64");
    other["provenance"]["github"]["run_id"] = json!(7);
    another_run(&mut other, 7);
    set_parameters(&mut other, |p| p["cpu_workload"] = json!("coremark-1.0-total-data-size-1200"));
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    put(dir.path(), "example/example-linux-arm64/2026-11-29-7-1.json", &other);
    let report = render("example", &accepted_any_profile(dir.path()));
    assert!(report.starts_with("# Example Cloud Runner Benchmarks\n\n## Benchmark parameters\n"), "{report}");
    let pinning = format!(
        "Linux/Windows require hard affinity to one logical CPU. macOS is explicitly **unpinned**: its one thread may \
         migrate between CPUs. {NOT_ONLY_THE_RUNNER}"
    );
    for size in ["1200", "2000"] {
        assert!(
            report.contains(&format!(
                " |\n\nCoreMark, one execution thread, {size}-byte dataset. Higher iterations/s is better.\n\n\
                 {pinning}\n\n## Pinned results\n"
            )),
            "{size}: {report}"
        );
    }
    // One group: above it, as published.
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let report = render("example", &accepted_any_profile(dir.path()));
    assert!(report.starts_with(&format!(
        "# Example Cloud Runner Benchmarks\n\nCoreMark, one execution thread, 2000-byte dataset. Higher iterations/s \
         is better.\n\n{pinning}\n\n## Benchmark parameters\n"
    )));
}
