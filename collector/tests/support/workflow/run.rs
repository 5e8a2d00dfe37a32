//! Runs a `Workflow`'s jobs on this machine, one at a time in `order()`,
//! as GitHub's runner would run each: `Settings` → `Run` (a `JobReport` per
//! job: conclusion, wall time, step outcomes and logs, outputs, workspace).
//!
//! Per job: its `if:` (default `success()`, over every ancestor job, as on
//! GitHub), a fresh workspace, RUNNER_TEMP and HOME, its own simulated OS
//! instance (instance.rs), `timeout-minutes` (the step's process group is
//! killed and the job fails), and `outputs:` evaluated at its end. Per step:
//! `if:`, `env:` over the job's over the workflow's, fresh file commands
//! (files.rs), `continue-on-error`, `working-directory`, and the runner's
//! variables. JavaScript actions (every `uses:` step) also get
//! ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL; `run:` steps do not, as
//! on GitHub. Every step of a job that may request an OIDC token
//! (`id-token: write`), `run:` steps included, gets the token double's
//! ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN, as the
//! runner gives them (ScriptHandler.cs, NodeScriptActionHandler.cs); no
//! step of any other job does, and the simulated attest actions refuse to
//! sign without them.
//!
//! An expression or a feature the rehearsal cannot evaluate is an error of
//! the whole rehearsal (`Err`), naming the job, step and expression; a step
//! that fails is a step failure, as on GitHub.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

use super::actions::{self, Action};
use super::expr::{self, Scope, Status};
use super::files::StepFiles;
use super::github::GitHubDouble;
use super::instance::{self, Instance};
use super::model::{InputKind, Job, Shell, Step, StepAction, Workflow};

/// GitHub's default job timeout.
const DEFAULT_TIMEOUT_MINUTES: f64 = 360.0;

/// What the rehearsal is run with.
pub(crate) struct Settings {
    /// The working tree `actions/checkout` copies.
    pub(crate) repo: PathBuf,
    /// Where the run's folders go (workspaces, artifacts, instances).
    pub(crate) root: PathBuf,
    /// The caller's `with:`, as text; typed by the workflow's input types.
    pub(crate) inputs: Vec<(String, String)>,
    /// The caller's `secrets:`.
    pub(crate) secrets: Vec<(String, String)>,
    /// Added to every step's environment (the test's endpoints).
    pub(crate) runner_env: Vec<(String, String)>,
    /// Added to JavaScript actions' environment only: ACTIONS_RUNTIME_TOKEN
    /// and ACTIONS_RESULTS_URL.
    pub(crate) js_env: Vec<(String, String)>,
    /// `(name, address)` added to every instance's /etc/hosts.
    pub(crate) hosts: Vec<(String, String)>,
    /// The github context's run: repository (owner/name), run id, sha.
    pub(crate) repository: String,
    pub(crate) run_id: u64,
    pub(crate) sha: String,
    /// What goes wrong on purpose.
    pub(crate) faults: Vec<Fault>,
    /// Ends the run after this job (the later jobs are not run or reported),
    /// for a test about the first jobs only.
    pub(crate) stop_after: Option<String>,
    /// The calling job's name, where the workflow is a called one: GitHub
    /// lists each job as `<caller> / <job's name>` (github.rs).
    pub(crate) caller_job: Option<String>,
    /// What the GitHub double serves besides the run's jobs: URL path →
    /// file (github.rs, `State::files`).
    pub(crate) github_files: Vec<(String, PathBuf)>,
}

/// A failure the rehearsal injects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The job's runner is lost: its first step fails in its place; the
    /// later steps run as their `if:` says (`always()` ones do).
    LoseRunner { job: String },
    /// The job runs on the OS instance of an earlier job (same boot id and
    /// machine id), as if the same runner had been handed out again.
    ShareInstance { job: String, with: String },
    /// A hostile step: this bash script runs after the job's own steps
    /// (`always()`, `continue-on-error`), as code the caller chose would.
    AddStep { job: String, name: String, script: String },
    /// Before `before` starts, another job of the run (a caller's own job
    /// beside the benchmark's) uploads artifact `name` again, with
    /// `overwrite: true`, its files each with `append` added: the old
    /// artifact is deleted and the new one gets a new id.
    OverwriteArtifact { before: String, name: String, append: String },
}

/// The token double's OIDC request variables for a job that may request
/// one: a request token of its own, and a URL where nothing answers (no
/// signing happens in the rehearsal).
pub(crate) fn oidc_request_token(job: &str) -> String {
    format!("rehearsal-oidc-request-token-{job}")
}

/// A job's or step's end. (GitHub also has `cancelled`; nothing cancels a
/// rehearsal, so no job or step ends so, and `cancelled()` is false.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conclusion {
    Success,
    Failure,
    Skipped,
}

impl Conclusion {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Skipped => "skipped",
        }
    }
}

#[derive(Debug)]
pub(crate) struct StepReport {
    pub(crate) name: String,
    pub(crate) id: Option<String>,
    /// Before `continue-on-error`.
    pub(crate) outcome: Conclusion,
    /// After it.
    pub(crate) conclusion: Conclusion,
    /// What the step printed, and the runner's lines about it; secrets masked.
    pub(crate) log: String,
    /// What a simulated action did instead of the real one.
    pub(crate) notes: Vec<String>,
}

#[derive(Debug)]
pub(crate) struct JobReport {
    pub(crate) id: String,
    pub(crate) conclusion: Conclusion,
    pub(crate) seconds: f64,
    /// `runs-on`, evaluated (empty when skipped).
    pub(crate) runs_on: Vec<String>,
    /// The job's OS instance (none when skipped).
    pub(crate) instance: Option<Instance>,
    pub(crate) workspace: Option<PathBuf>,
    pub(crate) steps: Vec<StepReport>,
    pub(crate) outputs: Map<String, Value>,
    /// The steps' GITHUB_STEP_SUMMARY, joined.
    pub(crate) summary: String,
}

impl JobReport {
    pub(crate) fn step(&self, name: &str) -> &StepReport {
        self.steps
            .iter()
            .find(|s| s.name == name || s.id.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("job {} has no step {name:?}", self.id))
    }

    /// Every step's log, one after the other, with the step's name.
    pub(crate) fn log(&self) -> String {
        let mut out = String::new();
        for s in &self.steps {
            let _ = writeln!(out, "--- {} ({}) ---\n{}", s.name, s.conclusion.as_str(), s.log);
        }
        out
    }
}

/// The run: a report per job, in the order they ran.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) jobs: Vec<JobReport>,
}

impl Run {
    pub(crate) fn job(&self, id: &str) -> &JobReport {
        self.jobs.iter().find(|j| j.id == id).unwrap_or_else(|| panic!("the run has no job {id}"))
    }

    /// `(job, conclusion)` of every job, in order.
    pub(crate) fn conclusions(&self) -> Vec<(&str, &str)> {
        self.jobs.iter().map(|j| (j.id.as_str(), j.conclusion.as_str())).collect()
    }

    /// A table of job, conclusion and wall time.
    pub(crate) fn table(&self) -> String {
        let width = self.jobs.iter().map(|j| j.id.len()).max().unwrap_or(3).max(3);
        let mut out = format!("{:width$}  {:10}  {:>8}\n", "job", "conclusion", "seconds");
        for j in &self.jobs {
            let _ = writeln!(out, "{:width$}  {:10}  {:>8.1}", j.id, j.conclusion.as_str(), j.seconds);
        }
        let total: f64 = self.jobs.iter().map(|j| j.seconds).sum();
        let _ = writeln!(out, "{:width$}  {:10}  {:>8.1}", "total", "", total);
        out
    }
}

impl Workflow {
    /// Runs every job, in `order()`, with `settings`.
    pub(crate) fn run(&self, settings: &Settings) -> anyhow::Result<Run> {
        run(self, settings)
    }

    /// Whether job `id` would run, with the caller's `settings.inputs` and
    /// every job upstream of it ended as `ended` says: `job_runs`.
    pub(crate) fn job_runs(&self, settings: &Settings, id: &str, ended: &[(&str, Conclusion)]) -> anyhow::Result<bool> {
        job_runs(self, settings, id, ended)
    }
}

/// Runs every job of `wf`.
fn run(wf: &Workflow, settings: &Settings) -> anyhow::Result<Run> {
    let inputs = inputs(wf, settings)?;
    let mut secrets = Map::new();
    secrets.insert("GITHUB_TOKEN".into(), Value::String(String::new()));
    for name in &wf.secrets {
        secrets.insert(name.clone(), Value::String(String::new()));
    }
    for (k, v) in &settings.secrets {
        if !wf.secrets.contains(k) {
            bail!("secret {k} is not one of on.workflow_call.secrets ({})", wf.secrets.join(", "));
        }
        secrets.insert(k.clone(), Value::String(v.clone()));
    }
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        .current_dir(&settings.repo)
        .output()
        .with_context(|| format!("cannot run git ls-files in {}", settings.repo.display()))?;
    if !listed.status.success() {
        bail!("git ls-files failed in {}: {}", settings.repo.display(), String::from_utf8_lossy(&listed.stderr));
    }
    let mut repo_files: Vec<String> =
        listed.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()).map(|f| String::from_utf8_lossy(f).into()).collect();
    repo_files.sort();
    repo_files.dedup();
    let artifacts = settings.root.join("artifacts");
    std::fs::create_dir_all(&artifacts)?;
    let github = GitHubDouble::start(settings.github_files.iter().cloned().collect())
        .context("cannot start the GitHub double")?;

    let mut shared =
        Shared { wf, settings, inputs, secrets, repo_files, artifacts, instances: BTreeMap::new(), github: &github };
    let mut jobs: Vec<JobReport> = Vec::new();
    for job in wf.order()? {
        for f in &settings.faults {
            if let Fault::OverwriteArtifact { before, name, append } = f
                && before == &job.id
            {
                let dir = shared.artifacts.join(name);
                for rel in super::glob::files_below(&dir)? {
                    let mut bytes = std::fs::read(dir.join(&rel))?;
                    bytes.extend_from_slice(append.as_bytes());
                    std::fs::write(dir.join(&rel), bytes)?;
                }
                let (id, _) = actions::register_artifact(&shared.artifacts, name)?;
                eprintln!("rehearsal: a caller's job overwrote artifact {name} (now id {id}) before job {before}");
            }
        }
        eprintln!("rehearsal: job {} ...", job.id);
        let report = run_job(&mut shared, job, &jobs).with_context(|| format!("job {}", job.id))?;
        eprintln!("rehearsal: job {} {} in {:.1} s", job.id, report.conclusion.as_str(), report.seconds);
        jobs.push(report);
        if settings.stop_after.as_deref() == Some(job.id.as_str()) {
            break;
        }
    }
    Ok(Run { jobs })
}

/// What every job of the run shares.
struct Shared<'a> {
    wf: &'a Workflow,
    settings: &'a Settings,
    inputs: Map<String, Value>,
    secrets: Map<String, Value>,
    repo_files: Vec<String>,
    artifacts: PathBuf,
    instances: BTreeMap<String, Instance>,
    github: &'a GitHubDouble,
}

/// The inputs context: the caller's values, else the defaults, typed.
fn inputs(wf: &Workflow, settings: &Settings) -> anyhow::Result<Map<String, Value>> {
    for (k, _) in &settings.inputs {
        if !wf.inputs.iter().any(|i| &i.name == k) {
            bail!("input {k} is not one of on.workflow_call.inputs");
        }
    }
    let mut out = Map::new();
    for spec in &wf.inputs {
        let given = settings.inputs.iter().find(|(k, _)| k == &spec.name).map(|(_, v)| v.clone());
        let text = match (given, &spec.default) {
            (Some(v), _) => Some(v),
            (None, Some(d)) => Some(d.clone()),
            (None, None) if spec.required => bail!("input {} is required and not given", spec.name),
            (None, None) => None,
        };
        let value = match (spec.kind, text) {
            (_, None) => match spec.kind {
                InputKind::String => Value::String(String::new()),
                InputKind::Boolean => Value::Bool(false),
            },
            (InputKind::String, Some(t)) => Value::String(t),
            (InputKind::Boolean, Some(t)) => match t.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => bail!("input {}: {t:?} is not a boolean", spec.name),
            },
        };
        out.insert(spec.name.clone(), value);
    }
    Ok(out)
}

/// The folders of one job.
struct JobDirs {
    workspace: PathBuf,
    temp: PathBuf,
    home: PathBuf,
    files: PathBuf,
    logs: PathBuf,
}

impl JobDirs {
    fn create(root: &Path) -> anyhow::Result<JobDirs> {
        let d = JobDirs {
            workspace: root.join("workspace"),
            temp: root.join("temp"),
            home: root.join("home"),
            files: root.join("temp/_runner_file_commands"),
            logs: root.join("logs"),
        };
        for p in [&d.workspace, &d.temp, &d.home, &d.files, &d.logs] {
            std::fs::create_dir_all(p).with_context(|| format!("cannot create {}", p.display()))?;
        }
        Ok(d)
    }
}

/// The state of one running job.
struct JobRun<'a> {
    shared: &'a Shared<'a>,
    job: &'a Job,
    dirs: JobDirs,
    instance: Instance,
    /// Contexts every expression of the job sees (github, runner, inputs,
    /// secrets, needs); `env`, `steps` and `job` are added per use.
    base: Map<String, Value>,
    /// The env context before a step's own env: the workflow's, the job's,
    /// and what GITHUB_ENV set.
    env: Vec<(String, String)>,
    /// GITHUB_PATH entries, latest first.
    path: Vec<String>,
    steps: Map<String, Value>,
    failed: bool,
    deadline: Instant,
    timed_out: bool,
    /// Values to mask in logs.
    masks: Vec<String>,
    /// Process groups to end when the job ends.
    groups: Vec<i32>,
    /// What the runner inherits from this process: PATH.
    host_path: String,
}

fn run_job(shared: &mut Shared<'_>, job: &Job, done: &[JobReport]) -> anyhow::Result<JobReport> {
    let start = Instant::now();
    let wf = shared.wf;
    let mut needs = Map::new();
    for n in &job.needs {
        let r = done.iter().find(|r| &r.id == n).with_context(|| format!("needs {n}, which has not run"))?;
        needs.insert(n.clone(), json!({"result": r.conclusion.as_str(), "outputs": r.outputs}));
    }
    let ancestors: Vec<Conclusion> =
        wf.ancestors(&job.id).iter().filter_map(|a| done.iter().find(|r| &r.id == a)).map(|r| r.conclusion).collect();
    let root = shared.settings.root.join("jobs").join(&job.id);
    let github = json!({
        "job": job.id,
        "run_id": shared.settings.run_id.to_string(),
        "run_number": "1",
        "run_attempt": "1",
        "repository": shared.settings.repository,
        "repository_owner": shared.settings.repository.split('/').next().unwrap_or(""),
        "workspace": root.join("workspace").display().to_string(),
        "sha": shared.settings.sha,
        // A workflow_dispatch on the default branch.
        "ref": "refs/heads/main",
        "workflow": wf.name,
        "event_name": "workflow_dispatch",
        "server_url": shared.github.url,
        "api_url": shared.github.api_url(),
        // The GitHub double's token of this job, which lists the run's jobs
        // only where the job's permissions grant actions: read.
        "token": job_token(&job.id),
    });
    let mut base = Map::new();
    base.insert("github".into(), github);
    base.insert("inputs".into(), Value::Object(shared.inputs.clone()));
    base.insert("needs".into(), Value::Object(needs));
    base.insert("secrets".into(), Value::Object(shared.secrets.clone()));
    let created_at = api_time(std::time::SystemTime::now(), false);
    if !condition_holds(job, &base, &ancestors)? {
        let mut state = shared.github.state.lock().unwrap();
        let listed = api_job(shared, job, state.jobs.len(), &[], None, &created_at, Some("skipped"));
        state.jobs.push(listed);
        drop(state);
        return Ok(JobReport {
            id: job.id.clone(),
            conclusion: Conclusion::Skipped,
            seconds: 0.0,
            runs_on: Vec::new(),
            instance: None,
            workspace: None,
            steps: Vec::new(),
            outputs: job.outputs.iter().map(|(k, _)| (k.clone(), Value::String(String::new()))).collect(),
            summary: String::new(),
        });
    }
    let runs_on = job
        .runs_on
        .iter()
        .map(|r| job_field(&base, JOB, None, r, "runs-on").map(|v| expr::to_text(&v)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let listed = {
        let mut state = shared.github.state.lock().unwrap();
        state.tokens.insert(job_token(&job.id), job.actions_read);
        let listed = api_job(shared, job, state.jobs.len(), &runs_on, Some(&runner_name(&job.id)), &created_at, None);
        state.jobs.push(listed);
        state.jobs.len() - 1
    };
    let minutes = match &job.timeout_minutes {
        Some(t) => minutes(&job_field(&base, JOB, None, t, "timeout-minutes")?)?,
        None => DEFAULT_TIMEOUT_MINUTES,
    };
    let mut env = Vec::new();
    for (k, v) in &wf.env {
        let v = job_field(&base, &["github", "inputs", "secrets"], None, v, &format!("env.{k}"))?;
        env.push((k.clone(), expr::to_text(&v)));
    }
    for (k, v) in &job.env {
        let v =
            job_field(&base, &["github", "inputs", "needs", "secrets"], None, v, &format!("jobs.{}.env.{k}", job.id))?;
        env.push((k.clone(), expr::to_text(&v)));
    }
    if let Some(parent) = root.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if root.exists() {
        bail!("{} exists: every job needs a fresh folder", root.display());
    }
    let dirs = JobDirs::create(&root)?;
    let instance = match shared.settings.faults.iter().find_map(|f| match f {
        Fault::ShareInstance { job: j, with } if j == &job.id => Some(with),
        _ => None,
    }) {
        Some(with) => {
            shared.instances.get(with).cloned().with_context(|| format!("no instance of job {with} to share"))?
        }
        None => {
            let mut hosts = shared.settings.hosts.clone();
            hosts.push((super::github::HOST.to_string(), "127.0.0.1".to_string()));
            Instance::create(&root.join("instance"), &hosts)?
        }
    };
    instance.check()?;
    shared.instances.insert(job.id.clone(), instance.clone());
    base.insert(
        "runner".into(),
        json!({"temp": dirs.temp.display().to_string(), "os": "Linux", "arch": "X64", "name": runner_name(&job.id)}),
    );
    let mut steps = Map::new();
    for s in &job.steps {
        if let Some(id) = &s.id {
            steps.insert(id.clone(), json!({"outputs": {}, "outcome": null, "conclusion": null}));
        }
    }
    let mut masks: Vec<String> = shared.secrets.values().map(expr::to_text).filter(|s| !s.is_empty()).collect();
    masks.extend(shared.settings.js_env.iter().filter(|(k, _)| k == "ACTIONS_RUNTIME_TOKEN").map(|(_, v)| v.clone()));
    if job.id_token {
        masks.push(oidc_request_token(&job.id));
    }
    // The job's steps, then any hostile ones the test adds.
    let mut all_steps: Vec<Step> = job.steps.clone();
    for f in &shared.settings.faults {
        if let Fault::AddStep { job: j, name, script } = f
            && j == &job.id
        {
            all_steps.push(Step {
                name: Some(name.clone()),
                id: None,
                condition: Some("always()".into()),
                env: Vec::new(),
                continue_on_error: Some("true".into()),
                timeout_minutes: None,
                action: StepAction::Run { script: script.clone(), shell: Shell::Bash, working_directory: None },
            });
        }
    }
    let lost = shared.settings.faults.contains(&Fault::LoseRunner { job: job.id.clone() });
    let mut run = JobRun {
        shared,
        job,
        dirs,
        instance,
        base,
        env,
        path: Vec::new(),
        steps,
        failed: false,
        deadline: start + Duration::from_secs_f64(minutes * 60.0),
        timed_out: false,
        masks,
        groups: Vec::new(),
        host_path: std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()),
    };
    let mut reports = Vec::new();
    let mut summary = String::new();
    for (i, step) in all_steps.iter().enumerate() {
        let report = if i == 0 && lost {
            run.lose_runner(step)
        } else {
            run.step(i, step, &mut summary).with_context(|| format!("step {} ({})", i + 1, step.display_name()))?
        };
        reports.push(report);
    }
    run.end_groups();
    let outputs = run.outputs()?;
    // The runner empties RUNNER_TEMP at the end of every job (and the
    // collector release in it is a hundred megabytes a job here).
    std::fs::remove_dir_all(&run.dirs.temp).with_context(|| format!("cannot empty {}", run.dirs.temp.display()))?;
    let conclusion = if run.failed { Conclusion::Failure } else { Conclusion::Success };
    {
        let mut state = run.shared.github.state.lock().unwrap();
        let listed = &mut state.jobs[listed];
        listed["status"] = json!("completed");
        listed["conclusion"] = json!(conclusion.as_str());
        listed["completed_at"] = json!(api_time(std::time::SystemTime::now(), true));
    }
    Ok(JobReport {
        id: job.id.clone(),
        conclusion,
        seconds: start.elapsed().as_secs_f64(),
        runs_on,
        instance: Some(run.instance.clone()),
        workspace: Some(run.dirs.workspace.clone()),
        steps: reports,
        outputs,
        summary,
    })
}

/// The contexts of a job's `if:`, `runs-on` and `timeout-minutes`.
const JOB: &[&str] = &["github", "inputs", "needs"];

/// Whether `job`'s `if:` holds, with the contexts of `base`: success() and
/// failure() of a job's `if:` look at every ancestor (`ancestors`, their
/// conclusions), not only the direct needs: a job is skipped when any job
/// upstream of it did not succeed, even if its direct needs did
/// (actions/runner#2205).
fn condition_holds(job: &Job, base: &Map<String, Value>, ancestors: &[Conclusion]) -> anyhow::Result<bool> {
    let status = Status {
        success: ancestors.iter().all(|c| *c == Conclusion::Success),
        failure: ancestors.contains(&Conclusion::Failure),
        cancelled: false,
    };
    Ok(match &job.condition {
        Some(c) => expr::truthy(&job_field(base, JOB, Some(status), c, "if")?),
        None => status.success,
    })
}

/// Whether job `id` would run, with the caller's `settings.inputs` (typed
/// and defaulted as `run` does) and every job upstream of it ended as
/// `ended` says (a job not listed succeeded, with no outputs): its `if:`
/// alone, evaluated as `run` does, with nothing run.
fn job_runs(wf: &Workflow, settings: &Settings, id: &str, ended: &[(&str, Conclusion)]) -> anyhow::Result<bool> {
    let job = wf.job(id).with_context(|| format!("the workflow has no job {id}"))?;
    let conclusion = |n: &str| ended.iter().find(|(j, _)| *j == n).map_or(Conclusion::Success, |(_, c)| *c);
    let needs: Map<String, Value> =
        job.needs.iter().map(|n| (n.clone(), json!({"result": conclusion(n).as_str(), "outputs": {}}))).collect();
    let ancestors: Vec<Conclusion> = wf.ancestors(id).iter().map(|a| conclusion(a)).collect();
    let mut base = Map::new();
    base.insert("github".into(), json!({"job": id, "repository": settings.repository}));
    base.insert("inputs".into(), Value::Object(inputs(wf, settings)?));
    base.insert("needs".into(), Value::Object(needs));
    condition_holds(job, &base, &ancestors)
}

/// Evaluates a job-level field, where only the contexts `names` exist
/// (GitHub's context availability table: no `env`, `steps` or `runner`).
fn job_field(
    base: &Map<String, Value>,
    names: &[&str],
    status: Option<Status>,
    text: &str,
    field: &str,
) -> anyhow::Result<Value> {
    let contexts: Map<String, Value> =
        names.iter().filter_map(|n| base.get(*n).map(|v| (n.to_string(), v.clone()))).collect();
    let scope = Scope { contexts: &contexts, status };
    match field {
        "if" => expr::condition(text, &scope).map(Value::Bool),
        "timeout-minutes" => expr::field_value(text, &scope),
        _ => expr::interpolate(text, &scope).map(Value::String),
    }
    .with_context(|| format!("{field}: `{text}`"))
}

fn runner_name(job: &str) -> String {
    format!("rehearsal-runner-{job}")
}

fn job_token(job: &str) -> String {
    format!("rehearsal-github-token-{job}")
}

/// A moment as GitHub's API writes it: UTC, whole seconds. Which way GitHub
/// rounds is not documented; the rehearsal takes the moment's second for a
/// start and the next second for an end, so that a job's listed window
/// holds everything that happened in it.
fn api_time(at: std::time::SystemTime, end: bool) -> String {
    let since = at.duration_since(std::time::UNIX_EPOCH).expect("the clock is after 1970");
    let seconds = since.as_secs() + u64::from(end && since.subsec_nanos() > 0);
    jiff::Timestamp::from_second(i64::try_from(seconds).expect("seconds fit i64")).expect("a valid moment").to_string()
}

/// The job as GitHub's API lists it, the run's `index`th (its `job` schema, the fields the
/// workflow reads and a few beside them); `conclusion` given for a job that
/// never ran (`skipped`), else it is in progress.
fn api_job(
    shared: &Shared<'_>,
    job: &Job,
    index: usize,
    labels: &[String],
    runner: Option<&str>,
    created_at: &str,
    conclusion: Option<&str>,
) -> Value {
    let s = shared.settings;
    let name = job.name.clone().unwrap_or_else(|| job.id.clone());
    let name = match &s.caller_job {
        Some(caller) => format!("{caller} / {name}"),
        None => name,
    };
    let id = index as u64 + 1;
    json!({
        "id": 9_000_000 + id,
        "run_id": s.run_id,
        "run_attempt": 1,
        "workflow_name": shared.wf.name,
        "head_sha": s.sha,
        "name": name,
        "status": if conclusion.is_some() { "completed" } else { "in_progress" },
        "conclusion": conclusion,
        "created_at": created_at,
        "started_at": created_at,
        "completed_at": conclusion.map(|_| created_at),
        "labels": labels,
        "runner_id": runner.map(|_| id),
        "runner_name": runner,
        "runner_group_id": runner.map(|_| 1),
        "runner_group_name": runner.map(|_| "rehearsal"),
        "steps": [],
    })
}

/// `timeout-minutes` as a positive number of minutes.
fn minutes(v: &Value) -> anyhow::Result<f64> {
    let n = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    match n {
        Some(n) if n > 0.0 => Ok(n),
        _ => bail!("timeout-minutes: {v} is not a positive number"),
    }
}

/// How a process ended.
enum Exit {
    Code(i32),
    Signal,
    TimedOut,
}

impl JobRun<'_> {
    fn contexts(&self, env: &[(String, String)]) -> Map<String, Value> {
        let mut c = self.base.clone();
        let env: Map<String, Value> = env.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        c.insert("env".into(), Value::Object(env));
        c.insert("steps".into(), Value::Object(self.steps.clone()));
        c.insert("job".into(), json!({"status": if self.failed { "failure" } else { "success" }}));
        c
    }

    fn status(&self) -> Status {
        Status { success: !self.failed && !self.timed_out, failure: self.failed, cancelled: false }
    }

    fn mask(&self, text: &str) -> String {
        let mut t = text.to_string();
        for m in self.masks.iter().filter(|m| m.len() >= 3) {
            t = t.replace(m.as_str(), "***");
        }
        t
    }

    /// The simulated lost runner: the step fails without running.
    fn lose_runner(&mut self, step: &Step) -> StepReport {
        self.failed = true;
        if let Some(id) = &step.id {
            self.steps.insert(id.clone(), json!({"outputs": {}, "outcome": "failure", "conclusion": "failure"}));
        }
        StepReport {
            name: step.display_name(),
            id: step.id.clone(),
            outcome: Conclusion::Failure,
            conclusion: Conclusion::Failure,
            log: "rehearsal: the runner of this job was lost (injected failure); the step did not run\n".into(),
            notes: vec!["injected failure: lost runner".into()],
        }
    }

    fn step(&mut self, index: usize, step: &Step, summary: &mut String) -> anyhow::Result<StepReport> {
        let start = Instant::now();
        let skipped = |name: String, log: &str| StepReport {
            name,
            id: step.id.clone(),
            outcome: Conclusion::Skipped,
            conclusion: Conclusion::Skipped,
            log: log.to_string(),
            notes: Vec::new(),
        };
        let env_before = self.env.clone();
        let contexts = self.contexts(&env_before);
        let scope = Scope { contexts: &contexts, status: None };
        let name = match &step.name {
            Some(n) => expr::interpolate(n, &scope).with_context(|| format!("name: `{n}`"))?,
            None => step.display_name(),
        };
        if self.timed_out {
            // GitHub would still give `always()` steps of a timed-out job a
            // chance; the rehearsal ends the job at once.
            return Ok(skipped(name, "skipped: the job timed out\n"));
        }
        let condition = step.condition.as_deref().unwrap_or("success()");
        let status_scope = Scope { contexts: &contexts, status: Some(self.status()) };
        let go = expr::condition(condition, &status_scope).with_context(|| format!("if: `{condition}`"))?;
        if !go {
            if let Some(id) = &step.id {
                self.steps.insert(id.clone(), json!({"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}));
            }
            return Ok(skipped(name, ""));
        }
        // The step's env sees the env context without itself; `with:` and
        // `run:` see it with it.
        let mut env = env_before.clone();
        for (k, v) in &step.env {
            let v = expr::interpolate(v, &scope).with_context(|| format!("env.{k}: `{v}`"))?;
            env.retain(|(e, _)| e != k);
            env.push((k.clone(), v));
        }
        let contexts = self.contexts(&env);
        let scope = Scope { contexts: &contexts, status: None };
        let continue_on_error = match &step.continue_on_error {
            Some(c) => {
                expr::truthy(&expr::field_value(c, &scope).with_context(|| format!("continue-on-error: `{c}`"))?)
            }
            None => false,
        };
        let deadline = match &step.timeout_minutes {
            Some(t) => {
                let m = minutes(&expr::field_value(t, &scope).with_context(|| format!("timeout-minutes: `{t}`"))?)?;
                self.deadline.min(start + Duration::from_secs_f64(m * 60.0))
            }
            None => self.deadline,
        };
        let files = StepFiles::create(&self.dirs.files, index)?;
        let secrets_file = self.dirs.files.join(format!("secrets_{index}"));
        std::fs::write(&secrets_file, "")?;
        let log_path = self.dirs.logs.join(format!("{:02}.log", index + 1));
        let mut log = String::new();
        let mut notes = Vec::new();
        let mut action_outputs = Vec::new();

        let failure: Option<String> = match &step.action {
            StepAction::Run { script, shell, working_directory } => {
                let script = expr::interpolate(script, &scope).context("run:")?;
                let cwd = match working_directory {
                    Some(w) => self.dirs.workspace.join(expr::interpolate(w, &scope).context("working-directory")?),
                    None => self.dirs.workspace.clone(),
                };
                let file = self.dirs.temp.join(format!("step-{:02}.sh", index + 1));
                std::fs::write(&file, &script)?;
                if !cwd.is_dir() {
                    Some(format!("working directory {} does not exist", cwd.display()))
                } else {
                    let mut argv: Vec<OsString> = shell.command().iter().map(OsString::from).collect();
                    argv.push(file.into_os_string());
                    let vars = self.process_env(&env, &files, step, index, &[]);
                    self.spawn(&argv, &cwd, &vars, &log_path, deadline)?
                }
            }
            StepAction::Uses { action, with } => {
                let mut with_values = Vec::new();
                for (k, v) in with {
                    with_values
                        .push((k.clone(), expr::interpolate(v, &scope).with_context(|| format!("with.{k}: `{v}`"))?));
                }
                match Action::from_name(&action.name) {
                    None => Some(format!(
                        "{} is not an action the rehearsal can simulate (checkout, upload-artifact, download-artifact, \
                         github-script, attest-build-provenance, attest, cache/save, cache/restore)",
                        action.name
                    )),
                    Some(a) => {
                        a.check_inputs(&with_values).with_context(|| format!("uses: {}", action.name))?;
                        if matches!(a, Action::CacheSave | Action::CacheRestore) {
                            let op = if a == Action::CacheSave { "save" } else { "restore" };
                            self.node_action(op, &with_values, &env, &files, step, index, &log_path, deadline)?
                        } else if a == Action::GithubScript {
                            self.github_script(
                                &with_values,
                                &env,
                                &files,
                                step,
                                index,
                                &secrets_file,
                                &log_path,
                                deadline,
                            )?
                        } else {
                            let mut ctx = actions::Ctx {
                                workspace: &self.dirs.workspace,
                                temp: &self.dirs.temp,
                                repo: &self.shared.settings.repo,
                                repo_files: &self.shared.repo_files,
                                artifacts: &self.shared.artifacts,
                                id_token: self.job.id_token,
                                log: &mut log,
                                outputs: &mut action_outputs,
                                notes: &mut notes,
                            };
                            let outcome = match a {
                                Action::Checkout => actions::checkout(&with_values, &mut ctx),
                                Action::UploadArtifact => actions::upload_artifact(&with_values, &mut ctx),
                                Action::DownloadArtifact => actions::download_artifact(&with_values, &mut ctx),
                                Action::Attest => actions::attest(&with_values, &mut ctx),
                                Action::GithubScript | Action::CacheSave | Action::CacheRestore => {
                                    unreachable!("run above")
                                }
                            }
                            .with_context(|| format!("uses: {}", action.name))?;
                            match outcome {
                                actions::Outcome::Success => None,
                                actions::Outcome::Failure(m) => Some(m),
                            }
                        }
                    }
                }
            }
        };
        // The file commands count whatever the step's end.
        let mut commands = files.read().context("the step's file commands")?;
        commands.outputs.splice(0..0, action_outputs);
        for line in std::fs::read_to_string(&secrets_file)?.lines() {
            if let Ok(Value::String(s)) = serde_json::from_str::<Value>(line) {
                self.masks.push(s);
            }
        }
        let mut text = std::fs::read_to_string(&log_path).unwrap_or_default();
        text.push_str(&log);
        if let Some(f) = &failure {
            let _ = writeln!(text, "##[error]{f}");
        }
        let text = self.mask(&text);
        std::fs::write(&log_path, &text)?;
        for (k, v) in &commands.env {
            self.env.retain(|(e, _)| e != k);
            self.env.push((k.clone(), v.clone()));
        }
        for p in commands.path.into_iter() {
            self.path.insert(0, p);
        }
        summary.push_str(&commands.summary);
        let outcome = if failure.is_some() { Conclusion::Failure } else { Conclusion::Success };
        let conclusion = if continue_on_error { Conclusion::Success } else { outcome };
        if conclusion == Conclusion::Failure {
            self.failed = true;
        }
        if let Some(id) = &step.id {
            let outputs: Map<String, Value> =
                commands.outputs.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            self.steps.insert(
                id.clone(),
                json!({"outputs": outputs, "outcome": outcome.as_str(), "conclusion": conclusion.as_str()}),
            );
        }
        Ok(StepReport { name, id: step.id.clone(), outcome, conclusion, log: text, notes })
    }

    /// The environment of a step's process, later entries winning: what the
    /// machine gives (PATH with GITHUB_PATH's folders first, HOME), the env
    /// context, the test's variables, the runner's own (which a workflow
    /// cannot override), and for JavaScript actions their extras.
    fn process_env(
        &self,
        env: &[(String, String)],
        files: &StepFiles,
        step: &Step,
        index: usize,
        extra: &[(String, String)],
    ) -> Vec<(String, String)> {
        let mut path = self.path.clone();
        path.push(self.host_path.clone());
        let mut vars: Vec<(String, String)> = vec![
            ("PATH".into(), path.join(":")),
            ("HOME".into(), self.dirs.home.display().to_string()),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        vars.extend(env.iter().cloned());
        vars.extend(self.shared.settings.runner_env.iter().cloned());
        let s = self.shared.settings;
        let github = |k: &str| expr::to_text(&self.base["github"][k]);
        let runner: Vec<(&str, String)> = vec![
            ("CI", "true".into()),
            ("GITHUB_ACTIONS", "true".into()),
            ("GITHUB_JOB", self.job.id.clone()),
            ("GITHUB_RUN_ID", s.run_id.to_string()),
            ("GITHUB_RUN_NUMBER", "1".into()),
            ("GITHUB_RUN_ATTEMPT", "1".into()),
            ("GITHUB_REPOSITORY", s.repository.clone()),
            ("GITHUB_REPOSITORY_OWNER", github("repository_owner")),
            ("GITHUB_WORKFLOW", self.shared.wf.name.clone()),
            ("GITHUB_SHA", s.sha.clone()),
            ("GITHUB_REF", github("ref")),
            ("GITHUB_EVENT_NAME", github("event_name")),
            ("GITHUB_SERVER_URL", github("server_url")),
            ("GITHUB_API_URL", github("api_url")),
            ("GITHUB_WORKSPACE", self.dirs.workspace.display().to_string()),
            ("GITHUB_ACTION", step.id.clone().unwrap_or_else(|| format!("__run_{}", index + 1))),
            ("RUNNER_TEMP", self.dirs.temp.display().to_string()),
            ("RUNNER_OS", "Linux".into()),
            ("RUNNER_ARCH", "X64".into()),
            ("RUNNER_NAME", runner_name(&self.job.id)),
        ];
        vars.extend(runner.into_iter().map(|(k, v)| (k.to_string(), v)));
        if self.job.id_token {
            vars.push((
                "ACTIONS_ID_TOKEN_REQUEST_URL".into(),
                format!("http://127.0.0.1:9/rehearsal-oidc?job={}", self.job.id),
            ));
            vars.push(("ACTIONS_ID_TOKEN_REQUEST_TOKEN".into(), oidc_request_token(&self.job.id)));
        }
        vars.extend(files.vars().into_iter().map(|(k, v)| (k.to_string(), v)));
        vars.extend(extra.iter().cloned());
        vars
    }

    /// actions/cache's save or restore entry point (`op`) under node, as
    /// the runner starts a JavaScript action: its inputs as INPUT_*, the
    /// JavaScript-action variables, in the workspace.
    #[allow(clippy::too_many_arguments, reason = "one call site; a struct would only rename them")]
    fn node_action(
        &mut self,
        op: &str,
        with: &[(String, String)],
        env: &[(String, String)],
        files: &StepFiles,
        step: &Step,
        index: usize,
        log_path: &Path,
        deadline: Instant,
    ) -> anyhow::Result<Option<String>> {
        let program = self.shared.settings.repo.join("tests/cache-service/action.mjs");
        let mut extra: Vec<(String, String)> =
            with.iter().map(|(k, v)| (format!("INPUT_{}", k.replace(' ', "_").to_uppercase()), v.clone())).collect();
        extra.extend(self.shared.settings.js_env.iter().cloned());
        let vars = self.process_env(env, files, step, index, &extra);
        let argv = [OsString::from("node"), program.into_os_string(), OsString::from(op)];
        let workspace = self.dirs.workspace.clone();
        self.spawn(&argv, &workspace, &vars, log_path, deadline)
    }

    #[allow(clippy::too_many_arguments, reason = "one call site; a struct would only rename them")]
    fn github_script(
        &mut self,
        with: &[(String, String)],
        env: &[(String, String)],
        files: &StepFiles,
        step: &Step,
        index: usize,
        secrets_file: &Path,
        log_path: &Path,
        deadline: Instant,
    ) -> anyhow::Result<Option<String>> {
        let script =
            with.iter().find(|(k, _)| k == "script").map(|(_, v)| v.as_str()).context("input script is required")?;
        let program = self.dirs.temp.join(format!("step-{:02}.cjs", index + 1));
        std::fs::write(&program, actions::github_script_program(script)?)?;
        let mut extra: Vec<(String, String)> =
            with.iter().map(|(k, v)| (format!("INPUT_{}", k.replace(' ', "_").to_uppercase()), v.clone())).collect();
        extra.extend(self.shared.settings.js_env.iter().cloned());
        extra.push(("REHEARSAL_SECRETS".into(), secrets_file.display().to_string()));
        let vars = self.process_env(env, files, step, index, &extra);
        let argv = [OsString::from("node"), program.into_os_string()];
        let workspace = self.dirs.workspace.clone();
        self.spawn(&argv, &workspace, &vars, log_path, deadline)
    }

    /// Runs a process in the job's OS instance, its output to `log`, in a
    /// process group of its own so that a timeout ends all of it. `None`
    /// when it succeeded, else why the step fails.
    fn spawn(
        &mut self,
        argv: &[OsString],
        cwd: &Path,
        vars: &[(String, String)],
        log: &Path,
        deadline: Instant,
    ) -> anyhow::Result<Option<String>> {
        let out = std::fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
        let mut cmd = self.instance.command(argv);
        cmd.current_dir(cwd)
            .env_clear()
            .envs(vars.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::from(out.try_clone()?))
            .stderr(Stdio::from(out))
            .process_group(0);
        let mut child = cmd.spawn().context("cannot start unshare")?;
        let group = child.id() as i32;
        self.groups.push(group);
        let exit = wait(&mut child, group, deadline)?;
        Ok(match exit {
            Exit::Code(0) => None,
            Exit::Code(instance::SETUP_FAILED)
                if std::fs::read_to_string(log).unwrap_or_default().contains(instance::SETUP_FAILED_MARK) =>
            {
                bail!("{}", std::fs::read_to_string(log).unwrap_or_default().trim())
            }
            Exit::Code(c) => Some(format!("Process completed with exit code {c}.")),
            Exit::Signal => Some("Process was ended by a signal.".into()),
            Exit::TimedOut => {
                self.timed_out = true;
                let minutes = self.job.timeout_minutes.as_deref().unwrap_or("360");
                Some(format!("The job has exceeded the maximum execution time of {minutes} minutes (timeout-minutes)."))
            }
        })
    }

    /// Ends what the job's steps left running, as the runner does at the
    /// end of a job.
    fn end_groups(&mut self) {
        for g in self.groups.drain(..) {
            // SAFETY: kill has no memory effects; a group that is gone
            // answers ESRCH, which is fine.
            unsafe {
                libc::kill(-g, libc::SIGKILL);
            }
        }
    }

    /// The job's `outputs:`, evaluated at its end.
    fn outputs(&self) -> anyhow::Result<Map<String, Value>> {
        let contexts = self.contexts(&self.env);
        let scope = Scope { contexts: &contexts, status: None };
        let mut out = Map::new();
        for (k, v) in &self.job.outputs {
            let text = expr::interpolate(v, &scope).with_context(|| format!("outputs.{k}: `{v}`"))?;
            out.insert(k.clone(), Value::String(text));
        }
        Ok(out)
    }
}

/// Waits for `child` until `deadline`, then kills its process group.
fn wait(child: &mut Child, group: i32, deadline: Instant) -> anyhow::Result<Exit> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(match status.code() {
                Some(c) => Exit::Code(c),
                None => Exit::Signal,
            });
        }
        if Instant::now() >= deadline {
            // SAFETY: as in end_groups.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
            child.wait()?;
            return Ok(Exit::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
