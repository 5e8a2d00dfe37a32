//! Figures of an imported result that must be finite and positive (issue
//! 13, class 1): a published figure that would print as zero was never
//! published, and none is above the physical bounds (`bounds`).

use runner_bench_format::NonNeg;
use runner_bench_format::imported::{Aggregate, ImportedResult};

use super::bounds::{MAX_ITERATIONS_PER_S, MAX_JOB_MS, MAX_NETWORK_MBPS, cache_bound, max_storage_mib_per_s};
use super::findings::{Collector, Num};

/// Every figure rule of an imported result: the published figures that
/// cannot be zero are above it, and below the physical bounds.
pub(super) fn imported(c: &mut Collector, file: &str, i: &ImportedResult) {
    if let Some(cpu) = &i.stages.cpu {
        let path = "$.stages.cpu.iterations_per_s";
        positive_aggregate(c, file, path, &cpu.iterations_per_s, "iterations/s");
        let max = cpu.iterations_per_s.max.get();
        if max > MAX_ITERATIONS_PER_S {
            c.push(
                file,
                format!("{path}.max"),
                format!(
                    "{max} iterations/s is above {MAX_ITERATIONS_PER_S:.0}, more than any CPU core runs CoreMark on \
                     one thread",
                    max = Num(max)
                ),
            );
        }
    }
    if let Some(disk) = &i.stages.disk {
        // IOPS has no bound here: the block size of a published figure is
        // not in the file.
        for (name, v, unit, bounded) in [
            ("read_mib_per_s", disk.read_mib_per_s, "MiB/s", true),
            ("write_mib_per_s", disk.write_mib_per_s, "MiB/s", true),
            ("rand_read_iops", disk.rand_read_iops, "IOPS", false),
            ("rand_write_iops", disk.rand_write_iops, "IOPS", false),
        ] {
            let path = format!("$.stages.disk.{name}");
            positive(c, file, &path, v, unit);
            if let Some(v) = v.map(NonNeg::get)
                && bounded
                && v > max_storage_mib_per_s()
            {
                c.push(
                    file,
                    path,
                    format!(
                        "{v} MiB/s is above {:.0} MiB/s, the most the fastest storage interface carries (PCIe 7.0 \
                         x16, 256 GB/s)",
                        max_storage_mib_per_s(),
                        v = Num(v)
                    ),
                );
            }
        }
    }
    if let Some(cache) = &i.stages.cache {
        for (n, b) in cache.backends.iter().enumerate() {
            let path = format!("$.stages.cache.backends[{n}]");
            positive(c, file, &format!("{path}.payload_mib"), Some(b.payload_mib), "MiB");
            positive_aggregate(c, file, &format!("{path}.save_s"), &b.save_s, "s");
            positive_aggregate(c, file, &format!("{path}.restore_s"), &b.restore_s, "s");
            for (name, v) in [("save_mib_per_s", b.save_mib_per_s), ("restore_mib_per_s", b.restore_mib_per_s)] {
                let field = format!("{path}.{name}");
                positive(c, file, &field, Some(v), "MiB/s");
                let (bound, what) = cache_bound(Some(b.kind));
                if v.get() > bound {
                    c.push(file, field, format!("{} MiB/s is above {bound:.0} MiB/s, the most {what}", Num(v.get())));
                }
            }
        }
    }
    if let Some(net) = &i.stages.internet {
        for (name, v) in [("download_mbps", net.download_mbps), ("upload_mbps", net.upload_mbps)] {
            let path = format!("$.stages.internet.{name}");
            positive(c, file, &path, v, "Mbps");
            if let Some(v) = v.map(NonNeg::get)
                && v > MAX_NETWORK_MBPS
            {
                c.push(
                    file,
                    path,
                    format!(
                        "{v} Mbps is above {MAX_NETWORK_MBPS:.0} Mbps, the most the fastest network interface carries \
                         (1.6 Tb/s Ethernet)",
                        v = Num(v)
                    ),
                );
            }
        }
        positive(c, file, "$.stages.internet.request_ms", net.request_ms, "ms");
        if let Some(ms) = net.request_ms.map(NonNeg::get)
            && ms > MAX_JOB_MS
        {
            c.push(
                file,
                "$.stages.internet.request_ms",
                format!(
                    "{} ms is longer than any GitHub Actions job runs ({MAX_JOB_MS:.0} ms, 5 days on a self-hosted \
                     runner); no request of a published run took that long",
                    Num(ms)
                ),
            );
        }
    }
    if let Some(http) = &i.stages.http_cache {
        for (t, table) in http.tables.iter().enumerate() {
            for (r, row) in table.rows.iter().enumerate() {
                let path = format!("$.stages.http_cache.tables[{t}].rows[{r}]");
                positive(c, file, &format!("{path}.put_per_s"), Some(row.put_per_s), "requests/s");
                positive(c, file, &format!("{path}.get_per_s"), Some(row.get_per_s), "requests/s");
            }
        }
    }
}

/// A published figure that cannot be zero: a speed, a time, a size. The
/// reports print figures with at most two decimals, so one that would
/// print as 0.00 was never published: the site would show it as zero.
fn positive(c: &mut Collector, file: &str, path: &str, v: Option<NonNeg>, unit: &str) {
    match v.map(NonNeg::get) {
        Some(0.0) => c.push(file, path, format!("0 {unit} is impossible for a published figure; it must be above 0")),
        Some(v) if v < 0.005 => c.push(
            file,
            path,
            format!(
                "{} {unit} would print as 0.00; a published figure, printed with two decimals, is at least 0.01",
                Num(v)
            ),
        ),
        _ => {}
    }
}

/// The median, smallest and largest sample of a figure that cannot be zero.
fn positive_aggregate(c: &mut Collector, file: &str, path: &str, a: &Aggregate, unit: &str) {
    for (name, v) in [("median", a.median), ("min", a.min), ("max", a.max)] {
        positive(c, file, &format!("{path}.{name}"), Some(v), unit);
    }
}
