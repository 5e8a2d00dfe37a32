//! `site check` warns where a provider file's stated machine differs from
//! what a measured result recorded of it (issue 56).

use crate::common;
use std::path::Path;

/// A measured result that recorded 2 logical CPUs and 8,322,109,440 bytes
/// (7.75 GiB) of memory.
const RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/failed-job/results");
const RESULT: &str = "example/example-linux-x64/2026-11-29-18342215517-1.json";

/// `site check`'s warning lines with this provider file for `example`.
fn warnings(provider_file: &str) -> Vec<String> {
    let content = tempfile::tempdir().unwrap();
    let providers = content.path().join("providers");
    std::fs::create_dir_all(&providers).unwrap();
    std::fs::write(providers.join("example.toml"), provider_file).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["check", "--content"])
        .arg(content.path())
        .arg(RESULTS)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "warnings do not fail the check");
    let file = providers.join("example.toml").display().to_string();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .map(|l| l.replace(&file, "<file>").replace(RESULTS, "<results>"))
        .collect()
}

#[test]
fn eight_stated_vcpu_for_two_recorded_logical_cpus_is_a_warning() {
    let got = warnings("name = \"Example\"\n[runners.example-linux-x64]\nvcpu = 8\nmemory_gib = 8\n");
    assert_eq!(
        got,
        [format!(
            "warning: <file>: runners.example-linux-x64.vcpu: the provider file states 8 vCPU, but the result \
             recorded 2 logical CPUs (<results>/{RESULT})"
        )]
    );
}

#[test]
fn memory_further_apart_than_the_tolerance_is_a_warning() {
    // 7.75 GiB recorded: 8 GiB stated is 3 % away, 32 GiB far more than 10 %.
    assert_eq!(warnings("name = \"Example\"\n[runners.example-linux-x64]\nvcpu = 2\nmemory_gib = 8\n"), [""; 0]);
    assert_eq!(
        warnings("name = \"Example\"\n[runners.example-linux-x64]\nvcpu = 2\nmemory_gib = 32\n"),
        [format!(
            "warning: <file>: runners.example-linux-x64.memory_gib: the provider file states 32 GiB of memory, but \
             the result recorded 7.8 GiB (more than 10 % apart) (<results>/{RESULT})"
        )]
    );
}

#[test]
fn nothing_stated_nothing_compared() {
    assert_eq!(warnings("name = \"Example\"\n[runners.example-linux-x64]\narch = \"x64\"\n"), [""; 0]);
    assert!(Path::new(RESULTS).join(RESULT).is_file());
}

/// The runner page marks the Logical CPUs cell of a result whose count
/// differs from the provider file's vCPU, and leaves the memory cell
/// unmarked within the tolerance.
#[test]
fn the_runner_page_marks_the_stated_vcpu() {
    let content = tempfile::tempdir().unwrap();
    let providers = content.path().join("providers");
    std::fs::create_dir_all(&providers).unwrap();
    std::fs::write(
        providers.join("example.toml"),
        "name = \"Example\"\n[runners.example-linux-x64]\nvcpu = 8\nmemory_gib = 8\n",
    )
    .unwrap();
    let mut o = common::site_options(Path::new(RESULTS));
    o.content = content.path().to_path_buf();
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let page = std::fs::read_to_string(out.path().join("runners/example/example-linux-x64/index.html")).unwrap();
    assert!(
        page.contains(
            "<td class=\"num\">2 <span class=\"mark mismatch\">provider file: 8 vCPU</span></td><td class=\"num\">7.75 \
             GiB</td>"
        ),
        "{page}"
    );
}
