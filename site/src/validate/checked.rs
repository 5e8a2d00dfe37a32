//! The outcome of a check (`Checked`): the accepted results (`Run`, or
//! `site check`'s `Verdict` of each) and every problem, and how a check
//! reports them, for people and as GitHub Actions workflow commands.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use runner_bench_format::{AnyResult, MAX_FILE_BYTES};

use super::findings::{Note, Problem};
use crate::escape;
use crate::releases::ReleaseStatus;

/// A result that passed every rule.
#[derive(Debug, Clone)]
pub struct Run {
    /// The file, as loaded.
    pub file: String,
    /// The path below the results folder.
    pub rel_path: String,
    /// The result, shared with `site serve`'s cache of parsed files.
    pub result: Arc<AnyResult>,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// Why maintainers keep it out of comparisons, if they do.
    pub excluded: Option<String>,
    /// Whether a measured result ran a published release's collector
    /// (`releases`); `None` for an imported result.
    pub release: Option<ReleaseStatus>,
    /// Rules the result meets only by an exception, each with why: fewer
    /// samples than requested where a job that did not succeed measured
    /// them (`provenance.jobs`).
    pub notes: Vec<Note>,
}

impl Run {
    /// The provider's id.
    pub fn provider_id(&self) -> String {
        match &*self.result {
            AnyResult::Measured(m) => m.provider.id.to_string(),
            AnyResult::Imported(i) => i.provider.id.to_string(),
        }
    }

    /// The runner's label.
    pub fn runner_label(&self) -> String {
        match &*self.result {
            AnyResult::Measured(m) => m.runner.label.to_string(),
            AnyResult::Imported(i) => i.runner.label.to_string(),
        }
    }

    /// When it was measured (or imported), as RFC 3339.
    pub fn date(&self) -> &str {
        match &*self.result {
            AnyResult::Measured(m) => m.provenance.started_at.as_str(),
            AnyResult::Imported(i) => i.source.imported_at.as_str(),
        }
    }
}

/// The outcome of a check: by default each accepted file as a `Run`; a
/// check that hands each file to a `KeepAccepted` (`validate`) holds what
/// that made of it instead.
#[derive(Debug)]
pub struct Checked<R = Run> {
    /// Files that passed, in path order.
    pub runs: Vec<R>,
    /// Every problem, grouped by file in path order.
    pub problems: Vec<Problem>,
    /// Result files looked at.
    pub files: usize,
    /// Folders checked that hold no result file (`refuse_empty_folders`).
    pub empty_folders: Vec<std::path::PathBuf>,
}

impl<R> Default for Checked<R> {
    fn default() -> Self {
        Checked { runs: Vec::new(), problems: Vec::new(), files: 0, empty_folders: Vec::new() }
    }
}

impl<R> Checked<R> {
    /// Problems as GitHub Actions workflow commands, one annotation each.
    /// Each annotation carries the line of the problem's JSON path where the
    /// file can be read and the path found (`locate`), so that the pull
    /// request shows it on that line.
    pub fn github_report(&self) -> String {
        let mut out = String::new();
        let mut texts: std::collections::HashMap<&str, Option<String>> = std::collections::HashMap::new();
        for p in &self.problems {
            let text = texts.entry(p.file.as_str()).or_insert_with(|| text_to_locate(&p.file));
            let line = text.as_deref().and_then(|t| crate::locate::line_of(t, &p.field));
            let _ = writeln!(
                out,
                "::error file={}{},title={}::{}",
                escape_property(&p.file),
                line.map(|n| format!(",line={n}")).unwrap_or_default(),
                escape_property("site check"),
                escape_data(&format!("{}: {}", p.field, p.reason))
            );
        }
        out
    }

    /// Files with at least one problem (an exclusions file counts).
    pub fn rejected_files(&self) -> Vec<&str> {
        let mut files: Vec<&str> = Vec::new();
        for p in &self.problems {
            if !files.contains(&p.file.as_str()) {
                files.push(&p.file);
            }
        }
        files
    }

    /// Problems for people: each file once, then its problems indented.
    /// Text from the files is escaped (`escape`), as in every report.
    pub fn human_report(&self) -> String {
        let mut out = String::new();
        for file in self.rejected_files() {
            let _ = writeln!(out, "{}", escape::text(file));
            for p in self.problems.iter().filter(|p| p.file == file) {
                let _ = writeln!(out, "  {}: {}", escape::text(&p.field), escape::text(&p.reason));
            }
        }
        let rejected = self.rejected_files().len();
        if rejected == 0 {
            let _ = writeln!(out, "{} files accepted", self.files);
        } else {
            let _ = writeln!(out, "{rejected} rejected, {} of {} result files accepted", self.runs.len(), self.files);
        }
        out
    }
}

/// What `site check` reports of an accepted result, without the parsed
/// result: `site check` of 10,000 results need not hold them all (190 MB).
#[derive(Debug, Clone)]
pub struct Verdict {
    pub file: String,
    pub provider_id: String,
    pub runner_label: String,
    pub release: Option<ReleaseStatus>,
    pub notes: Vec<Note>,
    /// The logical CPUs and memory bytes a measured result recorded of
    /// its machine, which `site check` compares with the provider's file.
    pub machine: Option<(u32, u64)>,
}

impl Verdict {
    /// The verdict on `run` (a `KeepAccepted` for `validate`).
    pub fn of(run: &Run) -> Verdict {
        Verdict {
            file: run.file.clone(),
            provider_id: run.provider_id(),
            runner_label: run.runner_label(),
            release: run.release.clone(),
            notes: run.notes.clone(),
            machine: match &*run.result {
                AnyResult::Measured(m) => Some((m.machine.logical_cpus, m.machine.memory_bytes)),
                AnyResult::Imported(_) => None,
            },
        }
    }
}

impl Checked<Verdict> {
    /// For people: each accepted measured result's release status, then
    /// its notes, indented.
    pub fn status_report(&self) -> String {
        let mut out = String::new();
        for run in &self.runs {
            if let Some(status) = &run.release {
                let _ = writeln!(out, "{}: {}", escape::text(&run.file), escape::text(&status.describe()));
            }
            for n in &run.notes {
                let _ = writeln!(out, "  {}: {}", escape::text(&n.field), escape::text(&n.reason));
            }
        }
        out
    }

    /// `status_report` as GitHub Actions notices, each note on its line.
    pub fn github_status_report(&self) -> String {
        let mut out = String::new();
        for run in &self.runs {
            let text = (!run.notes.is_empty()).then(|| text_to_locate(&run.file)).flatten();
            let mut notice = |line: Option<usize>, message: &str| {
                let _ = writeln!(
                    out,
                    "::notice file={}{},title={}::{}",
                    escape_property(&run.file),
                    line.map(|n| format!(",line={n}")).unwrap_or_default(),
                    escape_property("site check"),
                    escape_data(message)
                );
            };
            if let Some(status) = &run.release {
                notice(None, &status.describe());
            }
            for n in &run.notes {
                let line = text.as_deref().and_then(|t| crate::locate::line_of(t, &n.field));
                notice(line, &format!("{}: {}", n.field, n.reason));
            }
        }
        out
    }
}

/// Workflow-command data escaping (GitHub's `escapeData`), after the
/// control characters of every report (`escape::text`), so that no text
/// from a file reaches an annotation raw.
pub(crate) fn escape_data(s: &str) -> String {
    escape::text(s).replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Workflow-command property escaping (GitHub's `escapeProperty`).
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The reason of `Checked::refuse_empty_folders`'s problems.
const EMPTY_FOLDER: &str = "holds no result file (*.json): nothing was checked";

impl<R> Checked<R> {
    /// Makes each folder checked that holds no result file a problem (on
    /// the folder, at `$`). `site check` calls it: a gate that checked
    /// nothing must not pass, whether it was given the wrong folder or a
    /// new provider's folder before its first result. `site build` and
    /// `site serve` do not: a site with no results is still a site.
    pub fn refuse_empty_folders(&mut self) {
        for folder in &self.empty_folders {
            self.problems.push(Problem {
                file: folder.display().to_string(),
                field: "$".to_string(),
                reason: EMPTY_FOLDER.to_string(),
            });
        }
    }
}

/// The text of a problem's file, to find the line of its JSON path, where
/// it is a plain file (never through a link, nor a FIFO that would block)
/// within the size limit.
fn text_to_locate(file: &str) -> Option<String> {
    let meta = std::fs::symlink_metadata(Path::new(file)).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read_to_string(file).ok()
}
