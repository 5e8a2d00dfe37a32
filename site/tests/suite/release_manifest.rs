//! scripts/release-manifest.sh, which the release workflow runs over the
//! built binaries, writes SHA256SUMS and a manifest that `site check` reads:
//! run the script on stand-in binaries and read its manifest with the
//! site's own parser.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/release-manifest.sh");

/// The commit the release's tag names, as the release workflow passes it.
const COMMIT: &str = "8d71e12a54197f8d71e12a54197f8d71e12a5419";

/// The workspace's version, which the tag must name.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Stand-ins for release binaries: the script hashes them and runs none
/// (each build job ran its own binary, scripts/release-check.sh).
fn fake_binaries(dir: &Path) {
    std::fs::write(dir.join("collector-x86_64-unknown-linux-gnu"), b"\x7fELF not really").unwrap();
    std::fs::write(dir.join("collector-x86_64-pc-windows-gnu.exe"), b"MZ not really").unwrap();
}

fn run(dir: &Path, tag: &str) -> std::process::Output {
    Command::new("bash")
        .arg(SCRIPT)
        .arg(dir)
        .env("TAG", tag)
        .env("REPOSITORY", "runner-bench/runner-bench")
        .env("WORKFLOW_COMMIT", COMMIT)
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
    fake_binaries(dir.path());
    let tag = format!("v{VERSION}");
    let out = run(dir.path(), &tag);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.path().join(format!("{tag}.toml"))).unwrap();
    let release = site::releases::parse(&format!("{tag}.toml"), &tag, &text).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        (release.tag.as_str(), release.version.as_str(), release.workflow_commit.as_str()),
        (tag.as_str(), VERSION, COMMIT)
    );
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

#[test]
fn a_tag_that_is_not_the_workspace_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fake_binaries(dir.path());
    let out = run(dir.path(), "v9.9.9");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("release-manifest.sh: tag v9.9.9 but Cargo.toml's version is {VERSION}\n")
    );
    assert!(!dir.path().join("SHA256SUMS").exists());
}

#[test]
fn the_notes_name_every_binarys_file_and_the_glibc_floor() {
    let dir = tempfile::tempdir().unwrap();
    fake_binaries(dir.path());
    let out = run(dir.path(), &format!("v{VERSION}"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("NOTES.md")).unwrap(),
        format!(
            "collector {VERSION} for Linux (x64, arm64), macOS (arm64) and Windows (x64).\n\n\
             Verify a download with `sha256sum --check --ignore-missing SHA256SUMS` and\n\
             `gh attestation verify collector-<target>[.exe] --repo runner-bench/runner-bench`.\n\n\
             The Linux binaries run on glibc 2.35 or newer (Ubuntu 22.04, Debian 12 and later).\n"
        )
    );
}

#[test]
fn a_workflow_commit_that_is_no_full_commit_id_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fake_binaries(dir.path());
    let out = Command::new("bash")
        .arg(SCRIPT)
        .arg(dir.path())
        .env("TAG", format!("v{VERSION}"))
        .env("WORKFLOW_COMMIT", "8d71e12")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "release-manifest.sh: WORKFLOW_COMMIT must be a commit id, 40 lowercase hex digits, found \"8d71e12\"\n"
    );
    assert!(!dir.path().join("SHA256SUMS").exists());
}
