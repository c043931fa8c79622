#!/usr/bin/env bash
# One bounded libFuzzer run of a harness from its seeds:
#   run_fuzz.sh FUZZER SEEDDIR WORKDIR
# FUZZ_SECONDS (default 8) of fuzzing; new inputs go to WORKDIR/corpus (the
# committed seeds are only read), crash inputs to WORKDIR/artifacts. Exit 0
# when libFuzzer found nothing; otherwise 1 with the report's tail and each
# reproducer (path, size, hex dump, base64, the command that replays it).
set -u
exe=$(readlink -f "$1") seeds=$2 work=$3
secs=${FUZZ_SECONDS:-8}
name=$(basename "$exe")
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
[ -d "$seeds" ] || { echo "$name: no seed folder $seeds"; exit 1; }

# Sanitizer reports end the run (halt), leaks count, and a stack trace shows.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
"$exe" -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$work/log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -Eo 'cov: [0-9]+' "$work/log" | tail -1)
nseeds=$(find "$seeds" -type f | wc -l)
if [ "$rc" -eq 0 ] && [ -z "$(ls -A "$work/artifacts")" ]; then
  echo "$name: ok, ${execs:-?} inputs in $secs s, $cov, $nseeds seeds, $(ls "$work/corpus" | wc -l) new inputs"
  exit 0
fi
echo "$name: FAILED (libFuzzer exit $rc) after ${execs:-?} inputs; the report:"
grep -v '^#[0-9]' "$work/log" | tail -60
for a in "$work"/artifacts/*; do
  [ -f "$a" ] || continue
  echo "---- reproducer $a ($(stat -c %s "$a") bytes); replay: $exe $a"
  od -A d -t x1z "$a" | head -16
  [ "$(stat -c %s "$a")" -le 2048 ] && echo "base64: $(base64 -w0 "$a")"
done
exit 1
