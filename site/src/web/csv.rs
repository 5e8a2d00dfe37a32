//! One CSV file per home-page table, every row of every fingerprint, with
//! the figures as the tables print them (RFC 4180 quoting). The cache stage
//! has a file per method, as it has a table per method.

use super::model::{Group, Meta};

/// `(file name, contents)` of every table.
pub fn tables(groups: &[Group]) -> Vec<(&'static str, String)> {
    let meta_head = ["date", "collector", "imported", "stale", "incomplete", "excluded", "source"];
    let mut cpu = table(
        &["fingerprint", "protocol", "provider", "runner", "binary", "median_it_s", "range", "variation", "samples"],
        &meta_head,
    );
    let mut disk = table(
        &[
            "fingerprint",
            "protocol",
            "provider",
            "runner",
            "seq_read_mib_s",
            "seq_write_mib_s",
            "rand_read_iops",
            "rand_write_iops",
            "samples",
        ],
        &meta_head,
    );
    let cache_head = [
        "fingerprint",
        "protocol",
        "provider",
        "runner",
        "backend",
        "method",
        "verified",
        "save_s",
        "save_mib_s",
        "restore_s",
        "restore_mib_s",
    ];
    let mut cache = table(&cache_head, &meta_head);
    let mut cache_action = table(&cache_head, &meta_head);
    let mut internet = table(
        &[
            "fingerprint",
            "protocol",
            "provider",
            "runner",
            "service",
            "status",
            "download_mbps",
            "upload_mbps",
            "request_ms",
        ],
        &meta_head,
    );
    let mut build = table(
        &[
            "fingerprint",
            "protocol",
            "provider",
            "runner",
            "software",
            "backend",
            "cpu_quota",
            "memory_gb",
            "value_bytes",
            "connections",
            "put_per_s",
            "get_per_s",
        ],
        &meta_head,
    );
    for g in groups {
        let lead = |m: &Meta| {
            vec![
                g.fingerprint.clone(),
                g.protocol.map(|p| p.to_string()).unwrap_or_default(),
                m.provider_id.clone(),
                m.runner.clone(),
            ]
        };
        for r in &g.cpu {
            let f = &r.fig;
            row(&mut cpu, lead(&r.meta), &[&f.binary, &f.median, &f.range, &f.variation, &f.samples], &r.meta);
        }
        for r in &g.disk {
            let f = &r.fig;
            let counts = f.counts.clone().unwrap_or_default();
            row(&mut disk, lead(&r.meta), &[&f.read, &f.write, &f.rand_read, &f.rand_write, &counts], &r.meta);
        }
        for (out, rows) in [(&mut cache, &g.cache), (&mut cache_action, &g.cache_action)] {
            for r in rows {
                let f = &r.fig;
                row(
                    out,
                    lead(&r.meta),
                    &[
                        &f.backend,
                        &f.method_label,
                        &f.verified,
                        &f.save,
                        &f.save_mib_per_s,
                        &f.restore,
                        &f.restore_mib_per_s,
                    ],
                    &r.meta,
                );
            }
        }
        for r in &g.internet {
            let f = &r.fig;
            row(&mut internet, lead(&r.meta), &[&f.service, &f.status, &f.download, &f.upload, &f.request_ms], &r.meta);
        }
        for r in &g.http_cache {
            let f = &r.fig;
            let h = &f.row;
            row(
                &mut build,
                lead(&r.meta),
                &[
                    &f.software,
                    &h.backend,
                    &h.cpu_quota,
                    &h.memory_quota_gb,
                    &h.value_bytes,
                    &h.connections,
                    &h.put_per_s,
                    &h.get_per_s,
                ],
                &r.meta,
            );
        }
    }
    vec![
        ("coremark.csv", cpu),
        ("disk.csv", disk),
        ("cache.csv", cache),
        ("cache-action.csv", cache_action),
        ("internet.csv", internet),
        ("build-cache.csv", build),
    ]
}

fn table(head: &[&str], meta_head: &[&str]) -> String {
    let mut out = head.iter().chain(meta_head).copied().collect::<Vec<_>>().join(",");
    out.push_str("\r\n");
    out
}

fn row(out: &mut String, lead: Vec<String>, figures: &[&String], m: &Meta) {
    let flag = |b: bool| if b { "yes" } else { "no" }.to_string();
    let cells: Vec<String> = lead
        .into_iter()
        .chain(figures.iter().map(|s| s.to_string()))
        .chain([
            m.date.clone(),
            m.collector.clone(),
            flag(m.imported),
            flag(m.stale),
            flag(m.incomplete),
            m.excluded.clone().unwrap_or_default(),
            m.source_url.clone(),
        ])
        .collect();
    out.push_str(&cells.iter().map(|c| quote(c)).collect::<Vec<_>>().join(","));
    out.push_str("\r\n");
}

/// A CSV field, quoted where it must be. A leading `=`, `+`, `-` or `@`
/// is prefixed with `'` so that a spreadsheet never runs text from a
/// result as a formula (negative numbers never occur in the figures).
pub fn quote(field: &str) -> String {
    let field = if field.starts_with(['=', '+', '-', '@']) { format!("'{field}") } else { field.to_string() };
    if field.contains([',', '"', '\r', '\n']) { format!("\"{}\"", field.replace('"', "\"\"")) } else { field }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn fields_are_quoted_and_formulas_defused() {
        assert_eq!(quote("33392.77"), "33392.77");
        assert_eq!(quote("a, b"), "\"a, b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("=HYPERLINK(1)"), "'=HYPERLINK(1)");
    }
}
