//! Pinning the runner's worker process, so that the steps it starts after
//! (the cache action's node, and the tar and zstd node starts) inherit a
//! one-CPU affinity, as the published protocol's "action processes inherit
//! one-CPU affinity" says.
//!
//! GitHub's runner starts every step of a job from one `Runner.Worker`
//! process (actions/runner `ProcessInvoker`); a child inherits its parent's
//! affinity on Linux (per thread: every thread of the .NET worker is set)
//! and on Windows (the process mask). macOS has no hard affinity. Container
//! steps descend from the container runtime, not the worker, and are not
//! reached. The worker's name can be changed with RUNNER_BENCH_WORKER_PROCESS
//! (self-hosted runners with another tree, and the collector's own tests).

/// The process name to look for among this process's ancestors.
pub fn worker_name(env: &dyn Fn(&str) -> Option<String>) -> String {
    env("RUNNER_BENCH_WORKER_PROCESS").filter(|n| !n.is_empty()).unwrap_or_else(|| "Runner.Worker".to_string())
}

/// What pinning the worker did.
#[derive(Debug, PartialEq, Eq)]
pub enum Pinned {
    /// The worker (pid) and each of its threads now run on `cpu` only.
    Worker { pid: u32, threads: usize },
    /// No ancestor has that name.
    NoWorker,
    /// This OS has no hard affinity in this collector.
    #[cfg_attr(any(target_os = "linux", windows), allow(dead_code, reason = "only other systems construct it"))]
    Unsupported,
}

#[cfg(target_os = "linux")]
mod imp {
    use std::mem;

    use anyhow::{Context, bail};

    use super::Pinned;

    /// `(name, parent pid)` of a process, from /proc/PID/status.
    pub(super) fn status(pid: u32) -> Option<(String, u32)> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        parse_status(&text)
    }

    pub(super) fn parse_status(text: &str) -> Option<(String, u32)> {
        let field = |name: &str| {
            text.lines().find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(':')).map(str::trim))
        };
        Some((field("Name")?.to_string(), field("PPid")?.parse().ok()?))
    }

    fn set(tid: u32, cpu: u32) -> std::io::Result<()> {
        // SAFETY: a zeroed cpu_set_t is empty; CPU_SET sets one bit below
        // CPU_SETSIZE (checked by the caller); sched_setaffinity reads it.
        unsafe {
            let mut set: libc::cpu_set_t = mem::zeroed();
            libc::CPU_SET(cpu as usize, &mut set);
            if libc::sched_setaffinity(tid as libc::pid_t, mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    fn threads(pid: u32) -> anyhow::Result<Vec<u32>> {
        let dir = format!("/proc/{pid}/task");
        let mut tids = Vec::new();
        for e in std::fs::read_dir(&dir).with_context(|| format!("cannot list {dir}"))? {
            if let Some(tid) = e?.file_name().to_str().and_then(|s| s.parse().ok()) {
                tids.push(tid);
            }
        }
        Ok(tids)
    }

    fn allowed(tid: u32) -> Option<String> {
        let text = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
        text.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).map(|v| v.trim().to_string())
    }

    pub(super) fn pin_worker(name: &str, cpu: u32) -> anyhow::Result<Pinned> {
        if cpu as usize >= libc::CPU_SETSIZE as usize {
            bail!("CPU {cpu} is beyond what this collector can pin");
        }
        // Walk up from this process; the kernel's Name is the first 15
        // bytes of the executable's name.
        let short: String = name.chars().take(15).collect();
        let mut pid = std::process::id();
        let worker = loop {
            let Some((n, parent)) = status(pid) else { return Ok(Pinned::NoWorker) };
            if n == short && pid != std::process::id() {
                break pid;
            }
            if parent <= 1 {
                return Ok(Pinned::NoWorker);
            }
            pid = parent;
        };
        // Threads may start while we go: repeat until a pass finds every
        // thread on the CPU.
        let want = cpu.to_string();
        for _ in 0..10 {
            let tids = threads(worker)?;
            let mut changed = false;
            for &tid in &tids {
                if allowed(tid).as_deref() != Some(want.as_str()) {
                    match set(tid, cpu) {
                        Ok(()) => changed = true,
                        // A thread that ended meanwhile.
                        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
                        Err(e) => {
                            return Err(e).with_context(|| format!("cannot pin thread {tid} of {name} ({worker})"));
                        }
                    }
                }
            }
            if !changed {
                return Ok(Pinned::Worker { pid: worker, threads: tids.len() });
            }
        }
        bail!("the threads of {name} ({worker}) kept changing; it could not be pinned")
    }
}

#[cfg(windows)]
mod imp {
    use anyhow::{Context, bail};
    use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::Threading::{
        GetProcessAffinityMask, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SET_INFORMATION,
        SetProcessAffinityMask,
    };

    use super::Pinned;

    /// Every process's `(pid, parent pid, executable name)`.
    fn processes() -> anyhow::Result<Vec<(u32, u32, String)>> {
        // SAFETY: the snapshot handle is checked and closed; the entry is
        // plain data with its size set as the API requires.
        unsafe {
            let snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
            if snap == INVALID_HANDLE_VALUE {
                return Err(std::io::Error::last_os_error()).context("cannot list processes");
            }
            let mut out = Vec::new();
            let mut e: PROCESSENTRY32W = std::mem::zeroed();
            e.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
            let mut ok = Process32FirstW(snap, &mut e);
            while ok != 0 {
                let len = e.szExeFile.iter().position(|&c| c == 0).unwrap_or(e.szExeFile.len());
                out.push((e.th32ProcessID, e.th32ParentProcessID, String::from_utf16_lossy(&e.szExeFile[..len])));
                ok = Process32NextW(snap, &mut e);
            }
            CloseHandle(snap);
            Ok(out)
        }
    }

    pub(super) fn pin_worker(name: &str, cpu: u32) -> anyhow::Result<Pinned> {
        if cpu >= usize::BITS {
            bail!("CPU {cpu} is beyond one processor group");
        }
        let all = processes()?;
        let want = format!("{name}.exe").to_lowercase();
        let me = std::process::id();
        let mut pid = me;
        let worker = loop {
            let Some(&(_, parent, _)) = all.iter().find(|(p, _, _)| *p == pid) else { return Ok(Pinned::NoWorker) };
            match all.iter().find(|(p, _, _)| *p == parent) {
                Some((p, _, exe)) if exe.to_lowercase() == want => break *p,
                Some((p, _, _)) if *p != pid => pid = *p,
                _ => return Ok(Pinned::NoWorker),
            }
        };
        // SAFETY: the handle is checked and closed; the masks are plain
        // integers.
        unsafe {
            let h = OpenProcess(PROCESS_SET_INFORMATION | PROCESS_QUERY_LIMITED_INFORMATION, 0, worker);
            if h.is_null() {
                return Err(std::io::Error::last_os_error()).with_context(|| format!("cannot open {name} ({worker})"));
            }
            let set = SetProcessAffinityMask(h, 1usize << cpu);
            let (mut process_mask, mut system_mask) = (0usize, 0usize);
            let got = GetProcessAffinityMask(h, &mut process_mask, &mut system_mask);
            CloseHandle(h);
            if set == 0 || got == 0 || process_mask != 1usize << cpu {
                bail!("cannot pin {name} ({worker}) to CPU {cpu}: {}", std::io::Error::last_os_error());
            }
        }
        Ok(Pinned::Worker { pid: worker, threads: 0 })
    }
}

#[cfg(not(any(target_os = "linux", windows)))]
mod imp {
    use super::Pinned;

    pub(super) fn pin_worker(_name: &str, _cpu: u32) -> anyhow::Result<Pinned> {
        Ok(Pinned::Unsupported)
    }
}

/// Pins the ancestor named `name` (the runner's worker) to `cpu`.
pub fn pin_worker(name: &str, cpu: u32) -> anyhow::Result<Pinned> {
    imp::pin_worker(name, cpu)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn reads_name_and_parent() {
        let text = "Name:\tRunner.Worker\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t812\nPid:\t812\nPPid:\t790\n";
        assert_eq!(imp::parse_status(text), Some(("Runner.Worker".to_string(), 790)));
        assert_eq!(imp::parse_status("Name:\tx\n"), None);
    }

    #[test]
    fn no_such_ancestor_is_no_worker() {
        assert_eq!(pin_worker("no-such-process", 0).unwrap(), Pinned::NoWorker);
    }
}
