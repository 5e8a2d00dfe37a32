//! What every page of a build is made with, read before any page is made:
//! the hand-written pages, the provider files, the templates, and what
//! every page shows (`Common`: the navigation, the build time).

use std::sync::Arc;

use tera::Tera;

use super::content;
use super::options::Options;
use super::pages::{self, Common, NavLink, TemplateCache};
use crate::memo_key::key_of;
use crate::model::build_cache;
use crate::providers::{self, Providers};

/// The inputs of every page.
pub struct PageInputs {
    /// The hand-written pages.
    pub(super) content: Vec<content::Page>,
    /// What the provider files state of runners: sizes, prices, sites.
    pub(super) providers: Providers,
    pub(super) tera: Arc<Tera>,
    /// Identifies the templates' sources.
    pub(super) templates_key: u64,
    pub(super) common: Common,
    /// Identifies `common` and the templates: a part made with the same key
    /// and the same inputs of its own is the same (`Parts`).
    pub(super) common_key: u64,
}

impl PageInputs {
    /// Reads the inputs of `opts`, parsing the templates again only where
    /// `templates` (`site serve`'s) holds other sources. A problem fails
    /// the build: the hand-written pages' first, then the provider files',
    /// then the templates'.
    pub fn load(opts: &Options, templates: Option<&mut TemplateCache>) -> anyhow::Result<PageInputs> {
        let content = content::load(&opts.content, &opts.docs);
        let providers = providers::load(&opts.content.join(providers::PROVIDERS_DIR));
        let templates = pages::templates(&opts.templates, templates);
        let content = content?;
        // What runners are and cost; a file with a problem fails the build,
        // as `site check` reports it.
        if !providers.errors.is_empty() {
            // Each error on one line: the text of a submitted file (a key, a
            // value) may hold line breaks, which the top-level error keeps.
            let lines: Vec<String> =
                providers.errors.iter().map(|e| crate::escape::text(&e.to_string()).into_owned()).collect();
            anyhow::bail!("the provider files have problems:\n{}", lines.join("\n"));
        }
        let (tera, templates_key) = templates?;
        let mut nav: Vec<(u32, NavLink)> = vec![
            (15, NavLink { url: build_cache::SECTION_URL.into(), title: "Build-cache servers".into() }),
            (10, NavLink { url: "/overview/".into(), title: "Overview".into() }),
            (20, NavLink { url: "/coverage/".into(), title: "Coverage".into() }),
            (25, NavLink { url: "/estimate/".into(), title: "Estimate".into() }),
            (30, NavLink { url: "/methodology/".into(), title: "Methodology".into() }),
        ];
        nav.extend(
            content
                .iter()
                .filter_map(|p| Some((p.nav?, NavLink { url: format!("/{}/", p.slug), title: p.title.clone() }))),
        );
        nav.sort_by_key(|n| n.0);
        let common = Common {
            nav: nav.into_iter().map(|n| n.1).collect(),
            built: opts.now.strftime("%Y-%m-%d %H:%M UTC").to_string(),
            stale_days: opts.stale_days,
            base_url: opts.base_url.trim_end_matches('/').to_string(),
        };
        let common_key = key_of((&common, templates_key));
        Ok(PageInputs { content, providers, tera, templates_key, common, common_key })
    }
}
