#!/usr/bin/env bash
# Issue 10 on the H200 machine, GPU backend, porep partitions of SIZE
# constraints (4 partitions a proof, 2 proofs in flight), in two phases so
# each fits one device call:
#   PHASE=fit: the memory cap's unit test on cgroup v2; parameters once; a
#     sweep at pw 1 and 3 under a generous cap (the model fits pw 1 and
#     predicts pw 3, which is then measured); writes $OUT/cap.txt, a cap
#     halfway between the predicted peaks at pw CAP_PW and CAP_PW + 1, less
#     the file-backed RSS (the mapped parameters) a cgroup does not charge.
#   PHASE=verify CAP=BYTES: `sweep --pw 1 --mem-limit CAP --verify`: the
#     model of a capped pw 1 run predicts the largest pw, which must
#     complete, and the next, which must be OOM-killed; every run analyzed.
# Run folders (without buffer logs over 8 MiB) come back in $OUT/runs.tar.gz.
#   OUT=... PHASE=fit SIZE=2^23 bash scripts/device/h200-capacity.sh
# Needs .device/ with zkbench and test_memcap_unit (built here, carried).
set -uo pipefail
D=$PWD/.device
Z=$D/zkbench
SIZE=${SIZE:-2^23}
PHASE=${PHASE:-fit}
CAP_PW=${CAP_PW:-3}
export ZKBENCH_PARAMS_DIR=/tmp/zkparams
R=$OUT/r
mkdir -p "$R"
trap 'find "$R" -name buffers.csv -size +8M -delete; tar czf "$OUT/runs.tar.gz" -C "$OUT" r' EXIT
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
common=(--backend gpu --circuit porep:constraints=$SIZE --partitions 4 --count 2 --concurrency 2)
"$Z" version | tee "$R/version.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$R/gpu.txt"

if [ "$PHASE" = fit ]; then
  stamp "cgroup: $(stat -fc %T /sys/fs/cgroup) $(cat /proc/self/cgroup)"
  timeout 60 "$D/test_memcap_unit" >"$R/memcap-unit.log" 2>&1
  stamp "memcap unit test exit $?"; tail -3 "$R/memcap-unit.log"
  timeout 240 "$Z" batch --backend gpu --circuit porep:constraints=$SIZE --partitions 1 --count 1 --pw 1 \
    --out "$R/setup" >"$R/setup.log" 2>&1
  stamp "parameters + one partition: exit $?"; grep -E "parameters|uploaded|done:|proof wall" "$R/setup.log"
  timeout 400 "$Z" sweep --pw 1,3 --mem-limit 100G "${common[@]}" --out "$R/fit" >"$R/fit.log" 2>&1
  stamp "sweep --pw 1,3 exit $?"; cat "$R/fit.log"; cat "$R/fit/sweep.md"
  # a cgroup charges what is not file-backed (the mapped parameters are
  # already in the page cache): the cap is the RSS midpoint less that part
  python3 - "$R/fit/sweep-model.csv" "$CAP_PW" "$R/fit/pw-1/samples.csv" >"$OUT/cap.txt" <<'PY'
import csv, sys
p = {int(r["pw"]): float(r["predicted_peak_rss"]) for r in csv.DictReader(open(sys.argv[1]))}
k = int(sys.argv[2])
peak = max(csv.DictReader(open(sys.argv[3])), key=lambda r: int(r["rss"]))
print(int((p[k] + p[k + 1]) / 2) - int(peak["rss_file"]))
PY
  stamp "cap halfway between the predicted pw $CAP_PW and $((CAP_PW + 1)): $(cat "$OUT/cap.txt") bytes"
  sed -n '/^capacity/,/^timing/p' "$R/fit/pw-1.analyze.txt" 2>/dev/null || "$Z" analyze "$R/fit/pw-1" | sed -n '/^capacity/,/^timing/p'
else
  [ -f "$ZKBENCH_PARAMS_DIR"/*.params ] 2>/dev/null || stamp "no parameters cached: the first batch generates them"
  timeout 560 "$Z" sweep --pw 1 --mem-limit "$CAP" --verify "${common[@]}" --out "$R/verify" >"$R/verify.log" 2>&1
  stamp "sweep --verify exit $?"; cat "$R/verify.log"; cat "$R/verify/sweep.md"
  for d in "$R"/verify/pw-1 "$R"/verify/verify-pw-*; do
    [ -d "$d" ] || continue
    "$Z" analyze "$d" >"$d.analyze.txt" 2>&1
    echo "== $(basename "$d"): $(sed -n 2,3p "$d.analyze.txt" | tr -s ' ')"
  done
fi
stamp end
