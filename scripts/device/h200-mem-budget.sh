#!/usr/bin/env bash
# issue 29's claim on the GPU (results/h200/what-if.md): under a host memory cap (cgroup v2) that
# OOM-kills the fastest fixed pw of a 2^24 batch, --mem-budget completes within 5 % of the best survivor;
#   OUT=... bash scripts/device/h200-mem-budget.sh   (binaries from .device/gpu, scripts/device/pack-gpu.sh)
# The table is scripts/bench-mem-budget.sh's, run with BACKEND=gpu; raw run.json files in budget/runs.
# --threads 4: synthesis bound at low pw, as production's (one partition's synthesis does not use the
# host's 16 cores), so a higher pw is faster; --params-load heap: the parameters are anonymous memory,
# which the cap charges and the budget counts alike (mapped from a warm page cache, a cgroup does not
# charge them, while the budget, which counts RSS, does).
set -u
[ -d .device/gpu ] || tar xJf .device/gpu.tar.xz -C .device
D=$PWD/.device/gpu
export LD_LIBRARY_PATH=$D ZKBENCH_PARAMS_DIR=/tmp/zkp
W=$OUT/budget
mkdir -p "$W"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$W/gpu.txt" 2>&1
t0=$SECONDS
BATCH_ARGS=${BATCH_ARGS:---threads 4 --params-load heap} BACKEND=gpu CIRCUIT=${CIRCUIT:-porep:constraints=2^24} PARTITIONS=${PARTITIONS:-4} COUNT=${COUNT:-2} \
  PWS=${PWS:-1 2 3 4} ROOMY=${ROOMY:-120G} KEEP=$W/runs COMMIT=$(cat "$D/COMMIT") \
  timeout ${LIMIT:-570} bash scripts/bench-mem-budget.sh "$D/zkbench" "${REPS:-2}" > "$W/table.md" 2> "$W/err.log"
echo "bench rc=$? after $((SECONDS - t0)) s"
cat "$W/table.md"; tail -5 "$W/err.log"
tar czf "$OUT/budget.tar.gz" -C "$OUT" budget
