#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script).
# It installs what the tests need from the package registries, then runs
# rustfmt, clippy with warnings denied, and every test, all with --locked.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the tests use. gcc builds the CoreMark workload.
need=()
command -v cc >/dev/null || need+=(gcc)
if [ "${#need[@]}" -gt 0 ]; then
  echo "==> installing ${need[*]}"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${need[@]}"
  else sudo apt-get update -qq && sudo apt-get install -y -qq "${need[@]}"; fi
fi

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy (warnings denied)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked
