//! The overview: the runners to choose from, one section per comparison
//! group of CoreMark (`model::Group`, its project's or EEMBC's table), each
//! section its own table ordered by CoreMark within the group and never
//! against another group. Per runner: the headline figure of each stage
//! (from the runner's newest complete result that has it, else its
//! newest), each against the best of its own comparison table, what the
//! runner is and costs (`providers`), and its cost of one-thread work
//! (`cost_of_work`).
//!
//! This module takes the groups as they are made and never groups results
//! itself. The headlines are those the tables rank by where they are
//! speeds, and a speed where they are not (docs/methodology.md, "The
//! overview"): CoreMark median iterations/s, disk random-read IOPS, cache
//! restore MiB/s (the runner's fastest backend), internet download Mbit/s.
//! Beside the one-thread CoreMark, each row has the all-core one, what a
//! vCPU is worth and the cost of all-core work (`cores`). The page comes
//! three times: ordered by CoreMark (`/overview/`), by cost of one-thread
//! work (`/overview/by-cost/`) and by cost of all-core work
//! (`/overview/by-allcore-cost/`), so that each order stands without a
//! script.
//! Under each CoreMark table stands the group's speed against price
//! (`price_chart`).

mod cores;

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde::Serialize;
use tera::Tera;

use super::group_name::group_name;
use super::pages::{Common, render};
use super::price_chart::{self, PriceChart};
use crate::model::{self, Group, Model, ProfileRef, Row, leading};
use crate::providers::{MachineView, Providers};
use crate::report::{CacheRow, CpuRow, DiskRow, InternetRow};
use crate::stats::Rank;

pub use self::cores::{ALL_CORE_WORK_ITERATIONS, AllCore, all_core_cost};

/// One stage's headline figure of a runner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    /// As the tables print it, e.g. `33392.77`.
    pub value: String,
    /// Against the best unmarked row of the same table, e.g. `87 %`, from
    /// the figure of the first row of its place: rows that cannot be told
    /// apart (`stats::Rank::tied`) share it, shown `≈ 100 %`; none without
    /// a figure or where this row is marked.
    pub relative: Option<String>,
    /// The best comparable result has it.
    pub best: bool,
    /// What else the figure needs to be read, e.g. the cache backend.
    pub note: Option<String>,
    /// The row is marked in its table (incomplete or stale).
    pub marked: bool,
    /// The comparison group it is set against, in words (`group_name`).
    pub group: String,
    /// Where `group` is not the section's (the figure's stage groups other
    /// results than CoreMark does) and the column's figures are set against
    /// more than one group: which of them, e.g. `group A`, that the caption
    /// names (`Section::other_groups`).
    pub tag: Option<String>,
}

/// One runner's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverviewRow {
    pub provider_id: String,
    pub provider_name: String,
    pub label: String,
    pub url: String,
    pub machine: MachineView,
    /// The price per vCPU-minute, e.g. `$0.004`, where the price and the
    /// vCPU count are stated.
    pub per_vcpu: Option<String>,
    pub cpu: Option<Headline>,
    /// The CoreMark row's place in its comparison table (`model::Row::place`),
    /// where it has one: the data files' place and tie.
    pub place: Option<Rank>,
    /// The one-thread median unrounded, for index.json.
    #[serde(skip)]
    pub cpu_value: Option<f64>,
    /// The all-core CoreMark, what a vCPU is worth and the cost of all-core
    /// work (`cores`); empty without a CoreMark row.
    pub all_core: AllCore,
    /// The cost of one-thread work (`cost_of_work`), formatted, e.g.
    /// `$0.00508`, from the figure of the first row of the CoreMark
    /// place, so that rows that cannot be told apart share it.
    pub cost: Option<String>,
    /// The CoreMark row shares its place (shown `≈` before the cost).
    pub cost_tied: bool,
    /// Its value in US dollars, for the order by cost and the script.
    pub cost_usd: Option<f64>,
    pub disk: Option<Headline>,
    pub cache: Option<Headline>,
    pub internet: Option<Headline>,
    /// The median queue time of its newest result's measuring jobs, as
    /// GitHub's run record gives them (`Meta::queue_median`); none without one.
    pub queue: Option<String>,
}

/// One section: the runners whose CoreMark headline is in one comparison
/// table, or (`id` `no-coremark`, no `key`) those without a CoreMark
/// headline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// Anchor and table id stem: `<group id>-cpu`, `<group id>-cpu-eembc`
    /// or `no-coremark`.
    pub id: String,
    /// What the group compares, in words (`group_name`).
    pub name: String,
    /// Its comparability key and profiles, for the details element.
    pub key: String,
    pub profiles: Vec<ProfileRef>,
    /// The group's fastest one-thread CoreMark (the best unmarked row of
    /// its table), as printed, and its runner; none without one.
    pub fastest: Option<String>,
    pub fastest_runner: Option<String>,
    pub rows: Vec<OverviewRow>,
    /// The groups other than the section's that its disk, cache and
    /// internet figures are set against, said once in the caption: the
    /// column, the cells' tag where the column has more than one group
    /// (`Headline::tag`), and the group.
    pub other_groups: Vec<(&'static str, Option<String>, String)>,
    /// Whether a row has a queue time: only then the column is shown.
    pub queue: bool,
    /// Whether a row has a cost of all-core work: only then its column's
    /// header links to the order by it.
    pub all_core_cost: bool,
    /// The stage columns whose figures are set against more than one
    /// group: they do not sort, as sorting would order figures of
    /// different groups together.
    pub mixed: Vec<&'static str>,
    /// The group's index in the model and the table's in the group.
    #[serde(skip)]
    order: (usize, usize),
}

/// The overview's sections: CoreMark groups in the order of the model,
/// then the runners without a CoreMark headline (a section with no `id`).
pub fn sections(model: &Model, providers: &Providers, now: jiff::Timestamp) -> Vec<Section> {
    // One pass over the groups per stage, not one per runner: a build of
    // thousands of runners stays linear in the rows.
    let g = &model.groups;
    let names = group_names(g);
    let mut cpu = newest(g, |g| [&g.cpu[..], &g.cpu_eembc[..]], |f: &CpuRow| f.median_value);
    let mut disk = newest(g, |g| [&g.disk[..]], |f: &DiskRow| leading(&f.rand_read));
    let mut cache = newest(g, |g| [&g.cache[..], &g.cache_action[..]], |f: &CacheRow| leading(&f.restore_mib_per_s));
    let mut internet = newest(g, |g| [&g.internet[..]], |f: &InternetRow| leading(&f.download));
    let mut sections: Vec<Section> = Vec::new();
    let mut index: HashMap<(usize, usize), usize> = HashMap::new();
    let mut rest = Vec::new();
    for r in &model.runners {
        let machine = providers.machine(&r.provider_id, &r.label, now);
        let who = (r.provider_id.as_str(), r.label.as_str());
        let c = cpu.remove(&who);
        let name = |gi: usize, ti: usize| names[&(gi, ti)].clone();
        let headline = |c: &Chosen<'_, _>, text, note| c.headline(text, note, name(c.group, c.table));
        let cost = c.as_ref().and_then(|c| cost_of_work(machine.usd_per_minute, c.placed(), c.best, c.row.marked));
        let cost_tied = c.as_ref().is_some_and(|c| c.tied());
        let row = OverviewRow {
            provider_id: r.provider_id.clone(),
            provider_name: r.provider_name.clone(),
            label: r.label.clone(),
            url: format!("/runners/{}/{}/", r.provider_id, r.label),
            per_vcpu: per_vcpu(&machine),
            cpu: c.as_ref().map(|c| headline(c, &|f: &CpuRow| f.median.clone(), &|_: &CpuRow| None)),
            place: c.as_ref().and_then(|c| c.row.place),
            cpu_value: c.as_ref().and_then(|c| c.value),
            all_core: c.as_ref().map(|c| AllCore::of(&c.row.fig, c.row.marked, c.row.meta.stale)).unwrap_or_default(),
            cost: cost.map(money),
            cost_tied,
            cost_usd: cost,
            disk: disk.remove(&who).map(|c| c.headline(|f| f.rand_read.clone(), |_| None, name(c.group, c.table))),
            cache: cache.remove(&who).map(|c| {
                c.headline(
                    |f| f.restore_mib_per_s.clone(),
                    |f| Some(format!("{}, {}", f.backend, f.method_label)),
                    name(c.group, c.table),
                )
            }),
            internet: internet
                .remove(&who)
                .map(|c| c.headline(|f| f.download.clone(), |f| Some(f.service.clone()), name(c.group, c.table))),
            queue: r.entries.last().and_then(|&i| model.entries[i].meta.queue_median.clone()),
            machine,
        };
        let Some(c) = c else {
            rest.push(row);
            continue;
        };
        let i = *index.entry((c.group, c.table)).or_insert_with(|| {
            let group = &g[c.group];
            let table = if c.table == 0 { &group.cpu } else { &group.cpu_eembc };
            let fastest = table
                .iter()
                .filter(|r| !r.marked)
                .filter(|r| r.fig.median_value.is_some_and(f64::is_finite))
                .max_by(|a, b| a.fig.median_value.unwrap_or(0.0).total_cmp(&b.fig.median_value.unwrap_or(0.0)));
            sections.push(Section {
                id: format!("{}-{}", group.id, if c.table == 0 { "cpu" } else { "cpu-eembc" }),
                name: name(c.group, c.table),
                key: group.key.clone(),
                profiles: group.profiles.clone(),
                fastest: fastest.map(|r| r.fig.median.clone()),
                fastest_runner: fastest.map(|r| r.meta.runner.clone()),
                rows: Vec::new(),
                other_groups: Vec::new(),
                queue: false,
                all_core_cost: false,
                mixed: Vec::new(),
                order: (c.group, c.table),
            });
            sections.len() - 1
        });
        sections[i].rows.push(row);
    }
    // The model's group order; within a section, CoreMark order.
    sections.sort_by_key(|s| s.order);
    for s in &mut sections {
        sort_by_coremark(&mut s.rows);
        let mut all_core: Vec<_> = s.rows.iter_mut().map(|r| (&mut r.all_core, r.machine.usd_per_minute)).collect();
        cores::place(&mut all_core, money);
        caption_groups(s);
    }
    if !rest.is_empty() {
        rest.sort_by(|a, b| (&a.provider_id, &a.label).cmp(&(&b.provider_id, &b.label)));
        sections.push(Section {
            id: "no-coremark".into(),
            name: "Runners without a CoreMark result".into(),
            key: String::new(),
            profiles: Vec::new(),
            fastest: None,
            fastest_runner: None,
            rows: rest,
            other_groups: Vec::new(),
            queue: false,
            all_core_cost: false,
            mixed: Vec::new(),
            order: (usize::MAX, 0),
        });
    }
    for s in &mut sections {
        s.queue = s.rows.iter().any(|r| r.queue.is_some());
        s.all_core_cost = s.rows.iter().any(|r| r.all_core.cost_usd.is_some());
    }
    sections
}

/// Names in the caption the groups other than the section's that a stage
/// column's figures are set against: one such group for the whole column
/// without a tag in the cells, else each with a letter that its cells show.
fn caption_groups(s: &mut Section) {
    type Pick = fn(&mut OverviewRow) -> Option<&mut Headline>;
    let columns: [(&str, Pick); 3] = [
        ("Random read IOPS", |r| r.disk.as_mut()),
        ("Cache restore MiB/s", |r| r.cache.as_mut()),
        ("Download Mbps", |r| r.internet.as_mut()),
    ];
    for (column, pick) in columns {
        let mut groups: Vec<String> = s.rows.iter_mut().filter_map(pick).map(|h| h.group.clone()).collect();
        groups.sort_unstable();
        groups.dedup();
        let all = groups.len();
        if all > 1 {
            s.mixed.push(column);
        }
        groups.retain(|g| *g != s.name);
        if all == 1 && groups.len() == 1 {
            s.other_groups.push((column, None, groups.remove(0)));
            continue;
        }
        for (i, g) in groups.into_iter().enumerate() {
            // Past Z, the letters go on as AA, AB…: no section has that many
            // groups of one stage today.
            let letter = |n: usize| char::from(b'A' + u8::try_from(n % 26).expect("under 26"));
            let tag = match i {
                0..26 => format!("group {}", letter(i)),
                _ => format!("group {}{}", letter(i / 26 - 1), letter(i)),
            };
            for h in s.rows.iter_mut().filter_map(pick).filter(|h| h.group == g) {
                h.tag = Some(tag.clone());
            }
            s.other_groups.push((column, Some(tag), g));
        }
    }
}

/// The cost of one-thread work: what this runner charges, at its price per
/// minute for the whole runner, for the one-thread CoreMark work that the
/// group's fastest runner does in one minute, in US dollars:
/// `usd_per_minute × fastest ÷ this`. None without a price or a figure, or
/// for a marked row (it has no share either).
pub fn cost_of_work(usd_per_minute: Option<f64>, this: Option<f64>, fastest: Option<f64>, marked: bool) -> Option<f64> {
    let (price, this, fastest) = (usd_per_minute?, this?, fastest?);
    let cost = price * fastest / this;
    (!marked && this > 0.0 && cost.is_finite()).then_some(cost)
}

/// US dollars to at least three significant digits and two decimals:
/// `$0.00508`, `$0.128`, `$1.50`.
pub fn money(usd: f64) -> String {
    let decimals = if usd > 0.0 { (2 - usd.log10().floor() as i32).max(2) } else { 2 };
    format!("${usd:.prec$}", prec = decimals as usize)
}

/// The price per vCPU-minute, where the price and the vCPU count are stated.
fn per_vcpu(m: &MachineView) -> Option<String> {
    let vcpu: u32 = m.vcpu.parse().ok().filter(|&v| v > 0)?;
    Some(money(m.usd_per_minute? / f64::from(vcpu)))
}

/// Highest CoreMark first, runners whose figure is marked (no share) after
/// those whose figure is not, then provider and label.
fn sort_by_coremark(rows: &mut [OverviewRow]) {
    let key = |r: &OverviewRow| {
        let h = r.cpu.as_ref();
        let v = h.and_then(|h| leading(&h.value)).filter(|v| v.is_finite());
        (h.is_none_or(|h| h.relative.is_none()), v.map_or(f64::INFINITY, |v| -v))
    };
    rows.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0)
            .then(ka.1.total_cmp(&kb.1))
            .then_with(|| (&a.provider_id, &a.label).cmp(&(&b.provider_id, &b.label)))
    });
}

/// The same sections, each ordered by cost of one-thread work, cheapest
/// first; runners without one after, in CoreMark order.
pub fn by_cost(sections: &[Section]) -> Vec<Section> {
    let mut sections = sections.to_vec();
    for s in &mut sections {
        // Stable: rows without a cost keep the CoreMark order.
        s.rows.sort_by(|a, b| a.cost_usd.unwrap_or(f64::INFINITY).total_cmp(&b.cost_usd.unwrap_or(f64::INFINITY)));
    }
    sections
}

/// The same sections, each ordered by cost of all-core work, cheapest
/// first; runners without one after, in CoreMark order.
pub fn by_all_core_cost(sections: &[Section]) -> Vec<Section> {
    let mut sections = sections.to_vec();
    for s in &mut sections {
        // Stable: rows without a cost keep the CoreMark order.
        let cost = |r: &OverviewRow| r.all_core.cost_usd.unwrap_or(f64::INFINITY);
        s.rows.sort_by(|a, b| cost(a).total_cmp(&cost(b)));
    }
    sections
}

/// What each table of each group compares, in words (`group_name`), by
/// (group index, table index); the second table of a CoreMark or cache group adds what
/// sets it apart. Names that would be the same for two tables are told
/// apart by a variant number, never by a key.
fn group_names(groups: &[Group]) -> HashMap<(usize, usize), String> {
    let mut names = HashMap::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for (gi, g) in groups.iter().enumerate() {
        let tables: [(&str, Vec<&model::Meta>); 2] = match g.stage {
            "cpu" => [
                ("", g.cpu.iter().map(|r| &*r.meta).collect()),
                (", EEMBC's CoreMark sources", g.cpu_eembc.iter().map(|r| &*r.meta).collect()),
            ],
            "cache" => [
                (", client method", g.cache.iter().map(|r| &*r.meta).collect()),
                (", action method", g.cache_action.iter().map(|r| &*r.meta).collect()),
            ],
            "disk" => [("", g.disk.iter().map(|r| &*r.meta).collect()), ("", Vec::new())],
            _ => [("", g.internet.iter().map(|r| &*r.meta).collect()), ("", Vec::new())],
        };
        for (ti, (what, metas)) in tables.iter().enumerate() {
            if metas.is_empty() {
                continue;
            }
            let mut name = format!("{}{what}", group_name(g, metas.iter().copied()));
            let n = seen.entry(format!("{}:{name}", g.stage)).or_insert(0);
            *n += 1;
            if *n > 1 {
                name = format!("{name} (variant {n})");
            }
            names.insert((gi, ti), name);
        }
    }
    names
}

/// A runner's row chosen for a stage, with the best of its table.
struct Chosen<'a, T> {
    row: &'a Row<T>,
    value: Option<f64>,
    /// The figure of the first row of its place, where it has a place.
    place_value: Option<f64>,
    best: Option<f64>,
    /// The group's index in the model and the table's among the stage's.
    group: usize,
    table: usize,
}

impl<T> Chosen<'_, T> {
    /// Shares its place with another row: cannot be told apart from it.
    fn tied(&self) -> bool {
        self.row.place.is_some_and(|p| p.tied)
    }

    /// The figure its share and cost are computed from: its place's, so
    /// that rows that cannot be told apart share them.
    fn placed(&self) -> Option<f64> {
        if self.tied() { self.place_value.or(self.value) } else { self.value }
    }

    fn headline(&self, text: impl Fn(&T) -> String, note: impl Fn(&T) -> Option<String>, group: String) -> Headline {
        // A marked row (incomplete or excluded) is not compared, as the
        // comparison tables rank it after the others and plot it not at all.
        let (relative, best) = match (self.placed(), self.best) {
            // Only the best shows 100 %: another row within half a percent
            // of it shows 99 %.
            (Some(v), Some(b)) if b > 0.0 && !self.row.marked => {
                let pct = if v >= b { 100.0 } else { (100.0 * v / b).round().min(99.0) };
                let tie = if self.tied() { "≈ " } else { "" };
                (Some(format!("{tie}{pct:.0} %")), v >= b)
            }
            _ => (None, false),
        };
        Headline {
            value: text(&self.row.fig),
            relative,
            best,
            note: note(&self.row.fig),
            marked: self.row.marked || self.row.meta.stale,
            tag: None,
            group,
        }
    }
}

/// Each runner's row of a stage (by provider id and label): of the rows
/// the groups show, an unmarked one (complete, not a try-out) from its
/// newest result, else a marked one from its newest (excluded results are
/// never a headline; of several rows of one result, such as cache
/// backends, the fastest), and the best unmarked figure of the table it
/// is in.
fn newest<'a, T, const N: usize>(
    groups: &'a [Group],
    tables: impl Fn(&'a Group) -> [&'a [Row<T>]; N],
    value: impl Fn(&T) -> Option<f64>,
) -> HashMap<(&'a str, &'a str), Chosen<'a, T>> {
    let value = |r: &Row<T>| value(&r.fig).filter(|v| v.is_finite());
    let mut chosen: HashMap<(&'a str, &'a str), Chosen<'a, T>> = HashMap::new();
    for (gi, g) in groups.iter().enumerate() {
        for (ti, table) in tables(g).into_iter().enumerate() {
            let best = table.iter().filter(|r| !r.marked).filter_map(value).reduce(f64::max);
            // Each place's figure: its first row's (the table is in rank
            // order, so the first row seen of a place is its first).
            let mut places: HashMap<usize, Option<f64>> = HashMap::new();
            for r in table {
                if let Some(p) = r.place {
                    places.entry(p.place).or_insert_with(|| value(r));
                }
            }
            for row in table.iter().filter(|r| r.meta.excluded.is_none()) {
                let v = value(row);
                let place_value = row.place.and_then(|p| places.get(&p.place).copied().flatten());
                let new = Chosen { row, value: v, place_value, best, group: gi, table: ti };
                match chosen.entry((row.meta.provider_id.as_str(), row.meta.runner.as_str())) {
                    Entry::Vacant(e) => {
                        e.insert(new);
                    }
                    Entry::Occupied(mut e) => {
                        // An unmarked row (complete, not a try-out) before
                        // a marked one, as the comparison tables choose;
                        // then the newest result; of its rows, the fastest.
                        // A newer try-out or incomplete result of another
                        // key never hides a complete one.
                        let c = e.get();
                        let (newer, older) = (newer_key(&row.meta), newer_key(&c.row.meta));
                        let fig = |v: Option<f64>| v.unwrap_or(f64::NEG_INFINITY);
                        if (!row.marked, newer) > (!c.row.marked, older)
                            || ((!row.marked, newer) == (!c.row.marked, older)
                                && fig(v).partial_cmp(&fig(c.value)) == Some(std::cmp::Ordering::Greater))
                        {
                            e.insert(new);
                        }
                    }
                }
            }
        }
    }
    chosen
}

/// `model::newer_key` of a row's result.
fn newer_key(m: &model::Meta) -> (&str, &str) {
    (&m.timestamp, &m.rel_path)
}

/// The architectures and OSes of the rows, sorted, for the filters.
pub fn choices(sections: &[Section]) -> (Vec<String>, Vec<String>) {
    let rows = || sections.iter().flat_map(|s| &s.rows);
    let mut arch: Vec<String> = rows().map(|r| r.machine.arch.clone()).collect();
    let mut os: Vec<String> = rows().map(|r| r.machine.os.clone()).collect();
    for v in [&mut arch, &mut os] {
        v.sort();
        v.dedup();
    }
    (arch, os)
}

#[derive(Serialize)]
struct OverviewContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    sections: &'a [Section],
    /// Each section's speed-against-price chart, in the order of `sections`.
    charts: Vec<Option<PriceChart>>,
    /// `coremark`, `cost` or `allcore-cost`: which column orders the rows.
    order: &'a str,
    /// The filters' choices.
    arch: Vec<String>,
    os: Vec<String>,
}

/// The overview ordered by CoreMark (`order` `coremark`, `/overview/`), by
/// cost of one-thread work (`cost`, `/overview/by-cost/`) or by cost of
/// all-core work (`allcore-cost`, `/overview/by-allcore-cost/`).
pub fn page(tera: &Tera, common: &Common, sections: &[Section], order: &str) -> anyhow::Result<String> {
    let (arch, os) = choices(sections);
    let ctx = OverviewContext {
        common,
        title: match order {
            "cost" => "Overview by cost of one-thread work",
            "allcore-cost" => "Overview by cost of all-core work",
            _ => "Overview",
        },
        description: "The runners to choose from, one table per comparison group: the headline figure of each stage \
                      against the best of its group, with size, price, what a vCPU is worth and the costs of \
                      one-thread and all-core work.",
        sections,
        charts: sections.iter().map(price_chart).collect::<anyhow::Result<_>>()?,
        order,
        arch,
        os,
    };
    render(tera, "overview.html", &ctx)
}

/// A CoreMark section's speed against price (`price_chart`), from its rows;
/// none for the section of runners without a CoreMark figure.
fn price_chart(s: &Section) -> anyhow::Result<Option<PriceChart>> {
    if s.key.is_empty() {
        return Ok(None);
    }
    let runners: Vec<price_chart::Runner<'_>> = s
        .rows
        .iter()
        .map(|r| price_chart::Runner {
            label: &r.label,
            url: &r.url,
            provider_id: &r.provider_id,
            provider_name: &r.provider_name,
            price: &r.machine.price,
            usd_per_minute: r.machine.usd_per_minute,
            one_thread: r.cpu.as_ref().filter(|h| h.relative.is_some()).map(|h| h.value.as_str()),
            all_core: r.all_core.value.as_deref(),
            all_core_why: r.all_core.why,
        })
        .collect();
    price_chart::of(&runners).map(Some)
}
