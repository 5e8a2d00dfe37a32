#!/usr/bin/env bash
# The CPU stage's repeatability: five standard CoreMark samples (30 s each,
# pinned), their median and population coefficient of variation and the
# pinned CPU's steal time per sample, appended to docs/benchmarks.md with the
# machine's load. Run it on an idle machine.
#
# Usage: bash scripts/bench-cpu.sh [CPU]   (default: the collector's choice)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
cargo build --release --locked -p collector >/dev/null 2>&1
collector=${CARGO_TARGET_DIR:-target}/release/collector
out=$(mktemp -d)/cpu.json
load_before=$(cut -d' ' -f1 /proc/loadavg)
args=(run --profile standard --stages cpu --provider bench --runner bench --out "$out")
[ -n "${1:-}" ] && args+=(--cpu "$1")
"$collector" "${args[@]}"
load_after=$(cut -d' ' -f1 /proc/loadavg)
stats=$(jq -r '
  [.stages.cpu.samples[] | select(.status == "ok" and .validation == "passed") | .iterations / .elapsed_s] as $s
  | ($s | sort) as $v | ($v | length) as $n
  | ($s | add / $n) as $mean
  | (($s | map((. - $mean) * (. - $mean)) | add) / $n | sqrt) as $sd
  | [ ($s | map(. * 100 | round / 100 | tostring) | join(", ")),
      (if $n % 2 == 1 then $v[($n - 1) / 2] else ($v[$n / 2 - 1] + $v[$n / 2]) / 2 end),
      ($sd / $mean * 100), $n,
      (.stages.cpu.samples[0].affinity | if .mode == "pinned" then "CPU \(.cpu), group \(.group)" else "unpinned" end),
      .machine.cpu_model, .build.compiler,
      ([.stages.cpu.samples[] | select(.status == "ok") | (if .steal_s == null then "n/a" else (.steal_s * 100 | round / 100 | tostring) end)] | join(", ")) ] | @tsv' "$out")
IFS=$'\t' read -r samples median cv n affinity model compiler steal <<<"$stats"
line=$(printf '| %s | %.2f | %.2f%% | %s | %s | %s |' "$samples" "$median" "$cv" "$n" "$affinity" "$steal")
echo "median $median iterations/s, variation $(printf '%.2f' "$cv")% over $n samples ($affinity); steal per sample: $steal s"
{
  echo
  echo "## CPU stage repeatability ($(date -u +%Y-%m-%d))"
  echo
  echo "\`bash scripts/bench-cpu.sh ${1:-}\`: five standard samples (30 s each) on $model, $(nproc) CPUs, CoreMark built"
  echo "by $compiler; load average $load_before before and $load_after after. Target: variation under 1%."
  echo
  echo "| Samples in order (iterations/s) | Median | Variation | Accepted | Affinity | Steal per sample (s) |"
  echo "| --- | ---: | ---: | ---: | --- | --- |"
  echo "$line"
} >> docs/benchmarks.md
