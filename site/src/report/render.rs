//! Renders a `ReportView` with the tera template `templates/report.md`:
//! `site build` and `site serve` take it from `--templates` with the pages'
//! templates (`web::pages::templates`); the built-in copy is parsed here.

use std::collections::HashMap;
use std::sync::OnceLock;

use anyhow::Context;
use tera::{Tera, Value};

use super::view::ReportView;
use crate::figures::escape_markdown;

/// The report template, built into the binary so that `site` runs from any
/// folder; a `report.md` in the templates folder replaces it.
pub const REPORT_TEMPLATE: &str = include_str!("../../../templates/report.md");

/// The `md` filter: escapes free text from a result (names, notices) so
/// that it cannot break a table or inject markup.
pub fn markdown_filter(value: &Value, _: &HashMap<String, Value>) -> tera::Result<Value> {
    match value {
        Value::String(s) => Ok(Value::String(escape_markdown(s))),
        Value::Null => Ok(Value::String(String::new())),
        other => Ok(Value::String(escape_markdown(&other.to_string()))),
    }
}

/// The report template, parsed once per process: parsing it took about as
/// long as rendering it, and a build renders a report per provider (and
/// `site serve` again per changed provider).
fn report_tera() -> anyhow::Result<&'static Tera> {
    static TERA: OnceLock<Result<Tera, String>> = OnceLock::new();
    let parsed = TERA.get_or_init(|| {
        let mut tera = Tera::default();
        tera.add_raw_template("report.md", REPORT_TEMPLATE)
            .context("templates/report.md does not parse")
            .map_err(|e| format!("{e:#}"))?;
        tera.register_filter("md", markdown_filter);
        Ok(tera)
    });
    parsed.as_ref().map_err(|e| anyhow::anyhow!("{e}"))
}

/// The provider report as markdown, from the built-in template.
pub fn render_report(view: &ReportView) -> anyhow::Result<String> {
    render_report_with(report_tera()?, view)
}

/// The provider report as markdown, from the `report.md` of `tera` (which
/// has the `md` filter).
pub fn render_report_with(tera: &Tera, view: &ReportView) -> anyhow::Result<String> {
    let context = tera::Context::from_serialize(view).context("the report view does not serialize")?;
    tera.render("report.md", &context).with_context(|| format!("cannot render the report of {}", view.provider_id))
}
