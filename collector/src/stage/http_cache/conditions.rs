//! The conditions of a measurement: what the collector observes before the
//! grid (TLS, HTTP version, the round trip of a zero-byte request, the
//! bandwidth of one large GET), what the server's owner declares with
//! flags, and both in the RBCS benchmark's words for the result's list.
//!
//! The probe runs on one keep-alive connection, opened by a first request
//! that is not timed, so neither figure includes a TCP or TLS handshake.
//! Its zero-byte requests are GETs of keys no one stored: the server looks
//! the key up and answers 404 with no body, a round trip through the
//! server as every cache request makes one. An authentication failure, a
//! refused connection or a server that does not take PUTs there ends the
//! probe with an error, and the stage then runs no cell; any other failure
//! of the bandwidth entry leaves the bandwidth unmeasured, with the reason.

use std::time::{Duration, Instant};

use hyper::Version;
use runner_bench_format::measured::{Condition, HttpCacheDeclared, HttpCacheObserved};
use runner_bench_format::{Message, Name, NonNeg, median};

use super::client::{self, Connection, Connector};
use super::entries::{self, Entry};
use super::grid::{Phase, status_error};
use super::protocol::Target;
use crate::rng::SplitMix64;

/// Zero-byte requests timed for the RTT.
pub const RTT_REQUESTS: usize = 5;
/// Bytes of the entry the bandwidth GET reads.
pub const BANDWIDTH_BYTES: u64 = 8 << 20;

/// What the probe saw, and, if the server cannot be measured, why.
pub struct Probe {
    pub observed: HttpCacheObserved,
    pub fatal: Option<String>,
}

/// Runs the probe on one connection. Never fails: a failure is the probe's
/// `fatal`, or for the bandwidth alone a message in `observed`.
pub async fn probe(target: &Target, connector: &Connector, rng: &mut SplitMix64) -> Probe {
    let client = &mut Connection::default();
    let mut observed = unobserved(target);
    let mut absent = || {
        let mut bytes = [0u8; 32];
        rng.fill(&mut bytes);
        runner_bench_format::hex(&bytes)
    };
    // The first request opens the connection; it is not timed.
    let version = match zero_byte(connector, client, &absent()).await {
        Ok(version) => version,
        Err(why) => return Probe { observed, fatal: Some(why) },
    };
    observed.http_version = Some(Name::lossy(&format!("{version:?}")));
    let mut ms = Vec::with_capacity(RTT_REQUESTS);
    for _ in 0..RTT_REQUESTS {
        let start = Instant::now();
        if let Err(why) = zero_byte(connector, client, &absent()).await {
            return Probe { observed, fatal: Some(why) };
        }
        ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    observed.rtt_ms = median(&ms).and_then(|m| NonNeg::new(m).ok());

    // A value of the protocol's own kind: an action cache may refuse bytes
    // that are no ActionResult.
    let entry = match entries::for_protocol(target.protocol, 1, BANDWIDTH_BYTES, rng) {
        Ok(mut one) => one.remove(0),
        Err(why) => {
            observed.message = Some(Message::lossy(&format!("no bandwidth: {why}")));
            return Probe { observed, fatal: None };
        }
    };
    match store(connector, client, &entry).await {
        Ok(()) => {}
        Err(Refused::Stage(why)) => return Probe { observed, fatal: Some(why) },
        // The grid's entries are far smaller than the bandwidth entry: a
        // server that takes uploads there but not this one (nginx answers
        // 413 over its default `client_max_body_size` of 1 MiB) is still
        // measured, without a bandwidth.
        Err(Refused::Entry(why)) => {
            observed.message = Some(Message::lossy(&format!("no bandwidth: {why}")));
            return Probe { observed, fatal: None };
        }
    }
    match timed_get(connector, client, &entry).await {
        Ok(seconds) if seconds > Duration::ZERO => {
            observed.bandwidth_mbps = NonNeg::new(BANDWIDTH_BYTES as f64 * 8.0 / 1e6 / seconds.as_secs_f64()).ok();
            observed.bandwidth_bytes = Some(BANDWIDTH_BYTES);
        }
        Ok(_) => {}
        Err(why) => observed.message = Some(Message::lossy(&format!("no bandwidth: {why}"))),
    }
    Probe { observed, fatal: None }
}

/// What is known of a server before any request: TLS and authentication.
pub fn unobserved(target: &Target) -> HttpCacheObserved {
    HttpCacheObserved {
        tls: target.tls(),
        http_version: None,
        authentication: Name::lossy(target.auth.name()),
        rtt_ms: None,
        bandwidth_mbps: None,
        bandwidth_bytes: None,
        message: None,
    }
}

/// Why a request got no answer. A certificate the collector does not trust
/// is the usual first failure of a server with its own CA, so it says
/// which flag trusts one.
fn send_error(text: String) -> String {
    // rustls's Error::InvalidCertificate shows as "invalid peer certificate:
    // <why>".
    match text.contains("invalid peer certificate") {
        true => format!(
            "{text}: the collector does not trust the server's certificate; pass the CA that signed it with \
             --http-cache-ca-cert"
        ),
        false => text,
    }
}

/// A GET of a key no one stored: 404 (or, from a server that answers every
/// key, 2xx) is a good answer; a refused credential is not. Returns the
/// HTTP version the server answered with.
async fn zero_byte(connector: &Connector, client: &mut Connection, key: &str) -> Result<Version, String> {
    let response = client.send(connector, connector.requests.get(key)).await.map_err(send_error)?;
    let status = response.status();
    let version = response.version();
    client::drain(response.into_body()).await?;
    if !(status.is_success() || status.as_u16() == 404) {
        return Err(status_error(Phase::Get, status));
    }
    Ok(version)
}

/// Why the probe's PUT failed, and whether that ends the stage.
enum Refused {
    /// The server refuses the credentials (401, 403) or takes no uploads
    /// at the URL (404, 405, 501): no cell could succeed.
    Stage(String),
    /// Any other failure of this one large entry: another status (413 for
    /// its size, 5xx) or a connection the server closed during its body,
    /// after the zero-byte requests had been answered.
    Entry(String),
}

async fn store(connector: &Connector, client: &mut Connection, entry: &Entry) -> Result<(), Refused> {
    let request = connector.requests.put(&entry.key, entry.body.clone());
    let response = client.send(connector, request).await.map_err(|e| Refused::Entry(send_error(e)))?;
    let status = response.status();
    let _ = client::drain(response.into_body()).await;
    match status.as_u16() {
        _ if status.is_success() => Ok(()),
        401 | 403 | 404 | 405 | 501 => Err(Refused::Stage(status_error(Phase::Put, status))),
        _ => Err(Refused::Entry(status_error(Phase::Put, status))),
    }
}

async fn timed_get(connector: &Connector, client: &mut Connection, entry: &Entry) -> Result<Duration, String> {
    let start = Instant::now();
    let response = client.send(connector, connector.requests.get(&entry.key)).await.map_err(send_error)?;
    let status = response.status();
    if !status.is_success() {
        client::drain(response.into_body()).await?;
        return Err(status_error(Phase::Get, status));
    }
    let checked = client::read_entry(response.into_body(), entry).await?;
    let elapsed = start.elapsed();
    checked?;
    Ok(elapsed)
}

/// The conditions in the RBCS benchmark's words, each value marked
/// `(observed)` or `(declared)`; what is neither observed nor declared is
/// left out.
pub fn list(protocol: &str, observed: &HttpCacheObserved, declared: &HttpCacheDeclared) -> Vec<Condition> {
    let mut out: Vec<(String, String)> = vec![("Protocol".into(), protocol.to_string())];
    let seen = |v: String| format!("{v} (observed)");
    let said = |v: &str| format!("{v} (declared)");
    out.push(("TLS".into(), seen(if observed.tls { "enabled" } else { "disabled" }.into())));
    if let Some(v) = &observed.http_version {
        out.push(("HTTP version".into(), seen(v.to_string())));
    }
    out.push(("Authentication".into(), seen(observed.authentication.to_string())));
    if let Some(ms) = observed.rtt_ms {
        out.push(("Network RTT".into(), seen(format!("{:.3} ms", ms.get()))));
    }
    if let Some(mbps) = observed.bandwidth_mbps {
        out.push(("Network bandwidth".into(), seen(format!("{:.0} Mbps", mbps.get()))));
    }
    let text = |name: &str, v: &Option<Name>| v.as_ref().map(|v| (name.to_string(), said(v.as_str())));
    let number =
        |name: &str, v: Option<NonNeg>, unit: &str| v.map(|v| (name.to_string(), said(&format!("{}{unit}", v.get()))));
    out.extend(text("Software", &declared.software));
    out.extend(text("Backend", &declared.backend));
    out.extend(number("CPU quota", declared.cpu_quota, " CPUs"));
    out.extend(number("Memory quota", declared.memory_quota_gb, " GB"));
    out.extend(text("Compression", &declared.compression));
    out.extend(text("Digest", &declared.digest));
    out.into_iter().map(|(name, value)| Condition { name: Name::lossy(&name), value: Name::lossy(&value) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_say_which_are_observed_and_which_declared() {
        let observed = HttpCacheObserved {
            tls: false,
            http_version: Some(Name::lossy("HTTP/1.1")),
            authentication: Name::lossy("bearer"),
            rtt_ms: NonNeg::new(0.2125).ok(),
            bandwidth_mbps: NonNeg::new(9876.4).ok(),
            bandwidth_bytes: Some(BANDWIDTH_BYTES),
            message: None,
        };
        let declared = HttpCacheDeclared {
            software: Some(Name::lossy("nginx 1.22.1")),
            backend: Some(Name::lossy("filesystem")),
            cpu_quota: NonNeg::new(4.0).ok(),
            memory_quota_gb: None,
            compression: Some(Name::lossy("none")),
            digest: None,
        };
        let got: Vec<String> =
            list("gradle", &observed, &declared).iter().map(|c| format!("{}: {}", c.name, c.value)).collect();
        assert_eq!(
            got,
            [
                "Protocol: gradle",
                "TLS: disabled (observed)",
                "HTTP version: HTTP/1.1 (observed)",
                "Authentication: bearer (observed)",
                "Network RTT: 0.212 ms (observed)",
                "Network bandwidth: 9876 Mbps (observed)",
                "Software: nginx 1.22.1 (declared)",
                "Backend: filesystem (declared)",
                "CPU quota: 4 CPUs (declared)",
                "Compression: none (declared)",
            ]
        );
    }
}
