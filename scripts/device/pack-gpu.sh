#!/usr/bin/env bash
# Copies, on the development machine, what the scripts/device/h200-*.sh GPU
# runs need into .device/gpu (git-ignored; carried to the GPU machine):
# zkbench, the GPU tests and benchmarks from BUILD_DIR, libgmp (the tests'
# reference arithmetic), the sppark anchor when ../shared has it, and the
# commit they were built from; packed as .device/gpu.tar.xz, which the
# scripts unpack when .device/gpu is not there.
#   bash scripts/device/pack-gpu.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
b=${1:-build}
d=.device/gpu
mkdir -p "$d"
cp "$b/harness/zkbench" "$d/"
for t in test_gpu_field test_gpu_ntt test_gpu_msm test_gpu_groth16 test_gpu_setup bench_gpu_prover; do
  cp "$b/tests/gpu/$t" "$d/"
done
cp "$b/tests/params/bench_params_map" "$d/"
cp -L /usr/lib/x86_64-linux-gnu/libgmp.so.10 "$d/"
# the anchor is a binary in ../shared/peers (older layouts: a folder of that name holding it)
for a in ../shared/peers/sppark-anchor ../shared/peers/sppark-anchor/sppark-anchor; do
  if [ -f "$a" ] && [ -x "$a" ]; then cp "$a" "$d/sppark-anchor"; break; fi
done
# symbols stay here: stripped, the carry fits the 64 MiB beside the tree
strip --strip-debug "$d"/zkbench "$d"/test_gpu_* "$d"/bench_gpu_prover "$d"/bench_params_map
git describe --always --dirty --abbrev=12 >"$d/COMMIT"
du -sh "$d"
# the working tree and the carried folder travel in 64 MiB at most
XZ_OPT=-9 tar cJf .device/gpu.tar.xz -C .device gpu
du -sh .device/gpu.tar.xz
