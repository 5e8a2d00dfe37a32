//! The results check (.github/workflows/results.yml) runs nothing from the
//! pull request: its job's steps, read from the workflow file as written,
//! run here on a throwaway repository whose pull request plants
//! `json.py`, `hashlib.py` and `tomllib.py` at its root (each would leave a
//! mark if Python imported it), a `target/` folder with a `site` that
//! passes everything, and edits to ci.yml and results.yml. A local bare
//! repository stands in for GitHub's, with the pull request's head at
//! `refs/pull/N/head` as GitHub keeps it.
//!
//! What runs is real (bash, git, python3, scripts/verify-submission.sh,
//! the `site` binary) except for three stand-ins where the real thing
//! cannot run here: `actions/checkout` is a `git clone` of the bare
//! repository at the base branch's tip (what the action does on
//! `pull_request_target` with `fetch-depth: 0`); `rustup` does nothing (the
//! toolchain is installed); and `cargo` does not build `site` from the
//! throwaway repository, a release build of the whole site that would take
//! minutes on the test machines, but puts the `site` binary this test was
//! built with, the checker's code, where the build would, and logs where it
//! was asked to build. The step runner below reads the few keys and
//! expressions results.yml uses, and refuses any other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml_ng::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const ADDED: &str = "results/example/example-linux-x64/2026-11-29-18342215517-1.json";
const BASE_RESULT: &str = "results/example/example-linux-x64/2026-12-05-63cfaa38f746.json";

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

fn write(dir: &Path, path: &str, text: &[u8]) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn copy(dir: &Path, path: &str, from: &str) {
    write(dir, path, &std::fs::read(Path::new(ROOT).join(from)).unwrap());
}

/// One event for the job: its name and, for a pull request, its number and
/// head commit.
struct Event {
    name: &'static str,
    pull_request: Option<(u32, String)>,
}

/// What a run of the job left: each step's name, whether it ran, and its
/// outcome and output (stdout), in order.
struct Report {
    steps: Vec<(String, Option<(bool, String)>)>,
}

impl Report {
    fn output(&self, name: &str) -> &str {
        match self.steps.iter().find(|(n, _)| n == name) {
            Some((_, Some((_, out)))) => out,
            _ => panic!("step {name} did not run: {:?}", self.names()),
        }
    }

    /// Each step as `name: success|failure|skipped`.
    fn names(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|(n, r)| match r {
                Some((true, _)) => format!("{n}: success"),
                Some((false, _)) => format!("{n}: failure"),
                None => format!("{n}: skipped"),
            })
            .collect()
    }
}

/// The throwaway world: a temporary folder with the bare repository
/// (`origin.git`), the stand-ins (`bin/`), the marks planted code would
/// leave (`marks/`) and the cargo stand-in's log.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs the job `check` of results.yml as the base branch holds it (on
    /// `pull_request_target`, GitHub runs the base's workflow file) for
    /// `event`, in a fresh workspace and RUNNER_TEMP.
    fn run(&self, event: &Event, tag: &str) -> Report {
        let origin = self.path("origin.git");
        let text = git(&origin, &["show", "main:.github/workflows/results.yml"]);
        let wf: Value = serde_yaml_ng::from_str(&text).unwrap();
        let job = wf["jobs"]["check"].as_mapping().expect("jobs.check");
        for key in job.keys() {
            let key = key.as_str().unwrap();
            assert!(
                ["name", "runs-on", "timeout-minutes", "permissions", "steps"].contains(&key),
                "the step runner does not run a job's {key}"
            );
        }
        assert!(wf.get("env").is_none() && wf.get("defaults").is_none(), "the step runner runs no workflow env");
        let workspace = self.path(&format!("{tag}-workspace"));
        let temp = self.path(&format!("{tag}-temp"));
        let home = self.path(&format!("{tag}-home"));
        for d in [&temp, &home] {
            std::fs::create_dir_all(d).unwrap();
        }
        let mut contexts: BTreeMap<String, String> = BTreeMap::new();
        contexts.insert("github.event_name".into(), event.name.into());
        contexts.insert("github.token".into(), "a-read-only-token".into());
        contexts.insert("github.ref".into(), "refs/heads/main".into());
        if let Some((number, head)) = &event.pull_request {
            contexts.insert("github.event.pull_request.number".into(), number.to_string());
            contexts.insert("github.event.pull_request.head.sha".into(), head.clone());
        } else {
            contexts.insert("github.event.pull_request.number".into(), String::new());
        }
        let mut report = Report { steps: Vec::new() };
        let mut failed = false;
        for step in wf["jobs"]["check"]["steps"].as_sequence().unwrap() {
            for key in step.as_mapping().unwrap().keys() {
                let key = key.as_str().unwrap();
                assert!(
                    ["name", "id", "if", "uses", "with", "shell", "env", "run"].contains(&key),
                    "the step runner does not run a step's {key}"
                );
            }
            let name = step["name"].as_str().unwrap().to_string();
            let id = step.get("id").and_then(Value::as_str);
            let runs = match step.get("if").and_then(Value::as_str) {
                Some(cond) => condition(cond, &contexts, failed),
                None => !failed,
            };
            if !runs {
                if let Some(id) = id {
                    contexts.insert(format!("steps.{id}.conclusion"), "skipped".into());
                }
                report.steps.push((name, None));
                continue;
            }
            let (ok, out, outputs) = if let Some(uses) = step.get("uses").and_then(Value::as_str) {
                assert!(uses.starts_with("actions/checkout@"), "the step runner simulates no {uses}");
                assert_eq!(step["with"]["persist-credentials"].as_bool(), Some(false));
                assert_eq!(step["with"]["fetch-depth"].as_u64(), Some(0));
                // The event's GITHUB_SHA on pull_request_target and on a
                // push to main: the base branch's tip.
                git(self.dir.path(), &["clone", "-q", origin.to_str().unwrap(), workspace.to_str().unwrap()]);
                (true, String::new(), BTreeMap::new())
            } else {
                let script = step["run"].as_str().expect("run");
                let mut env: Vec<(String, String)> = Vec::new();
                if let Some(vars) = step.get("env").and_then(Value::as_mapping) {
                    for (k, v) in vars {
                        env.push((k.as_str().unwrap().into(), substitute(v.as_str().unwrap(), &contexts)));
                    }
                }
                self.step(&workspace, &temp, &home, step.get("shell").and_then(Value::as_str), script, &env, event)
            };
            if let Some(id) = id {
                contexts.insert(format!("steps.{id}.conclusion"), if ok { "success" } else { "failure" }.into());
                for (k, v) in outputs {
                    contexts.insert(format!("steps.{id}.outputs.{k}"), v);
                }
            }
            failed |= !ok;
            report.steps.push((name, Some((ok, out))));
        }
        report
    }

    /// Runs one `run:` step as the runner does with its shell, in the
    /// workspace, with only the runner's variables and the step's `env`:
    /// (success, stdout, the step's outputs).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        workspace: &Path,
        temp: &Path,
        home: &Path,
        shell: Option<&str>,
        script: &str,
        env: &[(String, String)],
        event: &Event,
    ) -> (bool, String, BTreeMap<String, String>) {
        let file = temp.join("step.sh");
        std::fs::write(&file, script).unwrap();
        let output = temp.join("github-output");
        std::fs::write(&output, "").unwrap();
        let mut cmd = Command::new("bash");
        match shell {
            Some("bash") => cmd.args(["--noprofile", "--norc", "-eo", "pipefail"]),
            None => cmd.arg("-e"),
            Some(other) => panic!("the step runner has no shell {other}"),
        };
        let path = format!("{}:{}", self.path("bin").display(), std::env::var("PATH").unwrap());
        let out = cmd
            .arg(&file)
            .current_dir(workspace)
            .env_clear()
            .env("PATH", path)
            .env("HOME", home)
            .env("RUNNER_TEMP", temp)
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_EVENT_NAME", event.name)
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .output()
            .unwrap();
        let text = std::fs::read_to_string(&output).unwrap();
        assert!(!text.contains("<<"), "the step runner reads no multi-line output");
        let outputs = text
            .lines()
            .map(|l| {
                let (k, v) = l.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), outputs)
    }
}

/// A field's `${{ name }}` expressions replaced by the contexts' values
/// (a step's output that is not set is empty, as on GitHub); any other
/// expression is refused.
fn substitute(text: &str, contexts: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${{") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("}}").expect("an unclosed expression") + at;
        let name = rest[at + 3..end].trim();
        let value = match contexts.get(name) {
            Some(value) => value.as_str(),
            // A step that was skipped, or did not set it, has an empty output.
            None if name.starts_with("steps.") && name.contains(".outputs.") => "",
            None => panic!("the step runner has no value for {name}"),
        };
        out.push_str(value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// An `if:` of the forms results.yml uses: terms joined by `&&`, each
/// `!cancelled()` (no run here is cancelled) or `NAME == 'text'`. As on
/// GitHub, a condition without a status function holds only while every
/// earlier step succeeded (`failed` false).
fn condition(text: &str, contexts: &BTreeMap<String, String>, failed: bool) -> bool {
    let text = text.trim();
    let text = text.strip_prefix("${{").and_then(|t| t.strip_suffix("}}")).unwrap_or(text);
    if !text.contains("()") && failed {
        return false;
    }
    text.split("&&").all(|term| {
        let term = term.trim();
        if term == "!cancelled()" {
            return true;
        }
        let (name, value) = term.split_once("==").unwrap_or_else(|| panic!("the step runner cannot evaluate {term}"));
        let value = value.trim().strip_prefix('\'').and_then(|v| v.strip_suffix('\'')).expect("a quoted value");
        contexts.get(name.trim()).map(String::as_str).unwrap_or("") == value
    })
}

/// The world: a repository whose base holds this workspace's checker, its
/// workflows and the test fixtures' content and one result; pull request 1
/// adds a result, pull request 2 adds the same result and the planted
/// files; main moves on after both branched off.
fn world() -> (World, String, String) {
    let world = World { dir: tempfile::tempdir().unwrap() };
    let src = world.path("src");
    let marks = world.path("marks");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&marks).unwrap();
    git(&src, &["init", "-q", "-b", "main"]);
    for f in [".github/workflows/results.yml", ".github/workflows/ci.yml", "scripts/verify-submission.sh"] {
        copy(&src, f, f);
    }
    copy(&src, "content/releases/v0.2.0.toml", "site/tests/fixtures/content/releases/v0.2.0.toml");
    copy(&src, BASE_RESULT, &format!("site/tests/fixtures/quick/{BASE_RESULT}"));
    git(&src, &["add", "."]);
    git(&src, &["commit", "-q", "-m", "base"]);

    git(&src, &["checkout", "-q", "-b", "plain"]);
    copy(&src, ADDED, &format!("site/tests/fixtures/action-method/{ADDED}"));
    git(&src, &["add", "."]);
    git(&src, &["commit", "-q", "-m", "a result"]);
    let plain = git(&src, &["rev-parse", "HEAD"]);

    git(&src, &["checkout", "-q", "-b", "planted"]);
    for module in ["json", "hashlib", "tomllib"] {
        let code = format!("open({:?}, 'w').write('imported')\n", marks.join(module).display().to_string());
        write(&src, &format!("{module}.py"), code.as_bytes());
    }
    let pass = b"#!/usr/bin/env bash\necho '::notice::planted'\nexit 0\n";
    write(&src, "target/release/site", pass);
    write(&src, "target/checker/release/site", pass);
    for wf in [".github/workflows/ci.yml", ".github/workflows/results.yml"] {
        let text = std::fs::read_to_string(src.join(wf)).unwrap();
        let text = text.replace("bash scripts/verify-submission.sh", "true").replace("exit 1", "exit 0")
            + "# edited by the pull request\n";
        write(&src, wf, text.as_bytes());
    }
    git(&src, &["add", "-f", "."]);
    git(&src, &["commit", "-q", "-m", "a result, and code"]);
    let planted = git(&src, &["rev-parse", "HEAD"]);

    // The base's tip moves on: what it adds is no change of either pull
    // request's.
    git(&src, &["checkout", "-q", "main"]);
    write(&src, "README.md", b"later\n");
    git(&src, &["add", "."]);
    git(&src, &["commit", "-q", "-m", "later"]);

    let origin = world.path("origin.git");
    git(world.dir.path(), &["clone", "-q", "--bare", src.to_str().unwrap(), origin.to_str().unwrap()]);
    git(&origin, &["update-ref", "refs/pull/1/head", &plain]);
    git(&origin, &["update-ref", "refs/pull/2/head", &planted]);
    git(&origin, &["branch", "-D", "plain", "planted"]);

    let bin = world.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = world.path("cargo.log");
    let cargo = format!(
        "#!/usr/bin/env bash\nset -eu\necho \"$PWD $*\" >> {log:?}\n\
         [ \"$*\" = \"build -p site --release --locked --target-dir $RUNNER_TEMP/target\" ] || \
         {{ echo \"cargo stand-in: unexpected: $*\" >&2; exit 2; }}\n\
         mkdir -p \"$RUNNER_TEMP/target/release\"\ncp {site:?} \"$RUNNER_TEMP/target/release/site\"\n",
        log = log.display().to_string(),
        site = env!("CARGO_BIN_EXE_site"),
    );
    std::fs::write(bin.join("cargo"), cargo).unwrap();
    std::fs::write(bin.join("rustup"), "#!/usr/bin/env bash\n[ \"$*\" = \"toolchain install\" ]\n").unwrap();
    for f in ["cargo", "rustup"] {
        Command::new("chmod").arg("+x").arg(bin.join(f)).status().unwrap();
    }
    (world, plain, planted)
}

const STEPS: [&str; 6] = [
    "Check out the base",
    "Toolchain (rust-toolchain.toml)",
    "The pull request's files, as data",
    "site check",
    "Attestations of added results; release manifests against their releases",
    "Results on their own",
];

#[test]
fn planted_code_changes_no_verdict_and_a_pull_request_with_more_than_results_fails() {
    let (world, plain, planted) = world();
    let a = world.run(&Event { name: "pull_request_target", pull_request: Some((1, plain)) }, "a");
    let b = world.run(&Event { name: "pull_request_target", pull_request: Some((2, planted)) }, "b");

    // A result on its own passes.
    assert_eq!(a.names(), STEPS.map(|s| format!("{s}: success")));
    // The result is checked from the pull request's bytes, beside the
    // base's, and its verdict does not change with the planted files.
    let site_check = format!(
        "::notice file={ADDED},title=site check::self-built: the result records no binary identity (collector before \
         0.2.0)\n\
         ::notice file={BASE_RESULT},title=site check::self-built: binary sha256 90d59850ba81… for \
         x86_64-unknown-linux-gnu is not in any published release\n\
         ::notice file={BASE_RESULT},line=84,title=site check::$.fingerprint: 7a737381e8dd is the quick profile's, a \
         try-out: the site shows the result marked \"try-out\" and never ranks it; a run of the standard profile \
         (ff3be33c0c3c) is ranked\n"
    );
    let verified = format!(
        "::warning file={ADDED}::not attested: the result has no GitHub run record (provenance.run_record); \
         accepted as self-built\n"
    );
    for report in [&a, &b] {
        assert_eq!(report.output("site check"), site_check);
        assert_eq!(report.output(STEPS[4]), verified);
    }
    // With files outside results/, the pull request fails, on each of them.
    let mut names = b.names();
    assert_eq!(names.pop().unwrap(), "Results on their own: failure");
    assert_eq!(names, STEPS[..5].iter().map(|s| format!("{s}: success")).collect::<Vec<_>>());
    let outside = [
        ".github/workflows/ci.yml",
        ".github/workflows/results.yml",
        "hashlib.py",
        "json.py",
        "target/checker/release/site",
        "target/release/site",
        "tomllib.py",
    ];
    assert_eq!(
        b.output("Results on their own"),
        outside
            .iter()
            .map(|f| format!(
                "::error file={f}::this pull request changes results and this file outside results/: submit results \
                 in a pull request of their own\n"
            ))
            .collect::<String>()
    );
    // No planted module was imported, and site was built from the base's
    // checkout into RUNNER_TEMP.
    assert_eq!(std::fs::read_dir(world.path("marks")).unwrap().count(), 0);
    let log = std::fs::read_to_string(world.path("cargo.log")).unwrap();
    let built = |tag: &str| {
        format!(
            "{} build -p site --release --locked --target-dir {}/target\n",
            world.path(&format!("{tag}-workspace")).display(),
            world.path(&format!("{tag}-temp")).display()
        )
    };
    assert_eq!(log, format!("{}{}", built("a"), built("b")));
}

#[test]
fn on_a_push_to_main_it_checks_the_results_alone() {
    let (world, _, _) = world();
    let report = world.run(&Event { name: "push", pull_request: None }, "push");
    assert_eq!(
        report.names(),
        [
            "Check out the base: success",
            "Toolchain (rust-toolchain.toml): success",
            "The pull request's files, as data: skipped",
            "site check: success",
            "Attestations of added results; release manifests against their releases: skipped",
            "Results on their own: skipped",
        ]
    );
    assert_eq!(
        report.output("site check"),
        format!(
            "::notice file={BASE_RESULT},title=site check::self-built: binary sha256 90d59850ba81… for \
             x86_64-unknown-linux-gnu is not in any published release\n\
             ::notice file={BASE_RESULT},line=84,title=site check::$.fingerprint: 7a737381e8dd is the quick profile's, \
             a try-out: the site shows the result marked \"try-out\" and never ranks it; a run of the standard \
             profile (ff3be33c0c3c) is ranked\n"
        )
    );
}
