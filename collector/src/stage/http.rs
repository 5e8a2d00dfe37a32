//! The async HTTP client that the stages' timed transfers share: reqwest's
//! async client driven on the calling thread by a current-thread tokio
//! runtime. reqwest's blocking client runs its own runtime on another
//! thread and hands every body chunk across (8 KiB at a time for a request
//! body); on one pinned CPU, or two shared with the server, each hand-off
//! costs a context switch that the measured tool does not pay.

use std::io;
use std::path::Path;

use reqwest::Url;

use std::time::Duration;
use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::pki_types::pem::PemObject;

/// The User-Agent of every request the collector makes.
pub const USER_AGENT: &str = concat!("runner-bench-collector/", env!("CARGO_PKG_VERSION"));

/// A runtime that runs the transfers on the thread that calls `block_on`.
pub fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}

/// An async client builder with the settings every transfer shares: the
/// collector's User-Agent, a total timeout per request, and no redirects
/// (a redirect would move bytes the figure does not name).
pub fn client_builder(timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder().user_agent(USER_AGENT).timeout(timeout).redirect(reqwest::redirect::Policy::none())
}

/// The CA certificates of a PEM file, DER, for the TLS client's roots.
/// Each is parsed as a trust anchor here, before anything is measured: PEM
/// armour around bytes that are no certificate used to pass, and every
/// sample of the stage then failed at its TLS client.
pub fn load_ca(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{}: no PEM certificate found", path.display()));
    }
    let mut roots = tokio_rustls::rustls::RootCertStore::empty();
    for (i, cert) in certs.iter().enumerate() {
        roots
            .add(cert.clone())
            .map_err(|e| format!("{}: certificate {} of {}: {e}", path.display(), i + 1, certs.len()))?;
    }
    Ok(certs)
}

/// An http or https URL without query, fragment or credentials, as a
/// folder (ending in `/`); `example` shows the right form in the message.
/// Credentials are refused: the URL is recorded in the result, which is
/// published, and a build-cache server's `user:password@` was never sent
/// (its credentials come from a variable, `--http-cache-basic-env`).
pub fn folder_url(text: &str, example: &str) -> Result<Url, String> {
    let mut url = Url::parse(text).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("{text:?} is not an http:// or https:// URL"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text:?} has a query or fragment; give the folder, e.g. {example}"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "{}://…@{}: the URL holds credentials, which the result would publish; give the URL without them",
            url.scheme(),
            url.host_str().unwrap_or_default()
        ));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}
