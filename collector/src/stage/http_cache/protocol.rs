//! Where an entry goes and how a request for it is made, for each of the
//! four build-cache protocols, and the server the stage measures.
//!
//! Every entry's key is the lowercase hex SHA-256 of its body: Bazel's CAS
//! requires exactly that, and Gradle, Turborepo and WebDAV take any hex
//! name, so one key serves all four and a GET's body can be checked
//! against its own name.

use std::fmt;

use bytes::Bytes;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use reqwest::{Certificate, Client, RequestBuilder, Url};
use runner_bench_format::measured::HttpCacheProtocol;

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

    fn apply(&self, request: RequestBuilder) -> RequestBuilder {
        match self {
            Auth::None => request,
            Auth::Basic { user, password } => request.basic_auth(user, Some(password)),
            Auth::Bearer(token) => request.header(AUTHORIZATION, format!("Bearer {token}")),
        }
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
    /// CAs trusted beside the platform's roots.
    pub extra_ca: Vec<Certificate>,
}

impl Target {
    /// The URL of the entry named `key`.
    pub fn entry_url(&self, key: &str) -> Url {
        let path = match self.protocol {
            HttpCacheProtocol::Gradle | HttpCacheProtocol::Webdav => key.to_string(),
            HttpCacheProtocol::Bazel => format!("cas/{key}"),
            HttpCacheProtocol::Turborepo => format!("v8/artifacts/{key}"),
        };
        let mut url = self.base.join(&path).expect("a hex key joins onto a folder URL");
        if self.protocol == HttpCacheProtocol::Turborepo {
            url.query_pairs_mut().append_pair("teamId", &self.team);
        }
        url
    }

    /// The PUT that stores `body` as `key`.
    pub fn put(&self, client: &Client, key: &str, body: Bytes) -> RequestBuilder {
        let request = client.put(self.entry_url(key)).header(CONTENT_TYPE, "application/octet-stream").body(body);
        self.auth.apply(request)
    }

    /// The GET that reads `key` back.
    pub fn get(&self, client: &Client, key: &str) -> RequestBuilder {
        self.auth.apply(client.get(self.entry_url(key)))
    }

    /// Whether the URL is https.
    pub fn tls(&self) -> bool {
        self.base.scheme() == "https"
    }
}

/// An http or https URL without query or fragment, as a folder.
pub fn base_url(text: &str) -> Result<Url, String> {
    let mut url = Url::parse(text).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("{text:?} is not an http:// or https:// URL"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "{text:?} has a query or fragment; give the cache's base URL, e.g. https://cache.example.org/cache/"
        ));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
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

    #[test]
    fn requests_carry_the_credentials_and_debug_hides_them() {
        let t = target(HttpCacheProtocol::Turborepo);
        let put = t.put(&Client::new(), "00", Bytes::from_static(b"x")).build().unwrap();
        assert_eq!(put.method(), reqwest::Method::PUT);
        assert_eq!(put.headers()[AUTHORIZATION], "Bearer s3cret");
        assert_eq!(put.headers()[CONTENT_TYPE], "application/octet-stream");
        let basic = Auth::Basic { user: "u".into(), password: "p".into() };
        let get = basic.apply(Client::new().get("http://x/")).build().unwrap();
        assert_eq!(get.headers()[AUTHORIZATION], "Basic dTpw");
        assert!(!format!("{t:?}").contains("s3cret"), "{t:?}");
        assert_eq!(format!("{basic:?}"), "Auth::basic(..)");
    }

    #[test]
    fn base_urls_are_checked_and_end_in_a_slash() {
        assert_eq!(base_url("http://127.0.0.1:5071/cache").unwrap().as_str(), "http://127.0.0.1:5071/cache/");
        assert_eq!(base_url("http://h/").unwrap().as_str(), "http://h/");
        assert_eq!(base_url("ftp://h/").unwrap_err(), "\"ftp://h/\" is not an http:// or https:// URL");
        assert!(base_url("not a url").unwrap_err().starts_with("\"not a url\" is not a URL: "));
        assert!(base_url("http://h/?x=1").unwrap_err().contains("has a query or fragment"));
    }
}
