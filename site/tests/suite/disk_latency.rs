//! Issue 14: the disk table shows what the collector records of each call's
//! latency (p50 and p99 per operation), in the page and in disk.csv;
//! imported rows, whose reports print none, show nothing invented.

use std::path::Path;

use crate::common::*;

fn built(results: &Path) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    build_into(results, out.path());
    out
}

#[test]
fn measured_disk_rows_show_per_call_latency() {
    let results = results_dir();
    put(results.path(), GOLDEN_PATH, &golden());
    let out = built(results.path());
    let home = read(out.path(), "index.html");
    // The golden result's four completed samples: medians of their
    // percentiles.
    for (p50, p99) in [("598.50", "1021.25"), ("1301.00", "2210.75"), ("98.25", "180.50"), ("44.75", "91.00")] {
        let cell = format!("<small class=\"lat\"><span>p50 {p50}</span> · <span>p99 {p99} µs</span></small>");
        assert!(home.contains(&cell), "{cell}\n{home}");
    }
    // Said once under the tables.
    assert!(home.contains(
        "<dd>Under a disk figure: per-call latency, medians over the samples of each sample's 50th and 99th \
         percentile.</dd>"
    ));
    let csv = read(out.path(), "data/disk.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "fingerprint,protocol,stage_key,place,tied,provider,runner,seq_read_mib_s,seq_write_mib_s,rand_read_iops,rand_write_iops,samples,\
         seq_read_p50_us,seq_read_p99_us,seq_write_p50_us,seq_write_p99_us,rand_read_p50_us,rand_read_p99_us,\
         rand_write_p50_us,rand_write_p99_us,date,imported_on,collector,imported,stale,incomplete,excluded,source"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .contains(",4 / 5 / 5,598.50,1021.25,1301.00,2210.75,98.25,180.50,44.75,91.00,2026-11-29,"),
        "{csv}"
    );
}

#[test]
fn imported_disk_rows_have_no_latency() {
    let out = built(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../results")));
    assert!(!read(out.path(), "index.html").contains("class=\"lat\""));
    let csv = read(out.path(), "data/disk.csv");
    for line in csv.lines().skip(1) {
        assert!(line.contains(",,,,,,,,"), "{line}");
    }
}
