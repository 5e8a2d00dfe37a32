#!/usr/bin/env bash
# Pull-request check of submitted result files: for every result file the
# pull request adds or changes (against $BASE), asks GitHub whether it is
# attested by the runner-bench benchmark workflow in the repository that
# ran it (provenance.github.repository), and prints a workflow annotation
# on the file saying so. An unattested file is a warning for the reviewer,
# not an error: results measured by hand are accepted and marked.
set -euo pipefail
: "${BASE:?BASE (the base commit of the pull request) is not set}"
signer=${SIGNER_WORKFLOW:-runner-bench/runner-bench/.github/workflows/benchmark.yml}
mapfile -t files < <(git diff --name-only --diff-filter=AM "$BASE" HEAD -- 'results/*.json' 'results/**/*.json')
if [ "${#files[@]}" -eq 0 ]; then echo "no result files added or changed"; exit 0; fi
for f in "${files[@]}"; do
  repo=$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])).get("provenance",{}).get("github"); print(g["repository"] if g else "")' "$f" 2>/dev/null || true)
  if [ -z "$repo" ]; then
    echo "::warning file=$f::not attested: the result records no GitHub Actions run"
    continue
  fi
  if out=$(gh attestation verify "$f" --repo "$repo" --signer-workflow "$signer" 2>&1); then
    echo "::notice file=$f::attested: built by $signer in a run of $repo"
  else
    reason=$(printf '%s' "$out" | tail -n 1)
    echo "::warning file=$f::not attested by $signer in $repo: $reason"
  fi
done
