//! Per-provider markdown reports in the published format of the seed
//! reports. Measured results (figures computed from samples) and imported
//! results (figures as published) are turned into one view model
//! (`view.rs`), which the tera template `templates/report.md` lays out, so
//! that wording changes need no code.

mod imported;
mod measured;
mod render;
mod view;

pub use render::{markdown_filter, render_report};
pub use view::{ReportView, build_view};
