//! The tables of a runner page (history, each stage's figures per result,
//! machine and build), written as HTML here rather than by templates/
//! runner.html: they repeat for every result of the runner, and Tera's
//! context (every row turned into JSON values) and its rendering of them
//! were most of a build's time for runner pages (docs/benchmarks.md,
//! "site build against the build before issue 14"). The page around them
//! stays a template.
//!
//! Every text from a result file goes through `Html::text` (site/src/web/
//! html.rs), Tera's own HTML escaping, and the markup is the template's, so that the pages are
//! the ones the template made, byte for byte (compared when the tables
//! moved here, on the benchmark's 10,000 results, the repository's results
//! and the test fixtures); site/tests/suite/history.rs checks what they say and
//! that injected text stays inert.

use super::html::{Html, given, meta_cells};
use super::pages::PerCent;
use crate::model::Meta;
use crate::model::Stages;
use crate::model::changes::Change;
use crate::model::details::{Cores, Machine};
use crate::model::run::RunView;
use crate::providers::RunnerSpec;
use crate::providers::machine::machine_mismatch;
use crate::report::{CacheRow, CpuRow, DiskRow, InternetRow};

/// One result in a runner's history: its stages, each with its own marks,
/// its machine and build, and the changes flagged on it (`changes`).
#[derive(Debug, Clone)]
pub(super) struct HistoryRow<'a> {
    pub meta: &'a Meta,
    /// The row's anchor, `r-` and the result file's stem.
    pub anchor: String,
    /// Its headline figures that moved beyond their intervals since the
    /// runner's previous result.
    pub changes: &'a [Change],
    pub cpu: Option<StageRow<'a, CpuRow>>,
    /// Its one-thread and all-core CoreMark, where it ran both.
    pub cores: Option<&'a Cores>,
    pub disk: Option<StageRow<'a, DiskRow>>,
    /// One per cache backend and method the result measured.
    pub cache: Vec<StageRow<'a, CacheRow>>,
    pub internet: Option<StageRow<'a, InternetRow>>,
    /// Its build-cache benchmark's page, where it has one.
    pub server: Option<ServerRef<'a>>,
    /// Its run, where it has a run record (`runs`).
    pub run: Option<&'a RunView>,
}

/// Consecutive results of a runner (newest first) on the same machine and
/// build: one row of the runner page's machine and build tables, so that a
/// change of machine stands out and ten runs on one machine are one row.
#[derive(Debug, Clone)]
pub(super) struct MachineSpan<'a> {
    pub machine: &'a Machine,
    /// Anchor and date of its newest and oldest result.
    pub newest: (&'a str, &'a str),
    pub oldest: (&'a str, &'a str),
    pub results: usize,
}

/// One stage's figures of one result, marked on their own.
#[derive(Debug, Clone)]
pub(super) struct StageRow<'a, T> {
    pub fig: &'a T,
    /// A sample this stage's parameters asked for is missing or failed.
    pub incomplete: bool,
    /// Why, where the file says (measured results).
    pub reason: Option<&'a str>,
    /// The headline median's 95 % bootstrap interval, `lo–hi`.
    pub ci: Option<String>,
    /// Its headline figure varies by more than `VARIATION_FLAG_PCT`.
    pub variable: bool,
    /// Its speed figures per US cent per minute, where a price is stated.
    pub per_cent: PerCent,
}

/// A result's build-cache benchmark, as its runner page links it.
#[derive(Debug, Clone)]
pub(super) struct ServerRef<'a> {
    pub software: &'a str,
    /// The server's URL or the document's title.
    pub target: &'a str,
    /// Its document page: the newest result per runner and server has one.
    pub url: Option<&'a str>,
}

/// The runner page's tables, from its rows (newest first) and machine
/// spans; `any` says which stages' tables to show, `per_cent` whether the
/// runner's price is stated (the stages' note then mentions the value per
/// cent).
pub(super) fn render(
    rows: &[HistoryRow<'_>],
    machines: &[MachineSpan<'_>],
    any: Stages,
    per_cent: bool,
    stated: &RunnerSpec,
) -> String {
    let mut h = Html::with_capacity(16_384 + rows.len() * 4_096);
    history(&mut h, rows);
    h.raw("\n<h2 id=\"stages\">Stages of each result</h2>\n<p>Each stage's figures per result, newest first, each row with its result's profile under its date (a quick try-out's figures beside a standard result's are measured differently, not a change of the runner) and marked on its own: <span class=\"mark incomplete\">incomplete</span> where a sample the stage's parameters asked for is missing or failed, with the reason the file gives; <span class=\"mark variable\">variable</span> where the headline figure's samples vary by more than 10 % (coefficient of variation). Under the headline median, for measured results, the range of its samples where there are 3 to 5 of them (not repeated where a Min–max column shows it), its percentile bootstrap interval of the median (nominally 95 %; its coverage is in general not 95 %: 87.5 % at 7 samples, at 6 depending on the distribution) where there are 6 or more");
    if per_cent {
        h.raw("; under each speed figure, its value per US cent per minute");
    }
    h.raw(".</p>");
    if any.cpu {
        cpu(&mut h, rows);
    }
    if rows.iter().any(|r| r.cores.is_some()) {
        cores(&mut h, rows);
    }
    if any.disk {
        disk(&mut h, rows);
    }
    if any.cache {
        cache(&mut h, rows);
    }
    if any.internet {
        internet(&mut h, rows);
    }
    if any.http_cache {
        build_cache(&mut h, rows);
    }
    machine_and_build(&mut h, machines, stated);
    h.into_string()
}

/// One result per row: fingerprint, change flags, date, collector, marks, source.
fn history(h: &mut Html, rows: &[HistoryRow<'_>]) {
    h.raw("<div class=\"scroll\"><table class=\"sortable\" id=\"t-history\">\n<caption>Results of this runner, newest first</caption>\n<thead><tr><th scope=\"col\">Fingerprint</th><th scope=\"col\">Changes since the previous result</th><th scope=\"col\">Date</th><th scope=\"col\">Collector</th><th scope=\"col\">Marks</th><th scope=\"col\">Source</th></tr></thead>\n<tbody>");
    for r in rows {
        h.raw("\n<tr id=\"").text(&r.anchor).raw("\"");
        if given(r.meta.excluded.as_deref()) {
            h.raw(" class=\"marked\"");
        }
        h.raw("><td>");
        if r.meta.fingerprint.is_empty() {
            h.raw("—");
        } else {
            h.raw("<code>").text(&r.meta.fingerprint).raw("</code>");
        }
        h.raw("</td><td>");
        changes(h, r);
        h.raw("</td>");
        meta_cells(h, r.meta, r.meta.incomplete, true);
        h.raw("</tr>");
    }
    h.raw("\n</tbody></table></div>");
}

/// A history row's change flags (`changes::compute`).
fn changes(h: &mut Html, r: &HistoryRow<'_>) {
    if r.meta.imported {
        h.raw("<span class=\"muted\">no interval (imported)</span>");
        return;
    }
    if r.changes.is_empty() {
        h.raw("—");
        return;
    }
    for c in r.changes {
        let verdict = if c.better { "better" } else { "worse" };
        h.raw("<span class=\"change\"><span class=\"mark change ")
            .raw(verdict)
            .raw("\" title=\"A hint, not proof: the intervals of this result and the previous one (the samples' ranges where there are 3 to 5) do not overlap, as they do not for an unchanged runner 1 time in 10 at 3 samples each\">may have changed</span> ")
            .text(c.stage)
            .raw(" ")
            .text(&c.figure)
            .raw(" ")
            .text(c.direction)
            .raw(" (")
            .raw(verdict)
            .raw("): ")
            .text(&c.from)
            .raw(" → ")
            .text(&c.to)
            .raw(" <small>since ")
            .text(&c.since)
            .raw("</small></span>");
    }
}

/// A stage table's start: its id, caption and column heads.
fn table_start(h: &mut Html, id: &str, sortable: bool, caption: &str, heads: &str) {
    h.raw("\n<div class=\"scroll\"><table ")
        .raw(if sortable { "class=\"sortable\" " } else { "" })
        .raw("id=\"")
        .raw(id)
        .raw("\">\n<caption>")
        .raw(caption)
        .raw("</caption>\n<thead><tr>")
        .raw(heads)
        .raw("</tr></thead>\n<tbody>");
}

fn table_end(h: &mut Html) {
    h.raw("\n</tbody></table></div>");
}

/// A row's first cell: its date, linking to its history row; for an
/// imported result whose publisher states no date, that it has none (the
/// day it was imported is not when it was measured).
fn date_cell(h: &mut Html, r: &HistoryRow<'_>) {
    let date = if r.meta.date_measured { r.meta.date.as_str() } else { "date not published" };
    h.raw("<td><a href=\"#").text(&r.anchor).raw("\">").text(date).raw("</a>");
    // The profile each row comes from, so that rows of different profiles
    // one above the other do not read as a change of the runner.
    h.raw(" <small class=\"reason\">").text(&profile_of(r.meta)).raw("</small></td>");
}

/// The profile a result was measured with, in words: a measured profile's
/// name, or an imported report's published fingerprint.
fn profile_of(meta: &Meta) -> String {
    static KNOWN: std::sync::OnceLock<Vec<(String, &'static str)>> = std::sync::OnceLock::new();
    let known = KNOWN.get_or_init(|| {
        runner_bench_format::Profile::ALL.iter().map(|p| (p.parameters().fingerprint().to_string(), p.name())).collect()
    });
    let fp: &str = &meta.fingerprint;
    let before = crate::validate::BEFORE_ALL_CORE.iter().find(|(_, k)| *k == fp);
    match known.iter().find(|(k, _)| k == fp) {
        Some((_, name)) if !meta.imported => format!("{name} profile"),
        // A profile as collectors before the all-core stage defined it.
        _ if !meta.imported
            && let Some((name, _)) = before =>
        {
            format!("{} profile, without the all-core stage", name.split(' ').next().unwrap_or(name))
        }
        _ if fp.is_empty() => "no profile published".to_string(),
        _ if meta.imported => format!("published profile {fp}"),
        _ => format!("profile {fp}"),
    }
}

/// The row of a result without this stage.
fn missing_row(h: &mut Html, r: &HistoryRow<'_>, columns: &str) {
    h.raw("\n<tr class=\"marked\">");
    date_cell(h, r);
    h.raw("<td colspan=\"").raw(columns).raw("\">not in this result</td></tr>");
}

/// A stage row's start: marked where the stage is incomplete.
fn row_start<T>(h: &mut Html, r: &HistoryRow<'_>, s: &StageRow<'_, T>) {
    h.raw(if s.incomplete { "\n<tr class=\"marked\">" } else { "\n<tr>" });
    date_cell(h, r);
}

/// A figure with what follows it in its cell: the interval, the value per
/// cent per minute.
fn ci(h: &mut Html, ci: Option<&str>) {
    if let Some(ci) = ci.filter(|c| !c.is_empty()) {
        h.raw(" <small class=\"ci\">").text(ci).raw("</small>");
    }
}

fn per_cent(h: &mut Html, v: Option<&str>) {
    if let Some(v) = v.filter(|v| !v.is_empty()) {
        h.raw(" <span class=\"per-cent\">").text(v).raw(" per ¢/min</span>");
    }
}

/// The status cell: `ok` or the incomplete mark with its reason, and the
/// variation mark.
fn status_cell<T>(h: &mut Html, s: &StageRow<'_, T>) {
    h.raw("<td>");
    if s.incomplete {
        h.raw("<span class=\"mark incomplete\">incomplete</span>");
        if let Some(why) = s.reason.filter(|r| !r.is_empty()) {
            h.raw("<span class=\"reason\">").text(why).raw("</span>");
        }
    } else {
        h.raw("ok");
    }
    if s.variable {
        h.raw(" <span class=\"mark variable\">variable</span>");
    }
    h.raw("</td></tr>");
}

fn cpu(h: &mut Html, rows: &[HistoryRow<'_>]) {
    table_start(
        h,
        "t-history-cpu",
        true,
        "CoreMark iterations per second on one thread (higher is better), median of the accepted samples",
        "<th scope=\"col\">Date</th><th scope=\"col\">Binary</th><th scope=\"col\" class=\"num\">Median it/s</th><th scope=\"col\" class=\"num\">Min–max</th><th scope=\"col\" class=\"num\">Variation</th><th scope=\"col\" class=\"num\">Samples</th><th scope=\"col\">Status</th>",
    );
    for r in rows {
        let Some(s) = &r.cpu else {
            missing_row(h, r, "6");
            continue;
        };
        let f: &CpuRow = s.fig;
        row_start(h, r, s);
        h.raw("<td>").text(&f.binary).raw("</td><td class=\"num\">").text(&f.median);
        ci(h, s.ci.as_deref());
        per_cent(h, s.per_cent.median.as_deref());
        h.raw("</td>").cells(true, &[&f.range, &f.variation, &f.samples]);
        status_cell(h, s);
    }
    table_end(h);
}

/// Each result's CoreMark on one thread and on every logical CPU, and
/// what a vCPU is worth: the one explained in the caption.
fn cores(h: &mut Html, rows: &[HistoryRow<'_>]) {
    table_start(
        h,
        "t-history-cores",
        true,
        "CoreMark on one thread and on all logical CPUs at once (iterations per second, medians), and what a vCPU \
         is worth: the all-core figure ÷ (the one-thread figure × the logical CPUs), near 1 where each vCPU is a \
         full core and about 0.5–0.6 where two are hyperthreads of one core or the host is oversubscribed",
        "<th scope=\"col\">Date</th><th scope=\"col\" class=\"num\">One thread it/s</th><th scope=\"col\" \
         class=\"num\">All cores it/s</th><th scope=\"col\" class=\"num\">Logical CPUs</th><th scope=\"col\" \
         class=\"num\">vCPU worth</th>",
    );
    for r in rows {
        let Some(c) = r.cores else {
            missing_row(h, r, "4");
            continue;
        };
        h.raw("\n<tr>");
        date_cell(h, r);
        h.cells(true, &[&c.one_thread, &c.all_core, &c.contexts, &c.worth]).raw("</tr>");
    }
    table_end(h);
}

fn disk(h: &mut Html, rows: &[HistoryRow<'_>]) {
    table_start(
        h,
        "t-history-disk",
        true,
        "Disk: sequential MiB/s and random IOPS (higher is better), medians; under each, for measured rows, the per-call latency (p50 and p99, µs)",
        "<th scope=\"col\">Date</th><th scope=\"col\" class=\"num\">Seq read MiB/s</th><th scope=\"col\" class=\"num\">Seq write MiB/s</th><th scope=\"col\" class=\"num\">Rand read IOPS <small>(low–high)</small></th><th scope=\"col\" class=\"num\">Rand write IOPS</th><th scope=\"col\">Samples</th><th scope=\"col\">Status</th>",
    );
    for r in rows {
        let Some(s) = &r.disk else {
            missing_row(h, r, "6");
            continue;
        };
        let f: &DiskRow = s.fig;
        row_start(h, r, s);
        let p = &s.per_cent;
        let cells = [
            (&f.read, None, p.read.as_deref()),
            (&f.write, None, p.write.as_deref()),
            (&f.rand_read, s.ci.as_deref(), p.rand_read.as_deref()),
            (&f.rand_write, None, p.rand_write.as_deref()),
        ];
        for (op, (figure, interval, value)) in cells.into_iter().enumerate() {
            h.raw("<td class=\"num\">").text(figure);
            ci(h, interval);
            per_cent(h, value);
            if let Some(latency) = &f.latency {
                h.raw(" <small class=\"lat\"><span>p50 ")
                    .text(&latency[op].p50_us)
                    .raw("</span> · <span>p99 ")
                    .text(&latency[op].p99_us)
                    .raw(" µs</span></small>");
            }
            h.raw("</td>");
        }
        h.raw("<td>");
        match f.counts.as_deref().filter(|c| !c.is_empty()) {
            Some(counts) => h.text(counts),
            None => h.raw("—"),
        };
        h.raw("</td>");
        status_cell(h, s);
    }
    table_end(h);
}

fn cache(h: &mut Html, rows: &[HistoryRow<'_>]) {
    table_start(
        h,
        "t-history-cache",
        true,
        "Cache save and restore, one row per backend and method: seconds as median; min–max (lower is better), and MiB/s from the median",
        "<th scope=\"col\">Date</th><th scope=\"col\">Backend</th><th scope=\"col\">Method</th><th scope=\"col\" class=\"num\">Verified</th><th scope=\"col\" class=\"num\">Save s</th><th scope=\"col\" class=\"num\">Save MiB/s</th><th scope=\"col\" class=\"num\">Restore s <small>(low–high)</small></th><th scope=\"col\" class=\"num\">Restore MiB/s</th><th scope=\"col\">Status</th>",
    );
    for r in rows {
        if r.cache.is_empty() {
            missing_row(h, r, "8");
        }
        for s in &r.cache {
            let f: &CacheRow = s.fig;
            row_start(h, r, s);
            h.cells(false, &[&f.backend, &f.method_label])
                .cells(true, &[&f.verified, &f.save])
                .raw("<td class=\"num\">")
                .text(&f.save_mib_per_s);
            per_cent(h, s.per_cent.save_mib_per_s.as_deref());
            h.raw("</td><td class=\"num\">").text(&f.restore);
            ci(h, s.ci.as_deref());
            h.raw("</td><td class=\"num\">").text(&f.restore_mib_per_s);
            per_cent(h, s.per_cent.restore_mib_per_s.as_deref());
            h.raw("</td>");
            status_cell(h, s);
        }
    }
    table_end(h);
}

fn internet(h: &mut Html, rows: &[HistoryRow<'_>]) {
    table_start(
        h,
        "t-history-internet",
        true,
        "Internet: download and upload in decimal Mbps (higher is better) and HTTPS request ms (lower is better), medians",
        "<th scope=\"col\">Date</th><th scope=\"col\">Service</th><th scope=\"col\" class=\"num\">Download Mbps <small>(low–high)</small></th><th scope=\"col\" class=\"num\">Upload Mbps</th><th scope=\"col\" class=\"num\">Request ms</th><th scope=\"col\">Status</th>",
    );
    for r in rows {
        let Some(s) = &r.internet else {
            missing_row(h, r, "5");
            continue;
        };
        let f: &InternetRow = s.fig;
        row_start(h, r, s);
        h.raw("<td>").text(&f.service).raw("</td><td class=\"num\">").text(&f.download);
        ci(h, s.ci.as_deref());
        per_cent(h, s.per_cent.download.as_deref());
        h.raw("</td><td class=\"num\">").text(&f.upload);
        per_cent(h, s.per_cent.upload.as_deref());
        h.raw("</td><td class=\"num\">").text(&f.request_ms).raw("</td>");
        status_cell(h, s);
    }
    table_end(h);
}

fn build_cache(h: &mut Html, rows: &[HistoryRow<'_>]) {
    table_start(
        h,
        "t-history-build-cache",
        false,
        "Build-cache server benchmarks; the newest result per runner and server has a page with every figure",
        "<th scope=\"col\">Date</th><th scope=\"col\">Software</th><th scope=\"col\">Server</th><th scope=\"col\">Figures</th>",
    );
    for r in rows {
        let Some(s) = &r.server else {
            missing_row(h, r, "3");
            continue;
        };
        h.raw("\n<tr>");
        date_cell(h, r);
        h.raw("<td>").text(s.software).raw("</td><td>").text(s.target).raw("</td><td>");
        match s.url.filter(|u| !u.is_empty()) {
            Some(url) => h.raw("<a href=\"").text(url).raw("\">Document</a>"),
            None => h.raw("on a newer result's page"),
        };
        h.raw("</td></tr>");
    }
    table_end(h);
}

/// The results' span of a machine or build row: its newest result, and
/// the oldest where it covers more than one.
fn span_cell(h: &mut Html, p: &MachineSpan<'_>) {
    h.raw("<td><a href=\"#").text(p.newest.0).raw("\">").text(p.newest.1).raw("</a>");
    if p.results > 1 {
        h.raw(" to <a href=\"#")
            .text(p.oldest.0)
            .raw("\">")
            .text(p.oldest.1)
            .raw("</a> <small>(")
            .raw(&p.results.to_string())
            .raw(" results)</small>");
    }
    h.raw("</td>");
}

fn machine_and_build(h: &mut Html, machines: &[MachineSpan<'_>], stated: &RunnerSpec) {
    h.raw("\n<h2 id=\"machine-per-result\">Machine and build of each result</h2>\n<p>As each result file records them, one row per run of consecutive results on the same machine and build; an imported report publishes only some (“not published”). A <span class=\"mark mismatch\">provider file</span> mark shows the provider file's size where it differs from what the result recorded: another vCPU count than the logical CPUs, or memory more than 10 % apart (<code>site check</code> warns of it too).</p>");
    table_start(
        h,
        "t-history-machine",
        false,
        "Machine",
        "<th scope=\"col\">Results</th><th scope=\"col\">CPU model</th><th scope=\"col\" class=\"num\">Logical CPUs</th><th scope=\"col\" class=\"num\">Memory</th><th scope=\"col\">OS</th><th scope=\"col\">Kernel</th><th scope=\"col\">Virtualization</th><th scope=\"col\">Image</th><th scope=\"col\">Architecture</th><th scope=\"col\">Other</th>",
    );
    for p in machines {
        let d = p.machine;
        h.raw("\n<tr>");
        span_cell(h, p);
        h.cells(false, &[&d.cpu_model]);
        // Where the provider file's size differs from what the result
        // recorded, the cell says so (`site check` warns of it too).
        let differs = d.recorded.map_or_else(Vec::new, |(cpus, mem)| machine_mismatch(stated, cpus, mem));
        let vcpu = stated.vcpu.map(|v| format!("provider file: {v} vCPU"));
        let memory = stated.memory_gib.map(|m| format!("provider file: {m} GiB"));
        for (field, shown, mark) in [("vcpu", &d.logical_cpus, vcpu), ("memory_gib", &d.memory, memory)] {
            h.raw("<td class=\"num\">").text(shown);
            if let Some(mark) = mark.filter(|_| differs.iter().any(|(f, _)| *f == field)) {
                h.raw(" <span class=\"mark mismatch\">").text(&mark).raw("</span>");
            }
            h.raw("</td>");
        }
        h.cells(false, &[&d.os, &d.kernel, &d.virtualization, &d.image, &d.arch, &d.other]).raw("</tr>");
    }
    table_end(h);
    table_start(
        h,
        "t-history-build",
        false,
        "Build",
        "<th scope=\"col\">Results</th><th scope=\"col\">Collector</th><th scope=\"col\">CoreMark implementation</th><th scope=\"col\">Compiler</th><th scope=\"col\">Flags</th><th scope=\"col\">EEMBC commit</th>",
    );
    for p in machines {
        let d = p.machine;
        h.raw("\n<tr>");
        span_cell(h, p);
        h.cells(false, &[&d.collector, &d.implementation, &d.compiler, &d.flags, &d.eembc_commit]).raw("</tr>");
    }
    table_end(h);
}
