//! Issue 56, item 0: a result whose one-thread CoreMark ran as a program of
//! its own (`build.coremark.executable_sha256`) is a different measurement
//! from one whose workload ran inside the collector's binary, where its
//! speed moved with the Rust code around it. Its CoreMark key says so: the
//! two are never compared, and a runner whose results move from one to the
//! other is not flagged as changed. Older files keep the key they had. The
//! same holds for the all-core figure, which the CoreMark key also
//! compares, run as a threaded program of its own
//! (`build.coremark.allcore_executable_sha256`).

use std::path::Path;

use crate::common::*;
use runner_bench_format::StageKind;
use runner_bench_format::params::key_of;
use serde_json::{Value, json};

const EXE_A: &str = "3f1c0e6d2b9a48577e6c5d4b3a29180f7e6d5c4b3a291807f6e5d4c3b2a19081";
const EXE_B: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn ran_as_program(mut v: Value, sha256: &str) -> Value {
    v["build"]["coremark"]["executable_sha256"] = json!(sha256);
    v
}

fn inputs(v: &Value, stage: StageKind) -> serde_json::Map<String, Value> {
    let result = runner_bench_format::from_slice(&serde_json::to_vec(v).unwrap(), Path::new("r.json")).unwrap();
    site::keys::key_inputs(&result, stage)
}

#[test]
fn the_workload_run_as_its_own_program_has_a_key_of_its_own() {
    let old = golden();
    let new = ran_as_program(golden(), EXE_A);
    let before = inputs(&old, StageKind::Cpu);
    assert!(!before.contains_key("workload"), "an older file's key hashes what it always did: {before:?}");
    let mut expected = before.clone();
    expected.insert("workload".into(), json!("executable"));
    assert_eq!(inputs(&new, StageKind::Cpu), expected);
    assert_eq!(stage_key(&new, StageKind::Cpu), key_of(&Value::Object(expected)).to_string());
    assert_ne!(stage_key(&old, StageKind::Cpu), stage_key(&new, StageKind::Cpu));
    // The key names how the workload ran, not which build of it: another
    // compiler's program is compared as any other build is.
    assert_eq!(stage_key(&new, StageKind::Cpu), stage_key(&ran_as_program(golden(), EXE_B), StageKind::Cpu));
    for stage in [StageKind::Disk, StageKind::Cache, StageKind::Internet] {
        assert_eq!(stage_key(&old, stage), stage_key(&new, stage), "{stage:?}");
    }
}

/// Run `n` of the golden runner, an hour after the previous, with every
/// CoreMark iteration count scaled by `scale`.
fn run(n: u64, scale: f64, executable: Option<&str>) -> (String, Value) {
    let run_id = 18342215517 + n;
    let text = std::fs::read_to_string(GOLDEN)
        .unwrap()
        .replace("2026-11-29T10:", &format!("2026-11-29T{}:", 10 + n))
        .replace("18342215517", &run_id.to_string())
        .replace("2b8c1d0e4f10", &format!("{n:012x}"))
        .replace("7f2a1c0e9b33", &format!("{:012x}", 0x8000_0000_0000u64 + n));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    for s in v["stages"]["cpu"]["samples"].as_array_mut().unwrap() {
        let k = s["iterations"].as_f64().unwrap();
        s["iterations"] = json!((k * scale).round() as u64 + n);
    }
    if let Some(sha256) = executable {
        v = ran_as_program(v, sha256);
    }
    (format!("example/example-linux-x64/2026-11-29-{run_id}-1.json"), v)
}

/// A result of the old build, then two of the program 4 % faster (as far
/// as the figure moved between builds, issue 56): no change is flagged,
/// since the first program's result has no previous one of its key; a
/// 4 % move between two results of the same key is.
#[test]
fn moving_to_the_program_is_no_change_of_the_runner() {
    let results = results_dir();
    for (n, scale, exe) in [(0, 1.0, None), (1, 1.04, Some(EXE_A)), (2, 1.04 * 1.04, Some(EXE_A))] {
        let (rel, v) = run(n, scale, exe);
        put(results.path(), &rel, &v);
    }
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    let row = |stem: &str| {
        let at = page.find(&format!("<tr id=\"r-{stem}\"")).unwrap_or_else(|| panic!("no row {stem}"));
        page[at..].split("</tr>").next().unwrap().to_string()
    };
    assert!(!row("2026-11-29-18342215518-1").contains("may have changed"), "{}", row("2026-11-29-18342215518-1"));
    assert!(row("2026-11-29-18342215519-1").contains("CoreMark median iterations&#x2F;s higher"));
    assert_eq!(page.matches("<span class=\"mark change").count(), 1, "{page}");
}

/// The all-core stage run as a program of its own gives the CoreMark key
/// another input; a file without it keeps the key it had, and which build
/// of the program ran does not enter it.
#[test]
fn the_all_core_program_has_a_key_of_its_own() {
    let one_thread = ran_as_program(golden(), EXE_A);
    let with = |sha256: &str| {
        let mut v = one_thread.clone();
        v["build"]["coremark"]["allcore_executable_sha256"] = json!(sha256);
        v
    };
    let mut expected = inputs(&one_thread, StageKind::Cpu);
    assert!(!expected.contains_key("allcore_workload"), "{expected:?}");
    expected.insert("allcore_workload".into(), json!("executable"));
    assert_eq!(inputs(&with(EXE_B), StageKind::Cpu), expected);
    assert_ne!(stage_key(&one_thread, StageKind::Cpu), stage_key(&with(EXE_B), StageKind::Cpu));
    assert_eq!(stage_key(&with(EXE_A), StageKind::Cpu), stage_key(&with(EXE_B), StageKind::Cpu));
    for stage in [StageKind::Disk, StageKind::Cache, StageKind::Internet] {
        assert_eq!(stage_key(&one_thread, stage), stage_key(&with(EXE_B), stage), "{stage:?}");
    }
}
