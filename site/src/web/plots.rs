//! The comparison plots of a group's rows, on the home page and on each
//! provider's page, and which rows they draw.

use std::collections::HashMap;

use super::pages::PlotRef;
use super::plot::Spec;
use super::plot::ranges::{self, Bar};
use super::site::Site;
use crate::memo_key::key_of;
use crate::model::{self, Group, leading, range};

impl Group {
    /// The first `n` rows of each table, in their order.
    pub(super) fn first_rows(&self, n: usize) -> Group {
        Group {
            cpu: self.cpu.iter().take(n).cloned().collect(),
            cpu_eembc: self.cpu_eembc.iter().take(n).cloned().collect(),
            disk: self.disk.iter().take(n).cloned().collect(),
            cache: self.cache.iter().take(n).cloned().collect(),
            cache_action: self.cache_action.iter().take(n).cloned().collect(),
            internet: self.internet.iter().take(n).cloned().collect(),
            ..self.without_rows()
        }
    }

    /// The group's heading, without rows.
    fn without_rows(&self) -> Group {
        Group {
            id: self.id.clone(),
            stage: self.stage,
            key: self.key.clone(),
            imported: self.imported,
            profiles: self.profiles.clone(),
            fingerprint: self.fingerprint.clone(),
            protocol: self.protocol,
            profile: self.profile.clone(),
            ..Group::default()
        }
    }

    /// The rows of one provider.
    pub(super) fn only_provider(&self, id: &str) -> Group {
        let keep = |m: &model::Meta| m.provider_id == id;
        Group {
            cpu: self.cpu.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            cpu_eembc: self.cpu_eembc.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            disk: self.disk.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            cache: self.cache.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            cache_action: self.cache_action.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            internet: self.internet.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            ..self.without_rows()
        }
    }
}

/// Drawn plots (`None`: nothing to draw) by a key of their text and bars,
/// which `site serve` keeps for the home page.
pub type PlotCache = HashMap<u64, Option<String>>;

/// Draws a plot, or takes it from `cache.0` when the same text and bars were
/// drawn before; records it in `cache.1`.
fn draw_plot(spec: &Spec, bars: &[Bar], cache: Option<(&PlotCache, &mut PlotCache)>) -> anyhow::Result<Option<String>> {
    let Some((old, made)) = cache else { return ranges::draw(spec, bars) };
    let bars_key: Vec<_> = bars
        .iter()
        .map(|b| (&b.label, b.value.to_bits(), b.range.map(|(lo, hi)| (lo.to_bits(), hi.to_bits())), b.series))
        .collect();
    let key = key_of((&spec.title, &spec.desc, &spec.axis, bars_key));
    let svg = match old.get(&key) {
        Some(svg) => svg.clone(),
        None => ranges::draw(spec, bars)?,
    };
    made.insert(key, svg.clone());
    Ok(svg)
}

/// Draws a group's plots under `stem` and returns them as pages link them.
/// Marked rows (excluded, incomplete) are left out of plots: a plot invites
/// comparison, the tables keep them visible.
/// `cut`: the home page shows only this many rows of a table (and so of
/// a plot), which the descriptions then say.
pub(super) fn group_plots(
    site: &mut Site,
    stem: &str,
    g: &Group,
    by_runner_only: bool,
    cut: Option<usize>,
    mut cache: Option<(&PlotCache, &mut PlotCache)>,
) -> anyhow::Result<Vec<PlotRef>> {
    let mut fp = g.label();
    if let Some(n) = cut {
        fp.push_str(&format!("; the first {n} rows of each table"));
    }
    let label =
        |m: &model::Meta| if by_runner_only { m.runner.clone() } else { format!("{} ({})", m.runner, m.provider_name) };
    let mut out = Vec::new();
    let plots = [
        coremark_plots(g, &fp, &label),
        disk_plots(g, &fp, &label),
        cache_plots(g, &fp, &label),
        internet_plots(g, &fp, &label),
    ];
    for (file, spec, bars) in plots.into_iter().flatten() {
        let cache = cache.as_mut().map(|(old, made)| (*old, &mut **made));
        if let Some(svg) = draw_plot(&spec, &bars, cache)? {
            let path = format!("{stem}/{file}");
            out.push(PlotRef { src: format!("/{path}"), title: spec.title.clone(), desc: spec.desc.clone() });
            site.add(path, svg);
        }
    }
    Ok(out)
}

/// A plot's file name, what it shows and its bars.
type Plot = (&'static str, Spec, Vec<Bar>);

/// One plot per CoreMark implementation: they are never compared.
fn coremark_plots(g: &Group, fp: &str, label: &dyn Fn(&model::Meta) -> String) -> Vec<Plot> {
    let mut plots = Vec::new();
    for (rows, file, title, which) in [
        (&g.cpu, "coremark.svg", "CoreMark iterations/s", "CoreMark"),
        (&g.cpu_eembc, "coremark-eembc.svg", "CoreMark iterations/s, EEMBC's sources", "CoreMark (EEMBC's sources)"),
    ] {
        // Measured rows' whiskers are the median's interval, the one
        // the table ranks by; imported rows have none and show min–max.
        // (Measured and imported rows never share a group.)
        let cpu: Vec<Bar> = rows
            .iter()
            .filter(|r| !r.marked)
            .filter_map(|r| {
                let whiskers = r.interval.map(|i| (i.lo, i.hi)).or_else(|| range(&r.fig.range));
                Some(Bar { label: label(&r.meta), value: r.fig.median_value?, range: whiskers, series: 0 })
            })
            .collect();
        let whiskers = if rows.iter().any(|r| r.interval.is_some()) {
            "whiskers from each median's interval (the range of its samples where there are 3 to 5, the percentile \
             bootstrap interval of the median where there are 6 or more)"
        } else {
            "min–max whiskers (imported figures: no interval can be computed without samples)"
        };
        plots.push((
            file,
            Spec {
                title: title.into(),
                desc: format!(
                    "Median {which} iterations per second per runner, with {whiskers}; higher is better ({fp})."
                ),
                axis: "iterations/s (higher is better)".into(),
            },
            cpu,
        ));
    }

    plots
}

fn disk_plots(g: &Group, fp: &str, label: &dyn Fn(&model::Meta) -> String) -> Vec<Plot> {
    let mut plots = Vec::new();
    let mut mib = Vec::new();
    let mut iops = Vec::new();
    for r in g.disk.iter().filter(|r| !r.marked) {
        for (name, v, series) in [("read", &r.fig.read, 0), ("write", &r.fig.write, 1)] {
            if let Some(v) = leading(v) {
                mib.push(Bar { label: format!("{} · {name}", label(&r.meta)), value: v, range: None, series });
            }
        }
        for (name, v, series) in [("random read", &r.fig.rand_read, 2), ("random write", &r.fig.rand_write, 3)] {
            if let Some(v) = leading(v) {
                iops.push(Bar { label: format!("{} · {name}", label(&r.meta)), value: v, range: None, series });
            }
        }
    }
    plots.push((
        "disk-mib.svg",
        Spec {
            title: "Disk sequential MiB/s".into(),
            desc: format!("Median sequential read and write throughput per runner in MiB/s; higher is better ({fp})."),
            axis: "MiB/s (higher is better)".into(),
        },
        mib,
    ));
    plots.push((
        "disk-iops.svg",
        Spec {
            title: "Disk random IOPS".into(),
            desc: format!("Median random read and write operations per second per runner; higher is better ({fp})."),
            axis: "IOPS (higher is better)".into(),
        },
        iops,
    ));

    plots
}

/// One plot per cache method: the two time different things.
fn cache_plots(g: &Group, fp: &str, label: &dyn Fn(&model::Meta) -> String) -> Vec<Plot> {
    let mut plots = Vec::new();
    for (rows, file, method, what) in [
        (&g.cache, "cache.svg", "client", "the collector's own client, no step transitions"),
        (
            &g.cache_action,
            "cache-action.svg",
            "action",
            "the action step with its node start-up and adjacent step transitions",
        ),
    ] {
        let mut bars = Vec::new();
        for r in rows.iter().filter(|r| !r.marked) {
            for (name, v, series) in [("save", &r.fig.save, 0), ("restore", &r.fig.restore, 1)] {
                if let Some(median) = leading(v) {
                    bars.push(Bar {
                        label: format!("{} · {} · {name}", label(&r.meta), r.fig.backend),
                        value: median,
                        range: range(v),
                        series,
                    });
                }
            }
        }
        plots.push((
            file,
            Spec {
                title: format!("Cache save and restore seconds, {method} method"),
                desc: format!(
                    "Median seconds to save and to restore the cache payload per runner and backend, timed by the {method} method ({what}), with min–max whiskers; lower is better ({fp})."
                ),
                axis: "seconds (lower is better)".into(),
            },
            bars,
        ));
    }

    plots
}

fn internet_plots(g: &Group, fp: &str, label: &dyn Fn(&model::Meta) -> String) -> Vec<Plot> {
    let mut plots = Vec::new();
    let mut net = Vec::new();
    for r in g.internet.iter().filter(|r| !r.marked) {
        for (name, v, series) in [("download", &r.fig.download, 0), ("upload", &r.fig.upload, 1)] {
            if let Some(v) = leading(v) {
                net.push(Bar { label: format!("{} · {name}", label(&r.meta)), value: v, range: None, series });
            }
        }
    }
    plots.push((
        "internet.svg",
        Spec {
            title: "Internet Mbps".into(),
            desc: format!(
                "Median download and upload speed per runner in decimal megabits per second; higher is better ({fp})."
            ),
            axis: "Mbps (higher is better)".into(),
        },
        net,
    ));
    plots
}
