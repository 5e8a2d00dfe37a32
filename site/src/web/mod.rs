//! The website: from accepted results to every published file.
//!
//! `build` makes every file after the check, as a list of steps
//! (`build`: the model, the provider pages, the runner pages, the home
//! page and the data files, the overview and coverage pages, the
//! build-cache section, the other pages, the sitemap and the static files),
//! in one of two modes (`StepMode`): `site build` streams, `site serve`
//! keeps a memo. It hands the files as bytes to a `FileSink`; `output` is
//! the only module that writes them to disk.
//!
//! The modules form layers, each importing only from those below it:
//!
//! 1. `build`, the steps in order, and `memo`, what `site serve` keeps
//!    between builds: each cache is the type of the module it caches, and
//!    only `build` hands them out;
//! 2. `intake`, what a build makes of each result as the check accepts it
//!    (`site build` makes each runner's page there as the check finishes
//!    the runner, and writes it when the check finishes the provider),
//!    with the runners' pages (`runner_pages`), what every page is made
//!    with (`inputs`) and the build's options (`options`);
//! 3. one module per page kind: `home` (the comparison tables),
//!    `provider`, `history` (a runner's page, its tables in
//!    `runner_tables`), `overview` (its speed-against-price charts in
//!    `price_chart`), `coverage`, `build_cache_pages` (the
//!    build-cache section: servers are not runners; its tables in
//!    `build_cache_tables`), `estimate` (a job's time and cost on every
//!    runner), with the comparison plots in `plots`, and the
//!    data files (`csv`, `index_json`, `feed`, `sitemap`);
//! 4. what pages share: templates and their contexts' common parts
//!    (`pages`), HTML cells (`html`), plots (`plot`), the parts a rebuild
//!    reuses (`parts`) and the files a build makes (`site`).
//!
//! Below the website is what it shows, `crate::model`.
//!
//! `memory` hands freed memory back between steps, and `error_page` is
//! what `site serve` shows while a build fails.

mod build;
mod build_cache_pages;
mod build_cache_tables;
pub mod content;
mod coverage;
pub mod csv;
pub mod error;
mod error_page;
pub mod estimate;
pub mod feed;
mod group_name;
mod history;
mod home;
pub(crate) mod html;
pub mod index_json;
mod inputs;
mod intake;
mod leaders;
pub mod memo;
pub(crate) mod memory;
mod options;
pub mod overview;
pub mod pages;
mod parts;
pub mod plot;
mod plots;
pub mod price_chart;
mod provider;
mod runner_pages;
mod runner_tables;
mod runs;
mod site;
pub mod sitemap;

pub use self::build::{STATIC, StepMode, build};
pub use self::error_page::error_page;
pub use self::inputs::PageInputs;
pub use self::intake::{Accepted, AcceptedResult, Intake};
pub use self::memo::Memo;
pub use self::options::{DEFAULT_BASE_URL, DEFAULT_HOME_ROWS, Options};
pub use self::plots::PlotCache;
pub use self::site::{Body, Emit, FileSink, Site};
