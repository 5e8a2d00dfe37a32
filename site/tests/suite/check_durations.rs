//! `site check`: no timing is longer than its run, and disk latencies fit
//! their operation's time (docs/result-format.md, "What a sample can last").

use crate::common::*;
use serde_json::json;

/// What the golden run (10:00:00 to 10:31:07) allows, in the message.
const RUN: &str = "is longer than the run that records it (1867 s from provenance.started_at to finished_at, with 2 s \
                   for their rounding); every timing is taken during the run";

#[test]
fn no_timing_is_longer_than_its_run() {
    assert_eq!(
        problems_after(|v| v["stages"]["cpu"]["samples"][0]["elapsed_s"] = json!(1e15)),
        [golden_problem("$.stages.cpu.samples[0].elapsed_s", &format!("1.000e15 s {RUN}"))]
    );
    assert_eq!(
        problems_after(|v| v["stages"]["cache"]["pairs"][0]["restore"]["seconds"] = json!(f64::MAX)),
        [golden_problem("$.stages.cache.pairs[0].restore.seconds", &format!("1.798e308 s {RUN}"))]
    );
    assert_eq!(
        problems_after(|v| v["stages"]["internet"]["request"][4]["ms"] = json!(4_294_967_295u32)),
        [golden_problem("$.stages.internet.request[4].ms", &format!("4294967.295 s {RUN}"))]
    );
    assert_eq!(
        problems_after(|v| v["stages"]["disk"]["samples"][1]["rand_write"]["elapsed_s"] = json!(1869.5)),
        [golden_problem("$.stages.disk.samples[1].rand_write.elapsed_s", &format!("1869.5 s {RUN}"))]
    );
    // Within the rounding of the timestamps.
    assert_eq!(problems_after(|v| v["stages"]["cpu"]["samples"][0]["elapsed_s"] = json!(1868.9)), []);
}

#[test]
fn steal_time_fits_in_its_sample() {
    assert_eq!(
        problems_after(|v| v["stages"]["cpu"]["samples"][0]["steal_s"] = json!(45.5)),
        [golden_problem(
            "$.stages.cpu.samples[0].steal_s",
            "45.5 s of steal time is more than the sample's 30.0151 s; the CPU cannot run something else for longer \
             than the sample lasted"
        )]
    );
}

#[test]
fn cpu_time_fits_in_its_sample() {
    assert_eq!(problems_after(|v| v["stages"]["cpu"]["samples"][0]["cpu_s"] = json!(29.9)), []);
    assert_eq!(
        problems_after(|v| v["stages"]["cpu"]["samples"][0]["cpu_s"] = json!(30.5)),
        [golden_problem(
            "$.stages.cpu.samples[0].cpu_s",
            "30.5 s of CPU time is more than the sample's 30.0151 s; the collector records no more than the sample \
             lasted"
        )]
    );
    assert_eq!(
        problems_after(|v| v["stages"]["cpu"]["samples"][0]["cpu_s"] = json!(0)),
        [golden_problem(
            "$.stages.cpu.samples[0].cpu_s",
            "0 s of CPU time in an ok sample; its iterations took CPU time"
        )]
    );
}

#[test]
fn disk_latencies_fit_in_their_operation() {
    assert_eq!(
        problems_after(|v| v["stages"]["disk"]["samples"][0]["seq_read"]["latency_p99_us"] = json!(1e300)),
        [golden_problem(
            "$.stages.disk.samples[0].seq_read.latency_p99_us",
            "1.000e300 µs at the 99th percentile means 81 of the 8064 calls took at least that long, 8.100e295 s in \
             all, more than the operation's elapsed_s of 5.0021 s; at queue depth 1 the calls follow one another"
        )]
    );
    assert_eq!(
        problems_after(|v| v["stages"]["disk"]["samples"][0]["seq_read"]["latency_p50_us"] = json!(0)),
        [golden_problem(
            "$.stages.disk.samples[0].seq_read.latency_p50_us",
            "0 µs is impossible: an I/O call takes time"
        )]
    );
}
