//! A runner's history across runs: its page, with a row per result, newest
//! first, and its CoreMark line over time, which a provider's page draws too.

use super::Site;
use super::model::{self, Entry, Model};
use super::pages::{self, Common, HistoryRow, MachinePart, PerCent, PlotRef};
use super::plot::Spec;
use super::plot::history::{self, Line};
use crate::providers::MachineView;

/// One runner's page and history plot; `machine` is what its provider
/// states about it (`providers`).
pub(super) fn runner_page(
    tera: &tera::Tera,
    common: &Common,
    model: &Model,
    r: &model::Runner,
    machine: &MachinePart<'_>,
) -> anyhow::Result<Site> {
    let mut part = Site::default();
    let rows: Vec<HistoryRow> =
        r.entries.iter().rev().map(|&i| history_row(&model.entries[i], machine.machine)).collect();
    let line = cpu_line(model, &r.label, &r.entries);
    let plots =
        history_plot(&mut part, &format!("plots/runners/{}/{}.svg", r.provider_id, r.label), &r.label, &[line])?;
    let html = pages::runner(tera, common, &r.provider_id, &r.provider_name, &r.label, machine, &rows, &plots)?;
    part.add(format!("runners/{}/{}/index.html", r.provider_id, r.label), html);
    Ok(part)
}

/// A runner's CoreMark medians over time.
pub(super) fn cpu_line(model: &Model, label: &str, entries: &[usize]) -> Line {
    let points = entries
        .iter()
        .map(|&i| &model.entries[i])
        .filter(|e| e.meta.excluded.is_none())
        .filter_map(|e| {
            let t = e.meta.timestamp.parse::<jiff::Timestamp>().ok()?;
            Some((t.as_second(), e.cpu.as_ref()?.median_value?))
        })
        .collect();
    Line { label: label.to_string(), points }
}

pub(super) fn history_plot(site: &mut Site, path: &str, name: &str, lines: &[Line]) -> anyhow::Result<Vec<PlotRef>> {
    let spec = Spec {
        title: format!("CoreMark history of {name}"),
        desc: format!(
            "Median CoreMark iterations per second of each result of {name} over time, one line per runner; higher is better."
        ),
        axis: "iterations/s".into(),
    };
    Ok(match history::draw(&spec, lines)? {
        Some(svg) => {
            site.add(path, svg);
            vec![PlotRef { src: format!("/{path}"), title: spec.title, desc: spec.desc }]
        }
        None => Vec::new(),
    })
}

fn history_row(e: &Entry, machine: &MachineView) -> HistoryRow {
    let none = || crate::figures::NONE.to_string();
    let first_cache = e.cache.first();
    let per = |figure: Option<&String>| machine.per_cent(figure.and_then(|f| model::leading(f)));
    let per_cent = PerCent {
        cpu: machine.per_cent(e.cpu.as_ref().and_then(|c| c.median_value)),
        disk_read: per(e.disk.as_ref().map(|d| &d.read)),
        disk_write: per(e.disk.as_ref().map(|d| &d.write)),
        download: per(e.internet.as_ref().map(|n| &n.download)),
        upload: per(e.internet.as_ref().map(|n| &n.upload)),
    };
    HistoryRow {
        per_cent,
        meta: e.meta.clone(),
        cpu: e.cpu.as_ref().map_or_else(none, |c| c.median.clone()),
        disk_read: e.disk.as_ref().map_or_else(none, |d| d.read.clone()),
        disk_write: e.disk.as_ref().map_or_else(none, |d| d.write.clone()),
        cache_save: first_cache.map_or_else(none, |c| format!("{} ({})", c.save, c.backend)),
        cache_restore: first_cache.map_or_else(none, |c| c.restore.clone()),
        cache_method: first_cache.map_or_else(none, |c| c.method_label.clone()),
        download: e.internet.as_ref().map_or_else(none, |n| n.download.clone()),
        upload: e.internet.as_ref().map_or_else(none, |n| n.upload.clone()),
    }
}
