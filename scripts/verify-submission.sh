#!/usr/bin/env bash
# Pull-request check of what a submission adds, run by the results check
# (.github/workflows/results.yml) in a checkout of the base branch, never
# of the pull request: the pull request's files are read from git
# (`git show $PR_HEAD:<path>`) as data, into a temporary folder.
#
# - Each added or changed result file that carries a GitHub run record
#   (provenance.run_record) must be attested, by GitHub, for exactly this
#   file's SHA-256, and the certificate must say:
#   - the signer is a .github/workflows/benchmark.yml at a trusted workflow
#     commit (buildSignerDigest): the `workflow_commit` of one of the base's
#     release manifests, content/releases/*.toml. Only commit ids count,
#     as forks share them; a commit in main's history that no release
#     ships is refused like any other;
#   - it ran on a GitHub-hosted runner (runnerEnvironment);
#   - it was made in the run and attempt the record names: its
#     sourceRepositoryURI is the record's repository and its
#     runInvocationURI that repository's run and attempt.
#   Anything less fails the check. The notice names the run, the signer
#   commit and its release, and the owner of the repository that ran it.
#   docs/running.md ("What an attestation proves") says what this proves
#   and what it cannot.
# - A result without a run record is a warning: measured by hand, it is
#   accepted as self-built.
# - Each added or changed release manifest (content/releases/*.toml): its
#   digests must be the ones the release's own SHA256SUMS lists, since a
#   manifest decides which binaries `site check` calls released, and its
#   workflow_commit must be the commit its tag names, since it decides
#   which signers this check trusts.
#
# BASE: the commit the pull request's changes are counted from (the merge
# base of its head and the base branch's tip); PR_HEAD: the pull request's
# head commit; UPSTREAM: the repository that publishes releases; GH: the gh
# to run (default: gh on the PATH below; the tests give a stand-in).
set -euo pipefail
# Nothing from the caller's PATH: every tool is the system's.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
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
: "${BASE:?BASE (the commit the changes of the pull request are counted from) is not set}"
: "${PR_HEAD:?PR_HEAD (the head commit of the pull request) is not set}"
upstream=${UPSTREAM:-runner-bench/runner-bench}
gh=${GH:-gh}
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Python runs isolated (-I): no PYTHON* variable, no user site, and
# neither the working folder nor a script's folder on its path.
py() { python3 -I -c "$@"; }

# The trusted signers: the workflow commit of each release manifest of the
# base (this checkout), with its tag. A manifest `site check` would refuse
# still names its commit only if it is a full commit id.
declare -A listed=()
shopt -s nullglob
for m in content/releases/*.toml; do
  if line=$(py '
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    manifest = tomllib.load(f)
print(manifest["workflow_commit"], manifest["tag"])
' "$m" 2>/dev/null) && [[ "$line" =~ ^([0-9a-f]{40})\ (v[0-9A-Za-z.-]+)$ ]] && [ -z "${listed[${BASH_REMATCH[1]}]:-}" ]; then
    listed[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
  fi
done
shopt -u nullglob
# Sorted, so that the message is the same on every run.
trusted=$(for c in "${!listed[@]}"; do echo "$c (${listed[$c]})"; done | sort | paste -sd, - | sed 's/,/, /g')
[ -n "$trusted" ] || trusted="empty: no release has a manifest in content/releases/ yet"

# Each list goes to a file first, so that a failing git diff (a BASE or
# PR_HEAD this clone lacks) stops the check: read from a process
# substitution, its status would be lost, and the check would pass with
# nothing checked. Names are NUL-separated (-z): git quotes a name with
# other bytes, and a quoted name is no file.
changed() { git diff -z --name-only --no-renames --diff-filter=AM "$BASE" "$PR_HEAD" -- "$@" > "$tmp/list"; }
# The pull request's version of a file, as bytes in the temporary folder.
data() { git show "$PR_HEAD:$1" > "$tmp/data"; }

changed 'results/*.json'
mapfile -d '' -t results < "$tmp/list"
for f in "${results[@]}"; do
  data "$f"
  if ! record=$(py '
import json, re, sys
try:
    with open(sys.argv[1], "rb") as f:
        doc = json.load(f)
except ValueError as e:
    sys.exit(f"not JSON: {e}")
p = doc.get("provenance") if isinstance(doc, dict) else None
r = p.get("run_record") if isinstance(p, dict) else None
if r is None:
    print("none")
    sys.exit(0)
if not isinstance(r, dict):
    sys.exit("provenance.run_record: must be an object")
repo, run, attempt = r.get("repository"), r.get("run_id"), r.get("run_attempt")
if not (isinstance(repo, str) and re.fullmatch(r"[A-Za-z0-9-]+/[A-Za-z0-9_.-]+", repo)):
    sys.exit("provenance.run_record.repository: must be a GitHub repository like owner/name")
for field, n in (("run_id", run), ("run_attempt", attempt)):
    if type(n) is not int or n < 1:
        sys.exit(f"provenance.run_record.{field}: must be a positive whole number")
print(repo, run, attempt)
' "$tmp/data" 2>&1); then
    annotate error "$f" "cannot read the run record: ${record##*$'\n'}"
    failed=1
    continue
  fi
  if [ "$record" = none ]; then
    annotate warning "$f" "not attested: the result has no GitHub run record (provenance.run_record); accepted as self-built"
    continue
  fi
  read -r repo run_id attempt <<<"$record"
  run_url="https://github.com/$repo/actions/runs/$run_id/attempts/$attempt"
  # The benchmark workflow is a reusable one, so the attestation's signer
  # is its file (in upstream or a fork: the commit decides), not the
  # caller's repository: without a signer identity gh accepts only a
  # signer in --repo itself, and refuses every real submission.
  # --deny-self-hosted-runners: gh refuses a certificate whose runner
  # environment is not github-hosted. What gh answers is read back and
  # every condition checked again below, so that nothing passes on gh's
  # defaults alone.
  signer_re='^https://github\.com/[A-Za-z0-9-]+/[A-Za-z0-9_.-]+/\.github/workflows/benchmark\.yml@'
  out=$("$gh" attestation verify "$tmp/data" --repo "$repo" --cert-identity-regex "$signer_re" \
    --deny-self-hosted-runners --format json 2>/dev/null) || out='[]'
  # One line: `ok SIGNER DIGEST` for an attestation that meets every
  # condition, otherwise what the closest one lacks (`repository URI`,
  # `run URI`, `signer SIGNER DIGEST`), or `none` where no attestation of
  # this file's digest by a benchmark.yml on a GitHub-hosted runner exists.
  verdict=$(printf '%s' "$out" | py '
import hashlib, json, re, sys
path, signer_re, repo, run, listed = sys.argv[1:6]
with open(path, "rb") as f:
    want = hashlib.sha256(f.read()).hexdigest()
source = f"https://github.com/{repo}"
found = []
try:
    attestations = json.load(sys.stdin)
except ValueError:
    attestations = []
for a in attestations if isinstance(attestations, list) else []:
    try:
        r = a["verificationResult"]
        cert = r["signature"]["certificate"]
        subjects = [s.get("digest", {}).get("sha256") for s in r["statement"]["subject"]]
    except (KeyError, TypeError, AttributeError):
        continue
    uri = str(cert.get("buildSignerURI", ""))
    if cert.get("runnerEnvironment") != "github-hosted" or not re.match(signer_re, uri) or want not in subjects:
        continue
    digest = str(cert.get("buildSignerDigest", "")) or "unknown"
    checks = [
        ("repository", cert.get("sourceRepositoryURI") == source, str(cert.get("sourceRepositoryURI"))),
        ("run", cert.get("runInvocationURI") == run, str(cert.get("runInvocationURI"))),
        ("signer", digest in listed.split(), f"{uri} {digest}"),
    ]
    failing = [(name, value) for name, ok, value in checks if not ok]
    if not failing:
        print("ok", uri, digest)
        sys.exit(0)
    found.append((len(failing), failing[0]))
if not found:
    print("none")
else:
    name, value = min(found, key=lambda x: x[0])[1]
    print(name, value)
' "$tmp/data" "$signer_re" "$repo" "$run_url" "${!listed[*]}")
  read -r kind a b <<<"$verdict"
  case "$kind" in
    ok)
      annotate notice "$f" "attested in run $run_url (measured by ${repo%%/*}), signed by $a at commit $b, the workflow of release ${listed[$b]}" ;;
    repository)
      annotate error "$f" "attested in a run of $a, not of $repo, which provenance.run_record names"
      failed=1 ;;
    run)
      annotate error "$f" "attested in run $a, not in run $run_url, which provenance.run_record names"
      failed=1 ;;
    signer)
      annotate error "$f" "signed by $a at commit $b, which is not a trusted workflow commit (the workflow_commit of a release manifest in content/releases/); the list is $trusted"
      failed=1 ;;
    *)
      annotate error "$f" "not attested: provenance.run_record names run $run_url, but GitHub has no attestation of this file's SHA-256 by a benchmark.yml on a GitHub-hosted runner in $repo"
      failed=1 ;;
  esac
done

changed 'content/releases/*.toml'
mapfile -d '' -t manifests < "$tmp/list"
for m in "${manifests[@]}"; do
  tag=$(basename "$m" .toml)
  if ! [[ "$tag" =~ ^v[0-9A-Za-z.-]+$ ]]; then
    annotate error "$m" "the file name is no release tag like v0.2.0"
    failed=1
    continue
  fi
  data "$m"
  # The workflow commit and every binary of the manifest, read as TOML (as
  # `site check` reads it, whatever its spelling). A manifest that does
  # not parse, or names no binary, fails.
  if ! fields=$(py '
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    manifest = tomllib.load(f)
commit = manifest.get("workflow_commit")
if not isinstance(commit, str):
    sys.exit("workflow_commit: missing")
print(commit)
for b in manifest["binaries"]:
    print(b["sha256"], b["file"])
' "$tmp/data" 2>&1); then
    annotate error "$m" "cannot read its workflow commit and binaries: ${fields##*$'\n'}"
    failed=1
    continue
  fi
  commit=${fields%%$'\n'*}
  binaries=$(sed 1d <<<"$fields")
  # The commit the tag names: an annotated tag is an object of its own,
  # which names the commit (or, rarely, another tag).
  if ! object=$("$gh" api "repos/$upstream/git/ref/tags/$tag" --jq '.object.type + " " + .object.sha' 2>/dev/null); then
    annotate error "$m" "$upstream has no tag $tag to compare workflow_commit with"
    failed=1
    continue
  fi
  for _ in 1 2 3 4 5; do
    [[ "$object" == tag\ * ]] || break
    object=$("$gh" api "repos/$upstream/git/tags/${object#tag }" --jq '.object.type + " " + .object.sha' 2>/dev/null) || object=""
  done
  bad=0
  if [ "$object" != "commit $commit" ]; then
    if [[ "$object" =~ ^commit\ [0-9a-f]{40}$ ]]; then
      annotate error "$m" "workflow_commit $commit is not the commit of tag $tag, ${object#commit }"
    else
      annotate error "$m" "cannot read the commit of tag $tag in $upstream to compare workflow_commit with"
    fi
    bad=1
  fi
  if [ -z "$binaries" ]; then
    annotate error "$m" "lists no binary to compare with release $tag's SHA256SUMS"
    failed=1
    continue
  fi
  sums=$tmp/SHA256SUMS
  if ! "$gh" release download "$tag" --repo "$upstream" --pattern SHA256SUMS --output "$sums" --clobber 2>/dev/null; then
    annotate error "$m" "$upstream has no release $tag with a SHA256SUMS to compare this manifest with"
    failed=1
    continue
  fi
  while read -r digest file; do
    grep -qxF "$digest  $file" "$sums" || { annotate error "$m" "$file with sha256 $digest is not in release $tag's SHA256SUMS"; bad=1; }
  done <<<"$binaries"
  if [ "$bad" = 1 ]; then
    failed=1
  else
    annotate notice "$m" "workflow_commit is tag $tag's commit, and every binary and digest is in release $tag's SHA256SUMS"
  fi
done
exit "$failed"
