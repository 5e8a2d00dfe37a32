#!/usr/bin/env bash
# One release binary: `collector` for $TARGET with the `dist` profile (LTO,
# one codegen unit), copied to dist/collector-$TARGET[.exe]. The release
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
cargo build --profile dist --locked -p collector --target "$TARGET"
mkdir -p dist
cp "target/$TARGET/dist/collector$exe" "dist/collector-$TARGET$exe"
ls -l "dist/collector-$TARGET$exe"
