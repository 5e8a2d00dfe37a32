#!/usr/bin/env bash
# The all-core CPU stage's CoreMark against EEMBC's own parallel CoreMark.
#
# The official program is built from an eembc/coremark checkout by its
# Makefile (`make PORT_DIR=linux compile`) with EEMBC's parallel execution
# switched on and the collector's own flags added, as its README shows:
# XCFLAGS="<the collector's recorded flags> -DMULTITHREAD=N -DUSE_PTHREAD
# -pthread", N the logical CPUs (`nproc`). The project never vendors EEMBC
# code, so clone it yourself, at the commit in vendor/coremark/EEMBC_COMMIT:
#
#   git clone https://github.com/eembc/coremark ../eembc-coremark
#   git -C ../eembc-coremark checkout "$(cat vendor/coremark/EEMBC_COMMIT)"
#
# The collector is built from this checkout (the project's implementation,
# as a source build is; RUNNER_BENCH_COREMARK_SRC=<an EEMBC checkout>
# builds EEMBC's sources, as releases are). Neither is pinned: both leave
# their threads where the OS puts them, as EEMBC's pthread port does. They
# run interleaved, A B B A (collector, official, official, collector, ...),
# with the performance seeds 0x0 0x0 0x66 and 2000 bytes per context:
#   - collector: `run --profile PROFILE --stages cpu-allcore`, PROFILE
#     `quick` (three samples of 1 s, the default) or `standard` (five of
#     30 s); per wall-second is contexts × iterations over elapsed_s, per
#     CPU-second over cpu_s (the contexts' thread CPU clocks), summed over
#     the ok samples;
#   - official: `coremark.exe 0x0 0x0 0x66 I 7 1 2000`, I chosen once so that
#     a run takes about OFFICIAL_SECONDS; per wall-second is its own
#     Iterations/Sec (N × I over the time to the last join), per CPU-second
#     N × I over the process's user + system time (wait4). Every
#     context's CRCs are checked.
#
# Prints every run, the median ratio collector ÷ official per wall-second
# and per CPU-second, the official program's spread (min-max and
# population coefficient of variation of its runs) and the load, and puts
# them, as the latest run, in docs/benchmarks.md's bench-cpu-allcore block
# (scripts/lib/docs-section.sh). Target (issue 56): 0.97-1.03 per
# CPU-second, or inside the official program's own spread.
#
# Usage: bash scripts/bench-cpu-allcore.sh EEMBC_CHECKOUT [PAIRS]
#   PAIRS  interleaved pairs (default: 6, at least 2)
# Environment: COLLECTOR_PROFILE (default quick), the collector's profile;
# OFFICIAL_SECONDS, the official run's length: by default as long as the
# collector measures where that is 10 s or more, else 12 s (EEMBC's run
# rule asks for at least 10 s); COLLECTOR, a collector executable to run
# instead of building one with `cargo build --release` (any cargo profile
# compiles CoreMark with the same flags: build.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
eembc=${1:?usage: bash scripts/bench-cpu-allcore.sh EEMBC_CHECKOUT [PAIRS]}
pairs=${2:-6}
[ "$pairs" -ge 2 ] || { echo "PAIRS must be at least 2" >&2; exit 1; }
[ -f "$eembc/core_main.c" ] || { echo "$eembc is not an eembc/coremark checkout (no core_main.c)" >&2; exit 1; }
for tool in jq python3 make nproc; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install -y jq python3 make coreutils)" >&2; exit 1; }
done
pinned=$(cat vendor/coremark/EEMBC_COMMIT)
commit=$(git -C "$eembc" rev-parse HEAD 2>/dev/null || echo unknown)
[ "$commit" = "$pinned" ] || echo "note: $eembc is at $commit, not the pinned $pinned" >&2
cpus=$(nproc)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${COLLECTOR:-}" ]; then
  collector=$COLLECTOR
else
  if ! build=$(cargo build --release --locked -p collector 2>&1); then echo "$build" >&2; exit 1; fi
  collector=${CARGO_TARGET_DIR:-target}/release/collector
fi
profile=${COLLECTOR_PROFILE:-quick}
profile_json=$("$collector" profile "$profile" | sed -n 1p)
samples=$(jq -r .cpu_samples <<<"$profile_json")
measured_s=$(( samples * $(jq -r .cpu_seconds <<<"$profile_json") ))
[ "$(jq -r .cpu_allcore <<<"$profile_json")" = true ] || { echo "profile $profile has no all-core stage" >&2; exit 1; }

# One collector run: prints "iterations/wall-s iterations/cpu-s contexts".
run_collector() {
  "$collector" run --profile "$profile" --stages cpu-allcore --provider bench --runner bench \
    --out "$work/c.json" 2>/dev/null
  jq -r '[.stages.cpu_allcore.samples[] | select(.status == "ok" and .validation == "passed")] as $s
    | if ($s | length) != $n or ([$s[] | .cpu_s] | any(. == null)) then error("a sample failed or has no cpu_s") else . end
    | ($s | map(.contexts * .iterations) | add) as $it
    | "\($it / ($s | map(.elapsed_s) | add)) \($it / ($s | map(.cpu_s) | add)) \($s[0].contexts)"' \
    --argjson n "$samples" "$work/c.json"
}

# The official program, built with the collector's flags (as its result
# records them) and one context per logical CPU, in a copy of the checkout.
run_collector >/dev/null
flags=$(jq -r '.build.flags | join(" ")' "$work/c.json")
cp -r "$eembc" "$work/eembc"
make -s -C "$work/eembc" PORT_DIR=linux XCFLAGS="$flags -DMULTITHREAD=$cpus -DUSE_PTHREAD -pthread" compile \
  >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; exit 1; }
official=$work/eembc/coremark.exe

# Runs a command, its output to FILE, and prints the user + system CPU
# seconds its process took (scripts/lib/child_cpu.py says why not getrusage's
# RUSAGE_CHILDREN).
cpu_seconds() {
  python3 scripts/lib/child_cpu.py "$@"
}

# One official run of I iterations per context: prints "iterations/wall-s
# iterations/cpu-s".
run_official() {
  local cpu_s
  cpu_s=$(cpu_seconds "$work/o.txt" "$official" 0x0 0x0 0x66 "$iterations" 7 1 2000)
  grep -q "Parallel PThreads *: *$cpus" "$work/o.txt" || { cat "$work/o.txt" >&2; exit 1; }
  for ((k = 0; k < cpus; k++)); do
    for crc in "crclist *: 0xe714" "crcmatrix *: 0x1fd7" "crcstate *: 0x8e3a"; do
      grep -q "^\[$k\]$crc" "$work/o.txt" || { echo "context $k: no $crc" >&2; cat "$work/o.txt" >&2; exit 1; }
    done
  done
  echo "$(sed -n 's/^Iterations\/Sec *: *//p' "$work/o.txt") $(python3 -c "print($cpus * $iterations / $cpu_s)")"
}

official_seconds=${OFFICIAL_SECONDS:-$(( measured_s >= 10 ? measured_s : 12 ))}
read -r wall_rate _ contexts <<<"$(run_collector)"
[ "$contexts" -eq "$cpus" ] || echo "note: the collector ran $contexts contexts, nproc says $cpus" >&2
iterations=$(python3 -c "print(max(1000, int($wall_rate / $cpus * $official_seconds)))")
load_before=$(cut -d' ' -f1 /proc/loadavg)
echo "pair  order  collector it/s (wall, CPU)  official it/s (wall, CPU)"
rows=()
for i in $(seq "$pairs"); do
  if [ $((i % 2)) -eq 1 ]; then
    c=$(run_collector); o=$(run_official); order="C,O"
  else
    o=$(run_official); c=$(run_collector); order="O,C"
  fi
  read -r cw cc _ <<<"$c"
  rows+=("$cw $cc $o")
  echo "$i  $order  $cw $cc  $o"
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

summary=$(printf '%s\n' "${rows[@]}" | python3 -c '
import statistics as st, sys
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
cw, cc, ow, oc = zip(*rows)
cv = lambda xs: st.pstdev(xs) / st.mean(xs) * 100
rw = [a / b for a, b in zip(cw, ow)]
rc = [a / b for a, b in zip(cc, oc)]
print("%.0f %.0f %.0f %.0f %.4f %.4f %.4f %.4f %.4f %.4f %.2f %.2f %.0f %.0f %.0f %.0f" % (
    st.median(cw), st.median(cc), st.median(ow), st.median(oc),
    st.median(rw), min(rw), max(rw), st.median(rc), min(rc), max(rc),
    cv(ow), cv(oc), min(ow), max(ow), min(oc), max(oc)))')
read -r cw cc ow oc rw rw_lo rw_hi rc rc_lo rc_hi cv_ow cv_oc ow_lo ow_hi oc_lo oc_hi <<<"$summary"
echo "median collector ÷ official: $rw per wall-second ($rw_lo-$rw_hi), $rc per CPU-second ($rc_lo-$rc_hi)"
echo "official spread: $ow_lo-$ow_hi it/s wall (${cv_ow}%), $oc_lo-$oc_hi it/s CPU (${cv_oc}%); load $load_before before, $load_after after"

compiler=$(jq -r .build.compiler "$work/c.json")
implementation=$(jq -r '.build.coremark.implementation' "$work/c.json")
# shellcheck source=scripts/lib/docs-section.sh
source scripts/lib/docs-section.sh
{
  echo "\`${COLLECTOR:+COLLECTOR=$COLLECTOR }${COLLECTOR_PROFILE:+COLLECTOR_PROFILE=$profile }${OFFICIAL_SECONDS:+OFFICIAL_SECONDS=$OFFICIAL_SECONDS }bash scripts/bench-cpu-allcore.sh EEMBC_CHECKOUT $pairs\`, $(date -u +%Y-%m-%d), commit"
  echo "$(git rev-parse --short HEAD); $cpus CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)), $compiler; the collector's all-core stage ($implementation"
  echo "implementation, flags \`$flags\`; profile \`$profile\`, $samples samples, $measured_s s measured per run, $contexts contexts) against EEMBC's"
  echo "\`coremark.exe\` built by its Makefile at ${commit:0:12} with \`XCFLAGS=\"$flags -DMULTITHREAD=$cpus -DUSE_PTHREAD -pthread\"\`,"
  echo "$pairs pairs interleaved A B B A, unpinned, $iterations official iterations per context per run (about $official_seconds s);"
  echo "load average $load_before before, $load_after after."
  echo
  echo "| Figure | Collector (median it/s) | Official (median it/s) | Median ratio (min-max) | Official spread (min-max, variation) |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  echo "| Per wall-second | $cw | $ow | $rw ($rw_lo-$rw_hi) | $ow_lo-$ow_hi (${cv_ow}%) |"
  echo "| Per CPU-second | $cc | $oc | $rc ($rc_lo-$rc_hi) | $oc_lo-$oc_hi (${cv_oc}%) |"
} | docs_replace_section docs/benchmarks.md bench-cpu-allcore
