#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script).
# It installs what the tests need from the package registries, then runs
# rustfmt, clippy with warnings denied, and every test, all with --locked.
set -euo pipefail
cd "$(dirname "$0")/.."

# rust-toolchain.toml names the channel (1.95.0). rustup downloads it where
# it is missing; a machine that cannot reach rustup's server but whose
# stable toolchain is that very release gets a link to it instead.
channel=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml 2>/dev/null || true)
# (The list is read first: with pipefail, grep -q stopping early could fail
# the pipeline.)
installed=$(rustup toolchain list 2>/dev/null || true)
if [ -n "$channel" ] && command -v rustup >/dev/null && ! grep -q "^$channel-" <<<"$installed"; then
  stable=$(rustup run stable rustc --version 2>/dev/null | cut -d' ' -f2 || true)
  if [ "$stable" = "$channel" ]; then
    host=$(rustup run stable rustc -vV | sed -n 's/^host: //p')
    home=${RUSTUP_HOME:-$HOME/.rustup}
    echo "==> linking toolchain $channel-$host to the installed stable ($stable)"
    ln -s "$home/toolchains/stable-$host" "$home/toolchains/$channel-$host"
  fi
fi

# System packages the tests use. gcc builds the CoreMark workload; nginx,
# php-fpm and openssl serve the internet stage's LibreSpeed test server
# (tests/librespeed); nginx's WebDAV module is also the http-cache stage's
# Gradle, Bazel and WebDAV server (tests/http-cache); curl is the internet
# benchmark's baseline.
need=()
command -v cc >/dev/null || need+=(gcc)
[ -x /usr/sbin/nginx ] || need+=(nginx)
compgen -G '/usr/sbin/php-fpm*' >/dev/null || need+=(php-fpm)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
# The site's browser test (site/tests/suite/browser.rs) drives Debian's chromium.
[ -x /usr/bin/chromium ] || need+=(chromium)
# The cache stage's tests run node (Azurite, the cache service double,
# @actions/cache), and tar and zstd as the official client does; the
# http-cache stage's run node for turborepo-remote-cache.
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
command -v tar >/dev/null || need+=(tar)
command -v zstd >/dev/null || need+=(zstd)
# The rehearsal runs the benchmark workflow's inline steps, which read JSON
# with jq as GitHub's runner images have it.
command -v jq >/dev/null || need+=(jq)
# The workflow lint: actionlint checks run: blocks with shellcheck, and the
# linters come from PyPI into a virtual environment.
command -v shellcheck >/dev/null || need+=(shellcheck)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
# The release check's tests (collector/tests/suite/release_check.rs) read the
# collector's glibc symbol versions with objdump and readelf.
command -v objdump >/dev/null && command -v readelf >/dev/null || need+=(binutils)
if [ "${#need[@]}" -gt 0 ]; then
  echo "==> installing ${need[*]}"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else sudo apt-get update -qq && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; fi
fi

# npm packages of the cache stage's tests (tests/cache-service) and of the
# http-cache stage's (tests/http-cache: turborepo-remote-cache), from the
# committed lock files; each skipped while its installed tree matches it.
for dir in tests/cache-service tests/http-cache; do
  lock=$dir/package-lock.json
  stamp=$dir/node_modules/.runner-bench-lock-sha256
  if [ "$(cat "$stamp" 2>/dev/null)" != "$(sha256sum "$lock" | cut -d' ' -f1)" ]; then
    echo "==> npm ci --prefix $dir"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
    sha256sum "$lock" | cut -d' ' -f1 > "$stamp"
  fi
done

bash scripts/lint-workflows.sh

echo "==> module layers, file sizes and the docs' bounds"
python3 scripts/check-layers.py
python3 -I -B -m unittest discover -s scripts -p 'test_*.py'

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy (warnings denied)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked
