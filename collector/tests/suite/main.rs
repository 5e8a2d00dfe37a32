//! The collector's integration tests, one binary (as cargo, mdBook and
//! ripgrep keep theirs): a module per subject, the support modules shared.
//! The rehearsal of the benchmark workflow (tests/rehearsal.rs) is a binary
//! of its own: its action-method run pins the whole test process to one CPU,
//! as `collector cache prepare` pins a runner's worker, and a collector that
//! another test of this binary started meanwhile would inherit that pin.

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

mod assemble_record;
mod cache;
mod cli;
mod http_cache;
mod internet;
mod interrupted;
mod release_check;
mod submit;
mod workflow_permissions;
