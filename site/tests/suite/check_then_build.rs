//! `site build` must not hang or panic on any file that `site check`
//! accepts (issue 13): accepted result files, mutated at the JSON level,
//! go through the check and, where it accepts them, through the full build
//! into a temporary folder, each case on its own thread with a time limit.
//!
//! The sources are the golden measured result, the committed results
//! (imported ones included) and the fixtures' results. A mutation replaces
//! a number (or every number of an object) with an extreme value, a string
//! with a long, unusual or empty one, repeats, duplicates or removes array
//! elements, or removes a field. A mutant
//! is written where the layout says it belongs (`site::layout`), so that
//! the path rule does not refuse it for its name alone.
//!
//! Cases are seeded, so CI runs the same ones every time: `PROPTEST_CASES`
//! sets how many (default `DEFAULT_CASES`, under a minute in debug on two
//! CPUs) and `PROPTEST_RNG_SEED` another seed; `CHECK_THEN_BUILD_SHOW=1`
//! prints every mutant the check accepted (candidates for check rules).
//! Found bugs keep a regression test of their own, here and in the module
//! they were found in.

use crate::common;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use serde_json::{Value, json};

/// Cases when `PROPTEST_CASES` is not set.
const DEFAULT_CASES: u32 = 256;
/// The seed when `PROPTEST_RNG_SEED` is not set.
const DEFAULT_SEED: u64 = 13;
/// How long one case (check, then build) may take before it counts as a
/// hang. A build of one result takes well under a second in debug.
const CASE_LIMIT: Duration = Duration::from_secs(20);

/// One accepted file to mutate: its JSON and a name for messages.
#[derive(Debug, Clone)]
struct Source {
    name: String,
    value: Value,
}

/// The accepted files: golden, results/**, fixtures' results/**.
fn sources() -> Vec<Source> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut out = vec![Source { name: "golden".into(), value: common::golden() }];
    let folders = [root.join("results"), root.join("site/tests/fixtures")];
    for folder in folders {
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&folder)
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "json") && p.components().any(|c| c.as_os_str() == "results")
            })
            .collect();
        files.sort();
        for path in files {
            let value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            out.push(Source { name, value });
        }
    }
    out
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    At(usize),
}

/// The path of every value in `v` (the root's is empty), in document order.
fn paths(v: &Value) -> Vec<Vec<Step>> {
    fn walk(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        out.push(at.clone());
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    at.push(Step::Key(k.clone()));
                    walk(child, at, out);
                    at.pop();
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    at.push(Step::At(i));
                    walk(child, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn get<'a>(v: &'a Value, path: &[Step]) -> &'a Value {
    path.iter().fold(v, |v, step| match step {
        Step::Key(k) => &v[k.as_str()],
        Step::At(i) => &v[*i],
    })
}

fn get_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::At(i) => &mut v[*i],
    })
}

/// A JSON path as the check writes it, `$.stages.cpu.samples[0]`.
fn json_path(path: &[Step]) -> String {
    let mut s = "$".to_string();
    for step in path {
        match step {
            Step::Key(k) => s.push_str(&format!(".{k}")),
            Step::At(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Numbers at the edges of what a field's type holds, and past them.
fn extreme_numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(u32::MAX),
        json!(u64::from(u32::MAX) + 1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(0.0),
        json!(-0.0),
        json!(1e-308),
        json!(5e-324),
        json!(1e-9),
        json!(0.5),
        json!(1e15),
        json!(1e300),
        json!(f64::MAX),
        json!(-1e300),
    ]
}

/// Strings that are long, unusual or empty.
fn odd_strings() -> Vec<Value> {
    vec![
        json!(""),
        json!(" "),
        json!("x".repeat(10_000)),
        json!("ünïcødé ✓ 🚀 字"),
        json!("a\u{202e}b\u{200b}c\u{2028}d"),
        json!("<script>&\"'</script>"),
        json!("0"),
        json!("9999-12-31T23:59:59Z"),
        json!("0001-01-01T00:00:00Z"),
    ]
}

/// What a mutation does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A number becomes an extreme one (`extreme_numbers`).
    Number,
    /// Every number of an object becomes the same extreme one: sums of
    /// counts that each fit their type.
    ObjectNumbers,
    /// A string becomes an odd one (`odd_strings`).
    String,
    /// An array element is repeated 200 times: sample counts far past the
    /// parameters.
    Repeat,
    /// An array element is duplicated.
    Duplicate,
    /// An array is emptied.
    Empty,
    /// A field or array element is removed.
    Remove,
}

/// One mutation: its kind, which value of that kind (`at`, among those the
/// kind applies to, in document order) and a second choice (`pick`: which
/// replacement, which element).
#[derive(Debug, Clone)]
struct Mutation {
    kind: Kind,
    at: Index,
    pick: Index,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let kind = prop_oneof![
        3 => Just(Kind::Number),
        2 => Just(Kind::ObjectNumbers),
        2 => Just(Kind::String),
        1 => Just(Kind::Repeat),
        1 => Just(Kind::Duplicate),
        1 => Just(Kind::Empty),
        2 => Just(Kind::Remove),
    ];
    (kind, any::<Index>(), any::<Index>()).prop_map(|(kind, at, pick)| Mutation { kind, at, pick })
}

/// Whether `kind` applies to the value at `path`.
fn applies(kind: Kind, path: &[Step], v: &Value) -> bool {
    match kind {
        Kind::Number => v.is_number(),
        Kind::ObjectNumbers => v.as_object().is_some_and(|o| o.values().any(Value::is_number)),
        Kind::String => v.is_string(),
        Kind::Repeat | Kind::Duplicate | Kind::Empty => v.as_array().is_some_and(|a| !a.is_empty()),
        Kind::Remove => !path.is_empty(),
    }
}

/// Applies `m` to `v`; returns what it did, for the failure message, or
/// `None` when no value is of its kind.
fn apply(v: &mut Value, m: &Mutation) -> Option<String> {
    let all: Vec<Vec<Step>> = paths(v).into_iter().filter(|p| applies(m.kind, p, get(v, p))).collect();
    if all.is_empty() {
        return None;
    }
    let path = m.at.get(&all);
    let at = json_path(path);
    if m.kind == Kind::Remove {
        let (last, parent) = path.split_last().unwrap();
        match (get_mut(v, parent), last) {
            (Value::Object(o), Step::Key(k)) => {
                o.remove(k);
            }
            (Value::Array(a), Step::At(i)) => {
                a.remove(*i);
            }
            _ => unreachable!("a path step matches its parent"),
        }
        return Some(format!("removed {at}"));
    }
    let target = get_mut(v, path);
    Some(match (m.kind, target) {
        (Kind::Number, target) => {
            *target = m.pick.get(&extreme_numbers()).clone();
            format!("{at} = {target}")
        }
        (Kind::ObjectNumbers, Value::Object(o)) => {
            let value = m.pick.get(&extreme_numbers()).clone();
            for v in o.values_mut().filter(|v| v.is_number()) {
                *v = value.clone();
            }
            format!("every number of {at} = {value}")
        }
        (Kind::String, target) => {
            *target = m.pick.get(&odd_strings()).clone();
            let shown: String = target.as_str().unwrap().chars().take(40).collect();
            format!("{at} = {shown:?}")
        }
        (Kind::Repeat, Value::Array(a)) => {
            let i = m.pick.index(a.len());
            let copy = a[i].clone();
            a.extend(std::iter::repeat_n(copy, 200));
            format!("{at}[{i}] repeated 200 times")
        }
        (Kind::Duplicate, Value::Array(a)) => {
            let i = m.pick.index(a.len());
            a.insert(i, a[i].clone());
            format!("{at}[{i}] duplicated")
        }
        (Kind::Empty, Value::Array(a)) => {
            a.clear();
            format!("{at} emptied")
        }
        (kind, _) => unreachable!("{kind:?} applies to {at}"),
    })
}

/// The layout's path of a mutant, where the check can read it as a result
/// and the layout can place it; `None` otherwise.
fn layout_path(value: &Value) -> Option<String> {
    let bytes = pretty(value);
    let hex = runner_bench_format::hex(&<sha2::Sha256 as sha2::Digest>::digest(&bytes));
    match runner_bench_format::from_slice(&bytes, Path::new("mutant.json")).ok()? {
        runner_bench_format::AnyResult::Measured(m) => Some(site::layout::measured_path(&m, &hex)),
        runner_bench_format::AnyResult::Imported(i) => Some(site::layout::imported_path(&i)),
    }
}

/// A value pretty-printed as submitted files are (what `common::put` writes).
fn pretty(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap();
    bytes.push(b'\n');
    bytes
}

/// What one case came to.
#[derive(Debug, PartialEq)]
enum Outcome {
    Rejected,
    Built,
}

/// Checks a mutant alone in a results folder and, where it is accepted,
/// builds the site from it; `Err` with what went wrong when either panics
/// or the build fails.
fn check_then_build(value: &Value) -> Result<Outcome, String> {
    let dir = common::results_dir();
    // A file the layout cannot place, or not as a file name this file
    // system takes, goes to the golden path (where the path rule refuses it).
    let rel = layout_path(value)
        .filter(|rel| rel.split('/').all(|part| !part.is_empty() && part != "." && part != ".." && part.len() <= 200))
        .unwrap_or_else(|| common::GOLDEN_PATH.to_string());
    common::put(dir.path(), &rel, value);
    // `site check` as the command runs it: with the release manifests,
    // which the build checks against too.
    let releases = common::site_options(dir.path()).content.join(site::releases::RELEASES_DIR);
    let checked = site::output::testing::check_with_releases(&[dir.path().to_path_buf()], &releases)
        .map_err(|e| format!("check failed: {e:#}"))?;
    if !checked.problems.is_empty() || checked.runs.is_empty() {
        return Ok(Outcome::Rejected);
    }
    let out = tempfile::tempdir().unwrap();
    site::output::build(&common::site_options(dir.path()), out.path(), &mut site::output::BuildMode::Stream)
        .map_err(|e| format!("the check accepted the file, and the build failed: {e:#}"))?;
    Ok(Outcome::Built)
}

/// `check_then_build` on a thread of its own: a panic or a case that runs
/// past `CASE_LIMIT` is an error, not a crashed or stuck test.
fn bounded(value: Value) -> Result<Outcome, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| check_then_build(&value)).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panicked: {message}"))
        });
        let _ = tx.send(outcome);
    });
    match rx.recv_timeout(CASE_LIMIT) {
        Ok(outcome) => outcome,
        Err(_) => Err(format!("did not finish within {} s", CASE_LIMIT.as_secs())),
    }
}

/// The runner: seeded, `PROPTEST_CASES` cases, no regression files written
/// into the source tree, and a bounded shrink (a hanging case costs
/// `CASE_LIMIT` each time it is tried again).
fn runner() -> TestRunner {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = DEFAULT_CASES;
    }
    if config.rng_seed == RngSeed::Random {
        config.rng_seed = RngSeed::Fixed(DEFAULT_SEED);
    }
    config.failure_persistence = None;
    config.max_shrink_time = 60_000;
    config.max_shrink_iters = 64;
    TestRunner::new(config)
}

#[test]
fn build_never_hangs_or_panics_on_what_check_accepts() {
    let sources = sources();
    assert!(sources.len() >= 8, "{} sources", sources.len());
    let strategy = (any::<Index>(), proptest::collection::vec(mutation(), 1..=4));
    let (built, rejected) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let start = Instant::now();
    let result = runner().run(&strategy, |(source, mutations)| {
        let source = source.get(&sources);
        let mut value = source.value.clone();
        let done: Vec<String> = mutations.iter().filter_map(|m| apply(&mut value, m)).collect();
        match bounded(value) {
            Ok(Outcome::Built) => {
                built.set(built.get() + 1);
                if std::env::var_os("CHECK_THEN_BUILD_SHOW").is_some() {
                    eprintln!("accepted and built: {} with {}", source.name, done.join(", "));
                }
            }
            Ok(Outcome::Rejected) => rejected.set(rejected.get() + 1),
            Err(e) => return Err(TestCaseError::fail(format!("{} with {}: {e}", source.name, done.join(", ")))),
        }
        Ok(())
    });
    eprintln!(
        "{} mutants built, {} rejected by the check, in {:.1} s",
        built.get(),
        rejected.get(),
        start.elapsed().as_secs_f64()
    );
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, _)) => panic!("{reason}"),
        Err(e) => panic!("{e}"),
    }
    // Mutants the check accepts are the point of the test: a strategy that
    // makes none would test the check alone.
    assert!(built.get() > 0, "no mutant was accepted, so no build ran");
}

/// The unmutated sources pass and build: the strategy starts from files
/// the check accepts.
#[test]
fn every_source_is_accepted_and_builds() {
    for source in sources() {
        assert_eq!(bounded(source.value.clone()), Ok(Outcome::Built), "{}", source.name);
    }
}

/// Mutations are applied where they say, and say what they did.
#[test]
fn mutations_name_their_json_path() {
    let mut v = json!({"a": [1, 2], "b": {"c": "x"}});
    let all = paths(&v);
    assert_eq!(all.iter().map(|p| json_path(p)).collect::<Vec<_>>(), ["$", "$.a", "$.a[0]", "$.a[1]", "$.b", "$.b.c"]);
    *get_mut(&mut v, &all[2]) = json!(u64::MAX);
    assert_eq!(v, json!({"a": [u64::MAX, 2], "b": {"c": "x"}}));
    let kinds = |p: &[Step]| {
        [Kind::Number, Kind::ObjectNumbers, Kind::String, Kind::Repeat, Kind::Remove]
            .into_iter()
            .filter(|&k| applies(k, p, get(&v, p)))
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&all[0]), []);
    assert_eq!(kinds(&all[1]), [Kind::Repeat, Kind::Remove]);
    assert_eq!(kinds(&all[2]), [Kind::Number, Kind::Remove]);
    assert_eq!(kinds(&all[5]), [Kind::String, Kind::Remove]);
    let object = json!({"n": 1, "s": "x"});
    assert!(applies(Kind::ObjectNumbers, &[], &object));
}

/// Builds the site from `value` as if the check had accepted it, on a
/// thread of its own with `CASE_LIMIT`: the regression tests of bugs in the
/// build must keep testing the build once the check refuses such files.
fn build_unchecked(value: Value) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| {
            let bytes = pretty(&value);
            let result = runner_bench_format::from_slice(&bytes, Path::new("mutant.json")).unwrap();
            let release = matches!(result, runner_bench_format::AnyResult::Measured(_))
                .then(|| site::releases::ReleaseStatus::SelfBuilt { reason: "a test".into() });
            let run = site::Run {
                file: "mutant.json".into(),
                rel_path: layout_path(&value).unwrap(),
                result: std::sync::Arc::new(result),
                sha256: runner_bench_format::hex(&<sha2::Sha256 as sha2::Digest>::digest(&bytes)),
                excluded: None,
                release,
                notes: vec![],
            };
            let dir = common::results_dir();
            site::output::testing::build_runs(&common::site_options(dir.path()), vec![run])
                .map(|_| ())
                .map_err(|e| format!("{e:#}"))
        });
        let _ = tx.send(outcome.unwrap_or_else(|_| Err("panicked".to_string())));
    });
    rx.recv_timeout(CASE_LIMIT).unwrap_or_else(|_| Err(format!("did not finish within {} s", CASE_LIMIT.as_secs())))
}

/// Found by the property test: an imported cache time with a maximum of
/// `f64::MAX` passed the check, and its plot's axis (the maximum × 1.05)
/// ended at infinity, where plotters' tick layout never finishes; `site
/// build` spun forever.
#[test]
fn a_cache_maximum_of_f64_max_builds() {
    let rel = "results/ubicloud/ubicloud-linux-arm64/2026-11-29-imported-2c7ad0467348.json";
    let source = sources().into_iter().find(|s| s.name == rel).unwrap();
    let mut value = source.value;
    value["stages"]["cache"]["backends"][0]["save_s"]["max"] = json!(f64::MAX);
    assert_eq!(build_unchecked(value), Ok(()));
}

/// Found while writing the property test: an HTTP cache phase's succeeded
/// and failed counts, u32 each, passed the check at `u32::MAX`, and their
/// sum for requests/s overflowed (a panic in a debug build, a wrapped
/// figure in a release one).
#[test]
fn http_cache_counts_of_u32_max_build() {
    let mut value = common::golden();
    let put = &mut value["stages"]["http_cache"]["runs"][0]["put"];
    put["succeeded"] = json!(u32::MAX);
    put["failed"] = json!(u32::MAX);
    assert_eq!(build_unchecked(value), Ok(()));
}
