#!/usr/bin/env bash
# `site serve`'s rebuild after one changed result, at two revisions,
# interleaved: the target (issue 18) is at most 300 ms for 10,000 results,
# and on a shared machine only a side-by-side ratio says whether a change
# made it faster.
#
#   bash scripts/bench-serve.sh A B
#   ROUNDS=3 REBUILDS=15 bash scripts/bench-serve.sh 9ef4cc7 worktree
#
# A and B are git revisions of this repository, or `worktree` for the working
# tree as it is (scripts/lib/checkout.sh). Each side is cloned (or copied)
# into a temporary folder, where its `site` binary and its build_10k
# benchmark (site/benches/build_10k.rs) are built in release, each side in
# its own folder under CARGO_TARGET_DIR (default: a temporary folder; set it
# to reuse each side's compiled dependencies from one run of the script to
# the next). One target folder for both sides compared A with A: cargo names
# a workspace crate's build by a hash that leaves out its folder, and took
# B's sources, checked out before A was built, for the build it already had.
# The script stops where both sides' binaries are the same file.
#
# Each run is one build_10k of its side: it writes its 10,000 results,
# builds them once with the side's `site` binary, then, in its own process
# as `site serve` does, rebuilds REBUILDS times (default 9) after one result
# changed, and prints the rebuilds' median and each one's wall and CPU
# time. ROUNDS (default 2) rounds of A, B, B, A. Everything a run writes is
# under TMPDIR (default: the temporary folder); the rebuild writes one file,
# so the disk hardly counts.
#
# Prints each run's median rebuild (and its CPU time, user + system, median
# of the rebuilds) with the load average, then per side the runs' medians,
# B ÷ A of the medians of the runs, B ÷ A of each A B pair in run order, and
# A's spread (max ÷ min of its runs' medians): a B ÷ A within A's spread is
# noise.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/checkout.sh
. "$repo/scripts/lib/checkout.sh"
# shellcheck source-path=SCRIPTDIR source=lib/median.sh
. "$repo/scripts/lib/median.sh"
# shellcheck source-path=SCRIPTDIR source=lib/abba.sh
. "$repo/scripts/lib/abba.sh"
if [ $# -ne 2 ]; then
  echo "usage: bash scripts/bench-serve.sh A B (git revisions, or worktree)" >&2
  exit 2
fi
rounds=${ROUNDS:-2}
rebuilds=${REBUILDS:-9}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-serve.XXXXXX")
trap 'rm -rf "$work"' EXIT
target=${CARGO_TARGET_DIR:-$work/target}
runs_dir=${TMPDIR:-$work}

# Builds side $1's `site` and its build_10k benchmark; records the
# benchmark's path in $work/bench-$1.
build() {
  local side=$1 bench
  echo "building $side in release (CARGO_TARGET_DIR=$target/$side)"
  (cd "$work/$side" && CARGO_TARGET_DIR="$target/$side" cargo build -q -p site --release --locked)
  cp "$target/$side/release/site" "$work/site-$side"
  bench=$( (cd "$work/$side" && CARGO_TARGET_DIR="$target/$side" cargo bench -q -p site --locked --bench build_10k \
    --no-run --message-format=json) |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "build_10k" and m.get("executable"):
        print(m["executable"])')
  [ -n "$bench" ] || { echo "no build_10k benchmark was built for $side" >&2; exit 1; }
  cp "$bench" "$work/bench-bin-$side"
  echo "$work/bench-bin-$side" >"$work/bench-$side"
}

echo "A: $(checkout "$repo" "$1" "$work/A")"
echo "B: $(checkout "$repo" "$2" "$work/B")"
build A
build B
if cmp -s "$work/bench-bin-A" "$work/bench-bin-B"; then
  echo "A and B built the same benchmark binary: nothing to compare" >&2
  exit 1
fi
echo "nproc: $(nproc); CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"

# One run of side $1, number $2: sets `ms` (the median rebuild) and `cpu_ms`
# (the median of the rebuilds' CPU times).
run_once() {
  local side=$1 n=$2 out=$work/run-$1-$2.txt line
  (cd "$work/$side/site" && SITE_BIN="$work/site-$side" SITE_BENCH_REBUILDS=$rebuilds TMPDIR=$runs_dir \
    exec "$(cat "$work/bench-$side")" --bench) >"$out" 2>&1 || { echo "run $n ($side) failed:"; tail -n 20 "$out"; exit 1; }
  line=$(grep '^site serve rebuild after one changed result: ' "$out") ||
    { echo "run $n ($side) printed no rebuild time:"; tail -n 20 "$out"; exit 1; }
  local rest=${line#site serve rebuild after one changed result: }
  ms=${rest%% ms*}
  local each=${line#*of each: }
  each=${each%% ms)*}
  # shellcheck disable=SC2086 # one word per rebuild
  cpu_ms=$(median ${each//,/})
  local times=${line#*rebuilds: }
  printf 'run %2d: %s rebuild %4s ms (CPU %s ms)  rebuilds: %s  load:%s\n' "$n" "$side" "$ms" "$cpu_ms" \
    "${times%% ms;*}" "$(uptime | sed 's/.*load average://')"
}

declare -A all=([A]="" [B]="") cpus=([A]="" [B]="")
pairs=()
# One run, and B ÷ A of each pair of runs in order (A B, then B A).
step() {
  local side=$1 n=$2
  run_once "$side" "$n"
  all[$side]+=" $ms"
  cpus[$side]+=" $cpu_ms"
  if [ $((n % 2)) -eq 0 ]; then
    pairs+=("$(awk -v x="$previous" -v y="$ms" -v s="$side" 'BEGIN { printf "%.3f", (s == "B") ? y / x : x / y }')")
  fi
  previous=$ms
}
abba "$rounds" step

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / a }'; }
# shellcheck disable=SC2086 # one word per run
{
  ma=$(median ${all[A]})
  mb=$(median ${all[B]})
  ca=$(median ${cpus[A]})
  cb=$(median ${cpus[B]})
  spread=$(printf '%s\n' ${all[A]} | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f", hi / lo }')
}
echo "A ($1): rebuild medians${all[A]} ms, median $ma ms; CPU${cpus[A]} ms, median $ca ms"
echo "B ($2): rebuild medians${all[B]} ms, median $mb ms; CPU${cpus[B]} ms, median $cb ms"
echo "B ÷ A: wall $(ratio "$ma" "$mb"), CPU $(ratio "$ca" "$cb"); per pair in run order: ${pairs[*]}"
echo "A's spread (max ÷ min of its runs' medians): $spread"
echo "target: at most 300 ms; B's runs at or under it: $(awk '{ for (i = 1; i <= NF; i++) n += $i <= 300 } END { print n + 0 " of " NF }' <<<"${all[B]}")"
echo "load now:$(uptime | sed 's/.*load average://')"
