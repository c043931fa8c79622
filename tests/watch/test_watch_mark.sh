#!/usr/bin/env bash
# zkbench watch --mark REGEX on a program that prints a known number of
# "proof done N" lines among others, on stdout and stderr: exactly those
# lines are counted (marks.csv rows, samples.csv proofs_done, run.json),
# the output still reaches watch's stdout and stderr unchanged and in
# order, names are CSV-safe. Without --mark proofs_done stays empty. Bad
# input (a bad regex, --mark with --pid or with --cgroup alone): exit 2,
# one line, nothing written.
#   test_watch_mark.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"

# 7 matching lines (5 on stdout, 2 on stderr) among 16 that do not match,
# one of them without its newline at the very end
cat >"$tmp/prover.py" <<'EOF'
import sys, time
def out(s): sys.stdout.write(s + "\n"); sys.stdout.flush(); time.sleep(0.03)
def err(s): sys.stderr.write(s + "\n"); sys.stderr.flush(); time.sleep(0.03)
out("loading parameters")
for i in range(5):
    out("synthesizing proof %d" % i)
    err("warn: slow MSM, proof %d" % i)
    out("proof done %d" % i)
out("proof done soon")            # no: not a number
out("  proof done 9")             # no: anchored
err("proof done 5")
err('proof done 6, "partitions" 10')
out("summary: 7 proofs")
time.sleep(0.5)                   # a sampler tick sees the final count
sys.stdout.write("proof done 7 is not counted twice"); sys.stdout.flush()
EOF
re='^proof done [0-9]+($|,)'

"$zk" watch --sample-ms 20 --mark "$re" --out "$tmp/run" -- python3 "$tmp/prover.py" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "watch --mark: exit $rc: $(cat "$tmp/err")"
python3 "$tmp/prover.py" >"$tmp/ref.out" 2>"$tmp/ref.err"
# the command's stdout comes first, unchanged; watch's summary follows
head -c "$(stat -c %s "$tmp/ref.out")" "$tmp/out" | cmp -s - "$tmp/ref.out" ||
  fail "stdout passthrough differs: $(diff <(head -c "$(stat -c %s "$tmp/ref.out")" "$tmp/out") "$tmp/ref.out" | head -5)"
cmp -s "$tmp/err" "$tmp/ref.err" || fail "stderr passthrough differs: $(diff "$tmp/err" "$tmp/ref.err" | head -5)"
# order across the two streams: one file for both
"$zk" watch --sample-ms 20 --mark "$re" --out "$tmp/run2" -- python3 "$tmp/prover.py" >"$tmp/both" 2>&1
python3 "$tmp/prover.py" >"$tmp/ref.both" 2>&1
head -c "$(stat -c %s "$tmp/ref.both")" "$tmp/both" | cmp -s - "$tmp/ref.both" ||
  fail "stdout and stderr interleaved out of order: $(diff <(head -c "$(stat -c %s "$tmp/ref.both")" "$tmp/both") "$tmp/ref.both" | head -5)"

python3 - "$tmp/run" <<'EOF' || fail "--mark counts: see above"
import csv, json, sys
d = sys.argv[1]
run = json.load(open(d + "/run.json"))
bad = []
hdr = open(d + "/marks.csv").readline().strip()
if hdr != "t_ms,pid,source,name":
    bad.append("marks.csv header %r" % hdr)
marks = list(csv.DictReader(open(d + "/marks.csv")))
names = [m["name"] for m in marks]
want = ["proof done 0", "proof done 1", "proof done 2", "proof done 3", "proof done 4", "proof done 5",
        "proof done 6; 'partitions' 10"]
if names != want:
    bad.append("marks.csv names %s, expected %s" % (names, want))
if any(m["source"] != "output" or int(m["pid"]) != run["config"]["pid"] for m in marks):
    bad.append("marks.csv source/pid wrong: %s" % marks[:1])
t = [float(m["t_ms"]) for m in marks]
if t != sorted(t) or not t or t[0] <= 0:
    bad.append("marks.csv t_ms not increasing from the start: %s" % t)
rows = list(csv.DictReader(open(d + "/samples.csv")))
pd = [r["proofs_done"] for r in rows]
if "" in pd:
    bad.append("proofs_done empty in some rows")
else:
    pd = [int(x) for x in pd]
    if pd != sorted(pd) or pd[-1] != 7 or pd[0] != 0:
        bad.append("proofs_done goes %s .. %s (monotonic %s), expected 0 .. 7" % (pd[0], pd[-1], pd == sorted(pd)))
    # each count appears no earlier than its mark's time
    for i, tm in enumerate(t):
        early = [r for r in rows if float(r["t_ms"]) < tm - 1 and int(r["proofs_done"]) > i]
        if early:
            bad.append("proofs_done %s at t_ms %s, before mark %d at %s" % (early[0]["proofs_done"], early[0]["t_ms"], i + 1, tm)); break
if run["summary"].get("proofs_done") != 7:
    bad.append("run.json summary.proofs_done %s, expected 7" % run["summary"].get("proofs_done"))
for b in bad: print("--mark:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["mark"])' "$tmp/run/run.json")" = "$re" ] ||
  fail "run.json config.mark is not the regex"

# without --mark: proofs_done empty, no marks.csv
"$zk" watch --sample-ms 20 --out "$tmp/plain" -- python3 "$tmp/prover.py" >/dev/null 2>&1
python3 -c 'import csv,sys; sys.exit(0 if all(r["proofs_done"] == "" for r in csv.DictReader(open(sys.argv[1]))) else 1)' \
  "$tmp/plain/samples.csv" || fail "proofs_done is filled without --mark"
[ ! -e "$tmp/plain/marks.csv" ] || fail "marks.csv written without --mark"

# bad input: exit 2, one line, no output folder
sleep 30 &
other=$!
for args in "--mark ( -- true" "--mark [z-a] -- true" "--mark x --pid $other" "--mark x --cgroup /sys/fs/cgroup" "--mark"; do
  rm -rf "$tmp/bad"
  "$zk" watch --out "$tmp/bad" $args >"$tmp/bad.out" 2>"$tmp/bad.err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] || fail "watch $args: exit $rc, stderr $(cat "$tmp/bad.err")"
  [ ! -e "$tmp/bad" ] || fail "watch $args wrote $tmp/bad before refusing"
done
kill $other; wait $other 2>/dev/null
"$zk" watch --out "$tmp/bad" --mark '(' -- true 2>&1 | grep -q "bad regular expression" ||
  fail "a bad regex does not say so"

# --mark-file: a daemon watched with --pid logs to a file; the lines it gets
# while watch runs are the marks (what it logged before is not), a rotation
# (a new file at the path) and a truncation are followed; the daemon's
# stdout is not read. Bad input: --mark-file without --mark, a missing
# file, a folder: exit 2, one line, nothing written.
log=$tmp/daemon.log
echo "proof done 0" >"$log"
cat >"$tmp/daemon.sh" <<'EOF'
log=$1
sleep 0.4
for i in 1 2 3; do echo "proof done $i (stdout)"; echo "proof done $i" >>"$log"; echo "other $i" >>"$log"; sleep 0.2; done
mv "$log" "$log.1"
echo "proof done 4" >"$log"; sleep 0.2
echo "proof done 5" >>"$log"; sleep 0.2
: >"$log"; sleep 0.2
echo "proof done 6" >>"$log"; sleep 0.4
EOF
bash "$tmp/daemon.sh" "$log" >/dev/null &
daemon=$!
"$zk" watch --pid $daemon --mark '^proof done [0-9]+$' --mark-file "$log" --sample-ms 20 --out "$tmp/mf" >"$tmp/mf.out" 2>&1 ||
  fail "watch --pid --mark-file: $(cat "$tmp/mf.out")"
wait $daemon
python3 - "$tmp/mf" <<'EOF' || fail "--mark-file: see above"
import csv, json, sys
d = sys.argv[1]
marks = list(csv.DictReader(open(d + "/marks.csv")))
got = [m["name"] for m in marks]
want = ["proof done %d" % i for i in range(1, 7)]
bad = []
if got != want:
    bad.append("marks %s, expected %s" % (got, want))
if any(m["source"] != "file" for m in marks):
    bad.append("sources %s, expected file" % sorted({m["source"] for m in marks}))
rows = list(csv.DictReader(open(d + "/samples.csv")))
if int(rows[-1]["proofs_done"] or -1) != 6:
    bad.append("proofs_done ends at %r, expected 6" % rows[-1]["proofs_done"])
run = json.load(open(d + "/run.json"))
if run["config"].get("mark_file") != d.rsplit("/", 1)[0] + "/daemon.log" or run["summary"].get("proofs_done") != 6:
    bad.append("run.json mark_file %r proofs_done %r" % (run["config"].get("mark_file"), run["summary"].get("proofs_done")))
for b in bad: print("--mark-file:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
for args in "--mark-file $log" "--mark x --mark-file $tmp/no-such.log" "--mark x --mark-file $tmp"; do
  rm -rf "$tmp/mfbad"
  # shellcheck disable=SC2086
  "$zk" watch --pid $$ $args --out "$tmp/mfbad" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "watch $args: exit $rc, stderr $(cat "$tmp/err")"
  [ ! -e "$tmp/mfbad" ] || fail "watch $args wrote $tmp/mfbad before refusing"
done

lib_done "watch --mark: all checks passed"
