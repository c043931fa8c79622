#!/usr/bin/env bash
# zkbench check (issue 14, item 7): a run of other settings than the
# baseline's gets one warning naming each differing setting with both
# values (and none when they agree); the footprint line prints the
# baseline's value, tolerance and slack and the run's standard error, each
# its own number (a reused buffer printed one of them twice); baselines
# record the semantic version and older ones (0.1.0, or none recorded, as
# the committed results/baselines) are still read.
#   test_check.sh PATH_TO_ZKBENCH GEN_RUN_PY SOURCE_ROOT
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
gen=$2
src=$3
lib_seed

python3 "$gen" healthy "$tmp/run" --seed "$seed" >/dev/null || { echo "gen_run.py failed (seed $seed)"; exit 1; }
"$zk" check "$tmp/run" --write-baseline "$tmp/base.json" >"$tmp/out" 2>"$tmp/err" || fail "write-baseline: $(cat "$tmp/err")"
version=$("$zk" -V | sed 's/^zkbench \([0-9.]*\) .*/\1/')
python3 - "$tmp/base.json" "$version" <<'PY' || fail "the baseline does not record zkbench_version $version"
import json, sys
assert json.load(open(sys.argv[1]))["zkbench_version"] == sys.argv[2]
PY

# the same settings: no warning
"$zk" check "$tmp/run" --baseline "$tmp/base.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "check on its own baseline: exit $rc $(cat "$tmp/err")"
grep -q "differ in settings" "$tmp/err" && fail "a warning for equal settings: $(cat "$tmp/err")"
grep -q "(written by zkbench $version)" "$tmp/out" || fail "the report does not name the baseline's version"

# other settings, an older baseline (0.1.0) and a footprint limit with
# value, tolerance and slack all distinct from the run's standard error
python3 - "$tmp/base.json" "$tmp/other.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["zkbench_version"] = "0.1.0"
b["config"]["pw"] = b["config"]["pw"] + 3
b["config"]["count"] = 99
b["config"]["backend"] = "gpu"     # the run records none: not compared
fp = b["limits"]["footprint_per_partition"]
fp["value"] = int(fp["value"] * 0.93)
fp["tolerance"] = 0.21
fp["slack"] = 7 * 1024 * 1024 + 12345
json.dump(b, open(sys.argv[2], "w"), indent=2)
PY
"$zk" check "$tmp/run" --baseline "$tmp/other.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "check against other settings: exit $rc $(cat "$tmp/err")"
grep -q "(written by zkbench 0.1.0)" "$tmp/out" || fail "a 0.1.0 baseline is not read as one: $(head -1 "$tmp/out")"
python3 - "$tmp/run/run.json" "$tmp/other.json" "$tmp/err" "$tmp/out" <<'PY' || fail "warning or slack line wrong (seed $seed)"
import json, math, re, sys
run = json.load(open(sys.argv[1]))["config"]
base = json.load(open(sys.argv[2]))
err = open(sys.argv[3]).read()
out = open(sys.argv[4]).read()
warn = [l for l in err.splitlines() if "differ in settings" in l]
assert len(warn) == 1, f"expected one warning line, got {warn!r}"
w = warn[0]
assert w.startswith("zkbench: warning: check: "), w
for key in ("pw", "count"):
    want = "%s %s (baseline %s)" % (key, json.dumps(run[key]), json.dumps(base["config"][key]))
    assert want in w, f"warning lacks {want!r}: {w}"
for key in ("backend", "partitions", "gpu_workers"):  # absent in one, or equal
    assert not re.search(r"\b%s " % key, w), f"warning names {key}: {w}"

def fb(v):  # check's byte format
    a = abs(v)
    if a >= 2**30: return "%.3f GiB" % (v / 2**30)
    if a >= 2**20: return "%.2f MiB" % (v / 2**20)
    if a >= 1024: return "%.1f KiB" % (v / 1024)
    return "%.0f B" % v
fp = base["limits"]["footprint_per_partition"]
limit = fp["value"] * (1 + fp["tolerance"]) + fp["slack"]
line = [l for l in out.splitlines() if "footprint per partition" in l]
assert len(line) == 1, out
want = "limit %s (baseline %s + %.0f%% + %s slack)" % (fb(limit), fb(fp["value"]), 100 * fp["tolerance"], fb(fp["slack"]))
assert want in line[0], f"expected {want!r} in {line[0]!r}"
se = re.search(r"\+- (\S+ \S+),", line[0]).group(1)
assert se != fb(fp["slack"]), f"the standard error printed as the slack: {line[0]}"
PY

# another circuit: the limits do not apply, so the gate fails (issue 26:
# a 2^10 run passed a 2^12 baseline with a warning)
python3 - "$tmp/base.json" "$tmp/circuit.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["config"]["circuit"] = "porep:constraints=2^20"
json.dump(b, open(sys.argv[2], "w"), indent=2)
PY
"$zk" check "$tmp/run" --baseline "$tmp/circuit.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "check against a baseline of another circuit: exit $rc, expected 1"
grep -q '^zkbench: check: the baseline .* is of another circuit or shape .*circuit "synthetic" (baseline "porep:constraints=2^20")' \
  "$tmp/err" || fail "another circuit: no line naming both: $(cat "$tmp/err")"
grep -q "^  ok\|^  FAIL" "$tmp/out" && fail "another circuit: limits were compared: $(cat "$tmp/out")"

# a baseline written before zkbench_version existed is read as one: the
# committed baseline with that key taken out stands for it
committed=$src/results/baselines/cpu-porep14-pw2.json
if [ -f "$committed" ]; then
  old=$tmp/older-baseline.json
  python3 - "$committed" "$old" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b.pop("zkbench_version", None)
json.dump(b, open(sys.argv[2], "w"), indent=2)
PY
  "$zk" check "$tmp/run" --baseline "$old" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "check against an older baseline: exit $rc $(cat "$tmp/err")"
  grep -q "(written by zkbench 0.1.0 or older)" "$tmp/out" || fail "a baseline without zkbench_version not read as an older one"
  grep -q "differ in settings: .*pw 4 (baseline 2)" "$tmp/err" || fail "no warning against the older baseline: $(cat "$tmp/err")"
  # the committed one, as written today, names its version
  "$zk" check "$tmp/run" --baseline "$committed" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "check against $committed: exit $rc $(cat "$tmp/err")"
  grep -q "(written by zkbench 0.1.0 or older)" "$tmp/out" && fail "$committed read as an older baseline"
  grep -q "differ in settings: .*pw 4 (baseline 2)" "$tmp/err" || fail "no warning against $committed: $(cat "$tmp/err")"
fi

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed (seed $seed)" >&2
  exit 1
fi
echo "check: all checks passed (seed $seed)"
