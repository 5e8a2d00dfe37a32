//! The site's integration tests, one binary (as cargo, mdBook and ripgrep
//! keep theirs): a module per subject, `common` shared by all of them.
//! Built once, linked once.

mod common;

mod allcore_costs;
mod browser;
mod build;
mod build_cache;
mod cache_method;
mod check;
mod check_collector;
mod check_durations;
mod check_figures;
mod check_identity;
mod check_rows;
mod check_then_build;
mod check_time;
mod check_walk;
mod claims;
mod cpu_implementation;
mod cpu_workload;
mod dates;
mod disk_latency;
mod estimate_page;
mod estimate_parallel;
mod flags;
mod history;
mod import;
mod keys;
mod leaders;
mod links;
mod machine_mismatch;
mod netlify;
mod overview;
mod price_chart;
mod protocol;
mod provider_page;
mod ranking;
mod reasons;
mod release_manifest;
mod report;
mod results_check;
mod serve;
mod snapshots;
mod trust;
mod tryout;
mod vcpu_worth;
mod verify_submission;
