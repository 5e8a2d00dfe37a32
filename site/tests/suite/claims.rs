//! What a reader takes away is true (issue 57), checked in chromium on the
//! claims fixture (site/tests/fixtures/claims): each stage's leader line
//! accounts for every table of the stage, rows tied on the home page are
//! tied on the overview, sorting never mixes groups, every incomplete mark
//! has its reason, and an imported runner's tables never show the import
//! day as if it were a measurement date.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::browser::{Browser, get, wait_until};
use crate::common::{free_port, serve};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claims");
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { out.extend(files(&p)) } else { out.push(p) }
    }
    out.sort();
    out
}

#[test]
fn the_fixture_is_what_its_script_writes_and_site_check_accepts_it() {
    let tmp = tempfile::tempdir().unwrap();
    let made = tmp.path().join("results");
    let status = std::process::Command::new("python3")
        .arg("site/tests/fixtures/claims/make.py")
        .arg(&made)
        .current_dir(REPO)
        .status()
        .unwrap();
    assert!(status.success());
    let results = Path::new(FIXTURE).join("results");
    let rel = |root: &Path| -> Vec<PathBuf> {
        files(root).into_iter().map(|p| p.strip_prefix(root).unwrap().to_path_buf()).collect()
    };
    assert_eq!(rel(&made), rel(&results), "run python3 site/tests/fixtures/claims/make.py");
    for f in rel(&results) {
        assert!(
            std::fs::read(made.join(&f)).unwrap() == std::fs::read(results.join(&f)).unwrap(),
            "{}: not what make.py writes; run python3 site/tests/fixtures/claims/make.py",
            f.display()
        );
    }
    let checked = site::output::testing::check(&[results]).unwrap();
    assert!(checked.problems.is_empty(), "{}", checked.human_report());
    assert_eq!(checked.runs.len(), 8);
}

/// The text of the cells of column `col` of table `table` (an element id).
const COLUMN: &str = "(table, col) => Array.from(document.getElementById(table).tBodies[0].rows).map(r => \
                      r.cells[col] ? r.cells[col].textContent.trim() : '')";

#[test]
fn what_a_reader_takes_away_holds_in_chromium() {
    let work = tempfile::tempdir().unwrap();
    let port = free_port();
    let out = work.path().join("public");
    let content = Path::new(FIXTURE).join("content");
    // Never stale: the fixture's dates stay as they are.
    let args = ["--content".as_ref(), content.as_os_str(), "--stale-days".as_ref(), "36500".as_ref()];
    let _server = serve(port, &Path::new(FIXTURE).join("results"), &out, &args);
    let mut browser = Browser::start(&work.path().join("chromium.log"));
    wait_until("the first build", || get(port, "/__reload").is_some_and(|(s, b)| s == 200 && b == "1"));
    let url = |path: &str| format!("http://127.0.0.1:{port}{path}");

    // Home: each leader line links to every table of its stage that ranks
    // a row (its groups' leaders, or "Other groups"), never fewer.
    browser.load(&url("/"));
    let lines = browser
        .eval(
            "Array.from(document.querySelectorAll('section.leaders li')).map(li => [li.textContent, \
             Array.from(li.querySelectorAll('a[href^=\"#g-\"]')).map(a => a.getAttribute('href').slice(3))])",
        )
        .unwrap();
    let tables = browser
        .eval(
            "Array.from(document.querySelectorAll('table[id^=\"t-\"]')).filter(t => \
             Array.from(t.tBodies[0].rows).some(r => /^≈?\\s*\\d+$/.test(r.querySelector('td.place')?.textContent.trim() ?? \
             ''))).map(t => t.id.slice(2))",
        )
        .unwrap();
    let ranked: Vec<&str> = tables.as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert!(!ranked.is_empty(), "no ranked table on the home page");
    let mut linked = Vec::new();
    for line in lines.as_array().unwrap() {
        let text = line[0].as_str().unwrap();
        let links: Vec<&str> = line[1].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        if links.len() > 1 {
            assert!(text.contains(&format!("; {} groups, never compared)", links.len())), "{text}");
        }
        linked.extend(links);
    }
    // A cache table's line for restores and its line for saves link to it.
    linked.sort_unstable();
    linked.dedup();
    let mut expected = ranked.clone();
    expected.sort_unstable();
    assert_eq!(linked, expected, "the leader lines link to other tables than the ranked ones");

    // The CoreMark rows the home page ranks "≈" are tied on the overview:
    // their share and their cost carry "≈".
    let tied = browser
        .eval(
            "Array.from(document.querySelectorAll('table[id$=\"-cpu\"] tbody tr')).filter(r => \
             r.querySelector('td.place')?.textContent.includes('≈')).map(r => r.querySelector('th a, td a').textContent)",
        )
        .unwrap();
    let tied: Vec<String> = tied.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
    assert_eq!(tied.len(), 5, "tied CoreMark rows on the home page: {tied:?}");
    browser.load(&url("/overview/"));
    let rows = browser
        .eval(
            "Array.from(document.querySelectorAll('table.overview tbody tr')).map(r => { \
             const col = name => Array.from(r.closest('table').tHead.rows[0].cells).findIndex(th => th.textContent.trim() == name); \
             return [r.cells[0].querySelector('a').textContent, r.cells[col('CoreMark one-thread it/s')].textContent.trim(), \
             r.cells[col('Cost of one-thread work')].textContent.trim()]; })",
        )
        .unwrap();
    for runner in &tied {
        let row = rows.as_array().unwrap().iter().find(|r| r[0] == json!(runner)).unwrap_or_else(|| panic!("{runner}"));
        let (figure, cost) = (row[1].as_str().unwrap(), row[2].as_str().unwrap());
        assert!(figure.contains("≈ 100 %"), "{runner}: the overview's share is not tied: {figure}");
        assert!(cost.starts_with('≈'), "{runner}: the overview's cost is not tied: {cost}");
    }

    // Sorting: a column whose figures come from several groups does not
    // sort; every other column sorts within its table only.
    let columns = browser
        .eval(&format!(
            "Array.from(document.querySelectorAll('table.overview')).flatMap(t => \
             Array.from(t.tHead.rows[0].cells).map((th, i) => [t.id, i, th.classList.contains('nosort'), \
             new Set(({COLUMN})(t.id, i).map(c => (c.match(/group [A-Z]/) || [''])[0]).filter(g => g)).size]))"
        ))
        .unwrap();
    let mut mixed = 0;
    for c in columns.as_array().unwrap() {
        if c[3].as_u64().unwrap() > 1 {
            mixed += 1;
            assert_eq!(c[2], json!(true), "{c}: a column of several groups sorts");
        }
    }
    assert!(mixed > 0, "the fixture has no column of several groups");

    // Every incomplete mark, on every page that shows one, has its reason.
    let mut marks = 0;
    for path in ["/", "/overview/", "/runners/example/example-2vcpu/", "/coverage/"] {
        browser.load(&url(path));
        marks += browser.eval("document.querySelectorAll('.mark.incomplete').length").unwrap().as_u64().unwrap();
        let bare = browser
            .eval(
                "Array.from(document.querySelectorAll('.mark.incomplete')).filter(m => !m.closest('dt, dd, p')).filter(m => \
                 !m.title && !(m.closest('td, li') || m.parentElement).querySelector('.reason')).map(m => \
                 (m.closest('tr, li') || m.parentElement).textContent.trim().slice(0, 120))",
            )
            .unwrap();
        assert_eq!(bare, json!([]), "{path}: incomplete marks without a reason");
    }
    assert!(marks > 0, "the fixture's incomplete result shows no mark");

    // An imported runner's tables: a date is either a measurement date the
    // report published or marked "date not published".
    for path in ["/runners/starsling/starsling-linux-x64/", "/runners/latchkey/latchkey-linux-x64/"] {
        browser.load(&url(path));
        let bare = browser
            .eval(
                "Array.from(document.querySelectorAll('td, th')).filter(c => /\\d{4}-\\d{2}-\\d{2}/.test(c.textContent) \
                 && !c.textContent.includes('date not published') && !c.closest('td a[href$=\".json\"]')).map(c => \
                 c.textContent.trim())",
            )
            .unwrap();
        assert_eq!(bare, json!([]), "{path}: an import day shown as a date");
        let undated = browser
            .eval("Array.from(document.querySelectorAll('td')).filter(c => c.textContent.includes('date not published')).length")
            .unwrap();
        assert!(undated.as_u64().unwrap() >= 2, "{path}: {undated} cells say the date was not published");
    }
    let problems = browser.problems();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    browser.close();
}
