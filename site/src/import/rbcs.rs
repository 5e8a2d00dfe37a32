//! Parser of the RBCS build-cache benchmark document (the seed 003): a
//! title, a bullet list of conditions, then sections of a title, an
//! optional one-line list of conditions for that section alone, and a
//! tab-separated table of PUT and GET requests per second.

use runner_bench_format::imported::{
    ImportedHttpCache, ImportedHttpCacheRow, ImportedHttpCacheTable, ImportedMachine, ImportedResult, ImportedStages,
};
use runner_bench_format::measured::Condition;
use runner_bench_format::{Name, NonNeg, Provider, Runner, Slug};

use super::runner_report::slugify;
use super::source::{ImportError, ImportSource};

/// The line that introduces the conditions list.
pub const CONDITIONS_LINE: &str = "All test were executed under the following conditions:";

const HEADER: &[&str] = &[
    "Cache backend",
    "CPU",
    "CPU quota",
    "Memory quota (GB)",
    "Request size (b)",
    "Client connections",
    "PUT (req/s)",
    "GET (req/s)",
];

/// Parses the document into one imported `http_cache` result.
pub fn parse(text: &str, src: &ImportSource) -> Result<ImportedResult, ImportError> {
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty()).collect();
    let end = text.lines().count() + 1;
    let at = lines
        .iter()
        .position(|(_, l)| *l == CONDITIONS_LINE)
        .ok_or_else(|| ImportError::new(1, format!("the line {CONDITIONS_LINE:?}"), None))?;
    let Some(&(title_line, title)) = at.checked_sub(1).and_then(|i| lines.get(i)) else {
        let n = lines[at].0;
        return Err(ImportError::new(n, "a title before the conditions", Some(lines[at].1)));
    };
    if title.contains('\t') || title.starts_with('•') {
        return Err(ImportError::new(title_line, "a title before the conditions", Some(title)));
    }

    let mut conditions = Vec::new();
    let mut i = at + 1;
    while let Some(&(n, l)) = lines.get(i) {
        let Some(item) = l.strip_prefix('•') else { break };
        let (k, v) = item
            .trim()
            .split_once(": ")
            .ok_or_else(|| ImportError::new(n, "a condition \"• <name>: <value>\"", Some(l)))?;
        conditions.push(condition(n, k, v)?);
        i += 1;
    }
    if conditions.is_empty() {
        let found = lines.get(i).copied();
        return Err(ImportError::new(
            found.map_or(end, |f| f.0),
            "a condition \"• <name>: <value>\"",
            found.map(|f| f.1),
        ));
    }
    let cpu = conditions
        .iter()
        .find(|c| c.name.as_str() == "CPU")
        .map(|c| c.value.as_str().split(" (").next().unwrap_or_default().to_string())
        .ok_or_else(|| ImportError::new(lines[at].0, "a \"CPU\" condition", None))?;

    let mut tables = Vec::new();
    while i < lines.len() {
        tables.push(table(&lines, &mut i, end)?);
    }
    if tables.is_empty() {
        return Err(ImportError::new(end, "a section with a table", None));
    }

    let runner = slugify(cpu.trim_start_matches("Intel ").trim_start_matches("AMD "));
    Ok(ImportedResult {
        schema: None,
        format_version: runner_bench_format::FORMAT_VERSION,
        kind: super::source::kind(),
        source: src.source(title)?,
        provider: Provider { id: Slug::new("rbcs").expect("a slug"), name: Some(name(title_line, "RBCS")?) },
        runner: Runner {
            label: Slug::new(&runner).map_err(|e| ImportError::new(lines[at].0, "a CPU model", Some(&e)))?,
            name: Some(name(title_line, &cpu)?),
        },
        published_profile: None,
        machine: ImportedMachine {
            arch: None,
            cpu_model: Some(name(title_line, &cpu)?),
            os_image: None,
            details: Vec::new(),
        },
        build: None,
        stages: ImportedStages {
            http_cache: Some(ImportedHttpCache { software: name(title_line, "RBCS")?, conditions, tables }),
            ..Default::default()
        },
        notices: Vec::new(),
    })
}

/// The table that starts at line `*i` (its title, an optional conditions
/// line, the header, the rows); `*i` is left after its last row.
fn table(lines: &[(usize, &str)], i: &mut usize, end: usize) -> Result<ImportedHttpCacheTable, ImportError> {
    let (n, l) = lines[*i];
    // Section title.
    if l.contains('\t') {
        return Err(ImportError::new(n, "a section title", Some(l)));
    }
    let title = name(n, l)?;
    *i += 1;
    // Optional conditions line: `key: value key: value`.
    let mut table_conditions = Vec::new();
    if let Some(&(n, l)) = lines.get(*i)
        && !l.starts_with("Cache backend\t")
    {
        table_conditions = inline_conditions(n, l)?;
        *i += 1;
    }
    match lines.get(*i) {
        Some(&(_, l)) if l.split('\t').collect::<Vec<_>>() == HEADER => *i += 1,
        other => {
            return Err(ImportError::new(
                other.map_or(end, |o| o.0),
                format!("the table header {:?}", HEADER.join("\t")),
                other.map(|o| o.1),
            ));
        }
    }
    let mut rows = Vec::new();
    while let Some(&(n, l)) = lines.get(*i) {
        if !l.contains('\t') {
            break;
        }
        let c: Vec<&str> = l.split('\t').collect();
        if c.len() != HEADER.len() {
            return Err(ImportError::new(n, format!("a row of {} tab-separated cells", HEADER.len()), Some(l)));
        }
        rows.push(ImportedHttpCacheRow {
            backend: name(n, c[0])?,
            cpu: name(n, c[1])?,
            cpu_quota: num(n, c[2])?,
            memory_quota_gb: num(n, c[3])?,
            value_bytes: c[4].parse().map_err(|_| ImportError::new(n, "a request size in bytes", Some(c[4])))?,
            connections: c[5].parse().map_err(|_| ImportError::new(n, "a connection count", Some(c[5])))?,
            put_per_s: num(n, c[6])?,
            get_per_s: num(n, c[7])?,
        });
        *i += 1;
    }
    if rows.is_empty() {
        let found = lines.get(*i).copied();
        return Err(ImportError::new(found.map_or(end, |f| f.0), "a table row", found.map(|f| f.1)));
    }
    Ok(ImportedHttpCacheTable { title, conditions: table_conditions, rows })
}

/// `compression: disabled digest: MD5 TLS: disabled`: a word ending in `:`
/// begins a condition, the words up to the next such word are its value.
fn inline_conditions(n: usize, line: &str) -> Result<Vec<Condition>, ImportError> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for word in line.split_whitespace() {
        match (word.strip_suffix(':'), out.last_mut()) {
            (Some(key), _) => out.push((key.to_string(), Vec::new())),
            (None, Some((_, value))) => value.push(word),
            (None, None) => return Err(ImportError::new(n, "conditions \"<name>: <value> ...\"", Some(line))),
        }
    }
    out.into_iter()
        .map(|(k, v)| {
            if v.is_empty() {
                return Err(ImportError::new(n, format!("a value after \"{k}:\""), Some(line)));
            }
            condition(n, &k, &v.join(" "))
        })
        .collect()
}

fn condition(n: usize, k: &str, v: &str) -> Result<Condition, ImportError> {
    Ok(Condition { name: name(n, k.trim())?, value: name(n, v.trim())? })
}

fn name(n: usize, s: &str) -> Result<Name, ImportError> {
    Name::new(s).map_err(|e| ImportError::new(n, format!("a name ({e})"), Some(s)))
}

fn num(n: usize, s: &str) -> Result<NonNeg, ImportError> {
    let v: f64 = s.trim().parse().map_err(|_| ImportError::new(n, "a number", Some(s)))?;
    NonNeg::new(v).map_err(|_| ImportError::new(n, "a number of at least zero", Some(s)))
}
