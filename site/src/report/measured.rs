//! Rows of a measured result: the figures are computed here from the
//! accepted samples (see stats.rs and docs/methodology.md).

use runner_bench_format::measured::{
    CacheStage, CoreMarkImplementation, CpuStage, DiskOp, DiskSample, DiskStage, HttpCacheStage, InternetStage,
    MeasuredResult, Status, vcpu_worth,
};
use runner_bench_format::{Affinity, arch_label};

use super::cache_protocol;
use super::sentence::count_word;
use super::view::{
    CacheRow, ConditionView, CpuRow, DiskRow, EndpointView, HttpCacheRowView, HttpCacheTableView, HttpCacheView,
    InternetRow, Latency, MachineRow, NO_ALL_CORE_PROFILE, NO_ALL_CORE_RUN, NO_ALL_CORE_SAMPLE, NoticeView,
    ProfileView, RunnerPart, StagesMeasured,
};
use crate::figures::{self, NONE};
use crate::stats::{self, summarize};

const MIB: f64 = 1024.0 * 1024.0;

/// The disk stage's four operations, in the order of its tables.
const DISK_OPS: [fn(&DiskSample) -> Option<&DiskOp>; 4] =
    [|s| s.seq_read.as_ref(), |s| s.seq_write.as_ref(), |s| s.rand_read.as_ref(), |s| s.rand_write.as_ref()];

pub(super) fn part(m: &MeasuredResult) -> RunnerPart {
    let runner = m.runner.label.to_string();
    let (endpoint, internet) = match &m.stages.internet {
        None => (None, None),
        Some(net) => {
            let (endpoint, row) = internet_row(m, net, &runner);
            (Some(endpoint), Some(row))
        }
    };
    let notices = m
        .notices
        .iter()
        .map(|n| NoticeView { runner: runner.clone(), stage: n.stage.to_string(), message: n.message.to_string() })
        .collect();
    RunnerPart {
        profile: Some(profile(m)),
        cpu: m.stages.cpu.as_ref().map(|cpu| cpu_row(m, cpu, &runner)),
        disk: m.stages.disk.as_ref().map(|disk| disk_row(m, disk, &runner)),
        cache: m.stages.cache.as_ref().map_or_else(Vec::new, |stage| cache_rows(m, stage, &runner)),
        endpoint,
        internet,
        notices,
        http_cache: m.stages.http_cache.as_ref().map(|h| http_cache_view(m, h, &runner)),
        machine: Some(machine_row(m, &runner)),
    }
}

/// The profile the result was measured with.
fn profile(m: &MeasuredResult) -> ProfileView {
    let p = &m.parameters;
    let samples = if p.cpu_samples == p.disk_samples {
        p.cpu_samples.to_string()
    } else {
        format!("{} / {}", p.cpu_samples, p.disk_samples)
    };
    ProfileView {
        fingerprint: m.fingerprint.to_string(),
        protocol: p.protocol,
        samples,
        cpu_seconds: p.cpu_seconds,
        disk_mib: p.disk_file_mib,
        cache_mib: p.cache_payload_mib,
        internet: if p.internet { "Enabled" } else { "Disabled" }.to_string(),
        transfer_mib: p.internet_transfer_mib,
        publication_gap_s: Some(p.cache_publication_gap_s),
        sample_timeout_s: p.sample_timeout_s,
        disk_op_seconds: p.disk_op_seconds,
        max_request_mib: p.internet_max_request_mib,
        internet_samples: count_word(p.internet_samples),
        measured: StagesMeasured {
            cpu: m.stages.cpu.is_some(),
            disk: m.stages.disk.is_some(),
            cache: m.stages.cache.is_some(),
            internet: m.stages.internet.is_some(),
        },
    }
}

fn cpu_row(m: &MeasuredResult, cpu: &CpuStage, runner: &str) -> CpuRow {
    let p = &m.parameters;
    // A sample whose CoreMark validation failed is never a score.
    let accepted: Vec<f64> = cpu.samples.iter().filter_map(|s| s.iterations_per_s()).collect();
    let affinity = cpu.samples.first().map_or(Affinity::Unpinned, |s| s.affinity);
    let summary = summarize(&accepted);
    CpuRow {
        runner: runner.to_string(),
        binary: arch_label(m.machine.arch.as_str()),
        median: figures::two_or_none(summary.map(|s| s.median)),
        range: summary.map_or(NONE.to_string(), |s| figures::range(s.min, s.max)),
        variation: summary.map_or(NONE.to_string(), |s| figures::percent(s.variation_pct)),
        cpu_group: match affinity {
            Affinity::Pinned { cpu, group } => format!("{cpu} / {group}"),
            Affinity::Unpinned => NONE.to_string(),
        },
        samples: accepted.len().to_string(),
        complete: accepted.len() == p.cpu_samples as usize,
        pinned: matches!(affinity, Affinity::Pinned { .. }),
        official_sources: m.build.coremark.implementation == CoreMarkImplementation::Eembc,
        median_value: summary.map(|s| s.median),
        headline_samples: accepted.clone(),
        all_core: m.stages.cpu_allcore.as_ref().and_then(|all| {
            let accepted: Vec<f64> = all.samples.iter().filter_map(|s| s.iterations_per_s()).collect();
            summarize(&accepted).map(|s| [s.median, s.min, s.max])
        }),
        vcpu_worth: m.stages.cpu_allcore.as_ref().and_then(|all| vcpu_worth(cpu, all)),
        all_core_why: all_core_why(m),
    }
}

fn disk_row(m: &MeasuredResult, disk: &DiskStage, runner: &str) -> DiskRow {
    let p = &m.parameters;
    let ok: Vec<_> = disk.samples.iter().filter(|s| s.status == Status::Ok).collect();
    let med = |f: &dyn Fn(&runner_bench_format::measured::DiskSample) -> Option<f64>| {
        figures::two_or_none(stats::median(&ok.iter().filter_map(|s| f(s)).collect::<Vec<_>>()))
    };
    let completed = ok.len();
    let complete = completed == p.disk_samples as usize;
    // An accepted file has fewer samples than requested only where a
    // job that did not succeed measured them (`provenance.jobs`, see
    // validate.rs): those count as attempted and not completed.
    let attempted = disk.samples.len().max(p.disk_samples as usize);
    DiskRow {
        runner: runner.to_string(),
        affinity: disk.samples.first().map_or(Affinity::Unpinned, |s| s.affinity).label().to_string(),
        file_mib: p.disk_file_mib.to_string(),
        counts: Some(format!("{completed} / {attempted} / {}", p.disk_samples)),
        status: Some(if complete { "ok" } else { "incomplete" }.to_string()),
        complete,
        read: med(&|s| s.seq_read.map(|o| o.mib_per_s())),
        write: med(&|s| s.seq_write.map(|o| o.mib_per_s())),
        rand_read: med(&|s| s.rand_read.map(|o| o.iops())),
        rand_write: med(&|s| s.rand_write.map(|o| o.iops())),
        headline_samples: ok.iter().filter_map(|s| s.rand_read.map(|o| o.iops())).collect(),
        seq_samples: [
            ok.iter().filter_map(|s| s.seq_read.map(|o| o.mib_per_s())).collect(),
            ok.iter().filter_map(|s| s.seq_write.map(|o| o.mib_per_s())).collect(),
        ],
        latency: Some(DISK_OPS.map(|op| {
            let of = |p: fn(&DiskOp) -> f64| {
                figures::two_or_none(stats::median(&ok.iter().filter_map(|s| op(s).map(p)).collect::<Vec<_>>()))
            };
            Latency { p50_us: of(|o| o.latency_p50_us.get()), p99_us: of(|o| o.latency_p99_us.get()) }
        })),
    }
}

/// A row per cache backend.
fn cache_rows(m: &MeasuredResult, stage: &CacheStage, runner: &str) -> Vec<CacheRow> {
    let p = &m.parameters;
    let mut cache = Vec::new();
    for backend in &stage.backends {
        let pairs: Vec<_> = stage.pairs.iter().filter(|pair| pair.backend == backend.id).collect();
        let verified: Vec<_> = pairs.iter().filter(|pair| pair.verified()).collect();
        let saves: Vec<f64> = verified.iter().filter_map(|pair| pair.save.seconds.map(|s| s.get())).collect();
        let restores: Vec<f64> =
            verified.iter().filter_map(|pair| pair.restore.as_ref()?.seconds.map(|s| s.get())).collect();
        let (save, save_mib_per_s, save_variation) = transfer(stage.payload_bytes, &saves);
        let (restore, restore_mib_per_s, restore_variation) = transfer(stage.payload_bytes, &restores);
        cache.push(CacheRow {
            kind: backend.kind,
            method: cache_protocol::method_of(stage, &backend.id),
            method_label: cache_protocol::method_label(stage, &backend.id),
            runner: runner.to_string(),
            backend: backend.name.to_string(),
            payload_mib: figures::one(stage.payload_bytes as f64 / MIB),
            verified: format!("{}/{}", verified.len(), p.cache_trials),
            save,
            save_mib_per_s,
            save_variation,
            restore,
            restore_mib_per_s,
            restore_variation,
            headline_samples: restores,
        });
    }
    cache
}

fn internet_row(m: &MeasuredResult, net: &InternetStage, runner: &str) -> (EndpointView, InternetRow) {
    let p = &m.parameters;
    // A test with any failed or missing transfer has no speed score.
    let n = p.internet_samples as usize;
    let complete = net.download.len() == n
        && net.upload.len() == n
        && net.download.iter().chain(&net.upload).all(|s| s.status == Status::Ok);
    let score = |samples: &[runner_bench_format::measured::TransferSample]| {
        let mbps: Vec<f64> = samples.iter().filter_map(|s| s.mbps()).collect();
        figures::two_or_none(stats::median(&mbps).filter(|_| complete))
    };
    let ms: Vec<f64> = net.request.iter().filter_map(|s| s.ms.map(|v| v.get())).collect();
    let endpoint = EndpointView { name: net.endpoint.name.to_string(), url: net.endpoint.url.to_string() };
    let row = InternetRow {
        runner: runner.to_string(),
        service: endpoint.name.clone(),
        status: if complete { "ok" } else { "unavailable" }.to_string(),
        transfer_mib: p.internet_transfer_mib.to_string(),
        download: score(&net.download),
        upload: score(&net.upload),
        request_ms: figures::two_or_none(stats::median(&ms).filter(|_| complete)),
        headline_samples: if complete { net.download.iter().filter_map(|s| s.mbps()).collect() } else { Vec::new() },
    };
    (endpoint, row)
}

fn http_cache_view(m: &MeasuredResult, h: &HttpCacheStage, runner: &str) -> HttpCacheView {
    let rows = h
        .runs
        .iter()
        .map(|r| HttpCacheRowView {
            backend: r.backend.to_string(),
            cpu: m.machine.cpu_model.to_string(),
            cpu_quota: r.cpu_quota.map_or(NONE.to_string(), |q| figures::two(q.get())),
            memory_quota_gb: r.memory_quota_gb.map_or(NONE.to_string(), |q| q.get().to_string()),
            value_bytes: r.value_bytes.to_string(),
            connections: r.connections.to_string(),
            put_per_s: r.put.requests_per_s().map_or(NONE.to_string(), |v| format!("{v:.0}")),
            get_per_s: r.get.requests_per_s().map_or(NONE.to_string(), |v| format!("{v:.0}")),
        })
        .collect();
    HttpCacheView {
        runner: runner.to_string(),
        software: h.server.software.to_string(),
        conditions: h
            .server
            .conditions
            .iter()
            .map(|c| ConditionView { name: c.name.to_string(), value: c.value.to_string() })
            .collect(),
        tables: vec![HttpCacheTableView { title: h.server.url.to_string(), conditions: Vec::new(), rows }],
    }
}

fn machine_row(m: &MeasuredResult, runner: &str) -> MachineRow {
    MachineRow {
        runner: runner.to_string(),
        cpu_model: m.machine.cpu_model.to_string(),
        os_image: m
            .provenance
            .image
            .as_ref()
            .map_or_else(|| m.machine.os_release.to_string(), |i| i.version.to_string()),
        compiler: m.build.compiler.to_string(),
        flags: m.build.flags_label(),
    }
}

/// Seconds `median; min–max`, MiB/s from the median, and variation.
fn transfer(payload_bytes: u64, seconds: &[f64]) -> (String, String, String) {
    match summarize(seconds) {
        None => (NONE.to_string(), NONE.to_string(), NONE.to_string()),
        Some(s) => (
            figures::seconds_with_range(s.median, s.min, s.max),
            figures::two(stats::mib_per_s(payload_bytes, s.median)),
            figures::percent(s.variation_pct),
        ),
    }
}

/// Why `m` has no all-core figure (`CpuRow::all_core_why`); none where it
/// has one.
fn all_core_why(m: &MeasuredResult) -> Option<&'static str> {
    let Some(all) = &m.stages.cpu_allcore else {
        let asked = m.parameters.cpu_allcore == Some(true);
        return Some(if asked { NO_ALL_CORE_RUN } else { NO_ALL_CORE_PROFILE });
    };
    (!all.samples.iter().any(|s| s.iterations_per_s().is_some())).then_some(NO_ALL_CORE_SAMPLE)
}
