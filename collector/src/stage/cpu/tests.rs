//! The one-thread CPU stage's tests: pinning, timeouts, the report's
//! checks and the search for the iteration count.

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
    // About a second's work: it runs while its affinity is read.
    let running = process::start(written.path(), &process::arguments(PERFORMANCE, 30_000)).unwrap();
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
    // About the 300 ms asked for: the count comes from runs that
    // other tests' work on the same CPU may have slowed down.
    let elapsed = sample.elapsed_s.unwrap().get();
    assert!(elapsed > 0.05 && elapsed < 5.0, "{elapsed} s");
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
fn a_thread_abandoned_before_its_programs_start_runs_none() {
    let plan = CpuPlan { samples: 1, seconds: Duration::from_secs(60), timeout: Duration::from_millis(100), cpu: None };
    let deadline = Instant::now() + plan.timeout;
    let (resume, wait) = std::sync::mpsc::channel::<()>();
    let (sent, got) = std::sync::mpsc::channel::<(CpuSample, Duration)>();
    let worker_plan = plan.clone();
    let ended = watchdog::run("t", deadline, Reported { affinity: Affinity::Unpinned }, move |m| {
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
    // the program out, no more (the validation run alone would take
    // some milliseconds of the program's, not of this thread's).
    // (Windows counts a thread's CPU time in ticks of 15.6 ms, Wine in 10 ms.)
    assert!(cpu_time < Duration::from_millis(40), "it ran for {cpu_time:?} of CPU time");
}

/// How far past its timeout a sample may end: the watchdog wakes at the
/// deadline, and this leaves room for a busy test machine's scheduler.
/// (Only the test of a sample blocked in the kernel, Unix only, uses it.)
#[cfg(unix)]
const LATE: Duration = Duration::from_millis(500);

#[test]
fn a_sample_that_ran_its_seconds_past_its_timeout_is_a_timeout() {
    // Starting the programs, validation and the count's search come before
    // the timed seconds, inside the timeout: the seconds end after the
    // deadline, where the program is stopped.
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
    // Room for the second sample (validation, the count's search, up to
    // eight program starts and 300 ms) to end `ok` on a loaded test VM,
    // where the disk stage's like test once timed out with 1 s.
    let timeout = Duration::from_secs(5);
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
    // The thread that waits for the program is stuck; the program ends
    // with its count, about the 300 ms.
    assert_eq!(first.message.as_ref().unwrap().as_str(), "sample exceeded 5s before the workload process reported");
    assert!(ended[0] >= timeout && ended[0] <= timeout + LATE, "{:?}", ended[0]);
    if let Some(cpu) = cpu {
        assert_eq!(first.affinity, Affinity::Pinned { cpu, group: 0 });
    }
    assert_eq!(stage.samples[1].status, Status::Ok, "{:?}", stage.samples[1].message);
    assert!(stage.samples[1].iterations_per_s().is_some());
}

/// A report whose CRC differs from the published one gives no score:
/// the sample fails and names the CRC.
#[test]
fn a_corrupted_crc_fails_the_sample() {
    let report = "CoreMark Size    : 666\nTotal time (secs): 1.250000\nIterations       : 4096\n\
                  seedcrc          : 0xe9f5\n[0]crclist       : 0xe714\n[0]crcmatrix     : 0x1fd7\n\
                  [0]crcstate      : 0x8e3b\n[0]crcfinal      : 0xd340\n";
    let validation = Crcs { seed: 0x18f2, list: 0xe3c1, matrix: 0x0747, state: 0x8d84, final_: 0xe3c1 };
    let pinned = Affinity::Pinned { cpu: 1, group: 0 };
    let cpu = Some(Duration::from_millis(1300));
    let sample = judged(process::parse(report).unwrap(), validation, cpu, pinned, None);
    assert_eq!(sample.status, Status::Error);
    assert_eq!(sample.validation, Some(Validation::Failed));
    assert_eq!(
        sample.message.as_ref().unwrap().as_str(),
        "CoreMark CRC check failed: performance run: crcstate 0x8e3b, expected 0x8e3a"
    );
    assert_eq!(sample.iterations_per_s(), None);
    let good = judged(process::parse(&report.replace("0x8e3b", "0x8e3a")).unwrap(), validation, cpu, pinned, None);
    assert_eq!(good.status, Status::Ok);
    // 4096 iterations in 1.25 s; the process's CPU time, which includes
    // its start, is capped at the 1.25 s.
    assert_eq!(good.iterations_per_s(), Some(4096.0 / 1.25));
    assert_eq!(good.cpu_s.unwrap().get(), 1.25);
    let wrong = Crcs { state: 0x8d85, ..validation };
    let failed = judged(process::parse(&report.replace("0x8e3b", "0x8e3a")).unwrap(), wrong, cpu, pinned, None);
    assert_eq!(
        failed.message.unwrap().as_str(),
        "CoreMark CRC check failed: validation run: crcstate 0x8d85, expected 0x8d84"
    );
}

/// The count lasts the seconds asked for at the rate of the first run
/// that lasted the calibration's target: here 4096 iterations in 0.4 s
/// after two shorter runs, so 10,240 per second.
#[test]
fn the_count_is_found_from_the_first_run_long_enough() {
    let mut asked = Vec::new();
    let found = calibrate(Duration::from_secs(30), |n| {
        asked.push(n);
        let report = process::Report { iterations: n, seconds: n as f64 / 10_240.0, crcs: Crcs::default() };
        Ok::<_, ()>((report, None))
    });
    assert_eq!(found, Ok(307_200));
    assert_eq!(asked, [1024, 2048, 4096]);
    // A run that fails ends the search with its error.
    assert_eq!(calibrate(Duration::from_secs(1), |_| Err::<(process::Report, _), _>("gone")), Err("gone"));
}

/// A run that reports another count than it was given is refused.
#[test]
fn a_run_of_another_count_is_refused() {
    let report = "Total time (secs): 1.0\nIterations       : 4096\nseedcrc          : 0xe9f5\n\
                  [0]crclist       : 0xe714\n[0]crcmatrix     : 0x1fd7\n[0]crcstate      : 0x8e3a\n\
                  [0]crcfinal      : 0xd340\n";
    let exited = |stdout: &str| process::Waited::Exited {
        status: ok_status(),
        stdout: stdout.to_string(),
        stderr: String::new(),
        cpu: None,
    };
    assert_eq!(ended(exited(report), 4096).unwrap().0.iterations, 4096);
    assert_eq!(
        ended(exited(report), 5000).unwrap_err(),
        Some("the workload ran 4096 iterations, not 5000".to_string())
    );
    assert_eq!(ended(process::Waited::Stopped, 1).unwrap_err(), None);
}

/// The status of a process that exited with 0.
fn ok_status() -> std::process::ExitStatus {
    #[cfg(unix)]
    return std::os::unix::process::ExitStatusExt::from_raw(0);
    #[cfg(windows)]
    return std::os::windows::process::ExitStatusExt::from_raw(0);
}

#[test]
fn crc_mismatches_are_named() {
    let got = Crcs { seed: 0xe9f5, list: 0x1234, matrix: 0x1fd7, state: 0x8e3a, final_: 0 };
    assert_eq!(mismatch("performance", PERFORMANCE, got).unwrap(), "performance run: crclist 0x1234, expected 0xe714");
}
