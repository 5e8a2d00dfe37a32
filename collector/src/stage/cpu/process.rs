//! The workload as programs of their own: the executables build.rs made
//! from the CoreMark objects and vendor/coremark/workload_main.c (one
//! thread) or allcore_main.c (one thread per context), embedded here,
//! written to a private temporary folder, run once per sample. This file
//! reads the one-thread program's one line of output strictly; the
//! all-core stage reads its own program's (`cpu_allcore::report`).
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

use super::coremark::{Crcs, PERFORMANCE, Seeds, VALIDATION};

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

/// What the program reported on success (its one line).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    pub iterations: u64,
    /// Seconds of the timed loop.
    pub seconds: f64,
    /// CPU seconds its thread ran during the loop, where it could say.
    pub cpu_seconds: Option<f64>,
    /// The performance run's CRCs.
    pub crcs: Crcs,
    /// The validation run's CRCs.
    pub validation: Crcs,
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
/// killed if the run is interrupted meanwhile.
pub struct Running {
    child: Child,
    ended: bool,
    interrupt: Option<ChildProcess>,
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

/// The seeds as the program takes them: `0x0 0x0 0x66`.
fn seed_args(Seeds(a, b, c): Seeds) -> [String; 3] {
    [a, b, c].map(|s| format!("{:#x}", s as u16))
}

/// The program's arguments: the seconds to measure, the time after which
/// it gives up (`left`, the sample's time to its deadline), then the
/// performance and validation seeds.
pub fn arguments(seconds: Duration, left: Duration) -> Vec<String> {
    let mut args = vec![seconds.as_secs_f64().to_string(), left.as_secs_f64().to_string()];
    args.extend(seed_args(PERFORMANCE));
    args.extend(seed_args(VALIDATION));
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
            Ok(child) => {
                let interrupt = Some(ChildProcess::register(child.id()));
                return Ok(Running { child, ended: false, interrupt });
            }
            Err(e) if is_text_busy(&e) && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
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
    /// The program exited: its status, output and error output.
    Exited { status: ExitStatus, stdout: String, stderr: String },
    /// The deadline passed, or `stop` said so: the program was killed.
    Stopped,
}

/// Waits for the program until it exits, `deadline` passes or `stop` says
/// to (the sample was abandoned); `look` is called at each poll with the
/// program's id (the caller checks where it runs).
pub fn wait(mut running: Running, deadline: Instant, stop: impl Fn() -> bool, mut look: impl FnMut(u32)) -> Waited {
    let id = running.id();
    loop {
        match running.child.try_wait() {
            Ok(Some(status)) => {
                running.ended = true;
                // Reaped: its pid may be given to another process.
                running.interrupt = None;
                let mut stdout = String::new();
                let mut stderr = String::new();
                if let Some(mut out) = running.child.stdout.take() {
                    let _ = out.read_to_string(&mut stdout);
                }
                if let Some(mut err) = running.child.stderr.take() {
                    let _ = err.read_to_string(&mut stderr);
                }
                return Waited::Exited { status, stdout, stderr };
            }
            Ok(None) if Instant::now() < deadline && !stop() => {
                look(id);
                std::thread::sleep(POLL);
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

/// Reads the program's output: exactly one line, `iterations=N seconds=S
/// cpu_seconds=C crcs=… validation_crcs=…` (workload_main.c), each field
/// in that order, or says exactly what is wrong.
pub fn parse(stdout: &str) -> Result<Report, String> {
    const WHO: &str = "the workload";
    let line = match one_line(stdout) {
        Some(line) => line,
        _ if stdout.is_empty() => return Err("the workload printed nothing".to_string()),
        _ => return Err(format!("the workload's output is not one line: {}", quoted(stdout))),
    };
    let [iterations, seconds, cpu_seconds, crcs, validation] =
        fields(WHO, line, ["iterations", "seconds", "cpu_seconds", "crcs", "validation_crcs"])?;
    Ok(Report {
        iterations: count_of(WHO, "iterations", iterations)?,
        seconds: seconds_of(WHO, "seconds", seconds)?,
        cpu_seconds: optional_seconds_of(WHO, "cpu_seconds", cpu_seconds)?,
        crcs: crcs_of(WHO, "crcs", crcs)?,
        validation: crcs_of(WHO, "validation_crcs", validation)?,
    })
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
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && value.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .ok_or_else(|| format!("{who}'s {name} are not a positive number of seconds: {}", quoted(value)))
}

/// Seconds, or `-` where the program's clock could not say.
pub(crate) fn optional_seconds_of(who: &str, name: &str, value: &str) -> Result<Option<f64>, String> {
    match value {
        "-" => Ok(None),
        v => seconds_of(who, name, v).map(Some),
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
/// exit status and the first line of its error output.
pub fn exit_message(status: ExitStatus, stderr: &str) -> String {
    match stderr.lines().next().filter(|l| !l.trim().is_empty()) {
        Some(first) => format!("the workload process ended with {status}: {}", quoted(first)),
        None => format!("the workload process ended with {status}"),
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
    use super::*;

    const GOOD: &str = "iterations=4096 seconds=1.250000000 cpu_seconds=1.200000000 \
                        crcs=0xe9f5,0xe714,0x1fd7,0x8e3a,0xd340 validation_crcs=0x18f2,0xe3c1,0x0747,0x8d84,0xe3c1\n";

    #[test]
    fn a_result_line_is_read_field_by_field() {
        let r = parse(GOOD).unwrap();
        assert_eq!((r.iterations, r.seconds, r.cpu_seconds), (4096, 1.25, Some(1.2)));
        assert_eq!(r.crcs, Crcs { seed: 0xe9f5, list: 0xe714, matrix: 0x1fd7, state: 0x8e3a, final_: 0xd340 });
        assert_eq!(r.validation, Crcs { seed: 0x18f2, list: 0xe3c1, matrix: 0x0747, state: 0x8d84, final_: 0xe3c1 });
        let no_cpu = GOOD.replace("cpu_seconds=1.200000000", "cpu_seconds=-");
        assert_eq!(parse(&no_cpu).unwrap().cpu_seconds, None);
        // Windows' C runtime ends a text-mode line with \r\n.
        assert_eq!(parse(&GOOD.replace('\n', "\r\n")).unwrap(), r);
        assert_eq!(deadline_iterations("deadline iterations=42\r\n"), Some(42));
        assert_eq!(deadline_iterations("deadline iterations=42\n"), Some(42));
        assert_eq!(
            parse(&GOOD.replace('\n', "\r\r\n")).unwrap_err(),
            format!("the workload's output is not one line: {:?}", GOOD.replace('\n', "\r\r\n"))
        );
    }

    #[test]
    fn a_malformed_line_is_refused_with_what_is_wrong() {
        let cases = [
            ("", "the workload printed nothing".to_string()),
            (&GOOD[..GOOD.len() - 1], format!("the workload's output is not one line: {:?}", &GOOD[..GOOD.len() - 1])),
            ("a\nb\n", r#"the workload's output is not one line: "a\nb\n""#.to_string()),
            ("iterations=1 seconds=1\n", r#"the workload's line has 2 fields, not 5: "iterations=1 seconds=1""#.into()),
        ];
        for (stdout, want) in cases {
            assert_eq!(parse(stdout).unwrap_err(), want, "{stdout:?}");
        }
        let replaced = |from: &str, to: &str| parse(&GOOD.replace(from, to)).unwrap_err();
        assert_eq!(
            replaced("iterations=4096", "iters=4096"),
            r#"the workload's field 1 is "iters=4096", expected iterations=…"#
        );
        assert_eq!(
            replaced("iterations=4096", "iterations=0"),
            r#"the workload's iterations are not a positive whole number: "0""#
        );
        assert_eq!(
            replaced("seconds=1.250000000", "seconds=inf"),
            r#"the workload's seconds are not a positive number of seconds: "inf""#
        );
        assert_eq!(
            replaced("cpu_seconds=1.200000000", "cpu_seconds=-1"),
            r#"the workload's cpu_seconds are not a positive number of seconds: "-1""#
        );
        assert_eq!(
            replaced(",0xd340", ""),
            r#"the workload's crcs are not five CRCs of the form 0x1234: "0xe9f5,0xe714,0x1fd7,0x8e3a""#
        );
        assert_eq!(
            replaced("0x0747", "0x747"),
            r#"the workload's validation_crcs are not five CRCs of the form 0x1234: "0x18f2,0xe3c1,0x747,0x8d84,0xe3c1""#
        );
        // Control characters from the program are escaped, and long output cut.
        let long = format!("{}\u{1b}\n", "x".repeat(200));
        assert_eq!(
            parse(&long).unwrap_err(),
            format!("the workload's line has 1 fields, not 5: {:?}…", "x".repeat(160))
        );
    }

    #[test]
    fn a_program_at_its_deadline_says_how_far_it_got() {
        assert_eq!(deadline_iterations("deadline iterations=7168\n"), Some(7168));
        assert_eq!(deadline_iterations("deadline iterations=7168"), None);
        assert_eq!(deadline_iterations(GOOD), None);
    }

    #[test]
    fn the_arguments_are_the_seconds_the_deadline_and_both_seed_sets() {
        let args = arguments(Duration::from_millis(300), Duration::from_secs(30));
        assert_eq!(args, ["0.3", "30", "0x0", "0x0", "0x66", "0x3415", "0x3415", "0x66"]);
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
            let running =
                start(written.path(), &arguments(Duration::from_millis(100), Duration::from_secs(30))).unwrap();
            assert_eq!(allowed_cpus(running.id()), Some(vec![cpu]));
            // Where it runs, as the sample looks at it while it waits.
            assert_eq!(last_cpu(running.id()), Some(cpu));
            let deadline = Instant::now() + Duration::from_secs(30);
            let Waited::Exited { status, stdout, .. } = wait(running, deadline, || false, |_| ()) else {
                panic!("the program did not end")
            };
            assert!(status.success());
            let report = parse(&stdout).unwrap();
            assert_eq!([report.crcs.seed, report.crcs.list], [0xe9f5, 0xe714]);
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
