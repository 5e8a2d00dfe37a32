//! Build script of the `collector` package (collector/Cargo.toml points here
//! with `build = "../build.rs"`, since a virtual workspace root runs none).
//!
//! It compiles the CPU workload, CoreMark, with the flags of the published
//! protocol and bakes into the binary what the result file must record about
//! that build: the compiler's family and version, the flags, the C standard,
//! the defines, which implementation was built and a SHA-256 of its sources.
//!
//! It builds the workload three times from the same C files and arguments:
//! as a static library linked into the collector (its implementation's name
//! and the unit tests' reference vectors), and as two programs of their own
//! in OUT_DIR, which the collector embeds: `coremark-workload`, with
//! vendor/coremark/workload_main.c as its `main`, which the one-thread stage
//! runs for each sample (in a Linux build from EEMBC's sources it is EEMBC's
//! own coremark.exe instead, built as its Makefile builds it:
//! `coremark_exe`), and `coremark-allcore`, with allcore_main.c, one thread
//! per context, which the all-core stage runs once per sample. Each
//! program is linked by the C compiler alone, so where its code and data lie
//! does not depend on the collector's Rust code (it did, by up to 4 %:
//! vendor/coremark/README.md, "The workload as its own executable").
//!
//! By default it builds the project's own implementation in vendor/coremark.
//! With RUNNER_BENCH_COREMARK_SRC=<an eembc/coremark checkout> it builds the
//! official EEMBC sources instead, through vendor/coremark/official_shim.c,
//! and records the checkout's commit (releases do this at the commit in
//! vendor/coremark/EEMBC_COMMIT).
//!
//! The flags are EEMBC's own: its Makefile compiles with `-O2` and the
//! compiler's defaults. A native build therefore passes cc's
//! `no_default_flags`, since cc would add `-fPIC -ffunction-sections
//! -fdata-sections`: `-fPIC` makes every external function interposable, so
//! GCC stops inlining the list and matrix helpers, and the workload would no
//! longer be the one the official build runs. Whatever reaches the compiler
//! (CFLAGS, CFLAGS_<target>, flags cc derives from RUSTFLAGS) is recorded in
//! the result, not only what this file asks for.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// Separates the recorded flags (a flag may contain a space).
const FLAG_SEPARATOR: char = '\u{1f}';
/// The published workload defines. MULTITHREAD=1: one execution context.
/// TOTAL_DATA_SIZE=2000: 666 bytes for each of the three algorithms.
/// ITERATIONS=0: the iteration count is found at run time.
const DEFINES: [(&str, &str); 3] = [("MULTITHREAD", "1"), ("TOTAL_DATA_SIZE", "2000"), ("ITERATIONS", "0")];

/// The one-thread workload executable's `main`, in vendor/coremark.
const DRIVER: &str = "workload_main.c";
/// The all-core workload executable's `main`, in vendor/coremark.
const ALLCORE_DRIVER: &str = "allcore_main.c";

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.join("..");
    let vendor = root.join("vendor/coremark");
    println!("cargo:rerun-if-changed={}", root.join("build.rs").display());
    println!("cargo:rerun-if-changed={}", vendor.display());
    println!("cargo:rerun-if-env-changed=RUNNER_BENCH_COREMARK_SRC");
    println!("cargo:rerun-if-env-changed=GITHUB_SHA");

    let target = env::var("TARGET").expect("cargo sets TARGET");
    let host = env::var("HOST").expect("cargo sets HOST");
    let mut build = cc::Build::new();
    // Exactly the published flags, whatever the cargo profile: cc would
    // otherwise follow the profile's opt-level and add debug info.
    // MSVC has no C99 mode (cl ignores `-std:c99` with a warning): C11, its
    // oldest, which the result then records as the standard in force.
    let msvc = target.contains("msvc");
    build.opt_level(2).debug(false).std(if msvc { "c11" } else { "c99" }).warnings(true).define("NDEBUG", None);
    // A native GCC or Clang gets only what EEMBC's Makefile passes (see the
    // top of this file). MSVC keeps cc's defaults (they pick the C runtime
    // Rust links), and so does a cross build (they name the target).
    if target == host && !msvc {
        build.no_default_flags(true).flag("-O2");
        if target.contains("linux") {
            // What GCC does by default on the distributions GitHub's images
            // run, said explicitly so that the objects link into Rust's
            // position-independent executable on any distribution.
            build.flag("-fPIE");
        }
    }
    for (name, value) in DEFINES {
        build.define(name, value);
    }

    let mut eembc_commit = String::new();
    // A Linux build from EEMBC's sources runs EEMBC's own coremark.exe as
    // its one-thread program (`coremark_exe`).
    let mut eembc_main: Option<PathBuf> = None;
    let (implementation, c_files, sources) = match env::var_os("RUNNER_BENCH_COREMARK_SRC") {
        Some(official) => {
            let official = PathBuf::from(official);
            eembc_commit = checkout_commit(&official);
            // Another commit checked out at the same path, or edited
            // sources, build again (and record the new commit).
            if let Some(head) = git_path(&official, "HEAD") {
                println!("cargo:rerun-if-changed={}", head.display());
            }
            let port = vendor.join("official_port");
            build.include(&port).include(&official).include(&vendor);
            let mut files: Vec<PathBuf> = ["core_list_join.c", "core_matrix.c", "core_state.c", "core_util.c"]
                .iter()
                .map(|f| official.join(f))
                .collect();
            files.push(vendor.join("official_shim.c"));
            files.push(port.join("core_portme.c"));
            for f in &files {
                assert!(f.exists(), "RUNNER_BENCH_COREMARK_SRC: {} not found", f.display());
                println!("cargo:rerun-if-changed={}", f.display());
            }
            let library = files.clone();
            println!("cargo:rerun-if-changed={}", official.join("coremark.h").display());
            files.push(official.join("coremark.h"));
            files.push(port.join("core_portme.h"));
            files.push(vendor.join("runner_coremark.h"));
            files.push(vendor.join(DRIVER));
            files.push(vendor.join(ALLCORE_DRIVER));
            files.push(vendor.join("workload_common.h"));
            if target.contains("linux") {
                for f in COREMARK_EXE_ONLY {
                    let f = official.join(f);
                    assert!(f.exists(), "RUNNER_BENCH_COREMARK_SRC: {} not found", f.display());
                    println!("cargo:rerun-if-changed={}", f.display());
                    files.push(f);
                }
                eembc_main = Some(official.clone());
            }
            ("eembc", library, files)
        }
        None => {
            build.include(&vendor);
            let mut files: Vec<PathBuf> = fs::read_dir(&vendor)
                .expect("vendor/coremark is part of the repository")
                .map(|e| e.expect("readable vendor/coremark entry").path())
                .filter(|p| is_project_source(p))
                .collect();
            files.sort();
            let library: Vec<PathBuf> =
                files.iter().filter(|p| p.extension().is_some_and(|e| e == "c")).cloned().collect();
            files.push(vendor.join(DRIVER));
            files.push(vendor.join(ALLCORE_DRIVER));
            files.push(vendor.join("workload_common.h"));
            ("project", library, files)
        }
    };
    // The library, linked into the collector: its implementation's name,
    // and the reference vectors its unit tests check.
    let mut library = build.clone();
    library.files(&c_files);
    library.compile("runner_coremark");
    let compiler = build.get_compiler();
    let (flags, c_standard) = recorded_flags(&compiler);
    // The one-thread stage runs it as a program of its own: coremark.exe
    // itself where EEMBC's sources and port serve, else the driver, which
    // takes coremark.exe's arguments and prints its report's lines.
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let exe_name = if target.contains("windows") { "coremark-workload.exe" } else { "coremark-workload" };
    let workload = match &eembc_main {
        Some(official) => coremark_exe(&compiler, &flags, official, &out_dir.join(exe_name)),
        None => {
            let mut exe_sources = c_files.clone();
            exe_sources.push(vendor.join(DRIVER));
            workload_executable(&build, &exe_sources, &out_dir.join(exe_name), &[])
        }
    };
    // The all-core stage runs it as a threaded program of its own. POSIX
    // threads need `-pthread` where they are not part of the C library
    // (glibc before 2.34); Windows threads are the C runtime's.
    let allcore_name = if target.contains("windows") { "coremark-allcore.exe" } else { "coremark-allcore" };
    let mut allcore_sources = c_files.clone();
    allcore_sources.push(vendor.join(ALLCORE_DRIVER));
    let threads: &[&str] = if target.contains("windows") { &[] } else { &["-pthread"] };
    let allcore = workload_executable(&build, &allcore_sources, &out_dir.join(allcore_name), threads);

    let identity = compiler_identity(&compiler);
    println!("cargo:rustc-env=RUNNER_BENCH_CC={identity}");
    println!("cargo:rustc-env=RUNNER_BENCH_CFLAGS={}", flags.join(&FLAG_SEPARATOR.to_string()));
    println!("cargo:rustc-env=RUNNER_BENCH_CSTD={c_standard}");
    let defines: Vec<String> = DEFINES.iter().map(|(n, v)| format!("{n}={v}")).collect();
    println!("cargo:rustc-env=RUNNER_BENCH_CDEFINES={}", defines.join(";"));
    println!("cargo:rustc-env=RUNNER_BENCH_COREMARK_IMPL={implementation}");
    println!("cargo:rustc-env=RUNNER_BENCH_COREMARK_SHA256={}", sources_sha256(&sources));
    println!("cargo:rustc-env=RUNNER_BENCH_EEMBC_COMMIT={eembc_commit}");
    println!("cargo:rustc-env=RUNNER_BENCH_REVISION={}", revision(&root));
    println!("cargo:rustc-env=RUNNER_BENCH_TARGET={target}");
    println!("cargo:rustc-env=RUNNER_BENCH_WORKLOAD_EXE={}", workload.path.display());
    println!("cargo:rustc-env=RUNNER_BENCH_WORKLOAD_SHA256={}", workload.sha256);
    println!("cargo:rustc-env=RUNNER_BENCH_WORKLOAD_COMMAND={}", workload.command.join(&FLAG_SEPARATOR.to_string()));
    println!("cargo:rustc-env=RUNNER_BENCH_ALLCORE_EXE={}", allcore.path.display());
    println!("cargo:rustc-env=RUNNER_BENCH_ALLCORE_SHA256={}", allcore.sha256);
    println!("cargo:rustc-env=RUNNER_BENCH_ALLCORE_COMMAND={}", allcore.command.join(&FLAG_SEPARATOR.to_string()));
}

/// The workload executable build.rs made: where, its SHA-256, and the
/// command that made it (program first, arguments after).
struct Workload {
    path: PathBuf,
    sha256: String,
    command: Vec<String>,
}

/// The files of EEMBC's checkout that only its coremark.exe compiles: its
/// `main` and the POSIX port its Makefile builds with on Linux.
const COREMARK_EXE_ONLY: [&str; 4] =
    ["core_main.c", "posix/core_portme.c", "posix/core_portme.h", "posix/core_portme_posix_overrides.h"];

/// EEMBC's coremark.exe from the checkout `official`, built as its Makefile
/// builds it (`make PORT_DIR=linux XCFLAGS="<flags>" compile`, which runs
/// `cc -O2 -Ilinux -Iposix -I. -DFLAGS_STR="-O2 <flags>  -lrt"
/// -DITERATIONS=0 <flags> core_list_join.c core_main.c core_matrix.c
/// core_state.c core_util.c posix/core_portme.c -o coremark.exe -lrt`),
/// with the compiler cc chose and the flags the result records: so built,
/// the bytes are those of the coremark.exe that `make` builds with the same
/// compiler and XCFLAGS, the C standard the compiler's default, as there.
/// Only the workload defines the library gets are not passed (core_main.c's
/// defaults are the same values), nor cc's include paths or `-std`.
fn coremark_exe(compiler: &cc::Tool, flags: &[String], official: &Path, out: &Path) -> Workload {
    let mut command = Command::new(compiler.path());
    command
        .arg("-O2")
        .arg(format!("-I{}", official.join("linux").display()))
        .arg(format!("-I{}", official.join("posix").display()))
        .arg(format!("-I{}", official.display()))
        .arg(format!("-DFLAGS_STR=\"-O2 {}  -lrt\"", flags.join(" ")))
        .arg("-DITERATIONS=0")
        .args(flags);
    for f in ["core_list_join.c", "core_main.c", "core_matrix.c", "core_state.c", "core_util.c", "posix/core_portme.c"]
    {
        command.arg(official.join(f));
    }
    command.arg("-o").arg(out).arg("-lrt");
    run_build(command, out)
}

/// Compiles and links `sources` (the workload's C files and a driver,
/// vendor/coremark/workload_main.c or allcore_main.c) into the executable
/// `out`, in one call of the compiler cc chose for the target, with exactly
/// the arguments the library is compiled with and `extra` after them: as EEMBC's Makefile builds coremark.exe
/// (`$(CC) $(CFLAGS) <sources> -o coremark.exe`). Nothing of the Rust build
/// takes part, so the executable's bytes, and with them where its code and
/// data lie, depend only on the C sources, the flags and the toolchain. The
/// compiler names each object's symbols after the source's file name, not
/// its path, and the output's path is not written into it either: the same
/// command run elsewhere gives the same bytes (the collector's test
/// `the_workload_executables_are_rebuilt_byte_for_byte` runs it again).
fn workload_executable(build: &cc::Build, sources: &[PathBuf], out: &Path, extra: &[&str]) -> Workload {
    let compiler = build.get_compiler();
    let mut command = compiler.to_command();
    command.args(sources).args(extra);
    if compiler.is_like_msvc() {
        command.arg(format!("/Fe{}", out.display()));
    } else {
        command.arg("-o").arg(out);
    }
    run_build(command, out)
}

/// Runs a command that builds the executable `out`, and hashes it.
fn run_build(mut command: Command, out: &Path) -> Workload {
    let recorded: Vec<String> = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let output = command.output().unwrap_or_else(|e| panic!("cannot run {}: {e}", recorded[0]));
    if !output.status.success() {
        panic!(
            "building the workload executable failed ({}):\n{}\n{}{}",
            output.status,
            recorded.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let bytes = fs::read(out).unwrap_or_else(|e| panic!("cannot read {}: {e}", out.display()));
    Workload { path: out.to_path_buf(), sha256: format!("{:x}", Sha256::digest(&bytes)), command: recorded }
}

/// The compiler's arguments that shape the code, in the order given, and
/// the C standard in force: every argument the compiler is run with (those
/// written in CC or CC_<target> after the compiler's name, cc's defaults
/// where they apply, CFLAGS and CFLAGS_<target>, flags derived from
/// RUSTFLAGS, `-DNDEBUG`), but not include paths (they name this machine's
/// folders), not warning switches (they change no code; `-Wa,`, `-Wp,` and
/// `-Wl,` pass options on and are kept), and not the C standard or the
/// workload defines, which the result records in fields of their own. The
/// standard is the last `-std=` (`-std:` for MSVC) given, as the compiler
/// takes it: `c99` is recorded `C99`, `gnu17` `GNU17`.
fn recorded_flags(compiler: &cc::Tool) -> (Vec<String>, String) {
    let workload: Vec<String> = DEFINES.iter().map(|(n, v)| format!("-D{n}={v}")).collect();
    let command = compiler.to_command();
    let mut flags = Vec::new();
    let mut standard = String::new();
    // A wrapper (CC="ccache gcc") is run with the compiler as its first
    // argument: that is no flag.
    let mut args = command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .skip_while(|a| Path::new(a) == compiler.path())
        .peekable();
    while let Some(arg) = args.next() {
        if arg == "-I" {
            args.next();
            continue;
        }
        if let Some(std) = arg.strip_prefix("-std=").or_else(|| arg.strip_prefix("-std:")) {
            standard = std.to_ascii_uppercase();
            continue;
        }
        let passes_on = ["-Wa,", "-Wp,", "-Wl,"].iter().any(|p| arg.starts_with(p));
        let warning = arg.starts_with("-W") && !passes_on;
        if !(arg.starts_with("-I") || warning || workload.contains(&arg)) {
            flags.push(arg);
        }
    }
    (flags, standard)
}

/// The commit of an eembc/coremark checkout, or empty when git cannot say
/// which commit the sources are: a source archive (git would answer for a
/// repository the folder merely lies in), or a checkout whose tracked files
/// were edited. The result then records none.
fn checkout_commit(checkout: &Path) -> String {
    let top = git(checkout, &["rev-parse", "--show-toplevel"]).and_then(|t| fs::canonicalize(t).ok());
    if top.is_none() || top != fs::canonicalize(checkout).ok() {
        return String::new();
    }
    if git(checkout, &["status", "--porcelain", "--untracked-files=no"]).is_none_or(|s| !s.is_empty()) {
        println!("cargo:warning=RUNNER_BENCH_COREMARK_SRC has edited files: the result records no EEMBC commit");
        return String::new();
    }
    git_head(checkout).filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit())).unwrap_or_default()
}

/// A path inside the checkout's git folder (`HEAD`), where it has one.
fn git_path(checkout: &Path, name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(git(checkout, &["rev-parse", "--git-path", name])?);
    Some(if path.is_absolute() { path } else { checkout.join(path) })
}

/// `git rev-parse HEAD` in `dir`, where git can say.
fn git_head(dir: &Path) -> Option<String> {
    git(dir, &["rev-parse", "HEAD"]).filter(|s| !s.is_empty())
}

/// What `git args` prints in `dir`, trimmed, where it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The project's sources: its kernels and API, not the validation program,
/// not the shim for the official sources.
fn is_project_source(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let is_c = name.ends_with(".c") || name.ends_with(".h");
    let driver = name == DRIVER || name == ALLCORE_DRIVER || name == "workload_common.h";
    is_c && name != "validate.c" && name != "official_shim.c" && !driver
}

/// SHA-256 over the sources in path order: for each file, its name, a NUL
/// byte, then its bytes. A reader can recompute it from the same checkout.
fn sources_sha256(files: &[PathBuf]) -> String {
    let mut hasher = Sha256::new();
    let mut sorted: Vec<&PathBuf> = files.iter().collect();
    sorted.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
    for f in sorted {
        hasher.update(f.file_name().and_then(|n| n.to_str()).unwrap_or("").as_bytes());
        hasher.update([0]);
        hasher.update(fs::read(f).unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display())));
    }
    format!("{:x}", hasher.finalize())
}

/// "GNU 12.2.0", "Clang 16.0.6", as the reports print the compiler.
fn compiler_identity(compiler: &cc::Tool) -> String {
    // cl has no version flag: its banner, on stderr, says `Version 19.38.…`.
    if compiler.is_like_msvc() {
        let banner = Command::new(compiler.path()).output().map(|o| String::from_utf8_lossy(&o.stderr).into_owned());
        let version = banner.ok().and_then(|b| {
            let rest = &b[b.find("Version ")? + "Version ".len()..];
            Some(rest.split_whitespace().next()?.to_string())
        });
        return format!("MSVC {}", version.unwrap_or_else(|| "unknown".to_string()));
    }
    // Apple's clang numbers its versions its own way (Xcode's), not LLVM's.
    let apple = compiler.is_like_clang()
        && Command::new(compiler.path())
            .args(["-dM", "-E", "-x", "c", "/dev/null"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("__apple_build_version__"));
    let family = if apple {
        "Apple Clang"
    } else if compiler.is_like_clang() {
        "Clang"
    } else if compiler.is_like_gnu() {
        "GNU"
    } else if compiler.is_like_msvc() {
        "MSVC"
    } else {
        "unknown"
    };
    let version_flag =
        if compiler.is_like_gnu() && !compiler.is_like_clang() { "-dumpfullversion" } else { "-dumpversion" };
    let version = Command::new(compiler.path())
        .arg(version_flag)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    format!("{family} {version}")
}

/// The commit the collector is built from: GITHUB_SHA in Actions, else git.
fn revision(root: &Path) -> String {
    if let Ok(sha) = env::var("GITHUB_SHA") {
        return sha;
    }
    let git = root.join(".git");
    if let Ok(head) = fs::read_to_string(git.join("HEAD")) {
        println!("cargo:rerun-if-changed={}", git.join("HEAD").display());
        if let Some(reference) = head.trim().strip_prefix("ref: ") {
            println!("cargo:rerun-if-changed={}", git.join(reference).display());
        }
    }
    git_head(root).unwrap_or_else(|| "unknown".to_string())
}
