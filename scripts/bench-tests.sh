#!/usr/bin/env bash
# Times building the test suite (`cargo test --workspace --no-run --locked`)
# at two commits, A and B, interleaved A B B A (ROUNDS times), with the
# workspace's own crates cold and every dependency warm: one target folder
# serves both, so the dependencies, the same at both commits, are built once
# before the timed rounds, and `cargo clean -p` empties the three workspace
# crates before each timed build. That is the part of a fresh clone's build
# that the test layout decides (compiling and linking each test binary).
# Also counts each commit's test binaries (cargo metadata's `test` targets).
#
#   [TARGET=folder] bash scripts/bench-tests.sh A B [ROUNDS]
#
# With DOCS=1 it replaces its block of docs/benchmarks.md with the run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
a=$(git -C "$repo" rev-parse --short "${1:?commit A}")
b=$(git -C "$repo" rev-parse --short "${2:?commit B}")
rounds=${3:-1}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-tests.XXXXXX")
# TARGET: a target folder to reuse (its dependencies already built).
export CARGO_TARGET_DIR=${TARGET:-$work/target}
cleanup() {
  git -C "$repo" worktree remove --force "$work/a" 2>/dev/null || true
  git -C "$repo" worktree remove --force "$work/b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
git -C "$repo" worktree add --quiet --detach "$work/a" "$a"
git -C "$repo" worktree add --quiet --detach "$work/b" "$b"

binaries() {
  (cd "$1" && cargo metadata --no-deps --format-version 1 --locked |
    jq '[.packages[].targets[] | select(.kind | index("test"))] | length')
}
echo "==> warming the dependencies at both commits (not timed)"
for side in a b; do (cd "$work/$side" && cargo test --workspace --no-run --locked --quiet >/dev/null 2>&1); done

declare -A times=([a]="" [b]="")
timed() {
  local side=$1
  (cd "$work/$side" && cargo clean --quiet -p site -p collector -p runner-bench-format)
  local start end
  start=$(date +%s.%N)
  (cd "$work/$side" && cargo test --workspace --no-run --locked --quiet >/dev/null 2>&1)
  end=$(date +%s.%N)
  local s
  s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  times[$side]="${times[$side]} $s"
  echo "$side ($(git -C "$work/$side" rev-parse --short HEAD)): $s s"
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < rounds; r++)); do timed a; timed b; timed b; timed a; done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f", hi / lo }'; }
ma=$(median <<<"${times[a]}")
mb=$(median <<<"${times[b]}")
ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.3f", b / a }')
na=$(binaries "$work/a")
nb=$(binaries "$work/b")
cpus="$(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1))"
echo "A $a: $na test binaries, median ${ma} s (runs${times[a]}; spread $(spread <<<"${times[a]}"))"
echo "B $b: $nb test binaries, median ${mb} s (runs${times[b]}; spread $(spread <<<"${times[b]}"))"
echo "B ÷ A: $ratio; load before $load_before, after $load_after; $cpus"

if [ "${DOCS:-}" = 1 ]; then
  # shellcheck source-path=SCRIPTDIR source=lib/docs-section.sh
  . "$repo/scripts/lib/docs-section.sh"
  docs_replace_section "$repo/docs/benchmarks.md" bench-tests <<EOF
\`bash scripts/bench-tests.sh $a $b $rounds\`, $(date -u +%F); $cpus; load $load_before before, $load_after after.
A $a: $na test binaries, median $ma s (runs${times[a]}, spread $(spread <<<"${times[a]}")); B $b: $nb test
binaries, median $mb s (runs${times[b]}, spread $(spread <<<"${times[b]}")); B ÷ A $ratio.
EOF
fi
