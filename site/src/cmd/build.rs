//! `site build`.

use std::io::Write;
use std::time::Instant;

use crate::cmd::args::SiteArgs;
use crate::output::{BuildMode, Built, build};
use crate::timing::memory_kib;

/// Checks the results and writes the website.
pub fn run(args: &SiteArgs) -> anyhow::Result<Built> {
    let start = Instant::now();
    let built = build(&args.options(), &args.out, &mut BuildMode::Stream)?;
    writeln!(
        std::io::stdout().lock(),
        "wrote {} files ({} provider reports, {} result files) to {} in {} ms{}",
        built.files,
        built.providers.len(),
        built.result_files,
        args.out.display(),
        start.elapsed().as_millis(),
        // Peak resident memory: the benchmark in docs/benchmarks.md quotes it.
        memory_kib("VmHWM").map(|kib| format!(", peak memory {} MiB", kib / 1024)).unwrap_or_default()
    )?;
    Ok(built)
}
