#!/usr/bin/env bash
# The whole reliability suite of issue 26 (tests/hostile), which CI runs a
# sample of: every bad command line (CI: 60 of them), every writer on every
# kind of target, long runs of a million rows and twice that (CI: 200000),
# signals and full disks as in CI. Not a timed benchmark: it passes or not,
# and says how long each part took.
#   scripts/bench-hostile.sh
# Environment: ZKBENCH (default build/harness/zkbench), ROWS (1000000).
set -uo pipefail
cd "$(dirname "$0")/.."
zk=$(realpath "${ZKBENCH:-build/harness/zkbench}")
[ -x "$zk" ] || { echo "bench-hostile: no zkbench at $zk (scripts/build.sh, or set ZKBENCH)" >&2; exit 2; }
h=tests/hostile
gen=tests/analyze/gen_run.py
failed=0
part() {
  local name=$1 t0=$SECONDS
  shift
  "$@" >"/tmp/bench-hostile-$name.log" 2>&1
  local rc=$?
  local what=passed
  [ $rc -eq 77 ] && what=skipped
  [ $rc -ne 0 ] && [ $rc -ne 77 ] && { what="FAILED (log: /tmp/bench-hostile-$name.log)"; failed=$((failed + 1)); }
  printf "%-10s %-8s %4d s  %s\n" "$name" "$what" $((SECONDS - t0)) "$(tail -1 "/tmp/bench-hostile-$name.log")"
}
part cli python3 "$h/test_cli.py" "$zk" "$gen"
part outputs env HOSTILE_FULL=1 bash "$h/test_outputs.sh" "$zk" "$gen"
part gate bash "$h/test_gate.sh" "$zk" "$gen"
part signals bash "$h/test_signals.sh" "$zk"
part fulldisk bash "$h/test_fulldisk.sh" "$zk"
part stream bash "$h/test_stream.sh" "$zk" "$h/gen_long_run.py" "${ROWS:-1000000}"
[ $failed -eq 0 ] || { echo "bench-hostile: $failed part(s) failed" >&2; exit 1; }
echo "bench-hostile: all parts passed"
