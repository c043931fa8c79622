#!/usr/bin/env bash
# `zkbench check` cannot pass a run that did not complete (issue 26, item
# 2): a batch SIGKILLed while proving (run.json: running), one interrupted,
# and runs whose run.json says killed, oom-killed, failed or nothing each
# fail the gate with exit 1 and one line saying why; --allow-incomplete
# checks them anyway. A baseline of another circuit (a 2^10 run against a
# 2^11 baseline's circuit) or another partition count fails it too. A baseline never
# holds a negative figure, and one that does is refused (exit 2).
# Before the fix all of these exited 0 (the circuit with a warning only).
#   test_gate.sh PATH_TO_ZKBENCH GEN_RUN_PY
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
gen=$2
export ZKBENCH_PARAMS_DIR=$tmp/params
lib_seed
small=(--circuit porep:constraints=2^10 --partitions 2 --concurrency 2 --pw 2)

# gate_fails LABEL RUN BASELINE WORD: exit 1 with one line holding WORD
gate_fails() {
  "$zk" check "$2" --baseline "$3" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 1 ] || fail "$1: check exit $rc, expected 1 ($(head -c 300 "$tmp/err"))"
  [ "$(grep -c '^zkbench: check: ' "$tmp/err")" -eq 1 ] || fail "$1: not one error line: $(cat "$tmp/err")"
  grep -q "$4" "$tmp/err" || fail "$1: the line does not say '$4': $(cat "$tmp/err")"
  grep -q '^pass' "$tmp/out" && fail "$1: the report says pass"
}

# baselines of real runs' circuits: a synthetic run's limits (a run this
# small does not always fit a footprint) with the config and circuit_shape
# of a real 2^10 and a real 2^11 batch
python3 "$gen" healthy "$tmp/syn" --seed "$seed" >/dev/null
"$zk" check "$tmp/syn" --write-baseline "$tmp/syn.json" >/dev/null 2>&1 || fail "baseline of the synthetic run"
"$zk" batch "${small[@]}" --count 2 --no-analyze --out "$tmp/good" >/dev/null 2>&1 || fail "the 2^10 batch failed"
"$zk" batch --circuit porep:constraints=2^11 --partitions 2 --count 1 --no-analyze --out "$tmp/big" >/dev/null 2>&1 ||
  fail "the 2^11 batch failed"
for r in good big; do
  python3 - "$tmp/syn.json" "$tmp/$r/run.json" "$tmp/base-$r.json" <<'PY'
import json, sys
b, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
b["config"], b["circuit_shape"] = run["config"], run["circuit_shape"]
json.dump(b, open(sys.argv[3], "w"))
PY
done
cp "$tmp/base-good.json" "$tmp/base.json"
"$zk" check "$tmp/good" --baseline "$tmp/base.json" >/dev/null 2>"$tmp/err"
grep -q "did not complete\|another circuit" "$tmp/err" && fail "a complete run of the baseline's circuit: $(cat "$tmp/err")"

# SIGKILL while proving: run.json stays "running" (no end record)
"$zk" batch "${small[@]}" --count 40 --no-analyze --out "$tmp/killed" >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do
  [ -f "$tmp/killed/proofs.csv" ] && [ "$(wc -l <"$tmp/killed/proofs.csv")" -ge 2 ] && break
  sleep 0.05
done
kill -KILL $pid
wait $pid 2>/dev/null
gate_fails "SIGKILLed batch" "$tmp/killed" "$tmp/base.json" "did not complete (status running"
grep -q "last sample at [0-9.]* s" "$tmp/err" || fail "SIGKILLed batch: the line does not say how far it got"
"$zk" check "$tmp/killed" --baseline "$tmp/base.json" --allow-incomplete >"$tmp/out" 2>"$tmp/err"
rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 1 ]; } && grep -q "^note .*did not complete.*--allow-incomplete" "$tmp/out" ||
  fail "--allow-incomplete on the SIGKILLed batch: exit $rc, $(cat "$tmp/out" "$tmp/err" | head -5)"
grep -q "did not complete" "$tmp/err" && fail "--allow-incomplete still fails it for being incomplete"
"$zk" check "$tmp/killed" --write-baseline "$tmp/from-killed.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -e "$tmp/from-killed.json" ] || fail "a baseline was made from a killed run: $(cat "$tmp/err")"

# interrupted by SIGINT after some proofs
"$zk" batch "${small[@]}" --count 40 --no-analyze --out "$tmp/int" >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do
  [ -f "$tmp/int/proofs.csv" ] && [ "$(wc -l <"$tmp/int/proofs.csv")" -ge 2 ] && break
  sleep 0.05
done
kill -INT $pid
wait $pid
[ $? -eq 130 ] || fail "the interrupted batch did not exit 130"
gate_fails "interrupted batch" "$tmp/int" "$tmp/base.json" "status interrupted"

# what run.json can say besides: status/outcome killed, oom-killed, failed,
# an outcome that differs from a complete status (a watch's command), none
for st in killed oom-killed failed running outcome-only none; do
  rm -rf "$tmp/syn-$st"
  cp -r "$tmp/syn" "$tmp/syn-$st"
  python3 - "$tmp/syn-$st/run.json" "$st" <<'PY'
import json, sys
p, st = sys.argv[1:]
j = json.load(open(p))
if st == "none":
    j.pop("status", None); j.pop("outcome", None)
elif st == "outcome-only":
    j["status"] = "complete"; j["outcome"] = "interrupted"
else:
    j["status"] = j["outcome"] = st
json.dump(j, open(p, "w"))
PY
  gate_fails "run.json $st" "$tmp/syn-$st" "$tmp/syn.json" "did not complete"
done

# another circuit: a 2^10 run against the baseline of a 2^11 run; another
# partition count
gate_fails "2^10 run, 2^11 baseline" "$tmp/good" "$tmp/base-big.json" "another circuit or shape.*constraints"
python3 - "$tmp/base.json" "$tmp/parts.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["config"]["partitions"] = 3
json.dump(b, open(sys.argv[2], "w"))
PY
gate_fails "other partitions" "$tmp/good" "$tmp/parts.json" "partitions 2 (baseline 3)"

# no negative figure in a baseline: growth fitted below 0 is common, and a
# footprint too where RSS falls while partitions are synthesized (here: a
# healthy run's rss mirrored below its peak; the old code wrote the fitted
# -1 GiB into reference.footprint_per_partition); none is accepted either
neg=0
for s in 1 2 3; do
  rm -rf "$tmp/h$s"
  python3 "$gen" healthy "$tmp/h$s" --seed $((seed + s)) >/dev/null
  [ $s -eq 1 ] && python3 - "$tmp/h$s/samples.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
j = rows[0].index("rss")
low = min(float(r[j]) for r in rows[1:])
for r in rows[1:]:
    r[j] = str(int(max(2 * low + 10 * 2**30 - float(r[j]), 1)))
csv.writer(open(sys.argv[1], "w"), lineterminator="\n").writerows(rows)
PY
  "$zk" check "$tmp/h$s" --write-baseline "$tmp/h$s.json" >/dev/null 2>&1 || continue
  python3 - "$tmp/h$s.json" <<'PY' || neg=$((neg + 1))
import json, sys
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items(): walk(x, path + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v): walk(x, "%s[%d]" % (path, i))
    elif isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
        sys.exit("negative %s = %r" % (path, v))
walk(json.load(open(sys.argv[1])), "")
PY
done
[ -e "$tmp/h1.json" ] || fail "no baseline from the run with a falling RSS"
[ $neg -eq 0 ] || fail "$neg of 3 baselines hold a negative figure (seed $seed)"
python3 - "$tmp/base.json" "$tmp/negative.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["limits"]["leak_bytes_per_proof"]["max"] = -1
json.dump(b, open(sys.argv[2], "w"))
PY
"$zk" check "$tmp/good" --baseline "$tmp/negative.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "malformed" "$tmp/err" || fail "a negative limit was accepted: $(cat "$tmp/err")"

lib_done "gate: all checks passed"
