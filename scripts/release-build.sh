#!/usr/bin/env bash
# One release binary: `collector` for $TARGET with the `dist` profile (LTO,
# one codegen unit) and CoreMark from EEMBC's sources at a pinned commit,
# copied to dist/collector-$TARGET[.exe] and checked by release-check.sh
# (version, tag where TAG is set, glibc floor on Linux). The release
# workflow runs it natively on each target's runner; it runs the same way
# on a developer's machine for its own target.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TARGET:?TARGET (a target triple) is not set}"
exe=
case "$TARGET" in
  *-windows-*)
    exe=.exe
    # A GNU host toolchain, so that the build script's C compiler is the
    # image's MinGW GCC; the channel is rust-toolchain.toml's.
    channel=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
    export RUSTUP_TOOLCHAIN="$channel-$TARGET"
    rustup toolchain install "$RUSTUP_TOOLCHAIN" --profile minimal
    ;;
  *)
    # rust-toolchain.toml's channel, installed explicitly (newer rustup
    # versions do not install a missing toolchain on first use).
    rustup toolchain install
    rustup target add "$TARGET"
    ;;
esac
# Published results run EEMBC's own CoreMark: the official sources at the
# commit in vendor/coremark/EEMBC_COMMIT, compiled through the shim
# (vendor/coremark/README.md). A source build uses the project's
# implementation; the site never ranks the two together.
eembc_commit=$(cat vendor/coremark/EEMBC_COMMIT)
if [ -z "${RUNNER_BENCH_COREMARK_SRC:-}" ]; then
  export RUNNER_BENCH_COREMARK_SRC=$PWD/target/eembc-coremark
  if [ ! -d "$RUNNER_BENCH_COREMARK_SRC/.git" ]; then
    git init -q "$RUNNER_BENCH_COREMARK_SRC"
    git -C "$RUNNER_BENCH_COREMARK_SRC" fetch -q --depth 1 https://github.com/eembc/coremark.git "$eembc_commit"
  fi
  git -C "$RUNNER_BENCH_COREMARK_SRC" -c advice.detachedHead=false checkout -q "$eembc_commit"
fi
have=$(git -C "$RUNNER_BENCH_COREMARK_SRC" rev-parse HEAD)
if [ "$have" != "$eembc_commit" ]; then
  echo "RUNNER_BENCH_COREMARK_SRC is at $have, not the pinned $eembc_commit (vendor/coremark/EEMBC_COMMIT)" >&2
  exit 1
fi
cargo build --profile dist --locked -p collector --target "$TARGET"
mkdir -p dist
cp "target/$TARGET/dist/collector$exe" "dist/collector-$TARGET$exe"
ls -l "dist/collector-$TARGET$exe"
# Run here, natively: its version (and TAG's, where set) and, on Linux, the
# oldest glibc it runs on.
bash scripts/release-check.sh "dist/collector-$TARGET$exe" "$TARGET"
