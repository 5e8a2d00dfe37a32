//! Rows of an imported result: the figures are the published aggregates,
//! formatted as the reports format them.

use runner_bench_format::imported::{Aggregate, ImportedCpu, ImportedHttpCache, ImportedResult};
use runner_bench_format::measured::CacheMethod;
use runner_bench_format::{Affinity, arch_label};

use super::protocol::{self, Published};
use super::sentence::ProtocolText;
use super::view::{
    CacheRow, ConditionView, CpuRow, DiskRow, EndpointView, HttpCacheRowView, HttpCacheTableView, HttpCacheView,
    InternetRow, MachineRow, NO_ALL_CORE_IMPORTED, NoticeView, ProfileView, RunnerPart, StagesMeasured, Wording,
};
use crate::figures::{self, NONE};

pub(super) fn part(r: &ImportedResult) -> RunnerPart {
    let runner = r.runner.label.to_string();
    let published = Wording::default();
    let profile = r.published_profile.as_ref().map(|p| ProfileView {
        fingerprint: p.fingerprint.to_string(),
        protocol: p.protocol,
        samples: p.cpu_disk_samples.to_string(),
        cpu_seconds: p.cpu_seconds,
        disk_mib: p.disk_file_mib,
        cache_mib: p.cache_payload_mib,
        internet: if p.internet { "Enabled" } else { "Disabled" }.to_string(),
        transfer_mib: p.internet_transfer_mib,
        publication_gap_s: p.cache_publication_gap_s,
        // The reports state these in their wording, not in their
        // parameters table.
        sample_timeout_s: published.sample_timeout_s,
        disk_op_seconds: published.disk_op_seconds,
        max_request_mib: published.max_request_mib,
        internet_samples: published.internet_samples.clone(),
        measured: StagesMeasured::ALL,
    });
    let binary = r.machine.arch.as_ref().map_or(NONE.to_string(), |a| arch_label(a.as_str()));
    let cpu = r.stages.cpu.as_ref().map(|c| cpu_row(r, c, &runner, &binary));
    let disk = r.stages.disk.as_ref().map(|d| DiskRow {
        runner: runner.clone(),
        affinity: if d.pinned { "Pinned" } else { "Unpinned" }.to_string(),
        file_mib: d.file_mib.to_string(),
        counts: d.counts.map(|c| format!("{} / {} / {}", c.completed, c.attempted, c.requested)),
        status: d.status.as_ref().map(|s| s.to_string()),
        complete: d.counts.is_none_or(|c| c.completed == c.requested),
        read: figures::two_or_none(d.read_mib_per_s.map(|v| v.get())),
        write: figures::two_or_none(d.write_mib_per_s.map(|v| v.get())),
        rand_read: figures::two_or_none(d.rand_read_iops.map(|v| v.get())),
        rand_write: figures::two_or_none(d.rand_write_iops.map(|v| v.get())),
        headline_samples: Vec::new(),
        seq_samples: [Vec::new(), Vec::new()],
        latency: None,
    });
    let cache = r
        .stages
        .cache
        .iter()
        .flat_map(|c| &c.backends)
        .map(|b| CacheRow {
            kind: b.kind,
            // The published reports timed action steps (their wording says
            // so); they name no `uses:`.
            method: CacheMethod::Action,
            method_label: CacheMethod::Action.name().to_string(),
            runner: runner.clone(),
            backend: b.name.to_string(),
            payload_mib: figures::one(b.payload_mib.get()),
            verified: format!("{}/{}", b.verified_pairs, b.pairs),
            save: seconds(&b.save_s),
            save_mib_per_s: figures::two(b.save_mib_per_s.get()),
            save_variation: figures::percent(b.save_s.variation_pct.get()),
            restore: seconds(&b.restore_s),
            restore_mib_per_s: figures::two(b.restore_mib_per_s.get()),
            restore_variation: figures::percent(b.restore_s.variation_pct.get()),
            headline_samples: Vec::new(),
        })
        .collect();
    let (endpoint, internet) = match &r.stages.internet {
        None => (None, None),
        Some(n) => {
            let endpoint = EndpointView { name: n.endpoint.name.to_string(), url: n.endpoint.url.to_string() };
            let row = InternetRow {
                runner: runner.clone(),
                service: endpoint.name.clone(),
                status: if n.available { "ok" } else { "unavailable" }.to_string(),
                transfer_mib: n.transfer_mib.to_string(),
                download: figures::two_or_none(n.download_mbps.map(|v| v.get())),
                upload: figures::two_or_none(n.upload_mbps.map(|v| v.get())),
                request_ms: figures::two_or_none(n.request_ms.map(|v| v.get())),
                headline_samples: Vec::new(),
            };
            (Some(endpoint), Some(row))
        }
    };
    let http_cache = r.stages.http_cache.as_ref().map(|h| http_cache_view(h, &runner));
    let notices = r
        .notices
        .iter()
        .map(|n| NoticeView { runner: runner.clone(), stage: n.stage.to_string(), message: n.message.to_string() })
        .collect();
    let has_runner_figures = r.stages.cpu.is_some() || r.stages.disk.is_some() || r.build.is_some();
    let machine = has_runner_figures.then(|| MachineRow {
        runner: runner.clone(),
        cpu_model: r.machine.cpu_model.as_ref().map_or(NONE.to_string(), |c| c.to_string()),
        os_image: r.machine.os_image.as_ref().map_or(NONE.to_string(), |c| c.to_string()),
        compiler: r.build.as_ref().map_or(NONE.to_string(), |b| b.compiler.to_string()),
        flags: r.build.as_ref().map_or(NONE.to_string(), |b| b.flags.to_string()),
    });
    RunnerPart { profile, cpu, disk, cache, endpoint, internet, notices, http_cache, machine }
}

fn cpu_row(r: &ImportedResult, c: &ImportedCpu, runner: &str, binary: &str) -> CpuRow {
    let a = c.iterations_per_s;
    CpuRow {
        runner: runner.to_string(),
        binary: binary.to_string(),
        median: figures::two(a.median.get()),
        range: figures::range(a.min.get(), a.max.get()),
        variation: figures::percent(a.variation_pct.get()),
        cpu_group: match c.affinity {
            Affinity::Pinned { cpu, group } => format!("{cpu} / {group}"),
            Affinity::Unpinned => NONE.to_string(),
        },
        samples: c.samples.to_string(),
        // Against the published profile's sample count, where it has one.
        complete: r.published_profile.as_ref().is_none_or(|p| c.samples >= p.cpu_disk_samples),
        pinned: matches!(c.affinity, Affinity::Pinned { .. }),
        // A published report names no implementation; imported rows
        // have tables of their own anyway.
        official_sources: false,
        median_value: Some(a.median.get()),
        headline_samples: Vec::new(),
        all_core: None,
        vcpu_worth: None,
        all_core_why: Some(NO_ALL_CORE_IMPORTED),
    }
}

fn http_cache_view(h: &ImportedHttpCache, runner: &str) -> HttpCacheView {
    HttpCacheView {
        runner: runner.to_string(),
        software: h.software.to_string(),
        conditions: conditions(&h.conditions),
        tables: h
            .tables
            .iter()
            .map(|t| HttpCacheTableView {
                title: t.title.to_string(),
                conditions: conditions(&t.conditions),
                rows: t
                    .rows
                    .iter()
                    .map(|row| HttpCacheRowView {
                        backend: row.backend.to_string(),
                        cpu: row.cpu.to_string(),
                        cpu_quota: figures::two(row.cpu_quota.get()),
                        memory_quota_gb: row.memory_quota_gb.get().to_string(),
                        value_bytes: row.value_bytes.to_string(),
                        connections: row.connections.to_string(),
                        put_per_s: row.put_per_s.get().to_string(),
                        get_per_s: row.get_per_s.get().to_string(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The published wording of `r`'s stage sections as its report printed
/// them (the wording `view` gives its group: the seeds come back byte for
/// byte), except that the gap sentence names the profile `profile` instead
/// of by its fingerprint. For the stages' comparability keys (`keys`).
pub(crate) fn published_text(r: &ImportedResult, profile: &str) -> ProtocolText {
    let w = Wording::default();
    let s = &r.stages;
    protocol::published(&Published {
        disk_op_seconds: w.disk_op_seconds,
        sample_timeout_s: w.sample_timeout_s,
        max_request_mib: w.max_request_mib,
        internet_samples: &w.internet_samples,
        gap: r.published_profile.as_ref().and_then(|p| Some((profile, p.cache_publication_gap_s?))),
        disk_counts: s.disk.as_ref().is_none_or(|d| d.counts.is_some()),
        runner_stages: s.cpu.is_some() || s.disk.is_some() || s.internet.is_some(),
    })
}

fn seconds(a: &Aggregate) -> String {
    figures::seconds_with_range(a.median.get(), a.min.get(), a.max.get())
}

fn conditions(list: &[runner_bench_format::measured::Condition]) -> Vec<ConditionView> {
    list.iter().map(|c| ConditionView { name: c.name.to_string(), value: c.value.to_string() }).collect()
}
