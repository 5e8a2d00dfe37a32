#!/usr/bin/env bash
# `site build` at 10,000 and 100,000 results: wall time and peak memory of
# this tree's build against a reference commit's, and whether every output
# file is byte-identical to the reference's.
#
#   bash scripts/bench-scale.sh              # reference: BASE (default below)
#   BASE=<commit> bash scripts/bench-scale.sh
#   DOCS=1 bash scripts/bench-scale.sh       # also update docs/benchmarks.md
#
# The targets (issue 48): at 100,000 results a peak of at most 400 MiB, and
# a wall time at most 10 × the 10,000-result build's in the same run.
#
# The result sets are made from the format's golden result by the benchmark
# site/benches/build_10k.rs (SITE_BENCH_GENERATE_ONLY): 20 providers, 10
# runs a runner, 1,000 or 10,000 runners. The reference is BASE built in a
# worktree of its own (its own target folder, so this tree's build is not
# disturbed). Each size runs A, B, B, A (A = BASE's site, B = this tree's),
# every run into a new output folder and timed by /usr/bin/time (wall
# seconds, peak resident KiB); `sync` before each, not timed. The two A runs
# give the reference's own spread: a difference smaller than it is noise.
# Then `diff -r` compares A's and B's output for the 10,000 set, the 100,000
# set and the repository's own results.
#
# Needs: GNU time (apt-get install time) and git. BASE_SITE=<binary> skips
# building BASE and uses that binary as the reference.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# The last commit before the build streamed runner by runner (its output is
# itself identical to 7924ff9's, the commit before issue 48's refactor):
# every output file must stay byte-identical to its build.
base=${BASE:-0b6f96b}
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time" >&2; exit 2; }

work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")}
mkdir -p "$work"
cleanup() {
  git -C "$repo" worktree remove --force "$work/base" 2>/dev/null || true
  if [ -z "${BENCH_DIR:-}" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
target=${CARGO_TARGET_DIR:-$repo/target}
load() { local u; u=$(uptime); echo "${u##*load average: }"; }

echo "commit: $(git -C "$repo" log -1 --format='%h %s' | cut -c1-100) ($(git -C "$repo" status --porcelain | wc -l) changed paths)"
echo "reference: $(git -C "$repo" log -1 --format='%h %s' "$base" | cut -c1-100)"
echo "nproc: $(nproc); CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
echo "load before: $(load)"

echo "building site in release: this tree (CARGO_TARGET_DIR=$target) and $base (its own worktree)"
(cd "$repo" && CARGO_TARGET_DIR="$target" cargo build -q -p site --release --locked)
new_site=$target/release/site
base_site=${BASE_SITE:-}
if [ -z "$base_site" ]; then
  git -C "$repo" worktree add -q --detach "$work/base" "$base"
  (cd "$work/base" && CARGO_TARGET_DIR="$work/base-target" cargo build -q -p site --release --locked)
  base_site=$work/base-target/release/site
fi

for runners in 1000 10000; do
  (cd "$repo" && SITE_BENCH_RUNNERS=$runners SITE_BENCH_GENERATE_ONLY="$work/results-$runners" \
    CARGO_TARGET_DIR="$target" cargo bench -q -p site --locked --bench build_10k)
done

# One build by side $1 (A or B) of result set $2, number $3: prints
# "seconds KiB" and leaves the output in $work/out-$2-$1-$3.
run_once() {
  local side=$1 set=$2 n=$3 bin dest=$work/out-$2-$1-$3
  bin=$([ "$side" = A ] && echo "$base_site" || echo "$new_site")
  sync
  # From the repository, as Netlify runs it (content/, templates/, docs/).
  (cd "$repo" && /usr/bin/time -f '%e %M' -o "$dest.time" "$bin" build --results "$work/results-$set" --out "$dest") \
    >"$dest.log" 2>&1 || { cat "$dest.log"; exit 1; }
  cat "$dest.time"
}

declare -A secs kib
for runners in 1000 10000; do
  for step in A:1 B:1 B:2 A:2; do
    side=${step%:*} n=${step#*:}
    read -r s k < <(run_once "$side" "$runners" "$n")
    secs[$side-$runners-$n]=$s kib[$side-$runners-$n]=$k
    printf '%6d results, %s (%s) run %d: %6.2f s %7d KiB peak, load %s\n' $((runners * 10)) \
      "$side" "$([ "$side" = A ] && echo "$base" || echo this)" "$n" "$s" "$k" "$(load)"
  done
done

# Pages say when they were built, to the minute ("Built 2026-12-05 16:14
# UTC"): a difference in a line holding such a stamp and nothing else is the
# clock, not the build.
stamp=(-I '[0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\} [0-9]\{2\}:[0-9]\{2\} UTC')
identical=()
for runners in 1000 10000; do
  if diff -r "${stamp[@]}" "$work/out-$runners-A-1" "$work/out-$runners-B-1" >"$work/diff-$runners.txt"; then
    identical+=("$((runners * 10)) results: identical")
  else
    identical+=("$((runners * 10)) results: DIFFERENT ($(wc -l <"$work/diff-$runners.txt") lines of diff -r)")
    head -20 "$work/diff-$runners.txt"
  fi
  rm -rf "$work/out-$runners-"*
done
(cd "$repo" && "$base_site" build --results results --out "$work/repo-A" >/dev/null 2>&1)
(cd "$repo" && "$new_site" build --results results --out "$work/repo-B" >/dev/null 2>&1)
if diff -r "${stamp[@]}" "$work/repo-A" "$work/repo-B" >"$work/diff-repo.txt"; then
  identical+=("the repository's results: identical")
else
  identical+=("the repository's results: DIFFERENT ($(wc -l <"$work/diff-repo.txt") lines of diff -r)")
  head -20 "$work/diff-repo.txt"
fi

summary=$(python3 - "$base" \
  "${secs[A-1000-1]}" "${secs[B-1000-1]}" "${secs[B-1000-2]}" "${secs[A-1000-2]}" \
  "${kib[A-1000-1]}" "${kib[B-1000-1]}" "${kib[B-1000-2]}" "${kib[A-1000-2]}" \
  "${secs[A-10000-1]}" "${secs[B-10000-1]}" "${secs[B-10000-2]}" "${secs[A-10000-2]}" \
  "${kib[A-10000-1]}" "${kib[B-10000-1]}" "${kib[B-10000-2]}" "${kib[A-10000-2]}" <<'EOF'
import sys
base = sys.argv[1]
v = [float(x) for x in sys.argv[2:]]
s10, k10, s100, k100 = v[0:4], v[4:8], v[8:12], v[12:16]
def pair(x):  # (A runs, B runs) of an A, B, B, A list
    return [x[0], x[3]], [x[1], x[2]]
def med(x):
    return sum(x) / len(x)
rows = []
for label, s, k in (("10,000", s10, k10), ("100,000", s100, k100)):
    (sa, sb), (ka, kb) = pair(s), pair(k)
    rows.append((label, med(sa), max(sa) / min(sa), med(sb), med(ka) / 1024, med(kb) / 1024))
print(f"| results | {base}: wall s (spread: slower ÷ faster run) | this tree: wall s | {base}: peak MiB | this tree: peak MiB |")
print("| ---: | ---: | ---: | ---: | ---: |")
for label, sa, spread, sb, ka, kb in rows:
    print(f"| {label} | {sa:.2f} ({spread:.2f}×) | {sb:.2f} | {ka:.0f} | {kb:.0f} |")
ratio = rows[1][3] / rows[0][3]
ratio_base = rows[1][1] / rows[0][1]
peak = rows[1][5]
print()
print(f"This tree at 100,000 results: peak {peak:.0f} MiB (target at most 400: {'met' if peak <= 400 else 'NOT met'}); "
      f"wall {ratio:.1f} × its 10,000-result build (target at most 10: {'met' if ratio <= 10 else 'NOT met'}; "
      f"{base} in the same run: {ratio_base:.1f} ×).")
EOF
)
echo
echo "$summary"
printf 'Output byte for byte against %s: %s\n' "$base" "$(IFS=';'; echo "${identical[*]}")"
echo "load after: $(load)"

if [ "${DOCS:-}" = 1 ]; then
  section=$(cat <<EOF
Measured at $(git -C "$repo" log -1 --format=%h) on $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), load after: $(load); means of two runs, A B B A.

$summary

Output byte for byte against $base: $(IFS=';'; echo "${identical[*]}").

    bash scripts/bench-scale.sh
EOF
)
  # shellcheck source=scripts/lib/docs-section.sh
  . "$repo/scripts/lib/docs-section.sh"
  docs_replace_section "$repo/docs/benchmarks.md" bench-scale <<<"$section"
fi
