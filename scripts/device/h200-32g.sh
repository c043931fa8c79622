#!/usr/bin/env bash
# The 32 GiB PoRep proof on one H200 (issue 24), in phases that each fit a
# call (10 minutes): run them one after the other while the machine stays
# warm, since the key lives only on that machine's disk.
#   OUT=... bash scripts/device/h200-32g.sh PHASE...
# Phases:
#   tests    the GPU tests (MSM passes, Groth16 on the GPU, setup) and
#            tests/gpu/test_gpu_batch.sh (overlap, and none under one lock)
#   bench    one partition's stages with device times at 2^24 (b_g2 beside
#            the G1 MSMs, and --serial: each stage alone on the device) and
#            2^26 (--serial; staged, ZKBENCH_H_UPLOAD=pageable and
#            ZKBENCH_H_UPLOAD=pinned uploads: a, b, c page-locked while
#            computed). ZKBENCH_H_UPLOAD=pinned in the environment of the
#            key, proof and sweep phases tries it in the pipeline
#   key      the 32g batch's first proof: the circuit built, the key made on
#            the GPU into the cache (/tmp/zkparams), one proof of 10
#            partitions verified
#   proof    a 32g batch of COUNT (default 1) proofs at PW (default 2) with the
#            key resident; GPU_MEM=24G streams it as on a consumer card
#   start    the key file's start and full check (bench_params_map --start-only)
#   sweep    zkbench sweep --pw PWS --mem-limit CAP --verify (CAP, PWS)
# Binaries from .device/gpu (scripts/device/pack-gpu.sh); each phase's files
# under $OUT/r, packed into $OUT/PHASE.tar.gz; nvidia-smi's utilisation and
# the host's memory sampled beside every batch into $OUT/r/smi-*.csv.
set -uo pipefail
[ -d .device/gpu ] || tar xJf .device/gpu.tar.xz -C .device
D=$PWD/.device/gpu
Z=$D/zkbench
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
export ZKBENCH_PARAMS_DIR=/tmp/zkparams
R=$OUT/r
mkdir -p "$R"
T=$(nproc)
t0=$SECONDS
step() { echo "== $* (at $((SECONDS - t0)) s)" | tee -a "$R/steps.txt"; }
smi_start() { # utilisation and memory every 200 ms beside a run
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 >"$R/smi-$1.csv" 2>/dev/null &
  SMI=$!
  (while sleep 1; do awk -v t="$(date +%s)" '/MemAvailable|^Cached|Dirty/ {printf "%s %s %s\n", t, $1, $2}' /proc/meminfo; done) >"$R/mem-$1.txt" &
  MEM=$!
}
smi_stop() { kill $SMI $MEM 2>/dev/null; wait $SMI $MEM 2>/dev/null; }
keep_run() { # the run's small files and its samples, compressed
  local d=$1 name=$2
  mkdir -p "$R/$name"
  cp "$d"/run.json "$d"/stages.csv "$d"/proofs.csv "$R/$name/" 2>/dev/null
  gzip -c "$d/samples.csv" >"$R/$name/samples.csv.gz" 2>/dev/null
  gzip -c "$d/buffers.csv" >"$R/$name/buffers.csv.gz" 2>/dev/null
  "$Z" analyze "$d" >"$R/$name/analyze.txt" 2>&1
}
{ date -u '+%Y-%m-%d %H:%M UTC'; "$Z" version; cat "$D/COMMIT"
  nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader
  echo "host: $T cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"; df -h /tmp | tail -1
  ls -la /tmp/zkparams 2>/dev/null; } >>"$R/machine.txt" 2>&1
for phase in "$@"; do
  case $phase in
  tests)
    step gpu tests
    for t in test_gpu_msm test_gpu_groth16 test_gpu_setup; do
      timeout 200 "$D/$t" >"$R/$t.log" 2>&1
      echo "$t exit $? ($(grep -c FAIL "$R/$t.log") FAIL lines)" | tee -a "$R/gpu-tests.txt"
      grep FAIL "$R/$t.log" | head -5
    done
    # GPU batches: two workers overlap, and under ZKBENCH_LANE_LOCK=global they must not
    timeout 300 bash tests/gpu/test_gpu_batch.sh "$Z" >"$R/test_gpu_batch.log" 2>&1
    echo "test_gpu_batch.sh exit $? ($(grep -c FAIL "$R/test_gpu_batch.log") FAIL lines)" | tee -a "$R/gpu-tests.txt"
    grep "FAIL\|global lock\|overlap:" "$R/test_gpu_batch.log" | head -8 ;;
  bench)
    step bench prover 2^24, split and serial
    timeout 100 "$Z" bench prover --backend gpu --threads "$T" --repeat 3 --constraints 2^24 >"$R/bench-24.md" 2>&1
    tail -1 "$R/bench-24.md"
    timeout 100 "$Z" bench prover --backend gpu --threads "$T" --repeat 3 --constraints 2^24 --serial \
      >"$R/bench-24-serial.md" 2>&1
    tail -1 "$R/bench-24-serial.md"
    step bench prover 2^26 serial, staged and pageable uploads
    timeout 150 "$Z" bench prover --backend gpu --threads "$T" --repeat 1 --constraints 2^26 --serial \
      >"$R/bench-26-serial.md" 2>&1
    tail -1 "$R/bench-26-serial.md"
    ZKBENCH_H_UPLOAD=pageable timeout 150 "$Z" bench prover --backend gpu --threads "$T" --repeat 1 \
      --constraints 2^26 --serial >"$R/bench-26-pageable.md" 2>&1
    tail -1 "$R/bench-26-pageable.md"
    ZKBENCH_H_UPLOAD=pinned timeout 150 "$Z" bench prover --backend gpu --threads "$T" --repeat 1 \
      --constraints 2^26 --serial >"$R/bench-26-pinned.md" 2>&1
    tail -1 "$R/bench-26-pinned.md" ;;
  key|proof)
    gm=${GPU_MEM:+--gpu-mem $GPU_MEM}
    name=$phase${GPU_MEM:+-$GPU_MEM}
    step "batch 32g ($name): count ${COUNT:-1}, pw ${PW:-2} $gm"
    smi_start "$name"
    timeout ${BATCH_S:-570} "$Z" batch --circuit porep:preset=32g --count ${COUNT:-1} --pw ${PW:-2} --backend gpu \
      --threads "$T" --sample-ms 100 $gm --out /tmp/run-$name --force >"$R/batch-$name.log" 2>&1
    echo "batch exit $?"
    smi_stop
    tail -25 "$R/batch-$name.log"
    keep_run /tmp/run-$name "$name"
    ls -la /tmp/zkparams ;;
  start)
    step key file start and full check
    sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
    timeout 300 "$D/bench_params_map" porep:preset=32g "$T" --start-only >"$R/params-start.md" 2>&1
    cat "$R/params-start.md"
    k=$(ls /tmp/zkparams/*.key | head -1)
    timeout 200 "$Z" params verify "$k" | tee "$R/params-verify.txt" ;;
  sweep)
    step "sweep --pw ${PWS:-1,2} --mem-limit ${CAP:-100G} --verify"
    smi_start sweep
    timeout ${BATCH_S:-570} "$Z" sweep --pw ${PWS:-1,2} --mem-limit ${CAP:-100G} --verify --circuit porep:preset=32g \
      --count 1 --backend gpu --threads "$T" --sample-ms 100 --out /tmp/sweep32 >"$R/sweep.log" 2>&1
    echo "sweep exit $?"
    smi_stop
    tail -30 "$R/sweep.log"
    cp /tmp/sweep32/sweep.* /tmp/sweep32/*.csv "$R/" 2>/dev/null ;;
  esac
  tar czf "$OUT/$phase.tar.gz" -C "$OUT" r
done
step done
