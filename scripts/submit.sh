#!/usr/bin/env bash
# The submit job (.github/workflows/benchmark.yml): opens the pull request
# that adds $RESULT (results/<provider>/<runner>/<file>.json) to $UPSTREAM,
# from the token owner's fork of it. Without a token ($GH_TOKEN empty) it
# writes the exact commands to do the same by hand to the job summary.
set -euo pipefail
: "${RESULT:?RESULT (the result file, results/...) is not set}"
: "${UPSTREAM:=runner-bench/runner-bench}"
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
name=$(basename "$RESULT" .json)
rel=${RESULT#results/}
branch="result/${rel%.json}"
title="results: ${rel%.json}"
run_url="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
body="Result of ${run_url} (attempt ${GITHUB_RUN_ATTEMPT:-1}), made by the runner-bench benchmark workflow. The \`result\` artifact of that run is attested: \`gh attestation verify $name.json --repo ${GITHUB_REPOSITORY:-OWNER/REPO}\`."

if [ ! -f "$RESULT" ]; then
  echo "submit.sh: $RESULT does not exist" >&2
  exit 1
fi

if [ -z "${GH_TOKEN:-}" ]; then
  cat >> "$summary" <<TXT
### Submit this result

No submit token was given, so no pull request was opened. From a clone of
your fork of \`$UPSTREAM\`:

\`\`\`sh
gh run download ${GITHUB_RUN_ID:-RUN_ID} --repo ${GITHUB_REPOSITORY:-OWNER/REPO} --name result --dir results
git switch -c $branch
git add $RESULT
git commit -m "$title"
git push -u origin $branch
gh pr create --repo $UPSTREAM --title "$title" --body "$body"
\`\`\`
TXT
  echo "submit.sh: no token; wrote the commands to the job summary"
  exit 0
fi

login=$(gh api user --jq .login)
fork="$login/${UPSTREAM#*/}"
gh repo fork "$UPSTREAM" --clone=false >/dev/null 2>&1 || true
work=$(mktemp -d)
gh repo clone "$fork" "$work/fork" -- --depth 1 --quiet
git -C "$work/fork" remote add upstream "https://github.com/$UPSTREAM.git"
git -C "$work/fork" fetch --depth 1 --quiet upstream HEAD
git -C "$work/fork" switch --quiet -c "$branch" FETCH_HEAD
mkdir -p "$work/fork/$(dirname "$RESULT")"
cp "$RESULT" "$work/fork/$RESULT"
git -C "$work/fork" add "$RESULT"
git -C "$work/fork" -c user.name="$login" -c user.email="$login@users.noreply.github.com" commit --quiet -m "$title"
gh auth setup-git
git -C "$work/fork" push --quiet origin "$branch"
url=$(gh pr create --repo "$UPSTREAM" --head "$login:$branch" --title "$title" --body "$body")
echo "submit.sh: opened $url"
echo "Opened $url" >> "$summary"
