//! `site build`.

use std::time::Instant;

use crate::cli::SiteArgs;
use crate::output::{Built, Writer, build_with};

/// Checks the results and writes the website.
pub fn run(args: &SiteArgs) -> anyhow::Result<Built> {
    let start = Instant::now();
    let built = build_with(&args.options(), &args.out, &mut Writer::default())?;
    println!(
        "wrote {} files ({} provider reports, {} result files) to {} in {} ms{}",
        built.files,
        built.providers.len(),
        built.result_files,
        args.out.display(),
        start.elapsed().as_millis(),
        peak_memory().map(|kib| format!(", peak memory {} MiB", kib / 1024)).unwrap_or_default()
    );
    Ok(built)
}

/// Peak resident memory in KiB (`VmHWM`), where Linux reports it: the
/// benchmark in docs/benchmarks.md quotes it.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
