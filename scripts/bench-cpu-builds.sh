#!/usr/bin/env bash
# Does the one-thread CoreMark figure depend on the collector binary around
# it? (issue 56, item 0). Three collectors, all built from EEMBC's sources
# (RUNNER_BENCH_COREMARK_SRC, as releases are) and run as separate
# processes, each paired with EEMBC's own `coremark.exe` per CPU-second:
#   dist      the collector as released: `--profile dist` (LTO, one codegen
#             unit), this commit;
#   dist+pad  the same with unrelated Rust code added: a function in
#             collector/src/main.rs that only runs when RUNNER_BENCH_PAD is
#             set (never here), which moves every later symbol of the Rust
#             binary;
#   release   `--profile release` (no LTO, 16 codegen units), this commit.
# Each build's result records the SHA-256 of the workload program it ran
# (build.coremark.executable_sha256): where the program is independent of
# the Rust code, the three are equal, and the script says so, and whether
# it is byte for byte the coremark.exe that `make` builds with the flags
# the result records (XCFLAGS), as a Linux build from EEMBC's sources
# means it to be.
#
# The official program is built from a copy of the checkout exactly as its
# Makefile builds it (`make PORT_DIR=linux compile`). Every round runs
# `official dist dist+pad release reversed`, the next round the reverse
# (A B B A), where `reversed` is coremark.exe built with its source files
# named in the reverse order (the same code, linked in another layout),
# all pinned to CPU with taskset / `--cpu`: the collector with
# `run --profile quick --stages cpu` (three samples of 1 s), its figure the
# samples' iterations over their cpu_s; the official `coremark.exe 0x0 0x0
# 0x66 N 7 1 2000`, N for about OFFICIAL_SECONDS (default 3, the quick
# profile's measured seconds), its figure N over its user + system time.
# A program's ratio in a round is its figure over that round's official
# one; the script prints each program's median ratio (min-max over rounds),
# the differences between the builds' medians, each figure's variation
# (population coefficient of variation) and the load before and after; with
# DOCS=1 it puts them, as the latest run, in docs/benchmarks.md's
# bench-cpu-builds block (scripts/lib/docs-section.sh).
# Target (issue 56): the three builds within 1 % of each other, and of
# coremark.exe (0.99-1.01) or inside its own spread; the reversed build
# shows how much of coremark.exe's figure is its layout.
#
# The builds take long (dist is one LTO unit); they go to TARGET_DIR
# (default target/bench-cpu-builds), the padded tree to a temporary copy of
# this commit (`git archive HEAD`: uncommitted changes are not measured).
#
# Usage: bash scripts/bench-cpu-builds.sh EEMBC_CHECKOUT [ROUNDS] [CPU]
#   ROUNDS  rounds (default 6, at least 2)
#   CPU     the logical CPU everything runs on (default: the last one)
set -euo pipefail
cd "$(dirname "$0")/.."
eembc=${1:?usage: bash scripts/bench-cpu-builds.sh EEMBC_CHECKOUT [ROUNDS] [CPU]}
rounds=${2:-6}
cpu=${3:-$(($(nproc) - 1))}
[ "$rounds" -ge 2 ] || { echo "ROUNDS must be at least 2" >&2; exit 1; }
[ -f "$eembc/core_main.c" ] || { echo "$eembc is not an eembc/coremark checkout (no core_main.c)" >&2; exit 1; }
for tool in jq taskset python3 make git; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install -y jq util-linux python3 make git)" >&2; exit 1; }
done
pinned=$(cat vendor/coremark/EEMBC_COMMIT)
commit=$(git -C "$eembc" rev-parse HEAD 2>/dev/null || echo unknown)
[ "$commit" = "$pinned" ] || echo "note: $eembc is at $commit, not the pinned $pinned" >&2
official_seconds=${OFFICIAL_SECONDS:-3}
target_dir=${TARGET_DIR:-$PWD/target/bench-cpu-builds}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy of the checkout: make writes into it, and build.rs reads it.
cp -r "$eembc" "$work/eembc"
make -s -C "$work/eembc" PORT_DIR=linux compile >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; exit 1; }
official=$work/eembc/coremark.exe
# The same program with its source files named in the reverse order: the
# same code, laid out otherwise by the linker. How far that alone moves
# coremark.exe is the yardstick for the collector's distance from it.
make -s -C "$work/eembc" PORT_DIR=linux compile OUTNAME=coremark-reversed.exe \
  SRCS="posix/core_portme.c core_util.c core_state.c core_matrix.c core_main.c core_list_join.c" \
  >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; exit 1; }
reversed=$work/eembc/coremark-reversed.exe
export RUNNER_BENCH_COREMARK_SRC=$work/eembc
# make leaves coremark.exe in the copy, an untracked file: build.rs still
# records the commit (it looks at tracked files only).

# The padded tree: this commit with a function main() calls only when
# RUNNER_BENCH_PAD is set, so that LTO keeps it.
mkdir "$work/pad"
git archive HEAD | tar -x -C "$work/pad"
python3 - "$work/pad/collector/src/main.rs" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
start = "fn main() -> ExitCode {\n"
assert start in text, "collector/src/main.rs has no `fn main() -> ExitCode {`"
pad = '''
/// Unrelated code for scripts/bench-cpu-builds.sh: moves every later symbol.
#[inline(never)]
fn bench_pad(seed: u64) -> u64 {
    let mut table = [0u64; 64];
    for (i, t) in table.iter_mut().enumerate() {
        *t = seed.rotate_left(i as u32) ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    table.iter().fold(seed, |a, t| a.wrapping_mul(31).wrapping_add(*t) ^ (a >> 7))
}

'''
hook = '    if let Some(s) = std::env::var_os("RUNNER_BENCH_PAD") {\n        eprintln!("{}", bench_pad(s.len() as u64));\n    }\n'
text = text.replace(start, pad + start + hook, 1)
open(path, "w").write(text)
EOF

build() { # NAME DIR PROFILE -> prints the binary's path
  local name=$1 dir=$2 profile=$3 log=$work/build-$1.log
  echo "building $name ($profile) ..." >&2
  (cd "$dir" && CARGO_TARGET_DIR=$target_dir/$name cargo build --profile "$profile" --locked -p collector) >"$log" 2>&1 \
    || { cat "$log" >&2; return 1; }
  echo "$target_dir/$name/$profile/collector"
}
names=(dist dist+pad release)
# One at a time: a failed build ends the script.
dist_bin=$(build dist "$PWD" dist)
pad_bin=$(build dist-pad "$work/pad" dist)
release_bin=$(build release "$PWD" release)
bins=("$dist_bin" "$pad_bin" "$release_bin")

# Runs a command, its output to FILE, and prints the user + system CPU
# seconds its process took (scripts/lib/child_cpu.py says why not getrusage's
# RUSAGE_CHILDREN).
cpu_seconds() {
  python3 scripts/lib/child_cpu.py "$@"
}

# One collector run: prints "iterations/cpu-s executable_sha256".
run_collector() {
  "$1" run --profile quick --stages cpu --cpu "$cpu" --provider bench --runner bench --out "$work/c.json" 2>/dev/null
  jq -r '[.stages.cpu.samples[] | select(.status == "ok" and .validation == "passed")] as $s
    | if ($s | length) != 3 or ([$s[] | .cpu_s] | any(. == null)) then error("a sample failed or has no cpu_s") else . end
    | "\(($s | map(.iterations) | add) / ($s | map(.cpu_s) | add)) \(.build.coremark.executable_sha256 // "none")"' "$work/c.json"
}

# One run of N iterations of an official program (default coremark.exe):
# prints iterations/cpu-s.
run_official() {
  local cpu_s
  cpu_s=$(cpu_seconds "$work/o.txt" taskset -c "$cpu" "${1:-$official}" 0x0 0x0 0x66 "$n" 7 1 2000)
  for crc in "seedcrc *: 0xe9f5" "crclist *: 0xe714" "crcmatrix *: 0x1fd7" "crcstate *: 0x8e3a"; do
    grep -q "$crc" "$work/o.txt" || { cat "$work/o.txt" >&2; exit 1; }
  done
  python3 -c "print($n / $cpu_s)"
}

# N from one official run of 2000 iterations (which also warms it up).
n=2000
n=$(python3 -c "print(max(2000, int($(run_official) * $official_seconds)))")
load_before=$(cut -d' ' -f1 /proc/loadavg)
declare -A sha
rows=()
echo "round  order  official it/cpu-s  ${names[*]} reversed (it/cpu-s)"
for r in $(seq "$rounds"); do
  order=(0 1 2 3 4)
  [ $((r % 2)) -eq 0 ] && order=(4 3 2 1 0)
  declare -A fig=()
  for k in "${order[@]}"; do
    if [ "$k" -eq 0 ]; then
      fig[o]=$(run_official)
    elif [ "$k" -eq 4 ]; then
      fig[4]=$(run_official "$reversed")
    else
      read -r rate exe <<<"$(run_collector "${bins[$((k - 1))]}")"
      fig[$k]=$rate
      sha[$k]=$exe
    fi
  done
  rows+=("${fig[o]} ${fig[1]} ${fig[2]} ${fig[3]} ${fig[4]}")
  echo "$r  ${order[*]}  ${fig[o]}  ${fig[1]} ${fig[2]} ${fig[3]} ${fig[4]}"
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

printf '%s\n' "${rows[@]}" | python3 -c '
import statistics as st, sys
names = sys.argv[1:]
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
o = [r[0] for r in rows]
cv = lambda xs: st.pstdev(xs) / st.mean(xs) * 100
print("| Program | Median it/CPU-s | Variation | ÷ coremark.exe, median (min-max) |")
print("| --- | ---: | ---: | ---: |")
print("| coremark.exe | %.0f | %.2f%% | |" % (st.median(o), cv(o)))
medians = []
for k, name in enumerate(names + ["reversed"], 1):
    c = [r[k] for r in rows]
    ratio = [a / b for a, b in zip(c, o)]
    medians.append(st.median(ratio))
    label = "coremark.exe, sources reversed" if name == "reversed" else "collector, " + name
    print("| %s | %.0f | %.2f%% | %.4f (%.4f-%.4f) |" % (
        label, st.median(c), cv(c), st.median(ratio), min(ratio), max(ratio)))
medians.pop()
print()
print("Between the builds (median ratios): " + ", ".join(
    "%s ÷ %s %.4f" % (names[j], names[0], medians[j] / medians[0]) for j in range(1, len(names))) + ".")
' "${names[@]}" >"$work/table.md"
if [ "${sha[1]}" = "${sha[2]}" ] && [ "${sha[2]}" = "${sha[3]}" ]; then
  same="the three builds ran the same workload program (SHA-256 ${sha[1]:0:12})"
else
  same="the builds ran different workload programs (${sha[1]:0:12}, ${sha[2]:0:12}, ${sha[3]:0:12})"
fi
# A Linux build from EEMBC's sources runs coremark.exe itself, built as
# `make` builds it with the flags the result records: is it the same file?
flags=$(jq -r '.build.flags | join(" ")' "$work/c.json")
make -s -C "$work/eembc" PORT_DIR=linux compile OUTNAME=coremark-flags.exe XCFLAGS="$flags" \
  >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; exit 1; }
flags_sha=$(sha256sum "$work/eembc/coremark-flags.exe" | cut -d' ' -f1)
if [ "$flags_sha" = "${sha[1]}" ]; then
  same="$same, byte for byte the coremark.exe that \`make XCFLAGS=\"$flags\"\` builds"
else
  same="$same, not the coremark.exe that \`make XCFLAGS=\"$flags\"\` builds (${flags_sha:0:12})"
fi
block=$(
  echo "\`bash scripts/bench-cpu-builds.sh EEMBC_CHECKOUT $rounds $cpu\`, $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD);"
  echo "$(nproc) CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)), $(jq -r .build.compiler "$work/c.json"), EEMBC at ${commit:0:12};"
  echo "$rounds rounds pinned to CPU $cpu, $n official iterations per run; $same; load average"
  echo "$load_before before, $load_after after."
  echo
  cat "$work/table.md"
)
echo "$block"
if [ -n "${DOCS:-}" ]; then
  # shellcheck source=scripts/lib/docs-section.sh
  source scripts/lib/docs-section.sh
  docs_replace_section docs/benchmarks.md bench-cpu-builds <<<"$block"
fi
