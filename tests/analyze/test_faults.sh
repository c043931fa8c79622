#!/usr/bin/env bash
# Fault injection proves the diagnosis: small CPU batches with the faults
# planted (leak, pileup, hold, serial dealloc, no-purge), and `zkbench analyze
# --json` must name it; a clean run must be healthy; `zkbench check` must
# pass a clean run against the committed baseline and fail the planted leak.
#   test_faults.sh PATH_TO_ZKBENCH BASELINE_JSON
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
baseline=$2
export ZKBENCH_PARAMS_DIR=$tmp/params

common=(--backend cpu --circuit porep:constraints=2^14 --count 6 --partitions 4 --pw 2 --concurrency 2)

# run NAME EXPECTED_VERDICT [batch options...]
run() {
  local name=$1 want=$2
  shift 2
  if ! "$zk" batch "${common[@]}" "$@" --out "$tmp/$name" >"$tmp/$name.log" 2>&1; then
    fail "$name: batch failed: $(tail -3 "$tmp/$name.log")"
    return
  fi
  "$zk" analyze "$tmp/$name" --json >"$tmp/$name.json" 2>"$tmp/$name.err" || fail "$name: analyze failed: $(cat "$tmp/$name.err")"
  local got
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$tmp/$name.json" 2>/dev/null)
  if [ "$got" != "$want" ]; then
    fail "$name: verdict '$got', expected '$want': $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("reason",""))' "$tmp/$name.json" 2>/dev/null)"
  else
    echo "ok  $name -> $got"
  fi
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["verdict"]["verdict"] == sys.argv[2]' \
    "$tmp/$name/run.json" "$want" 2>/dev/null || fail "$name: the verdict was not written into run.json"
}

# the parameters first, so that every run below maps them from the cache as
# the baseline's run did (generating them peaks far above the work)
"$zk" batch "${common[@]}" --count 1 --partitions 1 --out "$tmp/setup" >"$tmp/setup.log" 2>&1 \
  || fail "parameters: $(tail -3 "$tmp/setup.log")"
run clean healthy --trim proof
run leak leak --inject leak:aux
run pileup queue-pileup --inject pileup --gpu-queue 1
run hold held-too-long --inject hold:aux:5000
run serial held-too-long --inject serial-dealloc:3000
# (two proofs suffice: no-purge keeps 15-20 MiB dirty, 96% of the working set)
run nopurge retention --trim proof --inject no-purge --count 2

"$zk" check "$tmp/clean" --baseline "$baseline" >"$tmp/check-clean.log" 2>&1 \
  || fail "check: the clean run fails the committed baseline: $(cat "$tmp/check-clean.log")"
"$zk" check "$tmp/leak" --baseline "$baseline" >"$tmp/check-leak.log" 2>&1
[ $? -eq 1 ] || fail "check: the planted leak passes the baseline: $(cat "$tmp/check-leak.log")"

lib_done "faults: every planted fault named"
