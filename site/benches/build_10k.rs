//! The `site build` benchmark (not a test): 10,000 result files, 1,000
//! runners × 10 runs, made from the format's golden result. Times a full
//! build of the release binary (wall time and peak memory as `site build`
//! reports them) and, in process as `site serve` does it, the rebuild after
//! one result changes (`SITE_BENCH_REBUILDS` times, default 5, the median
//! printed with every run). docs/benchmarks.md records the figures.
//! `HUGO_SITE=DIR` also writes the Hugo site that `scripts/bench-hugo.sh`
//! builds beside `site build` (see `build_10k/hugo_site.rs`).
//!
//! ```sh
//! CARGO_TARGET_DIR=/work/target-site cargo bench -p site --locked --bench build_10k
//! ```

use std::path::Path;
use std::process::Command;
use std::time::Instant;

#[path = "build_10k/hugo_site.rs"]
mod hugo_site;

/// The serve rebuild below runs in this process: with the allocator and
/// options of the `site` binary (src/main.rs), as `site serve` runs it.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[cfg(target_os = "linux")]
#[unsafe(export_name = "_rjem_malloc_conf")]
static MALLOC_CONF: &[u8; 34] = b"dirty_decay_ms:0,muzzy_decay_ms:0\0";

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1.json");
const RUNS: usize = 10;
const PROVIDERS: usize = 20;
/// Every run on the golden result's own day, run `n` at hour 10 + n: the
/// check rejects a result dated before the project's first day (2026-11-29).
const DAY: &str = "2026-11-29";

/// Runners in the generated set (`SITE_BENCH_RUNNERS`, default 1,000: 10,000
/// results; at most 10,000, as runner labels have four digits).
fn runners() -> usize {
    std::env::var("SITE_BENCH_RUNNERS").ok().and_then(|n| n.parse().ok()).unwrap_or(1_000).clamp(1, 10_000)
}

fn main() {
    let runners = runners();
    // SITE_BENCH_GENERATE_ONLY=DIR writes the results into DIR and stops:
    // scripts/bench-scale.sh times the builds itself.
    if let Some(only) = std::env::var_os("SITE_BENCH_GENERATE_ONLY") {
        let golden = std::fs::read_to_string(GOLDEN).unwrap();
        for r in 0..runners {
            for n in 0..RUNS {
                write_result(Path::new(&only), &golden, r, n);
            }
        }
        println!("generated {} result files in {}", runners * RUNS, Path::new(&only).display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // SITE_BENCH_RESULTS=DIR also leaves a copy of the generated results in
    // DIR, for profiling `site build` by hand.
    let results = dir.path().join("results");
    let golden = std::fs::read_to_string(GOLDEN).unwrap();
    let start = Instant::now();
    for r in 0..runners {
        for n in 0..RUNS {
            write_result(&results, &golden, r, n);
        }
    }
    println!("generated {} result files in {:.2} s", runners * RUNS, start.elapsed().as_secs_f64());
    if let Some(keep) = std::env::var_os("SITE_BENCH_RESULTS") {
        for r in 0..runners {
            for n in 0..RUNS {
                write_result(Path::new(&keep), &golden, r, n);
            }
        }
    }

    if let Some(hugo) = std::env::var_os("HUGO_SITE") {
        let start = Instant::now();
        hugo_site::write(Path::new(&hugo), runners * RUNS);
        println!("generated a Hugo site of {} pages in {:.2} s", runners * RUNS, start.elapsed().as_secs_f64());
    }

    // A full build by the release binary, as Netlify runs it.
    let site = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/site");
    let site = std::env::var("SITE_BIN").map(Into::into).unwrap_or(site);
    let out = dir.path().join("public");
    let start = Instant::now();
    let status = Command::new(&site)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .arg("build")
        .arg("--results")
        .arg(&results)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {} (build it with cargo build -p site --release): {e}", site.display()));
    assert!(status.success());
    println!("site build: {:.2} s wall", start.elapsed().as_secs_f64());

    // `site serve`: a warm memo, one changed result.
    let mut opts = site::web::Options::new(&results);
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    (opts.content, opts.docs, opts.templates) = (root.join("content"), root.join("docs"), root.join("templates"));
    let out = dir.path().join("serve");
    let mut mode = site::output::BuildMode::serve();
    site::output::build(&opts, &out, &mut mode).unwrap();
    // SITE_BENCH_REBUILDS rebuilds (default 5), each after one result
    // changed (the same file, its commit one letter longer each time): the
    // median is the figure, the spread beside it.
    let rebuilds: usize = std::env::var("SITE_BENCH_REBUILDS").ok().and_then(|n| n.parse().ok()).unwrap_or(5);
    let changed = results.join(path_of(0, 3));
    let (mut ms, mut cpu_ms) = (Vec::new(), Vec::new());
    let mut rewritten = (0, 0);
    for _ in 0..rebuilds.max(1) {
        let text = std::fs::read_to_string(&changed).unwrap().replacen("\"commit\": \"", "\"commit\": \"f", 1);
        std::fs::write(&changed, text).unwrap();
        let (start, cpu) = (Instant::now(), cpu_ms_so_far());
        let built = site::output::build(&opts, &out, &mut mode).unwrap();
        ms.push(start.elapsed().as_secs_f64() * 1000.0);
        cpu_ms.push(cpu_ms_so_far() - cpu);
        rewritten = (built.written, built.files);
    }
    let runs: Vec<String> = ms.iter().map(|m| format!("{m:.0}")).collect();
    let cpu: Vec<String> = cpu_ms.iter().map(|m| format!("{m:.0}")).collect();
    ms.sort_by(f64::total_cmp);
    let median = if ms.len() % 2 == 1 { ms[ms.len() / 2] } else { (ms[ms.len() / 2 - 1] + ms[ms.len() / 2]) / 2.0 };
    println!(
        "site serve rebuild after one changed result: {median:.0} ms ({} of {} files rewritten; median of {} \
         rebuilds: {} ms; CPU time, user + system, of each: {} ms)",
        rewritten.0,
        rewritten.1,
        ms.len(),
        runs.join(", "),
        cpu.join(", ")
    );
}

/// This process's CPU time (user + system, every thread) so far: on a
/// shared machine the wall time of a rebuild also counts other programs.
fn cpu_ms_so_far() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
    ms(usage.ru_utime) + ms(usage.ru_stime)
}

fn label(r: usize) -> (String, String) {
    (format!("bench{:02}", r % PROVIDERS), format!("bench-runner-{r:04}"))
}

fn path_of(r: usize, n: usize) -> String {
    let (provider, runner) = label(r);
    format!("{provider}/{runner}/{DAY}-{}-1.json", run_id(r, n))
}

fn run_id(r: usize, n: usize) -> u64 {
    20_000_000_000 + (r * RUNS + n) as u64
}

fn write_result(results: &Path, golden: &str, r: usize, n: usize) {
    let (provider, runner) = label(r);
    let i = r * RUNS + n;
    let text = golden
        .replace("2026-11-29T10:", &format!("{DAY}T{}:", 10 + n))
        .replace("\"id\": \"example\"", &format!("\"id\": \"{provider}\""))
        .replace("\"label\": \"example-linux-x64\"", &format!("\"label\": \"{runner}\""))
        .replace("18342215517", &run_id(r, n).to_string())
        // Each file's own machine and restore instance, and its own first
        // CoreMark sample: the check rejects a file that repeats another's run.
        .replace("2b8c1d0e4f10", &format!("{i:012x}"))
        .replace("7f2a1c0e9b33", &format!("{:012x}", 0x8000_0000_0000 + i))
        .replacen("\"iterations\": 1000032,", &format!("\"iterations\": {},", 1_000_000 + i), 1);
    let path = results.join(path_of(r, n));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
