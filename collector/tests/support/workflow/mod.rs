//! A small, faithful subset of GitHub's Actions runner, to rehearse the
//! benchmark workflow (.github/workflows/benchmark.yml) on one machine:
//! the jobs and steps are read from the workflow file itself and run in its
//! order, each job in a simulated OS instance of its own.
//!
//! The whole face, as tests/suite/rehearsal.rs uses it:
//!
//! ```ignore
//! let wf = Workflow::load(Path::new(".github/workflows/benchmark.yml"))?;
//! let ids: Vec<&str> = wf.order()?.iter().map(|j| j.id.as_str()).collect();
//! let script = wf.job("attest").unwrap().steps[0].script(); // as written
//! let run: Run = wf.run(&settings)?; // every job, in order
//! assert_eq!(run.job("attest").conclusion, Conclusion::Success);
//! let holds = wf.job_runs(&settings, "attest", &[("assemble", Conclusion::Failure)])?;
//! let labels = evaluate("${{ fromJSON(inputs.runs-on) }}", &contexts)?;
//! ```
//!
//! (`Workflow::parse` reads a workflow's text, `actions()` lists every
//! `uses:`.) `Settings` says what the run gets (inputs, secrets, the runner's
//! variables, the files upstream serves, injected `Fault`s); `Run` holds a
//! `JobReport` per job. Stand-ins for what GitHub provides come with it:
//! the GitHub double every run starts (github.rs: the REST API's list of the
//! run's jobs, the contents API and release downloads, at `github.api_url`
//! and `github.server_url`), `FileServer` (a static file server for the
//! test's collector release) and `CacheFront` with `blob_host` (the cache
//! service double's SAS URLs in Azure's form).
//!
//! Inside: `model` (the file → `Workflow`, over github-actions-models),
//! `expr` (`${{ … }}`, over github-actions-expressions), `run` (`Workflow`
//! and `Settings` → `Run`), with `files` (the file commands), `actions`
//! (the simulated actions), `instance` (simulated OS instances) and `glob`
//! (artifact path patterns, over globset).
//!
//! What it leaves out is refused, not ignored: a workflow key it does not
//! run, an expression it cannot evaluate, an action it does not simulate.
//! Jobs run one at a time (GitHub would run independent jobs in parallel;
//! the benchmark workflow chains its jobs); `permissions` is read for
//! `id-token` (which jobs get the OIDC token double, run.rs) and `actions`
//! (whose token the GitHub double lets list the run's jobs) only, and
//! `concurrency` is read and ignored.

mod actions;
mod azure;
mod expr;
mod files;
mod github;
mod glob;
mod http;
mod instance;
mod model;
mod run;

pub(crate) use azure::{CacheFront, blob_host};
pub(crate) use http::FileServer;
pub(crate) use model::Workflow;
pub(crate) use run::{Conclusion, Fault, JobReport, Run, Settings};

/// Evaluates a field's text (`${{ … }}` in text, or one expression alone,
/// which keeps its value's type) where only `contexts` exist, as run.rs
/// evaluates `runs-on`.
pub(crate) fn evaluate(
    text: &str,
    contexts: &serde_json::Map<String, serde_json::Value>,
) -> anyhow::Result<serde_json::Value> {
    expr::field_value(text, &expr::Scope { contexts, status: None })
}
