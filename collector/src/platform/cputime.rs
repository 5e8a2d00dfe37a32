//! The calling thread's CPU clock: how long the thread itself has run, which
//! does not advance while it waits for the CPU (a noisy neighbour, the
//! hypervisor's steal). The CPU stage records it beside wall time, so that a
//! score per CPU-second can be compared with a reference program measured
//! the same way (`perf stat -e task-clock`).

use std::time::Duration;

/// CPU time of the calling thread so far, or `None` where the OS would not
/// say.
#[cfg(unix)]
pub fn thread_cpu() -> Option<Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// CPU time of the calling thread so far (kernel plus user time, which
/// Windows counts in clock ticks of about 15.6 ms), or `None` where the OS
/// would not say.
#[cfg(windows)]
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

#[cfg(not(any(unix, windows)))]
pub fn thread_cpu() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

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
