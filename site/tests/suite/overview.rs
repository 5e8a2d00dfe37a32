//! The overview page, runner pages' machine and price, and the provider
//! files (`content/providers/*.toml`) as `site build` and `site check` read
//! them. The prices here are made up for the tests: the repository's own
//! provider files state none, since no source at hand gives one.

use std::path::Path;

use crate::common::*;

const REPO_RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../results");

/// A content folder with these provider files (`(id, text)`).
fn content(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let providers = dir.path().join("providers");
    std::fs::create_dir_all(&providers).unwrap();
    for (id, text) in files {
        std::fs::write(providers.join(format!("{id}.toml")), text).unwrap();
    }
    dir
}

/// Builds the repository's results with `content`, at 2026-12-01.
fn build(content: &Path, out: &Path) -> anyhow::Result<site::output::Built> {
    let mut o = site_options(Path::new(REPO_RESULTS));
    o.content = content.to_path_buf();
    site::output::build(&o, out, &mut site::output::BuildMode::Stream)
}

/// The overview's sections (`page` is `overview` or `overview/by-cost`):
/// each one's heading and the rows of its table, one per line.
fn sections(out: &Path, page: &str) -> Vec<(String, Vec<String>)> {
    let page = read(out, &format!("{page}/index.html"));
    page.split("<section class=\"group\"")
        .skip(1)
        .map(|s| {
            let heading = s.split("</h2>").next().unwrap().rsplit("\">").next().unwrap().to_string();
            let body = &s[s.find("<tbody>").unwrap() + 7..s.find("</tbody>").unwrap()];
            (heading, body.lines().filter(|l| !l.is_empty()).map(str::to_string).collect())
        })
        .collect()
}

/// The group of the repository's CoreMark figures, protocols 5 and 6.
const CPU_GROUP: &str = "Imported from published reports (their own protocols 5 and 6) on Latchkey, StarSling and \
                         Ubicloud runners, run dates not published";

const STARSLING: &str = "name = \"StarSling\"\nsite = \"https://starsling.example\"\n\
                         [runners.starsling-linux-x64]\nvcpu = 2\nmemory_gib = 8\ndisk_gb = 75\narch = \"x64\"\n\
                         os = \"linux\"\nprice = { usd_per_minute = 0.008, source = \
                         \"https://starsling.example/pricing\", read_on = \"2026-11-20\" }\n";
/// A price read 181 days before the build: stale.
const LATCHKEY: &str = "name = \"Latchkey\"\n[runners.latchkey-linux-x64]\nvcpu = 4\narch = \"x64\"\nprice = { \
                        usd_per_minute = 0.004, source = \"https://latchkey.example/pricing\", read_on = \
                        \"2026-06-03\" }\n";

/// A stage's cell: the figure, its share of the best of `group`, then `rest`.
fn cell(group: &str, value: &str, rel: &str, best: bool, rest: &str) -> String {
    let best = if best { " best" } else { "" };
    format!(
        "<td class=\"num\">{value} <span class=\"rel{best}\" title=\"Against the best of its comparison group: \
         {group}\">{rel}</span>{rest}</td>"
    )
}

/// The all-core CoreMark and vCPU worth cells of an imported row: a dash
/// with the reason, once.
const IMPORTED_ALL_CORE: &str = "<td class=\"num\">—<span class=\"reason\">the imported report publishes no all-core \
                                 figure</span></td><td class=\"num\">—</td>";

/// A runner's cell: its name, then provider, architecture, OS and size.
fn runner(provider: &str, name: &str, label: &str, arch: &str, os: &str, size: &str) -> String {
    format!(
        "<tr data-arch=\"{arch}\" data-os=\"{os}\"><th scope=\"row\"><a \
         href=\"&#x2F;runners&#x2F;{provider}&#x2F;{label}&#x2F;\">{label}</a><span class=\"reason\"><a \
         href=\"/providers/{provider}/\">{name}</a> · {arch} · {os} · {size}</span></th>"
    )
}

/// A stated price's cell.
fn price(host: &str, usd: &str, per_vcpu: &str, read_on: &str, stale: bool) -> String {
    let stale = if stale {
        " <span class=\"mark stale\" title=\"Read more than 180 days before this build\">stale</span>"
    } else {
        ""
    };
    format!(
        "<td class=\"num\" data-sort=\"{usd}\"><a href=\"https:&#x2F;&#x2F;{host}&#x2F;pricing\" \
         rel=\"nofollow noopener\">${usd}&#x2F;min</a><span class=\"reason\">{per_vcpu} per vCPU-minute</span><span \
         class=\"reason\">read {read_on}</span>{stale}</td>"
    )
}

#[test]
fn the_overview_has_a_table_per_coremark_group_with_figures_size_and_price() {
    let content = content(&[("starsling", STARSLING), ("latchkey", LATCHKEY)]);
    let out = tempfile::tempdir().unwrap();
    build(content.path(), out.path()).unwrap();
    let sections = sections(out.path(), "overview");
    let no = "<td class=\"num\">—</td>";
    let not_stated = "<td class=\"num\">not stated</td>";
    // Disk has one group per protocol: the caption names each, with a
    // letter that its cells show; cache and internet have one for both
    // protocols, like CoreMark (the cache group, of another stage, is
    // named once in the caption).
    let disk5 = "Imported from published reports (their own protocol 5) on Latchkey and StarSling runners, run dates not \
                 published";
    let disk6 = "Imported from published reports (their own protocol 6) on Ubicloud runners, run dates not published";
    let cache = format!("{CPU_GROUP}, action method");
    let (a, b) = ("<span class=\"reason\">group A</span>", "<span class=\"reason\">group B</span>");
    let note = |v: &str| format!("<span class=\"reason\">{v}</span>");
    let libre = note("LibreSpeed (Sharktech, Amsterdam)");
    let unavailable = format!("<td class=\"num marked\">—{libre}</td>");
    // Imported rows have no all-core figure, so no vCPU worth and no cost
    // of all-core work.
    let imported = IMPORTED_ALL_CORE;
    // Highest CoreMark first; each figure against the best of its group;
    // the cost of one-thread work where a price is stated: StarSling is
    // the group's fastest, so its cost is its price; Latchkey's is $0.004
    // × 38217.67 ÷ 30065.35 = $0.005085 (its price is stale, its cost is
    // still given). RBCS measured a build-cache server, not a runner: no
    // row.
    let expected = [
        format!(
            "{}{}{imported}<td class=\"num\" data-sort=\"0.00800\">≈ $0.00800</td>{no}{}{}{}{unavailable}</tr>",
            runner("starsling", "StarSling", "starsling-linux-x64", "x64", "linux", "2 vCPU, 8 GiB memory, 75 GB disk"),
            cell(CPU_GROUP, "38217.67", "≈ 100 %", true, ""),
            price("starsling.example", "0.008", "$0.00400", "2026-11-20", false),
            cell(disk5, "14237.22", "100 %", true, a),
            cell(&cache, "63.60", "≈ 49 %", false, &note("GitHub Actions cache, action")),
        ),
        format!(
            "{}{}{imported}{no}{no}{not_stated}{}{}{unavailable}</tr>",
            runner("ubicloud", "Ubicloud", "ubicloud-linux-x64", "not stated", "not stated", "not stated"),
            cell(CPU_GROUP, "33392.77", "≈ 100 %", true, ""),
            cell(disk6, "9757.28", "100 %", true, b),
            // 11.14 s (10.13–11.99) shares the place of StarSling's 8.05 s
            // (7.74–11.81): the place's share, 49 %.
            cell(&cache, "45.94", "≈ 49 %", false, &note("Ubicloud transparent cache, action")),
        ),
        format!(
            "{}{}{imported}<td class=\"num\" data-sort=\"0.00508\">$0.00508</td>{no}{}{}{}{}</tr>",
            runner(
                "latchkey",
                "Latchkey",
                "latchkey-linux-x64",
                "x64",
                "not stated",
                "4 vCPU, memory not stated, disk not stated"
            ),
            cell(CPU_GROUP, "30065.35", "79 %", false, ""),
            price("latchkey.example", "0.004", "$0.00100", "2026-06-03", true),
            cell(disk5, "2051.53", "14 %", false, a),
            cell(&cache, "130.94", "≈ 100 %", true, &note("Latchkey Fast Cache, action")),
            cell(CPU_GROUP, "201.70", "100 %", true, &libre),
        ),
        format!(
            "{}{}{imported}{no}{no}{not_stated}{}{}{unavailable}</tr>",
            runner("ubicloud", "Ubicloud", "ubicloud-linux-arm64", "not stated", "not stated", "not stated"),
            cell(CPU_GROUP, "21630.02", "57 %", false, ""),
            cell(disk6, "4346.70", "45 %", false, b),
            cell(&cache, "48.58", "≈ 49 %", false, &note("Ubicloud transparent cache, action")),
        ),
    ];
    assert_eq!(sections.len(), 1, "{sections:#?}");
    let (heading, rows) = &sections[0];
    assert_eq!(heading, CPU_GROUP);
    assert_eq!(rows.len(), expected.len(), "{rows:#?}");
    for (got, want) in rows.iter().zip(&expected) {
        assert_eq!(got, want);
    }
    let page = read(out.path(), "overview/index.html");
    // The key and fingerprints behind a details element; the column of
    // one group in the caption.
    assert!(
        page.contains(
            "<details><summary>What the group shares</summary><p>CoreMark comparability key <code>ff90bf001f08</code>; \
             profiles: protocol 6, fingerprint <code>e021cd7ddc71</code>; protocol 5, fingerprint \
             <code>866df6f892c3</code>.</p></details>"
        ),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "<caption>4 runners, fastest CoreMark first; the group's fastest one-thread CoreMark: 38217.67 it/s \
             (starsling-linux-x64). Random read IOPS, group A: against “{disk5}”. Random read IOPS, group B: \
             against “{disk6}”. Cache restore MiB&#x2F;s: against “{cache}”.</caption>"
        )),
        "{page}"
    );
    // The cost column's header leads to the same tables in its order.
    assert!(page.contains("<a href=\"/overview/by-cost/#o-ff90bf001f08-cpu\">Cost of one-thread work</a>"));
    assert!(!page.contains("per ¢/min"), "no one-thread figure per whole-runner price");
    // The filters' choices, for the script.
    assert!(page.contains("data-arch=\"not stated,x64\" data-os=\"linux,not stated\""), "{page}");
    // Linked from every page's navigation and from the home page.
    assert!(read(out.path(), "index.html").contains("the <a href=\"/overview/\">overview</a>"));
    assert!(page.contains("<a href=\"&#x2F;overview&#x2F;\">Overview</a>"), "{page}");
    let sitemap = read(out.path(), "sitemap.xml");
    assert!(sitemap.contains("/overview/</loc>") && sitemap.contains("/overview/by-cost/</loc>"));
}

/// Issue 49: a 2-vCPU and an 8-vCPU runner tied on one-thread CoreMark
/// (site/tests/fixtures/price-performance). The cost of one-thread work is
/// price per minute × group's fastest ÷ this runner's CoreMark:
/// - tiecloud-2vcpu: $0.008 × 38217.67 ÷ 33392.77 = $0.0091559 → `$0.00916`;
/// - tiecloud-8vcpu: $0.032 × 38217.67 ÷ 33392.77 = $0.0366237 → `$0.0366`;
/// - starsling-linux-x64, the fastest: its price, `$0.0160`;
/// - latchkey-linux-x64: no price, no cost.
///
/// Each vCPU-minute costs $0.004 on all three.
#[test]
fn the_cost_of_one_thread_work_counts_the_whole_runners_price() {
    let fixture = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/price-performance"));
    let mut o = site_options(&fixture.join("results"));
    o.content = fixture.join("content");
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    // (runner, CoreMark and share, cost, price per vCPU-minute) per row.
    let figures = |page: &str| -> Vec<(String, String, String, String)> {
        let sections = sections(out.path(), page);
        assert_eq!(sections.len(), 1, "{sections:#?}");
        assert_eq!(
            sections[0].0,
            CPU_GROUP.replace("Latchkey, StarSling and Ubicloud", "Latchkey, StarSling and TieCloud")
        );
        let between = |s: &str, a: &str, b: &str| s.split(a).nth(1).map(|s| s.split(b).next().unwrap().to_string());
        sections[0]
            .1
            .iter()
            .map(|row| {
                let cells: Vec<&str> = row.split("<td").collect();
                let text = |c: &str| {
                    let mut t = String::new();
                    let mut tag = false;
                    for ch in c.chars() {
                        match ch {
                            '<' => tag = true,
                            '>' => tag = false,
                            _ if !tag => t.push(ch),
                            _ => {}
                        }
                    }
                    t
                };
                (
                    row.split("</a>").next().unwrap().rsplit('>').next().unwrap().to_string(),
                    text(&format!("<{}", cells[1])),
                    // After the all-core figure and the vCPU worth.
                    text(&format!("<{}", cells[4])),
                    between(cells[6], "<span class=\"reason\">", " per vCPU-minute").unwrap_or_default(),
                )
            })
            .collect()
    };
    let row = |r: &str, c: &str, cost: &str, v: &str| (r.to_string(), c.to_string(), cost.to_string(), v.to_string());
    let (stars, two, eight, latch) = (
        // The three share CoreMark's place 1 (their published ranges
        // overlap): each shows the place's share, and costs its price
        // (price × 38217.67 ÷ 38217.67), not $0.008 × 38217.67 ÷ 33392.77 =
        // $0.00916 on the medians' noise.
        row("starsling-linux-x64", "38217.67 ≈ 100 %", "≈ $0.0160", "$0.00400"),
        row("tiecloud-2vcpu", "33392.77 ≈ 100 %", "≈ $0.00800", "$0.00400"),
        row("tiecloud-8vcpu", "33392.77 ≈ 100 %", "≈ $0.0320", "$0.00400"),
        row("latchkey-linux-x64", "30065.35 79 %", "—", ""),
    );
    // By CoreMark: the tie by label; by cost: cheapest first, none last.
    assert_eq!(figures("overview"), [stars.clone(), two.clone(), eight.clone(), latch.clone()]);
    assert_eq!(figures("overview/by-cost"), [two, stars, eight, latch]);
    let page = read(out.path(), "overview/by-cost/index.html");
    assert!(page.contains("<h1>Overview by cost of one-thread work</h1>"), "{page}");
    assert!(page.contains("<a href=\"/overview/#o-ff90bf001f08-cpu\">CoreMark one-thread it/s</a>"));
    // The legend defines it, and says it counts one thread at the whole
    // runner's price.
    assert!(page.contains(
        "<dt>Cost of one-thread work</dt><dd>What this runner costs, at its price for the whole runner, to do the \
         one-thread CoreMark work that its group's fastest runner does in one minute: price per minute × (the \
         group's fastest one-thread CoreMark ÷ this runner's)."
    ));
}

#[test]
fn runner_pages_show_the_machine_and_price_or_not_stated() {
    let content = content(&[("starsling", STARSLING), ("latchkey", LATCHKEY)]);
    let out = tempfile::tempdir().unwrap();
    build(content.path(), out.path()).unwrap();
    let page = read(out.path(), "runners/starsling/starsling-linux-x64/index.html");
    assert!(
        page.contains(
            "<dl class=\"machine\">\n<dt>vCPU</dt><dd>2</dd>\n<dt>Memory</dt><dd>8 GiB</dd>\n<dt>Disk</dt><dd>75 \
             GB</dd>\n<dt>Architecture</dt><dd>x64</dd>\n<dt>OS</dt><dd>linux</dd>\n<dt>Price</dt><dd>$0.008&#x2F;min, \
             read on 2026-11-20 at <a href=\"https:&#x2F;&#x2F;starsling.example&#x2F;pricing\" rel=\"nofollow \
             noopener\">https:&#x2F;&#x2F;starsling.example&#x2F;pricing</a></dd>\n</dl>"
        ),
        "{page}"
    );
    assert!(page.contains("<p>As stated in the provider file of <a href=\"https:&#x2F;&#x2F;starsling.example\""));
    // Every speed figure of the history has its price-performance (the
    // paragraph above the stage tables says what it is).
    assert!(page.contains("38217.67 <span class=\"per-cent\">47772.09 per ¢/min</span>"), "{page}");
    assert!(page.contains("6118.47 <span class=\"per-cent\">7648.09 per ¢/min</span>"));
    assert!(page.contains("under each speed figure, its value per US cent per minute."));
    let stale = read(out.path(), "runners/latchkey/latchkey-linux-x64/index.html");
    assert!(
        stale.contains("<span class=\"mark stale\" title=\"Read more than 180 days before this build\">stale</span>")
    );
    let none = read(out.path(), "runners/ubicloud/ubicloud-linux-x64/index.html");
    assert!(none.contains("<dt>vCPU</dt><dd>not stated</dd>"), "{none}");
    assert!(none.contains("<dt>Price</dt><dd>not stated</dd>"));
    assert!(none.contains("No provider file states this runner's machine or price"));
    // No figure per cent per minute (the legend still defines it).
    assert!(!none.contains("<span class=\"per-cent\""), "{none}");
}

#[test]
fn text_from_provider_files_is_escaped() {
    let injected = "name = \"<script>alert(3)</script>\"\nsite = \"https://x.example/\\\"><img/src=x/onerror=alert(4)>\"\n\
                    [runners.starsling-linux-x64]\nprice = { usd_per_minute = 0.01, source = \
                    \"https://x.example/'><script>alert(5)</script>\", read_on = \"2026-11-20\" }\n";
    let content = content(&[("starsling", injected)]);
    let out = tempfile::tempdir().unwrap();
    build(content.path(), out.path()).unwrap();
    for rel in ["runners/starsling/starsling-linux-x64/index.html", "overview/index.html"] {
        let page = read(out.path(), rel);
        assert!(!page.contains("<script>alert") && !page.contains("<img/src") && !page.contains("'>"), "{rel}");
    }
    let page = read(out.path(), "runners/starsling/starsling-linux-x64/index.html");
    assert!(page.contains("&lt;script&gt;alert(3)&lt;&#x2F;script&gt;</a>"), "{page}");
    assert!(page.contains("&quot;&gt;&lt;img&#x2F;src=x&#x2F;onerror=alert(4)&gt;"), "{page}");
}

/// A group's name holds the provider names of its imported results, text
/// from result files: escaped in every heading, title and caption.
#[test]
fn group_names_from_result_files_are_escaped() {
    let results = tempfile::tempdir().unwrap();
    copy_dir(Path::new(REPO_RESULTS), results.path());
    for arch in ["x64", "arm64"] {
        let rel = format!("ubicloud/ubicloud-linux-{arch}/2026-11-29-imported-2c7ad0467348.json");
        let mut v: serde_json::Value = serde_json::from_str(&read(results.path(), &rel)).unwrap();
        v["provider"]["name"] = "<script>alert(6)</script>\" title=\"x".into();
        put(results.path(), &rel, &v);
    }
    let out = tempfile::tempdir().unwrap();
    build_into(results.path(), out.path());
    for rel in
        ["overview/index.html", "overview/by-cost/index.html", "index.html", "tables/ff90bf001f08/cpu/index.html"]
    {
        let Ok(page) = std::fs::read_to_string(out.path().join(rel)) else { continue };
        assert!(!page.contains("<script>alert(6)") && !page.contains("\" title=\"x"), "{rel}: {page}");
    }
    let page = read(out.path(), "overview/index.html");
    assert!(
        page.contains(
            "Imported from published reports (their own protocols 5 and 6) on &lt;script&gt;alert(6)&lt;&#x2F;script&gt;\
             &quot; title=&quot;x, Latchkey and StarSling runners"
        ),
        "{page}"
    );
}

#[test]
fn a_bad_provider_file_fails_the_build_and_the_check() {
    let content = content(&[("starsling", "name = \"StarSling\"\n[runners.starsling-linux-x64]\ncores = 2\n")]);
    let file = content.path().join("providers/starsling.toml").display().to_string();
    let out = tempfile::tempdir().unwrap();
    let err = build(content.path(), out.path()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the provider files have problems:\n{file}: runners.starsling-linux-x64.cores: unknown field `cores`, \
             expected one of `vcpu`, `memory_gib`, `disk_gb`, `arch`, `os`, `price`"
        )
    );
    let checked = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .args(["check", "--content"])
        .arg(content.path())
        .arg(REPO_RESULTS)
        .output()
        .unwrap();
    assert_eq!(checked.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(checked.stdout).unwrap(),
        format!(
            "{file}\n  runners.starsling-linux-x64.cores: unknown field `cores`, expected one of `vcpu`, \
             `memory_gib`, `disk_gb`, `arch`, `os`, `price`\n1 rejected, 5 of 5 result files accepted\n"
        )
    );
}

/// A key of a submitted file with line breaks in it cannot add lines of
/// its own to the build's error.
#[test]
fn a_provider_files_line_breaks_stay_in_its_error_line() {
    let content = content(&[("starsling", "name = \"StarSling\"\n\"x\\r\\n0 files accepted\" = 1\n")]);
    let file = content.path().join("providers/starsling.toml").display().to_string();
    let out = tempfile::tempdir().unwrap();
    let err = build(content.path(), out.path()).unwrap_err().to_string();
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.starts_with(&format!("the provider files have problems:\n{file}: x\\r\\n0 files accepted: unknown field")),
        "{err}"
    );
}

#[test]
fn check_warns_of_a_provider_or_label_without_results() {
    let content = content(&[
        ("nobody", "name = \"Nobody\"\n"),
        ("starsling", "name = \"StarSling\"\n[runners.starsling-linux-arm64]\narch = \"arm64\"\n"),
    ]);
    let dir = content.path().join("providers").display().to_string();
    let run = |format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
            .args(["check", "--format", format, "--content"])
            .arg(content.path())
            .arg(REPO_RESULTS)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "warnings do not fail the check");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        run("human"),
        format!(
            "5 files accepted\nwarning: {dir}/nobody.toml: $: no result has the provider id \"nobody\"; the site shows \
             nothing of this file\nwarning: {dir}/starsling.toml: runners.starsling-linux-arm64: no result of \
             starsling has this runner label; the site shows nothing of it\n"
        )
    );
    let github = run("github");
    let p = dir.replace(':', "%3A").replace(',', "%2C");
    assert!(
        github.ends_with(&format!(
            "::warning file={p}/starsling.toml,title=site check::runners.starsling-linux-arm64: no result of starsling \
             has this runner label; the site shows nothing of it\n"
        )),
        "{github}"
    );
}

#[test]
fn the_repository_provider_files_parse_and_state_no_price() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../content/providers"));
    let providers = site::providers::load(dir);
    assert_eq!(providers.errors, []);
    assert_eq!(providers.files.keys().collect::<Vec<_>>(), ["latchkey", "rbcs", "starsling", "ubicloud"]);
    // No source at hand states a price: none is written, none guessed.
    assert!(providers.files.values().flat_map(|p| p.runners.values()).all(|r| r.price.is_none()));
    let checked = site::output::testing::check(&[Path::new(REPO_RESULTS).to_path_buf()]).unwrap();
    assert_eq!(providers.warnings(checked.runs.iter().map(|r| (r.provider_id(), r.runner_label()))), []);
}

#[test]
fn a_marked_row_is_shown_without_a_share_and_an_unmarked_backend_comes_first() {
    // The golden result (of the profile before the all-core stage, whose
    // cells say so): its CoreMark, disk and internet rows and its
    // attached-volume cache row are marked (incomplete); its GitHub Actions
    // cache row is not, so it is the cache headline though slower.
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let out = tempfile::tempdir().unwrap();
    build_into(dir.path(), out.path());
    let sections = sections(out.path(), "overview");
    assert_eq!(sections.len(), 1, "{sections:#?}");
    assert_eq!(sections[0].0, "Measured with the runner-bench collector (protocol 1)");
    assert_eq!(
        sections[0].1,
        [format!(
            "{}<td class=\"num marked\">33328.37</td><td class=\"num marked\">—<span class=\"reason\">no all-core stage \
             in this result&#x27;s profile</span></td><td class=\"num marked\">—</td><td class=\"num\">—</td><td \
             class=\"num\">—</td><td class=\"num\">not stated</td><td class=\"num marked\">9788.01</td>{}<td class=\"num marked\">—<span class=\"reason\">LibreSpeed \
             (Sharktech, Amsterdam)</span></td></tr>",
            runner("example", "Example Cloud", "example-linux-x64", "not stated", "not stated", "not stated"),
            cell(
                "Measured with the runner-bench collector (protocol 1), client method",
                "23.17",
                "100 %",
                true,
                "<span class=\"reason\">GitHub Actions cache, client</span>"
            ),
        )]
    );
}

/// The `<tr>` of `runner` in the home page's table `id`.
fn home_row(home: &str, id: &str, runner: &str) -> String {
    let table = home.split(&format!("id=\"{id}\"")).nth(1).unwrap().split("</table>").next().unwrap();
    let row = table.split("<tr").find(|row| row.contains(&format!(">{runner}</a></th>"))).unwrap();
    row.split("</tr>").next().unwrap().to_string()
}

#[test]
fn the_home_tables_show_price_performance_where_a_price_is_stated() {
    let content = content(&[("starsling", STARSLING), ("latchkey", LATCHKEY)]);
    let out = tempfile::tempdir().unwrap();
    build(content.path(), out.path()).unwrap();
    let home = read(out.path(), "index.html");
    let per = |v: &str| format!(" <span class=\"per-cent\" title=\"Per US cent per minute\">{v} per ¢/min</span>");
    // CoreMark and cache share a key across protocols 5 and 6 (see above);
    // StarSling states $0.008/min: 38217.67 / 0.8.
    let cpu = home_row(&home, "t-ff90bf001f08-cpu", "starsling-linux-x64");
    assert!(cpu.contains(&format!("<td class=\"num\">38217.67{}</td>", per("47772.09"))), "{cpu}");
    let disk = home_row(&home, "t-7612454f9ffc-disk", "starsling-linux-x64");
    for (figure, value) in [("6118.47", "7648.09"), ("14237.22", "17796.52")] {
        assert!(disk.contains(&format!("{figure}{}", per(value))), "{disk}");
    }
    // A stale price still states one (the page marks it stale).
    let cpu = home_row(&home, "t-ff90bf001f08-cpu", "latchkey-linux-x64");
    assert!(cpu.contains("per ¢/min"), "{cpu}");
    // Ubicloud states no price: no figure, never a guess.
    for runner in ["ubicloud-linux-x64", "ubicloud-linux-arm64"] {
        let row = home_row(&home, "t-ff90bf001f08-cpu", runner);
        assert!(!row.contains("per-cent") && !row.contains("not stated"), "{row}");
    }
    // The cache and internet tables' speeds too.
    let table = home.split("id=\"t-1c0e0dc62819-cache-action\"").nth(1).unwrap().split("</table>").next().unwrap();
    let starsling: Vec<&str> = table.split("<tr").filter(|r| r.contains(">starsling-linux-x64</a></th>")).collect();
    assert!(!starsling.is_empty() && starsling.iter().all(|r| r.matches("per ¢/min").count() == 2), "{table}");
    let ubicloud: Vec<&str> = table.split("<tr").filter(|r| r.contains(">ubicloud-linux-x64</a></th>")).collect();
    assert!(!ubicloud.is_empty() && ubicloud.iter().all(|r| !r.contains("per ¢/min")), "{table}");
}

/// Copies the files below `from` into `to`, keeping their paths.
fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_newer_try_out_never_hides_a_runners_complete_result() {
    // The price-performance fixture, and a newer quick-profile result
    // (a try-out, marked, of another key) of tiecloud-2vcpu: the overview
    // keeps the runner's complete imported row, its share and its cost
    // (docs/methodology.md: "its newest complete result that has the
    // stage, else its newest"), and no section of the try-out alone.
    let fixture = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/price-performance"));
    let results = tempfile::tempdir().unwrap();
    copy_tree(&fixture.join("results"), results.path());
    let quick = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/quick/results/example/example-linux-x64/2026-12-05-63cfaa38f746.json"
    ));
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(quick).unwrap()).unwrap();
    v["provider"]["id"] = "tiecloud".into();
    v["runner"]["label"] = "tiecloud-2vcpu".into();
    put(results.path(), "tiecloud/tiecloud-2vcpu/2026-12-05-834c301a95bc.json", &v);
    let mut o = site_options(results.path());
    o.content = fixture.join("content");
    let out = tempfile::tempdir().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let sections = sections(out.path(), "overview");
    let headings: Vec<&str> = sections.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(headings, [CPU_GROUP.replace("Latchkey, StarSling and Ubicloud", "Latchkey, StarSling and TieCloud")]);
    let row = sections[0].1.iter().find(|r| r.contains(">tiecloud-2vcpu</a>")).expect("tiecloud-2vcpu in the group");
    let group = CPU_GROUP.replace("Latchkey, StarSling and Ubicloud", "Latchkey, StarSling and TieCloud");
    assert!(
        row.contains(&format!(
            "<td class=\"num\">33392.77 <span class=\"rel best\" title=\"Against the best of its comparison group: \
             {group}\">≈ 100 %</span></td>{IMPORTED_ALL_CORE}<td class=\"num\" data-sort=\"0.00800\">≈ $0.00800</td>"
        )),
        "{row}"
    );
    // The disk figure too is the complete imported one, not the try-out's.
    assert!(row.contains("<td class=\"num\">9757.28 <span class=\"rel\""), "{row}");
}
