//! The collector's own output when a run does not go to plan: a real signal
//! sent to a real run, and stages where every sample failed. The file is
//! written either way, says what happened, and the exit status is not 0.

use crate::common::{measured, quick_run};
use runner_bench_format::measured::Status;

/// The CPU samples in the file as written so far.
#[cfg(unix)]
fn cpu_samples_so_far(path: &std::path::Path) -> usize {
    use runner_bench_format::{AnyResult, read_file};

    // The file is replaced atomically, so it is absent or whole.
    read_file(path)
        .ok()
        .and_then(|r| match r {
            AnyResult::Measured(m) => m.stages.cpu.map(|c| c.samples.len()),
            AnyResult::Imported(_) => None,
        })
        .unwrap_or(0)
}

#[cfg(unix)]
#[test]
fn a_run_interrupted_by_sigterm_records_the_interruption_and_fails() {
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    // quick: three CPU samples of at least 1 s each.
    let mut child = quick_run(&out, "cpu,disk")
        .arg("--disk-dir")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first sample is written: the second has just begun.
    let deadline = Instant::now() + Duration::from_secs(120);
    while cpu_samples_so_far(&out) < 1 {
        assert!(Instant::now() < deadline, "no CPU sample within 120 s");
        assert!(child.try_wait().unwrap().is_none(), "the collector ended before it was interrupted");
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) has no memory effects; `pid` is a child of this
    // process that has not been waited for, so it cannot name another one.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0, "kill: {}", std::io::Error::last_os_error());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(130), "{stderr}");

    let r = measured(&out);
    let cpu = r.stages.cpu.as_ref().unwrap();
    // The finished sample is kept, the one in progress is an error, and the
    // third, never started, is not invented.
    assert_eq!(cpu.samples.len(), 2, "{:?}", cpu.samples);
    assert_eq!(cpu.samples[0].status, Status::Ok, "{:?}", cpu.samples[0].message);
    assert_eq!(cpu.samples[1].status, Status::Error);
    assert_eq!(cpu.samples[1].message.as_ref().unwrap().as_str(), runner_bench_format::measured::INTERRUPTED_SAMPLE);
    assert_eq!(cpu.samples[1].affinity, cpu.samples[0].affinity);
    assert_eq!((cpu.samples[1].iterations, cpu.samples[1].crcs), (None, None));
    assert!(r.stages.disk.is_none(), "the disk stage never started");
    let notice = r.notices.last().unwrap();
    assert_eq!(notice.stage.as_str(), "cpu");
    let text = "interrupted by a signal during sample 2 of 3, which is recorded as not completed; the samples and \
                stages after it did not run";
    assert_eq!(notice.message.as_str(), text);
    // A file the format reads, whose only fault is being incomplete.
    assert_eq!(r.problems(), vec![]);
    assert_eq!(
        stderr.lines().last().unwrap(),
        format!("cpu: {text}; {} records it; temporary files removed", out.display())
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["r.json"], "no temporary file is left");
}

#[test]
fn an_unreachable_internet_endpoint_writes_the_file_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    let output = quick_run(&out, "internet").args(["--internet-url", "http://127.0.0.1:9/"]).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    let net = r.stages.internet.unwrap();
    assert_eq!((net.download.len(), net.upload.len(), net.request.len()), (3, 3, 3));
    assert!(net.download.iter().chain(&net.upload).all(|s| s.status == Status::Error), "{net:?}");
    let last = stderr.lines().last().unwrap();
    let start = "error: the internet stage has no completed sample: all 9 failed, the first with \"request 1 of 2 \
                 failed: error sending request";
    assert!(last.starts_with(start), "{last}");
    assert!(last.ends_with(&format!("\"; {} keeps every sample and its message", out.display())), "{last}");
}

/// A memory file system, where direct I/O has nothing to bypass.
#[cfg(target_os = "linux")]
#[test]
fn a_disk_folder_on_tmpfs_writes_the_file_and_fails() {
    let shm = std::path::Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("skipped: no /dev/shm");
        return;
    }
    let work = tempfile::tempdir_in(shm).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "disk").arg("--disk-dir").arg(work.path()).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    let disk = r.stages.disk.unwrap();
    assert_eq!(disk.samples.len(), 3);
    let why = format!(
        "{} is on a memory file system (tmpfs or ramfs), where no cache can be bypassed; choose a folder on a disk \
         with --disk-dir",
        work.path().display()
    );
    assert_eq!(
        stderr.lines().last().unwrap(),
        format!(
            "error: the disk stage has no completed sample: all 3 failed, the first with \"{why}\"; {} keeps every \
             sample and its message",
            out.display()
        )
    );
}

#[test]
fn a_stage_with_a_completed_sample_does_not_fail_the_run() {
    // CPU completes; only the unreachable internet stage fails the run, and
    // the message names that stage alone.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "cpu,internet").args(["--internet-url", "http://127.0.0.1:9/"]).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let last = stderr.lines().last().unwrap();
    assert!(last.starts_with("error: the internet stage has no completed sample: "), "{last}");
    assert!(!last.contains("cpu"), "{last}");
    let r = measured(&out);
    assert!(r.stages.cpu.unwrap().samples.iter().all(|s| s.status == Status::Ok));
}
