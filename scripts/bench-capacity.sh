#!/usr/bin/env bash
# Prediction error of the capacity model at pw values it did not see, on the
# CPU backend: for each circuit size, `zkbench sweep --pw 1,2,4` fits the
# model on the pw 1 run and predicts pw 2 and 4, which are then measured.
# Once with jemalloc's decay at 0 (freed pages returned at once) and once
# with jemalloc's defaults (10 s decay: freed pages stay as je_dirty).
# Prints one markdown table (results/capacity-cpu.md holds the last one).
#   bash scripts/bench-capacity.sh [OUT_DIR] [SIZES]   (default 15,16; ZKBENCH: the binary, default build/harness/zkbench)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/zkbench-bench-capacity}
sizes=${2:-15,16}
zk=${ZKBENCH:-build/harness/zkbench}
export ZKBENCH_PARAMS_DIR=${ZKBENCH_PARAMS_DIR:-$out/params}
mkdir -p "$out"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(date -u +%F); commit $(git rev-parse --short=12 HEAD)"
echo
echo "| circuit | allocator | pw | measured peak (MiB) | predicted (MiB) | 95% interval (MiB) | error of peak | error of working set |"
echo "|---|---|---:|---:|---:|---|---:|---:|"
for s in ${sizes//,/ }; do
  # the parameters first: generating them peaks far above the work, and
  # every run below should map them from the cache alike
  "$zk" batch --circuit porep:constraints=2^$s --partitions 1 --count 1 --out "$out/setup-2e$s" >/dev/null 2>&1
  for alloc in decay-0 default; do
    conf=""
    [ $alloc = decay-0 ] && conf="dirty_decay_ms:0,muzzy_decay_ms:0"
    d=$out/2e$s-$alloc
    rm -rf "$d"
    MALLOC_CONF=$conf "$zk" sweep --pw 1,2,4 --circuit porep:constraints=2^$s --partitions 4 --count 2 \
      --concurrency 2 --out "$d" >"$d.log" 2>&1 || { echo "sweep 2^$s $alloc failed: $(tail -3 "$d.log")" >&2; continue; }
    python3 - "$d" "2^$s" "$alloc" <<'PY'
import csv, json, sys
d, circ, alloc = sys.argv[1:]
base = json.load(open(d + "/pw-1/run.json"))["baseline"]["rss"]
M = 2**20
for r in csv.DictReader(open(d + "/sweep.csv")):
    pk, pr = float(r["peak_rss"]), float(r["predicted_peak_rss"] or "nan")
    lo, hi = float(r["predicted_low"] or "nan"), float(r["predicted_high"] or "nan")
    seen = " (fitted)" if r["pw"] == "1" else ""
    print("| porep %s, 4 partitions, 2 in flight | %s | %s%s | %.1f | %.1f | %.1f .. %.1f | %+.1f%% | %+.1f%% |"
          % (circ, alloc, r["pw"], seen, pk / M, pr / M, lo / M, hi / M, 100 * (pr - pk) / pk,
             100 * (pr - pk) / (pk - base)))
PY
  done
done
echo
echo "command: bash scripts/bench-capacity.sh $out $sizes"
