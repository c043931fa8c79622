#!/usr/bin/env bash
# A long watch stays cheap (issue 27, item 3), at an accelerated tick:
# `zkbench watch --sample-ms 1` of a steady program with a small sawtooth
# for DURATION seconds (default 120: 120,000 ticks, which at the 100 ms
# default is 3.3 hours), thinned after 10 s in intervals of 1 s, beside the
# same unthinned. Per run: ticks, rows on disk, samples.csv and procs.csv
# bytes, watch's own CPU seconds (/usr/bin/time of watch less that of the
# watched program, timed on its own), the median tick cost in the
# first and the last tenth of the run (samples.csv tick_us, the rows kept),
# and analyze's wall time. Prints the markdown table results/long-watch.md
# holds.
#   scripts/bench-long-watch.sh [SCRATCH_DIR]     (default /tmp/zkbench-long)
# Environment: ZKBENCH (default build/harness/zkbench), DURATION (seconds).
set -uo pipefail
cd "$(dirname "$0")/.."
zk=$(realpath "${ZKBENCH:-build/harness/zkbench}")
dur=${DURATION:-120}
scratch=${1:-/tmp/zkbench-long}
[ -x "$zk" ] || { echo "bench-long-watch: no zkbench at $zk (scripts/build.sh, or set ZKBENCH)" >&2; exit 2; }
rm -rf "$scratch" && mkdir -p "$scratch"
cat >"$scratch/steady.py" <<EOF
import time
t0 = time.time(); a = []
while time.time() - t0 < $dur:
    a.append(bytearray(1 << 18))
    if len(a) >= 40: a = []
    time.sleep(0.005)
EOF
echo "| run | ticks | rows kept | samples.csv | procs.csv | watch CPU s | CPU us/tick | median tick, first tenth | median tick, last tenth | analyze s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for mode in thinned full; do
  args=(--thin-after 10 --thin-interval 1)
  [ "$mode" = full ] && args=(--thin-after 0)
  d=$scratch/$mode
  # the watched program timed on its own: /usr/bin/time's figure for watch
  # includes its descendants, which are not watch's cost
  /usr/bin/time -f "%U %S" -o "$scratch/time" "$zk" watch --sample-ms 1 "${args[@]}" --quiet --out "$d" -- \
    /usr/bin/time -f "%U %S" -o "$scratch/child" python3 "$scratch/steady.py" >/dev/null 2>&1
  read -r u s <"$scratch/time"
  read -r cu cs <"$scratch/child"
  u=$(awk -v a="$u" -v b="$cu" 'BEGIN {print a - b}')
  s=$(awk -v a="$s" -v b="$cs" 'BEGIN {print a - b}')
  t0=$(date +%s.%N)
  "$zk" analyze "$d" >/dev/null 2>&1
  t1=$(date +%s.%N)
  python3 - "$d" "$mode" "$u" "$s" "$t0" "$t1" <<'EOF'
import csv, json, os, statistics, sys
d, mode, u, s, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
run = json.load(open(d + "/run.json"))
ticks = run["summary"]["ticks"]
rows = list(csv.DictReader(open(d + "/samples.csv")))
end = float(rows[-1]["t_ms"])
first = [float(r["tick_us"]) for r in rows if float(r["t_ms"]) < end / 10]
last = [float(r["tick_us"]) for r in rows if float(r["t_ms"]) > end * 0.9]
mb = lambda f: "%.1f MB" % (os.path.getsize(d + "/" + f) / 1e6)
print("| %s | %d | %d | %s | %s | %.1f | %.1f | %.0f us | %.0f us | %.2f |" % (
    mode, ticks, len(rows), mb("samples.csv"), mb("procs.csv"), u + s, (u + s) / ticks * 1e6,
    statistics.median(first), statistics.median(last), t1 - t0))
EOF
done
