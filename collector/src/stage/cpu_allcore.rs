//! The all-core CPU stage: CoreMark as EEMBC's parallel execution defines
//! it (`-DMULTITHREAD=N -DUSE_PTHREAD`), one context per logical CPU the
//! runner offers the collector.
//!
//! A sample runs CoreMark's validation seeds once, finds the iteration count
//! (below), then starts the clock, starts one thread per context, each
//! running that same count with the performance seeds on its own memory
//! block, joins them all and stops the clock: iterations/s = contexts ×
//! iterations ÷ the wall time until the last context finished, EEMBC's
//! score. The threads are placed by the OS, as EEMBC's pthread port leaves
//! them (no affinity), and each records the CPU it was on when it started
//! and when it finished. Every context's CRCs must match the published
//! values and each other's, or the sample is no result.
//!
//! EEMBC finds the count on context 0 alone and scales it to about 10 s,
//! so where contexts share a core (SMT siblings, an oversubscribed host)
//! its run lasts longer than that. Here the count is found with every
//! context running at once, so that a sample lasts about `cpu_seconds` on
//! any machine and stays inside the sample timeout the one-thread stage
//! has.
//!
//! Each context runs its count in batches of about `BATCH_TARGET` and
//! checks between them whether its sample was abandoned at the sample
//! timeout (`watchdog`), so that an abandoned sample's threads stop rather
//! than compete with the next sample. Windows machines with more than 64
//! logical CPUs have several processor groups: context `k` runs in the
//! group of the `k`th logical CPU (`affinity::join_group_of`), free to run
//! on any CPU of it, since a thread starts in one group only.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use runner_bench_format::measured::{
    AllCoreThread, CpuAllCoreSample, CpuAllCoreStage, SeenCpu, Stages, Status, Validation,
};
use runner_bench_format::{Message, NonNeg, Notice, Parameters};

use crate::platform::affinity;
use crate::platform::cputime;
use crate::platform::progress::Progress;
use crate::platform::watchdog::{self, Ended, Mailbox};
use crate::stage::cpu::coremark::{self, CoreMark, Crcs, PERFORMANCE, TOTAL_DATA_BYTES, VALIDATION};
use crate::stage::cpu::{self as one_thread, BATCH_TARGET};
use crate::stage::{Stage, StageKind};

/// The calibration's parallel run doubles its iterations until it lasts at
/// least this long: long enough that thread start-up is a small part of it.
const CALIBRATION_TARGET: Duration = Duration::from_millis(250);

/// What the stage needs to know.
#[derive(Debug, Clone)]
pub struct AllCorePlan {
    pub samples: u32,
    pub seconds: Duration,
    pub timeout: Duration,
    /// CoreMark contexts per sample: the logical CPUs offered.
    pub contexts: u32,
}

impl AllCorePlan {
    /// The profile's CPU samples, seconds and timeout, with one context per
    /// logical CPU the runner offers the collector.
    pub fn new(params: &Parameters) -> Self {
        AllCorePlan {
            samples: params.cpu_samples,
            seconds: Duration::from_secs(params.cpu_seconds.into()),
            timeout: Duration::from_secs(params.sample_timeout_s.into()),
            contexts: affinity::offered_cpus(),
        }
    }
}

/// Runs every requested sample; `after_sample` sees the stage after each.
pub fn run(
    plan: &AllCorePlan,
    progress: &mut Progress,
    after_sample: impl FnMut(&CpuAllCoreStage) -> anyhow::Result<()>,
) -> anyhow::Result<CpuAllCoreStage> {
    let stage = CpuAllCoreStage { samples: Vec::new() };
    let push = |s: &mut CpuAllCoreStage, sample| s.samples.push(sample);
    one_thread::each_sample(
        stage,
        (plan.samples, plan.seconds),
        progress,
        || measure(plan),
        describe,
        push,
        after_sample,
    )
}

fn describe(sample: &CpuAllCoreSample) -> String {
    match (sample.iterations_per_s(), &sample.message) {
        (Some(ips), _) => format!("{ips:.2} iterations/s on {} contexts", sample.contexts),
        (None, Some(m)) => format!("{:?}: {m}", sample.status).to_lowercase(),
        (None, None) => "no score".to_string(),
    }
}

/// What a sample's contexts have reported so far: the iterations of all of
/// them together.
#[derive(Debug, Clone, Copy, Default)]
struct Reported {
    iterations: u64,
}

/// One sample, on a thread of its own that is abandoned at the sample's
/// deadline. Never fails: what went wrong is recorded in the sample.
pub fn measure(plan: &AllCorePlan) -> CpuAllCoreSample {
    let deadline = Instant::now() + plan.timeout;
    let worker_plan = plan.clone();
    match watchdog::run("cpu all-core sample", deadline, Reported::default(), move |mailbox| {
        measure_on_this_thread(&worker_plan, deadline, mailbox)
    }) {
        Ok(Ended::Finished(sample)) => sample,
        Ok(Ended::TimedOut(had)) => timed_out(plan, had),
        Err(e) => failed(Status::Error, &format!("cannot start the sample's thread: {e}"), plan.contexts),
    }
}

fn measure_on_this_thread(plan: &AllCorePlan, deadline: Instant, mailbox: &Mailbox<Reported>) -> CpuAllCoreSample {
    let Some(validation) = one_thread::one_iteration(VALIDATION) else {
        return failed(Status::Error, "CoreMark could not be initialised", plan.contexts);
    };
    let (iterations, batch) = match calibrate(plan, mailbox) {
        Ok(Some(found)) => found,
        Ok(None) => return timed_out(plan, Reported::default()),
        Err(message) => return failed(Status::Error, &message, plan.contexts),
    };
    let Some(instances) = instances(plan.contexts) else {
        return failed(Status::Error, "CoreMark could not be initialised", plan.contexts);
    };
    let keep_going = |done: u64| mailbox.update(|r| r.iterations += done) && Instant::now() < deadline;
    let ran = match run_parallel(instances, iterations, batch, &keep_going) {
        Ok(ran) => ran,
        Err(message) => return failed(Status::Error, &message, plan.contexts),
    };
    // Abandoned, or past the deadline: a sample that took longer than its
    // timeout is a timeout even when it also ran its iterations.
    if ran.stopped || mailbox.abandoned() || Instant::now() >= deadline {
        let had = Reported { iterations: ran.contexts.iter().map(|c| c.iterations).sum() };
        return timed_out(plan, had);
    }
    sample_of(plan.contexts, iterations, &ran, validation)
}

/// The sample that a parallel run of `iterations` per context gives, its
/// CRCs checked: every context's against the published values and against
/// context 0's final CRC (the same seeds and count give the same CRC).
fn sample_of(contexts: u32, iterations: u64, ran: &Parallel, validation: Crcs) -> CpuAllCoreSample {
    let cpu_s: Option<Duration> = ran.contexts.iter().map(|c| c.cpu).sum();
    let mut sample = CpuAllCoreSample {
        status: Status::Ok,
        message: None,
        contexts,
        iterations: Some(iterations),
        elapsed_s: NonNeg::new(ran.elapsed.as_secs_f64()).ok(),
        cpu_s: cpu_s.and_then(|s| NonNeg::new(s.as_secs_f64()).ok()),
        validation_crcs: Some(one_thread::recorded(validation)),
        validation: Some(Validation::Passed),
        threads: ran
            .contexts
            .iter()
            .map(|c| AllCoreThread {
                first_cpu: c.first_cpu,
                last_cpu: c.last_cpu,
                elapsed_s: NonNeg::new(c.end.as_secs_f64()).ok(),
                cpu_s: c.cpu.and_then(|s| NonNeg::new(s.as_secs_f64()).ok()),
                crcs: Some(one_thread::recorded(c.crcs)),
            })
            .collect(),
    };
    let mut mismatches: Vec<String> = one_thread::mismatch("validation", VALIDATION, validation).into_iter().collect();
    let reference = ran.contexts.first().map(|c| c.crcs.final_);
    for (k, c) in ran.contexts.iter().enumerate() {
        let mut wrong: Vec<String> = one_thread::mismatch("performance", PERFORMANCE, c.crcs).into_iter().collect();
        if let Some(first) = reference.filter(|&f| f != c.crcs.final_) {
            wrong.push(format!("crcfinal {:#06x}, context 0 has {first:#06x}", c.crcs.final_));
        }
        if !wrong.is_empty() {
            mismatches.push(format!("context {k}: {}", wrong.join(", ")));
        }
    }
    if !mismatches.is_empty() {
        sample.status = Status::Error;
        sample.validation = Some(Validation::Failed);
        sample.message = Some(Message::lossy(&format!("CoreMark CRC check failed: {}", mismatches.join("; "))));
    }
    sample
}

/// A sample past its deadline: the iterations its contexts had run, all
/// together, are in the message.
fn timed_out(plan: &AllCorePlan, had: Reported) -> CpuAllCoreSample {
    let msg = format!("sample exceeded {:?} after {} iterations", plan.timeout, had.iterations);
    failed(Status::Timeout, &msg, plan.contexts)
}

/// A sample that ended without a measurement: also the interrupted sample
/// `interrupt` records.
pub fn failed(status: Status, message: &str, contexts: u32) -> CpuAllCoreSample {
    CpuAllCoreSample {
        status,
        message: Some(Message::lossy(message)),
        contexts,
        iterations: None,
        elapsed_s: None,
        cpu_s: None,
        validation_crcs: None,
        validation: None,
        threads: Vec::new(),
    }
}

/// `n` fresh instances with the performance seeds, allocated and
/// initialised before the clock starts, as EEMBC's main() does.
fn instances(n: u32) -> Option<Vec<CoreMark>> {
    (0..n).map(|_| CoreMark::new(TOTAL_DATA_BYTES, PERFORMANCE)).collect()
}

/// The iterations per context that last about the sample's seconds with
/// every context running, and the batch that lasts about `BATCH_TARGET`:
/// found by parallel runs on throwaway instances of doubling length (which
/// also warm the caches and the CPUs' clocks up). `None` once the sample is
/// abandoned.
fn calibrate(plan: &AllCorePlan, mailbox: &Mailbox<Reported>) -> Result<Option<(u64, u32)>, String> {
    let mut k: u32 = 1;
    loop {
        if mailbox.abandoned() {
            return Ok(None);
        }
        let warm = instances(plan.contexts).ok_or("CoreMark could not be initialised")?;
        let ran = run_parallel(warm, u64::from(k), k, &|_| !mailbox.abandoned())?;
        if ran.stopped {
            return Ok(None);
        }
        if ran.elapsed >= CALIBRATION_TARGET || k >= 1 << 24 {
            let per_s = f64::from(k) / ran.elapsed.as_secs_f64().max(1e-9);
            let iterations = (per_s * plan.seconds.as_secs_f64()).ceil().max(1.0) as u64;
            let batch = (per_s * BATCH_TARGET.as_secs_f64()).ceil().clamp(1.0, f64::from(u32::MAX)) as u32;
            return Ok(Some((iterations, batch)));
        }
        k *= 2;
    }
}

/// What one context did.
#[derive(Debug, Clone)]
struct ContextRun {
    first_cpu: Option<SeenCpu>,
    last_cpu: Option<SeenCpu>,
    iterations: u64,
    /// From the start of the run to this context's end.
    end: Duration,
    cpu: Option<Duration>,
    crcs: Crcs,
}

/// What a parallel run did.
#[derive(Debug)]
struct Parallel {
    contexts: Vec<ContextRun>,
    /// From before the first thread was started to after the last join.
    elapsed: Duration,
    /// Whether `keep_going` stopped it before every context ran its count.
    stopped: bool,
}

/// Runs each instance on a thread of its own, all at once, `iterations`
/// each in batches of `batch`; after each batch `keep_going` is told the
/// iterations just run, and when it answers `false` every context stops at
/// its next batch. The clock runs from before the first thread is started
/// to after the last one is joined, as EEMBC's `start_time()` and
/// `stop_time()` around `core_start_parallel` and `core_stop_parallel`.
fn run_parallel(
    instances: Vec<CoreMark>,
    iterations: u64,
    batch: u32,
    keep_going: &(dyn Fn(u64) -> bool + Sync),
) -> Result<Parallel, String> {
    let stop = AtomicBool::new(false);
    let batch = u64::from(batch.max(1));
    let start = Instant::now();
    let joined: Vec<Result<ContextRun, String>> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (k, mut cm) in instances.into_iter().enumerate() {
            let stop = &stop;
            let spawned = std::thread::Builder::new().name(format!("coremark {k}")).spawn_scoped(scope, move || {
                if let Err(e) = affinity::join_group_of(k as u32) {
                    stop.store(true, Ordering::Release);
                    return Err(format!("context {k}: {e}"));
                }
                let seen = || affinity::current_group_cpu().map(|(group, cpu)| SeenCpu { cpu, group });
                let first_cpu = seen();
                let cpu_before = cputime::thread_cpu();
                let mut done = 0u64;
                while done < iterations && !stop.load(Ordering::Acquire) {
                    let n = batch.min(iterations - done);
                    cm.run(n as u32);
                    done += n;
                    if !keep_going(n) {
                        stop.store(true, Ordering::Release);
                    }
                }
                let end = start.elapsed();
                let cpu = cpu_before.zip(cputime::thread_cpu()).map(|(b, a)| a.saturating_sub(b));
                Ok(ContextRun { first_cpu, last_cpu: seen(), iterations: done, end, cpu, crcs: cm.crcs() })
            });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    // The scope joins the threads already started, which
                    // stop at their next batch.
                    stop.store(true, Ordering::Release);
                    return vec![Err(format!("cannot start the thread of context {k}: {e}"))];
                }
            }
        }
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let elapsed = start.elapsed();
    let contexts = joined.into_iter().collect::<Result<Vec<_>, _>>()?;
    let stopped = contexts.iter().any(|c| c.iterations < iterations);
    Ok(Parallel { contexts, elapsed, stopped })
}

impl Stage for AllCorePlan {
    type Section = CpuAllCoreStage;
    const KIND: StageKind = StageKind::CpuAllCore;

    fn samples(&self) -> usize {
        self.samples as usize
    }

    fn empty(&self) -> CpuAllCoreStage {
        CpuAllCoreStage { samples: Vec::new() }
    }

    fn place(section: CpuAllCoreStage, stages: &mut Stages) {
        stages.cpu_allcore = Some(section);
    }

    fn notices(&self) -> Vec<Notice> {
        Vec::new()
    }

    fn intro(&self) -> Option<String> {
        Some(format!(
            "{}, built by {}; {} contexts at once, one per logical CPU, placed by the OS",
            coremark::implementation(),
            coremark::build::COMPILER,
            self.contexts
        ))
    }

    fn run(
        &self,
        progress: &mut Progress,
        mut after_sample: impl FnMut(&CpuAllCoreStage, Option<&Notice>) -> anyhow::Result<()>,
    ) -> anyhow::Result<(CpuAllCoreStage, Vec<Notice>)> {
        Ok((run(self, progress, |partial| after_sample(partial, None))?, Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never_stop(_: u64) -> bool {
        true
    }

    /// N contexts, each its own instance, all run the same count: each
    /// reports it, and the same seeds and count give every context the
    /// same final CRC.
    #[test]
    fn every_context_runs_the_same_iterations() {
        let ran = run_parallel(instances(3).unwrap(), 1000, 64, &never_stop).unwrap();
        assert_eq!(ran.contexts.len(), 3);
        assert!(!ran.stopped);
        for c in &ran.contexts {
            assert_eq!(c.iterations, 1000);
            // crcfinal of 1000 performance iterations (coremark.md).
            assert_eq!(c.crcs.final_, 0xd340);
        }
    }

    /// contexts × iterations ÷ the wall time to the last join, which no
    /// context's own end comes after.
    #[test]
    fn the_figure_is_contexts_times_iterations_over_the_time_to_the_last_join() {
        let ran = run_parallel(instances(2).unwrap(), 500, 100, &never_stop).unwrap();
        let validation = one_thread::one_iteration(VALIDATION).unwrap();
        let sample = sample_of(2, 500, &ran, validation);
        assert_eq!(sample.status, Status::Ok, "{:?}", sample.message);
        assert_eq!(sample.iterations_per_s(), Some(2.0 * 500.0 / ran.elapsed.as_secs_f64()));
        let last = ran.contexts.iter().map(|c| c.end).max().unwrap();
        assert!(ran.elapsed >= last, "{:?} < {last:?}", ran.elapsed);
        assert_eq!(sample.threads.len(), 2);
        if cfg!(any(target_os = "linux", windows)) {
            assert!(sample.threads.iter().all(|t| t.first_cpu.is_some() && t.last_cpu.is_some()));
        }
    }

    /// A context whose data are not the performance run's (here: built
    /// with the validation seeds) fails the sample, named by its number.
    #[test]
    fn a_corrupted_context_fails_its_sample() {
        let mut contexts = instances(2).unwrap();
        contexts[1] = CoreMark::new(TOTAL_DATA_BYTES, VALIDATION).unwrap();
        let ran = run_parallel(contexts, 1, 1, &never_stop).unwrap();
        let validation = one_thread::one_iteration(VALIDATION).unwrap();
        let sample = sample_of(2, 1, &ran, validation);
        assert_eq!(sample.status, Status::Error);
        assert_eq!(sample.validation, Some(Validation::Failed));
        assert_eq!(sample.iterations_per_s(), None);
        assert_eq!(
            sample.message.unwrap().as_str(),
            "CoreMark CRC check failed: context 1: performance run: seedcrc 0x18f2, expected 0xe9f5, crclist \
             0xe3c1, expected 0xe714, crcmatrix 0x0747, expected 0x1fd7, crcstate 0x8d84, expected 0x8e3a, crcfinal \
             0xe3c1, context 0 has 0xe714"
        );
    }

    /// `keep_going` answering false stops every context at its next batch.
    #[test]
    fn a_stopped_run_stops_every_context() {
        let ran = run_parallel(instances(2).unwrap(), 1_000_000, 10, &|_| false).unwrap();
        assert!(ran.stopped);
        assert!(ran.contexts.iter().all(|c| c.iterations <= 10), "{:?}", ran.contexts);
    }

    #[test]
    fn a_short_sample_on_every_cpu_validates() {
        let contexts = affinity::offered_cpus();
        assert!(contexts >= 1);
        let plan =
            AllCorePlan { samples: 1, seconds: Duration::from_millis(300), timeout: Duration::from_secs(30), contexts };
        let sample = measure(&plan);
        assert_eq!(sample.status, Status::Ok, "{:?}", sample.message);
        assert_eq!(sample.contexts, contexts);
        assert_eq!(sample.threads.len(), contexts as usize);
        assert!(sample.elapsed_s.unwrap().get() > 0.0);
        assert!(sample.iterations_per_s().unwrap() > 100.0);
    }

    #[test]
    fn a_sample_past_its_timeout_is_recorded_as_such() {
        let plan = AllCorePlan { samples: 1, seconds: Duration::from_secs(60), timeout: Duration::ZERO, contexts: 2 };
        let sample = measure(&plan);
        assert_eq!(sample.status, Status::Timeout);
        assert_eq!(sample.iterations_per_s(), None);
        assert!(sample.message.unwrap().as_str().starts_with("sample exceeded 0ns after "));
    }
}
