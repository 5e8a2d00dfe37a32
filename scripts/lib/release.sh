# shellcheck shell=bash
# Sourced by the release scripts (release-check.sh, release-manifest.sh).

# The oldest glibc the Linux release binaries run on (Ubuntu 22.04's):
# release-check.sh refuses a binary that needs a newer one, and the release
# notes and docs/running.md promise it.
# shellcheck disable=SC2034 # read by the scripts that source this file
GLIBC_FLOOR_DEFAULT=2.35

# cargo_version ROOT: the workspace's version, [workspace.package]'s
# `version` in ROOT/Cargo.toml, which every crate and `collector --version`
# take.
cargo_version() {
  sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$1/Cargo.toml"
}

# check_tag VERSION SCRIPT: where TAG is set, fails (naming SCRIPT) unless
# it is v and VERSION.
check_tag() {
  if [ -n "${TAG:-}" ] && [ "$TAG" != "v$1" ]; then
    echo "$2: tag $TAG but Cargo.toml's version is $1" >&2
    exit 1
  fi
}
