#!/usr/bin/env bash
# The planted faults, a clean run and a GPU-backend batch on the H200
# machine, each analyzed there; packs $OUT/r into $OUT/runs.tar.gz.
#   OUT=... bash scripts/device/h200-faults.sh
set -uo pipefail
D=$PWD/.device
Z=$D/zkbench
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
export ZKBENCH_PARAMS_DIR=/tmp/zkparams
R=$OUT/r
mkdir -p "$R"
trap 'tar czf "$OUT/runs.tar.gz" -C "$OUT" r' EXIT
"$Z" version >"$R/version.txt"
common=(--backend cpu --circuit porep:constraints=2^14 --count 6 --partitions 4 --pw 2 --concurrency 2 --threads 4)
for f in "clean --trim proof" "leak --inject leak:aux" "pileup --inject pileup --gpu-queue 1" \
         "hold --inject hold:aux:5000" "serial --inject serial-dealloc:3000" "retention --inject no-purge --trim proof"; do
  set -- $f
  name=$1; shift
  timeout 60 "$Z" batch "${common[@]}" "$@" --out "$R/fault-$name" >"$R/fault-$name.log" 2>&1
  "$Z" analyze "$R/fault-$name" --json >"$R/fault-$name.json" 2>&1
  echo "$name ($*): $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["verdict"], "-", j["reason"])' "$R/fault-$name.json" 2>&1)" \
    | tee -a "$R/faults.txt"
done
timeout 120 "$Z" sweep --pw 2,4,8 --ram 128G --backend cpu --trim proof --circuit porep:constraints=2^16 --partitions 4 \
  --count 4 --gpu-workers 2 --threads 8 --out "$R/sweep" >"$R/sweep.log" 2>&1
echo "sweep exit $?"; cat "$R/sweep/sweep.md"
timeout 150 "$Z" batch --backend gpu --circuit porep:constraints=2^16 --partitions 4 --count 6 --concurrency 3 \
  --pw 4 --trim proof --out "$R/batch-gpu" >"$R/batch-gpu.log" 2>&1
echo "gpu batch exit $?"; tail -8 "$R/batch-gpu.log"
"$Z" analyze "$R/batch-gpu" --ram 128G >"$R/batch-gpu-analyze.txt" 2>&1; head -12 "$R/batch-gpu-analyze.txt"
