//! Pinning the measuring thread to one logical CPU, and checking which
//! affinity is actually in force.
//!
//! Linux uses sched_setaffinity on the calling thread and reads the mask
//! back; processor groups do not exist there, so the group is always 0.
//! macOS has no hard affinity: its samples run unpinned and say so. Windows
//! (thread affinity and processor group APIs) is planned; until then it runs
//! unpinned with a notice, never silently.

use runner_bench_format::Affinity;

use crate::error::UsageError;

/// Why pinning could not be done.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("cannot read the CPUs this process may use: {0}")]
    Query(std::io::Error),
    #[error("cannot pin the thread to CPU {cpu}: {source}")]
    Set { cpu: u32, source: std::io::Error },
    #[error("pinning to CPU {cpu} did not take: the thread's affinity is now {observed}")]
    NotInForce { cpu: u32, observed: String },
    #[error("this OS has no hard CPU affinity in this collector; the sample runs unpinned")]
    #[cfg_attr(target_os = "linux", allow(dead_code, reason = "only other systems construct it"))]
    Unsupported,
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::mem;

    use super::PinError;

    fn get_mask() -> io::Result<libc::cpu_set_t> {
        // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for the
        // calling thread (pid 0) and we pass its true size.
        unsafe {
            let mut set: libc::cpu_set_t = mem::zeroed();
            if libc::sched_getaffinity(0, mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(set)
        }
    }

    fn set_mask(set: &libc::cpu_set_t) -> io::Result<()> {
        // SAFETY: as above; the mask is a valid cpu_set_t.
        if unsafe { libc::sched_setaffinity(0, mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn cpus_of(set: &libc::cpu_set_t) -> Vec<u32> {
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: CPU_ISSET reads a bit of a valid set within its size.
            .filter(|&i| unsafe { libc::CPU_ISSET(i, set) })
            .map(|i| i as u32)
            .collect()
    }

    pub fn allowed_cpus() -> Result<Vec<u32>, PinError> {
        get_mask().map(|m| cpus_of(&m)).map_err(PinError::Query)
    }

    pub fn thread_cpus() -> Vec<u32> {
        get_mask().map(|m| cpus_of(&m)).unwrap_or_default()
    }

    /// Restores the thread's previous mask when dropped.
    pub struct PinGuard {
        previous: libc::cpu_set_t,
    }

    impl Drop for PinGuard {
        fn drop(&mut self) {
            let _ = set_mask(&self.previous);
        }
    }

    pub fn pin(cpu: u32) -> Result<PinGuard, PinError> {
        let previous = get_mask().map_err(PinError::Query)?;
        // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET writes one bit
        // of it, and cpu was checked against CPU_SETSIZE by the caller.
        let mut set: libc::cpu_set_t = unsafe { mem::zeroed() };
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
        set_mask(&set).map_err(|source| PinError::Set { cpu, source })?;
        Ok(PinGuard { previous })
    }

    pub fn current_cpu() -> Option<u32> {
        // SAFETY: sched_getcpu has no arguments and no preconditions.
        let cpu = unsafe { libc::sched_getcpu() };
        (cpu >= 0).then_some(cpu as u32)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::PinError;

    pub fn allowed_cpus() -> Result<Vec<u32>, PinError> {
        Err(PinError::Unsupported)
    }

    pub fn thread_cpus() -> Vec<u32> {
        Vec::new()
    }

    pub struct PinGuard;

    pub fn pin(_cpu: u32) -> Result<PinGuard, PinError> {
        Err(PinError::Unsupported)
    }

    pub fn current_cpu() -> Option<u32> {
        None
    }
}

pub use imp::{PinGuard, allowed_cpus, current_cpu};

/// The CPU to pin to: the one asked for, if the process may use it, else the
/// lowest-numbered allowed CPU (the published reports pin to CPU 0).
/// `None` where this OS cannot pin, so the stage runs unpinned.
pub fn choose_cpu(requested: Option<u32>) -> anyhow::Result<Option<u32>> {
    let allowed = match allowed_cpus() {
        Ok(allowed) => allowed,
        Err(PinError::Unsupported) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match requested {
        Some(cpu) if allowed.contains(&cpu) => Ok(Some(cpu)),
        Some(cpu) => Err(UsageError::CpuNotAllowed { cpu, allowed: list(&allowed) }.into()),
        None => Ok(allowed.first().copied()),
    }
}

/// Pins the calling thread to `cpu` and checks, by reading the mask back,
/// that exactly that CPU is in force.
pub fn pin_current_thread(cpu: u32) -> Result<PinGuard, PinError> {
    let guard = imp::pin(cpu)?;
    match observed() {
        Affinity::Pinned { cpu: seen, .. } if seen == cpu => Ok(guard),
        _ => Err(PinError::NotInForce { cpu, observed: list(&imp::thread_cpus()) }),
    }
}

/// The affinity of the calling thread as the OS reports it now.
pub fn observed() -> Affinity {
    match imp::thread_cpus().as_slice() {
        [cpu] => Affinity::Pinned { cpu: *cpu, group: 0 },
        _ => Affinity::Unpinned,
    }
}

/// "0-3,6" style list of CPUs, for messages.
pub fn list(cpus: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        i += 1;
    }
    if parts.is_empty() { "none".to_string() } else { parts.join(",") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_ranges() {
        assert_eq!(list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(list(&[]), "none");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn pinning_is_observed_and_undone() {
        let before = imp::thread_cpus();
        let cpu = *before.last().unwrap();
        {
            let _guard = pin_current_thread(cpu).unwrap();
            assert_eq!(observed(), Affinity::Pinned { cpu, group: 0 });
            // Busy for a moment: the scheduler must keep us on that CPU.
            let mut x = 0u64;
            for i in 0..2_000_000u64 {
                x = x.wrapping_add(std::hint::black_box(i));
            }
            std::hint::black_box(x);
            assert_eq!(current_cpu(), Some(cpu));
        }
        assert_eq!(imp::thread_cpus(), before);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn refuses_a_cpu_outside_the_mask() {
        let allowed = list(&allowed_cpus().unwrap());
        let err = choose_cpu(Some(100_000)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("--cpu 100000: this process may only run on CPUs {allowed}; pick one of those")
        );
    }
}
