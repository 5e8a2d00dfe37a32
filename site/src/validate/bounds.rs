//! The physical bounds that a figure from a file must stay below, measured
//! or imported: what the fastest CPU core, storage interface, network
//! interface and longest job allow.

use runner_bench_format::measured::CacheKind;

/// Bytes in a MiB (the format's MiB is 2^20 bytes, its KiB 2^10).
pub(super) const MIB: u64 = 1 << 20;

/// Most CoreMark iterations one thread can run in a second. The published
/// runner reports score 21,000–38,000 and the reference machine of
/// ../shared/reference/coremark.md (a 2-vCPU AMD EPYC) 32,760, about 11
/// iterations per MHz of clock. 1,000,000 would need 160 iterations per MHz
/// at 6.2 GHz, the highest clock of any shipping CPU (Intel Core
/// i9-14900KS): over ten times the per-clock rate of the reference
/// machine, which no core comes near.
pub(super) const MAX_ITERATIONS_PER_S: f64 = 1_000_000.0;

/// Most bytes per second one storage device can carry: a PCIe 7.0 x16 link,
/// 128 GT/s × 16 lanes ÷ 8 bits = 256 GB/s in each direction (PCI-SIG,
/// PCIe 7.0 specification, 2025), the fastest storage interface defined.
/// No device uses it yet; NVMe drives ship on PCIe 5.0 x4 (about 16 GB/s).
pub(super) const MAX_STORAGE_BYTES_PER_S: f64 = 256e9;

/// Most megabits per second one network interface can carry: 1.6 Tb/s
/// Ethernet (IEEE 802.3dj, 200 Gb/s × 8 lanes), the fastest Ethernet rate
/// defined; the fastest NICs shipping carry 800 Gb/s (NVIDIA ConnectX-8).
pub(super) const MAX_NETWORK_MBPS: f64 = 1_600_000.0;

/// The longest any GitHub Actions job runs, ms: 5 days on a self-hosted
/// runner ("Usage limits for self-hosted runners", GitHub documentation;
/// 6 hours on GitHub's own). An imported request time names no run length
/// to hold it to, as a measured one does, but no request of a run took
/// longer than its job.
pub(super) const MAX_JOB_MS: f64 = 5.0 * 24.0 * 3600.0 * 1000.0;

/// The storage bound in MiB/s, as the rules print it.
pub(super) fn max_storage_mib_per_s() -> f64 {
    MAX_STORAGE_BYTES_PER_S / MIB as f64
}

/// The network bound in MiB/s (a cache service is reached over the network).
pub(super) fn max_network_mib_per_s() -> f64 {
    MAX_NETWORK_MBPS * 1e6 / 8.0 / MIB as f64
}

/// The most MiB/s a cache transfer of `kind` can reach, and why. A service
/// is reached over the network; a volume may be a local device or a network
/// volume, so the larger bound holds (also for an unknown backend).
pub(super) fn cache_bound(kind: Option<CacheKind>) -> (f64, &'static str) {
    match kind {
        Some(CacheKind::ArchiveService) => {
            (max_network_mib_per_s(), "the fastest network interface carries (1.6 Tb/s Ethernet)")
        }
        _ => (max_storage_mib_per_s(), "the fastest storage interface carries (PCIe 7.0 x16, 256 GB/s)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bounds_in_mib_per_s() {
        assert_eq!(max_storage_mib_per_s().round(), 244_141.0);
        assert_eq!(max_network_mib_per_s().round(), 190_735.0);
    }
}
