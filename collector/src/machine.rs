//! What the machine is: OS, architecture, CPU model, logical CPUs, memory,
//! kernel, virtualization, and the identity of this OS instance.
//!
//! Linux reads /proc, /sys and /etc. Other systems report what std can tell
//! and mark the rest `unknown`; their full support is planned.

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
    read("/etc/os-release")
        .and_then(|t| field(&t, "PRETTY_NAME", '=').map(str::to_string))
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

fn cpu_model() -> String {
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
    std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1)
}

fn memory_bytes() -> Option<u64> {
    let info = read("/proc/meminfo")?;
    let kib: u64 = field(&info, "MemTotal", ':')?.trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

fn kernel() -> String {
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
            read("/etc/machine-id").or_else(|| read("/var/lib/dbus/machine-id")).unwrap_or_else(|| "unknown".into()),
        ),
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
