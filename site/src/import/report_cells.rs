//! The parts of a runner report as `runner_report` reads them: its `## `
//! sections, its tables' rows and cells, and the cell values, each refused
//! with an `ImportError` naming the line and what was expected.

use std::collections::BTreeMap;

use runner_bench_format::imported::Aggregate;
use runner_bench_format::{Name, NonNeg, Slug};

use super::source::ImportError;
use crate::figures::{NONE, unescape_markdown};

/// A numbered line (1-based).
pub(super) type Line<'a> = (usize, &'a str);

/// One `## ` section: its heading's line and its body's lines.
pub(super) struct Section<'a> {
    pub(super) lines: Vec<Line<'a>>,
}

/// The sections a runner report has; any other heading is an error, as
/// its rows (a misspelt `## Disk IO`) would be left out unread.
const SECTIONS: [&str; 8] = [
    "Benchmark parameters",
    "Pinned results",
    "Unpinned results",
    "Disk I/O",
    "Cache backends",
    "Internet",
    "Optional stages and notices",
    "Machine and build details",
];

/// The `## ` sections by heading; a heading twice is an error, as one
/// section would silently replace the other's rows.
pub(super) fn sections<'a>(lines: &[Line<'a>]) -> Result<BTreeMap<String, Section<'a>>, ImportError> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Vec<Line<'a>>)> = None;
    let mut seen = std::collections::BTreeSet::new();
    for &(n, l) in lines {
        if let Some(h) = l.strip_prefix("## ") {
            if !SECTIONS.contains(&h.trim()) {
                return Err(ImportError::new(
                    n,
                    format!("a section of a runner report ({})", SECTIONS.join(", ")),
                    Some(l),
                ));
            }
            if !seen.insert(h.trim().to_string()) {
                return Err(ImportError::new(n, "a section heading not used before", Some(l)));
            }
            if let Some((name, body)) = current.take() {
                out.insert(name, Section { lines: body });
            }
            current = Some((h.trim().to_string(), Vec::new()));
        } else if let Some((_, body)) = &mut current {
            body.push((n, l));
        }
    }
    if let Some((name, body)) = current {
        out.insert(name, Section { lines: body });
    }
    Ok(out)
}

/// The cells of a table row, unescaped; splits on `|` not escaped by `\`.
pub(super) fn split_row(line: &str) -> Vec<String> {
    let inner = line.trim().strip_prefix('|').unwrap_or(line);
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cell.push(c);
                cell.extend(chars.next());
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    if !cell.trim().is_empty() {
        cells.push(cell);
    }
    cells.into_iter().map(|c| unescape_markdown(c.trim())).collect()
}

/// The rows of the first table in `lines`, which must have `header`.
pub(super) fn table(lines: &[Line<'_>], header: &[&str], end: usize) -> Result<Vec<(usize, Vec<String>)>, ImportError> {
    let expected_header = format!("| {} |", header.join(" | "));
    let Some(start) = lines.iter().position(|(_, l)| l.starts_with('|')) else {
        let line = lines.last().map_or(end, |(n, _)| n + 1);
        return Err(ImportError::new(line, format!("the table header \"{expected_header}\""), None));
    };
    let (n, l) = lines[start];
    if split_row(l) != header {
        return Err(ImportError::new(n, format!("the table header \"{expected_header}\""), Some(l)));
    }
    match lines.get(start + 1) {
        Some((_, l)) if split_row(l).iter().all(|c| c.trim_matches(':').chars().all(|c| c == '-') && !c.is_empty()) => {
        }
        other => {
            let line = other.map_or(n + 1, |(m, _)| *m);
            return Err(ImportError::new(line, "the table's separator row \"| --- | ... |\"", other.map(|(_, l)| *l)));
        }
    }
    // One table per section, its rows together: a row after a break (a
    // blank line, an indented row, a second table) would be left out.
    let body = &lines[start + 2..];
    let rows_end = body.iter().position(|(_, l)| !l.starts_with('|')).unwrap_or(body.len());
    if let Some(&(n, l)) = body[rows_end..].iter().find(|(_, l)| l.trim_start().starts_with('|')) {
        return Err(ImportError::new(n, "no table row apart from the section's table", Some(l)));
    }
    let mut rows = Vec::new();
    for &(n, l) in &body[..rows_end] {
        let cells = split_row(l);
        if cells.len() != header.len() {
            return Err(ImportError::new(
                n,
                format!("a row of {} cells ({})", header.len(), header.join(" | ")),
                Some(l),
            ));
        }
        rows.push((n, cells));
    }
    Ok(rows)
}

/// Refuses a runner's second row in one stage's tables (`slot` is what its
/// first row set): one would replace the other's figures.
pub(super) fn first_row<T>(slot: &Option<T>, n: usize, runner: &str) -> Result<(), ImportError> {
    match slot {
        Some(_) => Err(ImportError::new(n, "each runner once per stage", Some(runner))),
        None => Ok(()),
    }
}

/// `**label**: rest` → (label, rest).
pub(super) fn bold_item(n: usize, item: &str, expected: &str) -> Result<(String, String), ImportError> {
    let parsed = item.strip_prefix("**").and_then(|r| r.split_once("**: "));
    let (label, rest) = parsed.ok_or_else(|| ImportError::new(n, expected, Some(item)))?;
    Ok((unescape_markdown(label), unescape_markdown(rest)))
}

pub(super) fn int(n: usize, s: &str, what: &str) -> Result<u32, ImportError> {
    s.trim().parse().map_err(|_| ImportError::new(n, format!("{what} (a whole number)"), Some(s)))
}

pub(super) fn num(n: usize, s: &str) -> Result<NonNeg, ImportError> {
    let v: f64 = s.parse().map_err(|_| ImportError::new(n, "a number", Some(s)))?;
    NonNeg::new(v).map_err(|_| ImportError::new(n, "a number of at least zero", Some(s)))
}

pub(super) fn opt_num(n: usize, s: &str) -> Result<Option<NonNeg>, ImportError> {
    if s == NONE { Ok(None) } else { num(n, s).map(Some) }
}

pub(super) fn percent(n: usize, s: &str) -> Result<NonNeg, ImportError> {
    let v = s.strip_suffix('%').ok_or_else(|| ImportError::new(n, "a percentage like \"9.29%\"", Some(s)))?;
    num(n, v)
}

pub(super) fn range(n: usize, s: &str) -> Result<(NonNeg, NonNeg), ImportError> {
    let (a, b) = s.split_once('–').ok_or_else(|| ImportError::new(n, "a range \"<min>–<max>\"", Some(s)))?;
    Ok((num(n, a)?, num(n, b)?))
}

/// `7.76; 7.12–22.53` and a variation `57.08%`.
pub(super) fn seconds(n: usize, s: &str, variation: &str) -> Result<Aggregate, ImportError> {
    let (median, range_text) =
        s.split_once("; ").ok_or_else(|| ImportError::new(n, "seconds \"<median>; <min>–<max>\"", Some(s)))?;
    let (min, max) = range(n, range_text)?;
    Ok(Aggregate { median: num(n, median)?, min, max, variation_pct: percent(n, variation)? })
}

/// `x64 (64-bit)` → `x64`.
pub(super) fn arch(n: usize, s: &str) -> Result<Slug, ImportError> {
    let word = s.split(' ').next().unwrap_or_default();
    Slug::new(word).map_err(|_| ImportError::new(n, "a binary like \"x64 (64-bit)\"", Some(s)))
}

pub(super) fn name(n: usize, s: &str) -> Result<Name, ImportError> {
    Name::new(s).map_err(|e| ImportError::new(n, format!("a name ({e})"), Some(s)))
}
