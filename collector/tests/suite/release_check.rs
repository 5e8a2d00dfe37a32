//! scripts/release-check.sh, which each release build job runs on the
//! binary it built, natively: the binary must report the workspace's
//! version, the pushed tag must name it, and a Linux binary must need no
//! glibc newer than the floor the release notes promise. Run here on the
//! collector that cargo built for these tests (a real ELF binary, linked
//! against this machine's glibc) and on stand-ins for a wrong version.
//! Unix only: the stand-ins are shell scripts.
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
fn newest_glibc(bin: &str) -> String {
    let out = Command::new("readelf").args(["--dyn-syms", "--wide", bin]).output().unwrap();
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

#[cfg(target_os = "linux")]
#[test]
fn the_collector_built_here_passes_with_its_version_and_tag() {
    let tag = format!("v{VERSION}");
    let out = run(Path::new(COLLECTOR), "x86_64-unknown-linux-gnu", &[("TAG", &tag)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "release-check.sh: {COLLECTOR} needs glibc {} (floor 2.35)\n\
             release-check.sh: {COLLECTOR} reports version {VERSION}\n",
            newest_glibc(COLLECTOR)
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
            newest_glibc(COLLECTOR)
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
