//! The workload as programs of their own: the executables build.rs made
//! from the CoreMark objects and vendor/coremark/workload_main.c (one
//! thread; in a Linux build from EEMBC's sources, coremark.exe itself) or
//! allcore_main.c (one thread per context), embedded here, written to a
//! private temporary folder and run for each sample. This file reads the
//! one-thread program's report, coremark.exe's; the all-core stage reads
//! its own program's (`cpu_allcore::report`).
//!
//! Why a program of its own: linked into the collector, the same CoreMark
//! objects landed at different addresses and alignments after whatever Rust
//! code the linker put before them, and ran up to 4 % faster or slower
//! from one build to another (issue 56). A separate executable's layout is
//! made by the C compiler and linker alone, from the C sources and flags.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::platform::cleanup::{ChildProcess, TempFile, TempFolder};
use crate::platform::cputime;

use super::coremark::{Crcs, Seeds};

/// An embedded program: its bytes, as build.rs linked it, and the file
/// name it is written under.
pub struct Program {
    pub bytes: &'static [u8],
    pub file_name: &'static str,
}

/// The one-thread stage's program.
pub static ONE_THREAD: Program = Program {
    bytes: include_bytes!(env!("RUNNER_BENCH_WORKLOAD_EXE")),
    file_name: if cfg!(windows) { "coremark-workload.exe" } else { "coremark-workload" },
};

/// The all-core stage's program.
pub static ALL_CORE: Program = Program {
    bytes: include_bytes!(env!("RUNNER_BENCH_ALLCORE_EXE")),
    file_name: if cfg!(windows) { "coremark-allcore.exe" } else { "coremark-allcore" },
};

/// How often the waiting thread looks at the program: its exit, the CPU it
/// runs on and whether the sample was abandoned.
const POLL: Duration = Duration::from_millis(50);

/// The most of its output that a message quotes.
const QUOTED_CHARS: usize = 160;

/// What the program reported on success: the lines of coremark.exe's
/// report that the stage reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    pub iterations: u64,
    /// Seconds of the timed iterations (`Total time (secs)`); 0 where they
    /// took less than the program's timer counts (a millisecond for
    /// coremark.exe).
    pub seconds: f64,
    /// The run's CRCs.
    pub crcs: Crcs,
}

/// The executable written out: removed, with its folder, when dropped or
/// when the run is interrupted.
pub struct Written {
    file: TempFile,
    _folder: TempFolder,
}

impl Written {
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// Writes `program` into a new folder of the system's temporary folder
/// that only this user may enter, itself only this user's (0700).
pub fn write(program: &Program) -> std::io::Result<Written> {
    let name = format!("runner-bench-coremark-{}", uuid::Uuid::new_v4().simple());
    let folder = TempFolder::create_private(std::env::temp_dir().join(name))?;
    let file = TempFile::register(folder.path().join(program.file_name));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o700);
    let mut out = options.open(file.path())?;
    std::io::Write::write_all(&mut out, program.bytes)?;
    out.sync_all()?;
    Ok(Written { file, _folder: folder })
}

/// A running program, killed and reaped when dropped unless it ended, and
/// killed if the run is interrupted meanwhile. Its output is read as it
/// comes, so that a program that prints more than a pipe holds (the
/// all-core program, a line per context) never blocks on it.
pub struct Running {
    child: Child,
    ended: bool,
    interrupt: Option<ChildProcess>,
    stdout: Option<std::thread::JoinHandle<String>>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.child.kill();
            self.interrupt = None;
            let _ = self.child.wait();
        }
    }
}

impl Running {
    pub fn id(&self) -> u32 {
        self.child.id()
    }
}

/// The seeds as the programs take them: `0x0 0x0 0x66`.
pub(crate) fn seed_args(Seeds(a, b, c): Seeds) -> [String; 3] {
    [a, b, c].map(|s| format!("{:#x}", s as u16))
}

/// The one-thread program's arguments, as EEMBC's Makefile runs
/// coremark.exe (`0x0 0x0 0x66 ITERATIONS 7 1 2000`): the seeds, the
/// iterations, all three algorithms (7), and two arguments core_main.c
/// ignores.
pub fn arguments(seeds: Seeds, iterations: u64) -> Vec<String> {
    let mut args: Vec<String> = seed_args(seeds).into();
    args.extend([iterations.to_string(), "7".into(), "1".into(), "2000".into()]);
    args
}

/// Starts the program. It inherits the affinity in force: on Linux the
/// calling thread's, on Windows the process's (`affinity::pin_process`
/// narrows both).
pub fn start(exe: &Path, args: &[String]) -> std::io::Result<Running> {
    let mut command = Command::new(exe);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // "Text file busy": another thread's child, forked while the file was
    // still open for writing, holds it until it runs its own program.
    let mut tries = 0;
    loop {
        match command.spawn() {
            Ok(mut child) => {
                let interrupt = Some(ChildProcess::register(child.id()));
                let stdout = child.stdout.take().map(read_all);
                let stderr = child.stderr.take().map(read_all);
                return Ok(Running { child, ended: false, interrupt, stdout, stderr });
            }
            Err(e) if is_text_busy(&e) && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Reads a pipe to its end on a thread of its own.
fn read_all(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

#[cfg(unix)]
fn is_text_busy(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ETXTBSY)
}

#[cfg(not(unix))]
fn is_text_busy(_: &std::io::Error) -> bool {
    false
}

/// How a wait ended.
#[derive(Debug)]
pub enum Waited {
    /// The program exited: its status, output and error output, and the
    /// CPU time the OS charged it, where it says.
    Exited { status: ExitStatus, stdout: String, stderr: String, cpu: Option<Duration> },
    /// The deadline passed, or `stop` said so: the program was killed.
    Stopped,
}

/// Waits for the program until it exits, `deadline` passes or `stop` says
/// to (the sample was abandoned); `look` is called at each poll with the
/// program's id (the caller checks where it runs). Polls every 5 ms at
/// first, for the short runs that find an iteration count, then every
/// `POLL`.
pub fn wait(mut running: Running, deadline: Instant, stop: impl Fn() -> bool, mut look: impl FnMut(u32)) -> Waited {
    let id = running.id();
    let mut polls = 0u32;
    loop {
        match cputime::try_reap(&mut running.child) {
            Ok(Some((status, cpu))) => {
                running.ended = true;
                // Reaped: its pid may be given to another process.
                running.interrupt = None;
                let text = |reader: Option<std::thread::JoinHandle<String>>| {
                    reader.map(|r| r.join().unwrap_or_default()).unwrap_or_default()
                };
                let (stdout, stderr) = (text(running.stdout.take()), text(running.stderr.take()));
                return Waited::Exited { status, stdout, stderr, cpu };
            }
            Ok(None) if Instant::now() < deadline && !stop() => {
                look(id);
                polls += 1;
                std::thread::sleep(if polls <= 40 { Duration::from_millis(5) } else { POLL });
            }
            // Past the deadline, abandoned, or the status cannot be read:
            // `Running`'s drop kills and reaps it.
            _ => return Waited::Stopped,
        }
    }
}

/// The program's text quoted for a message: escaped, and cut short.
pub(crate) fn quoted(text: &str) -> String {
    let cut: String = text.chars().take(QUOTED_CHARS).collect();
    let more = if text.chars().count() > QUOTED_CHARS { "…" } else { "" };
    format!("{cut:?}{more}")
}

/// The iterations of a program that stopped at its own deadline: its line
/// `deadline iterations=N`.
pub fn deadline_iterations(stdout: &str) -> Option<u64> {
    one_line(stdout)?.strip_prefix("deadline iterations=")?.parse().ok()
}

/// The one line of `stdout` without its end: `\n`, or `\r\n` where the C
/// runtime writes stdout in text mode (Windows); none where it is not one
/// line.
pub(crate) fn one_line(stdout: &str) -> Option<&str> {
    let line = stdout.strip_suffix('\n')?;
    let line = line.strip_suffix('\r').unwrap_or(line);
    (!line.contains(['\n', '\r'])).then_some(line)
}

/// The lines of the report that the stage reads, as core_main.c prints
/// them (`Total time (secs): 12.345678`, `[0]crcfinal      : 0x1234`).
const REPORT_LINES: [&str; 7] =
    ["Total time (secs)", "Iterations", "seedcrc", "[0]crclist", "[0]crcmatrix", "[0]crcstate", "[0]crcfinal"];

/// Reads the one-thread program's report, EEMBC's `coremark.exe` report:
/// lines `NAME : VALUE`, of which those in `REPORT_LINES` must each appear
/// exactly once, with a value of their kind; other lines (the run's name,
/// the compiler, coremark.exe's remark that a run under 10 s is no valid
/// score, its own verdict on the CRCs) are left to the reader: the stage
/// checks the CRCs itself, against the published values.
pub fn parse(stdout: &str) -> Result<Report, String> {
    const WHO: &str = "the workload";
    if stdout.is_empty() {
        return Err("the workload printed nothing".to_string());
    }
    let mut values: [Option<&str>; 7] = [None; 7];
    for line in stdout.lines() {
        let Some((name, value)) = line.split_once(':') else { continue };
        let Some(k) = REPORT_LINES.iter().position(|n| *n == name.trim_end()) else { continue };
        if values[k].replace(value.trim()).is_some() {
            return Err(format!("the workload's report has more than one {:?} line", REPORT_LINES[k]));
        }
    }
    let value = |k: usize| values[k].ok_or_else(|| missing(k, stdout));
    let crc = |k: usize| crc_of(k, values[k].ok_or_else(|| missing(k, stdout))?);
    Ok(Report {
        // coremark.exe times in milliseconds: one validation iteration
        // reports 0.000000.
        seconds: clock_seconds_of(WHO, "seconds", value(0)?)?,
        iterations: count_of(WHO, "iterations", value(1)?)?,
        crcs: Crcs { seed: crc(2)?, list: crc(3)?, matrix: crc(4)?, state: crc(5)?, final_: crc(6)? },
    })
}

/// What is wrong with a report that lacks `REPORT_LINES[k]`.
fn missing(k: usize, stdout: &str) -> String {
    format!("the workload's report has no {:?} line: {}", REPORT_LINES[k], quoted(stdout))
}

/// The CRC of the report's line `REPORT_LINES[k]`: `0x` and four
/// lower-case hex digits, as core_main.c prints it.
fn crc_of(k: usize, value: &str) -> Result<u16, String> {
    value
        .strip_prefix("0x")
        .filter(|h| h.len() == 4 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .and_then(|h| u16::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("the workload's {} is not a CRC of the form 0x1234: {}", REPORT_LINES[k], quoted(value)))
}

/// The values of `line`'s space-separated fields, which must be `names`,
/// each `name=value`, exactly and in that order; `who` names the program
/// in what is wrong.
pub(crate) fn fields<'a, const N: usize>(who: &str, line: &'a str, names: [&str; N]) -> Result<[&'a str; N], String> {
    let found: Vec<&str> = line.split(' ').collect();
    if found.len() != N {
        return Err(format!("{who}'s line has {} fields, not {N}: {}", found.len(), quoted(line)));
    }
    let mut values = [""; N];
    for (i, (field, name)) in found.iter().zip(names).enumerate() {
        values[i] = field
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('='))
            .ok_or_else(|| format!("{who}'s field {} is {}, expected {name}=…", i + 1, quoted(field)))?;
    }
    Ok(values)
}

/// A positive whole number.
pub(crate) fn count_of(who: &str, name: &str, value: &str) -> Result<u64, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{who}'s {name} are not a positive whole number: {}", quoted(value)))
}

/// A positive number of seconds, digits and a point only.
pub(crate) fn seconds_of(who: &str, name: &str, value: &str) -> Result<f64, String> {
    clock_seconds_of(who, name, value)
        .ok()
        .filter(|s| *s > 0.0)
        .ok_or_else(|| format!("{who}'s {name} are not a positive number of seconds: {}", quoted(value)))
}

/// What a clock read: seconds, digits and a point only, possibly 0 where
/// the time was shorter than the clock counts (coremark.exe's timer counts
/// milliseconds, Windows' thread CPU clock 15.6 ms ticks).
pub(crate) fn clock_seconds_of(who: &str, name: &str, value: &str) -> Result<f64, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0 && value.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .ok_or_else(|| format!("{who}'s {name} are not a number of seconds: {}", quoted(value)))
}

/// A clock's seconds, or `-` where the program's clock could not say.
pub(crate) fn optional_seconds_of(who: &str, name: &str, value: &str) -> Result<Option<f64>, String> {
    match value {
        "-" => Ok(None),
        v => clock_seconds_of(who, name, v).map(Some),
    }
}

/// Five CRCs, `0x` and four lower-case hex digits each, comma-separated.
pub(crate) fn crcs_of(who: &str, name: &str, value: &str) -> Result<Crcs, String> {
    let wrong = || format!("{who}'s {name} are not five CRCs of the form 0x1234: {}", quoted(value));
    let parts: Vec<u16> = value
        .split(',')
        .map(|p| {
            let hex = p.strip_prefix("0x").filter(|h| h.len() == 4 && h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            hex.bytes().all(|b| !b.is_ascii_uppercase()).then(|| u16::from_str_radix(hex, 16).ok())?
        })
        .collect::<Option<_>>()
        .ok_or_else(wrong)?;
    let [seed, list, matrix, state, final_] = parts[..] else { return Err(wrong()) };
    Ok(Crcs { seed, list, matrix, state, final_ })
}

/// What a program that did not report a result says about itself: its
/// exit status and the first line of its error output; `who` names it
/// (`the workload`, `the all-core workload`).
pub fn exit_message(who: &str, status: ExitStatus, stderr: &str) -> String {
    match stderr.lines().next().filter(|l| !l.trim().is_empty()) {
        Some(first) => format!("{who} process ended with {status}: {}", quoted(first)),
        None => format!("{who} process ended with {status}"),
    }
}

/// Linux: the CPUs process `pid` may run on (its main thread's mask), to
/// check that it inherited the pinned thread's.
#[cfg(target_os = "linux")]
pub fn allowed_cpus(pid: u32) -> Option<Vec<u32>> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for the
    // given process and we pass its true size.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        (libc::sched_getaffinity(pid as libc::pid_t, size, &mut set) == 0).then_some(set)?
    };
    // SAFETY: CPU_ISSET reads a bit of a valid set within its size.
    Some((0..libc::CPU_SETSIZE as usize).filter(|&i| unsafe { libc::CPU_ISSET(i, &set) }).map(|i| i as u32).collect())
}

/// Windows: the CPUs of processor group 0 the program may run on (its
/// process mask), to check that it inherited the one `pin_process` set;
/// none where it lives in another group or in several.
#[cfg(windows)]
pub fn allowed_cpus_of(running: &Running) -> Option<Vec<u32>> {
    use std::os::windows::io::AsHandle;
    crate::platform::affinity::group_0_cpus_of(running.child.as_handle())
}

/// Linux: the CPU process `pid` last ran on, from /proc/<pid>/stat.
#[cfg(target_os = "linux")]
pub fn last_cpu(pid: u32) -> Option<u32> {
    last_cpu_of(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The 39th field of a /proc/<pid>/stat line (`processor`). The second is
/// the command's name in parentheses, which may hold spaces: fields are
/// counted after its closing parenthesis, where the third begins.
#[cfg_attr(not(target_os = "linux"), allow(dead_code, reason = "only Linux has /proc"))]
fn last_cpu_of(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(39 - 3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::super::coremark::{PERFORMANCE, VALIDATION};
    use super::*;

    /// coremark.exe's own report of a short performance run (EEMBC's
    /// Makefile build at vendor/coremark/EEMBC_COMMIT, `0x0 0x0 0x66 2000
    /// 7 1 2000`): under 10 s, so it also says the score is no valid one
    /// and that errors were detected, which the stage leaves to the reader.
    const OFFICIAL: &str = include_str!("../../../tests/fixtures/coremark-exe/performance.txt");
    /// Its report of one validation iteration (`0x3415 0x3415 0x66 1 7 1 2000`).
    const OFFICIAL_VALIDATION: &str = include_str!("../../../tests/fixtures/coremark-exe/validation.txt");

    #[test]
    fn coremark_exes_own_report_is_read() {
        let r = parse(OFFICIAL).unwrap();
        assert_eq!(r.iterations, 2000);
        assert!(r.seconds > 0.0 && OFFICIAL.contains(&format!("Total time (secs): {:.6}", r.seconds)));
        assert_eq!(r.crcs, Crcs { seed: 0xe9f5, list: 0xe714, matrix: 0x1fd7, state: 0x8e3a, final_: 0x4983 });
        let v = parse(OFFICIAL_VALIDATION).unwrap();
        assert_eq!(v.iterations, 1);
        assert_eq!(v.crcs, Crcs { seed: 0x18f2, list: 0xe3c1, matrix: 0x0747, state: 0x8d84, final_: 0xe3c1 });
        // Windows' C runtime ends a text-mode line with \r\n.
        assert_eq!(parse(&OFFICIAL.replace('\n', "\r\n")).unwrap(), r);
    }

    /// The project's program prints the same lines, read the same way.
    /// (A Linux build from EEMBC's sources embeds coremark.exe itself,
    /// whose own report the fixtures above are.)
    #[test]
    fn the_projects_program_reports_as_coremark_exe_does() {
        if super::super::coremark::build::WORKLOAD_COMMAND.contains("core_main.c") {
            return;
        }
        let written = write(&ONE_THREAD).unwrap();
        let out = Command::new(written.path()).args(arguments(VALIDATION, 1)).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let v = parse(&stdout).unwrap();
        assert_eq!((v.iterations, v.crcs.seed, v.crcs.final_), (1, 0x18f2, 0xe3c1));
        // Every line of its report is a line coremark.exe prints, its
        // name spelled and padded alike.
        let official: Vec<&str> = OFFICIAL.lines().filter_map(|l| l.split_once(':').map(|(n, _)| n)).collect();
        for line in stdout.lines() {
            let name = line.split_once(':').map_or(line, |(n, _)| n);
            assert!(official.contains(&name) || line == "2K validation run parameters for coremark.", "{line:?}");
        }
        let bad = Command::new(written.path()).args(["0", "0", "0x66", "0"]).output().unwrap();
        assert_eq!(bad.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&bad.stderr).trim_end(),
            "coremark-workload: ITERATIONS is not a whole number from 1 to 4294967295"
        );
    }

    #[test]
    fn a_malformed_report_is_refused_with_what_is_wrong() {
        let replaced = |from: &str, to: &str| {
            assert!(OFFICIAL.contains(from), "{from}");
            parse(&OFFICIAL.replace(from, to)).unwrap_err()
        };
        assert_eq!(parse("").unwrap_err(), "the workload printed nothing");
        assert_eq!(
            parse("Segmentation fault\n").unwrap_err(),
            r#"the workload's report has no "Total time (secs)" line: "Segmentation fault\n""#
        );
        assert_eq!(
            replaced("Iterations       : 2000", "Iterations       : 0"),
            r#"the workload's iterations are not a positive whole number: "0""#
        );
        assert_eq!(
            replaced("[0]crcstate      : 0x8e3a", "[0]crcstate      : 0x8E3A"),
            r#"the workload's [0]crcstate is not a CRC of the form 0x1234: "0x8E3A""#
        );
        assert_eq!(
            replaced("seedcrc          : 0xe9f5\n", "seedcrc          : 0xe9f5\nseedcrc : 0xe9f5\n"),
            r#"the workload's report has more than one "seedcrc" line"#
        );
        let seconds = OFFICIAL.lines().find(|l| l.starts_with("Total time (secs)")).unwrap();
        assert_eq!(
            replaced(seconds, "Total time (secs): -nan"),
            r#"the workload's seconds are not a number of seconds: "-nan""#
        );
    }

    #[test]
    fn a_program_at_its_deadline_says_how_far_it_got() {
        assert_eq!(deadline_iterations("deadline iterations=7168\n"), Some(7168));
        assert_eq!(deadline_iterations("deadline iterations=7168\r\n"), Some(7168));
        assert_eq!(deadline_iterations("deadline iterations=7168"), None);
        assert_eq!(deadline_iterations(OFFICIAL), None);
    }

    #[test]
    fn the_arguments_are_coremark_exes() {
        assert_eq!(arguments(PERFORMANCE, 30_000), ["0x0", "0x0", "0x66", "30000", "7", "1", "2000"]);
        assert_eq!(arguments(VALIDATION, 1), ["0x3415", "0x3415", "0x66", "1", "7", "1", "2000"]);
    }

    /// Each executable is what the C compiler makes of the C sources and
    /// flags, and nothing else: build.rs's command, run again into another
    /// folder, gives the same bytes. The Rust code is no input of that
    /// command, so two collectors that differ only in it run the same
    /// programs (scripts/bench-cpu-builds.sh compares two such builds'
    /// recorded hashes). Not under Wine, which has no host compiler.
    #[cfg(not(windows))]
    #[test]
    fn the_workload_executables_are_rebuilt_byte_for_byte() {
        use super::super::coremark::build::{ALLCORE_COMMAND, FLAG_SEPARATOR, WORKLOAD_COMMAND};
        for (program, command) in [(&ONE_THREAD, WORKLOAD_COMMAND), (&ALL_CORE, ALLCORE_COMMAND)] {
            let dir = tempfile::tempdir().unwrap();
            let again = dir.path().join("again").join(program.file_name);
            std::fs::create_dir(again.parent().unwrap()).unwrap();
            let mut args: Vec<String> = command.split(FLAG_SEPARATOR).map(String::from).collect();
            let out = args.iter().position(|a| a == "-o").expect("the command names its output after -o") + 1;
            args[out] = again.display().to_string();
            let status = Command::new(&args[0]).args(&args[1..]).status().unwrap();
            assert!(status.success(), "{}", args.join(" "));
            let same = std::fs::read(&again).unwrap() == program.bytes;
            assert!(same, "{} differs from the embedded program", again.display());
        }
        assert!(ONE_THREAD.bytes != ALL_CORE.bytes);
    }

    /// The program written out is the embedded one, only this user's, and
    /// gone with its folder once dropped.
    #[test]
    fn the_program_is_written_privately_and_removed() {
        let written = write(&ALL_CORE).unwrap();
        let (file, folder) = (written.path().to_path_buf(), written.path().parent().unwrap().to_path_buf());
        assert!(std::fs::read(&file).unwrap() == ALL_CORE.bytes);
        assert!(file.ends_with(ALL_CORE.file_name));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777, 0o700);
            assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o700);
        }
        drop(written);
        assert!(!file.exists() && !folder.exists());
    }

    /// A pinned thread's child runs where the thread may: the program
    /// inherits the affinity (Linux), read back from the kernel.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_program_inherits_the_pinned_threads_cpu() {
        let Some(cpu) = crate::platform::affinity::choose_cpu(None).unwrap() else { return };
        let written = write(&ONE_THREAD).unwrap();
        std::thread::spawn(move || {
            let _guard = crate::platform::affinity::pin_process(cpu).unwrap();
            let running = start(written.path(), &arguments(PERFORMANCE, 5000)).unwrap();
            assert_eq!(allowed_cpus(running.id()), Some(vec![cpu]));
            // Where it runs, as the sample looks at it while it waits.
            assert_eq!(last_cpu(running.id()), Some(cpu));
            let deadline = Instant::now() + Duration::from_secs(30);
            let Waited::Exited { status, stdout, cpu: cpu_time, .. } = wait(running, deadline, || false, |_| ()) else {
                panic!("the program did not end")
            };
            assert!(status.success());
            let report = parse(&stdout).unwrap();
            assert_eq!([report.crcs.seed, report.crcs.list], [0xe9f5, 0xe714]);
            // The OS charged it for its run: never more than the process
            // lived, which its timed iterations are part of (tests pinned to
            // the same CPU share it, so no lower bound holds).
            let cpu_time = cpu_time.expect("Linux reports a child's CPU time");
            assert!(cpu_time > Duration::ZERO && cpu_time < Duration::from_secs(30), "{cpu_time:?}");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn the_last_cpu_is_the_39th_field_even_with_spaces_in_the_name() {
        // A real line, with a name that holds ") (" as a process may.
        let stat = "4242 (core) (mark) R 1 4242 4242 0 -1 4194304 120 0 0 0 25 0 0 0 20 0 1 0 \
                    9000 2400000 180 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0";
        assert_eq!(last_cpu_of(stat), Some(3));
        assert_eq!(last_cpu_of("4242 (core) R 1"), None);
    }
}
