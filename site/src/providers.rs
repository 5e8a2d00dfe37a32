//! What runners are and cost: `content/providers/<id>.toml`, one file per
//! provider, written by hand and reviewed by pull request
//! (CONTRIBUTING.md). Each names the provider and its site and, per runner
//! label, the machine (vCPU, memory, disk, architecture, OS) and the price
//! per minute with where and when it was read. Every field but the name is
//! optional: what a file leaves out, the site shows as "not stated", never
//! a guess.
//!
//! ```toml
//! name = "Example Cloud"
//! site = "https://example.com"
//!
//! [runners.example-linux-x64]
//! vcpu = 2
//! memory_gib = 8
//! disk_gb = 75
//! arch = "x64"
//! os = "linux"
//! price = { usd_per_minute = 0.008, source = "https://example.com/pricing", read_on = "2026-11-20" }
//! ```
//!
//! `benchmark_organisations = ["example-cloud"]` (top level) names the
//! GitHub owners whose runs measure the provider's runners.
//!
//! A file is read strictly (unknown fields are refused) and every problem
//! names the file, the field and the reason.

pub mod machine;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use runner_bench_format::{Date, Os, Slug};
use serde::{Deserialize, Serialize};

mod rules;
use rules::{github_owner, is_https, os_names, toml_field};

/// The folder below the content folder that holds the provider files.
pub const PROVIDERS_DIR: &str = "providers";

/// A price read longer ago than this is shown as stale: providers change
/// prices, and a reader choosing by cost should know how old one is.
pub const PRICE_STALE_DAYS: i64 = 180;

/// What the site shows for a detail a provider file does not give.
pub const NOT_STATED: &str = "not stated";

/// A problem in a provider file (or, from `site check`, a warning).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {field}: {reason}")]
pub struct ProviderError {
    /// The file, as found (e.g. `content/providers/ubicloud.toml`).
    pub file: String,
    /// The field, e.g. `runners.ubicloud-linux-x64.price.read_on`; `$` for
    /// the whole file, or `line N` where the TOML does not parse.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

/// One provider file, read and checked: the slugs, architectures, OS
/// names and dates are the format crate's types, so a file passes only
/// with what a result file could also hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderFile {
    /// The provider's name for people, e.g. `Ubicloud`.
    pub name: String,
    /// The provider's web site, `https://…`.
    pub site: Option<String>,
    /// Runner label → what the provider states about it.
    pub runners: BTreeMap<Slug, RunnerSpec>,
    /// The GitHub owners (organisations or users) whose runs measure its
    /// runners: a result whose run record names one is "measured by the
    /// provider".
    pub benchmark_organisations: Vec<String>,
}

/// What a provider states about one runner label.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct RunnerSpec {
    /// Virtual CPUs.
    pub vcpu: Option<u32>,
    /// Memory, GiB.
    pub memory_gib: Option<f64>,
    /// Disk, GB (decimal, as providers state it).
    pub disk_gb: Option<u32>,
    /// Architecture, as result files name it: `x64`, `arm64`, …
    pub arch: Option<Slug>,
    /// The OS, as result files name it.
    pub os: Option<Os>,
    /// The price per minute, with its source.
    pub price: Option<Price>,
}

/// A price per minute, where it was read and when.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Price {
    /// US dollars per minute of the runner.
    pub usd_per_minute: f64,
    /// The page the price was read from, `https://…`.
    pub source: String,
    /// The day it was read there.
    pub read_on: Date,
}

// The file as TOML gives it, before the checks: text where the checked
// file has a type, so that every field's problem is reported at once, not
// only the first that serde meets.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileText {
    name: String,
    site: Option<String>,
    #[serde(default)]
    runners: BTreeMap<String, RunnerText>,
    #[serde(default)]
    benchmark_organisations: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct RunnerText {
    vcpu: Option<u32>,
    memory_gib: Option<f64>,
    disk_gb: Option<u32>,
    arch: Option<String>,
    os: Option<String>,
    price: Option<PriceText>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceText {
    usd_per_minute: f64,
    source: String,
    read_on: String,
}

/// The files that passed every rule, by provider id, and the problems of
/// the others (a file with any is left out, so nothing unchecked is shown).
#[derive(Debug, Clone, Default)]
pub struct Providers {
    /// Provider id (the file name without `.toml`) → file.
    pub files: BTreeMap<String, ProviderFile>,
    /// Where each accepted file was found, by provider id.
    pub paths: BTreeMap<String, String>,
    /// Every problem of every file.
    pub errors: Vec<ProviderError>,
}

/// Reads every `*.toml` in `dir` (a missing folder holds no files).
pub fn load(dir: &Path) -> Providers {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut out = Providers::default();
    for path in files {
        let file = path.display().to_string();
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let parsed = match std::fs::read_to_string(&path) {
            Ok(text) => parse(&file, &stem, &text),
            Err(e) => Err(vec![error(&file, "$", format!("cannot read the file: {e}"))]),
        };
        match parsed {
            Ok(p) => {
                out.paths.insert(stem.clone(), file);
                out.files.insert(stem, p);
            }
            Err(errors) => out.errors.extend(errors),
        }
    }
    out
}

fn error(file: &str, field: impl Into<String>, reason: impl Into<String>) -> ProviderError {
    ProviderError { file: file.to_string(), field: field.into(), reason: reason.into() }
}

/// Parses and checks one file; `stem` is its name without `.toml`, the
/// provider id of the result files it describes.
pub fn parse(file: &str, stem: &str, text: &str) -> Result<ProviderFile, Vec<ProviderError>> {
    if let Err(why) = Slug::new(stem) {
        return Err(vec![error(file, "$", format!("the file name must be a provider id followed by .toml: {why}"))]);
    }
    let de = toml::de::Deserializer::parse(text).map_err(|e| vec![error(file, toml_field(text, &e), e.message())])?;
    let raw: FileText = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { "$".to_string() } else { path };
        vec![error(file, field, runner_bench_format::plain_words(e.into_inner().message()))]
    })?;
    let mut errors = Vec::new();
    let mut bad = |field: String, reason: String| errors.push(error(file, field, reason));
    // The rules of a name in a result file (no control, hidden or
    // reordering character), at most 100 characters.
    match runner_bench_format::Text::<100>::new(raw.name.clone()) {
        _ if raw.name.trim().is_empty() => {
            bad("name".into(), "must be 1 to 100 characters of text; it is empty".into())
        }
        Err(why) => bad("name".into(), format!("must be 1 to 100 characters of text: {why}")),
        Ok(_) => {}
    }
    if let Some(site) = &raw.site
        && !is_https(site)
    {
        bad("site".into(), format!("must be an https:// address, found \"{}\"", crate::escape::text(site)));
    }
    for (n, owner) in raw.benchmark_organisations.iter().enumerate() {
        if let Err(why) = github_owner(owner) {
            bad(format!("benchmark_organisations[{n}]"), why);
        }
    }
    let mut runners = BTreeMap::new();
    for (label, r) in raw.runners {
        let at = |f: &str| format!("runners.{label}.{f}");
        let slug = match Slug::new(label.as_str()) {
            Ok(slug) => slug,
            Err(why) => {
                bad(format!("runners.{label}"), format!("a runner label as result files write one: {why}"));
                continue;
            }
        };
        if r.vcpu == Some(0) {
            bad(at("vcpu"), "must be at least 1".into());
        }
        if let Some(m) = r.memory_gib
            && !(m.is_finite() && m > 0.0)
        {
            bad(at("memory_gib"), "must be a number of GiB above 0".into());
        }
        if r.disk_gb == Some(0) {
            bad(at("disk_gb"), "must be at least 1".into());
        }
        let arch = r.arch.map(|a| {
            Slug::new(a).map_err(|why| {
                bad(at("arch"), format!("must be an architecture as result files name it, e.g. x64 or arm64: {why}"))
            })
        });
        let os = r.os.map(|os| {
            Os::from_name(&os).ok_or_else(|| {
                bad(at("os"), format!("must be {}, found \"{}\"", os_names(), crate::escape::text(&os)));
            })
        });
        let price = r.price.map(|price| {
            if !(price.usd_per_minute.is_finite() && price.usd_per_minute > 0.0) {
                bad(at("price.usd_per_minute"), "must be a number of US dollars above 0".into());
            }
            if !is_https(&price.source) {
                bad(
                    at("price.source"),
                    format!(
                        "must be the https:// address of the price, found \"{}\"",
                        crate::escape::text(&price.source)
                    ),
                );
            }
            let read_on = Date::new(price.read_on).map_err(|why| bad(at("price.read_on"), why));
            read_on.map(|read_on| Price { usd_per_minute: price.usd_per_minute, source: price.source, read_on })
        });
        // Each `Err` above has been reported; a file with any is refused
        // below, so what it would have held does not matter.
        let (Ok(arch), Ok(os), Ok(price)) = (arch.transpose(), os.transpose(), price.transpose()) else {
            continue;
        };
        let spec = RunnerSpec { vcpu: r.vcpu, memory_gib: r.memory_gib, disk_gb: r.disk_gb, arch, os, price };
        runners.insert(slug, spec);
    }
    let organisations = raw.benchmark_organisations;
    let file = ProviderFile { name: raw.name, site: raw.site, runners, benchmark_organisations: organisations };
    if errors.is_empty() { Ok(file) } else { Err(errors) }
}

impl Providers {
    /// The provider's file, where it has one.
    pub fn provider(&self, id: &str) -> Option<&ProviderFile> {
        self.files.get(id)
    }

    /// What a runner is and costs, as pages show it: "not stated" for what
    /// its provider's file does not give.
    pub fn machine(&self, provider_id: &str, label: &str, now: jiff::Timestamp) -> MachineView {
        let spec = self.files.get(provider_id).and_then(|p| p.runners.get(label));
        MachineView::new(spec, now)
    }
}

/// A runner's machine and price as pages show them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineView {
    /// Whether the provider's file has an entry for the runner.
    pub stated: bool,
    pub vcpu: String,
    /// `8 GiB`.
    pub memory: String,
    /// `75 GB`.
    pub disk: String,
    pub arch: String,
    pub os: String,
    /// The three sizes in one phrase, e.g. `2 vCPU, 8 GiB memory, disk not
    /// stated`; "not stated" where none is.
    pub size: String,
    /// `$0.008/min`, or "not stated".
    pub price: String,
    /// US dollars per minute, where stated.
    pub usd_per_minute: Option<f64>,
    pub price_source: Option<String>,
    pub price_read_on: Option<String>,
    /// Read longer than `PRICE_STALE_DAYS` before the build.
    pub price_stale: bool,
    /// The file's entry, which runner pages compare with what results
    /// recorded (`machine::machine_mismatch`).
    #[serde(skip)]
    pub spec: RunnerSpec,
}

impl MachineView {
    /// The view of `spec` (none: every detail "not stated") at build time `now`.
    pub fn new(spec: Option<&RunnerSpec>, now: jiff::Timestamp) -> MachineView {
        let none = || NOT_STATED.to_string();
        let default = RunnerSpec::default();
        let s = spec.unwrap_or(&default);
        let price = s.price.as_ref();
        // Whole days from the start of the day it was read (UTC).
        let price_stale = price
            .is_some_and(|p| (now.as_second() - p.read_on.instant().as_second()).div_euclid(86_400) > PRICE_STALE_DAYS);
        let size = if s.vcpu.is_none() && s.memory_gib.is_none() && s.disk_gb.is_none() {
            none()
        } else {
            [
                s.vcpu.map_or_else(|| format!("vCPU {NOT_STATED}"), |v| format!("{v} vCPU")),
                s.memory_gib
                    .map_or_else(|| format!("memory {NOT_STATED}"), |m| format!("{} GiB memory", trim_number(m))),
                s.disk_gb.map_or_else(|| format!("disk {NOT_STATED}"), |d| format!("{d} GB disk")),
            ]
            .join(", ")
        };
        MachineView {
            stated: spec.is_some(),
            size,
            vcpu: s.vcpu.map_or_else(none, |v| v.to_string()),
            memory: s.memory_gib.map_or_else(none, |m| format!("{} GiB", trim_number(m))),
            disk: s.disk_gb.map_or_else(none, |d| format!("{d} GB")),
            arch: s.arch.as_ref().map_or_else(none, Slug::to_string),
            os: s.os.map_or_else(none, |os| os.name().to_string()),
            price: price.map_or_else(none, |p| format!("${}/min", trim_number(p.usd_per_minute))),
            usd_per_minute: price.map(|p| p.usd_per_minute),
            price_source: price.map(|p| p.source.clone()),
            price_read_on: price.map(|p| p.read_on.to_string()),
            price_stale,
            spec: s.clone(),
        }
    }

    /// A speed figure per US cent per minute (`value_per_cent`), formatted,
    /// where a price is stated and the figure is a number.
    pub fn per_cent(&self, value: Option<f64>) -> Option<String> {
        Some(crate::figures::two(value_per_cent(value?, self.usd_per_minute?)?))
    }
}

/// Price-performance: a speed figure (higher is better) per US cent per
/// minute, `value / (100 × usd_per_minute)` (docs/methodology.md).
pub fn value_per_cent(value: f64, usd_per_minute: f64) -> Option<f64> {
    let cents = 100.0 * usd_per_minute;
    (value.is_finite() && cents.is_finite() && cents > 0.0).then(|| value / cents)
}

/// `8`, `0.5`, `0.008`: a stated number as written, without trailing zeros.
fn trim_number(v: f64) -> String {
    let s = format!("{v}");
    if s.contains('e') { format!("{v:.6}").trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "name = \"Example Cloud\"\nsite = \"https://example.com\"\n\n[runners.example-linux-x64]\n\
                        vcpu = 2\nmemory_gib = 8\ndisk_gb = 75\narch = \"x64\"\nos = \"linux\"\n\
                        price = { usd_per_minute = 0.008, source = \"https://example.com/pricing\", read_on = \
                        \"2026-11-20\" }\n";

    fn errors(text: &str) -> Vec<String> {
        parse("content/providers/example.toml", "example", text).unwrap_err().iter().map(ToString::to_string).collect()
    }

    fn now() -> jiff::Timestamp {
        "2026-12-01T00:00:00Z".parse().unwrap()
    }

    #[test]
    fn a_full_file_parses_and_shows_every_detail() {
        let p = parse("example.toml", "example", FULL).unwrap();
        assert_eq!(p.name, "Example Cloud");
        let m = MachineView::new(p.runners.get("example-linux-x64"), now());
        assert_eq!(
            (m.vcpu.as_str(), m.memory.as_str(), m.disk.as_str(), m.arch.as_str(), m.os.as_str(), m.price.as_str()),
            ("2", "8 GiB", "75 GB", "x64", "linux", "$0.008/min")
        );
        assert_eq!(m.size, "2 vCPU, 8 GiB memory, 75 GB disk");
        assert!(m.stated && !m.price_stale);
        // 30000 it/s at 0.8 ¢/min.
        assert_eq!(m.per_cent(Some(30000.0)).as_deref(), Some("37500.00"));
        assert_eq!(m.per_cent(None), None);
    }

    #[test]
    fn what_a_file_leaves_out_is_not_stated() {
        let m = MachineView::new(None, now());
        assert_eq!(m.vcpu, "not stated");
        assert_eq!(m.price, "not stated");
        assert!(!m.stated && !m.price_stale);
        assert_eq!(m.per_cent(Some(1.0)), None);
        let p =
            parse("x.toml", "example", "name = \"Example\"\n[runners.example-linux-x64]\narch = \"arm64\"\n").unwrap();
        let m = MachineView::new(p.runners.get("example-linux-x64"), now());
        assert_eq!((m.arch.as_str(), m.memory.as_str(), m.price.as_str()), ("arm64", "not stated", "not stated"));
        assert_eq!(m.size, "not stated");
        let p = parse("x.toml", "example", "name = \"Example\"\n[runners.example-linux-x64]\ndisk_gb = 120\n").unwrap();
        let m = MachineView::new(p.runners.get("example-linux-x64"), now());
        assert_eq!(m.size, "vCPU not stated, memory not stated, 120 GB disk");
    }

    #[test]
    fn a_price_read_more_than_180_days_before_the_build_is_stale() {
        let price = |day: &str| {
            let read_on = Date::new(day).unwrap();
            RunnerSpec {
                price: Some(Price { usd_per_minute: 0.01, source: "https://x.example".into(), read_on }),
                ..Default::default()
            }
        };
        // 2026-06-04 is 180 days before 2026-12-01, 2026-06-03 is 181.
        assert!(!MachineView::new(Some(&price("2026-06-04")), now()).price_stale);
        assert!(MachineView::new(Some(&price("2026-06-03")), now()).price_stale);
    }

    #[test]
    fn price_performance_is_the_figure_per_cent_per_minute() {
        assert_eq!(value_per_cent(33392.77, 0.008), Some(33392.77 / 0.8));
        assert_eq!(value_per_cent(1.0, 0.0), None);
        assert_eq!(value_per_cent(f64::NAN, 0.01), None);
    }

    #[test]
    fn bad_files_name_the_file_the_field_and_the_reason() {
        assert_eq!(
            errors("name = \"X\"\nwebsite = \"https://x\"\n"),
            ["content/providers/example.toml: website: unknown field `website`, expected one of `name`, `site`, \
              `runners`, `benchmark_organisations`"]
        );
        assert_eq!(
            errors("name = \"X\"\n[runners.example-linux-x64]\ncores = 2\n"),
            ["content/providers/example.toml: runners.example-linux-x64.cores: unknown field `cores`, expected one \
              of `vcpu`, `memory_gib`, `disk_gb`, `arch`, `os`, `price`"]
        );
        assert_eq!(
            errors("name = \"X\"\n[runners.example-linux-x64]\nvcpu = \"two\"\n"),
            ["content/providers/example.toml: runners.example-linux-x64.vcpu: invalid type: string \"two\", \
              expected a whole number from 0 to 4294967295"]
        );
        assert_eq!(errors("site = \"https://x\"\n"), ["content/providers/example.toml: $: missing field `name`"]);
        assert_eq!(
            errors("name = \"X\n"),
            ["content/providers/example.toml: line 1: invalid basic string, expected `\"`"]
        );
        assert_eq!(
            errors(
                "name = \" \"\nsite = \"http://x\"\n[runners.example-linux-x64]\nvcpu = 0\nmemory_gib = -1\n\
                 disk_gb = 0\narch = \"X64\"\nos = \"ubuntu\"\nprice = { usd_per_minute = 0, source = \"x\", \
                 read_on = \"1 Nov 2026\" }\n"
            ),
            [
                "content/providers/example.toml: name: must be 1 to 100 characters of text; it is empty",
                "content/providers/example.toml: site: must be an https:// address, found \"http://x\"",
                "content/providers/example.toml: runners.example-linux-x64.vcpu: must be at least 1",
                "content/providers/example.toml: runners.example-linux-x64.memory_gib: must be a number of GiB above 0",
                "content/providers/example.toml: runners.example-linux-x64.disk_gb: must be at least 1",
                "content/providers/example.toml: runners.example-linux-x64.arch: must be an architecture as result \
                 files name it, e.g. x64 or arm64: \"X64\" is not a slug (1 to 64 lowercase letters, digits and \
                 single dashes, starting and ending with a letter or digit)",
                "content/providers/example.toml: runners.example-linux-x64.os: must be linux, macos or windows, \
                 found \"ubuntu\"",
                "content/providers/example.toml: runners.example-linux-x64.price.usd_per_minute: must be a number of \
                 US dollars above 0",
                "content/providers/example.toml: runners.example-linux-x64.price.source: must be the https:// \
                 address of the price, found \"x\"",
                "content/providers/example.toml: runners.example-linux-x64.price.read_on: \"1 Nov 2026\" is not a \
                 date in the form YYYY-MM-DD (like 2026-11-29)",
            ]
        );
        assert_eq!(
            errors("name = \"X\"\n[runners.Bad_Label]\n"),
            ["content/providers/example.toml: runners.Bad_Label: a runner label as result files write one: \
              \"Bad_Label\" is not a slug (1 to 64 lowercase letters, digits and single dashes, starting and \
              ending with a letter or digit)"]
        );
        assert_eq!(
            parse("content/providers/Bad.toml", "Bad", FULL).unwrap_err()[0].to_string(),
            "content/providers/Bad.toml: $: the file name must be a provider id followed by .toml: \"Bad\" is not a \
             slug (1 to 64 lowercase letters, digits and single dashes, starting and ending with a letter or digit)"
        );
        // A control character in a name is refused, and echoed escaped.
        assert_eq!(
            errors("name = \"X\"\nsite = \"https://x\\u001b[31m\"\n"),
            ["content/providers/example.toml: site: must be an https:// address, found \"https://x\\u{1b}[31m\""]
        );
    }

    /// A label, architecture or date passes only where a result file could
    /// hold it: a label no result can have would describe no runner.
    #[test]
    fn slugs_and_dates_follow_the_rules_of_a_result_file() {
        let long = "a".repeat(65);
        assert_eq!(
            errors(&format!(
                "name = \"X\"\n[runners.a--b]\n[runners.{long}]\n[runners.ok]\narch = \"x--64\"\n\
                 price = {{ usd_per_minute = 1, source = \"https://x\", read_on = \"2026-02-30\" }}\n"
            )),
            [
                "content/providers/example.toml: runners.a--b: a runner label as result files write one: \"a--b\" \
                 is not a slug (1 to 64 lowercase letters, digits and single dashes, starting and ending with a \
                 letter or digit)"
                    .to_string(),
                format!(
                    "content/providers/example.toml: runners.{long}: a runner label as result files write one: \
                     \"{long}\" is not a slug (1 to 64 lowercase letters, digits and single dashes, starting and \
                     ending with a letter or digit)"
                ),
                "content/providers/example.toml: runners.ok.arch: must be an architecture as result files name it, \
                 e.g. x64 or arm64: \"x--64\" is not a slug (1 to 64 lowercase letters, digits and single dashes, \
                 starting and ending with a letter or digit)"
                    .to_string(),
                "content/providers/example.toml: runners.ok.price.read_on: \"2026-02-30\" is in the form \
                 YYYY-MM-DD but names no real day"
                    .to_string(),
            ]
        );
        let p = parse("x.toml", "example", "name = \"X\"\n[runners.ok]\nos = \"macos\"\n").unwrap();
        assert_eq!(p.runners["ok"].os, Some(Os::Macos));
    }

    #[test]
    fn a_name_follows_the_rules_of_a_name_in_a_result() {
        assert_eq!(
            errors("name = \"Acme\\u200b\"\n"),
            ["content/providers/example.toml: name: must be 1 to 100 characters of text: text contains U+200B, a \
                 zero-width or invisible character; displayed text must show what it says"]
        );
        assert_eq!(
            errors("name = \"\\u3164\"\n"),
            ["content/providers/example.toml: name: must be 1 to 100 characters of text: text contains U+3164, a \
                 Hangul filler, which is shown as blank; displayed text must show what it says"]
        );
        // Characters, not bytes: 100 two-byte letters are a name.
        assert!(
            parse("content/providers/example.toml", "example", &format!("name = \"{}\"\n", "é".repeat(100))).is_ok()
        );
        assert_eq!(
            errors(&format!("name = \"{}\"\n", "é".repeat(101))),
            ["content/providers/example.toml: name: must be 1 to 100 characters of text: text is 101 characters \
                 long; at most 100 are allowed"]
        );
    }
}
