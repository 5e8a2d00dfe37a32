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
            text.replace("&#x2F;", "/").replace("&#x27;", "'").trim().to_string()
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
        "CoreMark, one thread (median iterations/s): Measured with the runner-bench collector (protocol 1): fast-linux-x64 \
         (Example Cloud) leads with 66666.67, 100.0 % ahead of the next place (slow-linux-x64: 33333.33). 2 runners \
         ranked."
    );
    // The golden's disk stage is incomplete (a timed-out sample) and its
    // internet stage ranks no row either, so neither has a line; equal
    // cache figures share the lead, and no place follows; so do save
    // figures, in a line of their own ordered by save seconds.
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[2],
        "Cache save, client method (median save seconds): Measured with the runner-bench collector (protocol 1): \
         fast-linux-x64 (Example Cloud, GitHub Actions cache: 7.76) and slow-linux-x64 (Example Cloud, GitHub Actions \
         cache: 7.76) share the lead (≈: too close to tell apart). 2 runner and backend rows ranked."
    );
    assert_eq!(
        lines[1],
        "Cache restore, client method (restore seconds): Measured with the runner-bench collector (protocol 1): \
         fast-linux-x64 (Example Cloud, GitHub Actions cache: 22.10) and slow-linux-x64 (Example Cloud, GitHub Actions \
         cache: 22.10) share the lead (≈: too close to tell apart). 2 runner and backend rows ranked."
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
        "CoreMark, one thread (median iterations/s): Imported from published reports (their own protocols 5 and 6): \
         the lead may not hold, as the next place's range overlaps that of tiecloud-8vcpu; starsling-linux-x64 \
         (StarSling: 38217.67), tiecloud-2vcpu (TieCloud: 33392.77) and tiecloud-8vcpu (TieCloud: 33392.77) share \
         the lead (≈: too close to tell apart), 11.1 % ahead of the next place (latchkey-linux-x64: 30065.35). \
         4 runners ranked."
    );
}

/// The price-performance fixture's results and provider files, with the
/// two measured runners of the first test beside them.
fn fixture_and_measured() -> (tempfile::TempDir, String) {
    fixture_measured_and(&[])
}

/// `fixture_and_measured`'s folder with the results `extra` added.
fn fixture_measured_and(extra: &[(String, Value)]) -> (tempfile::TempDir, String) {
    let fixture = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/price-performance"));
    let results = results_dir();
    for f in walk(&fixture.join("results")) {
        let rel = f.strip_prefix(fixture.join("results")).unwrap().to_str().unwrap().to_string();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        put(results.path(), &rel, &v);
    }
    for (label, n, factor) in [("fast-linux-x64", 1, 2), ("slow-linux-x64", 2, 1)] {
        let (path, value) = runner(label, n, factor);
        put(results.path(), &path, &value);
    }
    for (path, value) in extra {
        put(results.path(), path, value);
    }
    let mut o = site_options(results.path());
    o.content = fixture.join("content");
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    (out, home)
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out.sort();
    out
}

#[test]
fn a_stage_of_two_groups_names_each_groups_leader_and_no_overall_one() {
    // The measured runners lead their group with 66666.67 iterations/s; the
    // imported group's place 1 is 38217.67 and below. The figures of the
    // two groups are never compared: each group's leader is named, the
    // larger group (4 ranked runners) first.
    let (_out, home) = fixture_and_measured();
    assert_eq!(
        leader_lines(&home),
        [
            "CoreMark, one thread (median iterations/s; 2 groups, never compared): Imported from published reports (their own protocols 5 \
         and 6): the lead may not hold, as the next place's range overlaps that of tiecloud-8vcpu; starsling-linux-x64 \
         (StarSling: 38217.67), tiecloud-2vcpu (TieCloud: 33392.77) and tiecloud-8vcpu (TieCloud: 33392.77) share \
         the lead (≈: too close to tell apart), 11.1 % ahead of the next place (latchkey-linux-x64: 30065.35). \
         4 runners ranked. Measured with the runner-bench collector (protocol 1): fast-linux-x64 \
         (Example Cloud) leads with 66666.67, 100.0 % ahead of the next place (slow-linux-x64: 33333.33). 2 runners \
         ranked.",
            "Disk, random read (random-read IOPS; 2 groups, never compared): Imported from published reports (their own \
         protocol 6): tiecloud-8vcpu (TieCloud) leads with 19514.56, 100.0 % ahead of the next place (tiecloud-2vcpu: \
         9757.28). 2 runners ranked. Imported from published reports (their own protocol 5): starsling-linux-x64 \
         (StarSling) leads with 14237.22, 594.0 % ahead of the next place (latchkey-linux-x64: 2051.53). 2 runners \
         ranked.",
            "Cache restore, client method (restore seconds): Measured with the runner-bench collector (protocol 1): \
             fast-linux-x64 (Example Cloud, GitHub Actions cache: 22.10) and slow-linux-x64 (Example Cloud, GitHub \
             Actions cache: 22.10) share the lead (≈: too close to tell apart). 2 runner and backend rows ranked.",
            "Cache save, client method (median save seconds): Measured with the runner-bench collector (protocol 1): \
             fast-linux-x64 (Example Cloud, GitHub Actions cache: 7.76) and slow-linux-x64 (Example Cloud, GitHub \
             Actions cache: 7.76) share the lead (≈: too close to tell apart). 2 runner and backend rows ranked.",
            "Cache restore, action method (restore seconds): Imported from published reports (their own protocols 5 and \
         6): latchkey-linux-x64 (Latchkey, Latchkey Fast Cache: 3.91) and latchkey-linux-x64 (Latchkey, GitHub \
         Actions cache: 4.83) share the lead (≈: too close to tell apart); the next place takes at least 66.7 % \
         longer (starsling-linux-x64, GitHub Actions cache: 8.05). 7 runner and backend rows ranked.",
            "Cache save, action method (median save seconds): Imported from published reports (their own protocols 5 and \
         6): latchkey-linux-x64 (Latchkey, Latchkey Fast Cache: 2.37), starsling-linux-x64 (StarSling, GitHub \
         Actions cache: 3.19) and latchkey-linux-x64 (Latchkey, GitHub Actions cache: 3.24) share the lead (≈: too \
         close to tell apart); the next place takes at least 127.8 % longer (tiecloud-2vcpu, GitHub Actions cache: \
         7.38). 7 runner and backend rows ranked.",
            "Internet download (download Mbps): Imported from published reports (their own protocols 5 and 6): \
         latchkey-linux-x64 (Latchkey, LibreSpeed (Sharktech, Amsterdam)) is the only one ranked, with 201.70. \
         1 runner and service row ranked.",
        ]
    );
}

#[test]
fn imported_cache_rows_whose_published_ranges_overlap_share_a_place() {
    // Latchkey's published restores: Latchkey Fast Cache 3.91 (3.77–5.08)
    // and GitHub Actions cache 4.83 (4.32–4.86): the ranges overlap, so the
    // rows cannot be told apart and share place 1.
    let fixture = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/price-performance"));
    let mut o = site_options(&fixture.join("results"));
    o.content = fixture.join("content");
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    // Both rows share place 1; the next place (8.05 s) takes 66.7 % longer
    // than the weaker of them (8.05 ÷ 4.83 = 1.667). Disk: each group its
    // own leader, starsling-linux-x64's 14237.22 IOPS never set against
    // tiecloud-8vcpu's 19514.56 of another group.
    assert_eq!(
        leader_lines(&home),
        [
            "CoreMark, one thread (median iterations/s): Imported from published reports (their own protocols 5 \
         and 6): the lead may not hold, as the next place's range overlaps that of tiecloud-8vcpu; starsling-linux-x64 \
         (StarSling: 38217.67), tiecloud-2vcpu (TieCloud: 33392.77) and tiecloud-8vcpu (TieCloud: 33392.77) share \
         the lead (≈: too close to tell apart), 11.1 % ahead of the next place (latchkey-linux-x64: 30065.35). \
         4 runners ranked.",
            "Disk, random read (random-read IOPS; 2 groups, never compared): Imported from published reports (their own \
         protocol 6): tiecloud-8vcpu (TieCloud) leads with 19514.56, 100.0 % ahead of the next place (tiecloud-2vcpu: \
         9757.28). 2 runners ranked. Imported from published reports (their own protocol 5): starsling-linux-x64 \
         (StarSling) leads with 14237.22, 594.0 % ahead of the next place (latchkey-linux-x64: 2051.53). 2 runners \
         ranked.",
            "Cache restore, action method (restore seconds): Imported from published reports (their own protocols 5 and \
         6): latchkey-linux-x64 (Latchkey, Latchkey Fast Cache: 3.91) and latchkey-linux-x64 (Latchkey, GitHub \
         Actions cache: 4.83) share the lead (≈: too close to tell apart); the next place takes at least 66.7 % \
         longer (starsling-linux-x64, GitHub Actions cache: 8.05). 7 runner and backend rows ranked.",
            "Cache save, action method (median save seconds): Imported from published reports (their own protocols 5 and \
         6): latchkey-linux-x64 (Latchkey, Latchkey Fast Cache: 2.37), starsling-linux-x64 (StarSling, GitHub \
         Actions cache: 3.19) and latchkey-linux-x64 (Latchkey, GitHub Actions cache: 3.24) share the lead (≈: too \
         close to tell apart); the next place takes at least 127.8 % longer (tiecloud-2vcpu, GitHub Actions cache: \
         7.38). 7 runner and backend rows ranked.",
            "Internet download (download Mbps): Imported from published reports (their own protocols 5 and 6): \
         latchkey-linux-x64 (Latchkey, LibreSpeed (Sharktech, Amsterdam)) is the only one ranked, with 201.70. \
         1 runner and service row ranked.",
        ]
    );
    let csv = std::fs::read_to_string(out.path().join("data/cache-action.csv")).unwrap();
    let latchkey: Vec<&str> = csv.lines().filter(|l| l.contains("latchkey-linux-x64")).collect();
    // The CSV carries the same place and tie (the columns after the key).
    let head = "866df6f892c3,5,1c0e0dc62819,1,yes,latchkey,latchkey-linux-x64";
    let file = "/results/latchkey/latchkey-linux-x64/2026-11-29-imported-87d31437d07a.json";
    assert_eq!(
        latchkey,
        [
            format!(
                "{head},Latchkey Fast Cache,action,3,3,2.37,2.20,4.40,216.13,3.91,3.77,5.08,130.94,,2026-11-29,\
                 imported,yes,no,no,,{file}"
            ),
            format!(
                "{head},GitHub Actions cache,action,3,3,3.24,3.22,4.60,158.14,4.83,4.32,4.86,105.95,,2026-11-29,\
                 imported,yes,no,no,,{file}"
            ),
        ]
    );
}

#[test]
fn a_stage_of_more_tables_than_the_line_names_links_to_the_others() {
    // A third CoreMark table: one measured runner that ran EEMBC's own
    // sources, in the measured group but never ranked with the project's
    // implementation. The line names the two largest tables' leaders (4 and
    // 2 ranked runners); the third, of 1, is a link to its table.
    let (path, mut eembc) = runner("eembc-linux-x64", 3, 3);
    eembc["build"]["coremark"]["implementation"] = json!("eembc");
    eembc["build"]["coremark"]["eembc_commit"] = json!("d5fad6bd094899101a4e5fd53af7298160ced6ab");
    let (_out, home) = fixture_measured_and(&[(path, eembc)]);
    let cpu = leader_lines(&home).into_iter().next().unwrap();
    let (_, other) = cpu.split_once("2 runners ranked. ").unwrap_or_else(|| panic!("{cpu}"));
    assert_eq!(other, "Other groups: Measured with the runner-bench collector (protocol 1), EEMBC's CoreMark sources.");
    assert!(cpu.starts_with("CoreMark, one thread (median iterations/s; 3 groups, never compared): "), "{cpu}");
    // The link leads to that table's heading on the same page.
    let link = home.split("Other groups: <a href=\"#").nth(1).unwrap().split('"').next().unwrap();
    assert!(link.ends_with("-cpu-eembc"), "{link}");
    assert!(home.contains(&format!("<h3 id=\"{link}\">")), "no heading {link} on the home page");
}
