#!/usr/bin/env bash
# The collector's steps of the action method (.github/workflows/benchmark.yml,
# docs/cache.md): `cache-action.sh prepare|record save|restore SLOT` in
# cache trial $TRIAL. prepare save takes the actions from $CACHE_ACTIONS
# (one per line, as the workflow's cache-actions input); record reads the
# action step's outcome and outputs from $RUNNER_BENCH_STEPS (the job's
# steps context) and the runtime service URL from $RUNNER_BENCH_RUNTIME_URL.
#
# prepare starts the clock as its last act and record stops it as its
# first, so both `exec` the collector: nothing of this script runs after
# prepare's clock or, beyond bash's start, before record's.
set -euo pipefail
: "${COLLECTOR:?COLLECTOR (the collector binary) is not set}"
: "${TRIAL:?TRIAL is not set}"
if [ $# -ne 3 ]; then
  echo "usage: cache-action.sh prepare|record save|restore SLOT" >&2
  exit 2
fi
step=$1 half=$2 slot=$3
case "$step/$half" in
  prepare/save)
    args=()
    while IFS= read -r a; do
      a=${a//[[:space:]]/}
      [ -n "$a" ] && args+=(--action "$a")
    done <<< "${CACHE_ACTIONS:-actions-cache}"
    exec "$COLLECTOR" cache prepare save --slot "$slot" --trial "$TRIAL" --profile "${PROFILE:-standard}" "${args[@]}"
    ;;
  prepare/restore)
    exec "$COLLECTOR" cache prepare restore --slot "$slot" --handoff "handoff-$TRIAL.json"
    ;;
  record/save | record/restore)
    exec "$COLLECTOR" cache record "$half" --slot "$slot" --trial "$TRIAL" --handoff "handoff-$TRIAL.json" \
      --out "part-$half-$TRIAL.json"
    ;;
  *)
    echo "cache-action.sh: unknown step $step $half" >&2
    exit 2
    ;;
esac
