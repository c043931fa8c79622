#!/usr/bin/env bash
# A week of watch (issue 27, item 3), accelerated; results/long-watch.md.
#  samples: tests/watch/bench_week feeds N synthetic readings at a simulated
#    60.48 ms tick (10^7 ticks = 7 days) through the sampler's row pipeline
#    (sampler.c's fed mode: samples.csv and procs.csv rows, the thinning
#    writer, the tick histogram, metrics_on_sample), as fast as it takes
#    them, for N = 10^5, 10^6, 10^7 and three ways of keeping rows: thinned
#    by the defaults (after 1 h, per 10 s), the same with a proof mark every
#    38 s, and every row (--thin-after 0). Per run: rows kept, the files'
#    bytes, CPU per tick over the last tenth of the run (the checkpoint
#    lines), the program's peak RSS, and `zkbench analyze` and `zkbench
#    plot` on the folder (wall s, peak RSS).
#  allocations: tests/trace/bench_week_alloc N under `zkbench watch --trace`
#    for N = 10^5, 10^6, 10^7 (one in ten large and recorded, the rest small,
#    counted and sampled; a few leaked): trace files' and buffers.csv's
#    bytes, `zkbench trace collect` and `zkbench analyze` (median of 3).
#  the /proc part of a tick: REAL_S seconds (default 600) of a real
#    `zkbench watch --sample-ms 1` of a steady program, watch's CPU per tick
#    read from /proc/PID/stat each tenth of the run, and the median tick_us
#    of samples.csv's rows in each tenth.
# Everything runs under nice -n 5; the load average is printed at the start
# and the end (the machine may be shared).
#   scripts/bench-week.sh [BUILD_DIR] [SCRATCH_DIR]   (defaults: build, /tmp/zkbench-week)
# Environment: SIZES (default "100000 1000000 10000000"), REAL_S, PARTS
# (default "samples alloc real"), MODES (the samples' ways of keeping rows,
# default "thinned marks full").
set -uo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
scratch=${2:-/tmp/zkbench-week}
sizes=${SIZES:-100000 1000000 10000000}
real_s=${REAL_S:-600}
parts=${PARTS:-samples alloc real}
modes=${MODES:-thinned marks full}
zk=$PWD/$b/harness/zkbench
bw=$PWD/$b/tests/watch/bench_week
ba=$PWD/$b/tests/trace/bench_week_alloc
for f in "$zk" "$bw" "$ba"; do
  [ -x "$f" ] || { echo "bench-week: $f missing (build first: ninja -C $b)" >&2; exit 2; }
done
rm -rf "$scratch" && mkdir -p "$scratch"
n5() { nice -n 5 "$@"; }
mb() { awk -v b="$(du -sb "$1" 2>/dev/null | cut -f1)" 'BEGIN {printf "%.1f", b / 1e6}'; }
# timed OUT CMD...: runs CMD, its stdout to /dev/null; appends "wall_s maxrss_kib cpu_s" to OUT
# (cpu: user + system, steadier than wall on a shared machine)
timed() {
  local out=$1
  shift
  /usr/bin/time -f "%e %M %U %S" -o "$scratch/t" nice -n 5 "$@" >/dev/null 2>"$scratch/err" ||
    { echo "bench-week: failed: $* ($(tail -1 "$scratch/err"))" >&2; return 1; }
  awk '{print $1, $2, $3 + $4}' "$scratch/t" >>"$out"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- harness tests || echo ' (with changes)')"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
echo "- load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- command: scripts/bench-week.sh $b (SIZES=\"$sizes\" REAL_S=$real_s PARTS=\"$parts\" MODES=\"$modes\")"
t_start=$(date +%s)

if [[ " $parts " == *" samples "* ]]; then
  echo
  echo "### Samples: the row pipeline fed a simulated week (60.48 ms tick)"
  echo
  echo "| keeping | ticks | days | rows kept | samples.csv MB | procs.csv MB | CPU us/tick, last tenth (sys) | CPU us/tick, whole run | program peak RSS MiB | analyze s (CPU s) | analyze peak MiB | plot s (CPU s) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for mode in $modes; do
    case $mode in
      thinned) args=() ;;
      marks) args=(--marks) ;;
      full) args=(--thin-after 0) ;;
    esac
    for n in $sizes; do
      d=$scratch/s-$mode-$n
      n5 "$bw" "$d" "$n" "${args[@]}" >"$scratch/ck" 2>"$scratch/err" || { echo "bench-week: bench_week failed: $(cat "$scratch/err")" >&2; exit 1; }
      rows=$(($(wc -l <"$d/samples.csv") - 1))
      # the checkpoint whose block is the last tenth (or less) of the run
      last=$(awk -v n="$n" 'NR > 1 && $1 <= n && $1 >= n * 0.9 - 0.5 {print $3 " (" $9 ")"}' "$scratch/ck" | tail -1)
      [ -n "$last" ] || last=$(tail -1 "$scratch/ck" | awk '{print $3 " (" $9 ")"}')
      whole=$(python3 -c "import json,sys; j=json.load(open('$d/run.json')); print('%.2f' % (j['synthetic']['cpu_s'] / $n * 1e6))")
      prss=$(tail -1 "$scratch/ck" | awk '{printf "%.1f", $7 / 1024}')
      : >"$scratch/an"
      timed "$scratch/an" "$zk" analyze "$d" || exit 1
      : >"$scratch/pl"
      timed "$scratch/pl" "$zk" plot "$d" --out "$d/plots" || echo "nan 0 nan" >"$scratch/pl"
      read -r as am ac <"$scratch/an"
      read -r ps _ pc <"$scratch/pl"
      echo "| $mode | $n | $(awk -v n="$n" 'BEGIN {printf "%.2f", n * 60.48 / 86400e3}') | $rows | $(mb "$d/samples.csv") | $(mb "$d/procs.csv") | $last | $whole | $prss | $as ($ac) | $(awk -v k="$am" 'BEGIN {printf "%.0f", k / 1024}') | $ps ($pc) |"
      [ "$n" = "$(echo $sizes | awk '{print $NF}')" ] && cp "$scratch/ck" "$scratch/ck-$mode"
      rm -rf "$d"
    done
  done
  echo
  echo "CPU per tick along the 10^7-tick runs (us, each block since the checkpoint before; in brackets the kernel's share, sys):"
  echo
  first=$(echo $modes | awk '{print $1}')
  echo "| keeping | $(awk 'NR > 1 {printf "%s%s", (NR > 2 ? " | " : ""), $1}' "$scratch/ck-$first") |"
  echo "| --- |$(awk 'NR > 1 {printf " ---: |"}' "$scratch/ck-$first")"
  for mode in $modes; do
    echo "| $mode | $(awk 'NR > 1 {printf "%s%s (%s)", (NR > 2 ? " | " : ""), $3, $9}' "$scratch/ck-$mode") |"
  done
fi

if [[ " $parts " == *" alloc "* ]]; then
  echo
  echo "### Allocations: tests/trace/bench_week_alloc N under watch --trace (default --trace-min 1 MiB)"
  echo
  echo "| allocations | recorded (buffers.csv rows) | sites | program + watch s | trace files MB | buffers.csv MB | collect s (CPU s) | collect us/allocation | collect peak MiB | analyze s (CPU s) | analyze peak MiB |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for n in $sizes; do
    d=$scratch/a-$n
    : >"$scratch/w"
    timed "$scratch/w" "$zk" watch --trace --quiet --sample-ms 10 --out "$d" -- "$ba" "$n" || exit 1
    : >"$scratch/c"
    : >"$scratch/an"
    for i in 1 2 3; do
      timed "$scratch/c" "$zk" trace collect "$d" || exit 1
      timed "$scratch/an" "$zk" analyze "$d" || exit 1
    done
    cs=$(awk '{print $1}' "$scratch/c" | median)
    cm=$(awk '{print $2}' "$scratch/c" | median)
    cc=$(awk '{print $3}' "$scratch/c" | median)
    ac=$(awk '{print $3}' "$scratch/an" | median)
    as=$(awk '{print $1}' "$scratch/an" | median)
    am=$(awk '{print $2}' "$scratch/an" | median)
    nb=$(($(wc -l <"$d/buffers.csv") - 1))
    ns=$(($(wc -l <"$d/sites.csv") - 1))
    echo "| $n | $nb | $ns | $(awk '{print $1}' "$scratch/w") | $(mb "$d/trace") | $(mb "$d/buffers.csv") | $cs ($cc) | $(awk -v s="$cs" -v n="$n" 'BEGIN {printf "%.2f", s / n * 1e6}') | $(awk -v k="$cm" 'BEGIN {printf "%.0f", k / 1024}') | $as ($ac) | $(awk -v k="$am" 'BEGIN {printf "%.0f", k / 1024}') |"
    rm -rf "$d"
  done
fi

if [[ " $parts " == *" real "* ]]; then
  echo
  echo "### The /proc part: a real watch --sample-ms 1 for $real_s s (thinned after 10 s, per 1 s)"
  echo
  cat >"$scratch/steady.py" <<EOF
import time
t0 = time.time(); a = []
while time.time() - t0 < $real_s + 5:
    a.append(bytearray(1 << 18))
    if len(a) >= 40: a = []
    time.sleep(0.005)
EOF
  d=$scratch/real
  # nice execs zkbench: $! is watch's own pid
  nice -n 5 "$zk" watch --sample-ms 1 --thin-after 10 --thin-interval 1 --quiet --out "$d" -- python3 "$scratch/steady.py" \
    >/dev/null 2>&1 &
  wpid=$!
  hz=$(getconf CLK_TCK)
  : >"$scratch/cpu"
  t0=$(date +%s.%N)
  for i in $(seq 1 10); do
    sleep "$(awk -v s="$real_s" 'BEGIN {print s / 10}')"
    # watch's own utime + stime (fields 14, 15), not its children's
    awk -v t0="$t0" -v now="$(date +%s.%N)" '{print now - t0, $14 + $15}' "/proc/$wpid/stat" >>"$scratch/cpu" 2>/dev/null
  done
  wait "$wpid"
  python3 - "$d" "$scratch/cpu" "$hz" <<'EOF'
import csv, json, statistics, sys
d, cpu, hz = sys.argv[1], sys.argv[2], int(sys.argv[3])
run = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/samples.csv")))
pts = [tuple(map(float, l.split())) for l in open(cpu)]
print("| tenth | wall s | ticks so far (one a ms) | watch CPU us/tick, this tenth | median tick_us, this tenth |")
print("| ---: | ---: | ---: | ---: | ---: |")
pt, pc = 0.0, 0.0
for i, (t, c) in enumerate(pts):
    c /= hz
    tick = [float(r["tick_us"]) for r in rows if pt * 1e3 <= float(r["t_ms"]) < t * 1e3]
    print("| %d | %.0f | %d | %.1f | %.0f |" % (i + 1, t, t * 1e3, (c - pc) / ((t - pt) * 1e3) * 1e6,
                                            statistics.median(tick) if tick else float("nan")))
    pt, pc = t, c
print()
print("ticks %d, rows kept %d, median tick %.0f us (run.json)" % (run["summary"]["ticks"], len(rows),
                                                                   run["summary"]["median_tick_us"]))
EOF
  rm -rf "$d"
fi
echo
echo "- load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); wall time of the benchmark: $(($(date +%s) - t_start)) s"
