//! Who may sign in the benchmark workflow (.github/workflows/benchmark.yml).
//!
//! The runner puts ACTIONS_ID_TOKEN_REQUEST_URL and
//! ACTIONS_ID_TOKEN_REQUEST_TOKEN into every step of a job that holds
//! `id-token: write` (actions/runner), `run:` steps included, and a token
//! minted there names benchmark.yml as its workflow, as the `sign` job's
//! does. So only `sign`, which checks out nothing and runs no script of the
//! caller's choosing, may hold it; every other job runs code from the
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
fn only_the_sign_job_may_request_an_oidc_token() {
    let wf = workflow("benchmark.yml");
    // The workflow grants nothing; each job what it names (`grants` fails
    // on a job that names nothing, where the caller's grant would apply).
    assert_eq!(wf.get("permissions").and_then(Value::as_mapping).map(|m| m.len()), Some(0));
    let signing: Vec<String> =
        grants(&wf, "id-token").into_iter().filter(|(_, g)| g == "write").map(|(id, _)| id).collect();
    assert_eq!(signing, ["sign"], "jobs that may request an OIDC token");
    // Storing attestations goes with it.
    let storing: Vec<String> =
        grants(&wf, "attestations").into_iter().filter(|(_, g)| g == "write").map(|(id, _)| id).collect();
    assert_eq!(storing, ["sign"]);
    // Exactly what it needs, and nothing that writes the repository.
    let granted: Vec<(String, String)> = wf["jobs"]["sign"]["permissions"]
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str().unwrap().to_string(), v.as_str().unwrap().to_string()))
        .collect();
    let want = [("id-token", "write"), ("attestations", "write"), ("contents", "read"), ("actions", "read")];
    assert_eq!(granted, want.map(|(k, v)| (k.to_string(), v.to_string())));
}

#[test]
fn the_sign_job_runs_no_checked_out_code_and_no_collector_its_caller_chooses() {
    let wf = workflow("benchmark.yml");
    let sign = &wf["jobs"]["sign"];
    // No job container or services whose image the inputs could choose, on
    // a GitHub-hosted runner (the certificate's runner environment says so).
    assert!(sign.get("container").is_none() && sign.get("services").is_none());
    assert_eq!(sign["runs-on"].as_str(), Some("ubuntu-24.04"));
    let steps = sign["steps"].as_sequence().unwrap();
    for s in steps {
        if let Some(uses) = s.get("uses").and_then(Value::as_str) {
            let action = uses.split('@').next().unwrap();
            assert!(
                ["actions/download-artifact", "actions/upload-artifact", "actions/attest-build-provenance"]
                    .contains(&action),
                "sign uses {uses}"
            );
        }
        if let Some(run) = s.get("run").and_then(Value::as_str) {
            // Inline code of the signed workflow only: nothing checked out
            // (there is no checkout), no script file run, no expression in
            // the code.
            assert!(!run.contains("runner-bench/") && !run.contains("${{"), "sign runs {run}");
            for line in run.lines().map(str::trim_start) {
                let runs_file =
                    ["bash ", "sh ", "source ", ". ", "python3 ./", "node "].iter().any(|p| line.starts_with(p));
                assert!(!runs_file, "sign runs a file: {line}");
            }
        }
        // The inputs reach it only as the text of a notice.
        for (k, v) in s.get("env").and_then(Value::as_mapping).into_iter().flatten() {
            let v = v.as_str().unwrap_or("");
            if v.contains("inputs.") {
                assert!(["SOURCE", "REPOSITORY", "REF"].contains(&k.as_str().unwrap()), "sign's env {k:?}: {v}");
            }
        }
    }
    // The collector it runs is the one it downloaded and checked, of the
    // version the workflow pins: no input chooses it.
    let assemble = steps.iter().find(|s| s["name"].as_str() == Some("Assemble the result")).unwrap();
    assert_eq!(assemble["env"]["COLLECTOR"].as_str(), Some("${{ steps.collector.outputs.path }}"));
    let download = steps.iter().find(|s| s["id"].as_str() == Some("collector")).unwrap();
    let script = download["run"].as_str().unwrap();
    assert!(script.contains("version=$RUNNER_BENCH_COLLECTOR_VERSION"), "{script}");
    assert!(script.contains("$GITHUB_SERVER_URL/$RUNNER_BENCH_UPSTREAM/releases/download/v$version/$file"), "{script}");
    assert_eq!(wf["env"]["RUNNER_BENCH_UPSTREAM"].as_str(), Some("runner-bench/runner-bench"));
    // A release's tag pins its own binaries: the workflow's version is the
    // workspace's.
    assert_eq!(wf["env"]["RUNNER_BENCH_COLLECTOR_VERSION"].as_str(), Some(env!("CARGO_PKG_VERSION")));
    for trigger in ["workflow_call", "workflow_dispatch"] {
        assert!(wf["on"][trigger]["inputs"].get("collector-version").is_none(), "{trigger}");
    }
    // It signs the digest of the file it wrote.
    let attest =
        steps.iter().find(|s| s.get("uses").and_then(Value::as_str).is_some_and(|u| u.contains("attest"))).unwrap();
    assert_eq!(attest["with"]["subject-digest"].as_str(), Some("sha256:${{ steps.digest.outputs.sha256 }}"));
    assert_eq!(attest["with"]["subject-name"].as_str(), Some("${{ steps.assemble.outputs.path }}"));
    assert!(attest.get("continue-on-error").is_none());
}

#[test]
fn every_job_on_a_github_label_is_rechecked_by_the_sign_job() {
    // The jobs on GitHub's label besides `sign`: `preflight` (a check that
    // only stops a run), the `gap-N` waits (the sign job re-checks each gap
    // from GitHub's record) and `submit` (the pull request's check verifies
    // what it submits). No other job may run there.
    let wf = workflow("benchmark.yml");
    let jobs = wf["jobs"].as_mapping().unwrap();
    let hosted: Vec<&str> = jobs
        .iter()
        .filter(|(_, j)| j["runs-on"].as_str() == Some("ubuntu-24.04"))
        .map(|(id, _)| id.as_str().unwrap())
        .collect();
    assert_eq!(hosted, ["preflight", "gap-1", "gap-2", "gap-3", "sign", "submit"]);
    // Every job is named `<id>: …`, the form `collector assemble` reads
    // GitHub's job list by.
    for (id, job) in jobs {
        let (id, name) = (id.as_str().unwrap(), job["name"].as_str().unwrap());
        assert!(name.starts_with(&format!("{id}: ")), "job {id} is named {name:?}");
    }
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
