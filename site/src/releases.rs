//! The collector's published releases: `content/releases/<tag>.toml`, one
//! small manifest per release, written by the release workflow from the
//! release's SHA256SUMS and reviewed by pull request
//! (content/releases/README.md). With them `site check` tells a result of a
//! published release from a self-built one, offline.
//!
//! ```toml
//! tag = "v0.2.0"
//! version = "0.2.0"
//! published = "2026-12-01"
//! repository = "runner-bench/runner-bench"
//! workflow_commit = "<40 lowercase hex digits>"
//!
//! [[binaries]]
//! target = "x86_64-unknown-linux-gnu"
//! file = "collector-x86_64-unknown-linux-gnu"
//! sha256 = "<64 lowercase hex digits>"
//! ```
//!
//! A manifest is read strictly, and every problem names the file, the field
//! and the reason. A self-built result is valid: its status is shown, never
//! a reason to reject it.
//!
//! `workflow_commit` is the commit the release's tag names, and so the
//! version of `.github/workflows/benchmark.yml` that the release ships: the
//! manifests' `workflow_commit`s are the only signers whose attestations the
//! results check trusts (scripts/verify-submission.sh, which also compares
//! an added manifest's commit with its tag's).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use runner_bench_format::measured::Collector;
use serde::Deserialize;

/// The folder below the content folder that holds the manifests.
pub const RELEASES_DIR: &str = "releases";

/// A problem in a release manifest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {field}: {reason}")]
pub struct ReleaseError {
    /// The manifest, as found (e.g. `content/releases/v0.2.0.toml`).
    pub file: String,
    /// The field, e.g. `binaries[1].sha256`; `$` for the whole file, or
    /// `line N` where the TOML does not parse.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

/// One published release.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// The git tag, `v` followed by `version`; the file is `<tag>.toml`.
    pub tag: String,
    /// The collector version its binaries report, e.g. `0.2.0`.
    pub version: String,
    /// The day it was published, `YYYY-MM-DD`.
    pub published: String,
    /// The GitHub repository it was published from, `owner/name`.
    pub repository: String,
    /// The commit of the release's tag (40 lowercase hex digits): the
    /// workflow version whose attestations the results check trusts.
    pub workflow_commit: String,
    /// One binary per target.
    pub binaries: Vec<ReleaseBinary>,
}

/// One binary of a release, as SHA256SUMS lists it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseBinary {
    /// Target triple, e.g. `x86_64-unknown-linux-gnu`.
    pub target: String,
    /// The release asset: `collector-<target>`, with `.exe` for Windows.
    pub file: String,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: String,
}

/// The manifests that passed every rule, and the problems of the others.
#[derive(Debug, Clone, Default)]
pub struct Releases {
    /// Valid manifests, in file-name order.
    pub releases: Vec<Release>,
    /// Every problem of every manifest; a manifest with any is left out of
    /// `releases`, so that a result is never called released on its word.
    pub errors: Vec<ReleaseError>,
}

/// Whether a measured result ran a published release's binary.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReleaseStatus {
    /// Its binary's SHA-256, target and version are in this release.
    Released {
        /// The release's tag, e.g. `v0.2.0`.
        tag: String,
    },
    /// Anything else, and why; the result stays valid.
    SelfBuilt {
        /// Why it is not a published release, for people.
        reason: String,
    },
}

impl ReleaseStatus {
    /// One line for `site check`: `published release v0.2.0` or
    /// `self-built: <reason>`.
    pub fn describe(&self) -> String {
        match self {
            ReleaseStatus::Released { tag } => format!("published release {tag}"),
            ReleaseStatus::SelfBuilt { reason } => format!("self-built: {reason}"),
        }
    }
}

/// Reads every `*.toml` in `dir` (a missing folder holds no releases) and
/// checks each manifest and the manifests together.
pub fn load(dir: &Path) -> Releases {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut out = Releases::default();
    for path in files {
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                out.errors.push(error(&file, "$", format!("cannot read the file: {e}")));
                continue;
            }
        };
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        match parse(&file, &stem, &text) {
            Ok(release) => out.releases.push(release),
            Err(errors) => out.errors.extend(errors),
        }
    }
    // A digest belongs to one binary of one release: the first manifest
    // that lists it keeps it, any later listing is a problem.
    let mut seen: HashMap<String, (String, usize)> = HashMap::new();
    let mut clashing = Vec::new();
    for (r, release) in out.releases.iter().enumerate() {
        let file = dir.join(format!("{}.toml", release.tag)).display().to_string();
        for (i, b) in release.binaries.iter().enumerate() {
            match seen.get(&b.sha256) {
                Some((first, at)) => {
                    out.errors.push(error(
                        &file,
                        format!("binaries[{i}].sha256"),
                        format!("is already listed by {first} at binaries[{at}]; a binary belongs to one release"),
                    ));
                    clashing.push(r);
                }
                None => {
                    seen.insert(b.sha256.clone(), (file.clone(), i));
                }
            }
        }
    }
    out.releases =
        out.releases.into_iter().enumerate().filter(|(r, _)| !clashing.contains(r)).map(|(_, r)| r).collect();
    out
}

fn error(file: &str, field: impl Into<String>, reason: impl Into<String>) -> ReleaseError {
    ReleaseError { file: file.to_string(), field: field.into(), reason: reason.into() }
}

/// Parses and checks one manifest; `stem` is its file name without `.toml`.
pub fn parse(file: &str, stem: &str, text: &str) -> Result<Release, Vec<ReleaseError>> {
    let de = toml::de::Deserializer::parse(text).map_err(|e| vec![toml_error(file, text, &e)])?;
    let release: Release = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { "$".to_string() } else { path };
        vec![error(file, field, runner_bench_format::plain_words(e.into_inner().message()))]
    })?;
    let mut errors = Vec::new();
    let mut bad = |field: String, reason: String| errors.push(error(file, field, reason));
    if !is_version(&release.version) {
        bad("version".into(), format!("must be a version like 0.2.0, found \"{}\"", release.version));
    }
    if release.tag != format!("v{}", release.version) {
        bad("tag".into(), format!("must be \"v\" followed by the version, \"v{}\"", release.version));
    } else if release.tag != stem {
        bad("tag".into(), format!("must equal the file name without .toml, \"{stem}\""));
    }
    if jiff::civil::Date::strptime("%Y-%m-%d", &release.published).is_err() || release.published.len() != 10 {
        bad("published".into(), format!("must be a date like 2026-12-01, found \"{}\"", release.published));
    }
    if !is_repository(&release.repository) {
        bad(
            "repository".into(),
            format!("must be a GitHub repository like runner-bench/runner-bench, found \"{}\"", release.repository),
        );
    }
    if !is_commit(&release.workflow_commit) {
        bad(
            "workflow_commit".into(),
            format!("must be a commit id, 40 lowercase hex digits, found \"{}\"", release.workflow_commit),
        );
    }
    if release.binaries.is_empty() {
        bad("binaries".into(), "must list at least one binary".into());
    }
    for (i, b) in release.binaries.iter().enumerate() {
        if !is_target(&b.target) {
            bad(
                format!("binaries[{i}].target"),
                format!("must be a target triple like x86_64-unknown-linux-gnu, found \"{}\"", b.target),
            );
        } else if let Some(at) = release.binaries[..i].iter().position(|o| o.target == b.target) {
            bad(format!("binaries[{i}].target"), format!("{} is already listed at binaries[{at}]", b.target));
        }
        let asset = asset_name(&b.target);
        if b.file != asset {
            bad(format!("binaries[{i}].file"), format!("must be \"{asset}\" for this target, found \"{}\"", b.file));
        }
        if !is_sha256(&b.sha256) {
            bad(format!("binaries[{i}].sha256"), "must be 64 lowercase hex digits".into());
        } else if let Some(at) = release.binaries[..i].iter().position(|o| o.sha256 == b.sha256) {
            bad(
                format!("binaries[{i}].sha256"),
                format!("is already listed at binaries[{at}]; a binary belongs to one target"),
            );
        }
    }
    if errors.is_empty() { Ok(release) } else { Err(errors) }
}

/// A TOML syntax error at its line: `line 3: invalid string`.
fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> ReleaseError {
    let field = match e.span() {
        Some(span) => format!("line {}", 1 + text[..span.start.min(text.len())].matches('\n').count()),
        None => "$".to_string(),
    };
    error(file, field, e.message())
}

/// The release asset of a target, as the release workflow names it.
pub fn asset_name(target: &str) -> String {
    if target.contains("-windows") { format!("collector-{target}.exe") } else { format!("collector-{target}") }
}

/// `MAJOR.MINOR.PATCH`, optionally with a pre-release such as `-rc.1`.
fn is_version(v: &str) -> bool {
    let (core, pre) = v.split_once('-').unwrap_or((v, "x"));
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers.iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && !pre.is_empty()
        && pre.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// `owner/name` with GitHub's characters.
fn is_repository(r: &str) -> bool {
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    matches!(r.split_once('/'), Some((owner, name)) if ok(owner) && ok(name))
}

/// At least `arch-vendor-os`, lowercase letters, digits, `_` and `.`.
fn is_target(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    parts.len() >= 3
        && parts.iter().all(|p| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
        })
}

/// A full git commit id (SHA-1): forks share commit ids, and a short one
/// could name another commit.
fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The first 12 hex digits of a digest, as the reasons print it.
fn short(sha256: &str) -> &str {
    sha256.get(..12).unwrap_or(sha256)
}

/// `(major, minor)` of a version like `0.1.0`.
fn major_minor(v: &str) -> Option<(u64, u64)> {
    let mut it = v.split(['.', '-']);
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

impl Releases {
    /// Whether the collector that wrote a result ran a published release's
    /// binary, and if not, why. The one place this is decided.
    pub fn status(&self, collector: &Collector) -> ReleaseStatus {
        let self_built = |reason: String| ReleaseStatus::SelfBuilt { reason };
        let version = collector.version.as_str();
        let Some(binary) = &collector.binary else {
            // Collectors before 0.2.0 did not record it; a later one leaves
            // it out only when it could not read its own executable.
            return self_built(if major_minor(version).is_some_and(|v| v < (0, 2)) {
                "the result records no binary identity (collector before 0.2.0)".to_string()
            } else {
                "the result records no binary identity (the collector could not read its executable; see the \
                 notices)"
                    .to_string()
            });
        };
        let (sha, target) = (binary.sha256.as_str(), binary.target.as_str());
        for r in &self.releases {
            if let Some(b) = r.binaries.iter().find(|b| b.sha256 == sha) {
                if b.target == target && r.version == version {
                    return ReleaseStatus::Released { tag: r.tag.clone() };
                }
                return self_built(format!(
                    "binary sha256 {}… is {}'s collector {} for {}, but the result records version {version} for \
                     {target}",
                    short(sha),
                    r.tag,
                    r.version,
                    b.target
                ));
            }
        }
        if self.releases.iter().any(|r| r.version == version && !r.binaries.iter().any(|b| b.target == target)) {
            return self_built(format!("version {version} is released but not for {target}"));
        }
        self_built(format!("binary sha256 {}… for {target} is not in any published release", short(sha)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runner_bench_format::measured::Binary;
    use runner_bench_format::{Name, Sha256Hex};

    const SHA_LINUX: &str = "1111111111111111111111111111111111111111111111111111111111111111";
    const SHA_MAC: &str = "2222222222222222222222222222222222222222222222222222222222222222";
    const COMMIT: &str = "8d71e12a54197f8d71e12a54197f8d71e12a5419";

    fn manifest(tag: &str, version: &str, binaries: &[(&str, &str)]) -> String {
        let mut text = format!(
            "tag = \"{tag}\"\nversion = \"{version}\"\npublished = \"2026-12-01\"\nrepository = \
             \"runner-bench/runner-bench\"\nworkflow_commit = \"{COMMIT}\"\n"
        );
        for (target, sha) in binaries {
            text.push_str(&format!(
                "\n[[binaries]]\ntarget = \"{target}\"\nfile = \"{}\"\nsha256 = \"{sha}\"\n",
                asset_name(target)
            ));
        }
        text
    }

    fn errors(stem: &str, text: &str) -> Vec<String> {
        let file = format!("content/releases/{stem}.toml");
        parse(&file, stem, text).unwrap_err().iter().map(ToString::to_string).collect()
    }

    fn collector(version: &str, binary: Option<(&str, &str)>) -> Collector {
        Collector {
            version: Name::new(version).unwrap(),
            revision: Name::new("unknown").unwrap(),
            binary: binary.map(|(sha, target)| Binary {
                sha256: Sha256Hex::new(sha).unwrap(),
                target: Name::new(target).unwrap(),
            }),
        }
    }

    fn releases() -> Releases {
        let text =
            manifest("v0.2.0", "0.2.0", &[("x86_64-unknown-linux-gnu", SHA_LINUX), ("aarch64-apple-darwin", SHA_MAC)]);
        Releases { releases: vec![parse("v0.2.0.toml", "v0.2.0", &text).unwrap()], errors: Vec::new() }
    }

    #[test]
    fn a_manifest_as_the_release_workflow_writes_it_parses() {
        let text = format!(
            "# Written by the release workflow from SHA256SUMS; reviewed by pull request.\n{}",
            manifest("v0.2.0", "0.2.0", &[("x86_64-pc-windows-gnu", SHA_LINUX)])
        );
        let r = parse("v0.2.0.toml", "v0.2.0", &text).unwrap();
        assert_eq!(r.binaries[0].file, "collector-x86_64-pc-windows-gnu.exe");
    }

    #[test]
    fn every_field_is_checked_with_its_reason() {
        let text = "tag = \"0.2.0\"\nversion = \"0.2\"\npublished = \"1 Dec 2026\"\nrepository = \"runner-bench\"\n\
                    workflow_commit = \"8d71e12\"\n\n[[binaries]]\ntarget = \"linux\"\nfile = \"collector\"\nsha256 = \"ABC\"\n";
        assert_eq!(
            errors("v0.2.0", text),
            [
                "content/releases/v0.2.0.toml: version: must be a version like 0.2.0, found \"0.2\"",
                "content/releases/v0.2.0.toml: tag: must be \"v\" followed by the version, \"v0.2\"",
                "content/releases/v0.2.0.toml: published: must be a date like 2026-12-01, found \"1 Dec 2026\"",
                "content/releases/v0.2.0.toml: repository: must be a GitHub repository like runner-bench/runner-bench, \
                 found \"runner-bench\"",
                "content/releases/v0.2.0.toml: workflow_commit: must be a commit id, 40 lowercase hex digits, found \
                 \"8d71e12\"",
                "content/releases/v0.2.0.toml: binaries[0].target: must be a target triple like \
                 x86_64-unknown-linux-gnu, found \"linux\"",
                "content/releases/v0.2.0.toml: binaries[0].file: must be \"collector-linux\" for this target, found \
                 \"collector\"",
                "content/releases/v0.2.0.toml: binaries[0].sha256: must be 64 lowercase hex digits",
            ]
        );
    }

    #[test]
    fn the_tag_names_the_file() {
        assert_eq!(
            errors("v0.2.1", &manifest("v0.2.0", "0.2.0", &[("aarch64-apple-darwin", SHA_MAC)])),
            ["content/releases/v0.2.1.toml: tag: must equal the file name without .toml, \"v0.2.1\""]
        );
    }

    #[test]
    fn a_target_and_a_digest_appear_once_in_a_release() {
        let text = manifest(
            "v0.2.0",
            "0.2.0",
            &[
                ("x86_64-unknown-linux-gnu", SHA_LINUX),
                ("x86_64-unknown-linux-gnu", SHA_MAC),
                ("aarch64-apple-darwin", SHA_MAC),
            ],
        );
        assert_eq!(
            errors("v0.2.0", &text),
            [
                "content/releases/v0.2.0.toml: binaries[1].target: x86_64-unknown-linux-gnu is already listed at \
                 binaries[0]",
                "content/releases/v0.2.0.toml: binaries[2].sha256: is already listed at binaries[1]; a binary belongs \
                 to one target",
            ]
        );
    }

    #[test]
    fn unknown_and_missing_fields_and_bad_toml_name_their_place() {
        let text = format!("{}notes = \"x\"\n", manifest("v0.2.0", "0.2.0", &[]).replace("tag = \"v0.2.0\"\n", ""));
        let got = errors("v0.2.0", &text);
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[0],
            "content/releases/v0.2.0.toml: notes: unknown field `notes`, expected one of `tag`, `version`, `published`, \
             `repository`, `workflow_commit`, `binaries`"
        );
        let text = manifest("v0.2.0", "0.2.0", &[("aarch64-apple-darwin", SHA_MAC)]).replace("sha256 = ", "# ");
        assert_eq!(errors("v0.2.0", &text), ["content/releases/v0.2.0.toml: binaries[0]: missing field `sha256`"]);
        // The workflow commit is required: without it a release would vouch
        // for no workflow, or for whichever one a reader assumed.
        let text = manifest("v0.2.0", "0.2.0", &[("aarch64-apple-darwin", SHA_MAC)])
            .replace(&format!("workflow_commit = \"{COMMIT}\"\n"), "");
        assert_eq!(errors("v0.2.0", &text), ["content/releases/v0.2.0.toml: $: missing field `workflow_commit`"]);
        let text = "tag = \"v0.2.0\"\nversion = \"0.2.0\nbinaries = []\n";
        let got = errors("v0.2.0", text);
        assert_eq!(got[0], "content/releases/v0.2.0.toml: line 2: invalid basic string, expected `\"`");
    }

    #[test]
    fn a_digest_belongs_to_one_release() {
        let dir = tempfile::tempdir().unwrap();
        let a = manifest("v0.2.0", "0.2.0", &[("x86_64-unknown-linux-gnu", SHA_LINUX)]);
        let b = manifest("v0.3.0", "0.3.0", &[("aarch64-apple-darwin", SHA_LINUX)]);
        std::fs::write(dir.path().join("v0.2.0.toml"), a).unwrap();
        std::fs::write(dir.path().join("v0.3.0.toml"), b).unwrap();
        std::fs::write(dir.path().join("README.md"), "not a manifest").unwrap();
        let loaded = load(dir.path());
        let d = dir.path().display();
        assert_eq!(
            loaded.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [format!(
                "{d}/v0.3.0.toml: binaries[0].sha256: is already listed by {d}/v0.2.0.toml at binaries[0]; a binary \
                 belongs to one release"
            )]
        );
        assert_eq!(loaded.releases.iter().map(|r| r.tag.as_str()).collect::<Vec<_>>(), ["v0.2.0"]);
        // A missing folder holds no releases.
        let none = load(&dir.path().join("nope"));
        assert!(none.releases.is_empty() && none.errors.is_empty());
    }

    #[test]
    fn a_published_binary_is_released() {
        let status = releases().status(&collector("0.2.0", Some((SHA_LINUX, "x86_64-unknown-linux-gnu"))));
        assert_eq!(status, ReleaseStatus::Released { tag: "v0.2.0".into() });
        assert_eq!(status.describe(), "published release v0.2.0");
    }

    #[test]
    fn anything_else_is_self_built_with_its_reason() {
        let r = releases();
        let reason = |c: Collector| match r.status(&c) {
            ReleaseStatus::SelfBuilt { reason } => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(reason(collector("0.1.0", None)), "the result records no binary identity (collector before 0.2.0)");
        assert_eq!(
            reason(collector("0.2.0", None)),
            "the result records no binary identity (the collector could not read its executable; see the notices)"
        );
        let other = "3333333333333333333333333333333333333333333333333333333333333333";
        assert_eq!(
            reason(collector("0.2.0", Some((other, "x86_64-unknown-linux-gnu")))),
            "binary sha256 333333333333… for x86_64-unknown-linux-gnu is not in any published release"
        );
        assert_eq!(
            reason(collector("0.3.0", Some((other, "x86_64-unknown-linux-gnu")))),
            "binary sha256 333333333333… for x86_64-unknown-linux-gnu is not in any published release"
        );
        assert_eq!(
            reason(collector("0.2.0", Some((other, "aarch64-unknown-linux-gnu")))),
            "version 0.2.0 is released but not for aarch64-unknown-linux-gnu"
        );
        assert_eq!(
            reason(collector("0.2.1", Some((SHA_LINUX, "x86_64-unknown-linux-gnu")))),
            "binary sha256 111111111111… is v0.2.0's collector 0.2.0 for x86_64-unknown-linux-gnu, but the result \
             records version 0.2.1 for x86_64-unknown-linux-gnu"
        );
        assert_eq!(ReleaseStatus::SelfBuilt { reason: "x".into() }.describe(), "self-built: x");
    }
}
