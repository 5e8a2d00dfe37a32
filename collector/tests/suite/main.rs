//! The collector's integration tests, one binary (as cargo, mdBook and
//! ripgrep keep theirs): a module per subject, the support modules shared.
//! The rehearsal's action-method run pins the process it runs in to one CPU,
//! as `collector cache prepare` pins a runner's worker: that test runs again
//! in a child process of this binary (`rehearsal::in_own_process`).
//!
//! Two subjects use the site crate, and only because what they test is that
//! the site accepts what the collector writes: the rehearsal checks the
//! signed result with `site check`'s code and builds the site from it, and
//! `http_cache` checks a build-cache result the same way. Every other module
//! reads results with the format crate alone.

#[path = "../support/azurite.rs"]
mod azurite;
#[path = "../support/common.rs"]
mod common;
#[path = "../../../tests/http-cache/server.rs"]
mod http_cache_server;
#[path = "../../../tests/librespeed/server.rs"]
mod librespeed_server;
#[path = "../support/script.rs"]
mod script;
#[cfg(target_os = "linux")]
#[path = "../support/workflow/mod.rs"]
mod workflow;

mod assemble_record;
mod cache;
mod cli;
mod http_cache;
mod internet;
mod interrupted;
#[cfg(target_os = "linux")]
mod rehearsal;
mod release_check;
mod submit;
mod workflow_permissions;
