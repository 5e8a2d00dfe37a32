//! scripts/submit.sh, the benchmark workflow's last job, with a token: it
//! pushes the result's branch to the provider's fork of upstream and opens
//! the pull request. Both repositories are real bare git repositories,
//! reached by git through `GITHUB_SERVER_URL` as file:// URLs, served with
//! the filters GitHub allows (`uploadpack.allowFilter`). GitHub cannot be
//! reached from the test machines, so `gh` is a stand-in script on PATH
//! that answers the calls the script makes (who the token is, which forks
//! upstream has, the pull request) and records the pull request's
//! arguments. Everything else (git, the script) is real.

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
/// `ORG`'s, and `gh pr create` writes its arguments, one per line, to
/// `pr-args` and prints `PR_URL`.
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
  "pr create") shift 2; printf '%s\n' "$@" > {args}; echo {PR_URL} ;;
  *) echo "gh stand-in: unexpected call: $*" >&2; exit 2 ;;
esac
"#,
        args = dir.join("pr-args").display()
    );
    let gh = bin.join("gh");
    std::fs::write(&gh, script).unwrap();
    Command::new("chmod").arg("+x").arg(&gh).status().unwrap();
    bin
}

/// Upstream with `ahead` commits the fork lacks, and a fork whose `main`
/// has a commit of its own (the provider's caller workflow): (folder,
/// upstream's bare repository, the fork's).
fn repositories(ahead: usize) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (up, fork, server) = (dir.path().join("up"), dir.path().join("fork"), dir.path().join("server"));
    for d in [&up, &fork, &server] {
        std::fs::create_dir(d).unwrap();
    }
    git(&up, &["init", "-q", "-b", "main"]);
    commit(&up, "README.md", "runner-bench\n");
    for i in 0..3 {
        commit(&up, &format!("results/example/example-linux-x64/2026-11-0{i}-1-1.json"), &format!("{{\"n\":{i}}}\n"));
    }
    git(&fork, &["clone", "-q", up.to_str().unwrap(), "."]);
    commit(&fork, ".github/workflows/bench.yml", "on: workflow_dispatch\n");
    for i in 0..ahead {
        commit(&up, &format!("results/other/other-arm64/2026-12-0{i}-2-1.json"), &format!("{{\"m\":{i}}}\n"));
    }
    let upstream = serve(&up, &server, UPSTREAM);
    let forked = serve(&fork, &server, &format!("{ORG}/runner-bench"));
    (dir, upstream, forked)
}

/// Runs submit.sh with a token from `dir/job`, where the result is, and
/// returns its output and the job summary.
fn submit(dir: &Path, result: &str) -> (Output, String) {
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
        .env("GH_TOKEN", "token")
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
    (out, summary)
}

#[test]
fn a_fork_behind_upstream_gets_one_commit_on_upstreams_head() {
    // Three commits behind: a push from a depth-1 clone of the fork with
    // upstream's HEAD fetched at depth 1 (the script before this test) is
    // refused by git's receive-pack with "shallow update not allowed".
    let (dir, upstream, fork) = repositories(3);
    let result = "{\"schema_version\":1}\n";
    let (out, summary) = submit(dir.path(), result);
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
    // The fork now holds every object the branch reaches.
    git(&fork, &["fsck", "--connectivity-only", "--no-progress"]);
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
    let (dir, upstream, fork) = repositories(0);
    let (out, _) = submit(dir.path(), "{}\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let branch = "result/example/example-linux-x64/2026-12-04-42-1";
    assert_eq!(git(&fork, &["rev-parse", &format!("{branch}^")]), git(&upstream, &["rev-parse", "main"]));
    assert_eq!(git(&fork, &["diff", "--name-status", "main~1", branch]), format!("A\t{RESULT}"));
}
