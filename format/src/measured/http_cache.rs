//! The remote build-cache stage: the server, its conditions, and each run's
//! PUT and GET phases.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::values::{Message, Name, NonNeg};

use super::status::Status;

/// The remote build-cache stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheStage {
    /// The server measured.
    pub server: HttpCacheServer,
    /// One run per backend, entry size and connection count.
    pub runs: Vec<HttpCacheRun>,
}

/// A remote build-cache server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheServer {
    /// Base URL entries are PUT to and GET from.
    pub url: Name,
    /// Server software, e.g. `RBCS 0.3.0`.
    pub software: Name,
    /// Test conditions, as the RBCS benchmark lists them. A measured
    /// stage lists here, in words, its protocol, then what `observed` and
    /// `declared` hold, each value ending in `(observed)` or `(declared)`.
    pub conditions: Vec<Condition>,
    /// The API the collector spoke to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<HttpCacheProtocol>,
    /// What the collector measured about the way to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<HttpCacheObserved>,
    /// What the server's owner stated with flags: the collector cannot see
    /// it, so it is recorded as declared, never as measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<HttpCacheDeclared>,
}

/// A build-cache API: the shape of its PUT and GET requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HttpCacheProtocol {
    /// Gradle's HTTP build cache: `PUT`/`GET <base>/<key>`.
    Gradle,
    /// Bazel's HTTP remote cache: `PUT`/`GET <base>/cas/<sha256 of the body>`.
    Bazel,
    /// Bazel's HTTP remote cache, its action cache: `PUT`/`GET
    /// <base>/ac/<sha256>`, each value an `ActionResult` message.
    #[serde(rename = "bazel-ac")]
    BazelAc,
    /// Turborepo's remote cache API: `PUT`/`GET
    /// <base>/v8/artifacts/<hash>?teamId=<team>` with a bearer token.
    Turborepo,
    /// Plain HTTP/WebDAV: `PUT`/`GET <base>/<name>`.
    Webdav,
}

impl HttpCacheProtocol {
    /// The protocol's name in flags and result files.
    pub fn name(self) -> &'static str {
        match self {
            HttpCacheProtocol::Gradle => "gradle",
            HttpCacheProtocol::Bazel => "bazel",
            HttpCacheProtocol::BazelAc => "bazel-ac",
            HttpCacheProtocol::Turborepo => "turborepo",
            HttpCacheProtocol::Webdav => "webdav",
        }
    }
}

/// The conditions the collector observed itself, before the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheObserved {
    /// Whether the URL is https.
    pub tls: bool,
    /// The HTTP version the server answered with, e.g. `HTTP/1.1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_version: Option<Name>,
    /// How the collector authenticated: `none`, `basic` or `bearer` (never
    /// the credentials).
    pub authentication: Name,
    /// Median time of a zero-byte request (a GET of an absent key) on a
    /// warm keep-alive connection, ms: the round trip through the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<NonNeg>,
    /// Throughput of one large GET on a warm connection, Mbps (10^6 bit/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mbps: Option<NonNeg>,
    /// Bytes of that GET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_bytes: Option<u64>,
    /// Why an observation is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
}

/// The conditions only the server's owner knows, as they declared them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheDeclared {
    /// Server software and version, e.g. `nginx 1.24.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software: Option<Name>,
    /// Storage backend, e.g. `filesystem`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<Name>,
    /// Server CPU quota, CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_quota: Option<NonNeg>,
    /// Server memory quota, GB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_quota_gb: Option<NonNeg>,
    /// Compression the server applies, e.g. `none` or `deflate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<Name>,
    /// Digest the server keys entries by, e.g. `SHA-256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<Name>,
}

/// One named test condition, e.g. `TLS: disabled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// e.g. `TLS`.
    pub name: Name,
    /// e.g. `disabled`.
    pub value: Name,
}

/// PUT then GET of every entry at one entry size and connection count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheRun {
    /// Server-side backend, e.g. `in-memory`.
    pub backend: Name,
    /// Server CPU quota in CPUs, where limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_quota: Option<NonNeg>,
    /// Server memory quota, GB, where limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_quota_gb: Option<NonNeg>,
    /// Entry size, bytes.
    pub value_bytes: u64,
    /// Client connections.
    pub connections: u32,
    /// The PUT phase.
    pub put: HttpCachePhase,
    /// The GET phase.
    pub get: HttpCachePhase,
}

/// One phase of a build-cache run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCachePhase {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Requests that succeeded (GET: byte-identical hits).
    pub succeeded: u32,
    /// Requests that failed or returned wrong bytes.
    pub failed: u32,
    /// Seconds for the phase.
    pub seconds: NonNeg,
    /// Median time of one request, from sending it to the last byte of its
    /// answer, ms (every answered request, failed ones too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p50_ms: Option<NonNeg>,
    /// 90th percentile of that time, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p90_ms: Option<NonNeg>,
    /// 99th percentile of that time, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_ms: Option<NonNeg>,
}

impl HttpCachePhase {
    /// Requests per second, as RBCS computes it: entries ÷ seconds. The two
    /// counters are added as u64, so that no file can overflow their sum.
    pub fn requests_per_s(&self) -> Option<f64> {
        (self.status == Status::Ok && self.seconds.get() > 0.0)
            .then(|| (u64::from(self.succeeded) + u64::from(self.failed)) as f64 / self.seconds.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13: both counts at `u32::MAX` overflowed their u32 sum.
    #[test]
    fn requests_per_s_of_the_largest_counts() {
        let phase = HttpCachePhase {
            status: Status::Ok,
            message: None,
            succeeded: u32::MAX,
            failed: u32::MAX,
            seconds: NonNeg::new(2.0).unwrap(),
            latency_p50_ms: None,
            latency_p90_ms: None,
            latency_p99_ms: None,
        };
        assert_eq!(phase.requests_per_s(), Some(f64::from(u32::MAX)));
    }
}
