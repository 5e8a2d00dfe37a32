#!/usr/bin/env bash
# CoreMark fidelity with the machine's noise taken out: the project's
# implementation (vendor/coremark) and EEMBC's sources (through
# vendor/coremark/official_shim.c), compiled with the collector's flags into
# one program (scripts/lib/coremark_ab.c) that alternates them every ROUNDS
# slice of ITERATIONS iterations, order swapped every slice, timed by the
# thread's CPU clock, pinned to one CPU. Neighbouring slices see the same
# machine, so the per-pair ratio does not carry the host's minute-to-minute
# swings that scripts/bench-cpu.sh's separate processes do.
#
# Prints, for each of RUNS runs, the median project ÷ EEMBC speed over the
# slice pairs with its interquartile range and the ratio of the totals, and
# the median of the runs' medians; puts them, as the latest run, in
# docs/benchmarks.md's bench-cpu-ab block (scripts/lib/docs-section.sh).
# Target (issue 18): 0.99-1.01.
#
# Usage: bash scripts/bench-cpu-ab.sh EEMBC_CHECKOUT [RUNS] [CPU]
#   RUNS  runs of 400 slice pairs of 200 iterations (default: 5)
#   CPU   logical CPU (default: the last one)
set -euo pipefail
cd "$(dirname "$0")/.."
eembc=${1:?usage: bash scripts/bench-cpu-ab.sh EEMBC_CHECKOUT [RUNS] [CPU]}
runs=${2:-5}
cpu=${3:-$(($(nproc) - 1))}
[ -f "$eembc/core_list_join.c" ] || { echo "$eembc is not an eembc/coremark checkout" >&2; exit 1; }
for tool in gcc ld objcopy taskset python3; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install -y gcc binutils util-linux python3)" >&2; exit 1; }
done
commit=$(git -C "$eembc" rev-parse HEAD 2>/dev/null || echo unknown)
v=vendor/coremark
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# build.rs's flags for a native GCC on Linux (docs/collector.md, "cpu").
flags=(-O2 -fPIE -DNDEBUG -std=c99 -DMULTITHREAD=1 -DTOTAL_DATA_SIZE=2000 -DITERATIONS=0)
for f in runner_coremark rcm_crc rcm_list rcm_matrix rcm_state; do
  gcc "${flags[@]}" -I"$v" -c "$v/$f.c" -o "$work/p_$f.o"
done
ld -r "$work"/p_*.o -o "$work/project.o"
for s in rcm_ctx_size rcm_init rcm_run rcm_result rcm_implementation; do echo "$s p_$s"; done >"$work/rename"
objcopy --redefine-syms="$work/rename" "$work/project.o" "$work/project_p.o"
official=("$eembc"/core_list_join.c "$eembc"/core_matrix.c "$eembc"/core_state.c "$eembc"/core_util.c
  "$v/official_shim.c" "$v/official_port/core_portme.c")
gcc "${flags[@]}" -I"$v/official_port" -I"$eembc" -I"$v" scripts/lib/coremark_ab.c "$work/project_p.o" \
  "${official[@]}" -o "$work/coremark_ab"

load_before=$(cut -d' ' -f1 /proc/loadavg)
medians=()
lines=()
for r in $(seq "$runs"); do
  read -r median q1 q3 total project_s eembc_s < <(taskset -c "$cpu" "$work/coremark_ab" 400 200)
  echo "run $r: project ÷ EEMBC median $median (IQR $q1-$q3), totals $total ($project_s s and $eembc_s s of CPU)"
  medians+=("$median")
  lines+=("| $r | $median | $q1-$q3 | $total |")
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
overall=$(printf '%s\n' "${medians[@]}" | python3 -c 'import statistics, sys; print("%.4f" % statistics.median(float(l) for l in sys.stdin))')
echo "median of the runs' medians: $overall; load $load_before before, $load_after after"
# shellcheck source=scripts/lib/docs-section.sh
source scripts/lib/docs-section.sh
{
  echo "\`bash scripts/bench-cpu-ab.sh EEMBC_CHECKOUT $runs $cpu\`, $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), EEMBC at ${commit:0:12};"
  echo "$(nproc) CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)), pinned to CPU $cpu; GCC $(gcc -dumpfullversion) \`${flags[*]}\`;"
  echo "400 slice pairs of 200 iterations per run; load average $load_before before, $load_after after."
  echo "Project ÷ EEMBC per CPU-second (above 1: the project's is faster):"
  echo
  echo "| Run | Median of the slice pairs | Interquartile range | Ratio of the totals |"
  echo "| ---: | ---: | ---: | ---: |"
  printf '%s\n' "${lines[@]}"
  echo
  echo "Median of the runs' medians: **$overall** (target 0.99-1.01)."
} | docs_replace_section docs/benchmarks.md bench-cpu-ab
