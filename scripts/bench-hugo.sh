#!/usr/bin/env bash
# `site build` of 10,000 results against Hugo building 10,000 markdown pages,
# interleaved in one run: a reference for the site's time and memory, not a
# target (docs/benchmarks.md says why). Ratios, since absolute times on a
# shared machine say little.
#
#   bash scripts/bench-hugo.sh
#
# Builds `site` in release (CARGO_TARGET_DIR as set, else target/), then runs
# the benchmark site/benches/build_10k.rs once, which writes the 10,000
# result files (SITE_BENCH_RESULTS) and the Hugo site of 10,000 pages
# (HUGO_SITE, site/benches/build_10k/hugo_site.rs), and times the `site
# serve` rebuild after one changed result (the median of 5 rebuilds). Everything goes into one
# temporary folder under ${TMPDIR:-/tmp} (set BENCH_DIR to choose it), so
# both programs read and write the same disk.
#
# Then `hugo server` is started on the Hugo site, one page is changed
# (HUGO_CHANGES times, default 3) and Hugo's own "Total in N ms" for each
# rebuild is printed, beside our serve rebuild.
#
# Then ROUNDS (default 3) rounds of A, B, C, D, E, F, F, E, D, C, B, A with A =
# `site build`, B = `hugo`, C = `site check` of the same results (the part
# of a build that reads, parses, hashes and checks the 10,000 files, and
# writes nothing), and two floors, the time to write each program's output
# and nothing else: D = `cp -a` of the site's warm-up output, its pages
# copied and its result files hard-linked (`cp -al`), as `site build` links
# them; E = `cp -a` of Hugo's warm-up output. cp writes from one thread, the
# site from every CPU. D ÷ Hugo is the share of Hugo's time that copying the
# site's files alone takes. F = the least a build does, whatever its pages:
# `site check` of the results, then the result files linked into a new
# folder, as `site build` publishes them, and no page written; F ÷ Hugo is
# the least share of Hugo's time that any build which checks and publishes
# the results can take on this machine. The warm-up runs one
# of each of A, B and C first, uncounted. Every run writes a new output
# folder, as a clean build on Netlify or in CI does, and no output is
# removed before the end. On ext4 without a journal (this project's
# development VMs) the kernel does not reuse an inode for 60 s after its
# deletion, 360 s while its inode table block is not yet written back
# (fs/ext4/ialloc.c: recently_deleted, RECENTCY_MIN and RECENTCY_DIRTY), and
# every file or folder created meanwhile first steps over each such inode;
# removing the last run's output made each run slower than the one before,
# Hugo's 20,000 inodes more than the site's 11,000 (docs/benchmarks.md). For
# the same reason the timed runs start with a `sync` and 61 s after the
# benchmark's own temporary site is removed. Before every run `sync` writes
# back what earlier runs left dirty (not timed). Each run is timed by
# /usr/bin/time -f '%e %M %U %S' (wall seconds, peak resident KiB, user and
# system CPU seconds). Prints every run with the load average, the medians,
# site ÷ Hugo for time and peak memory (reference ratios) and for CPU time (less sensitive to other load than the wall time), `site
# check` ÷ Hugo for wall and CPU time, and Hugo's own spread (max ÷ min of
# its runs): a change in the ratio smaller than that spread is noise.
#
# DOCS=1 puts the figures, as the latest run, in docs/benchmarks.md's
# bench-hugo block (scripts/lib/docs-section.sh).
#
# Needs: hugo (apt-get install hugo; 0.111 was measured), GNU time
# (apt-get install time).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3}
changes=${HUGO_CHANGES:-3}
command -v hugo >/dev/null || { echo "hugo is missing: apt-get install -y hugo" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time" >&2; exit 2; }

work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/bench-hugo.XXXXXX")}
mkdir -p "$work"
hugo_pid=
cleanup() {
  if [ -n "$hugo_pid" ]; then kill "$hugo_pid" 2>/dev/null || true; fi
  if [ -z "${BENCH_DIR:-}" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
target=${CARGO_TARGET_DIR:-$repo/target}
load() { local u; u=$(uptime); echo "${u##*load average: }"; }

echo "commit: $(git -C "$repo" log -1 --format='%h %s') ($(git -C "$repo" status --porcelain | wc -l) changed paths)"
echo "nproc: $(nproc); CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(hugo version | cut -d' ' -f1-2)"
echo "folder: $work ($(df -h --output=source,fstype "$work" | tail -1 | tr -s ' '))"
echo "load before: $(load)"

echo "building site in release (CARGO_TARGET_DIR=$target)"
(cd "$repo" && CARGO_TARGET_DIR="$target" cargo build -q -p site --release --locked)
site=$target/release/site

# The inputs, and our serve rebuild as the existing benchmark measures it.
rm -rf "$work/results" "$work/hugo"
(cd "$repo" && SITE_BIN="$site" SITE_BENCH_RESULTS="$work/results" HUGO_SITE="$work/hugo" TMPDIR="$work" \
  CARGO_TARGET_DIR="$target" cargo bench -q -p site --locked --bench build_10k) | tee "$work/bench.txt"
serve_ms=$(sed -n 's/^site serve rebuild after one changed result: \([0-9]*\) ms.*/\1/p' "$work/bench.txt")

# `hugo server`'s rebuild of one changed page: it prints "Built in N ms"
# after the first build and "Total in N ms" after each rebuild.
port=$((20000 + RANDOM % 20000))
(cd "$work/hugo" && exec hugo server --port "$port" --disableLiveReload >"$work/hugo-server.txt" 2>&1) &
hugo_pid=$!
totals() { grep -c 'Built in\|Total in' "$work/hugo-server.txt" || true; }
wait_totals() {
  local want=$1
  for _ in $(seq 600); do
    [ "$(totals)" -ge "$want" ] && return 0
    sleep 0.1
  done
  echo "hugo server printed no build time; its output:" >&2
  cat "$work/hugo-server.txt" >&2
  exit 1
}
wait_totals 1
page=$work/hugo/content/results/group-000/result-00003.md
hugo_serve_ms=()
for c in $(seq "$changes"); do
  sleep 1
  echo "Changed $c." >>"$page"
  wait_totals $((c + 1))
  hugo_serve_ms+=("$(grep 'Total in' "$work/hugo-server.txt" | tail -1 | sed 's/.*Total in \([0-9]*\) ms.*/\1/')")
done
kill "$hugo_pid"
wait "$hugo_pid" 2>/dev/null || true
hugo_pid=
echo "hugo server: first build $(grep 'Built in' "$work/hugo-server.txt" | head -1 | sed 's/.*Built in //'), rebuild after one changed page: ${hugo_serve_ms[*]} ms"
echo "site serve: rebuild after one changed result: $serve_ms ms"

# One run of side $1 (A = site build, B = hugo, C = site check, D and E =
# cp of the site's and of Hugo's warm-up output, F = site check then the
# results linked), number $2:
# sets `secs`, `kib` and `cpu` (user + system seconds).
run_once() {
  local side=$1 n=$2 out=$work/run-$1-$2.txt dest=$work/out-$1-$2
  sync
  if [ "$side" = A ]; then
    # From the repository, as Netlify runs it (content/, templates/, docs/).
    (cd "$repo" && /usr/bin/time -f '%e %M %U %S' -o "$out.time" "$site" build --results "$work/results" --out "$dest") \
      >"$out" 2>&1 || { cat "$out"; exit 1; }
  elif [ "$side" = C ]; then
    # The benchmark's results are all accepted: a rejection (exit status
    # 1) stops the script, as a failed build does.
    (cd "$repo" && /usr/bin/time -f '%e %M %U %S' -o "$out.time" "$site" check "$work/results") \
      >"$out" 2>&1 || { cat "$out"; exit 1; }
    mkdir -p "$dest"
  elif [ "$side" = D ]; then
    # The site's files written by cp: every page and plot copied, the
    # result files linked (a link cannot be copied with the rest by one cp).
    /usr/bin/time -f '%e %M %U %S' -o "$out.time" bash -c '
      set -e
      mkdir "$2"
      for f in "$1"/*; do
        if [ "${f##*/}" = results ]; then cp -al "$f" "$2/results"; else cp -a "$f" "$2/"; fi
      done
      cp -a "$1"/.[!.]* "$2/"' _ "$work/out-A-0" "$dest" >"$out" 2>&1 || { cat "$out"; exit 1; }
  elif [ "$side" = F ]; then
    # The least a build does: check every result, then publish each as
    # submitted (linked, as `site build` links them), with no page written.
    (cd "$repo" && /usr/bin/time -f '%e %M %U %S' -o "$out.time" bash -c '
      set -e
      "$1" check "$2" >/dev/null
      mkdir "$3"
      cp -al "$2" "$3/results"' _ "$site" "$work/results" "$dest") >"$out" 2>&1 || { cat "$out"; exit 1; }
  elif [ "$side" = E ]; then
    /usr/bin/time -f '%e %M %U %S' -o "$out.time" cp -a "$work/out-B-0" "$dest" >"$out" 2>&1 || { cat "$out"; exit 1; }
  else
    (cd "$work/hugo" && /usr/bin/time -f '%e %M %U %S' -o "$out.time" hugo --quiet --destination "$dest") \
      >"$out" 2>&1 || { cat "$out"; exit 1; }
  fi
  local user sys
  read -r secs kib user sys <"$out.time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  printf 'run %2d: %s %7.2f s, CPU %6.2f s, %5d MiB  files %5d  load: %s\n' "$n" \
    "$(case $side in A) echo 'site build' ;; B) echo 'hugo      ' ;; C) echo 'site check' ;; D) echo 'cp of site' ;; F) echo 'check+link' ;; *) echo 'cp of hugo' ;; esac)" "$secs" "$cpu" $((kib / 1024)) \
    "$(find "$dest" -type f | wc -l)" "$(load)"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "sync, then 61 s, so that no inode removed by the steps above is still recent to ext4"
sync
sleep 61
echo "warm-up (not counted):"
run_once A 0
run_once B 0
run_once C 0
declare -A secs_of=([A]="" [B]="" [C]="" [D]="" [E]="" [F]="") kib_of=([A]="" [B]="" [C]="" [D]="" [E]="" [F]="") \
  cpu_of=([A]="" [B]="" [C]="" [D]="" [E]="" [F]="")
n=0
for _ in $(seq "$rounds"); do
  for side in A B C D E F F E D C B A; do
    n=$((n + 1))
    run_once "$side" "$n"
    secs_of[$side]+="$secs "
    kib_of[$side]+="$kib "
    cpu_of[$side]+="$cpu "
  done
done
load_after=$(load)
rm -rf "$work"/out-*

a_s=$(median <<<"${secs_of[A]}")
b_s=$(median <<<"${secs_of[B]}")
a_k=$(median <<<"${kib_of[A]}")
b_k=$(median <<<"${kib_of[B]}")
a_c=$(median <<<"${cpu_of[A]}")
b_c=$(median <<<"${cpu_of[B]}")
c_s=$(median <<<"${secs_of[C]}")
c_c=$(median <<<"${cpu_of[C]}")
d_s=$(median <<<"${secs_of[D]}")
e_s=$(median <<<"${secs_of[E]}")
f_s=$(median <<<"${secs_of[F]}")
b_min=$(tr ' ' '\n' <<<"${secs_of[B]}" | grep . | sort -g | head -1)
b_max=$(tr ' ' '\n' <<<"${secs_of[B]}" | grep . | sort -g | tail -1)
# ratio A B: A ÷ B to three places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
ratio_s=$(ratio "$a_s" "$b_s")
ratio_k=$(ratio "$a_k" "$b_k")
ratio_c=$(ratio "$a_c" "$b_c")
check_s=$(ratio "$c_s" "$b_s")
check_c=$(ratio "$c_c" "$b_c")
spread=$(ratio "$b_max" "$b_min")
floor_s=$(ratio "$d_s" "$b_s")
least_s=$(ratio "$f_s" "$b_s")
a_floor=$(ratio "$a_s" "$d_s")
b_floor=$(ratio "$b_s" "$e_s")
mb() { awk -v k="$1" 'BEGIN { printf "%.0f MiB (%.0f MB)", k / 1024, k * 1.024 / 1000 }'; }

echo
echo "site build: ${secs_of[A]}s; median $a_s s, peak memory median $(mb "$a_k")"
echo "hugo:       ${secs_of[B]}s; median $b_s s, peak memory median $(mb "$b_k")"
echo "CPU (user + system): site ${cpu_of[A]}s, median $a_c s; hugo ${cpu_of[B]}s, median $b_c s"
echo "site ÷ hugo: time $ratio_s, peak memory $ratio_k, CPU time $ratio_c (reference ratios, not targets)"
echo "site check: ${secs_of[C]}s; median $c_s s, CPU median $c_c s; ÷ hugo: time $check_s, CPU time $check_c"
echo "hugo's own spread (max ÷ min): $spread"
echo "floors, cp of each output: site's ${secs_of[D]}s, median $d_s s; hugo's ${secs_of[E]}s, median $e_s s"
echo "cp of the site's output ÷ hugo: $floor_s"
echo "each build ÷ cp of its own output: site $a_floor, hugo $b_floor"
echo "check, then the results linked (no page): ${secs_of[F]}s, median $f_s s; ÷ hugo: $least_s"
echo "serve rebuild after one change: site $serve_ms ms (target at most 300 ms); hugo server ${hugo_serve_ms[*]} ms"
echo "load before: see above; after: $load_after"

if [ "${DOCS:-}" = 1 ]; then
  # shellcheck source-path=SCRIPTDIR source=lib/docs-section.sh
  . "$repo/scripts/lib/docs-section.sh"
  docs_replace_section "$repo/docs/benchmarks.md" bench-hugo <<EOF
\`ROUNDS=$rounds bash scripts/bench-hugo.sh\`, $(date -u +%F), commit $(git -C "$repo" rev-parse --short HEAD); $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(hugo version | cut -d' ' -f1-2);
load average after: $load_after.

| Figure | \`site build\` | Hugo | site ÷ Hugo |
| --- | ---: | ---: | ---: |
| wall, median | $a_s s | $b_s s | $ratio_s |
| peak memory, median | $(mb "$a_k") | $(mb "$b_k") | $ratio_k |
| CPU (user + system), median | $a_c s | $b_c s | $ratio_c |
| \`site check\` alone, wall median | $c_s s | $b_s s | $check_s |
| \`site check\` alone, CPU median | $c_c s | $b_c s | $check_c |
| \`cp -a\` of its output (the floor), wall median | $d_s s | $e_s s | $floor_s |
| build ÷ cp of its own output | $a_floor | $b_floor | |
| \`site check\`, then the results linked (F), wall median | $f_s s | $b_s s | $least_s |

Runs (s): site ${secs_of[A]}; Hugo ${secs_of[B]}(spread $spread).
Serve rebuild after one changed result: site $serve_ms ms (target ≤ 300 ms), \`hugo server\` ${hugo_serve_ms[*]} ms.
EOF
fi
