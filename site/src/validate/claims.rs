//! Claims the file cannot prove (issue 13, class 2): a CoreMark validation
//! that says `passed` with CRCs that are not the published ones, an
//! affinity to a CPU the machine does not have, an unpinned CoreMark sample
//! on an OS where the collector pins, and a machine with no CPUs or memory.

use runner_bench_format::measured::{CoreMarkCrcs, MeasuredResult, Status, Validation};
use runner_bench_format::{Affinity, Os, Parameters};

use super::Collector;

/// The published CRCs of CoreMark's performance run (seeds 0x0 0x0 0x66, the
/// run the collector times and whose CRCs `crcs` records) for each
/// `parameters.cpu_workload` that has them: seedcrc, crclist, crcmatrix and
/// crcstate of the first iteration (../shared/reference/coremark.md,
/// "Validation vectors", the 2K and 6K performance rows). `crcs.final`
/// folds every iteration's CRC in, so it depends on the iteration count and
/// can only be checked by running as many iterations again; the validation
/// run's CRCs are not recorded.
const PERFORMANCE_CRCS: [(&str, [u16; 4]); 2] = [
    ("coremark-1.0-total-data-size-2000", [0xe9f5, 0xe714, 0x1fd7, 0x8e3a]),
    ("coremark-1.0-total-data-size-6000", [0x8a02, 0xd4b0, 0xbe52, 0x5e47]),
];

/// Every claim rule of a measured result.
pub(super) fn measured(c: &mut Collector, file: &str, m: &MeasuredResult) {
    machine(c, file, m);
    crcs(c, file, m, &m.parameters);
    affinity(c, file, m);
}

fn os_name(os: Os) -> &'static str {
    match os {
        Os::Linux => "linux",
        Os::Macos => "macos",
        Os::Windows => "windows",
    }
}

fn machine(c: &mut Collector, file: &str, m: &MeasuredResult) {
    if m.machine.logical_cpus == 0 {
        c.push(file, "$.machine.logical_cpus", "0 logical CPUs; the machine that ran the collector has at least one");
    }
    // The collector reads physical memory on Linux (/proc/meminfo) and
    // Windows (GlobalMemoryStatusEx); on macOS it does not yet, and writes 0.
    if m.machine.memory_bytes == 0 && m.machine.os != Os::Macos {
        c.push(
            file,
            "$.machine.memory_bytes",
            format!(
                "0 bytes of memory on {}; the collector reads the machine's memory on Linux and Windows, and a \
                 machine has some",
                os_name(m.machine.os)
            ),
        );
    }
}

fn crcs(c: &mut Collector, file: &str, m: &MeasuredResult, p: &Parameters) {
    let Some(cpu) = &m.stages.cpu else { return };
    // A workload without published CRCs cannot be checked here; only a
    // profile the collector defines may be used, and each of those has them.
    let Some((_, published)) = PERFORMANCE_CRCS.iter().find(|(w, _)| *w == p.cpu_workload) else { return };
    for (i, s) in cpu.samples.iter().enumerate() {
        let (Some(Validation::Passed), Some(crcs)) = (s.validation, s.crcs) else { continue };
        let CoreMarkCrcs { seed, list, matrix, state, .. } = crcs;
        let wrong: Vec<String> = ["seedcrc", "crclist", "crcmatrix", "crcstate"]
            .iter()
            .zip([seed, list, matrix, state].iter().zip(published))
            .filter(|(_, (have, want))| have != want)
            .map(|(name, (have, want))| format!("{name} {have:#06x} is not the published {want:#06x}"))
            .collect();
        if !wrong.is_empty() {
            c.push(
                file,
                format!("$.stages.cpu.samples[{i}].crcs"),
                format!(
                    "validation is \"passed\" but {} (CoreMark's performance run of {}, seeds 0x0 0x0 0x66)",
                    wrong.join(", "),
                    p.cpu_workload
                ),
            );
        }
    }
}

/// CPU ids are checked against `machine.logical_cpus` for the CPU and disk
/// samples, which run on the machine the file describes (a cache restore
/// runs on another instance). The check assumes dense ids: Linux counts the
/// online CPUs, so a CPU id at or above that count exists only where CPUs
/// below it are offline (docs/result-format.md, "Claims the file cannot prove").
fn affinity(c: &mut Collector, file: &str, m: &MeasuredResult) {
    let os = m.machine.os;
    let cpus = m.machine.logical_cpus;
    let pinned = |c: &mut Collector, path: String, a: Affinity| {
        let Affinity::Pinned { cpu, group } = a else { return };
        if cpus > 0 && cpu >= cpus {
            c.push(
                file,
                format!("{path}.affinity.cpu"),
                format!(
                    "CPU {cpu} is not one of the machine's {cpus} logical CPUs (0 to {}, machine.logical_cpus)",
                    cpus - 1
                ),
            );
        }
        if group != 0 && os != Os::Windows {
            c.push(
                file,
                format!("{path}.affinity.group"),
                format!(
                    "processor group {group} on {}; only Windows has processor groups, elsewhere it is 0",
                    os_name(os)
                ),
            );
        }
    };
    if let Some(cpu) = &m.stages.cpu {
        for (i, s) in cpu.samples.iter().enumerate() {
            let path = format!("$.stages.cpu.samples[{i}]");
            pinned(c, path.clone(), s.affinity);
            // A sample whose pinning failed records the affinity it had, so
            // only an ok sample must be pinned.
            if s.status == Status::Ok && s.affinity == Affinity::Unpinned && os.pins() {
                c.push(
                    file,
                    format!("{path}.affinity"),
                    format!(
                        "an ok CoreMark sample on {} ran unpinned; the collector pins it to one CPU on Linux and \
                         Windows",
                        os_name(os)
                    ),
                );
            }
        }
    }
    if let Some(disk) = &m.stages.disk {
        for (i, s) in disk.samples.iter().enumerate() {
            pinned(c, format!("$.stages.disk.samples[{i}]"), s.affinity);
        }
    }
}
