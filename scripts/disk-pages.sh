#!/usr/bin/env bash
# Does the memory behind the I/O buffer change 1 MiB O_DIRECT sequential
# figures? A 1 MiB transfer from 4 KiB pages is as many physically separate
# pieces as the kernel happened to give the buffer; from one 2 MiB huge page
# it is one. This is the experiment behind the disk stage's huge-page buffer
# (collector/src/stage/disk/buffer.rs) and scripts/bench-disk.sh's
# iomem=shmhuge for fio.
#
# Two comparisons, each in ROUNDS rounds of A, B, B, A on one 1 GiB file
# laid out once (1 MiB O_DIRECT writes, each of the same 1 MiB of random
# bytes):
#   1. a plain C loop of 1 MiB pread calls for 3 s, then pwrite calls for
#      3 s (the offset wrapping at the file's end, fdatasync at the end of
#      the writes), through a new buffer per run: 4 KiB pages touched in
#      order, as the disk stage's buffer was before (A), against one
#      transparent huge page (MADV_HUGEPAGE; B; the run fails if
#      /proc/self/smaps_rollup shows no huge page);
#   2. fio's sequential read and write jobs of 3 s each with its default
#      buffer (A) and with iomem=shmhuge (B).
# Every run is pinned to CPU 0. For each run of the loop it prints how many
# physically separate pieces the buffer was (from /proc/self/pagemap, which
# shows frame numbers to root only: "?" otherwise) and the block device's
# requests per call (/sys/class/block/DEV/stat: more than 1 where the
# device's limits, segments or sectors per request, split a call; other
# I/O on the device in those seconds counts too). Then the median of each
# side.
#
# Usage: bash scripts/disk-pages.sh [DIR] [ROUNDS]
#   DIR     folder on the disk to measure (default: target/disk-pages)
#   ROUNDS  rounds of A, B, B, A per comparison (default 2); about 25 s each
# Needs: fio, jq, cc, transparent huge pages not set to `never`, and two
# hugetlb pages, which the script reserves (vm.nr_hugepages, as root or
# through sudo) and gives back. Run it as root: fio's iomem=shmhuge needs
# CAP_IPC_LOCK (or membership of vm.hugetlb_shm_group), and the pieces
# need /proc/self/pagemap's frame numbers.
set -euo pipefail
# A failed command inside $(...) fails the function that runs it, too.
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
dir=${1:-target/disk-pages}
rounds=${2:-2}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
file=$dir/pages.bin
# shellcheck source=scripts/lib/hugepages.sh
source scripts/lib/hugepages.sh
trap 'rm -f "$file"; release_hugepages' EXIT
reserve_hugepages 2
device=$(basename "$(findmnt -no SOURCE --target "$dir")")
stat=/sys/class/block/$device/stat
[ -r "$stat" ] || { echo "no block statistics for $dir ($stat)" >&2; exit 1; }

cat >"$dir/pages.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (1 << 20)
#define HUGE (2 << 20)
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}
/* Reads and writes completed, from the block device's stat file. */
static void requests(const char *stat, unsigned long long *reads, unsigned long long *writes) {
  unsigned long long v[5];
  FILE *f = fopen(stat, "r");
  if (!f || fscanf(f, "%llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5) exit(1);
  fclose(f);
  *reads = v[0];
  *writes = v[4];
}
/* Physically separate pieces of the buffer; -1 where frames are hidden. */
static long pieces(unsigned char *buf) {
  int pm = open("/proc/self/pagemap", O_RDONLY);
  long n = 0;
  uint64_t prev = 0;
  for (size_t p = 0; p < BLOCK; p += 4096) {
    uint64_t e;
    if (pm < 0 || pread(pm, &e, 8, (uintptr_t)(buf + p) / 4096 * 8) != 8) return -1;
    uint64_t frame = e & ((1ULL << 55) - 1);
    if (frame == 0) { close(pm); return -1; }
    if (p == 0 || frame != prev + 1) n++;
    prev = frame;
  }
  close(pm);
  return n;
}
/* KiB of this process's memory in transparent huge pages. */
static long huge_kib(void) {
  FILE *f = fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}
/* pages layout FILE MIB | pages base|huge FILE SECONDS STAT */
int main(int argc, char **argv) {
  if (argc < 4) return 2;
  unsigned char *buf;
  if (strcmp(argv[1], "huge") == 0) {
    unsigned char *raw = mmap(0, 2 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) { perror("mmap"); return 1; }
    buf = (unsigned char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    madvise(buf, HUGE, MADV_HUGEPAGE);
  } else {
    buf = mmap(0, BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) { perror("mmap"); return 1; }
  }
  srand(7);
  for (size_t i = 0; i < BLOCK; i++) buf[i] = rand();
  int flags = strcmp(argv[1], "layout") == 0 ? O_RDWR | O_CREAT | O_TRUNC | O_DIRECT : O_RDWR | O_DIRECT;
  int fd = open(argv[2], flags, 0644);
  if (fd < 0) { perror("open"); return 1; }
  if (strcmp(argv[1], "layout") == 0) {
    for (long i = 0; i < atol(argv[3]); i++)
      if (pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) != BLOCK) { perror("pwrite"); return 1; }
    return fdatasync(fd) != 0;
  }
  if (strcmp(argv[1], "huge") == 0 && huge_kib() < HUGE / 1024) {
    fprintf(stderr, "the buffer got no transparent huge page\n");
    return 1;
  }
  off_t size = lseek(fd, 0, SEEK_END);
  double seconds = atof(argv[3]);
  long n = pieces(buf);
  if (n < 0) printf("? "); else printf("%ld ", n);
  for (int write = 0; write <= 1; write++) {
    unsigned long long r0, w0, r1, w1;
    requests(argv[4], &r0, &w0);
    long calls = 0;
    off_t offset = 0;
    double start = now();
    while (now() - start < seconds) {
      ssize_t got = write ? pwrite(fd, buf, BLOCK, offset) : pread(fd, buf, BLOCK, offset);
      if (got != BLOCK) { perror("io"); return 1; }
      calls++;
      offset = (offset + BLOCK) % size;
    }
    if (write && fdatasync(fd) != 0) { perror("fdatasync"); return 1; }
    double elapsed = now() - start;
    requests(argv[4], &r1, &w1);
    printf("%.0f %.2f ", calls / elapsed, (double)(write ? w1 - w0 : r1 - r0) / calls);
  }
  printf("\n");
  return 0;
}
EOF
cc -O2 -o "$dir/pages" "$dir/pages.c"
taskset -c 0 "$dir/pages" layout "$file" 1024

jobs() {
  printf '[global]\nfilename=%s\ndirect=1\nioengine=psync\niodepth=1\nbs=1M\ntime_based\nruntime=3\nstonewall\n%s\n' "$file" "$1"
  printf '[sr]\nrw=read\n[sw]\nrw=write\nend_fsync=1\n'
}
jobs "" >"$dir/default.fio"
jobs "iomem=shmhuge" >"$dir/shmhuge.fio"

# Each run prints: pieces (the loop only), read MiB/s and requests per call,
# write MiB/s and requests per call (fio: MiB/s only, "-" for the rest).
loop_base() { taskset -c 0 "$dir/pages" base "$file" 3 "$stat"; }
loop_huge() { taskset -c 0 "$dir/pages" huge "$file" 3 "$stat"; }
fio_run() {
  rm -f "$dir/fio.json"
  taskset -c 0 fio --output-format=json "$dir/$1.fio" >"$dir/fio.json" || return 1
  jq -r '"- \(.jobs[0].read.bw_bytes / 1048576 | round) - \(.jobs[1].write.bw_bytes / 1048576 | round) -"' "$dir/fio.json"
}
fio_default() { fio_run default; }
fio_shmhuge() { fio_run shmhuge; }

# shellcheck source=scripts/lib/median.sh
source scripts/lib/median.sh

# compare LABEL_A FUNC_A LABEL_B FUNC_B
compare() {
  local line label run r w ar=() aw=() br=() bw=()
  echo "run: pieces, read MiB/s, requests per read, write MiB/s, requests per write"
  for _ in $(seq "$rounds"); do
    for side in A B B A; do
      if [ "$side" = A ]; then label=$1 run=$2; else label=$3 run=$4; fi
      line=$($run)
      echo "$label: $line"
      read -r _ r _ w _ <<<"$line"
      if [ "$side" = A ]; then ar+=("$r") aw+=("$w"); else br+=("$r") bw+=("$w"); fi
    done
  done
  echo "medians: $1 read $(median "${ar[@]}"), write $(median "${aw[@]}") MiB/s; $3 read $(median "${br[@]}"), write $(median "${bw[@]}") MiB/s"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); device $device, $(cat "/sys/class/block/$device/queue/max_segments" 2>/dev/null || echo '?') segments per request at most"
compare "loop, 4 KiB pages" loop_base "loop, huge page" loop_huge
compare "fio, default buffer" fio_default "fio, iomem=shmhuge" fio_shmhuge
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
