//! Pinning the measuring thread to one logical CPU, and checking which
//! affinity is actually in force.
//!
//! Linux uses sched_setaffinity on the calling thread and reads the mask
//! back; processor groups do not exist there, so the group is always 0.
//!
//! Windows uses the processor group APIs: SetThreadGroupAffinity pins the
//! calling thread to one CPU of processor group 0, as the published protocol
//! does, and GetThreadGroupAffinity reads back the group and mask in force;
//! GetCurrentProcessorNumberEx tells where the thread runs. The CPUs the
//! process may use in group 0 come from GetProcessAffinityMask while the
//! process lives in group 0 only (every machine with at most 64 logical
//! CPUs); a process in another group, or in several, may use all of group 0's
//! active processors (GetActiveProcessorCount). Windows threads do not
//! inherit the affinity of the thread that starts them, so a stage whose
//! work runs on threads of its own ([`pin_process`]) also restricts the
//! process's affinity mask while it runs.
//!
//! The all-core stage pins nothing: its program's threads run where the OS
//! puts them. On a Windows machine of several processor groups (more than
//! 64 logical CPUs) a thread starts in one group only, so the program moves
//! each of its threads into the group of the logical CPU it stands for
//! (vendor/coremark/allcore_main.c); [`offered_cpus`] counts every group's.
//!
//! macOS has no hard affinity: its samples run unpinned and say so.

use runner_bench_format::Affinity;

use crate::error::UsageError;

/// Why pinning could not be done.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("cannot read the CPUs this process may use: {0}")]
    #[cfg_attr(not(any(target_os = "linux", windows)), allow(dead_code, reason = "only Linux and Windows pin"))]
    Query(std::io::Error),
    #[error("cannot pin the thread to CPU {cpu}: {source}")]
    #[cfg_attr(not(any(target_os = "linux", windows)), allow(dead_code, reason = "only Linux and Windows pin"))]
    Set { cpu: u32, source: std::io::Error },
    #[error("pinning to CPU {cpu} did not take: the thread's affinity is now {observed}")]
    NotInForce { cpu: u32, observed: String },
    #[error("this OS has no hard CPU affinity in this collector; the sample runs unpinned")]
    #[cfg_attr(any(target_os = "linux", windows), allow(dead_code, reason = "only other systems construct it"))]
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

    /// The calling thread's processor group (always 0) and CPUs.
    pub fn thread_affinity() -> (u32, Vec<u32>) {
        (0, get_mask().map(|m| cpus_of(&m)).unwrap_or_default())
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

    /// Threads started after this inherit the calling thread's mask.
    pub fn pin_process(cpu: u32) -> Result<PinGuard, PinError> {
        pin(cpu)
    }

    /// The processor group (always 0) and CPU the thread runs on.
    #[cfg(test)]
    pub fn current_cpu() -> Option<(u32, u32)> {
        // SAFETY: sched_getcpu has no arguments and no preconditions.
        let cpu = unsafe { libc::sched_getcpu() };
        (cpu >= 0).then_some((0, cpu as u32))
    }

    /// The CPUs of the process's mask, within its cgroup's CPU quota.
    pub fn offered_cpus() -> u32 {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
    }
}

#[cfg(windows)]
mod imp {
    use std::io;
    use std::ptr;

    use windows_sys::Win32::Foundation::HANDLE;
    use windows_sys::Win32::System::SystemInformation::GROUP_AFFINITY;
    use windows_sys::Win32::System::Threading::{
        GetActiveProcessorCount, GetActiveProcessorGroupCount, GetCurrentProcess, GetCurrentThread,
        GetProcessAffinityMask, GetProcessGroupAffinity, GetThreadGroupAffinity, SetProcessAffinityMask,
        SetThreadGroupAffinity,
    };

    use super::PinError;

    /// The processor group the collector pins in, as the published protocol
    /// does.
    const GROUP: u16 = 0;

    fn cpus_of(mask: usize) -> Vec<u32> {
        (0..usize::BITS).filter(|i| (mask >> i) & 1 == 1).collect()
    }

    fn get_thread() -> io::Result<GROUP_AFFINITY> {
        let mut affinity = GROUP_AFFINITY::default();
        // SAFETY: GetCurrentThread returns the calling thread's pseudo-handle,
        // which needs no closing; affinity is a valid, writable GROUP_AFFINITY.
        if unsafe { GetThreadGroupAffinity(GetCurrentThread(), &mut affinity) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(affinity)
    }

    fn set_thread(affinity: &GROUP_AFFINITY) -> io::Result<()> {
        // SAFETY: as above; affinity is a valid GROUP_AFFINITY, and a null
        // pointer asks for no copy of the previous one.
        if unsafe { SetThreadGroupAffinity(GetCurrentThread(), affinity, ptr::null_mut()) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// This process's affinity mask: within its group when it lives in one
    /// group, 0 when its threads are in several.
    fn get_process() -> io::Result<usize> {
        // SAFETY: GetCurrentProcess returns a pseudo-handle that needs no
        // closing.
        unsafe { process_mask(GetCurrentProcess()) }
    }

    /// A process's affinity mask, as [`get_process`] says.
    ///
    /// # Safety
    /// `process` is an open handle with query rights.
    unsafe fn process_mask(process: HANDLE) -> io::Result<usize> {
        let (mut mask, mut system) = (0usize, 0usize);
        // SAFETY: the caller's handle; both out-pointers are valid and
        // writable.
        if unsafe { GetProcessAffinityMask(process, &mut mask, &mut system) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(mask)
    }

    fn set_process(mask: usize) -> io::Result<()> {
        // SAFETY: the process pseudo-handle, as above; the mask is plain data.
        if unsafe { SetProcessAffinityMask(GetCurrentProcess(), mask) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The processor groups a process's threads are in, where Windows says.
    ///
    /// # Safety
    /// `process` is an open handle with query rights.
    unsafe fn process_groups(process: HANDLE) -> Option<Vec<u16>> {
        let mut groups = [0u16; 64];
        let mut count = groups.len() as u16;
        // SAFETY: the caller's handle; groups has room for count entries, as
        // the call requires.
        if unsafe { GetProcessGroupAffinity(process, &mut count, groups.as_mut_ptr()) } == 0 {
            return None;
        }
        Some(groups[..usize::from(count).min(groups.len())].to_vec())
    }

    /// The CPUs of group 0 another process may run on (`process`, a handle
    /// with query rights, such as the one std holds for a child): none where
    /// it lives in another group or in several, or its mask cannot be read.
    pub fn group_0_cpus_of(process: std::os::windows::io::BorrowedHandle<'_>) -> Option<Vec<u32>> {
        use std::os::windows::io::AsRawHandle;
        let process: HANDLE = process.as_raw_handle();
        // SAFETY: a borrowed handle is open for the borrow's lifetime; std's
        // child handles carry every access right, query included.
        let (mask, groups) = unsafe { (process_mask(process).ok()?, process_groups(process)) };
        (mask != 0 && groups.is_none_or(|groups| groups == [GROUP])).then(|| cpus_of(mask))
    }

    /// The CPUs of group 0 this process may use.
    pub fn allowed_cpus() -> Result<Vec<u32>, PinError> {
        let mask = get_process().map_err(PinError::Query)?;
        // SAFETY: the current process's pseudo-handle.
        let only_group_0 = unsafe { process_groups(GetCurrentProcess()) }.is_none_or(|groups| groups == [GROUP]);
        if only_group_0 && mask != 0 {
            return Ok(cpus_of(mask));
        }
        // SAFETY: GetActiveProcessorCount takes a group number and has no
        // other preconditions; it returns 0 for a group that does not exist.
        let active = unsafe { GetActiveProcessorCount(GROUP) };
        if active == 0 {
            return Err(PinError::Query(io::Error::last_os_error()));
        }
        Ok((0..active.min(usize::BITS)).collect())
    }

    /// The calling thread's processor group and CPUs within it.
    pub fn thread_affinity() -> (u32, Vec<u32>) {
        get_thread().map(|a| (u32::from(a.Group), cpus_of(a.Mask))).unwrap_or_default()
    }

    /// Restores the thread's previous group affinity when dropped, and the
    /// process's mask where [`pin_process`] changed it.
    pub struct PinGuard {
        previous: GROUP_AFFINITY,
        process: Option<usize>,
    }

    impl Drop for PinGuard {
        fn drop(&mut self) {
            // The process first: setting its mask resets its threads' masks.
            if let Some(mask) = self.process {
                let _ = set_process(mask);
            }
            let _ = set_thread(&self.previous);
        }
    }

    fn one_cpu(cpu: u32) -> Result<usize, PinError> {
        1usize.checked_shl(cpu).ok_or(PinError::Set { cpu, source: io::Error::from(io::ErrorKind::InvalidInput) })
    }

    pub fn pin(cpu: u32) -> Result<PinGuard, PinError> {
        let mask = one_cpu(cpu)?;
        let previous = get_thread().map_err(PinError::Query)?;
        let wanted = GROUP_AFFINITY { Mask: mask, Group: GROUP, Reserved: [0; 3] };
        set_thread(&wanted).map_err(|source| PinError::Set { cpu, source })?;
        Ok(PinGuard { previous, process: None })
    }

    /// Windows threads start with the process's mask, not their creator's:
    /// the process's mask is narrowed to the CPU too. That needs a process
    /// in group 0 only.
    pub fn pin_process(cpu: u32) -> Result<PinGuard, PinError> {
        let mask = one_cpu(cpu)?;
        let previous = get_thread().map_err(PinError::Query)?;
        let process = get_process().map_err(PinError::Query)?;
        set_process(mask).map_err(|source| PinError::Set { cpu, source })?;
        // From here the guard undoes the process's mask, should the thread's
        // fail.
        let guard = PinGuard { previous, process: Some(process) };
        let wanted = GROUP_AFFINITY { Mask: mask, Group: GROUP, Reserved: [0; 3] };
        set_thread(&wanted).map_err(|source| PinError::Set { cpu, source })?;
        Ok(guard)
    }

    /// The processor group and CPU within it the thread runs on.
    #[cfg(test)]
    pub fn current_cpu() -> Option<(u32, u32)> {
        use windows_sys::Win32::System::Kernel::PROCESSOR_NUMBER;
        use windows_sys::Win32::System::Threading::GetCurrentProcessorNumberEx;
        let mut number = PROCESSOR_NUMBER::default();
        // SAFETY: number is a valid, writable PROCESSOR_NUMBER; the call
        // cannot fail.
        unsafe { GetCurrentProcessorNumberEx(&mut number) };
        Some((u32::from(number.Group), u32::from(number.Number)))
    }

    /// Each processor group's active logical CPUs, in group order.
    fn group_sizes() -> Vec<u32> {
        // SAFETY: GetActiveProcessorGroupCount has no preconditions.
        let groups = unsafe { GetActiveProcessorGroupCount() };
        (0..groups)
            .map(|g| {
                // SAFETY: GetActiveProcessorCount takes a group number and
                // has no other preconditions.
                unsafe { GetActiveProcessorCount(g) }
            })
            .collect()
    }

    /// Active logical CPUs in every processor group.
    pub fn offered_cpus() -> u32 {
        group_sizes().iter().sum::<u32>().max(1)
    }
}

#[cfg(not(any(target_os = "linux", windows)))]
mod imp {
    use super::PinError;

    pub fn allowed_cpus() -> Result<Vec<u32>, PinError> {
        Err(PinError::Unsupported)
    }

    pub fn thread_affinity() -> (u32, Vec<u32>) {
        (0, Vec::new())
    }

    pub struct PinGuard;

    pub fn pin(_cpu: u32) -> Result<PinGuard, PinError> {
        Err(PinError::Unsupported)
    }

    pub fn pin_process(_cpu: u32) -> Result<PinGuard, PinError> {
        Err(PinError::Unsupported)
    }

    pub fn offered_cpus() -> u32 {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
    }
}

#[cfg(windows)]
pub use imp::group_0_cpus_of;
pub use imp::{PinGuard, allowed_cpus, offered_cpus};

/// The CPU to pin to: the one asked for, if the process may use it, else the
/// lowest-numbered allowed CPU (the published reports pin to CPU 0).
/// `None` where this OS cannot pin, so the stage runs unpinned; there a
/// CPU asked for is an error, not silently ignored.
pub fn choose_cpu(requested: Option<u32>) -> anyhow::Result<Option<u32>> {
    let allowed = match allowed_cpus() {
        Ok(allowed) => allowed,
        Err(PinError::Unsupported) => {
            return match requested {
                Some(cpu) => Err(UsageError::CpuUnsupported { cpu }.into()),
                None => Ok(None),
            };
        }
        Err(e) => return Err(e.into()),
    };
    match requested {
        Some(cpu) if allowed.contains(&cpu) => Ok(Some(cpu)),
        Some(cpu) => Err(UsageError::CpuNotAllowed { cpu, allowed: list(&allowed) }.into()),
        None => Ok(allowed.first().copied()),
    }
}

/// Pins the calling thread to `cpu` (of processor group 0 on Windows) and
/// checks, by reading the affinity back, that exactly that CPU is in force.
pub fn pin_current_thread(cpu: u32) -> Result<PinGuard, PinError> {
    checked(cpu, imp::pin(cpu)?)
}

/// As [`pin_current_thread`], and the threads the process starts from now
/// on run on `cpu` too: on Linux they inherit the calling thread's mask; on
/// Windows, where they would not, the process's mask is narrowed to `cpu`
/// (which confines its other threads as well) until the guard drops.
pub fn pin_process(cpu: u32) -> Result<PinGuard, PinError> {
    checked(cpu, imp::pin_process(cpu)?)
}

fn checked(cpu: u32, guard: PinGuard) -> Result<PinGuard, PinError> {
    match observed() {
        Affinity::Pinned { cpu: seen, group: 0 } if seen == cpu => Ok(guard),
        _ => {
            let (group, cpus) = imp::thread_affinity();
            let observed = if group == 0 { list(&cpus) } else { format!("{} in processor group {group}", list(&cpus)) };
            Err(PinError::NotInForce { cpu, observed })
        }
    }
}

/// The affinity of the calling thread as the OS reports it now.
pub fn observed() -> Affinity {
    match imp::thread_affinity() {
        (group, cpus) if cpus.len() == 1 => Affinity::Pinned { cpu: cpus[0], group },
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

    #[cfg(any(target_os = "linux", windows))]
    #[test]
    fn pinning_is_observed_and_undone() {
        let before = imp::thread_affinity();
        let cpu = *allowed_cpus().unwrap().last().unwrap();
        {
            let _guard = pin_current_thread(cpu).unwrap();
            assert_eq!(observed(), Affinity::Pinned { cpu, group: 0 });
            // Busy for a moment: the scheduler must keep us on that CPU.
            let mut x = 0u64;
            for i in 0..2_000_000u64 {
                x = x.wrapping_add(std::hint::black_box(i));
            }
            std::hint::black_box(x);
            assert_eq!(imp::current_cpu(), Some((0, cpu)));
        }
        assert_eq!(imp::thread_affinity(), before);
    }

    // On Windows this narrows the whole process's mask, under the other
    // tests' feet: there it runs alone (`-- --ignored`).
    #[cfg(any(target_os = "linux", windows))]
    #[cfg_attr(windows, ignore = "narrows the whole process's affinity; run it alone with --ignored")]
    #[test]
    fn threads_started_under_a_process_pin_are_pinned() {
        let before = imp::thread_affinity();
        let allowed = allowed_cpus().unwrap();
        let cpu = allowed[0];
        {
            let _guard = pin_process(cpu).unwrap();
            assert_eq!(observed(), Affinity::Pinned { cpu, group: 0 });
            let child = std::thread::spawn(observed).join().unwrap();
            assert_eq!(child, Affinity::Pinned { cpu, group: 0 });
        }
        assert_eq!(imp::thread_affinity(), before);
        assert_eq!(allowed_cpus().unwrap(), allowed);
    }

    #[cfg(any(target_os = "linux", windows))]
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
