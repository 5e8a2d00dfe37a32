#!/usr/bin/env bash
# The assemble job (.github/workflows/benchmark.yml): joins every part the
# earlier jobs left in parts/ into one result under results/, at its
# submission path, and records every job's conclusion ($RUNNER_BENCH_JOBS,
# GitHub's needs context as JSON), so that a failed, cancelled or skipped
# job shows in the result as a notice and an incomplete stage.
set -euo pipefail
: "${COLLECTOR:?COLLECTOR (the collector binary) is not set}"
shopt -s nullglob
parts=(parts/part-*.json)
if [ "${#parts[@]}" -eq 0 ]; then
  echo "assemble.sh: no job left a part in parts/: every measuring job failed before writing one" >&2
  exit 1
fi
exec "$COLLECTOR" assemble --results-dir results "${parts[@]}"
