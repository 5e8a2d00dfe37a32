//! What the machine is: OS, architecture, CPU model, logical CPUs, memory,
//! kernel, virtualization, and the identity of this OS instance.
//!
//! Linux reads /proc, /sys and /etc. Windows asks the registry (OS name and
//! build, CPU model, MachineGuid) and the system information calls (logical
//! CPUs in all processor groups, memory); it has no boot id. macOS reports
//! what std can tell and marks the rest `unknown`; its full support is
//! planned.

use runner_bench_format::measured::{Instance, Machine};
use runner_bench_format::{Name, Os, Slug};

/// The machine this process runs on.
pub fn detect() -> Machine {
    Machine {
        os: os(),
        os_release: name(os_release()),
        arch: Slug::new(arch()).unwrap_or_else(|_| Slug::new("unknown").expect("a slug")),
        cpu_model: name(cpu_model()),
        logical_cpus: logical_cpus(),
        memory_bytes: memory_bytes().unwrap_or(0),
        kernel: name(kernel()),
        virtualization: virtualization().map(name),
        instance: instance(),
    }
}

fn name(s: String) -> Name {
    Name::lossy(s.trim())
}

fn os() -> Os {
    if cfg!(target_os = "macos") {
        Os::Macos
    } else if cfg!(windows) {
        Os::Windows
    } else {
        Os::Linux
    }
}

/// The architecture names the reports use.
fn arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "x86",
        "arm" => "arm",
        other => other,
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The value of `key` in a `key: value` or `key=value` listing.
fn field<'a>(text: &'a str, key: &str, sep: char) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(sep)?;
        (k.trim() == key).then(|| v.trim().trim_matches('"'))
    })
}

fn os_release() -> String {
    #[cfg(windows)]
    if let Some(product) = windows::registry_string(windows::CURRENT_VERSION, "ProductName") {
        // Windows 11 still says "Windows 10" here; the build (kernel) tells.
        return match windows::registry_string(windows::CURRENT_VERSION, "DisplayVersion") {
            Some(release) => format!("{product} {release}"),
            None => product,
        };
    }
    read("/etc/os-release")
        .and_then(|t| field(&t, "PRETTY_NAME", '=').map(str::to_string))
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

fn cpu_model() -> String {
    #[cfg(windows)]
    if let Some(model) = windows::registry_string(windows::CPU_0, "ProcessorNameString") {
        return model;
    }
    let Some(info) = read("/proc/cpuinfo") else { return "unknown".into() };
    // x86 names the model; many arm64 kernels do not, and the reports then
    // print the architecture, as the published arm64 rows do.
    field(&info, "model name", ':')
        .or_else(|| field(&info, "Model", ':'))
        .map(str::to_string)
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn logical_cpus() -> u32 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        if n > 0 {
            return n as u32;
        }
    }
    #[cfg(windows)]
    if let Some(n) = windows::logical_cpus() {
        return n;
    }
    std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1)
}

fn memory_bytes() -> Option<u64> {
    #[cfg(windows)]
    if let Some(bytes) = windows::memory_bytes() {
        return Some(bytes);
    }
    let info = read("/proc/meminfo")?;
    let kib: u64 = field(&info, "MemTotal", ':')?.trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

fn kernel() -> String {
    #[cfg(windows)]
    if let Some(kernel) = windows::kernel() {
        return kernel;
    }
    read("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into())
}

fn virtualization() -> Option<String> {
    // systemd-detect-virt knows the most hypervisors and containers.
    if let Ok(out) = std::process::Command::new("systemd-detect-virt").output() {
        let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !v.is_empty() {
            return Some(v);
        }
    }
    let info = read("/proc/cpuinfo")?;
    let flags = field(&info, "flags", ':')?;
    flags.split_whitespace().any(|f| f == "hypervisor").then(|| {
        read("/sys/class/dmi/id/sys_vendor").map(|v| v.trim().to_string()).unwrap_or_else(|| "hypervisor".into())
    })
}

/// Boot id changes with every boot; machine id is fixed per installation.
/// Together they tell whether two jobs ran on one OS instance.
pub fn instance() -> Instance {
    Instance {
        boot_id: name(read("/proc/sys/kernel/random/boot_id").unwrap_or_else(|| "unknown".into())),
        machine_id: name(
            machine_guid()
                .or_else(|| read("/etc/machine-id"))
                .or_else(|| read("/var/lib/dbus/machine-id"))
                .unwrap_or_else(|| "unknown".into()),
        ),
    }
}

/// Windows' fixed id of the installation.
#[cfg(windows)]
fn machine_guid() -> Option<String> {
    windows::registry_string(r"SOFTWARE\Microsoft\Cryptography", "MachineGuid")
}

#[cfg(not(windows))]
fn machine_guid() -> Option<String> {
    None
}

#[cfg(windows)]
mod windows {
    use std::{mem, ptr};

    use windows_sys::Win32::System::Registry::{HKEY_LOCAL_MACHINE, RRF_RT_REG_DWORD, RRF_RT_REG_SZ, RegGetValueW};
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    use windows_sys::Win32::System::Threading::{ALL_PROCESSOR_GROUPS, GetActiveProcessorCount};

    pub(super) const CURRENT_VERSION: &str = r"SOFTWARE\Microsoft\Windows NT\CurrentVersion";
    pub(super) const CPU_0: &str = r"HARDWARE\DESCRIPTION\System\CentralProcessor\0";

    fn wide(s: &str) -> Vec<u16> {
        s.encode_utf16().chain([0]).collect()
    }

    /// Reads a value under HKEY_LOCAL_MACHINE into `data`; the bytes written.
    fn registry_value(key: &str, value: &str, kind: u32, data: &mut [u8]) -> Option<usize> {
        let (key, value) = (wide(key), wide(value));
        let mut len = u32::try_from(data.len()).ok()?;
        // SAFETY: key and value are NUL-terminated UTF-16 strings that
        // outlive the call; data has room for len bytes, the most the call
        // writes; a null type pointer asks for no type.
        let status = unsafe {
            RegGetValueW(
                HKEY_LOCAL_MACHINE,
                key.as_ptr(),
                value.as_ptr(),
                kind,
                ptr::null_mut(),
                data.as_mut_ptr().cast(),
                &mut len,
            )
        };
        (status == 0).then_some((len as usize).min(data.len()))
    }

    /// A string (REG_SZ) value under HKEY_LOCAL_MACHINE.
    pub(super) fn registry_string(key: &str, value: &str) -> Option<String> {
        let mut data = vec![0u8; 1024];
        let len = registry_value(key, value, RRF_RT_REG_SZ, &mut data)?;
        let units: Vec<u16> = data[..len].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        let text = String::from_utf16_lossy(&units);
        let text = text.trim_end_matches('\0').trim();
        (!text.is_empty()).then(|| text.to_string())
    }

    fn registry_dword(key: &str, value: &str) -> Option<u32> {
        let mut data = [0u8; 4];
        let len = registry_value(key, value, RRF_RT_REG_DWORD, &mut data)?;
        (len == 4).then(|| u32::from_le_bytes(data))
    }

    /// "10.0.20348.2849": major, minor, build and update revision.
    pub(super) fn kernel() -> Option<String> {
        let major = registry_dword(CURRENT_VERSION, "CurrentMajorVersionNumber")?;
        let minor = registry_dword(CURRENT_VERSION, "CurrentMinorVersionNumber")?;
        let build = registry_string(CURRENT_VERSION, "CurrentBuildNumber")?;
        Some(match registry_dword(CURRENT_VERSION, "UBR") {
            Some(ubr) => format!("{major}.{minor}.{build}.{ubr}"),
            None => format!("{major}.{minor}.{build}"),
        })
    }

    /// Active logical CPUs in all processor groups.
    pub(super) fn logical_cpus() -> Option<u32> {
        // SAFETY: GetActiveProcessorCount takes a group number (here: all)
        // and has no other preconditions; it returns 0 on failure.
        let n = unsafe { GetActiveProcessorCount(ALL_PROCESSOR_GROUPS) };
        (n > 0).then_some(n)
    }

    pub(super) fn memory_bytes() -> Option<u64> {
        // SAFETY: MEMORYSTATUSEX is plain data; zeroed is a valid value.
        let mut status: MEMORYSTATUSEX = unsafe { mem::zeroed() };
        status.dwLength = mem::size_of::<MEMORYSTATUSEX>() as u32;
        // SAFETY: status is valid and writable, its length set as required.
        (unsafe { GlobalMemoryStatusEx(&mut status) } != 0).then_some(status.ullTotalPhys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_listings() {
        assert_eq!(
            field("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12\"\n", "PRETTY_NAME", '='),
            Some("Debian GNU/Linux 12")
        );
        assert_eq!(
            field("model name\t: AMD EPYC 7R13 Processor\n", "model name", ':'),
            Some("AMD EPYC 7R13 Processor")
        );
        assert_eq!(field("a: b", "c", ':'), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn detects_this_machine() {
        let m = detect();
        assert!(m.logical_cpus >= 1);
        assert!(m.memory_bytes > 0);
        assert_ne!(m.kernel.as_str(), "unknown");
        assert_eq!(m.instance.boot_id.as_str().len(), 36, "a boot id is a UUID");
    }
}
