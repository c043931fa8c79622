#!/usr/bin/env bash
# zkbench sweep --pw LIST -- CMD (issue 27 item 1): the capacity of a prover
# zkbench has never seen. pw_knob (this folder) holds 30 MiB plus 40 MiB per
# pw: the fit's slope and base against those, the largest pw that fits
# --ram worked out here from the fit, sweep.csv / sweep-model.csv in a batch
# sweep's columns; under --mem-limit (a memory cgroup: skipped without one)
# --verify runs the predicted largest pw, which completes, and the next,
# which the kernel OOM-kills, with the line the issue names. `zkbench batch`
# run as a foreign command: its foreign fit predicts an unseen pw within
# 10 % of the native sweep's own model. Bad input: exit 2, one line.
#   test_sweep_command.sh PATH_TO_ZKBENCH PATH_TO_PW_KNOB
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
knob=$(realpath "$2")
export ZKBENCH_PARAMS_DIR=$tmp/params
MIB=1048576

# 1. the fit and the largest pw under --ram
"$zk" sweep --pw 1,2,4 --ram 300M --sample-ms 20 --out "$tmp/ram" -- "$knob" {pw} 40 >"$tmp/ram.out" 2>"$tmp/ram.err"
rc=$?
[ $rc -eq 0 ] || fail "sweep -- pw_knob: exit $rc ($(tail -3 "$tmp/ram.err"))"
python3 - "$tmp/ram" "$tmp/ram.out" <<'PY' || fail "sweep -- pw_knob: see above"
import csv, re, sys
d, out = sys.argv[1], open(sys.argv[2]).read()
MIB = 1 << 20
rows = list(csv.DictReader(open(d + "/sweep.csv")))
bad = []
if [r["pw"] for r in rows] != ["1", "2", "4"] or any(r["outcome"] != "complete" for r in rows):
    bad.append("rows %s" % [(r["pw"], r["outcome"]) for r in rows])
peaks = [float(r["peak_rss"]) for r in rows]
# the planted memory: 30 MiB + 40 MiB per pw, plus the runtime's few MiB
for pw, p in zip((1, 2, 4), peaks):
    want = (30 + 40 * pw) * MIB
    if not (want <= p <= want + 8 * MIB):
        bad.append("pw %d peak %.1f MiB, planted %.0f MiB" % (pw, p / MIB, want / MIB))
f = float(rows[0]["footprint_per_partition"])
if abs(f - 40 * MIB) > 0.03 * 40 * MIB:
    bad.append("slope %.2f MiB per pw, planted 40" % (f / MIB))
model = list(csv.DictReader(open(d + "/sweep-model.csv")))
if [m["pw"] for m in model[:8]] != [str(i) for i in range(1, 9)]:
    bad.append("sweep-model.csv pw column %s" % [m["pw"] for m in model[:8]])
pred = {int(m["pw"]): float(m["predicted_peak_rss"]) for m in model}
b = pred[1] - f
room = 300 * MIB * 0.9
want_max = max(w for w in range(0, 100) if b + f * w <= room)
m = re.search(r"largest pw that fits .* margin: (\d+)", out)
if not m or int(m.group(1)) != want_max:
    bad.append("largest pw %s, the fit gives %d" % (m and m.group(1), want_max))
for r in rows:
    lo, hi = float(r["predicted_low"]), float(r["predicted_high"])
    if not lo <= float(r["predicted_peak_rss"]) <= hi:
        bad.append("pw %s: predicted outside its interval" % r["pw"])
if "nan" in open(d + "/sweep.csv").read().lower():
    bad.append("nan in sweep.csv")
for x in bad: print("ram sweep:", x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# 2. --mem-limit --verify: the predicted largest pw completes, the next is killed
"$zk" sweep --pw 1,2,3 --mem-limit 220M --verify --sample-ms 20 --out "$tmp/cap" -- "$knob" {pw} 40 \
  >"$tmp/cap.out" 2>"$tmp/cap.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "cgroup" "$tmp/cap.err"; then
  echo "skipped the capped part: $(head -1 "$tmp/cap.err")"
else
  [ $rc -eq 0 ] || fail "sweep --mem-limit --verify -- pw_knob: exit $rc ($(tail -3 "$tmp/cap.err"))"
  grep -Eq "^predicted max pw 4; pw 4 completed, anonymous peak [0-9.]+ MiB \(predicted [0-9.]+ MiB, error [0-9]+%\); pw 5 OOM-killed at [0-9.]+ MiB as predicted$" \
    "$tmp/cap.out" || fail "--verify line: $(grep -i predicted "$tmp/cap.out")"
  python3 - "$tmp/cap/verify-pw-5/run.json" <<'PY' || fail "verify pw 5: not recorded as an OOM kill"
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["outcome"] == "oom-killed" else 1)
PY
fi

# 3. zkbench batch as a foreign command against the native sweep's model.
# Like for like: the parameters are generated first, so both sweeps map
# them (else the native pw 1 run generates them and its model is that load
# peak at every pw, 16.8 MiB, not the per-state model); 2 proofs in flight,
# so pw 1..5 each add a partition and a line can follow the model (with 1,
# the pipeline is bound from pw 2 on and a line through pw 1..3 overshoots
# pw 5 by 10%); jemalloc's decay at 0, because under the defaults the freed
# pages the workers' arenas keep vary from run to run by more than a pw
# step (0.6 MiB a point here), which a line through the points carries
# 1.6-fold to pw 5 (four points; three: 2.4-fold). The model under the
# defaults is measured by tests/capacity and scripts/bench-capacity.sh.
circ=(--circuit porep:constraints=2^12 --partitions 4 --backend cpu --threads 1 --count 2 --concurrency 2)
"$zk" batch --circuit porep:constraints=2^12 --partitions 1 --count 1 --backend cpu --threads 1 --out "$tmp/setup" \
  >"$tmp/setup.out" 2>&1 || fail "parameters for the foreign sweep: $(tail -3 "$tmp/setup.out")"
MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0 "$zk" sweep --pw 1,2,3 "${circ[@]}" --out "$tmp/native" \
  >"$tmp/native.out" 2>&1 || fail "native sweep: $(tail -3 "$tmp/native.out")"
MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0 "$zk" sweep --pw 1,2,3,4 --sample-ms 20 --out "$tmp/foreign" -- "$zk" batch \
  "${circ[@]}" --pw {pw} --no-analyze --out "$tmp/foreign-batch-{pw}" >"$tmp/foreign.out" 2>&1 \
  || fail "foreign sweep of zkbench batch: $(tail -3 "$tmp/foreign.out")"
python3 - "$tmp/native" "$tmp/foreign" <<'PY' || fail "foreign and native models disagree"
import csv, json, sys
if json.load(open(sys.argv[1] + "/pw-1/run.json"))["config"]["concurrency"] != 2:
    sys.exit("native run: not 2 proofs in flight")
nat = {int(r["pw"]): float(r["predicted_peak_rss"]) for r in csv.DictReader(open(sys.argv[1] + "/sweep-model.csv"))}
fo = {int(r["pw"]): float(r["predicted_peak_rss"]) for r in csv.DictReader(open(sys.argv[2] + "/sweep-model.csv"))}
w = 5  # unseen by both
if not nat[w] > nat[1]:
    sys.exit("native model flat from pw 1 to %d (%.1f MiB): a load peak or a bound, not the per-state model" % (w, nat[w] / 2**20))
err = abs(fo[w] - nat[w]) / nat[w]
print("pw %d: native model %.1f MiB, foreign fit %.1f MiB (%.1f %%)" % (w, nat[w] / 2**20, fo[w] / 2**20, 100 * err))
sys.exit(0 if err <= 0.10 else 1)
PY

# 3b. a point whose command fails (exit 3 at pw 2, which is not an OOM kill:
# watch exits with the command's status) is named, its row "failed", the
# others run and are fitted; sweep exits 1
"$zk" sweep --pw 1,2,3 --sample-ms 20 --out "$tmp/fail" -- sh -c '[ "$1" -ne 2 ] || exit 3; exec "$0" "$1" 40' \
  "$knob" {pw} >"$tmp/fail.out" 2>"$tmp/fail.err"
rc=$?
[ $rc -eq 1 ] || fail "a failing point: exit $rc, expected 1"
grep -q "1 of 3 point(s) failed: pw 2 (exit 3" "$tmp/fail.err" || fail "the failing point not named: $(cat "$tmp/fail.err")"
python3 - "$tmp/fail/sweep.csv" <<'PY' || fail "a failing point's rows: see above"
import csv, sys
rows = {r["pw"]: r for r in csv.DictReader(open(sys.argv[1]))}
bad = []
if rows["2"]["outcome"] != "failed":
    bad.append("pw 2 outcome %s, expected failed" % rows["2"]["outcome"])
if rows["1"]["outcome"] != "complete" or rows["3"]["outcome"] != "complete" or not rows["1"]["predicted_peak_rss"]:
    bad.append("the other points: %s" % rows)
for x in bad: print("failing point:", x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# 4. bad input: one line, exit 2, nothing written
bad() { # label, then the arguments
  local what=$1
  shift
  rm -rf "$tmp/bad"
  "$zk" sweep "$@" --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$what: exit $rc, stderr $(cat "$tmp/err")"
  [ ! -e "$tmp/bad" ] || fail "$what: wrote $tmp/bad"
}
bad "no {pw}" --pw 1,2 -- "$knob" 1 40
bad "--concurrency with a command" --pw 1,2 --concurrency 2 -- "$knob" {pw} 40
bad "a batch option with a command" --pw 1,2 --circuit synthetic -- "$knob" {pw} 40
bad "--mark without a command" --pw 1,2 --mark done --circuit synthetic
bad "--verify without --mem-limit" --pw 1,2 --verify -- "$knob" {pw} 40
# a cap this machine cannot make: said once before any point runs (a folder
# that is no memory cgroup stands in for a machine without one)
mkdir -p "$tmp/not-a-cgroup"
ZKBENCH_CGROUP_ROOT=$tmp/not-a-cgroup bad "--mem-limit without a memory cgroup" --pw 1,2 --mem-limit 200M -- "$knob" {pw} 40
grep -q "^zkbench: sweep: --mem-limit: .*not a memory cgroup" "$tmp/err" || fail "no cgroup: $(cat "$tmp/err")"
ZKBENCH_CGROUP_ROOT=$tmp/not-a-cgroup bad "--mem-limit without a memory cgroup (batch sweep)" --pw 1,2 --mem-limit 200M \
  --circuit porep:constraints=2^10

lib_done "sweep of a command: all checks passed"
