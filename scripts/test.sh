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
# The cache stage's tests run node (Azurite, the cache service double,
# @actions/cache), and tar and zstd as the official client does.
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
command -v tar >/dev/null || need+=(tar)
command -v zstd >/dev/null || need+=(zstd)
if [ "${#need[@]}" -gt 0 ]; then
  echo "==> installing ${need[*]}"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else sudo apt-get update -qq && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; fi
fi

# npm packages of the cache stage's tests (tests/cache-service), from the
# committed lock file; skipped while the installed tree matches it.
lock=tests/cache-service/package-lock.json
stamp=tests/cache-service/node_modules/.runner-bench-lock-sha256
if [ "$(cat "$stamp" 2>/dev/null)" != "$(sha256sum "$lock" | cut -d' ' -f1)" ]; then
  echo "==> npm ci --prefix tests/cache-service"
  npm ci --prefix tests/cache-service --no-audit --no-fund --loglevel=error >/dev/null
  sha256sum "$lock" | cut -d' ' -f1 > "$stamp"
fi

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy (warnings denied)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked
