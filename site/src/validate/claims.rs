//! Claims the file cannot prove (issue 13, class 2): a CoreMark validation
//! that says `passed` with CRCs that are not the published ones (of the
//! performance or the validation run), an EEMBC commit that is not one, an
//! affinity to a CPU the machine does not have, an unpinned CoreMark sample
//! on an OS where the collector pins, and a machine with no CPUs or memory.

use runner_bench_format::measured::{CoreMarkCrcs, CoreMarkImplementation, MeasuredResult, Status, Validation};
use runner_bench_format::{Affinity, Os, Parameters};

use super::findings::Collector;

/// The published CRCs of CoreMark's performance run (seeds 0x0 0x0 0x66, the
/// run the collector times and whose CRCs `crcs` records) for each
/// `parameters.cpu_workload` that has them: seedcrc, crclist, crcmatrix and
/// crcstate of the first iteration (../shared/reference/coremark.md,
/// "Validation vectors", the 2K and 6K performance rows). `crcs.final`
/// folds every iteration's CRC in, so it depends on the iteration count and
/// can only be checked by running as many iterations again.
const PERFORMANCE_CRCS: [(&str, [u16; 4]); 2] = [
    ("coremark-1.0-total-data-size-2000", [0xe9f5, 0xe714, 0x1fd7, 0x8e3a]),
    ("coremark-1.0-total-data-size-6000", [0x8a02, 0xd4b0, 0xbe52, 0x5e47]),
];

/// The published CRCs of the validation run (seeds 0x3415 0x3415 0x66), as
/// above. The collector runs it for one iteration, so its `final` is its
/// crclist, and all five are checked.
const VALIDATION_CRCS: [(&str, [u16; 4]); 2] = [
    ("coremark-1.0-total-data-size-2000", [0x18f2, 0xe3c1, 0x0747, 0x8d84]),
    ("coremark-1.0-total-data-size-6000", [0x7b05, 0x3340, 0x1199, 0x39bf]),
];

/// Every claim rule of a measured result.
pub(super) fn measured(c: &mut Collector, file: &str, m: &MeasuredResult) {
    machine(c, file, m);
    build(c, file, m);
    crcs(c, file, m, &m.parameters);
    affinity(c, file, m);
}

fn machine(c: &mut Collector, file: &str, m: &MeasuredResult) {
    if m.machine.logical_cpus == 0 {
        c.push(file, "$.machine.logical_cpus", "0 logical CPUs; the machine that ran the collector has at least one");
    }
    // The collector reads physical memory on Linux (/proc/meminfo) and
    // Windows (GlobalMemoryStatusEx); on macOS collectors before 0.2.0 wrote
    // 0 (this one reads `sysctl hw.memsize`), so 0 passes there.
    if m.machine.memory_bytes == 0 && m.machine.os != Os::Macos {
        c.push(
            file,
            "$.machine.memory_bytes",
            format!(
                "0 bytes of memory on {}; the collector reads the machine's memory on Linux and Windows, and a \
                 machine has some",
                m.machine.os.name()
            ),
        );
    }
}

/// An EEMBC commit names the official sources that were compiled: a full
/// git commit id, and only beside `implementation: "eembc"`.
fn build(c: &mut Collector, file: &str, m: &MeasuredResult) {
    let coremark = &m.build.coremark;
    let Some(commit) = &coremark.eembc_commit else { return };
    let path = "$.build.coremark.eembc_commit";
    if coremark.implementation != CoreMarkImplementation::Eembc {
        c.push(
            file,
            path,
            "an EEMBC commit beside the project's own implementation; only a build of the official sources has one",
        );
    } else if commit.as_str().len() != 40 || !commit.as_str().bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        c.push(file, path, "not a git commit id (40 lowercase hexadecimal digits)");
    }
}

fn crcs(c: &mut Collector, file: &str, m: &MeasuredResult, p: &Parameters) {
    let Some(cpu) = &m.stages.cpu else { return };
    // A workload without published CRCs cannot be checked here; only a
    // profile the collector defines may be used, and each of those has them.
    let published = |table: &[(&str, [u16; 4])]| table.iter().find(|(w, _)| *w == p.cpu_workload).map(|(_, v)| *v);
    let (Some(performance), Some(validation)) = (published(&PERFORMANCE_CRCS), published(&VALIDATION_CRCS)) else {
        return;
    };
    for (i, s) in cpu.samples.iter().enumerate() {
        let Some(Validation::Passed) = s.validation else { continue };
        let runs = [
            ("crcs", s.crcs, performance, "performance", "0x0 0x0 0x66", false),
            ("validation_crcs", s.validation_crcs, validation, "validation", "0x3415 0x3415 0x66", true),
        ];
        for (field, crcs, want, run, seeds, one_iteration) in runs {
            let Some(crcs) = crcs else { continue };
            let CoreMarkCrcs { seed, list, matrix, state, final_ } = crcs;
            let mut wrong: Vec<String> = ["seedcrc", "crclist", "crcmatrix", "crcstate"]
                .iter()
                .zip([seed, list, matrix, state].iter().zip(&want))
                .filter(|(_, (have, want))| have != want)
                .map(|(name, (have, want))| format!("{name} {have:#06x} is not the published {want:#06x}"))
                .collect();
            if one_iteration && final_ != want[1] {
                wrong.push(format!(
                    "crcfinal {final_:#06x} is not the published crclist {:#06x} of its one iteration",
                    want[1]
                ));
            }
            if !wrong.is_empty() {
                c.push(
                    file,
                    format!("$.stages.cpu.samples[{i}].{field}"),
                    format!(
                        "validation is \"passed\" but {} (CoreMark's {run} run of {}, seeds {seeds})",
                        wrong.join(", "),
                        p.cpu_workload
                    ),
                );
            }
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
                    os.name()
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
                        os.name()
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
