//! CPU time: of a child process once it has exited, which the CPU stage
//! records beside the wall time its program reports, so that a score per
//! CPU-second can be compared with a reference program measured the same
//! way (`wait4`, `perf stat -e task-clock`); and, for the tests, of the
//! calling thread. Neither advances while the thread or process waits for
//! the CPU (a noisy neighbour, the hypervisor's steal).

use std::process::{Child, ExitStatus};
use std::time::Duration;

/// Reaps `child` if it has exited, without waiting: its exit status and
/// the CPU time (user plus system) it used, where the OS says. The child
/// must not be waited for again (std's `Child` does not know it was).
#[cfg(unix)]
pub fn try_reap(child: &mut Child) -> std::io::Result<Option<(ExitStatus, Option<Duration>)>> {
    use std::os::unix::process::ExitStatusExt;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: rusage is plain data, zeroed is a valid value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: status and usage are valid, writable; WNOHANG returns at
        // once, and pid is this process's own child.
        let rc = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if rc == 0 {
            return Ok(None);
        }
        if rc == pid {
            let of = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
            return Ok(Some((ExitStatus::from_raw(status), Some(of(usage.ru_utime) + of(usage.ru_stime)))));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Reaps `child` if it has exited, without waiting: its exit status and
/// the CPU time (kernel plus user) it used, which Windows counts in clock
/// ticks of about 15.6 ms.
#[cfg(windows)]
pub fn try_reap(child: &mut Child) -> std::io::Result<Option<(ExitStatus, Option<Duration>)>> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::GetProcessTimes;
    let Some(status) = child.try_wait()? else { return Ok(None) };
    let zero = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: the child's handle stays open while `child` lives; std's
    // child handles carry every access right, query included.
    let ok = unsafe { GetProcessTimes(child.as_raw_handle(), &mut created, &mut exited, &mut kernel, &mut user) };
    let ticks = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    // Wine answers for an exited process with zero times: no reading,
    // rather than a process that ran for no time at all.
    let used = ticks(kernel) + ticks(user);
    let cpu = (ok != 0 && used > 0).then(|| Duration::from_nanos(used.saturating_mul(100)));
    Ok(Some((status, cpu)))
}

/// Reaps `child` if it has exited; this OS gives no CPU time here.
#[cfg(not(any(unix, windows)))]
pub fn try_reap(child: &mut Child) -> std::io::Result<Option<(ExitStatus, Option<Duration>)>> {
    Ok(child.try_wait()?.map(|status| (status, None)))
}

/// CPU time of the calling thread so far, or `None` where the OS would not
/// say.
#[cfg(all(test, unix))]
pub fn thread_cpu() -> Option<Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// CPU time of the calling thread so far (kernel plus user time, which
/// Windows counts in clock ticks of about 15.6 ms), or `None` where the OS
/// would not say.
#[cfg(all(test, windows))]
pub fn thread_cpu() -> Option<Duration> {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::{GetCurrentThread, GetThreadTimes};
    let zero = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: the pseudo-handle of the current thread and four valid,
    // writable FILETIMEs.
    let ok = unsafe { GetThreadTimes(GetCurrentThread(), &mut created, &mut exited, &mut kernel, &mut user) };
    let hundreds_of_ns = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    (ok != 0).then(|| Duration::from_nanos((hundreds_of_ns(kernel) + hundreds_of_ns(user)).saturating_mul(100)))
}

#[cfg(all(test, not(any(unix, windows))))]
pub fn thread_cpu() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A child busy for a while is charged about that much CPU time; one
    /// that sleeps, almost none. `sh` busy-loops with its own builtins.
    #[cfg(unix)]
    #[test]
    fn a_reaped_child_reports_the_cpu_time_it_used() {
        let cpu_of = |script: &str| {
            let mut child = std::process::Command::new("sh").args(["-c", script]).spawn().unwrap();
            loop {
                if let Some((status, cpu)) = try_reap(&mut child).unwrap() {
                    assert!(status.success());
                    return cpu.expect("wait4 reports CPU time");
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        let busy = cpu_of("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done");
        let asleep = cpu_of("sleep 0.3");
        assert!(busy > Duration::from_millis(50), "busy: {busy:?}");
        assert!(asleep < Duration::from_millis(50), "asleep: {asleep:?}");
    }

    #[test]
    fn the_clock_follows_work_and_not_sleep() {
        let before = thread_cpu().expect("a thread CPU clock on the test platforms");
        std::thread::sleep(Duration::from_millis(200));
        let slept = thread_cpu().unwrap() - before;
        // Busy for 300 ms of wall time.
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(300) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let busy = thread_cpu().unwrap() - before - slept;
        assert!(slept < Duration::from_millis(50), "asleep for 200 ms, the thread ran {slept:?}");
        // It ran for at most the wall time it was busy; a loaded machine
        // may have run something else on its CPU for part of it.
        assert!(busy <= Duration::from_millis(320) && busy > Duration::ZERO, "busy 300 ms, ran {busy:?}");
    }
}
