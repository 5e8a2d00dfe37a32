//! The disk stage: one worker, queue depth one, OS file cache bypassed.
//!
//! A test file of the profile's size is filled with random bytes before any
//! timing. Each sample then runs four operations against it, each repeated
//! for at least the profile's seconds: 1 MiB sequential reads, 1 MiB
//! sequential writes, 4 KiB random reads and 4 KiB random writes. Random
//! offsets are block-aligned and uniform over the file, from a seeded
//! generator, so every runner sees the same sequence. Every write changes
//! what it writes, as fio does by default: the buffer starts as random bytes
//! and before each call every 512-byte sector of it gets three new words
//! (`scramble`), so no sector repeats one written before and storage that
//! deduplicates gains nothing. Write timings include the final fdatasync.
//! The file is removed afterwards, on failure too.
//! The fill and each sample run on a thread of their own, abandoned at their
//! deadline (`watchdog`), so an I/O call that hangs in the kernel cannot
//! hang the job.
//!
//! Linux opens the file with O_DIRECT, macOS sets F_NOCACHE. A file system
//! that refuses direct I/O, or that keeps files in memory (tmpfs, ramfs,
//! where no cache can be bypassed), fails the stage with a notice instead of
//! measuring memory.
//!
//! Files: file.rs (the test file: opening it with the cache bypassed,
//! filling it, positioned reads and writes), buffer.rs (the aligned buffer
//! and what changes in it before each write), plan.rs (what the stage needs to
//! know), tests.rs; here the samples and their operations.

use std::fs::File;
use std::sync::Arc;
use std::time::Instant;

use runner_bench_format::measured::{DiskOp, DiskSample, DiskStage, Stages, Status};
use runner_bench_format::{Affinity, Message, Name, NonNeg, Notice};

use crate::platform::affinity;
use crate::platform::cleanup::TempFile;
use crate::platform::progress::Progress;
use crate::platform::watchdog::{self, Ended, Mailbox};
use crate::rng::SplitMix64;
use crate::stage::{Stage, StageKind};

mod buffer;
mod file;
mod plan;

use buffer::{AlignedBuf, CONTENTS_SEED, scramble};
pub(crate) use file::write_all_at;
use file::{BYPASS, prepare, read_exact_at};
pub use plan::DiskPlan;

/// The stage's result and its notices.
pub struct DiskOutcome {
    pub stage: DiskStage,
    pub notices: Vec<Notice>,
}

/// The stage before its first sample.
pub fn empty_stage(plan: &DiskPlan) -> DiskStage {
    DiskStage {
        directory: Name::lossy(&plan.dir.display().to_string()),
        cache_bypass: Name::lossy(BYPASS),
        samples: Vec::new(),
    }
}

/// Runs every requested sample; `after_sample` sees the stage after each.
pub fn run(
    plan: &DiskPlan,
    progress: &mut Progress,
    mut after_sample: impl FnMut(&DiskStage) -> anyhow::Result<()>,
) -> anyhow::Result<DiskOutcome> {
    let mut stage = empty_stage(plan);
    let mut notices = Vec::new();
    let n = plan.samples as usize;
    let path = plan.dir.join(format!("runner-bench-disk-{}.bin", std::process::id()));
    let file = TempFile::register(path);
    // Shared: a sample's thread that is abandoned while blocked in a call
    // keeps its own handle.
    let prepared = prepare_watched(plan, file.path()).map(Arc::new);
    if let Err(e) = &prepared {
        let text = format!("{e:#}; the disk stage did not run");
        notices.push(Notice { stage: Name::lossy("disk"), message: Message::lossy(&text) });
        progress.note(&text);
    }
    for k in 1..=n {
        progress.sample_start(k, n, plan.op_time * 4 * (n - k + 1) as u32);
        let sample = match &prepared {
            // Every requested sample is attempted and recorded, even when the
            // file could not be prepared, so the counts tell the truth.
            Err(e) => failed(Status::Error, &format!("{e:#}"), affinity::observed()),
            Ok(f) => measure(plan, f, k as u64),
        };
        progress.sample_done(k, n, &describe(&sample));
        stage.samples.push(sample);
        after_sample(&stage)?;
    }
    drop(prepared);
    drop(file);
    if let Some(text) = base_pages_notice(&stage) {
        notices.push(Notice { stage: Name::lossy("disk"), message: Message::lossy(&text) });
        progress.note(&text);
    }
    Ok(DiskOutcome { stage, notices })
}

/// On Linux, where the buffer is meant to be a huge page: what to tell the
/// user when a sample's buffer was in base pages.
fn base_pages_notice(stage: &DiskStage) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let base = stage.samples.iter().filter_map(|s| s.buffer_page_kib).filter(|&k| k < 1024).min()?;
    let of = stage.samples.iter().filter(|s| s.buffer_page_kib.is_some_and(|k| k < 1024)).count();
    Some(format!(
        "the I/O buffer of {of} of {} disk samples was in {base} KiB pages: the kernel gave it no transparent \
         huge page (they are set to `never` or not built, the huge page is over 32 MiB, or none was free); \
         their sequential figures depend on where the kernel placed those pages, and the site compares them \
         only with results measured the same way",
        stage.samples.len()
    ))
}

fn describe(s: &DiskSample) -> String {
    match (&s.seq_read, &s.seq_write, &s.rand_read, &s.rand_write, &s.message) {
        (Some(r), Some(w), Some(rr), Some(rw), None) => format!(
            "read {:.2} MiB/s, write {:.2} MiB/s, random read {:.0} IOPS, random write {:.0} IOPS",
            r.mib_per_s(),
            w.mib_per_s(),
            rr.iops(),
            rw.iops()
        ),
        (.., Some(m)) => format!("{:?}: {m}", s.status).to_lowercase(),
        _ => "no figures".to_string(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    SeqRead,
    SeqWrite,
    RandRead,
    RandWrite,
}

impl Op {
    const ALL: [Op; 4] = [Op::SeqRead, Op::SeqWrite, Op::RandRead, Op::RandWrite];

    /// The block it moves, in bytes, as the plan sets it.
    fn block(self, plan: &DiskPlan) -> usize {
        match self {
            Op::SeqRead | Op::SeqWrite => plan.seq_block,
            Op::RandRead | Op::RandWrite => plan.rand_block,
        }
    }

    /// `1 MiB sequential read`, with the plan's block size.
    fn label(self, plan: &DiskPlan) -> String {
        let block = self.block(plan);
        let size = match block % (1 << 20) {
            0 => format!("{} MiB", block >> 20),
            _ => format!("{} KiB", block >> 10),
        };
        let what = match self {
            Op::SeqRead => "sequential read",
            Op::SeqWrite => "sequential write",
            Op::RandRead => "random read",
            Op::RandWrite => "random write",
        };
        format!("{size} {what}")
    }
}

/// Fills the test file (`file::prepare`) on a thread of its own, abandoned
/// at `plan.fill_timeout`: the error then says how far the fill got. The
/// abandoned thread stops writing at its next block.
fn prepare_watched(plan: &DiskPlan, path: &std::path::Path) -> anyhow::Result<File> {
    let deadline = Instant::now() + plan.fill_timeout;
    let (worker_plan, worker_path) = (plan.clone(), path.to_path_buf());
    match watchdog::run("disk fill", deadline, 0u64, move |mailbox| prepare(&worker_plan, &worker_path, mailbox)) {
        Ok(Ended::Finished(file)) => file,
        Ok(Ended::TimedOut(filled)) => anyhow::bail!(
            "filling the {} MiB test file took over {:?} ({} MiB written): the disk is too slow for this profile, or a \
             call hung",
            plan.file_bytes >> 20,
            plan.fill_timeout,
            filled >> 20
        ),
        Err(e) => anyhow::bail!("cannot start the fill's thread: {e}"),
    }
}

/// Why an operation stopped early.
enum Stop {
    Timeout,
    /// The watchdog gave up on the sample; nobody reads its result.
    Abandoned,
    Io(std::io::Error),
}

/// What a sample's thread has reported so far, for a sample abandoned at
/// its deadline: its finished operations and the one under way.
#[derive(Debug, Clone)]
struct Reported {
    sample: DiskSample,
    op: Op,
}

/// One sample: the four operations in order, under one sample deadline, on
/// a thread of its own that is abandoned at that deadline (`watchdog`). A
/// call that hangs in the kernel ends the sample as `timeout` on time; the
/// abandoned thread keeps its handle on the test file (whose name is still
/// removed when the stage ends) and stops as soon as the call returns.
fn measure(plan: &DiskPlan, file: &Arc<File>, sample_no: u64) -> DiskSample {
    let deadline = Instant::now() + plan.timeout;
    // Until the thread has pinned itself, the affinity it is about to have.
    let planned = plan.cpu.map_or(Affinity::Unpinned, |cpu| Affinity::Pinned { cpu, group: 0 });
    let reported = Reported {
        sample: DiskSample { status: Status::Ok, message: None, ..failed(Status::Ok, "", planned) },
        op: Op::SeqRead,
    };
    let (worker_plan, worker_file) = (plan.clone(), Arc::clone(file));
    match watchdog::run("disk sample", deadline, reported, move |mailbox| {
        measure_on_this_thread(&worker_plan, &worker_file, sample_no, deadline, mailbox)
    }) {
        Ok(Ended::Finished(sample)) => sample,
        Ok(Ended::TimedOut(had)) => timed_out(plan, had),
        Err(e) => failed(Status::Error, &format!("cannot start the sample's thread: {e}"), planned),
    }
}

fn measure_on_this_thread(
    plan: &DiskPlan,
    file: &File,
    sample_no: u64,
    deadline: Instant,
    mailbox: &Mailbox<Reported>,
) -> DiskSample {
    let _guard = match plan.cpu.map(affinity::pin_current_thread).transpose() {
        Ok(g) => g,
        Err(e) => return failed(Status::Error, &e.to_string(), affinity::observed()),
    };
    let in_force = affinity::observed();
    let mut had = Reported {
        sample: DiskSample { status: Status::Ok, message: None, ..failed(Status::Ok, "", in_force) },
        op: Op::SeqRead,
    };
    // One buffer for the sample's four operations, placed before the first
    // is timed (`AlignedBuf`: a huge page where the kernel gives one).
    let mut buf = AlignedBuf::new(plan.seq_block.max(plan.rand_block));
    had.sample.buffer_page_kib = Some(buf.page_kib());
    for op in Op::ALL {
        had.op = op;
        // Abandoned: a later sample may already run on this CPU.
        if !mailbox.update(|r| r.clone_from(&had)) {
            return timed_out(plan, had);
        }
        match run_op(plan, file, &mut buf, op, sample_no, deadline, mailbox) {
            Ok(result) => match op {
                Op::SeqRead => had.sample.seq_read = Some(result),
                Op::SeqWrite => had.sample.seq_write = Some(result),
                Op::RandRead => had.sample.rand_read = Some(result),
                Op::RandWrite => had.sample.rand_write = Some(result),
            },
            Err(Stop::Timeout | Stop::Abandoned) => return timed_out(plan, had),
            Err(Stop::Io(e)) => {
                let mut sample = had.sample;
                sample.status = Status::Error;
                sample.message = Some(Message::lossy(&format!("{}: {e}", op.label(plan))));
                return sample;
            }
        }
    }
    had.sample
}

/// A sample past its deadline keeps the operations it finished.
fn timed_out(plan: &DiskPlan, had: Reported) -> DiskSample {
    let msg = format!("sample exceeded {:?} during the {}", plan.timeout, had.op.label(plan));
    DiskSample { status: Status::Timeout, message: Some(Message::lossy(&msg)), ..had.sample }
}

fn run_op(
    plan: &DiskPlan,
    file: &File,
    buf: &mut AlignedBuf,
    op: Op,
    sample_no: u64,
    deadline: Instant,
    mailbox: &Mailbox<Reported>,
) -> Result<DiskOp, Stop> {
    let block = op.block(plan);
    let blocks = plan.file_bytes / block as u64;
    // Each sample and operation has its own seed: the same across runners.
    let mut rng = SplitMix64::new(sample_no << 8 | op as u64);
    let buf = &mut buf.as_mut_slice()[..block];
    rng.fill(buf);
    // A generator of its own for what writes change, so the offsets above
    // stay the sequence they always were.
    let mut contents = SplitMix64::new(CONTENTS_SEED ^ (sample_no << 8 | op as u64));
    let mut latencies_ns: Vec<u64> = Vec::with_capacity(1 << 16);
    let mut next_seq = 0u64;
    let start = Instant::now();
    loop {
        let offset = match op {
            Op::SeqRead | Op::SeqWrite => {
                let o = next_seq * block as u64;
                next_seq = (next_seq + 1) % blocks;
                o
            }
            Op::RandRead | Op::RandWrite => rng.below(blocks) * block as u64,
        };
        if matches!(op, Op::SeqWrite | Op::RandWrite) {
            // Before the call's clock starts; it stays in the operation's
            // seconds, as fio's does in its runtime.
            scramble(buf, &mut contents);
        }
        #[cfg(all(test, unix))]
        crate::platform::watchdog::seam::point(&op.label(plan));
        let t = Instant::now();
        let io = match op {
            Op::SeqRead | Op::RandRead => read_exact_at(file, buf, offset),
            Op::SeqWrite | Op::RandWrite => write_all_at(file, buf, offset),
        };
        let now = Instant::now();
        if mailbox.abandoned() {
            return Err(Stop::Abandoned);
        }
        io.map_err(Stop::Io)?;
        latencies_ns.push((now - t).as_nanos() as u64);
        if now >= deadline {
            return Err(Stop::Timeout);
        }
        if now - start >= plan.op_time {
            break;
        }
    }
    if matches!(op, Op::SeqWrite | Op::RandWrite) {
        file.sync_data().map_err(Stop::Io)?;
    }
    if mailbox.abandoned() {
        return Err(Stop::Abandoned);
    }
    let elapsed = start.elapsed();
    if Instant::now() >= deadline {
        return Err(Stop::Timeout);
    }
    let ops = latencies_ns.len() as u64;
    latencies_ns.sort_unstable();
    Ok(DiskOp {
        bytes: ops * block as u64,
        ops,
        elapsed_s: NonNeg::new(elapsed.as_secs_f64()).unwrap_or_default(),
        latency_p50_us: NonNeg::new(percentile(&latencies_ns, 50) as f64 / 1000.0).unwrap_or_default(),
        latency_p99_us: NonNeg::new(percentile(&latencies_ns, 99) as f64 / 1000.0).unwrap_or_default(),
    })
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[u64], pct: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (pct * sorted.len() as u64).div_ceil(100).max(1);
    sorted[(rank - 1) as usize]
}

/// A sample that ended without a measurement: also the interrupted sample
/// `interrupt` records.
pub fn failed(status: Status, message: &str, affinity: Affinity) -> DiskSample {
    DiskSample {
        status,
        message: Some(Message::lossy(message)),
        affinity,
        buffer_page_kib: None,
        seq_read: None,
        seq_write: None,
        rand_read: None,
        rand_write: None,
    }
}

impl Stage for DiskPlan {
    type Section = DiskStage;
    const KIND: StageKind = StageKind::Disk;

    fn samples(&self) -> usize {
        self.samples as usize
    }

    fn empty(&self) -> DiskStage {
        empty_stage(self)
    }

    fn place(section: DiskStage, stages: &mut Stages) {
        stages.disk = Some(section);
    }

    fn run(
        &self,
        progress: &mut Progress,
        mut after_sample: impl FnMut(&DiskStage, Option<&Notice>) -> anyhow::Result<()>,
    ) -> anyhow::Result<(DiskStage, Vec<Notice>)> {
        let outcome = run(self, progress, |partial| after_sample(partial, None))?;
        Ok((outcome.stage, outcome.notices))
    }
}

#[cfg(test)]
mod tests;
