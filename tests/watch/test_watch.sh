#!/usr/bin/env bash
# zkbench watch on programs whose memory behaviour is known: one that leaks
# steadily is "growing", one that allocates once and then holds steady is
# not; the command's exit status is passed through; samples.csv has the
# batch header with the heap columns empty; bad input gives one line, exit 2.
#   test_watch.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
verdict() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trend"]["verdict"])' "$1/run.json" 2>/dev/null; }

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
[ "$(verdict "$tmp/leak")" = growing ] || fail "leaking program: verdict '$(verdict "$tmp/leak")', expected growing"

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
[ "$v" != growing ] || fail "steady program called growing"

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

lib_done "watch: all checks passed"
