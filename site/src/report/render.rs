//! Renders a `ReportView` with the tera template `templates/report.md`,
//! which `site build` and `site serve` load from `--templates` with the
//! pages' templates (`web::pages::templates`).

use std::collections::HashMap;

use anyhow::Context;
use tera::{Tera, Value};

use super::view::ReportView;
use crate::figures::escape_markdown;

/// The `md` filter: escapes free text from a result (names, notices) so
/// that it cannot break a table or inject markup.
pub fn markdown_filter(value: &Value, _: &HashMap<String, Value>) -> tera::Result<Value> {
    match value {
        Value::String(s) => Ok(Value::String(escape_markdown(s))),
        Value::Null => Ok(Value::String(String::new())),
        other => Ok(Value::String(escape_markdown(&other.to_string()))),
    }
}

/// The provider report as markdown, from the `report.md` of `tera` (the
/// templates as `web::pages::templates` loads them, with the `md` filter).
pub fn render_report(tera: &Tera, view: &ReportView) -> anyhow::Result<String> {
    let context = tera::Context::from_serialize(view).context("the report view does not serialize")?;
    tera.render("report.md", &context).with_context(|| format!("cannot render the report of {}", view.provider_id))
}
