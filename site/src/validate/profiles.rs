//! Profile and protocol rules (issue 13, class 5): a measured result uses a
//! profile its collector version defines; an imported result keeps its
//! publisher's fingerprint (never a measured profile's), claims a protocol
//! its figures fit, and its figures agree with each other and with its
//! published profile.

use std::collections::HashMap;
use std::sync::OnceLock;

use runner_bench_format::imported::{Aggregate, ImportedCache, ImportedResult, KNOWN_PROTOCOLS, PublishedProfile};
use runner_bench_format::measured::MeasuredResult;
use runner_bench_format::{AnyResult, Profile};

use super::findings::{Collector, Note, Num};

/// The collector versions the site knows. Each defines the profiles of
/// `Profile::ALL`: with the parameters this build has, or, as 0.1.0 and
/// 0.2.0 were released, without the all-core CPU stage
/// (`BEFORE_ALL_CORE`); `PROTOCOL_VERSION` has not changed since the first
/// commit (`git log -p format/src/params.rs`). The workspace's version has
/// not been raised since that stage was added, so every known version is
/// taken to define both sets. A test keeps the workspace's own version in
/// the list.
pub(super) const KNOWN_VERSIONS: [&str; 2] = ["0.1.0", "0.2.0"];

/// The profiles as collectors before the all-core CPU stage defined them,
/// written out: `parameters.cpu_allcore` gave each profile a new
/// fingerprint.
pub const BEFORE_ALL_CORE: [(&str, &str); 2] =
    [("standard without the all-core stage", "739dba2a6817"), ("quick without the all-core stage", "7a737381e8dd")];

/// Each profile's name and fingerprint, as every known version defines it.
fn known_profiles() -> &'static [(&'static str, String)] {
    static PROFILES: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    PROFILES.get_or_init(|| {
        let current = Profile::ALL.iter().map(|p| (p.name(), p.parameters().fingerprint().to_string()));
        current.chain(BEFORE_ALL_CORE.iter().map(|&(name, fp)| (name, fp.to_string()))).collect()
    })
}

/// `standard (739dba2a6817) and quick (…)`.
fn profile_list() -> String {
    let names: Vec<String> = known_profiles().iter().map(|(name, fp)| format!("{name} ({fp})")).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Whether a measured result used the quick profile: a try-out of the
/// collector, which the site shows apart, marked, and never ranks
/// (`tryout_note`; `web::model` marks its rows).
pub fn is_tryout(m: &MeasuredResult) -> bool {
    static QUICK: OnceLock<String> = OnceLock::new();
    let fp = m.fingerprint.as_str();
    fp == QUICK.get_or_init(|| Profile::Quick.parameters().fingerprint().to_string()) || fp == BEFORE_ALL_CORE[1].1
}

/// What `site check` says of a quick-profile result: it is accepted, and
/// why none of its figures is ranked.
pub(super) fn tryout_note(m: &MeasuredResult) -> Option<Note> {
    is_tryout(m).then(|| Note {
        field: "$.fingerprint".to_string(),
        reason: format!(
            "{} is the quick profile's, a try-out: the site shows the result marked \"try-out\" and never ranks \
             it; a run of the standard profile ({}) is ranked",
            m.fingerprint,
            Profile::Standard.parameters().fingerprint()
        ),
    })
}

/// The measured result's fingerprint is one of its collector version's
/// profiles. (That the fingerprint is the parameters' is the format's rule,
/// so a custom set of parameters is refused here by its fingerprint.)
fn measured(c: &mut Collector, file: &str, m: &MeasuredResult) {
    let version = m.collector.version.as_str();
    if !KNOWN_VERSIONS.contains(&version) {
        c.push(
            file,
            "$.collector.version",
            format!(
                "collector {version} is not a version the site knows ({}), so the profiles it defines are unknown",
                KNOWN_VERSIONS.join(", ")
            ),
        );
        return;
    }
    let fp = m.fingerprint.as_str();
    if !known_profiles().iter().any(|(_, known)| known == fp) {
        c.push(
            file,
            "$.fingerprint",
            format!(
                "{fp} is not a profile collector {version} defines; it defines {}, and results of other \
                 parameters are not published",
                profile_list()
            ),
        );
    }
}

/// Half a unit in the last place the published reports print seconds,
/// MiB/s, iterations/s and percentages with (two decimals): a published
/// figure stands for any value within this of it.
const HALF_CENTI: f64 = 0.005;
/// Half a unit in the last place of a published payload (`512.0` MiB).
const HALF_DECI: f64 = 0.05;

/// The imported result's rules that need no other file.
pub(super) fn imported(c: &mut Collector, file: &str, i: &ImportedResult) {
    let profile = i.published_profile.as_ref();
    if let Some(p) = profile {
        published_profile(c, file, p);
    }
    if let Some(cpu) = &i.stages.cpu {
        if cpu.samples == 0 {
            c.push(
                file,
                "$.stages.cpu.samples",
                "0 accepted samples, but the stage publishes iterations_per_s: a median, range and variation \
                 come from at least one sample",
            );
        }
        variation(c, file, "$.stages.cpu.iterations_per_s", &cpu.iterations_per_s, cpu.samples);
        if let Some(p) = profile
            && cpu.samples > p.cpu_disk_samples
        {
            c.push(
                file,
                "$.stages.cpu.samples",
                format!(
                    "{} samples, but the published profile takes {} (published_profile.cpu_disk_samples)",
                    cpu.samples, p.cpu_disk_samples
                ),
            );
        }
    }
    if let Some(disk) = &i.stages.disk {
        if let (Some(p), Some(counts)) = (profile, disk.counts)
            && counts.requested > p.cpu_disk_samples
        {
            c.push(
                file,
                "$.stages.disk.counts.requested",
                format!(
                    "{} samples requested, but the published profile takes {} (published_profile.cpu_disk_samples)",
                    counts.requested, p.cpu_disk_samples
                ),
            );
        }
        if let Some(p) = profile
            && disk.file_mib != p.disk_file_mib
        {
            c.push(
                file,
                "$.stages.disk.file_mib",
                format!(
                    "{} MiB, but the published profile's disk file is {} MiB (published_profile.disk_file_mib)",
                    disk.file_mib, p.disk_file_mib
                ),
            );
        }
    }
    if let Some(cache) = &i.stages.cache {
        cache_backends(c, file, cache, profile);
    }
    if let (Some(p), Some(net)) = (profile, &i.stages.internet)
        && net.transfer_mib != p.internet_transfer_mib
    {
        c.push(
            file,
            "$.stages.internet.transfer_mib",
            format!(
                "{} MiB, but the published profile transfers {} MiB (published_profile.internet_transfer_mib)",
                net.transfer_mib, p.internet_transfer_mib
            ),
        );
    }
}

/// The publisher's profile: its own fingerprint, never a measured
/// profile's, and a protocol the site knows the wording of.
fn published_profile(c: &mut Collector, file: &str, p: &PublishedProfile) {
    if let Some((name, _)) = known_profiles().iter().find(|(_, fp)| fp == p.fingerprint.as_str()) {
        c.push(
            file,
            "$.published_profile.fingerprint",
            format!(
                "{} is the fingerprint of the measured profile {name}; an imported result keeps its publisher's \
                 fingerprint, so that its figures are never ranked with measured ones",
                p.fingerprint
            ),
        );
    }
    if !KNOWN_PROTOCOLS.contains(&p.protocol) {
        let known: Vec<String> = KNOWN_PROTOCOLS.iter().map(u32::to_string).collect();
        c.push(
            file,
            "$.published_profile.protocol",
            format!(
                "protocol {} is not a published protocol the site knows ({}): the site describes an imported \
                 result in the wording of its protocol's reports, so a report of another protocol needs that \
                 wording added to the site first",
                p.protocol,
                known.join(", ")
            ),
        );
    }
}

/// Each cache backend's published figures agree with its pairs and with
/// the published profile.
fn cache_backends(c: &mut Collector, file: &str, cache: &ImportedCache, profile: Option<&PublishedProfile>) {
    for (n, b) in cache.backends.iter().enumerate() {
        let path = format!("$.stages.cache.backends[{n}]");
        // The times are the verified pairs' ("Verified pairs" in the
        // reports' table): a failed pair has no time to publish.
        if b.verified_pairs == 0 {
            c.push(
                file,
                format!("{path}.verified_pairs"),
                "0 verified pairs, but the backend publishes save_s and restore_s: a median, range and \
                 variation come from at least one pair",
            );
        }
        variation(c, file, &format!("{path}.save_s"), &b.save_s, b.verified_pairs);
        variation(c, file, &format!("{path}.restore_s"), &b.restore_s, b.verified_pairs);
        speed(c, file, &path, "save", b.payload_mib.get(), &b.save_s, b.save_mib_per_s.get());
        speed(c, file, &path, "restore", b.payload_mib.get(), &b.restore_s, b.restore_mib_per_s.get());
        if let Some(p) = profile {
            if (b.payload_mib.get() - f64::from(p.cache_payload_mib)).abs() > HALF_DECI {
                c.push(
                    file,
                    format!("{path}.payload_mib"),
                    format!(
                        "{} MiB, but the published profile's payload is {} MiB \
                         (published_profile.cache_payload_mib)",
                        Num(b.payload_mib.get()),
                        p.cache_payload_mib
                    ),
                );
            }
            // The reports: "Protocol 2 and later measure three
            // unique-key save/restore pairs per backend."
            if p.protocol >= 2 && b.pairs != 3 {
                c.push(
                    file,
                    format!("{path}.pairs"),
                    format!(
                        "{} pairs, but protocol {} measures three pairs per backend (the published reports: \
                         \"Protocol 2 and later measure three unique-key save/restore pairs per backend\")",
                        b.pairs, p.protocol
                    ),
                );
            }
        }
    }
}

/// A published variation (population coefficient of variation, percent)
/// that `n` samples between `min` and `max` cannot have, within the
/// reports' rounding. The least: one sample at each end and the rest at
/// the mean give a deviation of (max − min) ÷ √(2n), over a mean of at
/// most max. The most: no deviation exceeds half the range, over a mean of
/// at least min; and with any minimum, √(n − 1) (one value above zero).
/// One sample is its own median, minimum and maximum, and does not vary.
/// (No sample at all is the caller's to report, once per stage.)
fn variation(c: &mut Collector, file: &str, field: &str, a: &Aggregate, n: u32) {
    let (min, median, max, v) = (a.min.get(), a.median.get(), a.max.get(), a.variation_pct.get());
    if n == 1 {
        if max - min > HALF_CENTI || (median - min).abs() > HALF_CENTI {
            c.push(
                file,
                field.to_string(),
                format!(
                    "one sample, but the median {median}, min {min} and max {max} differ: one sample is all three",
                    median = Num(median),
                    min = Num(min),
                    max = Num(max)
                ),
            );
        } else if v > HALF_CENTI {
            c.push(
                file,
                format!("{field}.variation_pct"),
                format!("{v}% from one sample, which does not vary (0%)", v = Num(v)),
            );
        }
        return;
    }
    if n == 0 || min > max {
        return;
    }
    let spread_low = (max - min - 2.0 * HALF_CENTI).max(0.0);
    let least = spread_low / (2.0 * f64::from(n)).sqrt() / (max + HALF_CENTI) * 100.0;
    if v + HALF_CENTI < least {
        c.push(
            file,
            format!("{field}.variation_pct"),
            format!(
                "{v}% is less than {n} samples from {min} to {max} vary (at least {least:.2}%)",
                v = Num(v),
                min = Num(min),
                max = Num(max)
            ),
        );
        return;
    }
    // Whatever the minimum: the population variation of n values that are
    // not negative is largest with one value above zero, √(n − 1).
    let ceiling = f64::from(n - 1).sqrt() * 100.0;
    if v - HALF_CENTI > ceiling {
        c.push(
            file,
            format!("{field}.variation_pct"),
            format!("{v}% is more than any {n} samples can vary (at most {ceiling:.2}%)", v = Num(v)),
        );
        return;
    }
    if min > HALF_CENTI {
        let most = (max - min + 2.0 * HALF_CENTI) / 2.0 / (min - HALF_CENTI) * 100.0;
        if v - HALF_CENTI > most {
            c.push(
                file,
                format!("{field}.variation_pct"),
                format!(
                    "{v}% is more than samples from {min} to {max} can vary (at most {most:.2}%)",
                    v = Num(v),
                    min = Num(min),
                    max = Num(max)
                ),
            );
        }
    }
}

/// A published cache speed that disagrees with the payload over the median
/// time, beyond the rounding of all three figures.
fn speed(c: &mut Collector, file: &str, path: &str, half: &str, payload_mib: f64, seconds: &Aggregate, mib_per_s: f64) {
    let median = seconds.median.get();
    if median <= HALF_CENTI {
        return;
    }
    let low = (payload_mib - HALF_DECI).max(0.0) / (median + HALF_CENTI) - HALF_CENTI;
    let high = (payload_mib + HALF_DECI) / (median - HALF_CENTI) + HALF_CENTI;
    if mib_per_s < low || mib_per_s > high {
        c.push(
            file,
            format!("{path}.{half}_mib_per_s"),
            format!(
                "{mib_per_s} MiB/s disagrees with payload_mib {payload_mib} ÷ {half}_s.median {median} s = {ratio:.2} MiB/s \
                 (the published rounding allows {low:.2} to {high:.2})",
                ratio = Num(payload_mib / median),
                low = Num(low),
                high = Num(high),
                payload_mib = Num(payload_mib),
                mib_per_s = Num(mib_per_s),
                median = Num(median)
            ),
        );
    }
}

/// What the imported results checked so far publish under each
/// fingerprint: the publisher's fingerprint hashes its parameters and
/// protocol ("measurement protocol is included"), so one fingerprint always
/// comes with one published profile.
#[derive(Default)]
pub(super) struct Published {
    first: HashMap<String, (String, PublishedProfile)>,
}

/// A measured result's profile (`measured`), unless `unpublished` says any
/// profile goes. Run on every check, outside the cache of file checks,
/// because `unpublished` belongs to the check, not the file.
pub(super) fn own(c: &mut Collector, file: &str, result: &AnyResult, unpublished: bool) {
    if let AnyResult::Measured(m) = result
        && !unpublished
    {
        measured(c, file, m);
    }
}

/// An imported result's published profile (`imported_profile`), which
/// `Published::check` compares across files.
pub(super) fn imported_profile(result: &AnyResult) -> Option<PublishedProfile> {
    match result {
        AnyResult::Imported(i) => i.published_profile.clone(),
        AnyResult::Measured(_) => None,
    }
}

impl Published {
    /// An imported result's published profile recorded, or reported where
    /// it differs from the first file that published the same fingerprint.
    pub(super) fn check(&mut self, c: &mut Collector, file: &str, profile: Option<&PublishedProfile>) {
        let Some(p) = profile else { return };
        match self.first.get(p.fingerprint.as_str()) {
            Some((first, theirs)) if theirs != p => c.push(
                file,
                "$.published_profile",
                format!(
                    "fingerprint {} is published with other parameters or protocol in {first} (protocol {}); a \
                     fingerprint hashes the protocol and the parameters, so one fingerprint has one profile",
                    p.fingerprint, theirs.protocol
                ),
            ),
            Some(_) => {}
            None => {
                self.first.insert(p.fingerprint.to_string(), (file.to_string(), p.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_version_is_known() {
        assert!(
            KNOWN_VERSIONS.contains(&env!("CARGO_PKG_VERSION")),
            "add {} to KNOWN_VERSIONS",
            env!("CARGO_PKG_VERSION")
        );
    }

    #[test]
    fn the_profiles_are_listed_by_name_and_fingerprint() {
        let standard = Profile::Standard.parameters().fingerprint();
        let quick = Profile::Quick.parameters().fingerprint();
        assert_eq!(
            profile_list(),
            format!(
                "standard ({standard}), quick ({quick}), standard without the all-core stage (739dba2a6817) and \
                 quick without the all-core stage (7a737381e8dd)"
            )
        );
    }
}
