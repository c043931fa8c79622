#!/usr/bin/env bash
# Issue 24's first GPU checks in one call (about 8 minutes): the GPU tests
# after the MSM went to passes (GPU = CPU, resident and streamed bases), the
# 2^27 spot check (one G1 and one G2 MSM of 2^27 against the CPU), and one
# porep partition's stages with their device times at 2^24 (resident, and
# streamed under --gpu-mem 24G) and 2^26. Binaries from .device/gpu
# (scripts/device/pack-gpu.sh); results under $OUT/r, packed into
# $OUT/scale.tar.gz.
#   OUT=... bash scripts/device/h200-scale.sh [STEPS]
# STEPS: any of tests large bench (default all three).
set -uo pipefail
[ -d .device/gpu ] || tar xJf .device/gpu.tar.xz -C .device
D=$PWD/.device/gpu
Z=$D/zkbench
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
export ZKBENCH_PARAMS_DIR=/tmp/zkparams
R=$OUT/r
mkdir -p "$R"
steps=${1:-tests large bench}
t0=$SECONDS
step() { echo "== $* (at $((SECONDS - t0)) s)" | tee -a "$R/steps.txt"; }
pack() { tar czf "$OUT/scale.tar.gz" -C "$OUT" r; }
trap pack EXIT
T=$(nproc)

step machine
{ date -u '+%Y-%m-%d %H:%M UTC'; "$Z" version; cat "$D/COMMIT"
  nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader
  echo "host: $T cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"; df -h /tmp | tail -1; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"

if [[ " $steps " == *" tests "* ]]; then
  step gpu tests
  for t in test_gpu_msm test_gpu_ntt test_gpu_groth16 test_gpu_setup; do
    timeout 200 "$D/$t" >"$R/$t.log" 2>&1
    echo "$t exit $? ($(grep -c FAIL "$R/$t.log") FAIL lines)" | tee -a "$R/gpu-tests.txt"
    grep FAIL "$R/$t.log" | head -5
  done
fi
if [[ " $steps " == *" large "* ]]; then
  step spot check 2^27
  ZKB_GPU_TEST_LARGE=27 timeout 240 "$D/test_gpu_msm" >"$R/large.log" 2>&1
  echo "large exit $?"; grep -E "large|FAIL" "$R/large.log" | head
fi
if [[ " $steps " == *" bench "* ]]; then
  step bench prover 2^24 resident
  timeout 150 "$Z" bench prover --backend gpu --threads "$T" --repeat 3 --constraints 2^24 >"$R/bench-24.md" 2>&1
  echo "exit $?"; tail -3 "$R/bench-24.md"
  step bench prover 2^24 under --gpu-mem 8G
  timeout 150 "$Z" bench prover --backend gpu --threads "$T" --repeat 2 --constraints 2^24 --gpu-mem 8G >"$R/bench-24-8g.md" 2>&1
  echo "exit $?"; tail -2 "$R/bench-24-8g.md"
  step bench prover 2^26
  timeout 200 "$Z" bench prover --backend gpu --threads "$T" --repeat 1 --constraints 2^26 >"$R/bench-26.md" 2>&1
  echo "exit $?"; tail -2 "$R/bench-26.md"
fi
step done
