//! A workflow file → `Workflow`: the jobs in file order with their steps,
//! checked for what the rehearsal runs. Keys the rehearsal does not
//! implement are refused (`deny_unknown_fields`), so a workflow that starts
//! using one fails the rehearsal instead of being run without it.
//!
//! YAML is read with serde_yaml_ng: YAML 1.2 scalars (`on:` is the string
//! "on", not `true` as in YAML 1.1), anchors and aliases resolved while
//! deserializing (the benchmark workflow shares steps with `steps: &save`
//! and `steps: *save`), and mappings in file order, which the job order's
//! tie-break needs.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_yaml_ng::{Mapping, Value};

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
    Number,
}

#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) id: String,
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

// ------------------------------------------------------- the file's shape

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkflow {
    name: Option<String>,
    #[serde(rename = "run-name")]
    _run_name: Option<Value>,
    on: Value,
    #[serde(default)]
    env: Mapping,
    /// Read for `id-token` only: the rehearsal has no GITHUB_TOKEN to scope.
    #[serde(default)]
    permissions: Option<Value>,
    /// Ignored: the rehearsal runs one job at a time, one run at a time.
    #[serde(default, rename = "concurrency")]
    _concurrency: Option<Value>,
    jobs: Mapping,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawJob {
    #[serde(default, rename = "name")]
    _name: Option<Value>,
    #[serde(default)]
    needs: Option<Value>,
    #[serde(rename = "if")]
    condition: Option<Value>,
    runs_on: Value,
    #[serde(default)]
    env: Mapping,
    #[serde(default)]
    outputs: Mapping,
    timeout_minutes: Option<Value>,
    /// Read for `id-token` only, as the workflow's.
    #[serde(default)]
    permissions: Option<Value>,
    #[serde(default, rename = "concurrency")]
    _concurrency: Option<Value>,
    steps: Vec<RawStep>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawStep {
    name: Option<String>,
    id: Option<String>,
    #[serde(rename = "if")]
    condition: Option<Value>,
    uses: Option<String>,
    run: Option<String>,
    shell: Option<String>,
    #[serde(default)]
    with: Mapping,
    #[serde(default)]
    env: Mapping,
    working_directory: Option<String>,
    continue_on_error: Option<Value>,
    timeout_minutes: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInput {
    #[serde(default, rename = "description")]
    _description: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    required: bool,
    default: Option<Value>,
}

/// A YAML scalar as the text GitHub sees (`60` → "60", `true` → "true").
fn scalar(v: &Value, what: &str) -> anyhow::Result<String> {
    Ok(match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => bail!("{what}: expected a string, number or boolean, found {other:?}"),
    })
}

/// A mapping of names to scalars, in file order.
fn pairs(m: &Mapping, what: &str) -> anyhow::Result<Vec<(String, String)>> {
    m.iter()
        .map(|(k, v)| {
            let k = scalar(k, what)?;
            let v = scalar(v, &format!("{what}.{k}"))?;
            Ok((k, v))
        })
        .collect()
}

/// A string or a list of strings.
fn one_or_many(v: &Value, what: &str) -> anyhow::Result<Vec<String>> {
    match v {
        Value::Sequence(items) => items.iter().map(|i| scalar(i, what)).collect(),
        v => Ok(vec![scalar(v, what)?]),
    }
}

fn is_id(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl Workflow {
    /// Reads and checks a workflow file.
    pub(crate) fn load(path: &Path) -> anyhow::Result<Workflow> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        Workflow::parse(&text, path).with_context(|| format!("{}", path.display()))
    }

    pub(crate) fn parse(text: &str, path: &Path) -> anyhow::Result<Workflow> {
        let raw: RawWorkflow = serde_yaml_ng::from_str(text)?;
        let (inputs, secrets) = workflow_call(&raw.on)?;
        let mut jobs = Vec::new();
        for (id, body) in &raw.jobs {
            let id = scalar(id, "jobs")?;
            if !is_id(&id) {
                bail!("job id {id:?}: letters, digits, `_` and `-`, starting with a letter or `_`");
            }
            let raw_job: RawJob = serde_yaml_ng::from_value(body.clone()).with_context(|| format!("job {id}"))?;
            let id_token = id_token(raw_job.permissions.as_ref().or(raw.permissions.as_ref()))
                .with_context(|| format!("job {id}: permissions"))?;
            let mut job = job(&id, raw_job).with_context(|| format!("job {id}"))?;
            job.id_token = id_token;
            jobs.push(job);
        }
        let wf = Workflow {
            name: raw.name.unwrap_or_else(|| path.display().to_string()),
            env: pairs(&raw.env, "env")?,
            inputs,
            secrets,
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

/// The inputs and secrets of `on.workflow_call`.
fn workflow_call(on: &Value) -> anyhow::Result<(Vec<InputSpec>, Vec<String>)> {
    let Some(call) = on.get("workflow_call") else {
        bail!("on: the rehearsal runs reusable workflows, and this one has no `workflow_call` trigger");
    };
    let mut inputs = Vec::new();
    if let Some(m) = call.get("inputs").and_then(Value::as_mapping) {
        for (name, spec) in m {
            let name = scalar(name, "on.workflow_call.inputs")?;
            let raw: RawInput =
                serde_yaml_ng::from_value(spec.clone()).with_context(|| format!("on.workflow_call.inputs.{name}"))?;
            let kind = match raw.kind.as_str() {
                "string" => InputKind::String,
                "boolean" => InputKind::Boolean,
                "number" => InputKind::Number,
                other => bail!("on.workflow_call.inputs.{name}: type {other:?} is not string, boolean or number"),
            };
            let default = raw.default.as_ref().map(|d| scalar(d, &name)).transpose()?;
            inputs.push(InputSpec { name, kind, required: raw.required, default });
        }
    }
    let secrets = match call.get("secrets").and_then(Value::as_mapping) {
        Some(m) => m.keys().map(|k| scalar(k, "on.workflow_call.secrets")).collect::<anyhow::Result<_>>()?,
        None => Vec::new(),
    };
    Ok((inputs, secrets))
}

/// Whether `permissions` lets the job request an OIDC token. None (no
/// `permissions:` anywhere) is the caller's default token, which has no
/// `id-token` scope; `write-all` has it.
fn id_token(permissions: Option<&Value>) -> anyhow::Result<bool> {
    Ok(match permissions {
        None => false,
        Some(Value::String(s)) if s == "write-all" => true,
        Some(Value::String(s)) if s == "read-all" => false,
        Some(Value::Mapping(m)) => match m.get("id-token").map(|v| scalar(v, "id-token")).transpose()?.as_deref() {
            Some("write") => true,
            None | Some("none") | Some("read") => false,
            Some(other) => bail!("id-token: {other:?} is not write, read or none"),
        },
        Some(other) => bail!("{other:?} is neither a mapping nor read-all/write-all"),
    })
}

fn job(id: &str, raw: RawJob) -> anyhow::Result<Job> {
    let mut steps = Vec::new();
    let mut ids = BTreeSet::new();
    if raw.steps.is_empty() {
        bail!("has no steps");
    }
    for (i, s) in raw.steps.into_iter().enumerate() {
        let step = step(s).with_context(|| format!("step {}", i + 1))?;
        if let Some(sid) = &step.id
            && !ids.insert(sid.clone())
        {
            bail!("step {}: id {sid} is used by an earlier step", i + 1);
        }
        steps.push(step);
    }
    Ok(Job {
        id: id.to_string(),
        needs: raw.needs.as_ref().map(|n| one_or_many(n, "needs")).transpose()?.unwrap_or_default(),
        condition: raw.condition.as_ref().map(|c| scalar(c, "if")).transpose()?,
        runs_on: one_or_many(&raw.runs_on, "runs-on")?,
        env: pairs(&raw.env, "env")?,
        outputs: pairs(&raw.outputs, "outputs")?,
        timeout_minutes: raw.timeout_minutes.as_ref().map(|t| scalar(t, "timeout-minutes")).transpose()?,
        steps,
        id_token: false,
    })
}

fn step(raw: RawStep) -> anyhow::Result<Step> {
    if let Some(id) = &raw.id
        && !is_id(id)
    {
        bail!("id {id:?}: letters, digits, `_` and `-`, starting with a letter or `_`");
    }
    let action = match (raw.run, raw.uses) {
        (Some(script), None) => {
            if !raw.with.is_empty() {
                bail!("`with:` belongs to `uses:` steps, and this step has `run:`");
            }
            let shell = match raw.shell.as_deref() {
                None => Shell::Default,
                Some("bash") => Shell::Bash,
                Some(other) => bail!("shell {other:?}: the rehearsal runs `bash` only"),
            };
            StepAction::Run { script, shell, working_directory: raw.working_directory }
        }
        (None, Some(uses)) => {
            if raw.shell.is_some() || raw.working_directory.is_some() {
                bail!("`shell:` and `working-directory:` belong to `run:` steps, and this step has `uses:`");
            }
            StepAction::Uses { action: action_ref(&uses)?, with: pairs(&raw.with, "with")? }
        }
        (Some(_), Some(_)) => bail!("has both `run:` and `uses:`"),
        (None, None) => bail!("has neither `run:` nor `uses:`"),
    };
    Ok(Step {
        name: raw.name,
        id: raw.id,
        condition: raw.condition.as_ref().map(|c| scalar(c, "if")).transpose()?,
        env: pairs(&raw.env, "env")?,
        continue_on_error: raw.continue_on_error.as_ref().map(|c| scalar(c, "continue-on-error")).transpose()?,
        timeout_minutes: raw.timeout_minutes.as_ref().map(|t| scalar(t, "timeout-minutes")).transpose()?,
        action,
    })
}

/// `owner/repo[/path]@ref`, the ref a full commit SHA: the project pins
/// every action to a commit, since a tag can be moved to other code.
fn action_ref(uses: &str) -> anyhow::Result<ActionRef> {
    if uses.starts_with("./") || uses.starts_with("docker://") {
        bail!("uses: {uses}: local and Docker actions are not supported by the rehearsal");
    }
    let Some((name, sha)) = uses.split_once('@') else {
        bail!("uses: {uses}: no `@<commit>`");
    };
    if sha.len() != 40 || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        bail!("uses: {uses}: not pinned to a full commit SHA (40 lowercase hex digits), as the project requires");
    }
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
        assert!(
            err(&format!("{base}      - run: x\n        shell: pwsh\n"))
                .ends_with("shell \"pwsh\": the rehearsal runs `bash` only")
        );
        assert!(
            err(&format!("{base}      - run: x\n    strategy: {{}}\n")).starts_with("job a: unknown field `strategy`")
        );
        assert!(err(&format!("{base}      - run: x\n        retries: 2\n")).contains("unknown field `retries`"));
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
