#!/usr/bin/env bash
# The http-cache stage against oha, on the same nginx WebDAV server on
# loopback (the setup Gradle documents for its HTTP build cache), cell by
# cell of the standard profile's grid (RBCS's: 128, 512, 4096 and 65536
# bytes × 10 and 100 connections, 1000 requests each).
#
# Per round: the collector's whole grid (A), oha's whole grid (B) twice,
# then the collector's again (A): A, B, B, A. The collector PUTs 1000
# unique entries of a cell over C keep-alive connections and GETs them all
# back (checking each body); oha PUTs 1000 bodies of the same size to random
# keys (--rand-regex-url) and GETs 1000 times a random one of 1000 stored
# entries of that size (with repeats), over the same C connections. requests/s is requests ÷ seconds of the phase for both.
#
# Per cell and phase the table gives the median of the collector's runs
# over the median of oha's, and oha's own spread (max ÷ min of its runs,
# and the range of each oha run ÷ the next). Target (issue 15): ratio ≥ 0.95
# in every cell.
#
# Then the whole standard grid once more against turborepo-remote-cache
# (tests/http-cache, npm), started on loopback with local storage, through
# the Turborepo API with a bearer token.
#
# Usage: bash scripts/bench-http-cache.sh [DIR] [ROUNDS]
#   DIR     work folder (default: target/bench-http-cache)
#   ROUNDS  A, B, B, A rounds (default: 2)
# Environment: CARGO_TARGET_DIR (where the collector is built), PORT
# (default 18491).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/bench-http-cache}
rounds=${2:-2}
port=${PORT:-18491}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
command -v oha >/dev/null || cargo install oha --locked
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
if ! build=$(cargo build --release --locked -p collector 2>&1); then echo "$build" >&2; exit 1; fi
collector=${CARGO_TARGET_DIR:-target}/release/collector
sizes=(128 512 4096 65536)
conns=(10 100)
n=1000

# nginx with WebDAV PUT, as tests/http-cache/server.rs starts it.
rm -rf "$dir/nginx"
mkdir -p "$dir/nginx/root/cache"
user=""
[ "$(id -u)" = 0 ] && user="user root;"
cat >"$dir/nginx/nginx.conf" <<CONF
$user
worker_processes 1;
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
        root $dir/nginx/root;
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
trap 'kill "$(cat "$dir/nginx/nginx.pid")" 2>/dev/null || true' EXIT
base=http://127.0.0.1:$port/cache
version=$("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///')

# One line per cell and phase: "<size> <conns> <put|get> <requests/s>".
collector_run() {
  rm -rf "$dir/nginx/root/cache" && mkdir -p "$dir/nginx/root/cache"
  "$collector" run --profile standard --stages http-cache --provider bench --runner bench \
    --http-cache-url "$base/" --http-cache-protocol gradle --http-cache-software "nginx $version" \
    --http-cache-backend filesystem --out "$dir/collector.json" 2>/dev/null || true
  jq -r '.stages.http_cache.runs[] | "\(.value_bytes) \(.connections) put \((.put.succeeded + .put.failed) / .put.seconds)",
         "\(.value_bytes) \(.connections) get \((.get.succeeded + .get.failed) / .get.seconds)"' "$dir/collector.json"
}
oha_run() {
  rm -rf "$dir/nginx/root/cache" && mkdir -p "$dir/nginx/root/cache"
  for size in "${sizes[@]}"; do
    head -c "$size" /dev/urandom >"$dir/body-$size"
    # 1000 stored entries of this size (000 to 999) for oha's GETs, so that
    # oha too reads many files, not one: written straight into nginx's root.
    mkdir -p "$dir/nginx/root/cache/get-$size"
    head -c $((size * n)) /dev/urandom | split -b "$size" -d -a 3 - "$dir/nginx/root/cache/get-$size/"
    for c in "${conns[@]}"; do
      for phase in put get; do
        if [ "$phase" = put ]; then
          json=$(oha -n "$n" -c "$c" -m PUT -D "$dir/body-$size" --no-tui --output-format json \
            --rand-regex-url "$base/oha-$size-$c/[a-f0-9]{40}")
        else
          json=$(oha -n "$n" -c "$c" --no-tui --output-format json --rand-regex-url "$base/get-$size/[0-9]{3}")
        fi
        # Every request must have succeeded, or the figure is not comparable.
        bad=$(jq '[.statusCodeDistribution | to_entries[] | select(.key | test("^2") | not) | .value] | add // 0' <<<"$json")
        [ "$bad" = 0 ] || { echo "oha $phase $size B × $c: $bad requests failed" >&2; exit 1; }
        echo "$size $c $phase $(jq '.summary.requestsPerSec' <<<"$json")"
      done
    done
  done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$dir/runs.txt"
for round in $(seq 1 "$rounds"); do
  for tool in collector oha oha collector; do
    echo "round $round: $tool" >&2
    "${tool}_run" | sed "s/^/$tool $round /" >>"$dir/runs.txt"
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# Per cell and phase: medians, the ratio, oha's max ÷ min over its runs.
table=$(
  echo "| Size B | Connections | Phase | collector req/s | oha req/s | collector ÷ oha | oha max ÷ min | runs each | ≥ 0.95 |"
  echo "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |"
  awk '
    function sort(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    }
    function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { key = $3 " " $4 " " $5; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
      if ($1 == "collector") c[key, ++nc[key]] = $6; else o[key, ++no[key]] = $6 }
    END {
      for (i = 1; i <= k; i++) {
        key = order[i]; split(key, f, " ")
        delete a; for (j = 1; j <= nc[key]; j++) a[j] = c[key, j]; cm = median(a, nc[key])
        delete a; for (j = 1; j <= no[key]; j++) a[j] = o[key, j]; om = median(a, no[key])
        lo = a[1]; hi = a[no[key]]
        printf "| %s | %s | %s | %.0f | %.0f | %.3f | %.3f | %d | %s |\n", f[1], f[2], toupper(f[3]), cm, om, cm / om, hi / lo, nc[key], (cm / om >= 0.95 ? "yes" : "**no**")
      }
    }' "$dir/runs.txt"
)
echo "$table"
echo "load average before: $load_before; after: $load_after; $(nproc) CPUs; nginx $version; $(oha --version)"

# The standard grid against turborepo-remote-cache.
turbo=tests/http-cache/node_modules/turborepo-remote-cache/dist/cli.js
[ -f "$turbo" ] || npm ci --prefix tests/http-cache --no-audit --no-fund --loglevel=error >/dev/null
tport=$((port + 1))
rm -rf "$dir/turbo" && mkdir -p "$dir/turbo"
export BENCH_TURBO_TOKEN=bench-token
HOST=127.0.0.1 PORT=$tport STORAGE_PROVIDER=local STORAGE_PATH="$dir/turbo" STORAGE_PATH_USE_TMP_FOLDER=false \
  TURBO_TOKEN=$BENCH_TURBO_TOKEN LOG_LEVEL=warn node "$turbo" >"$dir/turbo.log" 2>&1 &
turbo_pid=$!
trap 'kill "$(cat "$dir/nginx/nginx.pid")" "$turbo_pid" 2>/dev/null || true' EXIT
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
