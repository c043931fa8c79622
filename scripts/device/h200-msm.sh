#!/usr/bin/env bash
# The GPU MSM and the GPU prover on the H200 machine, in one call that fits
# a short device budget: the MSM test (GPU = CPU bit for bit, workspace
# reuse, phase profile), the MSM benchmark with each call's phases (where
# the time goes), and one porep partition proved on the GPU backend at 2^20
# and 2^22 constraints with the stage breakdown. Runs from the repository
# root over binaries built on the development machine and carried in
# .device/ (zkbench, test_gpu_msm, bench_gpu_prover, libgmp); every step has
# its own time limit; logs go to $OUT.
#   OUT=... bash scripts/device/h200-msm.sh
set -uo pipefail
D=$PWD/.device
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
t0=$SECONDS
step() { echo "== $* (at $((SECONDS - t0)) s)" | tee -a "$OUT/steps.txt"; }

step machine
{ date -u '+%Y-%m-%d %H:%M UTC'; cat "$D/COMMIT" 2>/dev/null
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
  echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"; } >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

step test_gpu_msm
timeout 40 "$D/test_gpu_msm" >"$OUT/test_gpu_msm.log" 2>&1
echo "test_gpu_msm exit $?" | tee -a "$OUT/steps.txt"
tail -3 "$OUT/test_gpu_msm.log"

step msm bench
timeout 110 "$D/bench_gpu_prover" --ntt-max 0 --h-max 0 --g1-max 26 --g2-max 24 --reps 3 --max-ms 1500 \
  >"$OUT/msm-bench.md" 2>"$OUT/msm-bench.err"
echo "bench exit $?" | tee -a "$OUT/steps.txt"
cat "$OUT/msm-bench.md"; tail -5 "$OUT/msm-bench.err"

step prover on the gpu
timeout 90 "$D/zkbench" bench prover --backend gpu --constraints 2^20,2^22 --threads 16 --repeat 2 \
  >"$OUT/prover-gpu.md" 2>&1
echo "bench prover exit $?" | tee -a "$OUT/steps.txt"
cat "$OUT/prover-gpu.md"
step done
