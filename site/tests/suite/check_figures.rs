//! `site check`, issue 13 classes 1 and 2: figures that are not finite and
//! positive, and claims the file cannot prove, each with its exact message
//! (docs/result-format.md, "Figures and claims").

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

/// The one problem of the golden file edited by `edit`.
fn one_problem(edit: impl FnOnce(&mut Value)) -> (String, String, String) {
    let mut v = golden();
    edit(&mut v);
    let p = problems_of(&v);
    assert_eq!(p.len(), 1, "{p:#?}");
    p.into_iter().next().unwrap()
}

/// The golden file edited by `edit` passes.
fn passes(edit: impl FnOnce(&mut Value)) {
    let mut v = golden();
    edit(&mut v);
    assert_eq!(problems_of(&v), []);
}

const IMPORTED: &str = "ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json";

/// The problems of the committed Ubicloud x64 import edited by `edit`.
fn imported_problems(edit: impl FnOnce(&mut Value)) -> Vec<(String, String, String)> {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results").join(IMPORTED);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(committed).unwrap()).unwrap();
    edit(&mut v);
    let dir = results_dir();
    put(dir.path(), IMPORTED, &v);
    problems(dir.path(), &check(dir.path()))
}

fn imported_problem(field: &str, reason: &str) -> (String, String, String) {
    (IMPORTED.to_string(), field.to_string(), reason.to_string())
}

// What must pass

#[test]
fn every_committed_result_and_fixture_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![root.join("../results")];
    for entry in std::fs::read_dir(root.join("tests/fixtures")).unwrap() {
        let results = entry.unwrap().path().join("results");
        if results.is_dir() {
            folders.push(results);
        }
    }
    assert!(folders.len() >= 3, "{folders:?}");
    for folder in folders {
        let checked = check(&folder);
        assert!(checked.problems.is_empty(), "{}: {}", folder.display(), checked.human_report());
        assert!(!checked.runs.is_empty(), "{}", folder.display());
    }
}

// Class 1: CPU

/// A sample runs about the profile's seconds (the count that shorter runs
/// say lasts them): somewhat short is no problem, under half is.
#[test]
fn a_cpu_sample_far_shorter_than_the_profile_is_refused() {
    assert_eq!(
        one_problem(|v| v["stages"]["cpu"]["samples"][0]["elapsed_s"] = json!(12.5)),
        golden_problem(
            "$.stages.cpu.samples[0].elapsed_s",
            "12.5 s is under half of parameters.cpu_seconds (30 s); a CoreMark sample runs about that long"
        )
    );
    passes(|v| {
        let sample = &mut v["stages"]["cpu"]["samples"][0];
        let iterations = sample["iterations"].as_f64().unwrap();
        sample["iterations"] = json!((iterations * 27.5 / sample["elapsed_s"].as_f64().unwrap()) as u64);
        sample["elapsed_s"] = json!(27.5);
        if sample["cpu_s"].as_f64().is_some_and(|c| c > 27.5) {
            sample["cpu_s"] = json!(27.5);
        }
    });
}

#[test]
fn a_cpu_sample_of_zero_seconds_or_iterations_is_refused() {
    assert_eq!(
        one_problem(|v| v["stages"]["cpu"]["samples"][0]["elapsed_s"] = json!(0)),
        golden_problem(
            "$.stages.cpu.samples[0].elapsed_s",
            "0 s in an ok sample; iterations/s = iterations ÷ elapsed_s needs elapsed_s above 0"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["cpu"]["samples"][1]["iterations"] = json!(0)),
        golden_problem(
            "$.stages.cpu.samples[1].iterations",
            "0 iterations in an ok sample; CoreMark runs at least one iteration, so iterations/s is above 0"
        )
    );
}

#[test]
fn more_iterations_per_second_than_one_core_runs_are_refused() {
    assert_eq!(
        one_problem(|v| {
            v["stages"]["cpu"]["samples"][2]["iterations"] = json!(45_000_000);
            v["stages"]["cpu"]["samples"][2]["elapsed_s"] = json!(30.0);
        }),
        golden_problem(
            "$.stages.cpu.samples[2]",
            "1500000 iterations/s is above 1000000, more than any CPU core runs CoreMark on one thread"
        )
    );
}

#[test]
fn a_failed_cpu_sample_keeps_what_it_measured() {
    // Sample 4 failed its validation: its figures are no score.
    passes(|v| {
        v["stages"]["cpu"]["samples"][4]["elapsed_s"] = json!(0);
        v["stages"]["cpu"]["samples"][4]["iterations"] = json!(0);
    });
}

// Class 1: disk

#[test]
fn disk_bytes_are_ops_times_the_block_size() {
    assert_eq!(
        one_problem(|v| v["stages"]["disk"]["samples"][0]["seq_read"]["bytes"] = json!(1000)),
        golden_problem(
            "$.stages.disk.samples[0].seq_read.bytes",
            "1000 bytes is not ops × block size = 8064 × 1048576 bytes (parameters.disk_seq_block_kib = 1024 KiB) = \
             8455716864 bytes; every I/O call moves one whole block"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["disk"]["samples"][1]["rand_write"]["bytes"] = json!(436_862_976u64 + 4096)),
        golden_problem(
            "$.stages.disk.samples[1].rand_write.bytes",
            "436867072 bytes is not ops × block size = 106656 × 4096 bytes (parameters.disk_rand_block_kib = 4 KiB) = \
             436862976 bytes; every I/O call moves one whole block"
        )
    );
    assert_eq!(
        one_problem(|v| {
            let op = &mut v["stages"]["disk"]["samples"][0]["seq_write"];
            op["ops"] = json!(u64::MAX / 2);
            // Latencies that so many calls could have (durations.rs).
            op["latency_p50_us"] = json!(1e-12);
            op["latency_p99_us"] = json!(1e-12);
        }),
        golden_problem(
            "$.stages.disk.samples[0].seq_write.ops",
            "9223372036854775807 ops × 1048576 bytes (parameters.disk_seq_block_kib = 1024 KiB) is more than 2^64 \
             bytes; every I/O call moves one whole block"
        )
    );
}

#[test]
fn a_disk_operation_without_calls_or_time_is_refused() {
    assert_eq!(
        one_problem(|v| {
            v["stages"]["disk"]["samples"][0]["rand_read"]["ops"] = json!(0);
            v["stages"]["disk"]["samples"][0]["rand_read"]["bytes"] = json!(0);
        }),
        golden_problem(
            "$.stages.disk.samples[0].rand_read.ops",
            "0 ops in an ok sample; an operation makes at least one I/O call, so IOPS is above 0"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["disk"]["samples"][0]["seq_read"]["elapsed_s"] = json!(0)),
        golden_problem(
            "$.stages.disk.samples[0].seq_read.elapsed_s",
            "0 s in an ok sample; MiB/s and IOPS divide by elapsed_s, which must be above 0"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["disk"]["samples"][0]["seq_read"]["elapsed_s"] = json!(2.5)),
        golden_problem(
            "$.stages.disk.samples[0].seq_read.elapsed_s",
            "2.5 s is shorter than parameters.disk_op_seconds (5 s); each disk operation repeats for at least that long"
        )
    );
}

#[test]
fn a_median_latency_above_the_99th_percentile_is_refused() {
    assert_eq!(
        one_problem(|v| v["stages"]["disk"]["samples"][0]["seq_read"]["latency_p50_us"] = json!(1100.5)),
        golden_problem(
            "$.stages.disk.samples[0].seq_read.latency_p50_us",
            "the median latency 1100.5 µs is above the 99th percentile 1021.25 µs; a median is never above it"
        )
    );
}

#[test]
fn disk_throughput_beyond_the_fastest_storage_interface_is_refused() {
    assert_eq!(
        one_problem(|v| {
            let op = &mut v["stages"]["disk"]["samples"][0]["seq_read"];
            op["ops"] = json!(2_000_000);
            op["bytes"] = json!(2_000_000u64 << 20);
            op["elapsed_s"] = json!(5.0);
            op["latency_p50_us"] = json!(2.0);
            op["latency_p99_us"] = json!(2.0);
        }),
        golden_problem(
            "$.stages.disk.samples[0].seq_read",
            "400000 MiB/s is above 244141 MiB/s, the most the fastest storage interface carries (PCIe 7.0 x16, 256 GB/s)"
        )
    );
}

// Class 1: cache

#[test]
fn the_cache_payload_is_the_profiles() {
    assert_eq!(
        one_problem(|v| v["stages"]["cache"]["payload_bytes"] = json!(536_870_911)),
        golden_problem(
            "$.stages.cache.payload_bytes",
            "536870911 bytes is not parameters.cache_payload_mib × 1 MiB = 512 × 1048576 = 536870912 bytes; the \
             payload is the profile's"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["cache"]["payload_bytes"] = json!(0)),
        golden_problem(
            "$.stages.cache.payload_bytes",
            "0 bytes; cache MiB/s = payload bytes ÷ 2^20 ÷ seconds needs a payload"
        )
    );
}

#[test]
fn a_cache_transfer_takes_time_and_no_more_than_an_interface_carries() {
    assert_eq!(
        one_problem(|v| v["stages"]["cache"]["pairs"][0]["save"]["seconds"] = json!(0)),
        golden_problem(
            "$.stages.cache.pairs[0].save.seconds",
            "0 s in an ok transfer; cache MiB/s = payload bytes ÷ 2^20 ÷ seconds needs seconds above 0"
        )
    );
    // Pair 0 is of the archive service (over the network), pair 1 of the
    // attached volume (a storage device).
    assert_eq!(
        one_problem(|v| v["stages"]["cache"]["pairs"][0]["restore"]["seconds"] = json!(0.001)),
        golden_problem(
            "$.stages.cache.pairs[0].restore.seconds",
            "0.001 s for 536870912 bytes is 512000 MiB/s, above 190735 MiB/s, the most the fastest network interface \
             carries (1.6 Tb/s Ethernet)"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["cache"]["pairs"][1]["save"]["seconds"] = json!(0.001)),
        golden_problem(
            "$.stages.cache.pairs[1].save.seconds",
            "0.001 s for 536870912 bytes is 512000 MiB/s, above 244141 MiB/s, the most the fastest storage interface \
             carries (PCIe 7.0 x16, 256 GB/s)"
        )
    );
    // Between the two bounds: possible from a volume, not over the network.
    passes(|v| v["stages"]["cache"]["pairs"][1]["save"]["seconds"] = json!(0.0025));
}

#[test]
fn transferred_bytes_agree_with_the_payload() {
    assert_eq!(
        one_problem(|v| v["stages"]["cache"]["pairs"][0]["save"]["transferred_bytes"] = json!(1000)),
        golden_problem(
            "$.stages.cache.pairs[0].save.transferred_bytes",
            "1000 bytes is less than the profile's payload (536870912 bytes); a transfer moves the whole payload (a \
             volume copies it, a service moves its archive, which cannot compress the payload's random bytes)"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["cache"]["pairs"][0]["restore"]["transferred_bytes"] = json!(600_000_000)),
        golden_problem(
            "$.stages.cache.pairs[0].restore.transferred_bytes",
            "600000000 bytes is more than an archive of the payload can be: at most 539051590 bytes (tar headers and \
             zstd's worst-case expansion)"
        )
    );
    // A volume copies exactly the payload; an archive adds its headers.
    passes(|v| {
        v["stages"]["cache"]["pairs"][1]["save"]["transferred_bytes"] = json!(536_870_912);
        v["stages"]["cache"]["pairs"][0]["save"]["transferred_bytes"] = json!(539_051_590);
    });
}

// Class 1: internet

#[test]
fn internet_bytes_are_what_a_sample_transfers() {
    assert_eq!(
        one_problem(|v| v["stages"]["internet"]["upload"][1]["bytes"] = json!(2_000_000_000u64)),
        golden_problem(
            "$.stages.internet.upload[1].bytes",
            "2000000000 bytes is more than a sample transfers: parameters.internet_transfer_mib × 1 MiB = 1024 × \
             1048576 = 1073741824 bytes"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["internet"]["download"][0]["bytes"] = json!(1000)),
        golden_problem(
            "$.stages.internet.download[0].bytes",
            "1000 bytes in an ok sample; an ok sample moves exactly parameters.internet_transfer_mib × 1 MiB = \
             1073741824 bytes"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["internet"]["download"][0]["bytes"] = json!(0)),
        golden_problem(
            "$.stages.internet.download[0].bytes",
            "0 bytes in an ok sample; Mbps = bytes × 8 ÷ 10^6 ÷ seconds needs bytes above 0"
        )
    );
    // A sample that timed out keeps the bytes it moved.
    passes(|v| v["stages"]["internet"]["upload"][1]["bytes"] = json!(0));
}

#[test]
fn internet_samples_take_time_and_no_more_than_a_nic_carries() {
    assert_eq!(
        one_problem(|v| v["stages"]["internet"]["download"][2]["seconds"] = json!(0)),
        golden_problem(
            "$.stages.internet.download[2].seconds",
            "0 s in an ok sample; Mbps = bytes × 8 ÷ 10^6 ÷ seconds needs seconds above 0"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["internet"]["upload"][0]["seconds"] = json!(0.001)),
        golden_problem(
            "$.stages.internet.upload[0]",
            "8589935 Mbps is above 1600000 Mbps, the most the fastest network interface carries (1.6 Tb/s Ethernet)"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["internet"]["request"][3]["ms"] = json!(0)),
        golden_problem(
            "$.stages.internet.request[3].ms",
            "0 ms in an ok sample; a request over the network (DNS, TCP, TLS and the request) takes time"
        )
    );
}

// Class 1: http_cache

#[test]
fn http_cache_counters_stay_within_the_entries() {
    assert_eq!(
        one_problem(|v| v["stages"]["http_cache"]["runs"][0]["put"]["succeeded"] = json!(1001)),
        golden_problem(
            "$.stages.http_cache.runs[0].put",
            "1001 succeeded + 0 failed = 1001 requests, more than the parameters.http_cache_entries (1000) a phase \
             makes"
        )
    );
    // Counters whose sum overflows u32 are added without overflowing.
    assert_eq!(
        one_problem(|v| {
            v["stages"]["http_cache"]["runs"][1]["get"]["succeeded"] = json!(u32::MAX);
            v["stages"]["http_cache"]["runs"][1]["get"]["failed"] = json!(u32::MAX);
        }),
        golden_problem(
            "$.stages.http_cache.runs[1].get",
            "4294967295 succeeded + 4294967295 failed = 8589934590 requests, more than the \
             parameters.http_cache_entries (1000) a phase makes"
        )
    );
}

#[test]
fn an_ok_http_cache_phase_has_requests_and_time() {
    assert_eq!(
        one_problem(|v| {
            v["stages"]["http_cache"]["runs"][0]["get"]["succeeded"] = json!(0);
        }),
        golden_problem(
            "$.stages.http_cache.runs[0].get",
            "0 succeeded + 0 failed requests in an ok phase; requests/s = (succeeded + failed) ÷ seconds needs a \
             request"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["http_cache"]["runs"][0]["put"]["seconds"] = json!(0)),
        golden_problem(
            "$.stages.http_cache.runs[0].put.seconds",
            "0 s in an ok phase; requests/s = (succeeded + failed) ÷ seconds needs seconds above 0"
        )
    );
}

/// The golden stage as the collector's own stage records it: what it
/// observed and what was declared, the runs' backend and quotas the
/// declared ones, and the three latencies of every phase that answered.
fn as_measured(v: &mut Value) {
    let http = &mut v["stages"]["http_cache"];
    http["server"]["protocol"] = json!("gradle");
    http["server"]["observed"] = json!({
        "tls": false, "http_version": "HTTP/1.1", "authentication": "none",
        "rtt_ms": 0.1, "bandwidth_mbps": 9000.0, "bandwidth_bytes": 8388608
    });
    http["server"]["declared"] = json!({ "backend": "in-memory", "cpu_quota": 1.0, "memory_quota_gb": 4.0 });
    for run in http["runs"].as_array_mut().unwrap() {
        run["cpu_quota"] = json!(1.0);
        run["memory_quota_gb"] = json!(4.0);
        for phase in ["put", "get"] {
            run[phase]["latency_p50_ms"] = json!(1.0);
            run[phase]["latency_p90_ms"] = json!(2.0);
            run[phase]["latency_p99_ms"] = json!(3.0);
        }
    }
}

/// The one problem of the golden file as the collector records it, edited
/// by `edit`.
fn one_measured_problem(edit: impl FnOnce(&mut Value)) -> (String, String, String) {
    one_problem(|v| {
        as_measured(v);
        edit(v);
    })
}

#[test]
fn the_collectors_own_build_cache_stage_passes() {
    passes(as_measured);
}

#[test]
fn build_cache_latency_percentiles_rise_with_their_rank() {
    assert_eq!(
        one_measured_problem(|v| v["stages"]["http_cache"]["runs"][0]["put"]["latency_p50_ms"] = json!(2.5)),
        golden_problem(
            "$.stages.http_cache.runs[0].put.latency_p50_ms",
            "the median latency 2.5 ms is above the 90th percentile 2 ms; a percentile never falls as its rank rises"
        )
    );
    assert_eq!(
        one_measured_problem(|v| v["stages"]["http_cache"]["runs"][1]["get"]["latency_p90_ms"] = json!(3.5)),
        golden_problem(
            "$.stages.http_cache.runs[1].get.latency_p90_ms",
            "the 90th percentile latency 3.5 ms is above the 99th percentile 3 ms; a percentile never falls as its \
             rank rises"
        )
    );
}

#[test]
fn build_cache_latencies_come_with_the_requests_they_time() {
    // A phase that answered requests, in a stage the collector measured.
    assert_eq!(
        one_measured_problem(|v| {
            v["stages"]["http_cache"]["runs"][1]["get"].as_object_mut().unwrap().remove("latency_p90_ms");
        }),
        golden_problem(
            "$.stages.http_cache.runs[1].get.latency_p90_ms",
            "required when the phase answered requests (988 succeeded + 12 failed); the collector times every \
             answered request"
        )
    );
    // A phase that answered none: not run, as the collector records one.
    assert_eq!(
        one_measured_problem(|v| {
            let get = &mut v["stages"]["http_cache"]["runs"][1]["get"];
            get["succeeded"] = json!(0);
            get["failed"] = json!(0);
            get["seconds"] = json!(0);
            for name in ["latency_p50_ms", "latency_p90_ms"] {
                get.as_object_mut().unwrap().remove(name);
            }
            get["latency_p99_ms"] = json!(0.0);
        }),
        golden_problem(
            "$.stages.http_cache.runs[1].get.latency_p99_ms",
            "0 ms with 0 succeeded + 0 failed requests; a latency is timed on an answered request"
        )
    );
    // A stage from before these fields records no latencies.
    passes(|_| {});
}

#[test]
fn a_build_cache_request_is_no_longer_than_its_phase() {
    assert_eq!(
        one_measured_problem(|v| v["stages"]["http_cache"]["runs"][0]["put"]["latency_p99_ms"] = json!(300)),
        golden_problem(
            "$.stages.http_cache.runs[0].put.latency_p99_ms",
            "300 ms at the 99th percentile is longer than the phase's 0.2343 s; every request is timed within its \
             phase"
        )
    );
}

#[test]
fn a_build_cache_bandwidth_is_below_what_a_nic_carries() {
    assert_eq!(
        one_measured_problem(|v| {
            v["stages"]["http_cache"]["server"]["observed"]["bandwidth_mbps"] = json!(2_000_000.0);
        }),
        golden_problem(
            "$.stages.http_cache.server.observed.bandwidth_mbps",
            "2000000 Mbps is above 1600000 Mbps, the most the fastest network interface carries (1.6 Tb/s Ethernet)"
        )
    );
}

#[test]
fn build_cache_observations_agree_with_the_url_and_each_other() {
    assert_eq!(
        one_measured_problem(|v| v["stages"]["http_cache"]["server"]["observed"]["tls"] = json!(true)),
        golden_problem(
            "$.stages.http_cache.server.observed.tls",
            "is true but the url http://127.0.0.1:8080/ is not https; TLS is observed from the URL the stage measured"
        )
    );
    assert_eq!(
        one_measured_problem(|v| {
            v["stages"]["http_cache"]["server"]["observed"].as_object_mut().unwrap().remove("bandwidth_bytes");
        }),
        golden_problem(
            "$.stages.http_cache.server.observed.bandwidth_bytes",
            "required with bandwidth_mbps: a bandwidth is the bytes of one GET over its time"
        )
    );
    assert_eq!(
        one_measured_problem(|v| {
            v["stages"]["http_cache"]["server"]["observed"].as_object_mut().unwrap().remove("bandwidth_mbps");
        }),
        golden_problem(
            "$.stages.http_cache.server.observed.bandwidth_mbps",
            "required with bandwidth_bytes, the GET it measures"
        )
    );
    assert_eq!(
        one_measured_problem(|v| v["stages"]["http_cache"]["server"]["observed"]["bandwidth_bytes"] = json!(0)),
        golden_problem(
            "$.stages.http_cache.server.observed.bandwidth_bytes",
            "0 bytes; a bandwidth is measured on a GET that moves bytes"
        )
    );
}

#[test]
fn a_build_cache_run_has_the_declared_backend_and_quotas() {
    assert_eq!(
        one_measured_problem(|v| v["stages"]["http_cache"]["runs"][1]["backend"] = json!("redis")),
        golden_problem(
            "$.stages.http_cache.runs[1].backend",
            "\"redis\" is not the declared backend \"in-memory\" (server.declared.backend); a run's backend is the \
             declared one"
        )
    );
    assert_eq!(
        one_measured_problem(|v| {
            v["stages"]["http_cache"]["runs"][0].as_object_mut().unwrap().remove("cpu_quota");
        }),
        golden_problem(
            "$.stages.http_cache.runs[0].cpu_quota",
            "none is not the declared 1 (server.declared.cpu_quota); a run's quotas are the declared ones"
        )
    );
    assert_eq!(
        one_measured_problem(|v| {
            v["stages"]["http_cache"]["server"]["declared"].as_object_mut().unwrap().remove("backend");
            v["stages"]["http_cache"]["runs"][0]["backend"] = json!("undeclared");
            v["stages"]["http_cache"]["runs"][1]["backend"] = json!("undeclared");
            v["stages"]["http_cache"]["runs"][1]["memory_quota_gb"] = json!(8);
        }),
        golden_problem(
            "$.stages.http_cache.runs[1].memory_quota_gb",
            "8 is not the declared 4 (server.declared.memory_quota_gb); a run's quotas are the declared ones"
        )
    );
}

// Class 1: imported results

#[test]
fn the_committed_import_is_the_base_of_these_tests() {
    assert_eq!(imported_problems(|_| {}), []);
}

#[test]
fn imported_figures_that_cannot_be_zero_are_refused_at_zero() {
    assert_eq!(
        // (A variation that a range from 0 allows, so that only the zero
        // is wrong.)
        imported_problems(|v| {
            v["stages"]["cpu"]["iterations_per_s"]["min"] = json!(0);
            v["stages"]["cpu"]["iterations_per_s"]["variation_pct"] = json!(40);
        }),
        [imported_problem(
            "$.stages.cpu.iterations_per_s.min",
            "0 iterations/s is impossible for a published figure; it must be above 0"
        )]
    );
    assert_eq!(
        imported_problems(|v| {
            v["stages"]["disk"]["rand_write_iops"] = json!(0);
            v["stages"]["cache"]["backends"][1]["restore_mib_per_s"] = json!(0);
            v["stages"]["internet"]["request_ms"] = json!(0);
        }),
        [
            imported_problem(
                "$.stages.disk.rand_write_iops",
                "0 IOPS is impossible for a published figure; it must be above 0"
            ),
            imported_problem(
                "$.stages.cache.backends[1].restore_mib_per_s",
                "0 MiB/s is impossible for a published figure; it must be above 0"
            ),
            imported_problem(
                "$.stages.internet.request_ms",
                "0 ms is impossible for a published figure; it must be above 0"
            ),
            // A zero speed disagrees with size and time too (profiles.rs).
            imported_problem(
                "$.stages.cache.backends[1].restore_mib_per_s",
                "0 MiB/s disagrees with payload_mib 512 ÷ restore_s.median 11.14 s = 45.96 MiB/s (the published \
                 rounding allows 45.93 to 45.99)"
            ),
        ]
    );
}

#[test]
fn imported_figures_beyond_physics_are_refused() {
    assert_eq!(
        imported_problems(|v| {
            // Each figure beyond physics, with the figures it must agree
            // with (variation, size ÷ time) moved along, so that only the
            // bound is wrong; but for the cache, whose bound no time a
            // report prints (0.01 s or more) can pass: its seconds print
            // as 0.00.
            v["stages"]["cpu"]["iterations_per_s"]["max"] = json!(2_000_000);
            v["stages"]["cpu"]["iterations_per_s"]["variation_pct"] = json!(40);
            v["stages"]["disk"]["write_mib_per_s"] = json!(300_000);
            v["stages"]["internet"]["download_mbps"] = json!(2_000_000);
            v["stages"]["cache"]["backends"][0]["save_mib_per_s"] = json!(204_800);
            v["stages"]["cache"]["backends"][0]["save_s"] =
                json!({ "median": 0.0025, "min": 0.0025, "max": 0.0025, "variation_pct": 0 });
        }),
        [
            imported_problem(
                "$.stages.cpu.iterations_per_s.max",
                "2000000 iterations/s is above 1000000, more than any CPU core runs CoreMark on one thread"
            ),
            imported_problem(
                "$.stages.disk.write_mib_per_s",
                "300000 MiB/s is above 244141 MiB/s, the most the fastest storage interface carries (PCIe 7.0 x16, \
                 256 GB/s)"
            ),
            imported_problem(
                "$.stages.cache.backends[0].save_s.median",
                "0.0025 s would print as 0.00; a published figure, printed with two decimals, is at least 0.01"
            ),
            imported_problem(
                "$.stages.cache.backends[0].save_s.min",
                "0.0025 s would print as 0.00; a published figure, printed with two decimals, is at least 0.01"
            ),
            imported_problem(
                "$.stages.cache.backends[0].save_s.max",
                "0.0025 s would print as 0.00; a published figure, printed with two decimals, is at least 0.01"
            ),
            imported_problem(
                "$.stages.cache.backends[0].save_mib_per_s",
                "204800 MiB/s is above 190735 MiB/s, the most the fastest network interface carries (1.6 Tb/s \
                 Ethernet)"
            ),
            imported_problem(
                "$.stages.internet.download_mbps",
                "2000000 Mbps is above 1600000 Mbps, the most the fastest network interface carries (1.6 Tb/s \
                 Ethernet)"
            ),
        ]
    );
}

#[test]
fn an_imported_request_time_is_no_longer_than_a_job() {
    assert_eq!(
        imported_problems(|v| v["stages"]["internet"]["request_ms"] = json!(1e300)),
        [imported_problem(
            "$.stages.internet.request_ms",
            "1.000e300 ms is longer than any GitHub Actions job runs (432000000 ms, 5 days on a self-hosted runner); \
             no request of a published run took that long"
        )]
    );
}

#[test]
fn imported_aggregates_come_from_at_least_one_sample() {
    assert_eq!(
        imported_problems(|v| {
            v["stages"]["cpu"]["samples"] = json!(0);
            v["stages"]["cache"]["backends"][0]["verified_pairs"] = json!(0);
        }),
        [
            imported_problem(
                "$.stages.cpu.samples",
                "0 accepted samples, but the stage publishes iterations_per_s: a median, range and variation come \
                 from at least one sample"
            ),
            imported_problem(
                "$.stages.cache.backends[0].verified_pairs",
                "0 verified pairs, but the backend publishes save_s and restore_s: a median, range and variation \
                 come from at least one pair"
            ),
        ]
    );
    // One sample is its own median, minimum and maximum, and varies by 0 %.
    assert_eq!(
        imported_problems(|v| v["stages"]["cpu"]["samples"] = json!(1)),
        [imported_problem(
            "$.stages.cpu.iterations_per_s",
            "one sample, but the median 33392.77, min 29068.42 and max 37639.26 differ: one sample is all three"
        )]
    );
    // One sample of 33392.77 iterations/s, published with `variation`.
    let one_sample = |variation: f64| {
        imported_problems(|v| {
            v["stages"]["cpu"]["samples"] = json!(1);
            v["stages"]["cpu"]["iterations_per_s"] =
                json!({ "median": 33392.77, "min": 33392.77, "max": 33392.77, "variation_pct": variation });
        })
    };
    assert_eq!(
        one_sample(0.06),
        [imported_problem(
            "$.stages.cpu.iterations_per_s.variation_pct",
            "0.06% from one sample, which does not vary (0%)"
        )]
    );
    assert_eq!(one_sample(0.0), []);
}

#[test]
fn imported_cache_times_are_the_verified_pairs() {
    // One verified pair of three: the times are that pair's, not a range.
    assert_eq!(
        imported_problems(|v| v["stages"]["cache"]["backends"][0]["verified_pairs"] = json!(1)),
        [
            imported_problem(
                "$.stages.cache.backends[0].save_s",
                "one sample, but the median 7.38, min 7.15 and max 29.89 differ: one sample is all three"
            ),
            imported_problem(
                "$.stages.cache.backends[0].restore_s",
                "one sample, but the median 38.77, min 20.48 and max 58.3 differ: one sample is all three"
            ),
        ]
    );
}

// Class 2: claims the file cannot prove

#[test]
fn passed_validation_needs_the_published_crcs() {
    assert_eq!(
        one_problem(|v| v["stages"]["cpu"]["samples"][0]["crcs"]["list"] = json!(0x1234)),
        golden_problem(
            "$.stages.cpu.samples[0].crcs",
            "validation is \"passed\" but crclist 0x1234 is not the published 0xe714 (CoreMark's performance run of \
             coremark-1.0-total-data-size-2000, seeds 0x0 0x0 0x66)"
        )
    );
    assert_eq!(
        one_problem(|v| {
            v["stages"]["cpu"]["samples"][3]["crcs"]["seed"] = json!(0);
            v["stages"]["cpu"]["samples"][3]["crcs"]["state"] = json!(0x8d84);
        }),
        golden_problem(
            "$.stages.cpu.samples[3].crcs",
            "validation is \"passed\" but seedcrc 0x0000 is not the published 0xe9f5, crcstate 0x8d84 is not the \
             published 0x8e3a (CoreMark's performance run of coremark-1.0-total-data-size-2000, seeds 0x0 0x0 0x66)"
        )
    );
    // crcfinal depends on the iteration count, so it is not checked.
    passes(|v| v["stages"]["cpu"]["samples"][0]["crcs"]["final"] = json!(1));
}

/// The validation run's CRCs as the collector records them: one iteration
/// with seeds 0x3415 0x3415 0x66, so crcfinal is its crclist.
fn validation_crcs() -> Value {
    json!({"seed": 0x18f2, "list": 0xe3c1, "matrix": 0x0747, "state": 0x8d84, "final": 0xe3c1})
}

#[test]
fn passed_validation_needs_the_published_validation_crcs() {
    passes(|v| v["stages"]["cpu"]["samples"][0]["validation_crcs"] = validation_crcs());
    assert_eq!(
        one_problem(|v| {
            v["stages"]["cpu"]["samples"][1]["validation_crcs"] = validation_crcs();
            v["stages"]["cpu"]["samples"][1]["validation_crcs"]["matrix"] = json!(0x1fd7);
            v["stages"]["cpu"]["samples"][1]["validation_crcs"]["final"] = json!(0xe714);
        }),
        golden_problem(
            "$.stages.cpu.samples[1].validation_crcs",
            "validation is \"passed\" but crcmatrix 0x1fd7 is not the published 0x0747, crcfinal 0xe714 is not the \
             published crclist 0xe3c1 of its one iteration (CoreMark's validation run of \
             coremark-1.0-total-data-size-2000, seeds 0x3415 0x3415 0x66)"
        )
    );
}

#[test]
fn an_eembc_commit_names_the_official_sources_compiled() {
    assert_eq!(
        one_problem(|v| v["build"]["coremark"]["eembc_commit"] = json!("d5fad6bd094899101a4e5fd53af7298160ced6ab")),
        golden_problem(
            "$.build.coremark.eembc_commit",
            "an EEMBC commit beside the project's own implementation; only a build of the official sources has one"
        )
    );
    passes(|v| {
        v["build"]["coremark"]["implementation"] = json!("eembc");
        v["build"]["coremark"]["eembc_commit"] = json!("d5fad6bd094899101a4e5fd53af7298160ced6ab");
    });
    assert_eq!(
        one_problem(|v| {
            v["build"]["coremark"]["implementation"] = json!("eembc");
            v["build"]["coremark"]["eembc_commit"] = json!("main");
        }),
        golden_problem("$.build.coremark.eembc_commit", "not a git commit id (40 lowercase hexadecimal digits)")
    );
}

#[test]
fn an_affinity_cpu_is_one_the_machine_has() {
    assert_eq!(
        one_problem(|v| v["stages"]["cpu"]["samples"][0]["affinity"]["cpu"] = json!(2)),
        golden_problem(
            "$.stages.cpu.samples[0].affinity.cpu",
            "CPU 2 is not one of the machine's 2 logical CPUs (0 to 1, machine.logical_cpus)"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["disk"]["samples"][2]["affinity"]["cpu"] = json!(4_000_000_000u32)),
        golden_problem(
            "$.stages.disk.samples[2].affinity.cpu",
            "CPU 4000000000 is not one of the machine's 2 logical CPUs (0 to 1, machine.logical_cpus)"
        )
    );
    assert_eq!(
        one_problem(|v| v["stages"]["cpu"]["samples"][1]["affinity"]["group"] = json!(1)),
        golden_problem(
            "$.stages.cpu.samples[1].affinity.group",
            "processor group 1 on linux; only Windows has processor groups, elsewhere it is 0"
        )
    );
    passes(|v| {
        v["machine"]["os"] = json!("windows");
        v["stages"]["cpu"]["samples"][1]["affinity"]["group"] = json!(1);
    });
}

#[test]
fn an_ok_cpu_sample_is_pinned_where_the_collector_pins() {
    for os in ["linux", "windows"] {
        assert_eq!(
            one_problem(|v| {
                v["machine"]["os"] = json!(os);
                v["stages"]["cpu"]["samples"][0]["affinity"] = json!({"mode": "unpinned"});
            }),
            golden_problem(
                "$.stages.cpu.samples[0].affinity",
                &format!(
                    "an ok CoreMark sample on {os} ran unpinned; the collector pins it to one CPU on Linux and Windows"
                )
            )
        );
    }
    // macOS cannot pin; a sample that failed records the affinity it had.
    passes(|v| {
        v["machine"]["os"] = json!("macos");
        v["stages"]["cpu"]["samples"][0]["affinity"] = json!({"mode": "unpinned"});
    });
    passes(|v| v["stages"]["cpu"]["samples"][4]["affinity"] = json!({"mode": "unpinned"}));
}

#[test]
fn a_machine_has_cpus_and_memory() {
    assert_eq!(
        one_problem(|v| v["machine"]["logical_cpus"] = json!(0)),
        golden_problem("$.machine.logical_cpus", "0 logical CPUs; the machine that ran the collector has at least one")
    );
    assert_eq!(
        one_problem(|v| v["machine"]["memory_bytes"] = json!(0)),
        golden_problem(
            "$.machine.memory_bytes",
            "0 bytes of memory on linux; the collector reads the machine's memory on Linux and Windows, and a machine \
             has some"
        )
    );
    // The collector does not read memory on macOS yet, and writes 0 there.
    passes(|v| {
        v["machine"]["os"] = json!("macos");
        v["machine"]["memory_bytes"] = json!(0);
    });
}

#[test]
fn extreme_figures_are_shown_in_scientific_notation() {
    let mut v = golden();
    v["stages"]["cpu"]["samples"][0]["elapsed_s"] = json!(1e-300);
    let p = problems_of(&v);
    assert_eq!(
        p[0].2,
        "1.000e-300 s is under half of parameters.cpu_seconds (30 s); a CoreMark sample runs about that long"
    );
    assert_eq!(p[1].2, "1.000e306 iterations/s is above 1000000, more than any CPU core runs CoreMark on one thread");
}
