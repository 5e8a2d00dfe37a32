//! Helpers for the unit tests of several modules.

use runner_bench_format::{AnyResult, MeasuredResult, read_file};

/// The format's golden measured result (format/tests/golden/result-v1.json).
pub fn golden() -> MeasuredResult {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
    match read_file(&path).unwrap() {
        AnyResult::Measured(r) => *r,
        AnyResult::Imported(_) => panic!("golden is measured"),
    }
}
