//! The key pages as a reader gets them, against snapshot files reviewed like
//! code (`snapshots/suite__snapshots__*.snap`): the home page, the
//! overview, a measured runner (the golden result), an imported runner, a
//! provider and the estimate, built from the repository's results and
//! content plus the golden measured result, at the fixed time
//! `common::site_options` gives. A change to a page shows as a diff of its
//! snapshot in review; `cargo insta review`, or `INSTA_UPDATE=always cargo
//! test -p site --test suite snapshots`, writes the new one.
//!
//! Substring tests elsewhere pin what a page must say; these pin everything
//! else it says, so that no change to a page goes unseen.

use std::path::Path;

use crate::common::{GOLDEN_PATH, build_into, copy_dir, golden, put, read, results_dir};

/// The site of the repository's results with the golden measured result
/// beside them, built once for every page below.
fn built() -> &'static Path {
    static OUT: std::sync::OnceLock<(tempfile::TempDir, tempfile::TempDir)> = std::sync::OnceLock::new();
    let (_, out) = OUT.get_or_init(|| {
        let results = results_dir();
        copy_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results")), results.path());
        put(results.path(), GOLDEN_PATH, &golden());
        let out = tempfile::tempdir().unwrap();
        build_into(results.path(), out.path());
        (results, out)
    });
    out.path()
}

/// Each page's snapshot, by the name its file carries.
const PAGES: &[(&str, &str)] = &[
    ("home", "index.html"),
    ("overview", "overview/index.html"),
    ("runner_measured", "runners/example/example-linux-x64/index.html"),
    ("runner_imported", "runners/ubicloud/ubicloud-linux-x64/index.html"),
    ("provider", "providers/ubicloud/index.html"),
    ("estimate", "estimate/index.html"),
];

#[test]
fn key_pages_are_their_snapshots() {
    let out = built();
    for (name, rel) in PAGES {
        insta::assert_snapshot!(*name, read(out, rel));
    }
}
