//! Where the stage measures: the backend URL, its display name and the CAs
//! trusted beside the platform's roots, checked before the run starts.

use std::path::Path;

use reqwest::{Certificate, Url};
use runner_bench_format::Name;
use runner_bench_format::measured::Endpoint;

/// The backend the published reports use.
pub const DEFAULT_URL: &str = "https://amsspeed.sharktech.net/backend/";
/// Its display name in the reports.
pub const DEFAULT_NAME: &str = "LibreSpeed (Sharktech, Amsterdam)";

/// Where the stage measures, as `collector run` was told.
#[derive(Debug, Clone)]
pub struct Target {
    /// Recorded in the result.
    pub endpoint: Endpoint,
    /// The backend folder, ending in `/`.
    pub base: Url,
    /// CAs trusted beside the platform's roots.
    pub extra_ca: Vec<Certificate>,
}

impl Target {
    /// Checks a backend URL, a display name and a CA file; each error names
    /// what is wrong and is prefixed by the caller with the flag's name.
    /// Without a name, the default URL gets the reports' name and any other
    /// URL its host.
    pub fn new(url: &str, name: Option<&str>, extra_ca: Option<&Path>) -> Result<Target, (TargetField, String)> {
        let base = backend_url(url).map_err(|e| (TargetField::Url, e))?;
        let name = match name {
            Some(n) => n.to_string(),
            None if base.as_str() == DEFAULT_URL => DEFAULT_NAME.to_string(),
            None => base.host_str().unwrap_or(base.as_str()).to_string(),
        };
        let name = Name::new(name).map_err(|e| (TargetField::Name, e))?;
        let url_name = Name::new(base.as_str()).map_err(|e| (TargetField::Url, e))?;
        let extra_ca = match extra_ca {
            Some(path) => load_ca(path).map_err(|e| (TargetField::CaCert, e))?,
            None => Vec::new(),
        };
        Ok(Target { endpoint: Endpoint { name, url: url_name }, base, extra_ca })
    }

    /// The URL of a backend script, e.g. `garbage.php`.
    pub fn script(&self, script: &str) -> Url {
        self.base.join(script).expect("a file name joins onto a folder URL")
    }
}

/// Which part of a `Target` was wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetField {
    Url,
    Name,
    CaCert,
}

/// The LibreSpeed backend's URL, as a folder.
fn backend_url(text: &str) -> Result<Url, String> {
    crate::stage::http::folder_url(text, DEFAULT_URL)
}

/// The file's certificates, each parsed as a trust anchor before anything
/// is measured (the build-cache stage's reader, which says which one is
/// bad): reqwest reads only the PEM armour here, and a certificate inside
/// that does not parse failed every sample's client, in words that never
/// named this file.
fn load_ca(path: &Path) -> Result<Vec<Certificate>, String> {
    let ders = crate::stage::http::load_ca(path)?;
    ders.iter().map(|der| Certificate::from_der(der).map_err(|e| format!("{}: {e}", path.display()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_checked_and_named() {
        let t = Target::new(DEFAULT_URL, None, None).unwrap();
        assert_eq!((t.endpoint.name.as_str(), t.endpoint.url.as_str()), (DEFAULT_NAME, DEFAULT_URL));
        let t = Target::new("http://speed.example.org:8080/lib", None, None).unwrap();
        assert_eq!(t.endpoint.url.as_str(), "http://speed.example.org:8080/lib/");
        assert_eq!(t.endpoint.name.as_str(), "speed.example.org");
        assert_eq!(t.script("garbage.php").as_str(), "http://speed.example.org:8080/lib/garbage.php");
        for bad in ["ftp://x/", "not a url", "https://x/backend/?a=1"] {
            assert_eq!(Target::new(bad, None, None).unwrap_err().0, TargetField::Url, "{bad}");
        }
        let err = Target::new(DEFAULT_URL, None, Some(Path::new("/nonexistent/ca.pem"))).unwrap_err();
        assert_eq!(err.0, TargetField::CaCert);
    }
}
