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

use runner_bench_format::rng::SplitMix64;
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

/// Resamples of one bootstrap interval of more than `EXACT_MAX_SAMPLES`
/// samples: enough that the interval's ends do not move with the seed in
/// practice, and few enough that a build of 10,000 results stays quick.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// The fewest samples a bootstrap interval is computed from: with one or
/// two, every resample's median lies between the two values, and the
/// interval says nothing the range does not.
pub const BOOTSTRAP_MIN_SAMPLES: usize = 3;

/// Up to this many samples (the profiles' figures have 3 to 5), the
/// interval comes from the exact bootstrap distribution of the median
/// (`median_pairs`); above, from `BOOTSTRAP_RESAMPLES` seeded resamples,
/// whose cost grows with n where the exact one's grows with n³.
pub const EXACT_MAX_SAMPLES: usize = 64;

/// A 95 % confidence interval of a median.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Interval {
    /// Whether the two intervals share a value (ends included).
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }
}

/// The chance that the ranges of `a` and `b` samples of one continuous
/// distribution share no value: of the C(a + b, a) equally likely orders
/// of the pooled samples, only the two with one set wholly below the other.
/// It is the false-alarm rate of a change flag between two results whose
/// intervals are their samples' ranges (3 to 5 samples; the runner page
/// and docs/methodology.md quote it).
pub fn disjoint_ranges_chance(a: u32, b: u32) -> f64 {
    let mut orders = 1.0;
    for k in 1..=b {
        orders = orders * f64::from(a + k) / f64::from(k);
    }
    2.0 / orders
}

/// The percentile bootstrap 95 % confidence interval of the median of
/// `samples` (Efron and Tibshirani, *An Introduction to the Bootstrap*,
/// 1993, ch. 13): the 2.5th and 97.5th percentiles of the medians of
/// resamples of n values drawn with replacement. Up to `EXACT_MAX_SAMPLES`
/// samples the percentiles are those of the exact bootstrap distribution,
/// the limit that ever more resamples approach, computed from the
/// probabilities of all nⁿ resamples at once (`median_pairs`): no seed,
/// no resampling error, and the same interval in every build. Above, of
/// `BOOTSTRAP_RESAMPLES` resamples, seeded from the samples' own bits
/// (sorted), so that the same samples give the same interval in every
/// build too. `None` below `BOOTSTRAP_MIN_SAMPLES` samples or where one is
/// not finite.
pub fn median_ci95(samples: &[f64]) -> Option<Interval> {
    let n = samples.len();
    if n < BOOTSTRAP_MIN_SAMPLES || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    // Sorted first, so that the samples' order in the file does not move
    // the interval either.
    let mut sorted = samples.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    if n <= EXACT_MAX_SAMPLES {
        return Some(exact_ci95(&sorted));
    }
    let mut rng = SplitMix64::new(n as u64);
    for x in &sorted {
        rng = SplitMix64::new(rng.next_u64() ^ x.to_bits());
    }
    // A resample's median is the value at the middle rank (or the mean of
    // the two middle ranks' values) of the drawn indexes into the sorted
    // samples: counting how often each index is drawn finds those ranks
    // without sorting values.
    let (lo_rank, hi_rank) = (BOOTSTRAP_RESAMPLES * 25 / 1000, BOOTSTRAP_RESAMPLES * 975 / 1000 - 1);
    let mut counts = vec![0u32; n];
    let mut medians = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        counts.fill(0);
        for _ in 0..n {
            counts[rng.below(n as u64) as usize] += 1;
        }
        let (a, b) = middle_ranks(&counts);
        medians.push(pair_median(&sorted, a, b));
    }
    let lo = *medians.select_nth_unstable_by(lo_rank, f64::total_cmp).1;
    let hi = *medians.select_nth_unstable_by(hi_rank, f64::total_cmp).1;
    Some(Interval { lo, hi })
}

/// The percentile interval of the exact bootstrap distribution of the
/// median of `sorted` (3 to `EXACT_MAX_SAMPLES` values, ascending): the
/// smallest resampled median whose cumulative probability reaches 2.5 %,
/// and the smallest that reaches 97.5 %.
fn exact_ci95(sorted: &[f64]) -> Interval {
    // Sums of probabilities carry rounding; a cumulative probability
    // within this of a percentile counts as reaching it (they are
    // multiples of n⁻ⁿ, so some land on 2.5 % exactly).
    const SLACK: f64 = 1e-12;
    let mut values: Vec<(f64, f64)> =
        median_pairs(sorted.len()).iter().map(|&(a, b, p)| (pair_median(sorted, a.into(), b.into()), p)).collect();
    values.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
    let at = |percentile: f64| {
        let mut seen = 0.0;
        for &(v, p) in &values {
            seen += p;
            if seen >= percentile - SLACK {
                return v;
            }
        }
        values[values.len() - 1].0
    };
    Interval { lo: at(0.025), hi: at(0.975) }
}

/// One pair of indexes into n sorted samples and the probability that a
/// resample's two middle values are the samples at those indexes.
type MedianPair = (u8, u8, f64);

/// The exact bootstrap distribution of the median of n sorted samples, as
/// index pairs: each pair (a, b) of indexes, a ≤ b (a = b for odd n), with
/// the probability that a resample of n draws with replacement has the
/// samples at a and b as its two middle values, over all nⁿ resamples
/// (pairs of probability 0 left out). It depends on n only, so it is
/// computed once per n and kept.
///
/// With C(i) the number of draws of an index ≤ i (0-based), L and U the
/// middle ranks (0-based; L = U for odd n, U = L + 1 for even), a is the
/// smallest index with C(i) > L and b the smallest with C(i) > U. So
/// a = b = i when c = C(i − 1) ≤ L draws fall below i and k ≥ U + 1 − c
/// on i, the rest above it; and, for even n, a = i < b = j when c ≤ L fall
/// below i, exactly L + 1 − c on i, none between i and j, and the other
/// n − L − 1 on j or above with at least one on j. Each is a sum of
/// multinomial probabilities.
fn median_pairs(n: usize) -> &'static [MedianPair] {
    static PAIRS: [std::sync::OnceLock<Vec<MedianPair>>; EXACT_MAX_SAMPLES + 1] =
        [const { std::sync::OnceLock::new() }; EXACT_MAX_SAMPLES + 1];
    PAIRS[n].get_or_init(|| {
        // Binomial coefficients up to n (Pascal's triangle: exact in f64
        // to well past 64).
        let mut choose = vec![vec![0.0f64; n + 1]; n + 1];
        for row in 0..=n {
            choose[row][0] = 1.0;
            for k in 1..=row {
                choose[row][k] = choose[row - 1][k - 1] + if k < row { choose[row - 1][k] } else { 0.0 };
            }
        }
        let nf = n as f64;
        let (lower, upper) = if n % 2 == 1 { (n / 2, n / 2) } else { (n / 2 - 1, n / 2) };
        let mut pairs = Vec::new();
        for i in 0..n {
            let (below, on, above) = (i as f64 / nf, 1.0 / nf, (n - 1 - i) as f64 / nf);
            let mut p = 0.0;
            for c in 0..=lower {
                for k in (upper + 1).saturating_sub(c)..=n - c {
                    p += choose[n][c]
                        * choose[n - c][k]
                        * below.powi(c as i32)
                        * on.powi(k as i32)
                        * above.powi((n - c - k) as i32);
                }
            }
            if p > 0.0 {
                pairs.push((i as u8, i as u8, p));
            }
            if lower == upper {
                continue;
            }
            // a = i < b = j: the part below and on i, then the rest on j
            // or above with at least one on j.
            let rest = n - lower - 1;
            let mut head = 0.0;
            for c in 0..=lower {
                head += choose[n][c]
                    * choose[n - c][lower + 1 - c]
                    * below.powi(c as i32)
                    * on.powi((lower + 1 - c) as i32);
            }
            for j in i + 1..n {
                let tail = ((n - j) as f64 / nf).powi(rest as i32) - ((n - j - 1) as f64 / nf).powi(rest as i32);
                let p = head * tail;
                if p > 0.0 {
                    pairs.push((i as u8, j as u8, p));
                }
            }
        }
        pairs
    })
}

/// The indexes into the sorted samples of a resample's two middle ranks
/// (the same one twice for an odd count), given how often each index was
/// drawn (n draws in all).
fn middle_ranks(counts: &[u32]) -> (usize, usize) {
    let n = counts.len();
    let (lower_rank, upper_rank) = if n % 2 == 1 { (n / 2, n / 2) } else { (n / 2 - 1, n / 2) };
    let mut seen = 0usize;
    let mut lower = None;
    for (i, &c) in counts.iter().enumerate() {
        seen += c as usize;
        if lower.is_none() && seen > lower_rank {
            lower = Some(i);
        }
        if seen > upper_rank {
            return (lower.unwrap_or(i), i);
        }
    }
    (n - 1, n - 1)
}

/// The median of a resample whose middle ranks hold `sorted[a]` and
/// `sorted[b]`: the value itself for an odd count (`a == b`), else the mean.
fn pair_median(sorted: &[f64], a: usize, b: usize) -> f64 {
    if sorted.len() % 2 == 1 {
        return sorted[b];
    }
    (sorted[a] + sorted[b]) / 2.0
}

/// Where a row stands in a ranked table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Rank {
    /// 1 for the first row; rows that cannot be told apart share the
    /// place of the first of them.
    pub place: usize,
    /// Its interval overlaps another row's of the same place: shown "≈".
    pub tied: bool,
}

/// Places for rows already sorted best first, given each row's interval
/// (`None`: no interval, e.g. an imported row, which keeps its own place by
/// its median). A row whose interval overlaps that of the first row of the
/// current place shares that place, and both are marked as tied; any other
/// row opens a new place, numbered by its position (1, ≈2, ≈2, 4: the
/// competition ranking of sports tables). Comparing with the first row of
/// a place, not the previous row, keeps a chain of small overlaps from
/// tying a table's best and worst.
pub fn ranks(intervals: &[Option<Interval>]) -> Vec<Rank> {
    let mut out: Vec<Rank> = Vec::with_capacity(intervals.len());
    let mut leader: Option<usize> = None;
    for (i, ci) in intervals.iter().enumerate() {
        let tie = match (leader, ci) {
            (Some(l), Some(ci)) => intervals[l].is_some_and(|lci| lci.overlaps(ci)),
            _ => false,
        };
        if tie {
            let l = leader.unwrap_or(i);
            out[l].tied = true;
            out.push(Rank { place: out[l].place, tied: true });
        } else {
            leader = ci.is_some().then_some(i);
            out.push(Rank { place: i + 1, tied: false });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// What the interval is from 6 samples on, as docs/methodology.md
    /// says: at 7, the 2nd and 6th smallest samples; at 6, each end the
    /// mean of the two samples nearest it.
    #[test]
    fn the_interval_from_six_samples_on() {
        let seven = median_ci95(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]).unwrap();
        assert_eq!((seven.lo, seven.hi), (2.0, 6.0));
        let six = median_ci95(&[1.0, 2.0, 4.0, 8.0, 16.0, 32.0]).unwrap();
        assert_eq!((six.lo, six.hi), (1.5, 24.0));
    }

    /// The rates the runner page and the methodology quote, and the same
    /// count by listing every order of the pooled samples.
    #[test]
    fn disjoint_ranges_of_one_distribution_are_the_two_separated_orders() {
        assert!(close(disjoint_ranges_chance(3, 3), 1.0 / 10.0));
        assert!(close(disjoint_ranges_chance(4, 4), 1.0 / 35.0));
        assert!(close(disjoint_ranges_chance(5, 5), 1.0 / 126.0));
        for (a, b) in [(3u32, 3u32), (3, 5), (4, 4), (5, 5)] {
            let n = a + b;
            let (mut orders, mut apart) = (0u32, 0u32);
            // Each order is the set of positions the first result's samples take.
            for mask in 0u32..(1 << n) {
                if mask.count_ones() != a {
                    continue;
                }
                orders += 1;
                let low = (1u32 << a) - 1;
                if mask == low || mask == low << b {
                    apart += 1;
                }
            }
            assert!(close(disjoint_ranges_chance(a, b), f64::from(apart) / f64::from(orders)), "{a} {b}");
        }
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

    #[test]
    fn bootstrap_interval_of_known_samples() {
        // Five samples: the percentile interval's ends are order
        // statistics; the 2.5 % and 97.5 % points of the resampled medians
        // fall on the 1st and 5th values (P(median ≤ x₁) = P(Bin(5, 0.2) ≥
        // 3) = 5.8 %, P(median ≤ x₄) = P(Bin(5, 0.8) ≥ 3) = 94.2 %).
        let ci = median_ci95(&[10.0, 11.0, 12.0, 13.0, 14.0]).unwrap();
        assert_eq!((ci.lo, ci.hi), (10.0, 14.0), "{ci:?}");
        let ci = median_ci95(&[100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0]).unwrap();
        assert_eq!((ci.lo, ci.hi), (101.0, 107.0), "{ci:?}");
        // Identical samples: a point.
        assert_eq!(median_ci95(&[5.0; 4]), Some(Interval { lo: 5.0, hi: 5.0 }));
        assert_eq!(median_ci95(&[1.0, 2.0]), None, "too few");
        assert_eq!(median_ci95(&[1.0, f64::NAN, 2.0]), None);
    }

    #[test]
    fn bootstrap_interval_is_the_same_in_every_build_and_order() {
        let a = median_ci95(&[7.12, 7.76, 22.53, 8.0, 7.5]).unwrap();
        assert_eq!(median_ci95(&[7.12, 7.76, 22.53, 8.0, 7.5]).unwrap(), a);
        assert_eq!(median_ci95(&[22.53, 7.5, 8.0, 7.76, 7.12]).unwrap(), a);
        assert!(a.lo <= 7.76 && 7.76 <= a.hi);
    }

    /// The interval as the first implementation computed it: each
    /// resample's values selected for their median, the medians sorted.
    fn median_ci95_by_sorting(samples: &[f64]) -> Interval {
        let n = samples.len();
        let mut sorted = samples.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        let mut rng = SplitMix64::new(n as u64);
        for x in &sorted {
            rng = SplitMix64::new(rng.next_u64() ^ x.to_bits());
        }
        let mut draw = vec![0.0; n];
        let mut medians = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
        for _ in 0..BOOTSTRAP_RESAMPLES {
            for d in draw.iter_mut() {
                *d = sorted[rng.below(n as u64) as usize];
            }
            let (below, mid, _) = draw.select_nth_unstable_by(n / 2, f64::total_cmp);
            let upper = *mid;
            medians.push(if n % 2 == 1 {
                upper
            } else {
                (below.iter().copied().fold(f64::NEG_INFINITY, f64::max) + upper) / 2.0
            });
        }
        medians.sort_unstable_by(f64::total_cmp);
        Interval { lo: medians[BOOTSTRAP_RESAMPLES * 25 / 1000], hi: medians[BOOTSTRAP_RESAMPLES * 975 / 1000 - 1] }
    }

    #[test]
    fn counting_gives_the_intervals_that_sorting_gives() {
        // Above `EXACT_MAX_SAMPLES`: odd and even counts, ties, and spreads
        // from steady to wild.
        let mut rng = SplitMix64::new(7);
        for n in [65, 66, 80] {
            for round in 0..8 {
                let samples: Vec<f64> = (0..n)
                    .map(|_| {
                        let x = (rng.below(1_000_000) as f64) / 100.0;
                        if round % 4 == 0 { (x / 1000.0).round() } else { x }
                    })
                    .collect();
                let want = median_ci95_by_sorting(&samples);
                assert_eq!(median_ci95(&samples), Some(want), "{samples:?}");
            }
        }
    }

    /// The exact distribution by its definition: every one of the nⁿ
    /// resamples (as drawn indexes), its middle ranks counted.
    fn median_pairs_by_enumeration(n: usize) -> BTreeMap<(usize, usize), f64> {
        let total = n.pow(n as u32);
        let mut tally: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for code in 0..total {
            let mut counts = vec![0u32; n];
            let mut rest = code;
            for _ in 0..n {
                counts[rest % n] += 1;
                rest /= n;
            }
            *tally.entry(middle_ranks(&counts)).or_default() += 1;
        }
        tally.into_iter().map(|(k, c)| (k, c as f64 / total as f64)).collect()
    }

    #[test]
    fn the_exact_distribution_counts_every_resample() {
        for n in 3..=7 {
            let want = median_pairs_by_enumeration(n);
            let got: BTreeMap<(usize, usize), f64> =
                median_pairs(n).iter().map(|&(a, b, p)| ((a.into(), b.into()), p)).collect();
            assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "n = {n}");
            for (k, p) in &want {
                assert!((got[k] - p).abs() < 1e-12, "n = {n}, pair {k:?}: {} against {p}", got[k]);
            }
        }
        // Every count's probabilities add up to 1, and a's and b's are in
        // order.
        for n in BOOTSTRAP_MIN_SAMPLES..=EXACT_MAX_SAMPLES {
            let pairs = median_pairs(n);
            let sum: f64 = pairs.iter().map(|p| p.2).sum();
            assert!((sum - 1.0).abs() < 1e-9, "n = {n}: {sum}");
            assert!(pairs.iter().all(|&(a, b, p)| a <= b && usize::from(b) < n && p > 0.0), "n = {n}");
            assert!(n % 2 == 0 || pairs.iter().all(|&(a, b, _)| a == b), "n = {n}");
        }
    }

    #[test]
    fn the_exact_interval_of_samples_is_its_percentiles() {
        // Four samples: of the 256 resamples, 13 have the first sample as
        // median (three or four draws of it), 5.1 % ≥ 2.5 %, and as many
        // the last, so the interval of [1, 2, 3, 4] is its range.
        let sorted = [1.0, 2.0, 3.0, 4.0];
        let pairs = median_pairs_by_enumeration(4);
        assert_eq!((pairs[&(0, 0)], pairs[&(3, 3)]), (13.0 / 256.0, 13.0 / 256.0));
        assert_eq!(exact_ci95(&sorted), Interval { lo: 1.0, hi: 4.0 });
        // Many samples: the 2.5 % point moves inside the range.
        let many: Vec<f64> = (1..=20).map(f64::from).collect();
        let ci = median_ci95(&many).unwrap();
        assert!(ci.lo > 1.0 && ci.hi < 20.0 && ci.lo < 10.5 && 10.5 < ci.hi, "{ci:?}");
    }

    #[test]
    fn even_counts_take_the_mean_of_the_middle_pair() {
        let sorted = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(middle_ranks(&[1, 1, 1, 1]), (1, 2));
        assert_eq!(pair_median(&sorted, 1, 2), 2.5);
        assert_eq!(middle_ranks(&[0, 2, 0, 2]), (1, 3));
        assert_eq!(pair_median(&sorted, 1, 3), 3.0);
        assert_eq!(middle_ranks(&[1, 1, 1]), (1, 1));
        assert_eq!(pair_median(&[1.0, 2.0, 3.0], 1, 1), 2.0);
        assert_eq!(middle_ranks(&[0, 0, 3]), (2, 2));
    }

    #[test]
    fn rows_whose_intervals_overlap_share_a_place() {
        let ci = |lo, hi| Some(Interval { lo, hi });
        let r = ranks(&[ci(90.0, 100.0), ci(85.0, 95.0), ci(70.0, 80.0), ci(60.0, 75.0), None, ci(10.0, 20.0)]);
        let got: Vec<(usize, bool)> = r.iter().map(|r| (r.place, r.tied)).collect();
        assert_eq!(got, [(1, true), (1, true), (3, true), (3, true), (5, false), (6, false)]);
        // A chain of overlaps does not tie the first and the last.
        let r = ranks(&[ci(9.0, 10.0), ci(8.0, 9.0), ci(7.0, 8.0)]);
        let got: Vec<(usize, bool)> = r.iter().map(|r| (r.place, r.tied)).collect();
        assert_eq!(got, [(1, true), (1, true), (3, false)]);
        assert!(ranks(&[]).is_empty());
    }
}
