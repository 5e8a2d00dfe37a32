//! scripts/release-manifest.sh, which the release workflow runs over the
//! built binaries, writes SHA256SUMS and a manifest that `site check` reads:
//! run the script on stand-in binaries and read its manifest with the
//! site's own parser.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/release-manifest.sh");

/// A stand-in for a release binary that answers `--version` as the
/// collector does (the script asks the x86-64 Linux one).
fn fake_binaries(dir: &Path, version: &str) {
    let linux = dir.join("collector-x86_64-unknown-linux-gnu");
    std::fs::write(&linux, format!("#!/bin/sh\necho \"collector {version}\"\n")).unwrap();
    std::fs::write(dir.join("collector-x86_64-pc-windows-gnu.exe"), b"MZ not really").unwrap();
}

fn run(dir: &Path, tag: &str) -> std::process::Output {
    Command::new("bash")
        .arg(SCRIPT)
        .arg(dir)
        .env("TAG", tag)
        .env("REPOSITORY", "runner-bench/runner-bench")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap()
}

fn sha256_of(path: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(path).unwrap()))
}

#[test]
fn the_manifest_it_writes_is_one_site_check_accepts_with_the_binaries_digests() {
    let dir = tempfile::tempdir().unwrap();
    fake_binaries(dir.path(), "0.2.0");
    let out = run(dir.path(), "v0.2.0");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.path().join("v0.2.0.toml")).unwrap();
    let release = site::releases::parse("v0.2.0.toml", "v0.2.0", &text).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((release.tag.as_str(), release.version.as_str()), ("v0.2.0", "0.2.0"));
    let got: Vec<(&str, &str, &str)> =
        release.binaries.iter().map(|b| (b.target.as_str(), b.file.as_str(), b.sha256.as_str())).collect();
    let linux = sha256_of(&dir.path().join("collector-x86_64-unknown-linux-gnu"));
    let windows = sha256_of(&dir.path().join("collector-x86_64-pc-windows-gnu.exe"));
    assert_eq!(
        got,
        [
            ("x86_64-pc-windows-gnu", "collector-x86_64-pc-windows-gnu.exe", windows.as_str()),
            ("x86_64-unknown-linux-gnu", "collector-x86_64-unknown-linux-gnu", linux.as_str()),
        ]
    );
    // SHA256SUMS is sha256sum's format, which scripts/collector.sh checks.
    let sums = std::fs::read_to_string(dir.path().join("SHA256SUMS")).unwrap();
    assert_eq!(
        sums,
        format!("{windows}  collector-x86_64-pc-windows-gnu.exe\n{linux}  collector-x86_64-unknown-linux-gnu\n")
    );
}

/// The script asks the x86-64 Linux binary, so this runs on x86-64 Linux
/// only, as the release workflow's publish job does.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn a_tag_that_is_not_the_binarys_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fake_binaries(dir.path(), "0.1.0");
    let out = run(dir.path(), "v0.2.0");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "release-manifest.sh: tag v0.2.0 but the collector reports version 0.1.0\n"
    );
    assert!(!dir.path().join("SHA256SUMS").exists());
}
