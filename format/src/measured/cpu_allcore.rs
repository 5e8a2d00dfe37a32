//! The all-core CPU stage: CoreMark run as EEMBC's parallel execution
//! defines it, one context per logical CPU, and the figure that compares it
//! with the one-thread stage (what a vCPU is worth).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::values::{Message, NonNeg};

use super::cpu::{CoreMarkCrcs, CpuStage, Validation};
use super::status::Status;

/// The all-core CoreMark stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuAllCoreStage {
    /// Samples attempted, in order; `parameters.cpu_samples` were requested.
    pub samples: Vec<CpuAllCoreSample>,
}

/// One all-core sample: every context runs the same iterations at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuAllCoreSample {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// CoreMark contexts run at once, each on a thread of its own: one per
    /// logical CPU the runner offered the collector.
    pub contexts: u32,
    /// Iterations each context ran with the performance seeds (every
    /// context runs the same number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// Seconds from starting the first context to the return (join) of the
    /// last one: the slowest context sets the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<NonNeg>,
    /// CPU seconds the contexts' threads ran together (each thread's CPU
    /// clock, summed); absent where the collector cannot read the clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<NonNeg>,
    /// CRCs of the validation run (one iteration with CoreMark's validation
    /// seeds, on a fresh instance, before the contexts start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_crcs: Option<CoreMarkCrcs>,
    /// Whether every context's CRCs and the validation run's matched the
    /// known values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<Validation>,
    /// One entry per context, in the order they were started; empty for a
    /// sample that started none.
    pub threads: Vec<AllCoreThread>,
}

/// One context of an all-core sample: where its thread ran and what it
/// computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AllCoreThread {
    /// The logical CPU the thread was on when it started its iterations;
    /// absent where the OS does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_cpu: Option<SeenCpu>,
    /// The logical CPU the thread was on when it finished them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_cpu: Option<SeenCpu>,
    /// Seconds from the sample's start to this context's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<NonNeg>,
    /// CPU seconds this context's thread ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<NonNeg>,
    /// The context's CRCs after its iterations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crcs: Option<CoreMarkCrcs>,
}

/// A logical CPU a thread was seen on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeenCpu {
    /// Logical CPU number within its processor group.
    pub cpu: u32,
    /// Processor group (always 0 outside Windows).
    pub group: u32,
}

impl CpuAllCoreSample {
    /// contexts × iterations ÷ seconds to the last context's end, for an
    /// accepted sample: EEMBC's parallel CoreMark score.
    pub fn iterations_per_s(&self) -> Option<f64> {
        match (self.status, self.iterations, self.elapsed_s, self.validation) {
            (Status::Ok, Some(n), Some(s), Some(Validation::Passed)) if s.get() > 0.0 && self.contexts > 0 => {
                Some(f64::from(self.contexts) * n as f64 / s.get())
            }
            _ => None,
        }
    }
}

/// What a vCPU is worth: the all-core figure ÷ (the one-thread figure ×
/// the contexts the all-core stage ran), each the median of its stage's
/// accepted samples. Near 1 where every logical CPU is a core of its own,
/// about 0.5–0.6 where two are hyperthread siblings of one core or the host
/// is oversubscribed. The contexts are the logical CPUs the runner offered
/// the collector (`machine.logical_cpus` unless the process was allowed
/// fewer); `None` without an accepted sample in either stage, or where the
/// accepted all-core samples ran different numbers of contexts.
pub fn vcpu_worth(one_thread: &CpuStage, all_core: &CpuAllCoreStage) -> Option<f64> {
    let single: Vec<f64> = one_thread.samples.iter().filter_map(|s| s.iterations_per_s()).collect();
    let accepted: Vec<&CpuAllCoreSample> = all_core.samples.iter().filter(|s| s.iterations_per_s().is_some()).collect();
    let contexts = accepted.first()?.contexts;
    if accepted.iter().any(|s| s.contexts != contexts) {
        return None;
    }
    let all: Vec<f64> = accepted.iter().filter_map(|s| s.iterations_per_s()).collect();
    let one = crate::stats::median(&single)?;
    let many = crate::stats::median(&all)?;
    (one > 0.0).then(|| many / (one * f64::from(contexts)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::Affinity;
    use crate::measured::CpuSample;

    fn one(iterations: u64, elapsed: f64) -> CpuSample {
        CpuSample {
            status: Status::Ok,
            message: None,
            affinity: Affinity::Pinned { cpu: 0, group: 0 },
            iterations: Some(iterations),
            elapsed_s: NonNeg::new(elapsed).ok(),
            cpu_s: None,
            crcs: None,
            validation_crcs: None,
            validation: Some(Validation::Passed),
            steal_s: None,
        }
    }

    fn all(contexts: u32, iterations: u64, elapsed: f64) -> CpuAllCoreSample {
        CpuAllCoreSample {
            status: Status::Ok,
            message: None,
            contexts,
            iterations: Some(iterations),
            elapsed_s: NonNeg::new(elapsed).ok(),
            cpu_s: None,
            validation_crcs: None,
            validation: Some(Validation::Passed),
            threads: Vec::new(),
        }
    }

    #[test]
    fn the_all_core_figure_counts_every_context() {
        assert_eq!(all(4, 300_000, 10.0).iterations_per_s(), Some(120_000.0));
        let failed = CpuAllCoreSample { validation: Some(Validation::Failed), ..all(4, 300_000, 10.0) };
        assert_eq!(failed.iterations_per_s(), None);
    }

    #[test]
    fn a_vcpu_is_worth_the_all_core_figure_over_the_one_thread_figure_times_the_contexts() {
        // Medians: one thread 30,000/s; all-core 96,000/s on 4 contexts.
        let single = CpuStage { samples: vec![one(300_000, 10.0), one(290_000, 10.0), one(310_000, 10.0)] };
        let many =
            CpuAllCoreStage { samples: vec![all(4, 240_000, 10.0), all(4, 250_000, 10.0), all(4, 230_000, 10.0)] };
        assert_eq!(vcpu_worth(&single, &many), Some(0.8));
        let mixed = CpuAllCoreStage { samples: vec![all(4, 240_000, 10.0), all(2, 120_000, 10.0)] };
        assert_eq!(vcpu_worth(&single, &mixed), None);
        assert_eq!(vcpu_worth(&CpuStage { samples: Vec::new() }, &many), None);
    }
}
