//! Estimate one CI job on every runner (docs/methodology.md, "Estimate a
//! job"): a job is CPU-bound seconds on a named reference runner, a share
//! of them run in parallel on every logical CPU, disk MiB read and written, cache MiB restored and saved with one cache, and
//! MiB downloaded. Each part's time on a runner comes from that runner's
//! figures; the estimate is their sum, with a range from the samples'
//! extremes, and a cost where the provider states a price.
//!
//! This is the one model of the estimate page: `web::estimate` renders the
//! preset pages with it, and `templates/static/estimate.js` repeats the
//! same arithmetic, in the same order, on the same figures (the page's
//! `figures.json`), so that the two give the same digits (a browser test
//! checks it). Change one, change the other.

use serde::{Deserialize, Serialize};

use crate::stats::{Interval, Rank, ranks};

/// 1 MiB in decimal megabits: 2²⁰ × 8 ÷ 10⁶. Downloads are given in MiB,
/// the internet figures in Mbit/s (decimal), as LibreSpeed reports them.
pub const MBIT_PER_MIB: f64 = 8.388608;

/// One figure of a runner: its median and the least and greatest of its
/// samples (imported figures without a published range: the median three
/// times). Two decimals, as the tables print them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Span {
    pub med: f64,
    pub min: f64,
    pub max: f64,
}

/// A runner's CoreMark figure in one comparison group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuFig {
    /// The group: the CoreMark key, with `/eembc` for EEMBC's sources
    /// (never ranked with the project's implementation).
    pub group: String,
    /// Iterations/s.
    pub it_s: Span,
}

/// A runner's sequential disk figures in one comparison group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskFig {
    pub group: String,
    /// Sequential read MiB/s (1 MiB blocks, queue depth one, direct I/O).
    pub read: Span,
    /// Sequential write MiB/s.
    pub write: Span,
}

/// A runner's figures for one cache backend and method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheFig {
    /// The cache key and the method (`<key>/client`, `<key>/action`): two
    /// methods time different things and are never ranked together.
    pub group: String,
    /// The job's choice of cache: `<method>: <backend name>`.
    pub cache: String,
    /// The payload of each trial, MiB.
    pub payload_mib: f64,
    /// Restore and save seconds of the payload.
    pub restore_s: Span,
    pub save_s: Span,
}

/// A runner's internet download figure in one comparison group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetFig {
    pub group: String,
    /// Download Mbit/s (decimal).
    pub mbps: Span,
}

/// One runner's figures: its rows that the comparison tables rank, one
/// per group (and per cache backend and method).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Runner {
    /// `provider/label`, the reference runner's name in the address.
    pub id: String,
    pub provider: String,
    pub label: String,
    pub url: String,
    /// The provider file's price, where stated.
    pub usd_per_minute: Option<f64>,
    /// One-thread CoreMark.
    pub cpu: Vec<CpuFig>,
    /// All-core CoreMark (one context per logical CPU), by its own groups.
    #[serde(default)]
    pub allcore: Vec<CpuFig>,
    pub disk: Vec<DiskFig>,
    pub cache: Vec<CacheFig>,
    pub net: Vec<NetFig>,
}

/// What a reader says of one job. A part of zero is not used, so runners
/// without it are still estimated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    /// The runner `cpu_s` was measured on (`Runner::id`).
    pub reference: String,
    /// CPU-bound seconds on the reference runner.
    pub cpu_s: f64,
    /// The share of `cpu_s`, 0 to 100 %, that runs in parallel on every
    /// logical CPU; the rest runs on one thread (Amdahl's law).
    pub parallel_pct: f64,
    pub read_mib: f64,
    pub write_mib: f64,
    /// `CacheFig::cache`.
    pub cache: String,
    pub restore_mib: f64,
    pub save_mib: f64,
    pub download_mib: f64,
}

/// The parts of a job, in the order of the table and of the sum.
pub const PARTS: [&str; 4] = ["CPU", "disk", "cache", "download"];

/// A time: the estimate at the medians, and at every part's slowest and
/// fastest sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Time {
    pub med: f64,
    /// The fastest: every part at its best sample.
    pub lo: f64,
    /// The slowest.
    pub hi: f64,
}

impl Time {
    const ZERO: Time = Time { med: 0.0, lo: 0.0, hi: 0.0 };

    fn add(self, o: Time) -> Time {
        Time { med: self.med + o.med, lo: self.lo + o.lo, hi: self.hi + o.hi }
    }

    fn scale(self, k: f64) -> Time {
        Time { med: self.med * k, lo: self.lo * k, hi: self.hi * k }
    }
}

/// `amount` at a rate (amount per second): the median, and the fastest at
/// the greatest rate.
fn at_rate(amount: f64, rate: Span) -> Time {
    if amount == 0.0 {
        return Time::ZERO;
    }
    Time { med: amount / rate.med, lo: amount / rate.max, hi: amount / rate.min }
}

/// One runner's estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Index into the figures' runners.
    pub runner: usize,
    /// Seconds of each of `PARTS`; `None` where the job has none of it.
    pub parts: [Option<Time>; 4],
    pub total: Time,
    pub place: Rank,
    /// US dollars per run, where a price is stated.
    pub cost: Option<Time>,
    /// Its place among the rows with a cost, by cost.
    pub cost_place: Option<Rank>,
}

/// The rows of one comparison group: every used part's figures share a
/// group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// The groups of the used parts, in `PARTS` order: `cpu <key>`, ….
    pub groups: Vec<String>,
    /// Fastest first.
    pub rows: Vec<Row>,
}

/// The estimate of a job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// The most rows first.
    pub tables: Vec<Table>,
    /// Runners that lack a used part, with those parts: listed, never
    /// estimated. The CPU part is `CPU` for the one-thread figure and
    /// `CPU, all cores` for the all-core one.
    pub not_measured: Vec<(usize, Vec<&'static str>)>,
    /// Runners with CoreMark figures of the kind the job needs, but none
    /// in the reference runner's group: they cannot be compared with it.
    pub other_group: Vec<usize>,
    /// The job has CPU seconds, but the reference runner has no CoreMark
    /// figure of a kind the job needs: nothing can be scaled.
    pub no_reference: bool,
}

/// One option of a part: the groups it is compared within (`<part> <id>`,
/// as a table's `groups`) and its time.
type Opt = (Vec<String>, Time);

/// One runner's choice of option for each used part.
type Choice<'a> = [Option<&'a Opt>; 4];

/// The CPU part's label for the all-core figure, in `not_measured` and
/// the tables' groups.
pub const ALL_CORES: &str = "CPU, all cores";

/// The reference runner's medians by group: a figure is scaled within its
/// group only.
fn medians<'a>(runners: &'a [Runner], id: &str, figs: fn(&Runner) -> &Vec<CpuFig>) -> Vec<(&'a str, f64)> {
    runners.iter().filter(|r| r.id == id).flat_map(|r| figs(r).iter().map(|c| (c.group.as_str(), c.it_s.med))).collect()
}

/// `seconds` of the reference's work on each of `figs` that shares a group
/// with the reference (`reference`): seconds × its speed ÷ this runner's.
fn scaled(seconds: f64, part: &str, figs: &[CpuFig], reference: &[(&str, f64)]) -> Vec<Opt> {
    figs.iter()
        .filter_map(|c| {
            let (_, ref_med) = reference.iter().find(|(g, _)| *g == c.group)?;
            Some((vec![format!("{part} {}", c.group)], at_rate(seconds * ref_med, c.it_s)))
        })
        .collect()
}

/// Estimates `job` on every runner of `runners`.
pub fn estimate(runners: &[Runner], job: &Job) -> Estimate {
    let used = [
        job.cpu_s > 0.0,
        job.read_mib > 0.0 || job.write_mib > 0.0,
        job.restore_mib > 0.0 || job.save_mib > 0.0,
        job.download_mib > 0.0,
    ];
    // Amdahl's law on measured figures: the serial seconds scale with
    // one-thread CoreMark, the parallel ones with all-core CoreMark.
    let share = job.parallel_pct.clamp(0.0, 100.0) / 100.0;
    let (serial_s, parallel_s) = (job.cpu_s * (1.0 - share), job.cpu_s * share);
    let (serial, parallel) = (used[0] && serial_s > 0.0, used[0] && parallel_s > 0.0);
    let one = medians(runners, &job.reference, |r| &r.cpu);
    let all = medians(runners, &job.reference, |r| &r.allcore);
    let mut out =
        Estimate { tables: Vec::new(), not_measured: Vec::new(), other_group: Vec::new(), no_reference: false };
    if (serial && one.is_empty()) || (parallel && all.is_empty()) {
        out.no_reference = true;
        return out;
    }
    for (i, r) in runners.iter().enumerate() {
        let none = || vec![(Vec::new(), Time::ZERO)];
        let one_opts = if serial { scaled(serial_s, PARTS[0], &r.cpu, &one) } else { none() };
        let all_opts = if parallel { scaled(parallel_s, ALL_CORES, &r.allcore, &all) } else { none() };
        // Both kinds measured, but neither in the reference's group.
        if (one_opts.is_empty() && !r.cpu.is_empty()) || (all_opts.is_empty() && !r.allcore.is_empty()) {
            out.other_group.push(i);
            continue;
        }
        // Each used part's options; the CPU part is every pair of a
        // one-thread and an all-core option.
        let options: [Vec<Opt>; 4] = [
            one_opts
                .iter()
                .flat_map(|(g1, t1)| {
                    all_opts.iter().map(move |(g2, t2)| ([g1.clone(), g2.clone()].concat(), t1.add(*t2)))
                })
                .collect(),
            r.disk
                .iter()
                .map(|d| {
                    let t = at_rate(job.read_mib, d.read).add(at_rate(job.write_mib, d.write));
                    (vec![format!("{} {}", PARTS[1], d.group)], t)
                })
                .collect(),
            r.cache
                .iter()
                .filter(|c| c.cache == job.cache)
                .map(|c| {
                    let restore = c.restore_s.scale_time(job.restore_mib / c.payload_mib);
                    let save = c.save_s.scale_time(job.save_mib / c.payload_mib);
                    (vec![format!("{} {}", PARTS[2], c.group)], restore.add(save))
                })
                .collect(),
            r.net
                .iter()
                .map(|n| (vec![format!("{} {}", PARTS[3], n.group)], at_rate(job.download_mib * MBIT_PER_MIB, n.mbps)))
                .collect(),
        ];
        let mut missing: Vec<&'static str> = Vec::new();
        if used[0] && options[0].is_empty() {
            missing.extend(one_opts.is_empty().then_some(PARTS[0]));
            missing.extend(all_opts.is_empty().then_some(ALL_CORES));
        }
        missing.extend((1..4).filter(|&p| used[p] && options[p].is_empty()).map(|p| PARTS[p]));
        if !missing.is_empty() {
            out.not_measured.push((i, missing));
            continue;
        }
        // A runner with figures in two groups of a part (two profiles)
        // is estimated in each combination of groups.
        let mut choices: Vec<Choice<'_>> = vec![[None; 4]];
        for p in (0..4).filter(|&p| used[p]) {
            choices = choices
                .into_iter()
                .flat_map(|c| {
                    options[p].iter().map(move |o| {
                        let mut c = c;
                        c[p] = Some(o);
                        c
                    })
                })
                .collect();
        }
        for c in choices {
            let groups: Vec<String> = c.iter().flatten().flat_map(|(g, _)| g.iter().cloned()).collect();
            let parts = c.map(|o| o.map(|(_, t)| *t));
            let total = parts.iter().flatten().fold(Time::ZERO, |a, &t| a.add(t));
            let cost = r.usd_per_minute.map(|usd| total.scale(usd / 60.0));
            let row = Row { runner: i, parts, total, place: Rank { place: 0, tied: false }, cost, cost_place: None };
            match out.tables.iter_mut().find(|t| t.groups == groups) {
                Some(t) => t.rows.push(row),
                None => out.tables.push(Table { groups, rows: vec![row] }),
            }
        }
    }
    for t in &mut out.tables {
        rank_table(t, runners);
    }
    out.tables.sort_by(|a, b| b.rows.len().cmp(&a.rows.len()).then_with(|| a.groups.cmp(&b.groups)));
    out
}

impl Span {
    /// Seconds `self` (a time of one payload) times `k` payloads: median,
    /// least and greatest.
    fn scale_time(self, k: f64) -> Time {
        if k == 0.0 {
            return Time::ZERO;
        }
        Time { med: self.med * k, lo: self.min * k, hi: self.max * k }
    }
}

/// Sorts a table fastest first (then by provider and label) and places
/// its rows: two rows whose ranges (fastest to slowest) overlap share a
/// place, `≈`, as the comparison tables do (`stats::ranks`). The rows with
/// a cost are placed by cost the same way.
fn rank_table(t: &mut Table, runners: &[Runner]) {
    let name = |r: &Row| (&runners[r.runner].provider, &runners[r.runner].label);
    t.rows.sort_by(|a, b| a.total.med.total_cmp(&b.total.med).then_with(|| name(a).cmp(&name(b))));
    let spans: Vec<Option<Interval>> =
        t.rows.iter().map(|r| Some(Interval { lo: r.total.lo, hi: r.total.hi })).collect();
    for (r, place) in t.rows.iter_mut().zip(ranks(&spans)) {
        r.place = place;
    }
    let mut priced: Vec<usize> = (0..t.rows.len()).filter(|&i| t.rows[i].cost.is_some()).collect();
    let cost = |i: usize| t.rows[i].cost.map_or(f64::INFINITY, |c| c.med);
    priced.sort_by(|&a, &b| cost(a).total_cmp(&cost(b)).then_with(|| name(&t.rows[a]).cmp(&name(&t.rows[b]))));
    let spans: Vec<Option<Interval>> =
        priced.iter().map(|&i| t.rows[i].cost.map(|c| Interval { lo: c.lo, hi: c.hi })).collect();
    for (i, place) in priced.into_iter().zip(ranks(&spans)) {
        t.rows[i].cost_place = Some(place);
    }
}

/// `v` rounded to `decimals` and printed with them: the page script
/// rounds the same way (`Math.round(v × 10ⁿ) ÷ 10ⁿ`, then `toFixed`), so
/// the two print the same digits even at a half.
pub fn fixed(v: f64, decimals: i32) -> String {
    let k = 10f64.powi(decimals);
    format!("{:.*}", decimals as usize, (v * k).round() / k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(med: f64, min: f64, max: f64) -> Span {
        Span { med, min, max }
    }

    /// Two runners of one group, hand-made so that every figure below can
    /// be worked out on paper, and a third that lacks a cache.
    fn runners() -> Vec<Runner> {
        let runner = |id: &str, usd: Option<f64>| Runner {
            id: id.to_string(),
            provider: id.split('/').next().unwrap().to_string(),
            label: id.split('/').nth(1).unwrap().to_string(),
            url: format!("/runners/{id}/"),
            usd_per_minute: usd,
            cpu: Vec::new(),
            allcore: Vec::new(),
            disk: Vec::new(),
            cache: Vec::new(),
            net: Vec::new(),
        };
        let mut a = runner("a/a-x64", Some(0.008));
        a.cpu.push(CpuFig { group: "c1".into(), it_s: span(30000.0, 25000.0, 40000.0) });
        a.disk.push(DiskFig { group: "d1".into(), read: span(200.0, 100.0, 400.0), write: span(100.0, 50.0, 200.0) });
        a.cache.push(CacheFig {
            group: "k1/action".into(),
            cache: "action: GitHub Actions cache".into(),
            payload_mib: 512.0,
            restore_s: span(8.0, 4.0, 16.0),
            save_s: span(4.0, 2.0, 8.0),
        });
        a.net.push(NetFig { group: "n1".into(), mbps: span(838.8608, 419.4304, 1677.7216) });
        let mut b = runner("b/b-x64", None);
        b.cpu.push(CpuFig { group: "c1".into(), it_s: span(60000.0, 60000.0, 60000.0) });
        b.disk.push(DiskFig {
            group: "d1".into(),
            read: span(1000.0, 1000.0, 1000.0),
            write: span(500.0, 500.0, 500.0),
        });
        b.cache.push(CacheFig {
            group: "k1/action".into(),
            cache: "action: GitHub Actions cache".into(),
            payload_mib: 512.0,
            restore_s: span(2.0, 2.0, 2.0),
            save_s: span(1.0, 1.0, 1.0),
        });
        b.net.push(NetFig { group: "n1".into(), mbps: span(83.88608, 83.88608, 83.88608) });
        let mut c = runner("c/c-x64", Some(0.004));
        c.cpu.push(CpuFig { group: "c1".into(), it_s: span(15000.0, 15000.0, 15000.0) });
        vec![a, b, c]
    }

    fn job() -> Job {
        Job {
            reference: "a/a-x64".into(),
            cpu_s: 600.0,
            parallel_pct: 0.0,
            read_mib: 1000.0,
            write_mib: 500.0,
            cache: "action: GitHub Actions cache".into(),
            restore_mib: 1024.0,
            save_mib: 256.0,
            download_mib: 100.0,
        }
    }

    /// A time as the page prints it: `median (fastest–slowest)`, seconds
    /// with two decimals (MiB × 8.388608 is not exact in binary).
    fn shown(t: Option<Time>) -> String {
        t.map_or("—".to_string(), |t| format!("{} ({}–{})", fixed(t.med, 2), fixed(t.lo, 2), fixed(t.hi, 2)))
    }

    #[test]
    fn a_whole_job_equals_the_figures_worked_by_hand() {
        let runners = runners();
        let e = estimate(&runners, &job());
        assert!(!e.no_reference);
        // c has CoreMark only: listed apart, never estimated.
        assert_eq!(e.not_measured, vec![(2, vec!["disk", "cache", "download"])]);
        assert_eq!(e.tables.len(), 1);
        let table = &e.tables[0];
        assert_eq!(table.groups, ["CPU c1", "disk d1", "cache k1/action", "download n1"]);
        // b: CPU 600 × 30000 ÷ 60000 = 300; disk 1000 ÷ 1000 + 500 ÷ 500 = 2;
        // cache 2 × 1024/512 + 1 × 256/512 = 4.5; download 100 × 8.388608 ÷
        // 83.88608 = 10. Its samples are all alike: no range.
        let b = &table.rows[0];
        assert_eq!(b.runner, 1);
        assert_eq!(
            b.parts.map(shown),
            ["300.00 (300.00–300.00)", "2.00 (2.00–2.00)", "4.50 (4.50–4.50)", "10.00 (10.00–10.00)"]
        );
        assert_eq!(shown(Some(b.total)), "316.50 (316.50–316.50)");
        assert_eq!(b.cost, None);
        assert_eq!(b.cost_place, None);
        // a, the reference: CPU 600 at its median, 600 × 30000 ÷ 40000 =
        // 450 at its fastest sample, ÷ 25000 = 720 at its slowest; disk 1000
        // ÷ 200 + 500 ÷ 100 = 10 (2.5 + 2.5 = 5 to 10 + 10 = 20); cache 8 × 2
        // + 4 × 0.5 = 18 (4 × 2 + 2 × 0.5 = 9 to 16 × 2 + 8 × 0.5 = 36);
        // download 838.8608 ÷ 838.8608 = 1 (0.5 to 2).
        let a = &table.rows[1];
        assert_eq!(a.runner, 0);
        assert_eq!(
            a.parts.map(shown),
            ["600.00 (450.00–720.00)", "10.00 (5.00–20.00)", "18.00 (9.00–36.00)", "1.00 (0.50–2.00)"]
        );
        assert_eq!(shown(Some(a.total)), "629.00 (464.50–778.00)");
        // $0.008/min: 629 s is $0.08386…, 464.5 s $0.06193…, 778 s $0.10373….
        let cost = a.cost.unwrap();
        assert_eq!(fixed(cost.med, 4), "0.0839");
        assert_eq!(fixed(cost.med * 1000.0, 2), "83.87");
        assert_eq!((fixed(cost.lo, 4), fixed(cost.hi, 4)), ("0.0619".to_string(), "0.1037".to_string()));
        // The ranges (316.5 and 464.5–778) do not overlap: places 1 and 2.
        assert_eq!((b.place, a.place), (Rank { place: 1, tied: false }, Rank { place: 2, tied: false }));
        assert_eq!(a.cost_place, Some(Rank { place: 1, tied: false }));
    }

    #[test]
    fn a_cpu_only_job_ties_overlapping_ranges_and_prices_every_runner() {
        let runners = runners();
        let job = Job {
            reference: "b/b-x64".into(),
            cpu_s: 60.0,
            read_mib: 0.0,
            write_mib: 0.0,
            restore_mib: 0.0,
            save_mib: 0.0,
            download_mib: 0.0,
            ..job()
        };
        let e = estimate(&runners, &job);
        // Only the CPU part is used: c is estimated too.
        assert_eq!(e.not_measured, vec![]);
        let table = &e.tables[0];
        assert_eq!(table.groups, ["CPU c1"]);
        let order: Vec<usize> = table.rows.iter().map(|r| r.runner).collect();
        assert_eq!(order, [1, 0, 2]);
        // 60 × 60000 = 3,600,000 iterations: b 60 s; a 120 s (90 to 144);
        // c 240 s.
        let totals: Vec<Time> = table.rows.iter().map(|r| r.total).collect();
        assert_eq!(
            totals,
            [
                Time { med: 60.0, lo: 60.0, hi: 60.0 },
                Time { med: 120.0, lo: 90.0, hi: 144.0 },
                Time { med: 240.0, lo: 240.0, hi: 240.0 }
            ]
        );
        assert_eq!(table.rows.iter().map(|r| r.parts[1]).collect::<Vec<_>>(), [None, None, None]);
        let places: Vec<(usize, bool)> = table.rows.iter().map(|r| (r.place.place, r.place.tied)).collect();
        assert_eq!(places, [(1, false), (2, false), (3, false)]);
        // a: 120 s at $0.008/min = $0.016 ($0.012–$0.0192); c: 240 s at
        // $0.004/min = $0.016 exactly, inside a's range: ≈1, ≈1, a first
        // by name at the same median.
        let costs: Vec<(usize, String, Option<Rank>)> =
            table.rows.iter().map(|r| (r.runner, fixed(r.cost.map_or(0.0, |c| c.med), 4), r.cost_place)).collect();
        assert_eq!(
            costs,
            [
                (1, "0.0000".to_string(), None),
                (0, "0.0160".to_string(), Some(Rank { place: 1, tied: true })),
                (2, "0.0160".to_string(), Some(Rank { place: 1, tied: true }))
            ]
        );
    }

    #[test]
    fn no_reference_figure_no_cpu_estimate() {
        let job = Job { reference: "nobody/x".into(), ..job() };
        let e = estimate(&runners(), &job);
        assert!(e.no_reference);
        assert!(e.tables.is_empty());
    }

    #[test]
    fn halves_round_up_as_the_script_does() {
        assert_eq!(fixed(0.125, 2), "0.13");
        assert_eq!(fixed(2.5, 0), "3");
        assert_eq!(fixed(316.5, 1), "316.5");
    }
}
