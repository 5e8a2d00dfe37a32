#!/usr/bin/env bash
# Internet stage vs curl, on the LibreSpeed test server (nginx + php-fpm,
# scripts/librespeed-server.sh) on loopback. Both sides use the standard
# profile's sizes: samples of 1024 MiB as sequential requests of 32 MiB on
# one persistent HTTP/1.1 connection (garbage.php?ckSize=32 downloads,
# 32 MiB POSTs of random bytes to empty.php). Rounds alternate which tool
# goes first. Prints the median Mbps of each, the ratio collector / curl and
# curl's own spread (interquartile range of its samples, and its per-round
# medians, each over its median) with the load,
# and puts them, as the latest run, in docs/benchmarks.md's
# bench-internet-SCHEME block (scripts/lib/docs-section.sh). The target is a ratio of at least
# 0.95 in both directions.
#
# curl's seconds are the sum of its transfers' time_total (first connection
# and TLS included, its own gaps between requests not), the collector's run
# from its first request to the last byte, so any difference in bookkeeping
# favours curl.
#
# Usage: bash scripts/bench-internet.sh [ROUNDS] [SCHEME]
#   ROUNDS  alternating rounds (default: 3)
#   SCHEME  https (default) or http
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
scheme=${2:-https}
target=${CARGO_TARGET_DIR:-target}
dir=$target/bench-internet
for tool in jq curl nginx; do
  command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null || {
    echo "$tool is missing: apt-get install -y nginx php-fpm openssl curl jq" >&2
    exit 1
  }
done
cargo build --release --locked -p collector >/dev/null 2>&1
collector=$target/release/collector

# The standard profile's internet parameters.
params=$("$collector" profile standard | head -n 1)
samples=$(jq .internet_samples <<<"$params")
transfer_mib=$(jq .internet_transfer_mib <<<"$params")
request_mib=$(jq .internet_max_request_mib <<<"$params")
requests=$((transfer_mib / request_mib))
[ $((requests * request_mib)) -eq "$transfer_mib" ] || { echo "payload is not a whole number of requests" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
rm -rf "$dir"
mkdir -p "$dir"
scripts/librespeed-server.sh start "$dir/server" "$(free_port)" "$(free_port)" >"$dir/urls"
trap 'scripts/librespeed-server.sh stop "$dir/server"' EXIT
if [ "$scheme" = https ]; then url=$(sed -n 2p "$dir/urls" | cut -d' ' -f1); else url=$(sed -n 1p "$dir/urls"); fi
ca=$dir/server/ca.crt
head -c $((request_mib * 1048576)) /dev/urandom >"$dir/body.bin"

declare -a c_down c_up k_down k_up
collector_round() {
  "$collector" run --profile standard --stages internet --provider bench --runner bench \
    --internet-url "$url" --internet-ca-cert "$ca" --out "$dir/collector.json" 2>/dev/null
  for way in download upload; do
    mapfile -t mbps < <(jq ".stages.internet.${way}[] | select(.status==\"ok\") | .bytes * 8 / 1e6 / .seconds * 100 | round / 100" \
      "$dir/collector.json")
    [ "${#mbps[@]}" -eq "$samples" ] || { echo "collector $way: not every sample completed" >&2; exit 1; }
    if [ $way = download ]; then c_down+=("${mbps[@]}"); else c_up+=("${mbps[@]}"); fi
  done
}
# One curl process per sample: its URLs share one connection, in order.
curl_sample() { # download|upload
  local args=(-s --http1.1 --cacert "$ca" -H 'Accept-Encoding: identity')
  local script=garbage.php query="&ckSize=$request_mib"
  if [ "$1" = upload ]; then
    args+=(-H 'Expect:' -H 'Content-Type: application/octet-stream' --data-binary "@$dir/body.bin")
    script=empty.php query=""
  fi
  for i in $(seq "$requests"); do args+=(-o /dev/null "$url$script?r=$RANDOM$RANDOM$i$query"); done
  curl "${args[@]}" -w '%{time_total} %{size_download} %{size_upload} %{num_connects} %{http_code}\n' |
    awk -v want="$requests" -v bytes=$((transfer_mib * 1048576)) '
      { t += $1; moved += $2 + $3; connects += $4; if ($5 != 200) bad = 1; n++ }
      END {
        if (bad || n != want || moved != bytes || connects != 1) { print "curl sample failed" > "/dev/stderr"; exit 1 }
        printf "%.2f\n", moved * 8 / 1e6 / t
      }'
}
curl_round() {
  for _ in $(seq "$samples"); do k_down+=("$(curl_sample download)"); done
  for _ in $(seq "$samples"); do k_up+=("$(curl_sample upload)"); done
}

load_before=$(cut -d' ' -f1 /proc/loadavg)
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then order="collector curl"; else order="curl collector"; fi
  for tool in $order; do
    echo "round $round: $tool" >&2
    "${tool}_round"
  done
done

load_after=$(cut -d' ' -f1 /proc/loadavg)
# label, then the collector's samples and curl's, separated by "--": the
# medians, their ratio, and curl's own spread: the interquartile range of
# its samples over their median, and the range of its per-round medians
# over their median (how far curl moves from one round to the next).
row() {
  python3 - "$@" <<'PY'
import statistics as st, sys
label, args = sys.argv[1], sys.argv[2:]
cut = args.index("--")
c, k = [float(x) for x in args[:cut]], [float(x) for x in args[cut + 1:]]
per = len(k) // int(__import__("os").environ["ROUNDS"])
rounds = [st.median(k[i:i + per]) for i in range(0, len(k), per)]
q = st.quantiles(k, n=4)
m = st.median(k)
print("| %s | %.0f | %.0f | %.3f | %.1f%% | %.3f-%.3f |" % (
    label, st.median(c), m, st.median(c) / m, (q[2] - q[0]) / m * 100, min(rounds) / m, max(rounds) / m))
PY
}
rows=$(
  export ROUNDS=$rounds
  row Download "${c_down[@]}" -- "${k_down[@]}"
  row Upload "${c_up[@]}" -- "${k_up[@]}"
)
command="bash scripts/bench-internet.sh $rounds $scheme"
table="| Direction | Collector Mbps (median) | curl Mbps (median) | Ratio | curl IQR ÷ median | curl round medians ÷ median |
| --- | ---: | ---: | ---: | ---: | ---: |
$rows"
echo "$table"
echo "collector download: ${c_down[*]}"
echo "curl download:      ${k_down[*]}"
echo "collector upload:   ${c_up[*]}"
echo "curl upload:        ${k_up[*]}"

# shellcheck source=scripts/lib/docs-section.sh
source scripts/lib/docs-section.sh
{
  echo "\`$command\`, $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD); $(nproc) CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)), $(curl --version | head -n 1 | cut -d' ' -f1-2);"
  echo "$samples samples of $transfer_mib MiB per direction and tool in each round, $requests requests of $request_mib MiB per sample on one"
  echo "connection; medians over all samples; load average $load_before before, $load_after after."
  echo
  echo "$table"
} | docs_replace_section docs/benchmarks.md "bench-internet-$scheme"
