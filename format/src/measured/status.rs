//! How a sample of any stage ended, and the words that mark one a signal
//! interrupted.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the collector's notice of a run interrupted by a signal begins (its
/// stage is the stage interrupted): `site check` refuses such a run as
/// incomplete unless a job that did not succeed explains it.
pub const INTERRUPTED_NOTICE: &str = "interrupted by a signal";

/// The message of the sample a signal interrupted, recorded as an error.
pub const INTERRUPTED_SAMPLE: &str = "interrupted by a signal before the sample finished";

/// How one sample ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Completed; its figures are present.
    Ok,
    /// Exceeded the sample timeout.
    Timeout,
    /// Failed; the message says why.
    Error,
}
