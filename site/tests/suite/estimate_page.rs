//! The estimate page as built (issue 57): presets described completely, a
//! shared link's limit without script stated, runners of another CoreMark
//! group than the reference's named as such with the fix, and the
//! parallel-build preset (issue 56).

use crate::common;
use std::path::Path;

const REPO_RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../results");
const MEASURED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/failed-job/results");

/// The repository's imported results and one measured result, whose
/// CoreMark is in another group than theirs; built at the tests' time.
fn built() -> tempfile::TempDir {
    let results = common::results_dir();
    common::copy_dir(Path::new(REPO_RESULTS), results.path());
    common::copy_dir(Path::new(MEASURED), results.path());
    let out = tempfile::tempdir().unwrap();
    site::output::build(&common::site_options(results.path()), out.path(), &mut site::output::BuildMode::Stream)
        .unwrap();
    out
}

fn page(out: &Path, rel: &str) -> String {
    std::fs::read_to_string(out.join(rel)).unwrap()
}

#[test]
fn the_estimate_page_says_what_it_shows() {
    let out = built();
    let default = page(out.path(), "estimate/index.html");
    assert!(default.contains(
        "<p id=\"estimate-preset\">Rust build and test: 8 minutes of compiling and testing on one thread, 1,500 MiB \
         read from disk and 2,500 MiB written, the crates and target folder (1,200 MiB) restored from the cache and \
         saved, nothing else downloaded.</p>"
    ));
    assert!(default.contains(
        "<noscript><p class=\"note\" id=\"estimate-noscript\">Without JavaScript the form cannot estimate, and a \
         shared estimate's address (one with “?ref=” after /estimate/) shows this page's typical job, not the \
         shared one: each typical job above is a page estimated when the site was built.</p></noscript>"
    ));
    // The presets' reference is of the imported group, the most runners:
    // the measured runner is named with the fix, not as "not measured".
    assert!(
        default.contains(
            "<h2>In another comparison group</h2>\n<ul class=\"other-group\">\n<li><a \
             href=\"&#x2F;runners&#x2F;example&#x2F;example-linux-x64&#x2F;\">example-linux-x64</a> (Example Cloud): its CoreMark \
             figures are in another comparison group than the reference runner's, so they cannot be compared; \
             choose it, or another runner of its group, as the reference runner to estimate it.</li>\n</ul>"
        ),
        "{default}"
    );
    assert!(!default.contains("example-linux-x64</a> (Example Cloud): not measured"));
    let parallel = page(out.path(), "estimate/parallel-build/index.html");
    assert!(parallel.contains(
        "<p id=\"estimate-preset\">Parallel build: 10 minutes of compiling, 90 % of it on every logical CPU at once \
         and the rest (configuring, linking) on one thread, 1,000 MiB read from disk and 2,000 MiB written, no \
         cache, nothing downloaded.</p>"
    ));
    assert!(parallel.contains(
        "name=\"par\" type=\"number\" min=\"0\" max=\"100\" step=\"any\" inputmode=\"decimal\" value=\"90\""
    ));
}
