#!/usr/bin/env bash
# The collector's time against allocations and distinct stacks (issue 27:
# it was allocations x stacks): tests/trace/bench_stacks N S makes N
# allocations (every one recorded: --trace-min 1) from S distinct stacks
# under `zkbench watch --trace`; then `zkbench trace collect` is timed on
# the run, RUNS times, median. With OLD_ZKBENCH (a zkbench of an older
# commit, built beside its own libzkbench-trace.so), its collection time is
# watch's wall time less the traced program's alone (no `trace collect`
# there), for N = 600000 only. Prints a Markdown table.
#   bash scripts/bench-trace-collect.sh [BUILD_DIR] [RUNS] > results/trace-collect.md
set -euo pipefail
build=${1:-build}
runs=${2:-3}
zk=$build/harness/zkbench
prog=$build/tests/trace/bench_stacks
[ -x "$zk" ] && [ -x "$prog" ] || { echo "bench-trace-collect: build $zk and $prog first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "# The trace collector: time against allocations and distinct stacks"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); shared with other jobs, hence medians"
echo "- command: bash scripts/bench-trace-collect.sh $build $runs${OLD_ZKBENCH:+ (OLD_ZKBENCH=$OLD_ZKBENCH)}"
echo "- workload: tests/trace/bench_stacks N S under zkbench watch --trace --trace-min 1 (N allocations of 64 B, each freed, from S distinct stacks); the time is \`zkbench trace collect RUN_DIR\` (symbols, buffers.csv, sites.csv), median of $runs"
echo
echo "| allocations | distinct stacks | trace file MB | collect s (median) | µs per allocation |"
echo "| ---: | ---: | ---: | ---: | ---: |"
for s in 1 10000; do
  for n in 150000 300000 600000 1200000; do
    out=$tmp/run-$n-$s
    "$zk" watch --quiet --trace --trace-min 1 --sample-ms 100 --out "$out" -- "$prog" "$n" "$s" >/dev/null
    mb=$(du -m --apparent-size "$out/trace" | cut -f1)
    t=$(for ((r = 0; r < runs; r++)); do
          a=$(now); "$zk" trace collect "$out" >/dev/null; b=$(now)
          echo "$b - $a" | bc -l
        done | median)
    printf '| %d | %d | %d | %.2f | %.2f |\n' "$n" "$s" "$mb" "$t" "$(echo "$t * 1000000 / $n" | bc -l)"
  done
done
if [ -n "${OLD_ZKBENCH:-}" ]; then
  oldlib=$(dirname "$OLD_ZKBENCH")/trace/libzkbench-trace.so
  echo
  echo "The older collector (OLD_ZKBENCH), N = 600000: watch --trace's wall time less the traced program's alone."
  echo
  echo "| allocations | distinct stacks | watch s | program s | collection s |"
  echo "| ---: | ---: | ---: | ---: | ---: |"
  for s in 1 10000; do
    mkdir -p "$tmp/old-direct-$s"
    a=$(now); LD_PRELOAD=$oldlib ZKBENCH_TRACE_DIR=$tmp/old-direct-$s ZKBENCH_TRACE_MIN=1 "$prog" 600000 "$s" >/dev/null; b=$(now)
    p=$(echo "$b - $a" | bc -l)
    a=$(now); "$OLD_ZKBENCH" watch --quiet --trace --trace-min 1 --sample-ms 100 --out "$tmp/old-$s" -- "$prog" 600000 "$s" >/dev/null; b=$(now)
    w=$(echo "$b - $a" | bc -l)
    printf '| 600000 | %d | %.2f | %.2f | %.2f |\n' "$s" "$w" "$p" "$(echo "$w - $p" | bc -l)"
  done
fi
