#!/usr/bin/env bash
# Builds, on the development machine, what scripts/device/h200-trace.sh runs
# on the GPU machine, into .device/ (carried there): zkbench and its trace
# libraries from BUILD_DIR, tests/trace/gpu/leak_gpu.cu built with the CUDA
# runtime shared (leak_gpu_shared, with libcudart.so.13 beside it) and
# static (leak_gpu_static), both for sm_90.
#   bash scripts/device/build-trace-gpu.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
b=${1:-build}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
root=$(sh scripts/cuda_root.sh "$nvcc")
d=.device
mkdir -p "$d"
cp "$b/harness/zkbench" "$b/harness/trace/libzkbench-trace.so" "$d/"
if [ -f "$b/harness/trace/libzkbench-cupti.so" ]; then
  cp "$b/harness/trace/libzkbench-cupti.so" "$d/"
else
  echo "build-trace-gpu: $b has no libzkbench-cupti.so (CUPTI not found at configure time)" >&2
  exit 1
fi
for mode in shared static; do
  "$nvcc" -arch=sm_90 -g -O1 -Xcompiler -fno-omit-frame-pointer -cudart "$mode" \
    -o "$d/leak_gpu_$mode" tests/trace/gpu/leak_gpu.cu
done
cp -L "$root/lib64/libcudart.so.13" "$d/" 2>/dev/null || cp -L "$root/lib/libcudart.so.13" "$d/"
git rev-parse --short HEAD >"$d/COMMIT"
ls -la "$d"
