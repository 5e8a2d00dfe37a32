//! A result of the collector's quick profile is a try-out: `site check`
//! accepts it and says so, and the site shows it marked "try-out" and never
//! ranks it. The fixture is a real `collector run --profile quick --stages
//! cpu,disk` result.

mod common;

use std::path::Path;

use common::site_options;

const QUICK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/quick/results");

#[test]
fn site_check_accepts_a_quick_result_and_says_it_is_never_ranked() {
    let checked = site::output::testing::check(&[QUICK.into()]).unwrap();
    assert!(checked.problems.is_empty(), "{}", checked.human_report());
    let notes: Vec<(&str, &str)> =
        checked.runs[0].notes.iter().map(|n| (n.field.as_str(), n.reason.as_str())).collect();
    assert_eq!(
        notes,
        [(
            "$.fingerprint",
            "7a737381e8dd is the quick profile's, a try-out: the site shows the result marked \"try-out\" and never \
             ranks it; a run of the standard profile (ff3be33c0c3c) is ranked"
        )]
    );
}

#[test]
fn the_site_marks_a_quick_result_and_ranks_none_of_its_rows() {
    let out = tempfile::tempdir().unwrap();
    site::output::build(&site_options(Path::new(QUICK)), out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let home = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    for table in ["-cpu\"", "-disk\""] {
        let at = home.find("<table class=\"sortable\" id=\"t-").unwrap();
        let rows = &home[at..];
        let t = rows.split("<table").find(|t| t.contains(table)).unwrap_or_else(|| panic!("no table {table}"));
        let body = t.split("<tbody>").nth(1).unwrap().split("</tbody>").next().unwrap();
        assert!(body.contains("<td class=\"num place\">—</td>"), "{table}: {body}");
        assert!(body.contains("<span class=\"mark tryout\">try-out</span>"), "{table}: {body}");
    }
    // Each section says it holds try-outs, not a published profile's
    // ranked results, and so does the overview's.
    let tryouts = "Try-outs of the quick profile, never ranked (published protocol 1, measured)";
    assert!(home.contains(&format!("<h2 id=\"g-41c02367d53c\">CoreMark: {tryouts}</h2>")), "{home}");
    assert!(home.contains(&format!("<h2 id=\"g-185464aeae24\">Disk: {tryouts}</h2>")), "{home}");
    let overview = std::fs::read_to_string(out.path().join("overview/index.html")).unwrap();
    assert!(overview.contains(&format!("<h2 id=\"o-41c02367d53c-cpu\">{tryouts}</h2>")), "{overview}");
    // Its figures are greyed without a share, and the legend says why.
    assert!(
        overview
            .contains("Greyed figures are incomplete, try-outs or stale; incomplete ones and try-outs have no share.")
    );
    // Nothing is ranked, so no stage has a leader.
    assert!(!home.contains("<h2 id=\"leaders\""));
    let runner = std::fs::read_to_string(out.path().join("runners/example/example-linux-x64/index.html")).unwrap();
    assert!(runner.contains("<span class=\"mark tryout\">try-out</span>"));
}

/// Issue 49: try-outs are shown apart, after every ranked group of their
/// stage, whatever their keys or protocols.
#[test]
fn try_out_groups_come_after_the_ranked_ones() {
    let results = tempfile::tempdir().unwrap();
    common::copy_dir(Path::new(QUICK), results.path());
    let mut ranked = common::golden();
    ranked["runner"]["label"] = serde_json::json!("ranked-linux-x64");
    common::put(results.path(), "example/ranked-linux-x64/2026-11-29-18342215517-1.json", &ranked);
    let out = tempfile::tempdir().unwrap();
    common::build_into(results.path(), out.path());
    let home = common::read(out.path(), "index.html");
    let headings: Vec<&str> = home
        .split("<h2 id=\"g-")
        .skip(1)
        .map(|h| h.split('>').nth(1).unwrap().split('<').next().unwrap())
        .filter(|h| h.starts_with("CoreMark"))
        .collect();
    assert_eq!(
        headings,
        [
            "CoreMark: Published protocol 1, measured",
            "CoreMark: Try-outs of the quick profile, never ranked (published protocol 1, measured)"
        ]
    );
}
