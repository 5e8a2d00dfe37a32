#!/usr/bin/env bash
# Does a process that wakes every 10 ms on the measured CPU change 4 KiB
# O_DIRECT random-write IOPS? fio's parent process does (it watches its job
# processes about every 10 ms); the collector's main thread does not. This
# is the experiment behind scripts/bench-disk.sh's pinning (fio's jobs on
# the measured CPU, its parent on another one).
#
# Two comparisons, each in ROUNDS rounds of A, B, B, A, every run on a new
# 1 GiB file laid out by fio (1 MiB O_DIRECT writes, as bench-disk.sh's
# layout job) and then written at random for 3 x 5 s:
#   1. a plain C loop of 4 KiB pwrite calls (SplitMix64 offsets, one
#      fdatasync at the end of each 5 s) alone on CPU 0 (A), and with a
#      process that sleeps 10 ms at a time pinned to CPU 0 beside it (B);
#   2. fio with everything pinned to CPU 0 (A), and with its jobs pinned to
#      CPU 0 (cpus_allowed) and its parent process to CPU 1 (B).
# Prints each run's three figures, and the median of the runs' medians per
# side.
#
# Usage: bash scripts/disk-wakeups.sh [DIR] [ROUNDS]
#   DIR     folder on the disk to measure (default: target/disk-wakeups)
#   ROUNDS  rounds of A, B, B, A per comparison (default 2); about 70 s each
# Needs: fio, jq, cc, and two CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/disk-wakeups}
rounds=${2:-2}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
file=$dir/wakeups.bin
trap 'rm -f "$file"' EXIT

cat >"$dir/loop.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t state;
static uint64_t next(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}
/* loop FILE SECONDS REPEATS SEED: IOPS of each repeat */
int main(int argc, char **argv) {
  if (argc != 5) return 2;
  int fd = open(argv[1], O_RDWR | O_DIRECT);
  if (fd < 0) { perror("open"); return 1; }
  double seconds = atof(argv[2]);
  int repeats = atoi(argv[3]);
  state = strtoull(argv[4], 0, 10);
  off_t blocks = lseek(fd, 0, SEEK_END) / 4096;
  char *buf = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) { perror("mmap"); return 1; }
  for (int i = 0; i < 4096; i += 8) *(uint64_t *)(buf + i) = next();
  for (int r = 0; r < repeats; r++) {
    long n = 0;
    double start = now();
    while (now() - start < seconds) {
      off_t offset = (off_t)(((unsigned __int128)next() * (uint64_t)blocks) >> 64) * 4096;
      *(uint64_t *)buf = next();
      if (pwrite(fd, buf, 4096, offset) != 4096) { perror("pwrite"); return 1; }
      n++;
    }
    if (fdatasync(fd) != 0) { perror("fdatasync"); return 1; }
    printf("%.0f ", n / (now() - start));
    fflush(stdout);
  }
  printf("\n");
  return 0;
}
EOF
printf '#include <unistd.h>\nint main(void) { for (;;) usleep(10000); }\n' >"$dir/tick.c"
cc -O2 -o "$dir/loop" "$dir/loop.c"
cc -O2 -o "$dir/tick" "$dir/tick.c"

global="[global]
filename=$file
size=1024M
direct=1
ioengine=psync
iodepth=1
fallocate=none
create_on_open=1
stonewall"
printf '%s\n[layout]\nrw=write\nbs=1M\nend_fsync=1\n' "$global" >"$dir/layout.fio"
{
  cat "$dir/layout.fio"
  for s in 1 2 3; do printf '[rw%s]\nrw=randwrite\nbs=4k\nend_fsync=1\ntime_based\nruntime=5\nnorandommap=1\n' "$s"; done
} >"$dir/fio-all.fio"
sed 's/^stonewall$/stonewall\ncpus_allowed=0/' "$dir/fio-all.fio" >"$dir/fio-jobs.fio"

layout() { rm -f "$file"; taskset -c 0 fio --output-format=json "$dir/layout.fio" >/dev/null; }
loop_alone() { layout; taskset -c 0 "$dir/loop" "$file" 5 3 "$RANDOM"; }
loop_ticked() {
  layout
  taskset -c 0 "$dir/tick" &
  local t=$!
  taskset -c 0 "$dir/loop" "$file" 5 3 "$RANDOM"
  kill "$t"
  wait "$t" 2>/dev/null || true
}
fio_iops() { jq -r '[.jobs[] | select(.jobname | test("^rw")) | .write.iops | floor] | map(tostring) | join(" ")' "$dir/fio.json"; }
fio_all() { rm -f "$file"; taskset -c 0 fio --output-format=json "$dir/fio-all.fio" >"$dir/fio.json"; fio_iops; }
fio_parent_elsewhere() { rm -f "$file"; taskset -c 1 fio --output-format=json "$dir/fio-jobs.fio" >"$dir/fio.json"; fio_iops; }

# compare LABEL_A FUNC_A LABEL_B FUNC_B
compare() {
  local a=() b=() line
  for _ in $(seq "$rounds"); do
    for side in A B B A; do
      # shellcheck disable=SC2086 # a run's figures, one word each
      if [ "$side" = A ]; then line=$($2); a+=("$(median $line)"); echo "$1: $line"
      else line=$($4); b+=("$(median $line)"); echo "$3: $line"; fi
    done
  done
  echo "median of the runs' medians: $1 $(median "${a[@]}"), $3 $(median "${b[@]}") IOPS"
}
# shellcheck source=scripts/lib/median.sh
source scripts/lib/median.sh

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
compare "C loop alone" loop_alone "C loop + 10 ms sleeper" loop_ticked
compare "fio all on CPU 0" fio_all "fio, parent on CPU 1" fio_parent_elsewhere
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
