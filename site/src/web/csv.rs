//! One CSV file per home-page table, every row of every key: a
//! number column holds a number or nothing (no "—", no unit sign, a range
//! in a min and a max column), and each row says whether it is complete and its place in its group's table. The csv crate writes the RFC 4180
//! quoting (a field with a comma, a quote, CR or LF is quoted, quotes
//! doubled, CRLF line ends); the formula defusing (`defuse`) is the site's.
//! The cache stage has a file per method, as it has a table per method.
//! `overview.csv` has the overview's rows (`overview_table`): a runner per
//! CoreMark table, with the costs that need its provider file's price.
//! Build-cache servers are not runners: their file has a row per server
//! document row (`build_cache`), led by the server, not a fingerprint.

use std::borrow::Cow;

use super::overview::Section;
use crate::figures::two;
use crate::model::{Group, Meta, Model, Row};
use crate::report::{CacheRow, CpuRow};
use crate::stats::Rank;

/// One table being written.
type Table = csv::Writer<Vec<u8>>;

/// `(file name, contents)` of every table; the overview's from `sections`.
pub fn tables(model: &Model, sections: &[Section]) -> Vec<(&'static str, Vec<u8>)> {
    let groups = &model.groups;
    [
        ("coremark.csv", coremark(groups, |g| &g.cpu)),
        ("coremark-eembc.csv", coremark(groups, |g| &g.cpu_eembc)),
        ("disk.csv", disk(groups)),
        ("cache.csv", cache(groups, |g| &g.cache)),
        ("cache-action.csv", cache(groups, |g| &g.cache_action)),
        ("internet.csv", internet(groups)),
        ("build-cache.csv", build_cache(model)),
        ("overview.csv", overview_table(sections)),
    ]
    .into_iter()
    .map(|(name, table)| (name, table.into_inner().expect("flushing into memory cannot fail")))
    .collect()
}

/// The columns after the figures of every runner table.
const META_HEAD: [&str; 8] =
    ["date", "imported_on", "collector", "imported", "stale", "incomplete", "excluded", "source"];

/// The columns before the figures of every runner table. `place` and
/// `tied` are the row's in its table, within its group (`stage_key`) only:
/// a place never compares rows of two groups.
const LEAD_HEAD: [&str; 7] = ["fingerprint", "protocol", "stage_key", "place", "tied", "provider", "runner"];

/// A runner table with its head row: the lead, `figures`, the meta.
fn runner_table(figures: &[&str]) -> Table {
    let head: Vec<&str> = LEAD_HEAD.iter().chain(figures).copied().collect();
    table(&head, &META_HEAD)
}

/// A row's lead cells: its own profile (a stage's table joins the profiles
/// whose key for the stage is the same, `g.key`), its place, its runner.
fn lead(g: &Group, m: &Meta, place: Option<Rank>) -> Vec<String> {
    vec![
        m.fingerprint.to_string(),
        m.protocol.map(|p| p.to_string()).unwrap_or_default(),
        g.key.clone(),
        place.map(|p| p.place.to_string()).unwrap_or_default(),
        place.map(|p| if p.tied { "yes" } else { "no" }.to_string()).unwrap_or_default(),
        m.provider_id.clone(),
        m.runner.clone(),
    ]
}

/// A CoreMark table: the project's implementation's rows or EEMBC's.
fn coremark(groups: &[Group], rows: fn(&Group) -> &Vec<Row<CpuRow>>) -> Table {
    let mut out = runner_table(&[
        "binary",
        "median_it_s",
        "min_it_s",
        "max_it_s",
        "variation_pct",
        "samples",
        "all_core_median_it_s",
        "all_core_min_it_s",
        "all_core_max_it_s",
        "all_core_missing",
        "vcpu_worth",
    ]);
    for g in groups {
        for r in rows(g) {
            let f = &r.fig;
            let [min, max] = min_max(&f.range);
            let [all_median, all_min, all_max] = f.all_core.map_or_else(Default::default, |a| a.map(two));
            let figures = [
                f.binary.clone(),
                number(&f.median),
                min,
                max,
                number(&f.variation),
                number(&f.samples),
                all_median,
                all_min,
                all_max,
                f.all_core_why.unwrap_or_default().to_string(),
                f.vcpu_worth.map(two).unwrap_or_default(),
            ];
            row(&mut out, lead(g, &r.meta, r.place), &figures, &r.meta, r.incomplete);
        }
    }
    out
}

fn disk(groups: &[Group]) -> Table {
    let mut out = runner_table(&[
        "seq_read_mib_s",
        "seq_write_mib_s",
        "rand_read_iops",
        "rand_write_iops",
        "samples",
        "seq_read_p50_us",
        "seq_read_p99_us",
        "seq_write_p50_us",
        "seq_write_p99_us",
        "rand_read_p50_us",
        "rand_read_p99_us",
        "rand_write_p50_us",
        "rand_write_p99_us",
    ]);
    for g in groups {
        for r in &g.disk {
            let f = &r.fig;
            let counts = f.counts.clone().unwrap_or_default();
            let mut figures =
                vec![number(&f.read), number(&f.write), number(&f.rand_read), number(&f.rand_write), counts];
            match &f.latency {
                Some(ops) => figures.extend(ops.iter().flat_map(|l| [number(&l.p50_us), number(&l.p99_us)])),
                None => figures.extend(std::iter::repeat_n(String::new(), 8)),
            }
            row(&mut out, lead(g, &r.meta, r.place), &figures, &r.meta, r.incomplete);
        }
    }
    out
}

/// A cache table: the client method's rows or the action method's.
fn cache(groups: &[Group], rows: fn(&Group) -> &Vec<Row<CacheRow>>) -> Table {
    let mut out = runner_table(&[
        "backend",
        "method",
        "verified_trials",
        "trials",
        "save_median_s",
        "save_min_s",
        "save_max_s",
        "save_mib_s",
        "restore_median_s",
        "restore_min_s",
        "restore_max_s",
        "restore_mib_s",
    ]);
    for g in groups {
        for r in rows(g) {
            let f = &r.fig;
            let (verified, trials) = f.verified.split_once('/').unwrap_or((&f.verified, ""));
            let [save_median, save_min, save_max] = median_min_max(&f.save);
            let [restore_median, restore_min, restore_max] = median_min_max(&f.restore);
            let figures = [
                f.backend.clone(),
                f.method_label.clone(),
                number(verified),
                number(trials),
                save_median,
                save_min,
                save_max,
                number(&f.save_mib_per_s),
                restore_median,
                restore_min,
                restore_max,
                number(&f.restore_mib_per_s),
            ];
            row(&mut out, lead(g, &r.meta, r.place), &figures, &r.meta, r.incomplete);
        }
    }
    out
}

fn internet(groups: &[Group]) -> Table {
    let mut out = runner_table(&["service", "status", "download_mbps", "upload_mbps", "request_ms"]);
    for g in groups {
        for r in &g.internet {
            let f = &r.fig;
            let figures =
                [f.service.clone(), f.status.clone(), number(&f.download), number(&f.upload), number(&f.request_ms)];
            row(&mut out, lead(g, &r.meta, r.place), &figures, &r.meta, r.incomplete);
        }
    }
    out
}

/// The build-cache servers' table: a row per server document row, led by
/// the server, not a fingerprint.
fn build_cache(model: &Model) -> Table {
    let mut out = table(
        &[
            "provider",
            "server",
            "software",
            "table",
            "backend",
            "cpu",
            "cpu_quota",
            "memory_gb",
            "value_bytes",
            "connections",
            "put_per_s",
            "get_per_s",
        ],
        &META_HEAD,
    );
    for e in model.servers.iter().map(|&i| &model.entries[i]) {
        let Some(doc) = &e.server else { continue };
        let m = &e.meta;
        for t in &doc.tables {
            for r in &t.rows {
                let h = &r.fig;
                let lead = vec![m.provider_id.clone(), m.runner.clone()];
                let figures = [
                    doc.software.clone(),
                    t.title.clone(),
                    h.backend.clone(),
                    h.cpu.clone(),
                    number(&h.cpu_quota),
                    number(&h.memory_quota_gb),
                    number(&h.value_bytes),
                    number(&h.connections),
                    number(&h.put_per_s),
                    number(&h.get_per_s),
                ];
                row(&mut out, lead, &figures, m, r.incomplete);
            }
        }
    }
    out
}

/// The overview's rows, each section's in its CoreMark order: its table's
/// key and name, the runner, both CoreMark figures with their places and
/// ties within the table, what a vCPU is worth, the price and both costs
/// (US dollars; `yes` in a cost's `tied` where it is made from a tied
/// place's figure, as the page's "≈"). Figures at two decimals as the page
/// prints them, costs unrounded.
fn overview_table(sections: &[Section]) -> Table {
    let mut out = writer();
    let head = [
        "stage_key",
        "group",
        "provider",
        "runner",
        "coremark_it_s",
        "coremark_place",
        "coremark_tied",
        "all_core_it_s",
        "all_core_place",
        "all_core_tied",
        "all_core_missing",
        "vcpu_worth",
        "usd_per_minute",
        "cost_one_thread_usd",
        "cost_one_thread_tied",
        "cost_all_core_usd_per_1e9_it",
        "cost_all_core_tied",
    ];
    write(&mut out, head.map(Cow::Borrowed));
    let flag = |b: bool| if b { "yes" } else { "no" }.to_string();
    let place = |p: Option<Rank>| {
        [p.map(|p| p.place.to_string()).unwrap_or_default(), p.map_or_else(String::new, |p| flag(p.tied))]
    };
    let usd = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for s in sections {
        for r in &s.rows {
            let a = &r.all_core;
            let [coremark_place, coremark_tied] = place(r.place);
            let [all_core_place, all_core_tied] = place(a.place);
            let cells = [
                s.key.clone(),
                s.name.clone(),
                r.provider_id.clone(),
                r.label.clone(),
                r.cpu.as_ref().map(|h| number(&h.value)).unwrap_or_default(),
                coremark_place,
                coremark_tied,
                a.value.clone().unwrap_or_default(),
                all_core_place,
                all_core_tied,
                a.why.unwrap_or_default().to_string(),
                a.worth.clone().unwrap_or_default(),
                usd(r.machine.usd_per_minute),
                usd(r.cost_usd),
                if r.cost_usd.is_some() { flag(r.cost_tied) } else { String::new() },
                usd(a.cost_usd),
                if a.cost_usd.is_some() { flag(a.place.is_some_and(|p| p.tied)) } else { String::new() },
            ];
            write(&mut out, cells.iter().map(|c| defuse(c)));
        }
    }
    out
}

/// A figure as the tables print it (`33392.77`, `9.29%`, `—`) as a number
/// column holds it: the number without its unit sign (the column's name
/// carries the unit), or empty where there is no figure.
fn number(figure: &str) -> String {
    let n = figure.trim().trim_end_matches('%');
    if is_number(n) { n.to_string() } else { String::new() }
}

/// `min–max` as two numbers, empty where missing.
fn min_max(figure: &str) -> [String; 2] {
    match figure.split_once('–') {
        Some((min, max)) => [number(min), number(max)],
        None => [String::new(), String::new()],
    }
}

/// `median; min–max` (the cache tables' seconds) as three numbers, empty
/// where missing.
fn median_min_max(figure: &str) -> [String; 3] {
    let (median, range) = figure.split_once("; ").unwrap_or((figure, ""));
    let [min, max] = min_max(range);
    [number(median), min, max]
}

/// A table with its head row (plain names, never quoted or defused).
fn table(head: &[&str], meta_head: &[&str]) -> Table {
    let mut out = writer();
    write(&mut out, head.iter().chain(meta_head).map(|&name| Cow::Borrowed(name)));
    out
}

/// The CSV dialect of every table: commas, quotes only where a field needs
/// them, CRLF line ends, and every row as wide as the head.
fn writer() -> Table {
    csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new())
}

/// One row. Written into memory, so the only error left is a row of
/// another width than the head, which each table's head list rules out.
fn write<'a>(out: &mut Table, cells: impl IntoIterator<Item = Cow<'a, str>>) {
    for cell in cells {
        // The whole field at once, so the writer sees whether it needs quotes.
        out.write_field(cell.as_bytes()).expect("writing into memory cannot fail");
    }
    out.write_record(None::<&[u8]>).expect("a row as wide as its head");
}

/// One row: the lead, the figures, then the meta columns, whose
/// `incomplete` is this row's (a result can lack a sample in one stage and
/// be complete in another).
fn row(out: &mut Table, lead: Vec<String>, figures: &[String], m: &Meta, incomplete: bool) {
    let flag = |b: bool| if b { "yes" } else { "no" };
    // `date` is the measurement day only: empty where a report does not
    // publish it; `imported_on` is the import's day for imported rows.
    let meta = [
        if m.date_measured { m.date.as_str() } else { "" },
        m.imported_on.as_deref().unwrap_or_default(),
        &m.collector,
        flag(m.imported),
        flag(m.stale),
        flag(incomplete),
        m.excluded.as_deref().unwrap_or_default(),
        m.source_url.as_str(),
    ];
    let cells = lead.iter().map(String::as_str).chain(figures.iter().map(|s| s.as_str())).chain(meta);
    write(out, cells.map(defuse));
}

/// A field defused where a spreadsheet could run it as a formula
/// (`formula_like`): prefixed with `'`, which makes the cell text.
fn defuse(field: &str) -> Cow<'_, str> {
    if formula_like(field) { Cow::Owned(format!("'{field}")) } else { Cow::Borrowed(field) }
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
    use super::{defuse, median_min_max, min_max, number, write, writer};

    #[test]
    fn number_columns_hold_numbers_or_nothing() {
        assert_eq!(number("33392.77"), "33392.77");
        assert_eq!(number("9.29%"), "9.29");
        assert_eq!(number("—"), "");
        assert_eq!(number(""), "");
        assert_eq!(min_max("29068.42–37639.26"), ["29068.42", "37639.26"]);
        assert_eq!(min_max("—"), ["", ""]);
        assert_eq!(median_min_max("7.76; 7.12–22.53"), ["7.76", "7.12", "22.53"]);
        assert_eq!(median_min_max("7.76"), ["7.76", "", ""]);
        assert_eq!(median_min_max("—"), ["", "", ""]);
    }

    /// A field as a table writes it: defused, then quoted where it must be.
    fn quote(field: &str) -> String {
        let mut out = writer();
        write(&mut out, [defuse(field), "next".into()]);
        let line = String::from_utf8(out.into_inner().unwrap()).unwrap();
        line.strip_suffix(",next\r\n").unwrap().to_string()
    }

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
