//! Identity: who a result says it measured, as the site shows it.
//!
//! - A display name says something: an empty or blank name is refused
//!   wherever it would label a table, a page or a plot. An OS instance id
//!   is never empty either: the collector writes `unknown` where the OS
//!   does not tell, and an empty id would hide which instance ran.
//! - A result does not rename a provider or a runner. The first accepted
//!   result that names one (by date, then path) fixes the name across the
//!   site; a later result that names it otherwise is a finding. Files that
//!   leave a name out take the fixed one. (The characters a name may hold
//!   are the format's rule: `Text::new` refuses controls, bidirectional
//!   overrides, zero-width characters and line separators.)

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rayon::slice::ParallelSliceMut;
use runner_bench_format::{AnyResult, Name};

use super::findings::Collector;

/// Every display name of `result` that is empty or blank.
pub(super) fn empty_names(c: &mut Collector, file: &str, result: &AnyResult) {
    let mut names: Vec<(String, &Name)> = Vec::new();
    let (provider, runner) = match result {
        AnyResult::Measured(m) => (&m.provider, &m.runner),
        AnyResult::Imported(i) => (&i.provider, &i.runner),
    };
    names.extend(provider.name.iter().map(|n| ("$.provider.name".to_string(), n)));
    names.extend(runner.name.iter().map(|n| ("$.runner.name".to_string(), n)));
    match result {
        AnyResult::Measured(m) => {
            if let Some(cache) = &m.stages.cache {
                for (i, b) in cache.backends.iter().enumerate() {
                    names.push((format!("$.stages.cache.backends[{i}].name"), &b.name));
                }
            }
            if let Some(net) = &m.stages.internet {
                names.push(("$.stages.internet.endpoint.name".to_string(), &net.endpoint.name));
            }
            if let Some(http) = &m.stages.http_cache {
                names.push(("$.stages.http_cache.server.software".to_string(), &http.server.software));
            }
        }
        AnyResult::Imported(i) => {
            names.push(("$.source.title".to_string(), &i.source.title));
            if let Some(cache) = &i.stages.cache {
                for (n, b) in cache.backends.iter().enumerate() {
                    names.push((format!("$.stages.cache.backends[{n}].name"), &b.name));
                }
            }
            if let Some(net) = &i.stages.internet {
                names.push(("$.stages.internet.endpoint.name".to_string(), &net.endpoint.name));
            }
            if let Some(http) = &i.stages.http_cache {
                names.push(("$.stages.http_cache.software".to_string(), &http.software));
                for (n, t) in http.tables.iter().enumerate() {
                    names.push((format!("$.stages.http_cache.tables[{n}].title"), &t.title));
                }
            }
        }
    }
    if let AnyResult::Measured(m) = result {
        let mut instances = vec![("$.machine.instance".to_string(), &m.machine.instance)];
        for (i, pair) in m.stages.cache.iter().flat_map(|c| c.pairs.iter().enumerate()) {
            instances.push((format!("$.stages.cache.pairs[{i}].save.instance"), &pair.save.instance));
            if let Some(r) = &pair.restore {
                instances.push((format!("$.stages.cache.pairs[{i}].restore.instance"), &r.instance));
            }
        }
        for (path, instance) in instances {
            for (name, id) in [("boot_id", &instance.boot_id), ("machine_id", &instance.machine_id)] {
                if id.as_str().trim().is_empty() {
                    c.push(
                        file,
                        format!("{path}.{name}"),
                        "is empty; the collector writes \"unknown\" where the OS does not tell",
                    );
                }
            }
        }
    }
    for (field, name) in names {
        if name.as_str().trim().is_empty() {
            c.push(
                file,
                field,
                "is empty; a name the site shows must say something (leave out a name that is optional)",
            );
        }
    }
}

/// What `renames` compares of an accepted result: its date, its provider's
/// and runner's ids and names. Kept apart from the parsed result, which a
/// build lets go of as soon as it has made what it needs of it.
#[derive(Debug, Clone)]
pub(super) struct Names {
    date: String,
    provider_id: Arc<str>,
    provider_name: Option<Arc<str>>,
    runner_label: Arc<str>,
    runner_name: Option<Arc<str>>,
}

impl Names {
    pub(super) fn of(result: &AnyResult) -> Names {
        let (provider, runner, date) = match result {
            AnyResult::Measured(m) => (&m.provider, &m.runner, m.provenance.started_at.as_str()),
            AnyResult::Imported(i) => (&i.provider, &i.runner, i.source.imported_at.as_str()),
        };
        Names {
            date: date.to_string(),
            provider_id: provider.id.as_str().into(),
            provider_name: provider.name.as_ref().map(|n| n.as_str().into()),
            runner_label: runner.label.as_str().into(),
            runner_name: runner.name.as_ref().map(|n| n.as_str().into()),
        }
    }

    /// Shares the text of each name that `other` has too (a check keeps
    /// the names of every accepted file until its end).
    pub(super) fn share(&mut self, other: &Names) {
        fn one(mine: &mut Arc<str>, theirs: &Arc<str>) {
            if mine == theirs {
                *mine = theirs.clone();
            }
        }
        one(&mut self.provider_id, &other.provider_id);
        one(&mut self.runner_label, &other.runner_label);
        if let (Some(mine), Some(theirs)) = (&mut self.provider_name, &other.provider_name) {
            one(mine, theirs);
        }
        if let (Some(mine), Some(theirs)) = (&mut self.runner_name, &other.runner_name) {
            one(mine, theirs);
        }
    }
}

/// The names each provider and runner first had, across `runs` (each
/// accepted file with its names); reports every later run that names one
/// otherwise and returns those runs' places in `runs`.
pub(super) fn renames(c: &mut Collector, runs: &[(&Path, &Names)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    // By date, then by the file's name (as the messages print it).
    let key = |i: &usize| (runs[*i].1.date.as_str(), runs[*i].0.as_os_str().as_encoded_bytes());
    order.par_sort_unstable_by(|a, b| key(a).cmp(&key(b)));
    // Provider id (and runner label) → (name, the file that fixed it).
    let mut providers: HashMap<&str, (&str, &Path)> = HashMap::new();
    let mut runners: HashMap<(&str, &str), (&str, &Path)> = HashMap::new();
    let mut renamed = Vec::new();
    for i in order {
        let (path, names) = runs[i];
        let file = || path.display().to_string();
        let mut flagged = false;
        if let Some(name) = &names.provider_name {
            let id = &*names.provider_id;
            match providers.get(id) {
                Some((first, by)) if *first != &**name => {
                    c.push(
                        &file(),
                        "$.provider.name",
                        format!(
                            "names provider \"{id}\" \"{name}\", but {}, the first accepted result to name it, calls \
                             it \"{first}\"; a result does not rename a provider",
                            by.display()
                        ),
                    );
                    flagged = true;
                }
                Some(_) => {}
                None => {
                    providers.insert(id, (name, path));
                }
            }
        }
        if let Some(name) = &names.runner_name {
            let key = (&*names.provider_id, &*names.runner_label);
            match runners.get(&key) {
                Some((first, by)) if *first != &**name => {
                    c.push(
                        &file(),
                        "$.runner.name",
                        format!(
                            "names runner \"{}\" of provider \"{}\" \"{name}\", but {}, the first accepted result to \
                             name it, calls it \"{first}\"; a result does not rename a runner",
                            key.1,
                            key.0,
                            by.display()
                        ),
                    );
                    flagged = true;
                }
                Some(_) => {}
                None => {
                    runners.insert(key, (name, path));
                }
            }
        }
        if flagged {
            renamed.push(i);
        }
    }
    renamed
}
