#!/usr/bin/env bash
# Long runs stay cheap (issue 26, item 5): `zkbench analyze`, `plot` and
# `report` on samples.csv files of about 20 MB, 200 MB and 2 GB (a 2 GB
# one is about three weeks of watch at its 100 ms default), made by
# tests/hostile/gen_long_run.py in a scratch folder (never committed), with
# the wall time, the peak RSS (/usr/bin/time) and the figures' and report's
# sizes of each. Prints the markdown table results/bench-stream.md holds.
#   scripts/bench-stream.sh [SCRATCH_DIR]        (default /tmp/zkbench-stream)
# Environment: ZKBENCH (default build/harness/zkbench), SIZES (MB, default
# "20 200 2000"), KIND (watch or batch, default watch), OLD (a zkbench of
# another commit, run beside it on the sizes up to OLD_MAX_MB, default 200).
# The files are removed at the end unless KEEP=1.
set -uo pipefail
cd "$(dirname "$0")/.."
zk=$(realpath "${ZKBENCH:-build/harness/zkbench}")
old=${OLD:-}
old_max=${OLD_MAX_MB:-200}
sizes=${SIZES:-20 200 2000}
kind=${KIND:-watch}
scratch=${1:-/tmp/zkbench-stream}
[ -x "$zk" ] || { echo "bench-stream: no zkbench at $zk (scripts/build.sh, or set ZKBENCH)" >&2; exit 2; }
mkdir -p "$scratch"
free_mb=$(df -m --output=avail "$scratch" | tail -1)

# measure LABEL ZK ARGS...: "wall_s peak_MiB" of one command
measure() {
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/$label.out" 2>"$scratch/$label.err"
  local rc=$?
  read -r s kib <"$scratch/time"
  [ $rc -eq 0 ] || { echo "bench-stream: $label failed (exit $rc): $(tail -2 "$scratch/$label.err")" >&2; echo "fail -"; return; }
  echo "$s $((kib / 1024))"
}

echo "| samples.csv | rows | zkbench | analyze s | analyze peak RSS | plot s | plot peak RSS | memory.svg | report s | report.html |"
echo "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for mb in $sizes; do
  need=$((mb * 2 + 100))
  [ "$free_mb" -gt "$need" ] || { echo "bench-stream: $mb MB: not enough room in $scratch" >&2; continue; }
  run=$scratch/run-$mb
  rm -rf "$run"
  python3 tests/hostile/gen_long_run.py "$run" --mb "$mb" --kind "$kind" >"$scratch/gen.json" || exit 2
  rows=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"])' "$scratch/gen.json")
  bytes=$(stat -c %s "$run/samples.csv")
  for which in new old; do
    z=$zk
    if [ $which = old ]; then
      [ -n "$old" ] && [ "$mb" -le "$old_max" ] || continue
      z=$(realpath "$old")
    fi
    read -r as am < <(measure analyze "$z" analyze "$run" --json)
    rm -rf "$run/figs"
    read -r ps pm < <(measure plot "$z" plot "$run" --out "$run/figs")
    svg=$(stat -c %s "$run/figs/memory.svg" 2>/dev/null || echo 0)
    read -r rs rm_ < <(measure report "$z" report "$run" -o "$run/report.html")
    html=$(stat -c %s "$run/report.html" 2>/dev/null || echo 0)
    ver=$("$z" -V | sed 's/.*commit \([0-9a-f]*\).*/\1/' | cut -c1-7)
    printf "| %.0f MB | %s | %s | %s | %s MiB | %s | %s MiB | %.2f MB | %s | %.2f MB |\n" \
      "$(echo "$bytes / 1000000" | bc -l)" "$rows" "$ver" "$as" "$am" "$ps" "$pm" \
      "$(echo "$svg / 1000000" | bc -l)" "$rs" "$(echo "$html / 1000000" | bc -l)"
  done
  [ "${KEEP:-0}" = 1 ] || rm -rf "$run"
done
