#!/usr/bin/env bash
# zkbench batch on the CPU: a small run writes every file with the documented
# headers and consistent contents (check_run.py); SIGINT mid-run leaves
# valid files and run.json with "interrupted": true; SIGKILL mid-run leaves
# parseable CSVs; every bad argument is refused with one line, exit 2,
# before any work.
#   test_batch.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
here=$(cd "$(dirname "$0")" && pwd)
export ZKBENCH_PARAMS_DIR=$tmp/params

expect2() {
  "$zk" batch "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || fail "batch $*: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^zkbench: ' "$tmp/err" || fail "batch $*: not one error line: $(cat "$tmp/err")"
  [ ! -e "$tmp/never" ] || fail "batch $*: created the output folder before refusing"
}

small="--circuit porep:constraints=2^10 --partitions 2"
# 1. a complete run
"$zk" batch $small --count 4 --concurrency 2 --pw 2 --out "$tmp/run" >"$tmp/out" 2>"$tmp/err" \
  || fail "small batch failed: $(cat "$tmp/err")"
for f in samples.csv buffers.csv stages.csv proofs.csv run.json; do
  [ -s "$tmp/run/$f" ] || fail "run lacks $f"
done
python3 "$here/check_run.py" "$tmp/run" --complete || fail "complete run is inconsistent"
[ "$(($(wc -l <"$tmp/run/proofs.csv") - 1))" -eq 4 ] || fail "proofs.csv does not hold 4 proofs"
grep -q "all verified" "$tmp/out" || fail "summary does not say the proofs verified"
grep -q "proofs/min" "$tmp/out" || fail "summary lacks throughput"
# analyze's prove_busy covers every heavy stage row: 6 per partition (h, 4 G1
# MSMs, the G2 MSM), 4 proofs x 2 partitions
"$zk" analyze "$tmp/run" --json 2>/dev/null | python3 -c '
import json, sys
pb = json.load(sys.stdin)["prove_busy"]
assert pb["stages"] == 48 and 0 < pb["fraction"] <= 1 and pb["backend"] == "cpu", pb
' || fail "analyze: prove_busy of the complete run"
# the second run maps the cached parameters instead of generating them
"$zk" batch $small --count 1 --out "$tmp/run2" >"$tmp/out2" 2>&1 || fail "second run failed"
grep -q "(loaded in" "$tmp/out2" || fail "second run did not load the cached parameters"
# every dealloc mode, the monolithic API, trimming, no verification
"$zk" batch $small --count 2 --no-split --dealloc sync --trim partition --out "$tmp/run3" >/dev/null 2>&1 \
  && python3 "$here/check_run.py" "$tmp/run3" --complete || fail "no-split/sync/trim run"
"$zk" batch $small --count 2 --dealloc async-serial --trim proof --no-verify --out "$tmp/run4" >/dev/null 2>&1 \
  && python3 "$here/check_run.py" "$tmp/run4" --complete || fail "async-serial/no-verify run"

# 2. SIGINT mid-run: clean stop, interrupted run.json, exit 130
"$zk" batch --circuit porep:constraints=2^12 --partitions 4 --count 50 --out "$tmp/int" >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do
  [ -f "$tmp/int/proofs.csv" ] && [ "$(wc -l <"$tmp/int/proofs.csv")" -ge 2 ] && break
  sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, expected 130"
python3 - "$tmp/int/run.json" <<'PY' || fail "SIGINT: run.json is not marked interrupted"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["interrupted"] is True and j["status"] == "interrupted", j
assert j["summary"]["proofs_done"] < 50
PY
python3 "$here/check_run.py" "$tmp/int" || fail "SIGINT: files inconsistent"

# 3. SIGKILL mid-run: every CSV parseable up to its last row
"$zk" batch --circuit porep:constraints=2^12 --partitions 4 --count 50 --out "$tmp/kill" >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do
  [ -f "$tmp/kill/samples.csv" ] && [ "$(wc -l <"$tmp/kill/samples.csv")" -ge 40 ] && break
  sleep 0.1
done
kill -KILL $pid
wait $pid 2>/dev/null
python3 "$here/check_run.py" "$tmp/kill" --killed || fail "SIGKILL: files not parseable"
python3 -c "import json; j=json.load(open('$tmp/kill/run.json')); assert j['status']=='running'" \
  || fail "SIGKILL: run.json should still say running"

# 4. bad arguments: one line, exit 2, nothing created
o="--out $tmp/never"
expect2 --count 0 $o
expect2 --concurrency 0 $o
expect2 --pw 0 $o
expect2 --count 3x $o
expect2 --partitions 0 $o
expect2 --circuit nosuch $o
expect2 --circuit porep:constraints=2^99 $o
expect2 --circuit porep:constraints=banana $o
expect2 --params "$tmp/missing.params" $o
expect2 --dealloc sometimes $o
expect2 --trim always $o
expect2 --backend tpu $o
expect2 --sample-ms 5s $o
expect2 --inject leak:nothing $o
expect2 --inject frobnicate $o
for g in "" x 0,0 1-0 0,,1 -1 "0;1" 0-99; do
  expect2 --gpus "$g" $o
done
expect2 --backend cpu --gpus 0 $o
expect2 --bogus $o
expect2 extra-arg $o
expect2 --params-load bogus $o
expect2 --params-load "" $o
expect2 --mem-limit banana $o

# sweep and analyze refuse contradictory or malformed capacity options
# before they write anything
expect2_cmd() {
  "$zk" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || fail "$*: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^zkbench: ' "$tmp/err" || fail "$*: not one error line: $(cat "$tmp/err")"
  [ ! -e "$tmp/never" ] || fail "$*: created its output folder before refusing"
}
expect2_cmd sweep --pw 1 --verify $o
expect2_cmd sweep --pw 1 --ram 1G --mem-limit 1G $o
expect2_cmd sweep --pw 1 --mem-limit banana $o
expect2_cmd sweep --pw 1 --mem-limit 0 $o
expect2_cmd sweep --pw 1 --margin= $o
expect2_cmd analyze "$tmp/run" --ram 1G --mem-limit 1G
expect2_cmd analyze "$tmp/run" --mem-limit 0
expect2_cmd analyze "$tmp/run" --mem-limit banana
touch "$tmp/file"
"$zk" batch $small --count 1 --out "$tmp/file/sub" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "cannot create output folder" "$tmp/err" || fail "unwritable --out: $(cat "$tmp/err")"

lib_done "batch: all checks passed"
