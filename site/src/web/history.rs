//! A runner's history across runs: its page, with a row per result and
//! stage (a row per cache backend), newest first, the changes flagged on
//! them (`changes`), each result's machine and build, and its CoreMark
//! line over time, which a provider's page draws too.

use super::pages::{Common, PlotRef, Speeds, render};
use super::plot::Spec;
use super::plot::history::{self, Line};
use super::runner_tables::{self, HistoryRow, MachineSpan, ServerRef, StageRow};
use crate::model::changes::{self, Change, Changes};
use crate::model::{self, Entry, Model, VARIATION_FLAG_PCT, leading};
use serde::Serialize;
use tera::Tera;

use super::site::Site;
use crate::figures;
use crate::providers::MachineView;
use crate::stats::{self, Interval};
use runner_bench_format::StageKind;

/// One runner's page and history plot; `machine` is what its provider
/// states about it (`providers`), `changes` the flags of its history.
pub(super) fn runner_page(
    tera: &tera::Tera,
    common: &Common,
    model: &Model,
    changes: &Changes,
    r: &model::Runner,
    machine: &MachinePart<'_>,
) -> anyhow::Result<Site> {
    let mut part = Site::default();
    let body = runner_body(&mut part, model, changes, r, machine.machine, machine.organisations)?;
    let html = runner(tera, common, &r.provider_id, &r.provider_name, &r.label, machine, &body)?;
    part.add(format!("runners/{}/{}/index.html", r.provider_id, r.label), html);
    Ok(part)
}

/// What a runner page shows of the runner's results: its tables, as HTML,
/// and its history plot. It does not name the provider, whose name a build
/// knows only once it has every result of the provider (`Model::providers`):
/// a streaming build (`web::Intake`) makes it as soon as it has the
/// runner's results, and the page when it has the provider's.
pub(super) struct RunnerBody {
    tables: String,
    plots: Vec<PlotRef>,
}

/// The body of `r`'s page (of `model`), adding its plot to `part`.
pub(super) fn runner_body(
    part: &mut Site,
    model: &Model,
    changes: &Changes,
    r: &model::Runner,
    machine: &MachineView,
    organisations: &[String],
) -> anyhow::Result<RunnerBody> {
    // `servers` is in entry order: a search, not a set per page.
    let has_page = |i: usize| model.servers.binary_search(&i).is_ok();
    let rows: Vec<HistoryRow<'_>> =
        r.entries.iter().rev().map(|&i| history_row(&model.entries[i], changes.of(i), has_page(i), machine)).collect();
    let machines = machine_spans(model, &r.entries, &rows);
    let line = cpu_line(model, &r.label, &r.entries);
    let plots = history_plot(part, &format!("plots/runners/{}/{}.svg", r.provider_id, r.label), &r.label, vec![line])?;
    let per_cent = machine.usd_per_minute.is_some_and(|v| v != 0.0);
    let mut tables = runner_tables::render(&rows, &machines, r.any_stages, per_cent, &machine.spec);
    tables.push_str(&super::runs::render(&rows, organisations));
    // A streaming build holds a provider's bodies until the provider's end:
    // without the room the text grew into.
    tables.shrink_to_fit();
    Ok(RunnerBody { tables, plots })
}

/// The runner's results (newest first, as `rows`) on one machine and build
/// after another.
fn machine_spans<'a>(model: &'a Model, entries: &[usize], rows: &'a [HistoryRow<'a>]) -> Vec<MachineSpan<'a>> {
    let mut spans: Vec<MachineSpan<'a>> = Vec::new();
    for (&i, row) in entries.iter().rev().zip(rows) {
        let machine = &model.entries[i].details().machine;
        // An imported result whose publisher states no date is labelled as
        // every other table labels it, never by the day of its import.
        let date = if row.meta.date_measured { row.meta.date.as_str() } else { "date not published" };
        let at = (row.anchor.as_str(), date);
        match spans.last_mut() {
            Some(span) if span.machine == machine => {
                span.oldest = at;
                span.results += 1;
            }
            _ => spans.push(MachineSpan { machine, newest: at, oldest: at, results: 1 }),
        }
    }
    spans
}

/// A runner's CoreMark medians over time: those of the results that are
/// compared with its newest one (the same CoreMark key), so that a line
/// never joins two implementations, profiles or an imported figure with a
/// measured one, which the tables never compare either.
pub(super) fn cpu_line(model: &Model, label: &str, entries: &[usize]) -> Line {
    let with_median: Vec<(i64, &str, f64)> = entries
        .iter()
        .map(|&i| &model.entries[i])
        .filter(|e| e.meta.excluded.is_none())
        // An imported result whose publisher states no date has no place
        // on a time axis: the day of its import is not when it was measured.
        .filter(|e| e.meta.date_measured)
        .filter_map(|e| {
            let t = e.meta.timestamp.parse::<jiff::Timestamp>().ok()?;
            Some((t.as_second(), e.meta.keys.get(StageKind::Cpu), e.cpu.as_ref()?.median_value?))
        })
        .collect();
    let newest = with_median.iter().max_by_key(|(t, ..)| *t).map(|(_, key, _)| *key);
    let points = with_median.iter().filter(|(_, key, _)| Some(*key) == newest).map(|&(t, _, v)| (t, v)).collect();
    Line { label: label.to_string(), points }
}

/// The plot of `lines`, one per runner. One colour per line, and a legend
/// entry for each: at most as many lines as the palette has colours, of
/// the runners measured last (the desc says so; every runner's page has
/// its own line).
pub(super) fn history_plot(
    site: &mut Site,
    path: &str,
    name: &str,
    mut lines: Vec<Line>,
) -> anyhow::Result<Vec<PlotRef>> {
    lines.retain(|l| !l.points.is_empty());
    // A history needs two results of one runner: points of single results
    // alone would stretch a date axis around one day and show no change.
    // The page's tables list them.
    if lines.iter().all(|l| l.points.len() < 2) {
        return Ok(Vec::new());
    }
    let runners = lines.len();
    lines.sort_by_key(|l| std::cmp::Reverse(l.points.iter().map(|p| p.0).max()));
    lines.truncate(super::plot::PALETTE.len());
    let which = match runners > lines.len() {
        true => {
            format!(" (the {} of its {runners} runners measured last; each runner's page has its own)", lines.len())
        }
        false => String::new(),
    };
    let spec = Spec {
        title: format!("CoreMark history of {name}"),
        desc: format!(
            "Median CoreMark iterations per second of each result of {name} over time{lines}{which}, of the results \
             measured as its newest was (the same CoreMark key); higher is better. Imported results whose publisher \
             states no measurement date are left out.",
            lines = if runners > 1 { ", one line per runner" } else { "" },
        ),
        axis: "iterations/s".into(),
    };
    Ok(match history::draw(&spec, &lines)? {
        Some(svg) => {
            site.add(path, svg);
            vec![PlotRef { src: format!("/{path}"), title: spec.title, desc: spec.desc }]
        }
        None => Vec::new(),
    })
}

/// One result's row of each stage, each marked on its own: a failed
/// stage greys its own row, with the reason the file gives.
fn history_row<'a>(e: &'a Entry, changes: &'a [Change], page: bool, machine: &MachineView) -> HistoryRow<'a> {
    let iv = changes::intervals(e);
    let why = &e.details().reasons;
    let ci = |i: Option<Interval>| i.map(|i| figures::range(i.lo, i.hi));
    // The comparison tables' rule (`groups::rank`): the samples' variation,
    // else the one a report published.
    let variable = |samples: &[f64], published: Option<f64>| {
        let v = if samples.is_empty() { published } else { stats::variation_pct(samples) };
        v.is_some_and(|v| v > VARIATION_FLAG_PCT)
    };
    // The comparison tables' price-performance (`Speeds`), where the price is stated.
    let per_cent = |fig: &dyn Speeds| machine.usd_per_minute.map(|usd| fig.per_cent(usd)).unwrap_or_default();
    let cpu = e.cpu.as_ref().map(|c| StageRow {
        fig: c,
        incomplete: model::cpu_incomplete(c),
        reason: why.cpu.as_deref(),
        // The CPU table's Min–max column shows the samples' range.
        ci: model::shown_interval(iv.cpu, &c.headline_samples, true),
        variable: variable(&c.headline_samples, leading(&c.variation)),
        per_cent: per_cent(c),
    });
    let disk = e.disk.as_deref().map(|d| StageRow {
        fig: d,
        incomplete: model::disk_incomplete(d),
        reason: why.disk.as_deref(),
        ci: ci(iv.disk),
        variable: variable(&d.headline_samples, None),
        per_cent: per_cent(d),
    });
    let cache = e
        .cache
        .iter()
        .enumerate()
        .map(|(n, c)| StageRow {
            fig: c,
            incomplete: model::cache_incomplete(c),
            reason: why.cache.get(n).and_then(|r| r.as_deref()),
            ci: ci(iv.cache.get(n).copied().flatten()),
            variable: variable(&c.headline_samples, leading(&c.restore_variation)),
            per_cent: per_cent(c),
        })
        .collect();
    let internet = e.internet.as_deref().map(|n| StageRow {
        fig: n,
        incomplete: model::internet_incomplete(n),
        reason: why.internet.as_deref(),
        ci: ci(iv.internet),
        variable: variable(&n.headline_samples, None),
        per_cent: per_cent(n),
    });
    let file = e.meta.rel_path.rsplit('/').next().unwrap_or(&e.meta.rel_path);
    HistoryRow {
        meta: &e.meta,
        anchor: format!("r-{}", file.strip_suffix(".json").unwrap_or(file)),
        changes,
        cpu,
        cores: e.details().cores.as_ref(),
        disk,
        cache,
        internet,
        run: e.details().run.as_ref(),
        server: e.server.as_ref().map(|d| ServerRef {
            software: &d.software,
            target: &d.target,
            url: page.then_some(d.url.as_str()),
        }),
    }
}

/// What a runner page says about the runner's machine and provider.
#[derive(Debug, Clone, Serialize)]
pub(super) struct MachinePart<'a> {
    pub machine: &'a MachineView,
    /// The provider's name and site as its file states them.
    pub provider_file_name: Option<&'a str>,
    pub provider_site: Option<&'a str>,
    /// The GitHub owners its file lists as running its benchmarks.
    pub organisations: &'a [String],
}

#[derive(Serialize)]
struct RunnerContext<'a> {
    common: &'a Common,
    title: String,
    description: String,
    provider_id: &'a str,
    provider_name: &'a str,
    label: &'a str,
    machine: &'a MachinePart<'a>,
    /// Its tables, as HTML (`runner_tables::render`).
    tables: &'a str,
    plots: &'a [PlotRef],
}

/// A runner page: what it is and costs, and its history across runs,
/// newest first (`body`).
pub(super) fn runner(
    tera: &Tera,
    common: &Common,
    provider_id: &str,
    provider_name: &str,
    label: &str,
    machine: &MachinePart<'_>,
    body: &RunnerBody,
) -> anyhow::Result<String> {
    let ctx = RunnerContext {
        common,
        title: format!("{label} ({provider_name})"),
        description: format!("Every benchmark result of the {provider_name} runner {label}, newest first."),
        provider_id,
        provider_name,
        label,
        machine,
        tables: &body.tables,
        plots: &body.plots,
    };
    render(tera, "runner.html", &ctx)
}
