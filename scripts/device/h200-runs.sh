#!/usr/bin/env bash
# Everything zkbench measures on the H200 machine, in one call that fits its
# 10-minute limit: GPU tests, self-check, a GPU-backend batch whose proofs
# must verify, the 20-proof batch, the pw sweep, the planted faults, the
# sampler's overhead and the GPU kernel benchmark. Runs from the repository
# root over binaries built on the development machine and carried in .device/
# (zkbench, the GPU tests, libgmp); writes everything under $OUT/r and packs
# it into $OUT/runs.tar.gz (the device returns at most 8 files).
#   OUT=... bash scripts/device/h200-runs.sh
set -uo pipefail
D=$PWD/.device
Z=$D/zkbench
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
export ZKBENCH_PARAMS_DIR=/tmp/zkparams
R=$OUT/r
mkdir -p "$R"
t0=$SECONDS
step() { echo "== $* (at $((SECONDS - t0)) s)" | tee -a "$R/steps.txt"; }
pack() { tar czf "$OUT/runs.tar.gz" -C "$OUT" r; }
trap pack EXIT

step machine
{ date -u '+%Y-%m-%d %H:%M UTC'; "$Z" version; nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
  echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"

step gpu tests
for t in test_gpu_field test_gpu_ntt test_gpu_msm; do
  timeout 150 "$D/$t" >"$R/$t.log" 2>&1
  echo "$t exit $?" | tee -a "$R/gpu-tests.txt"
done
step selfcheck
timeout 60 "$Z" selfcheck >"$R/selfcheck.log" 2>&1; echo "selfcheck exit $?" | tee -a "$R/steps.txt"
tail -4 "$R/selfcheck.log"

step gpu backend batch
timeout 150 "$Z" batch --backend gpu --circuit porep:constraints=2^14 --partitions 4 --count 4 --concurrency 2 \
  --pw 4 --out "$R/batch-gpu-smoke" >"$R/batch-gpu-smoke.log" 2>&1
echo "gpu batch exit $?" | tee -a "$R/steps.txt"; tail -8 "$R/batch-gpu-smoke.log"

step 20-proof batch cpu backend
timeout 240 "$Z" batch --backend cpu --circuit porep:constraints=2^18 --partitions 10 --count 20 --concurrency 15 \
  --pw 8 --gpu-workers 2 --threads 8 --out "$R/batch20" >"$R/batch20.log" 2>&1
echo "batch20 exit $?" | tee -a "$R/steps.txt"; tail -8 "$R/batch20.log"
"$Z" analyze "$R/batch20" --ram 128G >"$R/batch20-analyze.txt" 2>&1; tail -5 "$R/batch20-analyze.txt"

step sweep
timeout 120 "$Z" sweep --pw 2,4,8 --ram 128G --backend cpu --circuit porep:constraints=2^16 --partitions 4 --count 4 \
  --gpu-workers 2 --threads 8 --out "$R/sweep" >"$R/sweep.log" 2>&1
echo "sweep exit $?" | tee -a "$R/steps.txt"; cat "$R/sweep/sweep.md" 2>/dev/null

step faults
common=(--backend cpu --circuit porep:constraints=2^14 --count 6 --partitions 4 --pw 2 --concurrency 2 --threads 4)
for f in "clean --trim proof" "leak --inject leak:aux" "pileup --inject pileup --gpu-queue 1" \
         "hold --inject hold:aux:5000" "serial --inject serial-dealloc:3000" "retention --inject no-purge --trim proof"; do
  set -- $f
  name=$1; shift
  timeout 60 "$Z" batch "${common[@]}" "$@" --out "$R/fault-$name" >"$R/fault-$name.log" 2>&1
  "$Z" analyze "$R/fault-$name" --json >"$R/fault-$name.json" 2>&1
  echo "$name: $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["verdict"], "-", j["reason"][:150])' "$R/fault-$name.json" 2>&1)" \
    | tee -a "$R/faults.txt"
done

step sampler overhead
timeout 100 bash scripts/bench-sampler.sh "$Z" 2 --backend cpu --threads 8 >"$R/sampler-overhead.md" 2>"$R/sampler-overhead.err"
tail -4 "$R/sampler-overhead.md"

step gpu kernel bench
left=$((560 - (SECONDS - t0)))
[ $left -gt 20 ] && timeout $left "$D/bench_gpu_prover" --ntt-max 26 --g1-max 20 --g2-max 18 --reps 3 >"$R/gpu-bench.txt" 2>&1
tail -20 "$R/gpu-bench.txt"
step done
