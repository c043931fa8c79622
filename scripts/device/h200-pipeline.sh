#!/usr/bin/env bash
# The GPU pipeline of issue 12 on the H200 machine, in one call: the GPU
# tests (whole proofs equal the CPU's, lanes proving at once, the overlap
# of two workers in a batch, --gpus), one partition's stage breakdown
# (zkbench bench prover), and GPU batches at pw 1..16 with 1 and 2 workers
# a device, each analyzed (GPU busy from the stage rows). Runs from the
# repository root over binaries built on the development machine and
# carried in .device/gpu (scripts/device/pack-gpu.sh); every step has its
# own time limit; everything goes under $OUT/$TAG (default r), packed into
# $OUT/$TAG.tar.gz.
#   OUT=... TAG=r STEPS="tests bench batch" SIZE=2^22 PWS="1 2 4 8 16" WORKERS="1 2" COUNT=2 CONCURRENCY=2 PARTS=10 \
#     THREADS=16 GPUS=0 bash scripts/device/h200-pipeline.sh
set -uo pipefail
D=$PWD/.device/gpu
[ -d "$D" ] || tar xJf .device/gpu.tar.xz -C .device
Z=$D/zkbench
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
export ZKBENCH_PARAMS_DIR=/tmp/zkparams
STEPS=${STEPS:-tests bench batch}
SIZE=${SIZE:-2^22}
PWS=${PWS:-1 2 4 8 16}
WORKERS=${WORKERS:-1 2}
COUNT=${COUNT:-2}
CONCURRENCY=${CONCURRENCY:-$COUNT}   # proofs in flight (--concurrency)
PARTS=${PARTS:-10}
THREADS=${THREADS:-16}
GPUS=${GPUS:-0}   # --gpus: "all" on the 2-GPU machine for the 2-vs-1 comparison
TAG=${TAG:-r}
R=$OUT/$TAG
mkdir -p "$R"
t0=$SECONDS
step() { echo "== $* (at $((SECONDS - t0)) s)" | tee -a "$R/steps.txt"; }
pack() { tar czf "$OUT/$TAG.tar.gz" -C "$OUT" "$TAG"; }
trap pack EXIT
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

step machine
{ date -u '+%Y-%m-%d %H:%M UTC'; cat "$D/COMMIT"; "$Z" version
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
  echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  ldd "$Z" | grep "not found"; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"

if has tests; then
  step gpu tests
  timeout 200 "$D/test_gpu_groth16" >"$R/test_gpu_groth16.log" 2>&1
  echo "test_gpu_groth16 exit $?" | tee -a "$R/steps.txt"; tail -8 "$R/test_gpu_groth16.log"
  timeout 60 "$D/test_gpu_ntt" >"$R/test_gpu_ntt.log" 2>&1
  echo "test_gpu_ntt exit $?" | tee -a "$R/steps.txt"; tail -3 "$R/test_gpu_ntt.log"
  timeout 60 "$D/test_gpu_msm" >"$R/test_gpu_msm.log" 2>&1
  echo "test_gpu_msm exit $?" | tee -a "$R/steps.txt"; tail -3 "$R/test_gpu_msm.log"
  timeout 150 bash tests/gpu/test_gpu_batch.sh "$Z" >"$R/test_gpu_batch.log" 2>&1
  echo "test_gpu_batch exit $?" | tee -a "$R/steps.txt"; tail -6 "$R/test_gpu_batch.log"
fi

if has bench; then
  step partition stages $SIZE
  timeout 200 "$Z" bench prover --backend gpu --constraints "$SIZE" --threads 16 --repeat 3 \
    >"$R/prover-gpu.md" 2>&1
  echo "bench prover exit $?" | tee -a "$R/steps.txt"; cat "$R/prover-gpu.md"
fi

if has batch; then
  for w in $WORKERS; do
    for pw in $PWS; do
      name=b${SIZE#2^}-g${GPUS//,/_}-w$w-pw$pw
      step batch $name
      timeout "${BATCH_TIMEOUT:-150}" "$Z" batch --backend gpu --gpus "$GPUS" --gpu-workers "$w" --pw "$pw" --circuit "porep:constraints=$SIZE" \
        --partitions "$PARTS" --count "$COUNT" --concurrency "$CONCURRENCY" --threads "$THREADS" --trim proof --sample-ms 20 \
        --out "$R/$name" --no-analyze >"$R/$name.log" 2>&1
      echo "$name exit $?" | tee -a "$R/steps.txt"; grep -E "s/proof|verified" "$R/$name.log" | tail -2
      "$Z" analyze "$R/$name" --ram 128G >"$R/$name/analyze.txt" 2>&1
      grep -E "busy|verdict" "$R/$name/analyze.txt" | head -3
      rm -f "$R/$name/buffers.csv"  # large; samples and stages are what the tables use
    done
  done
fi
step done
