//! The internet stage: its LibreSpeed backend and its transfer and request
//! samples.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::values::{Message, Name, NonNeg};

use super::status::Status;

/// The internet stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InternetStage {
    /// The LibreSpeed backend.
    pub endpoint: Endpoint,
    /// Download samples, in order.
    pub download: Vec<TransferSample>,
    /// Upload samples, in order.
    pub upload: Vec<TransferSample>,
    /// Zero-byte HTTPS request samples (fresh connection each).
    pub request: Vec<RequestSample>,
}

/// A LibreSpeed backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    /// Display name, e.g. `LibreSpeed (Sharktech, Amsterdam)`.
    pub name: Name,
    /// Backend URL, e.g. `https://amsspeed.sharktech.net/backend/`.
    pub url: Name,
}

/// One download or upload sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransferSample {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Bytes moved, also when it failed.
    pub bytes: u64,
    /// Seconds until it ended.
    pub seconds: NonNeg,
}

impl TransferSample {
    /// Decimal megabits per second, for a completed sample.
    pub fn mbps(&self) -> Option<f64> {
        (self.status == Status::Ok && self.seconds.get() > 0.0)
            .then(|| self.bytes as f64 * 8.0 / 1e6 / self.seconds.get())
    }
}

/// One zero-byte HTTPS request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestSample {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Milliseconds for DNS, TCP, TLS and the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<NonNeg>,
}
