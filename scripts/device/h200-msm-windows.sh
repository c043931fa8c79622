#!/usr/bin/env bash
# The GPU MSM's window widths by size (results/h200/msm-windows.md): the
# MSM test, then the kernel benchmark once per width (ZKBENCH_MSM_WINDOW,
# G1 to 2^24, G2 to 2^G2MAX) and sppark v0.1.15 in the same call; the
# files packed into $OUT/cw.tar.gz (the device tool returns a few files).
#   OUT=... [WIDTHS="16 13 ..."] [G2MAX=22] bash scripts/device/h200-msm-windows.sh
# Binaries from .device/gpu (scripts/device/pack-gpu.sh).
set -u
[ -d .device/gpu ] || tar xJf .device/gpu.tar.xz -C .device
D=$PWD/.device/gpu
export LD_LIBRARY_PATH=$D
W=$OUT/cw
mkdir -p "$W"
t0=$SECONDS
{ date -u; cat "$D/COMMIT"; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } >"$W/machine.txt" 2>&1
timeout 150 "$D/test_gpu_msm" >"$W/test_gpu_msm.log" 2>&1
echo "test_gpu_msm rc=$? $(tail -1 "$W/test_gpu_msm.log") at $((SECONDS - t0)) s"
for w in ${WIDTHS:-16 12 13 14 10 11 15 18 20}; do
  ZKBENCH_MSM_WINDOW=$w timeout 100 "$D/bench_gpu_prover" --ntt-max 0 --h-max 0 --g1-max 24 --g2-max "${G2MAX:-22}" \
    --reps 3 --max-ms 2000 >"$W/bench-c$w.md" 2>"$W/bench-c$w.err"
  echo "c=$w rc=$? at $((SECONDS - t0)) s"
  [ $((SECONDS - t0)) -gt 480 ] && break # a call has 600 s
done
timeout 90 "$D/sppark-anchor" --max-log 24 >"$W/sppark.txt" 2>&1
echo "sppark rc=$? at $((SECONDS - t0)) s"
tar czf "$OUT/cw.tar.gz" -C "$OUT" cw
