#!/usr/bin/env bash
# Writes SHA256SUMS of the release binaries in the folder $1 (dist/), the
# release manifest that goes to content/releases/$TAG.toml (so that `site
# check` knows this release's binaries offline), and the release notes.
# The manifest is printed to the job summary for a maintainer to commit.
set -euo pipefail
dir=${1:?usage: release-manifest.sh DIR}
: "${TAG:?TAG (e.g. v0.2.0) is not set}"
: "${REPOSITORY:=runner-bench/runner-bench}"
version=${TAG#v}
cd "$dir"
shopt -s nullglob
bins=(collector-*)
if [ "${#bins[@]}" -eq 0 ]; then echo "release-manifest.sh: no collector-* in $dir" >&2; exit 1; fi
# The tag must name the version the binaries report (Cargo.toml's). Artifacts
# lose the executable bit on the way here.
if [ -f collector-x86_64-unknown-linux-gnu ] && [ "$(uname -m)" = x86_64 ]; then
  chmod +x collector-x86_64-unknown-linux-gnu
  reported=$(./collector-x86_64-unknown-linux-gnu --version | cut -d' ' -f2)
  if [ "$reported" != "$version" ]; then
    echo "release-manifest.sh: tag $TAG but the collector reports version $reported" >&2; exit 1
  fi
fi
sha256sum "${bins[@]}" > SHA256SUMS
{
  echo "# Written by the release workflow from SHA256SUMS; reviewed by pull request."
  echo "tag = \"$TAG\""
  echo "version = \"$version\""
  echo "published = \"$(date -u +%Y-%m-%d)\""
  echo "repository = \"$REPOSITORY\""
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
  echo "\`gh attestation verify collector-<target> --repo $REPOSITORY\`."
} > NOTES.md
cat SHA256SUMS
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { echo "### Commit this as content/releases/$TAG.toml"; echo; echo '```toml'; cat "$TAG.toml"; echo '```'; } >> "$GITHUB_STEP_SUMMARY"
fi
