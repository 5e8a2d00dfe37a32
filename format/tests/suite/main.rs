//! The format crate's integration tests, one binary: a module per subject.

mod binary_and_jobs;
mod contract;
mod cpu_allcore;
mod reject;
mod run_record;
