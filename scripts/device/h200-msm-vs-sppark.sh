#!/usr/bin/env bash
# zkbench's GPU MSM and NTT beside sppark v0.1.15 (../shared/peers/
# sppark-anchor, copied into BIN) in one call on the GPU machine: the MSM
# test first (GPU = CPU bit for bit), then zkbench's benchmark and sppark's,
# one after the other, then one side-by-side table on stdout and the rows
# of results/h200/kernels-vs-sppark.csv in $OUT/kernels-vs-sppark.csv
# (benchmark,size,zkbench_ms,sppark_ms,ratio,date,commit; the row
# witness_vs_random_g1 has the repeated-values MSM as zkbench_ms, no
# sppark_ms, and as ratio its time over the random-scalar MSM's).
#   OUT=... bash scripts/device/h200-msm-vs-sppark.sh [BIN] [MAX_LOG]
# TEST_S, BENCH_S, SPPARK_S (time limits), REPS and NET (the test's correctness
# net up to 2^NET, ZKB_GPU_TEST_NET) fit it to a short budget.
# BIN holds test_gpu_msm, bench_gpu_prover, sppark-anchor and COMMIT.
set -uo pipefail
bin=${1:-.device}
max=${2:-24}
out=${OUT:?set OUT to a folder for the logs}
status=0

# the MSM test with issue 11's correctness net up to 2^NET (default 20)
ZKB_GPU_TEST_NET=${NET:-20} timeout ${TEST_S:-300} "$bin/test_gpu_msm" >"$out/test_gpu_msm.log" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
echo "test_gpu_msm (net to 2^${NET:-20}): exit $rc ($(tail -1 "$out/test_gpu_msm.log"))" >&2

timeout ${BENCH_S:-300} "$bin/bench_gpu_prover" --ntt-max "$max" --h-max 0 --g1-max "$max" --g2-max "$max" --reps ${REPS:-5} \
  --max-ms 3000 >"$out/zkbench.md" 2>"$out/zkbench.err" || status=1
timeout ${SPPARK_S:-200} "$bin/sppark-anchor" --max-log "$max" >"$out/sppark.txt" 2>&1 || status=1

echo "# GPU MSM and NTT: zkbench beside sppark v0.1.15, one call"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); zkbench commit $(cat "$bin/COMMIT" 2>/dev/null || echo unknown)"
echo "- GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1); host $(nproc) cores"
echo "- command: scripts/device/h200-msm-vs-sppark.sh $bin $max"
echo "- zkbench: median of 5 after a warm-up (3 at 2^24 and up), wall clock around the call; sppark: median of 5 after a warm-up"
echo
echo "| benchmark | size | zkbench ms | sppark ms | zkbench / sppark | zkbench phases: setup / digits / sort / bases / buckets / reduce |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
csv=$out/kernels-vs-sppark.csv
day=$(date -u +%Y-%m-%d) commit=$(cat "$bin/COMMIT" 2>/dev/null || echo unknown)
echo "benchmark,size,zkbench_ms,sppark_ms,ratio,date,commit" >"$csv"
pair() { # zkbench row label, sppark name, csv benchmark name
  grep -F "| $1 |" "$out/zkbench.md" | while IFS='|' read -r _ what size ms reps phases _; do
    size=$(echo $size); ms=$(echo $ms)
    sp=$(awk -v n="$2" -v s="n=$size" '$1 == "sppark" && $2 == n && $3 == s { sub("ms=", "", $4); print $4 }' "$out/sppark.txt")
    ratio=$(awk -v a="$ms" -v b="$sp" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    echo "| $1 | $size | $ms | ${sp:--} | $ratio |$phases|"
    [ -n "$sp" ] && echo "$3,$size,$ms,$sp,$ratio,$day,$commit" >>"$csv"
  done
}
# the repeated-values G1 MSM over the random one of the same size
witness() {
  grep -F "| G1 MSM, resident bases, page-locked scalars, 250 values repeated |" "$out/zkbench.md" |
    while IFS='|' read -r _ what size ms reps phases _; do
      size=$(echo $size); ms=$(echo $ms)
      rnd=$(grep -F "| G1 MSM, resident bases, page-locked scalars | $size |" "$out/zkbench.md" | awk -F'|' '{ print $4 }' | tr -d ' ')
      ratio=$(awk -v a="$ms" -v b="$rnd" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
      echo "| G1 MSM, 250 values repeated / random scalars | $size | $ms | random: ${rnd:--} | $ratio |$phases|"
      echo "witness_vs_random_g1,$size,$ms,,$ratio,$day,$commit" >>"$csv"
    done
}
pair "G1 MSM, resident bases, page-locked scalars" g1_msm_dev g1_msm_resident
pair "G1 MSM, host bases + scalars" g1_msm_host g1_msm_host
pair "G2 MSM, resident bases, page-locked scalars" g2_msm_dev g2_msm_resident
pair "G2 MSM, host bases + scalars" g2_msm_host g2_msm_host
pair "Fr NTT forward, on device" ntt_dev_nn ntt_device
witness
echo
echo "Rows zkbench has and sppark does not (pageable scalars with resident bases):"
echo
grep -F "resident bases, host scalars" "$out/zkbench.md"
exit $status
