//! The runners' stage: each runner's page and history plot (`history`), as
//! a part that `site serve` reuses while the runner's entries, what its
//! provider's file states of it and the site-wide inputs are the same.

use rayon::prelude::*;

use super::history::{MachinePart, RunnerBody, runner, runner_body, runner_page};
use super::inputs::PageInputs;
use super::parts::{Part, Parts};
use super::site::Site;
use crate::memo_key::key_of;
use crate::model::changes::Changes;
use crate::model::{Model, Runner};
use crate::providers::{MachineView, Providers};

/// How many runner or server-document pages a build makes before it writes
/// them: enough to keep every CPU busy.
pub(super) const PAGES_AT_ONCE: usize = 200;

/// The parts of `runners` (of `model`), made on every CPU, or reused from
/// `old` where their key is the last build's.
pub(super) fn runner_parts(
    inputs: &PageInputs,
    model: &Model,
    changes: &Changes,
    runners: &[Runner],
    now: jiff::Timestamp,
    old: Option<&Parts>,
) -> anyhow::Result<Vec<Part>> {
    let PageInputs { providers, tera, common, common_key, .. } = inputs;
    runners
        .par_iter()
        .map(|r| {
            let part = format!("runners/{}/{}", r.provider_id, r.label);
            let machine = providers.machine(&r.provider_id, &r.label, now);
            let machine = machine_part(providers, &machine, &r.provider_id);
            // The machine view has numbers, which do not hash: its JSON does.
            let stated = serde_json::to_string(&machine)?;
            let entries: Vec<u64> = r.entries.iter().map(|&i| model.entries[i].key).collect();
            let key = key_of((common_key, &r.provider_id, &r.provider_name, &r.label, entries, stated));
            let site = Parts::part(old, &part, key, || runner_page(tera, common, model, changes, r, &machine))?;
            Ok((part, key, site))
        })
        .collect()
}

/// What a runner page says of the runner's machine (`machine`, as the
/// provider files state it) and of its provider.
fn machine_part<'a>(providers: &'a Providers, machine: &'a MachineView, provider_id: &str) -> MachinePart<'a> {
    let file = providers.provider(provider_id);
    MachinePart {
        machine,
        provider_file_name: file.map(|f| f.name.as_str()),
        provider_site: file.and_then(|f| f.site.as_deref()),
        organisations: file.map_or(&[], |f| &f.benchmark_organisations),
    }
}

/// A runner page drafted before its provider's name is known: its body,
/// made from the runner's results (`history::RunnerBody`).
pub(super) struct Draft {
    provider_id: String,
    label: String,
    body: RunnerBody,
}

/// The drafts of `runners` (of `model`), made on every CPU; their plots are
/// added to `part`.
pub(super) fn drafts(
    inputs: &PageInputs,
    model: &Model,
    changes: &Changes,
    runners: &[Runner],
    now: jiff::Timestamp,
    part: &mut Site,
) -> anyhow::Result<Vec<Draft>> {
    let made = runners
        .par_iter()
        .map(|r| {
            let machine = inputs.providers.machine(&r.provider_id, &r.label, now);
            let mut plots = Site::default();
            let file = inputs.providers.provider(&r.provider_id);
            let organisations = file.map_or(&[][..], |f| &f.benchmark_organisations);
            let body = runner_body(&mut plots, model, changes, r, &machine, organisations)?;
            Ok((Draft { provider_id: r.provider_id.clone(), label: r.label.clone(), body }, plots))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(made
        .into_iter()
        .map(|(draft, plots)| {
            part.join(plots);
            draft
        })
        .collect())
}

/// The pages of `drafts`, of the provider named `provider_name`, made on
/// every CPU.
pub(super) fn finish_drafts(
    inputs: &PageInputs,
    drafts: &[Draft],
    provider_name: &str,
    now: jiff::Timestamp,
) -> anyhow::Result<Site> {
    let PageInputs { providers, tera, common, .. } = inputs;
    let pages = drafts
        .par_iter()
        .map(|d| {
            let machine = providers.machine(&d.provider_id, &d.label, now);
            let machine = machine_part(providers, &machine, &d.provider_id);
            let html = runner(tera, common, &d.provider_id, provider_name, &d.label, &machine, &d.body)?;
            Ok((format!("runners/{}/{}/index.html", d.provider_id, d.label), html))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut site = Site::default();
    for (path, html) in pages {
        site.add(path, html);
    }
    Ok(site)
}
