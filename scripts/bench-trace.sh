#!/usr/bin/env bash
# Overhead of `zkbench watch --trace` beside heaptrack on one allocation-heavy
# program (tests/trace/bench_alloc.c: SMALL million small allocations held in
# a ring, LARGE allocations of 1..8 MiB, one in eight leaked by big_leak),
# run plain, under heaptrack (recording only, as `heaptrack -o`), under the
# preload library alone, under `zkbench watch` and under `zkbench watch
# --trace` (end to end: the sampler, the run and the collection with
# symbols), one after the other,
# RUNS times each; prints a Markdown table of median wall times and checks
# that heaptrack and zkbench name the same leaking function.
#   bash scripts/bench-trace.sh [BUILD_DIR] [RUNS] [SMALL] [LARGE] > results/trace-overhead.md
set -uo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
runs=${2:-5}
small=${3:-20}
large=${4:-4000}
zk=$PWD/$b/harness/zkbench
prog=$PWD/$b/tests/trace/bench_alloc
lib=$PWD/$b/harness/trace/libzkbench-trace.so
for f in "$zk" "$prog" "$lib"; do
  [ -e "$f" ] || { echo "bench-trace: $f missing (build first: scripts/build.sh $b)" >&2; exit 2; }
done
if ! command -v heaptrack >/dev/null; then
  echo "bench-trace: installing heaptrack" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends heaptrack >/dev/null ||
    { echo "bench-trace: heaptrack could not be installed" >&2; exit 2; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/zkbench-bench-trace.XXXXXX")
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
# time_ms CMD...: the wall time of one run in ms (output discarded)
time_ms() {
  local t0 t1
  t0=$(now)
  "$@" >/dev/null 2>&1 || { echo "bench-trace: failed: $*" >&2; exit 1; }
  t1=$(now)
  echo $(( (t1 - t0) / 1000000 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

declare -A ms
for mode in plain heaptrack preload watch trace; do : >"$work/$mode.times"; done
for i in $(seq "$runs"); do
  # interleaved, so a change in the machine's load touches every mode alike
  time_ms "$prog" "$small" "$large" >>"$work/plain.times"
  rm -f "$work"/ht.*
  time_ms heaptrack -o "$work/ht" "$prog" "$small" "$large" >>"$work/heaptrack.times"
  rm -rf "$work/pre" && mkdir -p "$work/pre"
  time_ms env LD_PRELOAD="$lib" ZKBENCH_TRACE_DIR="$work/pre" "$prog" "$small" "$large" >>"$work/preload.times"
  rm -rf "$work/w0"
  time_ms "$zk" watch --out "$work/w0" -- "$prog" "$small" "$large" >>"$work/watch.times"
  rm -rf "$work/w"
  time_ms "$zk" watch --trace --out "$work/w" -- "$prog" "$small" "$large" >>"$work/trace.times"
done
for mode in plain heaptrack preload watch trace; do ms[$mode]=$(median <"$work/$mode.times"); done

ht_site=$(heaptrack_print -f "$work"/ht.* -p 0 -a 0 -T 0 -l 1 2>/dev/null |
  awk '/^MEMORY LEAKS/ {on = 1; next} on && /leaked over/ {getline; print $1; exit}')
zk_site=$(awk -F, 'NR == 2 {print $2}' "$work/w/sites.csv")
zk_label=$(awk -F, 'NR == 2 {print $1}' "$work/w/sites.csv")
zk_bytes=$(awk -F, 'NR == 2 {print $11}' "$work/w/sites.csv")
want=$("$prog" "$small" "$large" | sed -n 's/.*leaked \([0-9]*\).*/\1/p')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
echo "# watch --trace overhead beside heaptrack"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $(git rev-parse --short HEAD)"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); shared with other jobs, hence medians"
echo "- heaptrack: $(heaptrack --version 2>&1 | head -1)"
echo "- command: scripts/bench-trace.sh $b $runs $small $large"
echo "- workload: tests/trace/bench_alloc $small $large: ${small}M small allocations (16..1024 B) and frees, $large allocations of 1..8 MiB, one in eight leaked by big_leak"
echo "- threshold: the default --trace-min 1 MiB; median of $runs runs each, modes interleaved"
echo
echo "| mode | median wall ms | vs plain |"
echo "| --- | ---: | ---: |"
echo "| plain | ${ms[plain]} | 1.00x |"
echo "| heaptrack -o (recording) | ${ms[heaptrack]} | $(ratio "${ms[heaptrack]}" "${ms[plain]}") |"
echo "| LD_PRELOAD libzkbench-trace.so | ${ms[preload]} | $(ratio "${ms[preload]}" "${ms[plain]}") |"
echo "| zkbench watch (no tracing: the sampler alone) | ${ms[watch]} | $(ratio "${ms[watch]}" "${ms[plain]}") |"
echo "| zkbench watch --trace (end to end, with collection) | ${ms[trace]} | $(ratio "${ms[trace]}" "${ms[plain]}") |"
echo
echo "Tracing's own cost: the preloaded program $(ratio "${ms[preload]}" "${ms[plain]}") of plain; watch --trace $(ratio "${ms[trace]}" "${ms[watch]}") of watch without it (the collection, with symbols, included). heaptrack: $(ratio "${ms[heaptrack]}" "${ms[plain]}")."
echo
echo "Leaking site: heaptrack names \`$ht_site\`; zkbench names \`$zk_site\` (site \`$zk_label\`, never freed $zk_bytes B; the program says it leaked $want B)."
status=0
if [ "$ht_site" = "$zk_site" ] && [ "$zk_site" = big_leak ]; then
  echo "Both name the same leaking site."
else
  echo "MISMATCH: the two tools name different sites."
  status=1
fi
[ "$zk_bytes" = "$want" ] || { echo "MISMATCH: zkbench's never-freed bytes differ from the program's count."; status=1; }
exit $status
