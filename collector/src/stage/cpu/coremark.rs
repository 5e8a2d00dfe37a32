//! The CoreMark workload's identity and reference values, and a safe
//! wrapper around the library build.rs compiles from the same C files as
//! the workload programs (vendor/coremark/runner_coremark.h): the stages
//! run the programs (`super::process`); the library names the
//! implementation, and its unit tests check the published vectors.

use std::ffi::{CStr, c_char};
#[cfg(test)]
use std::ffi::{c_int, c_void};

#[cfg(test)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RcmCrcs {
    seedcrc: u16,
    crclist: u16,
    crcmatrix: u16,
    crcstate: u16,
    crcfinal: u16,
}

unsafe extern "C" {
    fn rcm_implementation() -> *const c_char;
}

#[cfg(test)]
unsafe extern "C" {
    fn rcm_ctx_size(total_data_bytes: u32) -> usize;
    fn rcm_init(ctx: *mut c_void, total_data_bytes: u32, seed1: i16, seed2: i16, seed3: i16) -> c_int;
    fn rcm_run(ctx: *mut c_void, iterations: u32);
    fn rcm_result(ctx: *const c_void) -> RcmCrcs;
}

/// How the workload was built, as build.rs recorded it.
pub mod build {
    /// Compiler family and version, e.g. "GNU 12.2.0".
    pub const COMPILER: &str = env!("RUNNER_BENCH_CC");
    /// The flags that reached the compiler (build.rs, `recorded_flags`).
    pub const FLAGS: &str = env!("RUNNER_BENCH_CFLAGS");
    /// What separates the flags in `FLAGS` (a flag may hold a space).
    pub const FLAG_SEPARATOR: char = '\u{1f}';
    /// The eembc/coremark commit that was compiled; empty for the project's
    /// implementation or when the checkout did not say.
    pub const EEMBC_COMMIT: &str = env!("RUNNER_BENCH_EEMBC_COMMIT");
    /// The C standard.
    pub const C_STANDARD: &str = env!("RUNNER_BENCH_CSTD");
    /// The workload defines, `;`-separated.
    pub const DEFINES: &str = env!("RUNNER_BENCH_CDEFINES");
    /// `project` or `eembc`.
    pub const IMPLEMENTATION: &str = env!("RUNNER_BENCH_COREMARK_IMPL");
    /// SHA-256 of the sources that were compiled.
    pub const SOURCES_SHA256: &str = env!("RUNNER_BENCH_COREMARK_SHA256");
    /// SHA-256 of the workload executable (`super::super::process`).
    pub const WORKLOAD_SHA256: &str = env!("RUNNER_BENCH_WORKLOAD_SHA256");
    /// The command build.rs made it with, program first, arguments
    /// separated by `FLAG_SEPARATOR`; the output path follows `-o`.
    #[cfg_attr(
        any(not(test), windows),
        allow(dead_code, reason = "the tests build the executable again with it, outside Wine")
    )]
    pub const WORKLOAD_COMMAND: &str = env!("RUNNER_BENCH_WORKLOAD_COMMAND");
    /// SHA-256 of the all-core workload executable (`crate::stage::cpu_allcore`).
    pub const ALLCORE_SHA256: &str = env!("RUNNER_BENCH_ALLCORE_SHA256");
    /// The command build.rs made it with, as `WORKLOAD_COMMAND`.
    #[cfg_attr(
        any(not(test), windows),
        allow(dead_code, reason = "the tests build the executable again with it, outside Wine")
    )]
    pub const ALLCORE_COMMAND: &str = env!("RUNNER_BENCH_ALLCORE_COMMAND");
    /// The collector's source revision.
    pub const REVISION: &str = env!("RUNNER_BENCH_REVISION");
}

/// The data size of the published protocol: TOTAL_DATA_SIZE=2000.
#[cfg(test)]
pub const TOTAL_DATA_BYTES: u32 = 2000;

/// CoreMark's CRCs after some iterations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Crcs {
    pub seed: u16,
    pub list: u16,
    pub matrix: u16,
    pub state: u16,
    pub final_: u16,
}

/// The three seeds of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seeds(pub i16, pub i16, pub i16);

/// Seeds of CoreMark's performance run.
pub const PERFORMANCE: Seeds = Seeds(0, 0, 0x66);
/// Seeds of CoreMark's validation run.
pub const VALIDATION: Seeds = Seeds(0x3415, 0x3415, 0x66);

/// The known-good CRCs (seed, list, matrix, state) of a 2000-byte run.
pub fn expected(seeds: Seeds) -> Option<[u16; 4]> {
    match seeds {
        PERFORMANCE => Some([0xe9f5, 0xe714, 0x1fd7, 0x8e3a]),
        VALIDATION => Some([0x18f2, 0xe3c1, 0x0747, 0x8d84]),
        _ => None,
    }
}

/// One CoreMark instance: its own memory block, list, matrix and input.
#[cfg(test)]
pub struct CoreMark {
    // u64 elements give the 8-byte alignment the C API asks for.
    memory: Vec<u64>,
}

#[cfg(test)]
impl CoreMark {
    /// A fresh instance. The seeds pass through `black_box`, so the compiler
    /// cannot specialise the workload on them.
    pub fn new(total_data_bytes: u32, seeds: Seeds) -> Option<Self> {
        // SAFETY: rcm_ctx_size is a pure function of its argument.
        let size = unsafe { rcm_ctx_size(total_data_bytes) };
        let mut memory = vec![0u64; size.div_ceil(8)];
        let Seeds(a, b, c) = std::hint::black_box(seeds);
        // SAFETY: memory is 8-byte aligned and at least rcm_ctx_size bytes,
        // as rcm_init requires; it lives as long as the instance.
        let status = unsafe { rcm_init(memory.as_mut_ptr().cast(), total_data_bytes, a, b, c) };
        (status == 0).then_some(CoreMark { memory })
    }

    /// Runs more iterations, continuing the running CRC.
    pub fn run(&mut self, iterations: u32) {
        // SAFETY: the context was initialised by rcm_init and is exclusively
        // borrowed; no other thread touches it.
        unsafe { rcm_run(self.memory.as_mut_ptr().cast(), iterations) }
    }

    /// The CRCs so far.
    pub fn crcs(&self) -> Crcs {
        // SAFETY: the context was initialised by rcm_init.
        let c = unsafe { rcm_result(self.memory.as_ptr().cast()) };
        Crcs { seed: c.seedcrc, list: c.crclist, matrix: c.crcmatrix, state: c.crcstate, final_: c.crcfinal }
    }
}

/// The implementation's own description of itself.
pub fn implementation() -> String {
    // SAFETY: rcm_implementation returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(rcm_implementation()) }.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(total: u32, seeds: Seeds, iterations: u32) -> Crcs {
        let mut cm = CoreMark::new(total, seeds).unwrap();
        cm.run(iterations);
        cm.crcs()
    }

    /// Every validation vector of /shared/reference/coremark.md, through
    /// the binding the collector measures with.
    #[test]
    fn reproduces_the_published_vectors() {
        let per_algorithm = [
            (2000, PERFORMANCE, [0xe9f5, 0xe714, 0x1fd7, 0x8e3a]),
            (2000, VALIDATION, [0x18f2, 0xe3c1, 0x0747, 0x8d84]),
            (6000, PERFORMANCE, [0x8a02, 0xd4b0, 0xbe52, 0x5e47]),
            (6000, VALIDATION, [0x7b05, 0x3340, 0x1199, 0x39bf]),
            (1200, Seeds(8, 8, 8), [0x4eaf, 0x6a79, 0x5608, 0xe5a4]),
        ];
        for (total, seeds, want) in per_algorithm {
            let c = run(total, seeds, 1);
            assert_eq!([c.seed, c.list, c.matrix, c.state], want, "{total} {seeds:?}");
        }
        let finals = [
            (2000, PERFORMANCE, 1, 0xe714),
            (2000, PERFORMANCE, 10, 0xfcaf),
            (2000, PERFORMANCE, 1000, 0xd340),
            (2000, VALIDATION, 1, 0xe3c1),
            (2000, VALIDATION, 10, 0xc64e),
            (2000, VALIDATION, 1000, 0x26c2),
            (1200, Seeds(8, 8, 8), 1000, 0x95ea),
        ];
        for (total, seeds, iterations, want) in finals {
            assert_eq!(run(total, seeds, iterations).final_, want, "{total} {seeds:?} x{iterations}");
        }
    }

    #[test]
    fn split_runs_continue_the_crc() {
        let mut cm = CoreMark::new(TOTAL_DATA_BYTES, PERFORMANCE).unwrap();
        cm.run(600);
        cm.run(400);
        assert_eq!(cm.crcs().final_, 0xd340);
    }

    #[test]
    fn build_identity_is_recorded() {
        let families = ["GNU ", "Clang ", "Apple Clang "];
        assert!(families.iter().any(|f| build::COMPILER.starts_with(f)), "{}", build::COMPILER);
        assert_eq!(build::C_STANDARD, "C99");
        let flags: Vec<&str> = build::FLAGS.split(build::FLAG_SEPARATOR).collect();
        // EEMBC's flags and nothing cc would add on its own (-fPIC,
        // -ffunction-sections); on Linux -fPIE, GCC's default on GitHub's
        // images. Built without CFLAGS, as CI builds it.
        let expected: &[&str] =
            if cfg!(target_os = "linux") { &["-O2", "-fPIE", "-DNDEBUG"] } else { &["-O2", "-DNDEBUG"] };
        assert_eq!(flags, expected);
        assert_eq!(build::EEMBC_COMMIT, "", "the project's implementation has no EEMBC commit");
        assert_eq!(build::DEFINES, "MULTITHREAD=1;TOTAL_DATA_SIZE=2000;ITERATIONS=0");
        assert_eq!(build::SOURCES_SHA256.len(), 64);
        assert_eq!(implementation(), "runner-bench CoreMark 1.0 workload");
    }
}
