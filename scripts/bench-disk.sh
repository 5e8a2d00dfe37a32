#!/usr/bin/env bash
# Disk stage vs fio: the same parameters (direct=1, psync, iodepth=1, 1 MiB
# sequential and 4 KiB random blocks, the same file size and seconds,
# end_fsync for writes), run alternately on the same file system, both
# pinned to the same CPU. Prints each figure as the ratio collector / fio and
# appends the figures to docs/benchmarks.md.
#
# Usage: bash scripts/bench-disk.sh [DIR] [ROUNDS]
#   DIR     folder on the disk to measure (default: target/bench-disk)
#   ROUNDS  alternating rounds (default: 3)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/bench-disk}
rounds=${2:-3}
cpu=${BENCH_CPU:-0}
mkdir -p "$dir"
command -v fio >/dev/null || { apt-get update -qq && apt-get install -y -qq fio; }
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
cargo build --release --locked -p collector >/dev/null 2>&1
collector=target/release/collector

# The standard profile's disk parameters.
size_mib=1024 seconds=5

fio_one() { # name rw bs extra...
  local name=$1 rw=$2 bs=$3; shift 3
  taskset -c "$cpu" fio --name="$name" --filename="$dir/fio.bin" --size="${size_mib}M" --rw="$rw" --bs="$bs" \
    --direct=1 --ioengine=psync --iodepth=1 --numjobs=1 --time_based --runtime="$seconds" \
    "$@" --output-format=json
}

declare -a c_read c_write c_rr c_rw f_read f_write f_rr f_rw
for round in $(seq 1 "$rounds"); do
  echo "round $round: collector" >&2
  "$collector" run --profile standard --stages disk --provider bench --runner bench --disk-dir "$dir" \
    --cpu "$cpu" --out "$dir/collector.json" 2>/dev/null
  # Medians over the collector's five samples.
  med() { jq "[.stages.disk.samples[] | select(.status==\"ok\") | .$1 | $2] | sort | .[length/2|floor]" "$dir/collector.json"; }
  c_read+=("$(med seq_read '.bytes/1048576/.elapsed_s')")
  c_write+=("$(med seq_write '.bytes/1048576/.elapsed_s')")
  c_rr+=("$(med rand_read '.ops/.elapsed_s')")
  c_rw+=("$(med rand_write '.ops/.elapsed_s')")

  echo "round $round: fio" >&2
  fio_one layout write 1M --end_fsync=1 >/dev/null   # lay out the file with random bytes
  f_read+=("$(fio_one seqread read 1M | jq '.jobs[0].read.bw_bytes/1048576')")
  f_write+=("$(fio_one seqwrite write 1M --end_fsync=1 | jq '.jobs[0].write.bw_bytes/1048576')")
  f_rr+=("$(fio_one randread randread 4k | jq '.jobs[0].read.iops')")
  f_rw+=("$(fio_one randwrite randwrite 4k --end_fsync=1 | jq '.jobs[0].write.iops')")
  rm -f "$dir/fio.bin"
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
row() { # label collector-values... -- fio-values...
  local label=$1; shift
  local c=() f=() side=c
  for v in "$@"; do if [ "$v" = -- ]; then side=f; elif [ $side = c ]; then c+=("$v"); else f+=("$v"); fi; done
  local cm fm
  cm=$(median "${c[@]}"); fm=$(median "${f[@]}")
  awk -v l="$label" -v c="$cm" -v f="$fm" 'BEGIN { printf "| %s | %.2f | %.2f | %.3f |\n", l, c, f, c / f }'
}
table=$(
  echo "| Figure | collector | fio | collector ÷ fio |"
  echo "| --- | ---: | ---: | ---: |"
  row "Sequential read MiB/s" "${c_read[@]}" -- "${f_read[@]}"
  row "Sequential write MiB/s" "${c_write[@]}" -- "${f_write[@]}"
  row "Random read IOPS" "${c_rr[@]}" -- "${f_rr[@]}"
  row "Random write IOPS" "${c_rw[@]}" -- "${f_rw[@]}"
)
echo "$table"
{
  echo
  echo "## Disk stage against fio ($(date -u +%Y-%m-%d))"
  echo
  echo "\`bash scripts/bench-disk.sh $dir $rounds\` on $(nproc) CPUs, $(df -T "$dir" | awk 'NR==2 {print $2}') at \`$dir\`;"
  echo "medians over $rounds alternating rounds (the collector's own figure per round is its median of 5 samples);"
  echo "1024 MiB file, 5 s per operation, both pinned to CPU $cpu."
  echo
  echo "$table"
} >> docs/benchmarks.md
rm -rf "$dir"
