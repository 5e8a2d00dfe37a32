//! Where an entry goes and how a request for it is made, for each of the
//! five build-cache protocols, and the server the stage measures.
//!
//! Every entry's key is the lowercase hex SHA-256 of its body: Bazel's CAS
//! requires exactly that, and its action cache, Gradle, Turborepo and
//! WebDAV take any hex name, so one key serves all five and a GET's body can be checked
//! against its own name.

use std::fmt;

use base64::Engine;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue, USER_AGENT};
use hyper::{Method, Request};
use reqwest::Url;
use runner_bench_format::measured::{HttpCacheDeclared, HttpCacheProtocol};
use tokio_rustls::rustls::pki_types::CertificateDer;

use crate::stage::http;

/// How the collector authenticates. Its Debug form never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub enum Auth {
    None,
    /// `user:password`, sent as HTTP basic credentials.
    Basic {
        user: String,
        password: String,
    },
    /// A token, sent as `Authorization: Bearer <token>`.
    Bearer(String),
}

impl Auth {
    /// Its name in the result: the kind, never the credentials.
    pub fn name(&self) -> &'static str {
        match self {
            Auth::None => "none",
            Auth::Basic { .. } => "basic",
            Auth::Bearer(_) => "bearer",
        }
    }

    /// The `Authorization` header's value, marked sensitive (hyper then
    /// keeps it out of its debug output), or None without credentials.
    /// None too for a value that no header may carry, which the flags
    /// refuse before a run (cmd/run/http_cache_args.rs) and so never reaches here.
    fn header(&self) -> Option<HeaderValue> {
        let text = match self {
            Auth::None => return None,
            Auth::Basic { user, password } => {
                format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")))
            }
            Auth::Bearer(token) => format!("Bearer {token}"),
        };
        let mut value = HeaderValue::try_from(text).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Auth::{}(..)", self.name())
    }
}

/// The build-cache server, as `collector run` was told.
#[derive(Debug, Clone)]
pub struct Target {
    /// The base URL, ending in `/`.
    pub base: Url,
    pub protocol: HttpCacheProtocol,
    pub auth: Auth,
    /// Turborepo's `teamId`.
    pub team: String,
    /// CAs trusted beside the platform's roots, DER.
    pub extra_ca: Vec<CertificateDer<'static>>,
}

impl Target {
    /// The URL of the entry named `key`.
    pub fn entry_url(&self, key: &str) -> Url {
        let path = format!("{}{key}", self.folder());
        let mut url = self.base.join(&path).expect("a hex key joins onto a folder URL");
        if self.protocol == HttpCacheProtocol::Turborepo {
            url.query_pairs_mut().append_pair("teamId", &self.team);
        }
        url
    }

    /// The folder under the base URL where the protocol keeps entries.
    fn folder(&self) -> &'static str {
        match self.protocol {
            HttpCacheProtocol::Gradle | HttpCacheProtocol::Webdav => "",
            HttpCacheProtocol::Bazel => "cas/",
            HttpCacheProtocol::BazelAc => "ac/",
            HttpCacheProtocol::Turborepo => "v8/artifacts/",
        }
    }

    /// Whether the URL is https.
    pub fn tls(&self) -> bool {
        self.base.scheme() == "https"
    }
}

/// The parts every request to a target shares, worked out once per stage
/// (the URL's path and query around the key, the Host and Authorization
/// headers), so that a request costs one string and one header map, as an
/// oha request does.
#[derive(Debug, Clone)]
pub struct Requests {
    /// The path up to the key: the base URL's path and the protocol's folder.
    prefix: String,
    /// What follows the key: `?teamId=<team>` for Turborepo, else nothing.
    suffix: String,
    host: HeaderValue,
    auth: Option<HeaderValue>,
}

impl Requests {
    pub fn new(target: &Target) -> Requests {
        // The path, query and host exactly as `entry_url` serializes them
        // (percent-encoded), taken from the URL of an empty key.
        let url = target.entry_url("");
        let host = match url.port() {
            Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
            None => url.host_str().unwrap_or_default().to_string(),
        };
        Requests {
            prefix: url.path().to_string(),
            suffix: url.query().map(|q| format!("?{q}")).unwrap_or_default(),
            host: HeaderValue::try_from(host).expect("a parsed URL's host is a header value"),
            auth: target.auth.header(),
        }
    }

    /// Refuses a URL (and Turborepo team) whose request target, with a
    /// 64-digit key, `http` would refuse: found here, before anything is
    /// measured, not at the first request.
    pub fn check(&self) -> Result<(), String> {
        let target = self.path(&"0".repeat(64));
        match target.parse::<hyper::Uri>() {
            Ok(_) => Ok(()),
            Err(_) if target.len() > MAX_REQUEST_TARGET_BYTES => Err(format!(
                "a request's path and query would be {} bytes with a 64-digit key; HTTP requests here carry at most \
                 {MAX_REQUEST_TARGET_BYTES}",
                target.len()
            )),
            Err(e) => Err(format!("a request's path and query would not be a valid request target: {e}")),
        }
    }

    /// The path and query of the entry named `key`, as a request line has it.
    pub fn path(&self, key: &str) -> String {
        format!("{}{key}{}", self.prefix, self.suffix)
    }

    /// The PUT that stores `body` as `key`.
    pub fn put(&self, key: &str, body: Bytes) -> Request<Full<Bytes>> {
        self.request(Method::PUT, key, body)
    }

    /// The GET that reads `key` back.
    pub fn get(&self, key: &str) -> Request<Full<Bytes>> {
        self.request(Method::GET, key, Bytes::new())
    }

    fn request(&self, method: Method, key: &str, body: Bytes) -> Request<Full<Bytes>> {
        let is_put = method == Method::PUT;
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method;
        *request.uri_mut() = self.path(key).parse().expect("a URL's path and a hex key make a request target");
        let headers = request.headers_mut();
        headers.insert(HOST, self.host.clone());
        headers.insert(USER_AGENT, HeaderValue::from_static(http::USER_AGENT));
        if is_put {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"));
        }
        if let Some(auth) = &self.auth {
            headers.insert(AUTHORIZATION, auth.clone());
        }
        request
    }
}

/// The most bytes of a request target (path and query) that the `http`
/// crate sends: it refuses a longer one.
const MAX_REQUEST_TARGET_BYTES: usize = 65_534;

/// The cache's base URL, as a folder.
pub fn base_url(text: &str) -> Result<Url, String> {
    crate::stage::http::folder_url(text, "https://cache.example.org/cache/")
}

/// The stage's server and what its owner declared.
#[derive(Debug, Clone)]
pub struct HttpCacheSettings {
    pub target: Target,
    pub declared: HttpCacheDeclared,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(protocol: HttpCacheProtocol) -> Target {
        Target {
            base: base_url("https://cache.example.org:8443/c").unwrap(),
            protocol,
            auth: Auth::Bearer("s3cret".into()),
            team: "my team".into(),
            extra_ca: Vec::new(),
        }
    }

    #[test]
    fn each_protocol_puts_an_entry_where_its_clients_do() {
        let key = "ab".repeat(32);
        let url = |p| target(p).entry_url(&key).to_string();
        assert_eq!(url(HttpCacheProtocol::Gradle), format!("https://cache.example.org:8443/c/{key}"));
        assert_eq!(url(HttpCacheProtocol::Webdav), format!("https://cache.example.org:8443/c/{key}"));
        assert_eq!(url(HttpCacheProtocol::Bazel), format!("https://cache.example.org:8443/c/cas/{key}"));
        assert_eq!(
            url(HttpCacheProtocol::Turborepo),
            format!("https://cache.example.org:8443/c/v8/artifacts/{key}?teamId=my+team")
        );
    }

    /// The request line's path and query are the entry URL's, for every
    /// protocol, and the Host header names the URL's host and port.
    #[test]
    fn requests_go_to_the_entry_url() {
        let key = "ab".repeat(32);
        for p in [
            HttpCacheProtocol::Gradle,
            HttpCacheProtocol::Webdav,
            HttpCacheProtocol::Bazel,
            HttpCacheProtocol::Turborepo,
        ] {
            let t = target(p);
            let url = t.entry_url(&key);
            let get = Requests::new(&t).get(&key);
            assert_eq!(
                get.uri().to_string(),
                format!("{}{}", url.path(), url.query().map(|q| format!("?{q}")).unwrap_or_default())
            );
            assert_eq!(get.headers()[HOST], "cache.example.org:8443");
        }
        let mut t = target(HttpCacheProtocol::Gradle);
        t.base = base_url("http://127.0.0.1/c/").unwrap();
        assert_eq!(Requests::new(&t).get("00").headers()[HOST], "127.0.0.1");
    }

    #[test]
    fn requests_carry_the_credentials_and_debug_hides_them() {
        let t = target(HttpCacheProtocol::Turborepo);
        let put = Requests::new(&t).put("00", Bytes::from_static(b"x"));
        assert_eq!(put.method(), Method::PUT);
        assert_eq!(put.headers()[AUTHORIZATION], "Bearer s3cret");
        assert_eq!(put.headers()[CONTENT_TYPE], "application/octet-stream");
        assert_eq!(put.headers()[USER_AGENT], http::USER_AGENT);
        assert!(!format!("{put:?}").contains("s3cret"), "{put:?}");
        let basic = Auth::Basic { user: "u".into(), password: "p".into() };
        let get = Requests::new(&Target { auth: basic.clone(), ..t.clone() }).get("00");
        assert_eq!(get.method(), Method::GET);
        assert_eq!(get.headers()[AUTHORIZATION], "Basic dTpw");
        assert_eq!(get.headers().get(CONTENT_TYPE), None);
        let none = Requests::new(&Target { auth: Auth::None, ..t.clone() }).get("00");
        assert_eq!(none.headers().get(AUTHORIZATION), None);
        assert!(!format!("{t:?}").contains("s3cret"), "{t:?}");
        assert_eq!(format!("{basic:?}"), "Auth::basic(..)");
    }

    #[test]
    fn base_urls_are_checked_and_end_in_a_slash() {
        assert_eq!(base_url("http://127.0.0.1:5071/cache").unwrap().as_str(), "http://127.0.0.1:5071/cache/");
        assert_eq!(base_url("http://h/").unwrap().as_str(), "http://h/");
        assert_eq!(base_url("ftp://h/").unwrap_err(), "\"ftp://h/\" is not an http:// or https:// URL");
        assert_eq!(base_url("not a url").unwrap_err(), "\"not a url\" is not a URL: relative URL without a base");
        assert_eq!(
            base_url("http://h/?x=1").unwrap_err(),
            "\"http://h/?x=1\" has a query or fragment; give the folder, e.g. https://cache.example.org/cache/"
        );
        // Credentials would be published with the URL, and were never sent.
        for with in ["http://user:secret@h/cache/", "https://token@h/"] {
            let (scheme, _) = with.split_once(':').unwrap();
            assert_eq!(
                base_url(with).unwrap_err(),
                format!(
                    "{scheme}://…@h: the URL holds credentials, which the result would publish; give the URL without \
                     them"
                )
            );
        }
    }
}
