//! `/feed.xml`: an Atom feed of the newest results, one entry per result
//! file, linking to its runner page; an entry whose headline figures moved
//! beyond their intervals since the runner's previous result says so
//! (`changes`).

use super::changes::Changes;
use super::model::{Model, newer_key};
use super::plot::xml_escape;

/// Entries in the feed.
const ENTRIES: usize = 50;

/// The feed; `updated` is the newest result's time (stable across builds
/// of the same results, unlike the build time).
pub fn render(model: &Model, changes: &Changes, base_url: &str) -> String {
    let mut entries: Vec<_> = model.entries.iter().enumerate().collect();
    entries.sort_by(|(_, a), (_, b)| newer_key(b).cmp(&newer_key(a)));
    entries.truncate(ENTRIES);
    let updated = entries.first().map_or("1970-01-01T00:00:00Z", |(_, e)| e.meta.timestamp.as_str());
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>runner-bench: new results</title>\n\
         <id>{base}/</id>\n<link rel=\"self\" href=\"{base}/feed.xml\"/>\n<link href=\"{base}/\"/>\n<updated>{updated}</updated>\n\
         <author><name>runner-bench</name></author>\n",
        base = xml_escape(base_url)
    );
    for (i, e) in entries {
        let m = &e.meta;
        let kind = if m.imported { "Imported result" } else { "Result" };
        let when = if m.date_measured {
            format!("from {}", m.date)
        } else {
            format!("imported {}, measurement date not published", m.date)
        };
        let mut summary = match e.cpu.as_ref().map(|c| c.median.as_str()) {
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
            summary.push_str(&format!(" Changed beyond the 95 % intervals: {}.", lines.join("; ")));
        }
        out.push_str(&format!(
            "<entry>\n<title>{title}</title>\n<id>{base}{source}</id>\n<link href=\"{base}{runner}\"/>\n<updated>{ts}</updated>\n<summary>{summary}</summary>\n</entry>\n",
            title = xml_escape(&title),
            base = xml_escape(base_url),
            source = xml_escape(&m.source_url),
            runner = xml_escape(&m.runner_url),
            ts = xml_escape(&m.timestamp),
            summary = xml_escape(&summary),
        ));
    }
    out.push_str("</feed>\n");
    out
}
