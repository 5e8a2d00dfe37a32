//! The JSON Schema of result files, generated from the Rust types.
//!
//! The committed copy, docs/result-v1.schema.json, is kept equal to this by a
//! test, so that submitters can check a file in their editor.

use schemars::JsonSchema;

use crate::imported::ImportedResult;
use crate::measured::MeasuredResult;

/// Either kind of result file; used only to describe the schema, since the
/// reader dispatches on `kind` itself to give precise errors.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code, clippy::large_enum_variant, reason = "never built; it only shapes the schema")]
enum ResultFile {
    Measured(MeasuredResult),
    Imported(ImportedResult),
}

/// The schema as pretty JSON with a trailing newline.
pub fn json_schema() -> String {
    let mut schema = schemars::schema_for!(ResultFile);
    schema.insert("title".into(), "runner-bench result file, format version 1".into());
    let mut out = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
    out.push('\n');
    out
}
