//! Parser of a published runner report (the format of the seeds 000–002,
//! and of `site build`'s own reports): the title names the provider, every
//! table row names a runner, and each runner becomes one imported result.
//!
//! Only tables, the endpoint list, the notices and the publication gap are
//! read; the explanatory paragraphs are the template's wording.

use std::collections::BTreeMap;

use runner_bench_format::imported::{
    Aggregate, Counts, ImportedBuild, ImportedCache, ImportedCacheBackend, ImportedCpu, ImportedDisk, ImportedInternet,
    ImportedMachine, ImportedResult, ImportedStages, PublishedProfile,
};
use runner_bench_format::measured::{CacheKind, Endpoint};
use runner_bench_format::{Affinity, Fingerprint, Name, Notice, Provider, Runner, Slug};

use super::report_cells::{
    Line, Section, arch, bold_item, first_row, int, name, num, opt_num, percent, range, seconds, sections, split_row,
    table,
};
use super::source::{ImportError, ImportSource};
use crate::figures::NONE;

const TITLE_SUFFIX: &str = " Runner Benchmarks";

const PARAMETERS: &[&str] =
    &["Profile", "Protocol", "CPU/disk samples", "CPU seconds", "Disk MiB", "Cache MiB", "Internet", "Transfer MiB"];
const PINNED: &[&str] = &["Runner", "Binary", "Median iterations/s", "Min–max", "Variation", "CPU / group", "Samples"];
const UNPINNED: &[&str] = &["Runner", "Binary", "Median iterations/s", "Min–max", "Variation", "Samples"];
const DISK: &[&str] = &[
    "Runner",
    "Affinity",
    "File MiB",
    "Completed / attempted / requested",
    "Status",
    "Read MiB/s",
    "Write MiB/s",
    "Random read IOPS",
    "Random write IOPS",
];
const DISK_WITHOUT_COUNTS: &[&str] =
    &["Runner", "Affinity", "File MiB", "Read MiB/s", "Write MiB/s", "Random read IOPS", "Random write IOPS"];
const CACHE: &[&str] = &[
    "Runner",
    "Cache backend",
    "Payload MiB",
    "Verified pairs",
    "Save s (median; range)",
    "Save MiB/s",
    "Save variation",
    "Restore s (median; range)",
    "Restore MiB/s",
    "Restore variation",
];
const INTERNET: &[&str] =
    &["Runner", "Service", "Status", "Transfer MiB", "Download Mbps", "Upload Mbps", "HTTPS request ms"];
const MACHINE: &[&str] = &["Runner", "CPU model", "OS image", "Compiler", "Flags"];

/// Everything the report says about one runner.
#[derive(Default)]
struct RunnerFigures {
    cpu: Option<ImportedCpu>,
    arch: Option<Slug>,
    disk: Option<ImportedDisk>,
    cache: Vec<ImportedCacheBackend>,
    internet: Option<ImportedInternet>,
    notices: Vec<Notice>,
    machine: Option<(Option<Name>, Option<Name>, ImportedBuild)>,
}

/// Parses a runner report into one imported result per runner, in the
/// order runners first appear: the title, then each section in the
/// report's order.
pub fn parse(text: &str, src: &ImportSource) -> Result<Vec<ImportedResult>, ImportError> {
    let lines: Vec<Line<'_>> = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end())).collect();
    let (title, provider_name) = title(&lines)?;
    let sections = sections(&lines)?;
    let mut report = Report { sections: &sections, end: lines.len() + 1, order: Vec::new(), runners: BTreeMap::new() };
    let mut profile = report.parameters()?;
    report.coremark()?;
    report.disk()?;
    profile.cache_publication_gap_s = report.cache()?;
    report.internet()?;
    report.machine()?;
    report.notices()?;
    report.results(src, &title, &provider_name, &profile)
}

/// The title `# <Provider> Runner Benchmarks`, and the provider's name.
fn title(lines: &[Line<'_>]) -> Result<(String, String), ImportError> {
    let first = lines.iter().find(|(_, l)| !l.trim().is_empty()).copied();
    let title = match first {
        Some((_, l)) if l.starts_with("# ") && l.ends_with(TITLE_SUFFIX) => l[2..].to_string(),
        other => {
            return Err(ImportError::new(
                other.map_or(1, |(n, _)| n),
                format!("a title \"# <Provider>{TITLE_SUFFIX}\""),
                other.map(|(_, l)| l),
            ));
        }
    };
    let provider_name = title[..title.len() - TITLE_SUFFIX.len()].to_string();
    Ok((title, provider_name))
}

/// The report as it is read: its sections, and what they say of each
/// runner so far.
struct Report<'r, 'a> {
    sections: &'r BTreeMap<String, Section<'a>>,
    /// The line after the last, where a missing part is reported.
    end: usize,
    /// The runners' labels, in the order they first appear.
    order: Vec<String>,
    runners: BTreeMap<String, RunnerFigures>,
}

impl Report<'_, '_> {
    /// A table row's runner label, checked and noted in order.
    fn runner(&mut self, label: &str, line: usize) -> Result<String, ImportError> {
        Slug::new(label).map_err(|_| ImportError::new(line, "a runner label (a slug)", Some(label)))?;
        if !self.order.iter().any(|l| l == label) {
            self.order.push(label.to_string());
        }
        Ok(label.to_string())
    }

    /// `## Benchmark parameters`: the published profile, one row.
    fn parameters(&self) -> Result<PublishedProfile, ImportError> {
        let params = self
            .sections
            .get("Benchmark parameters")
            .ok_or_else(|| ImportError::new(self.end, "a \"## Benchmark parameters\" section", None))?;
        let rows = table(&params.lines, PARAMETERS, self.end)?;
        let [(n, cells)] = rows.as_slice() else {
            return Err(match rows.get(1) {
                Some((n, _)) => {
                    let line = params.lines.iter().find(|(m, _)| m == n).map(|(_, l)| *l);
                    ImportError::new(*n, "exactly one parameters row", line)
                }
                None => {
                    let header = params.lines.iter().position(|(_, l)| l.starts_with('|')).unwrap_or_default();
                    let next = params.lines.get(header + 2).copied();
                    let line = next.map_or(self.end, |(n, _)| n);
                    ImportError::new(line, "a parameters row", next.map(|(_, l)| l))
                }
            });
        };
        let n = *n;
        let fingerprint = cells[0].trim_matches('`');
        Ok(PublishedProfile {
            fingerprint: Fingerprint::new(fingerprint).map_err(|_| {
                ImportError::new(n, "a profile fingerprint of 12 hex digits in backticks", Some(&cells[0]))
            })?,
            protocol: int(n, &cells[1], "a protocol number")?,
            cpu_disk_samples: int(n, &cells[2], "a sample count")?,
            cpu_seconds: int(n, &cells[3], "CPU seconds")?,
            disk_file_mib: int(n, &cells[4], "disk MiB")?,
            cache_payload_mib: int(n, &cells[5], "cache MiB")?,
            internet: match cells[6].as_str() {
                "Enabled" => true,
                "Disabled" => false,
                other => return Err(ImportError::new(n, "\"Enabled\" or \"Disabled\"", Some(other))),
            },
            internet_transfer_mib: int(n, &cells[7], "transfer MiB")?,
            cache_publication_gap_s: None,
        })
    }

    /// `## Pinned results` and `## Unpinned results`: CoreMark.
    fn coremark(&mut self) -> Result<(), ImportError> {
        for (heading, header, pinned) in [("Pinned results", PINNED, true), ("Unpinned results", UNPINNED, false)] {
            let Some(section) = self.sections.get(heading) else { continue };
            for (n, c) in table(&section.lines, header, self.end)? {
                let label = self.runner(&c[0], n)?;
                let figures = self.runners.entry(label).or_default();
                first_row(&figures.cpu, n, &c[0])?;
                figures.arch = Some(arch(n, &c[1])?);
                let (min, max) = range(n, &c[3])?;
                let affinity = if pinned {
                    let (cpu, group) = c[5]
                        .split_once(" / ")
                        .ok_or_else(|| ImportError::new(n, "\"<cpu> / <group>\"", Some(&c[5])))?;
                    Affinity::Pinned { cpu: int(n, cpu, "a CPU number")?, group: int(n, group, "a group number")? }
                } else {
                    Affinity::Unpinned
                };
                let samples = if pinned { &c[6] } else { &c[5] };
                figures.cpu = Some(ImportedCpu {
                    affinity,
                    iterations_per_s: Aggregate { median: num(n, &c[2])?, min, max, variation_pct: percent(n, &c[4])? },
                    samples: int(n, samples, "a sample count")?,
                });
            }
        }
        Ok(())
    }

    /// `## Disk I/O`: the current table has counts and status, older ones
    /// not.
    fn disk(&mut self) -> Result<(), ImportError> {
        if let Some(section) = self.sections.get("Disk I/O") {
            let with_counts = section.lines.iter().any(|(_, l)| split_row(l) == DISK);
            let header = if with_counts { DISK } else { DISK_WITHOUT_COUNTS };
            for (n, c) in table(&section.lines, header, self.end)? {
                let label = self.runner(&c[0], n)?;
                let pinned = match c[1].as_str() {
                    "Pinned" => true,
                    "Unpinned" => false,
                    other => return Err(ImportError::new(n, "\"Pinned\" or \"Unpinned\"", Some(other))),
                };
                let at = if with_counts { 5 } else { 3 };
                let counts = if with_counts {
                    let parts: Vec<&str> = c[3].split(" / ").collect();
                    let [done, tried, asked] = parts.as_slice() else {
                        return Err(ImportError::new(n, "\"<completed> / <attempted> / <requested>\"", Some(&c[3])));
                    };
                    Some(Counts {
                        completed: int(n, done, "a count")?,
                        attempted: int(n, tried, "a count")?,
                        requested: int(n, asked, "a count")?,
                    })
                } else {
                    None
                };
                let figures = self.runners.entry(label).or_default();
                first_row(&figures.disk, n, &c[0])?;
                figures.disk = Some(ImportedDisk {
                    pinned,
                    file_mib: int(n, &c[2], "file MiB")?,
                    counts,
                    status: if with_counts { Some(name(n, &c[4])?) } else { None },
                    read_mib_per_s: opt_num(n, &c[at])?,
                    write_mib_per_s: opt_num(n, &c[at + 1])?,
                    rand_read_iops: opt_num(n, &c[at + 2])?,
                    rand_write_iops: opt_num(n, &c[at + 3])?,
                });
            }
        }
        Ok(())
    }

    /// `## Cache backends`, one `### <kind>` table per kind, and the
    /// publication gap the profile waits.
    fn cache(&mut self) -> Result<Option<u32>, ImportError> {
        let mut gap_s = None;
        if let Some(section) = self.sections.get("Cache backends") {
            for (n, l) in &section.lines {
                if let Some(rest) = l.strip_prefix("Profile `")
                    && let Some((_, after)) = rest.split_once("` waits ")
                    && let Some((secs, _)) = after.split_once(' ')
                {
                    gap_s = Some(int(*n, secs, "the publication gap in seconds")?);
                }
            }
            let kinds: Vec<usize> =
                section.lines.iter().enumerate().filter(|(_, (_, l))| l.starts_with("### ")).map(|(i, _)| i).collect();
            for (k, &at) in kinds.iter().enumerate() {
                let (n, heading) = section.lines[at];
                let kind = match &heading[4..] {
                    "archive-service" => CacheKind::ArchiveService,
                    "attached-volume" => CacheKind::AttachedVolume,
                    other => {
                        return Err(ImportError::new(
                            n,
                            "\"### archive-service\" or \"### attached-volume\"",
                            Some(other),
                        ));
                    }
                };
                let until = kinds.get(k + 1).copied().unwrap_or(section.lines.len());
                for (n, c) in table(&section.lines[at + 1..until], CACHE, self.end)? {
                    let label = self.runner(&c[0], n)?;
                    let (verified, pairs) = c[3]
                        .split_once('/')
                        .ok_or_else(|| ImportError::new(n, "\"<verified>/<pairs>\"", Some(&c[3])))?;
                    let backend = ImportedCacheBackend {
                        kind,
                        name: name(n, &c[1])?,
                        payload_mib: num(n, &c[2])?,
                        verified_pairs: int(n, verified, "a pair count")?,
                        pairs: int(n, pairs, "a pair count")?,
                        save_s: seconds(n, &c[4], &c[6])?,
                        save_mib_per_s: num(n, &c[5])?,
                        restore_s: seconds(n, &c[7], &c[9])?,
                        restore_mib_per_s: num(n, &c[8])?,
                    };
                    self.runners.entry(label).or_default().cache.push(backend);
                }
            }
        }
        Ok(gap_s)
    }

    /// `## Internet`: endpoints as `- **name**: url`, then the table.
    fn internet(&mut self) -> Result<(), ImportError> {
        if let Some(section) = self.sections.get("Internet") {
            let mut endpoints = Vec::new();
            for (n, l) in &section.lines {
                if let Some(item) = l.strip_prefix("- ") {
                    let (label, rest) = bold_item(*n, item, "an endpoint \"- **<name>**: <url>\"")?;
                    endpoints.push((label, rest));
                }
            }
            for (n, c) in table(&section.lines, INTERNET, self.end)? {
                let label = self.runner(&c[0], n)?;
                let url = endpoints
                    .iter()
                    .find(|(e, _)| *e == c[1])
                    .map(|(_, u)| u.clone())
                    .ok_or_else(|| ImportError::new(n, "a service listed above the table", Some(&c[1])))?;
                let available = match c[2].as_str() {
                    "ok" => true,
                    "unavailable" => false,
                    other => return Err(ImportError::new(n, "\"ok\" or \"unavailable\"", Some(other))),
                };
                let figures = self.runners.entry(label).or_default();
                first_row(&figures.internet, n, &c[0])?;
                figures.internet = Some(ImportedInternet {
                    endpoint: Endpoint { name: name(n, &c[1])?, url: name(n, &url)? },
                    available,
                    transfer_mib: int(n, &c[3], "transfer MiB")?,
                    download_mbps: opt_num(n, &c[4])?,
                    upload_mbps: opt_num(n, &c[5])?,
                    request_ms: opt_num(n, &c[6])?,
                });
            }
        }
        Ok(())
    }

    /// `## Machine and build details`.
    fn machine(&mut self) -> Result<(), ImportError> {
        let machine = self
            .sections
            .get("Machine and build details")
            .ok_or_else(|| ImportError::new(self.end, "a \"## Machine and build details\" section", None))?;
        for (n, c) in table(&machine.lines, MACHINE, self.end)? {
            let label = self.runner(&c[0], n)?;
            let opt = |s: &str| if s == NONE { Ok(None) } else { name(n, s).map(Some) };
            let build = ImportedBuild { compiler: name(n, &c[3])?, flags: name(n, &c[4])? };
            let figures = self.runners.entry(label).or_default();
            first_row(&figures.machine, n, &c[0])?;
            figures.machine = Some((opt(&c[1])?, opt(&c[2])?, build));
        }
        Ok(())
    }

    /// `## Optional stages and notices`: `- **<runner> / <stage>**:
    /// message`; the longest matching runner label wins, since one label
    /// can begin another.
    fn notices(&mut self) -> Result<(), ImportError> {
        if let Some(section) = self.sections.get("Optional stages and notices") {
            let mut labels = self.order.clone();
            labels.sort_by_key(|l| std::cmp::Reverse(l.len()));
            for (n, l) in &section.lines {
                let Some(item) = l.strip_prefix("- ") else { continue };
                let (who, message) = bold_item(*n, item, "a notice \"- **<runner> / <stage>**: <message>\"")?;
                let (label, stage) = labels
                    .iter()
                    .find_map(|label| who.strip_prefix(label.as_str())?.strip_prefix(" / ").map(|s| (label, s)))
                    .ok_or_else(|| {
                        ImportError::new(*n, "a notice that begins with a runner of the report", Some(&who))
                    })?;
                let notice = Notice {
                    stage: name(*n, stage)?,
                    message: runner_bench_format::Message::new(message)
                        .map_err(|e| ImportError::new(*n, "a message", Some(&e)))?,
                };
                self.runners.entry(label.clone()).or_default().notices.push(notice);
            }
        }
        Ok(())
    }

    /// One imported result per runner, in the order they first appear.
    fn results(
        mut self,
        src: &ImportSource,
        title: &str,
        provider_name: &str,
        profile: &PublishedProfile,
    ) -> Result<Vec<ImportedResult>, ImportError> {
        if self.order.is_empty() {
            return Err(ImportError::new(self.end, "at least one runner row", None));
        }
        let source = src.source(title)?;
        let provider = Provider {
            id: Slug::new(slugify(provider_name)).map_err(|e| ImportError::new(1, "a provider name", Some(&e)))?,
            name: Some(name(1, provider_name)?),
        };
        let mut results = Vec::new();
        for label in std::mem::take(&mut self.order) {
            let f = self.runners.remove(&label).unwrap_or_default();
            let (cpu_model, os_image, build) = match f.machine {
                Some((c, o, b)) => (c, o, Some(b)),
                None => (None, None, None),
            };
            results.push(ImportedResult {
                schema: None,
                format_version: runner_bench_format::FORMAT_VERSION,
                kind: super::source::kind(),
                source: source.clone(),
                provider: provider.clone(),
                runner: Runner { label: Slug::new(&label).expect("checked"), name: None },
                published_profile: Some(profile.clone()),
                machine: ImportedMachine { arch: f.arch, cpu_model, os_image, details: Vec::new() },
                build,
                stages: ImportedStages {
                    cpu: f.cpu,
                    disk: f.disk,
                    cache: (!f.cache.is_empty()).then_some(ImportedCache { backends: f.cache }),
                    internet: f.internet,
                    http_cache: None,
                },
                notices: f.notices,
            });
        }
        Ok(results)
    }
}

/// `Ubicloud` → `ubicloud`, `Foo Bar` → `foo-bar`.
pub fn slugify(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}
