#!/usr/bin/env bash
# The cache stage's two methods side by side (docs/cache.md): the action
# method (`collector cache prepare`, the real cache action's entry points,
# `collector cache record`) against the client method (`collector cache
# save` and `collector cache restore`), on the same payload, against the
# same Azurite behind the same cache service double (tests/cache-service),
# on loopback, as scripts/bench-cache.sh starts them.
#
#   scripts/bench-cache-method.sh COLLECTOR [quick|standard] [rounds] [overhead-runs]
#
# COLLECTOR: a release build (`CARGO_TARGET_DIR=/work/target-bench cargo
# build --release -p collector --locked` gives /work/target-bench/release/collector).
# Defaults: profile quick (8 MiB in 4 files), 4 rounds, 8 overhead runs.
#
# Each round runs A B B A, A the action method and B the client method:
# first every round's saves, then (after what is left of the profile's
# publication gap) every round's restores in the same order, each job in a
# fresh workspace and state folder; so each method gets 2 × rounds pairs,
# and each goes first as often as last. Printed per method: the median
# save and restore seconds and MiB/s, the spread (min–max and IQR) and,
# per round, the ratio action ÷ client of the round's summed seconds (its
# median over rounds is the figure to quote). Then the action method's own overhead: prepare and
# record around a step that does nothing (`/bin/true`) and around `node -e
# ''`, beside `node -e ''` alone (these with the quick payload, whatever
# the profile); and the load average before and after. KEEP_WORK=1 keeps
# the work folder (jobs' logs, partial results) for a look afterwards.
#
# The action's jobs run as on a runner: each job's steps are started by one
# parent process, a copy of bash named Worker.Bench, and prepare is told
# (RUNNER_BENCH_WORKER_PROCESS) to pin that process, so the pin reaches the
# action's node, tar and zstd and nothing else. prepare writes its outputs
# to the job's GITHUB_OUTPUT and the zstd shim's folder to GITHUB_PATH; the
# stand-in reads both with bash builtins (as the runner does between steps)
# and puts the shim first on the action's PATH. The action is
# tests/cache-service/action.mjs, actions/cache's save and restore over the
# official @actions/cache package; its outputs (its own GITHUB_OUTPUT) go
# to record as the steps context. Both methods run on the last CPU
# (prepare --cpu, save/restore --cpu); Azurite and the double on the
# others.
#
# The blob host: the double hands out SAS URLs of Azurite on 127.0.0.1, as
# in bench-cache.sh (no /etc/hosts mapping to *.blob.core.windows.net as the
# rehearsal makes); so both the action and the collector restore with one
# plain GET (the toolkit's and the collector's path for a host that is not
# Azure's), and both are given routing=127.0.0.1.
#
# Needs node with `npm ci --prefix tests/cache-service`, taskset, python3,
# zstd and GNU tar. Runs only on loopback; on a shared machine only the
# interleaved ratios mean anything. Figures go to docs/benchmarks.md by hand.
set -euo pipefail
bin=${1:?usage: bench-cache-method.sh COLLECTOR [quick|standard] [rounds] [overhead-runs]}
profile=${2:-quick}
rounds=${3:-4}
overhead_runs=${4:-8}
[ -x "$bin" ] || { echo "$bin is not an executable collector" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cd "$(dirname "$0")/.."
repo=$PWD
modules=tests/cache-service/node_modules
if [ ! -d "$modules/azurite" ] || [ ! -d "$modules/@actions/cache" ]; then
  echo "run: npm ci --prefix tests/cache-service" >&2
  exit 1
fi
command -v zstd >/dev/null || { echo "zstd is not on PATH: the action would archive with gzip" >&2; exit 1; }
if [ "$rounds" -lt 1 ] || [ "$overhead_runs" -lt 1 ]; then
  echo "rounds and overhead-runs must be at least 1" >&2
  exit 2
fi

load_before=$(cat /proc/loadavg)
ncpu=$(nproc)
cpu=$((ncpu - 1))                       # the measured CPU
others=$([ "$ncpu" -gt 1 ] && echo "0-$((cpu - 1))" || echo 0)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "${KEEP_WORK:-}" ]; then echo "kept $work (KEEP_WORK)" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The services, as bench-cache.sh starts them (Azurite's store on disk in
# $work), on the other CPUs. bench-cache.sh's memory touch is left out:
# the quick payload is 8 MiB, and on a shared machine taking three quarters
# of the memory would take it from the other users' builds.
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
blob_port=$(port)
mkdir -p "$work/azurite" "$work/jobs" "$work/parts"
taskset -c "$others" node "$modules/azurite/dist/src/blob/main.js" --blobHost 127.0.0.1 --blobPort "$blob_port" \
  --location "$work/azurite" --skipApiVersionCheck --loose --silent >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$blob_port") 2>/dev/null && break; sleep 0.1; done
AZURITE_BLOB_URL=http://127.0.0.1:$blob_port/devstoreaccount1 CACHE_TOKEN=bench \
  taskset -c "$others" node tests/cache-service/server.mjs >"$work/double.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/double.out" 2>/dev/null && break; sleep 0.1; done
grep -q listening "$work/double.out" || { cat "$work/double.out" >&2; exit 1; }
ACTIONS_RESULTS_URL="http://127.0.0.1:$(awk '{print $2}' "$work/double.out")/"
export ACTIONS_RESULTS_URL
export ACTIONS_RUNTIME_TOKEN=bench
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_PATH GITHUB_ENV RUNNER_TEMP GITHUB_WORKSPACE
backend="id=github;name=GitHub Actions cache;kind=archive-service;routing=127.0.0.1"
action="actions-cache;routing=127.0.0.1"
identity=(--provider bench --runner bench-local)

# The runner's worker stand-in: bash under another name. Its comm is
# "Worker.Bench", which prepare finds among its ancestors and pins.
cp "$(command -v bash)" "$work/Worker.Bench"
export RUNNER_BENCH_WORKER_PROCESS=Worker.Bench

# One job of the action method, run by Worker.Bench:
#   job.sh save|restore|noop DIR TRIAL HANDOFF OUT [STEP...]
# DIR holds the job's workspace (ws), state folder (state) and logs. After
# prepare exits, its clock is running: everything up to record's start is
# timed, as between a runner's steps, so the stand-in uses only builtins
# there besides starting the step and record.
cat >"$work/job.sh" <<'JOB'
set -u
half=$1 dir=$2 trial=$3 handoff=$4 out=$5
shift 5
ws=$dir/ws state=$dir/state
mkdir -p "$ws" "$state"
cd "$ws"
: >"$state/prepare.out"; : >"$state/path"; : >"$state/step.out"
export GITHUB_WORKSPACE=$ws RUNNER_TEMP=$state
# Step 1: prepare. The no-op jobs write the quick payload, whatever the
# profile: they time only what surrounds the step.
profile=$PROFILE
[ "$half" = noop ] && profile=quick
case $half in
  save | noop)
    GITHUB_OUTPUT=$state/prepare.out GITHUB_PATH=$state/path "$BIN" cache prepare save --slot 1 --trial "$trial" \
      --profile "$profile" --action "$ACTION" --provider bench --runner bench-local --cpu "$CPU" \
      2>"$dir/prepare.log" || { echo "prepare failed: $(<"$dir/prepare.log")" >&2; exit 1; }
    ;;
  restore)
    GITHUB_OUTPUT=$state/prepare.out GITHUB_PATH=$state/path "$BIN" cache prepare restore --slot 1 \
      --handoff "$handoff" --simulate-instance bench-restore --cpu "$CPU" \
      2>"$dir/prepare.log" || { echo "prepare failed: $(<"$dir/prepare.log")" >&2; exit 1; }
    ;;
esac
# --- timed from here ---
# Step 2: the action (or the no-op), with prepare's outputs as inputs and
# GITHUB_PATH's folders first on PATH.
key="" path="" shim=""
while IFS= read -r line; do
  case $line in key=*) key=${line#key=} ;; path=*) path=${line#path=} ;; esac
done <"$state/prepare.out"
while IFS= read -r line; do shim=$line${shim:+:$shim}; done <"$state/path"
if [ "$half" = noop ]; then
  PATH=$shim${shim:+:}$PATH "$@" >"$dir/step.log" 2>&1
else
  PATH=$shim${shim:+:}$PATH INPUT_PATH=$path INPUT_KEY=$key GITHUB_OUTPUT=$state/step.out \
    ACTIONS_CACHE_SERVICE_V2=True GITHUB_REF=refs/heads/main "$NODE" "$ACTION_MJS" "$half" >"$dir/step.log" 2>&1
fi
rc=$?
outcome=success
[ $rc = 0 ] || outcome=failure
# The step's outputs (@actions/core's `name<<delimiter` form) as JSON.
outputs="" name="" delim="" value=""
while IFS= read -r line; do
  if [ -z "$name" ]; then
    case $line in
      *'<<'*) name=${line%%<<*} delim=${line#*<<} value="" ;;
      *=*) outputs+=${outputs:+,}"\"${line%%=*}\":\"${line#*=}\"" ;;
    esac
  elif [ "$line" = "$delim" ]; then
    outputs+=${outputs:+,}"\"$name\":\"$value\"" name=""
  else
    value+=$line
  fi
done <"$state/step.out"
id=$half-1-actions-cache
[ "$half" = noop ] && id=save-1-actions-cache
steps="{\"$id\":{\"outcome\":\"$outcome\",\"outputs\":{$outputs}}}"
# Step 3: record (its clock is read first thing: the span ends here).
record=save
[ "$half" = restore ] && record=restore
"$BIN" cache record "$record" --slot 1 --trial "$trial" --steps "$steps" --handoff "$handoff" --out "$out" \
  --runtime-url "$ACTIONS_RESULTS_URL" 2>"$dir/record.log" || { echo "record failed: $(<"$dir/record.log")" >&2; exit 1; }
JOB
NODE=$(command -v node)
export BIN=$bin PROFILE=$profile ACTION=$action CPU=$cpu NODE
export ACTION_MJS=$repo/tests/cache-service/action.mjs

# Before every timed job, write back what earlier jobs left dirty and
# pause (untimed), the same for both methods, as bench-cache.sh does.
settle() { sync; sleep 1; }
n=0
fresh() { n=$((n + 1)); dir=$work/jobs/$n; mkdir -p "$dir"; }   # sets $dir
# Removes a job's folders (payload, restored files, state), keeping its
# partial result, hand-off file and logs: a standard payload is 512 MiB.
tidy() { [ -n "${KEEP_WORK:-}" ] || find "$1" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +; }

saved=$work/saved.txt       # per save, in order: method round trial job-folder
results=$work/results.txt   # per pair: method round save-part restore-part
save_job() { # method round trial
  fresh
  local d=$dir
  settle
  if [ "$1" = action ]; then
    "$work/Worker.Bench" "$work/job.sh" save "$d" "$3" "$d/handoff.json" "$d/save.json"
  else
    "$bin" cache save --profile "$profile" --trial "$3" "${identity[@]}" --cpu "$cpu" --backend "$backend" \
      --work-dir "$d" --handoff "$d/handoff.json" --out "$d/save.json" 2>"$d/save.log" ||
      { cat "$d/save.log" >&2; exit 1; }
  fi
  tidy "$d"
  echo "$1 $2 $3 $d" >>"$saved"
}
restore_job() { # method round trial save-job-folder
  fresh
  local d=$dir
  settle
  if [ "$1" = action ]; then
    "$work/Worker.Bench" "$work/job.sh" restore "$d" "$3" "$4/handoff.json" "$d/restore.json"
  else
    "$bin" cache restore --handoff "$4/handoff.json" --out "$d/restore.json" --cpu "$cpu" --work-dir "$d" \
      --simulate-instance bench-restore 2>"$d/restore.log" || { cat "$d/restore.log" >&2; exit 1; }
  fi
  tidy "$d"
  [ "$2" = 0 ] || echo "$1 $2 $4/save.json $d/restore.json" >>"$results"
}

echo "load before: $load_before" >&2
# Saves first, then restores, in the same order, so that a profile with a
# publication gap (standard: 120 s) waits it once, not once per pair.
# Round 0 is a warm-up (not counted): one job of each method, so that
# neither method's first job pays for cold caches (the collector's binary,
# node's modules).
: >"$saved"
: >"$results"
save_job action 0 1
save_job client 0 1
for r in $(seq "$rounds"); do
  t=$(( (r - 1) % 3 + 1 ))
  echo "saves, round $r of $rounds: A B B A" >&2
  for m in action client client action; do save_job "$m" "$r" "$t"; done
done
# What is left of the gap after the newest save (untimed), as
# bench-cache.sh waits it, so that no restore starts from the wait.
gap_s=$("$bin" profile "$profile" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["cache_publication_gap_s"])')
python3 - "$gap_s" "$work"/jobs/*/handoff.json <<'PY'
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
if gap > 0 and left > 0:
    print(f"waiting {left:.0f} s for the publication gap of the last save", file=sys.stderr)
    time.sleep(left)
PY
r_prev=""
while read -r m r t d; do
  [ "$r" = "$r_prev" ] || echo "restores, round $r of $rounds" >&2
  r_prev=$r
  restore_job "$m" "$r" "$t" "$d" </dev/null
done <"$saved"

# The action method's own overhead: prepare + record around a step that
# does nothing, and around node's start-up; node's start-up alone, pinned
# to the same CPU and timed with bash's clock.
overhead=$work/overhead.txt
: >"$overhead"
for _ in $(seq "$overhead_runs"); do
  fresh; settle
  "$work/Worker.Bench" "$work/job.sh" noop "$dir" 1 "$dir/handoff.json" "$dir/save.json" /bin/true
  echo "noop-true $dir/save.json" >>"$overhead"
  fresh; settle
  "$work/Worker.Bench" "$work/job.sh" noop "$dir" 1 "$dir/handoff.json" "$dir/save.json" "$NODE" -e ''
  echo "noop-node $dir/save.json" >>"$overhead"
  settle
  # shellcheck disable=SC2016 # expanded by the inner bash
  s=$(taskset -c "$cpu" bash -c 't0=$EPOCHREALTIME; "$1" -e ""; t1=$EPOCHREALTIME; echo "$t0 $t1"' _ "$NODE" |
    awk '{printf "%.6f", $2 - $1}')
  echo "node-alone $s" >>"$overhead"
done
load_after=$(cat /proc/loadavg)

python3 - "$results" "$overhead" "$load_before" "$load_after" "$profile" "$rounds" "$cpu" <<'PY'
import json, statistics, sys
results, overhead, load_before, load_after, profile, rounds, cpu = sys.argv[1:]
rounds = int(rounds)

def pair(path, half):
    r = json.load(open(path))
    st = r["stages"]["cache"]
    (p,) = st["pairs"]
    t = p[half]
    assert t and t["status"] == "ok", (path, t)
    return st["payload_bytes"], p, t

def spread(xs):
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return f"min–max {xs[0]:.3f}–{xs[-1]:.3f}, IQR {q[0]:.3f}–{q[2]:.3f}"

secs = {(m, h): [] for m in ("action", "client") for h in ("save", "restore")}
per_round = {}
mib = None
for line in open(results):
    method, r, save_json, restore_json = line.split()
    size, p, s = pair(save_json, "save")
    _, q, t = pair(restore_json, "restore")
    v = q["verification"]
    assert v["key_match"] == "exact" and v["sha256"] == "match" and v["routing"]["matches"], (restore_json, v)
    # `method` is left out for client (its default).
    assert p.get("method", "client") == method == q.get("method", "client"), (p, q, method)
    if method == "action":
        for half, x in (("save", s), ("restore", t)):
            a = x["action"]
            assert a["single_thread"] == "held" and a["affinity_inherited"] == "held", (half, a)
            assert x["affinity"] == {"mode": "pinned", "cpu": int(cpu), "group": 0}, (half, x["affinity"])
            assert all(pr["cpus"] == cpu for pr in a["processes"]), (half, a)
    mib = size / 2**20
    secs[(method, "save")].append(s["seconds"])
    secs[(method, "restore")].append(t["seconds"])
    d = per_round.setdefault(int(r), {})
    for half, x in (("save", s["seconds"]), ("restore", t["seconds"])):
        d.setdefault((method, half), []).append(x)

n = len(secs[("action", "save")])
print(f"profile {profile}: payload {mib:.0f} MiB; {rounds} rounds of A B B A (A action, B client): "
      f"{n} pairs per method; both pinned to CPU {cpu}")
for half in ("save", "restore"):
    for method in ("action", "client"):
        xs = secs[(method, half)]
        m = statistics.median(xs)
        print(f"{half:8s} {method:7s} median {m:.3f} s = {mib / m:7.1f} MiB/s   {spread(xs)} s   "
              f"runs {' '.join(f'{x:.3f}' for x in xs)}")
    ratios = [sum(d[("action", half)]) / sum(d[("client", half)]) for _, d in sorted(per_round.items())]
    print(f"{half:8s} action ÷ client: median of per-round ratios {statistics.median(ratios):.2f} "
          f"(rounds: {' '.join(f'{x:.2f}' for x in ratios)})")

oh = {"noop-true": [], "noop-node": [], "node-alone": []}
for line in open(overhead):
    kind, v = line.split()
    if kind == "node-alone":
        oh[kind].append(float(v))
    else:
        _, p, s = pair(v, "save")
        oh[kind].append(s["seconds"])
labels = {
    "noop-true": "prepare → /bin/true → record (record's seconds)",
    "noop-node": "prepare → node -e '' → record (record's seconds)",
    "node-alone": "node -e '' alone (bash's clock, same CPU)",
}
print(f"overhead of the action method ({len(oh['noop-true'])} runs each):")
for k, xs in oh.items():
    print(f"  {labels[k]:52s} median {statistics.median(xs):.3f} s   {spread(xs)} s")
print(f"load average before: {load_before}")
print(f"load average after:  {load_after}")
PY
