//! The CPU stage: CoreMark, one thread, pinned to one logical CPU.
//!
//! A sample first runs CoreMark's validation seeds once, then runs the
//! performance seeds for at least the profile's CPU seconds, in batches whose
//! size is calibrated on a separate instance so that reading the clock costs
//! nothing measurable. iterations/s = iterations ÷ elapsed seconds. Both
//! runs' CRCs must match the published values, or the sample is no result.
//! The sample runs on a thread of its own, abandoned at the sample timeout
//! (`watchdog`), so a timeout fires even if the thread never runs again.
//!
//! Files: coremark.rs (the workload, compiled from C); here the samples.

use std::time::{Duration, Instant};

use runner_bench_format::measured::{CoreMarkCrcs, CpuSample, CpuStage, Stages, Status, Validation};
use runner_bench_format::{Affinity, Message, Name, NonNeg, Notice, Parameters};

use crate::platform::affinity;
pub mod coremark;

use crate::platform::cputime;
use crate::platform::progress::Progress;
use crate::platform::watchdog::{self, Ended, Mailbox};
use crate::stage::{Stage, StageKind};
use coremark::{CoreMark, Crcs, PERFORMANCE, Seeds, TOTAL_DATA_BYTES, VALIDATION};

/// A batch should take about this long, so the clock is read rarely but a
/// sample still ends close to its target time.
pub(crate) const BATCH_TARGET: Duration = Duration::from_millis(20);

/// What the stage needs to know.
#[derive(Debug, Clone)]
pub struct CpuPlan {
    pub samples: u32,
    pub seconds: Duration,
    pub timeout: Duration,
    /// The CPU to pin to; `None` runs unpinned (macOS).
    pub cpu: Option<u32>,
}

impl CpuPlan {
    pub fn new(params: &Parameters, cpu: Option<u32>) -> Self {
        CpuPlan {
            samples: params.cpu_samples,
            seconds: Duration::from_secs(params.cpu_seconds.into()),
            timeout: Duration::from_secs(params.sample_timeout_s.into()),
            cpu,
        }
    }
}

/// Runs every requested sample; `after_sample` sees the stage after each
/// one, so the caller can write it out before the next begins.
pub fn run(
    plan: &CpuPlan,
    progress: &mut Progress,
    after_sample: impl FnMut(&CpuStage) -> anyhow::Result<()>,
) -> anyhow::Result<CpuStage> {
    let stage = CpuStage { samples: Vec::new() };
    let push = |s: &mut CpuStage, sample| s.samples.push(sample);
    each_sample(stage, (plan.samples, plan.seconds), progress, || measure(plan), describe, push, after_sample)
}

/// One sample after another, as both CoreMark stages run them: the
/// progress line before and after each, the sample added to the stage, and
/// `after_sample` given the stage, so the caller can write it out before
/// the next begins. `(count, seconds)` are the samples requested and each
/// one's length, for the progress line's time left.
pub(crate) fn each_sample<S, T>(
    mut stage: S,
    (count, seconds): (u32, Duration),
    progress: &mut Progress,
    mut measure: impl FnMut() -> T,
    describe: impl Fn(&T) -> String,
    push: impl Fn(&mut S, T),
    mut after_sample: impl FnMut(&S) -> anyhow::Result<()>,
) -> anyhow::Result<S> {
    let n = count as usize;
    for k in 1..=n {
        progress.sample_start(k, n, seconds * (n - k + 1) as u32);
        let sample = measure();
        progress.sample_done(k, n, &describe(&sample));
        push(&mut stage, sample);
        after_sample(&stage)?;
    }
    Ok(stage)
}

fn describe(sample: &CpuSample) -> String {
    match (sample.iterations_per_s(), &sample.message) {
        (Some(ips), _) => format!("{ips:.2} iterations/s"),
        (None, Some(m)) => format!("{:?}: {m}", sample.status).to_lowercase(),
        (None, None) => "no score".to_string(),
    }
}

/// What a sample's thread has reported so far, for a sample abandoned at
/// its deadline.
#[derive(Debug, Clone, Copy)]
struct Reported {
    affinity: Affinity,
    iterations: u64,
}

/// One sample, on a thread of its own that is abandoned at the sample's
/// deadline (`watchdog`): a sample past its timeout ends as `timeout` on
/// time even if its thread is stopped or never scheduled. Never fails: what
/// went wrong is recorded in the sample.
pub fn measure(plan: &CpuPlan) -> CpuSample {
    let deadline = Instant::now() + plan.timeout;
    // Until the thread has pinned itself, the affinity it is about to have.
    let planned = plan.cpu.map_or(Affinity::Unpinned, |cpu| Affinity::Pinned { cpu, group: 0 });
    let worker_plan = plan.clone();
    let reported = Reported { affinity: planned, iterations: 0 };
    match watchdog::run("cpu sample", deadline, reported, move |mailbox| {
        measure_on_this_thread(&worker_plan, deadline, mailbox)
    }) {
        Ok(Ended::Finished(sample)) => sample,
        Ok(Ended::TimedOut(had)) => timed_out(plan, had),
        Err(e) => failed(Status::Error, &format!("cannot start the sample's thread: {e}"), planned),
    }
}

fn measure_on_this_thread(plan: &CpuPlan, deadline: Instant, mailbox: &Mailbox<Reported>) -> CpuSample {
    let _guard = match plan.cpu.map(affinity::pin_current_thread).transpose() {
        Ok(guard) => guard,
        Err(e) => return failed(Status::Error, &e.to_string(), affinity::observed()),
    };
    let in_force = affinity::observed();
    // Abandoned before the timed loop (a thread stopped or never scheduled
    // until its deadline): it stops at the next of these checks, so that it
    // runs on the pinned CPU beside a later sample for at most one
    // calibration run (under 2 × BATCH_TARGET), as in the loop one batch.
    let abandoned = Reported { affinity: in_force, iterations: 0 };
    if !mailbox.update(|r| r.affinity = in_force) {
        return timed_out(plan, abandoned);
    }
    let Some(validation) = one_iteration(VALIDATION) else {
        return failed(Status::Error, "CoreMark could not be initialised", in_force);
    };
    let Some(batch) = calibrate(mailbox) else {
        return timed_out(plan, abandoned);
    };
    let Some(mut cm) = CoreMark::new(TOTAL_DATA_BYTES, PERFORMANCE) else {
        return failed(Status::Error, "CoreMark could not be initialised", in_force);
    };
    // Abandoned during the last calibration run: no batch after it.
    if mailbox.abandoned() {
        return timed_out(plan, abandoned);
    }

    let steal_before = steal_ticks(in_force);
    let cpu_before = cputime::thread_cpu();
    let start = Instant::now();
    let mut iterations = 0u64;
    let mut strayed: Option<u32> = None;
    let elapsed = loop {
        cm.run(batch);
        iterations += u64::from(batch);
        let had = Reported { affinity: in_force, iterations };
        // Abandoned: a later sample may already run on this CPU.
        if !mailbox.update(|r| *r = had) {
            return timed_out(plan, had);
        }
        #[cfg(all(test, unix))]
        crate::platform::watchdog::seam::point("cpu batch");
        if let (Some(pinned), Some(now)) = (plan.cpu, affinity::current_cpu())
            && now != pinned
        {
            strayed = Some(now);
        }
        // The deadline first: a sample that took longer than its timeout
        // is a timeout even when it also ran its seconds.
        if Instant::now() >= deadline {
            return timed_out(plan, had);
        }
        let elapsed = start.elapsed();
        if elapsed >= plan.seconds {
            break elapsed;
        }
    };

    let cpu_s = cpu_before.zip(cputime::thread_cpu()).and_then(|(before, after)| {
        // The two clocks are read apart: never more CPU than wall time.
        NonNeg::new(after.saturating_sub(before).min(elapsed).as_secs_f64()).ok()
    });
    let crcs = cm.crcs();
    let mut sample = CpuSample {
        status: Status::Ok,
        message: None,
        affinity: in_force,
        iterations: Some(iterations),
        elapsed_s: NonNeg::new(elapsed.as_secs_f64()).ok(),
        cpu_s,
        crcs: Some(recorded(crcs)),
        validation_crcs: Some(recorded(validation)),
        validation: Some(Validation::Passed),
        steal_s: steal_before
            .zip(steal_ticks(in_force))
            .zip(ticks_per_s())
            .and_then(|((before, after), hz)| NonNeg::new(after.saturating_sub(before) as f64 / hz).ok()),
    };
    let mismatches: Vec<String> =
        [mismatch("performance", PERFORMANCE, crcs), mismatch("validation", VALIDATION, validation)]
            .into_iter()
            .flatten()
            .collect();
    if !mismatches.is_empty() {
        sample.status = Status::Error;
        sample.validation = Some(Validation::Failed);
        sample.message = Some(Message::lossy(&format!("CoreMark CRC check failed: {}", mismatches.join("; "))));
    } else if let Some(cpu) = strayed {
        sample.status = Status::Error;
        sample.message = Some(Message::lossy(&format!("the pinned thread was seen on CPU {cpu}")));
    } else if affinity::observed() != in_force {
        sample.status = Status::Error;
        sample.message = Some(Message::lossy("the thread's affinity changed during the sample"));
    }
    sample
}

/// A sample past its deadline: the iterations it had run are in the
/// message; with no elapsed time of its own, it has no score.
fn timed_out(plan: &CpuPlan, had: Reported) -> CpuSample {
    let msg = format!("sample exceeded {:?} after {} iterations", plan.timeout, had.iterations);
    failed(Status::Timeout, &msg, had.affinity)
}

pub(crate) fn one_iteration(seeds: Seeds) -> Option<Crcs> {
    let mut cm = CoreMark::new(TOTAL_DATA_BYTES, seeds)?;
    cm.run(1);
    Some(cm.crcs())
}

/// The batch size that takes about `BATCH_TARGET`, found on a throwaway
/// instance; this also warms the caches and the CPU's clock up. None once
/// the sample is abandoned (checked before each run).
fn calibrate<P>(mailbox: &Mailbox<P>) -> Option<u32> {
    let Some(mut warm) = CoreMark::new(TOTAL_DATA_BYTES, PERFORMANCE) else { return Some(1) };
    let mut batch = 1u32;
    loop {
        if mailbox.abandoned() {
            return None;
        }
        let t = Instant::now();
        warm.run(batch);
        if t.elapsed() >= BATCH_TARGET || batch >= 1 << 24 {
            return Some(batch);
        }
        batch *= 2;
    }
}

pub(crate) fn mismatch(run: &str, seeds: Seeds, got: Crcs) -> Option<String> {
    let want = coremark::expected(seeds)?;
    let names = ["seedcrc", "crclist", "crcmatrix", "crcstate"];
    let have = [got.seed, got.list, got.matrix, got.state];
    let wrong: Vec<String> = names
        .iter()
        .zip(have.iter().zip(want.iter()))
        .filter(|(_, (h, w))| h != w)
        .map(|(name, (h, w))| format!("{name} {h:#06x}, expected {w:#06x}"))
        .collect();
    (!wrong.is_empty()).then(|| format!("{run} run: {}", wrong.join(", ")))
}

pub(crate) fn recorded(crcs: Crcs) -> CoreMarkCrcs {
    CoreMarkCrcs { seed: crcs.seed, list: crcs.list, matrix: crcs.matrix, state: crcs.state, final_: crcs.final_ }
}

/// A sample that ended without a measurement: also the interrupted sample
/// `interrupt` records.
pub fn failed(status: Status, message: &str, affinity: Affinity) -> CpuSample {
    CpuSample {
        status,
        message: Some(Message::lossy(message)),
        affinity,
        iterations: None,
        elapsed_s: None,
        cpu_s: None,
        crcs: None,
        validation_crcs: None,
        validation: None,
        steal_s: None,
    }
}

/// The steal time of the pinned CPU so far, in clock ticks: the eighth
/// number of its `cpuN` line in /proc/stat. `None` when unpinned or where
/// the OS does not report it.
fn steal_ticks(affinity: Affinity) -> Option<u64> {
    let Affinity::Pinned { cpu, .. } = affinity else { return None };
    steal_of(&std::fs::read_to_string("/proc/stat").ok()?, cpu)
}

fn steal_of(stat: &str, cpu: u32) -> Option<u64> {
    let name = format!("cpu{cpu}");
    let line = stat.lines().find(|l| l.split_whitespace().next() == Some(name.as_str()))?;
    line.split_whitespace().nth(8)?.parse().ok()
}

#[cfg(target_os = "linux")]
fn ticks_per_s() -> Option<f64> {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (ticks > 0).then_some(ticks as f64)
}

#[cfg(not(target_os = "linux"))]
fn ticks_per_s() -> Option<f64> {
    None
}

impl Stage for CpuPlan {
    type Section = CpuStage;
    const KIND: StageKind = StageKind::Cpu;

    fn samples(&self) -> usize {
        self.samples as usize
    }

    fn empty(&self) -> CpuStage {
        CpuStage { samples: Vec::new() }
    }

    fn place(section: CpuStage, stages: &mut Stages) {
        stages.cpu = Some(section);
    }

    fn notices(&self) -> Vec<Notice> {
        match self.cpu {
            Some(_) => Vec::new(),
            None => vec![Notice {
                stage: Name::lossy("cpu"),
                message: Message::lossy("this OS has no hard CPU affinity: CoreMark ran unpinned"),
            }],
        }
    }

    fn intro(&self) -> Option<String> {
        Some(format!(
            "{}, built by {} with {}; {}",
            coremark::implementation(),
            coremark::build::COMPILER,
            coremark::build::FLAGS.replace(coremark::build::FLAG_SEPARATOR, " "),
            match self.cpu {
                Some(cpu) => format!("pinned to CPU {cpu}"),
                None => "unpinned".to_string(),
            }
        ))
    }

    fn run(
        &self,
        progress: &mut Progress,
        mut after_sample: impl FnMut(&CpuStage, Option<&Notice>) -> anyhow::Result<()>,
    ) -> anyhow::Result<(CpuStage, Vec<Notice>)> {
        Ok((run(self, progress, |partial| after_sample(partial, None))?, Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_the_eighth_number_of_the_cpu_line() {
        let stat = "cpu  809461 103645 232830 634149 41621 0 14181 41438 0 0\n\
                    cpu0 380185 56252 118047 321859 33863 0 4450 23708 0 0\n\
                    cpu1 429276 47393 114783 312290 7757 0 9731 17729 0 0\n";
        assert_eq!(steal_of(stat, 1), Some(17729));
        assert_eq!(steal_of(stat, 0), Some(23708));
        assert_eq!(steal_of(stat, 2), None);
    }

    #[test]
    fn a_short_pinned_sample_validates() {
        let cpu = affinity::choose_cpu(None).unwrap();
        let plan = CpuPlan { samples: 1, seconds: Duration::from_millis(300), timeout: Duration::from_secs(30), cpu };
        let sample = measure(&plan);
        assert_eq!(sample.status, Status::Ok, "{:?}", sample.message);
        assert_eq!(sample.validation, Some(Validation::Passed));
        assert!(sample.elapsed_s.unwrap().get() >= 0.3);
        if let Some(cpu) = cpu {
            assert_eq!(sample.affinity, Affinity::Pinned { cpu, group: 0 });
        }
        assert!(sample.iterations_per_s().unwrap() > 100.0);
    }

    #[test]
    fn a_sample_past_its_timeout_is_recorded_as_such() {
        let plan = CpuPlan { samples: 1, seconds: Duration::from_secs(60), timeout: Duration::ZERO, cpu: None };
        let sample = measure(&plan);
        assert_eq!(sample.status, Status::Timeout);
        assert_eq!(sample.iterations_per_s(), None);
        assert!(sample.message.unwrap().as_str().starts_with("sample exceeded 0ns after "));
    }

    /// A sample's thread that gets to run only after its deadline (stopped,
    /// or never scheduled) stops before its timed loop: it reports the
    /// timeout without running a batch on the CPU a later sample may use.
    #[test]
    fn a_thread_abandoned_before_its_loop_runs_no_batch() {
        let plan =
            CpuPlan { samples: 1, seconds: Duration::from_secs(60), timeout: Duration::from_millis(100), cpu: None };
        let deadline = Instant::now() + plan.timeout;
        let (resume, wait) = std::sync::mpsc::channel::<()>();
        let (sent, got) = std::sync::mpsc::channel::<(CpuSample, Duration)>();
        let worker_plan = plan.clone();
        let ended = watchdog::run("t", deadline, Reported { affinity: Affinity::Unpinned, iterations: 0 }, move |m| {
            wait.recv().unwrap();
            let before = cputime::thread_cpu().unwrap();
            let sample = measure_on_this_thread(&worker_plan, deadline, m);
            sent.send((sample, cputime::thread_cpu().unwrap() - before)).unwrap();
        })
        .unwrap();
        assert!(matches!(ended, Ended::TimedOut(_)));
        resume.send(()).unwrap();
        let (sample, cpu_time) = got.recv().unwrap();
        assert_eq!(sample.status, Status::Timeout);
        assert_eq!(sample.message.unwrap().as_str(), "sample exceeded 100ms after 0 iterations");
        // Its own CPU time, which waiting for a CPU does not add to: a
        // calibration alone would have taken BATCH_TARGET.
        assert!(cpu_time < BATCH_TARGET / 2, "it ran for {cpu_time:?} of CPU time");
    }

    /// How far past its timeout a sample may end: the watchdog wakes at the
    /// deadline, and this leaves room for a busy test machine's scheduler.
    /// (Only the test of a sample blocked in the kernel, Unix only, uses it.)
    #[cfg(unix)]
    const LATE: Duration = Duration::from_millis(500);

    #[test]
    fn a_sample_that_ran_its_seconds_past_its_timeout_is_a_timeout() {
        // Validation and calibration come before the timed seconds, inside
        // the timeout: the seconds end after the deadline.
        let t = Duration::from_millis(200);
        let plan = CpuPlan { samples: 1, seconds: t, timeout: t, cpu: None };
        let sample = measure(&plan);
        assert_eq!(sample.status, Status::Timeout, "{:?}", sample.message);
        assert!(sample.message.unwrap().as_str().starts_with("sample exceeded 200ms after "));
    }

    #[cfg(unix)]
    #[test]
    fn a_sample_blocked_in_the_kernel_ends_on_time_and_the_next_one_runs() {
        let cpu = affinity::choose_cpu(None).unwrap();
        // Room for the second sample (validation, calibration and 300 ms)
        // to end `ok` on a loaded test VM, where the disk stage's like test
        // once timed out with 1 s.
        let timeout = Duration::from_secs(3);
        let plan = CpuPlan { samples: 2, seconds: Duration::from_millis(300), timeout, cpu };
        crate::platform::watchdog::seam::stall("cpu sample", 1, "cpu batch");
        let start = Instant::now();
        let mut ended = Vec::new();
        let stage = run(&plan, &mut Progress::quiet(), |_| {
            ended.push(start.elapsed());
            Ok(())
        })
        .unwrap();
        let first = &stage.samples[0];
        assert_eq!(first.status, Status::Timeout);
        let message = first.message.as_ref().unwrap().as_str();
        let iterations: u64 = message
            .strip_prefix("sample exceeded 3s after ")
            .and_then(|rest| rest.strip_suffix(" iterations"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{message}"));
        assert!(iterations > 0, "the iterations of the batch before the stall are kept");
        assert!(ended[0] >= timeout && ended[0] <= timeout + LATE, "{:?}", ended[0]);
        if let Some(cpu) = cpu {
            assert_eq!(first.affinity, Affinity::Pinned { cpu, group: 0 });
        }
        assert_eq!(stage.samples[1].status, Status::Ok, "{:?}", stage.samples[1].message);
        assert!(stage.samples[1].iterations_per_s().is_some());
    }

    #[test]
    fn crc_mismatches_are_named() {
        let got = Crcs { seed: 0xe9f5, list: 0x1234, matrix: 0x1fd7, state: 0x8e3a, final_: 0 };
        assert_eq!(
            mismatch("performance", PERFORMANCE, got).unwrap(),
            "performance run: crclist 0x1234, expected 0xe714"
        );
    }
}
