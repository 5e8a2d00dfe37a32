//! The build-cache section (issue 15): servers are not runners. Each server
//! document has a page whose tables reproduce the seed's, rows never enter
//! the runner rankings, and measured rows share a table with imported ones
//! only where their conditions match.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

const REPO_RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../results");
const RBCS: &str = "rbcs/celeron-j3455/2026-11-29-imported-3e8967628238.json";
const RBCS_PAGE: &str = "build-cache/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238/index.html";
const GOLDEN_PAGE: &str = "build-cache/example/example-linux-x64/2026-11-29-18342215517-1/index.html";

fn build(results: &Path) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    build_into(results, out.path());
    out
}

/// The text of each cell of each row of the table `id`, entities decoded.
fn table_cells(html: &str, id: &str) -> Vec<Vec<String>> {
    let table = html.split(&format!("<table id=\"{id}\">")).nth(1).unwrap().split("</table>").next().unwrap();
    let body = table.split("<tbody>").nth(1).unwrap();
    body.split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<t")
                .skip(1)
                .filter(|c| c.starts_with('d') || c.starts_with('h'))
                .map(|c| {
                    let text = &c[c.find('>').unwrap() + 1..];
                    let text = text.split("</t").next().unwrap();
                    strip_tags(text)
                        .replace("&#x2F;", "/")
                        .replace("&amp;", "&")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">")
                })
                .collect()
        })
        .collect()
}

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in s.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

/// The seed's tables: title, then rows of tab-separated cells.
fn seed_tables() -> Vec<(String, Vec<Vec<String>>)> {
    let text = std::fs::read_to_string(Path::new(SEEDS).join("003_0b20b79efe17c3c4.txt")).unwrap();
    let mut tables: Vec<(String, Vec<Vec<String>>)> = Vec::new();
    let mut last_plain = String::new();
    for line in text.lines() {
        if line.starts_with("Cache backend\t") {
            tables.push((last_plain.clone(), Vec::new()));
        } else if line.contains('\t') {
            tables.last_mut().unwrap().1.push(line.split('\t').map(str::to_string).collect());
        } else if line.ends_with("cache backend") {
            last_plain = line.to_string();
        }
    }
    tables
}

#[test]
fn the_rbcs_page_reproduces_every_seed_table_in_order() {
    let out = build(Path::new(REPO_RESULTS));
    let page = read(out.path(), RBCS_PAGE);
    let seed = seed_tables();
    assert_eq!(seed.len(), 3);
    for (i, (title, rows)) in seed.iter().enumerate() {
        let id = format!("table-{}", i + 1);
        assert!(page.contains(&format!("<h2 id=\"{id}\">{title}</h2>")), "{title}");
        assert_eq!(&table_cells(&page, &format!("t-{id}")), rows, "{title}");
    }
    // RBCS states no measurement day: the page says so.
    assert!(page.contains(
        "RBCS · celeron-j3455 · date not published, imported <time datetime=\"2026-11-29T00:00:00Z\">2026-11-29</time> ·"
    ));
    // The conditions beside a table: the document's, then the table's own,
    // in place of the same-named document condition (digest).
    let memcache =
        page.split("<aside class=\"conditions\" aria-label=\"Conditions of Memcache cache backend\">").nth(1);
    let memcache = memcache.unwrap().split("</aside>").next().unwrap();
    assert_eq!(
        memcache,
        "\n<h3>Conditions</h3>\n<dl>\n<dt>CPU</dt><dd>Intel Celeron J3455 (4 physical cores)</dd>\n\
         <dt>memory</dt><dd>8GB DDR3L 1600 MHz</dd>\n<dt>disk</dt><dd>SATA3 120GB SSD</dd>\n\
         <dt>HTTP compression</dt><dd>disabled</dd>\n<dt>cache compression</dt><dd>disabled</dd>\n\
         <dt>network RTT</dt><dd>14ms</dd>\n<dt>network bandwidth</dt><dd>112 MiB&#x2F;s</dd>\n\
         <dt>compression</dt><dd>disabled <span class=\"muted\">(this table)</span></dd>\n\
         <dt>digest</dt><dd>MD5 <span class=\"muted\">(this table)</span></dd>\n\
         <dt>authentication</dt><dd>disabled <span class=\"muted\">(this table)</span></dd>\n\
         <dt>TLS</dt><dd>disabled <span class=\"muted\">(this table)</span></dd>\n</dl>\n"
    );
    // A plot per table and connection count, PUT and GET per quota.
    let stem = "build-cache/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238";
    for table in 1..=3 {
        for c in [10, 100] {
            let svg = read(out.path(), &format!("{stem}/table-{table}-{c}-connections.svg"));
            assert!(svg.contains(&format!(", {c} connections: requests/s</title>")), "{svg}");
            for label in ["PUT, CPU quota 1.00", "GET, CPU quota 1.00", "PUT, CPU quota 3.50", "GET, CPU quota 3.50"] {
                assert!(svg.contains(label), "{label}");
            }
        }
    }
    assert!(
        page.contains(&format!("<img src=\"&#x2F;{}&#x2F;table-1-10-connections.svg\"", stem.replace('/', "&#x2F;")))
    );
    // The section lists it and the navigation leads there.
    let section = read(out.path(), "build-cache/index.html");
    assert!(section.contains(
        "<a href=\"&#x2F;build-cache&#x2F;rbcs&#x2F;celeron-j3455&#x2F;2026-11-29-imported-3e8967628238&#x2F;\">RBCS \
         performance benchmarks</a></th><td>RBCS</td><td>celeron-j3455 (RBCS)</td><td class=\"num\">3</td><td \
         class=\"num\">48</td>"
    ));
    assert!(section.contains("<a href=\"&#x2F;build-cache&#x2F;\">Build-cache servers</a>"));
    // Its provider's report is the seed's, and its page links the document.
    let provider = read(out.path(), "providers/rbcs/index.html");
    assert!(!provider.contains("<h2 id=\"runners\">"));
    assert!(provider.contains("<a href=\"&#x2F;build-cache&#x2F;rbcs&#x2F;celeron-j3455&#x2F;2026-11-29-imported-3e8967628238&#x2F;\">RBCS: RBCS performance benchmarks</a>"));
}

#[test]
fn home_rankings_hold_no_build_cache_row() {
    let checked = site::output::testing::check(&[REPO_RESULTS.into()]).unwrap();
    let model = site::model::build(&checked.runs, "2026-12-01T00:00:00Z".parse().unwrap(), None);
    for g in &model.groups {
        let providers = g
            .cpu
            .iter()
            .map(|r| &r.meta)
            .chain(g.cpu_eembc.iter().map(|r| &r.meta))
            .chain(g.disk.iter().map(|r| &r.meta))
            .chain(g.cache.iter().map(|r| &r.meta))
            .chain(g.cache_action.iter().map(|r| &r.meta))
            .chain(g.internet.iter().map(|r| &r.meta));
        for m in providers {
            assert_ne!(m.provider_id, "rbcs", "group {}", g.id);
        }
    }
    assert!(model.groups.iter().all(|g| g.id != "unknown"), "the RBCS document made a group of its own");
    assert!(model.runners.iter().all(|r| r.provider_id != "rbcs"), "a server is no runner");
    assert_eq!(model.servers.len(), 1);
    let out = build(Path::new(REPO_RESULTS));
    let home = read(out.path(), "index.html");
    for text in ["celeron-j3455", "in-memory", "Celeron", "GET/s"] {
        assert!(!home.contains(text), "{text} on the home page");
    }
    assert!(home.contains("<p>4 results of 4 runners from 3 providers"), "{home}");
    assert!(!out.path().join("runners/rbcs").exists());
    assert!(!read(out.path(), "coverage/index.html").contains("celeron-j3455"));
    // The feed links the document's page, not a runner page.
    let feed: atom_syndication::Feed = read(out.path(), "feed.xml").parse().unwrap();
    let links: Vec<&str> = feed.entries.iter().map(|e| e.links[0].href.as_str()).collect();
    assert!(
        links.contains(
            &"https://runner-bench.netlify.app/build-cache/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238/"
        ),
        "{links:?}"
    );
}

/// The RBCS document's conditions, which a measured server's must equal
/// to share its tables.
fn rbcs_conditions() -> Value {
    let rbcs: Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(REPO_RESULTS).join(RBCS)).unwrap()).unwrap();
    rbcs["stages"]["http_cache"]["conditions"].clone()
}

/// The repository's results and the golden measured result as `edit` leaves
/// it, built.
fn build_with_golden(edit: impl FnOnce(&mut Value)) -> tempfile::TempDir {
    let dir = results_dir();
    put(
        dir.path(),
        RBCS,
        &serde_json::from_str(&std::fs::read_to_string(Path::new(REPO_RESULTS).join(RBCS)).unwrap()).unwrap(),
    );
    let mut v = golden();
    edit(&mut v);
    put(dir.path(), GOLDEN_PATH, &v);
    let out = build(dir.path());
    // `build` keeps nothing of `dir`.
    drop(dir);
    out
}

#[test]
fn measured_rows_share_a_table_with_imported_ones_only_under_the_same_conditions() {
    // The golden server ran in-memory, CPU quota 1, 4 GB, under the RBCS
    // document's conditions: its 4096-byte row joins the 16 RBCS rows of
    // that backend and quota, after the published row of its cell; its
    // row without quotas joins none.
    let out = build_with_golden(|v| v["stages"]["http_cache"]["server"]["conditions"] = rbcs_conditions());
    let section = read(out.path(), "build-cache/index.html");
    assert!(
        section.contains("<h3 id=\"shared-1\">in-memory backend, CPU quota 1.00, memory quota 4 GB</h3>"),
        "{section}"
    );
    assert!(!section.contains("id=\"shared-2\""));
    let rows = table_cells(&section, "t-shared-1");
    let cells = |r: &Vec<String>| r[1..6].join(" ");
    let got: Vec<String> = rows.iter().map(|r| format!("{} | {}", r[0], cells(r))).collect();
    let rbcs = "RBCS (celeron-j3455, imported 2026-11-29)";
    let measured = "RBCS 0.3.0 (example-linux-x64, 2026-11-29)";
    assert_eq!(
        got,
        [
            format!("{rbcs} | Intel Celeron J3455 128 10 7867 13762"),
            format!("{rbcs} | Intel Celeron J3455 128 100 7728 14180"),
            format!("{rbcs} | Intel Celeron J3455 512 10 7964 10992"),
            format!("{rbcs} | Intel Celeron J3455 512 100 8415 12478"),
            format!("{rbcs} | Intel Celeron J3455 4096 10 4268 5395"),
            format!("{measured} | AMD EPYC 9454P 48-Core Processor 4096 10 4268 5394"),
            format!("{rbcs} | Intel Celeron J3455 4096 100 5585 8259"),
            format!("{rbcs} | Intel Celeron J3455 65536 10 1063 1185"),
            format!("{rbcs} | Intel Celeron J3455 65536 100 1522 1366"),
        ]
    );
    // The measured document's page: its own table, rows in the published
    // order (no quota first), and the shared table linked.
    let page = read(out.path(), GOLDEN_PAGE);
    assert_eq!(
        table_cells(&page, "t-table-1"),
        [
            [
                "in-memory",
                "AMD EPYC 9454P 48-Core Processor",
                "—",
                "—",
                "65536",
                "100",
                "1522",
                "—",
                "incompleteGET: 12 entries came back with wrong bytes"
            ],
            ["in-memory", "AMD EPYC 9454P 48-Core Processor", "1.00", "4", "4096", "10", "4268", "5394", ""],
        ]
    );
    assert!(page.contains("<p>Rows of this table share <a href=\"&#x2F;build-cache&#x2F;#shared-1\">a table</a>"));

    // One condition differs (the same names, TLS enabled): nothing shared.
    let out = build_with_golden(|v| {
        let mut conditions = rbcs_conditions();
        for c in conditions.as_array_mut().unwrap() {
            if c["name"] == "TLS" {
                c["value"] = json!("enabled");
            }
        }
        v["stages"]["http_cache"]["server"]["conditions"] = conditions;
    });
    let section = read(out.path(), "build-cache/index.html");
    assert!(!section.contains("id=\"shared-1\""));
    assert!(section.contains("<p>No two documents have rows measured under the same conditions"));
    // Nor with one condition more than the document's.
    let out = build_with_golden(|v| {
        let mut conditions = rbcs_conditions();
        conditions.as_array_mut().unwrap().push(json!({"name": "HTTP version", "value": "1.1"}));
        v["stages"]["http_cache"]["server"]["conditions"] = conditions;
    });
    assert!(!read(out.path(), "build-cache/index.html").contains("id=\"shared-1\""));
    // Nor on another memory quota.
    let out = build_with_golden(|v| {
        v["stages"]["http_cache"]["server"]["conditions"] = rbcs_conditions();
        v["stages"]["http_cache"]["runs"][0]["memory_quota_gb"] = json!(8.0);
    });
    assert!(!read(out.path(), "build-cache/index.html").contains("id=\"shared-1\""));
}

#[test]
fn the_csv_has_every_server_row_with_numbers_and_its_own_flags() {
    let out = build_with_golden(|_| {});
    let csv = read(out.path(), "data/build-cache.csv");
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "provider,server,software,table,backend,cpu,cpu_quota,memory_gb,value_bytes,connections,put_per_s,get_per_s,\
         date,imported_on,collector,imported,stale,incomplete,excluded,source"
    );
    // Documents in path order, each in its tables' order; a phase that did
    // not end ok leaves its column empty and marks the row alone.
    assert_eq!(
        lines[1],
        "example,example-linux-x64,RBCS 0.3.0,in-memory backend,in-memory,AMD EPYC 9454P 48-Core Processor,,,65536,100,\
         1522,,2026-11-29,,0.1.0,no,no,yes,,/results/example/example-linux-x64/2026-11-29-18342215517-1.json"
    );
    assert_eq!(
        lines[2],
        "example,example-linux-x64,RBCS 0.3.0,in-memory backend,in-memory,AMD EPYC 9454P 48-Core Processor,1.00,4,4096,\
         10,4268,5394,2026-11-29,,0.1.0,no,no,no,,/results/example/example-linux-x64/2026-11-29-18342215517-1.json"
    );
    assert_eq!(
        lines[3],
        "rbcs,celeron-j3455,RBCS,In memory cache backend,in-memory,Intel Celeron J3455,1.00,4,128,10,7867,13762,\
         ,2026-11-29,imported,yes,no,no,,/results/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238.json"
    );
    assert_eq!(lines.len(), 2 + 48 + 2, "{csv}");
    assert_eq!(lines.last(), Some(&""));
}

#[test]
fn markup_in_server_text_stays_inert() {
    let out = build_with_golden(|v| {
        let h = &mut v["stages"]["http_cache"];
        h["server"]["software"] = json!("<script>alert(1)</script>");
        h["server"]["url"] = json!("http://127.0.0.1/<img src=x onerror=alert(2)>");
        h["server"]["conditions"] = json!([{"name": "<b>TLS</b>", "value": "=HYPERLINK(\"x\")"}]);
        h["runs"][0]["backend"] = json!("<i>mem</i>");
    });
    for entry in walkdir::WalkDir::new(out.path()) {
        let entry = entry.unwrap();
        let Some(ext) = entry.path().extension() else { continue };
        if ext == "html" || ext == "svg" || ext == "xml" {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for raw in ["<script>alert", "<img src=x", "<b>TLS", "<i>mem"] {
                assert!(!text.contains(raw), "{raw} in {}", entry.path().display());
            }
        }
    }
    let page = read(out.path(), GOLDEN_PAGE);
    assert!(page.contains("<h1>&lt;script&gt;alert(1)&lt;&#x2F;script&gt;: http:&#x2F;&#x2F;127.0.0.1&#x2F;&lt;img src=x onerror=alert(2)&gt;</h1>"), "{page}");
    assert!(page.contains("<dt>&lt;b&gt;TLS&lt;&#x2F;b&gt;</dt><dd>=HYPERLINK(&quot;x&quot;)</dd>"));
    let svg =
        read(out.path(), "build-cache/example/example-linux-x64/2026-11-29-18342215517-1/table-1-10-connections.svg");
    assert!(
        svg.contains("<title id=\"title\">&lt;i&gt;mem&lt;/i&gt; backend, 10 connections: requests/s</title>"),
        "{svg}"
    );
    // The CSV holds the text as recorded (it is no markup there).
    let csv = read(out.path(), "data/build-cache.csv");
    assert!(csv.contains(",<script>alert(1)</script>,"), "{csv}");
    assert!(csv.contains(",<i>mem</i> backend,<i>mem</i>,"), "{csv}");
}

/// A runner measured against one server many times is one server document:
/// its newest result's (as the comparison tables show the newest result per
/// runner), not a page and plots per result file. A result that measured
/// only a server (RBCS) keeps its page, which its rows link to.
#[test]
fn a_runner_has_one_server_document_per_server_its_newest() {
    let dir = results_dir();
    put(
        dir.path(),
        RBCS,
        &serde_json::from_str(&std::fs::read_to_string(Path::new(REPO_RESULTS).join(RBCS)).unwrap()).unwrap(),
    );
    put(dir.path(), GOLDEN_PATH, &golden());
    // The same day and minute: the later path is the newer (as everywhere).
    let mut later = golden();
    later["provenance"]["github"]["run_id"] = serde_json::json!(18342215518u64);
    another_run(&mut later, 1);
    let later_path = "example/example-linux-x64/2026-11-29-18342215518-1.json";
    put(dir.path(), later_path, &later);
    assert_eq!(accepted(dir.path()).len(), 3, "{:?}", problems(dir.path(), &check(dir.path())));
    let out = build(dir.path());
    let pages: Vec<String> = walkdir::WalkDir::new(out.path().join("build-cache"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() == "index.html")
        .map(|e| e.path().strip_prefix(out.path()).unwrap().display().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        pages,
        [
            "build-cache/example/example-linux-x64/2026-11-29-18342215518-1/index.html",
            "build-cache/index.html",
            "build-cache/rbcs/celeron-j3455/2026-11-29-imported-3e8967628238/index.html",
        ]
    );
    // The build lets go of the older result's tables as it reads the newer
    // one (`drop_superseded_server_tables`): the page is the newer's, whole,
    // a row for each of the golden result's runs; the older result's runner
    // row still names the server.
    let doc = read(out.path(), "build-cache/example/example-linux-x64/2026-11-29-18342215518-1/index.html");
    let runs = golden()["stages"]["http_cache"]["runs"].as_array().unwrap().len();
    assert_eq!(table_cells(&doc, "t-table-1").len(), runs, "{doc}");
    let runner = read(out.path(), "runners/example/example-linux-x64/index.html");
    let rows = table_cells(&runner, "t-history-build-cache");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1][3], "on a newer result's page", "{rows:?}");
}
