//! The median of a figure's samples, shared so that the collector's step
//! summary and the site's reports never disagree on a published figure.
//!
//! For the samples x₁ … xₙ (n ≥ 1) sorted in ascending order: the middle
//! value when n is odd, the mean of the two middle values when n is even.
//! docs/methodology.md states the same for readers of the website.

/// The median of `samples`, `None` when there are none (a figure without
/// samples has no median). NaN sorts last, as `f64::total_cmp` orders it;
/// validated results hold none.
pub fn median(samples: &[f64]) -> Option<f64> {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.12]), Some(7.12));
        assert_eq!(median(&[]), None);
    }
}
