//! A workflow file → `Workflow`: the jobs in file order with their steps,
//! narrowed to what the rehearsal runs. github-actions-models (zizmor's
//! workflow types) reads the file's shape; this module only refuses what
//! the rehearsal does not implement and keeps the fields' text, which
//! run.rs evaluates (expr.rs).
//!
//! The models accept every key GitHub knows and ignore the rest, so the
//! keys are checked first against the ones the rehearsal runs (`KEYS`): a
//! workflow that starts using another fails the rehearsal instead of being
//! run without it. YAML is read with serde_yaml_ng: YAML 1.2 scalars (`on:`
//! is the string "on", not `true` as in YAML 1.1), anchors and aliases
//! resolved (the benchmark workflow shares steps with `steps: &save` and
//! `steps: *save`), mappings in file order, which the job order's tie-break
//! needs.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, bail};
use github_actions_models::common::expr::{BoE, LoE};
use github_actions_models::common::{Env, If, Permission, Permissions, Uses};
use github_actions_models::workflow::event::{OptionalBody, WorkflowCallInputType};
use github_actions_models::workflow::job::{NormalJob, RunsOn, Step as RawStep};
use github_actions_models::workflow::{self as gha};
use serde_yaml_ng::Value;

/// A parsed workflow.
#[derive(Debug)]
pub(crate) struct Workflow {
    pub(crate) name: String,
    pub(crate) env: Vec<(String, String)>,
    /// `on.workflow_call.inputs`, in file order.
    pub(crate) inputs: Vec<InputSpec>,
    /// `on.workflow_call.secrets`.
    pub(crate) secrets: Vec<String>,
    /// In file order.
    pub(crate) jobs: Vec<Job>,
}

/// One input of the reusable workflow.
#[derive(Debug)]
pub(crate) struct InputSpec {
    pub(crate) name: String,
    pub(crate) kind: InputKind,
    pub(crate) required: bool,
    pub(crate) default: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputKind {
    String,
    Boolean,
}

#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) id: String,
    /// `name:` as written; GitHub shows (and its API lists) the job by it.
    pub(crate) name: Option<String>,
    pub(crate) needs: Vec<String>,
    pub(crate) condition: Option<String>,
    pub(crate) runs_on: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) outputs: Vec<(String, String)>,
    pub(crate) timeout_minutes: Option<String>,
    pub(crate) steps: Vec<Step>,
    /// Whether the job may request an OIDC token (`id-token: write`, its
    /// own `permissions:` or else the workflow's): the runner then gives
    /// every step ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN.
    pub(crate) id_token: bool,
    /// Whether the job's token may read the repository's Actions data
    /// (`actions: read` or `write`, or `read-all`/`write-all`): the GitHub
    /// double lists a run's jobs only to such a token.
    pub(crate) actions_read: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) name: Option<String>,
    pub(crate) id: Option<String>,
    pub(crate) condition: Option<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) continue_on_error: Option<String>,
    pub(crate) timeout_minutes: Option<String>,
    pub(crate) action: StepAction,
}

#[derive(Debug, Clone)]
pub(crate) enum StepAction {
    Run { script: String, shell: Shell, working_directory: Option<String> },
    Uses { action: ActionRef, with: Vec<(String, String)> },
}

/// The shells the rehearsal runs, with GitHub's command lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shell {
    /// No `shell:` on Linux: `bash -e {0}`.
    Default,
    /// `shell: bash`: `bash --noprofile --norc -eo pipefail {0}`.
    Bash,
}

impl Shell {
    /// The command line before the script file.
    pub(crate) fn command(self) -> &'static [&'static str] {
        match self {
            Shell::Default => &["bash", "-e"],
            Shell::Bash => &["bash", "--noprofile", "--norc", "-eo", "pipefail"],
        }
    }
}

/// `owner/repo[/path]@<sha>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActionRef {
    /// What precedes `@`, e.g. `actions/checkout`.
    pub(crate) name: String,
    pub(crate) sha: String,
}

impl Step {
    /// The script of a `run:` step, as written (before `${{ … }}`).
    pub(crate) fn script(&self) -> Option<&str> {
        match &self.action {
            StepAction::Run { script, .. } => Some(script),
            StepAction::Uses { .. } => None,
        }
    }

    /// What the step is called in the log: its name, else what it runs.
    pub(crate) fn display_name(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        match &self.action {
            StepAction::Run { script, .. } => format!("Run {}", script.lines().next().unwrap_or("")),
            StepAction::Uses { action, .. } => format!("Run {}", action.name),
        }
    }
}

/// The keys the rehearsal runs, where they may stand; `run:` and `uses:`
/// steps each add their own. (`concurrency` is read and ignored: the
/// rehearsal runs one job at a time, one run at a time; `permissions` is
/// read for `id-token` only.)
const KEYS: &[(&str, &[&str])] = &[
    ("workflow", &["name", "run-name", "on", "env", "permissions", "concurrency", "jobs"]),
    (
        "job",
        &["name", "needs", "if", "runs-on", "env", "outputs", "timeout-minutes", "permissions", "concurrency", "steps"],
    ),
    ("step", &["name", "id", "if", "env", "continue-on-error", "timeout-minutes"]),
    ("run", &["run", "shell", "working-directory"]),
    ("uses", &["uses", "with"]),
    ("input", &["description", "type", "required", "default"]),
];

/// Refuses a key of mapping `v` outside the `KEYS` of `kinds`.
fn known_keys(v: &Value, kinds: &[&str]) -> anyhow::Result<()> {
    let allowed = || KEYS.iter().filter(|(k, _)| kinds.contains(k)).flat_map(|(_, keys)| keys.iter());
    for key in v.as_mapping().map(|m| m.keys()).into_iter().flatten() {
        let key = key.as_str().unwrap_or_default();
        if !allowed().any(|k| *k == key) {
            bail!("`{key}` is not a key the rehearsal runs");
        }
    }
    Ok(())
}

/// Checks every key of the file, before the models ignore some.
fn check_keys(doc: &Value) -> anyhow::Result<()> {
    known_keys(doc, &["workflow"])?;
    for (name, input) in doc["on"]["workflow_call"]["inputs"].as_mapping().into_iter().flatten() {
        let name = name.as_str().unwrap_or_default();
        known_keys(input, &["input"]).with_context(|| format!("on.workflow_call.inputs.{name}"))?;
    }
    for (id, job) in doc.get("jobs").and_then(Value::as_mapping).into_iter().flatten() {
        let id = id.as_str().unwrap_or_default();
        known_keys(job, &["job"]).with_context(|| format!("job {id}"))?;
        for (i, step) in job.get("steps").and_then(Value::as_sequence).into_iter().flatten().enumerate() {
            let kind = match (step.get("run"), step.get("uses")) {
                (Some(_), None) => "run",
                (None, Some(_)) => "uses",
                (Some(_), Some(_)) => bail!("job {id}: step {}: has both `run:` and `uses:`", i + 1),
                (None, None) => bail!("job {id}: step {}: has neither `run:` nor `uses:`", i + 1),
            };
            known_keys(step, &["step", kind]).with_context(|| format!("job {id}: step {}", i + 1))?;
        }
    }
    Ok(())
}

/// A field that is a literal or one `${{ … }}`, as the text run.rs evaluates.
fn text<T: ToString>(v: &LoE<T>) -> String {
    match v {
        LoE::Expr(e) => e.as_raw().to_string(),
        LoE::Literal(l) => l.to_string(),
    }
}

/// A mapping of names to values, in file order, as text.
fn pairs(env: &Env) -> Vec<(String, String)> {
    env.iter().map(|(k, v)| (k.clone(), v.to_string())).collect()
}

/// `pairs` of a mapping that may also be one `${{ … }}`, which the
/// rehearsal refuses (nothing it runs needs it).
fn literal_pairs(env: &LoE<Env>, what: &str) -> anyhow::Result<Vec<(String, String)>> {
    match env {
        LoE::Literal(m) => Ok(pairs(m)),
        LoE::Expr(e) => bail!("{what}: {}: a whole mapping from one expression is not supported", e.as_raw()),
    }
}

fn condition(c: &Option<If>) -> Option<String> {
    c.as_ref().map(|c| match c {
        If::Bool(b) => b.to_string(),
        If::Expr(e) => e.clone(),
    })
}

impl Workflow {
    /// Reads and checks a workflow file.
    pub(crate) fn load(path: &Path) -> anyhow::Result<Workflow> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        Workflow::parse(&text, path).with_context(|| format!("{}", path.display()))
    }

    pub(crate) fn parse(text: &str, path: &Path) -> anyhow::Result<Workflow> {
        let doc: Value = serde_yaml_ng::from_str(text)?;
        check_keys(&doc)?;
        let raw: gha::Workflow = serde_yaml_ng::from_value(doc.clone())?;
        let OptionalBody::Body(call) = &raw.on.events.workflow_call else {
            bail!("on: the rehearsal runs reusable workflows, and this one has no `workflow_call` trigger");
        };
        // The models leave an input's `default` out; it is read from the file.
        let default = |name: &str| {
            let d = &doc["on"]["workflow_call"]["inputs"][name]["default"];
            match d {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => Some(serde_yaml_ng::to_string(other).unwrap_or_default().trim().to_string()),
            }
        };
        let mut inputs = Vec::new();
        for (name, i) in &call.inputs {
            let kind = match i.r#type {
                WorkflowCallInputType::String => InputKind::String,
                WorkflowCallInputType::Boolean => InputKind::Boolean,
                // No workflow the rehearsal runs has one.
                WorkflowCallInputType::Number => {
                    bail!("on.workflow_call.inputs.{name}: number inputs are not supported")
                }
            };
            inputs.push(InputSpec { name: name.clone(), kind, required: i.required, default: default(name) });
        }
        let mut jobs = Vec::new();
        for (id, j) in &raw.jobs {
            let gha::Job::NormalJob(j) = j else {
                bail!("job {id}: calls a reusable workflow, which the rehearsal does not")
            };
            let permissions = if j.permissions == Permissions::default() { &raw.permissions } else { &j.permissions };
            jobs.push(job(id, j, permissions).with_context(|| format!("job {id}"))?);
        }
        let wf = Workflow {
            name: raw.name.clone().unwrap_or_else(|| path.display().to_string()),
            env: literal_pairs(&raw.env, "env")?,
            inputs,
            secrets: call.secrets.keys().cloned().collect(),
            jobs,
        };
        wf.check_needs()?;
        Ok(wf)
    }

    /// Every `needs` names an earlier-defined or later job of this file, and
    /// the graph has no cycle (`order` finds one).
    fn check_needs(&self) -> anyhow::Result<()> {
        for j in &self.jobs {
            for n in &j.needs {
                if !self.jobs.iter().any(|o| &o.id == n) {
                    bail!("job {}: needs {n}, which is not a job of this workflow", j.id);
                }
            }
        }
        self.order().map(|_| ())
    }

    pub(crate) fn job(&self, id: &str) -> Option<&Job> {
        self.jobs.iter().find(|j| j.id == id)
    }

    /// The jobs in the order the rehearsal runs them: a job after everything
    /// it needs, and among the jobs that could run next, the first in the
    /// file. (GitHub runs ready jobs in parallel; the benchmark workflow
    /// chains its jobs, so one at a time is the same order.)
    pub(crate) fn order(&self) -> anyhow::Result<Vec<&Job>> {
        let mut done: Vec<&Job> = Vec::new();
        while done.len() < self.jobs.len() {
            let ready = self.jobs.iter().find(|j| {
                !done.iter().any(|d| d.id == j.id) && j.needs.iter().all(|n| done.iter().any(|d| &d.id == n))
            });
            match ready {
                Some(j) => done.push(j),
                None => {
                    let left: Vec<&str> = self
                        .jobs
                        .iter()
                        .filter(|j| !done.iter().any(|d| d.id == j.id))
                        .map(|j| j.id.as_str())
                        .collect();
                    bail!("the needs of jobs {} form a cycle", left.join(", "));
                }
            }
        }
        Ok(done)
    }

    /// The jobs `id` needs, directly or through others.
    pub(crate) fn ancestors(&self, id: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![id.to_string()];
        while let Some(j) = todo.pop() {
            for n in self.job(&j).map(|j| j.needs.as_slice()).unwrap_or_default() {
                if seen.insert(n.clone()) {
                    todo.push(n.clone());
                }
            }
        }
        seen
    }

    /// Every action the workflow uses, with where.
    pub(crate) fn actions(&self) -> Vec<(String, &ActionRef)> {
        let mut out = Vec::new();
        for j in &self.jobs {
            for (i, s) in j.steps.iter().enumerate() {
                if let StepAction::Uses { action, .. } = &s.action {
                    out.push((format!("job {} step {} ({})", j.id, i + 1, s.display_name()), action));
                }
            }
        }
        out
    }
}

/// Whether `permissions` lets the job request an OIDC token: `id-token:
/// write`, or `write-all`. The default (no `permissions:` anywhere) is the
/// caller's token, which has no `id-token` scope.
fn id_token(permissions: &Permissions) -> bool {
    match permissions {
        Permissions::Base(base) => *base == github_actions_models::common::BasePermission::WriteAll,
        Permissions::Explicit(m) => m.get("id-token") == Some(&Permission::Write),
    }
}

/// Whether `permissions` lets the job's token read Actions data (a run's
/// jobs). The default (no `permissions:` anywhere) is the caller's token,
/// which the rehearsal treats as granting nothing.
fn actions_read(permissions: &Permissions) -> bool {
    match permissions {
        Permissions::Base(base) => *base != github_actions_models::common::BasePermission::Default,
        Permissions::Explicit(m) => matches!(m.get("actions"), Some(Permission::Read | Permission::Write)),
    }
}

fn job(id: &str, raw: &NormalJob, permissions: &Permissions) -> anyhow::Result<Job> {
    if raw.steps.is_empty() {
        bail!("has no steps");
    }
    let runs_on = match &raw.runs_on {
        LoE::Expr(e) => vec![e.as_raw().to_string()],
        LoE::Literal(RunsOn::Target(labels)) => labels.clone(),
        LoE::Literal(RunsOn::Group { .. }) => bail!("runs-on: a literal group is not supported by the rehearsal"),
    };
    let steps = raw.steps.iter().enumerate().map(|(i, s)| step(s).with_context(|| format!("step {}", i + 1)));
    Ok(Job {
        id: id.to_string(),
        name: raw.name.clone(),
        needs: raw.needs.clone(),
        condition: condition(&raw.r#if),
        runs_on,
        env: literal_pairs(&raw.env, "env")?,
        outputs: pairs(&raw.outputs),
        timeout_minutes: raw.timeout_minutes.as_ref().map(text),
        steps: steps.collect::<anyhow::Result<_>>()?,
        id_token: id_token(permissions),
        actions_read: actions_read(permissions),
    })
}

fn step(raw: &RawStep) -> anyhow::Result<Step> {
    let (shared, action) = match raw {
        RawStep::Run(r) => {
            let shell = match r.shell.as_ref().map(text).as_deref() {
                None => Shell::Default,
                Some("bash") => Shell::Bash,
                Some(other) => bail!("shell {other:?}: the rehearsal runs `bash` only"),
            };
            let action =
                StepAction::Run { script: r.run.clone(), shell, working_directory: r.working_directory.clone() };
            (&r.shared, action)
        }
        RawStep::Uses(u) => {
            (&u.shared, StepAction::Uses { action: action_ref(&u.uses)?, with: literal_pairs(&u.with, "with")? })
        }
        _ => bail!("only `run:` and `uses:` steps are supported by the rehearsal"),
    };
    Ok(Step {
        name: shared.name.clone(),
        id: shared.id.clone(),
        condition: condition(&shared.r#if),
        env: literal_pairs(&shared.env, "env")?,
        continue_on_error: match &shared.continue_on_error {
            BoE::Literal(false) => None,
            c => Some(text(c)),
        },
        timeout_minutes: shared.timeout_minutes.as_ref().map(text),
        action,
    })
}

/// `owner/repo[/path]@ref`, the ref a full commit SHA: the project pins
/// every action to a commit, since a tag can be moved to other code.
fn action_ref(uses: &Uses) -> anyhow::Result<ActionRef> {
    let Uses::Repository(r) = uses else {
        bail!("uses: {}: local and Docker actions are not supported by the rehearsal", uses.raw());
    };
    let sha = r.git_ref();
    if sha.len() != 40 || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        bail!("uses: {}: not pinned to a full commit SHA (40 lowercase hex digits), as the project requires", r.raw());
    }
    let name = r.raw().split_once('@').map_or(r.raw(), |(n, _)| n);
    Ok(ActionRef { name: name.to_string(), sha: sha.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

    fn parse(text: &str) -> anyhow::Result<Workflow> {
        Workflow::parse(&text.replace("SHA", SHA), Path::new("test.yml"))
    }

    const SHARED: &str = "
on:
  workflow_call:
    inputs:
      profile: { type: string, default: standard }
      flag: { type: boolean, required: true }
    secrets:
      token: { required: false }
jobs:
  b:
    needs: a
    runs-on: x
    steps: &two
      - uses: actions/checkout@SHA
        with: { path: p, fetch-depth: 1 }
      - id: one
        run: echo 1
        shell: bash
  a:
    runs-on: [self-hosted, x]
    timeout-minutes: 5
    steps: *two
  c:
    needs: [a, b]
    if: always()
    runs-on: x
    steps:
      - run: echo
";

    #[test]
    fn reads_anchors_inputs_and_order() {
        let wf = parse(SHARED).unwrap();
        let ids: Vec<&str> = wf.order().unwrap().iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        let (a, b) = (wf.job("a").unwrap(), wf.job("b").unwrap());
        assert_eq!(a.steps.len(), 2);
        assert_eq!(b.steps[1].id.as_deref(), Some("one"));
        assert_eq!(a.runs_on, ["self-hosted", "x"]);
        assert_eq!(a.timeout_minutes.as_deref(), Some("5"));
        assert!(matches!(&a.steps[0].action, StepAction::Uses { action, with }
            if action.name == "actions/checkout" && with == &[("path".into(), "p".into()), ("fetch-depth".into(), "1".into())]));
        assert!(matches!(&a.steps[1].action, StepAction::Run { shell: Shell::Bash, .. }));
        assert_eq!(wf.job("c").unwrap().needs, ["a", "b"]);
        assert_eq!(wf.ancestors("c"), BTreeSet::from(["a".to_string(), "b".to_string()]));
        let names: Vec<(&str, InputKind, bool, Option<&str>)> =
            wf.inputs.iter().map(|i| (i.name.as_str(), i.kind, i.required, i.default.as_deref())).collect();
        assert_eq!(
            names,
            [("profile", InputKind::String, false, Some("standard")), ("flag", InputKind::Boolean, true, None)]
        );
        assert_eq!(wf.secrets, ["token"]);
    }

    #[test]
    fn refuses_what_it_does_not_run() {
        let err = |text: &str| format!("{:#}", parse(text).unwrap_err());
        let base = "on: { workflow_call: {} }\njobs:\n  a:\n    runs-on: x\n    steps:\n";
        assert_eq!(
            err(&format!("{base}      - uses: actions/checkout@v4\n")),
            "job a: step 1: uses: actions/checkout@v4: not pinned to a full commit SHA (40 lowercase hex digits), \
             as the project requires"
        );
        assert_eq!(
            err(&format!("{base}      - run: x\n        shell: pwsh\n")),
            "job a: step 1: shell \"pwsh\": the rehearsal runs `bash` only"
        );
        assert_eq!(
            err(&format!("{base}      - run: x\n    strategy: {{}}\n")),
            "job a: `strategy` is not a key the rehearsal runs"
        );
        assert_eq!(
            err(&format!("{base}      - run: x\n        retries: 2\n")),
            "job a: step 1: `retries` is not a key the rehearsal runs"
        );
        assert_eq!(
            err("on: { workflow_call: { inputs: { n: { type: number } } } }\njobs: {}\n"),
            "on.workflow_call.inputs.n: number inputs are not supported"
        );
        assert_eq!(
            err(&format!("{base}      - run: x\n        with: {{ a: 1 }}\n")),
            "job a: step 1: `with` is not a key the rehearsal runs"
        );
        assert_eq!(
            err(&format!("{base}      - run: x\n  b:\n    needs: z\n    runs-on: x\n    steps: [{{run: x}}]\n")),
            "job b: needs z, which is not a job of this workflow"
        );
        assert_eq!(
            err(
                "on: { workflow_call: {} }\njobs:\n  a: { needs: b, runs-on: x, steps: [{run: x}] }\n  b: { needs: a, runs-on: x, steps: [{run: x}] }\n"
            ),
            "the needs of jobs a, b form a cycle"
        );
    }
}
