#!/usr/bin/env bash
# Signals (issue 26, item 3):
# - two SIGINTs while a batch proves: exit 130 and run.json interrupted
#   (it said running, interrupted false), every CSV ending with a whole row;
# - watch passes SIGTERM (and SIGINT) on to the command's whole process
#   group: a grandchild gets it (only SIGINT reached the direct child);
# - watch records its own SIGTERM in run.json;
# - a command that ignores SIGTERM is SIGKILLed --kill-after S later
#   (watch kept running after 3 SIGTERMs);
# - a SIGKILL of watch leaves no process of the command behind (the child
#   was orphaned); its run.json says running, which check fails.
#   test_signals.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
cleanup() {
  # whatever a failed run left running
  for f in "$tmp"/*.pids; do [ -e "$f" ] && kill -KILL $(cat "$f") 2>/dev/null; done
}
lib_on_exit cleanup
export ZKBENCH_PARAMS_DIR=$tmp/params

# ---- batch: the second SIGINT, 0.1 s after the first (two at once may
# reach the process as one), while the first one's drain still runs: 2^12
# partitions take long enough
circ=(--circuit porep:constraints=2^12 --partitions 2)
"$zk" batch "${circ[@]}" --count 1 --no-analyze --out "$tmp/warm" >/dev/null 2>&1
"$zk" batch "${circ[@]}" --count 60 --no-analyze --out "$tmp/two" >"$tmp/two.out" 2>&1 &
pid=$!
for i in $(seq 300); do
  [ -f "$tmp/two/proofs.csv" ] && [ "$(wc -l <"$tmp/two/proofs.csv")" -ge 3 ] && break
  sleep 0.05
done
kill -INT $pid
sleep 0.1
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "two SIGINTs: exit $rc, expected 130"
python3 - "$tmp/two" <<'PY' || fail "two SIGINTs: run.json or the CSVs are not as an interrupted run leaves them"
import csv, json, os, sys
d = sys.argv[1]
j = json.load(open(f"{d}/run.json"))
assert j["status"] == "interrupted" and j["outcome"] == "interrupted" and j["interrupted"] is True, \
    (j["status"], j["outcome"], j["interrupted"])
for name in ("samples.csv", "buffers.csv", "stages.csv", "proofs.csv"):
    text = open(f"{d}/{name}").read()
    rows = list(csv.reader(text.splitlines()))
    if text and not text.endswith("\n"):
        rows = rows[:-1]  # a torn last row is what readers drop
    assert all(len(r) == len(rows[0]) for r in rows), name
assert not [f for f in os.listdir(d) if f.endswith(".tmp")]
PY

# ---- watch: the command's group gets the signal
# a script whose child writes its pid and notes the SIGTERM it gets
cat >"$tmp/tree.sh" <<'EOF'
#!/bin/sh
# $1: a file for the pids, $2: a file the grandchild writes when signalled, $3: "ignore" to ignore TERM
if [ "$3" = ignore ]; then trap '' TERM INT; fi
sh -c 'if [ "$2" = ignore ]; then trap "" TERM INT; else trap "echo TERM >$1; exit 0" TERM; fi; while :; do sleep 0.05; done' \
  grandchild "$2" "$3" &
echo $$ $! >"$1"
wait
EOF
chmod +x "$tmp/tree.sh"

# guard PID: SIGKILL for PID 30 s from now (a watch that never ends); the
# guard's pid in $guard
guard() {
  rm -f "$tmp/guarded"
  (
    trap 'kill $s 2>/dev/null; exit 0' TERM # its sleep goes with it, holding no pipe of the test's
    sleep 30 &
    s=$!
    wait $s
    kill -KILL "$1" 2>/dev/null && touch "$tmp/guarded"
  ) >/dev/null 2>&1 &
  guard=$!
}
# wait_pids FILE: until the script wrote its pids
wait_pids() { for i in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }
# gone PIDS...: none of them is alive within 3 s
gone() { for i in $(seq 60); do kill -0 "$@" 2>/dev/null || return 0; sleep 0.05; done; return 1; }

"$zk" watch --quiet --sample-ms 20 --out "$tmp/w-term" -- "$tmp/tree.sh" "$tmp/term.pids" "$tmp/got" \
  >/dev/null 2>&1 &
w=$!
guard $w
wait_pids "$tmp/term.pids" || fail "the watched script did not start"
sleep 0.2
kill -TERM $w
wait $w
rc=$?
kill $guard 2>/dev/null
[ ! -e "$tmp/guarded" ] || fail "SIGTERM: watch still ran 30 s later"
[ "$(cat "$tmp/got" 2>/dev/null)" = TERM ] || fail "SIGTERM: the command's grandchild never got it"
gone $(cat "$tmp/term.pids") || fail "SIGTERM: processes of the command left: $(cat "$tmp/term.pids")"
python3 - "$tmp/w-term/run.json" <<'PY' || fail "SIGTERM: run.json does not record watch's own SIGTERM"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["interrupted"] is True and j["outcome"] == "interrupted", (j["interrupted"], j["outcome"])
assert j.get("signal") == "SIGTERM" and j["stop"]["signal"] == "SIGTERM" and j["stop"]["passed_on"] >= 1, j.get("stop")
PY

# ---- watch: escalation to SIGKILL after --kill-after
t0=$(date +%s%N)
"$zk" watch --quiet --sample-ms 20 --kill-after 1 --out "$tmp/w-kill" -- \
  "$tmp/tree.sh" "$tmp/kill.pids" "$tmp/got2" ignore >/dev/null 2>&1 &
w=$!
guard $w
wait_pids "$tmp/kill.pids" || fail "the watched script did not start"
sleep 0.2
kill -TERM $w; sleep 0.1; kill -TERM $w; sleep 0.1; kill -TERM $w
wait $w
rc=$?
kill $guard 2>/dev/null
ms=$((($(date +%s%N) - t0) / 1000000))
[ ! -e "$tmp/guarded" ] || fail "--kill-after 1: watch still ran after 3 SIGTERMs and 30 s"
[ $rc -eq 137 ] || fail "--kill-after 1: exit $rc, expected 137 (the command's SIGKILL)"
[ $ms -lt 15000 ] || fail "--kill-after 1: watch took $ms ms to end"
gone $(cat "$tmp/kill.pids") || fail "--kill-after 1: processes of the command left"
python3 - "$tmp/w-kill/run.json" <<'PY' || fail "--kill-after 1: run.json does not say SIGKILL followed"
import json, sys
s = json.load(open(sys.argv[1]))["stop"]
assert s["sigkill_after_kill_after"] is True and s["received"] == 3, s
PY

# ---- watch: SIGKILLed by a supervisor
"$zk" watch --quiet --sample-ms 20 --out "$tmp/w-sigkill" -- "$tmp/tree.sh" "$tmp/sk.pids" "$tmp/got3" \
  >/dev/null 2>&1 &
w=$!
wait_pids "$tmp/sk.pids" || fail "the watched script did not start"
sleep 0.2
kill -KILL $w
wait $w 2>/dev/null
gone $(cat "$tmp/sk.pids") || fail "SIGKILL of watch: the command's processes were left running: $(cat "$tmp/sk.pids")"
"$zk" check "$tmp/w-sigkill" --baseline /dev/null >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "did not complete" "$tmp/err" || fail "check passed a SIGKILLed watch: $(cat "$tmp/err")"

lib_done "signals: all checks passed"
