#!/usr/bin/env bash
# The parameter setup on the H200 machine (issue 12, item 4), in one call:
# test_gpu_setup (keys and files of the GPU setup equal the CPU's at 2^10 to
# 2^16), then `zkbench setup` of porep partitions on the GPU (SIZES) and on
# the CPU (CPU_SIZES), the files of each size compared byte for byte when
# both were made, then (BATCH_SIZE) a GPU batch whose parameters the empty
# cache generates on the GPU. Runs from the repository root over binaries carried in
# .device/gpu (scripts/device/pack-gpu.sh); everything goes under
# $OUT/$TAG (default setup), with a table in $OUT/$TAG/setup.md, packed
# into $OUT/$TAG.tar.gz (the device tool returns only so many files).
#   OUT=... TAG=setup SIZES="20 22 24" CPU_SIZES="22 24" THREADS=16 BATCH_SIZE=2^22 \
#     bash scripts/device/h200-setup.sh
set -uo pipefail
D=$PWD/.device/gpu
[ -d "$D" ] || tar xJf .device/gpu.tar.xz -C .device
Z=$D/zkbench
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
SIZES=${SIZES:-20 22 24}
CPU_SIZES=${CPU_SIZES:-22 24}
THREADS=${THREADS:-16}
TAG=${TAG:-setup}
R=$OUT/$TAG
F=${FILES_DIR:-/tmp/zksetup}
mkdir -p "$R" "$F"
t0=$SECONDS
step() { echo "== $* (at $((SECONDS - t0)) s)" | tee -a "$R/steps.txt"; }
pack() { tar czf "$OUT/$TAG.tar.gz" -C "$OUT" "$TAG"; }
trap pack EXIT

step machine
{ date -u '+%Y-%m-%d %H:%M UTC'; cat "$D/COMMIT"; "$Z" version
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"; } >"$R/machine.txt" 2>&1
cat "$R/machine.txt"

if [ -z "${NO_TEST:-}" ]; then
  step test_gpu_setup
  timeout 300 "$D/test_gpu_setup" >"$R/test_gpu_setup.log" 2>&1
  echo "test_gpu_setup exit $?" | tee -a "$R/steps.txt"; tail -6 "$R/test_gpu_setup.log"
fi

# max RSS from GNU time where the machine has it
TIME=(); [ -x /usr/bin/time ] && TIME=(/usr/bin/time -f "max RSS %M KiB")
# one setup: where (gpu|cpu), log2 size; its output in $R/setup-$where-$n.txt
one() {
  local where=$1 n=$2 gpu=()
  [ "$where" = gpu ] && gpu=(--gpu 0)
  step setup "$where" "2^$n"
  local s0=$(date +%s.%N)
  "${TIME[@]}" timeout 400 "$Z" setup "${gpu[@]}" --circuit "porep:constraints=2^$n" \
    --params "$F/$where-$n.params" --vk "$F/$where-$n.vk" --threads "$THREADS" >"$R/setup-$where-$n.txt" 2>&1
  local rc=$?
  awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN {printf "wall %.2f s\n", b - a}' >>"$R/setup-$where-$n.txt"
  echo "setup $where 2^$n exit $rc" | tee -a "$R/steps.txt"; cat "$R/setup-$where-$n.txt"
}
echo "| constraints | where | setup (s) | write (s) | wall (s) | max RSS (GiB) | file (MiB) | same file as the CPU's |" >"$R/setup.md"
echo "|---|---|---:|---:|---:|---:|---:|---|" >>"$R/setup.md"
row() {
  local where=$1 n=$2 same=$3 f="$R/setup-$1-$2.txt"
  local s w wall rss mib
  s=$(sed -n 's/.*setup \([0-9.]*\) s.*/\1/p' "$f"); w=$(sed -n 's/.*write \([0-9.]*\) s.*/\1/p' "$f")
  wall=$(sed -n 's/^wall \([0-9.]*\) s.*/\1/p' "$f"); rss=$(sed -n 's/.*max RSS \([0-9]*\) KiB.*/\1/p' "$f")
  mib=$(sed -n 's/.*: \([0-9.]*\) MiB.*/\1/p' "$f")
  echo "| 2^$n | $where | ${s:-failed} | ${w:--} | ${wall:--} | $(awk -v k="${rss:-0}" 'BEGIN{printf "%.1f", k/1048576}') | ${mib:--} | $same |" >>"$R/setup.md"
}
for n in $SIZES; do
  one gpu "$n"
  same="-"
  case " $CPU_SIZES " in *" $n "*)
    one cpu "$n"
    if cmp -s "$F/gpu-$n.params" "$F/cpu-$n.params" && cmp -s "$F/gpu-$n.vk" "$F/cpu-$n.vk"; then same=yes; else same=NO; fi
    echo "2^$n files identical: $same" | tee -a "$R/steps.txt"
    row cpu "$n" "-" ;;
  esac
  row gpu "$n" "$same"
  rm -f "$F"/*-"$n".params "$F"/*-"$n".vk
done
cat "$R/setup.md"

if [ -n "${BATCH_SIZE:-}" ]; then
  step batch "$BATCH_SIZE" with its parameters generated on the GPU
  export ZKBENCH_PARAMS_DIR=$F/cache
  rm -rf "$ZKBENCH_PARAMS_DIR"
  timeout 300 "$Z" batch --backend gpu --circuit "porep:constraints=$BATCH_SIZE" --partitions 2 --count 1 --pw 1 \
    --threads "$THREADS" --trim proof --out "$R/batch" >"$R/batch.log" 2>&1
  echo "batch exit $?" | tee -a "$R/steps.txt"; grep -E "parameters|verified|s/proof" "$R/batch.log"
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["params"]; print({k: p.get(k) for k in ("generated", "generated_on", "setup_s", "setup_note")})' \
    "$R/batch/run.json" | tee -a "$R/steps.txt"
  rm -rf "$ZKBENCH_PARAMS_DIR" "$R/batch/buffers.csv"
fi
step done
