//! The parts of a build that `site serve` reuses when the key of their
//! inputs is the same: each runner's and provider's pages, a long table's
//! page, the overview and the coverage page (see `memo` for what else a
//! rebuild reuses).

use std::collections::HashMap;

use super::site::Site;

/// A part of a build as it is kept: its name, the key of its inputs, its files.
pub(super) type Part = (String, u64, Site);

/// The parts of the last build, by name, with the key of their inputs.
#[derive(Debug, Default)]
pub(super) struct Parts {
    parts: HashMap<String, (u64, Site)>,
    /// The parts this build kept so far.
    next: HashMap<String, (u64, Site)>,
}

impl Parts {
    /// The part `name` made from inputs with `key`: the last build's when
    /// its key is the same, else a new one from `make`.
    pub(super) fn part(
        old: Option<&Parts>,
        name: &str,
        key: u64,
        make: impl FnOnce() -> anyhow::Result<Site>,
    ) -> anyhow::Result<Site> {
        match old.and_then(|m| m.parts.get(name)) {
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
