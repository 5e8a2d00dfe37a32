//! scripts/release-check.sh, which each release build job runs on the
//! binary it built, natively: the binary must report the workspace's
//! version, the pushed tag must name it, and a Linux binary and the CoreMark
//! program it embeds must need no glibc newer than the floor the release
//! notes promise. Run here on the collector that cargo built for these
//! tests (a real ELF binary, linked against this machine's glibc), on
//! stand-ins for a wrong version (shell scripts), and on a stand-in
//! collector compiled from C whose embedded program is wrong. Unix only.
#![cfg(unix)]

use crate::script;

use std::path::Path;
use std::process::{Command, Output};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/release-check.sh");
const VERSION: &str = env!("CARGO_PKG_VERSION");
const COLLECTOR: &str = env!("CARGO_BIN_EXE_collector");

fn run(bin: &Path, target: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(SCRIPT).arg(bin).arg(target).env_remove("TAG").env_remove("GLIBC_FLOOR");
    cmd.envs(env.iter().copied());
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A stand-in binary that answers `--version` with `version`.
fn reporting(dir: &Path, version: &str) -> std::path::PathBuf {
    let bin = dir.join("collector-x86_64-pc-windows-gnu.exe");
    script::executable(&bin, &format!("#!/bin/sh\necho \"collector {version}\"\n"));
    bin
}

/// The newest glibc symbol version `bin` names, read with readelf (the
/// script uses objdump): what the script's refusal must name.
#[cfg(target_os = "linux")]
fn newest_glibc(bin: &Path) -> String {
    let out = Command::new("readelf").args(["--dyn-syms", "--wide"]).arg(bin).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut versions: Vec<Vec<u32>> = text
        .split("GLIBC_")
        .skip(1)
        .map(|rest| rest.split(|c: char| !(c.is_ascii_digit() || c == '.')).next().unwrap())
        .filter(|v| !v.is_empty()) // GLIBC_PRIVATE
        .map(|v| v.trim_end_matches('.').split('.').map(|n| n.parse().unwrap()).collect())
        .collect();
    versions.sort();
    let newest = versions.last().expect("the collector names glibc symbol versions");
    newest.iter().map(u32::to_string).collect::<Vec<_>>().join(".")
}

/// A CoreMark program the collector built here embeds (`flag`: none for
/// the one-thread one, `--all-core`), written out as the script writes it.
#[cfg(target_os = "linux")]
fn embedded_program(dir: &Path, flag: Option<&str>) -> std::path::PathBuf {
    let program = dir.join(format!("coremark{}", flag.unwrap_or("")));
    let out = Command::new(COLLECTOR).arg("workload").args(flag).arg(&program).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    program
}

#[cfg(target_os = "linux")]
#[test]
fn the_collector_built_here_passes_with_its_version_and_tag() {
    let dir = tempfile::tempdir().unwrap();
    let program = embedded_program(dir.path(), None);
    let all_core = embedded_program(dir.path(), Some("--all-core"));
    let tag = format!("v{VERSION}");
    let out = run(Path::new(COLLECTOR), "x86_64-unknown-linux-gnu", &[("TAG", &tag)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "release-check.sh: {COLLECTOR} needs glibc {} (floor 2.35)\n\
             release-check.sh: its CoreMark program needs glibc {} (floor 2.35)\n\
             release-check.sh: its all-core CoreMark program needs glibc {} (floor 2.35)\n\
             release-check.sh: {COLLECTOR} reports version {VERSION}\n",
            newest_glibc(Path::new(COLLECTOR)),
            newest_glibc(&program),
            newest_glibc(&all_core)
        )
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_binary_that_needs_a_newer_glibc_than_the_floor_is_refused() {
    let out = run(Path::new(COLLECTOR), "x86_64-unknown-linux-gnu", &[("GLIBC_FLOOR", "2.2.5")]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "release-check.sh: {COLLECTOR} needs glibc {}, newer than the floor 2.2.5 (GLIBC_FLOOR)\n",
            newest_glibc(Path::new(COLLECTOR))
        )
    );
}

/// A Linux binary that names no glibc symbol version (static, or not ELF
/// at all, as this stand-in script) is refused with a message, not a bare
/// failure of the pipeline.
#[test]
fn a_linux_binary_without_glibc_symbols_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bin = reporting(dir.path(), VERSION);
    let out = run(&bin, "x86_64-unknown-linux-gnu", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), format!("release-check.sh: objdump found no glibc symbol version in {}\n", bin.display()));
}

/// A stand-in collector: a real ELF program, compiled here from C, that
/// reports the workspace's version and answers `workload PATH` by copying
/// the file `one_thread` to PATH and `workload --all-core PATH` by copying
/// `all_core` (or `one_thread` where that is `None`), or by failing where
/// `one_thread` is `None`.
#[cfg(target_os = "linux")]
fn standin_collector(dir: &Path, one_thread: Option<&Path>, all_core: Option<&Path>) -> std::path::PathBuf {
    let source = dir.join("standin.c");
    let copy = match one_thread {
        Some(file) => format!(
            "FILE *in = fopen(argc == 4 ? {:?} : {:?}, \"rb\"), *out = fopen(argv[argc - 1], \"wb\"); int c;\n\
             if (!in || !out) return 1;\n\
             while ((c = fgetc(in)) != EOF) fputc(c, out);\n\
             return fclose(out) != 0;",
            all_core.unwrap_or(file).to_str().unwrap(),
            file.to_str().unwrap()
        ),
        None => "fputs(\"cannot write\\n\", stderr); return 1;".to_string(),
    };
    let text = format!(
        "#include <stdio.h>\n#include <string.h>\n\
         int main(int argc, char **argv) {{\n\
         if (argc == 2 && !strcmp(argv[1], \"--version\")) {{ puts(\"collector {VERSION}\"); return 0; }}\n\
         int all_core = argc == 4 && !strcmp(argv[2], \"--all-core\");\n\
         if ((argc == 3 || all_core) && !strcmp(argv[1], \"workload\")) {{ {copy} }}\n\
         return 2;\n}}\n"
    );
    std::fs::write(&source, text).unwrap();
    let bin = dir.join("collector");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(cc).arg("-o").arg(&bin).arg(&source).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    bin
}

/// A collector that passes, whose embedded program would not run on the
/// promised glibc: here a program that names no glibc version at all (a
/// script), which objdump cannot place, refused as the program.
#[cfg(target_os = "linux")]
#[test]
fn a_collector_whose_coremark_program_names_no_glibc_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("program");
    script::executable(&program, "#!/bin/sh\necho iterations=1\n");
    let bin = standin_collector(dir.path(), Some(&program), None);
    let out = run(&bin, "x86_64-unknown-linux-gnu", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "release-check.sh: objdump found no glibc symbol version in its CoreMark program\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("release-check.sh: {} needs glibc {} (floor 2.35)\n", bin.display(), newest_glibc(&bin))
    );
}

/// A program in `dir` that names a glibc no machine has: it is linked
/// against a library of its own whose version script calls its one
/// symbol's version GLIBC_9.9, which is all objdump reads (the program is
/// never run).
#[cfg(target_os = "linux")]
fn future_glibc_program(d: &Path) -> std::path::PathBuf {
    std::fs::write(d.join("lib.c"), "int future(void) { return 1; }\n").unwrap();
    std::fs::write(d.join("lib.map"), "GLIBC_9.9 { global: future; local: *; };\n").unwrap();
    std::fs::write(d.join("program.c"), "int future(void);\nint main(void) { return future(); }\n").unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    for args in [
        &["-shared", "-fPIC", "-Wl,--version-script=lib.map", "-o", "libfuture.so", "lib.c"][..],
        &["-o", "program", "program.c", "-L.", "-lfuture"][..],
    ] {
        let out = Command::new(&cc).args(args).current_dir(d).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    d.join("program")
}

/// The floor holds for the program as for the collector: here one that
/// names GLIBC_9.9 (`future_glibc_program`).
#[cfg(target_os = "linux")]
#[test]
fn a_coremark_program_that_needs_a_newer_glibc_than_the_floor_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = standin_collector(d, Some(&future_glibc_program(d)), None);
    let floor = newest_glibc(&bin);
    let out = run(&bin, "x86_64-unknown-linux-gnu", &[("GLIBC_FLOOR", &floor)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("release-check.sh: its CoreMark program needs glibc 9.9, newer than the floor {floor} (GLIBC_FLOOR)\n")
    );
}

/// The floor holds for the all-core program too, checked on its own: the
/// one-thread program is the real one, the all-core one names GLIBC_9.9.
#[cfg(target_os = "linux")]
#[test]
fn an_all_core_program_that_needs_a_newer_glibc_than_the_floor_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let future = future_glibc_program(d);
    let one_thread = embedded_program(d, None);
    let bin = standin_collector(d, Some(&one_thread), Some(&future));
    let version = |v: &String| v.split('.').map(|n| n.parse::<u32>().unwrap()).collect::<Vec<_>>();
    let floor = [newest_glibc(&bin), newest_glibc(&one_thread)].into_iter().max_by_key(version).unwrap();
    let out = run(&bin, "x86_64-unknown-linux-gnu", &[("GLIBC_FLOOR", &floor)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "release-check.sh: its all-core CoreMark program needs glibc 9.9, newer than the floor {floor} \
             (GLIBC_FLOOR)\n"
        )
    );
}

/// A collector that cannot write its program (an old build without the
/// command, a broken one) is refused, not passed unchecked.
#[cfg(target_os = "linux")]
#[test]
fn a_collector_that_cannot_write_its_coremark_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bin = standin_collector(dir.path(), None, None);
    let out = run(&bin, "x86_64-unknown-linux-gnu", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "release-check.sh: {} could not write its CoreMark program (collector workload): cannot write\n",
            bin.display()
        )
    );
}

#[test]
fn a_binary_of_another_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bin = reporting(dir.path(), "0.1.0");
    let out = run(&bin, "x86_64-pc-windows-gnu", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("release-check.sh: {} reports version 0.1.0, not Cargo.toml's {VERSION}\n", bin.display())
    );
}

#[test]
fn a_tag_that_is_not_the_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bin = reporting(dir.path(), VERSION);
    let out = run(&bin, "x86_64-pc-windows-gnu", &[("TAG", "v9.9.9")]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), format!("release-check.sh: tag v9.9.9 but Cargo.toml's version is {VERSION}\n"));
}
