//! A short markdown summary of a run, appended to GITHUB_STEP_SUMMARY so the
//! figures show on the workflow run's page. The full per-provider report is
//! the site's job; this is a first look for whoever ran the job.

use std::fmt::Write;

use runner_bench_format::MeasuredResult;
use runner_bench_format::measured::Status;

/// The summary of `result`.
pub fn markdown(result: &MeasuredResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### runner-bench: {} / {}\n", result.provider.id, result.runner.label);
    let _ = writeln!(out, "Profile fingerprint `{}`, collector {}.\n", result.fingerprint, result.collector.version);
    if let Some(cpu) = &result.stages.cpu {
        let scores: Vec<f64> = cpu.samples.iter().filter_map(|s| s.iterations_per_s()).collect();
        let ok = cpu.samples.iter().filter(|s| s.status == Status::Ok).count();
        let _ = writeln!(out, "| CoreMark | Median iterations/s | Samples |\n| --- | ---: | ---: |");
        let median = median(&scores).map_or("—".to_string(), |m| format!("{m:.2}"));
        let _ = writeln!(
            out,
            "| {} | {median} | {ok} / {} / {} |",
            result.machine.cpu_model.as_str().replace('|', "\\|"),
            cpu.samples.len(),
            result.parameters.cpu_samples
        );
        for s in cpu.samples.iter().filter(|s| s.status != Status::Ok) {
            let msg = s.message.as_ref().map_or("", |m| m.as_str());
            let _ = writeln!(out, "\n- {:?}: {}", s.status, msg.replace('\n', " "));
        }
    }
    out
}

fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Appends the summary where GitHub Actions asks for it, if it does.
pub fn append_to_step_summary(result: &MeasuredResult) -> anyhow::Result<()> {
    use anyhow::Context;
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") else { return Ok(()) };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open GITHUB_STEP_SUMMARY {}", path.to_string_lossy()))?;
    std::io::Write::write_all(&mut file, markdown(result).as_bytes())
        .with_context(|| format!("cannot write GITHUB_STEP_SUMMARY {}", path.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn summarises_the_golden_result() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
        let runner_bench_format::AnyResult::Measured(r) = runner_bench_format::read_file(&path).unwrap() else {
            panic!("golden is measured")
        };
        let md = markdown(&r);
        assert!(md.starts_with("### runner-bench: example / example-linux-x64\n"), "{md}");
        // Median of the four validated samples (the fifth failed its CRC).
        let mut ips: Vec<f64> =
            r.stages.cpu.as_ref().unwrap().samples.iter().filter_map(|s| s.iterations_per_s()).collect();
        ips.sort_by(f64::total_cmp);
        let want = format!("| AMD EPYC 9454P 48-Core Processor | {:.2} | 4 / 5 / 5 |", (ips[1] + ips[2]) / 2.0);
        assert!(md.contains(&want), "{md}");
        assert!(md.contains("- Error: CoreMark validation CRC mismatch"), "{md}");
    }
}
