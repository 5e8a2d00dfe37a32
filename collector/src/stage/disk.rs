//! The disk stage: one worker, queue depth one, OS file cache bypassed.
//!
//! A test file of the profile's size is filled with random bytes before any
//! timing. Each sample then runs four operations against it, each repeated
//! for at least the profile's seconds: 1 MiB sequential reads, 1 MiB
//! sequential writes, 4 KiB random reads and 4 KiB random writes. Random
//! offsets are block-aligned and uniform over the file, from a seeded
//! generator, so every runner sees the same sequence. Every write changes
//! what it writes, as fio does by default: the buffer starts as random bytes
//! and before each call every 512-byte sector of it gets 24 fresh bytes
//! (`scramble`), so no sector repeats one written before and storage that
//! deduplicates gains nothing. Write timings include the final fdatasync.
//! The file is removed afterwards, on failure too.
//! Each sample runs on a thread of its own, abandoned at the sample timeout
//! (`watchdog`), so an I/O call that hangs in the kernel cannot hang the job.
//!
//! Linux opens the file with O_DIRECT, macOS sets F_NOCACHE. A file system
//! that refuses direct I/O, or that keeps files in memory (tmpfs, ramfs,
//! where no cache can be bypassed), fails the stage with a notice instead of
//! measuring memory.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use runner_bench_format::measured::{DiskOp, DiskSample, DiskStage, Status};
use runner_bench_format::{Affinity, Message, Name, NonNeg, Notice, Parameters};

use crate::affinity;
use crate::cleanup::TempFile;
use crate::progress::Progress;
use crate::rng::SplitMix64;
use crate::watchdog::{self, Ended, Mailbox};

/// Direct I/O needs buffers, offsets and sizes aligned to the device's
/// logical block; 4 KiB covers every common device.
pub const ALIGN: usize = 4096;

/// What the stage needs to know.
#[derive(Debug, Clone)]
pub struct DiskPlan {
    pub samples: u32,
    pub file_bytes: u64,
    pub op_time: Duration,
    pub timeout: Duration,
    pub seq_block: usize,
    pub rand_block: usize,
    pub dir: PathBuf,
    pub cpu: Option<u32>,
}

impl DiskPlan {
    pub fn new(params: &Parameters, dir: PathBuf, cpu: Option<u32>) -> Self {
        DiskPlan {
            samples: params.disk_samples,
            file_bytes: u64::from(params.disk_file_mib) << 20,
            op_time: Duration::from_secs(params.disk_op_seconds.into()),
            timeout: Duration::from_secs(params.sample_timeout_s.into()),
            seq_block: params.disk_seq_block_kib as usize * 1024,
            rand_block: params.disk_rand_block_kib as usize * 1024,
            dir,
            cpu,
        }
    }
}

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
    let prepared = prepare(plan, file.path()).map(Arc::new);
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
    Ok(DiskOutcome { stage, notices })
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

#[cfg(target_os = "linux")]
const BYPASS: &str = "O_DIRECT";
#[cfg(target_os = "macos")]
const BYPASS: &str = "F_NOCACHE";
#[cfg(windows)]
const BYPASS: &str = "FILE_FLAG_NO_BUFFERING";
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
const BYPASS: &str = "none";

/// The OS error of an open that the file system refuses with `BYPASS`.
#[cfg(not(windows))]
const REFUSED: i32 = libc::EINVAL;
#[cfg(windows)]
const REFUSED: i32 = windows_sys::Win32::Foundation::ERROR_INVALID_PARAMETER as i32;

/// Opens `path` with the OS file cache bypassed.
fn open_direct(path: &Path, create: bool) -> anyhow::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    if create {
        options.create_new(true);
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_DIRECT);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        use windows_sys::Win32::Storage::FileSystem::{FILE_FLAG_NO_BUFFERING, FILE_FLAG_WRITE_THROUGH};
        // No buffering: transfers go to the device, in whole sectors from
        // ALIGN-aligned buffers (ALIGN is a multiple of every sector size in
        // use). Write through: a write returns once the device has it.
        options.custom_flags(FILE_FLAG_NO_BUFFERING | FILE_FLAG_WRITE_THROUGH);
    }
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(REFUSED) {
            anyhow::anyhow!("the file system of {} refuses direct I/O ({BYPASS})", parent(path))
        } else {
            anyhow::Error::new(e).context(format!("cannot open the test file {}", path.display()))
        }
    })?;
    #[cfg(target_os = "macos")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on a valid, open descriptor.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_NOCACHE, 1) } == -1 {
            anyhow::bail!("cannot bypass the file cache (F_NOCACHE): {}", std::io::Error::last_os_error());
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    anyhow::bail!("bypassing the OS file cache is not implemented for this OS yet");
    refuse_memory_file_systems(&file, path)?;
    Ok(file)
}

fn parent(path: &Path) -> String {
    path.parent().map(|p| p.display().to_string()).unwrap_or_default()
}

/// tmpfs and ramfs hold files in memory: direct I/O there measures memory.
fn refuse_memory_file_systems(file: &File, path: &Path) -> anyhow::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        const TMPFS_MAGIC: i64 = 0x0102_1994;
        const RAMFS_MAGIC: i64 = 0x8584_58f6;
        // SAFETY: statfs is plain data, filled by fstatfs for a valid fd.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs(file.as_raw_fd(), &mut st) } == 0 {
            #[allow(clippy::unnecessary_cast, reason = "f_type's width differs between targets")]
            let kind = st.f_type as i64;
            if kind == TMPFS_MAGIC || kind == RAMFS_MAGIC {
                anyhow::bail!(
                    "{} is on a memory file system (tmpfs or ramfs), where no cache can be bypassed; \
                     choose a folder on a disk with --disk-dir",
                    parent(path)
                );
            }
        }
    }
    let _ = (file, path);
    Ok(())
}

/// A buffer aligned for direct I/O.
pub struct AlignedBuf {
    ptr: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
}

impl AlignedBuf {
    pub fn new(len: usize) -> Self {
        let layout = std::alloc::Layout::from_size_align(len.max(ALIGN), ALIGN).expect("valid layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = std::ptr::NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, layout }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() initialised bytes while self lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// Creates the test file and fills it with random bytes, untimed.
fn prepare(plan: &DiskPlan, path: &Path) -> anyhow::Result<File> {
    if !plan.file_bytes.is_multiple_of(plan.seq_block as u64)
        || !plan.seq_block.is_multiple_of(ALIGN)
        || !plan.rand_block.is_multiple_of(ALIGN)
    {
        anyhow::bail!("disk sizes must be multiples of {ALIGN} bytes");
    }
    let file = open_direct(path, true)?;
    let mut rng = SplitMix64::new(0x5eed_d15c);
    let mut buf = AlignedBuf::new(plan.seq_block);
    let mut offset = 0;
    while offset < plan.file_bytes {
        rng.fill(buf.as_mut_slice());
        write_all_at(&file, buf.as_slice(), offset).with_context(|| format!("cannot fill {}", path.display()))?;
        offset += plan.seq_block as u64;
    }
    file.sync_data().with_context(|| format!("cannot flush {}", path.display()))?;
    Ok(file)
}

/// Writes all of `buf` at `offset` (also the cache stage's ranged download).
pub(crate) fn write_all_at(file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.write_all_at(buf, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match file.seek_write(buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    buf = &buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(std::io::Error::other("positioned writes are not implemented for this OS yet"))
    }
}

fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match file.seek_read(buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut std::mem::take(&mut buf)[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(std::io::Error::other("positioned reads are not implemented for this OS yet"))
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

    fn label(self) -> &'static str {
        match self {
            Op::SeqRead => "1 MiB sequential read",
            Op::SeqWrite => "1 MiB sequential write",
            Op::RandRead => "4 KiB random read",
            Op::RandWrite => "4 KiB random write",
        }
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
    for op in Op::ALL {
        had.op = op;
        // Abandoned: a later sample may already run on this CPU.
        if !mailbox.update(|r| r.clone_from(&had)) {
            return timed_out(plan, had);
        }
        match run_op(plan, file, op, sample_no, deadline, mailbox) {
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
                sample.message = Some(Message::lossy(&format!("{}: {e}", op.label())));
                return sample;
            }
        }
    }
    had.sample
}

/// A sample past its deadline keeps the operations it finished.
fn timed_out(plan: &DiskPlan, had: Reported) -> DiskSample {
    let msg = format!("sample exceeded {:?} during the {}", plan.timeout, had.op.label());
    DiskSample { status: Status::Timeout, message: Some(Message::lossy(&msg)), ..had.sample }
}

fn run_op(
    plan: &DiskPlan,
    file: &File,
    op: Op,
    sample_no: u64,
    deadline: Instant,
    mailbox: &Mailbox<Reported>,
) -> Result<DiskOp, Stop> {
    let block = match op {
        Op::SeqRead | Op::SeqWrite => plan.seq_block,
        Op::RandRead | Op::RandWrite => plan.rand_block,
    };
    let blocks = plan.file_bytes / block as u64;
    // Each sample and operation has its own seed: the same across runners.
    let mut rng = SplitMix64::new(sample_no << 8 | op as u64);
    let mut buf = AlignedBuf::new(block);
    rng.fill(buf.as_mut_slice());
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
            scramble(buf.as_mut_slice(), &mut contents);
        }
        #[cfg(all(test, unix))]
        crate::watchdog::seam::point(op.label());
        let t = Instant::now();
        let io = match op {
            Op::SeqRead | Op::RandRead => read_exact_at(file, buf.as_mut_slice(), offset),
            Op::SeqWrite | Op::RandWrite => write_all_at(file, buf.as_slice(), offset),
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

/// Seeds the generator of what writes change (xored with the sample and
/// operation), apart from the file's and the offsets' seeds.
const CONTENTS_SEED: u64 = 0x5c7a_3b1e_0000_0000;

/// The smallest block a device writes, and so what dedup can match on.
const SECTOR: usize = 512;

/// Makes the buffer's next write unlike every earlier one, as fio does by
/// default. fio fills a write buffer with random bytes once and then, with
/// `scramble_buffers=1` (its default; `refill_buffers`, a full refill per
/// write, is off), before each write stores three 64-bit words in every
/// 512-byte sector: the offset at the start of one of the sector's eight
/// 64-byte lines, chosen per write, and the start time in bytes 48 to 63
/// (fio's io_u.c, `small_content_scramble`). This does the same with three
/// fresh outputs of the generator in place of the offset and time, so that
/// no sector of a write repeats one written before and storage that
/// deduplicates or compresses gains nothing over fio. It costs what fio's
/// scramble costs, two cache lines per 512 bytes: 13 µs per MiB on the
/// development VM (about 2 % of a 1 MiB write there, 0.03 µs per 4 KiB),
/// where refilling the whole buffer from the generator took 0.86 ms per
/// MiB, longer than the write itself, and is a cost fio does not pay.
fn scramble(buf: &mut [u8], contents: &mut SplitMix64) {
    let line = (contents.next_u64() % 8) as usize * 64;
    for sector in buf.chunks_exact_mut(SECTOR) {
        contents.fill(&mut sector[line..line + 8]);
        contents.fill(&mut sector[48..64]);
    }
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
        seq_read: None,
        seq_write: None,
        rand_read: None,
        rand_write: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(dir: &Path) -> DiskPlan {
        DiskPlan {
            samples: 2,
            file_bytes: 4 << 20,
            op_time: Duration::from_millis(50),
            timeout: Duration::from_secs(30),
            seq_block: 1 << 20,
            rand_block: 4096,
            dir: dir.to_path_buf(),
            cpu: None,
        }
    }

    /// A folder on a real disk: /tmp may be tmpfs, which the stage refuses.
    fn disk_tempdir() -> tempfile::TempDir {
        let base = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/test-tmp");
        std::fs::create_dir_all(base).unwrap();
        tempfile::tempdir_in(base).unwrap()
    }

    fn quiet() -> Progress {
        Progress::quiet()
    }

    #[test]
    fn buffers_are_aligned_for_direct_io() {
        for len in [1, 4096, 1 << 20] {
            let buf = AlignedBuf::new(len);
            assert_eq!(buf.as_slice().as_ptr() as usize % ALIGN, 0);
            assert!(buf.as_slice().len() >= len && buf.as_slice().len().is_multiple_of(ALIGN));
        }
    }

    #[test]
    fn random_offsets_are_aligned_uniform_and_seeded() {
        let blocks = 256u64;
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        let mut counts = vec![0u32; blocks as usize];
        for _ in 0..256_000 {
            let x = a.below(blocks);
            assert_eq!(x, b.below(blocks));
            counts[x as usize] += 1;
        }
        // Uniform: every block within ±15% (4.7 standard deviations) of the
        // expected 1000 hits.
        assert!(counts.iter().all(|&c| (850..=1150).contains(&c)), "{counts:?}");
    }

    #[test]
    fn every_write_changes_every_sector_and_nothing_else_of_fios_layout() {
        let mut contents = SplitMix64::new(3);
        let mut buf = AlignedBuf::new(64 << 10);
        SplitMix64::new(4).fill(buf.as_mut_slice());
        // Every sector the buffer has held, wherever in it.
        let mut seen: std::collections::HashSet<Vec<u8>> = buf.as_slice().chunks(SECTOR).map(<[u8]>::to_vec).collect();
        let mut lines_of_writes = std::collections::BTreeSet::new();
        for _ in 0..20 {
            let before = buf.as_slice().to_vec();
            scramble(buf.as_mut_slice(), &mut contents);
            let after = buf.as_slice();
            let mut lines = std::collections::BTreeSet::new();
            for (k, (old, new)) in before.chunks(SECTOR).zip(after.chunks(SECTOR)).enumerate() {
                let changed: Vec<usize> = (0..SECTOR).filter(|&i| old[i] != new[i]).collect();
                // At most the 24 bytes fio writes: 8 at one line's start, 16 at bytes 48..64.
                let line = changed.iter().find(|&&i| !(48..64).contains(&i)).map_or(0, |&i| i / 64 * 64);
                assert!(
                    changed.iter().all(|&i| (line..line + 8).contains(&i) || (48..64).contains(&i)),
                    "{k}: {changed:?}"
                );
                lines.insert(line);
                // No sector repeats one held before, at any place in the buffer.
                assert!(seen.insert(new.to_vec()), "sector {k} repeats");
            }
            // One line per write, as fio chooses it.
            assert_eq!(lines.len(), 1);
            lines_of_writes.extend(lines);
        }
        // The line moves between writes.
        assert!(lines_of_writes.len() > 1, "{lines_of_writes:?}");
    }

    #[test]
    fn scrambling_is_seeded() {
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        scramble(&mut a, &mut SplitMix64::new(11));
        scramble(&mut b, &mut SplitMix64::new(11));
        assert_eq!(a, b);
        assert!(a.iter().any(|&x| x != 0));
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!((percentile(&v, 50), percentile(&v, 99), percentile(&v, 100)), (50, 99, 100));
        assert_eq!(percentile(&[7], 99), 7);
        assert_eq!(percentile(&[], 50), 0);
    }

    #[test]
    fn measures_four_operations_and_cleans_up() {
        let dir = disk_tempdir();
        let out = run(&plan(dir.path()), &mut quiet(), |_| Ok(())).unwrap();
        assert_eq!(out.notices, vec![]);
        assert_eq!(out.stage.samples.len(), 2);
        for s in &out.stage.samples {
            assert_eq!(s.status, Status::Ok, "{:?}", s.message);
            for op in [&s.seq_read, &s.seq_write, &s.rand_read, &s.rand_write] {
                let op = op.unwrap();
                assert!(op.ops > 0 && op.elapsed_s.get() >= 0.05);
                assert!(op.latency_p50_us.get() <= op.latency_p99_us.get());
            }
            assert_eq!(s.seq_read.unwrap().bytes % (1 << 20), 0);
            assert_eq!(s.rand_write.unwrap().bytes % 4096, 0);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the test file was removed");
    }

    #[test]
    fn a_tiny_timeout_is_recorded_for_every_sample() {
        let dir = disk_tempdir();
        let p = DiskPlan { samples: 3, timeout: Duration::from_millis(20), ..plan(dir.path()) };
        let out = run(&p, &mut quiet(), |_| Ok(())).unwrap();
        // Every requested sample was attempted, and each says where it stopped.
        assert_eq!(out.stage.samples.len(), 3);
        for s in &out.stage.samples {
            assert_eq!(s.status, Status::Timeout);
            assert_eq!(s.message.as_ref().unwrap().as_str(), "sample exceeded 20ms during the 1 MiB sequential read");
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_call_blocked_in_the_kernel_ends_its_sample_on_time_and_the_next_one_runs() {
        let dir = disk_tempdir();
        let timeout = Duration::from_secs(1);
        let p = DiskPlan { samples: 3, timeout, ..plan(dir.path()) };
        crate::watchdog::seam::stall_sample(2, "4 KiB random read");
        let mut ended = vec![Instant::now()];
        let out = run(&p, &mut quiet(), |_| {
            ended.push(Instant::now());
            Ok(())
        })
        .unwrap();
        let stalled = &out.stage.samples[1];
        assert_eq!(stalled.status, Status::Timeout);
        assert_eq!(stalled.message.as_ref().unwrap().as_str(), "sample exceeded 1s during the 4 KiB random read");
        // What it had: the two operations it finished, and none after.
        assert!(stalled.seq_read.is_some() && stalled.seq_write.is_some());
        assert!(stalled.rand_read.is_none() && stalled.rand_write.is_none());
        // Sample 2 ran from the end of sample 1 to its deadline, plus the
        // scheduler's delay on a busy test machine.
        let took = ended[2] - ended[1];
        assert!(took >= timeout && took <= timeout + Duration::from_millis(500), "{took:?}");
        for s in [&out.stage.samples[0], &out.stage.samples[2]] {
            assert_eq!(s.status, Status::Ok, "{:?}", s.message);
            assert!(s.rand_write.is_some());
        }
        // The stalled thread still holds the file open; its name is gone.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_memory_file_system_is_refused_with_a_notice() {
        let shm = Path::new("/dev/shm");
        if !shm.is_dir() {
            panic!("/dev/shm (tmpfs) is missing on this Linux machine");
        }
        let dir = tempfile::tempdir_in(shm).unwrap();
        let out = run(&plan(dir.path()), &mut quiet(), |_| Ok(())).unwrap();
        let want = format!(
            "{} is on a memory file system (tmpfs or ramfs), where no cache can be bypassed; \
             choose a folder on a disk with --disk-dir",
            dir.path().display()
        );
        assert_eq!(out.notices.len(), 1);
        assert_eq!(out.notices[0].message.as_str(), format!("{want}; the disk stage did not run"));
        assert_eq!(out.stage.samples.len(), 2);
        assert!(
            out.stage.samples.iter().all(|s| s.status == Status::Error && s.message.as_ref().unwrap().as_str() == want)
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
