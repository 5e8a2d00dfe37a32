//! `site check`: the same run is accepted once, and a result keeps the
//! names the site already shows (issue 13, classes 4 and 6).

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

/// Where the layout puts a measured result of GitHub Actions.
fn layout_path(v: &Value) -> String {
    let g = &v["provenance"]["github"];
    format!(
        "{}/{}/{}-{}-{}.json",
        v["provider"]["id"].as_str().unwrap(),
        v["runner"]["label"].as_str().unwrap(),
        &v["provenance"]["started_at"].as_str().unwrap()[..10],
        g["run_id"],
        g["run_attempt"]
    )
}

/// Writes `v` at its layout path below `dir`.
fn submit(dir: &Path, v: &Value) -> String {
    let rel = layout_path(v);
    put(dir, &rel, v);
    dir.join(&rel).display().to_string()
}

/// The golden result moved to provider `provider`, runner `label`.
fn moved(mut v: Value, provider: &str, label: &str) -> Value {
    v["provider"]["id"] = json!(provider);
    v["provider"].as_object_mut().unwrap().remove("name");
    v["runner"]["label"] = json!(label);
    v["runner"].as_object_mut().unwrap().remove("name");
    v
}

/// The golden result under another attempt number, another provider and
/// runner, another boot: only the samples are the same.
fn same_samples_elsewhere() -> Value {
    let mut copy = moved(golden(), "other", "other-linux-x64");
    copy["provenance"]["github"]["run_attempt"] = json!(2);
    copy["machine"]["instance"]["boot_id"] = json!("11111111-2222-4333-8444-555555555555");
    copy
}

#[test]
fn the_same_samples_are_one_run_under_any_name_attempt_or_provider() {
    let dir = results_dir();
    let first = submit(dir.path(), &golden());
    let copy = same_samples_elsewhere();
    let second = layout_path(&copy);
    submit(dir.path(), &copy);
    assert_eq!(
        problems(dir.path(), &check(dir.path())),
        [(second, "$.stages".to_string(), format!("has the same samples as {first}"))]
    );
}

/// The samples are compared as values, not as text: a copy written compact,
/// with its keys in another order and a figure spelled another way, is the
/// same run.
#[test]
fn the_same_samples_are_one_run_however_the_file_spells_them() {
    let dir = results_dir();
    let first = submit(dir.path(), &golden());
    let copy = same_samples_elsewhere();
    let second = layout_path(&copy);
    // serde_json's Value sorts its keys, where the golden file does not.
    let text = serde_json::to_string(&copy).unwrap();
    let (head, stages) = text.split_once("\"stages\":").unwrap();
    assert!(stages.contains("\"elapsed_s\":30.0151,"), "the golden's first CPU sample changed");
    let stages = stages.replacen("\"elapsed_s\":30.0151,", "\"elapsed_s\":3.00151e1,", 1);
    let path = dir.path().join(&second);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, format!("{head}\"stages\":{stages}")).unwrap();
    assert_eq!(
        problems(dir.path(), &check(dir.path())),
        [(second, "$.stages".to_string(), format!("has the same samples as {first}"))]
    );
}

#[test]
fn one_os_instance_starting_at_one_time_is_one_run() {
    let dir = results_dir();
    let first = submit(dir.path(), &golden());
    let mut copy = moved(golden(), "other", "other-linux-x64");
    copy["provenance"]["github"]["run_id"] = json!(99);
    // Other samples, same boot and start.
    copy["stages"]["cpu"]["samples"][0]["elapsed_s"] = json!(31.5);
    let second = layout_path(&copy);
    submit(dir.path(), &copy);
    assert_eq!(
        problems(dir.path(), &check(dir.path())),
        [(
            second,
            "$.machine.instance.boot_id".to_string(),
            format!(
                "OS instance 6f1c2a4e-93b1-4d0e-9a57-2b8c1d0e4f10 started this run at 2026-11-29T10:00:00Z, as it did \
                 the run of {first}"
            )
        )]
    );
}

#[test]
fn an_unknown_instance_with_other_samples_is_another_run() {
    let dir = results_dir();
    let mut a = golden();
    a["machine"]["instance"] = json!({ "boot_id": "unknown", "machine_id": "unknown" });
    submit(dir.path(), &a);
    let mut b = a.clone();
    b["provenance"]["github"]["run_id"] = json!(99);
    b["stages"]["cpu"]["samples"][0]["elapsed_s"] = json!(31.5);
    submit(dir.path(), &b);
    assert_eq!(accepted(dir.path()).len(), 2);
}

#[test]
fn failed_samples_alone_may_repeat_word_for_word() {
    // Two runs whose every sample failed the same way, on two boots.
    let failed = |n: u32| {
        let mut v = golden();
        let stages = v["stages"].as_object_mut().unwrap();
        stages.retain(|k, _| k == "cpu");
        v["stages"]["cpu"]["samples"] = json!([{
            "status": "error", "message": "the workload could not start", "affinity": { "mode": "unpinned" }
        }]);
        v["parameters"]["cpu_samples"] = json!(1);
        v["provenance"]["github"]["run_id"] = json!(n);
        another_run(&mut v, n);
        v
    };
    let (a, b) = (failed(1), failed(2));
    let dir = results_dir();
    submit(dir.path(), &a);
    submit(dir.path(), &b);
    let checked = check(dir.path());
    assert!(
        !checked.problems.iter().any(|p| p.reason.starts_with("has the same samples")),
        "{}",
        checked.human_report()
    );
}

/// The committed import of Ubicloud's x64 runner.
fn ubicloud_x64() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../results/ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn an_imported_row_is_imported_once_whatever_its_label() {
    let dir = results_dir();
    let rel = "ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json";
    let first = put(dir.path(), rel, &ubicloud_x64()).display().to_string();
    let copy = moved(ubicloud_x64(), "vendor", "vendor-linux-x64");
    let second = "vendor/vendor-linux-x64/2026-11-29-imported-2c7ad0467348.json";
    put(dir.path(), second, &copy);
    assert_eq!(
        problems(dir.path(), &check(dir.path())),
        [(
            second.to_string(),
            "$.stages".to_string(),
            format!("has the same figures from the same document as {first}")
        )]
    );
}

#[test]
fn a_result_does_not_rename_a_provider_or_a_runner() {
    let dir = results_dir();
    let first = submit(dir.path(), &golden());
    let mut later = golden();
    later["provenance"]["github"]["run_id"] = json!(99);
    later["provider"]["name"] = json!("Example Cloud, Inc.");
    later["runner"]["name"] = json!("Example 2 vCPU");
    another_run(&mut later, 99);
    let second = layout_path(&later);
    submit(dir.path(), &later);
    let checked = check(dir.path());
    assert_eq!(
        problems(dir.path(), &checked),
        [
            (
                second.clone(),
                "$.provider.name".to_string(),
                format!(
                    "names provider \"example\" \"Example Cloud, Inc.\", but {first}, the first accepted result to \
                     name it, calls it \"Example Cloud\"; a result does not rename a provider"
                )
            ),
            (
                second,
                "$.runner.name".to_string(),
                format!(
                    "names runner \"example-linux-x64\" of provider \"example\" \"Example 2 vCPU\", but {first}, the \
                     first accepted result to name it, calls it \"Example Linux x64, 2 vCPU\"; a result does not \
                     rename a runner"
                )
            ),
        ]
    );
    assert_eq!(checked.runs.len(), 1, "the renaming result is not accepted");
}

#[test]
fn a_result_that_leaves_the_names_out_takes_the_first_ones() {
    let dir = results_dir();
    submit(dir.path(), &golden());
    let mut later = golden();
    later["provenance"]["github"]["run_id"] = json!(99);
    later["provider"].as_object_mut().unwrap().remove("name");
    later["runner"].as_object_mut().unwrap().remove("name");
    another_run(&mut later, 99);
    submit(dir.path(), &later);
    assert_eq!(accepted(dir.path()).len(), 2);
}

#[test]
fn display_names_are_never_empty() {
    let mut v = golden();
    v["provider"]["name"] = json!("");
    v["runner"]["name"] = json!("  ");
    v["stages"]["cache"]["backends"][0]["name"] = json!("\t");
    let reason = "is empty; a name the site shows must say something (leave out a name that is optional)";
    assert_eq!(
        problems_of(&v),
        [
            golden_problem("$.provider.name", reason),
            golden_problem("$.runner.name", reason),
            golden_problem("$.stages.cache.backends[0].name", reason),
        ]
    );
}

#[test]
fn displayed_text_may_not_hide_or_reorder_characters() {
    for (text, what) in [
        ("Example \u{202E}46x", "U+202E, a bidirectional embedding, override or isolate"),
        ("Exam\u{200B}ple", "U+200B, a zero-width or invisible character"),
        ("Example\u{2028}Cloud", "U+2028, a line or paragraph separator"),
        ("Example \u{2067}Cloud", "U+2067, a bidirectional embedding, override or isolate"),
    ] {
        let mut v = golden();
        v["runner"]["name"] = json!(text);
        assert_eq!(
            problems_of(&v),
            // (The strict reader's position is where the runner object ends.)
            [golden_problem(
                "$.runner.name",
                &format!("text contains {what}; displayed text must show what it says at line 109 column 3")
            )],
            "{text:?}"
        );
    }
}
