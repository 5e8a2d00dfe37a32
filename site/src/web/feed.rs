//! `/feed.xml`: an Atom feed of the newest results, one entry per result
//! file, linking to its runner page. The atom_syndication crate writes the
//! XML (escaping, element order, RFC 3339 times).

use atom_syndication::{Entry, Feed, FixedDateTime, Link, Person, Text};

use super::model::{Model, newer_key};

/// Entries in the feed.
const ENTRIES: usize = 50;

/// The feed; `updated` is the newest result's time (stable across builds
/// of the same results, unlike the build time).
pub fn render(model: &Model, base_url: &str) -> String {
    let mut entries: Vec<_> = model.entries.iter().collect();
    entries.sort_by(|a, b| newer_key(b).cmp(&newer_key(a)));
    entries.truncate(ENTRIES);
    let link = |href: String, rel: &str| Link { href, rel: rel.to_string(), ..Link::default() };
    let feed = Feed {
        title: Text::plain("runner-bench: new results"),
        id: format!("{base_url}/"),
        updated: entries.first().map(|e| instant(&e.meta.timestamp)).unwrap_or_default(),
        authors: vec![Person { name: "runner-bench".to_string(), ..Person::default() }],
        links: vec![link(format!("{base_url}/feed.xml"), "self"), link(format!("{base_url}/"), "alternate")],
        entries: entries
            .into_iter()
            .map(|e| {
                let m = &e.meta;
                let kind = if m.imported { "Imported result" } else { "Result" };
                let summary = match e.cpu.as_ref().map(|c| c.median.as_str()) {
                    Some(median) => format!(
                        "{kind} of {} ({}) from {}: CoreMark median {median} iterations/s.",
                        m.runner, m.provider_name, m.date
                    ),
                    None => format!("{kind} of {} ({}) from {}.", m.runner, m.provider_name, m.date),
                };
                Entry {
                    title: Text::plain(format!("{}: {} ({})", m.date, m.runner, m.provider_name)),
                    id: format!("{base_url}{}", m.source_url),
                    links: vec![link(format!("{base_url}{}", m.runner_url), "alternate")],
                    updated: instant(&m.timestamp),
                    summary: Some(Text::plain(summary)),
                    ..Entry::default()
                }
            })
            .collect(),
        ..Feed::default()
    };
    // Into memory, and every value is a plain string: nothing can fail.
    let bytes = feed.write_to(Vec::new()).expect("writing a feed into memory cannot fail");
    String::from_utf8(bytes).expect("the feed's strings are UTF-8")
}

/// A result's time; validated RFC 3339 (the epoch only if it were not).
fn instant(timestamp: &str) -> FixedDateTime {
    FixedDateTime::parse_from_rfc3339(timestamp).unwrap_or_default()
}
