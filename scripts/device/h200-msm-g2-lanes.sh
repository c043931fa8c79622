#!/usr/bin/env bash
# Issue 30, third round: the G2 bucket accumulation on a pair of lanes
# (kernels/fp2_pair.cuh) against one thread a bucket chunk, on the GPU
# machine, over binaries built here (BIN, from scripts/device/pack-gpu.sh).
# A build whose accumulation took its variant from ZKBENCH_MSM_G2_ACC
# (thread: one thread, 255 registers; pair3: a pair of lanes held to 168
# registers; pair4: held to 128) times the three in one call. The switch
# was removed once measured: this script reproduces the table at the commit
# named in results/h200/msm-g2-lanes.md.
#   OUT=... bash scripts/device/h200-msm-g2-lanes.sh [BIN] check   # tests, sanitizers, variants
#   OUT=... bash scripts/device/h200-msm-g2-lanes.sh [BIN] table   # beside sppark (h200-msm-vs-sppark.sh)
set -uo pipefail
bin=${1:-.device/gpu}
part=${2:-check}
out=${OUT:?set OUT to a folder for the logs}
[ -d "$bin" ] || tar xJf .device/gpu.tar.xz -C .device
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0
logs=$out/logs
mkdir -p "$logs"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$logs/gpu.txt" 2>&1

if [ "$part" = check ]; then
  # GPU = CPU: the field ops, the MSM net to 2^18 (G2 at the even sizes,
  # five scalar patterns: the ones' kernel too), whole proofs
  for t in test_gpu_field test_gpu_msm test_gpu_groth16; do
    s=$(date +%s)
    ZKB_GPU_TEST_NET=18 timeout 200 "$bin/$t" >"$logs/$t.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "$t: exit $rc, $(( $(date +%s) - s )) s: $(tail -1 "$logs/$t.log")"
  done
  # the sanitizers at small sizes, all at once: memory errors, races, and
  # synccheck for the pair's shuffles (their masks name both lanes)
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in memcheck racecheck synccheck; do
    extra=()
    [ $tool = memcheck ] && extra=(--leak-check full --report-api-errors no)
    ZKB_GPU_TEST_SMALL=1 timeout 240 "$cs" --tool $tool "${extra[@]}" "$bin/test_gpu_msm" \
      >"$logs/sanitizer-$tool.log" 2>&1 &
  done
  wait
  for tool in memcheck racecheck synccheck; do
    echo "test_gpu_msm under $tool (small): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|errors|hazards' "$logs/sanitizer-$tool.log" | tail -1)"
  done
  for v in thread pair3 pair4; do
    ZKBENCH_MSM_G2_ACC=$v timeout 150 "$bin/bench_gpu_prover" --ntt-max 0 --h-max 0 --g1-max 0 --g2-max 24 \
      --reps 3 --max-ms 3000 >"$logs/g2-$v.md" 2>"$logs/g2-$v.err" || status=1
    echo "## ZKBENCH_MSM_G2_ACC=$v"
    grep -F "| G2 MSM" "$logs/g2-$v.md"
  done
else
  REPS=${REPS:-3} NET=${NET:-16} OUT=$logs bash scripts/device/h200-msm-vs-sppark.sh "$bin" 24 | tee "$logs/table.md"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
tar czf "$out/logs-$part.tar.gz" -C "$out" logs && rm -rf "$logs"
exit $status
