//! The stage's HTTP client: hyper's HTTP/1.1 client connection over a
//! tokio TcpStream, or over tokio-rustls for https, one per concurrent
//! client, kept alive from request to request, as oha drives its
//! connections.
//!
//! reqwest's client, which the stage used first, spent 1.3 to 1.7 times
//! oha's time per request on the client side (docs/benchmarks.md): a pool
//! checkout, a URL parsed per request, a timer per request for its timeout,
//! and each response body gathered into one buffer. Here a request is one
//! path string and one header map (protocol.rs), the phase's time bound is
//! the only timer (grid.rs), and a GET's body is compared with the entry
//! chunk by chunk as it arrives, never copied.
//!
//! Only HTTP/1.1 is offered, over TLS too (ALPN `http/1.1`), as the reqwest
//! client built without its http2 feature did: the RBCS benchmark's
//! clients and oha's default speak HTTP/1.1.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

use super::entries::{self, Entry};
use super::protocol::{Requests, Target};
use crate::stage::internet::chain;

/// A request's body: the whole entry, or nothing.
pub type Body = Full<Bytes>;

/// How to open a connection to the target, and its requests.
pub struct Connector {
    /// Host and port for the TCP connection (an IPv6 address without its
    /// brackets).
    host: String,
    port: u16,
    tls: Option<(TlsConnector, ServerName<'static>)>,
    pub requests: Requests,
}

impl Connector {
    /// The connector of `target`: for https, a TLS client that trusts the
    /// platform's roots and the target's extra CAs.
    pub fn new(target: &Target) -> Result<Connector, String> {
        let url = &target.base;
        let host = url.host_str().ok_or("the URL has no host")?.trim_start_matches('[').trim_end_matches(']');
        let port = url.port_or_known_default().ok_or("the URL has no port")?;
        let tls = match target.tls() {
            true => {
                let name = ServerName::try_from(host.to_string()).map_err(|e| format!("{host}: {e}"))?;
                Some((TlsConnector::from(Arc::new(tls_config(target)?)), name))
            }
            false => None,
        };
        Ok(Connector { host: host.to_string(), port, tls, requests: Requests::new(target) })
    }

    /// A new connection, its handshakes done. The messages are the ones
    /// reqwest gave, which the stage's users and tests already read.
    async fn open(&self) -> Result<SendRequest<Body>, String> {
        let connect = |why: String| format!("error sending request: client error (Connect): {why}");
        let tcp = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| connect(format!("tcp connect error: {}", chain(&e))))?;
        // Requests are small and each waits for its answer: Nagle's delay
        // would hold the last segment of each.
        tcp.set_nodelay(true).map_err(|e| connect(chain(&e)))?;
        let handshake = match &self.tls {
            None => http1::handshake(TokioIo::new(tcp)).await.map(|(send, conn)| {
                tokio::spawn(conn);
                send
            }),
            Some((tls, name)) => {
                let stream = tls.connect(name.clone(), tcp).await.map_err(|e| connect(chain(&e)))?;
                http1::handshake(TokioIo::new(stream)).await.map(|(send, conn)| {
                    tokio::spawn(conn);
                    send
                })
            }
        };
        handshake.map_err(|e| connect(chain(&e)))
    }
}

/// rustls with the ring provider (the one reqwest builds), the platform's
/// roots as reqwest's rustls-tls-native-roots loads them, and the extra CAs.
fn tls_config(target: &Target) -> Result<ClientConfig, String> {
    let mut roots = RootCertStore::empty();
    // Platform stores often hold certificates rustls cannot parse; those
    // are skipped, as reqwest skips them.
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    for ca in &target.extra_ca {
        roots.add(ca.clone()).map_err(|e| format!("the CA of --http-cache-ca-cert: {e}"))?;
    }
    let mut config = ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// One keep-alive connection, opened by its first request, and opened
/// again before a request when the server has closed it since the last.
#[derive(Default)]
pub struct Connection {
    sender: Option<SendRequest<Body>>,
}

impl Connection {
    /// Sends `request` and returns the response, its body unread. A
    /// request that fails is not sent again; the connection is dropped
    /// and the next request opens another.
    pub async fn send(&mut self, connector: &Connector, request: Request<Body>) -> Result<Response<Incoming>, String> {
        if let Some(sender) = &mut self.sender
            && sender.ready().await.is_err()
        {
            self.sender = None;
        }
        let sender = match &mut self.sender {
            Some(sender) => sender,
            None => {
                let mut sender = connector.open().await?;
                sender.ready().await.map_err(|e| format!("error sending request: {}", chain(&e)))?;
                self.sender.insert(sender)
            }
        };
        sender.send_request(request).await.map_err(|e| {
            self.sender = None;
            format!("error sending request: {}", chain(&e))
        })
    }
}

fn body_error(e: &hyper::Error) -> String {
    format!("error reading the response body: {}", chain(e))
}

/// Reads a body to its end, keeping none of it.
pub async fn drain(mut body: Incoming) -> Result<(), String> {
    while let Some(frame) = body.frame().await {
        frame.map_err(|e| body_error(&e))?;
    }
    Ok(())
}

/// Reads a body to its end and checks that it is `entry`'s, byte for
/// byte, as each chunk arrives: `Ok(Err(why))` when it is not, with the
/// message of `entries::verify`.
pub async fn read_entry(mut body: Incoming, entry: &Entry) -> Result<Result<(), String>, String> {
    let expected = entry.body.as_ref();
    let mut offset = 0;
    // Once a chunk differs, everything read, to say what came instead.
    let mut differs: Option<Vec<u8>> = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| body_error(&e))?;
        let Some(chunk) = frame.data_ref() else { continue };
        match &mut differs {
            Some(got) => got.extend_from_slice(chunk),
            None if expected.get(offset..offset + chunk.len()) == Some(chunk.as_ref()) => offset += chunk.len(),
            None => differs = Some([&expected[..offset], chunk.as_ref()].concat()),
        }
    }
    let got = match differs {
        Some(got) => got,
        None if offset == expected.len() => return Ok(Ok(())),
        None => expected[..offset].to_vec(),
    };
    Ok(entries::verify(entry, &got))
}
