//! The estimate page (`/estimate/`): a reader describes one CI job and
//! reads its time and cost on every runner (`model::estimate`, and
//! docs/methodology.md, "Estimate a job").
//!
//! The build writes each runner's figures once (`/estimate/figures.json`:
//! the rows the comparison tables rank, so the same groups) and renders
//! the presets, typical jobs, as static pages with the model: the page
//! reads without script. `templates/static/estimate.js` then estimates
//! whatever the reader types, from those figures with the same arithmetic,
//! and keeps the job in the address so that an estimate can be shared.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use tera::Tera;

use super::group_name::group_name;
use super::pages::{Common, render};
use super::site::Site;
use crate::figures;
use crate::model::estimate::{self, CacheFig, CpuFig, DiskFig, Job, NetFig, Runner, Span, Time, fixed};
use crate::model::{Model, leading, range};
use crate::providers::Providers;

/// Where the page script reads the figures.
pub const FIGURES_URL: &str = "/estimate/figures.json";

/// A typical job, rendered as a page of its own.
struct Preset {
    /// `/estimate/<slug>/`; the first preset is `/estimate/` itself.
    slug: &'static str,
    title: &'static str,
    what: &'static str,
    cpu_s: f64,
    parallel_pct: f64,
    read_mib: f64,
    write_mib: f64,
    restore_mib: f64,
    save_mib: f64,
    download_mib: f64,
}

/// The presets: round figures of the kinds of job the site's readers run,
/// not measurements; the first is the page's default. Each `what` names
/// every part the preset sets.
const PRESETS: [Preset; 4] = [
    Preset {
        slug: "rust-build",
        title: "Rust build and test",
        what: "8 minutes of compiling and testing on one thread, 1,500 MiB read from disk and 2,500 MiB written, \
               the crates and target folder (1,200 MiB) restored from the cache and saved, nothing else downloaded",
        cpu_s: 480.0,
        parallel_pct: 0.0,
        read_mib: 1500.0,
        write_mib: 2500.0,
        restore_mib: 1200.0,
        save_mib: 1200.0,
        download_mib: 0.0,
    },
    Preset {
        slug: "node-tests",
        title: "Node.js tests",
        what: "90 seconds of tests on one thread, 400 MiB read from disk and 300 MiB written, node_modules (400 MiB) \
               restored from the cache and not saved, 150 MiB of packages downloaded",
        cpu_s: 90.0,
        parallel_pct: 0.0,
        read_mib: 400.0,
        write_mib: 300.0,
        restore_mib: 400.0,
        save_mib: 0.0,
        download_mib: 150.0,
    },
    Preset {
        slug: "image-build",
        title: "Container image build",
        what: "4 minutes of building on one thread, 2,000 MiB read from disk and 3,000 MiB of layers written, \
               1,500 MiB of base images downloaded, no cache",
        cpu_s: 240.0,
        parallel_pct: 0.0,
        read_mib: 2000.0,
        write_mib: 3000.0,
        restore_mib: 0.0,
        save_mib: 0.0,
        download_mib: 1500.0,
    },
    Preset {
        slug: "parallel-build",
        title: "Parallel build",
        what: "10 minutes of compiling, 90 % of it on every logical CPU at once and the rest (configuring, \
               linking) on one thread, 1,000 MiB read from disk and 2,000 MiB written, no cache, nothing downloaded",
        cpu_s: 600.0,
        parallel_pct: 90.0,
        read_mib: 1000.0,
        write_mib: 2000.0,
        restore_mib: 0.0,
        save_mib: 0.0,
        download_mib: 0.0,
    },
];

/// What `/estimate/figures.json` holds: every runner's figures, and the
/// name in words of each group they name (`group_name`), which the tables'
/// captions print in place of the keys.
#[derive(Debug, Serialize)]
pub struct Figures {
    pub names: BTreeMap<String, String>,
    pub runners: Vec<Runner>,
}

/// Every runner's figures: its rows that the comparison tables give a
/// place (clean, current, with the headline figure), by group, at two
/// decimals as the tables print them; and its provider's price.
pub fn figures(model: &Model, providers: &Providers, now: jiff::Timestamp) -> Figures {
    let mut names = BTreeMap::new();
    for g in &model.groups {
        // The group ids `runners` gives each stage's figures.
        let name = group_name(g, g.metas());
        match g.stage {
            "cpu" => {
                names.insert(format!("{}/eembc", g.id), format!("{name}, EEMBC's CoreMark sources"));
                names.insert(format!("{}/eembc/allcore", g.id), format!("{name}, EEMBC's CoreMark sources, all cores"));
                names.insert(format!("{}/allcore", g.id), format!("{name}, all cores"));
                names.insert(g.id.clone(), name);
            }
            "cache" => {
                names.insert(format!("{}/client", g.id), format!("{name}, client method"));
                names.insert(format!("{}/action", g.id), format!("{name}, action method"));
            }
            _ => {
                names.insert(g.id.clone(), name);
            }
        }
    }
    Figures { names, runners: runners(model, providers, now) }
}

fn runners(model: &Model, providers: &Providers, now: jiff::Timestamp) -> Vec<Runner> {
    let mut out: Vec<Runner> = model
        .runners
        .iter()
        .map(|r| Runner {
            id: format!("{}/{}", r.provider_id, r.label),
            provider: r.provider_name.clone(),
            label: r.label.clone(),
            url: format!("/runners/{}/{}/", r.provider_id, r.label),
            usd_per_minute: providers.machine(&r.provider_id, &r.label, now).usd_per_minute,
            cpu: Vec::new(),
            allcore: Vec::new(),
            disk: Vec::new(),
            cache: Vec::new(),
            net: Vec::new(),
        })
        .collect();
    let index: HashMap<(&str, &str), usize> =
        model.runners.iter().enumerate().map(|(i, r)| ((r.provider_id.as_str(), r.label.as_str()), i)).collect();
    let at = |m: &crate::model::Meta| index.get(&(m.provider_id.as_str(), m.runner.as_str())).copied();
    for g in &model.groups {
        for (rows, group) in [(&g.cpu, g.id.clone()), (&g.cpu_eembc, format!("{}/eembc", g.id))] {
            for r in rows.iter().filter(|r| r.place.is_some()) {
                let (Some(i), Some(med)) = (at(&r.meta), leading(&r.fig.median)) else { continue };
                let (min, max) = range(&r.fig.range).unwrap_or((med, med));
                out[i].cpu.push(CpuFig { group: group.clone(), it_s: Span { med, min, max } });
                // All-core figures are compared within the one-thread
                // figure's group: the same implementation, build and
                // protocol. Two decimals, as every figure here.
                if let Some([med, min, max]) = r.fig.all_core {
                    let two = |v: f64| leading(&figures::two(v)).unwrap_or(v);
                    let it_s = Span { med: two(med), min: two(min), max: two(max) };
                    out[i].allcore.push(CpuFig { group: format!("{group}/allcore"), it_s });
                }
            }
        }
        for r in g.disk.iter().filter(|r| r.place.is_some()) {
            let (Some(i), Some(read), Some(write)) = (at(&r.meta), leading(&r.fig.read), leading(&r.fig.write)) else {
                continue;
            };
            let [reads, writes] = &r.fig.seq_samples;
            out[i].disk.push(DiskFig {
                group: g.id.clone(),
                read: sample_span(read, reads),
                write: sample_span(write, writes),
            });
        }
        for (rows, method) in [(&g.cache, "client"), (&g.cache_action, "action")] {
            for r in rows.iter().filter(|r| r.place.is_some()) {
                let f = &r.fig;
                let (Some(i), Some(payload_mib), Some(restore_s), Some(save_s)) =
                    (at(&r.meta), leading(&f.payload_mib), seconds_span(&f.restore), seconds_span(&f.save))
                else {
                    continue;
                };
                out[i].cache.push(CacheFig {
                    group: format!("{}/{method}", g.id),
                    cache: format!("{method}: {}", f.backend),
                    payload_mib,
                    restore_s,
                    save_s,
                });
            }
        }
        for r in g.internet.iter().filter(|r| r.place.is_some()) {
            let (Some(i), Some(med)) = (at(&r.meta), leading(&r.fig.download)) else { continue };
            out[i].net.push(NetFig { group: g.id.clone(), mbps: sample_span(med, &r.fig.headline_samples) });
        }
    }
    out
}

/// A printed median and the least and greatest of its samples, printed
/// and read back (two decimals, as the tables print figures); the median
/// three times where the row has no samples (an imported one).
fn sample_span(med: f64, samples: &[f64]) -> Span {
    let two = |v: f64| leading(&figures::two(v)).unwrap_or(v);
    let min = samples.iter().copied().reduce(f64::min).map_or(med, two);
    let max = samples.iter().copied().reduce(f64::max).map_or(med, two);
    Span { med, min, max }
}

/// Seconds as the cache tables print them, `median; min–max`.
fn seconds_span(shown: &str) -> Option<Span> {
    let med = leading(shown)?;
    let (min, max) = range(shown).unwrap_or((med, med));
    Some(Span { med, min, max })
}

/// A choice of a select.
#[derive(Debug, Serialize)]
struct Choice {
    value: String,
    label: String,
    selected: bool,
}

/// A preset as the page links it.
#[derive(Debug, Serialize)]
struct PresetLink {
    url: String,
    title: String,
    what: String,
    current: bool,
}

/// An estimate as the page prints it: the script prints the same text
/// in every cell.
#[derive(Debug, Serialize)]
struct Shown {
    tables: Vec<ShownTable>,
    not_measured: Vec<Missing>,
    /// Runners whose CoreMark figures are in other groups than the
    /// reference runner's (`parts` empty).
    other_group: Vec<Missing>,
    no_reference: bool,
}

#[derive(Debug, Serialize)]
struct ShownTable {
    caption: String,
    rows: Vec<ShownRow>,
}

#[derive(Debug, Serialize)]
struct ShownRow {
    place: String,
    label: String,
    provider: String,
    url: String,
    parts: [String; 4],
    total: String,
    range: String,
    cost: String,
    cost_range: String,
    per_1000: String,
    cost_place: String,
}

#[derive(Debug, Serialize)]
struct Missing {
    label: String,
    provider: String,
    url: String,
    parts: String,
}

#[derive(Serialize)]
struct Context<'a> {
    common: &'a Common,
    title: String,
    description: &'static str,
    presets: Vec<PresetLink>,
    job: &'a Job,
    runners: Vec<Choice>,
    caches: Vec<Choice>,
    figures_url: &'static str,
    shown: Shown,
}

/// Seconds as the page prints them.
fn seconds(t: Time) -> (String, String) {
    (fixed(t.med, 1), format!("{}–{}", fixed(t.lo, 1), fixed(t.hi, 1)))
}

fn place(r: crate::stats::Rank) -> String {
    format!("{}{}", if r.tied { "≈" } else { "" }, r.place)
}

/// A table's caption: the groups its parts are compared within, in words,
/// each named once with the parts it holds (`CPU`, `disk`, …), as
/// `estimate.js`'s `caption` prints it.
fn caption(groups: &[String], names: &BTreeMap<String, String>) -> String {
    let mut named: Vec<(&str, Vec<&str>)> = Vec::new();
    for g in groups {
        // A part's name may hold spaces (`CPU, all cores`); a group id holds none.
        let (part, id) = g.rsplit_once(' ').unwrap_or((g, ""));
        let name = names.get(id).map_or(id, String::as_str);
        match named.iter_mut().find(|n| n.0 == name) {
            Some(n) => n.1.push(part),
            None => named.push((name, vec![part])),
        }
    }
    let named: Vec<String> = named.iter().map(|(name, parts)| format!("{} ({name})", parts.join(", "))).collect();
    format!("Compared within one group each: {}", named.join("; "))
}

fn shown(figures: &Figures, e: &estimate::Estimate) -> Shown {
    let runners = &figures.runners;
    let tables = e
        .tables
        .iter()
        .map(|t| ShownTable {
            caption: caption(&t.groups, &figures.names),
            rows: t
                .rows
                .iter()
                .map(|row| {
                    let r = &runners[row.runner];
                    let (total, range) = seconds(row.total);
                    ShownRow {
                        place: place(row.place),
                        label: r.label.clone(),
                        provider: r.provider.clone(),
                        url: r.url.clone(),
                        parts: row.parts.map(|p| p.map_or(figures::NONE.to_string(), |t| fixed(t.med, 1))),
                        total,
                        range,
                        cost: row.cost.map_or(figures::NONE.to_string(), |c| format!("${}", fixed(c.med, 4))),
                        cost_range: row
                            .cost
                            .map_or(String::new(), |c| format!("${}–${}", fixed(c.lo, 4), fixed(c.hi, 4))),
                        per_1000: row
                            .cost
                            .map_or(figures::NONE.to_string(), |c| format!("${}", fixed(c.med * 1000.0, 2))),
                        cost_place: row.cost_place.map_or(figures::NONE.to_string(), place),
                    }
                })
                .collect(),
        })
        .collect();
    let missing = |i: usize, parts: String| {
        let r = &runners[i];
        Missing { label: r.label.clone(), provider: r.provider.clone(), url: r.url.clone(), parts }
    };
    let other_group = e.other_group.iter().map(|&i| missing(i, String::new())).collect();
    let not_measured = e
        .not_measured
        .iter()
        // "; ": a part's name may hold a comma (`CPU, all cores`).
        .map(|(i, parts)| missing(*i, parts.join("; ")))
        .collect();
    Shown { tables, not_measured, other_group, no_reference: e.no_reference }
}

/// The cache choices, offered by the most runners first (then by name):
/// the presets use the first.
fn caches(runners: &[Runner]) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for r in runners {
        let mut mine: Vec<&str> = r.cache.iter().map(|c| c.cache.as_str()).collect();
        mine.sort_unstable();
        mine.dedup();
        for c in mine {
            *count.entry(c).or_default() += 1;
        }
    }
    let mut all: Vec<(&str, usize)> = count.into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    all.into_iter().map(|(c, _)| c.to_string()).collect()
}

/// The figures file, the default page and a page per other preset, and
/// the pages' paths for the sitemap.
pub fn pages(tera: &Tera, common: &Common, figures: &Figures) -> anyhow::Result<(Site, Vec<String>)> {
    let mut site = Site::default();
    let mut urls = Vec::new();
    site.add(FIGURES_URL.trim_start_matches('/'), serde_json::to_vec(figures)?);
    let runners = &figures.runners;
    let caches = caches(runners);
    // The presets' reference: the first runner, by provider and label, of
    // the CoreMark group with the most runners (then the first by key), so
    // that a preset compares as many runners as it can.
    let mut sizes: HashMap<&str, usize> = HashMap::new();
    for c in runners.iter().flat_map(|r| &r.cpu) {
        *sizes.entry(c.group.as_str()).or_default() += 1;
    }
    let largest = sizes.into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0))).map(|(g, _)| g);
    let reference = runners
        .iter()
        .find(|r| r.cpu.iter().any(|c| Some(c.group.as_str()) == largest))
        .map_or(String::new(), |r| r.id.clone());
    let url = |i: usize| if i == 0 { "/estimate/".to_string() } else { format!("/estimate/{}/", PRESETS[i].slug) };
    for (i, p) in PRESETS.iter().enumerate() {
        let job = Job {
            reference: reference.clone(),
            cpu_s: p.cpu_s,
            parallel_pct: p.parallel_pct,
            read_mib: p.read_mib,
            write_mib: p.write_mib,
            cache: caches.first().cloned().unwrap_or_default(),
            restore_mib: p.restore_mib,
            save_mib: p.save_mib,
            download_mib: p.download_mib,
        };
        let e = estimate::estimate(runners, &job);
        let ctx = Context {
            common,
            title: format!("Estimate a job: {}", p.title),
            description: "Estimate one CI job's time and cost on every runner from its measured figures.",
            presets: PRESETS
                .iter()
                .enumerate()
                .map(|(j, q)| PresetLink { url: url(j), title: q.title.into(), what: q.what.into(), current: i == j })
                .collect(),
            job: &job,
            runners: runners
                .iter()
                .filter(|r| !r.cpu.is_empty())
                .map(|r| Choice {
                    value: r.id.clone(),
                    label: format!("{} ({})", r.label, r.provider),
                    selected: r.id == job.reference,
                })
                .collect(),
            caches: caches
                .iter()
                .map(|c| Choice { value: c.clone(), label: c.clone(), selected: *c == job.cache })
                .collect(),
            figures_url: FIGURES_URL,
            shown: shown(figures, &e),
        };
        let path = url(i);
        site.add(format!("{}index.html", path.trim_start_matches('/')), render(tera, "estimate.html", &ctx)?);
        urls.push(path);
    }
    Ok((site, urls))
}
