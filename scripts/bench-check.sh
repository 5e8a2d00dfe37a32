#!/usr/bin/env bash
# `site check` (or `site build`) of 10,000 result files at two revisions,
# interleaved (issue 13's benchmark: a check of 10,000 results stays within
# 1.2× its time before the change; issue 14's: a build of them stays within
# 1.2× its time before the change and under 300 MB).
#
#   bash scripts/bench-check.sh A B
#   COMMAND=build bash scripts/bench-check.sh A B
#
# A and B are git revisions of this repository, or `worktree` for the working
# tree as it is (tracked and untracked files that git does not ignore). Each
# side is cloned (or copied) into a temporary folder and `site` is built there
# in release, each side in its own folder under CARGO_TARGET_DIR (default: a
# temporary folder; set it to reuse each side's compiled dependencies from
# one run of the script to the next); each side's binary is copied out after
# its build. (One target folder for both sides compared A with A: cargo
# names a workspace crate's build by a hash that leaves out its folder, and
# took B's sources, checked out before A was built, for the build it had.)
# The script stops where two revisions built the same binary. BIN_A and BIN_B
# name an already built `site` of that side instead (it still runs from its
# side's folder, with that side's content and templates).
#
# The 10,000 files are 1,000 runners × 10 runs made from the format's golden
# result of side B, as site/benches/build_10k.rs makes them: every run on
# the golden result's own day (the check refuses a day before the project's
# first, 2026-11-29), run n at hour 10 + n, and each file's boot ids and
# first CoreMark sample made its own, so that no file repeats another's run.
#
# ROUNDS (default 5) rounds of A, B, B, A; each run is one
# `site check RESULTS` from its side's folder (so each side reads its own
# content/releases), after one uncounted warm-up run per side. With
# COMMAND=build each run is `site build --results RESULTS --out OUT` instead,
# into an output folder removed before the run (not timed; under OUT_ROOT,
# default the temporary folder: on ext4 without a journal each new file's
# inode allocation skips the inodes deleted in the last seconds, so that
# build after build slows down as the removed outputs pile up, a cost of the
# disk and not of either revision; OUT_ROOT=/dev/shm takes it out), timed by GNU time
# (apt-get install time), which also gives its peak resident memory. Prints
# each run's wall and CPU (user + system) seconds (and peak memory) and the
# load average (uptime) beside it, then per side every time and the medians,
# B ÷ A of the medians, and A's spread (max ÷ min of its runs): a B ÷ A
# within A's spread is noise. On a loaded machine read the CPU figures.
# Each side's accepted-file count is printed too: a side that rejects files
# the other accepts checks different work, and the script says so.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/checkout.sh
. "$repo/scripts/lib/checkout.sh"
# shellcheck source-path=SCRIPTDIR source=lib/abba.sh
. "$repo/scripts/lib/abba.sh"
if [ $# -ne 2 ]; then
  echo "usage: bash scripts/bench-check.sh A B (git revisions, or worktree)" >&2
  exit 2
fi
a=$1
b=$2
rounds=${ROUNDS:-5}
command=${COMMAND:-check}
case $command in
  check) ;;
  build) [ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time" >&2; exit 2; } ;;
  *) echo "COMMAND must be check or build, not $command" >&2; exit 2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-$command.XXXXXX")
outs=$work
if [ -n "${OUT_ROOT:-}" ]; then outs=$(mktemp -d "$OUT_ROOT/bench-$command.XXXXXX"); fi
trap 'rm -rf "$work" "$outs"' EXIT
target=${CARGO_TARGET_DIR:-$work/target}

# Builds side $1's `site` in release and copies it to $work/site-$1, or
# copies BIN_$1 where it is set.
build() {
  local side=$1 given
  given=$(eval echo "\${BIN_$side:-}")
  if [ -n "$given" ]; then
    echo "$side: the binary $given"
    cp "$given" "$work/site-$side"
    return
  fi
  echo "building $side in release (CARGO_TARGET_DIR=$target/$side)"
  (cd "$work/$side" && CARGO_TARGET_DIR="$target/$side" cargo build -q -p site --release --locked)
  cp "$target/$side/release/site" "$work/site-$side"
}

echo "A: $(checkout "$repo" "$a" "$work/A")"
echo "B: $(checkout "$repo" "$b" "$work/B")"
build A
if [ -z "${BIN_B:-}" ] && [ "$a" != worktree ] && [ "$(git -C "$repo" rev-parse "$a^{commit}")" = "$(git -C "$repo" rev-parse "$b^{commit}" 2>/dev/null)" ]; then
  # The same commit: one build serves both sides.
  cp "$work/site-A" "$work/site-B"
else
  build B
  if cmp -s "$work/site-A" "$work/site-B"; then
    echo "A and B built the same binary: nothing to compare" >&2
    exit 1
  fi
fi

# 1,000 runners × 10 runs from B's golden result.
results=$work/results
python3 - "$work/B/format/tests/golden/result-v1.json" "$results" <<'EOF'
import os, sys

golden_path, results = sys.argv[1], sys.argv[2]
golden = open(golden_path).read()
RUNNERS, RUNS, PROVIDERS = 1000, 10, 20
for r in range(RUNNERS):
    for n in range(RUNS):
        i = r * RUNS + n
        provider, runner = f"bench{r % PROVIDERS:02}", f"bench-runner-{r:04}"
        date = "2026-11-29"
        run_id = 20_000_000_000 + i
        text = (
            golden.replace("2026-11-29T10:", f"{date}T{10 + n}:")
            .replace('"id": "example"', f'"id": "{provider}"')
            .replace('"label": "example-linux-x64"', f'"label": "{runner}"')
            .replace("18342215517", str(run_id))
            # Each file's own machine and restore instance, and its own first
            # CoreMark sample: no file repeats another's run.
            .replace("2b8c1d0e4f10", f"{i:012x}")
            .replace("7f2a1c0e9b33", f"{0x800000000000 + i:012x}")
            .replace('"iterations": 1000032,', f'"iterations": {1000000 + i},', 1)
        )
        path = os.path.join(results, provider, runner, f"{date}-{run_id}-1.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
EOF
echo "results: $(find "$results" -name '*.json' | wc -l) files, $(du -sh "$results" | cut -f1)"
echo "nproc: $(nproc); CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"

# One run by side $1, number $2: sets `secs`, `cpu` (user + system
# seconds, less sensitive to other load than the wall time), `mem` (peak
# resident MiB, build only) and `accepted` (the line that counts the
# accepted files).
run_once() {
  local side=$1 n=$2 out=$work/run-$1-$2.txt status=0 real user sys kib TIMEFORMAT='%R %U %S'
  mem=
  if [ "$command" = build ]; then
    rm -rf "$outs/out-$side"
    # GNU time writes its line last on stderr, after the build's own.
    (cd "$work/$side" && exec /usr/bin/time -f '%e %M %U %S' "$work/site-$side" build --results "$results" \
      --out "$outs/out-$side") >"$out" 2>&1 || status=$?
    read -r real kib user sys < <(tail -n 1 "$out")
    mem=$(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }')
    accepted=$(tail -n 2 "$out" | head -n 1 | sed 's/ in [0-9]* ms.*//; s/ to [^ ]*$//')
  else
    # The exit status is kept inside the timed group: bash prints no timing
    # for a `time` whose list is followed by `||`.
    { time { (cd "$work/$side" && exec "$work/site-$side" check "$results") >"$out" 2>&1 || echo "$?" >"$out.status"; }; } \
      2>"$out.time"
    if [ -f "$out.status" ]; then status=$(cat "$out.status"); fi
    read -r real user sys <"$out.time"
    # The count, not a warning printed after it.
    accepted=$(grep " accepted$" "$out" | tail -n 1 || true)
  fi
  secs=$real
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
  if [ "$status" -gt 1 ] || { [ "$command" = build ] && [ "$status" -ne 0 ]; }; then
    echo "run $n ($side) failed with status $status:"
    tail -n 20 "$out"
    exit 1
  fi
  printf 'run %2d: %s %7.3f s, CPU %7.3f s%s  %-30s load:%s\n' "$n" "$side" "$secs" "$cpu" "${mem:+, peak $mem MiB}" \
    "($accepted)" "$(uptime | sed 's/.*load average://')"
}

# One warm-up run each, not counted: the first run reads the files from disk.
run_once A 0
run_once B 0
declare -A all=([A]="" [B]="") cpus=([A]="" [B]="") mems=([A]="" [B]="") summary=([A]="" [B]="")
step() {
  run_once "$1" "$2"
  all[$1]+=" $secs"
  cpus[$1]+=" $cpu"
  mems[$1]+=" $mem"
  summary[$1]=$accepted
}
abba "$rounds" step

median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f", hi / lo }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / a }'; }
ma=$(median "${all[A]}")
mb=$(median "${all[B]}")
ca=$(median "${cpus[A]}")
cb=$(median "${cpus[B]}")
echo "A ($a): wall${all[A]} s, median $ma s; CPU${cpus[A]} s, median $ca s"
echo "B ($b): wall${all[B]} s, median $mb s; CPU${cpus[B]} s, median $cb s"
echo "B ÷ A: wall $(ratio "$ma" "$mb"), CPU $(ratio "$ca" "$cb")"
echo "A's spread (max ÷ min of its runs): wall $(spread "${all[A]}"), CPU $(spread "${cpus[A]}")"
if [ "$command" = build ]; then
  echo "peak memory: A${mems[A]} MiB, median $(median "${mems[A]}") MiB; B${mems[B]} MiB, median $(median "${mems[B]}") MiB"
fi
echo "load now:$(uptime | sed 's/.*load average://')"
if [ "${summary[A]}" != "${summary[B]}" ]; then
  if [ "$command" = build ]; then
    echo "note: the sides write different outputs (A: ${summary[A]}; B: ${summary[B]})"
  else
    echo "note: the sides judge the files differently (A: ${summary[A]}; B: ${summary[B]}), so they check different work"
  fi
fi
