#!/usr/bin/env bash
# The CPU stage's CoreMark against EEMBC's own, side by side.
#
# The official program is built from an eembc/coremark checkout exactly as
# its Makefile builds it (`make PORT_DIR=linux compile`: -O2 and the
# compiler's defaults); the project never vendors EEMBC code, so clone it
# yourself, at the commit in vendor/coremark/EEMBC_COMMIT:
#
#   git clone https://github.com/eembc/coremark ../eembc-coremark
#   git -C ../eembc-coremark checkout "$(cat vendor/coremark/EEMBC_COMMIT)"
#
# The collector is built from this checkout (the project's implementation,
# as a source build is). Both run pinned to the same CPU, in pairs whose
# order alternates (A B, B A, ...), with the performance seeds 0x0 0x0 0x66
# and 2000 bytes:
#   - collector: `run --profile PROFILE --stages cpu --cpu CPU`, PROFILE
#     `quick` (three samples of 1 s, the default) or `standard` (the
#     published protocol, five samples of 30 s); its figure is the samples'
#     iterations over their elapsed_s (per wall-second) and over their
#     cpu_s, the measured process's CPU time (per CPU-second);
#   - official: `coremark.exe 0x0 0x0 0x66 N 7 1 2000` under `taskset`, N
#     chosen once so that a run takes about OFFICIAL_SECONDS (its run rule
#     asks for at least 10 s; the script checks its CRCs, not that rule);
#     per wall-second is its own Iterations/Sec, per CPU-second N over the
#     process's user + system time (wait4).
# Per CPU-second is the figure to judge on a shared VM: time the thread
# waits for the CPU lowers the wall-second score of whichever program it
# happens to, and not its CPU-second score.
#
# Prints every pair, the median ratio collector ÷ official per wall-second
# and per CPU-second, each program's variation (population coefficient of
# variation of its per-run figures) and the load, and puts them, as the
# latest run, in docs/benchmarks.md's bench-cpu block
# (scripts/lib/docs-section.sh). Targets (issue 18): the CPU-second ratio within
# 0.99-1.01, and the collector's variation no larger than the official
# program's.
#
# Usage: bash scripts/bench-cpu.sh EEMBC_CHECKOUT [PAIRS] [CPU]
#   PAIRS  interleaved pairs (default: 10, at least 5)
#   CPU    logical CPU both run on (default: the last one)
# Environment: COLLECTOR_PROFILE (default quick), the collector's profile;
# OFFICIAL_SECONDS, the official run's length: by default as long as the
# collector measures where that is 10 s or more (150 s with `standard`: the
# two programs' variation compared over equal lengths), else 12 s;
# RUNNER_BENCH_COREMARK_SRC (an EEMBC checkout) builds the collector from
# EEMBC's sources, as releases are, instead of the project's implementation.
set -euo pipefail
cd "$(dirname "$0")/.."
eembc=${1:?usage: bash scripts/bench-cpu.sh EEMBC_CHECKOUT [PAIRS] [CPU]}
pairs=${2:-10}
cpu=${3:-$(($(nproc) - 1))}
[ "$pairs" -ge 5 ] || { echo "PAIRS must be at least 5" >&2; exit 1; }
[ -f "$eembc/core_main.c" ] || { echo "$eembc is not an eembc/coremark checkout (no core_main.c)" >&2; exit 1; }
for tool in jq taskset python3 make; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install -y jq util-linux python3 make)" >&2; exit 1; }
done
pinned=$(cat vendor/coremark/EEMBC_COMMIT)
commit=$(git -C "$eembc" rev-parse HEAD 2>/dev/null || echo unknown)
[ "$commit" = "$pinned" ] || echo "note: $eembc is at $commit, not the pinned $pinned" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The official program, as its Makefile builds it, in a copy of the checkout.
cp -r "$eembc" "$work/eembc"
make -s -C "$work/eembc" PORT_DIR=linux compile >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; exit 1; }
official=$work/eembc/coremark.exe
if ! build=$(cargo build --release --locked -p collector 2>&1); then echo "$build" >&2; exit 1; fi
collector=${CARGO_TARGET_DIR:-target}/release/collector
profile=${COLLECTOR_PROFILE:-quick}
# The profile's samples and their length, as the collector prints them
# (`collector profile` prints the parameters on its first line; an unknown
# profile ends the script with the collector's own error).
profile_json=$("$collector" profile "$profile" | sed -n 1p)
samples=$(jq -r .cpu_samples <<<"$profile_json")
measured_s=$(( samples * $(jq -r .cpu_seconds <<<"$profile_json") ))

# Runs a command, its output to FILE, and prints the user + system CPU
# seconds its process took (scripts/lib/child_cpu.py says why not getrusage's
# RUSAGE_CHILDREN).
cpu_seconds() {
  python3 scripts/lib/child_cpu.py "$@"
}

# One collector run: prints "iterations/wall-s iterations/cpu-s".
run_collector() {
  "$collector" run --profile "$profile" --stages cpu --cpu "$cpu" --provider bench --runner bench \
    --out "$work/c.json" 2>/dev/null
  jq -r '[.stages.cpu.samples[] | select(.status == "ok" and .validation == "passed")] as $s
    | if ($s | length) != $n or ([$s[] | .cpu_s] | any(. == null)) then error("a sample failed or has no cpu_s") else . end
    | "\(($s | map(.iterations) | add) / ($s | map(.elapsed_s) | add)) \(($s | map(.iterations) | add) / ($s | map(.cpu_s) | add))"' \
    --argjson n "$samples" "$work/c.json"
}

# One official run of N iterations: prints "iterations/wall-s iterations/cpu-s".
run_official() {
  local cpu_s
  cpu_s=$(cpu_seconds "$work/o.txt" taskset -c "$cpu" "$official" 0x0 0x0 0x66 "$n" 7 1 2000)
  # Its own CRC check; a run that ended under 10 s (a slower CPU than the
  # calibration saw) is still the same work, so that error is not one here.
  for crc in "seedcrc *: 0xe9f5" "crclist *: 0xe714" "crcmatrix *: 0x1fd7" "crcstate *: 0x8e3a"; do
    grep -q "$crc" "$work/o.txt" || { cat "$work/o.txt" >&2; exit 1; }
  done
  echo "$(sed -n 's/^Iterations\/Sec *: *//p' "$work/o.txt") $(python3 -c "print($n / $cpu_s)")"
}

# N for about OFFICIAL_SECONDS of the official program, from one collector
# run (which also warms both up). With `quick` the collector measures 3 s a
# run (three samples of 1 s), and the official run defaults to 12 s, its
# run rule's 10 s and some; OFFICIAL_SECONDS=3 compares the two programs'
# variation over equal lengths of measurement, as `standard` does by
# default.
official_seconds=${OFFICIAL_SECONDS:-$(( measured_s >= 10 ? measured_s : 12 ))}
read -r wall_rate _ <<<"$(run_collector)"
n=$(python3 -c "print(max(1000, int($wall_rate * $official_seconds)))")
load_before=$(cut -d' ' -f1 /proc/loadavg)
echo "pair  order  collector it/s (wall, CPU)  official it/s (wall, CPU)"
rows=()
for i in $(seq "$pairs"); do
  if [ $((i % 2)) -eq 1 ]; then
    c=$(run_collector); o=$(run_official); order="C,O"
  else
    o=$(run_official); c=$(run_collector); order="O,C"
  fi
  rows+=("$c $o")
  echo "$i  $order  $c  $o"
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

summary=$(printf '%s\n' "${rows[@]}" | python3 -c '
import statistics as st, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
cw, cc, ow, oc = zip(*rows)
cv = lambda xs: st.pstdev(xs) / st.mean(xs) * 100
rw = [a / b for a, b in zip(cw, ow)]
rc = [a / b for a, b in zip(cc, oc)]
print("%.0f %.0f %.0f %.0f %.4f %.4f %.4f %.4f %.4f %.4f %.2f %.2f %.2f %.2f" % (
    st.median(cw), st.median(cc), st.median(ow), st.median(oc),
    st.median(rw), min(rw), max(rw), st.median(rc), min(rc), max(rc),
    cv(cw), cv(cc), cv(ow), cv(oc)))')
read -r cw cc ow oc rw rw_lo rw_hi rc rc_lo rc_hi cv_cw cv_cc cv_ow cv_oc <<<"$summary"
echo "median collector ÷ official: $rw per wall-second ($rw_lo-$rw_hi), $rc per CPU-second ($rc_lo-$rc_hi)"
echo "variation: collector ${cv_cw}% wall, ${cv_cc}% CPU; official ${cv_ow}% wall, ${cv_oc}% CPU; load $load_before before, $load_after after"

compiler=$(jq -r .build.compiler "$work/c.json")
implementation=$(jq -r '.build.coremark.implementation' "$work/c.json")
flags=$(jq -r '.build.flags | join(" ")' "$work/c.json")
# shellcheck source=scripts/lib/docs-section.sh
source scripts/lib/docs-section.sh
{
  echo "\`${COLLECTOR_PROFILE:+COLLECTOR_PROFILE=$profile }${OFFICIAL_SECONDS:+OFFICIAL_SECONDS=$OFFICIAL_SECONDS }bash scripts/bench-cpu.sh EEMBC_CHECKOUT $pairs $cpu\`, $(date -u +%Y-%m-%d), commit"
  echo "$(git rev-parse --short HEAD); $(nproc) CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)), $compiler; the collector's CoreMark ($implementation"
  echo "implementation, flags \`$flags\`; profile \`$profile\`, $samples samples, $measured_s s measured per run) against EEMBC's \`coremark.exe\` built by its Makefile at"
  echo "${commit:0:12}, $pairs alternating pairs pinned to CPU $cpu, $n official iterations per run (about $official_seconds s);"
  echo "load average $load_before before, $load_after after."
  echo
  echo "| Figure | Collector (median it/s) | Official (median it/s) | Median ratio (min-max) | Collector variation | Official variation |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  echo "| Per wall-second | $cw | $ow | $rw ($rw_lo-$rw_hi) | ${cv_cw}% | ${cv_ow}% |"
  echo "| Per CPU-second | $cc | $oc | $rc ($rc_lo-$rc_hi) | ${cv_cc}% | ${cv_oc}% |"
} | docs_replace_section docs/benchmarks.md bench-cpu
