//! `/feed.xml`: an Atom feed of the newest results, one entry per result
//! file, linking to its runner page; an entry whose headline figures moved
//! beyond their intervals since the runner's previous result says so
//! (`changes`).

use anyhow::Context;
use atom_syndication::{Entry, Feed, FixedDateTime, Link, Person, Text, WriteConfig};

use crate::model::changes::Changes;
use crate::model::{Model, newer_key};

/// Entries in the feed.
const ENTRIES: usize = 50;

/// The feed; `updated` is the newest result's time (stable across builds
/// of the same results, unlike the build time). The XML is written by the
/// atom_syndication crate, which escapes every text and attribute.
pub fn render(model: &Model, changes: &Changes, base_url: &str) -> anyhow::Result<Vec<u8>> {
    let mut entries: Vec<_> = model.entries.iter().enumerate().collect();
    entries.sort_by(|(_, a), (_, b)| newer_key(b).cmp(&newer_key(a)));
    entries.truncate(ENTRIES);
    let mut feed = Feed {
        title: Text::plain("runner-bench: new results"),
        id: format!("{base_url}/"),
        links: vec![
            Link { href: format!("{base_url}/feed.xml"), rel: "self".into(), ..Link::default() },
            Link { href: format!("{base_url}/"), ..Link::default() },
        ],
        authors: vec![Person { name: "runner-bench".into(), ..Person::default() }],
        ..Feed::default()
    };
    for (i, e) in entries {
        let m = &e.meta;
        let kind = if m.imported { "Imported result" } else { "Result" };
        let when = if m.date_measured {
            format!("from {}", m.date)
        } else {
            format!("imported {}, measurement date not published", m.date)
        };
        // A CoreMark median only where there is one (a stage with no
        // completed sample shows a dash).
        let median = e.cpu.as_ref().map(|c| c.median.as_str()).filter(|m| crate::model::leading(m).is_some());
        let mut summary = match median {
            Some(median) => {
                format!("{kind} of {} ({}) {when}: CoreMark median {median} iterations/s.", m.runner, m.provider_name)
            }
            None => format!("{kind} of {} ({}) {when}.", m.runner, m.provider_name),
        };
        let moved = changes.of(i);
        let mut title = format!("{}: {} ({})", m.date, m.runner, m.provider_name);
        if !moved.is_empty() {
            let mut stages: Vec<&str> = moved.iter().map(|c| c.stage).collect();
            stages.dedup();
            title.push_str(&format!(", changed: {}", stages.join(", ")));
            let lines: Vec<String> = moved.iter().map(|c| c.sentence()).collect();
            summary.push_str(&format!(
                " Changed beyond the intervals of the medians (the ranges of the samples where there are 3 to 5): {}.",
                lines.join("; ")
            ));
        }
        feed.entries.push(Entry {
            title: Text::plain(title),
            id: format!("{base_url}{}", m.source_url),
            links: vec![Link { href: format!("{base_url}{}", m.runner_url), ..Link::default() }],
            // (chrono's error, without its std feature, is no std Error.)
            updated: FixedDateTime::parse_from_rfc3339(&m.timestamp).map_err(|e| {
                anyhow::anyhow!("{}: the date {:?} is not an RFC 3339 time: {e}", m.rel_path, m.timestamp)
            })?,
            summary: Some(Text::plain(summary)),
            ..Entry::default()
        });
    }
    // The newest entry's time; the feed of no results is dated 1970.
    if let Some(newest) = feed.entries.first() {
        feed.updated = newest.updated;
    }
    let config = WriteConfig { write_document_declaration: true, indent_size: Some(1) };
    let mut xml = feed.write_with_config(Vec::new(), config).context("cannot write the Atom feed")?;
    xml.push(b'\n');
    Ok(xml)
}
