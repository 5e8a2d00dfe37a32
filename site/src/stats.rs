//! The statistics of the published reports, computed with statrs (the
//! median with the format crate's `median`, shared with the collector).
//!
//! For the accepted samples x₁ … xₙ of one figure (n ≥ 1):
//!
//! - median: the middle value of the sorted samples, or the mean of the two
//!   middle values when n is even;
//! - range: min(xᵢ) – max(xᵢ);
//! - population standard deviation σ = √(Σ(xᵢ − x̄)² ÷ n), with x̄ the mean;
//! - variation (the reports' "Variation"): the population coefficient of
//!   variation, σ ÷ x̄ × 100, in percent;
//! - throughput, MiB/s = payload bytes ÷ 2²⁰ ÷ median seconds;
//! - internet speed, decimal Mbps = bytes × 8 ÷ 10⁶ ÷ seconds (the format
//!   crate's `TransferSample::mbps`).
//!
//! docs/methodology.md states the same formulas for readers of the website.

use statrs::statistics::Statistics;

/// Median, range and variation of one figure's accepted samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Middle value.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Population coefficient of variation, percent.
    pub variation_pct: f64,
    /// How many samples it summarises.
    pub samples: usize,
}

/// Summarises `samples`; `None` when there are none, since a figure without
/// samples has no median (the reports print an em dash).
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() {
        return None;
    }
    Some(Summary {
        median: median(samples)?,
        min: samples.min(),
        max: samples.max(),
        variation_pct: variation_pct(samples)?,
        samples: samples.len(),
    })
}

/// The median of `samples`, `None` when empty: the format crate's, the one
/// the collector's step summary uses too.
pub use runner_bench_format::median;

/// Population coefficient of variation in percent: σ ÷ mean × 100. A mean
/// of zero has no meaningful variation, so it gives 0 rather than NaN.
pub fn variation_pct(samples: &[f64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let mean = samples.mean();
    if mean == 0.0 {
        return Some(0.0);
    }
    Some(samples.population_std_dev() / mean * 100.0)
}

/// MiB per second for a payload moved in `seconds`.
pub fn mib_per_s(payload_bytes: u64, seconds: f64) -> f64 {
    payload_bytes as f64 / (1024.0 * 1024.0) / seconds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn population_cv_of_known_values() {
        // Mean 5, population σ 2 (the textbook example): CV = 40 %.
        let cv = variation_pct(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert!(close(cv, 40.0), "{cv}");
        assert_eq!(variation_pct(&[7.0]), Some(0.0));
        assert_eq!(variation_pct(&[0.0, 0.0]), Some(0.0));
    }

    #[test]
    fn summary_has_range_and_count() {
        let s = summarize(&[7.12, 7.76, 22.53]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.samples), (7.76, 7.12, 22.53, 3));
        assert!(summarize(&[]).is_none());
    }

    #[test]
    fn seed_cache_variation_from_its_published_range() {
        // Seed 000, ubicloud-linux-arm64, GitHub Actions cache save: 7.76;
        // 7.12–22.53 with 57.08 % variation. Three samples are fully known
        // from median, min and max.
        let cv = variation_pct(&[7.12, 7.76, 22.53]).unwrap();
        assert_eq!(format!("{cv:.2}"), "57.08");
        // Its restore: 22.10; 18.53–66.84, 61.36 %.
        let cv = variation_pct(&[18.53, 22.10, 66.84]).unwrap();
        assert_eq!(format!("{cv:.2}"), "61.36");
    }

    #[test]
    fn throughput_in_mib_per_s() {
        let mib = 1024 * 1024;
        // The seeds compute MiB/s from the unrounded median: 512 MiB in the
        // 7.76 s printed is 65.979…, and the published 65.97 comes from a
        // median between 7.7600 and 7.7611 s.
        assert_eq!(format!("{:.3}", mib_per_s(512 * mib, 7.76)), "65.979");
        assert_eq!(format!("{:.2}", mib_per_s(512 * mib, 7.761)), "65.97");
        // Seed 001: 3.19 s → 160.30 MiB/s (160.50 at exactly 3.19).
        assert_eq!(format!("{:.2}", mib_per_s(512 * mib, 3.194)), "160.30");
        assert!(close(mib_per_s(mib, 0.5), 2.0));
    }
}
