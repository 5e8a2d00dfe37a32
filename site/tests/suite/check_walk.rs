//! Issue 13, classes 7 and 8: what the walk of results/ finds besides
//! result files is a problem, never silence; and no text from a submitted
//! file reaches a terminal or an annotation with its control characters.
//! (Unix only: links, FIFOs and control characters in file names.)

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;
use serde_json::json;

const LINK: &str = "is a symbolic link; links are never followed, so commit the file itself in its place";
const OTHER: &str = "is not a result file: result files end in \".json\", and the only other files a results \
                     folder holds are README.md and exclusions.toml at its top";
const EMPTY: &str = "holds no result file (*.json): nothing was checked";

fn site(args: &[&str], paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_site")).args(args).args(paths).output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// GitHub's escaping of a workflow command's property, for expected paths.
fn property(s: &str) -> String {
    s.replace('%', "%25").replace(':', "%3A").replace(',', "%2C")
}

/// A problem on a whole entry below `dir`.
fn whole(rel: &str, reason: &str) -> (String, String, String) {
    (rel.to_string(), "$".to_string(), reason.to_string())
}

#[test]
fn links_are_problems_whatever_they_point_at() {
    let dir = results_dir();
    let d = dir.path();
    let golden_file = put(d, GOLDEN_PATH, &golden());
    let runner = d.join("example/example-linux-x64");
    symlink(&golden_file, runner.join("2026-11-29-18342215517-2.json")).unwrap();
    symlink(d.join("example"), d.join("elsewhere")).unwrap();
    symlink(d.join("nowhere.json"), runner.join("dangling.json")).unwrap();
    // Never read: not even the exclusions file is followed.
    symlink("/dev/zero", d.join("exclusions.toml")).unwrap();
    let checked = check(d);
    assert_eq!(
        problems(d, &checked),
        [
            whole("elsewhere", LINK),
            whole("example/example-linux-x64/2026-11-29-18342215517-2.json", LINK),
            whole("example/example-linux-x64/dangling.json", LINK),
            whole("exclusions.toml", LINK),
        ]
    );
    // The file the link points at is read once, as itself.
    assert_eq!(checked.files, 1);
    assert_eq!(checked.runs.len(), 1);
}

#[test]
fn a_link_named_on_the_command_line_is_a_problem_too() {
    let dir = results_dir();
    let golden_file = put(dir.path(), GOLDEN_PATH, &golden());
    let link = dir.path().join("link.json");
    symlink(&golden_file, &link).unwrap();
    let checked = site::output::testing::check(std::slice::from_ref(&link)).unwrap();
    assert_eq!(problems(dir.path(), &checked), [whole("link.json", LINK)]);
}

#[test]
fn files_of_other_names_are_problems_except_the_readme_and_exclusions_at_the_top() {
    let dir = results_dir();
    let d = dir.path();
    put(d, GOLDEN_PATH, &golden());
    for rel in [
        "README.md",
        "exclusions.toml",
        "example/README.md",
        "example/exclusions.toml",
        "example/.gitkeep",
        "example/example-linux-x64/2026-11-29-18342215517-2.JSON",
        "example/example-linux-x64/2026-11-29-18342215517-2.json.orig",
        "example/example-linux-x64/.json",
        "notes.txt",
    ] {
        std::fs::write(d.join(rel), "").unwrap();
    }
    assert_eq!(
        problems(d, &check(d)),
        [
            whole("example/.gitkeep", OTHER),
            whole("example/README.md", OTHER),
            whole("example/example-linux-x64/.json", OTHER),
            whole("example/example-linux-x64/2026-11-29-18342215517-2.JSON", OTHER),
            whole("example/example-linux-x64/2026-11-29-18342215517-2.json.orig", OTHER),
            whole("example/exclusions.toml", OTHER),
            whole("notes.txt", OTHER),
        ]
    );
}

#[test]
fn a_fifo_is_a_problem_and_is_never_opened() {
    let dir = results_dir();
    let d = dir.path();
    put(d, GOLDEN_PATH, &golden());
    let fifo = d.join("example/example-linux-x64/2026-11-29-18342215517-2.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let checked = check(d);
    let reason = "is neither a plain file nor a folder; a results folder holds only result files (*.json)";
    assert_eq!(problems(d, &checked), [whole("example/example-linux-x64/2026-11-29-18342215517-2.json", reason)]);
    // Opening a FIFO blocks until a writer comes: the annotation's line
    // lookup must not open it (this would hang if it did).
    assert_eq!(
        checked.github_report(),
        format!("::error file={},title=site check::$: {reason}\n", property(&fifo.display().to_string()))
    );
}

#[test]
fn check_never_accepts_a_folder_whose_files_it_did_not_read() {
    // Before: "0 files accepted", exit 0.
    let dir = results_dir();
    let d = dir.path();
    let target = put(d, "elsewhere/x.json", &golden());
    std::fs::create_dir_all(d.join("results/example")).unwrap();
    let results = d.join("results");
    symlink(&target, results.join("example/x.json")).unwrap();
    std::fs::write(results.join("example/result.txt"), "{}").unwrap();
    let r = results.display().to_string();

    let human = site(&["check"], &[&results]);
    assert_eq!(human.status.code(), Some(1));
    assert_eq!(
        stdout(&human),
        format!(
            "{r}/example/result.txt\n  $: {OTHER}\n{r}/example/x.json\n  $: {LINK}\n{r}\n  $: {EMPTY}\n\
             3 rejected, 0 of 0 result files accepted\n"
        )
    );
    let github = site(&["check", "--format", "github"], &[&results]);
    assert_eq!(github.status.code(), Some(1));
    let p = property(&r);
    assert_eq!(
        stdout(&github),
        format!(
            "::error file={p}/example/result.txt,line=1,title=site check::$: {OTHER}\n\
             ::error file={p}/example/x.json,title=site check::$: {LINK}\n\
             ::error file={p},title=site check::$: {EMPTY}\n"
        )
    );
}

#[test]
fn check_refuses_a_folder_with_no_result_file_and_build_still_builds_it() {
    let dir = results_dir();
    let d = dir.path();
    std::fs::write(d.join("README.md"), "# Results\n").unwrap();
    let out = site(&["check"], &[d]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), format!("{}\n  $: {EMPTY}\n1 rejected, 0 of 0 result files accepted\n", d.display()));
    // An empty new provider's folder, checked on its own, likewise.
    std::fs::create_dir(d.join("newprovider")).unwrap();
    let out = site(&["check"], &[&d.join("newprovider")]);
    assert_eq!(out.status.code(), Some(1));
    // The library's check (which `site build` and `site serve` run) has no
    // problem with it: a site with no results is still a site.
    assert_eq!(check(d).problems, []);
    let site_out = tempfile::tempdir().unwrap();
    let built = site::output::build(&site::web::Options::new(d), site_out.path(), &mut site::output::BuildMode::Stream)
        .unwrap();
    assert_eq!(built.result_files, 0);
}

#[test]
fn a_folder_of_accepted_results_still_passes_the_command() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    std::fs::write(dir.path().join("README.md"), "# Results\n").unwrap();
    std::fs::write(dir.path().join("exclusions.toml"), "").unwrap();
    let out = site(&["check"], &[dir.path()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).ends_with("\n1 files accepted\n"), "{}", stdout(&out));
}

/// True when `text` holds a control character other than the line breaks
/// the reports write themselves.
fn has_controls(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && c != '\n')
}

#[test]
fn serdes_echo_of_an_unknown_field_is_escaped_in_both_outputs() {
    let dir = results_dir();
    let mut v = golden();
    v["machine"]["\u{1b}]0;owned\u{7}\u{1b}[2J"] = json!(1);
    let file = put(dir.path(), GOLDEN_PATH, &v);
    let checked = check(dir.path());
    // The library keeps the text as it is; the printers escape it.
    let fields = "expected one of `os`, `os_release`, `arch`, `cpu_model`, `logical_cpus`, `memory_bytes`, `kernel`, \
                  `virtualization`, `instance` at line 28 column 35";
    assert_eq!(checked.problems[0].reason, format!("unknown field `\u{1b}]0;owned\u{7}\u{1b}[2J`, {fields}"));
    let escaped = format!("unknown field `\\u{{1b}}]0;owned\\u{{7}}\\u{{1b}}[2J`, {fields}");
    let f = file.display().to_string();

    let human = stdout(&site(&["check"], &[dir.path()]));
    // The JSON path names the key, escaped too.
    let field = "$.machine.\\u{1b}]0;owned\\u{7}\\u{1b}[2J";
    assert_eq!(human, format!("{f}\n  {field}: {escaped}\n1 rejected, 0 of 1 result files accepted\n"));
    let github = stdout(&site(&["check", "--format", "github"], &[dir.path()]));
    assert_eq!(
        github,
        format!("::error file={},title=site check::{field}: {}\n", property(&f), escaped.replace('%', "%25"))
    );
}

#[test]
fn an_unknown_variant_cannot_forge_a_line_of_the_report() {
    let dir = results_dir();
    let mut v = golden();
    v["stages"]["cpu"]["samples"][0]["status"] = json!("ok\r\n0 files accepted\n\u{9b}31m");
    put(dir.path(), GOLDEN_PATH, &v);
    let human = stdout(&site(&["check"], &[dir.path()]));
    assert!(!has_controls(&human), "{human:?}");
    assert_eq!(human.lines().count(), 3, "{human}");
    let reason = "unknown variant `ok\\r\\n0 files accepted\\n\\u{9b}31m`, expected one of `ok`, `timeout`, `error` at \
                  line 417 column 51";
    assert_eq!(human.lines().nth(1), Some(format!("  $.stages.cpu.samples[0].status: {reason}").as_str()));
    let github = stdout(&site(&["check", "--format", "github"], &[dir.path()]));
    assert_eq!(github.lines().count(), 1, "{github}");
    // `::error file=…,title=site check::` and the message.
    let message = github.splitn(3, "::").nth(2);
    assert_eq!(message, Some(format!("$.stages.cpu.samples[0].status: {reason}\n").as_str()));
}

#[test]
fn file_names_are_escaped_in_both_outputs() {
    let dir = results_dir();
    let d = dir.path();
    put(d, "example/example-linux-x64/x\u{1b}[31m\n0 files accepted.json", &golden());
    std::fs::write(d.join("notes\u{7}\r.txt"), "").unwrap();
    let r = d.display().to_string();
    let human = stdout(&site(&["check"], &[d]));
    assert_eq!(
        human,
        format!(
            "{r}/example/example-linux-x64/x\\u{{1b}}[31m\\n0 files accepted.json\n  $: the path does not agree \
             with the content: expected results/{GOLDEN_PATH}, found \
             results/example/example-linux-x64/x\\u{{1b}}[31m\\n0 files accepted.json\n\
             {r}/notes\\u{{7}}\\r.txt\n  $: {OTHER}\n2 rejected, 0 of 1 result files accepted\n"
        )
    );
    let github = stdout(&site(&["check", "--format", "github"], &[d]));
    let p = property(&r);
    assert_eq!(
        github,
        format!(
            "::error file={p}/example/example-linux-x64/x\\u{{1b}}[31m\\n0 files accepted.json,line=1,title=site \
             check::$: the path does not agree with the content: expected results/{GOLDEN_PATH}, found \
             results/example/example-linux-x64/x\\u{{1b}}[31m\\n0 files accepted.json\n\
             ::error file={p}/notes\\u{{7}}\\r.txt,title=site check::$: {OTHER}\n"
        )
    );
}

#[test]
fn an_exclusions_files_echoed_key_is_escaped() {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    std::fs::write(dir.path().join("exclusions.toml"), "\"\\u001b[2J\" = 1\n").unwrap();
    let human = stdout(&site(&["check"], &[dir.path()]));
    assert!(!has_controls(&human), "{human:?}");
    let p = dir.path().display();
    assert_eq!(
        human,
        format!(
            "{p}/{GOLDEN_PATH}: self-built: the result records no binary identity (collector before 0.2.0)\n\
             {p}/exclusions.toml\n  \
             $: not a valid exclusions file: unknown field `\\u{{1b}}[2J`, expected `exclude`\n\
             1 rejected, 1 of 1 result files accepted\n"
        )
    );
}

#[test]
fn top_level_errors_are_escaped() {
    let dir = results_dir();
    let missing = dir.path().join("no\u{1b}[2Jsuch");
    let out = site(&["check"], &[&missing]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("error: {}/no\\u{{1b}}[2Jsuch is neither a file nor a folder\n", dir.path().display())
    );
}

#[test]
fn a_formula_in_free_text_is_defused_in_the_csv_downloads() {
    // The exclusion's reason is free text that reaches every CSV row of the
    // result; a spreadsheet skips the leading spaces and tab.
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    std::fs::write(
        dir.path().join("exclusions.toml"),
        format!("[[exclude]]\nfile = \"{GOLDEN_PATH}\"\nreason = \" \\t=HYPERLINK(1)\"\n"),
    )
    .unwrap();
    let o = site_options(dir.path());
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let csv = std::fs::read_to_string(out.path().join("data/coremark.csv")).unwrap();
    let row = csv.lines().nth(1).unwrap();
    // excluded: yes, the reason defused, then the source.
    assert!(row.ends_with(&format!(",yes,' \t=HYPERLINK(1),/results/{GOLDEN_PATH}")), "{row}");
}
