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

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::Site;
use super::changes::ChangeCache;
use super::home::HomeCache;
use super::index_json::IndexCache;
use super::model::EntryCache;
use super::pages::TemplateCache;

/// A part of a build as it is kept: its name, the key of its inputs, its files.
pub(super) type Part = (String, u64, Site);

/// The parts of the last build, by name, with the key of their inputs.
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
    parts: HashMap<String, (u64, Site)>,
    /// The parts this build kept so far.
    next: HashMap<String, (u64, Site)>,
}

impl Memo {
    /// The part `name` made from inputs with `key`: the last build's when
    /// its key is the same, else a new one from `make`.
    pub(super) fn part(
        memo: Option<&Memo>,
        name: &str,
        key: u64,
        make: impl FnOnce() -> anyhow::Result<Site>,
    ) -> anyhow::Result<Site> {
        match memo.and_then(|m| m.parts.get(name)) {
            Some((old, site)) if *old == key => Ok(site.clone()),
            _ => make(),
        }
    }

    /// Keeps `part` for the next build; a part reused from the last build
    /// moves over instead of being copied again.
    pub(super) fn keep(&mut self, name: String, key: u64, part: &Site) {
        let kept = match self.parts.remove(&name) {
            Some((old, site)) if old == key => site,
            _ => part.clone(),
        };
        self.next.insert(name, (key, kept));
    }

    /// Ends a build: only the parts it kept stay, so a removed runner's or
    /// provider's part is let go.
    pub(super) fn finish(&mut self) {
        self.parts = std::mem::take(&mut self.next);
    }
}

/// A key for inputs that hash.
pub(super) fn key_of(inputs: impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    inputs.hash(&mut h);
    h.finish()
}
