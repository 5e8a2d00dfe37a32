//! What `site serve` keeps between builds, so that a rebuild renders only
//! what a change affects. One changed result changes its model entry, its
//! runner's page and plot, and its provider's page, report and plots; the
//! pages that list every result (home, data files) are always made again,
//! the home page from its rows, of which only changed ones are rendered
//! again, and index.json from its objects, of which only changed ones are
//! serialized again. A long table's page of every row, the overview and the
//! coverage page are made again only when their rows changed, and a
//! runner's change flags only when its entries changed. Every other runner
//! and provider part is reused when the key of its inputs (the site-wide
//! inputs and its entries' keys) is the same. The templates are parsed
//! again only when their sources changed.

use super::home::HomeCache;
use super::index_json::IndexCache;
use super::pages::TemplateCache;
use super::parts::Parts;
use crate::model::EntryCache;
use crate::model::changes::ChangeCache;

/// What the last build kept: each cache is its owner's type, and the build
/// (`web::build`) hands each to its owner.
#[derive(Debug, Default)]
pub struct Memo {
    pub(super) entries: EntryCache,
    /// Each runner's change flags (see `changes::compute`).
    pub(super) changes: ChangeCache,
    /// The home page's rows and plots (see `home::home_page`); its long
    /// tables' pages are parts.
    pub(super) home: HomeCache,
    /// index.json's objects (see `index_json::render`).
    pub(super) index: IndexCache,
    /// The parsed templates (see `pages::templates`).
    pub(super) templates: TemplateCache,
    /// The runner, provider and page parts (see `Parts`).
    pub(super) parts: Parts,
}
