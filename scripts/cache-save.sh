#!/usr/bin/env bash
# The save job of cache trial $TRIAL (.github/workflows/benchmark.yml):
# saves the payload to the GitHub Actions cache and to every extra backend
# in $BACKENDS (one `--backend` value per line, docs/cache.md), and writes
# the partial result part-save-$TRIAL.json and the hand-off file
# handoff-$TRIAL.json for the restore job.
#
# Of the job's `run:` steps, only this one gets the cache service's token in
# its environment: the workflow maps it in from the JavaScript step that
# read it (GitHub gives it to JavaScript actions, not to `run:` steps).
# Every JavaScript action of the job has it too, and in a job with
# `id-token: write` every step would (ACTIONS_ID_TOKEN_REQUEST_TOKEN); the
# save and restore jobs have no id-token permission (docs/cache.md).
set -euo pipefail
: "${COLLECTOR:?COLLECTOR (the collector binary) is not set}"
: "${TRIAL:?TRIAL is not set}"
args=(--backend 'id=github;name=GitHub Actions cache;kind=archive-service')
while IFS= read -r b; do
  [ -n "$b" ] && args+=(--backend "$b")
done <<< "${BACKENDS:-}"
exec "$COLLECTOR" cache save --profile "${PROFILE:-standard}" --trial "$TRIAL" "${args[@]}" \
  --handoff "handoff-$TRIAL.json" --out "part-save-$TRIAL.json"
