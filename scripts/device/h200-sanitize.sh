#!/usr/bin/env bash
# Runs on the GPU machine over binaries built here and carried in BIN
# (default .device): the GPU tests at full size, then compute-sanitizer's
# memcheck (with leak check) and racecheck on them at small sizes
# (ZKB_GPU_TEST_SMALL=1), one log per tool and test under $OUT, and a
# summary table on stdout (results/h200/sanitizer.md is made from it).
#   OUT=/some/dir bash scripts/device/h200-sanitize.sh [BIN]
set -uo pipefail
bin=${1:-.device}
out=${OUT:?set OUT to a folder for the logs}
# per-run logs in a scratch folder, joined per tool at the end (the device
# tool brings back at most 8 files)
logs=$(mktemp -d)
status=0
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)

{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  echo "compute-sanitizer: ${cs:-none} $("${cs:-false}" --version 2>/dev/null | tail -1)"
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

tests=(test_gpu_field test_gpu_ntt test_gpu_msm test_gpu_groth16)
declare -A full
for t in "${tests[@]}"; do
  [ -x "$bin/$t" ] || { full[$t]=missing; status=1; continue; }
  s=$(date +%s)
  timeout 240 "$bin/$t" >"$logs/$t.log" 2>&1
  rc=$?
  full[$t]="exit $rc, $(( $(date +%s) - s )) s"
  [ $rc -eq 0 ] || status=1
done
# the sanitizer runs are slow and independent: all at once (16 cores)
for t in "${tests[@]}"; do
  [ -x "$bin/$t" ] || continue
  for tool in memcheck racecheck; do
    extra=()
    # the tests provoke API errors on purpose (a 2^40 allocation, a bad
    # device): memory errors, races and leaks are what is checked
    [ $tool = memcheck ] && extra=(--leak-check full --report-api-errors no)
    ( s=$(date +%s)
      ZKB_GPU_TEST_SMALL=1 timeout "${SAN_TIMEOUT:-360}" "$cs" --tool $tool "${extra[@]}" --error-exitcode 99 \
        "$bin/$t" >"$logs/$tool-$t.log" 2>&1
      echo "exit $?, $(( $(date +%s) - s )) s" >"$logs/$tool-$t.rc" ) &
  done
done
wait
echo "| test | full size | memcheck (small) | racecheck (small) |"
echo "| --- | --- | --- | --- |"
for t in "${tests[@]}"; do
  row="| $t | ${full[$t]} |"
  for tool in memcheck racecheck; do
    r=$(cat "$logs/$tool-$t.rc" 2>/dev/null || echo "not run")
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$logs/$tool-$t.log" 2>/dev/null | tail -1 | sed 's/^=* *//')
    row="$row $r: ${summary:-no summary} |"
    case $r in "exit 0,"*) ;; *) status=1 ;; esac
  done
  echo "$row"
done
for t in "${tests[@]}"; do
  for f in "$t" "memcheck-$t" "racecheck-$t"; do
    case $f in memcheck-*) dst=memcheck.log ;; racecheck-*) dst=racecheck.log ;; *) dst=gpu-tests.log ;; esac
    { echo "==== $f"; cat "$logs/$f.log" 2>/dev/null; } >>"$out/$dst"
  done
done
rm -rf "$logs"
exit $status
