//! The all-core CPU stage: CoreMark as EEMBC's parallel execution defines
//! it (`-DMULTITHREAD=N -DUSE_PTHREAD`), one context per logical CPU the
//! runner offers the collector.
//!
//! A sample runs the all-core program (vendor/coremark/allcore_main.c, a
//! program of its own so that where the workload's code and data lie does
//! not depend on the collector's Rust code, as for the one-thread stage):
//! it runs CoreMark's validation seeds once, finds the iteration count
//! (below), then starts the clock, starts one thread per context, each
//! running that same count with the performance seeds on its own memory
//! block, joins them all and stops the clock: iterations/s = contexts ×
//! iterations ÷ the wall time until the last context finished, EEMBC's
//! score. The threads are placed by the OS, as EEMBC's pthread port leaves
//! them (no affinity), and each reports the CPU it was on when it started
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
//! Each context runs its count in batches of about 20 ms and stops between
//! two once the sample's deadline has passed; the collector also kills the
//! program when the sample is abandoned (`watchdog`), so that an abandoned
//! sample's threads do not compete with the next sample. Windows machines
//! with more than 64 logical CPUs have several processor groups: context
//! `k` runs in the group of the `k`th logical CPU, free to run on any CPU
//! of it, since a thread starts in one group only.

mod report;

use std::time::{Duration, Instant};

use runner_bench_format::measured::{AllCoreThread, CpuAllCoreSample, CpuAllCoreStage, Stages, Status, Validation};
use runner_bench_format::{Message, NonNeg, Notice, Parameters};

use crate::platform::affinity;
use crate::platform::progress::Progress;
use crate::platform::watchdog::{self, Ended, Mailbox};
use crate::stage::cpu::coremark::{self, PERFORMANCE, VALIDATION};
use crate::stage::cpu::{self as one_thread, process};
use crate::stage::{Stage, StageKind};

use report::Report;

/// How long before the sample's deadline the program gives up on its own.
const OWN_DEADLINE_MARGIN: Duration = Duration::from_millis(250);

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

/// The iterations of all of a sample's contexts together, where the
/// program said how far it got before its deadline.
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
    let exe = match process::write(&process::ALL_CORE) {
        Ok(exe) => exe,
        Err(e) => {
            return failed(
                Status::Error,
                &format!("cannot write the all-core workload executable: {e}"),
                plan.contexts,
            );
        }
    };
    // Abandoned before the program starts: it is not started at all.
    if !mailbox.update(|_| ()) {
        return timed_out(plan, Reported::default());
    }
    // The program stops itself a little before the sample's deadline, so
    // that it can still say how far its contexts got before it is killed.
    let left = deadline.saturating_duration_since(Instant::now()).saturating_sub(OWN_DEADLINE_MARGIN);
    let args = arguments(plan.contexts, 0, plan.seconds, left);
    let running = match process::start(exe.path(), &args) {
        Ok(running) => running,
        Err(e) => {
            return failed(
                Status::Error,
                &format!("cannot start the all-core workload executable: {e}"),
                plan.contexts,
            );
        }
    };
    let (status, stdout, stderr) = match process::wait(running, deadline, || mailbox.abandoned(), |_| ()) {
        process::Waited::Exited { status, stdout, stderr, .. } => (status, stdout, stderr),
        process::Waited::Stopped => return timed_out(plan, Reported::default()),
    };
    if let Some(iterations) = process::deadline_iterations(&stdout) {
        return timed_out(plan, Reported { iterations });
    }
    if !status.success() {
        let message = process::exit_message("the all-core workload", status, &stderr);
        return failed(Status::Error, &message, plan.contexts);
    }
    match report::parse(&stdout, plan.contexts) {
        Ok(report) => sample_of(plan.contexts, &report),
        Err(e) => failed(Status::Error, &e, plan.contexts),
    }
}

/// The program's arguments: contexts, iterations per context (0: found
/// so that the run lasts `seconds`), the seconds, the time after which it
/// gives up (`left`, the sample's time to its deadline), then the
/// performance and validation seeds.
fn arguments(contexts: u32, iterations: u64, seconds: Duration, left: Duration) -> Vec<String> {
    let mut args = vec![
        contexts.to_string(),
        iterations.to_string(),
        seconds.as_secs_f64().to_string(),
        left.as_secs_f64().to_string(),
    ];
    args.extend(process::seed_args(PERFORMANCE));
    args.extend(process::seed_args(VALIDATION));
    args
}

/// The sample a report gives, its CRCs checked: every context's against
/// the published values and against context 0's final CRC (the same seeds
/// and count give the same CRC), and every context's iterations against
/// the run's.
fn sample_of(contexts: u32, report: &Report) -> CpuAllCoreSample {
    let cpu_s: Option<f64> = report.contexts.iter().map(|c| c.cpu_seconds).sum();
    let mut sample = CpuAllCoreSample {
        status: Status::Ok,
        message: None,
        contexts,
        iterations: Some(report.iterations),
        elapsed_s: NonNeg::new(report.seconds).ok(),
        cpu_s: cpu_s.and_then(|s| NonNeg::new(s).ok()),
        validation_crcs: Some(one_thread::recorded(report.validation)),
        validation: Some(Validation::Passed),
        threads: report
            .contexts
            .iter()
            .map(|c| AllCoreThread {
                first_cpu: c.first_cpu,
                last_cpu: c.last_cpu,
                elapsed_s: NonNeg::new(c.seconds).ok(),
                cpu_s: c.cpu_seconds.and_then(|s| NonNeg::new(s).ok()),
                crcs: Some(one_thread::recorded(c.crcs)),
            })
            .collect(),
    };
    let mut mismatches: Vec<String> =
        one_thread::mismatch("validation", VALIDATION, report.validation).into_iter().collect();
    let reference = report.contexts.first().map(|c| c.crcs.final_);
    for (k, c) in report.contexts.iter().enumerate() {
        let mut wrong: Vec<String> = one_thread::mismatch("performance", PERFORMANCE, c.crcs).into_iter().collect();
        if let Some(first) = reference.filter(|&f| f != c.crcs.final_) {
            wrong.push(format!("crcfinal {:#06x}, context 0 has {first:#06x}", c.crcs.final_));
        }
        if c.iterations != report.iterations {
            wrong.push(format!("{} iterations, not {}", c.iterations, report.iterations));
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
/// together, are in the message where the program said.
fn timed_out(plan: &AllCorePlan, had: Reported) -> CpuAllCoreSample {
    let msg = match had.iterations {
        0 => format!("sample exceeded {:?} before the all-core workload process reported", plan.timeout),
        n => format!("sample exceeded {:?} after {n} iterations", plan.timeout),
    };
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

    /// Runs the all-core program with `args` until it exits: its status and
    /// output.
    fn run_program(args: &[String]) -> (std::process::ExitStatus, String) {
        let exe = process::write(&process::ALL_CORE).unwrap();
        let running = process::start(exe.path(), args).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        match process::wait(running, deadline, || false, |_| ()) {
            process::Waited::Exited { status, stdout, .. } => (status, stdout),
            process::Waited::Stopped => panic!("the all-core program did not end"),
        }
    }

    fn fixed(contexts: u32, iterations: u64) -> Report {
        let (status, stdout) = run_program(&arguments(contexts, iterations, Duration::ZERO, Duration::from_secs(60)));
        assert!(status.success(), "{status}: {stdout}");
        report::parse(&stdout, contexts).unwrap()
    }

    /// N contexts, each its own memory block, all run the same count: each
    /// reports it, and the same seeds and count give every context the
    /// same final CRC.
    #[test]
    fn every_context_runs_the_same_iterations() {
        let report = fixed(3, 1000);
        assert_eq!(report.contexts.len(), 3);
        assert_eq!(report.iterations, 1000);
        for c in &report.contexts {
            assert_eq!(c.iterations, 1000);
            // crcfinal of 1000 performance iterations (coremark.md).
            assert_eq!(c.crcs.final_, 0xd340);
        }
        let sample = sample_of(3, &report);
        assert_eq!(sample.status, Status::Ok, "{:?}", sample.message);
    }

    /// contexts × iterations ÷ the wall time to the last join, which no
    /// context's own end comes after.
    #[test]
    fn the_figure_is_contexts_times_iterations_over_the_time_to_the_last_join() {
        let report = fixed(2, 500);
        let sample = sample_of(2, &report);
        assert_eq!(sample.status, Status::Ok, "{:?}", sample.message);
        assert_eq!(sample.iterations_per_s(), Some(2.0 * 500.0 / report.seconds));
        let last = report.contexts.iter().map(|c| c.seconds).fold(0.0, f64::max);
        assert!(report.seconds >= last, "{} < {last}", report.seconds);
        assert_eq!(sample.threads.len(), 2);
        if cfg!(any(target_os = "linux", windows)) {
            assert!(sample.threads.iter().all(|t| t.first_cpu.is_some() && t.last_cpu.is_some()));
        }
    }

    /// A context whose data are not the performance run's (here: its line
    /// carries the validation run's CRCs) fails the sample, named by its
    /// number; so does a context that ran another count.
    #[test]
    fn a_corrupted_context_fails_its_sample() {
        let mut report = fixed(2, 1);
        report.contexts[1].crcs = report.validation;
        report.contexts[0].iterations = 2;
        let sample = sample_of(2, &report);
        assert_eq!(sample.status, Status::Error);
        assert_eq!(sample.validation, Some(Validation::Failed));
        assert_eq!(sample.iterations_per_s(), None);
        assert_eq!(
            sample.message.unwrap().as_str(),
            "CoreMark CRC check failed: context 0: 2 iterations, not 1; context 1: performance run: seedcrc 0x18f2, \
             expected 0xe9f5, crclist 0xe3c1, expected 0xe714, crcmatrix 0x0747, expected 0x1fd7, crcstate 0x8d84, \
             expected 0x8e3a, crcfinal 0xe3c1, context 0 has 0xe714"
        );
    }

    /// Past its deadline every context stops at its next batch: the program
    /// says how far they got, together, and exits with status 3.
    #[test]
    fn a_program_past_its_deadline_stops_every_context() {
        let (status, stdout) = run_program(&arguments(2, 1 << 40, Duration::ZERO, Duration::from_millis(200)));
        assert_eq!(status.code(), Some(3), "{stdout}");
        let done = process::deadline_iterations(&stdout).expect("a deadline line");
        assert!(done > 0 && done < 1 << 30, "{done}");
    }

    /// Bad arguments are refused with a line on stderr and status 2.
    #[test]
    fn bad_arguments_are_refused() {
        let exe = process::write(&process::ALL_CORE).unwrap();
        let mut args = arguments(0, 0, Duration::ZERO, Duration::from_secs(1));
        let out = std::process::Command::new(exe.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.trim_end(), "coremark-allcore: CONTEXTS is not a whole number from 1 to 4096");
        args.truncate(3);
        let out = std::process::Command::new(exe.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
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
        assert!(sample.message.unwrap().as_str().starts_with("sample exceeded 0ns "));
    }

    /// A sample whose program runs into the deadline the collector gave it
    /// is a timeout, with the iterations the program said it had run.
    #[test]
    fn a_sample_that_runs_past_its_deadline_is_a_timeout() {
        let plan =
            AllCorePlan { samples: 1, seconds: Duration::from_secs(60), timeout: Duration::from_secs(3), contexts: 2 };
        let sample = measure(&plan);
        assert_eq!(sample.status, Status::Timeout);
        let message = sample.message.unwrap();
        let done = message
            .as_str()
            .strip_prefix("sample exceeded 3s after ")
            .and_then(|rest| rest.strip_suffix(" iterations"))
            .and_then(|n| n.parse::<u64>().ok());
        assert!(done.is_some_and(|n| n > 0), "{message}");
    }
}
