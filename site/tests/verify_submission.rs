//! scripts/verify-submission.sh, the pull-request check of what a
//! submission adds, run on a real git repository with a base commit and a
//! pull request's commit. GitHub cannot be reached from the test machines,
//! so `gh` is a stand-in script on PATH that answers the two calls the
//! check makes as gh does: `gh release download` writes the SHA256SUMS it
//! is given, and `gh attestation verify` prints the JSON shape the check
//! reads (`verificationResult.signature.certificate`). Everything else (git,
//! python3's TOML reader, the script's logic) is real.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/verify-submission.sh");
const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A repository with a base commit and, on top of it, a commit that adds
/// `files`: (base, head).
fn repository(dir: &Path, files: &[(&str, &str)]) -> (String, String) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("README.md"), "base\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
    let base = git(dir, &["rev-parse", "HEAD"]);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "submission"]);
    (base, git(dir, &["rev-parse", "HEAD"]))
}

/// A temporary folder holding, in `repo/`, a repository whose pull request
/// adds `files`: (folder, repository, base, head).
fn submission(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let (base, head) = repository(&repo, files);
    (dir, repo, base, head)
}

/// A folder holding the `gh` stand-in: its release's SHA256SUMS is `sums`,
/// and an attestation's signer commit is `signer_digest`.
fn gh(dir: &Path, sums: &str, signer_digest: &str) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(dir.join("SHA256SUMS.release"), sums).unwrap();
    let script = format!(
        r#"#!/usr/bin/env bash
set -euo pipefail
case "$1 $2" in
  "release download")
    while [ $# -gt 0 ]; do
      if [ "$1" = --output ]; then cp {sums} "$2"; exit 0; fi
      shift
    done
    exit 1 ;;
  "attestation verify")
    # gh refuses a self-hosted runner's attestation with the flag; the
    # check must ask for that.
    case " $* " in *" --deny-self-hosted-runners "*) ;; *) echo "gh stand-in: no --deny-self-hosted-runners" >&2; exit 2 ;; esac
    sum=$(sha256sum < "$3"); sum=${{sum%% *}}
    echo '[{{"verificationResult":{{"statement":{{"subject":[{{"name":"r.json","digest":{{"sha256":"'"${{GH_SUBJECT:-$sum}}"'"}}}}]}},"signature":{{"certificate":{{"runnerEnvironment":"'"${{GH_RUNNER:-github-hosted}}"'","buildSignerURI":"https://github.com/runner-bench/runner-bench/.github/workflows/benchmark.yml@refs/heads/main","buildSignerDigest":"{signer_digest}"}}}}}}}}]' ;;
  *) echo "gh stand-in: unexpected call: $*" >&2; exit 2 ;;
esac
"#,
        sums = dir.join("SHA256SUMS.release").display()
    );
    let gh = bin.join("gh");
    std::fs::write(&gh, script).unwrap();
    Command::new("chmod").arg("+x").arg(&gh).status().unwrap();
    bin
}

fn verify(repo: &Path, bin: &Path, base: &str) -> Output {
    verify_with(repo, bin, base, &[])
}

/// As `verify`, with variables for the stand-in: GH_RUNNER (the
/// certificate's runner environment) and GH_SUBJECT (the signed digest).
fn verify_with(repo: &Path, bin: &Path, base: &str, env: &[(&str, &str)]) -> Output {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut cmd = Command::new("bash");
    cmd.arg(SCRIPT)
        .current_dir(repo)
        .env("BASE", base)
        .env("PATH", path)
        .env_remove("GH_RUNNER")
        .env_remove("GH_SUBJECT");
    cmd.envs(env.iter().copied()).output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A manifest spelled as TOML allows but not as the release workflow writes
/// it: no spaces around `=`, a comment after the value, an inline table.
fn manifest(digest: &str) -> String {
    format!(
        "tag = \"v0.2.0\"\nversion = \"0.2.0\"\npublished = \"2026-12-01\"\nrepository = \"runner-bench/runner-bench\"\n\
         binaries = [ {{ target = \"x86_64-unknown-linux-gnu\", file = \"collector-x86_64-unknown-linux-gnu\", \
         sha256='{digest}' }} ] # one binary\n"
    )
}

#[test]
fn a_manifest_digest_the_release_does_not_list_fails_however_it_is_spelled() {
    let (dir, repo, base, _) = submission(&[("content/releases/v0.2.0.toml", &manifest(DIGEST))]);
    let other = "f".repeat(64);
    let bin = gh(dir.path(), &format!("{other}  collector-x86_64-unknown-linux-gnu\n"), &base);
    let out = verify(&repo, &bin, &base);
    assert_eq!(
        stdout(&out),
        format!(
            "::error file=content/releases/v0.2.0.toml::collector-x86_64-unknown-linux-gnu with sha256 {DIGEST} is \
             not in release v0.2.0's SHA256SUMS\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));

    // Listed, with its file: passes.
    let bin = gh(dir.path(), &format!("{DIGEST}  collector-x86_64-unknown-linux-gnu\n"), &base);
    let out = verify(&repo, &bin, &base);
    assert_eq!(
        stdout(&out),
        "::notice file=content/releases/v0.2.0.toml::every binary and digest is in release v0.2.0's SHA256SUMS\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_manifest_without_binaries_fails() {
    let (dir, repo, base, _) = submission(&[("content/releases/v0.2.0.toml", "tag = \"v0.2.0\"\nbinaries = []\n")]);
    let bin = gh(dir.path(), &format!("{DIGEST}  collector-x86_64-unknown-linux-gnu\n"), &base);
    let out = verify(&repo, &bin, &base);
    assert_eq!(
        stdout(&out),
        "::error file=content/releases/v0.2.0.toml::lists no binary to compare with release v0.2.0's SHA256SUMS\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_base_the_clone_lacks_stops_the_check() {
    let (dir, repo, base, _) = submission(&[("content/releases/v0.2.0.toml", &manifest(DIGEST))]);
    let bin = gh(dir.path(), "", &base);
    let out = verify(&repo, &bin, &"1".repeat(40));
    assert_eq!(stdout(&out), "");
    assert!(!out.status.success(), "passed with nothing checked: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_signer_commit_is_upstreams_only_in_the_base_history() {
    let result = r#"{"provenance": {"github": {"repository": "example/bench"}}}"#;
    let file = "results/p/r/2026-12-01-1-1.json";
    let (dir, repo, base, head) = submission(&[(file, result)]);
    // Signed at the pull request's own commit: in HEAD's history, not the
    // base's.
    let out = verify(&repo, &gh(dir.path(), "", &head), &base);
    assert_eq!(
        stdout(&out),
        format!(
            "::warning file={file}::attested in a run of example/bench, signed by \
             https://github.com/runner-bench/runner-bench/.github/workflows/benchmark.yml@refs/heads/main at commit \
             {head}, which is not in upstream's history: check that workflow before merging\n"
        )
    );
    // Signed at the base: upstream's.
    let out = verify(&repo, &gh(dir.path(), "", &base), &base);
    assert_eq!(
        stdout(&out),
        format!(
            "::notice file={file}::attested in a run of example/bench, signed by \
             https://github.com/runner-bench/runner-bench/.github/workflows/benchmark.yml@refs/heads/main at \
             upstream commit {base}\n"
        )
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_file_name_with_a_line_break_is_checked_and_cannot_start_a_command() {
    // git would quote this name (and the check then read no such file)
    // without -z; written out raw, its line break would end the
    // annotation, and GitHub would read the next line as a command.
    let result = r#"{"provenance": {"github": {"repository": "example/bench"}}}"#;
    let file = "results/p/r/é\n::error::50%, injected.json";
    let (dir, repo, base, _) = submission(&[(file, result)]);
    let out = verify(&repo, &gh(dir.path(), "", &base), &base);
    assert_eq!(
        stdout(&out),
        format!(
            "::notice file=results/p/r/é%0A%3A%3Aerror%3A%3A50%25%2C injected.json::attested in a run of example/bench, \
             signed by https://github.com/runner-bench/runner-bench/.github/workflows/benchmark.yml@refs/heads/main \
             at upstream commit {base}\n"
        )
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn only_a_github_hosted_signature_of_this_very_file_counts() {
    let result = r#"{"provenance": {"github": {"repository": "example/bench"}}}"#;
    let file = "results/p/r/2026-12-01-1-1.json";
    let (dir, repo, base, _) = submission(&[(file, result)]);
    let bin = gh(dir.path(), "", &base);
    let refused = format!(
        "::warning file={file}::not attested in a run of example/bench by a benchmark.yml of runner-bench or example \
         on a GitHub-hosted runner for this file's SHA-256\n"
    );
    // Signed on a self-hosted runner: a job other than `attest` signed.
    let out = verify_with(&repo, &bin, &base, &[("GH_RUNNER", "self-hosted")]);
    assert_eq!(stdout(&out), refused);
    // Signed for another file's digest.
    let out = verify_with(&repo, &bin, &base, &[("GH_SUBJECT", &"0".repeat(64))]);
    assert_eq!(stdout(&out), refused);
    assert_eq!(out.status.code(), Some(0));
}
