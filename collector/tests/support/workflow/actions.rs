//! The actions the benchmark workflow uses, simulated by name (what
//! precedes `@` in `uses:`). Each does, on this machine, what the workflow
//! relies on the real action for:
//!
//! - `actions/checkout`: copies the repository's working tree (tracked and
//!   untracked-but-not-ignored files, `git ls-files -co --exclude-standard`)
//!   into `path`, honouring `sparse-checkout` in cone mode. Whatever
//!   `repository` and `ref` ask for, the files are this working tree's: the
//!   rehearsal tests the scripts as they are now. The request is recorded.
//! - `actions/upload-artifact` and `actions/download-artifact`: a folder
//!   per artifact in the run's artifact store, with v4's rules for the
//!   artifact's root folder, hidden files, `if-no-files-found`, existing
//!   names, `pattern` and `merge-multiple`. Each upload is a new artifact
//!   with a new id (`overwrite` deletes the old one) and a digest of its
//!   files (GitHub's is the zip's SHA-256): the outputs `artifact-id` and
//!   `artifact-digest`, `artifact-ids` to download by id, and downloads
//!   refuse an artifact whose files no longer have its digest
//!   (`digest-mismatch: error`, the default).
//! - `actions/github-script`: the script in an async function under node,
//!   with a small `core` (the runner starts node; see run.rs).
//! - `actions/cache/save` and `actions/cache/restore`: the action's entry
//!   points over the official @actions/cache package under node
//!   (tests/cache-service/action.mjs), with the runner's JavaScript-action
//!   variables: the real tar and zstd, through PATH (run.rs).
//! - `actions/attest-build-provenance`: cannot sign
//!   offline; they refuse a job without the OIDC token's request variables
//!   (no `id-token: write`), check the subjects exist (or take
//!   `subject-digest`), record their SHA-256 in a bundle file marked as
//!   simulated, and succeed.
//!
//! Any other action fails its step. An input an action does not have is an
//! error of the workflow (GitHub warns "Unexpected input(s)").

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, bail};
use sha2::{Digest, Sha256};

use super::glob;

/// The simulated actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Checkout,
    UploadArtifact,
    DownloadArtifact,
    GithubScript,
    Attest,
    CacheSave,
    CacheRestore,
}

impl Action {
    pub(crate) fn from_name(name: &str) -> Option<Action> {
        Some(match name {
            "actions/checkout" => Action::Checkout,
            "actions/upload-artifact" => Action::UploadArtifact,
            "actions/download-artifact" => Action::DownloadArtifact,
            "actions/github-script" => Action::GithubScript,
            "actions/attest-build-provenance" => Action::Attest,
            "actions/cache/save" => Action::CacheSave,
            "actions/cache/restore" => Action::CacheRestore,
            _ => return None,
        })
    }

    /// The inputs of the real action (action.yml of checkout v6,
    /// upload-artifact v7, download-artifact v8, github-script v8,
    /// attest-build-provenance v4).
    fn inputs(self) -> &'static [&'static str] {
        match self {
            Action::Checkout => &[
                "repository",
                "ref",
                "token",
                "ssh-key",
                "ssh-known-hosts",
                "ssh-strict",
                "ssh-user",
                "persist-credentials",
                "path",
                "clean",
                "filter",
                "sparse-checkout",
                "sparse-checkout-cone-mode",
                "fetch-depth",
                "fetch-tags",
                "show-progress",
                "lfs",
                "submodules",
                "set-safe-directory",
                "github-server-url",
                "allow-unsafe-pr-checkout",
            ],
            Action::UploadArtifact => &[
                "name",
                "path",
                "if-no-files-found",
                "retention-days",
                "compression-level",
                "overwrite",
                "include-hidden-files",
                "archive",
            ],
            Action::DownloadArtifact => &[
                "name",
                "artifact-ids",
                "path",
                "pattern",
                "merge-multiple",
                "github-token",
                "repository",
                "run-id",
                "skip-decompress",
                "digest-mismatch",
            ],
            Action::GithubScript => &[
                "script",
                "github-token",
                "debug",
                "user-agent",
                "previews",
                "result-encoding",
                "retries",
                "retry-exempt-status-codes",
                "base-url",
            ],
            Action::Attest => &[
                "subject-path",
                "subject-name",
                "subject-digest",
                "subject-checksums",
                "predicate-type",
                "predicate",
                "predicate-path",
                "push-to-registry",
                "create-storage-record",
                "show-summary",
                "github-token",
            ],
            Action::CacheSave => &["path", "key", "upload-chunk-size", "enableCrossOsArchive"],
            Action::CacheRestore => {
                &["path", "key", "restore-keys", "enableCrossOsArchive", "fail-on-cache-miss", "lookup-only"]
            }
        }
    }

    /// Checks `with:` against the action's inputs.
    pub(crate) fn check_inputs(self, with: &[(String, String)]) -> anyhow::Result<()> {
        let unknown: Vec<&str> = with.iter().map(|(k, _)| k.as_str()).filter(|k| !self.inputs().contains(k)).collect();
        if !unknown.is_empty() {
            bail!("unexpected input(s) {}; valid inputs are {}", unknown.join(", "), self.inputs().join(", "));
        }
        Ok(())
    }
}

/// How a simulated action ended.
#[derive(Debug, PartialEq)]
pub(crate) enum Outcome {
    Success,
    /// The step fails with this message.
    Failure(String),
}

/// What a simulated action may touch.
pub(crate) struct Ctx<'a> {
    pub(crate) workspace: &'a Path,
    pub(crate) temp: &'a Path,
    /// The working tree to check out, and its files (relative, `/`).
    pub(crate) repo: &'a Path,
    pub(crate) repo_files: &'a [String],
    pub(crate) artifacts: &'a Path,
    /// Whether the job may request an OIDC token (`id-token: write`).
    pub(crate) id_token: bool,
    /// The step's log.
    pub(crate) log: &'a mut String,
    /// `name=value` lines for the step's outputs (appended to GITHUB_OUTPUT).
    pub(crate) outputs: &'a mut Vec<(String, String)>,
    /// What the rehearsal did instead of the real action, for the report.
    pub(crate) notes: &'a mut Vec<String>,
}

fn input<'w>(with: &'w [(String, String)], name: &str) -> Option<&'w str> {
    with.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn flag(with: &[(String, String)], name: &str, default: bool) -> anyhow::Result<bool> {
    match input(with, name).map(str::trim) {
        None | Some("") => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => bail!("input {name}: {other:?} is not true or false"),
    }
}

/// The lines of a multi-line input, trimmed, empty ones left out.
fn lines(text: &str) -> Vec<&str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect()
}

/// A path inside the workspace; GitHub refuses paths outside it.
fn inside(workspace: &Path, rel: &str) -> anyhow::Result<PathBuf> {
    let rel = Path::new(rel);
    if rel.is_absolute() {
        if rel.starts_with(workspace) {
            return Ok(rel.to_path_buf());
        }
        bail!("{} is not under the workspace {}", rel.display(), workspace.display());
    }
    if rel.components().any(|c| c == Component::ParentDir) {
        bail!("{} leaves the workspace", rel.display());
    }
    Ok(workspace.join(rel))
}

fn copy_file(from: &Path, to: &Path) -> anyhow::Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let meta = std::fs::symlink_metadata(from).with_context(|| format!("cannot stat {}", from.display()))?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(from)?;
        std::os::unix::fs::symlink(target, to).with_context(|| format!("cannot link {}", to.display()))?;
    } else {
        std::fs::copy(from, to).with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
    }
    Ok(())
}

/// The artifact store's index, beside it: a file per artifact id holding
/// the artifact's name and digest, and `next`, the next id.
fn index(artifacts: &Path) -> PathBuf {
    let mut name = artifacts.file_name().unwrap_or_default().to_os_string();
    name.push("-index");
    artifacts.with_file_name(name)
}

/// The digest of an artifact's files, names and contents in order (a
/// stand-in for the SHA-256 of the zip GitHub keeps).
pub(crate) fn artifact_digest(dir: &Path) -> anyhow::Result<String> {
    let mut h = Sha256::new();
    for f in glob::files_below(dir)? {
        h.update(f.as_bytes());
        h.update([0]);
        h.update(std::fs::read(dir.join(&f)).with_context(|| format!("cannot read {f}"))?);
        h.update([0]);
    }
    Ok(runner_bench_format::hex(&h.finalize()))
}

/// Records artifact `name`, whose files are in the store: a new id (the
/// name's earlier ids are gone, as `overwrite` deletes the old artifact)
/// and its digest.
pub(crate) fn register_artifact(artifacts: &Path, name: &str) -> anyhow::Result<(u64, String)> {
    let index = index(artifacts);
    std::fs::create_dir_all(&index)?;
    let next: u64 = std::fs::read_to_string(index.join("next")).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(1);
    for e in std::fs::read_dir(&index)? {
        let e = e?;
        if e.file_name() != "next" && std::fs::read_to_string(e.path())?.lines().next() == Some(name) {
            std::fs::remove_file(e.path())?;
        }
    }
    let digest = artifact_digest(&artifacts.join(name))?;
    std::fs::write(index.join(next.to_string()), format!("{name}\n{digest}\n"))?;
    std::fs::write(index.join("next"), (next + 1).to_string())?;
    Ok((next, digest))
}

/// The name and digest of the artifact with this id, if there is one.
fn artifact_by_id(artifacts: &Path, id: &str) -> anyhow::Result<Option<(String, String)>> {
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let Ok(text) = std::fs::read_to_string(index(artifacts).join(id)) else { return Ok(None) };
    let mut lines = text.lines();
    Ok(Some((lines.next().unwrap_or("").to_string(), lines.next().unwrap_or("").to_string())))
}

/// The digest recorded when artifact `name` was uploaded.
fn artifact_digest_recorded(artifacts: &Path, name: &str) -> anyhow::Result<Option<String>> {
    let Ok(entries) = std::fs::read_dir(index(artifacts)) else { return Ok(None) };
    for e in entries {
        let e = e?;
        if e.file_name() == "next" {
            continue;
        }
        let text = std::fs::read_to_string(e.path())?;
        let mut lines = text.lines();
        if lines.next() == Some(name) {
            return Ok(lines.next().map(str::to_string));
        }
    }
    Ok(None)
}

/// `actions/checkout`.
pub(crate) fn checkout(with: &[(String, String)], ctx: &mut Ctx<'_>) -> anyhow::Result<Outcome> {
    if !flag(with, "sparse-checkout-cone-mode", true)? {
        bail!("sparse-checkout-cone-mode: false is not supported by the rehearsal");
    }
    let target = inside(ctx.workspace, input(with, "path").unwrap_or(""))?;
    // checkout empties a folder that is not a clone of the repository.
    if target != ctx.workspace && target.exists() {
        std::fs::remove_dir_all(&target).with_context(|| format!("cannot empty {}", target.display()))?;
    }
    // Cone mode: the files at the top, and every file below each folder.
    let sparse: Vec<String> =
        lines(input(with, "sparse-checkout").unwrap_or("")).iter().map(|l| l.trim_matches('/').to_string()).collect();
    let wanted = |f: &str| {
        sparse.is_empty() || !f.contains('/') || sparse.iter().any(|d| f.starts_with(&format!("{d}/")) || f == d)
    };
    let mut copied = 0;
    for f in ctx.repo_files.iter().filter(|f| wanted(f)) {
        let from = ctx.repo.join(f);
        // Deleted in the working tree but still in the index.
        if std::fs::symlink_metadata(&from).is_err() {
            continue;
        }
        copy_file(&from, &target.join(f))?;
        copied += 1;
    }
    let repository = input(with, "repository").unwrap_or("(this repository)");
    let reference = input(with, "ref").unwrap_or("(the event's ref)");
    let note = format!(
        "checkout of {repository} at {reference} simulated: {copied} files of the working tree {} copied to {}",
        ctx.repo.display(),
        target.display()
    );
    let _ = writeln!(ctx.log, "{note}");
    ctx.notes.push(note);
    Ok(Outcome::Success)
}

/// `actions/upload-artifact` (v4).
pub(crate) fn upload_artifact(with: &[(String, String)], ctx: &mut Ctx<'_>) -> anyhow::Result<Outcome> {
    let name = input(with, "name").filter(|n| !n.is_empty()).unwrap_or("artifact");
    let Some(paths) = input(with, "path") else { bail!("input path is required") };
    let hidden = flag(with, "include-hidden-files", false)?;
    if !flag(with, "archive", true)? {
        bail!("archive: false (an unzipped single-file artifact) is not supported by the rehearsal");
    }
    let (mut includes, mut excludes) = (Vec::new(), Vec::new());
    for l in lines(paths) {
        match l.strip_prefix('!') {
            Some(x) => excludes.push(x.to_string()),
            None => includes.push(l.to_string()),
        }
    }
    let all = glob::files_below(ctx.workspace).context("cannot list the workspace")?;
    let mut files: Vec<String> = Vec::new();
    let mut roots: Vec<PathBuf> = Vec::new();
    for pattern in &includes {
        let abs = inside(ctx.workspace, pattern)?;
        let rel = abs.strip_prefix(ctx.workspace).unwrap_or(&abs).to_string_lossy().to_string();
        if glob::is_glob(&rel) {
            roots.push(glob::search_root(&rel));
            files.extend(all.iter().filter(|f| glob::matches(&rel, f)).cloned());
        } else if abs.is_dir() {
            roots.push(PathBuf::from(&rel));
            files.extend(all.iter().filter(|f| rel.is_empty() || f.starts_with(&format!("{rel}/"))).cloned());
        } else if abs.is_file() {
            roots.push(PathBuf::from(&rel));
            files.push(rel.clone());
        }
    }
    files.sort();
    files.dedup();
    files.retain(|f| {
        !excludes.iter().any(|x| glob::matches(x, f) || f.starts_with(&format!("{}/", x.trim_end_matches('/'))))
    });
    if !hidden {
        files.retain(|f| !f.split('/').any(|s| s.starts_with('.')));
    }
    if files.is_empty() {
        let msg = format!("No files were found with the provided path: {paths}. No artifacts will be uploaded.");
        return Ok(match input(with, "if-no-files-found").unwrap_or("warn") {
            "error" => Outcome::Failure(msg),
            "warn" => {
                let _ = writeln!(ctx.log, "##[warning]{msg}");
                Outcome::Success
            }
            "ignore" => {
                let _ = writeln!(ctx.log, "{msg}");
                Outcome::Success
            }
            other => bail!("if-no-files-found: {other:?} is not warn, error or ignore"),
        });
    }
    // The artifact's root: one folder given is the root itself; otherwise
    // the deepest folder common to every search path (a lone file's folder).
    let root = match (includes.len(), roots.as_slice()) {
        (1, [r]) if ctx.workspace.join(r).is_dir() => r.clone(),
        _ => {
            let mut common: Vec<Component<'_>> = roots[0].components().collect();
            for r in &roots[1..] {
                let n = common.iter().zip(r.components()).take_while(|(a, b)| *a == b).count();
                common.truncate(n);
            }
            let common: PathBuf = common.iter().collect();
            if ctx.workspace.join(&common).is_file() {
                common.parent().map(Path::to_path_buf).unwrap_or_default()
            } else {
                common
            }
        }
    };
    let dest = ctx.artifacts.join(name);
    if dest.exists() {
        if !flag(with, "overwrite", false)? {
            return Ok(Outcome::Failure(format!(
                "Failed to CreateArtifact: an artifact with this name already exists on the workflow run: {name}"
            )));
        }
        std::fs::remove_dir_all(&dest)?;
    }
    let root_text = root.to_string_lossy().to_string();
    for f in &files {
        let rel = if root_text.is_empty() { f.as_str() } else { f.strip_prefix(&format!("{root_text}/")).unwrap_or(f) };
        copy_file(&ctx.workspace.join(f), &dest.join(rel))?;
    }
    let _ = writeln!(ctx.log, "Artifact {name} has {} file(s): {}", files.len(), files.join(", "));
    let (id, digest) = register_artifact(ctx.artifacts, name)?;
    ctx.outputs.push(("artifact-id".into(), id.to_string()));
    ctx.outputs.push(("artifact-digest".into(), digest));
    ctx.notes.push(format!("uploaded artifact {name} ({} files)", files.len()));
    Ok(Outcome::Success)
}

/// `actions/download-artifact` (v4).
pub(crate) fn download_artifact(with: &[(String, String)], ctx: &mut Ctx<'_>) -> anyhow::Result<Outcome> {
    let path = inside(ctx.workspace, input(with, "path").unwrap_or(""))?;
    let name = input(with, "name").filter(|n| !n.is_empty());
    let pattern = input(with, "pattern").filter(|n| !n.is_empty());
    let merge = flag(with, "merge-multiple", false)?;
    if flag(with, "skip-decompress", false)? {
        bail!("skip-decompress is not supported by the rehearsal");
    }
    let check_digest = match input(with, "digest-mismatch").unwrap_or("error") {
        "error" => true,
        "ignore" | "info" | "warn" => false,
        other => bail!("digest-mismatch: {other:?} is not ignore, info, warn or error"),
    };
    let ids: Vec<&str> = input(with, "artifact-ids")
        .map(|t| t.split(',').map(str::trim).filter(|i| !i.is_empty()).collect())
        .unwrap_or_default();
    if !ids.is_empty() && (name.is_some() || pattern.is_some()) {
        bail!("artifact-ids goes with neither name nor pattern");
    }
    // (artifact, folder it goes to)
    let chosen: Vec<(String, PathBuf)> = match name {
        None if !ids.is_empty() => {
            let mut chosen = Vec::new();
            for id in &ids {
                let Some((n, _)) = artifact_by_id(ctx.artifacts, id)? else {
                    return Ok(Outcome::Failure(format!(
                        "Unable to download artifact(s): Artifact not found for ID(s): {id}"
                    )));
                };
                // One artifact by id goes into `path` itself (v5 and later).
                let dir = if ids.len() == 1 || merge { path.clone() } else { path.join(&n) };
                chosen.push((n, dir));
            }
            chosen
        }
        Some(n) => {
            if !ctx.artifacts.join(n).is_dir() {
                return Ok(Outcome::Failure(format!(
                    "Unable to download artifact(s): Artifact not found for name: {n}"
                )));
            }
            vec![(n.to_string(), path.clone())]
        }
        None => {
            let mut names: Vec<String> = std::fs::read_dir(ctx.artifacts)?
                .map(|e| e.map(|e| e.file_name().to_string_lossy().to_string()))
                .collect::<Result<_, _>>()?;
            names.sort();
            names
                .into_iter()
                .filter(|n| pattern.is_none_or(|p| glob::matches(p, n)))
                .map(|n| {
                    let dir = if merge { path.clone() } else { path.join(&n) };
                    (n, dir)
                })
                .collect()
        }
    };
    if check_digest {
        for (artifact, _) in &chosen {
            if let Some(recorded) = artifact_digest_recorded(ctx.artifacts, artifact)?
                && recorded != artifact_digest(&ctx.artifacts.join(artifact))?
            {
                return Ok(Outcome::Failure(format!("Digest validation failed for artifact(s): {artifact}")));
            }
        }
    }
    let mut count = 0;
    for (artifact, dir) in &chosen {
        let src = ctx.artifacts.join(artifact);
        for f in glob::files_below(&src)? {
            let to = dir.join(&f);
            if to.exists() {
                std::fs::remove_file(&to)?;
            }
            copy_file(&src.join(&f), &to)?;
            count += 1;
        }
    }
    let names: Vec<&str> = chosen.iter().map(|(n, _)| n.as_str()).collect();
    let _ = writeln!(
        ctx.log,
        "Downloaded {} artifact(s) ({}), {count} file(s), to {}",
        names.len(),
        names.join(", "),
        path.display()
    );
    ctx.outputs.push(("download-path".into(), path.display().to_string()));
    Ok(Outcome::Success)
}

/// `actions/attest-build-provenance` and `actions/attest`.
pub(crate) fn attest(with: &[(String, String)], ctx: &mut Ctx<'_>) -> anyhow::Result<Outcome> {
    if !ctx.id_token {
        // @actions/core's getIDToken, in a job without id-token: write.
        return Ok(Outcome::Failure("Unable to get ACTIONS_ID_TOKEN_REQUEST_URL env variable".into()));
    }
    if let Some(digest) = input(with, "subject-digest").filter(|s| !s.trim().is_empty()) {
        let Some(name) = input(with, "subject-name").filter(|s| !s.trim().is_empty()) else {
            return Ok(Outcome::Failure("subject-name must be provided when using subject-digest".into()));
        };
        let hex = digest.strip_prefix("sha256:").unwrap_or("");
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(Outcome::Failure(format!(
                "subject-digest must be in the format \"sha256:<hex-digest>\", not {digest:?}"
            )));
        }
        let subjects = serde_json::json!([{"name": name, "digest": {"sha256": hex}}]);
        return simulated_bundle(ctx, subjects, &format!("{name} (sha256 {hex})"), 1);
    }
    let Some(subjects) = input(with, "subject-path").filter(|s| !s.trim().is_empty()) else {
        return Ok(Outcome::Failure(
            "One of subject-path, subject-digest, or subject-checksums must be provided".into(),
        ));
    };
    let all = glob::files_below(ctx.workspace)?;
    let mut found = Vec::new();
    for s in subjects.split([',', '\n']).map(str::trim).filter(|s| !s.is_empty()) {
        let abs = inside(ctx.workspace, s)?;
        let rel = abs.strip_prefix(ctx.workspace).unwrap_or(&abs).to_string_lossy().to_string();
        let matched: Vec<String> = if glob::is_glob(&rel) {
            all.iter().filter(|f| glob::matches(&rel, f)).cloned().collect()
        } else if abs.is_file() {
            vec![rel]
        } else {
            Vec::new()
        };
        if matched.is_empty() {
            return Ok(Outcome::Failure(format!("Could not find subject at path {s}")));
        }
        found.extend(matched);
    }
    let mut subjects_json = Vec::new();
    for f in &found {
        let bytes = std::fs::read(ctx.workspace.join(f))?;
        let digest = runner_bench_format::hex(&Sha256::digest(&bytes));
        subjects_json.push(
            serde_json::json!({"name": f.rsplit('/').next().unwrap_or(f), "path": f, "digest": {"sha256": digest}}),
        );
    }
    simulated_bundle(ctx, serde_json::Value::Array(subjects_json), &found.join(", "), found.len())
}

/// The simulated attestation of `subjects`: a bundle without a signature.
fn simulated_bundle(
    ctx: &mut Ctx<'_>,
    subjects: serde_json::Value,
    what: &str,
    count: usize,
) -> anyhow::Result<Outcome> {
    let bundle = ctx.temp.join(format!("attestation-{count}.json"));
    let body =
        serde_json::json!({"simulated": "no signature: the rehearsal cannot reach Sigstore", "subjects": subjects});
    std::fs::write(&bundle, serde_json::to_vec_pretty(&body)?)?;
    let note = format!("attestation simulated for {what}");
    let _ = writeln!(ctx.log, "{note}; bundle {}", bundle.display());
    ctx.notes.push(note);
    ctx.outputs.push(("bundle-path".into(), bundle.display().to_string()));
    ctx.outputs.push(("attestation-id".into(), "simulated".into()));
    ctx.outputs.push(("attestation-url".into(), String::new()));
    Ok(Outcome::Success)
}

/// The node program for `actions/github-script`: the script as the body of
/// an AsyncFunction, as github-script's callAsyncFunction makes it, given
/// `require` and a small `core` (getInput, setOutput, setSecret,
/// exportVariable, info, debug, warning, error, setFailed); the result is
/// the `result` output, JSON-encoded unless `result-encoding` is `string`.
/// `github`, `context`, `exec`, `glob` and `io` are not given: a script that
/// uses them fails with a ReferenceError.
pub(crate) fn github_script_program(script: &str) -> anyhow::Result<String> {
    let source = serde_json::to_string(script)?;
    Ok(format!("{GITHUB_SCRIPT_PRELUDE}const SCRIPT = {source};\n{GITHUB_SCRIPT_MAIN}"))
}

const GITHUB_SCRIPT_PRELUDE: &str = r#"'use strict';
const fs = require('fs');
const os = require('os');
const crypto = require('crypto');
function fileCommand(variable, name, value) {
  const delimiter = `ghadelimiter_${crypto.randomUUID()}`;
  fs.appendFileSync(process.env[variable], `${name}<<${delimiter}${os.EOL}${value}${os.EOL}${delimiter}${os.EOL}`);
}
function text(value) {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}
const core = {
  getInput(name, options) {
    const value = process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] || '';
    if (options && options.required && !value) throw new Error(`Input required and not supplied: ${name}`);
    return options && options.trimWhitespace === false ? value : value.trim();
  },
  setOutput(name, value) { fileCommand('GITHUB_OUTPUT', name, text(value)); },
  exportVariable(name, value) { process.env[name] = text(value); fileCommand('GITHUB_ENV', name, text(value)); },
  setSecret(value) { if (value) fs.appendFileSync(process.env.REHEARSAL_SECRETS, `${JSON.stringify(text(value))}\n`); },
  info(message) { console.log(message); },
  debug(message) { console.log(`::debug::${message}`); },
  warning(message) { console.log(`::warning::${message}`); },
  error(message) { console.log(`::error::${message}`); },
  setFailed(message) { process.exitCode = 1; console.log(`::error::${message}`); },
};
"#;

const GITHUB_SCRIPT_MAIN: &str = r#"(async () => {
  const AsyncFunction = Object.getPrototypeOf(async () => null).constructor;
  const result = await new AsyncFunction('require', 'core', SCRIPT)(require, core);
  const encoding = core.getInput('result-encoding') || 'json';
  if (encoding !== 'json' && encoding !== 'string') throw new Error('"result-encoding" must be either "string" or "json"');
  core.setOutput('result', encoding === 'json' ? JSON.stringify(result) : String(result));
})().catch((error) => {
  console.error(error);
  core.setFailed(`Unhandled error: ${error}`);
});
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    type Simulated = fn(&[(String, String)], &mut Ctx<'_>) -> anyhow::Result<Outcome>;

    struct Fixture {
        dir: tempfile::TempDir,
        log: String,
        outputs: Vec<(String, String)>,
        notes: Vec<String>,
    }

    impl Fixture {
        fn new() -> Fixture {
            let dir = tempfile::tempdir().unwrap();
            for d in ["ws", "temp", "repo", "artifacts"] {
                std::fs::create_dir(dir.path().join(d)).unwrap();
            }
            Fixture { dir, log: String::new(), outputs: Vec::new(), notes: Vec::new() }
        }

        fn put(&self, rel: &str) {
            let p = self.dir.path().join("ws").join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, rel).unwrap();
        }

        fn act(&mut self, f: Simulated, w: &[(&str, &str)]) -> Outcome {
            let (ws, temp, repo, artifacts) = (
                self.dir.path().join("ws"),
                self.dir.path().join("temp"),
                self.dir.path().join("repo"),
                self.dir.path().join("artifacts"),
            );
            let mut ctx = Ctx {
                workspace: &ws,
                temp: &temp,
                repo: &repo,
                repo_files: &[],
                artifacts: &artifacts,
                id_token: true,
                log: &mut self.log,
                outputs: &mut self.outputs,
                notes: &mut self.notes,
            };
            f(&with(w), &mut ctx).unwrap()
        }

        fn artifact(&self, name: &str) -> Vec<String> {
            glob::files_below(&self.dir.path().join("artifacts").join(name)).unwrap()
        }
    }

    #[test]
    fn upload_roots_and_hidden_files() {
        let mut f = Fixture::new();
        for p in ["part-save-1.json", "handoff-1.json", "results/p/r/x.json", "results/.hidden", "parts/a/b.json"] {
            f.put(p);
        }
        assert_eq!(
            f.act(upload_artifact, &[("name", "two"), ("path", "part-save-1.json\nhandoff-1.json\nnone.json")]),
            Outcome::Success
        );
        assert_eq!(f.artifact("two"), ["handoff-1.json", "part-save-1.json"]);
        assert_eq!(f.act(upload_artifact, &[("name", "result"), ("path", "results")]), Outcome::Success);
        assert_eq!(f.artifact("result"), ["p/r/x.json"]);
        assert_eq!(f.act(upload_artifact, &[("name", "one"), ("path", "parts/a/b.json")]), Outcome::Success);
        assert_eq!(f.artifact("one"), ["b.json"]);
        assert_eq!(f.act(upload_artifact, &[("name", "glob"), ("path", "results/**/*.json")]), Outcome::Success);
        assert_eq!(f.artifact("glob"), ["p/r/x.json"]);
        assert_eq!(
            f.act(upload_artifact, &[("name", "one"), ("path", "parts")]),
            Outcome::Failure(
                "Failed to CreateArtifact: an artifact with this name already exists on the workflow run: one".into()
            )
        );
        assert_eq!(
            f.act(upload_artifact, &[("name", "none"), ("path", "nothing"), ("if-no-files-found", "error")]),
            Outcome::Failure(
                "No files were found with the provided path: nothing. No artifacts will be uploaded.".into()
            )
        );
        assert_eq!(
            f.act(upload_artifact, &[("name", "none"), ("path", "nothing"), ("if-no-files-found", "ignore")]),
            Outcome::Success
        );
        assert!(!f.dir.path().join("artifacts/none").exists());
    }

    #[test]
    fn download_by_name_and_pattern() {
        let mut f = Fixture::new();
        f.put("part-measure.json");
        f.put("part-save-1.json");
        f.act(upload_artifact, &[("name", "part-measure"), ("path", "part-measure.json")]);
        f.act(upload_artifact, &[("name", "part-save-1"), ("path", "part-save-1.json")]);
        f.act(upload_artifact, &[("name", "result"), ("path", "part-save-1.json")]);
        assert_eq!(
            f.act(download_artifact, &[("pattern", "part-*"), ("merge-multiple", "true"), ("path", "parts")]),
            Outcome::Success
        );
        assert_eq!(
            glob::files_below(&f.dir.path().join("ws/parts")).unwrap(),
            ["part-measure.json", "part-save-1.json"]
        );
        assert_eq!(f.act(download_artifact, &[("pattern", "part-*"), ("path", "each")]), Outcome::Success);
        assert_eq!(
            glob::files_below(&f.dir.path().join("ws/each")).unwrap(),
            ["part-measure/part-measure.json", "part-save-1/part-save-1.json"]
        );
        assert_eq!(
            f.act(download_artifact, &[("name", "part-save-2")]),
            Outcome::Failure("Unable to download artifact(s): Artifact not found for name: part-save-2".into())
        );
    }

    #[test]
    fn attest_needs_its_subjects() {
        let mut f = Fixture::new();
        f.put("results/p/r/x.json");
        assert_eq!(f.act(attest, &[("subject-path", "results/p/r/x.json")]), Outcome::Success);
        assert_eq!(f.outputs[0].0, "bundle-path");
        assert_eq!(
            f.act(attest, &[("subject-path", "results/p/r/y.json")]),
            Outcome::Failure("Could not find subject at path results/p/r/y.json".into())
        );
    }

    #[test]
    fn unknown_inputs_are_named() {
        assert_eq!(
            Action::DownloadArtifact.check_inputs(&with(&[("name", "x"), ("paths", "y")])).unwrap_err().to_string(),
            "unexpected input(s) paths; valid inputs are name, artifact-ids, path, pattern, merge-multiple, \
             github-token, repository, run-id, skip-decompress, digest-mismatch"
        );
    }
}
