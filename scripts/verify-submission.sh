#!/usr/bin/env bash
# Pull-request check of what a submission adds (against $BASE):
# - each added or changed result file: whether GitHub has a build-provenance
#   attestation of it, made in a run of the repository the result names
#   (provenance.github.repository), by a benchmark.yml of upstream's owner
#   or of that repository's owner, on a GitHub-hosted runner (only the
#   workflow's `attest` job may sign, and it runs on one), for exactly this
#   file's SHA-256; and whether the signing workflow's commit is in
#   upstream's history (the base's); the annotation says which, and a
#   reviewer checks the signer (docs/running.md, "What an attestation
#   proves");
# - each added or changed release manifest (content/releases/*.toml): that
#   its digests are the ones the release's own SHA256SUMS lists, since a
#   manifest decides which binaries `site check` calls released.
# An unattested result is a warning for the reviewer, not an error: results
# measured by hand are accepted and marked self-built. A manifest digest the
# release does not list fails the check.
set -euo pipefail
# A workflow command (::warning file=…::…) per finding. File names and
# manifest fields come from the pull request: escaped as GitHub's runner
# reads them back (a property's ':' and ',', and '%', CR and LF anywhere),
# so that a name with a line break cannot start a command of its own.
annotate() {
  local file=$2 msg=$3
  file=${file//%/%25}; file=${file//$'\r'/%0D}; file=${file//$'\n'/%0A}; file=${file//:/%3A}; file=${file//,/%2C}
  msg=${msg//%/%25}; msg=${msg//$'\r'/%0D}; msg=${msg//$'\n'/%0A}
  printf '::%s file=%s::%s\n' "$1" "$file" "$msg"
}
: "${BASE:?BASE (the base commit of the pull request) is not set}"
upstream=${UPSTREAM:-runner-bench/runner-bench}
failed=0
# Each list goes to a file first, so that a failing git diff (a BASE this
# clone lacks) stops the check: read from a process substitution, its
# status would be lost, and the check would pass with nothing checked.
# Names are NUL-separated (-z): git quotes a name with other bytes, and a
# quoted name is no file.
list=$(mktemp)
trap 'rm -f "$list"' EXIT
changed() { git diff -z --name-only --no-renames --diff-filter=AM "$BASE" HEAD -- "$@" > "$list"; }
changed 'results/*.json' 'results/**/*.json'
mapfile -d '' -t results < "$list"
for f in "${results[@]}"; do
  repo=$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])).get("provenance",{}).get("github"); print(g["repository"] if g else "")' "$f" 2>/dev/null || true)
  # The name goes into workflow commands and the owner into a regex: only
  # an owner/name as GitHub spells them is accepted (owners have no dots).
  if ! [[ "$repo" =~ ^[A-Za-z0-9-]+/[A-Za-z0-9_.-]+$ ]]; then
    annotate warning "$f" "not attested: the result names no GitHub repository that ran it"
    continue
  fi
  # The benchmark workflow is a reusable one, so the attestation's signer
  # is its file, in upstream or in a fork in the caller's organisation, not
  # the caller's repository: without a signer identity gh accepts only a
  # signer in --repo itself, and refuses every real submission.
  owner=${repo%%/*}
  signer_re="^https://github\.com/(${upstream%%/*}|${owner})/[^/]+/\.github/workflows/benchmark\.yml@"
  # --deny-self-hosted-runners: the certificate's runner environment must
  # be github-hosted. gh checks the subject digest against the file, the
  # signer identity against the regex, and the runner; the answer is read
  # back below and checked again, so that no attestation passes on what
  # gh's defaults alone say.
  if out=$(gh attestation verify "$f" --repo "$repo" --cert-identity-regex "$signer_re" --deny-self-hosted-runners --format json 2>&1) &&
    signed=$(printf '%s' "$out" | python3 -c '
import hashlib, json, re, sys
path, signer_re = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    want = hashlib.sha256(f.read()).hexdigest()
for a in json.load(sys.stdin):
    r = a["verificationResult"]
    cert = r["signature"]["certificate"]
    subjects = [s.get("digest", {}).get("sha256") for s in r["statement"]["subject"]]
    uri = cert.get("buildSignerURI", "")
    if cert.get("runnerEnvironment") == "github-hosted" and re.match(signer_re, uri) and want in subjects:
        print(uri, cert.get("buildSignerDigest", ""))
        sys.exit(0)
sys.exit(1)
' "$f" "$signer_re" 2>/dev/null); then
    signer=${signed%% *}
    digest=${signed#* }
    # A fork's workflow is upstream's only at a commit of upstream's
    # history (this job checks out the whole history): of the base, not of
    # HEAD, which on a pull request is the merge with the submitter's
    # commits, where any workflow they pushed would pass.
    if [[ "$digest" =~ ^[0-9a-f]{40}$ ]] && git merge-base --is-ancestor "$digest" "$BASE" 2>/dev/null; then
      annotate notice "$f" "attested in a run of $repo, signed by $signer at upstream commit $digest"
    else
      annotate warning "$f" "attested in a run of $repo, signed by $signer at commit ${digest:-unknown}, which is not in upstream's history: check that workflow before merging"
    fi
  else
    annotate warning "$f" "not attested in a run of $repo by a benchmark.yml of ${upstream%%/*} or $owner on a GitHub-hosted runner for this file's SHA-256"
  fi
done

changed 'content/releases/*.toml'
mapfile -d '' -t manifests < "$list"
for m in "${manifests[@]}"; do
  tag=$(basename "$m" .toml)
  sums=$(mktemp)
  if ! gh release download "$tag" --repo "$upstream" --pattern SHA256SUMS --output "$sums" --clobber 2>/dev/null; then
    annotate error "$m" "$upstream has no release $tag with a SHA256SUMS to compare this manifest with"
    failed=1
    continue
  fi
  # Every binary of the manifest, read as TOML (as `site check` reads it,
  # whatever its spelling), must be a line of SHA256SUMS: its digest and
  # its file. A manifest that does not parse, or names no binary, fails.
  if ! binaries=$(python3 -c '
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    manifest = tomllib.load(f)
for b in manifest["binaries"]:
    print(b["sha256"], b["file"])
' "$m" 2>&1); then
    annotate error "$m" "cannot read its binaries: ${binaries##*$'\n'}"
    failed=1
    continue
  fi
  if [ -z "$binaries" ]; then
    annotate error "$m" "lists no binary to compare with release $tag's SHA256SUMS"
    failed=1
    continue
  fi
  bad=0
  while read -r digest file; do
    grep -qxF "$digest  $file" "$sums" || { annotate error "$m" "$file with sha256 $digest is not in release $tag's SHA256SUMS"; bad=1; }
  done <<<"$binaries"
  if [ "$bad" = 1 ]; then failed=1; else annotate notice "$m" "every binary and digest is in release $tag's SHA256SUMS"; fi
done
exit "$failed"
