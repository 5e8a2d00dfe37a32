//! Who may sign in the benchmark workflow (.github/workflows/benchmark.yml).
//!
//! The runner puts ACTIONS_ID_TOKEN_REQUEST_URL and
//! ACTIONS_ID_TOKEN_REQUEST_TOKEN into every step of a job that holds
//! `id-token: write` (actions/runner), `run:` steps included, and a token
//! minted there names benchmark.yml as its workflow, as the `attest` job's
//! does. So only `attest`, which checks out nothing and runs no script of
//! the caller's choosing, may hold it; every other job runs code from the
//! inputs' repository and ref (docs/running.md, "What an attestation
//! proves").

use std::path::Path;

use serde_yaml_ng::Value;

fn workflow(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.github/workflows").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    // Aliases (`permissions: *cache-permissions`) are resolved on reading.
    serde_yaml_ng::from_str(&text).unwrap()
}

/// What a `permissions:` value grants `scope`: "none", "read" or "write".
/// `read-all` and `write-all` grant every scope; a mapping grants what it
/// names and nothing else.
fn grant(permissions: &Value, scope: &str) -> String {
    match permissions {
        Value::String(s) if s == "write-all" => "write".into(),
        Value::String(s) if s == "read-all" => "read".into(),
        Value::Mapping(m) => m.get(scope).and_then(Value::as_str).unwrap_or("none").to_string(),
        other => panic!("permissions: {other:?} is neither a mapping nor read-all/write-all"),
    }
}

/// Each job's id and what it grants `scope`: its own `permissions:`, else
/// the workflow's.
fn grants(wf: &Value, scope: &str) -> Vec<(String, String)> {
    let top = wf.get("permissions");
    let jobs = wf.get("jobs").and_then(Value::as_mapping).expect("jobs");
    jobs.iter()
        .map(|(id, job)| {
            let id = id.as_str().unwrap().to_string();
            let p = job.get("permissions").or(top).unwrap_or_else(|| {
                panic!("job {id} and the workflow name no permissions: the caller's default token would apply")
            });
            (id, grant(p, scope))
        })
        .collect()
}

#[test]
fn only_the_attest_job_may_request_an_oidc_token() {
    let wf = workflow("benchmark.yml");
    // The workflow grants nothing; each job what it names.
    assert_eq!(wf.get("permissions").and_then(Value::as_mapping).map(|m| m.len()), Some(0));
    let signing: Vec<String> =
        grants(&wf, "id-token").into_iter().filter(|(_, g)| g == "write").map(|(id, _)| id).collect();
    assert_eq!(signing, ["attest"], "jobs that may request an OIDC token");
    // Storing attestations goes with it.
    let storing: Vec<String> =
        grants(&wf, "attestations").into_iter().filter(|(_, g)| g == "write").map(|(id, _)| id).collect();
    assert_eq!(storing, ["attest"]);
}

#[test]
fn the_attest_job_runs_no_checked_out_code() {
    let wf = workflow("benchmark.yml");
    let attest = &wf["jobs"]["attest"];
    // No job container or services whose image the inputs could choose, on
    // a GitHub-hosted runner (the certificate's runner environment says so).
    assert!(attest.get("container").is_none() && attest.get("services").is_none());
    assert_eq!(attest["runs-on"].as_str(), Some("ubuntu-24.04"));
    let steps = attest["steps"].as_sequence().unwrap();
    for s in steps {
        if let Some(uses) = s.get("uses").and_then(Value::as_str) {
            let action = uses.split('@').next().unwrap();
            assert!(
                ["actions/download-artifact", "actions/attest-build-provenance", "actions/attest"].contains(&action),
                "attest uses {uses}"
            );
        }
        if let Some(run) = s.get("run").and_then(Value::as_str) {
            // Inline code of the signed workflow only: no script of the
            // checkout (there is none) and no expression in the code.
            assert!(!run.contains("runner-bench/") && !run.contains("${{"), "attest runs {run}");
        }
    }
    // It signs the digest assemble computed, not whatever file it finds.
    let sign =
        steps.iter().find(|s| s.get("uses").and_then(Value::as_str).is_some_and(|u| u.contains("attest"))).unwrap();
    assert!(sign["with"].get("subject-path").is_none());
    assert!(sign["with"]["subject-digest"].as_str().unwrap().contains("needs.assemble.outputs.sha256"));
}

#[test]
fn no_other_workflow_lets_a_pull_request_sign() {
    // ci.yml runs the pull request's code, and results.yml reads its files
    // with the base's token: no job of either may sign or write.
    for name in ["ci.yml", "results.yml"] {
        let wf = workflow(name);
        for scope in ["id-token", "attestations", "contents", "pull-requests"] {
            for (id, g) in grants(&wf, scope) {
                assert!(g != "write", "{name} job {id} may write {scope}");
            }
        }
    }
}
