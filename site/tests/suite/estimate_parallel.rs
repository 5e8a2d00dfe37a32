//! The estimate's parallel share (issue 56): the serial seconds scale with
//! one-thread CoreMark, the parallel ones with all-core CoreMark, each
//! within its own group with the reference runner. Every figure below is
//! worked out by hand.

use site::model::estimate::{CpuFig, Estimate, Job, Runner, Span, Time, estimate, fixed};
use site::stats::Rank;

fn flat(v: f64) -> Span {
    Span { med: v, min: v, max: v }
}

fn runner(id: &str, usd: Option<f64>, cpu: Vec<CpuFig>, allcore: Vec<CpuFig>) -> Runner {
    Runner {
        id: id.to_string(),
        provider: id.split('/').next().unwrap().to_string(),
        label: id.split('/').nth(1).unwrap().to_string(),
        url: format!("/runners/{id}/"),
        usd_per_minute: usd,
        cpu,
        allcore,
        disk: Vec::new(),
        cache: Vec::new(),
        net: Vec::new(),
    }
}

fn fig(group: &str, it_s: Span) -> CpuFig {
    CpuFig { group: group.to_string(), it_s }
}

/// A 2-vCPU runner ($0.008/min; all cores 36,000 it/s, 0.9 of two full
/// cores) and an 8-vCPU one on the same hosts ($0.032/min; all cores
/// 144,000 it/s, 120,000 to 160,000), both 20,000 it/s on one thread; a
/// runner measured in other groups; and one without an all-core figure.
fn runners() -> Vec<Runner> {
    vec![
        runner("tie/tie-2vcpu", Some(0.008), vec![fig("c1", flat(20000.0))], vec![fig("a1", flat(36000.0))]),
        runner(
            "tie/tie-8vcpu",
            Some(0.032),
            vec![fig("c1", flat(20000.0))],
            vec![fig("a1", Span { med: 144000.0, min: 120000.0, max: 160000.0 })],
        ),
        runner("far/far-x64", None, vec![fig("c2", flat(10000.0))], vec![fig("a2", flat(20000.0))]),
        runner("old/old-x64", None, vec![fig("c1", flat(40000.0))], Vec::new()),
    ]
}

fn job(parallel_pct: f64) -> Job {
    Job {
        reference: "tie/tie-2vcpu".into(),
        cpu_s: 600.0,
        parallel_pct,
        read_mib: 0.0,
        write_mib: 0.0,
        cache: String::new(),
        restore_mib: 0.0,
        save_mib: 0.0,
        download_mib: 0.0,
    }
}

/// Each row: runner, total (median, fastest, slowest), place, cost per run
/// at four decimals and its place.
fn rows(e: &Estimate) -> Vec<(usize, Time, Rank, String, Option<Rank>)> {
    e.tables[0].rows.iter().map(|r| (r.runner, r.total, r.place, fixed(r.cost.unwrap().med, 4), r.cost_place)).collect()
}

const FIRST: Rank = Rank { place: 1, tied: false };
const SECOND: Rank = Rank { place: 2, tied: false };

#[test]
fn ninety_per_cent_parallel_on_two_and_eight_vcpu() {
    let e = estimate(&runners(), &job(90.0));
    assert!(!e.no_reference);
    assert_eq!(e.tables.len(), 1);
    assert_eq!(e.tables[0].groups, ["CPU c1", "CPU, all cores a1"]);
    // far is measured, but in other groups than the reference's; old has
    // no all-core figure.
    assert_eq!(e.other_group, [2]);
    assert_eq!(e.not_measured, [(3, vec!["CPU, all cores"])]);
    // 60 serial s and 540 parallel s on the reference. 2 vCPU: 60 + 540 =
    // 600 s, $0.08. 8 vCPU: 60 × 20000 ÷ 20000 = 60, plus 540 × 36000 ÷
    // 144000 = 135 (÷ 160000: 121.5, ÷ 120000: 162), so 195 s (181.5 to
    // 222); × $0.032 ÷ 60 = $0.104 ($0.0968 to $0.1184), dearer than
    // $0.08 with no overlap.
    assert_eq!(
        rows(&e),
        [
            (1, Time { med: 195.0, lo: 181.5, hi: 222.0 }, FIRST, "0.1040".to_string(), Some(SECOND)),
            (0, Time { med: 600.0, lo: 600.0, hi: 600.0 }, SECOND, "0.0800".to_string(), Some(FIRST)),
        ]
    );
    let cost = e.tables[0].rows[0].cost.unwrap();
    assert_eq!((fixed(cost.lo, 4), fixed(cost.hi, 4)), ("0.0968".to_string(), "0.1184".to_string()));
}

#[test]
fn no_parallel_share_uses_one_thread_only() {
    let e = estimate(&runners(), &job(0.0));
    assert_eq!(e.tables[0].groups, ["CPU c1"]);
    // Without a parallel share the all-core figure is not needed: old is
    // estimated, 600 × 20000 ÷ 40000 = 300 s; both tie runners take 600 s,
    // ≈2, at $0.08 and 600 × 0.032 ÷ 60 = $0.32; far's CoreMark is in c2.
    assert_eq!(e.other_group, [2]);
    assert_eq!(e.not_measured, []);
    let tied = Rank { place: 2, tied: true };
    let got: Vec<(usize, f64, Rank)> = e.tables[0].rows.iter().map(|r| (r.runner, r.total.med, r.place)).collect();
    assert_eq!(got, [(3, 300.0, FIRST), (0, 600.0, tied), (1, 600.0, tied)]);
    let costs: Vec<String> = e.tables[0].rows[1..].iter().map(|r| fixed(r.cost.unwrap().med, 4)).collect();
    assert_eq!(costs, ["0.0800", "0.3200"]);
}

#[test]
fn all_parallel_needs_no_one_thread_figure() {
    let e = estimate(&runners(), &job(100.0));
    assert_eq!(e.tables[0].groups, ["CPU, all cores a1"]);
    // 600 × 36000 ÷ 144000 = 150 s (135 to 180) on 8 vCPU, 600 s on 2.
    let got: Vec<(usize, Time)> = e.tables[0].rows.iter().map(|r| (r.runner, r.total)).collect();
    assert_eq!(got, [(1, Time { med: 150.0, lo: 135.0, hi: 180.0 }), (0, Time { med: 600.0, lo: 600.0, hi: 600.0 })]);
}

#[test]
fn a_reference_without_an_all_core_figure_cannot_scale_a_parallel_share() {
    let e = estimate(&runners(), &Job { reference: "old/old-x64".into(), ..job(50.0) });
    assert!(e.no_reference);
    assert!(e.tables.is_empty());
}
