//! Flag values that cannot mean anything are refused as the command line is
//! parsed, with clap's message naming the flag, before the command reads or
//! writes a file: `--out` and the results folder are found as they were.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// `site ARGS…`: its exit status and standard error.
fn site(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_site")).args(args).env_remove("URL").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "nothing on stdout");
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// clap's refusal of `value` for `flag` (`<VALUE_NAME>` as --help shows it).
fn refused(flag: &str, value_name: &str, value: &str, reason: &str) -> (Option<i32>, String) {
    (
        Some(2),
        format!(
            "error: invalid value '{value}' for '{flag} {value_name}': {reason}\n\nFor more information, try '--help'.\n"
        ),
    )
}

/// Every file under `dir` with its contents, in path order.
fn listing(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (rel, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_count_of_zero_leaves_the_output_folder_as_it_was() {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &golden());
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("public");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("kept.html"), "a page of an earlier build").unwrap();
    let before = listing(&out);
    let (results, out_arg) = (results.path().to_str().unwrap(), out.to_str().unwrap());
    for command in ["build", "serve"] {
        for (flag, value_name) in [("--home-rows", "<HOME_ROWS>"), ("--stale-days", "<STALE_DAYS>")] {
            assert_eq!(
                site(&[command, "--results", results, "--out", out_arg, flag, "0"]),
                refused(flag, value_name, "0", "must be at least 1, found 0"),
                "site {command} {flag} 0"
            );
            assert_eq!(listing(&out), before, "site {command} {flag} 0 left --out as it was");
        }
    }
    assert_eq!(
        site(&["serve", "--results", results, "--out", out_arg, "--port", "0"]),
        refused("--port", "<PORT>", "0", "must be at least 1, found 0")
    );
    assert_eq!(
        site(&["build", "--results", results, "--out", out_arg, "--home-rows", "many"]),
        refused("--home-rows", "<HOME_ROWS>", "many", "invalid digit found in string")
    );
    assert_eq!(listing(&out), before);
}

#[test]
fn an_import_flag_that_cannot_be_read_writes_nothing() {
    let seed = format!("{SEEDS}/002_35bd5cdb36088dd2.txt");
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("results");
    let out_arg = out.to_str().unwrap();
    for (flag, value_name, value, reason) in [
        (
            "--measured-on",
            "<MEASURED_ON>",
            "29.11.2026",
            "\"29.11.2026\" is not a date in the form YYYY-MM-DD (like 2026-11-29)",
        ),
        (
            "--imported-at",
            "<IMPORTED_AT>",
            "2026-11-29",
            "\"2026-11-29\" is not a UTC time in RFC 3339 form (like 2026-11-29T22:48:25Z)",
        ),
        ("--document", "<DOCUMENT>", " ", "is empty; give the document's name or URL"),
    ] {
        assert_eq!(site(&["import", &seed, "--out", out_arg, flag, value]), refused(flag, value_name, value, reason));
        assert!(!out.exists(), "site import {flag} {value:?} created --out");
    }
}
