#!/usr/bin/env bash
# Issue 12's "2 GPUs vs 1" on the two-GPU machine (device kind
# nvidia-h200-x2), in one call: the GPU tests with both devices present
# (test_gpu_batch runs --gpus all), then the same GPU batches on GPU 0 and
# on both GPUs (scripts/device/h200-pipeline.sh, GPUS=0 and GPUS=all), their
# table (pipeline_table.py) and the throughput ratios in $OUT/two-gpus.md:
# s/proof, the GPU span per partition (from the stage rows, so the
# batch's start and end weigh less), and the steady rate (seconds per
# partition between the 10th and 90th percentile of the prove stages'
# ends). Runs from the repository root over the binaries carried in
# .device/gpu.tar.xz.
# NO_TEST=1 leaves the tests out; THREADS (default 16) is the batches' --threads.
#   OUT=... SIZE=2^22 PWS="8" WORKERS="2" COUNT=4 PARTS=10 bash scripts/device/h200-two-gpus.sh
set -uo pipefail
here=$(dirname "$0")
export SIZE=${SIZE:-2^22} PWS=${PWS:-8} WORKERS=${WORKERS:-2} COUNT=${COUNT:-4} PARTS=${PARTS:-10}
export BATCH_TIMEOUT=${BATCH_TIMEOUT:-250}
[ -n "${NO_TEST:-}" ] || STEPS="tests" TAG=tests bash "$here/h200-pipeline.sh"
STEPS="batch" TAG=one GPUS=0 bash "$here/h200-pipeline.sh"
STEPS="batch" TAG=two GPUS=all bash "$here/h200-pipeline.sh"
runs=()
for w in $WORKERS; do
  for pw in $PWS; do
    runs+=("$OUT/one/b${SIZE#2^}-g0-w$w-pw$pw" "$OUT/two/b${SIZE#2^}-gall-w$w-pw$pw")
  done
done
{
  python3 "$here/pipeline_table.py" "${runs[@]}"
  echo
  python3 - "${runs[@]}" <<'PY'
import csv, json, sys

def measure(run):
    """s/proof; GPU span per partition (first GPU stage's start to last's
    end, over the partitions); and the steady rate: seconds per partition
    between the 10th and the 90th percentile of the prove stages' ends,
    which leaves out the start (each worker's first partition, synthesis
    filling the queue) and the tail (workers running out of partitions)."""
    s = json.load(open(f"{run}/run.json"))["summary"]["s_per_proof"]
    stages = list(csv.DictReader(open(f"{run}/stages.csv")))
    rows = [r for r in stages if r["stage"] in ("h", "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2")]
    ends = sorted(float(r["t_end_ms"]) for r in stages if r["stage"] == "prove")
    span = (max(float(r["t_end_ms"]) for r in rows) - min(float(r["t_start_ms"]) for r in rows)) / 1e3
    k1, k2 = len(ends) // 10, len(ends) - 1 - len(ends) // 10
    steady = (ends[k2] - ends[k1]) / (k2 - k1) / 1e3
    return s, span / len(ends), steady

runs = sys.argv[1:]
for one, two in zip(runs[::2], runs[1::2]):
    try:
        (s1, g1, r1), (s2, g2, r2) = measure(one), measure(two)
    except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
        print(f"- {one.split('/')[-1]}: no ratio ({e})")
        continue
    print(f"- {one.split('/')[-1]}: 2 GPUs vs 1: {s1 / s2:.2f}x by s/proof ({s1:.2f} -> {s2:.2f} s), "
          f"{g1 / g2:.2f}x by GPU span per partition ({g1:.3f} -> {g2:.3f} s), "
          f"{r1 / r2:.2f}x by steady rate ({r1:.3f} -> {r2:.3f} s a partition, 10th-90th percentile of prove ends); "
          f"target >= 1.8x")
PY
} | tee "$OUT/two-gpus.md"
