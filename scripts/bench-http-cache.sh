#!/usr/bin/env bash
# The http-cache stage against oha, on the same nginx WebDAV server on
# loopback (the setup Gradle documents for its HTTP build cache), cell by
# cell of the standard profile's grid (RBCS's: 128, 512, 4096 and 65536
# bytes × 10 and 100 connections), with more entries per phase than the
# profile's 1000 (ENTRIES, default 100000; 16384 of 64 KiB, to stay under
# 1 GiB of entries): phases of 1000 requests lasted 15-300 ms here, so that
# one stall of the server moved a cell severalfold.
# The collector is given the count with --http-cache-entries and one cell
# at a time with --http-cache-value-bytes and --http-cache-connections (its
# result is then no profile's, which a benchmark does not need).
#
# Per round and cell: the collector (A), oha twice (B), the collector again
# (A): A, B, B, A, cell after cell, so that each comparison is seconds
# apart. The collector PUTs ENTRIES unique entries of the cell's size over
# C keep-alive connections and GETs them all back (checking each body); oha
# PUTs ENTRIES bodies of the same size to random 64-digit keys
# (--rand-regex-url) and GETs ENTRIES times a random one of ENTRIES stored
# entries of that size (--urls-from-file, with repeats), over the same C
# connections: the server stores and serves as many files, named as long, to
# both. requests/s is requests ÷
# seconds of the phase for both.
#
# Per cell and phase the table gives the median of the collector's runs
# over the median of oha's, oha's own spread (max ÷ min of its runs), and
# the 1-minute load average before the cell's first run and after its
# last. Target (issue 15): ratio ≥ 0.95 in every cell.
#
# Then the whole standard grid once more against turborepo-remote-cache
# (tests/http-cache, npm), started on loopback with local storage, through
# the Turborepo API with a bearer token, with the standard profile's count.
#
# Usage: bash scripts/bench-http-cache.sh [DIR] [ROUNDS]
#   DIR     work folder (default: target/bench-http-cache)
#   ROUNDS  A, B, B, A rounds (default: 3)
# PIN=1 (with 2 or more CPUs) pins nginx's one worker to CPU 0 and every
# client run (the collector and oha alike) to the other CPUs; both clients
# size their threads by the CPUs they may run on (the collector one runtime
# per logical CPU, oha tokio's default), so pinned they get the same CPUs.
# Unpinned (the default) the client and nginx share every CPU, as they do
# when a runner's build talks to a cache server on the same machine. On the
# 2-vCPU development VM, pinned, the client has one CPU to itself and is
# what limits the 64 KiB cells: the collector, which compares every GET's
# body with the entry it stored (oha only counts the bytes), reached 0.86 to
# 0.92 of oha's GETs there (PUT 0.72 to 0.82, in a run whose first round's
# collector PUTs were at half the second's), and 0.96 to 1.17 in the smaller
# cells (docs/benchmarks.md).
#
# Environment: CARGO_TARGET_DIR (where the collector is built), PIN, PORT
# (default 18491), ENTRIES (requests per phase, default 100000), NGINX_ROOT
# (nginx's files; default a folder on /dev/shm). On tmpfs nginx's files
# take memory: oha's stored entries of every size (1.5 GB at the default)
# and one run's entries (at most 1 GiB), besides the collector's 1 GiB.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/bench-http-cache}
rounds=${2:-3}
port=${PORT:-18491}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
command -v oha >/dev/null || cargo install oha --locked
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
if ! build=$(cargo build --release --locked -p collector 2>&1); then echo "$build" >&2; exit 1; fi
collector=${CARGO_TARGET_DIR:-target}/release/collector
sizes=(128 512 4096 65536)
conns=(10 100)
n=${ENTRIES:-100000}
cpus=$(nproc)
pin=${PIN:-0}
if [ "$pin" = 1 ] && [ "$cpus" -ge 2 ]; then
  affinity="worker_cpu_affinity 1;"
  client=(taskset -c "1-$((cpus - 1))")
  pinned="nginx on CPU 0, clients on CPUs 1-$((cpus - 1))"
else
  affinity=""
  client=()
  pinned="not pinned"
fi

# nginx with WebDAV PUT, as tests/http-cache/server.rs starts it.
# nginx's files on tmpfs (/dev/shm) where there is one, so that the PUT
# phases time the HTTP path rather than the disk's writeback, which on a
# shared VM stalled phases for seconds (NGINX_ROOT to choose another folder:
# a folder of the script's own, emptied and then removed at the end).
root=${NGINX_ROOT:-}
if [ -z "$root" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then root=/dev/shm/runner-bench-http-cache-$port; else root=$dir/nginx/root; fi
fi
rm -rf "$dir/nginx" "$root"
mkdir -p "$dir/nginx" "$root/cache"
user=""
[ "$(id -u)" = 0 ] && user="user root;"
cat >"$dir/nginx/nginx.conf" <<CONF
$user
worker_processes 1;
$affinity
daemon on;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/nginx/client-body;
    proxy_temp_path $dir/nginx/proxy;
    fastcgi_temp_path $dir/nginx/fastcgi;
    uwsgi_temp_path $dir/nginx/uwsgi;
    scgi_temp_path $dir/nginx/scgi;
    client_max_body_size 0;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$port;
        root $root;
        location /cache/ {
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }
    }
}
CONF
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
"$nginx_bin" -c "$dir/nginx/nginx.conf" -p "$dir/nginx"
trap 'kill "$(cat "$dir/nginx/nginx.pid")" 2>/dev/null || true; rm -rf "$root"' EXIT
base=http://127.0.0.1:$port/cache
version=$("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///')

# One line per phase of the cell "<size> <conns>": "<size> <conns> <put|get> <requests/s>".
collector_run() {
  local size=$1 c=$2
  rm -rf "$root/cache" "$dir/collector.json" && mkdir -p "$root/cache"
  "${client[@]}" "$collector" run --profile standard --stages http-cache --provider bench --runner bench \
    --http-cache-url "$base/" --http-cache-protocol gradle --http-cache-software "nginx $version" \
    --http-cache-backend "filesystem ($(df --output=fstype "$root" | tail -1))" --http-cache-entries "$(count "$size")" --http-cache-value-bytes "$size" \
    --http-cache-connections "$c" --out "$dir/collector.json" 2>"$dir/collector.log" || true
  # Every request must have succeeded, or the figure is not comparable.
  jq -e '.stages.http_cache.runs[] | select(.put.status != "ok" or .get.status != "ok" or .put.failed > 0 or .get.failed > 0)' \
    "$dir/collector.json" >&2 && { echo "collector $size B × $c: a phase failed (above)" >&2; exit 1; }
  jq -r '.stages.http_cache.runs[] | "\(.value_bytes) \(.connections) put \((.put.succeeded + .put.failed) / .put.seconds)",
         "\(.value_bytes) \(.connections) get \((.get.succeeded + .get.failed) / .get.seconds)"' "$dir/collector.json"
}
# The requests of a phase for entries of SIZE bytes: ENTRIES, or fewer for
# large entries, so that a cell's entries stay under 1 GiB (the collector
# holds them all in memory to check each GET): 16384 of 64 KiB.
count() { local cap=$(((1 << 30) / $1)); echo $((n < cap ? n : cap)); }
# oha's stored entries for its GETs: as many files of each size as the
# collector stores, named by 64 digits as the collector's are by 64 hex
# digits, written straight into nginx's root outside the cache folder that
# each run empties; oha picks among their URLs (--urls-from-file).
for size in "${sizes[@]}"; do
  head -c "$size" /dev/urandom >"$dir/body-$size"
  mkdir -p "$root/oha/get-$size"
  head -c $((size * $(count "$size"))) /dev/urandom | split -b "$size" -d -a 64 - "$root/oha/get-$size/"
  ls "$root/oha/get-$size" | sed "s|^|http://127.0.0.1:$port/oha/get-$size/|" >"$dir/urls-$size"
done
oha_run() {
  local size=$1 c=$2 k
  k=$(count "$size")
  rm -rf "$root/cache" && mkdir -p "$root/cache"
  for phase in put get; do
    if [ "$phase" = put ]; then
      json=$("${client[@]}" oha -n "$k" -c "$c" -m PUT -D "$dir/body-$size" --no-tui --output-format json \
        --rand-regex-url "$base/oha-$size-$c/[a-f0-9]{64}")
    else
      json=$("${client[@]}" oha -n "$k" -c "$c" --no-tui --output-format json --urls-from-file "$dir/urls-$size")
    fi
    bad=$(jq '[.statusCodeDistribution | to_entries[] | select(.key | test("^2") | not) | .value] | add // 0' <<<"$json")
    [ "$bad" = 0 ] || { echo "oha $phase $size B × $c: $bad requests failed" >&2; exit 1; }
    echo "$size $c $phase $(jq '.summary.requestsPerSec' <<<"$json")"
  done
}

load() { cut -d' ' -f1 /proc/loadavg; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$dir/runs.txt"
: >"$dir/loads.txt"
for round in $(seq 1 "$rounds"); do
  for size in "${sizes[@]}"; do
    for c in "${conns[@]}"; do
      echo "round $round: $size B × $c" >&2
      echo "$size $c before $(load)" >>"$dir/loads.txt"
      for tool in collector oha oha collector; do
        "${tool}_run" "$size" "$c" | sed "s/^/$tool $round /" >>"$dir/runs.txt"
      done
      echo "$size $c after $(load)" >>"$dir/loads.txt"
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# Per cell and phase: medians, the ratio, oha's max ÷ min over its runs,
# the load before the cell's first run and after its last.
table=$(
  echo "| Size B | Connections | Phase | collector req/s | oha req/s | collector ÷ oha | oha max ÷ min | runs each | load before → after | ≥ 0.95 |"
  echo "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"
  awk '
    function sort(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    }
    function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    FNR == NR { cell = $1 " " $2; if ($3 == "before" && !(cell in first)) first[cell] = $4; if ($3 == "after") last[cell] = $4; next }
    { key = $3 " " $4 " " $5; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
      if ($1 == "collector") c[key, ++nc[key]] = $6; else o[key, ++no[key]] = $6 }
    END {
      for (i = 1; i <= k; i++) {
        key = order[i]; split(key, f, " "); cell = f[1] " " f[2]
        delete a; for (j = 1; j <= nc[key]; j++) a[j] = c[key, j]; cm = median(a, nc[key])
        delete a; for (j = 1; j <= no[key]; j++) a[j] = o[key, j]; om = median(a, no[key])
        lo = a[1]; hi = a[no[key]]
        printf "| %s | %s | %s | %.0f | %.0f | %.3f | %.3f | %d | %s → %s | %s |\n", f[1], f[2], toupper(f[3]), cm, om, cm / om, hi / lo, nc[key], first[cell], last[cell], (cm / om >= 0.95 ? "yes" : "**no**")
      }
    }' "$dir/loads.txt" "$dir/runs.txt"
)
echo "$table"
echo "$n requests per phase ($(count 65536) of 65536 B); nginx's files on $(df --output=fstype "$root" | tail -1) ($root); load average before: $load_before; after: $load_after; $cpus CPUs ($pinned); nginx $version; $(oha --version); collector $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- collector format || echo ' with uncommitted changes')"

# The standard grid against turborepo-remote-cache.
turbo=tests/http-cache/node_modules/turborepo-remote-cache/dist/cli.js
[ -f "$turbo" ] || npm ci --prefix tests/http-cache --no-audit --no-fund --loglevel=error >/dev/null
tport=$((port + 1))
rm -rf "$dir/turbo" && mkdir -p "$dir/turbo"
export BENCH_TURBO_TOKEN=bench-token
HOST=127.0.0.1 PORT=$tport STORAGE_PROVIDER=local STORAGE_PATH="$dir/turbo" STORAGE_PATH_USE_TMP_FOLDER=false \
  TURBO_TOKEN=$BENCH_TURBO_TOKEN LOG_LEVEL=warn node "$turbo" >"$dir/turbo.log" 2>&1 &
turbo_pid=$!
trap 'kill "$(cat "$dir/nginx/nginx.pid")" "$turbo_pid" 2>/dev/null || true; rm -rf "$root"' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$tport/" && break; sleep 0.2; done
turbo_version=$(jq -r .version tests/http-cache/node_modules/turborepo-remote-cache/package.json)
"$collector" run --profile standard --stages http-cache --provider bench --runner bench \
  --http-cache-url "http://127.0.0.1:$tport/" --http-cache-protocol turborepo --http-cache-token-env BENCH_TURBO_TOKEN \
  --http-cache-software "turborepo-remote-cache $turbo_version" --http-cache-backend "local filesystem" \
  --out "$dir/turbo.json" 2>/dev/null || true
echo
echo "turborepo-remote-cache $turbo_version (node $(node --version)), standard grid, load average $(cut -d' ' -f1-3 /proc/loadavg):"
echo "| Size B | Connections | PUT req/s | GET req/s | PUT p99 ms | GET p99 ms | failed (PUT / GET) |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"
jq -r '.stages.http_cache.runs[] | "| \(.value_bytes) | \(.connections) | \((.put.succeeded + .put.failed) / .put.seconds | floor) | \((.get.succeeded + .get.failed) / .get.seconds | floor) | \(.put.latency_p99_ms // null | if . then (. * 10 | round / 10) else "—" end) | \(.get.latency_p99_ms // null | if . then (. * 10 | round / 10) else "—" end) | \(.put.failed) / \(.get.failed) |"' "$dir/turbo.json"
