//! The overview's speed against price (issue 56): per CoreMark comparison
//! group, a panel per figure with a linked point per priced runner, the
//! same figures as a table, and the runners without a price listed, not
//! plotted. Every figure below is worked out by hand.

use crate::common;
use serde_json::{Value, json};
use std::path::Path;

const GOLDEN_ALLCORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../format/tests/golden/result-v1-allcore.json");
/// A provider name with markup in it: the result file's free text.
const HOSTILE: &str = "Ex & <b>\"Co\"</b>";

/// The all-core golden result as runner `label` with `cpus` logical CPUs
/// in run `run_id`: every one-thread sample 600,000 iterations in 30 s
/// (20,000 it/s), every all-core sample `cpus` contexts of 540,000
/// iterations in 30 s (`cpus` × 18,000 it/s); none of the stage's
/// samples fails. Without `all_core`, the all-core samples are taken out
/// one by one (each a failed sample), so that the result has the stage
/// but no all-core figure.
fn result(label: &str, cpus: u32, run_id: u64, all_core: bool) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(GOLDEN_ALLCORE).unwrap()).unwrap();
    v["provider"]["name"] = json!(HOSTILE);
    v["runner"]["label"] = json!(label);
    v["machine"]["logical_cpus"] = json!(cpus);
    v["provenance"]["github"]["run_id"] = json!(run_id);
    // Each run its own OS instance and samples, as the check requires.
    v["machine"]["instance"]["boot_id"] = json!(format!("6f1c2a4e-93b1-4d0e-9a57-{run_id:012}"));
    let mut one = v["stages"]["cpu"]["samples"][0].clone();
    one["iterations"] = json!(600_000);
    one["elapsed_s"] = json!(30.0);
    one["steal_s"] = json!((run_id % 100) as f64 / 100.0);
    v["stages"]["cpu"]["samples"] = json!(vec![one; 5]);
    let mut all = v["stages"]["cpu_allcore"]["samples"][0].clone();
    let thread = all["threads"][0].clone();
    all["contexts"] = json!(cpus);
    all["iterations"] = json!(540_000);
    all["elapsed_s"] = json!(30.0);
    all["cpu_s"] = json!(29.9 * f64::from(cpus));
    all["threads"] = json!(
        (0..cpus)
            .map(|cpu| {
                let mut t = thread.clone();
                t["first_cpu"]["cpu"] = json!(cpu);
                t["last_cpu"]["cpu"] = json!(cpu);
                t["elapsed_s"] = json!(30.0);
                t
            })
            .collect::<Vec<_>>()
    );
    if !all_core {
        all = v["stages"]["cpu_allcore"]["samples"][3].clone();
        all["contexts"] = json!(cpus);
    }
    v["stages"]["cpu_allcore"]["samples"] = json!(vec![all; 5]);
    v
}

/// A 2-vCPU runner at $0.008/min and an 8-vCPU one at $0.032/min, both
/// 20,000 it/s on one thread, all cores 36,000 and 144,000 it/s; a runner
/// at $0.016/min whose all-core samples all failed; one without a price.
/// The overview page, built.
fn overview() -> String {
    let results = common::results_dir();
    for (label, cpus, run, all_core) in [
        ("example-2vcpu", 2, 18342215501, true),
        ("example-8vcpu", 8, 18342215502, true),
        ("example-4vcpu", 4, 18342215503, false),
        ("example-noprice", 2, 18342215504, true),
    ] {
        common::put(
            results.path(),
            &format!("example/{label}/2026-11-29-{run}-1.json"),
            &result(label, cpus, run, all_core),
        );
    }
    let content = tempfile::tempdir().unwrap();
    let providers = content.path().join("providers");
    std::fs::create_dir_all(&providers).unwrap();
    let price = |usd: f64| {
        format!("price = {{ usd_per_minute = {usd}, source = \"https://example.com/\", read_on = \"2026-11-20\" }}")
    };
    std::fs::write(
        providers.join("example.toml"),
        format!(
            "name = \"Example\"\n[runners.example-2vcpu]\nvcpu = 2\n{}\n[runners.example-8vcpu]\nvcpu = 8\n{}\n\
             [runners.example-4vcpu]\nvcpu = 4\n{}\n[runners.example-noprice]\nvcpu = 2\n",
            price(0.008),
            price(0.032),
            price(0.016)
        ),
    )
    .unwrap();
    let mut o = common::site_options(results.path());
    o.content = content.path().to_path_buf();
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    std::fs::read_to_string(Path::new(out.path()).join("overview/index.html")).unwrap()
}

/// The chart's part of the page: from its heading to the section's end.
fn chart(page: &str) -> &str {
    let start = page.find("<h3 id=\"p-").expect("a chart");
    &page[start..start + page[start..].find("</section>").unwrap()]
}

/// Each link around a point, with its circle's position: (href, title, cx, cy).
fn points(svg: &str) -> Vec<(String, String, i32, i32)> {
    let attr =
        |s: &str, name: &str| s.split(&format!("{name}=\"")).nth(1).unwrap().split('"').next().unwrap().to_string();
    svg.split("<a href=\"")
        .skip(1)
        .map(|a| {
            let href = a.split('"').next().unwrap().to_string();
            let title = a.split("<title>").nth(1).unwrap().split("</title>").next().unwrap().to_string();
            (href, title, attr(a, "cx").parse().unwrap(), attr(a, "cy").parse().unwrap())
        })
        .collect()
}

#[test]
fn two_and_eight_vcpu_are_plotted_tabled_and_linked() {
    let page = overview();
    let chart = chart(&page);
    let panels: Vec<&str> = chart.split("<svg ").skip(1).map(|s| &s[..s.find("</svg>").unwrap()]).collect();
    assert_eq!(panels.len(), 2, "{chart}");
    let provider = "Ex &amp; &lt;b&gt;&quot;Co&quot;&lt;/b&gt;";
    // The panels' plot area runs from x = 84 to 360 and y = 8 to 244
    // (plot/price.rs): a price p of an axis ending at `top` is at
    // 84 + p ÷ top × 275, a figure f at 243 − f ÷ top × 235, truncated.
    // One thread: prices to 0.032 × 1.25 = 0.04, figures to 20000 × 1.25
    // = 25000: 0.008 → 139, 0.016 → 194, 0.032 → 304; 20000 → 55.
    assert_eq!(
        points(panels[0]),
        [
            (
                "/runners/example/example-2vcpu/".into(),
                format!("example-2vcpu ({provider}): $0.008/min, 20000.00 it/s"),
                139,
                55
            ),
            (
                "/runners/example/example-4vcpu/".into(),
                format!("example-4vcpu ({provider}): $0.016/min, 20000.00 it/s"),
                194,
                55
            ),
            (
                "/runners/example/example-8vcpu/".into(),
                format!("example-8vcpu ({provider}): $0.032/min, 20000.00 it/s"),
                304,
                55
            ),
        ]
    );
    // All cores: 2 × 540000 ÷ 30 = 36000 and 8 × 540000 ÷ 30 = 144000,
    // to 180000: 36000 → 243 − 0.2 × 235 = 196, 144000 → 55. The 4-vCPU
    // runner has no all-core figure, so it is not in this panel.
    assert_eq!(
        points(panels[1]),
        [
            (
                "/runners/example/example-2vcpu/".into(),
                format!("example-2vcpu ({provider}): $0.008/min, 36000.00 it/s"),
                139,
                196
            ),
            (
                "/runners/example/example-8vcpu/".into(),
                format!("example-8vcpu ({provider}): $0.032/min, 144000.00 it/s"),
                304,
                55
            ),
        ]
    );
    for p in &panels {
        assert!(p.contains("\n↖ faster and cheaper\n</text>"), "{p}");
        assert!(p.starts_with("class=\"price-plot\" aria-hidden=\"true\" width=\"380\" height=\"300\""), "{p}");
        // The provider's name is never markup, in the SVG either.
        assert!(!p.contains("<b>"), "{p}");
    }
    // The page's links, as tera escapes them (`/` as `&#x2F;`).
    let href = |label: &str| format!("href=\"&#x2F;runners&#x2F;example&#x2F;{label}&#x2F;\"");
    assert!(chart.contains(&format!(
        "<p class=\"reason\">Not in this panel, without an all-core figure: <a {}>example-4vcpu</a> (no all-core sample \
         was accepted).</p>",
        href("example-4vcpu")
    )));
    // The table: cheapest first, the same figures.
    let tbody = chart.split("<tbody>").nth(1).unwrap().split("</tbody>").next().unwrap();
    let row = |label: &str, price: &str, all: &str| {
        format!(
            "<tr><th scope=\"row\"><a {}>{label}</a><span class=\"reason\">Ex &amp; \
             &lt;b&gt;&quot;Co&quot;&lt;&#x2F;b&gt;</span></th><td class=\"num\">{price}&#x2F;min</td><td \
             class=\"num\">20000.00</td><td class=\"num\">{all}</td></tr>",
            href(label)
        )
    };
    assert_eq!(
        tbody.trim().lines().collect::<Vec<_>>(),
        [
            row("example-2vcpu", "$0.008", "36000.00"),
            row("example-4vcpu", "$0.016", "—"),
            row("example-8vcpu", "$0.032", "144000.00")
        ]
    );
    assert!(chart.contains("<caption>The chart's figures: 3 runners with a price, cheapest first.</caption>"));
    assert!(chart.contains(&format!(
        "<p class=\"not-plotted\">Not plotted, no price stated: <a {}>example-noprice</a>.</p>",
        href("example-noprice")
    )));
    assert!(!chart.contains("Not plotted, as their one-thread figure"), "{chart}");
}
