#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script).
# It installs what the tests need from the package registries, then runs
# rustfmt, clippy with warnings denied, and every test, all with --locked.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the tests use. gcc builds the CoreMark workload; nginx,
# php-fpm and openssl serve the internet stage's LibreSpeed test server
# (tests/librespeed); curl is the internet benchmark's baseline.
need=()
command -v cc >/dev/null || need+=(gcc)
[ -x /usr/sbin/nginx ] || need+=(nginx)
compgen -G '/usr/sbin/php-fpm*' >/dev/null || need+=(php-fpm)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
# The site's browser test (site/tests/browser.rs) drives Debian's chromium.
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ "${#need[@]}" -gt 0 ]; then
  echo "==> installing ${need[*]}"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else sudo apt-get update -qq && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; fi
fi

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy (warnings denied)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked
