//! What the machine is: OS, architecture, CPU model, logical CPUs, memory,
//! kernel, virtualization, and the identity of this OS instance.
//!
//! Linux reads /proc, /sys and /etc. Windows asks the registry (OS name and
//! build, CPU model, MachineGuid) and the system information calls (logical
//! CPUs in all processor groups, memory, boot time). macOS tells its instance
//! and memory (sysctl, ioreg) and what std can tell, and marks the rest
//! `unknown`; its full support is planned.

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
    #[cfg(target_os = "macos")]
    if let Some(bytes) = macos::memsize() {
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
/// Together they tell whether two jobs ran on one OS instance. What the OS
/// does not tell is `unknown`, which `Instance::same_as` never takes for
/// equal to anything.
///
/// - Linux: /proc/sys/kernel/random/boot_id; /etc/machine-id (or D-Bus's
///   copy).
/// - macOS: `kern.bootsessionuuid`, a UUID the kernel makes at every boot
///   (`boottime:<s>.<µs>` from `kern.boottime` where it is absent); the
///   IOPlatformUUID of `ioreg -rd1 -c IOPlatformExpertDevice`.
/// - Windows: `boottime:<s>.<7 digits>` (Unix seconds) from the boot time the
///   kernel keeps; `HKLM\SOFTWARE\Microsoft\Cryptography\MachineGuid`.
pub fn instance() -> Instance {
    let id =
        |id: Option<String>| name(id.filter(|s| !s.trim().is_empty()).unwrap_or_else(|| Instance::UNKNOWN.to_string()));
    Instance { boot_id: id(boot_id()), machine_id: id(machine_id()) }
}

#[cfg(not(any(target_os = "macos", windows)))]
fn boot_id() -> Option<String> {
    read("/proc/sys/kernel/random/boot_id")
}

#[cfg(not(any(target_os = "macos", windows)))]
fn machine_id() -> Option<String> {
    read("/etc/machine-id").or_else(|| read("/var/lib/dbus/machine-id"))
}

/// The boot session's UUID: made anew at every boot, as Linux's boot_id.
/// `kern.boottime` is the fallback: it is kept per boot too, but moves when
/// the clock is set.
#[cfg(target_os = "macos")]
fn boot_id() -> Option<String> {
    macos::sysctl_string("kern.bootsessionuuid").or_else(|| macos::boottime().map(|(s, us)| boottime_id(s, us)))
}

/// The hardware's (or virtual machine's) platform UUID.
#[cfg(target_os = "macos")]
fn machine_id() -> Option<String> {
    let out =
        std::process::Command::new("/usr/sbin/ioreg").args(["-rd1", "-c", "IOPlatformExpertDevice"]).output().ok()?;
    out.status.success().then(|| parse_ioreg_platform_uuid(&String::from_utf8_lossy(&out.stdout)))?
}

/// Windows has no boot id; the boot time stands in for it. It is the value
/// the kernel keeps (`SystemTimeOfDayInformation.BootTime`), not one derived
/// here as "now minus uptime" from two clocks read at different moments, so
/// it is the same on every read of one boot and needs no rounding (rounding
/// would only make two machines booted within one step look alike). The
/// kernel moves it only when the clock is set (a step, not a slew); a step
/// between the save and the restore would make one instance look like two.
#[cfg(windows)]
fn boot_id() -> Option<String> {
    windows::boot_time().map(filetime_boot_id)
}

/// Windows' fixed id of the installation.
#[cfg(windows)]
fn machine_id() -> Option<String> {
    windows::registry_string(r"SOFTWARE\Microsoft\Cryptography", "MachineGuid")
}

/// The `"IOPlatformUUID" = "…"` line of `ioreg -rd1 -c
/// IOPlatformExpertDevice`.
#[cfg(any(target_os = "macos", test))]
fn parse_ioreg_platform_uuid(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.trim().strip_prefix("\"IOPlatformUUID\"")?.trim_start().strip_prefix('=')?.trim();
        let uuid = value.strip_prefix('"')?.strip_suffix('"')?.trim();
        (!uuid.is_empty() && !uuid.contains('"')).then(|| uuid.to_string())
    })
}

/// A boot id from macOS's `kern.boottime`, a `timeval`.
#[cfg(any(target_os = "macos", test))]
fn boottime_id(sec: i64, usec: i64) -> String {
    format!("boottime:{sec}.{usec:06}")
}

/// A sysctl string value: the bytes up to the first NUL.
#[cfg(any(target_os = "macos", test))]
fn sysctl_text(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let text = std::str::from_utf8(&bytes[..end]).ok()?.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// 100 ns intervals from 1601-01-01 (FILETIME) to 1970-01-01.
#[cfg(any(windows, test))]
const FILETIME_UNIX_EPOCH: i64 = 116_444_736_000_000_000;

/// A boot id from Windows' boot time, a FILETIME (100 ns intervals since
/// 1601): `boottime:<Unix seconds>.<seven digits>`, at full precision.
#[cfg(any(windows, test))]
fn filetime_boot_id(filetime: i64) -> String {
    let unix = filetime - FILETIME_UNIX_EPOCH;
    format!("boottime:{}.{:07}", unix.div_euclid(10_000_000), unix.rem_euclid(10_000_000))
}

/// A REG_SZ value as RegGetValueW writes it: UTF-16LE, NUL-terminated.
#[cfg(any(windows, test))]
fn reg_sz_text(data: &[u8]) -> Option<String> {
    let units: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let end = units.iter().position(|&u| u == 0).unwrap_or(units.len());
    let text = String::from_utf16_lossy(&units[..end]);
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(target_os = "macos")]
mod macos {
    use std::{mem, ptr};

    /// A string sysctl, by name.
    pub(super) fn sysctl_string(name: &str) -> Option<String> {
        let name = std::ffi::CString::new(name).ok()?;
        let mut buf = [0u8; 256];
        let mut len = buf.len();
        // SAFETY: name is NUL-terminated; buf has room for len bytes, the
        // most the call writes; no new value is set.
        let rc = unsafe { libc::sysctlbyname(name.as_ptr(), buf.as_mut_ptr().cast(), &mut len, ptr::null_mut(), 0) };
        (rc == 0).then(|| super::sysctl_text(&buf[..len.min(buf.len())]))?
    }

    /// `hw.memsize`: physical memory, bytes.
    pub(super) fn memsize() -> Option<u64> {
        let mut bytes: u64 = 0;
        let mut len = mem::size_of::<u64>();
        // SAFETY: the name is NUL-terminated; bytes has room for len bytes;
        // no new value is set.
        let rc = unsafe {
            libc::sysctlbyname(c"hw.memsize".as_ptr(), (&raw mut bytes).cast(), &mut len, ptr::null_mut(), 0)
        };
        (rc == 0 && len == mem::size_of::<u64>() && bytes > 0).then_some(bytes)
    }

    /// `kern.boottime`: seconds and microseconds.
    pub(super) fn boottime() -> Option<(i64, i64)> {
        // SAFETY: timeval is plain data; zeroed is a valid value.
        let mut tv: libc::timeval = unsafe { mem::zeroed() };
        let mut len = mem::size_of::<libc::timeval>();
        // SAFETY: the name is NUL-terminated; tv has room for len bytes; no
        // new value is set.
        let rc = unsafe {
            libc::sysctlbyname(c"kern.boottime".as_ptr(), (&raw mut tv).cast(), &mut len, ptr::null_mut(), 0)
        };
        (rc == 0 && len == mem::size_of::<libc::timeval>() && tv.tv_sec > 0).then(|| (tv.tv_sec, i64::from(tv.tv_usec)))
    }
}

#[cfg(windows)]
mod windows {
    use std::{mem, ptr};

    use windows_sys::Wdk::System::SystemInformation::{NtQuerySystemInformation, SystemTimeOfDayInformation};
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
        super::reg_sz_text(&data[..len])
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

    /// SYSTEM_TIMEOFDAY_INFORMATION as the kernel fills it; winternl.h
    /// shows only its size (48 reserved bytes), its first field is BootTime.
    #[repr(C)]
    struct TimeOfDay {
        boot_time: i64,
        _rest: [u8; 40],
    }

    /// The boot time the kernel keeps, a FILETIME.
    pub(super) fn boot_time() -> Option<i64> {
        // SAFETY: TimeOfDay is plain data; zeroed is a valid value.
        let mut info: TimeOfDay = unsafe { mem::zeroed() };
        let len = mem::size_of::<TimeOfDay>() as u32;
        // SAFETY: info is valid and writable for len bytes, the most the
        // call writes; a null pointer asks for no returned length.
        let status = unsafe {
            NtQuerySystemInformation(SystemTimeOfDayInformation, (&raw mut info).cast(), len, ptr::null_mut())
        };
        (status >= 0 && info.boot_time > 0).then_some(info.boot_time)
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

    /// `ioreg -rd1 -c IOPlatformExpertDevice` on an Apple silicon Mac
    /// (serial numbers and long blobs shortened).
    const IOREG_ARM64: &str = r##"+-o J316sAP  <class IOPlatformExpertDevice, id 0x100000207, registered, matched, active, busy 0 (1279 ms), retain 40>
    {
      "IOPolledInterface" = "AppleARMWatchdogTimerHibernateHandler is not serializable"
      "#address-cells" = <02000000>
      "AAPL,phandle" = <01000000>
      "serial-number" = <4339...>
      "IOBusyInterest" = "IOCommand is not serializable"
      "target-type" = <"J316s">
      "platform-name" = <7436303030000000000000000000000000000000000000000000000000000000>
      "name" = <"device-tree">
      "manufacturer" = <"Apple Inc.">
      "compatible" = <"J316sAP","MacBookPro18,1","AppleARM">
      "IOPlatformSerialNumber" = "C02XQ0XXXXXX"
      "time-stamp" = <"Mon Jun 27 20:12:05 PDT 2022">
      "model" = <"MacBookPro18,1">
      "IONWInterrupts" = "IONWInterrupts"
      "device_type" = <"bootrom">
      "#size-cells" = <02000000>
      "IOPlatformUUID" = "7A2B1C3D-4E5F-4789-ABCD-EF0123456789"
    }

"##;

    /// The same on an Intel Mac: other properties, another order.
    const IOREG_X64: &str = r##"+-o MacBookPro15,1  <class IOPlatformExpertDevice, id 0x10000020c, registered, matched, active, busy 0 (156235 ms), retain 33>
    {
      "IOPlatformSystemSleepPolicy" = <534c505402000a00>
      "compatible" = <"MacBookPro15,1">
      "version" = <"1.0">
      "board-id" = <"Mac-937A206F2EE63C01">
      "IOInterruptSpecifiers" = (<0900000005000000>)
      "serial-number" = <00000000000000000000>
      "IOInterruptControllers" = ("io-apic-0")
      "IOPlatformUUID" = "564D8F2B-0C4E-4B0A-9F2C-1D3E5F7A9B0C"
      "IOPlatformSerialNumber" = "C02ABCDEFGHI"
      "manufacturer" = <"Apple Inc.">
      "product-name" = <"MacBookPro15,1">
    }
"##;

    #[test]
    fn parses_the_ioreg_platform_uuid() {
        assert_eq!(parse_ioreg_platform_uuid(IOREG_ARM64).as_deref(), Some("7A2B1C3D-4E5F-4789-ABCD-EF0123456789"));
        assert_eq!(parse_ioreg_platform_uuid(IOREG_X64).as_deref(), Some("564D8F2B-0C4E-4B0A-9F2C-1D3E5F7A9B0C"));
        assert_eq!(parse_ioreg_platform_uuid(&IOREG_X64.replace("\"IOPlatformUUID\"", "\"IOPlatformUUIDs\"")), None);
        assert_eq!(parse_ioreg_platform_uuid(r#"      "IOPlatformUUID" = """#), None, "empty");
        assert_eq!(parse_ioreg_platform_uuid(r#"      "IOPlatformUUID" = <"7A2B">"#), None, "not a string");
        assert_eq!(parse_ioreg_platform_uuid(""), None, "no ioreg output");
    }

    #[test]
    fn reads_sysctl_strings() {
        assert_eq!(
            sysctl_text(b"0F4B2C1A-9D3E-4F5A-8B6C-7D8E9F0A1B2C\0").as_deref(),
            Some("0F4B2C1A-9D3E-4F5A-8B6C-7D8E9F0A1B2C")
        );
        assert_eq!(sysctl_text(b"abc\0\0garbage"), Some("abc".to_string()));
        assert_eq!(sysctl_text(b"\0"), None);
        assert_eq!(sysctl_text(b""), None);
    }

    #[test]
    fn makes_boot_ids_from_boot_times() {
        // kern.boottime: { sec = 1718000000, usec = 42 }.
        assert_eq!(boottime_id(1_718_000_000, 42), "boottime:1718000000.000042");
        // 2024-01-17T21:20:00.1234567Z as a FILETIME.
        assert_eq!(filetime_boot_id(133_500_000_001_234_567), "boottime:1705526400.1234567");
        assert_eq!(filetime_boot_id(FILETIME_UNIX_EPOCH), "boottime:0.0000000");
        // One 100 ns tick apart is another boot id: no rounding.
        assert_ne!(filetime_boot_id(133_500_000_001_234_567), filetime_boot_id(133_500_000_001_234_568));
        let unix = jiff::Timestamp::from_second(1_705_526_400).unwrap();
        assert_eq!(unix.to_string(), "2024-01-17T21:20:00Z");
    }

    #[test]
    fn decodes_a_registry_string() {
        // MachineGuid as RegGetValueW writes it: UTF-16LE with its NUL, in a
        // larger zeroed buffer.
        let guid = "3f9a1c2e-7b4d-4e6f-9a8b-0c1d2e3f4a5b";
        let mut data: Vec<u8> = guid.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect();
        assert_eq!(reg_sz_text(&data).as_deref(), Some(guid));
        data.resize(1024, 0);
        assert_eq!(reg_sz_text(&data).as_deref(), Some(guid));
        assert_eq!(reg_sz_text(&[0, 0]), None);
        assert_eq!(reg_sz_text(&[]), None);
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
