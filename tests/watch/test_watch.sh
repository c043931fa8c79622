#!/usr/bin/env bash
# zkbench watch on programs whose memory behaviour is known: one that leaks
# steadily is a "leak" (analyze's verdict, which watch prints), one that allocates once and then holds steady is
# not; the command's exit status is passed through; samples.csv has the
# batch header with the heap columns empty; bad input gives one line, exit 2.
#   test_watch.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
verdict() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["verdict"])' "$1/run.json" 2>/dev/null; }

# leaks 2 MiB every 30 ms for ~3 s, then exits at once: python's own
# teardown frees the 200 MiB over a few ticks, a fall that on a loaded
# machine could make the end of the series look like a plateau
"$zk" watch --sample-ms 20 --out "$tmp/leak" -- python3 -c '
import os, time
keep = []
for i in range(100):
    keep.append(bytearray(2 << 20)); time.sleep(0.03)
os._exit(0)
' >"$tmp/leak.log" 2>&1 || fail "watch of the leaking program failed: $(cat "$tmp/leak.log")"
[ "$(verdict "$tmp/leak")" = leak ] || fail "leaking program: verdict '$(verdict "$tmp/leak")', expected leak"

# allocates 64 MiB at once, then holds it for ~3 s, exits 3
"$zk" watch --sample-ms 20 --out "$tmp/flat" -- python3 -c '
import sys, time
keep = bytearray(64 << 20)
for i in range(len(keep) // 4096): keep[i * 4096] = 1
time.sleep(3); sys.exit(3)
' >"$tmp/flat.log" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "watch did not pass the command's exit status through (got $rc)"
v=$(verdict "$tmp/flat")
[ "$v" != leak ] || fail "steady program called a leak"

head -1 "$tmp/leak/samples.csv" | grep -q '^t_ms,rss,rss_anon,rss_file,hwm,je_allocated' || fail "samples.csv header"
sed -n 3p "$tmp/leak/samples.csv" | grep -q '^[0-9.]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,,' || fail "heap columns of another process are not empty"

for args in "" "--pid 0" "--pid 99999999" "--pid 1 -- true" "--sample-ms 0 -- true" "-- /no/such/program" "--bogus -- true"; do
  "$zk" watch $args >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "watch $args: exit $rc, stderr $(cat "$tmp/err")"
done

# a command that ends before the first sample keeps its status and still
# leaves a run folder (run.json, samples.csv with its header)
for spec in "1:false" "0:true" "7:sh -c exit\ 7"; do
  want=${spec%%:*} cmd=${spec#*:}
  bad=0
  for i in $(seq 20); do
    rm -rf "$tmp/fast"
    eval "\"\$zk\" watch --sample-ms 5 --out \"\$tmp/fast\" -- $cmd" >/dev/null 2>"$tmp/fast.err"
    rc=$?
    if [ $rc -ne "$want" ] || [ ! -s "$tmp/fast/run.json" ] ||
       ! head -1 "$tmp/fast/samples.csv" 2>/dev/null | grep -q '^t_ms,rss,'; then
      bad=$((bad + 1)) last="exit $rc, $(cat "$tmp/fast.err")"
    fi
  done
  [ $bad -eq 0 ] || fail "watch -- $cmd: $bad of 20 runs lost the status $want or the files ($last)"
done

# --pid on a zombie: a child that exited but that its parent never reaps;
# watch must treat it as ended, both when it is a zombie already and when
# it becomes one while watched
for delay in 0 1; do
  python3 -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    time.sleep(float(sys.argv[1])); os._exit(0)
print(pid, flush=True)
time.sleep(30)
' $delay >"$tmp/zpid$delay" &
  parent=$!
  for i in $(seq 50); do [ -s "$tmp/zpid$delay" ] && break; sleep 0.1; done
  child=$(cat "$tmp/zpid$delay")
  [ "$delay" = 0 ] && sleep 0.3 # let it become a zombie first
  rm -rf "$tmp/zombie"
  timeout 10 "$zk" watch --sample-ms 20 --out "$tmp/zombie" --pid "$child" >"$tmp/zombie.log" 2>&1
  rc=$?
  kill "$parent" 2>/dev/null; wait "$parent" 2>/dev/null
  [ $rc -eq 0 ] || fail "watch --pid on a zombie (exits after ${delay}s): exit $rc $(cat "$tmp/zombie.log")"
  [ -s "$tmp/zombie/run.json" ] && head -1 "$tmp/zombie/samples.csv" | grep -q '^t_ms,rss,' ||
    fail "watch --pid on a zombie (exits after ${delay}s): no run.json or samples.csv"
done

# long runs: after --thin-after, per --thin-interval only the lowest and
# highest RSS and the last tick reach samples.csv (and their procs.csv
# rows); the peak the sampler saw over every tick (run.json peak_rss) is on
# disk; with --thin-after 0 every tick is. Bad values: exit 2.
cat >"$tmp/saw.py" <<'EOF'
import time
t0 = time.time(); a = []
while time.time() - t0 < 2.5:
    a.append(bytearray(1 << 20))
    if len(a) >= 15: a = []
    time.sleep(0.01)
EOF
"$zk" watch --sample-ms 5 --thin-after 0.8 --thin-interval 0.25 --out "$tmp/thin" -- python3 "$tmp/saw.py" >/dev/null 2>&1 ||
  fail "watch --thin-after"
"$zk" watch --sample-ms 5 --thin-after 0 --out "$tmp/nothin" -- python3 "$tmp/saw.py" >/dev/null 2>&1 ||
  fail "watch --thin-after 0"
python3 - "$tmp/thin" "$tmp/nothin" <<'EOF' || fail "--thin-after: see above"
import csv, json, sys
bad = []
for d, thinned in ((sys.argv[1], True), (sys.argv[2], False)):
    rows = list(csv.DictReader(open(d + "/samples.csv")))
    run = json.load(open(d + "/run.json"))
    ticks, peak = run["summary"]["ticks"], run["summary"]["peak_rss"]
    late = [r for r in rows if float(r["t_ms"]) > 900]
    if max(int(r["rss"]) for r in rows) != peak:
        bad.append("%s: the peak of samples.csv %s, the sampler saw %d" % (d, max(int(r["rss"]) for r in rows), peak))
    if thinned:
        # intervals of 0.25 s after 0.8 s: at most 3 rows each (the span as run)
        span = float(rows[-1]["t_ms"]) - 800
        if len(late) > 3 * (int(span / 250) + 2) or len(rows) >= ticks * 0.6:
            bad.append("thinned: %d rows (%d late) of %d ticks" % (len(rows), len(late), ticks))
        ts = {r["t_ms"] for r in rows}
        if any(p["t_ms"] not in ts for p in csv.DictReader(open(d + "/procs.csv"))):
            bad.append("thinned: procs.csv has rows of ticks samples.csv left out")
        if run["config"].get("thin_after_s") != 0.8 or run["config"].get("thin_interval_s") != 0.25:
            bad.append("run.json config thin %r %r" % (run["config"].get("thin_after_s"), run["config"].get("thin_interval_s")))
    elif len(rows) != ticks:
        bad.append("--thin-after 0: %d rows for %d ticks" % (len(rows), ticks))
for b in bad: print("thin:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
"$zk" analyze "$tmp/thin" >/dev/null 2>&1 || fail "analyze of a thinned run"
for v in "--thin-after -1" "--thin-interval 0" "--thin-after x"; do
  # shellcheck disable=SC2086
  "$zk" watch $v --out "$tmp/thinbad" -- true >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && [ ! -e "$tmp/thinbad" ] || fail "watch $v: exit $rc $(cat "$tmp/err")"
done

lib_done "watch: all checks passed"
