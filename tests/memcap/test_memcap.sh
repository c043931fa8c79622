#!/usr/bin/env bash
# --mem-limit on batch and watch, for real:
# - refusals (a bad SIZE, ZKBENCH_CGROUP_ROOT missing or not a cgroup,
#   --pid with --mem-limit): one line, exit 2, no output folder;
# - a batch without --mem-limit records mem_limit null and no memory events;
# - a batch under a generous cap completes: exit 0, outcome complete,
#   mem_limit and memory_events in run.json, the files consistent;
# - the same batch capped a third of the way from its cgroup usage at
#   baseline to its peak (both measured by the generous run) is OOM-killed:
#   exit 3, outcome oom-killed, oom_kill >= 1, a summary rebuilt from the
#   files, every CSV whole to its last row, no .run.json.tmp left;
# - SIGINT to a capped batch's parent reaches the batch (exit 130,
#   interrupted); SIGKILL to the batch without an OOM gives outcome killed,
#   exit 1;
# - watch: a command allocating 512 MiB under 64M is OOM-killed (exit 3),
#   one under a generous cap passes its exit status through;
# - no zkbench-<pid>-<n> cgroup is left behind.
# Skips (77) only when not root or no memory controller exists.
#   test_memcap.sh PATH_TO_ZKBENCH PATH_TO_CHECK_RUN_PY
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
check_run=$2
export ZKBENCH_PARAMS_DIR=$tmp/params
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1/run.json" "$2"; }


cgroups() { find /sys/fs/cgroup -name 'zkbench-[0-9]*' -type d 2>/dev/null | sort; }
cgroups >"$tmp/cgroups.before"

# 1. refusals, wherever this runs
o="--out $tmp/never"
small="--circuit porep:constraints=2^12 --partitions 2 --count 1"
lib_expect2 "batch --mem-limit banana" "$zk" batch $small --mem-limit banana $o
lib_expect2 "batch --mem-limit 0" "$zk" batch $small --mem-limit 0 $o
lib_expect2 "batch --mem-limit 100" "$zk" batch $small --mem-limit 100 $o
lib_expect2 "batch --mem-limit without SIZE" "$zk" batch $small $o --mem-limit
ZKBENCH_CGROUP_ROOT=/nonexistent lib_expect2 "batch, ZKBENCH_CGROUP_ROOT=/nonexistent" "$zk" batch $small --mem-limit 1G $o
grep -q 'ZKBENCH_CGROUP_ROOT=/nonexistent' "$tmp/err" || fail "the error does not name ZKBENCH_CGROUP_ROOT: $(cat "$tmp/err")"
mkdir "$tmp/plain"
ZKBENCH_CGROUP_ROOT=$tmp/plain lib_expect2 "batch, ZKBENCH_CGROUP_ROOT=a plain folder" "$zk" batch $small --mem-limit 1G $o
grep -q 'not a memory cgroup' "$tmp/err" || fail "plain folder: $(cat "$tmp/err")"
lib_expect2 "watch --mem-limit banana" "$zk" watch --mem-limit banana $o -- true
lib_expect2 "watch --pid --mem-limit" "$zk" watch --pid $$ --mem-limit 64M $o
ZKBENCH_CGROUP_ROOT=/nonexistent lib_expect2 "watch, ZKBENCH_CGROUP_ROOT=/nonexistent" "$zk" watch --mem-limit 64M $o -- true

# 2. can this machine make a memory cgroup at all?
"$zk" watch --mem-limit 64M --out "$tmp/probe" -- sleep 0.3 >/dev/null 2>"$tmp/probe.err"
if [ $? -ne 0 ]; then
  if [ "$(id -u)" -ne 0 ] || grep -qE 'no memory cgroup|lacks memory|Read-only file system' "$tmp/probe.err"; then
    echo "SKIP: no memory cgroup can be made here: $(cat "$tmp/probe.err")"
    [ "$fails" -eq 0 ] || exit 1
    exit 77
  fi
  echo "FAIL: root with a cgroup mount, yet: $(cat "$tmp/probe.err")" >&2
  exit 1
fi

# 3. batches: uncapped (also makes the parameters), generous, OOM-killed
circ="--circuit porep:constraints=2^13 --partitions 2 --pw 1"
"$zk" batch $circ --count 1 --out "$tmp/plainrun" >/dev/null 2>"$tmp/err" || fail "uncapped batch: $(cat "$tmp/err")"
[ "$(json "$tmp/plainrun" 'j["config"]["mem_limit"] is None and "memory_events" not in j and j["outcome"]')" = complete ] \
  || fail "uncapped batch: mem_limit should be null, no memory_events, outcome complete"

"$zk" batch $circ --count 2 --mem-limit 1G --out "$tmp/gen" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "batch under a generous cap: exit $rc: $(cat "$tmp/err")"
python3 "$check_run" "$tmp/gen" --complete || fail "batch under a generous cap: files inconsistent"
python3 - "$tmp/gen/run.json" <<'PY' || fail "batch under a generous cap: run.json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["outcome"] == "complete" and j["status"] == "complete", j
assert j["mem_limit"] == 1 << 30 and j["config"]["mem_limit"] == 1 << 30, j
ev = j["memory_events"]
assert ev["cgroup"] in ("v1", "v2") and ev["oom_kill"] == 0 and ev["limit_bytes"] == 1 << 30, ev
assert j["baseline"]["cgroup_bytes"] > 0, j["baseline"]
PY
base=$(json "$tmp/gen" 'j["baseline"]["cgroup_bytes"]')
peak=$(json "$tmp/gen" 'j["memory_events"]["peak_bytes"] or 0')
if [ "$peak" -le "$base" ]; then
  fail "the kernel gives no cgroup peak above the baseline ($base, $peak): cannot choose a cap"
else
  cap=$((base + (peak - base) / 3))
  "$zk" batch $circ --count 2 --mem-limit "$cap" --out "$tmp/oom" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 3 ] || fail "batch capped at $cap (baseline $base, peak $peak): exit $rc, expected 3: $(cat "$tmp/err")"
  [ "$(wc -l <"$tmp/err")" -le 2 ] && grep -q "^zkbench: batch: OOM-killed under --mem-limit .* at peak .* after [01] of 2 proofs; files in $tmp/oom/\$" "$tmp/err" \
    || fail "OOM kill: not the one line expected: $(cat "$tmp/err")"
  python3 "$check_run" "$tmp/oom" --killed || fail "OOM kill: CSVs not whole to their last row"
  python3 - "$tmp/oom" "$cap" <<'PY' || fail "OOM kill: run.json"
import csv, json, sys
d, cap = sys.argv[1], int(sys.argv[2])
j = json.load(open(d + "/run.json"))
assert j["outcome"] == "oom-killed" and j["status"] == "oom-killed" and j["interrupted"] is False, j
assert j["mem_limit"] == cap and j["config"]["mem_limit"] == cap, j
ev = j["memory_events"]
assert ev["oom_kill"] >= 1 and ev["oom"] >= 1 and ev["cgroup"] in ("v1", "v2"), ev
assert j["signal"] == "SIGKILL", j
# the child's own record is kept: config, machine, baseline
assert j["config"]["count"] == 2 and "machine" in j and j["baseline"]["rss"] > 0, j
rows = list(csv.reader(open(d + "/samples.csv")))
s = j["summary"]
proofs = list(csv.reader(open(d + "/proofs.csv")))
assert s["from_files"] is True and s["proofs_done"] == len(proofs) - 1 < 2, (s, proofs)
assert s["sampler"]["ticks"] == len(rows) - 1, s
hdr = rows[0]
last = dict(zip(hdr, rows[-1]))
assert len(rows[-1]) == len(hdr), rows[-1]
peak = max(max(int(r[hdr.index("rss")]), int(r[hdr.index("hwm")])) for r in rows[1:])
assert s["peak_rss"] == max(peak, j["baseline"]["rss"]), (s, peak)
assert abs(s["wall_s"] - float(last["t_ms"]) / 1e3) < 1e-6, (s, last)
PY
  [ ! -e "$tmp/oom/.run.json.tmp" ] || fail "OOM kill: .run.json.tmp left behind"
fi

# 4. signals: SIGINT to the parent stops the batch cleanly; SIGKILL to the
# batch is no OOM
sig="--circuit porep:constraints=2^12 --partitions 2 --pw 1 --count 50 --mem-limit 1G"
"$zk" batch $sig --out "$tmp/int" >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do [ -f "$tmp/int/run.json" ] && break; sleep 0.05; done
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT to a capped batch: exit $rc, expected 130"
[ "$(json "$tmp/int" 'j["outcome"], j["interrupted"], j["memory_events"]["oom_kill"]')" = "('interrupted', True, 0)" ] \
  || fail "SIGINT to a capped batch: run.json $(json "$tmp/int" 'j.get("outcome"), j.get("interrupted")')"

"$zk" batch $sig --out "$tmp/kill" >/dev/null 2>"$tmp/err" &
pid=$!
for i in $(seq 100); do [ -f "$tmp/kill/run.json" ] && break; sleep 0.05; done
child=$(cat /proc/$pid/task/$pid/children 2>/dev/null || pgrep -P $pid)
[ -n "$child" ] && kill -KILL $child
wait $pid
rc=$?
[ $rc -eq 1 ] || fail "SIGKILL to a capped batch: exit $rc, expected 1"
[ "$(json "$tmp/kill" 'j["outcome"], j["signal"]')" = "('killed', 'SIGKILL')" ] || fail "SIGKILL: run.json"
grep -q "^zkbench: batch: the batch process died of SIGKILL (no OOM kill" "$tmp/err" || fail "SIGKILL: $(cat "$tmp/err")"

# 5. watch
"$zk" watch --sample-ms 20 --mem-limit 64M --out "$tmp/w-oom" -- python3 -c '
keep = []
for i in range(512):
    keep.append(bytearray(1 << 20))
' >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "watch of a 512 MiB allocator under 64M: exit $rc, expected 3: $(cat "$tmp/err")"
grep -q "^zkbench: watch: the command was OOM-killed under --mem-limit 64.0 MiB" "$tmp/err" || fail "watch OOM line: $(cat "$tmp/err")"
[ "$(json "$tmp/w-oom" 'j["outcome"], j["mem_limit"], j["memory_events"]["oom_kill"] >= 1')" = "('oom-killed', 67108864, True)" ] \
  || fail "watch OOM: run.json"
[ ! -e "$tmp/w-oom/.run.json.tmp" ] || fail "watch OOM: .run.json.tmp left behind"

"$zk" watch --sample-ms 20 --mem-limit 1G --out "$tmp/w-ok" -- python3 -c '
import sys
keep = bytearray(32 << 20)
sys.exit(5)
' >/dev/null 2>&1
rc=$?
[ $rc -eq 5 ] || fail "watch under a generous cap did not pass exit 5 through (got $rc)"
[ "$(json "$tmp/w-ok" 'j["outcome"], j["exit_code"], j["memory_events"]["oom_kill"]')" = "('failed', 5, 0)" ] \
  || fail "watch under a generous cap: run.json"

# 6. nothing left behind
cgroups >"$tmp/cgroups.after"
left=$(comm -13 "$tmp/cgroups.before" "$tmp/cgroups.after")
[ -z "$left" ] || fail "cgroups left behind: $left"

lib_done "memcap: all checks passed"
