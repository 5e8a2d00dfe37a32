//! The http-cache stage's flags on `collector run`, checked into the
//! stage's settings (its `Target` and the declared conditions) before
//! anything is measured.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use runner_bench_format::measured::{HttpCacheDeclared, HttpCacheProtocol};
use runner_bench_format::{Name, NonNeg};

use crate::error::UsageError;
use crate::stage::http::load_ca;
use crate::stage::http_cache::protocol::{Auth, HttpCacheSettings, Requests, Target, base_url};

/// A build-cache protocol, as a flag value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// Gradle's HTTP build cache: PUT/GET <url>/<key>.
    Gradle,
    /// Bazel's HTTP remote cache: PUT/GET <url>/cas/<sha256>.
    Bazel,
    /// Bazel's HTTP remote cache, its action cache: PUT/GET <url>/ac/<sha256>,
    /// each value an ActionResult message with one inlined output file.
    #[value(name = "bazel-ac")]
    BazelAc,
    /// Turborepo's remote cache API: PUT/GET <url>/v8/artifacts/<hash>?teamId=<team>.
    Turborepo,
    /// Plain HTTP/WebDAV: PUT/GET <url>/<name>.
    Webdav,
}

impl ProtocolArg {
    fn protocol(self) -> HttpCacheProtocol {
        match self {
            ProtocolArg::Gradle => HttpCacheProtocol::Gradle,
            ProtocolArg::Bazel => HttpCacheProtocol::Bazel,
            ProtocolArg::BazelAc => HttpCacheProtocol::BazelAc,
            ProtocolArg::Turborepo => HttpCacheProtocol::Turborepo,
            ProtocolArg::Webdav => HttpCacheProtocol::Webdav,
        }
    }
}

#[derive(Debug, Args)]
pub struct HttpCacheArgs {
    /// Base URL of the build-cache server the http-cache stage measures,
    /// e.g. `https://cache.example.org/cache/`; required by that stage.
    #[arg(long, env = "RUNNER_BENCH_HTTP_CACHE_URL")]
    pub http_cache_url: Option<String>,

    /// The API that server speaks.
    #[arg(long, value_enum, default_value = "gradle", env = "RUNNER_BENCH_HTTP_CACHE_PROTOCOL")]
    pub http_cache_protocol: ProtocolArg,

    /// PEM file of a CA certificate the http-cache stage trusts besides the
    /// platform's roots.
    #[arg(long, env = "RUNNER_BENCH_HTTP_CACHE_CA_CERT")]
    pub http_cache_ca_cert: Option<PathBuf>,

    /// Name of an environment variable holding a bearer token for the
    /// cache (Turborepo's TURBO_TOKEN, for one). The token is sent, never
    /// recorded; one line ending at its end (a secret read from a file) is
    /// dropped.
    #[arg(long, value_name = "VAR", conflicts_with = "http_cache_basic_env")]
    pub http_cache_token_env: Option<String>,

    /// Name of an environment variable holding `user:password` for HTTP
    /// basic authentication. Sent, never recorded; one line ending at its
    /// end is dropped.
    #[arg(long, value_name = "VAR")]
    pub http_cache_basic_env: Option<String>,

    /// Turborepo's team id (the `teamId` of every request).
    #[arg(long, default_value = "runner-bench")]
    pub http_cache_team: String,

    /// Entries PUT and GET per cell, instead of the profile's
    /// (`http_cache_entries`, 1000 in the standard profile, as RBCS's
    /// benchmark). For benchmarking the collector itself: with another
    /// count the result's parameters are no profile's, so the site does
    /// not accept it.
    #[arg(long, value_name = "N")]
    pub http_cache_entries: Option<u32>,

    /// Entry sizes of the grid, bytes, comma-separated, instead of the
    /// profile's (`http_cache_value_bytes`); as --http-cache-entries, the
    /// result is then no profile's.
    #[arg(long, value_name = "BYTES,...", value_delimiter = ',')]
    pub http_cache_value_bytes: Option<Vec<u64>>,

    /// Connection counts of the grid, comma-separated, instead of the
    /// profile's (`http_cache_connections`); as --http-cache-entries, the
    /// result is then no profile's.
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    pub http_cache_connections: Option<Vec<u32>>,

    /// Declared: the server's software and version, e.g. `nginx 1.22.1`.
    #[arg(long)]
    pub http_cache_software: Option<String>,

    /// Declared: the server's storage backend, e.g. `filesystem`.
    #[arg(long)]
    pub http_cache_backend: Option<String>,

    /// Declared: the server's CPU quota, CPUs.
    #[arg(long)]
    pub http_cache_cpu_quota: Option<f64>,

    /// Declared: the server's memory quota, GB.
    #[arg(long)]
    pub http_cache_memory_quota_gb: Option<f64>,

    /// Declared: the compression the server applies, e.g. `none`.
    #[arg(long)]
    pub http_cache_compression: Option<String>,

    /// Declared: the digest the server keys entries by, e.g. `SHA-256`.
    #[arg(long)]
    pub http_cache_digest: Option<String>,
}

impl HttpCacheArgs {
    /// The checked settings, or None without a URL; `needed` when the
    /// stage was asked for, which then requires the URL.
    pub fn resolve(&self, needed: bool) -> Result<Option<HttpCacheSettings>, UsageError> {
        let invalid = |flag: &'static str| move |reason: String| UsageError::InvalidValue { flag, reason };
        let Some(url) = &self.http_cache_url else {
            return match needed {
                true => Err(invalid("http-cache-url")(
                    "the http-cache stage needs the cache server's base URL, e.g. --http-cache-url \
                     https://cache.example.org/cache/"
                        .to_string(),
                )),
                false => Ok(None),
            };
        };
        let base = base_url(url).map_err(invalid("http-cache-url"))?;
        let extra_ca = match &self.http_cache_ca_cert {
            Some(path) => load_ca(path).map_err(invalid("http-cache-ca-cert"))?,
            None => Vec::new(),
        };
        let auth = match (&self.http_cache_token_env, &self.http_cache_basic_env) {
            (Some(var), _) => Auth::Bearer(
                secret(var).and_then(|token| header_safe(var, token)).map_err(invalid("http-cache-token-env"))?,
            ),
            (None, Some(var)) => {
                let pair = secret(var).map_err(invalid("http-cache-basic-env"))?;
                let (user, password) = pair
                    .split_once(':')
                    .ok_or_else(|| invalid("http-cache-basic-env")(format!("{var} holds no `user:password`")))?;
                Auth::Basic { user: user.to_string(), password: password.to_string() }
            }
            (None, None) => Auth::None,
        };
        let target = Target {
            base,
            protocol: self.http_cache_protocol.protocol(),
            auth,
            team: self.http_cache_team.clone(),
            extra_ca,
        };
        Requests::new(&target).check().map_err(invalid("http-cache-url"))?;
        let text = |flag: &'static str, v: &Option<String>| v.clone().map(Name::new).transpose().map_err(invalid(flag));
        let number = |flag: &'static str, v: Option<f64>| v.map(NonNeg::new).transpose().map_err(invalid(flag));
        let declared = HttpCacheDeclared {
            software: text("http-cache-software", &self.http_cache_software)?,
            backend: text("http-cache-backend", &self.http_cache_backend)?,
            cpu_quota: number("http-cache-cpu-quota", self.http_cache_cpu_quota)?,
            memory_quota_gb: number("http-cache-memory-quota-gb", self.http_cache_memory_quota_gb)?,
            compression: text("http-cache-compression", &self.http_cache_compression)?,
            digest: text("http-cache-digest", &self.http_cache_digest)?,
        };
        Ok(Some(HttpCacheSettings { target, declared }))
    }
}

/// The value of the environment variable `var`, which must be set and not
/// empty, without one line ending at its end: a secret set from a file
/// (`gh secret set NAME < token.txt`) often ends in one, which is not part
/// of the secret (and which a bearer token's header cannot carry, so that
/// every request went out without credentials). The value never appears in
/// a message.
fn secret(var: &str) -> Result<String, String> {
    let value = match std::env::var(var) {
        Ok(v) => v,
        Err(std::env::VarError::NotPresent) => return Err(format!("the environment variable {var} is not set")),
        Err(std::env::VarError::NotUnicode(_)) => return Err(format!("the environment variable {var} is not UTF-8")),
    };
    let value = without_line_ending(&value);
    if value.is_empty() {
        return Err(format!("the environment variable {var} is empty"));
    }
    Ok(value.to_string())
}

/// `s` without one `\n` or `\r\n` at its end.
fn without_line_ending(s: &str) -> &str {
    s.strip_suffix('\n').map_or(s, |v| v.strip_suffix('\r').unwrap_or(v))
}

/// `token` where an HTTP header can carry it as it is (a bearer token; basic
/// credentials go in base64): no ASCII control character but tab.
fn header_safe(var: &str, token: String) -> Result<String, String> {
    if let Some((i, c)) = token.chars().enumerate().find(|(_, c)| c.is_ascii_control() && *c != '\t') {
        return Err(format!(
            "the environment variable {var} holds the control character U+{:04X} at character {}, which an HTTP \
             header cannot carry",
            c as u32,
            i + 1
        ));
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_ending_is_dropped_from_a_secret() {
        assert_eq!(without_line_ending("token\n"), "token");
        assert_eq!(without_line_ending("token\r\n"), "token");
        assert_eq!(without_line_ending("user:pass\n\n"), "user:pass\n");
        assert_eq!(without_line_ending("token\r"), "token\r");
        assert_eq!(without_line_ending("token"), "token");
    }

    #[test]
    fn a_bearer_token_with_a_control_character_is_refused() {
        assert_eq!(header_safe("T", "tab\tand é".to_string()), Ok("tab\tand é".to_string()));
        assert_eq!(
            header_safe("T", "abc\u{7f}".to_string()).unwrap_err(),
            "the environment variable T holds the control character U+007F at character 4, which an HTTP header \
             cannot carry"
        );
    }
}
