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
small=${3:-10}
large=${4:-2000}
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

# run MODE CMD...: appends "wall_ms cpu_ms" of one run (cpu: user + system
# of the command and its children, steadier than wall on a loaded machine)
run() {
  local mode=$1
  shift
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" >/dev/null 2>&1 || { echo "bench-trace: failed: $*" >&2; exit 1; }
  awk '{printf "%.0f %.0f\n", $1 * 1000, ($2 + $3) * 1000}' "$work/t" >>"$work/$mode.times"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

modes="plain heaptrack preload watch trace"
for mode in $modes; do : >"$work/$mode.times"; done
for i in $(seq "$runs"); do
  # interleaved, so a change in the machine's load touches every mode alike
  run plain "$prog" "$small" "$large"
  rm -f "$work"/ht.*
  run heaptrack heaptrack -o "$work/ht" "$prog" "$small" "$large"
  rm -rf "$work/pre" && mkdir -p "$work/pre"
  run preload env LD_PRELOAD="$lib" ZKBENCH_TRACE_DIR="$work/pre" "$prog" "$small" "$large"
  rm -rf "$work/w0"
  run watch "$zk" watch --out "$work/w0" -- "$prog" "$small" "$large"
  rm -rf "$work/w"
  run trace "$zk" watch --trace --out "$work/w" -- "$prog" "$small" "$large"
done
declare -A wall cpu
for mode in $modes; do
  wall[$mode]=$(awk '{print $1}' "$work/$mode.times" | median)
  cpu[$mode]=$(awk '{print $2}' "$work/$mode.times" | median)
done

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
echo "| mode | median wall ms | vs plain | median CPU ms | vs plain |"
echo "| --- | ---: | ---: | ---: | ---: |"
row() { echo "| $1 | ${wall[$2]} | $(ratio "${wall[$2]}" "${wall[plain]}") | ${cpu[$2]} | $(ratio "${cpu[$2]}" "${cpu[plain]}") |"; }
row plain plain
row "heaptrack -o (recording)" heaptrack
row "LD_PRELOAD libzkbench-trace.so" preload
row "zkbench watch (no tracing: the sampler alone)" watch
row "zkbench watch --trace (end to end, with collection)" trace
echo
echo "Tracing's own cost in CPU: the preloaded program $(ratio "${cpu[preload]}" "${cpu[plain]}") of plain; watch --trace $(ratio "${cpu[trace]}" "${cpu[watch]}") of watch without it (the collection with symbols included); heaptrack $(ratio "${cpu[heaptrack]}" "${cpu[plain]}")."
echo "Machine load during the runs (1-minute load average at the end): $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores."
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
