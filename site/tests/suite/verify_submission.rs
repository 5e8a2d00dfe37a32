//! scripts/verify-submission.sh, the pull-request check of what a
//! submission adds, run on a real git repository with a base commit and a
//! pull request's commit, in a checkout of the base as the results check
//! runs it. GitHub cannot be reached from the test machines, so `gh` is a
//! stand-in script, passed as GH, that answers the calls the check makes as
//! gh does: `gh release download` writes the SHA256SUMS it is given, `gh
//! api` prints what its `--jq` filter makes of GitHub's answer for a tag,
//! and `gh attestation verify` prints the JSON shape the check reads
//! (`verificationResult.signature.certificate`, with the fields of
//! Fulcio's certificate extensions that GitHub fills in). Everything else
//! (git, python3's JSON and TOML readers, the script's logic) is real.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/verify-submission.sh");
const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
/// The workflow commit of the base's release manifest: the one trusted
/// signer. It need not be a commit of the test repository: only the id
/// counts.
const LISTED: &str = "5555555555555555555555555555555555555555";
/// The signer URI of a benchmark.yml that ran at a release's tag.
const SIGNER: &str = "https://github.com/runner-bench/runner-bench/.github/workflows/benchmark.yml@refs/tags/v0.2.0";
/// The run the result's run record names, as a certificate's
/// runInvocationURI spells it.
const RUN: &str = "https://github.com/example/bench/actions/runs/4242/attempts/2";
/// A measured result's run record (the rest of the file does not matter to
/// this check; `site check` reads it).
const RECORDED: &str =
    r#"{"provenance": {"run_record": {"repository": "example/bench", "run_id": 4242, "run_attempt": 2, "jobs": []}}}"#;
const FILE: &str = "results/p/r/2026-12-01-1-1.json";

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

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A repository with a base commit holding `base_files`, and on top of it
/// a commit that adds `files`, checked out at the base (the results check
/// runs in a checkout of the base): (base, head).
fn repository(dir: &Path, base_files: &[(&str, &str)], files: &[(&str, &str)]) -> (String, String) {
    git(dir, &["init", "-q", "-b", "main"]);
    write(dir, &[("README.md", "base\n")]);
    write(dir, base_files);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "base"]);
    let base = git(dir, &["rev-parse", "HEAD"]);
    write(dir, files);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "submission"]);
    let head = git(dir, &["rev-parse", "HEAD"]);
    git(dir, &["checkout", "-q", "--detach", &base]);
    (base, head)
}

/// A temporary folder holding, in `repo/`, a repository whose base holds
/// `base_files` and whose pull request adds `files`: (folder, repository,
/// base, head).
fn submission_on(base_files: &[(&str, &str)], files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let (base, head) = repository(&repo, base_files, files);
    (dir, repo, base, head)
}

/// As `submission_on`, with a base that holds no release manifest.
fn submission(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, String, String) {
    submission_on(&[], files)
}

/// As `submission_on`, with a base whose release manifest lists `LISTED`.
fn listed(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, String, String) {
    submission_on(&[(MANIFEST, &manifest(LISTED, DIGEST))], files)
}

/// The `gh` stand-in, in `dir`: its release's SHA256SUMS is `sums`, an
/// attestation's signer commit is `signer_digest`, and tag v0.2.0 names
/// `LISTED`. Variables change the rest of its answers: GH_NONE (no
/// attestation), GH_RUNNER (the runner environment), GH_SUBJECT (the
/// signed digest), GH_SOURCE (sourceRepositoryURI), GH_RUN
/// (runInvocationURI), GH_TAG (`.object.type + " " + .object.sha` of the
/// tag's ref; an annotated tag `tag T` names `LISTED`).
fn gh(dir: &Path, sums: &str, signer_digest: &str) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(dir.join("SHA256SUMS.release"), sums).unwrap();
    let script = format!(
        r#"#!/usr/bin/env bash
set -euo pipefail
jq='.object.type + " " + .object.sha'
case "$1 $2" in
  "release download")
    while [ $# -gt 0 ]; do
      if [ "$1" = --output ]; then cp {sums} "$2"; exit 0; fi
      shift
    done
    exit 1 ;;
  "api repos/runner-bench/runner-bench/git/ref/tags/v0.2.0")
    [ "$3 $4" = "--jq $jq" ] || {{ echo "gh stand-in: unexpected filter: $*" >&2; exit 2; }}
    echo "${{GH_TAG:-commit {LISTED}}}" ;;
  "api repos/runner-bench/runner-bench/git/tags/"*)
    [ "$3 $4" = "--jq $jq" ] || {{ echo "gh stand-in: unexpected filter: $*" >&2; exit 2; }}
    echo "commit {LISTED}" ;;
  "api "*)
    echo "gh stand-in: HTTP 404: Not Found" >&2; exit 1 ;;
  "attestation verify")
    # gh refuses a self-hosted runner's attestation with the flag; the
    # check must ask for that.
    case " $* " in *" --deny-self-hosted-runners "*) ;; *) echo "gh stand-in: no --deny-self-hosted-runners" >&2; exit 2 ;; esac
    if [ -n "${{GH_NONE:-}}" ]; then echo "gh stand-in: no attestations found" >&2; exit 1; fi
    sum=$(sha256sum < "$3"); sum=${{sum%% *}}
    echo '[{{"verificationResult":{{"statement":{{"subject":[{{"name":"r.json","digest":{{"sha256":"'"${{GH_SUBJECT:-$sum}}"'"}}}}]}},"signature":{{"certificate":{{"runnerEnvironment":"'"${{GH_RUNNER:-github-hosted}}"'","buildSignerURI":"{SIGNER}","buildSignerDigest":"{signer_digest}","sourceRepositoryURI":"'"${{GH_SOURCE:-https://github.com/example/bench}}"'","runInvocationURI":"'"${{GH_RUN:-{RUN}}}"'"}}}}}}}}]' ;;
  *) echo "gh stand-in: unexpected call: $*" >&2; exit 2 ;;
esac
"#,
        sums = dir.join("SHA256SUMS.release").display()
    );
    let gh = bin.join("gh");
    std::fs::write(&gh, script).unwrap();
    Command::new("chmod").arg("+x").arg(&gh).status().unwrap();
    gh
}

fn verify(repo: &Path, gh: &Path, base: &str, head: &str) -> Output {
    verify_with(repo, gh, base, head, &[])
}

/// As `verify`, with variables for the stand-in (see `gh`).
fn verify_with(repo: &Path, gh: &Path, base: &str, head: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(SCRIPT).current_dir(repo).env("BASE", base).env("PR_HEAD", head).env("GH", gh);
    for var in ["GH_NONE", "GH_RUNNER", "GH_SUBJECT", "GH_SOURCE", "GH_RUN", "GH_TAG", "UPSTREAM"] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied()).output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A manifest spelled as TOML allows but not as the release workflow writes
/// it: no spaces around `=`, a comment after the value, an inline table.
fn manifest(commit: &str, digest: &str) -> String {
    format!(
        "tag = \"v0.2.0\"\nversion = \"0.2.0\"\npublished = \"2026-12-01\"\nrepository = \"runner-bench/runner-bench\"\n\
         workflow_commit='{commit}' # the tag's\n\
         binaries = [ {{ target = \"x86_64-unknown-linux-gnu\", file = \"collector-x86_64-unknown-linux-gnu\", \
         sha256='{digest}' }} ] # one binary\n"
    )
}

const MANIFEST: &str = "content/releases/v0.2.0.toml";

#[test]
fn a_manifest_digest_the_release_does_not_list_fails_however_it_is_spelled() {
    let (dir, repo, base, head) = submission(&[(MANIFEST, &manifest(LISTED, DIGEST))]);
    let other = "f".repeat(64);
    let gh = gh(dir.path(), &format!("{other}  collector-x86_64-unknown-linux-gnu\n"), &base);
    let out = verify(&repo, &gh, &base, &head);
    assert_eq!(
        stdout(&out),
        format!(
            "::error file={MANIFEST}::collector-x86_64-unknown-linux-gnu with sha256 {DIGEST} is not in release \
             v0.2.0's SHA256SUMS\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));

    // Listed, with its file: passes.
    let gh = self::gh(dir.path(), &format!("{DIGEST}  collector-x86_64-unknown-linux-gnu\n"), &base);
    let out = verify(&repo, &gh, &base, &head);
    assert_eq!(
        stdout(&out),
        format!(
            "::notice file={MANIFEST}::workflow_commit is tag v0.2.0's commit, and every binary and digest is in \
             release v0.2.0's SHA256SUMS\n"
        )
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_manifest_whose_workflow_commit_is_not_its_tags_fails() {
    let sums = format!("{DIGEST}  collector-x86_64-unknown-linux-gnu\n");
    let other = "6".repeat(40);
    let (dir, repo, base, head) = submission(&[(MANIFEST, &manifest(&other, DIGEST))]);
    let gh = gh(dir.path(), &sums, &base);
    let wrong = format!("::error file={MANIFEST}::workflow_commit {other} is not the commit of tag v0.2.0, {LISTED}\n");
    // A lightweight tag names the commit itself.
    let out = verify(&repo, &gh, &base, &head);
    assert_eq!(stdout(&out), wrong);
    assert_eq!(out.status.code(), Some(1));
    // An annotated tag is an object of its own: the commit is what it
    // names, not its own id.
    let annotated = format!("tag {other}");
    let out = verify_with(&repo, &gh, &base, &head, &[("GH_TAG", &annotated)]);
    assert_eq!(stdout(&out), wrong);
    let (dir, repo, base, head) = submission(&[(MANIFEST, &manifest(LISTED, DIGEST))]);
    let gh = self::gh(dir.path(), &sums, &base);
    let out = verify_with(&repo, &gh, &base, &head, &[("GH_TAG", &annotated)]);
    assert_eq!(
        stdout(&out),
        format!(
            "::notice file={MANIFEST}::workflow_commit is tag v0.2.0's commit, and every binary and digest is in \
             release v0.2.0's SHA256SUMS\n"
        )
    );
    assert_eq!(out.status.code(), Some(0));
    // No such tag upstream.
    let out = verify_with(&repo, &gh, &base, &head, &[("UPSTREAM", "example/bench")]);
    assert_eq!(
        stdout(&out),
        format!("::error file={MANIFEST}::example/bench has no tag v0.2.0 to compare workflow_commit with\n")
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_manifest_without_binaries_or_workflow_commit_fails() {
    let text = format!("tag = \"v0.2.0\"\nworkflow_commit = \"{LISTED}\"\nbinaries = []\n");
    let (dir, repo, base, head) = submission(&[(MANIFEST, &text)]);
    let gh = gh(dir.path(), &format!("{DIGEST}  collector-x86_64-unknown-linux-gnu\n"), &base);
    let out = verify(&repo, &gh, &base, &head);
    assert_eq!(
        stdout(&out),
        format!("::error file={MANIFEST}::lists no binary to compare with release v0.2.0's SHA256SUMS\n")
    );
    assert_eq!(out.status.code(), Some(1));
    let (dir, repo, base, head) = submission(&[(MANIFEST, "tag = \"v0.2.0\"\nbinaries = []\n")]);
    let gh = self::gh(dir.path(), "", &base);
    let out = verify(&repo, &gh, &base, &head);
    assert_eq!(
        stdout(&out),
        format!("::error file={MANIFEST}::cannot read its workflow commit and binaries: workflow_commit: missing\n")
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_base_the_clone_lacks_stops_the_check() {
    let (dir, repo, base, head) = submission(&[(MANIFEST, &manifest(LISTED, DIGEST))]);
    let gh = gh(dir.path(), "", &base);
    let out = verify(&repo, &gh, &"1".repeat(40), &head);
    assert_eq!(stdout(&out), "");
    assert!(!out.status.success(), "passed with nothing checked: {}", String::from_utf8_lossy(&out.stderr));
}

/// The notice of a result attested in `RUN` by a listed signer.
fn attested(file: &str) -> String {
    format!(
        "::notice file={file}::attested in run {RUN} (measured by example), signed by {SIGNER} at commit {LISTED}, \
         the workflow of release v0.2.0\n"
    )
}

#[test]
fn a_signer_on_the_list_passes_and_the_notice_names_the_run_and_signer() {
    let (dir, repo, base, head) = listed(&[(FILE, RECORDED)]);
    let out = verify(&repo, &gh(dir.path(), "", LISTED), &base, &head);
    assert_eq!(stdout(&out), attested(FILE));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_signer_at_an_old_commit_of_main_that_is_not_listed_is_refused() {
    let (dir, repo, base, head) = listed(&[(FILE, RECORDED)]);
    // The base itself: in main's history, and no release's.
    let out = verify(&repo, &gh(dir.path(), "", &base), &base, &head);
    assert_eq!(
        stdout(&out),
        format!(
            "::error file={FILE}::signed by {SIGNER} at commit {base}, which is not a trusted workflow commit (the \
             workflow_commit of a release manifest in content/releases/); the list is {LISTED} (v0.2.0)\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
    // With no release manifest, nothing is trusted: every signer is refused.
    let (dir, repo, base, head) = submission(&[(FILE, RECORDED)]);
    let out = verify(&repo, &gh(dir.path(), "", LISTED), &base, &head);
    assert_eq!(
        stdout(&out),
        format!(
            "::error file={FILE}::signed by {SIGNER} at commit {LISTED}, which is not a trusted workflow commit (the \
             workflow_commit of a release manifest in content/releases/); the list is empty: no release has a \
             manifest in content/releases/ yet\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_list_is_the_bases_not_the_pull_requests() {
    // A pull request that adds a manifest listing its own signer, and a
    // result signed there: the manifest is checked against its tag, and
    // the result against the base's list.
    let ours = "7".repeat(40);
    let (dir, repo, base, head) = submission(&[(MANIFEST, &manifest(&ours, DIGEST)), (FILE, RECORDED)]);
    let out =
        verify(&repo, &gh(dir.path(), &format!("{DIGEST}  collector-x86_64-unknown-linux-gnu\n"), &ours), &base, &head);
    assert_eq!(
        stdout(&out),
        format!(
            "::error file={FILE}::signed by {SIGNER} at commit {ours}, which is not a trusted workflow commit (the \
             workflow_commit of a release manifest in content/releases/); the list is empty: no release has a \
             manifest in content/releases/ yet\n\
             ::error file={MANIFEST}::workflow_commit {ours} is not the commit of tag v0.2.0, {LISTED}\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_certificate_of_another_run_or_repository_is_refused() {
    let (dir, repo, base, head) = listed(&[(FILE, RECORDED)]);
    let gh = gh(dir.path(), "", LISTED);
    // Another attempt of the same run.
    let other = "https://github.com/example/bench/actions/runs/4242/attempts/1";
    let out = verify_with(&repo, &gh, &base, &head, &[("GH_RUN", other)]);
    assert_eq!(
        stdout(&out),
        format!("::error file={FILE}::attested in run {other}, not in run {RUN}, which provenance.run_record names\n")
    );
    assert_eq!(out.status.code(), Some(1));
    // A run of another repository.
    let out = verify_with(&repo, &gh, &base, &head, &[("GH_SOURCE", "https://github.com/someone/else")]);
    assert_eq!(
        stdout(&out),
        format!(
            "::error file={FILE}::attested in a run of https://github.com/someone/else, not of example/bench, which \
             provenance.run_record names\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_result_with_a_run_record_and_no_attestation_fails() {
    let (dir, repo, base, head) = listed(&[(FILE, RECORDED)]);
    let gh = gh(dir.path(), "", LISTED);
    let refused = format!(
        "::error file={FILE}::not attested: provenance.run_record names run {RUN}, but GitHub has no attestation of \
         this file's SHA-256 by a benchmark.yml on a GitHub-hosted runner in example/bench\n"
    );
    let out = verify_with(&repo, &gh, &base, &head, &[("GH_NONE", "1")]);
    assert_eq!(stdout(&out), refused);
    assert_eq!(out.status.code(), Some(1));
    // Signed on a self-hosted runner: a job of the caller's machines signed.
    let out = verify_with(&repo, &gh, &base, &head, &[("GH_RUNNER", "self-hosted")]);
    assert_eq!(stdout(&out), refused);
    // Signed for another file's digest.
    let out = verify_with(&repo, &gh, &base, &head, &[("GH_SUBJECT", &"0".repeat(64))]);
    assert_eq!(stdout(&out), refused);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_result_without_a_run_record_is_accepted_as_self_built_and_a_broken_record_fails() {
    let plain = r#"{"provenance": {"github": {"repository": "example/bench"}}}"#;
    let broken =
        r#"{"provenance": {"run_record": {"repository": "example/bench", "run_id": "4242", "run_attempt": 2}}}"#;
    let other = "results/p/r/2026-12-02-1-1.json";
    let (dir, repo, base, head) = listed(&[(FILE, plain), (other, broken)]);
    let out = verify(&repo, &gh(dir.path(), "", LISTED), &base, &head);
    assert_eq!(
        stdout(&out),
        format!(
            "::warning file={FILE}::not attested: the result has no GitHub run record (provenance.run_record); \
             accepted as self-built\n\
             ::error file={other}::cannot read the run record: provenance.run_record.run_id: must be a positive whole \
             number\n"
        )
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_file_name_with_a_line_break_is_checked_and_cannot_start_a_command() {
    // git would quote this name (and the check then read no such file)
    // without -z; written out raw, its line break would end the
    // annotation, and GitHub would read the next line as a command.
    let file = "results/p/r/é\n::error::50%, injected.json";
    let (dir, repo, base, head) = listed(&[(file, RECORDED)]);
    let out = verify(&repo, &gh(dir.path(), "", LISTED), &base, &head);
    assert_eq!(stdout(&out), attested("results/p/r/é%0A%3A%3Aerror%3A%3A50%25%2C injected.json"));
    assert_eq!(out.status.code(), Some(0));
}
