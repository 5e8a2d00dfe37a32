//! With `SITE_TIMINGS` set, a build prints each stage's time, resident
//! memory and CPU time so far (the benchmark in docs/benchmarks.md).

use std::time::Instant;

/// With `SITE_TIMINGS` set, prints how long a build took so far, for the
/// benchmark in docs/benchmarks.md.
pub fn log_time(start: Instant, what: &str) {
    if std::env::var_os("SITE_TIMINGS").is_some() {
        let rss = match (memory_kib("VmRSS"), memory_kib("VmHWM")) {
            (Some(now), Some(peak)) => format!(" (resident {} MiB, peak so far {} MiB)", now / 1024, peak / 1024),
            _ => String::new(),
        };
        let cpu = cpu_ms().map(|ms| format!(", CPU {ms} ms so far")).unwrap_or_default();
        eprintln!("{:>6} ms  {what}{rss}{cpu}", start.elapsed().as_millis());
    }
}

/// The CPU time (user and system) of this process so far, in ms, where
/// Linux reports it (/proc/self/stat, in clock ticks: USER_HZ, 100 a
/// second on every Linux architecture this project builds for).
fn cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may
    // hold spaces: utime and stime are the 12th and 13th of them.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let (user, system): (u64, u64) = (fields.next()?.parse().ok()?, fields.next()?.parse().ok()?);
    Some((user + system) * 10)
}

/// A memory figure of this process in KiB, e.g. `VmRSS` (resident now) or
/// `VmHWM` (peak resident), where Linux reports it in /proc/self/status.
pub fn memory_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.strip_prefix(field).is_some_and(|rest| rest.starts_with(':')))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
