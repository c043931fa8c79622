#!/usr/bin/env bash
# GPU batches through zkbench (needs a CUDA device; exits 77, skipped,
# without one):
# 1. --gpu-workers 2 on one device: the two workers' GPU stages overlap in
#    time in stages.csv (no lock serializes them), every proof verifies,
#    the files are consistent (check_run.py: gpu0_used beside gpu_used);
#    with ZKBENCH_LANE_LOCK=global (one lock for every lane) the overlap
#    check fails and the waits are wait_lane rows;
# 2. --gpus all: one worker set per device, every device's column in
#    samples.csv, every proof verified;
# 3. more workers than fit the device's memory are refused at the start;
# 4. --gpus naming a device the machine lacks is refused with one line.
#   test_gpu_batch.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
here=$(cd "$(dirname "$0")" && pwd)
export ZKBENCH_PARAMS_DIR=$tmp/params

if ! "$zk" batch --backend gpu --count 1 --partitions 1 --circuit porep:constraints=2^10 --out "$tmp/probe" \
    --no-analyze --quiet >/dev/null 2>"$tmp/probe.err"; then
  if grep -q "no CUDA device" "$tmp/probe.err"; then
    echo "no CUDA device: skipped"
    exit 77
  fi
  fail "probe batch failed: $(cat "$tmp/probe.err")"
fi

# 1. two workers on one device overlap
"$zk" batch --backend gpu --gpus 0 --gpu-workers 2 --pw 4 --circuit porep:constraints=2^16 --partitions 4 \
  --count 2 --concurrency 2 --threads 4 --out "$tmp/two" --no-analyze >"$tmp/out" 2>"$tmp/err" \
  || fail "two-worker batch failed: $(cat "$tmp/err")"
grep -q "all verified" "$tmp/out" || fail "two-worker batch: not all verified: $(tail -3 "$tmp/out")"
python3 "$here/../batch/check_run.py" "$tmp/two" --complete --overlap || fail "two-worker run: check_run failed"

# 1b. the same batch with every lane behind one lock (ZKBENCH_LANE_LOCK=global,
# a backend that runs one device call at a time): the stage rows begin when
# the lane is held, so the overlap check must fail, and the waits show as
# wait_lane rows; the proofs still verify
ZKBENCH_LANE_LOCK=global "$zk" batch --backend gpu --gpus 0 --gpu-workers 2 --pw 4 \
  --circuit porep:constraints=2^16 --partitions 4 --count 2 --concurrency 2 --threads 4 --out "$tmp/global" \
  --no-analyze >"$tmp/out" 2>"$tmp/err" || fail "global-lock batch failed: $(cat "$tmp/err")"
grep -q "all verified" "$tmp/out" || fail "global-lock batch: not all verified: $(tail -3 "$tmp/out")"
python3 "$here/../batch/check_run.py" "$tmp/global" --complete || fail "global-lock run: check_run failed"
python3 "$here/../batch/check_run.py" "$tmp/global" --overlap >"$tmp/global.check" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "no two prover workers' GPU stages overlap" "$tmp/global.check" \
  || fail "global lock: the overlap check did not fail (exit $rc): $(cat "$tmp/global.check")"
grep -c ",wait_lane," "$tmp/global/stages.csv" >"$tmp/n_wait" || true
[ "$(cat "$tmp/n_wait")" -ge 1 ] || fail "global lock: no wait_lane row in stages.csv"
echo "global lock: no overlap, $(cat "$tmp/n_wait") wait_lane rows"

# 2. every device
"$zk" batch --backend gpu --gpus all --gpu-workers 1 --pw 2 --circuit porep:constraints=2^12 --partitions 4 \
  --count 2 --concurrency 2 --threads 4 --out "$tmp/all" --no-analyze >"$tmp/out" 2>"$tmp/err" \
  || fail "--gpus all batch failed: $(cat "$tmp/err")"
grep -q "all verified" "$tmp/out" || fail "--gpus all batch: not all verified"
python3 "$here/../batch/check_run.py" "$tmp/all" --complete || fail "--gpus all run: check_run failed"
python3 - "$tmp/all/run.json" <<'PY' || fail "--gpus all: run.json config.gpus is not every device"
import json, subprocess, sys
cfg = json.load(open(sys.argv[1]))["config"]
gpus = cfg["gpus"]
assert gpus == list(range(len(gpus))) and len(gpus) >= 1, gpus
print("gpus:", gpus)
PY

# 3. more workers than the device memory holds are refused at the start,
# with the budget's numbers, not by a failed proof later (2^20: a worker
# takes about a GiB, so 256 of them need more than any GPU has)
"$zk" batch --backend gpu --gpu-workers 256 --circuit porep:constraints=2^20 --partitions 1 --count 1 \
  --out "$tmp/budget" --no-analyze >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "256 workers at 2^20: exit $rc, expected 1"
grep -q "prover workers need .* GiB of device memory .* fit" "$tmp/err" \
  || fail "256 workers at 2^20: no budget message: $(cat "$tmp/err")"
head -1 "$tmp/err"

# 4. a device this machine lacks (the values the parser refuses are
# tests/batch/test_batch.sh's)
"$zk" batch --backend gpu --gpus 99 --count 1 --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "--gpus 99: exit $rc, expected 2"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "--gpus 99: not one error line: $(cat "$tmp/err")"

[ $fails -eq 0 ] && echo "gpu batch: all passed" || echo "gpu batch: $fails failure(s)"
[ $fails -eq 0 ]
