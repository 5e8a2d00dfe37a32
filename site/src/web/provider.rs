//! A provider's page: its report, its rows' plots and its runners' history.

use super::history::{cpu_line, history_plot};
use super::pages::{Common, PlotRef, render};
use super::plot::history::Line;
use super::plots::group_plots;
use crate::model::Model;
use crate::providers::{MachineView, Providers};
use serde::Serialize;
use tera::Tera;

use super::site::Site;
use crate::report::{ReportRun, build_view_of, render_report};

/// One provider's page, report and plots.
#[allow(clippy::too_many_arguments)]
pub(super) fn provider_page(
    tera: &tera::Tera,
    common: &Common,
    model: &Model,
    runs: &[ReportRun],
    id: &str,
    name: &str,
    providers: &Providers,
    now: jiff::Timestamp,
) -> anyhow::Result<Site> {
    let mut site = Site::default();
    let view = build_view_of(id, runs);
    let markdown = render_report(tera, &view)?;
    let notes: Vec<String> = view
        .sources
        .iter()
        .map(|s| {
            format!(
                "Figures imported from the published document {} ({}, SHA-256 {}): aggregates as published, \
                 without raw samples.",
                s.document, s.title, s.sha256
            )
        })
        .collect();
    let mut plots = Vec::new();
    for g in &model.groups {
        let mine = g.only_provider(id);
        plots.extend(group_plots(&mut site, &format!("plots/providers/{id}/{}", g.id), &mine, true, None, None)?);
    }
    let runners: Vec<RunnerLink> = model
        .runners
        .iter()
        .filter(|r| r.provider_id == id)
        .map(|r| RunnerLink {
            label: r.label.clone(),
            url: format!("/runners/{}/{}/", r.provider_id, r.label),
            results: r.entries.len(),
            newest: r.entries.last().map(|&i| super::html::day(&model.entries[i].meta)).unwrap_or_default(),
            machine: providers.machine(id, &r.label, now),
        })
        .collect();
    let servers: Vec<ServerLink> = model
        .servers
        .iter()
        .map(|&i| &model.entries[i])
        .filter(|e| e.meta.provider_id == id)
        .filter_map(|e| {
            let doc = e.server.as_ref()?;
            Some(ServerLink {
                label: format!("{}: {}", doc.software, doc.target),
                url: doc.url.clone(),
                date: super::html::day(&e.meta),
            })
        })
        .collect();
    let lines: Vec<Line> =
        model.runners.iter().filter(|r| r.provider_id == id).map(|r| cpu_line(model, &r.label, &r.entries)).collect();
    plots.extend(history_plot(&mut site, &format!("plots/providers/{id}/history.svg"), name, lines)?);
    let runner_links = model
        .runners
        .iter()
        .filter(|r| r.provider_id == id)
        .map(|r| (r.label.clone(), format!("/runners/{id}/{}/", r.label)))
        .collect();
    let html = provider(
        tera,
        common,
        id,
        name,
        &view.title,
        &super::html::report_to_html(&markdown, &runner_links),
        &notes,
        &runners,
        &servers,
        &plots,
        providers.provider(id).and_then(|p| p.site.as_deref()),
    )?;
    site.add(format!("reports/{id}.md"), markdown);
    site.add(format!("providers/{id}/index.html"), html);
    Ok(site)
}

/// A runner in a list.
#[derive(Debug, Clone, Serialize)]
pub(super) struct RunnerLink {
    pub label: String,
    pub url: String,
    pub results: usize,
    /// The newest result's measurement day, or `imported` and the import
    /// day where its publisher states none.
    pub newest: String,
    /// What the provider's file states of it: size and price.
    pub machine: MachineView,
}

/// A build-cache server document in a list.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ServerLink {
    /// Software and server URL or document title.
    pub label: String,
    pub url: String,
    /// The measurement day, or `imported` and the import day.
    pub date: String,
}

#[derive(Serialize)]
struct ProviderContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: String,
    provider_id: &'a str,
    provider_name: &'a str,
    report_html: &'a str,
    notes: &'a [String],
    runners: &'a [RunnerLink],
    servers: &'a [ServerLink],
    plots: &'a [PlotRef],
    /// The provider's web site, from its provider file.
    provider_site: Option<&'a str>,
    /// Whether a runner's size or price is not stated.
    unstated: bool,
}

/// A provider page: its report as HTML, its plots, runners and build-cache
/// server documents.
#[allow(clippy::too_many_arguments)]
pub(super) fn provider(
    tera: &Tera,
    common: &Common,
    provider_id: &str,
    provider_name: &str,
    title: &str,
    report_html: &str,
    notes: &[String],
    runners: &[RunnerLink],
    servers: &[ServerLink],
    plots: &[PlotRef],
    provider_site: Option<&str>,
) -> anyhow::Result<String> {
    let ctx = ProviderContext {
        common,
        title,
        description: format!("Benchmarks of {provider_name}'s CI runners: CoreMark, disk, cache and internet."),
        provider_id,
        provider_name,
        report_html,
        notes,
        runners,
        servers,
        plots,
        provider_site,
        unstated: runners.iter().any(|r| !r.machine.stated || r.machine.usd_per_minute.is_none()),
    };
    render(tera, "provider.html", &ctx)
}
