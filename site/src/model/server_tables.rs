//! The tables of the server documents that `server_docs` gives a page,
//! kept as each accepted result's entry is made.
//!
//! Of a runner's results with a build-cache stage only the newest per
//! server has a document page, and the others' tables are a few KiB a
//! result: 240 MB of a 100,000-result build's peak when every entry kept
//! them until the end (docs/benchmarks.md, "Site build at scale"). Each new
//! entry's tables are taken out of it at once and kept only while it is the
//! newest of its runner and server, so that a build never holds more than
//! one set per runner and server. What the others still show (their runner
//! page's software, server and link) stays in their entries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::build_cache::{NamedValue, ServerTable};
use super::entry::Entry;

/// Per runner and server (provider id, runner label, server), the newest
/// tables taken so far.
#[derive(Debug, Default)]
pub struct ServerTables {
    newest: Mutex<HashMap<(String, String, String), NewestTables>>,
}

#[derive(Debug)]
struct NewestTables {
    /// `newer_key` of the entry they were taken from: its date, then path.
    timestamp: String,
    rel_path: String,
    conditions: Vec<NamedValue>,
    tables: Vec<ServerTable>,
}

impl ServerTables {
    /// Takes the server tables out of `entry`, which no one else holds yet
    /// (an entry shared with `site serve`'s cache is left whole), keeping
    /// them while they are the newest of their runner and server.
    pub fn take_from(&self, entry: &mut Arc<Entry>) {
        if !entry.stages.runner() {
            return;
        }
        let Some(e) = Arc::get_mut(entry) else { return };
        let Some(doc) = &mut e.server else { return };
        let key = (e.meta.provider_id.clone(), e.meta.runner.clone(), doc.target.clone());
        let taken = NewestTables {
            timestamp: e.meta.timestamp.clone(),
            rel_path: e.meta.rel_path.clone(),
            conditions: std::mem::take(&mut doc.conditions),
            tables: std::mem::take(&mut doc.tables),
        };
        // (A poisoned lock means a thread panicked while holding it, and the
        // build has failed already.)
        let mut newest = self.newest.lock().unwrap_or_else(PoisonError::into_inner);
        match newest.get(&key) {
            Some(kept) if (&kept.timestamp, &kept.rel_path) > (&taken.timestamp, &taken.rel_path) => {}
            _ => {
                newest.insert(key, taken);
            }
        }
    }

    /// Gives the kept tables back to the entries they were taken from.
    pub fn give_back(self, entries: &mut [Arc<Entry>]) {
        let mut newest = self.newest.into_inner().unwrap_or_else(PoisonError::into_inner);
        for entry in entries {
            let Some(doc) = &entry.server else { continue };
            let key = (entry.meta.provider_id.clone(), entry.meta.runner.clone(), doc.target.clone());
            if newest.get(&key).is_none_or(|kept| kept.rel_path != entry.meta.rel_path) {
                continue;
            }
            let (Some(kept), Some(e)) = (newest.remove(&key), Arc::get_mut(entry)) else { continue };
            if let Some(doc) = &mut e.server {
                doc.conditions = kept.conditions;
                doc.tables = kept.tables;
            }
        }
    }
}
