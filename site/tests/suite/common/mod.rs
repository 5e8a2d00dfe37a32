//! Helpers shared by the integration tests: the golden measured result of
//! the format crate (used by path, not copied) and temporary results folders.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use site::{Checked, Run};

/// The golden measured result: every section filled.
pub const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1.json");
/// Where the golden result belongs below results/.
pub const GOLDEN_PATH: &str = "example/example-linux-x64/2026-11-29-18342215517-1.json";
/// The seed documents: three published runner reports and the RBCS benchmark,
/// copied byte for byte.
pub const SEEDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/seeds");

/// Build options for `results` with the repository's content, docs and
/// templates, at a fixed time, so that a case builds the same site whenever
/// it runs.
pub fn site_options(results: &Path) -> site::web::Options {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut o = site::web::Options::new(results);
    o.content = root.join("content");
    o.docs = root.join("docs");
    o.templates = root.join("templates");
    o.now = "2026-12-01T00:00:00Z".parse().unwrap();
    o
}

/// The golden result as JSON, to edit into broken fixtures.
pub fn golden() -> Value {
    serde_json::from_str(&std::fs::read_to_string(GOLDEN).unwrap()).unwrap()
}

/// A temporary results folder.
pub fn results_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Writes `value` at `rel` below `dir`, pretty-printed as submitted files are.
pub fn put(dir: &Path, rel: &str, value: &Value) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut bytes = serde_json::to_vec_pretty(value).unwrap();
    bytes.push(b'\n');
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Checks one folder.
pub fn check(dir: &Path) -> Checked {
    site::output::testing::check(&[dir.to_path_buf()]).unwrap()
}

/// The problems of a check as `(file below dir, field, reason)`.
pub fn problems(dir: &Path, checked: &Checked) -> Vec<(String, String, String)> {
    checked
        .problems
        .iter()
        .map(|p| {
            let file = Path::new(&p.file).strip_prefix(dir).map_or(p.file.clone(), |f| f.display().to_string());
            (file, p.field.clone(), p.reason.clone())
        })
        .collect()
}

/// Checks a folder holding only `value` at the golden path and returns its
/// problems.
pub fn problems_of(value: &Value) -> Vec<(String, String, String)> {
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, value);
    let checked = check(dir.path());
    problems(dir.path(), &checked)
}

/// One expected problem in the golden file.
pub fn golden_problem(field: &str, reason: &str) -> (String, String, String) {
    (GOLDEN_PATH.to_string(), field.to_string(), reason.to_string())
}

/// The accepted runs of a folder that must pass.
pub fn accepted(dir: &Path) -> Vec<Run> {
    let checked = check(dir);
    assert!(checked.problems.is_empty(), "{}", checked.human_report());
    checked.runs
}

/// The accepted runs of a folder that must pass, where measured results may
/// use parameters no collector defines (for tests of how such parameters
/// are described).
pub fn accepted_any_profile(dir: &Path) -> Vec<Run> {
    let context = site::Context { unpublished_profiles: true, ..site::Context::default() };
    let checked = site::output::testing::check_in(&[dir.to_path_buf()], None, context).unwrap();
    assert!(checked.problems.is_empty(), "{}", checked.human_report());
    checked.runs
}

/// A provider's report rendered from the runs, with the repository's
/// templates as `site build` loads them.
pub fn render(provider: &str, runs: &[Run]) -> String {
    let templates = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../templates"));
    let (tera, _) = site::web::pages::templates(templates, None).unwrap();
    site::report::render_report(&tera, &site::report::build_view(provider, runs)).unwrap()
}

/// The same from what a build keeps of the runs for the reports.
pub fn render_kept(provider: &str, runs: &[site::report::ReportRun]) -> String {
    let templates = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../templates"));
    let (tera, _) = site::web::pages::templates(templates, None).unwrap();
    site::report::render_report(&tera, &site::report::build_view_of(provider, runs)).unwrap()
}

/// Stops a server process when the test ends, passed or not.
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `site serve` from the repository's root on `port`, building
/// `results` into `out`, with `extra` arguments; stopped when dropped.
pub fn serve(port: u16, results: &Path, out: &Path, extra: &[&std::ffi::OsStr]) -> Server {
    Server(
        std::process::Command::new(env!("CARGO_BIN_EXE_site"))
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .args(["serve", "--port", &port.to_string()])
            .arg("--results")
            .arg(results)
            .args(extra)
            .arg("--out")
            .arg(out)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Copies the folder `from` into `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Makes `v` (a copy of a measured result) another run, number `n`: another
/// OS instance boot and other CPU timings, so that `site check` does not
/// take it for the same run submitted twice.
pub fn another_run(v: &mut Value, n: u32) {
    v["machine"]["instance"]["boot_id"] = Value::from(format!("00000000-0000-4000-8000-{n:012}"));
    if let Some(samples) = v["stages"]["cpu"]["samples"].as_array_mut() {
        for s in samples {
            if let Some(e) = s["elapsed_s"].as_f64() {
                s["elapsed_s"] = Value::from(e + f64::from(n) * 1e-6);
            }
        }
    }
}

/// The comparability key (`site::keys`) of `stage` of a result: what the
/// home page's group of that stage is named by (`t-<key>-<table>`).
pub fn stage_key(v: &Value, stage: runner_bench_format::StageKind) -> String {
    let bytes = serde_json::to_vec(v).unwrap();
    let result = runner_bench_format::from_slice(&bytes, Path::new("result.json")).unwrap();
    site::keys::stage_keys(&result).get(stage).to_string()
}

/// The golden result with its github backend measured by `actions/cache`
/// steps (its volume still by the client) and the workflow's jobs recorded.
pub const ACTION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/action-method/results/example/example-linux-x64/2026-11-29-18342215517-1.json"
);

/// The result at `ACTION` as JSON.
pub fn action_fixture() -> Value {
    serde_json::from_str(&std::fs::read_to_string(ACTION).unwrap()).unwrap()
}

/// The problems `site check` finds in the golden result after `edit`.
pub fn problems_after(edit: impl FnOnce(&mut Value)) -> Vec<(String, String, String)> {
    let mut v = golden();
    edit(&mut v);
    problems_of(&v)
}

/// Builds the site of `results` (`site_options`) into `out`.
pub fn build_into(results: &Path, out: &Path) -> site::output::Built {
    site::output::build(&site_options(results), out, &mut site::output::BuildMode::Stream).unwrap()
}

/// The built file `rel` below `out`.
pub fn read(out: &Path, rel: &str) -> String {
    std::fs::read_to_string(out.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The runner labels of the rows of the comparison table `id`, in order.
pub fn runners(html: &str, id: &str) -> Vec<String> {
    let table = html.split(&format!("id=\"{id}\">")).nth(1).unwrap_or_else(|| panic!("no table {id}"));
    let body = table.split("</table>").next().unwrap().split("<tbody>").nth(1).unwrap();
    body.split("<tr")
        .skip(1)
        .map(|row| row.split("</a></th>").next().unwrap().rsplit('>').next().unwrap().to_string())
        .collect()
}
