//! The coverage page: which runners have results for which benchmark
//! stages, and which their newest result lacks.

use serde::Serialize;
use tera::Tera;

use super::pages::{Common, render};
use crate::model::Stages;

/// A row of the coverage page.
#[derive(Debug, Clone, Serialize)]
pub(super) struct CoverageRow {
    pub provider_id: String,
    pub provider_name: String,
    pub label: String,
    pub url: String,
    pub newest: Stages,
    pub any: Stages,
    /// Stage names its newest result lacks.
    pub missing: Vec<&'static str>,
    /// The stages its newest result has but not complete (`Meta::incomplete_stages`).
    pub incomplete: Vec<&'static str>,
    /// Why its newest result is incomplete (`Meta::incomplete_why`).
    pub reasons: Vec<String>,
}

#[derive(Serialize)]
struct CoverageContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    stages: Vec<&'static str>,
    rows: &'a [CoverageRow],
    complete: usize,
}

/// Which runners have which stages.
pub(super) fn page(tera: &Tera, common: &Common, rows: &[CoverageRow]) -> anyhow::Result<String> {
    let ctx = CoverageContext {
        common,
        title: "Coverage",
        description: "Which runners have results for which benchmark stages, and which are missing.",
        stages: Stages::default().list().iter().map(|s| s.0).collect(),
        rows,
        complete: rows.iter().filter(|r| r.missing.is_empty() && r.incomplete.is_empty()).count(),
    };
    render(tera, "coverage.html", &ctx)
}
