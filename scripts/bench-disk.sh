#!/usr/bin/env bash
# Disk stage vs fio, with the same protocol on both sides.
#
# The collector's standard disk stage creates a 1024 MiB file of random bytes
# (1 MiB O_DIRECT writes, then fdatasync), then runs five samples of four
# operations back to back on that file: 1 MiB sequential read, 1 MiB
# sequential write, 4 KiB random read, 4 KiB random write, 5 s each, write
# timings ending with fdatasync. fio runs exactly that sequence as one job
# file: a layout job that writes the new file once (direct=1, bs=1M,
# end_fsync=1, no preallocation, created by that job's first write), then 5 x the four jobs (direct=1, psync,
# iodepth=1, time_based 5 s, end_fsync=1 for writes), each job waiting for
# the previous one (stonewall). So both tools see the same file state and the
# same order; each tool's figure per run is the median of its five samples.
#
# Runs come in pairs, one of each tool, all pinned to the same CPU, the
# order alternating from pair to pair as A B, B A (fio, collector,
# collector, fio, fio, collector, ...): each tool goes first in half of the
# pairs and follows a run of the other tool in half of them, and a drift of
# the disk that is linear over two pairs cancels in their median. Each
# collector run is divided by the fio run of its pair. The ratio of each fio
# run to the next shows how much fio disagrees with itself on this disk; a
# collector ÷ fio ratio is only as good as that spread.
#
# (An earlier chain fio, collector, fio, ..., fio divided each collector run
# by its two neighbours. Every collector run then followed a fio run and
# every fio run a collector run, and with 1 GiB files that ext4 places one
# after the other, the two tools' files alternated too.)
#
# Target, per figure: the median collector ÷ fio ratio inside 0.95–1.05 or
# inside the interquartile range of fio ÷ next fio, whichever band is wider
# (quartiles interpolated linearly between order statistics, as R's and
# numpy's defaults do). The table says which band applied and whether the
# median is in it.
#
# Writes: fio's job files keep fio's default buffer contents (random bytes,
# scrambled before every write by scramble_buffers=1); the collector
# scrambles its write buffers the same way (collector/src/stage/disk/buffer.rs).
#
# Buffers: both tools read and write through one 2 MiB huge page, so that a
# 1 MiB transfer is one physically contiguous piece in both. The collector's
# buffer is a transparent huge page (collector/src/stage/disk/buffer.rs; the
# result records `buffer_page_kib`, which this script checks is 2048 in
# every sample); fio's is a hugetlb page (iomem=shmhuge), for which the
# script reserves two pages (vm.nr_hugepages, as root or through sudo) and
# gives them back at the end. With 4 KiB pages placed wherever the kernel
# puts them (fio's default buffer), a 1 MiB transfer was 29 to 256 pieces
# from one buffer to the next on the development VM's virtio disk, and
# sequential reads ran at about 0.4 of the speed (scripts/disk-pages.sh,
# docs/benchmarks.md).
#
# Pinning: the collector pins only its sample thread (--cpu); its main
# thread, unpinned, sleeps until the sample ends. fio runs each job in a
# process of its own, while its parent process wakes about every 10 ms
# (strace -c: 307 clock_nanosleep calls in a 3 s job) to watch the jobs. So
# fio's jobs are pinned with cpus_allowed, and fio itself, the parent, runs
# on another CPU (BENCH_FIO_CPU). Both tools' measuring threads then have
# the CPU to themselves. The parent's wakeups on the measured CPU made
# random writes faster on the development VM: fio with its parent on CPU 0
# against fio with it on CPU 1, 4 interleaved runs of each, medians 15.75k
# and 14.94k IOPS; a plain C loop of 4 KiB pwrite calls with and without a
# process that sleeps 10 ms at a time on its CPU, 15.9k and 15.1k
# (the 2026-12-01 runs in docs/benchmarks.md's git history).
#
# Prints the table and puts it, as the latest run, in docs/benchmarks.md's
# bench-disk block (scripts/lib/docs-section.sh).
#
# Usage: bash scripts/bench-disk.sh [DIR] [ROUNDS]
#   DIR     folder on the disk to measure (default: target/bench-disk)
#   ROUNDS  collector runs (default: 6, the least the target is judged on);
#           about 4 minutes each
# Environment: BENCH_CPU (default 0), BENCH_FIO_CPU (where fio's parent
# process runs; default: the first other online CPU), CARGO_TARGET_DIR
# (where the collector is built).
set -euo pipefail
# A failed command inside $(...) fails the run that runs it, too.
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
dir=${1:-target/bench-disk}
rounds=${2:-6}
cpu=${BENCH_CPU:-0}
other=$(awk -F- -v cpu="$cpu" 'BEGIN { RS = "," } { hi = $2 == "" ? $1 : $2; for (c = $1; c <= hi; c++) if (c != cpu) { print c; exit } }' /sys/devices/system/cpu/online)
fio_cpu=${BENCH_FIO_CPU:-${other:-$cpu}}
mkdir -p "$dir"
command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio; }
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
if ! build=$(cargo build --release --locked -p collector 2>&1); then echo "$build" >&2; exit 1; fi
collector=${CARGO_TARGET_DIR:-target}/release/collector

# Two hugetlb pages for fio's buffers (one job at a time needs one), given
# back at the end.
# shellcheck source=scripts/lib/hugepages.sh
source scripts/lib/hugepages.sh
# shellcheck source=scripts/lib/docs-section.sh
source scripts/lib/docs-section.sh
trap release_hugepages EXIT
reserve_hugepages 2

# The standard profile's disk parameters.
size_mib=1024 seconds=5 samples=5

# fio's job file: the collector's sequence.
jobs=$dir/collector-order.fio
{
  echo "[global]"
  echo "filename=$dir/fio.bin"
  echo "size=${size_mib}M"
  echo "direct=1"
  echo "ioengine=psync"
  echo "iodepth=1"
  echo "numjobs=1"
  # The jobs on the measured CPU; fio's parent elsewhere (see the top).
  echo "cpus_allowed=$cpu"
  # One hugetlb page per job's buffer, as the collector's is one huge page.
  echo "iomem=shmhuge"
  echo "fallocate=none"
  # Without this, fio lays a missing file out with buffered writes before
  # the first job ("Laying out IO file"), so the layout job below would
  # write it a second time, with O_DIRECT. The collector writes its file
  # once, with O_DIRECT; with create_on_open the layout job creates fio's
  # file the same way. The extra buffered pass made fio's random writes
  # slower: 12.4k-15.1k against 15.9k-17.9k IOPS, 3 of each interleaved
  # (the 2026-12-01 runs in docs/benchmarks.md's git history).
  echo "create_on_open=1"
  echo "stonewall"
  echo "[layout]"
  echo "rw=write"
  echo "bs=1M"
  echo "end_fsync=1"
  for s in $(seq 1 "$samples"); do
    for job in "sr read 1M 0" "sw write 1M 1" "rr randread 4k 0" "rw randwrite 4k 1"; do
      # shellcheck disable=SC2086
      set -- $job
      printf '[%s%s]\nrw=%s\nbs=%s\nend_fsync=%s\ntime_based\nruntime=%s\n' "$1" "$s" "$2" "$3" "$4" "$seconds"
      # Uniform offsets with repeats, like the collector's seeded generator
      # (fio's default random map would visit each block once).
      case $2 in rand*) echo "norandommap=1" ;; esac
    done
  done
} >"$jobs"

# One line per run: seq read MiB/s, seq write MiB/s, random read IOPS, random
# write IOPS, each the median of the run's five samples.
med='sort | .[(length - 1) / 2 | floor]'
fio_run() {
  rm -f "$dir/fio.bin" "$dir/fio.json"
  taskset -c "$fio_cpu" fio --output-format=json "$jobs" >"$dir/fio.json" || return 1
  rm -f "$dir/fio.bin"
  jq -r "[.jobs[] | select(.jobname | test(\"^sr\")) | .read.bw_bytes / 1048576] | $med" "$dir/fio.json" | tr '\n' ' '
  jq -r "[.jobs[] | select(.jobname | test(\"^sw\")) | .write.bw_bytes / 1048576] | $med" "$dir/fio.json" | tr '\n' ' '
  jq -r "[.jobs[] | select(.jobname | test(\"^rr\")) | .read.iops] | $med" "$dir/fio.json" | tr '\n' ' '
  jq -r "[.jobs[] | select(.jobname | test(\"^rw\")) | .write.iops] | $med" "$dir/fio.json"
}
collector_run() {
  rm -f "$dir/collector.json"
  "$collector" run --profile standard --stages disk --provider bench --runner bench --disk-dir "$dir" \
    --cpu "$cpu" --out "$dir/collector.json" 2>/dev/null || return 1
  local s='.stages.disk.samples[] | select(.status == "ok")'
  local pages
  pages=$(jq -r "[$s | .buffer_page_kib] | unique | map(tostring) | join(\",\")" "$dir/collector.json")
  if [ "$pages" != 2048 ]; then
    echo "the collector's disk buffers were in pages of $pages KiB, not one 2 MiB huge page" >&2
    exit 1
  fi
  jq -r "[$s | .seq_read.bytes / 1048576 / .seq_read.elapsed_s] | $med" "$dir/collector.json" | tr '\n' ' '
  jq -r "[$s | .seq_write.bytes / 1048576 / .seq_write.elapsed_s] | $med" "$dir/collector.json" | tr '\n' ' '
  jq -r "[$s | .rand_read.ops / .rand_read.elapsed_s] | $med" "$dir/collector.json" | tr '\n' ' '
  jq -r "[$s | .rand_write.ops / .rand_write.elapsed_s] | $med" "$dir/collector.json"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$dir/runs.txt"
for pair in $(seq 1 "$rounds"); do
  if [ $((pair % 2)) = 1 ]; then order="fio collector"; else order="collector fio"; fi
  for tool in $order; do
    echo "pair $pair: $tool" >&2
    # An assignment, so that a failed run stops the script (set -e, and
    # inherit_errexit inside the run).
    line=$("${tool}_run")
    echo "$tool $line" >>"$dir/runs.txt"
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cat "$dir/runs.txt" >&2

# Per figure: medians over runs, the median and range of the collector ÷ fio
# ratios, the median and interquartile range of the ratios of each fio run to
# the next, the band the target uses and whether the median is in it.
table=$(
  echo "| Figure | collector | fio | collector ÷ fio, median | collector ÷ fio, range | fio ÷ next fio, median | fio ÷ next fio, IQR | target band | met |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  awk '
    function sort(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    }
    # Quantile p of a sorted a[1..n], linear between order statistics.
    function quantile(a, n, p,   h, k) {
      h = (n - 1) * p + 1; k = int(h)
      return k >= n ? a[n] : a[k] + (h - k) * (a[k + 1] - a[k])
    }
    $1 == "fio" { nf++; for (k = 1; k <= 4; k++) f[nf, k] = $(k + 1) }
    $1 == "collector" { nc++; for (k = 1; k <= 4; k++) c[nc, k] = $(k + 1) }
    END {
      split("Sequential read MiB/s|Sequential write MiB/s|Random read IOPS|Random write IOPS", label, "|")
      for (k = 1; k <= 4; k++) {
        delete cs; delete fs; delete r; delete ff
        for (i = 1; i <= nc; i++) { cs[i] = c[i, k]; r[i] = c[i, k] / f[i, k] }
        for (i = 1; i <= nf; i++) fs[i] = f[i, k]
        for (i = 1; i < nf; i++) ff[i] = f[i, k] / f[i + 1, k]
        sort(cs, nc); sort(fs, nf); sort(r, nc); sort(ff, nf - 1)
        q1 = quantile(ff, nf - 1, 0.25); q3 = quantile(ff, nf - 1, 0.75)
        lo = 0.95; hi = 1.05
        if (q3 - q1 > hi - lo) { lo = q1; hi = q3 }
        m = quantile(r, nc, 0.5)
        printf "| %s | %.2f | %.2f | %.3f | %.3f–%.3f | %.3f | %.3f–%.3f | %.3f–%.3f | %s |\n", label[k],
          quantile(cs, nc, 0.5), quantile(fs, nf, 0.5), m, r[1], r[nc], quantile(ff, nf - 1, 0.5), q1, q3,
          lo, hi, (m >= lo && m <= hi) ? "yes" : "no"
      }
    }' "$dir/runs.txt"
)
echo "$table"
{
  echo "\`bash scripts/bench-disk.sh $dir $rounds\`, $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD); $(nproc) CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)),"
  echo "$(df -T "$dir" | awk 'NR==2 {print $2}') at the folder; $rounds pairs; the collector's sample thread and fio's jobs on CPU $cpu, fio's"
  echo "parent on CPU $fio_cpu; load average $load_before before, $load_after after."
  echo
  echo "$table"
} | docs_replace_section docs/benchmarks.md bench-disk
rm -rf "$dir"
