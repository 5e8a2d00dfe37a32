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
# Where the jobs took the collector from, when not from an upstream release:
# a reviewer must see it, since the result's attestation only proves which
# workflow ran, with whatever inputs its caller gave it.
notices=()
repository=${COLLECTOR_REPOSITORY:-runner-bench/runner-bench}
if [ "${COLLECTOR_SOURCE:-release}" != release ] || [ "$repository" != runner-bench/runner-bench ] || [ -n "${COLLECTOR_REF:-}" ]; then
  notices+=(--notice "the jobs took the collector from $repository (collector-source ${COLLECTOR_SOURCE:-release}, version ${COLLECTOR_VERSION:-?}, scripts at ${COLLECTOR_REF:-v${COLLECTOR_VERSION:-?}}), not from an upstream release")
fi
exec "$COLLECTOR" assemble --results-dir results "${notices[@]}" "${parts[@]}"
