use std::path::{Path, PathBuf};
use std::time::Duration;

use super::buffer::SECTOR;
use super::plan::ALIGN;
use super::*;

fn plan(dir: &Path) -> DiskPlan {
    DiskPlan {
        samples: 2,
        file_bytes: 4 << 20,
        op_time: Duration::from_millis(50),
        timeout: Duration::from_secs(30),
        fill_timeout: Duration::from_secs(30),
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
fn smaps_says_whether_the_mapping_that_holds_the_buffer_is_all_huge_pages() {
    let smaps = "\
55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0                          [heap]
Size:                132 kB
AnonHugePages:         0 kB
7f3a00000000-7f3a00200000 rw-p 00000000 00:00 0 
Size:               2048 kB
KernelPageSize:        4 kB
AnonHugePages:      2048 kB
VmFlags: rd wr mr mw me ac sd hg
7f3a00200000-7f3a00600000 rw-p 00000000 00:00 0 
AnonHugePages:      2048 kB
";
    assert!(super::buffer::all_huge_in(smaps, 0x7f3a_0000_0000, 2 << 20));
    // A mapping of 4 MiB with one huge page: a buffer in it may be the
    // other half.
    assert!(!super::buffer::all_huge_in(smaps, 0x7f3a_0020_0000, 2 << 20));
    // A range that no one mapping holds.
    assert!(!super::buffer::all_huge_in(smaps, 0x7f3a_0010_0000, 2 << 20));
    assert!(!super::buffer::all_huge_in("", 0x7f3a_0000_0000, 4096));
}

/// Where the kernel's transparent huge pages are not `never` (on the
/// development VMs and GitHub's Ubuntu runners: `madvise`), a 1 MiB buffer
/// is one huge page (2 MiB on x86-64).
#[cfg(target_os = "linux")]
#[test]
fn a_buffer_is_one_huge_page_unless_the_kernel_allows_none() {
    let setting = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    let huge = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&b| b <= 32 << 20);
    // SAFETY: sysconf has no memory-safety preconditions.
    let base_kib = (unsafe { libc::sysconf(libc::_SC_PAGESIZE) } / 1024) as u32;
    let buf = AlignedBuf::new(1 << 20);
    match huge {
        Some(bytes) if !setting.is_empty() && !setting.contains("[never]") => {
            assert_eq!(buf.page_kib(), (bytes / 1024) as u32, "transparent huge pages: {setting:?}");
            assert_eq!(buf.as_slice().as_ptr() as usize % bytes, 0);
        }
        _ => assert_eq!(buf.page_kib(), base_kib, "transparent huge pages: {setting:?}"),
    }
}

#[test]
fn samples_in_base_pages_get_a_notice_on_linux() {
    let dir = std::path::PathBuf::from("/tmp");
    let sample = |pages| DiskSample { buffer_page_kib: pages, ..failed(Status::Ok, "", Affinity::Unpinned) };
    let mut stage = empty_stage(&plan(&dir));
    stage.samples = vec![sample(Some(2048)), sample(Some(4)), sample(None)];
    let expected = "the I/O buffer of 1 of 3 disk samples was in 4 KiB pages: the kernel gave it no transparent \
        huge page (they are set to `never` or not built, the huge page is over 32 MiB, or none was free); their \
        sequential figures depend on where the kernel placed those pages, and the site compares them only with results \
        measured the same way";
    assert_eq!(base_pages_notice(&stage).as_deref(), cfg!(target_os = "linux").then_some(expected));
    stage.samples = vec![sample(Some(2048)), sample(None)];
    assert_eq!(base_pages_notice(&stage), None);
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
    // The one notice a healthy run may have: buffers in base pages.
    let notices: Vec<_> = out.notices.iter().map(|n| n.message.as_str().to_string()).collect();
    assert_eq!(notices, Vec::from_iter(base_pages_notice(&out.stage)));
    assert_eq!(out.stage.samples.len(), 2);
    for s in &out.stage.samples {
        assert_eq!(s.status, Status::Ok, "{:?}", s.message);
        // A huge page, or base pages where the kernel had none to give.
        assert!(s.buffer_page_kib.is_some_and(|k| k >= 4 && k.is_power_of_two()), "{:?}", s.buffer_page_kib);
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
    // 15 times a sample's 200 ms of operations: the samples around the
    // stalled one must end `ok`, and with 1 s one of them timed out in a
    // 4 KiB random write while the other tests ran beside it on the
    // 2-vCPU test VM (a fresh-clone run of scripts/test.sh, 2026-12-05).
    let timeout = Duration::from_secs(3);
    let p = DiskPlan { samples: 3, timeout, ..plan(dir.path()) };
    crate::platform::watchdog::seam::stall("disk sample", 2, "4 KiB random read");
    let mut ended = vec![Instant::now()];
    let out = run(&p, &mut quiet(), |_| {
        ended.push(Instant::now());
        Ok(())
    })
    .unwrap();
    let stalled = &out.stage.samples[1];
    assert_eq!(stalled.status, Status::Timeout);
    assert_eq!(stalled.message.as_ref().unwrap().as_str(), "sample exceeded 3s during the 4 KiB random read");
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

/// A fill blocked in the kernel ends at its deadline: every sample is
/// recorded as an error saying how far the fill got, and a notice says so.
#[cfg(unix)]
#[test]
fn a_fill_blocked_in_the_kernel_ends_the_stage_on_time_with_a_notice() {
    let dir = disk_tempdir();
    let p = DiskPlan { fill_timeout: Duration::from_secs(1), ..plan(dir.path()) };
    crate::platform::watchdog::seam::stall("disk fill", 1, "disk fill");
    let start = Instant::now();
    let out = run(&p, &mut quiet(), |_| Ok(())).unwrap();
    let took = start.elapsed();
    assert!(took >= p.fill_timeout && took <= p.fill_timeout + Duration::from_millis(500), "{took:?}");
    let why = "filling the 4 MiB test file took over 1s (0 MiB written): the disk is too slow for this profile, or a call \
               hung";
    assert_eq!(out.notices.len(), 1);
    assert_eq!(out.notices[0].message.as_str(), format!("{why}; the disk stage did not run"));
    assert_eq!(out.stage.samples.len(), 2);
    for s in &out.stage.samples {
        assert_eq!(s.status, Status::Error);
        assert_eq!(s.message.as_ref().unwrap().as_str(), why);
    }
    // The stalled thread still holds the file open; its name is gone.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// The standard profile's fill may take a sample timeout per 256 MiB.
#[test]
fn the_fill_deadline_grows_with_the_file() {
    let params = runner_bench_format::Profile::Standard.parameters();
    let p = DiskPlan::new(&params, PathBuf::from("."), None);
    assert_eq!(p.fill_timeout, Duration::from_secs(240));
    let quick = DiskPlan::new(&runner_bench_format::Profile::Quick.parameters(), PathBuf::from("."), None);
    assert_eq!(quick.fill_timeout, quick.timeout);
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
