//! A small, faithful subset of GitHub's Actions runner, to rehearse the
//! benchmark workflow (.github/workflows/benchmark.yml) on one machine:
//! the jobs and steps are read from the workflow file itself and run in its
//! order, each job in a simulated OS instance of its own.
//!
//! The stages: `model` (the file → `Workflow`), `expr` (`${{ … }}`), `run`
//! (`Workflow` + `Settings` → `Run`), with `files` (the file commands),
//! `actions` (the simulated actions), `instance` (simulated OS instances),
//! `glob` (artifact path patterns), and two stand-ins for what GitHub
//! provides: `http` (a static file server for the test's collector release)
//! and `azure` (the cache service double's SAS URLs in Azure's form).
//!
//! What it leaves out is refused, not ignored: an unknown workflow key, an
//! expression it cannot evaluate, an action it does not simulate. Jobs run
//! one at a time (GitHub would run independent jobs in parallel; the
//! benchmark workflow chains its jobs); `permissions` is read for
//! `id-token` only (which jobs get the OIDC token double, run.rs), and
//! `concurrency` is read and ignored.

pub(crate) mod actions;
pub(crate) mod azure;
pub(crate) mod expr;
pub(crate) mod files;
pub(crate) mod glob;
pub(crate) mod http;
pub(crate) mod instance;
pub(crate) mod model;
pub(crate) mod run;

pub(crate) use model::Workflow;
