//! The home page's first screen: a line per stage naming who leads its
//! largest table, by how much, among how many runners, in which group.

use crate::common;
use crate::common::{GOLDEN_PATH, put, results_dir, site_options};
use serde_json::{Value, json};

/// The golden result as runner `label`'s, with CoreMark samples whose
/// iterations are `factor` times the golden's and its failed sample made a
/// passed one (1,000,000 × `factor` iterations in 30 s), so that the stage
/// is complete and ranked. Its own run, machine and instance ids.
fn runner(label: &str, n: u64, factor: u64) -> (String, Value) {
    let text = std::fs::read_to_string(common::GOLDEN)
        .unwrap()
        .replace("example-linux-x64", label)
        .replace("18342215517", &(18_342_215_517 + n).to_string())
        .replace("2b8c1d0e4f10", &format!("{:012x}", 0x1000 + n))
        .replace("7f2a1c0e9b33", &format!("{:012x}", 0x2000 + n));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let samples = v["stages"]["cpu"]["samples"].as_array_mut().unwrap();
    let ok = samples[0].clone();
    for s in samples.iter_mut() {
        if s["status"] != "ok" {
            *s = ok.clone();
            s["iterations"] = json!(1_000_000);
            s["elapsed_s"] = json!(30.0);
        }
        let it = s["iterations"].as_u64().unwrap();
        s["iterations"] = json!(it * factor);
    }
    let path =
        GOLDEN_PATH.replace("example-linux-x64", label).replace("18342215517", &(18_342_215_517 + n).to_string());
    (path, v)
}

/// The text of the home page's leader list, tags dropped.
fn leader_lines(home: &str) -> Vec<String> {
    let start = home.find("<h2 id=\"leaders\"").expect("the home page has no leader list");
    let end = start + home[start..].find("</ul>").unwrap();
    home[start..end]
        .split("<li>")
        .skip(1)
        .map(|li| {
            let mut text = String::new();
            let mut in_tag = false;
            for c in li.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text.replace("&#x2F;", "/").trim().to_string()
        })
        .collect()
}

#[test]
fn the_first_screen_names_each_stages_leader_its_lead_and_its_table() {
    let results = results_dir();
    // Twice the golden runner's CoreMark: medians 66,666.67 and 33,333.33
    // iterations/s (the golden's samples 33,317.89, 33,388.36, 33,258.65,
    // 33,339.45 and the made one, 33,333.33), a lead of exactly 100 %.
    for (label, n, factor) in [("fast-linux-x64", 1, 2), ("slow-linux-x64", 2, 1)] {
        let (path, value) = runner(label, n, factor);
        put(results.path(), &path, &value);
    }
    let out = tempfile::tempdir().unwrap();
    site::output::build(&site_options(results.path()), out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    let lines = leader_lines(&home);
    assert_eq!(
        lines[0],
        "CoreMark, one thread: fast-linux-x64 (Example Cloud) leads with 66666.67 median iterations/s, 100.0 % ahead of the \
         next place (slow-linux-x64: 33333.33). 2 runners ranked, published protocol 1, measured."
    );
    // The golden's disk stage is incomplete (a timed-out sample) and its
    // internet stage ranks no row either, so neither has a line; equal
    // cache figures share the lead, and no place follows; so do save
    // figures, in a line of their own ordered by save seconds.
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[2],
        "Cache save, client method: fast-linux-x64 (Example Cloud, GitHub Actions cache: 7.76) and slow-linux-x64 \
         (Example Cloud, GitHub Actions cache: 7.76) share the lead (≈: too close to tell apart) in median save \
         seconds. 2 runner and backend rows ranked, published protocol 1, measured."
    );
    assert_eq!(
        lines[1],
        "Cache restore, client method: fast-linux-x64 (Example Cloud, GitHub Actions cache: 22.10) and slow-linux-x64 \
         (Example Cloud, GitHub Actions cache: 22.10) share the lead (≈: too close to tell apart) in restore seconds. \
         2 runner and backend rows ranked, published protocol 1, measured."
    );
    // Each line links to its table on the page.
    let first = &home[home.find("<h2 id=\"leaders\"").unwrap()..];
    let link = first.split("href=\"#").nth(1).unwrap().split('"').next().unwrap();
    assert!(home.contains(&format!("<h3 id=\"{link}\">")), "no table with id {link}");
}

#[test]
fn a_lead_whose_next_place_overlaps_the_weakest_leader_is_said_to_be_uncertain() {
    // The price-performance fixture: starsling-linux-x64 (37001.79–38403.09)
    // shares place 1 with the TieCloud runners (29068.42–37639.26); latchkey-
    // linux-x64 (30043.11–30096.09) is ranked apart, place 4, because places
    // compare with a place's first row, yet lies inside the TieCloud
    // runners' range: their 11.1 % lead is the medians', not a sure one.
    let fixture = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/price-performance"));
    let mut o = site_options(&fixture.join("results"));
    o.content = fixture.join("content");
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert_eq!(
        leader_lines(&home)[0],
        "CoreMark, one thread: starsling-linux-x64 (StarSling: 38217.67), tiecloud-2vcpu (TieCloud: 33392.77) and \
         tiecloud-8vcpu (TieCloud: 33392.77) share the lead (≈: too close to tell apart) in median iterations/s, \
         11.1 % ahead of the next place (latchkey-linux-x64: 30065.35), whose range overlaps that of tiecloud-8vcpu: \
         the lead of the medians may not hold. 4 runners ranked, published protocols 6 and 5, imported from \
         published reports."
    );
}
