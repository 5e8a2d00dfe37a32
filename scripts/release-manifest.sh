#!/usr/bin/env bash
# Writes SHA256SUMS of the release binaries in the folder $1 (dist/), the
# release manifest that goes to content/releases/$TAG.toml (so that `site
# check` knows this release's binaries offline), and the release notes.
# The manifest is printed to the job summary for a maintainer to commit.
set -euo pipefail
dir=${1:?usage: release-manifest.sh DIR}
: "${TAG:?TAG (e.g. v0.2.0) is not set}"
: "${REPOSITORY:=runner-bench/runner-bench}"
# The commit the tag names (GITHUB_SHA on a tag push): the manifest lists
# it as the workflow version this release ships, the one signer the
# results check then trusts for it (content/releases/README.md).
: "${WORKFLOW_COMMIT:?WORKFLOW_COMMIT (the commit the tag names) is not set}"
if ! [[ "$WORKFLOW_COMMIT" =~ ^[0-9a-f]{40}$ ]]; then
  echo "release-manifest.sh: WORKFLOW_COMMIT must be a commit id, 40 lowercase hex digits, found \"$WORKFLOW_COMMIT\"" >&2
  exit 1
fi
version=${TAG#v}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$dir"
shopt -s nullglob
bins=(collector-*)
if [ "${#bins[@]}" -eq 0 ]; then echo "release-manifest.sh: no collector-* in $dir" >&2; exit 1; fi
# The tag must name Cargo.toml's version. Each build job checked that its
# binary reports it (release-check.sh); this job, which can sign and
# publish, runs no binary.
# shellcheck source=scripts/lib/release.sh
. "$root/scripts/lib/release.sh"
check_tag "$(cargo_version "$root")" release-manifest.sh
sha256sum "${bins[@]}" > SHA256SUMS
{
  echo "# Written by the release workflow from SHA256SUMS; reviewed by pull request."
  echo "tag = \"$TAG\""
  echo "version = \"$version\""
  echo "published = \"$(date -u +%Y-%m-%d)\""
  echo "repository = \"$REPOSITORY\""
  echo "workflow_commit = \"$WORKFLOW_COMMIT\""
  while read -r sum file; do
    target=${file#collector-}
    target=${target%.exe}
    printf '\n[[binaries]]\ntarget = "%s"\nfile = "%s"\nsha256 = "%s"\n' "$target" "$file" "$sum"
  done < SHA256SUMS
} > "$TAG.toml"
{
  echo "collector $version for Linux (x64, arm64), macOS (arm64) and Windows (x64)."
  echo
  echo "Verify a download with \`sha256sum --check --ignore-missing SHA256SUMS\` and"
  echo "\`gh attestation verify collector-<target>[.exe] --repo $REPOSITORY\`."
  echo
  echo "The Linux binaries run on glibc $GLIBC_FLOOR_DEFAULT or newer (Ubuntu 22.04, Debian 12 and later)."
} > NOTES.md
cat SHA256SUMS
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { echo "### Commit this as content/releases/$TAG.toml"; echo; echo '```toml'; cat "$TAG.toml"; echo '```'; } >> "$GITHUB_STEP_SUMMARY"
fi
