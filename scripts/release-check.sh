#!/usr/bin/env bash
# Checks one built release binary before the release workflow keeps it
# (release-build.sh runs it in each build job, on the binary's own kind of
# runner, so every binary is run natively and no job that can sign or
# publish ever runs one):
#
#   release-check.sh BINARY TARGET
#
# - a Linux binary (TARGET *-linux-gnu), and the CoreMark program it embeds
#   (written out by `collector workload`), ask for no glibc newer than
#   GLIBC_FLOOR (default: scripts/lib/release.sh's, which the release notes
#   and docs/running.md promise), read from their dynamic symbols by objdump;
# - the binary reports Cargo.toml's version (`collector --version`);
# - where TAG is set (the release workflow sets the pushed tag), the tag is
#   v and that version.
set -euo pipefail
bin=${1:?usage: release-check.sh BINARY TARGET}
target=${2:?usage: release-check.sh BINARY TARGET}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib/release.sh
. "$root/scripts/lib/release.sh"
floor=${GLIBC_FLOOR:-$GLIBC_FLOOR_DEFAULT}
version=$(cargo_version "$root")

# The newest glibc symbol version FILE names (e.g. 2.34 from GLIBC_2.34),
# the oldest glibc it runs on; refuses, naming WHAT, one newer than the floor.
check_glibc() { # FILE WHAT
  local need
  # (Neither a file objdump cannot read nor one without a glibc symbol
  # stops the script here: the message below says so.)
  need=$({ objdump -T "$1" 2>/dev/null || true; } | { grep -o 'GLIBC_[0-9][0-9.]*' || true; } \
    | sed 's/^GLIBC_//' | sort -uV | tail -1)
  if [ -z "$need" ]; then
    echo "release-check.sh: objdump found no glibc symbol version in $2" >&2; exit 1
  fi
  if [ "$(printf '%s\n%s\n' "$need" "$floor" | sort -V | tail -1)" != "$floor" ]; then
    echo "release-check.sh: $2 needs glibc $need, newer than the floor $floor (GLIBC_FLOOR)" >&2; exit 1
  fi
  echo "release-check.sh: $2 needs glibc $need (floor $floor)"
}

case "$target" in
  *-linux-gnu)
    command -v objdump >/dev/null || { echo "release-check.sh: objdump is missing (binutils)" >&2; exit 1; }
    check_glibc "$bin" "$bin"
    # The CoreMark programs the collector embeds and runs (one-thread and
    # all-core) are binaries of their own, linked by the C toolchain: they
    # must run wherever the collector does.
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    if ! said=$("$bin" workload "$work/coremark-workload" 2>&1); then
      echo "release-check.sh: $bin could not write its CoreMark program (collector workload): $said" >&2; exit 1
    fi
    check_glibc "$work/coremark-workload" "its CoreMark program"
    if ! said=$("$bin" workload --all-core "$work/coremark-allcore" 2>&1); then
      echo "release-check.sh: $bin could not write its all-core CoreMark program (collector workload --all-core): $said" >&2
      exit 1
    fi
    check_glibc "$work/coremark-allcore" "its all-core CoreMark program"
    ;;
esac

reported=$("$bin" --version | cut -d' ' -f2)
if [ "$reported" != "$version" ]; then
  echo "release-check.sh: $bin reports version $reported, not Cargo.toml's $version" >&2; exit 1
fi
check_tag "$version" release-check.sh
echo "release-check.sh: $bin reports version $version"
