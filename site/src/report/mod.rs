//! Per-provider markdown reports in the published format of the seed
//! reports. Measured results (figures computed from samples) and imported
//! results (figures as published) are turned into one view model
//! (`view.rs`), which the tera template `templates/report.md` lays out.
//! `assemble.rs` builds a provider's view from its runs, with the rows each
//! result adds (`measured.rs`, `imported.rs`). What the reports say about
//! how the figures were measured is made sentence by sentence in
//! `protocol.rs` (the cache stage's in `cache_protocol.rs`, the pieces both
//! share in `sentence.rs`): the published wording for imported results, and
//! for measured ones sentences made from what each file records, as
//! `facts.rs` keeps it.

mod assemble;
mod cache_protocol;
mod facts;
mod imported;
mod measured;
pub mod protocol;
mod render;
mod sentence;
mod view;

pub(crate) use assemble::part;
pub use assemble::{ReportRun, ReportRuns, build_view, build_view_of};
pub(crate) use imported::published_text;
pub use render::{markdown_filter, render_report};
pub(crate) use view::RunnerPart;
pub use view::{
    CacheMethodView, CacheRow, CpuRow, DiskRow, HttpCacheRowView, HttpCacheView, InternetRow, ProfileView, ReportView,
};
