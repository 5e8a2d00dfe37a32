#!/usr/bin/env bash
# The submit job (.github/workflows/benchmark.yml): opens the pull request
# that adds $RESULT (results/<provider>/<runner>/<file>.json) to $UPSTREAM,
# from the calling organisation's fork of it, else the token owner's.
# Without a token ($GH_TOKEN empty) it writes the exact commands to do the
# same by hand to the job summary.
set -euo pipefail
: "${RESULT:?RESULT (the result file, results/...) is not set}"
: "${UPSTREAM:=runner-bench/runner-bench}"
: "${ARTIFACT:=result}"
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
rel=${RESULT#results/}
branch="result/${rel%.json}"
title="results: ${rel%.json}"
run_url="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-OWNER/REPO}/actions/runs/${GITHUB_RUN_ID:-RUN_ID}"
body="Result of $run_url (attempt ${GITHUB_RUN_ATTEMPT:-1}), made by the runner-bench benchmark workflow. Check its attestation with: gh attestation verify $RESULT --repo ${GITHUB_REPOSITORY:-OWNER/REPO} --cert-identity-regex '/\.github/workflows/benchmark\.yml@' (the signer is the reusable workflow; scripts/verify-submission.sh names it)"

if [ ! -f "$RESULT" ]; then
  echo "submit.sh: $RESULT does not exist" >&2
  exit 1
fi

server=${GITHUB_SERVER_URL:-https://github.com}

if [ -z "${GH_TOKEN:-}" ]; then
  # Every value is shell-quoted, so the commands can be pasted as they are.
  q() { printf '%q' "$1"; }
  cat >> "$summary" <<TXT
### Submit this result

No submit token was given, so no pull request was opened. From a clone of
your fork of \`$UPSTREAM\` (the branch starts at upstream's newest commit,
so that the pull request adds the result and nothing of your fork's own):

\`\`\`sh
gh run download $(q "${GITHUB_RUN_ID:-RUN_ID}") --repo $(q "${GITHUB_REPOSITORY:-OWNER/REPO}") --name $(q "$ARTIFACT") --dir results
git fetch $(q "$server/$UPSTREAM.git") HEAD
git switch -c $(q "$branch") FETCH_HEAD
git add $(q "$RESULT")
git commit -m $(q "$title")
git push -u origin $(q "$branch")
gh pr create --repo $(q "$UPSTREAM") --title $(q "$title") --body $(q "$body")
\`\`\`
TXT
  echo "submit.sh: no token; wrote the commands to the job summary"
  exit 0
fi

login=$(gh api user --jq .login)
# The fork of the organisation that runs the benchmark (the calling
# repository's owner; docs/running.md has providers fork upstream there),
# else the token owner's own, made if there is none; forks are made
# asynchronously, so wait until GitHub lists it.
fork_of() { gh api "repos/$UPSTREAM/forks" --paginate --jq ".[] | select(.owner.login == \"$1\") | .full_name" | head -n 1; }
fork=
if [ -n "${GITHUB_REPOSITORY_OWNER:-}" ]; then fork=$(fork_of "$GITHUB_REPOSITORY_OWNER"); fi
if [ -z "$fork" ]; then
  gh repo fork "$UPSTREAM" --clone=false >/dev/null 2>&1 || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    fork=$(fork_of "$login")
    [ -n "$fork" ] && break
    sleep 3
  done
fi
if [ -z "$fork" ]; then
  echo "submit.sh: neither ${GITHUB_REPOSITORY_OWNER:-the calling organisation} nor $login has a fork of $UPSTREAM, and none could be made" >&2
  exit 1
fi
gh auth setup-git
# The branch is one commit on upstream's HEAD: upstream's tree plus the
# result. Not a shallow clone: where the fork is behind upstream it lacks
# the parents of upstream's HEAD, and git refuses a push from a shallow
# repository that would need them ("shallow update not allowed"). Instead
# a fetch of commits and trees only (--filter=blob:none: a few MB, where
# the results' blobs are the bulk of the repository), of upstream's HEAD
# and of the fork's, so that the push sends what the fork lacks and no
# more; git fetches any blob it must send from either remote. No checkout:
# the commit is made from an index of upstream's tree (read-tree) with the
# result's blob added.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
git init --quiet "$repo"
g() { git -C "$repo" "$@"; }
g remote add upstream "$server/$UPSTREAM.git"
g remote add fork "$server/$fork.git"
g fetch --quiet --no-tags --filter=blob:none upstream HEAD
base=$(g rev-parse FETCH_HEAD)
# A fork GitHub has just made is listed before its git objects can be
# read: try again for up to a minute.
for attempt in 1 2 3 4 5 6 7; do
  g fetch --quiet --no-tags --filter=blob:none fork HEAD && break
  if [ "$attempt" -eq 7 ]; then
    echo "submit.sh: cannot fetch $fork after $attempt tries over a minute (git's errors above)" >&2
    exit 1
  fi
  echo "submit.sh: $fork cannot be fetched yet (try $attempt of 7); trying again in 10 s" >&2
  sleep 10
done
blob=$(g hash-object -w --no-filters "$PWD/$RESULT")
g read-tree "$base"
g update-index --add --cacheinfo "100644,$blob,$RESULT"
# --missing-ok: upstream's blobs are not here, and without it write-tree
# first fetches every blob of the index, the whole of upstream's tree.
tree=$(g write-tree --missing-ok)
commit=$(g -c user.name="$login" -c user.email="$login@users.noreply.github.com" commit-tree "$tree" -p "$base" -m "$title")
# The branch belongs to this run and attempt: a re-run of this job (after
# a push whose pull request could not be opened) replaces its own commit.
g push --quiet --force fork "$commit:refs/heads/$branch"
url=$(gh pr list --repo "$UPSTREAM" --head "$branch" --state open --json url --jq '.[0].url // empty')
if [ -n "$url" ]; then
  echo "submit.sh: pushed the result again to the open pull request $url"
  echo "Pushed the result again to the open pull request $url" >> "$summary"
  exit 0
fi
url=$(gh pr create --repo "$UPSTREAM" --head "${fork%%/*}:$branch" --title "$title" --body "$body")
echo "submit.sh: opened $url"
echo "Opened $url" >> "$summary"
