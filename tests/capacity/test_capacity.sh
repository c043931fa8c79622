#!/usr/bin/env bash
# The capacity model predicts an OOM kill, and a memory cap reproduces it
# (issue 10): porep 2^16, 4 partitions, 2 proofs in flight, on the CPU.
# - a batch at pw 1, analyzed: the bytes per partition and state are the
#   formula's (docs/diagnosis.md), predictions exist for pw 1..6 and pw 6
#   is bounded by the proofs in flight;
# - a cap halfway between the predicted peak at pw 1 and the least pw 2
#   can peak at by the model (its partitions, with no more freed pages
#   kept than at pw 1), less the file-backed RSS (a cgroup does not charge
#   it);
# - `sweep --pw 1 --mem-limit CAP --verify` fits the model again under the
#   cap, predicts max pw 1, runs pw 1 (completes, peak within 10% of the
#   prediction) and pw 2 (OOM-killed, exit 3 of that batch, outcome
#   oom-killed, files readable to their last row), and analyze calls the
#   killed run capacity.
# jemalloc runs with its default settings (no MALLOC_CONF): at 2^16 a
# partition holds 8 MiB in 2 MiB buffers, and the freed pages each arena
# keeps for its 10 s decay (je_dirty) grow with the synthesis workers; the
# model carries them to other pw values (docs/diagnosis.md, "Retention").
# The cap sits between pw 1 and 2 because only there is the step larger
# than the run-to-run spread: what the synthesis arenas hold is a whole
# number of partitions that depends on how the workers' partitions
# interleave: 3 at pw 1 every time but 5 or 6 at pw 2 and 6 to 8 at pw 4
# (results/capacity-cpu.md); and a run slowed by the cap keeps fewer, its
# freed pages decaying within the run, so the cap stays below pw 2 without
# its growth in kept pages. The model's error at unseen pw values is
# measured by scripts/bench-capacity.sh.
# Skips (77) only when not root or no memory controller exists.
#   test_capacity.sh ZKBENCH CHECK_RUN_PY
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
check_run=$2
export ZKBENCH_PARAMS_DIR=$tmp/params
unset MALLOC_CONF
ok() { echo "ok: $*"; }
circuit=(--circuit porep:constraints=2^16 --partitions 4 --count 2 --concurrency 2)

if [ "$(id -u)" -ne 0 ]; then echo "skip: not root (a memory cgroup is needed)"; exit 77; fi
if [ ! -d /sys/fs/cgroup/memory ] && ! grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  echo "skip: no memory controller"; exit 77
fi

# 1. the model from one uncapped run (the parameters made first, so that this
# run and the capped ones all map them from the cache alike)
"$zk" batch "${circuit[@]}" --partitions 1 --count 1 --out "$tmp/setup" >"$tmp/setup.log" 2>&1 \
  || { cat "$tmp/setup.log"; fail "parameters"; exit 1; }
"$zk" batch "${circuit[@]}" --pw 1 --out "$tmp/fit" >"$tmp/fit.log" 2>&1 || { cat "$tmp/fit.log"; fail "pw 1 batch"; exit 1; }
python3 "$check_run" "$tmp/fit" --complete || fail "pw 1 run: files inconsistent"
"$zk" analyze "$tmp/fit" --json >"$tmp/fit.json" 2>"$tmp/fit.err" || fail "analyze pw 1: $(cat "$tmp/fit.err")"
cap=$(python3 - "$tmp/fit.json" "$tmp/fit/run.json" "$tmp/fit/samples.csv" <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
c = j["capacity"]
m = c["model"]
bad = []
if not m["ok"]:
    bad.append("no model: %s" % m.get("why"))
sh = run["circuit_shape"]
fr = 32
held = fr * (sh["variables"] + 3 * sh["domain"])
st = m["bytes_per_partition"]
if st["waiting"] != held:
    bad.append("waiting holds %d, the formula 32 (v + 3 n) gives %d" % (st["waiting"], held))
if not (held <= st["proving"] <= held + fr * sh["b_density"] + 64 * 2**20):
    bad.append("proving holds %d, expected at least %d" % (st["proving"], held))
pred = {p["pw"]: p for p in c["predicted"]}
if any(w not in pred for w in range(1, 8)):
    bad.append("predicted has pw %s" % sorted(pred))
elif not (pred[1]["peak_rss"] < pred[2]["peak_rss"] < pred[3]["peak_rss"] < pred[4]["peak_rss"]):
    bad.append("predictions do not grow with pw: %s" % [pred[w]["peak_rss"] for w in range(1, 5)])
# 2 proofs x 4 partitions: 1 proving, 1 queued, and the lightest state, finishing, empty (the
# pipeline allows it): 6 slots at most
elif pred[6]["bound"] or pred[6]["occupancy"]["finishing"] != 0:
    bad.append("pw 6 should fill the 8 in flight with finishing empty: %s" % pred[6])
elif not pred[7]["bound"] or pred[7]["peak_rss"] != pred[6]["peak_rss"]:
    bad.append("pw 7 should add nothing over pw 6 (in-flight bound): %s" % pred[7])
if bad:
    print("BAD " + "; ".join(bad))
else:
    # a cgroup charges what is not file-backed: the cap is in those terms
    rows = list(csv.DictReader(open(sys.argv[3])))
    file = int(max(rows, key=lambda r: int(r["rss"]))["rss_file"])
    least2 = pred[2]["peak_rss"] - pred[2]["retention"] + pred[1]["retention"]
    print(int(pred[1]["peak_rss"] + least2) // 2 - file)
PY
)
case "$cap" in
  BAD*) fail "pw 1 model: ${cap#BAD }"; exit 1 ;;
  *) ok "pw 1 model: bytes per state match the formula; cap halfway between pw 1 and the least of pw 2: $cap bytes" ;;
esac

# 2. the prediction, then the kill
"$zk" sweep --pw 1 --mem-limit "$cap" --verify "${circuit[@]}" --out "$tmp/sweep" >"$tmp/sweep.log" 2>&1
rc=$?
line=$(grep '^predicted max pw' "$tmp/sweep.log")
[ $rc -eq 0 ] || fail "sweep --verify exit $rc: $(tail -5 "$tmp/sweep.log")"
echo "$line" | grep -Eq '^predicted max pw 1; pw 1 completed, anonymous peak [0-9.]+ MiB \(predicted [0-9.]+ MiB, error [0-9]+%\); pw 2 OOM-killed at [0-9.]+ MiB as predicted$' \
  && ok "sweep --verify: $line" || fail "sweep --verify line: '$line'"
err=$(echo "$line" | sed -n 's/.*error \([0-9]*\)%.*/\1/p')
[ -n "$err" ] && [ "$err" -le 10 ] || fail "prediction error at pw 1 (run again under the cap): ${err:-?}%, expected <= 10%"
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1/run.json" "$2"; }
[ "$(json "$tmp/sweep/verify-pw-1" 'j["outcome"]')" = complete ] || fail "pw 1 outcome"
python3 "$check_run" "$tmp/sweep/verify-pw-1" --complete || fail "pw 1 run: files inconsistent"
[ "$(json "$tmp/sweep/verify-pw-2" 'j["outcome"]')" = oom-killed ] || fail "pw 2 outcome: $(json "$tmp/sweep/verify-pw-2" 'j.get("outcome")')"
[ "$(json "$tmp/sweep/verify-pw-2" 'j["memory_events"]["oom_kill"] >= 1')" = True ] || fail "pw 2: no oom_kill counted"
python3 "$check_run" "$tmp/sweep/verify-pw-2" --killed || fail "pw 2 (killed): files not readable"
"$zk" analyze "$tmp/sweep/verify-pw-2" --json >"$tmp/killed.json" 2>&1 || fail "analyze of the killed run failed"
v=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["verdict"], j["capacity"]["ram_from"])' "$tmp/killed.json")
[ "$v" = "capacity run.json mem_limit" ] && ok "analyze of the killed run: $v" || fail "analyze of the killed run: '$v'"
grep -q ',oom-killed$' "$tmp/sweep/sweep.csv" && [ -s "$tmp/sweep/sweep.png" ] && [ -s "$tmp/sweep/sweep-model.csv" ] \
  || fail "sweep table/plot: $(cat "$tmp/sweep/sweep.csv"); $(grep -i 'plot' "$tmp/sweep.log")"
ls /sys/fs/cgroup/memory 2>/dev/null | grep -q "^zkbench-$$-" && fail "a cgroup was left behind"

if [ $fails -gt 0 ]; then
  echo "$fails failure(s)"; cat "$tmp/sweep.log"; exit 1
fi
echo "capacity: all checks passed"
