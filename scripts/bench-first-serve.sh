#!/usr/bin/env bash
# The README's first command, `cargo run -p site --release --locked -- serve`,
# from an empty target folder, at two revisions back to back: the seconds from
# starting cargo until the server answers HTTP (compiling the workspace's
# dependencies and the site, building the website, binding the port).
#
#   bash scripts/bench-first-serve.sh [A [B]]
#
# A and B are git revisions of this repository, or `worktree` for the working
# tree as it is (tracked and untracked files that git does not ignore);
# default: A = HEAD~, B = worktree. Each side is cloned (or copied) into a
# temporary folder and built with a fresh, empty CARGO_TARGET_DIR; both share
# ~/.cargo's registry, so neither downloads crates the other did not.
#
# ORDER (default "A B") is the order of the runs, e.g. ORDER="A B B A" to
# cancel a drift of the machine's load; each A run is one build from empty,
# so on 2 CPUs every run takes minutes. TIMEOUT (default 3600) is how many
# seconds a run may take before it counts as failed.
#
# Prints, per run, the seconds, the CPU seconds of the build (cargo, rustc,
# build scripts, the linker), cargo's own "Finished" line, and the load
# averages (uptime) before and after it; then nproc, the CPU model and the
# ratios A ÷ B of the means. Other processes on the machine slow the build:
# read the load averages beside the figures.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/checkout.sh
. "$repo/scripts/lib/checkout.sh"
a=${1:-HEAD~}
b=${2:-worktree}
order=${ORDER:-A B}
timeout=${TIMEOUT:-3600}

work=$(mktemp -d /tmp/bench-first-serve.XXXXXX)
server=
cleanup() {
  if [ -n "$server" ]; then
    kill -- "-$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A port nothing listens on now.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

now() { date +%s.%N; }

# One run of side $1 (A or B) in folder $2, number $3: sets `secs` and `cpu`.
run_once() {
  local side=$1 dir=$2 n=$3 port target log start
  port=$(free_port)
  target="$work/target-$side-$n"
  log="$work/serve-$side-$n.log"
  echo "--- run $n: $side, port $port"
  echo "load before: $(uptime)"
  start=$(now)
  # Its own session, so the server (cargo runs it) goes with one kill.
  (cd "$dir" && CARGO_TARGET_DIR="$target" exec setsid cargo run -p site --release --locked -- serve --port "$port") \
    >"$log" 2>&1 &
  server=$!
  # -f: only a 2xx counts; the port is bound before the first build, which
  # answers nothing until it is done.
  until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/" 2>/dev/null; do
    if ! kill -0 "$server" 2>/dev/null; then
      echo "run $n ($side) exited before serving; its log:"
      tail -n 30 "$log"
      exit 1
    fi
    if awk -v s="$start" -v n="$(now)" -v t="$timeout" 'BEGIN { exit !(n - s > t) }'; then
      echo "run $n ($side) did not serve within ${timeout}s"
      exit 1
    fi
    sleep 0.2
  done
  secs=$(awk -v s="$start" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }')
  # CPU seconds of the whole build: cargo execs the server in the same
  # process, whose own and waited-for children's times (rustc, build
  # scripts, the linker) /proc sums; less sensitive to other load than the
  # wall time.
  cpu=$(sed 's/^.*) //' "/proc/$server/stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($12 + $13 + $14 + $15) / hz }')
  kill -- "-$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=
  echo "load after:  $(uptime)"
  echo "cargo: $(grep -m1 'Finished' "$log" | sed 's/^ *//')"
  echo "run $n: $side ${secs} s, CPU ${cpu} s"
  rm -rf "$target"
}

echo "A: $(checkout "$repo" "$a" "$work/A")"
echo "B: $(checkout "$repo" "$b" "$work/B")"
echo "order: $order"
echo "nproc: $(nproc); CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
echo "$(cargo --version) ($(cd "$work/B" && rustc --version))"

declare -A all=([A]="" [B]="") cpus=([A]="" [B]="")
n=0
for side in $order; do
  n=$((n + 1))
  run_once "$side" "$work/$side" "$n"
  all[$side]+=" $secs"
  cpus[$side]+=" $cpu"
done

mean() { awk '{ for (i = 1; i <= NF; i++) t += $i; printf "%.1f", t / NF }' <<<"$1"; }
if [ -n "${all[A]}" ] && [ -n "${all[B]}" ]; then
  ma=$(mean "${all[A]}")
  mb=$(mean "${all[B]}")
  ca=$(mean "${cpus[A]}")
  cb=$(mean "${cpus[B]}")
  echo "A ($a):${all[A]} s, mean $ma s; CPU${cpus[A]} s, mean $ca s"
  echo "B ($b):${all[B]} s, mean $mb s; CPU${cpus[B]} s, mean $cb s"
  echo "A ÷ B: $(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.2f", a / b }') (CPU: $(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.2f", a / b }'))"
fi
