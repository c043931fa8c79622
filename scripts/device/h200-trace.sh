#!/usr/bin/env bash
# `zkbench watch --trace` on the GPU machine (issue 13, item 4): the CUDA
# leak program of tests/trace/gpu/ built with a shared CUDA runtime (the
# preload library interposes cudaMalloc) and with a static one (the CUPTI
# injection library, through CUDA_INJECTION64_PATH, sees the driver calls).
# Each leaks 4 MiB of device memory per iteration from gpu_leak_step and
# 2 MiB of pinned host memory every other iteration from pinned_leak; the
# script checks both are named with the exact bytes, and writes watch's and
# analyze's output, sites.csv and a summary into $OUT (results/h200/ material).
#   bash scripts/device/build-trace-gpu.sh build     # here, fills .device/
#   OUT=/some/dir bash scripts/device/h200-trace.sh  # on the GPU machine
set -uo pipefail
D=$PWD/.device
out=${OUT:?set OUT to a folder for the results}
Z=$D/zkbench
ITERS=${ITERS:-10}
status=0
for f in zkbench libzkbench-trace.so libzkbench-cupti.so leak_gpu_shared leak_gpu_static; do
  [ -e "$D/$f" ] || { echo "h200-trace: $D/$f missing (run scripts/device/build-trace-gpu.sh first)" >&2; exit 2; }
done
# the shared runtime and, where the host lacks it, CUPTI come from .device/
cupti_dir=$(dirname "$(ls /usr/local/cuda*/extras/CUPTI/lib64/libcupti.so.13 /usr/local/cuda*/lib64/libcupti.so.13 \
  /usr/lib/x86_64-linux-gnu/libcupti.so.13 2>/dev/null | head -1)" 2>/dev/null)
export LD_LIBRARY_PATH=$D${cupti_dir:+:$cupti_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  echo "commit: $(cat "$D/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  echo "libcupti: ${cupti_dir:-not found outside .device}"
} | tee "$out/machine.txt"

summary=$out/summary.md
{
  echo "# watch --trace on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo
  echo "| build | leaking site | never freed (device) | expected | host bytes of the runtime under it | pinned site | never freed (pinned) | expected | verdict |"
  echo "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"
} >"$summary"
for mode in shared static; do
  run=$out/run-$mode
  rm -rf "$run"
  "$Z" watch --trace --sample-ms 50 --out "$run" -- "$D/leak_gpu_$mode" "$ITERS" >"$out/watch-$mode.txt" 2>&1
  rc=$?
  echo "== $mode: watch exit $rc" | tee -a "$out/watch-$mode.txt"
  "$Z" analyze "$run" >"$out/analyze-$mode.txt" 2>&1
  echo "== analyze exit $?" >>"$out/analyze-$mode.txt"
  cp "$run/sites.csv" "$out/sites-$mode.csv" 2>/dev/null
  ls "$run/trace" >"$out/trace-files-$mode.txt" 2>&1
  want_dev=$((ITERS * 4 * 1048576))
  want_pin=$(( (ITERS + 1) / 2 * 2 * 1048576 ))
  # device bytes from buffers.csv (gpuN rows): sites.csv adds up a site's
  # host and device allocations together
  read -r dev_site dev_bytes host_bytes < <(python3 - "$run/buffers.csv" gpu_leak_step <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["site"].startswith(sys.argv[2] + "@") and not r["t_free_ms"]]
dev = sum(int(r["bytes"]) for r in rows if r["device"].startswith("gpu"))
host = sum(int(r["bytes"]) for r in rows if not r["device"].startswith("gpu"))
print(rows[0]["site"] if rows else "-", dev, host)
PY
  )
  read -r pin_site pin_bytes < <(python3 - "$run/sites.csv" pinned_leak <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["function"] == sys.argv[2]]
print(rows[0]["site"] if rows else "-", sum(int(r["never_freed_bytes"]) for r in rows))
PY
  )
  ok=FAIL
  [ "$rc" -eq 0 ] && [ "${dev_bytes:-0}" = "$want_dev" ] && [ "${pin_bytes:-0}" = "$want_pin" ] && ok=ok
  [ "$ok" = ok ] || status=1
  echo "| -cudart $mode | $dev_site | $dev_bytes | $want_dev | $host_bytes | $pin_site | $pin_bytes | $want_pin | $ok |" >>"$summary"
done
{
  echo
  echo "Shared runtime: recorded by libzkbench-trace.so's cudaMalloc/cudaMallocHost interposers."
  echo "Static runtime: recorded by libzkbench-cupti.so (CUPTI driver-API callbacks, host backtrace at the call)."
  echo "Host bytes under the leaking site: what the CUDA runtime allocated on the host, never freed, inside the"
  echo "first cudaMalloc (its lazy start). With a shared runtime the interposed call covers it, and it is"
  echo "counted with the small allocations; a static runtime's own code calls malloc directly, so it is"
  echo "recorded and attributed to the user's function that made the call, as a host row."
  echo "Files: watch-*.txt (watch's summary), analyze-*.txt, sites-*.csv, trace-files-*.txt."
} >>"$summary"
cat "$summary"
exit $status
