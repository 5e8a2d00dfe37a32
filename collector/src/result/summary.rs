//! A short markdown summary of a run, appended to GITHUB_STEP_SUMMARY so the
//! figures show on the workflow run's page. The full per-provider report is
//! the site's job; this is a first look for whoever ran the job.

use std::fmt::Write;

use runner_bench_format::measured::{
    CacheStage, Conclusion, CpuAllCoreStage, DiskSample, HttpCachePhase, HttpCacheStage, Status, TransferSample,
    vcpu_worth,
};
use runner_bench_format::{MeasuredResult, median};

/// The summary of `result`: each stage's medians and counts, then the
/// notices (a failed job's among them).
pub fn markdown(result: &MeasuredResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### runner-bench: {} / {}\n", result.provider.id, result.runner.label);
    let _ = writeln!(out, "Profile fingerprint `{}`, collector {}.\n", result.fingerprint, result.collector.version);
    let p = &result.parameters;
    if let Some(cpu) = &result.stages.cpu {
        let scores: Vec<f64> = cpu.samples.iter().filter_map(|s| s.iterations_per_s()).collect();
        let ok = cpu.samples.iter().filter(|s| s.status == Status::Ok).count();
        let _ = writeln!(out, "| CoreMark | Median iterations/s | Samples |\n| --- | ---: | ---: |");
        let _ = writeln!(
            out,
            "| {} | {} | {ok} / {} / {} |",
            cell(result.machine.cpu_model.as_str()),
            fmt(median(&scores)),
            cpu.samples.len(),
            p.cpu_samples
        );
        for s in cpu.samples.iter().filter(|s| s.status != Status::Ok) {
            let msg = s.message.as_ref().map_or("", |m| m.as_str());
            let _ = writeln!(out, "\n- {:?}: {}", s.status, cell(msg));
        }
        out.push('\n');
    }
    if let Some(all) = &result.stages.cpu_allcore {
        cpu_allcore(&mut out, result, all);
    }
    if let Some(disk) = &result.stages.disk {
        let ok: Vec<_> = disk.samples.iter().filter(|s| s.status == Status::Ok).collect();
        let col =
            |f: &dyn Fn(&DiskSample) -> Option<f64>| fmt(median(&ok.iter().filter_map(|s| f(s)).collect::<Vec<_>>()));
        let _ = writeln!(
            out,
            "| Disk | Seq read MiB/s | Seq write MiB/s | Rand read IOPS | Rand write IOPS | Samples |\n| --- | ---: | ---: | ---: | ---: | ---: |"
        );
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} / {} / {} |\n",
            cell(disk.directory.as_str()),
            col(&|s| s.seq_read.map(|o| o.mib_per_s())),
            col(&|s| s.seq_write.map(|o| o.mib_per_s())),
            col(&|s| s.rand_read.map(|o| o.iops())),
            col(&|s| s.rand_write.map(|o| o.iops())),
            ok.len(),
            disk.samples.len(),
            p.disk_samples
        );
    }
    if let Some(net) = &result.stages.internet {
        let mbps = |v: &[TransferSample]| fmt(median(&v.iter().filter_map(TransferSample::mbps).collect::<Vec<_>>()));
        let _ = writeln!(out, "| Internet | Download Mbps | Upload Mbps |\n| --- | ---: | ---: |");
        let _ = writeln!(
            out,
            "| {} | {} | {} |\n",
            cell(net.endpoint.name.as_str()),
            mbps(&net.download),
            mbps(&net.upload)
        );
    }
    if let Some(cache) = &result.stages.cache {
        cache_table(&mut out, result, cache);
    }
    if let Some(http) = &result.stages.http_cache {
        http_cache(&mut out, http);
    }
    let failed: Vec<_> = result.provenance.jobs.iter().filter(|j| j.conclusion != Conclusion::Success).collect();
    if !result.provenance.jobs.is_empty() {
        let _ = writeln!(
            out,
            "Jobs: {} of {} succeeded.\n",
            result.provenance.jobs.len() - failed.len(),
            result.provenance.jobs.len()
        );
    }
    if !result.notices.is_empty() {
        let _ = writeln!(out, "Notices:\n");
        for n in &result.notices {
            let _ = writeln!(out, "- {}: {}", cell(n.stage.as_str()), cell(n.message.as_str()));
        }
    }
    out
}

/// The all-core stage's row, with what a vCPU is worth, and its failed
/// samples.
fn cpu_allcore(out: &mut String, result: &MeasuredResult, all: &CpuAllCoreStage) {
    let p = &result.parameters;
    let scores: Vec<f64> = all.samples.iter().filter_map(|s| s.iterations_per_s()).collect();
    let ok = all.samples.iter().filter(|s| s.status == Status::Ok).count();
    let contexts = all.samples.first().map_or(0, |s| s.contexts);
    let worth = result.stages.cpu.as_ref().and_then(|cpu| vcpu_worth(cpu, all));
    let _ = writeln!(
        out,
        "| All-core CoreMark | Contexts | Median iterations/s | vCPU worth | Samples |\n| --- | ---: | ---: | ---: | ---: |"
    );
    let _ = writeln!(
        out,
        "| {} | {contexts} | {} | {} | {ok} / {} / {} |",
        cell(result.machine.cpu_model.as_str()),
        fmt(median(&scores)),
        fmt(worth),
        all.samples.len(),
        p.cpu_samples
    );
    for s in all.samples.iter().filter(|s| s.status != Status::Ok) {
        let msg = s.message.as_ref().map_or("", |m| m.as_str());
        let _ = writeln!(out, "\n- {:?}: {}", s.status, cell(msg));
    }
    out.push('\n');
}

/// A row per cache backend, and the payload.
fn cache_table(out: &mut String, result: &MeasuredResult, cache: &CacheStage) {
    let p = &result.parameters;
    let mib = cache.payload_bytes as f64 / f64::from(1 << 20);
    let _ = writeln!(
        out,
        "| Cache backend | Method | Median save s | Median restore s | Verified pairs |\n| --- | --- | ---: | ---: | ---: |"
    );
    for b in &cache.backends {
        let verified: Vec<_> = cache.pairs.iter().filter(|x| x.backend == b.id && x.verified()).collect();
        let save: Vec<f64> = verified.iter().filter_map(|x| x.save.seconds.map(|s| s.get())).collect();
        let restore: Vec<f64> = verified.iter().filter_map(|x| x.restore.as_ref()?.seconds.map(|s| s.get())).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} / {} |",
            cell(b.name.as_str()),
            cell(&method(cache.pairs.iter().filter(|x| x.backend == b.id))),
            fmt(median(&save)),
            fmt(median(&restore)),
            verified.len(),
            p.cache_trials
        );
    }
    let _ = writeln!(out, "\nPayload {mib:.0} MiB.\n");
}

/// The build-cache stage: one row per run of the grid, PUT and GET side by
/// side, then the server it measured.
fn http_cache(out: &mut String, http: &HttpCacheStage) {
    let _ = writeln!(
        out,
        "| Build cache | Bytes | Connections | PUT/s | GET/s | Failed (PUT / GET) | p99 ms (PUT / GET) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for run in &http.runs {
        let p99 = |p: &HttpCachePhase| fmt(p.latency_p99_ms.map(|v| v.get()));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} / {} | {} / {} |",
            cell(run.backend.as_str()),
            run.value_bytes,
            run.connections,
            fmt(run.put.requests_per_s()),
            fmt(run.get.requests_per_s()),
            run.put.failed,
            run.get.failed,
            p99(&run.put),
            p99(&run.get)
        );
    }
    let protocol = http.server.protocol.map(|p| format!(" ({})", p.name())).unwrap_or_default();
    let _ = writeln!(
        out,
        "\nServer {}{protocol}, {}.\n",
        cell(http.server.url.as_str()),
        cell(http.server.software.as_str())
    );
}

/// Free text from the result, inert in markdown: HTML is escaped, a `|`
/// would end a table cell and a newline the line.
fn cell(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('|', "\\|").replace('\n', " ")
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("—".to_string(), |m| format!("{m:.2}"))
}

/// Appends the summary where GitHub Actions asks for it, if it does.
pub fn append_to_step_summary(result: &MeasuredResult) -> anyhow::Result<()> {
    append_to_github_file("GITHUB_STEP_SUMMARY", &markdown(result))
}

/// Appends `text` to the file GitHub Actions names in the variable `var`
/// (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT); nothing outside Actions.
pub fn append_to_github_file(var: &str, text: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    let Some(path) = std::env::var_os(var) else { return Ok(()) };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open {var} {}", path.to_string_lossy()))?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .with_context(|| format!("cannot write {var} {}", path.to_string_lossy()))
}

/// A backend's method, and for the action method whether one zstd thread
/// and the one-CPU affinity held in every transfer.
fn method<'a>(pairs: impl Iterator<Item = &'a runner_bench_format::measured::CachePair>) -> String {
    use runner_bench_format::measured::{CacheMethod, Observation};
    let pairs: Vec<_> = pairs.collect();
    let Some(first) = pairs.first() else { return "none".into() };
    if first.method == CacheMethod::Client {
        return "client".into();
    }
    let steps: Vec<_> = pairs
        .iter()
        .flat_map(|p| [Some(&p.save), p.restore.as_ref()])
        .flatten()
        .filter_map(|t| t.action.as_ref())
        .collect();
    let all = |f: &dyn Fn(&runner_bench_format::measured::ActionStep) -> Observation| {
        let seen: Vec<Observation> = steps.iter().map(|a| f(a)).collect();
        if seen.contains(&Observation::Failed) {
            "failed"
        } else if !seen.is_empty() && seen.iter().all(|o| *o == Observation::Held) {
            "held"
        } else {
            "not observed"
        }
    };
    format!("action; one zstd thread: {}; one CPU: {}", all(&|a| a.single_thread), all(&|a| a.affinity_inherited))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_the_golden_result() {
        let r = crate::test_support::golden();
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

    /// The all-core table: contexts, the median, what a vCPU is worth
    /// (all-core median ÷ (one-thread median × contexts)), each failure.
    #[test]
    fn summarises_the_all_core_stage() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1-allcore.json");
        let runner_bench_format::AnyResult::Measured(r) = runner_bench_format::read_file(path.as_ref()).unwrap() else {
            panic!("a measured result")
        };
        let md = markdown(&r);
        let all = r.stages.cpu_allcore.as_ref().unwrap();
        let median_all = 1_200_000.0 / 30.0212;
        let mut one: Vec<f64> =
            r.stages.cpu.as_ref().unwrap().samples.iter().filter_map(|s| s.iterations_per_s()).collect();
        one.sort_by(f64::total_cmp);
        let worth = median_all / ((one[1] + one[2]) / 2.0 * 2.0);
        assert_eq!(
            vcpu_worth(r.stages.cpu.as_ref().unwrap(), all).map(|w| format!("{w:.2}")),
            Some(format!("{worth:.2}"))
        );
        let want = format!("| AMD EPYC 9454P 48-Core Processor | 2 | {median_all:.2} | {worth:.2} | 3 / 5 / 5 |");
        assert!(md.contains(&want), "{md}");
        assert!(md.contains("- Timeout: sample exceeded 60s after 931072 iterations"), "{md}");
        assert!(
            md.contains(
                "- Error: CoreMark CRC check failed: context 1: performance run: crclist 0x1234, expected 0xe714"
            ),
            "{md}"
        );
    }

    #[test]
    fn names_each_backends_method_and_what_held() {
        use runner_bench_format::Name;
        use runner_bench_format::measured::{ActionStep, CacheMethod, Observation};
        let r = crate::test_support::golden();
        let cache = r.stages.cache.as_ref().unwrap();
        assert_eq!(method(cache.pairs.iter()), "client");
        let mut pairs = cache.pairs.clone();
        let step = |single, affinity| ActionStep {
            uses: Name::lossy("actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae"),
            processes: Vec::new(),
            single_thread: single,
            affinity_inherited: affinity,
        };
        for p in &mut pairs {
            p.method = CacheMethod::Action;
            p.save.action = Some(step(Observation::Held, Observation::Held));
        }
        assert_eq!(method(pairs.iter()), "action; one zstd thread: held; one CPU: held");
        pairs[0].save.action = Some(step(Observation::Held, Observation::Failed));
        pairs[1].save.action = Some(step(Observation::NotObserved, Observation::Held));
        assert_eq!(method(pairs.iter()), "action; one zstd thread: not observed; one CPU: failed");
    }

    /// The build-cache table, exactly: each run's rates to two places, its
    /// failures and p99 latencies per phase, "—" where a phase has none.
    #[test]
    fn tabulates_each_build_cache_run() {
        use runner_bench_format::NonNeg;
        use runner_bench_format::measured::{HttpCacheProtocol, Stages};
        let mut r = crate::test_support::golden();
        let mut http = r.stages.http_cache.take().unwrap();
        http.server.protocol = Some(HttpCacheProtocol::Gradle);
        http.runs[0].put.latency_p99_ms = NonNeg::new(2.5).ok();
        http.runs[0].get.latency_p99_ms = NonNeg::new(1.25).ok();
        http.runs[0].get.failed = 3;
        r.stages = Stages { http_cache: Some(http), ..Stages::default() };
        r.notices.clear();
        assert_eq!(
            markdown(&r),
            "### runner-bench: example / example-linux-x64\n\n\
             Profile fingerprint `739dba2a6817`, collector 0.1.0.\n\n\
             | Build cache | Bytes | Connections | PUT/s | GET/s | Failed (PUT / GET) | p99 ms (PUT / GET) |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n\
             | in-memory | 4096 | 10 | 4268.03 | 5409.92 | 0 / 3 | 2.50 / 1.25 |\n\
             | in-memory | 65536 | 100 | 1522.07 | — | 0 / 12 | — / — |\n\
             \n\
             Server http://127.0.0.1:8080/ (gradle), RBCS 0.3.0.\n\n"
        );
    }
}
