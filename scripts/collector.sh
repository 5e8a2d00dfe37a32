#!/usr/bin/env bash
# Puts a verified `collector` binary on this runner and writes its path to
# the step's `path` output (GITHUB_OUTPUT). One step of every benchmark job
# (.github/workflows/benchmark.yml); runs the same way outside GitHub.
#
#   SOURCE=release (default): downloads collector-<target> of release
#     v$VERSION from $REPOSITORY, and SHA256SUMS beside it, and refuses a
#     binary whose SHA-256 is not the one SHA256SUMS lists for it.
#     RUNNER_BENCH_RELEASE_BASE_URL replaces the release's download folder
#     (https://github.com/$REPOSITORY/releases/download/v$VERSION): a mirror,
#     or the rehearsal test's local copy of a release.
#   VERIFY_TOKEN, where gh is installed: also verifies the release binary's
#     build-provenance attestation (signed by $REPOSITORY's release.yml).
#   SOURCE=build: builds the collector from the checked-out sources (the
#     folder this script is in) with the release profile `dist`, for
#     development of the collector itself. Results say "self-built".
set -euo pipefail

source_kind=${SOURCE:-release}
# The token (VERIFY_TOKEN) reaches only the attestation check, never the
# build or the downloaded binary.
verify_token=${VERIFY_TOKEN:-}
unset VERIFY_TOKEN GH_TOKEN
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
# Windows runners give RUNNER_TEMP as D:\a\_temp; Git Bash's own form of it
# is the one every command here takes.
if command -v cygpath >/dev/null; then temp=$(cygpath -u "$temp"); fi
# A folder of its own (mktemp -d, mode 700): a fixed name outside a job's
# RUNNER_TEMP could be another user's folder, holding a link that the
# download writes through, or a binary swapped in after the check.
dest=$(mktemp -d "$temp/runner-bench-bin.XXXXXX")

# The target triple of this runner's release binary, from the runner's own
# variables where GitHub sets them, else from uname; none where no release
# binary fits (another OS or architecture, or a Linux whose C library is
# musl, which cannot run the glibc binaries).
os=${RUNNER_OS:-$(uname -s)}
arch=${RUNNER_ARCH:-$(uname -m)}
libc=
case "$(ldd --version 2>&1 || true)" in *musl*) libc=" (musl)" ;; esac
target='' exe=''
case "$os/$arch$libc" in
  Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux/ARM64 | Linux/aarch64) target=aarch64-unknown-linux-gnu ;;
  macOS/ARM64 | Darwin/arm64) target=aarch64-apple-darwin ;;
  Windows/X64 | MINGW*/x86_64 | MSYS*/x86_64) target=x86_64-pc-windows-gnu exe=.exe ;;
esac
if [ -z "$target" ] && [ "$source_kind" = release ]; then
  echo "collector.sh: no released collector for $os/$arch$libc; build one with SOURCE=build (the workflow's collector-source: build)" >&2
  exit 1
fi

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

case "$source_kind" in
  release)
    : "${VERSION:?VERSION (the collector release, e.g. 0.2.0) is not set}"
    : "${REPOSITORY:=runner-bench/runner-bench}"
    base=${RUNNER_BENCH_RELEASE_BASE_URL:-https://github.com/$REPOSITORY/releases/download/v$VERSION}
    file=collector-$target$exe
    echo "collector.sh: downloading $file and SHA256SUMS from $base"
    # Time limits: a stalled transfer would otherwise hang until the job's
    # timeout (curl has none of its own).
    curl --fail --silent --show-error --location --retry 3 --connect-timeout 30 --max-time 600 -o "$dest/SHA256SUMS" "$base/SHA256SUMS"
    curl --fail --silent --show-error --location --retry 3 --connect-timeout 30 --max-time 600 -o "$dest/$file" "$base/$file"
    # SHA256SUMS lines are "<hex>  <file>" (sha256sum's format; "*<file>"
    # in binary mode). A copy that passed through Windows line endings or
    # upper-case hex (a mirror's) still names the same digest.
    want=$(awk -v f="$file" '{ sub(/\r$/, "") } $2 == f || $2 == "*" f { print tolower($1) }' "$dest/SHA256SUMS")
    got=$(sha256 "$dest/$file")
    if [ -z "$want" ]; then
      echo "collector.sh: SHA256SUMS of v$VERSION lists no $file" >&2; exit 1
    fi
    if [ "$want" != "$got" ]; then
      echo "collector.sh: $file has SHA-256 $got but SHA256SUMS says $want; refusing to run it" >&2; exit 1
    fi
    echo "collector.sh: $file SHA-256 $got matches SHA256SUMS"
    # SHA256SUMS comes from the same place as the binary, so the digest shows
    # integrity only. Where gh and a token are at hand, the release's build
    # provenance shows where it was built; either way, site check compares
    # the result's binary digest with the committed release manifests.
    if command -v gh >/dev/null && [ -n "$verify_token" ]; then
      GH_TOKEN=$verify_token gh attestation verify "$dest/$file" --repo "$REPOSITORY" \
        --signer-workflow "$REPOSITORY/.github/workflows/release.yml"
      echo "collector.sh: $file is attested by $REPOSITORY's release workflow"
    else
      echo "collector.sh: attestation not checked (needs gh and VERIFY_TOKEN)"
    fi
    mv "$dest/$file" "$dest/collector$exe"
    chmod +x "$dest/collector$exe"
    reported=$("$dest/collector$exe" --version | cut -d' ' -f2)
    if [ "$reported" != "$VERSION" ]; then
      echo "collector.sh: release v$VERSION's binary reports version $reported; refusing to run it" >&2; exit 1
    fi
    ;;
  build)
    root=$(cd "$(dirname "$0")/.." && pwd)
    # Where no release binary fits, the build is for the machine itself:
    # rustc's host triple (rust-toolchain.toml's toolchain, installed first).
    if [ -z "$target" ]; then
      if command -v rustup >/dev/null; then (cd "$root" && rustup toolchain install >&2); fi
      target=$(cd "$root" && rustc -vV | sed -n 's/^host: //p')
      case "$target" in *-windows-*) exe=.exe ;; esac
    fi
    # cargo's own output folder, which CARGO_TARGET_DIR moves (relative to
    # the sources' folder, where cargo runs, unless absolute).
    out=$root/target
    case "${CARGO_TARGET_DIR:-}" in
      '') ;;
      /* | [A-Za-z]:*) out=$CARGO_TARGET_DIR ;;
      *) out=$root/$CARGO_TARGET_DIR ;;
    esac
    built=$out/$target/dist/collector$exe
    echo "collector.sh: building the collector from $root (profile dist, $target)"
    # From the sources' folder, so that rustup takes their
    # rust-toolchain.toml (the job's folder is the caller's workspace), with
    # the target installed; on Windows a GNU host toolchain, as
    # release-build.sh uses, so the C compiler is MinGW's GCC.
    # GITHUB_SHA is the calling workflow's commit, not these sources': without
    # it the build records the checkout's own revision.
    (
      cd "$root"
      if command -v rustup >/dev/null; then
        case "$target" in
          *-windows-*)
            RUSTUP_TOOLCHAIN="$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)-$target"
            export RUSTUP_TOOLCHAIN
            rustup toolchain install "$RUSTUP_TOOLCHAIN" --profile minimal
            ;;
          *) rustup toolchain install && rustup target add "$target" ;;
        esac
      fi
      env -u GITHUB_SHA cargo build --profile dist --locked -p collector --target "$target"
    )
    cp "$built" "$dest/collector$exe"
    ;;
  *) echo "collector.sh: SOURCE must be release or build, not '$source_kind'" >&2; exit 1 ;;
esac

chmod +x "$dest/collector$exe"
"$dest/collector$exe" --version
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "path=$dest/collector$exe" >> "$GITHUB_OUTPUT"; fi
