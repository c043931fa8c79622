#!/usr/bin/env bash
# zkbench watch on process trees. A python child of bash that allocates
# 200 MiB is found in the tree's sum and in procs.csv under its own pid,
# checked against the RSS python reads for itself; --no-children sees the
# bash alone; children that come and go are picked up and dropped; the
# /proc scan fallback finds the same tree; samples.csv's rss and n_procs
# equal procs.csv's rows of the same tick. Prints the median tick cost with
# 1 and with 21 processes.
#   test_watch_tree.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"

# the program: allocates and touches 200 MiB, then writes its pid and its
# own VmRSS (bytes) to $1 and holds for a second
cat >"$tmp/alloc.py" <<'EOF'
import os, sys, time
b = bytearray(200 << 20)
for i in range(0, len(b), 4096): b[i] = 1
rss = [l for l in open("/proc/self/status") if l.startswith("VmRSS:")][0].split()[1]
open(sys.argv[1] + ".tmp", "w").write("%d %d\n" % (os.getpid(), int(rss) * 1024))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(1.0)
EOF

# checks one run folder: $1 dir, $2 file with "pid rss" of python, $3 label
check_tree() {
  python3 - "$1" "$2" "$3" <<'EOF' || fail "$3: see above"
import csv, json, sys
d, ref, label = sys.argv[1], sys.argv[2], sys.argv[3]
pid, rss_ref = map(int, open(ref).read().split())
run = json.load(open(d + "/run.json"))
top = run["config"]["pid"]
samples = list(csv.DictReader(open(d + "/samples.csv")))
procs = list(csv.DictReader(open(d + "/procs.csv")))
bad = []
hdr = open(d + "/procs.csv").readline().strip()
if hdr != "t_ms,pid,ppid,comm,rss,rss_anon,rss_file,rss_shmem,vm_lck,vm_pin":
    bad.append("procs.csv header %r" % hdr)
mine = [r for r in procs if int(r["pid"]) == pid]
if not mine:
    bad.append("python pid %d not in procs.csv" % pid)
else:
    peak = max(int(r["rss"]) for r in mine)
    if abs(peak - rss_ref) > 0.1 * rss_ref:
        bad.append("python's peak rss in procs.csv %d, python read %d" % (peak, rss_ref))
    # before its exec (a shell, a pyenv shim) the process had another name
    top_row = max(mine, key=lambda r: int(r["rss"]))
    if not top_row["comm"].startswith("python"):
        bad.append("python's comm at its peak %r" % top_row["comm"])
    if any(int(r["ppid"]) != top for r in mine):
        bad.append("python's ppid %s, expected the bash %d" % (mine[0]["ppid"], top))
peak_sum = max(int(s["rss"]) for s in samples)
if peak_sum < rss_ref or run["summary"]["peak_rss"] < rss_ref:
    bad.append("tree peak %d / run.json peak_rss %d below python's %d" % (peak_sum, run["summary"]["peak_rss"], rss_ref))
# every row of samples.csv is the sum of procs.csv's rows of that tick
by_t = {}
for r in procs:
    by_t.setdefault(r["t_ms"], []).append(r)
for s in samples:
    rows = by_t.get(s["t_ms"], [])
    for col in ("rss", "rss_anon", "rss_file"):
        if int(s[col]) != sum(int(r[col]) for r in rows):
            bad.append("t_ms %s: %s %s is not the sum of procs.csv's %d rows" % (s["t_ms"], col, s[col], len(rows)))
            break
    if int(s["n_procs"]) != len(rows):
        bad.append("t_ms %s: n_procs %s, procs.csv has %d rows" % (s["t_ms"], s["n_procs"], len(rows)))
    if s["hwm"] == "" or int(s["hwm"]) < max([int(r["rss"]) for r in rows] or [0]):
        bad.append("t_ms %s: hwm %s below a process's rss" % (s["t_ms"], s["hwm"]))
    if bad:
        break
for b in bad:
    print("%s: %s" % (label, b), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

# 1. the issue's case: bash runs python, then `true`
"$zk" watch --sample-ms 50 --out "$tmp/tree" -- bash -c "python3 '$tmp/alloc.py' '$tmp/ref1'; true" \
  >"$tmp/tree.log" 2>&1 || fail "watch of bash+python failed: $(cat "$tmp/tree.log")"
check_tree "$tmp/tree" "$tmp/ref1" "bash+python"
grep -q 'peak 2[0-9][0-9] MiB' "$tmp/tree.log" || fail "the summary does not report ~200 MiB: $(grep peak "$tmp/tree.log")"

# 2. the same with the /proc scan instead of the children files
ZKBENCH_PROC_TREE=scan "$zk" watch --sample-ms 50 --out "$tmp/scan" -- bash -c "python3 '$tmp/alloc.py' '$tmp/ref2'; true" \
  >"$tmp/scan.log" 2>&1 || fail "watch (scan) failed: $(cat "$tmp/scan.log")"
check_tree "$tmp/scan" "$tmp/ref2" "bash+python (scan)"

# 3. --no-children: the bash alone
"$zk" watch --no-children --sample-ms 50 --out "$tmp/alone" -- bash -c "python3 '$tmp/alloc.py' '$tmp/ref3'; true" \
  >"$tmp/alone.log" 2>&1 || fail "watch --no-children failed: $(cat "$tmp/alone.log")"
python3 - "$tmp/alone" <<'EOF' || fail "--no-children: see above"
import csv, json, sys
d = sys.argv[1]
top = json.load(open(d + "/run.json"))["config"]["pid"]
procs = list(csv.DictReader(open(d + "/procs.csv")))
samples = list(csv.DictReader(open(d + "/samples.csv")))
pids = {int(r["pid"]) for r in procs}
bad = []
if pids != {top}:
    bad.append("procs.csv pids %s, expected only the bash %d" % (sorted(pids), top))
if any(s["n_procs"] != "1" for s in samples):
    bad.append("n_procs is not 1 on every row")
if max(int(s["rss"]) for s in samples) > 50 << 20:
    bad.append("rss reached %d: the python child was counted" % max(int(s["rss"]) for s in samples))
for b in bad: print("--no-children:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
json_children=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["children"])' "$tmp/alone/run.json")
[ "$json_children" = False ] || fail "run.json config.children is '$json_children' with --no-children"

# 4. children that come and go: four python children one after another
# (30 MiB, 0.4 s each) beside a long-lived sleep
"$zk" watch --sample-ms 40 --out "$tmp/churn" -- bash -c '
sleep 2.5 &
for i in 1 2 3 4; do
  python3 -c "
import time
b = bytearray(30 << 20)
for i in range(0, len(b), 4096): b[i] = 1
time.sleep(0.4)"
done
wait' >"$tmp/churn.log" 2>&1 || fail "watch of the churning tree failed: $(cat "$tmp/churn.log")"
python3 - "$tmp/churn" <<'EOF' || fail "churn: see above"
import csv, sys
d = sys.argv[1]
procs = list(csv.DictReader(open(d + "/procs.csv")))
ticks = sorted({float(r["t_ms"]) for r in procs})
index = {t: i for i, t in enumerate(ticks)}
bad = []
# a python child, by pid: its name changes on the way (a pyenv shim, bash,
# then python), the pid does not
pids = {int(r["pid"]) for r in procs if r["comm"].startswith("python")}
py = {}
for r in procs:
    if int(r["pid"]) in pids:
        py.setdefault(int(r["pid"]), []).append(index[float(r["t_ms"])])
if len(py) != 4:
    bad.append("%d python children seen, expected 4" % len(py))
for pid, seen in py.items():
    seen.sort()
    if seen != list(range(seen[0], seen[-1] + 1)):
        bad.append("python %d is missing from ticks in the middle of its life: %s" % (pid, seen))
    if len(seen) < 3:
        bad.append("python %d seen in only %d ticks" % (pid, len(seen)))
    peak = max(int(r["rss"]) for r in procs if int(r["pid"]) == pid)
    if peak < 30 << 20:
        bad.append("python %d peak %d below 30 MiB" % (pid, peak))
# lives do not overlap: one python at a time
for t in ticks:
    n = sum(1 for r in procs if float(r["t_ms"]) == t and r["comm"].startswith("python"))
    if n > 1:
        bad.append("tick %s has %d pythons" % (t, n)); break
if not any(r["comm"] == "sleep" for r in procs):
    bad.append("the background sleep is missing")
for b in bad: print("churn:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# 5. a child started by a thread other than the main one (it is listed in
# that thread's children file only)
"$zk" watch --sample-ms 50 --out "$tmp/thread" -- python3 -c '
import subprocess, sys, threading, time
def work():
    subprocess.run([sys.executable, sys.argv[1], sys.argv[2]])
t = threading.Thread(target=work); t.start(); t.join()
' "$tmp/alloc.py" "$tmp/ref5" >"$tmp/thread.log" 2>&1 || fail "watch of a threaded parent failed: $(cat "$tmp/thread.log")"
python3 - "$tmp/thread" "$tmp/ref5" <<'EOF' || fail "child of a thread: see above"
import csv, json, sys
d, ref = sys.argv[1], sys.argv[2]
pid, rss_ref = map(int, open(ref).read().split())
top = json.load(open(d + "/run.json"))["config"]["pid"]
rows = [r for r in csv.DictReader(open(d + "/procs.csv")) if int(r["pid"]) == pid]
if not rows or int(rows[0]["ppid"]) != top or max(int(r["rss"]) for r in rows) < 0.9 * rss_ref:
    print("child of a thread: pid %d rows %d, expected ppid %d and ~%d bytes" % (pid, len(rows), top, rss_ref), file=sys.stderr)
    sys.exit(1)
EOF

# --smaps on a tree: a process touches 100 MiB, then forks 3 children that
# share it copy-on-write. The rss sum counts the 100 MiB four times; the
# Pss sum, as the kernel's smaps_rollup of each process gives it, once. The
# reference: each process's Pss read here at the same moment, summed.
cat >"$tmp/cow.py" <<'EOF'
import os, sys, time
b = bytearray(100 << 20)
for i in range(0, len(b), 4096): b[i] = 1
kids = []
for k in range(3):
    pid = os.fork()
    if pid == 0:
        time.sleep(2.5); os._exit(0)
    kids.append(pid)
time.sleep(1.0)
pss = 0
for p in [os.getpid()] + kids:
    for l in open("/proc/%d/smaps_rollup" % p):
        if l.startswith("Pss:"): pss += int(l.split()[1]) * 1024
open(sys.argv[1], "w").write("%d\n" % pss)
time.sleep(1.5)
for p in kids: os.waitpid(p, 0)
EOF
"$zk" watch --smaps --sample-ms 50 --out "$tmp/pss" -- python3 "$tmp/cow.py" "$tmp/pss.ref" >/dev/null 2>&1 ||
  fail "watch --smaps on a forking tree"
python3 - "$tmp/pss" "$tmp/pss.ref" <<'EOF' || fail "--smaps tree: see above"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1] + "/samples.csv")) if r["n_procs"] == "4"]
ref = int(open(sys.argv[2]).read())
bad = []
if not rows:
    bad.append("no row with the 4 processes")
else:
    r = rows[len(rows) // 2]
    rss, pss = int(r["rss"]), int(r["smaps_pss"])
    if rss < 4 * (100 << 20):
        bad.append("rss sum %d MiB: expected the shared 100 MiB four times" % (rss >> 20))
    if abs(pss - ref) > 0.1 * ref or pss > 150 << 20:
        bad.append("smaps_pss %d MiB, the processes' own Pss summed %d MiB" % (pss >> 20, ref >> 20))
for b in bad: print("--smaps tree:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# the cost of a tick (median tick_us), 1 process and 21 (bash + 20 sleeps);
# printed for the record, not asserted
cost() { python3 -c 'import json,sys; print("%.0f" % json.load(open(sys.argv[1]))["summary"]["median_tick_us"])' "$1/run.json"; }
"$zk" watch --sample-ms 20 --out "$tmp/cost1" -- sleep 1.5 >/dev/null 2>&1
"$zk" watch --sample-ms 20 --out "$tmp/cost21" -- bash -c 'for i in $(seq 20); do sleep 1.5 & done; wait' >/dev/null 2>&1
n21=$(python3 -c 'import csv,sys; print(max(int(r["n_procs"]) for r in csv.DictReader(open(sys.argv[1]))))' "$tmp/cost21/samples.csv")
[ "$n21" -eq 21 ] || fail "bash with 20 sleeps: n_procs peaked at $n21, expected 21"
echo "median tick: $(cost "$tmp/cost1") us with 1 process, $(cost "$tmp/cost21") us with $n21"
# run.json's median tick (from the sampler's histogram, 1 % steps) against
# the median of samples.csv's tick_us column, computed here
for d in cost1 cost21; do
  python3 - "$tmp/$d" <<'EOF' || fail "$d: median tick of run.json does not match samples.csv"
import csv, json, sys
t = sorted(float(r["tick_us"]) for r in csv.DictReader(open(sys.argv[1] + "/samples.csv")))
s = json.load(open(sys.argv[1] + "/run.json"))["summary"]
med = t[len(t) // 2]
ok = s["ticks"] == len(t) and abs(s["median_tick_us"] - med) <= 0.015 * med + 0.1
print("%s: median tick %.1f us, samples.csv %.1f us, %d ticks" % (sys.argv[1], s["median_tick_us"], med, len(t)))
sys.exit(0 if ok else 1)
EOF
done

lib_done "watch tree: all checks passed"
