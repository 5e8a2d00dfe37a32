//! Figures that must be finite and positive (issue 13, class 1): every
//! figure the site derives from a file (iterations/s, MiB/s, IOPS, Mbps,
//! requests/s) must come out finite, above zero where zero is impossible,
//! within what the sample's own parameters allow, and below what physics
//! allows. The format's types already refuse negative and non-finite
//! numbers; these rules refuse the zeros that would make a figure infinite
//! or NaN, and the records the collector cannot have written.
//!
//! Each rule follows what the collector writes (collector/src/stage/), so
//! that its own honest output always passes. This file holds the rules of
//! a measured result; `imported_figures` those of an imported one, and
//! `bounds` the physical bounds both apply.

use runner_bench_format::measured::{CacheKind, CacheTransfer, DiskOp, HttpCachePhase, MeasuredResult, Status};
use runner_bench_format::{NonNeg, Parameters};

use super::bounds::{MAX_ITERATIONS_PER_S, MAX_NETWORK_MBPS, MIB, cache_bound, max_storage_mib_per_s};
use super::findings::{Collector, Num};

/// Every figure rule of a measured result.
pub(super) fn measured(c: &mut Collector, file: &str, m: &MeasuredResult) {
    let p = &m.parameters;
    cpu(c, file, m, p);
    disk(c, file, m, p);
    cache(c, file, m, p);
    internet(c, file, m, p);
    http_cache(c, file, m, p);
}

fn cpu(c: &mut Collector, file: &str, m: &MeasuredResult, p: &Parameters) {
    let Some(cpu) = &m.stages.cpu else { return };
    for (i, s) in cpu.samples.iter().enumerate() {
        if s.status != Status::Ok {
            continue;
        }
        let path = format!("$.stages.cpu.samples[{i}]");
        if s.iterations == Some(0) {
            c.push(
                file,
                format!("{path}.iterations"),
                "0 iterations in an ok sample; CoreMark runs at least one iteration, so iterations/s is above 0",
            );
        }
        if let Some(elapsed) = s.elapsed_s.map(NonNeg::get) {
            if elapsed == 0.0 {
                c.push(
                    file,
                    format!("{path}.elapsed_s"),
                    "0 s in an ok sample; iterations/s = iterations ÷ elapsed_s needs elapsed_s above 0",
                );
            } else if elapsed < f64::from(p.cpu_seconds) / 2.0 {
                // The collector runs the count that its shorter runs say lasts
                // cpu_seconds: on a noisy machine a sample comes out somewhat
                // shorter or longer, never by half.
                c.push(
                    file,
                    format!("{path}.elapsed_s"),
                    format!(
                        "{elapsed} s is under half of parameters.cpu_seconds ({} s); a CoreMark sample runs about that \
                         long",
                        p.cpu_seconds,
                        elapsed = Num(elapsed)
                    ),
                );
            }
        }
        if let (Some(n), Some(elapsed)) = (s.iterations, s.elapsed_s.map(NonNeg::get))
            && elapsed > 0.0
            && n as f64 / elapsed > MAX_ITERATIONS_PER_S
        {
            c.push(
                file,
                path,
                format!(
                    "{:.0} iterations/s is above {MAX_ITERATIONS_PER_S:.0}, more than any CPU core runs CoreMark on \
                     one thread",
                    Num(n as f64 / elapsed)
                ),
            );
        }
    }
}

fn disk(c: &mut Collector, file: &str, m: &MeasuredResult, p: &Parameters) {
    let Some(disk) = &m.stages.disk else { return };
    for (i, s) in disk.samples.iter().enumerate() {
        if s.status != Status::Ok {
            continue;
        }
        let ops = [
            ("seq_read", &s.seq_read, p.disk_seq_block_kib, "disk_seq_block_kib"),
            ("seq_write", &s.seq_write, p.disk_seq_block_kib, "disk_seq_block_kib"),
            ("rand_read", &s.rand_read, p.disk_rand_block_kib, "disk_rand_block_kib"),
            ("rand_write", &s.rand_write, p.disk_rand_block_kib, "disk_rand_block_kib"),
        ];
        for (name, op, block_kib, parameter) in ops {
            if let Some(op) = op {
                disk_op(c, file, &format!("$.stages.disk.samples[{i}].{name}"), op, block_kib, parameter, p);
            }
        }
    }
}

fn disk_op(c: &mut Collector, file: &str, path: &str, op: &DiskOp, block_kib: u32, parameter: &str, p: &Parameters) {
    if op.ops == 0 {
        c.push(
            file,
            format!("{path}.ops"),
            "0 ops in an ok sample; an operation makes at least one I/O call, so IOPS is above 0",
        );
    }
    let block = u64::from(block_kib) * 1024;
    match op.ops.checked_mul(block) {
        Some(expected) if expected == op.bytes => {}
        Some(expected) => c.push(
            file,
            format!("{path}.bytes"),
            format!(
                "{} bytes is not ops × block size = {} × {block} bytes (parameters.{parameter} = {block_kib} KiB) = \
                 {expected} bytes; every I/O call moves one whole block",
                op.bytes, op.ops
            ),
        ),
        None => c.push(
            file,
            format!("{path}.ops"),
            format!(
                "{} ops × {block} bytes (parameters.{parameter} = {block_kib} KiB) is more than 2^64 bytes; every \
                 I/O call moves one whole block",
                op.ops
            ),
        ),
    }
    let elapsed = op.elapsed_s.get();
    if elapsed == 0.0 {
        c.push(
            file,
            format!("{path}.elapsed_s"),
            "0 s in an ok sample; MiB/s and IOPS divide by elapsed_s, which must be above 0",
        );
    } else if elapsed < f64::from(p.disk_op_seconds) {
        c.push(
            file,
            format!("{path}.elapsed_s"),
            format!(
                "{elapsed} s is shorter than parameters.disk_op_seconds ({} s); each disk operation repeats for at \
                 least that long",
                p.disk_op_seconds,
                elapsed = Num(elapsed)
            ),
        );
    }
    let (p50, p99) = (op.latency_p50_us.get(), op.latency_p99_us.get());
    if p50 > p99 {
        c.push(
            file,
            format!("{path}.latency_p50_us"),
            format!(
                "the median latency {p50} µs is above the 99th percentile {p99} µs; a median is never above it",
                p50 = Num(p50),
                p99 = Num(p99)
            ),
        );
    }
    if elapsed > 0.0 && op.mib_per_s() > max_storage_mib_per_s() {
        c.push(
            file,
            path,
            format!(
                "{:.0} MiB/s is above {:.0} MiB/s, the most the fastest storage interface carries (PCIe 7.0 x16, \
                 256 GB/s)",
                Num(op.mib_per_s()),
                max_storage_mib_per_s()
            ),
        );
    }
}

/// The most bytes an archive of the payload can have: a tar of its files
/// (the tar crate writes a 512-byte header per file and per folder, pads
/// each file to 512 bytes and ends with 1024 zero bytes) compressed by zstd,
/// whose output never exceeds ZSTD_COMPRESSBOUND: the input plus 1/256 of
/// it plus a little for small inputs (64 KiB covers that and the frame).
fn archive_bound(payload_bytes: u64, files: u32) -> u64 {
    let tar = payload_bytes.saturating_add(1024 * u64::from(files.max(1))).saturating_add(512 + 1024);
    tar.saturating_add(tar / 256).saturating_add(64 * 1024)
}

fn cache(c: &mut Collector, file: &str, m: &MeasuredResult, p: &Parameters) {
    let Some(cache) = &m.stages.cache else { return };
    let payload = cache.payload_bytes;
    let expected = u64::from(p.cache_payload_mib) * MIB;
    if payload == 0 {
        c.push(
            file,
            "$.stages.cache.payload_bytes",
            "0 bytes; cache MiB/s = payload bytes ÷ 2^20 ÷ seconds needs a payload",
        );
    } else if payload != expected {
        c.push(
            file,
            "$.stages.cache.payload_bytes",
            format!(
                "{payload} bytes is not parameters.cache_payload_mib × 1 MiB = {} × {MIB} = {expected} bytes; the \
                 payload is the profile's",
                p.cache_payload_mib
            ),
        );
    }
    // Transfers are held to the profile's payload, which the collector
    // moves whatever the file records as payload_bytes.
    let bytes = Payload { recorded: payload, least: expected, most: archive_bound(expected, p.cache_payload_files) };
    for (i, pair) in cache.pairs.iter().enumerate() {
        let kind = cache.backends.iter().find(|b| b.id == pair.backend).map(|b| b.kind);
        for (half, t) in [("save", Some(&pair.save)), ("restore", pair.restore.as_ref())] {
            if let Some(t) = t {
                transfer(c, file, &format!("$.stages.cache.pairs[{i}].{half}"), t, &bytes, kind);
            }
        }
    }
}

/// The payload as the file records it (the figures divide it by seconds)
/// and the bytes a transfer of the profile's payload moves.
struct Payload {
    recorded: u64,
    least: u64,
    most: u64,
}

fn transfer(c: &mut Collector, file: &str, path: &str, t: &CacheTransfer, bytes: &Payload, kind: Option<CacheKind>) {
    if t.status != Status::Ok {
        return;
    }
    let payload = bytes.recorded;
    if let Some(seconds) = t.seconds.map(NonNeg::get) {
        if seconds == 0.0 {
            c.push(
                file,
                format!("{path}.seconds"),
                "0 s in an ok transfer; cache MiB/s = payload bytes ÷ 2^20 ÷ seconds needs seconds above 0",
            );
        } else {
            let mib_per_s = payload as f64 / MIB as f64 / seconds;
            let (bound, what) = cache_bound(kind);
            if mib_per_s > bound {
                c.push(
                    file,
                    format!("{path}.seconds"),
                    format!(
                        "{seconds} s for {payload} bytes is {mib_per_s:.0} MiB/s, above {bound:.0} MiB/s, the most \
                         {what}",
                        seconds = Num(seconds),
                        mib_per_s = Num(mib_per_s)
                    ),
                );
            }
        }
    }
    if let Some(moved) = t.transferred_bytes {
        let (least, most) = (bytes.least, bytes.most);
        if moved < least {
            c.push(
                file,
                format!("{path}.transferred_bytes"),
                format!(
                    "{moved} bytes is less than the profile's payload ({least} bytes); a transfer moves the whole \
                     payload (a volume copies it, a service moves its archive, which cannot compress the payload's \
                     random bytes)"
                ),
            );
        } else if moved > most {
            c.push(
                file,
                format!("{path}.transferred_bytes"),
                format!(
                    "{moved} bytes is more than an archive of the payload can be: at most {most} bytes (tar headers \
                     and zstd's worst-case expansion)"
                ),
            );
        }
    }
}

fn internet(c: &mut Collector, file: &str, m: &MeasuredResult, p: &Parameters) {
    let Some(net) = &m.stages.internet else { return };
    let payload = u64::from(p.internet_transfer_mib) * MIB;
    for (name, samples) in [("download", &net.download), ("upload", &net.upload)] {
        for (i, s) in samples.iter().enumerate() {
            let path = format!("$.stages.internet.{name}[{i}]");
            let ok = s.status == Status::Ok;
            if ok && s.bytes == 0 {
                c.push(
                    file,
                    format!("{path}.bytes"),
                    "0 bytes in an ok sample; Mbps = bytes × 8 ÷ 10^6 ÷ seconds needs bytes above 0",
                );
            } else if s.bytes > payload {
                c.push(
                    file,
                    format!("{path}.bytes"),
                    format!(
                        "{} bytes is more than a sample transfers: parameters.internet_transfer_mib × 1 MiB = {} × \
                         {MIB} = {payload} bytes",
                        s.bytes, p.internet_transfer_mib
                    ),
                );
            } else if ok && s.bytes != payload {
                c.push(
                    file,
                    format!("{path}.bytes"),
                    format!(
                        "{} bytes in an ok sample; an ok sample moves exactly parameters.internet_transfer_mib × 1 \
                         MiB = {payload} bytes",
                        s.bytes
                    ),
                );
            }
            if !ok {
                continue;
            }
            let seconds = s.seconds.get();
            if seconds == 0.0 {
                c.push(
                    file,
                    format!("{path}.seconds"),
                    "0 s in an ok sample; Mbps = bytes × 8 ÷ 10^6 ÷ seconds needs seconds above 0",
                );
            } else if let Some(mbps) = s.mbps()
                && mbps > MAX_NETWORK_MBPS
            {
                c.push(
                    file,
                    path,
                    format!(
                        "{mbps:.0} Mbps is above {MAX_NETWORK_MBPS:.0} Mbps, the most the fastest network interface \
                         carries (1.6 Tb/s Ethernet)",
                        mbps = Num(mbps)
                    ),
                );
            }
        }
    }
    for (i, s) in net.request.iter().enumerate() {
        if s.status == Status::Ok && s.ms.map(NonNeg::get) == Some(0.0) {
            c.push(
                file,
                format!("$.stages.internet.request[{i}].ms"),
                "0 ms in an ok sample; a request over the network (DNS, TCP, TLS and the request) takes time",
            );
        }
    }
}

fn http_cache(c: &mut Collector, file: &str, m: &MeasuredResult, p: &Parameters) {
    let Some(http) = &m.stages.http_cache else { return };
    // A stage that records what it observed is the collector's own, which
    // times every answered request; a file from before these fields
    // (format/tests/golden) has neither.
    let timed = http.server.observed.is_some();
    if let Some(mbps) = http.server.observed.as_ref().and_then(|o| o.bandwidth_mbps).map(NonNeg::get)
        && mbps > MAX_NETWORK_MBPS
    {
        c.push(
            file,
            "$.stages.http_cache.server.observed.bandwidth_mbps",
            format!(
                "{:.0} Mbps is above {MAX_NETWORK_MBPS:.0} Mbps, the most the fastest network interface carries \
                 (1.6 Tb/s Ethernet)",
                Num(mbps)
            ),
        );
    }
    for (i, run) in http.runs.iter().enumerate() {
        for (name, phase) in [("put", &run.put), ("get", &run.get)] {
            let path = format!("$.stages.http_cache.runs[{i}].{name}");
            // u64: two u32 counters cannot overflow it.
            let requests = u64::from(phase.succeeded) + u64::from(phase.failed);
            if requests > u64::from(p.http_cache_entries) {
                c.push(
                    file,
                    path.clone(),
                    format!(
                        "{} succeeded + {} failed = {requests} requests, more than the \
                         parameters.http_cache_entries ({}) a phase makes",
                        phase.succeeded, phase.failed, p.http_cache_entries
                    ),
                );
            }
            latencies(c, file, &path, phase, requests, timed);
            if phase.status != Status::Ok {
                continue;
            }
            if requests == 0 {
                c.push(
                    file,
                    path.clone(),
                    "0 succeeded + 0 failed requests in an ok phase; requests/s = (succeeded + failed) ÷ seconds \
                     needs a request",
                );
            }
            if phase.seconds.get() == 0.0 {
                c.push(
                    file,
                    format!("{path}.seconds"),
                    "0 s in an ok phase; requests/s = (succeeded + failed) ÷ seconds needs seconds above 0",
                );
            }
        }
    }
}

/// The latency rules of one build-cache phase: the three percentiles come
/// with the requests they time, rise with their rank, and fit in the phase.
fn latencies(c: &mut Collector, file: &str, path: &str, phase: &HttpCachePhase, requests: u64, timed: bool) {
    let all = [
        ("latency_p50_ms", "median", phase.latency_p50_ms),
        ("latency_p90_ms", "90th percentile", phase.latency_p90_ms),
        ("latency_p99_ms", "99th percentile", phase.latency_p99_ms),
    ];
    for (name, _, ms) in all {
        match (ms, requests) {
            (Some(ms), 0) => c.push(
                file,
                format!("{path}.{name}"),
                format!(
                    "{} ms with 0 succeeded + 0 failed requests; a latency is timed on an answered request",
                    Num(ms.get())
                ),
            ),
            (None, 1..) if timed => c.push(
                file,
                format!("{path}.{name}"),
                format!(
                    "required when the phase answered requests ({} succeeded + {} failed); the collector times \
                     every answered request",
                    phase.succeeded, phase.failed
                ),
            ),
            _ => {}
        }
    }
    for pair in all.windows(2) {
        let [(name, rank, Some(lower)), (_, higher_rank, Some(higher))] = pair else { continue };
        if lower.get() > higher.get() {
            c.push(
                file,
                format!("{path}.{name}"),
                format!(
                    "the {rank} latency {} ms is above the {higher_rank} {} ms; a percentile never falls as its \
                     rank rises",
                    Num(lower.get()),
                    Num(higher.get())
                ),
            );
        }
    }
    // Each request is timed from its sending to its answer's last byte,
    // both within the phase, so none is longer than the phase.
    if let Some(p99) = phase.latency_p99_ms.map(NonNeg::get)
        && p99 > phase.seconds.get() * 1e3 * (1.0 + 1e-9)
    {
        c.push(
            file,
            format!("{path}.latency_p99_ms"),
            format!(
                "{} ms at the 99th percentile is longer than the phase's {} s; every request is timed within its \
                 phase",
                Num(p99),
                Num(phase.seconds.get())
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archive_bound_holds_the_payload_and_its_overhead() {
        // The standard profile's 512 MiB in 16 files, and the collector's
        // archive of it in the golden file: 128 KiB more than the payload.
        let payload = 512 * MIB;
        assert!(archive_bound(payload, 16) >= payload + 128 * 1024);
        assert_eq!(archive_bound(payload, 16), payload + 17_920 + (payload + 17_920) / 256 + 65_536);
        assert_eq!(archive_bound(u64::MAX, 16), u64::MAX, "saturates, never overflows");
    }
}
