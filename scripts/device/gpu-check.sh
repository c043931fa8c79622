#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over a build made on the
# development machine (scripts/build.sh build-device -Dcuda=enabled), and
# writes logs under $OUT: GPU tests, compute-sanitizer memcheck on them, the
# self-check, and the arithmetic benchmark table.
#   OUT=/some/dir bash scripts/device/gpu-check.sh [BUILD_DIR]
set -uo pipefail
b=${1:-build-device}
out=${OUT:?set OUT to a folder for the logs}
status=0

{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  "$b/harness/zkbench" version | head -1
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
  echo "host: $(nproc) cores, $(grep MemTotal /proc/meminfo | awk '{print $2/1048576 " GiB"}'), $(uname -r)"
} >"$out/machine.txt" 2>&1

for t in "$b"/tests/gpu/test_gpu_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  echo "== $name" | tee -a "$out/gpu-tests.log"
  "$t" >>"$out/gpu-tests.log" 2>&1
  rc=$?
  echo "== $name exit $rc" | tee -a "$out/gpu-tests.log"
  [ $rc -eq 0 ] || status=1
  if command -v compute-sanitizer >/dev/null; then
    ZKB_GPU_TEST_SMALL=1 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 "$t" \
      >>"$out/memcheck.log" 2>&1
    rc=$?
    echo "== memcheck $name exit $rc" | tee -a "$out/memcheck.log"
    [ $rc -eq 0 ] || status=1
  fi
done

"$b/harness/zkbench" version >"$out/selfcheck.log" 2>&1
"$b/harness/zkbench" selfcheck >>"$out/selfcheck.log" 2>&1 || status=1
tail -3 "$out/selfcheck.log"
"$b/harness/zkbench" bench --out "$out/bench-arith.md" >/dev/null 2>"$out/bench.err" || status=1
cat "$out/bench-arith.md"
exit $status
