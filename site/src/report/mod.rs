//! Per-provider markdown reports in the published format of the seed
//! reports. Measured results (figures computed from samples) and imported
//! results (figures as published) are turned into one view model
//! (`view.rs`), which the tera template `templates/report.md` lays out.
//! What the reports say about how the figures were measured is made
//! sentence by sentence in `protocol.rs`: the published wording for
//! imported results, and for measured ones sentences made from what each
//! file records.

mod imported;
mod measured;
pub mod protocol;
mod render;
mod view;

pub(crate) use imported::published_text;
pub use render::{markdown_filter, render_report};
pub(crate) use view::RunnerPart;
pub use view::{
    CacheMethodView, CacheRow, CpuRow, DiskRow, HttpCacheRowView, HttpCacheView, InternetRow, ProfileView, ReportRuns,
    ReportView, build_view,
};

use runner_bench_format::AnyResult;

use crate::validate::Run;

/// The rows one result adds to the tables, figures formatted as the
/// reports print them; the website shows the same figures.
pub(crate) fn part(run: &Run) -> RunnerPart {
    match &*run.result {
        AnyResult::Measured(m) => measured::part(m),
        AnyResult::Imported(i) => imported::part(i),
    }
}
