//! netlify.toml builds the site the README's way: every context runs the
//! same `cargo run -p site --release --locked -- build --out <publish>`, the
//! preview command with `build --out <publish>` for `serve`, and that
//! command's arguments, given to the built `site` binary, write the website.

use std::path::Path;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
/// What runs the site binary; the README's preview command is this and
/// `serve`.
const CARGO_RUN: &str = "cargo run -p site --release --locked --";

fn netlify() -> toml::Table {
    let text = std::fs::read_to_string(Path::new(ROOT).join("netlify.toml")).unwrap();
    text.parse().unwrap()
}

fn str_at<'a>(table: &'a toml::Table, key: &str) -> &'a str {
    table.get(key).and_then(toml::Value::as_str).unwrap_or_else(|| panic!("netlify.toml: no string `{key}`"))
}

/// `[build]`'s command and publish folder.
fn build_section() -> (String, String) {
    let netlify = netlify();
    let build = netlify["build"].as_table().unwrap();
    (str_at(build, "command").to_string(), str_at(build, "publish").to_string())
}

#[test]
fn build_command_is_the_readmes_with_build_for_serve() {
    let (command, publish) = build_section();
    assert_eq!(publish, "public");
    assert_eq!(command, format!("{CARGO_RUN} build --out {publish}"));

    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let preview = format!("{CARGO_RUN} serve");
    assert!(readme.lines().any(|l| l == preview), "README.md has no line `{preview}`");
}

#[test]
fn every_context_runs_the_build_command() {
    let (command, _) = build_section();
    let netlify = netlify();
    let contexts = netlify["context"].as_table().unwrap();
    let mut names: Vec<&str> = contexts.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["branch-deploy", "deploy-preview"]);
    for (name, context) in contexts {
        assert_eq!(str_at(context.as_table().unwrap(), "command"), command, "[context.{name}]");
    }
}

#[test]
fn build_command_writes_the_website() {
    let (command, publish) = build_section();
    let args: Vec<&str> = command
        .strip_prefix(CARGO_RUN)
        .unwrap_or_else(|| panic!("`{command}` does not start with `{CARGO_RUN}`"))
        .split_whitespace()
        .collect();
    assert_eq!(args, ["build", "--out", publish.as_str()]);

    // The binary cargo built for this test, run from the repository's root
    // as Netlify runs the command (as common::serve runs `site serve`), with
    // the publish folder moved to a temporary one.
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .current_dir(ROOT)
        .args(&args[..2])
        .arg(out.path())
        .env_remove("URL")
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "site build: {status}");

    let index = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert!(index.starts_with("<!doctype html>"), "{}", &index[..index.len().min(200)]);
    // Netlify serves /404.html for unknown paths (netlify.toml).
    assert!(out.path().join("404.html").is_file());
}
