//! What a sample can last: no timing of a run is longer than the run that
//! records it, and the disk latencies fit the operation's own time.
//!
//! - A CPU sample's `elapsed_s`, a disk operation's `elapsed_s`, a cache
//!   transfer's `seconds`, an internet sample's `seconds` or `ms` and a
//!   build-cache phase's `seconds` happen inside the run, so none is
//!   longer than `finished_at` − `started_at` (plus 2 s: the timestamps are
//!   whole seconds and the timings are not).
//! - A CPU sample's `steal_s` is time the pinned CPU spent elsewhere while
//!   the sample ran: at most its `elapsed_s` (plus one 10 ms tick of the
//!   kernel's accounting).
//! - A CPU sample's `cpu_s` is the CPU time of what ran its iterations (the
//!   measured process; in older files the sample's thread): at most its
//!   `elapsed_s` (the collector clamps it so), and above 0 in an ok sample
//!   (the iterations took CPU time).
//! - Disk latencies: the collector times each I/O call of an operation one
//!   after another at queue depth 1, and reports nearest-rank percentiles.
//!   With n calls, percentile P is the value at rank r = ⌈P·n/100⌉, so at
//!   least n − r + 1 calls took at least that long, and together they took
//!   no longer than the operation: P's latency ≤ elapsed ÷ (n − r + 1). A
//!   latency is above 0 (an I/O call takes time).

use runner_bench_format::measured::{DiskOp, MeasuredResult, Status};

use super::findings::{Collector, Num};

/// The timestamps' rounding: each is a whole second.
const ROUNDING_S: f64 = 2.0;
/// One tick of the kernel's CPU time accounting (USER_HZ = 100).
const TICK_S: f64 = 0.01;

pub(super) fn measured(c: &mut Collector, file: &str, m: &MeasuredResult) {
    let run_s = (m.provenance.finished_at.instant().as_second() - m.provenance.started_at.instant().as_second()) as f64
        + ROUNDING_S;
    if run_s < ROUNDING_S {
        // finished_at before started_at: the format's rule says so.
        return;
    }
    // The field's path is made only for a problem: a check of 10,000
    // results passes about 800,000 timings here.
    let within = |c: &mut Collector, field: &dyn Fn() -> String, seconds: f64| {
        if seconds > run_s {
            c.push(
                file,
                field(),
                format!(
                    "{} s is longer than the run that records it ({} s from provenance.started_at to finished_at, \
                     with {ROUNDING_S} s for their rounding); every timing is taken during the run",
                    Num(seconds),
                    run_s - ROUNDING_S
                ),
            );
        }
    };
    let s = &m.stages;
    if let Some(cpu) = &s.cpu {
        for (i, sample) in cpu.samples.iter().enumerate() {
            let path = || format!("$.stages.cpu.samples[{i}]");
            if let Some(e) = sample.elapsed_s {
                within(c, &|| format!("{}.elapsed_s", path()), e.get());
                if let Some(steal) = sample.steal_s
                    && e.get() > 0.0
                    && steal.get() > e.get() + TICK_S
                {
                    c.push(
                        file,
                        format!("{}.steal_s", path()),
                        format!(
                            "{} s of steal time is more than the sample's {} s; the CPU cannot run something else \
                             for longer than the sample lasted",
                            Num(steal.get()),
                            Num(e.get())
                        ),
                    );
                }
                if let Some(ran) = sample.cpu_s {
                    if ran.get() > e.get() {
                        c.push(
                            file,
                            format!("{}.cpu_s", path()),
                            format!(
                                "{} s of CPU time is more than the sample's {} s; the collector records no more than \
                                 the sample lasted",
                                Num(ran.get()),
                                Num(e.get())
                            ),
                        );
                    } else if ran.get() == 0.0 && sample.status == Status::Ok {
                        c.push(
                            file,
                            format!("{}.cpu_s", path()),
                            "0 s of CPU time in an ok sample; its iterations took CPU time",
                        );
                    }
                }
            }
        }
    }
    if let Some(disk) = &s.disk {
        for (i, sample) in disk.samples.iter().enumerate() {
            for (name, op) in [
                ("seq_read", &sample.seq_read),
                ("seq_write", &sample.seq_write),
                ("rand_read", &sample.rand_read),
                ("rand_write", &sample.rand_write),
            ] {
                if let Some(op) = op {
                    let path = || format!("$.stages.disk.samples[{i}].{name}");
                    within(c, &|| format!("{}.elapsed_s", path()), op.elapsed_s.get());
                    latencies(c, file, &path, op);
                }
            }
        }
    }
    if let Some(cache) = &s.cache {
        for (i, pair) in cache.pairs.iter().enumerate() {
            for (half, t) in [("save", Some(&pair.save)), ("restore", pair.restore.as_ref())] {
                if let Some(seconds) = t.and_then(|t| t.seconds) {
                    within(c, &|| format!("$.stages.cache.pairs[{i}].{half}.seconds"), seconds.get());
                }
            }
        }
    }
    if let Some(net) = &s.internet {
        for (name, samples) in [("download", &net.download), ("upload", &net.upload)] {
            for (i, sample) in samples.iter().enumerate() {
                within(c, &|| format!("$.stages.internet.{name}[{i}].seconds"), sample.seconds.get());
            }
        }
        for (i, sample) in net.request.iter().enumerate() {
            if let Some(ms) = sample.ms {
                within(c, &|| format!("$.stages.internet.request[{i}].ms"), ms.get() / 1000.0);
            }
        }
    }
    if let Some(http) = &s.http_cache {
        for (i, run) in http.runs.iter().enumerate() {
            for (name, phase) in [("put", &run.put), ("get", &run.get)] {
                within(c, &|| format!("$.stages.http_cache.runs[{i}].{name}.seconds"), phase.seconds.get());
            }
        }
    }
}

/// The latency rules of one disk operation (module documentation).
fn latencies(c: &mut Collector, file: &str, path: &dyn Fn() -> String, op: &DiskOp) {
    let n = op.ops;
    // (No calls or no time: figures.rs refuses those already.)
    if n == 0 || op.elapsed_s.get() == 0.0 {
        return;
    }
    for (name, pct, us) in
        [("latency_p50_us", 50u32, op.latency_p50_us.get()), ("latency_p99_us", 99, op.latency_p99_us.get())]
    {
        if us == 0.0 {
            c.push(file, format!("{}.{name}", path()), "0 µs is impossible: an I/O call takes time");
            continue;
        }
        let rank = (u128::from(pct) * u128::from(n)).div_ceil(100).max(1);
        let at_least = u128::from(n) + 1 - rank;
        let most_us = op.elapsed_s.get() * 1e6 / at_least as f64;
        // (A relative allowance for the decimal form of both figures.)
        if us > most_us * (1.0 + 1e-9) {
            c.push(
                file,
                format!("{}.{name}", path()),
                format!(
                    "{} µs at the {pct}th percentile means {at_least} of the {n} calls took at least that long, {} s \
                     in all, more than the operation's elapsed_s of {} s; at queue depth 1 the calls follow one \
                     another",
                    Num(us),
                    Num(us * at_least as f64 / 1e6),
                    Num(op.elapsed_s.get())
                ),
            );
        }
    }
}
