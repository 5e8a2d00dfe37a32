#!/usr/bin/env bash
# Benchmark of the cache stage's archive-service transfers against the plain
# pipeline they replace: `tar | zstd -T1` plus curl, to the same Azurite
# behind the same cache service double (tests/cache-service), both pinned to
# the same one CPU, alternating. Azurite and the double run on the other
# CPUs. The collector must reach at least 0.95 of the pipeline's MiB/s.
# Both restore the same entries (the collector's saves), since Azurite serves
# a blob committed from blocks more slowly than one written by one Put Blob.
# Both upload the same way too, as the toolkit does: an archive of up to
# 128 MiB in one Put Blob; a larger one in 64 MiB blocks, 8 Put Block
# requests in flight (curl --parallel, one thread, as the collector's are),
# then Put Block List. curl cannot send part of a file, so the pipeline
# first splits the archive into block files: that copy, its write-back and
# the files' removal are not timed (work the collector does not do).
#
#   scripts/bench-cache.sh [standard|quick] [rounds]
#
# Use an even number of rounds (default 10), so that each side goes first
# as often as the other: the first read of an entry from Azurite can be
# slower than the second.
#
# SPLIT=1 also splits every timed step into its parts and prints their
# medians per side: a save into making the archive and the calls with the
# upload, a restore into the lookup, the download and the extraction. The
# pipeline's parts are timed between its commands; the collector's from
# the system calls that start each part (the archive's creation, the
# first connection after it, the archive opened for reading, its removal),
# which the collector is run under `strace -f --seccomp-bpf` to see, so
# that only those calls stop it (needs strace).
#
# Needs node with `npm ci --prefix tests/cache-service`, taskset, curl, tar,
# zstd, python3, strace 5.3 or later for SPLIT=1, curl 7.66 or later
# (--parallel); builds the collector in release from this checkout first.
# Runs only on loopback. Figures go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-standard}
rounds=${2:-10}
target=${CARGO_TARGET_DIR:-target}
bin=$target/release/collector
# Always built: a binary left from another commit would be measured
# under this one's name (cargo only rebuilds what changed).
cargo build -q --release -p collector --locked
modules=tests/cache-service/node_modules
[ -d "$modules/azurite" ] || { echo "run: npm ci --prefix tests/cache-service" >&2; exit 1; }

[ $((rounds % 2)) = 0 ] || { echo "use an even number of rounds, so that each side goes first equally often" >&2; exit 2; }

ncpu=$(nproc)
cpu=$((ncpu - 1))                       # the measured CPU
others=$([ "$ncpu" -gt 1 ] && echo "0-$((cpu - 1))" || echo 0)
work=$(mktemp -d)
shm=""
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
  [ -z "$shm" ] || rm -f "$shm"
}
trap cleanup EXIT

# On a VM whose memory the host backs lazily, the first write to a page of
# guest memory costs a host fault: on the 2-CPU VM of docs/benchmarks.md,
# writing 20 GB to tmpfs ran at 522 MB/s the first time and 1.1 GB/s the
# second. A run grows the page cache by several GiB, so whichever side
# wrote into untouched memory paid for it. Touch three quarters of the
# available memory once (written to tmpfs, then freed) before measuring
# anything, or as much as /dev/shm holds. It briefly takes that memory from
# anything else running.
touch_mib=$(awk '/MemAvailable/ {print int($2 / 1024 * 3 / 4)}' /proc/meminfo)
shm_mib=$(df -m --output=avail /dev/shm | tail -1)
[ "$shm_mib" -lt "$touch_mib" ] && touch_mib=$shm_mib
shm=$(mktemp -p /dev/shm runner-bench-touch.XXXXXX)
dd if=/dev/zero of="$shm" bs=1M count="$touch_mib" status=none 2>/dev/null || true
echo "touched $(( $(stat -c %s "$shm") >> 20 )) MiB of memory" >&2
rm -f "$shm"
shm=""

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
blob_port=$(port)
mkdir -p "$work/azurite" "$work/ws" "$work/scratch" "$work/parts"
# Azurite keeps blobs in $work; AZURITE_STORE=memory keeps them in memory
# instead (about (2 × rounds + 1) × the payload), to take this VM's disk,
# which varies by ±20 % against itself, out of the store. Neither settled
# the ratio on this VM (docs/benchmarks.md).
store=(--location "$work/azurite")
[ "${AZURITE_STORE:-disk}" = memory ] && store=(--inMemoryPersistence)
taskset -c "$others" node "$modules/azurite/dist/src/blob/main.js" --blobHost 127.0.0.1 --blobPort "$blob_port" \
  "${store[@]}" --skipApiVersionCheck --loose --silent >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$blob_port") 2>/dev/null && break; sleep 0.1; done
AZURITE_BLOB_URL=http://127.0.0.1:$blob_port/devstoreaccount1 CACHE_TOKEN=bench \
  taskset -c "$others" node tests/cache-service/server.mjs >"$work/double.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/double.out" 2>/dev/null && break; sleep 0.1; done
export URL="http://127.0.0.1:$(awk '{print $2}' "$work/double.out")"
export ACTIONS_RESULTS_URL=$URL/ ACTIONS_RUNTIME_TOKEN=bench
unset GITHUB_ACTIONS
level=$("$bin" profile "$profile" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["cache_zstd_level"])')
version=$(printf '%s' "runner-bench-cache-payload|zstd-without-long|1.0" | sha256sum | cut -d' ' -f1)
export WS=$work/ws SCR=$work/scratch level version

# The baseline: the same calls, made by curl, around tar | zstd -T1.
baseline() { # save|restore KEY -> seconds
  settle
  taskset -c "$cpu" bash -c '
    set -euo pipefail
    kind=$1
    twirp() { curl -sS -f -X POST -H "Content-Type: application/json" -H "Authorization: Bearer bench" \
      --data "$2" "$URL/twirp/github.actions.results.api.v1.CacheService/$1"; }
    field() { sed -E "s/.*\"$1\":\"([^\"]*)\".*/\1/"; }
    # The restore target starts empty, outside the timed section, as the
    # collector empties its own before its timer starts.
    [ "$1" = save ] || mkdir "$SCR/restore"
    # A save archives a payload written just before it, untimed, as the
    # collector writes its payload (and syncs each file) before its timed
    # save: on a VM that hands freed memory back to the host (virtio-balloon
    # free page reporting), pages written just before are backed again, and
    # an archive written into pages the host took back costs a host fault
    # per page (docs/benchmarks.md). Without it only the collector paid that.
    if [ "$1" = save ]; then
      mkdir "$SCR/ws"
      cp -r "$WS/runner-bench-cache-payload" "$SCR/ws/"
      sync
    fi
    t0=$(date +%s.%N)
    # SPLIT=1: the seconds of each part, since the part before it ended.
    last=$t0
    untimed=0
    part() {
      [ -n "${SPLIT_OUT:-}" ] || return 0
      local now
      now=$(date +%s.%N)
      awk -v n="$now" -v l="$last" -v k="$kind" -v p="$1" "BEGIN { printf \"pipeline %s %s %.3f\n\", k, p, n - l }" >>"$SPLIT_OUT"
      last=$now
    }
    if [ "$1" = save ]; then
      tar -cf - -C "$SCR/ws" runner-bench-cache-payload | zstd -q -T1 -"$level" -f -o "$SCR/cache.tzst"
      part archive
      size=$(stat -c %s "$SCR/cache.tzst")
      url=$(twirp CreateCacheEntry "{\"key\":\"$2\",\"version\":\"$version\"}" | field signed_upload_url)
      if [ "$size" -le $((128 << 20)) ]; then
        curl -sS -f -o /dev/null -X PUT -H "x-ms-blob-type: BlockBlob" -H "Content-Type: application/octet-stream" \
          -T "$SCR/cache.tzst" "$url"
      else
        # The split into block files, untimed: its seconds are taken off.
        # Their pages are written back in that window too (sync of those
        # files only), so that the copy adds no writeback to the timed
        # part; they are removed after the clock stops.
        paused=$(date +%s.%N)
        split -b 64M -d -a 4 "$SCR/cache.tzst" "$SCR/block."
        sync "$SCR"/block.*
        now=$(date +%s.%N)
        untimed=$(awk -v n="$now" -v p="$paused" "BEGIN { print n - p }")
        last=$(awk -v l="$last" -v n="$now" -v p="$paused" "BEGIN { printf \"%.9f\", l + n - p }")
        # Block ids: the index as 48 digits in base64, 64 characters each.
        args=() ids=()
        for f in "$SCR"/block.*; do
          id=$(printf "%048d" "$((10#${f##*.}))" | base64 -w0)
          ids+=("$id")
          args+=(-o /dev/null -T "$f" "$url&comp=block&blockid=$id")
        done
        curl -sS --no-progress-meter -f --parallel --parallel-max 8 "${args[@]}"
        list="<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>"
        for id in "${ids[@]}"; do list+="<Latest>$id</Latest>"; done
        curl -sS -f -o /dev/null -X PUT -H "Content-Type: application/xml" --data-binary "$list</BlockList>" \
          "$url&comp=blocklist"
      fi
      twirp FinalizeCacheEntryUpload "{\"key\":\"$2\",\"version\":\"$version\",\"size_bytes\":\"$size\"}" >/dev/null
      part upload
    else
      url=$(twirp GetCacheEntryDownloadURL "{\"key\":\"$2\",\"version\":\"$version\"}" | field signed_download_url)
      part lookup
      curl -sS -f -o "$SCR/cache.tzst" "$url"
      part download
      zstd -q -d -T1 -c "$SCR/cache.tzst" | tar -xf - -C "$SCR/restore"
      part extraction
    fi
    # The archive is removed inside the timed section, as @actions/cache
    # (and the collector) remove theirs.
    rm -f "$SCR/cache.tzst"
    t1=$(date +%s.%N)
    rm -rf "$SCR/ws"   # as the collector removes its workspace when it exits
    rm -f "$SCR"/block.*   # the copy made for curl, which the collector never makes
    echo "$t0 $t1 $untimed" | awk "{print \$2 - \$1 - \$3}"
  ' _ "$@"
}

results=$work/results.txt
# Before every timed step, write back what earlier steps left dirty in the
# page cache (untimed). Without it, each step's 1 GiB of writes (archive
# plus Azurite's copy) stays dirty below the kernel's background threshold
# and is flushed during a later step, which made times drift 2-3x within
# one run. The pause after it is the same for both sides: one second.
settle() { sync; sleep 1; }
# SPLIT=1: the collector under strace, and its parts from the calls seen.
traced=()
if [ "${SPLIT:-}" = 1 ]; then
  command -v strace >/dev/null || { echo "SPLIT=1 needs strace: apt-get install -y strace" >&2; exit 2; }
  export SPLIT_OUT=$work/split.txt
  traced=(strace -f --seccomp-bpf -e trace=openat,unlink,unlinkat,connect -ttt -o "$work/strace.txt")
fi
split_collector() { # save|restore
  [ "${SPLIT:-}" = 1 ] || return 0
  python3 - "$1" "$work/strace.txt" >>"$SPLIT_OUT" <<'PY'
import re, sys
kind, lines = sys.argv[1], open(sys.argv[2]).read().splitlines()
def times(pattern):
    return [float(l.split()[1]) for l in lines if re.search(pattern, l)]
written = times(r'cache\.tzst", O_WRONLY|cache\.tzst", O_RDWR')[0]
removed = times(r'unlink.*cache\.tzst')[0]
if kind == "save":
    upload = [t for t in times(r'connect\(') if t > written][0]
    parts = [("archive", upload - written), ("upload", removed - upload)]
else:
    lookup = times(r'connect\(')[0]
    read = times(r'cache\.tzst", O_RDONLY')[0]
    parts = [("lookup", written - lookup), ("download", read - written), ("extraction", removed - read)]
for name, s in parts:
    print(f"collector {kind} {name} {s:.3f}")
PY
}
save_collector() { # round trial
  settle
  "${traced[@]}" "$bin" cache save --profile "$profile" --trial "$2" --provider bench --runner bench-local --cpu "$cpu" \
    --work-dir "$work" --handoff "$work/parts/handoff-$1.json" --out "$work/parts/save-$1.json" \
    --backend "id=azurite;name=Azurite;kind=archive-service;routing=127.0.0.1" 2>/dev/null
  [ "$1" = warmup ] || split_collector save
}
# Warm-up (not counted): a collector save whose archive, unpacked once,
# gives the baseline the same payload bytes.
save_collector warmup 1
key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pairs"][0]["key"])' "$work/parts/handoff-warmup.json")
curl -sS -f "$URL/_control/blob?key=$key" | zstd -q -d | tar -xf - -C "$WS"
rm -f "$work/parts/"*-warmup.json
for r in $(seq "$rounds"); do
  trial=$(( (r - 1) % 3 + 1 ))
  if [ $((r % 2)) = 1 ]; then save_collector "$r" "$trial"; fi
  s=$(baseline save "baseline-$r")
  echo "baseline save $s" >>"$results"
  if [ $((r % 2)) = 0 ]; then save_collector "$r" "$trial"; fi
done
# The collector's restore waits out the publication gap (untimed) when it
# comes early: up to two minutes of idle machine right before its timed
# transfer, which the pipeline never had (its restores ran slower after
# it). Wait the gap of the newest save here, so that every restore of
# either side follows the same one-second settle.
gap_s=$("$bin" profile "$profile" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["cache_publication_gap_s"])')
python3 - "$gap_s" "$work"/parts/handoff-*.json <<'PY'
import json, sys, time, datetime
gap = float(sys.argv[1])
def parse(t):  # RFC 3339 with up to 9 fractional digits; fromisoformat takes 6
    t = t.replace("Z", "+00:00")
    if "." in t:
        head, rest = t.split(".", 1)
        digits = rest[: len(rest) - 6]
        t = f"{head}.{digits[:6].ljust(6, '0')}{rest[-6:]}"
    return datetime.datetime.fromisoformat(t)
newest = max(parse(json.load(open(f))["saved_at"]) for f in sys.argv[2:])
left = newest.timestamp() + gap + 1 - time.time()
if left > 0:
    print(f"waiting {left:.0f} s for the publication gap of the last save", file=sys.stderr)
    time.sleep(left)
PY
for r in $(seq "$rounds"); do
  run_restore() {
    settle
    "${traced[@]}" "$bin" cache restore --handoff "$work/parts/handoff-$r.json" --out "$work/parts/restore-$r.json" \
      --cpu "$cpu" --work-dir "$work" --simulate-instance bench 2>/dev/null
    split_collector restore
  }
  if [ $((r % 2)) = 1 ]; then run_restore; fi
  # The pipeline restores the collector's entry of the same round: Azurite
  # stores a blob committed from blocks differently from one Put Blob, and
  # serves it more slowly, so both sides must read the same blob.
  key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pairs"][0]["key"])' "$work/parts/handoff-$r.json")
  s=$(baseline restore "$key")
  echo "baseline restore $s" >>"$results"
  diff -rq "$WS/runner-bench-cache-payload" "$SCR/restore/runner-bench-cache-payload" >/dev/null
  rm -rf "$SCR/restore"   # as the collector removes its target after verifying it
  if [ $((r % 2)) = 0 ]; then run_restore; fi
done

python3 - "$work" "$results" <<'PY'
import json, statistics, sys, glob
work, results = sys.argv[1], sys.argv[2]
mib = None
col = {"save": [], "restore": []}
def round_of(path):  # parts/save-10.json -> 10: by name, round 10 would come after 1
    return int(path.rsplit("-", 1)[1].split(".")[0])
for kind in col:
    for f in sorted(glob.glob(f"{work}/parts/{kind}-*.json"), key=round_of):
        r = json.load(open(f))
        st = r["stages"]["cache"]
        mib = st["payload_bytes"] / 2**20
        for p in st["pairs"]:
            t = p[kind] if kind == "save" else p.get("restore")
            assert t and t["status"] == "ok", (f, t)
            if kind == "restore":
                v = p["verification"]
                assert v["key_match"] == "exact" and v["sha256"] == "match", v
            col[kind].append(t["seconds"])
base = {"save": [], "restore": []}
for line in open(results):
    _, kind, s = line.split()
    base[kind].append(float(s))
print(f"payload {mib:.0f} MiB, {len(col['save'])} rounds")
ok = True
for kind in ("save", "restore"):
    c = mib / statistics.median(col[kind]); b = mib / statistics.median(base[kind])
    ratio = c / b
    ok &= ratio >= 0.95
    print(f"{kind:8s} collector {c:8.1f} MiB/s (median of {[round(x, 3) for x in col[kind]]} s)   "
          f"tar|zstd -T1 + curl {b:8.1f} MiB/s (median of {[round(x, 3) for x in base[kind]]} s)   ratio {ratio:.3f}")
print("PASS: at least 0.95 of the pipeline" if ok else "FAIL: below 0.95 of the pipeline")
split = f"{work}/split.txt"
try:
    rows = [line.split() for line in open(split)]
except FileNotFoundError:
    rows = []
parts = {}
for side, kind, name, s in rows:
    parts.setdefault((kind, name), {}).setdefault(side, []).append(float(s))
for (kind, name), sides in parts.items():
    c, b = sides.get("collector", []), sides.get("pipeline", [])
    line = f"split: {kind:7s} {name:10s} collector median {statistics.median(c):.3f} s {[round(x, 3) for x in c]}"
    line += f"   pipeline median {statistics.median(b):.3f} s {[round(x, 3) for x in b]}"
    print(line)
sys.exit(0 if ok else 1)
PY
