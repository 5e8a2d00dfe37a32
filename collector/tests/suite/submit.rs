//! scripts/submit.sh, the benchmark workflow's last job, with a token: it
//! pushes the result's branch to the provider's fork of upstream and opens
//! the pull request; without one, the commands it writes to the job
//! summary. Both repositories are real bare git repositories,
//! reached by git through `GITHUB_SERVER_URL` as file:// URLs, served with
//! the filters GitHub allows (`uploadpack.allowFilter`). GitHub cannot be
//! reached from the test machines, so `gh` is a stand-in script on PATH
//! that answers the calls the script makes (who the token is, which forks
//! upstream has, the open pull requests, a new one) and records the pull
//! request's arguments. Everything else (git, the script) is real; git's
//! own trace (GIT_TRACE2_EVENT) counts the blobs it fetched.

use crate::script;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/submit.sh");
const UPSTREAM: &str = "acme/runner-bench";
const ORG: &str = "example-cloud";
const LOGIN: &str = "bench-bot";
const RESULT: &str = "results/example/example-linux-x64/2026-12-04-42-1.json";
const PR_URL: &str = "https://github.com/acme/runner-bench/pull/7";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Adds `path` with `text` to the work tree `dir` and commits it.
fn commit(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
    git(dir, &["add", path]);
    git(dir, &["commit", "-q", "-m", &format!("add {path}")]);
}

/// `work` served as the bare repository `<server>/<name>.git`, with its
/// `main` only, and with the filters GitHub allows.
fn serve(work: &Path, server: &Path, name: &str) -> PathBuf {
    let bare = server.join(format!("{name}.git"));
    std::fs::create_dir_all(bare.parent().unwrap()).unwrap();
    // A clone over file:// copies only what `main` reaches, as a fork
    // holds only its own history.
    let url = format!("file://{}", work.display());
    git(server, &["clone", "-q", "--bare", "--single-branch", "--no-tags", &url, bare.to_str().unwrap()]);
    git(&bare, &["config", "uploadpack.allowFilter", "true"]);
    bare
}

/// The `gh` stand-in: the token is `LOGIN`'s, upstream's only fork is
/// `ORG`'s, the open pull request of the branch is the URL in `pr-open`
/// (none without that file), and `gh pr create` writes its arguments, one
/// per line, to `pr-args` and prints `PR_URL`.
fn gh(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        r#"#!/usr/bin/env bash
set -euo pipefail
case "$1 $2" in
  "api user") echo {LOGIN} ;;
  "api repos/{UPSTREAM}/forks")
    # The --jq filter selects one owner's fork.
    case "$*" in *'"{ORG}"'*) echo {ORG}/runner-bench ;; esac ;;
  "auth setup-git") ;;
  "pr list") cat {open} 2>/dev/null || true ;;
  "pr create") shift 2; printf '%s\n' "$@" > {args}; echo {PR_URL} ;;
  *) echo "gh stand-in: unexpected call: $*" >&2; exit 2 ;;
esac
"#,
        args = dir.join("pr-args").display(),
        open = dir.join("pr-open").display()
    );
    script::executable(&bin.join("gh"), &script);
    bin
}

/// How many result files upstream holds before the fork is made.
const UPSTREAM_FILES: usize = 200;

/// Upstream with `UPSTREAM_FILES` results and `ahead` commits the fork
/// lacks, and a fork whose `main` has a commit of its own (the provider's
/// caller workflow): (folder, upstream's work tree, its bare repository,
/// the fork's).
fn repositories(ahead: usize) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (up, fork, server) = (dir.path().join("up"), dir.path().join("fork"), dir.path().join("server"));
    for d in [&up, &fork, &server] {
        std::fs::create_dir(d).unwrap();
    }
    git(&up, &["init", "-q", "-b", "main"]);
    commit(&up, "README.md", "runner-bench\n");
    let older = up.join("results/example/example-linux-x64");
    std::fs::create_dir_all(&older).unwrap();
    for i in 0..UPSTREAM_FILES {
        std::fs::write(older.join(format!("2026-11-01-{i}-1.json")), format!("{{\"n\":{i}}}\n")).unwrap();
    }
    git(&up, &["add", "results"]);
    git(&up, &["commit", "-q", "-m", "older results"]);
    git(&fork, &["clone", "-q", up.to_str().unwrap(), "."]);
    commit(&fork, ".github/workflows/bench.yml", "on: workflow_dispatch\n");
    for i in 0..ahead {
        commit(&up, &format!("results/other/other-arm64/2026-12-0{i}-2-1.json"), &format!("{{\"m\":{i}}}\n"));
    }
    let upstream = serve(&up, &server, UPSTREAM);
    let forked = serve(&fork, &server, &format!("{ORG}/runner-bench"));
    (dir, up, upstream, forked)
}

/// Adds a commit to upstream (its work tree `up`, served as `bare`).
fn upstream_moves_on(up: &Path, bare: &Path, name: &str) {
    commit(up, &format!("results/other/other-arm64/{name}.json"), "{}\n");
    git(bare, &["fetch", "-q", up.to_str().unwrap(), "main:main"]);
}

/// How many objects git fetched lazily (a partial clone's missing blobs),
/// by its trace of the last run.
fn lazily_fetched(dir: &Path) -> u64 {
    let trace = std::fs::read_to_string(dir.join("trace.json")).unwrap();
    trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "data" && e["category"] == "promisor" && e["key"] == "fetch_count")
        .map(|e| e["value"].as_str().unwrap().parse::<u64>().unwrap())
        .sum()
}

/// Runs submit.sh with `token` from `dir/job`, where the result is, and
/// returns its output and the job summary (git's trace goes to
/// `dir/trace.json`).
fn submit(dir: &Path, result: &str, token: &str) -> (Output, String) {
    let job = dir.join("job");
    std::fs::create_dir_all(job.join(Path::new(RESULT).parent().unwrap())).unwrap();
    std::fs::write(job.join(RESULT), result).unwrap();
    let bin = gh(dir);
    let summary = dir.join("summary.md");
    let out = Command::new("bash")
        .arg(SCRIPT)
        .current_dir(&job)
        .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()))
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GH_TOKEN", token)
        .env("GIT_TRACE2_EVENT", dir.join("trace.json"))
        .env("RESULT", RESULT)
        .env("UPSTREAM", UPSTREAM)
        .env("GITHUB_SERVER_URL", format!("file://{}", dir.join("server").display()))
        .env("GITHUB_REPOSITORY", format!("{ORG}/bench"))
        .env("GITHUB_REPOSITORY_OWNER", ORG)
        .env("GITHUB_RUN_ID", "42")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    let summary = std::fs::read_to_string(&summary).unwrap_or_default();
    std::fs::remove_file(dir.join("summary.md")).ok();
    (out, summary)
}

#[test]
fn a_fork_behind_upstream_gets_one_commit_on_upstreams_head() {
    // Three commits behind: a push from a depth-1 clone of the fork with
    // upstream's HEAD fetched at depth 1 (the script before this test) is
    // refused by git's receive-pack with "shallow update not allowed".
    let (dir, _, upstream, fork) = repositories(3);
    let result = "{\"schema_version\":1}\n";
    let (out, summary) = submit(dir.path(), result, "token");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout, format!("submit.sh: opened {PR_URL}\n"));
    assert_eq!(summary, format!("Opened {PR_URL}\n"));

    let branch = "result/example/example-linux-x64/2026-12-04-42-1";
    let head = git(&upstream, &["rev-parse", "main"]);
    // One commit, on upstream's HEAD, adding the result and nothing else.
    assert_eq!(git(&fork, &["rev-parse", &format!("{branch}^")]), head);
    assert_eq!(git(&fork, &["diff", "--name-status", &head, branch]), format!("A\t{RESULT}"));
    assert_eq!(git(&fork, &["show", &format!("{branch}:{RESULT}")]), result.trim_end());
    assert_eq!(
        git(&fork, &["log", "-1", "--format=%an <%ae>%n%s", branch]),
        format!("{LOGIN} <{LOGIN}@users.noreply.github.com>\nresults: example/example-linux-x64/2026-12-04-42-1")
    );
    // The fork now holds every object the branch reaches; of upstream's
    // blobs, git fetched only the three the push brought to the fork, not
    // the 200 of upstream's tree.
    git(&fork, &["fsck", "--connectivity-only", "--no-progress"]);
    assert_eq!(lazily_fetched(dir.path()), 3);
    // The fork's own branch is as it was.
    assert_eq!(git(&fork, &["log", "-1", "--format=%s", "main"]), "add .github/workflows/bench.yml");

    let args = std::fs::read_to_string(dir.path().join("pr-args")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(
        args[..6],
        [
            "--repo",
            UPSTREAM,
            "--head",
            &format!("{ORG}:{branch}"),
            "--title",
            "results: example/example-linux-x64/2026-12-04-42-1"
        ]
    );
    assert_eq!(args[6], "--body");
    assert!(args[7].starts_with(&format!(
        "Result of file://{}/{ORG}/bench/actions/runs/42 ",
        dir.path().join("server").display()
    )));
}

#[test]
fn a_fork_level_with_upstream_gets_the_same_branch() {
    let (dir, _, upstream, fork) = repositories(0);
    let (out, _) = submit(dir.path(), "{}\n", "token");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let branch = "result/example/example-linux-x64/2026-12-04-42-1";
    assert_eq!(git(&fork, &["rev-parse", &format!("{branch}^")]), git(&upstream, &["rev-parse", "main"]));
    assert_eq!(git(&fork, &["diff", "--name-status", "main~1", branch]), format!("A\t{RESULT}"));
    assert_eq!(lazily_fetched(dir.path()), 0);
}

/// A `sleep` on the script's PATH (`dir/bin`, beside the `gh` stand-in)
/// that waits not at all: it appends its argument to the file it returns,
/// then runs `then` (a shell command).
fn sleep_stand_in(dir: &Path, then: &str) -> PathBuf {
    let waits = dir.join("waits");
    script::executable(&dir.join("bin/sleep"), &format!("#!/bin/sh\necho \"$*\" >> '{}'\n{then}\n", waits.display()));
    waits
}

/// GitHub lists a fork it has just made before git can read it: the
/// script fetches it again every 10 s, for up to a minute. Here the fork's
/// repository is missing at first and is moved into place by the `sleep`
/// between the tries (a stand-in on PATH, which records how long it was
/// asked to wait), so the first fetch fails and the second succeeds.
#[test]
fn a_fork_that_git_cannot_read_yet_is_fetched_again() {
    let (dir, _, upstream, fork) = repositories(1);
    let hidden = fork.with_extension("hidden");
    std::fs::rename(&fork, &hidden).unwrap();
    let waits = sleep_stand_in(dir.path(), &format!("mv '{}' '{}'", hidden.display(), fork.display()));
    let (out, _) = submit(dir.path(), "{}\n", "token");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("submit.sh: opened {PR_URL}\n"));
    assert_eq!(std::fs::read_to_string(&waits).unwrap(), "10\n");
    // git's own complaint about the missing repository, then the script's.
    let ours: Vec<&str> = stderr.lines().filter(|l| l.starts_with("submit.sh:")).collect();
    assert_eq!(
        ours,
        [format!("submit.sh: {ORG}/runner-bench cannot be fetched yet (try 1 of 7); trying again in 10 s")]
    );
    let branch = "result/example/example-linux-x64/2026-12-04-42-1";
    assert_eq!(git(&fork, &["rev-parse", &format!("{branch}^")]), git(&upstream, &["rev-parse", "main"]));
}

/// A fork git never reads: seven tries, six waits of 10 s between them
/// (the `sleep` stand-in only records them), then a message and failure.
#[test]
fn a_fork_that_git_never_reads_fails_after_seven_tries() {
    let (dir, _, _, fork) = repositories(0);
    std::fs::remove_dir_all(&fork).unwrap();
    let waits = sleep_stand_in(dir.path(), "");
    let (out, _) = submit(dir.path(), "{}\n", "token");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&waits).unwrap(), "10\n".repeat(6));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ours: Vec<String> = stderr.lines().filter(|l| l.starts_with("submit.sh:")).map(String::from).collect();
    let mut want: Vec<String> = (1..7)
        .map(|n| format!("submit.sh: {ORG}/runner-bench cannot be fetched yet (try {n} of 7); trying again in 10 s"))
        .collect();
    want.push(format!("submit.sh: cannot fetch {ORG}/runner-bench after 7 tries over a minute (git's errors above)"));
    assert_eq!(ours, want);
}

#[test]
fn a_rerun_replaces_its_own_branch_and_keeps_the_open_pull_request() {
    let (dir, up, upstream, fork) = repositories(1);
    let (out, _) = submit(dir.path(), "{\"attempt\":1}\n", "token");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The job is re-run: its branch is on the fork, its pull request open,
    // and upstream has moved on.
    std::fs::remove_file(dir.path().join("pr-args")).unwrap();
    std::fs::write(dir.path().join("pr-open"), format!("{PR_URL}\n")).unwrap();
    upstream_moves_on(&up, &upstream, "2026-12-04-43-1");
    let (out, summary) = submit(dir.path(), "{\"attempt\":1}\n", "token");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("submit.sh: pushed the result again to the open pull request {PR_URL}\n")
    );
    assert_eq!(summary, format!("Pushed the result again to the open pull request {PR_URL}\n"));
    assert!(!dir.path().join("pr-args").exists(), "a second pull request was asked for");
    let branch = "result/example/example-linux-x64/2026-12-04-42-1";
    assert_eq!(git(&fork, &["rev-parse", &format!("{branch}^")]), git(&upstream, &["rev-parse", "main"]));
    assert_eq!(git(&fork, &["rev-list", "--count", &format!("main..{branch}")]), "3");
}

#[test]
fn without_a_token_the_summarys_commands_make_the_same_branch() {
    let (dir, _, upstream, fork) = repositories(2);
    let result = "{\"by\":\"hand\"}\n";
    let (out, summary) = submit(dir.path(), result, "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "submit.sh: no token; wrote the commands to the job summary\n");
    let block = summary.split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    let lines: Vec<&str> = block.lines().collect();
    assert!(lines[0].starts_with("gh run download 42 "), "{block}");
    assert!(lines[lines.len() - 1].starts_with(&format!("gh pr create --repo {UPSTREAM} ")), "{block}");
    // The commands, in a clone of the fork, as the summary says: the
    // artifact's download is a copy of the result, and the pull request is
    // what the branch adds to upstream.
    let clone = dir.path().join("clone");
    git(dir.path(), &["clone", "-q", &format!("file://{}", fork.display()), clone.to_str().unwrap()]);
    std::fs::create_dir_all(clone.join(Path::new(RESULT).parent().unwrap())).unwrap();
    std::fs::write(clone.join(RESULT), result).unwrap();
    for line in &lines[1..lines.len() - 1] {
        let out = Command::new("bash")
            .args(["-c", line])
            .current_dir(&clone)
            .env("HOME", dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", LOGIN)
            .env("GIT_AUTHOR_EMAIL", "bot@example.com")
            .env("GIT_COMMITTER_NAME", LOGIN)
            .env("GIT_COMMITTER_EMAIL", "bot@example.com")
            .output()
            .unwrap();
        assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let branch = "result/example/example-linux-x64/2026-12-04-42-1";
    let head = git(&upstream, &["rev-parse", "main"]);
    assert_eq!(git(&fork, &["rev-parse", &format!("{branch}^")]), head);
    assert_eq!(git(&fork, &["diff", "--name-status", &head, branch]), format!("A\t{RESULT}"));
}
