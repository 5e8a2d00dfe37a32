//! What `site check` warns about the provider files: a file or runner that
//! no result has, and a stated machine that differs from what results
//! recorded of it (which runner pages mark too).

use std::collections::BTreeMap;

use super::{ProviderError, Providers, RunnerSpec, error};

impl Providers {
    /// What `site check` warns about: a file whose provider has no result
    /// among `runs`, and a runner label that no result of its provider
    /// has. Warnings, not errors: a check may be given a part of results/,
    /// and a provider may describe a runner before its first result is
    /// merged; either way the site shows nothing of it.
    pub fn warnings(&self, runners: impl IntoIterator<Item = (String, String)>) -> Vec<ProviderError> {
        let mut labels: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (provider_id, runner_label) in runners {
            labels.entry(provider_id).or_default().push(runner_label);
        }
        let mut out = Vec::new();
        for (id, p) in &self.files {
            let file = self.paths.get(id).cloned().unwrap_or_default();
            let Some(known) = labels.get(id) else {
                out.push(error(
                    &file,
                    "$",
                    format!("no result has the provider id \"{id}\"; the site shows nothing of this file"),
                ));
                continue;
            };
            for label in p.runners.keys() {
                if !known.iter().any(|k| k == label.as_str()) {
                    out.push(error(
                        &file,
                        format!("runners.{label}"),
                        format!("no result of {id} has this runner label; the site shows nothing of it"),
                    ));
                }
            }
        }
        out
    }

    /// Where a provider file's stated machine differs from what a
    /// measured result recorded of it (`machine_mismatch`), one warning per
    /// result and field: `runs` gives each result's provider id, runner
    /// label, file, logical CPUs and memory bytes.
    pub fn machine_warnings<'a>(
        &self,
        runs: impl IntoIterator<Item = (&'a str, &'a str, &'a str, u32, u64)>,
    ) -> Vec<ProviderError> {
        let mut out = Vec::new();
        for (provider_id, label, result, cpus, memory) in runs {
            let Some(spec) = self.files.get(provider_id).and_then(|p| p.runners.get(label)) else { continue };
            let file = self.paths.get(provider_id).cloned().unwrap_or_default();
            for (field, what) in machine_mismatch(spec, cpus, memory) {
                out.push(error(&file, format!("runners.{label}.{field}"), format!("{what} ({result})")));
            }
        }
        out
    }
}

/// How far a result's recorded memory may fall short of or exceed the
/// provider's stated size, as a share of the stated size: an OS reports
/// less than the machine has (the kernel and firmware keep some), and
/// providers round.
pub const MEMORY_TOLERANCE: f64 = 0.10;

/// Where `spec` (a provider file's runner) differs from a result's
/// recorded machine: `(field, sentence)` for a stated vCPU count other than
/// the logical CPUs recorded, and for stated memory more than
/// `MEMORY_TOLERANCE` away from the memory recorded. Nothing for what the
/// file does not state.
pub fn machine_mismatch(spec: &RunnerSpec, logical_cpus: u32, memory_bytes: u64) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(vcpu) = spec.vcpu
        && vcpu != logical_cpus
    {
        out.push((
            "vcpu",
            format!("the provider file states {vcpu} vCPU, but the result recorded {logical_cpus} logical CPUs"),
        ));
    }
    if let Some(gib) = spec.memory_gib {
        let recorded = memory_bytes as f64 / (1u64 << 30) as f64;
        if (recorded - gib).abs() > gib * MEMORY_TOLERANCE {
            out.push((
                "memory_gib",
                format!(
                    "the provider file states {gib} GiB of memory, but the result recorded {recorded:.1} GiB \
                     (more than {:.0} % apart)",
                    MEMORY_TOLERANCE * 100.0
                ),
            ));
        }
    }
    out
}
