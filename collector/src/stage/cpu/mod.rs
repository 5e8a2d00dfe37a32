//! The CPU stage: CoreMark, one thread, pinned to one logical CPU.
//!
//! Each sample runs the workload as a program of its own (`process`: the
//! executable build.rs links from the CoreMark objects and
//! vendor/coremark/workload_main.c, embedded in the collector), started
//! from the thread pinned to the CPU, whose affinity it inherits. The
//! program first runs CoreMark's validation seeds once, then runs the
//! performance seeds for at least the profile's CPU seconds, in batches
//! whose size is calibrated on a separate instance so that reading the
//! clock costs nothing measurable, and prints iterations, seconds, its
//! thread's CPU seconds and both runs' CRCs on one line. iterations/s =
//! iterations ÷ elapsed seconds. Both runs' CRCs must match the published
//! values, or the sample is no result. The sample waits for the program on
//! a thread of its own, abandoned at the sample timeout (`watchdog`), so a
//! timeout fires even if that thread never runs again; the program is
//! killed at the deadline, and stops itself there too.
//!
//! Files: coremark.rs (the workload linked in, which the all-core stage
//! runs and the tests check), process.rs (the workload's program); here the
//! samples.

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
    let planned = plan.cpu.map_or(Affinity::Unpinned, |cpu| Affinity::Pinned { cpu, group: 0 });
    let exe = match process::write(&process::ONE_THREAD) {
        Ok(exe) => exe,
        Err(e) => return failed(Status::Error, &format!("cannot write the workload executable: {e}"), planned),
    };
    // The program inherits the affinity: on Linux the thread's, on Windows
    // the process's, which `pin_process` narrows too.
    let guard = match plan.cpu.map(affinity::pin_process).transpose() {
        Ok(guard) => guard,
        Err(e) => return failed(Status::Error, &e.to_string(), affinity::observed()),
    };
    let in_force = affinity::observed();
    // Abandoned before the program starts (a thread stopped or never
    // scheduled until its deadline): it is not started at all.
    if !mailbox.update(|r| r.affinity = in_force) {
        return timed_out(plan, Reported { affinity: in_force, iterations: 0 });
    }
    let steal_before = steal_ticks(in_force);
    let args = process::arguments(plan.seconds, deadline.saturating_duration_since(Instant::now()));
    let running = match process::start(exe.path(), &args) {
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
    let (status, stdout, stderr) = match waited {
        process::Waited::Exited { status, stdout, stderr } => (status, stdout, stderr),
        process::Waited::Stopped => return timed_out(plan, Reported { affinity: in_force, iterations: 0 }),
    };
    if let Some(iterations) = process::deadline_iterations(&stdout) {
        return timed_out(plan, Reported { affinity: in_force, iterations });
    }
    if !status.success() {
        return failed(Status::Error, &process::exit_message(status, &stderr), in_force);
    }
    let mut sample = match process::parse(&stdout) {
        Ok(report) => judged(report, in_force, steal_s),
        Err(e) => return failed(Status::Error, &e, in_force),
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

/// The sample a program's report makes: its figures, and `error` where a
/// CRC differs from the published value.
fn judged(report: process::Report, affinity: Affinity, steal_s: Option<NonNeg>) -> CpuSample {
    let elapsed = report.seconds;
    let mut sample = CpuSample {
        status: Status::Ok,
        message: None,
        affinity,
        iterations: Some(report.iterations),
        elapsed_s: NonNeg::new(elapsed).ok(),
        // The two clocks are read apart: never more CPU than wall time.
        cpu_s: report.cpu_seconds.and_then(|cpu| NonNeg::new(cpu.min(elapsed)).ok()),
        crcs: Some(recorded(report.crcs)),
        validation_crcs: Some(recorded(report.validation)),
        validation: Some(Validation::Passed),
        steal_s,
    };
    let mismatches: Vec<String> =
        [mismatch("performance", PERFORMANCE, report.crcs), mismatch("validation", VALIDATION, report.validation)]
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

/// A sample past its deadline, with the iterations the program said it had
/// run where it said; with no elapsed time of its own, it has no score.
fn timed_out(plan: &CpuPlan, had: Reported) -> CpuSample {
    let msg = match had.iterations {
        0 => format!("sample exceeded {:?} before the workload process reported", plan.timeout),
        n => format!("sample exceeded {:?} after {n} iterations", plan.timeout),
    };
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
mod tests {
    use super::*;

    /// A program that did not inherit the pin is refused with the CPUs it
    /// may use, read back from the program's process (Linux: its mask;
    /// Windows: its process mask in group 0). Started from this test's
    /// unpinned thread, it may use every CPU of the process. The CPU named
    /// is the last: a concurrent test's `pin_process` narrows the Windows
    /// process mask to the first (`choose_cpu`), which the program may
    /// inherit, but never to the last alone.
    #[cfg(any(target_os = "linux", windows))]
    #[test]
    fn a_program_that_did_not_inherit_the_pin_is_refused() {
        let offered = affinity::allowed_cpus().unwrap();
        let [_, .., last] = offered[..] else { return };
        let written = process::write(&process::ONE_THREAD).unwrap();
        let running =
            process::start(written.path(), &process::arguments(Duration::from_millis(50), Duration::from_secs(30)))
                .unwrap();
        let refused = inherited_affinity(&running, Some(last)).unwrap_err();
        // A machine of several processor groups may place the program in
        // another: refused too, in other words.
        if cfg!(windows) && refused.starts_with("cannot read the workload process's affinity in processor group 0") {
            return;
        }
        let cpus = refused
            .strip_prefix("the workload process may run on CPUs ")
            .and_then(|rest| rest.strip_suffix(&format!(", not only on CPU {last}")))
            .unwrap_or_else(|| panic!("{refused}"));
        // Every CPU the process offers, unless a concurrent test's pin
        // narrowed the process's mask meanwhile (Windows).
        if cfg!(target_os = "linux") {
            assert_eq!(cpus, affinity::list(&offered));
        }
        assert_eq!(inherited_affinity(&running, None), Ok(()));
    }

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
        assert_eq!(sample.message.unwrap().as_str(), "sample exceeded 0ns before the workload process reported");
    }

    /// A sample's thread that gets to run only after its deadline (stopped,
    /// or never scheduled) starts no program: it reports the timeout
    /// without running CoreMark on the CPU a later sample may use.
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
        assert_eq!(sample.message.unwrap().as_str(), "sample exceeded 100ms before the workload process reported");
        // Its own CPU time, which waiting for a CPU does not add to: writing
        // the program out, no more.
        // A batch of the program's lasts 20 ms (BATCH_TARGET_NS).
        assert!(cpu_time < Duration::from_millis(10), "it ran for {cpu_time:?} of CPU time");
    }

    /// How far past its timeout a sample may end: the watchdog wakes at the
    /// deadline, and this leaves room for a busy test machine's scheduler.
    /// (Only the test of a sample blocked in the kernel, Unix only, uses it.)
    #[cfg(unix)]
    const LATE: Duration = Duration::from_millis(500);

    #[test]
    fn a_sample_that_ran_its_seconds_past_its_timeout_is_a_timeout() {
        // Starting the program, validation and calibration come before the
        // timed seconds, inside the timeout: the seconds end after the
        // deadline, where the program stops itself or is stopped.
        let t = Duration::from_millis(200);
        let plan = CpuPlan { samples: 1, seconds: t, timeout: t, cpu: None };
        let sample = measure(&plan);
        assert_eq!(sample.status, Status::Timeout, "{:?}", sample.message);
        assert!(sample.message.unwrap().as_str().starts_with("sample exceeded 200ms "));
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
        crate::platform::watchdog::seam::stall("cpu sample", 1, "cpu wait");
        let start = Instant::now();
        let mut ended = Vec::new();
        let stage = run(&plan, &mut Progress::quiet(), |_| {
            ended.push(start.elapsed());
            Ok(())
        })
        .unwrap();
        let first = &stage.samples[0];
        assert_eq!(first.status, Status::Timeout);
        // The thread that waits for the program is stuck; the program stops
        // itself at the same deadline.
        assert_eq!(first.message.as_ref().unwrap().as_str(), "sample exceeded 3s before the workload process reported");
        assert!(ended[0] >= timeout && ended[0] <= timeout + LATE, "{:?}", ended[0]);
        if let Some(cpu) = cpu {
            assert_eq!(first.affinity, Affinity::Pinned { cpu, group: 0 });
        }
        assert_eq!(stage.samples[1].status, Status::Ok, "{:?}", stage.samples[1].message);
        assert!(stage.samples[1].iterations_per_s().is_some());
    }

    /// A program whose line reports a CRC other than the published one
    /// gives no score: the sample fails and names the CRC.
    #[test]
    fn a_corrupted_crc_fails_the_sample() {
        let line = "iterations=4096 seconds=1.250000000 cpu_seconds=1.300000000 \
                    crcs=0xe9f5,0xe714,0x1fd7,0x8e3b,0xd340 validation_crcs=0x18f2,0xe3c1,0x0747,0x8d84,0xe3c1\n";
        let pinned = Affinity::Pinned { cpu: 1, group: 0 };
        let sample = judged(process::parse(line).unwrap(), pinned, None);
        assert_eq!(sample.status, Status::Error);
        assert_eq!(sample.validation, Some(Validation::Failed));
        assert_eq!(
            sample.message.as_ref().unwrap().as_str(),
            "CoreMark CRC check failed: performance run: crcstate 0x8e3b, expected 0x8e3a"
        );
        assert_eq!(sample.iterations_per_s(), None);
        let good = judged(process::parse(&line.replace("0x8e3b", "0x8e3a")).unwrap(), pinned, None);
        assert_eq!(good.status, Status::Ok);
        // 4096 iterations in 1.25 s; the CPU clock, read apart from the
        // wall clock, is capped at the 1.25 s.
        assert_eq!(good.iterations_per_s(), Some(4096.0 / 1.25));
        assert_eq!(good.cpu_s.unwrap().get(), 1.25);
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
