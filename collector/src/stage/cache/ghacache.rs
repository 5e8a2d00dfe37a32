//! A client of the GitHub Actions cache service's v2 Twirp API, and the
//! transfers to and from the signed URLs it hands out.
//!
//! - Calls: `POST <origin>/twirp/github.actions.results.api.v1.CacheService/<Method>`
//!   with JSON bodies (proto field names, int64 as strings, defaults left
//!   out) and `Authorization: Bearer <ACTIONS_RUNTIME_TOKEN>`. As in the
//!   toolkit, the path of the base URL is discarded (WHATWG resolution of an
//!   absolute path): only scheme, host and port count.
//! - No retries, no fallbacks: any non-2xx answer, 429 included, ends the
//!   transfer with an error that names the method and the status; a
//!   restore is only ever asked for its exact key (no restore keys), and an
//!   answer naming another key is reported as a restore-key hit, a failure.
//! - Upload as `@azure/storage-blob`'s `uploadFile` with the toolkit's
//!   options: up to 128 MiB one Put Blob (`x-ms-blob-type: BlockBlob`);
//!   above, Put Block of 64 MiB blocks, 8 at a time, then Put Block List.
//! - Download as the toolkit's v2 restore: from `*.blob.core.windows.net`,
//!   a HEAD for the length, then 4 MiB ranged GETs, 8 at a time, in 128 MiB
//!   segments; from any other host, one plain GET whose length must match
//!   its Content-Length.
//! - Archives are not synced to disk, as the toolkit does not sync them.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use reqwest::Url;
use reqwest::blocking::Client as Http;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::stage::http::USER_AGENT;

const SERVICE: &str = "/twirp/github.actions.results.api.v1.CacheService/";
/// `maxSingleShotSize` the toolkit passes to the Azure SDK.
pub const MAX_SINGLE_SHOT: u64 = 128 << 20;
/// `blockSize` the toolkit passes.
pub const BLOCK_SIZE: u64 = 64 << 20;
/// `concurrency` of uploads and of ranged downloads.
pub const CONCURRENCY: usize = 8;
/// Ranged GET size of the SDK's download.
pub const RANGE_SIZE: u64 = 4 << 20;
/// Download segment size.
pub const SEGMENT_SIZE: u64 = 128 << 20;
/// Storage service version sent to the blob endpoint.
pub const MS_VERSION: &str = "2023-01-03";

/// A failure, and whether it was the timeout.
#[derive(Debug)]
pub struct TransferError {
    pub timeout: bool,
    pub error: anyhow::Error,
}

impl<E: Into<anyhow::Error>> From<E> for TransferError {
    fn from(e: E) -> Self {
        let error = e.into();
        let timeout = error.chain().any(|c| c.downcast_ref::<reqwest::Error>().is_some_and(reqwest::Error::is_timeout));
        TransferError { timeout, error }
    }
}

pub fn http(timeout: Duration) -> reqwest::Result<Http> {
    Http::builder()
        .user_agent(USER_AGENT)
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::none())
        .build()
}

/// The cache service at one origin, with one token.
pub struct Service {
    http: Http,
    origin: Url,
    token: String,
}

/// What a restore lookup answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Miss,
    Hit { url: String, matched_key: Option<String> },
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Answer {
    ok: bool,
    #[serde(alias = "signedUploadUrl")]
    signed_upload_url: String,
    #[serde(alias = "signedDownloadUrl")]
    signed_download_url: String,
    #[serde(alias = "matchedKey")]
    matched_key: String,
    #[serde(alias = "entryId")]
    entry_id: Value,
    message: String,
}

/// The origin the toolkit would call for this ACTIONS_RESULTS_URL.
pub fn origin(results_url: &str) -> Result<Url, String> {
    let url = Url::parse(results_url).map_err(|e| format!("{results_url:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("{results_url:?} is not an http(s) URL with a host"));
    }
    url.join("/").map_err(|e| e.to_string())
}

impl Service {
    pub fn new(http: Http, results_url: &str, token: &str) -> Result<Self, String> {
        Ok(Service { http, origin: origin(results_url)?, token: token.to_string() })
    }

    fn call(&self, method: &str, body: Value) -> anyhow::Result<Answer> {
        let url = self.origin.join(&format!("{SERVICE}{method}"))?;
        let resp = self
            .http
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .bearer_auth(&self.token)
            .body(body.to_string())
            .send()
            .with_context(|| format!("{method}: request failed"))?;
        let status = resp.status();
        let retry_after = resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
        let text = resp.text().with_context(|| format!("{method}: cannot read the answer"))?;
        if !status.is_success() {
            let msg = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("msg").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_else(|| text.chars().take(200).collect());
            let extra = match (status.as_u16(), retry_after) {
                (429, Some(r)) => format!(" (rate limited; retry-after {r}; the stage does not retry)"),
                (429, None) => " (rate limited; the stage does not retry)".to_string(),
                _ => String::new(),
            };
            bail!("{method}: HTTP {status}{extra}: {msg}");
        }
        serde_json::from_str(&text).with_context(|| format!("{method}: the answer is not the expected JSON"))
    }

    /// CreateCacheEntry: the signed upload URL.
    pub fn create(&self, key: &str, version: &str) -> anyhow::Result<String> {
        let a = self.call("CreateCacheEntry", json!({"key": key, "version": version}))?;
        if !a.ok || a.signed_upload_url.is_empty() {
            bail!(
                "CreateCacheEntry: the service did not reserve key {key}{}",
                if a.message.is_empty() { String::new() } else { format!(": {}", a.message) }
            );
        }
        Ok(a.signed_upload_url)
    }

    /// FinalizeCacheEntryUpload: the entry id.
    pub fn finalize(&self, key: &str, version: &str, size: u64) -> anyhow::Result<String> {
        let a = self.call(
            "FinalizeCacheEntryUpload",
            json!({"key": key, "version": version, "size_bytes": size.to_string()}),
        )?;
        if !a.ok {
            bail!(
                "FinalizeCacheEntryUpload: not accepted{}",
                if a.message.is_empty() { String::new() } else { format!(": {}", a.message) }
            );
        }
        Ok(match a.entry_id {
            Value::String(s) => s,
            Value::Null => String::new(),
            v => v.to_string(),
        })
    }

    /// GetCacheEntryDownloadURL for the exact key, without restore keys.
    pub fn lookup(&self, key: &str, version: &str) -> anyhow::Result<Lookup> {
        let a = self.call("GetCacheEntryDownloadURL", json!({"key": key, "version": version}))?;
        if !a.ok || a.signed_download_url.is_empty() {
            return Ok(Lookup::Miss);
        }
        let matched_key = (!a.matched_key.is_empty()).then_some(a.matched_key);
        Ok(Lookup::Hit { url: a.signed_download_url, matched_key })
    }
}

/// The host (and port, if any) of a URL, for routing checks.
pub fn host_of(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) => match (u.host_str(), u.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => "unknown".to_string(),
        },
        Err(_) => "unknown".to_string(),
    }
}

fn with_query(url: &str, pairs: &[(&str, &str)]) -> anyhow::Result<Url> {
    let mut u = Url::parse(url).with_context(|| "the signed URL is not a URL")?;
    {
        let mut q = u.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
    }
    Ok(u)
}

/// Transfer sizes; `TOOLKIT` is what the stage uses, smaller ones let the
/// tests reach the block and ranged paths with small files.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub max_single_shot: u64,
    pub block: u64,
    pub range: u64,
    pub segment: u64,
}

pub const TOOLKIT: Sizes =
    Sizes { max_single_shot: MAX_SINGLE_SHOT, block: BLOCK_SIZE, range: RANGE_SIZE, segment: SEGMENT_SIZE };

/// Routing pattern of GitHub's own cache storage.
pub const AZURE_BLOB: &str = "*.blob.core.windows.net";

/// Whether the toolkit would use the Azure SDK's ranged download here.
pub fn is_azure_blob(url: &str) -> bool {
    runner_bench_format::measured::host_matches(AZURE_BLOB, &host_of(url))
}

/// The transfers that move an archive's bytes to and from a signed URL on
/// this thread: the stages' shared async client (stage/http.rs).
pub struct Transfers {
    rt: tokio::runtime::Runtime,
    client: reqwest::Client,
}

impl Transfers {
    pub fn new(timeout: Duration) -> anyhow::Result<Self> {
        let rt = crate::stage::http::runtime()?;
        let client = crate::stage::http::client_builder(timeout).connect_timeout(Duration::from_secs(30)).build()?;
        Ok(Transfers { rt, client })
    }

    /// Uploads `path` to a signed blob URL as the toolkit does (see the
    /// module's notes), with `TOOLKIT`'s sizes unless a test asks for others.
    pub fn upload(&self, url: &str, path: &Path, sizes: Sizes) -> anyhow::Result<()> {
        let size = std::fs::metadata(path)?.len();
        self.rt.block_on(async {
            if size <= sizes.max_single_shot {
                let resp = self
                    .client
                    .put(url)
                    .header("x-ms-blob-type", "BlockBlob")
                    .header("x-ms-version", MS_VERSION)
                    .header("Content-Type", "application/octet-stream")
                    .header("Content-Length", size)
                    .body(reqwest::Body::wrap(FileRange::open(path, 0, size)?))
                    .send()
                    .await
                    .context("Put Blob: request failed")?;
                return check_async(resp, "Put Blob").await.map(drop);
            }
            let blocks = size.div_ceil(sizes.block) as usize;
            let prefix = uuid::Uuid::new_v4();
            let ids: Vec<String> = (0..blocks).map(|i| block_id(&prefix, i)).collect();
            // Up to CONCURRENCY Put Block requests in flight, all on this thread.
            in_flight(blocks, |i| {
                let offset = i as u64 * sizes.block;
                let len = (size - offset).min(sizes.block);
                let block_url = with_query(url, &[("comp", "block"), ("blockid", &ids[i])])?;
                let request = self
                    .client
                    .put(block_url)
                    .header("x-ms-version", MS_VERSION)
                    .header("Content-Length", len)
                    .body(reqwest::Body::wrap(FileRange::open(path, offset, len)?));
                Ok(async move {
                    let resp = request.send().await.with_context(|| format!("Put Block {i}: request failed"))?;
                    check_async(resp, &format!("Put Block {i}")).await.map(drop)
                })
            })
            .await?;
            let mut xml = String::from(r#"<?xml version="1.0" encoding="utf-8"?><BlockList>"#);
            for id in &ids {
                xml.push_str(&format!("<Latest>{id}</Latest>"));
            }
            xml.push_str("</BlockList>");
            let resp = self
                .client
                .put(with_query(url, &[("comp", "blocklist")])?)
                .header("x-ms-version", MS_VERSION)
                .header("Content-Type", "application/xml")
                .body(xml)
                .send()
                .await
                .context("Put Block List: request failed")?;
            check_async(resp, "Put Block List").await.map(drop)
        })
    }

    /// Downloads a signed URL into `path` as the toolkit's v2 restore does;
    /// returns the bytes received.
    pub fn download(&self, url: &str, path: &Path) -> anyhow::Result<u64> {
        if is_azure_blob(url) { self.download_ranged(url, path, TOOLKIT) } else { self.download_plain(url, path) }
    }

    /// HEAD, then ranged GETs (the toolkit's `downloadCacheStorageSDK`):
    /// `sizes.range` bytes each, up to CONCURRENCY at a time, one
    /// `sizes.segment` after another, each written at its offset.
    pub fn download_ranged(&self, url: &str, path: &Path, sizes: Sizes) -> anyhow::Result<u64> {
        self.rt.block_on(async {
            let head = self.client.head(url).header("x-ms-version", MS_VERSION).send().await;
            let head = check_async(head.context("download: HEAD failed")?, "download HEAD").await?;
            let size: u64 = head
                .headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| anyhow!("download: HEAD gave no Content-Length"))?;
            let file = std::sync::Arc::new(File::create(path)?);
            file.set_len(size)?;
            let mut seg = 0u64;
            while seg < size {
                let seg_len = (size - seg).min(sizes.segment);
                let ranges = seg_len.div_ceil(sizes.range) as usize;
                in_flight(ranges, |i| {
                    let start = seg + i as u64 * sizes.range;
                    let end = (start + sizes.range).min(seg + seg_len) - 1;
                    let request = self
                        .client
                        .get(url)
                        .header("x-ms-version", MS_VERSION)
                        .header("x-ms-range", format!("bytes={start}-{end}"));
                    let file = std::sync::Arc::clone(&file);
                    Ok(async move {
                        let resp = request.send().await.context("download: ranged GET failed")?;
                        let bytes = check_async(resp, "download").await?.bytes().await?;
                        if bytes.len() as u64 != end - start + 1 {
                            bail!("download: range {start}-{end} gave {} bytes", bytes.len());
                        }
                        crate::stage::disk::write_all_at(&file, &bytes, start)?;
                        Ok(())
                    })
                })
                .await?;
                seg += seg_len;
            }
            Ok(size)
        })
    }

    /// One plain GET (the toolkit's `downloadCacheHttpClient`) into `path`;
    /// returns the bytes received.
    pub fn download_plain(&self, url: &str, path: &Path) -> anyhow::Result<u64> {
        self.rt.block_on(async {
            let resp = self.client.get(url).send().await.context("download: request failed")?;
            let mut resp = check_async(resp, "download").await?;
            let expected = resp.content_length();
            let mut file = io::BufWriter::with_capacity(1 << 20, File::create(path)?);
            let mut got = 0u64;
            while let Some(chunk) = resp.chunk().await.context("download: connection failed")? {
                file.write_all(&chunk)?;
                got += chunk.len() as u64;
            }
            file.flush()?;
            if let Some(len) = expected
                && len != got
            {
                bail!("download: received {got} bytes but Content-Length was {len}");
            }
            Ok(got)
        })
    }
}

/// Runs the requests `start(0..count)` makes, up to CONCURRENCY at a time
/// on this thread, as the official client runs its block uploads and
/// ranged downloads. The first failure ends it; dropping the set cancels
/// the requests still running.
async fn in_flight<F>(count: usize, mut start: impl FnMut(usize) -> anyhow::Result<F>) -> anyhow::Result<()>
where
    F: std::future::Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let mut running = tokio::task::JoinSet::new();
    let mut next = 0;
    while next < count || !running.is_empty() {
        while next < count && running.len() < CONCURRENCY {
            running.spawn(start(next)?);
            next += 1;
        }
        if let Some(done) = running.join_next().await {
            done.context("a transfer task failed")??;
        }
    }
    Ok(())
}

async fn check_async(resp: reqwest::Response, what: &str) -> anyhow::Result<reqwest::Response> {
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    let body: String = resp.text().await.unwrap_or_default().chars().take(200).collect();
    bail!("{what}: HTTP {status}: {body}")
}

/// A byte range of a file as a request body, read 1 MiB at a time on the
/// runtime's thread: the archive was just written, so reads come from the
/// page cache and take microseconds.
struct FileRange {
    file: File,
    left: u64,
}

impl FileRange {
    fn open(path: &Path, offset: u64, len: u64) -> io::Result<FileRange> {
        let mut file = File::open(path)?;
        file.seek(SeekFrom::Start(offset))?;
        Ok(FileRange { file, left: len })
    }
}

impl http_body::Body for FileRange {
    type Data = bytes::Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, io::Error>>> {
        if self.left == 0 {
            return std::task::Poll::Ready(None);
        }
        let mut chunk = vec![0u8; self.left.min(1 << 20) as usize];
        let read = self.file.read_exact(&mut chunk);
        self.left -= chunk.len() as u64;
        std::task::Poll::Ready(Some(read.map(|()| http_body::Frame::data(chunk.into()))))
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}

/// Block `index`'s id, as `@azure/storage-blob`'s `generateBlockID`: the
/// upload's UUID and the index padded with zeros to 48 characters, in
/// standard base64 with padding (64 characters, the same length for every
/// block of a blob, as Put Block requires).
fn block_id(prefix: &uuid::Uuid, index: usize) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(format!("{}{index:012}", prefix.hyphenated()))
}

/// The Azurite + cache service harness, shared with collector/tests/suite/cache.rs.
#[cfg(test)]
#[path = "../../../tests/support/azurite.rs"]
#[allow(dead_code, reason = "the integration tests use more of the harness than these tests do")]
mod azurite;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_drops_the_path_as_the_toolkit_does() {
        assert_eq!(
            origin("https://results-receiver.actions.githubusercontent.com/").unwrap().as_str(),
            "https://results-receiver.actions.githubusercontent.com/"
        );
        assert_eq!(origin("http://10.0.0.5:51123/random_token/").unwrap().as_str(), "http://10.0.0.5:51123/");
        assert!(origin("not a url").is_err());
    }

    #[test]
    fn block_ids_are_64_base64_characters() {
        let prefix = uuid::Uuid::parse_str("7a2b1c3d-4e5f-4789-abcd-ef0123456789").unwrap();
        assert_eq!(block_id(&prefix, 7), "N2EyYjFjM2QtNGU1Zi00Nzg5LWFiY2QtZWYwMTIzNDU2Nzg5MDAwMDAwMDAwMDA3");
        let random = uuid::Uuid::new_v4();
        assert_eq!(random.get_version_num(), 4);
        assert_ne!(random, uuid::Uuid::new_v4());
        assert_eq!(block_id(&random, 49_999).len(), 64);
    }

    #[test]
    fn hosts_and_azure() {
        assert_eq!(host_of("http://127.0.0.1:10000/devstoreaccount1/c/b?sig=x"), "127.0.0.1:10000");
        assert!(is_azure_blob("https://acct.blob.core.windows.net/c/b?sv=1"));
        assert!(!is_azure_blob("http://127.0.0.1:10000/devstoreaccount1/c/b"));
    }

    /// The block upload and the ranged download against Azurite, with small
    /// sizes so that a 1 MiB file takes several blocks, ranges and segments.
    #[test]
    fn blocks_and_ranges_against_azurite() {
        let services = azurite::Services::start();
        let tmp = tempfile::tempdir().unwrap();
        let sas = |perm: &str| -> String {
            let v: Value = serde_json::from_str(
                &services.control(&format!("sas?blob=t.bin&permissions={perm}")).send().unwrap().text().unwrap(),
            )
            .unwrap();
            v["url"].as_str().unwrap().to_string()
        };
        let data: Vec<u8> = (0..(1u32 << 20) + 12345).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let src = tmp.path().join("src.bin");
        std::fs::write(&src, &data).unwrap();
        let small = Sizes { max_single_shot: 100_000, block: 300_000, range: 70_000, segment: 250_000 };
        let transfers = Transfers::new(Duration::from_secs(30)).unwrap();
        transfers.upload(&sas("cw"), &src, small).unwrap();
        let dst = tmp.path().join("dst.bin");
        assert_eq!(transfers.download_ranged(&sas("r"), &dst, small).unwrap(), data.len() as u64);
        assert!(std::fs::read(&dst).unwrap() == data, "ranged download differs");
        let dst2 = tmp.path().join("dst2.bin");
        assert_eq!(transfers.download_plain(&sas("r"), &dst2).unwrap(), data.len() as u64);
        assert!(std::fs::read(&dst2).unwrap() == data, "plain download differs");
        // A single-shot upload replaces it.
        transfers.upload(&sas("cw"), &dst, TOOLKIT).unwrap();
        let dst3 = tmp.path().join("dst3.bin");
        assert_eq!(transfers.download_plain(&sas("r"), &dst3).unwrap(), data.len() as u64);
        assert!(std::fs::read(&dst3).unwrap() == data, "the single-shot upload differs");
    }
}
