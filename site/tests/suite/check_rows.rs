//! `site check`: each job, sample, cell and row once, within what the
//! profile asks for, and no empty OS instance id.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

#[test]
fn a_job_and_its_stages_are_listed_once() {
    let rel = "example/example-linux-x64/2026-11-29-18342215517-1.json";
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/failed-job/results").join(rel);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let jobs = v["provenance"]["jobs"].as_array_mut().unwrap();
    let first = jobs[0].clone();
    jobs.push(first);
    let n = jobs.len() - 1;
    let stage = jobs[0]["stages"][0].clone();
    jobs[0]["stages"].as_array_mut().unwrap().push(stage.clone());
    let m = jobs[0]["stages"].as_array().unwrap().len() - 1;
    let dir = results_dir();
    put(dir.path(), rel, &v);
    let got = problems(dir.path(), &check(dir.path()));
    assert!(
        got.contains(&(
            rel.to_string(),
            format!("$.provenance.jobs[{n}].job"),
            format!("job {} is listed twice; each job of the workflow ends once", v["provenance"]["jobs"][0]["job"])
        )),
        "{got:#?}"
    );
    assert!(
        got.contains(&(
            rel.to_string(),
            format!("$.provenance.jobs[0].stages[{m}]"),
            format!("stage {stage} is listed twice")
        )),
        "{got:#?}"
    );
}

#[test]
fn request_samples_are_no_more_than_requested() {
    assert_eq!(
        problems_after(|v| {
            let first = v["stages"]["internet"]["request"][0].clone();
            v["stages"]["internet"]["request"].as_array_mut().unwrap().push(first);
        }),
        [golden_problem(
            "$.stages.internet.request",
            "6 samples attempted but parameters.internet_request_samples requested 5"
        )]
    );
}

#[test]
fn a_build_cache_cell_is_in_the_grid_and_run_once() {
    assert_eq!(
        problems_after(|v| v["stages"]["http_cache"]["runs"][0]["value_bytes"] = json!(1000)),
        [golden_problem(
            "$.stages.http_cache.runs[0]",
            "1000 bytes over 10 connections is not a cell of the profile's grid (parameters.http_cache_value_bytes × \
             http_cache_connections)"
        )]
    );
    assert_eq!(
        problems_after(|v| {
            let first = v["stages"]["http_cache"]["runs"][0].clone();
            v["stages"]["http_cache"]["runs"].as_array_mut().unwrap().push(first);
        })
        .into_iter()
        .filter(|p| p.1.starts_with("$.stages.http_cache.runs["))
        .collect::<Vec<_>>(),
        [golden_problem(
            &format!(
                "$.stages.http_cache.runs[{}]",
                golden()["stages"]["http_cache"]["runs"].as_array().unwrap().len()
            ),
            "backend \"in-memory\" at 4096 bytes over 10 connections is measured twice; each cell is run once"
        )]
    );
}

#[test]
fn an_os_instance_id_is_never_empty() {
    assert_eq!(
        problems_after(|v| v["stages"]["cache"]["pairs"][0]["restore"]["instance"]["boot_id"] = json!("")),
        [golden_problem(
            "$.stages.cache.pairs[0].restore.instance.boot_id",
            "is empty; the collector writes \"unknown\" where the OS does not tell"
        )]
    );
}

const UBICLOUD: &str = "ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json";
const RBCS: &str = "rbcs/celeron-j3455/2026-11-29-imported-3e8967628238.json";

/// The problems of the committed import at `rel` edited by `edit`.
fn imported_after(rel: &str, edit: impl FnOnce(&mut Value)) -> Vec<(String, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results").join(rel);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut v);
    let dir = results_dir();
    put(dir.path(), rel, &v);
    problems(dir.path(), &check(dir.path()))
}

#[test]
fn an_imported_row_is_listed_once() {
    assert_eq!(
        imported_after(UBICLOUD, |v| {
            let first = v["stages"]["cache"]["backends"][0].clone();
            v["stages"]["cache"]["backends"].as_array_mut().unwrap().push(first);
        }),
        [(
            UBICLOUD.to_string(),
            "$.stages.cache.backends[2]".to_string(),
            "backend \"GitHub Actions cache\" (archive-service) is listed twice; a report lists each backend once"
                .to_string()
        )]
    );
    assert_eq!(
        imported_after(UBICLOUD, |v| v["stages"]["cache"]["backends"] = json!([])),
        [(
            UBICLOUD.to_string(),
            "$.stages.cache.backends".to_string(),
            "is empty; leave out a cache section that has no backend".to_string()
        )]
    );
    assert_eq!(
        imported_after(RBCS, |v| {
            let first = v["stages"]["http_cache"]["tables"][0]["rows"][0].clone();
            v["stages"]["http_cache"]["tables"][0]["rows"].as_array_mut().unwrap().push(first);
        }),
        [(
            RBCS.to_string(),
            "$.stages.http_cache.tables[0].rows[16]".to_string(),
            "backend \"in-memory\" at 128 bytes over 10 connections is listed twice in this table".to_string()
        )]
    );
}
