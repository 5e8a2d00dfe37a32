//! What a rule records: a `Problem` (a broken rule), a `Note` (a rule met
//! by an exception, and why), the `Collector` every rule pushes problems
//! to, and `Num`, a file's figure as a message shows it.

use runner_bench_format::measured::JobOutcome;

/// One broken rule in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file, as loaded.
    pub file: String,
    /// JSON path of the field (`$` for the whole file), or the place in a
    /// non-JSON file.
    pub field: String,
    /// What is wrong, and where possible what would be right.
    pub reason: String,
}

/// A rule an accepted result meets by an exception, and why.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Note {
    /// JSON path of the field.
    pub field: String,
    /// The shortfall and the jobs that explain it.
    pub reason: String,
}

#[derive(Default)]
pub(super) struct Collector {
    pub(super) problems: Vec<Problem>,
}

impl Collector {
    pub(super) fn push(&mut self, file: &str, field: impl Into<String>, reason: impl Into<String>) {
        self.problems.push(Problem { file: file.to_string(), field: field.into(), reason: reason.into() });
    }
}

/// Why a shortfall is accepted: the jobs that did not succeed and measure
/// the missing samples, `job restore-2 ended with conclusion failure`.
pub(super) fn because(jobs: &[&JobOutcome]) -> String {
    let jobs: Vec<String> =
        jobs.iter().map(|j| format!("job {} ended with conclusion {}", j.job, j.conclusion.name())).collect();
    format!("the missing ones count as attempted and not completed: {}", jobs.join("; "))
}

/// A figure from a file, as a message shows it: as written where it is of
/// an everyday size, in scientific notation where plain decimals would run
/// to hundreds of digits (`1e-300`, not `0.000…0001`). A precision, where
/// given, applies to everyday sizes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Num(pub(crate) f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x != 0.0 && !(1e-6..1e15).contains(&x.abs()) {
            return write!(f, "{x:.3e}");
        }
        match f.precision() {
            Some(p) => write!(f, "{x:.p$}"),
            None => write!(f, "{x}"),
        }
    }
}
