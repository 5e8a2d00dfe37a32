//! The runners' stage: each runner's page and history plot (`history`), as
//! a part that `site serve` reuses while the runner's entries, what its
//! provider's file states of it and the site-wide inputs are the same.

use rayon::prelude::*;

use super::history::{MachinePart, runner_page};
use super::inputs::PageInputs;
use super::parts::{Part, Parts};
use crate::memo_key::key_of;
use crate::model::changes::Changes;
use crate::model::{Model, Runner};

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
            let file = providers.provider(&r.provider_id);
            let machine = MachinePart {
                machine: &machine,
                provider_file_name: file.map(|f| f.name.as_str()),
                provider_site: file.and_then(|f| f.site.as_deref()),
            };
            // The machine view has numbers, which do not hash: its JSON does.
            let stated = serde_json::to_string(&machine)?;
            let entries: Vec<u64> = r.entries.iter().map(|&i| model.entries[i].key).collect();
            let key = key_of((common_key, &r.provider_id, &r.provider_name, &r.label, entries, stated));
            let site = Parts::part(old, &part, key, || runner_page(tera, common, model, changes, r, &machine))?;
            Ok((part, key, site))
        })
        .collect()
}
