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

/// A CSV field, quoted where it must be, and defused where a spreadsheet
/// could run it as a formula (`formula_like`): prefixed with `'`, which
/// makes the cell text.
pub fn quote(field: &str) -> String {
    let field = if formula_like(field) { format!("'{field}") } else { field.to_string() };
    if field.contains([',', '"', '\r', '\n']) { format!("\"{}\"", field.replace('"', "\"\"")) } else { field }
}

/// Whether a spreadsheet could take `field` as a formula (OWASP, "CSV
/// Injection"): it starts with a tab or a carriage return, or its first
/// character after any whitespace (spaces, tabs, CR, LF and the other
/// Unicode spaces, which spreadsheets skip) is `=`, `+`, `-` or `@`. A
/// plain decimal number (`-12.5`, `-3e-4`) is data a spreadsheet reads as
/// a number, never as a formula, so it stays a number: only text is
/// defused.
fn formula_like(field: &str) -> bool {
    if field.starts_with(['\t', '\r']) {
        return true;
    }
    field.trim_start_matches(char::is_whitespace).starts_with(['=', '+', '-', '@']) && !is_number(field)
}

/// `-?digits[.digits][e[+-]digits]`, as the site writes numbers.
fn is_number(field: &str) -> bool {
    fn digits(s: &str) -> (&str, bool) {
        let rest = s.trim_start_matches(|c: char| c.is_ascii_digit());
        (rest, rest.len() < s.len())
    }
    let s = field.strip_prefix('-').unwrap_or(field);
    let (s, whole) = digits(s);
    let (s, fraction) = match s.strip_prefix('.') {
        Some(after) => digits(after),
        None => (s, false),
    };
    if !(whole || fraction) {
        return false;
    }
    let s = match s.strip_prefix(['e', 'E']) {
        Some(after) => match digits(after.strip_prefix(['+', '-']).unwrap_or(after)) {
            (rest, true) => rest,
            (_, false) => return false,
        },
        None => s,
    };
    s.is_empty()
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

    #[test]
    fn formulas_after_leading_whitespace_are_defused() {
        assert_eq!(quote("+1+cmd|' /C calc'!A0"), "'+1+cmd|' /C calc'!A0");
        assert_eq!(quote("-2+3"), "'-2+3");
        assert_eq!(quote("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(quote("  =1+1"), "'  =1+1");
        assert_eq!(quote("\t=1+1"), "'\t=1+1");
        assert_eq!(quote("\u{a0}\u{3000}@x"), "'\u{a0}\u{3000}@x");
        // Quoted as well, for the line break.
        assert_eq!(quote("\r\n=1+1"), "\"'\r\n=1+1\"");
        assert_eq!(quote("\n -1"), "\"'\n -1\"");
        // A leading tab or carriage return is defused whatever follows.
        assert_eq!(quote("\tplain"), "'\tplain");
        assert_eq!(quote("\rplain"), "\"'\rplain\"");
        // Text that only contains the characters later is left alone.
        assert_eq!(quote("a=b"), "a=b");
        assert_eq!(quote(" x-1"), " x-1");
    }

    #[test]
    fn numbers_the_site_writes_stay_numbers() {
        for n in ["-12.5", "-3", "-.5", "-0.25e-4", "-1E+3", "0", "12.", "1e9"] {
            assert_eq!(quote(n), n);
        }
        // Not numbers: defused.
        for text in ["-", "-.", "-e5", "-1e", "-1.2.3", "- 1", "-1 ", "-0x10", "-inf", "-NaN", "+1"] {
            assert_eq!(quote(text), format!("'{text}"));
        }
    }
}
