//! A provider's page lists its runners with what its provider file states
//! of them (size, price with its source and date) and links the provider's
//! site; what the file leaves out is "not stated", with how to add it.

use crate::common;
use std::path::Path;

use crate::common::{GOLDEN_PATH, copy_dir, golden, put, read, results_dir, site_options};

#[test]
fn a_provider_page_shows_each_runners_size_and_price_and_links_the_provider() {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &golden());
    let work = tempfile::tempdir().unwrap();
    let content = work.path().join("content");
    copy_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../content")), &content);
    std::fs::write(
        content.join("providers/example.toml"),
        "name = \"Example Cloud\"\nsite = \"https://example.com\"\n[runners.example-linux-x64]\nvcpu = 2\nmemory_gib = \
         8\narch = \"x64\"\nprice = { usd_per_minute = 0.008, source = \"https://example.com/pricing\", read_on = \
         \"2026-11-20\" }\n",
    )
    .unwrap();
    let mut opts = site_options(results.path());
    opts.content = content;
    let out = tempfile::tempdir().unwrap();
    site::output::build(&opts, out.path(), &mut site::output::BuildMode::Stream).unwrap();
    let page = read(out.path(), "providers/example/index.html");
    assert!(page.contains(
        "<p>Example Cloud's site: <a href=\"https:&#x2F;&#x2F;example.com\" rel=\"nofollow\">https:&#x2F;&#x2F;example.com</a></p>"
    ));
    assert!(
        page.contains(
            "<tr><th scope=\"row\"><a href=\"&#x2F;runners&#x2F;example&#x2F;example-linux-x64&#x2F;\">example-linux-x64</a></th>\
             <td>2 vCPU, 8 GiB memory, disk not stated</td><td>$0.008&#x2F;min <small>(<a \
             href=\"https:&#x2F;&#x2F;example.com&#x2F;pricing\" rel=\"nofollow\">source</a>, read 2026-11-20)</small></td>\
             <td class=\"num\">1</td><td>2026-11-29</td></tr>"
        ),
        "{page}"
    );
    // Every runner's size and price are stated: no note on how to add them.
    assert!(!page.contains("\"Not stated\""));
}

/// Issue 49: the provider page's report tables link each runner they name
/// to its page, while the published report (`reports/<id>.md`) keeps the
/// plain name.
#[test]
fn the_report_tables_link_each_runner() {
    let out = tempfile::tempdir().unwrap();
    common::build_into(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results")), out.path());
    let page = read(out.path(), "providers/ubicloud/index.html");
    let link = "<td><a href=\"/runners/ubicloud/ubicloud-linux-x64/\">ubicloud-linux-x64</a></td>";
    // Pinned results, disk, two cache backends, internet and the machine.
    assert_eq!(page.matches(link).count(), 6, "{page}");
    assert!(!page.contains("<td>ubicloud-linux-x64</td>"), "{page}");
    let report = read(out.path(), "reports/ubicloud.md");
    assert!(report.contains("\n| ubicloud-linux-x64 | x64 (64-bit) | 33392.77 |"), "{report}");
}
