//! The CPU stage: CoreMark, one thread, pinned to one logical CPU.
//!
//! Each sample runs the workload as a program of its own (`process`: the
//! executable build.rs links, embedded in the collector: EEMBC's own
//! core_main.c in a Linux build from EEMBC's sources, built as its Makefile
//! builds coremark.exe, else vendor/coremark/workload_main.c, which takes
//! the same arguments and prints the same report lines), started from the
//! thread pinned to the CPU, whose affinity it inherits, as coremark.exe
//! is run: the seeds and an iteration count on its command line. A sample
//! runs it once with the validation seeds and one iteration; then with the
//! performance seeds and doubling counts until a run lasts
//! `CALIBRATION_TARGET`, which finds the count that lasts about the
//! profile's seconds (and warms the caches and the CPU's clock up); then once
//! with that count, the measurement. iterations/s = iterations ÷ the
//! program's own `Total time (secs)`, as coremark.exe scores; the CPU time
//! is what the OS charged the measured run's process. Both runs' CRCs must
//! match the published values, or the sample is no result. The sample
//! waits for the programs on a thread of its own, abandoned at the sample
//! timeout (`watchdog`), so a timeout fires even if that thread never runs
//! again; a program still running at the deadline is killed, and one whose
//! waiting thread is stopped ends with its count, about the profile's
//! seconds.
//!
//! Files: coremark.rs (the workload's identity and reference values),
//! process.rs (the workload's programs); here the samples.

use std::time::{Duration, Instant};

use runner_bench_format::measured::{CoreMarkCrcs, CpuSample, CpuStage, Stages, Status, Validation};
use runner_bench_format::{Affinity, Message, Name, NonNeg, Notice, Parameters};

use crate::platform::affinity;
pub mod coremark;
pub mod process;

#[cfg(test)]
use crate::platform::cputime;
use crate::platform::progress::Progress;
use crate::platform::watchdog::{self, Ended, Mailbox};
use crate::stage::{Stage, StageKind};
use coremark::{Crcs, PERFORMANCE, Seeds, VALIDATION};

/// The runs that find the iteration count double it until one lasts at
/// least this long.
const CALIBRATION_TARGET: Duration = Duration::from_millis(250);
/// The count of the first of those runs.
const CALIBRATION_START: u64 = 1024;
/// coremark.exe counts iterations in 32 bits.
const MAX_ITERATIONS: u64 = u32::MAX as u64;

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
/// its deadline: the affinity in force.
#[derive(Debug, Clone, Copy)]
struct Reported {
    affinity: Affinity,
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
    let reported = Reported { affinity: planned };
    match watchdog::run("cpu sample", deadline, reported, move |mailbox| {
        measure_on_this_thread(&worker_plan, deadline, mailbox)
    }) {
        Ok(Ended::Finished(sample)) => sample,
        Ok(Ended::TimedOut(had)) => timed_out(plan, had),
        Err(e) => failed(Status::Error, &format!("cannot start the sample's thread: {e}"), planned),
    }
}

fn measure_on_this_thread(plan: &CpuPlan, deadline: Instant, mailbox: &Mailbox<Reported>) -> CpuSample {
    let planned = plan.cpu.map_or(Affinity::Unpinned, |cpu| Affinity::Pinned { cpu, group: 0 });
    let exe = match process::write(&process::ONE_THREAD) {
        Ok(exe) => exe,
        Err(e) => return failed(Status::Error, &format!("cannot write the workload executable: {e}"), planned),
    };
    // The programs inherit the affinity: on Linux the thread's, on Windows
    // the process's, which `pin_process` narrows too.
    let guard = match plan.cpu.map(affinity::pin_process).transpose() {
        Ok(guard) => guard,
        Err(e) => return failed(Status::Error, &e.to_string(), affinity::observed()),
    };
    let in_force = affinity::observed();
    let timed_out = || timed_out(plan, Reported { affinity: in_force });
    // Abandoned before a program starts (a thread stopped or never
    // scheduled until its deadline): none is started at all.
    if !mailbox.update(|r| r.affinity = in_force) {
        return timed_out();
    }
    let run = |seeds: Seeds, iterations: u64| -> Result<(process::Report, Option<Duration>), Option<String>> {
        let running = process::start(exe.path(), &process::arguments(seeds, iterations))
            .map_err(|e| Some(format!("cannot start the workload executable: {e}")))?;
        ended(process::wait(running, deadline, || mailbox.abandoned(), |_| ()), iterations)
    };
    let validation = match run(VALIDATION, 1) {
        Ok((report, _)) => report.crcs,
        Err(None) => return timed_out(),
        Err(Some(message)) => return failed(Status::Error, &message, in_force),
    };
    let iterations = match calibrate(plan.seconds, |n| run(PERFORMANCE, n)) {
        Ok(iterations) => iterations,
        Err(None) => return timed_out(),
        Err(Some(message)) => return failed(Status::Error, &message, in_force),
    };
    let steal_before = steal_ticks(in_force);
    let running = match process::start(exe.path(), &process::arguments(PERFORMANCE, iterations)) {
        Ok(running) => running,
        Err(e) => return failed(Status::Error, &format!("cannot start the workload executable: {e}"), in_force),
    };
    let inherited = inherited_affinity(&running, plan.cpu);
    // The program has its own affinity now: the waiting thread (and, on
    // Windows, the collector's other threads) need not share its CPU.
    drop(guard);
    #[cfg_attr(not(target_os = "linux"), allow(unused_mut, reason = "only Linux says where a process runs"))]
    let mut strayed: Option<u32> = None;
    let waited = process::wait(
        running,
        deadline,
        || mailbox.abandoned(),
        |_id| {
            #[cfg(all(test, unix))]
            crate::platform::watchdog::seam::point("cpu wait");
            #[cfg(target_os = "linux")]
            if let (Some(pinned), Some(now)) = (plan.cpu, process::last_cpu(_id))
                && now != pinned
            {
                strayed = Some(now);
            }
        },
    );
    let steal_s = steal_before
        .zip(steal_ticks(in_force))
        .zip(ticks_per_s())
        .and_then(|((before, after), hz)| NonNeg::new(after.saturating_sub(before) as f64 / hz).ok());
    let mut sample = match ended(waited, iterations) {
        Ok((report, _)) if report.seconds <= 0.0 => {
            return failed(Status::Error, "the workload's measured run took no time on its timer", in_force);
        }
        Ok((report, cpu)) => judged(report, validation, cpu, in_force, steal_s),
        Err(None) => return timed_out(),
        Err(Some(message)) => return failed(Status::Error, &message, in_force),
    };
    if sample.status == Status::Ok {
        let problem = match (inherited, strayed) {
            (Err(message), _) => Some(message),
            (_, Some(cpu)) => Some(format!("the pinned workload process was seen on CPU {cpu}")),
            _ => None,
        };
        if let Some(message) = problem {
            sample.status = Status::Error;
            sample.message = Some(Message::lossy(&message));
        }
    }
    sample
}

/// What a run of the program that was to run `iterations` gave: its report
/// and CPU time; `Err(None)` where it was stopped at the deadline or the
/// sample was abandoned; `Err(Some(why))` where it failed or its report
/// cannot be read.
fn ended(waited: process::Waited, iterations: u64) -> Result<(process::Report, Option<Duration>), Option<String>> {
    let process::Waited::Exited { status, stdout, stderr, cpu } = waited else { return Err(None) };
    if !status.success() {
        return Err(Some(process::exit_message("the workload", status, &stderr)));
    }
    let report = process::parse(&stdout).map_err(Some)?;
    if report.iterations != iterations {
        return Err(Some(format!("the workload ran {} iterations, not {iterations}", report.iterations)));
    }
    Ok((report, cpu))
}

/// The iteration count that lasts about `seconds`: runs of
/// `CALIBRATION_START`, twice that, and so on (`run`), until one lasts
/// `CALIBRATION_TARGET`, scaled from it. Their errors are passed on.
fn calibrate<E>(
    seconds: Duration,
    mut run: impl FnMut(u64) -> Result<(process::Report, Option<Duration>), E>,
) -> Result<u64, E> {
    let mut n = CALIBRATION_START;
    loop {
        let (report, _) = run(n)?;
        if report.seconds >= CALIBRATION_TARGET.as_secs_f64() || n >= MAX_ITERATIONS / 2 {
            let per_s = n as f64 / report.seconds.max(1e-9);
            return Ok(((per_s * seconds.as_secs_f64()).ceil() as u64).clamp(1, MAX_ITERATIONS));
        }
        n *= 2;
    }
}

/// Whether the program inherited the pinned affinity (one CPU, `cpu`), read
/// back from the system: on Linux the pinned thread's, on Windows the
/// process mask `pin_process` set, in processor group 0 only (a program
/// placed in another group, as Windows may do on a machine of several, is
/// refused, not measured on the wrong CPU). macOS pins nothing.
fn inherited_affinity(_running: &process::Running, cpu: Option<u32>) -> Result<(), String> {
    let Some(cpu) = cpu else { return Ok(()) };
    #[cfg(target_os = "linux")]
    let cpus = process::allowed_cpus(_running.id()).ok_or("cannot read the workload process's affinity")?;
    #[cfg(windows)]
    let cpus = process::allowed_cpus_of(_running)
        .ok_or("cannot read the workload process's affinity in processor group 0 (it may be in another group)")?;
    #[cfg(not(any(target_os = "linux", windows)))]
    let cpus = [cpu];
    if cpus != [cpu] {
        return Err(format!("the workload process may run on CPUs {}, not only on CPU {cpu}", affinity::list(&cpus)));
    }
    Ok(())
}

/// The sample the measured run's report, its CPU time and the validation
/// run's CRCs make: its figures, and `error` where a CRC differs from the
/// published value.
fn judged(
    report: process::Report,
    validation: Crcs,
    cpu: Option<Duration>,
    affinity: Affinity,
    steal_s: Option<NonNeg>,
) -> CpuSample {
    let elapsed = report.seconds;
    let mut sample = CpuSample {
        status: Status::Ok,
        message: None,
        affinity,
        iterations: Some(report.iterations),
        elapsed_s: NonNeg::new(elapsed).ok(),
        // The process's CPU time includes its start and the data's set-up
        // around the timed iterations: never more CPU than timed seconds.
        cpu_s: cpu.and_then(|cpu| NonNeg::new(cpu.as_secs_f64().min(elapsed)).ok()),
        crcs: Some(recorded(report.crcs)),
        validation_crcs: Some(recorded(validation)),
        validation: Some(Validation::Passed),
        steal_s,
    };
    let mismatches: Vec<String> =
        [mismatch("performance", PERFORMANCE, report.crcs), mismatch("validation", VALIDATION, validation)]
            .into_iter()
            .flatten()
            .collect();
    if !mismatches.is_empty() {
        sample.status = Status::Error;
        sample.validation = Some(Validation::Failed);
        sample.message = Some(Message::lossy(&format!("CoreMark CRC check failed: {}", mismatches.join("; "))));
    }
    sample
}

/// A sample past its deadline: with no elapsed time of its own, it has no
/// score.
fn timed_out(plan: &CpuPlan, had: Reported) -> CpuSample {
    let msg = format!("sample exceeded {:?} before the workload process reported", plan.timeout);
    failed(Status::Timeout, &msg, had.affinity)
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
mod tests;
