//! `site build` and the static files `site serve` serves.

use std::path::Path;

use crate::common::*;
use runner_bench_format::StageKind;
use serde_json::json;
use site::cmd::serve::{content_type_of, file_for, with_reload};
use site::model::run::NO_RUN_RECORD;

const REPO_RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../results");

#[test]
fn build_writes_reports_pages_and_results() {
    let out = tempfile::tempdir().unwrap();
    let built = build_into(Path::new(REPO_RESULTS), out.path());
    assert_eq!(built.providers, ["latchkey", "rbcs", "starsling", "ubicloud"]);
    assert_eq!(built.result_files, 5);
    let report = read(out.path(), "reports/starsling.md");
    assert!(report.starts_with("# StarSling Runner Benchmarks\n"));
    let page = read(out.path(), "providers/ubicloud/index.html");
    assert!(page.contains("<td style=\"text-align: right\">33392.77</td>"), "{page}");
    assert!(page.contains("Figures imported from the published document 000_a5cbaa4571400c0a.txt"));
    assert!(out.path().join("results/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238.json").is_file());
    for rel in [
        "index.html",
        "404.html",
        "coverage/index.html",
        "methodology/index.html",
        "result-format/index.html",
        "submit/index.html",
        "about/index.html",
        "runners/ubicloud/ubicloud-linux-x64/index.html",
        "index.json",
        "data/coremark.csv",
        "data/disk.csv",
        "data/cache.csv",
        "data/cache-action.csv",
        "data/internet.csv",
        "data/build-cache.csv",
        "build-cache/index.html",
        "build-cache/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238/index.html",
        "sitemap.xml",
        "feed.xml",
        "static/site.css",
        "static/site.js",
    ] {
        assert!(out.path().join(rel).is_file(), "{rel} is missing");
    }
    // The address result files give in "$schema" serves the committed schema.
    let schema = std::fs::read(out.path().join("result-v1.schema.json")).unwrap();
    assert_eq!(schema, std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/result-v1.schema.json")).unwrap());
}

#[test]
fn home_page_compares_every_runner_with_marks_and_links() {
    let out = tempfile::tempdir().unwrap();
    build_into(Path::new(REPO_RESULTS), out.path());
    let home = read(out.path(), "index.html");
    // One group per stage key: the CoreMark sections of protocols 5 and 6
    // are the same, their disk sections are not (tests/keys.rs); newest
    // protocol first.
    let p6 = home.find("id=\"t-4c192e28784a-disk\"").unwrap();
    let p5 = home.find("id=\"t-7612454f9ffc-disk\"").unwrap();
    assert!(p6 < p5);
    for table in [
        "t-ff90bf001f08-cpu",
        "t-7612454f9ffc-disk",
        // The published reports timed action steps.
        "t-1c0e0dc62819-cache-action",
        "t-16beef789e31-internet",
    ] {
        assert!(home.contains(&format!("<table class=\"sortable\" id=\"{table}\">")), "{table}");
    }
    // Build-cache servers are not runners: a link, no table.
    assert!(!home.contains("-build-cache\""), "{home}");
    assert!(home.contains("their 1 benchmark document is in <a href=\"/build-cache/\">their own section</a>."));
    // Every row: runner page, source JSON, date, collector, marks.
    assert!(
        home.contains("<a href=\"&#x2F;runners&#x2F;latchkey&#x2F;latchkey-linux-x64&#x2F;\">latchkey-linux-x64</a>")
    );
    assert!(home.contains("<a href=\"&#x2F;results&#x2F;latchkey&#x2F;latchkey-linux-x64&#x2F;2026-11-29-imported-87d31437d07a.json\">JSON</a>"));
    // The seeds state no measurement day: the import's day, labelled so.
    assert!(home.contains(
        "<td><span class=\"undated\">date not published</span> <small>imported <time \
         datetime=\"2026-11-29T00:00:00Z\">2026-11-29</time></small></td>\n<td>imported<span \
         class=\"reason\">profile <code>866df6f892c3</code></span></td>"
    ));
    assert!(home.contains("<span class=\"mark imported\""));
    assert!(home.contains("<img src=\"&#x2F;plots&#x2F;ff90bf001f08&#x2F;coremark.svg\""));
    assert!(home.len() < 200 * 1024, "the home page is {} bytes", home.len());
    // What the marks mean is said once, under the tables, not on every row.
    assert!(
        home.contains("<dt><span class=\"key mark stale\">stale</span></dt><dd>Measured more than 180 days ago.</dd>")
    );
    assert!(!tables(&home).contains(" title=\"A stage or sample"), "{home}");
    let csv = read(out.path(), "data/coremark.csv");
    assert!(csv.starts_with("fingerprint,protocol,stage_key,place,tied,provider,runner,binary,median_it_s,min_it_s,max_it_s,variation_pct,samples,all_core_median_it_s,all_core_min_it_s,all_core_max_it_s,all_core_missing,vcpu_worth,date,imported_on,collector,imported,stale,incomplete,excluded,source\r\n"), "{csv}");
    // The feed reads back as Atom: newest first, each entry linking to its
    // runner page and naming its result file.
    let feed: atom_syndication::Feed = read(out.path(), "feed.xml").parse().unwrap();
    assert_eq!(feed.title.as_str(), "runner-bench: new results");
    assert_eq!(feed.updated.to_rfc3339(), "2026-11-29T00:00:00+00:00");
    assert_eq!(feed.links.iter().map(|l| l.rel.as_str()).collect::<Vec<_>>(), ["self", "alternate"]);
    assert_eq!(feed.entries.len(), 5);
    let first = &feed.entries[0];
    assert_eq!(first.title.as_str(), "2026-11-29: ubicloud-linux-x64 (Ubicloud)");
    assert!(first.id.ends_with("/results/ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json"));
    assert!(first.links[0].href.ends_with("/runners/ubicloud/ubicloud-linux-x64/"));
    assert_eq!(
        first.summary.as_ref().unwrap().as_str(),
        "Imported result of ubicloud-linux-x64 (Ubicloud) imported 2026-11-29, measurement date not published: CoreMark \
         median 33392.77 iterations/s."
    );
    let index: serde_json::Value = serde_json::from_str(&read(out.path(), "index.json")).unwrap();
    assert_eq!(index["results"].as_array().unwrap().len(), 5);
    assert_eq!(
        index["results"][0]["source_url"],
        "/results/latchkey/latchkey-linux-x64/2026-11-29-imported-87d31437d07a.json"
    );
}

/// With more rows than `--home-rows`, the home page shows the first rows of
/// a table, plots only those, and links to a page with every row.
#[test]
fn long_tables_show_the_first_rows_and_link_to_every_row() {
    let out = tempfile::tempdir().unwrap();
    let mut opts = site_options(Path::new(REPO_RESULTS));
    opts.home_rows = 1;
    site::output::build(&opts, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = read(out.path(), "index.html");
    let cpu = home.split("id=\"t-ff90bf001f08-cpu\"").nth(1).unwrap().split("</table>").next().unwrap();
    assert_eq!(cpu.matches("<tr>").count() + cpu.matches("<tr class").count(), 2, "{cpu}");
    assert!(home.contains(
        "<p class=\"note more\">Showing the first 1 of 4 rows: current, complete results first, ranked by median \
         iterations&#x2F;s. Sorting and filtering apply to these rows. <a \
         href=\"&#x2F;tables&#x2F;ff90bf001f08&#x2F;cpu&#x2F;\">All 4 CoreMark rows</a></p>"
    ));
    // The plots say that they show the first rows only.
    assert!(
        home.contains("(key ff90bf001f08 (fingerprints e021cd7ddc71, 866df6f892c3); the first 1 rows of each table)."),
        "{home}"
    );
    let page = read(out.path(), "tables/ff90bf001f08/cpu/index.html");
    assert!(
        page.contains(
            "<title>CoreMark: all 4 rows (Imported from published reports (their own protocols 5 and 6) on \
             Latchkey, StarSling and Ubicloud runners, run dates not published) · runner-bench</title>"
        ),
        "{page}"
    );
    let all = page.split("id=\"t-ff90bf001f08-cpu\"").nth(1).unwrap().split("</table>").next().unwrap();
    assert_eq!(all.matches("<tr>").count() + all.matches("<tr class").count(), 5, "{all}");
    assert!(!page.contains("class=\"note more\""));
    // The plot shows the one row the table shows.
    let svg = read(out.path(), "plots/ff90bf001f08/coremark.svg");
    let first = cpu.split("<th scope=\"row\">").nth(1).unwrap().split("</a>").next().unwrap();
    let runner = &first[first.rfind('>').unwrap() + 1..];
    let other = all.split("<th scope=\"row\">").nth(2).unwrap().split("</a>").next().unwrap();
    let other = &other[other.rfind('>').unwrap() + 1..];
    assert!(svg.contains(runner) && !svg.contains(other), "{runner} / {other}: {svg}");
    assert!(read(out.path(), "sitemap.xml").contains("/tables/ff90bf001f08/cpu/</loc>"));

    opts.home_rows = 0;
    let err = site::output::build(&opts, out.path(), &mut site::output::BuildMode::Stream).unwrap_err();
    assert_eq!(err.to_string(), "--home-rows must be at least 1, found 0");
}

#[test]
fn plots_have_titles_descriptions_and_no_fonts() {
    let out = tempfile::tempdir().unwrap();
    build_into(Path::new(REPO_RESULTS), out.path());
    let svg = read(out.path(), "plots/ff90bf001f08/coremark.svg");
    assert!(svg.contains("role=\"img\" aria-labelledby=\"title desc\"><title id=\"title\">CoreMark iterations/s</title><desc id=\"desc\">Median CoreMark iterations per second per runner, with min–max whiskers (imported figures: no interval can be computed without samples); higher is better (key ff90bf001f08 (fingerprints e021cd7ddc71, 866df6f892c3)).</desc>"), "{svg}");
    assert!(svg.contains("iterations/s (higher is better)"));
    assert!(svg.contains("@media (prefers-color-scheme:dark)"));
    assert!(svg.contains(">\nlatchkey-linux-x64 (Latchkey)\n</text>"), "{svg}");
    for (key, plot) in [
        ("7612454f9ffc", "disk-mib.svg"),
        ("7612454f9ffc", "disk-iops.svg"),
        ("1c0e0dc62819", "cache-action.svg"),
        ("16beef789e31", "internet.svg"),
    ] {
        assert!(out.path().join("plots").join(key).join(plot).is_file(), "{plot}");
    }
    // The repository's imported reports state no measurement date: the day
    // of their import is no place on a time axis, so no history is drawn.
    assert!(!out.path().join("plots/runners/latchkey/latchkey-linux-x64.svg").exists());
}

/// Every `href` and `src` of every page that points into the site names a
/// file the build wrote.
#[test]
fn every_internal_link_resolves() {
    let out = tempfile::tempdir().unwrap();
    build_into(Path::new(REPO_RESULTS), out.path());
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(out.path()) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "html") {
            continue;
        }
        let html = std::fs::read_to_string(entry.path()).unwrap();
        for link in links(&html) {
            if !link.starts_with('/') || link.starts_with("//") {
                continue;
            }
            assert!(file_for(out.path(), &link).is_some(), "{}: broken link {link}", entry.path().display());
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} links");
}

/// The values of `href="…"` and `src="…"`, entities decoded.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            let end = rest.find('"').unwrap();
            out.push(rest[..end].replace("&#x2F;", "/").replace("&amp;", "&"));
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn markup_in_result_strings_stays_inert_and_marks_show() {
    let dir = results_dir();
    let mut v = golden();
    v["provider"]["name"] = json!("<script>alert(1)</script>");
    v["notices"] = json!([{"stage": "cpu", "message": "<img src=x onerror=alert(2)>"}]);
    put(dir.path(), GOLDEN_PATH, &v);
    std::fs::write(
        dir.path().join("exclusions.toml"),
        format!("[[exclude]]\nfile = \"{GOLDEN_PATH}\"\nreason = \"<b>misconfigured</b>\"\n"),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut o = site_options(dir.path());
    o.now = "2030-01-01T00:00:00Z".parse().unwrap();
    site::output::build(&o, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    for entry in walkdir::WalkDir::new(out.path()) {
        let entry = entry.unwrap();
        let Some(ext) = entry.path().extension() else { continue };
        if ext == "html" || ext == "svg" || ext == "xml" {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            assert!(!text.contains("<script>alert"), "{}", entry.path().display());
            assert!(!text.contains("<img src=x"), "{}", entry.path().display());
            assert!(!text.contains("<b>misconfigured"), "{}", entry.path().display());
        }
    }
    let home = read(out.path(), "index.html");
    assert!(home.contains("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;"), "{home}");
    assert!(
        home.contains("<span class=\"mark excluded\" title=\"&lt;b&gt;misconfigured&lt;&#x2F;b&gt;\">excluded</span>")
    );
    assert!(home.contains("<span class=\"mark stale\""));
    let csv = read(out.path(), "data/coremark.csv");
    assert!(csv.contains(",<b>misconfigured</b>,"), "{csv}");
}

#[test]
fn build_refuses_a_folder_it_did_not_write() {
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("keep.txt"), "mine").unwrap();
    let err =
        site::output::build(&site_options(Path::new(REPO_RESULTS)), out.path(), &mut site::output::BuildMode::Stream)
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} is not empty and was not written by site build; choose another --out or remove the folder",
            out.path().display()
        )
    );
    assert!(out.path().join("keep.txt").is_file());
}

#[test]
fn build_stops_with_the_problems_when_a_file_is_rejected() {
    let dir = results_dir();
    let mut v = golden();
    v["format_version"] = json!(2);
    put(dir.path(), GOLDEN_PATH, &v);
    let out = tempfile::tempdir().unwrap();
    let err =
        site::output::build(&site::web::Options::new(dir.path()), out.path(), &mut site::output::BuildMode::Stream)
            .unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        format!(
            "the results do not pass the check:\n{}/{GOLDEN_PATH}\n  $.format_version: unsupported format version 2; \
             this reader understands version 1\n1 rejected, 0 of 1 result files accepted",
            dir.path().display()
        )
    );
    assert!(!out.path().join("index.html").exists());
}

/// `site build` writes each provider's runner pages as soon as the check has
/// gone through the provider's results; a check that then fails leaves the
/// folder without any of them.
#[test]
fn a_build_whose_check_fails_late_leaves_no_pages() {
    let dir = results_dir();
    copy_dir(Path::new(REPO_RESULTS), dir.path());
    // The last file in path order: the providers before it are finished
    // (and their pages written) when the check reaches it.
    let mut v = golden();
    v["provider"]["id"] = json!("zz");
    v["format_version"] = json!(2);
    put(dir.path(), "zz/example-linux-x64/2026-11-29-1-1.json", &v);
    let out = tempfile::tempdir().unwrap();
    let err =
        site::output::build(&site::web::Options::new(dir.path()), out.path(), &mut site::output::BuildMode::Stream)
            .unwrap_err();
    assert!(format!("{err:#}").starts_with("the results do not pass the check:\n"), "{err:#}");
    let left: Vec<String> =
        std::fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, [site::output::MARKER]);
}

#[test]
fn serve_maps_urls_to_files() {
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(out.path().join("providers/x")).unwrap();
    std::fs::write(out.path().join("index.html"), "i").unwrap();
    std::fs::write(out.path().join("providers/x/index.html"), "x").unwrap();
    assert_eq!(file_for(out.path(), "/"), Some(out.path().join("index.html")));
    assert_eq!(file_for(out.path(), "/providers/x/?q=1"), Some(out.path().join("providers/x/index.html")));
    assert_eq!(file_for(out.path(), "/../etc/passwd"), None);
    assert_eq!(file_for(out.path(), "/missing.html"), None);
    assert_eq!(content_type_of(Path::new("a.html")), "text/html; charset=utf-8");
    assert_eq!(content_type_of(Path::new("a.json")), "application/json");
    assert_eq!(with_reload("<p>x</p></body></html>"), "<p>x</p><script src=\"/__reload.js\"></script></body></html>");
}

/// Every file below `dir` (but the build marker) with its bytes.
fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    site::tree::walk(dir)
        .into_iter()
        .filter(|f| matches!(f.kind, site::tree::FoundKind::File(_)) && f.name != site::output::MARKER)
        .map(|f| (f.rel, std::fs::read(&f.path).unwrap()))
        .collect()
}

#[test]
fn serve_rebuilds_match_fresh_builds() {
    // `site serve`'s memo reuses what did not change; after each change
    // its output must be exactly what a fresh build writes.
    let results = results_dir();
    copy_dir(Path::new(REPO_RESULTS), results.path());
    let mut golden = golden();
    put(results.path(), GOLDEN_PATH, &golden);
    // A second runner of the same profile, and one row a home-page table:
    // the golden's tables have pages of their own, which a rebuild also
    // reuses where their rows are the same.
    let mut second = golden.clone();
    second["runner"]["label"] = json!("example-linux-x64-2");
    second["provenance"]["github"]["run_id"] = json!(7);
    another_run(&mut second, 1);
    put(results.path(), "example/example-linux-x64-2/2026-11-29-7-1.json", &second);
    let options = |results: &Path| site::web::Options { home_rows: 1, ..site_options(results) };
    let served = tempfile::tempdir().unwrap();
    let mut served_mode = site::output::BuildMode::serve();
    let first = site::output::build(&options(results.path()), served.path(), &mut served_mode).unwrap();
    assert_eq!(first.written, first.files);
    let golden_cpu = format!("tables/{}/cpu/index.html", stage_key(&golden, StageKind::Cpu));
    assert!(served.path().join(&golden_cpu).is_file(), "{golden_cpu}");

    let same_as_fresh = |what: &str| {
        let fresh = tempfile::tempdir().unwrap();
        site::output::build(&options(results.path()), fresh.path(), &mut site::output::BuildMode::Stream).unwrap();
        let (a, b) = (tree(served.path()), tree(fresh.path()));
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{what}: the files differ");
        for (rel, bytes) in &a {
            assert!(bytes == &b[rel], "{what}: {rel} differs from a fresh build");
        }
    };

    // A changed figure: the result's entry, runner and provider parts and
    // every page that lists all results are made again; the other
    // providers' and runners' parts are reused.
    golden["stages"]["cpu"]["samples"][0]["iterations"] = json!(2_000_064);
    put(results.path(), GOLDEN_PATH, &golden);
    let changed = site::output::build(&options(results.path()), served.path(), &mut served_mode).unwrap();
    assert!(changed.written > 0 && changed.written < changed.files / 2, "{changed:?}");
    same_as_fresh("after a changed figure");

    // A removed result takes its runner's page and plot with it.
    std::fs::remove_file(results.path().join(GOLDEN_PATH)).unwrap();
    site::output::build(&options(results.path()), served.path(), &mut served_mode).unwrap();
    assert!(!served.path().join("runners/example/example-linux-x64/index.html").exists());
    same_as_fresh("after a removed result");

    // Changed templates make every page again.
    let templates = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(REPO_RESULTS).join("../templates"), templates.path());
    let base = templates.path().join("base.html");
    let text = std::fs::read_to_string(&base).unwrap().replace("</footer>", "<p>edited</p></footer>");
    std::fs::write(&base, text).unwrap();
    let mut opts = options(results.path());
    opts.templates = templates.path().to_path_buf();
    site::output::build(&opts, served.path(), &mut served_mode).unwrap();
    // The reused parts too: the templates, the overview and the coverage
    // page are kept between rebuilds while their inputs are the same.
    for page in ["runners/ubicloud/ubicloud-linux-x64/index.html", "overview/index.html", "coverage/index.html"] {
        let html = read(served.path(), page);
        assert!(html.contains("<p>edited</p></footer>"), "{page}: {html}");
    }
    // The provider report's template is one of them.
    let report = templates.path().join("report.md");
    let built_in = "Variation is the population coefficient of variation across accepted samples.";
    let edited = "Variation (edited) is the population coefficient of variation across accepted samples.";
    let text = std::fs::read_to_string(&report).unwrap();
    assert_eq!(text.matches(built_in).count(), 1);
    std::fs::write(&report, text.replace(built_in, edited)).unwrap();
    site::output::build(&opts, served.path(), &mut served_mode).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    site::output::build(&options(results.path()), fresh.path(), &mut site::output::BuildMode::Stream).unwrap();
    let markdown = read(fresh.path(), "reports/ubicloud.md");
    assert!(markdown.contains(built_in), "{markdown}");
    assert_eq!(read(served.path(), "reports/ubicloud.md"), markdown.replace(built_in, edited));
}

/// A template that is there but cannot be read stops the build, naming it,
/// instead of falling back to the built-in copy.
#[test]
fn an_unreadable_template_is_an_error() {
    let results = results_dir();
    copy_dir(Path::new(REPO_RESULTS), results.path());
    let templates = tempfile::tempdir().unwrap();
    std::fs::create_dir(templates.path().join("home.html")).unwrap();
    let mut opts = site_options(results.path());
    opts.templates = templates.path().to_path_buf();
    let out = tempfile::tempdir().unwrap();
    let err = site::output::build(&opts, out.path(), &mut site::output::BuildMode::Stream).unwrap_err();
    let path = templates.path().join("home.html");
    assert!(format!("{err:#}").starts_with(&format!("cannot read the template {}: ", path.display())), "{err:#}");
}

/// The result of a split run whose `restore-2` job failed: trial 2's pairs
/// have their saves and no restores; its collector is 0.2.0 with a binary
/// that no release lists. Everything else is complete.
const FAILED_JOB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/failed-job/results");
/// A content folder with one test release manifest (v0.2.0).
const FIXTURE_CONTENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/content");

fn build_with_fixture_releases(results: &Path, out: &Path) {
    let mut o = site_options(results);
    o.content = Path::new(FIXTURE_CONTENT).to_path_buf();
    site::output::build(&o, out, &mut site::output::BuildMode::Stream).unwrap();
}

/// The id of the home page's table `slug` of `stage`, for the golden
/// result's parameters (those of every fixture here).
fn golden_table(stage: StageKind, slug: &str) -> String {
    format!("t-{}-{slug}", stage_key(&golden(), stage))
}

/// Every table of a page, without the text around them (the lead and the
/// legend name the marks too).
fn tables(page: &str) -> String {
    page.split("<table").skip(1).filter_map(|t| t.split("</table>").next()).collect()
}

/// The `<tr>` of `runner` in the home page's table `id`.
fn home_row<'a>(home: &'a str, id: &str, runner: &str) -> &'a str {
    let table = home.split(&format!("id=\"{id}\"")).nth(1).unwrap().split("</table>").next().unwrap();
    table.split("<tr").find(|row| row.contains(&format!(">{runner}</a>"))).unwrap()
}

#[test]
fn a_failed_job_marks_the_result_incomplete_and_the_runner_page_names_it() {
    let out = tempfile::tempdir().unwrap();
    build_with_fixture_releases(Path::new(FAILED_JOB), out.path());
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert!(page.contains("<tr class=\"marked\">"), "{page}");
    assert!(page.contains("<span class=\"mark incomplete\""), "{page}");
    assert!(
        page.contains(
            "<span class=\"reason\">Jobs that did not succeed: <span class=\"job\">restore-2 (failure)</span></span>"
        ),
        "{page}"
    );
    // The notice `collector assemble` adds is in the provider's report.
    let provider = read(out.path(), "providers/example/index.html");
    assert!(provider.contains("job restore-2 ended with conclusion failure: trial 2"), "{provider}");
    // In the comparison: the cache rows lack trial 2's verified pairs and
    // are marked; the CPU row, complete, is not.
    let home = read(out.path(), "index.html");
    assert!(
        home_row(&home, &golden_table(StageKind::Cache, "cache"), "example-linux-x64")
            .starts_with(" class=\"marked\">")
    );
    assert!(home_row(&home, &golden_table(StageKind::Cpu, "cpu"), "example-linux-x64").starts_with('>'));
    let index: serde_json::Value = serde_json::from_str(&read(out.path(), "index.json")).unwrap();
    assert_eq!(index["results"][0]["incomplete"], json!(true));
    assert_eq!(index["results"][0]["failed_jobs"], json!([{"job": "restore-2", "conclusion": "failure"}]));
}

#[test]
fn a_job_that_did_not_succeed_makes_a_full_result_incomplete() {
    // The fixture with trial 2's restores back (the golden's): every table
    // is full, so only the jobs decide.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{FAILED_JOB}/{GOLDEN_PATH}")).unwrap()).unwrap();
    let golden = golden();
    for (i, pair) in v["stages"]["cache"]["pairs"].as_array_mut().unwrap().iter_mut().enumerate() {
        if pair["trial"] == 2 {
            *pair = golden["stages"]["cache"]["pairs"][i].clone();
        }
    }
    let incomplete = |v: &serde_json::Value| {
        let dir = results_dir();
        put(dir.path(), GOLDEN_PATH, v);
        let out = tempfile::tempdir().unwrap();
        build_with_fixture_releases(dir.path(), out.path());
        let index: serde_json::Value = serde_json::from_str(&read(out.path(), "index.json")).unwrap();
        index["results"][0]["incomplete"].as_bool().unwrap()
    };
    v["provenance"]["jobs"][6]["conclusion"] = json!("success");
    assert!(!incomplete(&v));
    v["provenance"]["jobs"][5]["conclusion"] = json!("cancelled");
    assert_eq!(v["provenance"]["jobs"][5]["job"], "gap-2");
    assert!(incomplete(&v));
}

#[test]
fn a_cpu_row_with_fewer_accepted_samples_than_requested_is_incomplete() {
    // The golden result: 4 of 5 CoreMark samples accepted (one failed its
    // validation), as its disk row has 4 of 5 completed.
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &golden());
    let out = tempfile::tempdir().unwrap();
    build_into(dir.path(), out.path());
    let home = read(out.path(), "index.html");
    for table in [golden_table(StageKind::Cpu, "cpu"), golden_table(StageKind::Disk, "disk")] {
        let row = home_row(&home, &table, "example-linux-x64");
        assert!(row.starts_with(" class=\"marked\">") && row.contains("<span class=\"mark incomplete\""), "{row}");
    }
}

#[test]
fn self_built_results_are_marked_with_the_reason_and_released_ones_are_not() {
    let out = tempfile::tempdir().unwrap();
    build_with_fixture_releases(Path::new(FAILED_JOB), out.path());
    let reason = "binary sha256 5d0c5d0c5d0c… for x86_64-unknown-linux-gnu is not in any published release";
    let home = read(out.path(), "index.html");
    // The fixture has no run record either: a second reason, shown apart.
    let mark = format!("<span class=\"mark self-built\" title=\"{reason}; {NO_RUN_RECORD}\">self-built</span>");
    assert!(home_row(&home, &golden_table(StageKind::Cpu, "cpu"), "example-linux-x64").contains(&mark), "{home}");
    let page = read(out.path(), "runners/example/example-linux-x64/index.html");
    assert!(page.contains(&mark) && page.contains(&format!("<span class=\"reason\">Self-built: {reason}</span>")));
    let index: serde_json::Value = serde_json::from_str(&read(out.path(), "index.json")).unwrap();
    assert_eq!((&index["results"][0]["self_built"], &index["results"][0]["release"]), (&json!(reason), &json!(null)));

    // The same result measured by the release's binary: no mark.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{FAILED_JOB}/{GOLDEN_PATH}")).unwrap()).unwrap();
    v["collector"]["binary"]["sha256"] = json!("1".repeat(64));
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &v);
    let out = tempfile::tempdir().unwrap();
    build_with_fixture_releases(dir.path(), out.path());
    // Only the missing run record is left to mark.
    let mark = format!("<span class=\"mark self-built\" title=\"{NO_RUN_RECORD}\">self-built</span>");
    for rel in ["index.html", "runners/example/example-linux-x64/index.html"] {
        let tables = tables(&read(out.path(), rel));
        assert!(!tables.contains("published release") && tables.contains(&mark), "{rel}");
    }
    let index: serde_json::Value = serde_json::from_str(&read(out.path(), "index.json")).unwrap();
    assert_eq!((&index["results"][0]["self_built"], &index["results"][0]["release"]), (&json!(null), &json!("v0.2.0")));
}

#[test]
fn a_self_built_reason_is_escaped() {
    // The target is free text from the result, and the reason quotes it.
    let mut v = golden();
    v["collector"]["binary"] = json!({"sha256": "ab".repeat(32), "target": "<i>x</i>\"-q-r"});
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &v);
    let out = tempfile::tempdir().unwrap();
    build_into(dir.path(), out.path());
    for rel in ["index.html", "runners/example/example-linux-x64/index.html"] {
        let text = read(out.path(), rel);
        assert!(!text.contains("<i>x</i>") && !text.contains("x</i>\""), "{rel}");
        assert!(text.contains("for &lt;i&gt;x&lt;&#x2F;i&gt;&quot;-q-r is not in any published release"), "{rel}");
    }
}

#[test]
fn samples_a_failed_job_left_out_count_as_attempted_and_not_completed() {
    let mut v = golden();
    v["stages"]["disk"]["samples"].as_array_mut().unwrap().pop();
    v["provenance"]["jobs"] =
        json!([{"job": "measure", "conclusion": "failure", "stages": ["cpu", "disk", "internet"]}]);
    let dir = results_dir();
    put(dir.path(), GOLDEN_PATH, &v);
    let out = tempfile::tempdir().unwrap();
    build_into(dir.path(), out.path());
    let home = read(out.path(), "index.html");
    // Completed / attempted / requested.
    assert!(
        home_row(&home, &golden_table(StageKind::Disk, "disk"), "example-linux-x64")
            .contains("<td>4 &#x2F; 5 &#x2F; 5</td>")
    );
}

/// Issue 14: an imported row is dated by the day its report was measured,
/// where `site import --measured-on` recorded it, and its age counts from
/// that day only; without it the row says so and is never called stale.
#[test]
fn imported_rows_are_dated_by_their_measurement_day_only() {
    let dir = results_dir();
    let rel = "latchkey/latchkey-linux-x64/2026-11-29-imported-87d31437d07a.json";
    let mut v: serde_json::Value = serde_json::from_str(&read(Path::new(REPO_RESULTS), rel)).unwrap();
    put(dir.path(), rel, &v);
    let out = tempfile::tempdir().unwrap();
    let mut opts = site_options(dir.path());
    opts.stale_days = 1;
    site::output::build(&opts, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = read(out.path(), "index.html");
    assert!(home.contains("<span class=\"undated\">date not published</span>"), "{home}");
    assert!(!tables(&home).contains("<span class=\"mark stale\">"), "no measurement day, so no age");
    let csv = read(out.path(), "data/coremark.csv");
    assert!(csv.contains(",,2026-11-29,imported,yes,no,no,,"), "{csv}");

    v["source"]["measured_on"] = json!("2026-05-04");
    put(dir.path(), rel, &v);
    let out = tempfile::tempdir().unwrap();
    site::output::build(&opts, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = read(out.path(), "index.html");
    assert!(home.contains("<td><time datetime=\"2026-05-04T00:00:00Z\">2026-05-04</time></td>"), "{home}");
    assert!(tables(&home).contains("<span class=\"mark stale\">stale</span>"), "{home}");
    let csv = read(out.path(), "data/coremark.csv");
    assert!(csv.contains(",2026-05-04,2026-11-29,imported,yes,yes,no,,"), "{csv}");
    let feed = read(out.path(), "feed.xml");
    assert!(feed.contains("(Latchkey) from 2026-05-04: CoreMark median"), "{feed}");
}

/// Issue 49: a column that holds one value in every row of a table is said
/// once in its caption, and the table leaves it out; a column whose rows
/// differ stays.
#[test]
fn a_column_of_one_value_moves_to_the_caption() {
    let out = tempfile::tempdir().unwrap();
    build_into(Path::new(REPO_RESULTS), out.path());
    let home = read(out.path(), "index.html");
    let table = |id: &str| {
        let at = home.find(&format!("<table class=\"sortable\" id=\"t-{id}\">")).unwrap_or_else(|| panic!("{id}"));
        home[at..at + home[at..].find("</table>").unwrap()].to_string()
    };
    let internet = table("16beef789e31-internet");
    assert!(
        internet.contains(
            "<caption>Internet: download and upload in decimal Mbps (higher is better) and HTTPS request ms (lower is \
             better), medians; Service in every row: LibreSpeed (Sharktech, Amsterdam)</caption>"
        ),
        "{internet}"
    );
    assert!(!internet.contains(">Service</th>") && !internet.contains("<td>LibreSpeed"), "{internet}");
    let cache = table("1c0e0dc62819-cache-action");
    assert!(cache.contains("; Method in every row: action</caption>") && !cache.contains(">Method</th>"), "{cache}");
    // x64 and arm64: the Binary column stays.
    let cpu = table("ff90bf001f08-cpu");
    assert!(cpu.contains("<th scope=\"col\">Binary</th>") && !cpu.contains("in every row"), "{cpu}");
    assert_eq!(cpu.matches("<td>x64 (64-bit)</td>").count(), 3, "{cpu}");
}
