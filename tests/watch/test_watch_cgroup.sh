#!/usr/bin/env bash
# zkbench watch --cgroup on a real memory cgroup (the v1 memory controller,
# or cgroup v2 where the root gives children the memory controller): a
# python allocator put in a fresh child cgroup is watched with --cgroup
# alone until SIGINT, and the cg_* columns are checked against the kernel
# files read independently at the same moment, the rss sum against the
# python's own VmRSS; --cgroup with a command watches both; a cgroup capped
# below what its process allocates records the OOM kill (cg_oom_kill,
# run.json events before/after). cgroup v2's files, planted with known
# numbers in a folder, check the v2 parsing on any machine. Bad --cgroup
# values: exit 2, one line, nothing written. The real-cgroup part exits 77
# where no writable memory cgroup exists.
#   test_watch_cgroup.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"

# bad inputs need no cgroup privileges: checked first
for spec in "/sys/fs/cgroup/memory/zkbench-no-such-$$" "zkbench-no-such-$$/x" "$tmp" ""; do
  rm -rf "$tmp/bad"
  "$zk" watch --cgroup "$spec" --out "$tmp/bad" -- true >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "watch --cgroup '$spec': exit $rc, stderr $(cat "$tmp/err")"
  [ ! -e "$tmp/bad" ] || fail "watch --cgroup '$spec' wrote $tmp/bad before refusing"
done
grep -q "not a memory cgroup" <(
  "$zk" watch --cgroup "$tmp" --out "$tmp/bad" -- true 2>&1) || fail "--cgroup on a plain folder does not say 'not a memory cgroup'"
# a cgroup without the memory controller (a v1 controller other than memory)
# mounts as "TYPE SUPEROPTS DIR" (mountinfo's optional fields end at " - ")
mounts() { awk '{for (i = 7; i <= NF; i++) if ($i == "-") {print $(i + 1), $(i + 3), $5; break}}' /proc/self/mountinfo; }
other=$(mounts | awk '$1 == "cgroup" && $2 !~ /(^|,)memory(,|$)/ {print $3; exit}')
if [ -n "$other" ]; then
  "$zk" watch --cgroup "$other" --out "$tmp/bad" -- true >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && grep -q "not a memory cgroup" "$tmp/err" || fail "--cgroup $other (no memory controller): exit $rc, $(cat "$tmp/err")"
fi

# the v2 files, planted with known numbers in a plain folder (this machine's
# memory controller may be v1): each value lands in its column, cgroup.procs
# brings its process into the tree, and without memory.peak (Linux < 5.19)
# cg_peak is empty
fake="$tmp/fake-v2"
mkdir "$fake"
sleep 3 &
member=$!
echo $member >"$fake/cgroup.procs"
echo 123456789 >"$fake/memory.current"
echo 234567890 >"$fake/memory.peak"
printf 'anon 11111111\nfile 22222222\nkernel 999\nshmem 3333333\nfile_mapped 44\n' >"$fake/memory.stat"
printf 'low 0\nhigh 5\nmax 6\noom 7\noom_kill 2\noom_group_kill 0\n' >"$fake/memory.events"
"$zk" watch --sample-ms 20 --cgroup "$fake" --out "$tmp/fake" -- sleep 0.3 >"$tmp/fake.log" 2>&1 ||
  fail "watch --cgroup on planted v2 files: $(cat "$tmp/fake.log")"
rm "$fake/memory.peak"
"$zk" watch --sample-ms 20 --cgroup "$fake" --out "$tmp/fake-nopeak" -- sleep 0.2 >"$tmp/fake.log" 2>&1 ||
  fail "watch --cgroup on planted v2 files without memory.peak: $(cat "$tmp/fake.log")"
python3 - "$tmp/fake" "$tmp/fake-nopeak" "$member" <<'EOF' || fail "planted v2 files: see above"
import csv, json, sys
d, d2, member = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.DictReader(open(d + "/samples.csv")))
want = {"cg_current": "123456789", "cg_peak": "234567890", "cg_anon": "11111111", "cg_file": "22222222",
        "cg_shmem": "3333333", "cg_oom_kill": "2"}
bad = []
for r in rows:
    got = {k: r[k] for k in want}
    if got != want:
        bad.append("t_ms %s: %s, expected %s" % (r["t_ms"], got, want)); break
c = json.load(open(d + "/run.json"))["cgroup"]
if c["version"] != "v2" or c["events_before"] != {"oom": 7, "oom_kill": 2, "high": 5, "max": 6}:
    bad.append("run.json cgroup %s" % c)
if not any(int(r["pid"]) == member for r in csv.DictReader(open(d + "/procs.csv"))):
    bad.append("the cgroup.procs member %d is not in procs.csv" % member)
rows2 = list(csv.DictReader(open(d2 + "/samples.csv")))
if any(r["cg_peak"] != "" or r["cg_current"] != "123456789" for r in rows2):
    bad.append("without memory.peak: cg_peak %r cg_current %r" % (rows2[0]["cg_peak"], rows2[0]["cg_current"]))
for b in bad: print("planted v2:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
kill $member 2>/dev/null; wait $member 2>/dev/null

# a writable memory cgroup root: v1 memory mount, or v2 with memory delegated
v1=$(mounts | awk '$1 == "cgroup" && $2 ~ /(^|,)memory(,|$)/ {print $3; exit}')
v2=$(mounts | awk '$1 == "cgroup2" {print $3; exit}')
if [ -n "$v1" ] && [ -w "$v1" ]; then
  base=$v1 ver=v1
elif [ -n "$v2" ] && [ -w "$v2" ] && grep -qw memory "$v2/cgroup.subtree_control" 2>/dev/null; then
  base=$v2 ver=v2
else
  rm -rf "$tmp"
  [ "$fails" -eq 0 ] || { echo "$fails check(s) failed" >&2; exit 1; }
  echo "SKIP: no writable memory cgroup (v1 memory mount or v2 root delegating memory) for the rest"
  exit 77
fi
cg="$base/zkbench-test-$$"
cap="$base/zkbench-test-cap-$$"
rcg="$base/zkbench-test-restart-$$"
cleanup() {
  for d in "$cg" "$cap" "$rcg"; do
    [ -d "$d" ] || continue
    for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    for i in $(seq 50); do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
  done
}
lib_on_exit cleanup
mkdir "$cg" || { [ "$fails" -eq 0 ] || exit 1; echo "SKIP: cannot create $cg"; exit 77; }

# values of the kernel files, as "current peak anon file shmem oom_kill"
kernel() {
  python3 - "$1" "$ver" <<'EOF'
import sys
d, ver = sys.argv[1], sys.argv[2]
def num(f): return int(open(d + "/" + f).read().split()[0])
def keyed(f):
    return {l.split()[0]: int(l.split()[1]) for l in open(d + "/" + f) if len(l.split()) == 2}
if ver == "v1":
    st = keyed("memory.stat")
    print(num("memory.usage_in_bytes"), num("memory.max_usage_in_bytes"), st["total_rss"], st["total_cache"],
          st["total_shmem"], keyed("memory.oom_control").get("oom_kill", 0))
else:
    st = keyed("memory.stat")
    print(num("memory.current"), num("memory.peak"), st["anon"], st["file"], st["shmem"],
          keyed("memory.events")["oom_kill"])
EOF
}

# the allocator: enters the cgroup before it allocates (so the charge is
# there), touches 120 MiB, reports "pid rss" and holds
cat >"$tmp/alloc.py" <<'EOF'
import os, sys, time
open(sys.argv[1] + "/cgroup.procs", "w").write(str(os.getpid()))
b = bytearray(int(sys.argv[3]) << 20)
for i in range(0, len(b), 4096): b[i] = 1
rss = [l for l in open("/proc/self/status") if l.startswith("VmRSS:")][0].split()[1]
open(sys.argv[2] + ".tmp", "w").write("%d %d\n" % (os.getpid(), int(rss) * 1024))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(float(sys.argv[4]))
EOF
wait_file() { for i in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }

# 1. --cgroup alone (a path relative to the hierarchy's root), until SIGINT
python3 "$tmp/alloc.py" "$cg" "$tmp/ref1" 120 30 &
alloc=$!
wait_file "$tmp/ref1" || fail "the allocator did not start"
"$zk" watch --sample-ms 50 --cgroup "zkbench-test-$$" --out "$tmp/alone" >"$tmp/alone.log" 2>&1 &
watch=$!
sleep 1.5
kernel "$cg" >"$tmp/k1"
kill -INT $watch
wait $watch
rc=$?
[ $rc -eq 0 ] || fail "watch --cgroup alone: exit $rc after SIGINT: $(cat "$tmp/alone.log")"
python3 - "$tmp/alone" "$tmp/k1" "$tmp/ref1" "$cg" "$ver" <<'EOF' || fail "--cgroup alone: see above"
import csv, json, sys
d, kfile, ref, cg, ver = sys.argv[1:6]
cur, peak, anon, file_, shmem, oomk = map(int, open(kfile).read().split())
pid, rss_ref = map(int, open(ref).read().split())
run = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/samples.csv")))
last = rows[-1]
bad = []
def near(name, got, want, tol=0.1):
    if abs(got - want) > tol * max(want, 1 << 20):
        bad.append("%s %d, the kernel file says %d" % (name, got, want))
for name, want in (("cg_current", cur), ("cg_anon", anon), ("cg_peak", peak)):
    near(name, int(last[name]), want)
if int(last["cg_anon"]) < 120 << 20:
    bad.append("cg_anon %s below the 120 MiB allocated" % last["cg_anon"])
if int(last["cg_peak"]) < int(last["cg_current"]):
    bad.append("cg_peak below cg_current")
if int(last["cg_oom_kill"]) != oomk:
    bad.append("cg_oom_kill %s, kernel %d" % (last["cg_oom_kill"], oomk))
for col in ("cg_file", "cg_shmem"):
    if last[col] == "":
        bad.append(col + " empty")
near("rss (sum over the cgroup's processes)", int(last["rss"]), rss_ref)
if int(last["n_procs"]) != 1:
    bad.append("n_procs %s, expected 1 (the allocator)" % last["n_procs"])
procs = list(csv.DictReader(open(d + "/procs.csv")))
if not any(int(r["pid"]) == pid for r in procs):
    bad.append("the allocator %d is not in procs.csv" % pid)
c = run.get("cgroup") or {}
if c.get("path") != cg or c.get("version") != ver:
    bad.append("run.json cgroup %s, expected path %s version %s" % (c, cg, ver))
for k in ("events_before", "events_after"):
    if not isinstance(c.get(k), dict) or c[k].get("oom_kill") != 0:
        bad.append("run.json cgroup.%s %s" % (k, c.get(k)))
if run["config"]["mode"] != "cgroup" or run["config"]["cgroup"] != cg:
    bad.append("run.json config mode %s cgroup %s" % (run["config"]["mode"], run["config"]["cgroup"]))
for b in bad: print("--cgroup alone:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# 2. --cgroup (full path) with a command: the command's tree and the
# cgroup's processes together
"$zk" watch --sample-ms 50 --cgroup "$cg" --out "$tmp/both" -- sleep 1 >"$tmp/both.log" 2>&1 ||
  fail "watch --cgroup with a command failed: $(cat "$tmp/both.log")"
python3 - "$tmp/both" "$tmp/ref1" <<'EOF' || fail "--cgroup with a command: see above"
import csv, json, sys
d, ref = sys.argv[1], sys.argv[2]
pid = int(open(ref).read().split()[0])
top = json.load(open(d + "/run.json"))["config"]["pid"]
procs = list(csv.DictReader(open(d + "/procs.csv")))
pids = {int(r["pid"]) for r in procs}
bad = []
if pid not in pids or top not in pids:
    bad.append("procs.csv has pids %s, expected the allocator %d and the command %d" % (sorted(pids), pid, top))
for b in bad: print("--cgroup with a command:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
kill $alloc 2>/dev/null
wait $alloc 2>/dev/null

# 3. an OOM kill in the watched cgroup: capped at 64 MiB (swap too), the
# allocator asks for 200 MiB
mkdir "$cap"
if [ $ver = v1 ]; then
  echo $((64 << 20)) >"$cap/memory.limit_in_bytes"
  [ -e "$cap/memory.memsw.limit_in_bytes" ] && echo $((64 << 20)) >"$cap/memory.memsw.limit_in_bytes" 2>/dev/null
  echo 0 >"$cap/memory.oom_control" 2>/dev/null
else
  echo $((64 << 20)) >"$cap/memory.max"
  [ -e "$cap/memory.swap.max" ] && echo 0 >"$cap/memory.swap.max"
fi
"$zk" watch --sample-ms 20 --cgroup "$cap" --out "$tmp/oom" -- \
  python3 "$tmp/alloc.py" "$cap" "$tmp/ref3" 200 0 >"$tmp/oom.log" 2>&1
rc=$?
[ $rc -eq 137 ] || fail "the capped allocator exited $rc, expected 137 (SIGKILL by the OOM killer): $(cat "$tmp/oom.log")"
kernel "$cap" >"$tmp/k3"
python3 - "$tmp/oom" "$tmp/k3" <<'EOF' || fail "OOM kill: see above"
import csv, json, sys
d, kfile = sys.argv[1], sys.argv[2]
oomk = int(open(kfile).read().split()[5])
run = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/samples.csv")))
bad = []
if oomk != 1:
    bad.append("the kernel counted %d OOM kills, expected 1" % oomk)
ev = run["cgroup"]
if ev["events_before"]["oom_kill"] != 0 or ev["events_after"]["oom_kill"] != oomk:
    bad.append("run.json events before %s after %s, kernel oom_kill %d" % (ev["events_before"], ev["events_after"], oomk))
seen = max(int(r["cg_oom_kill"]) for r in rows if r["cg_oom_kill"] != "")
peak = max(int(r["cg_peak"]) for r in rows if r["cg_peak"] != "")
if seen != oomk:
    bad.append("cg_oom_kill reached %d, the kernel counted %d" % (seen, oomk))
if peak > (64 << 20) or peak < (32 << 20):
    bad.append("cg_peak %d, expected near the 64 MiB cap" % peak)
for b in bad: print("OOM kill:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# 4. a restarted service: its cgroup removed and made again at the same path.
# The watch goes on (the files reopened; the rows between with empty cg_
# cells), and ends by itself once the cgroup stays gone past the grace
# (ZKBENCH_CGROUP_GRACE_S). Before, it ended at the removal.
rm_cg() { # kill the members, then remove the cgroup
  for p in $(cat "$1/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  for i in $(seq 50); do rmdir "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
mkdir "$rcg"
python3 "$tmp/alloc.py" "$rcg" "$tmp/refr1" 20 60 &
wait_file "$tmp/refr1" || fail "restart: the first allocator did not start"
ZKBENCH_CGROUP_GRACE_S=3 "$zk" watch --sample-ms 20 --cgroup "$rcg" --out "$tmp/restart" >"$tmp/restart.log" 2>&1 &
watch=$!
sleep 0.6
rm_cg "$rcg" || fail "restart: cannot remove $rcg"
sleep 0.5
kill -0 $watch 2>/dev/null || fail "restart: the watch ended when the cgroup was removed"
mkdir "$rcg"
python3 "$tmp/alloc.py" "$rcg" "$tmp/refr2" 80 60 &
wait_file "$tmp/refr2" || fail "restart: the second allocator did not start"
sleep 0.8
kernel "$rcg" >"$tmp/kr"
rm_cg "$rcg" || fail "restart: cannot remove $rcg the second time"
for i in $(seq 100); do kill -0 $watch 2>/dev/null || break; sleep 0.1; done
if kill -0 $watch 2>/dev/null; then
  fail "restart: the watch still runs 10 s after the cgroup went for good (grace 3 s)"
  kill -INT $watch
fi
wait $watch
rc=$?
[ $rc -eq 0 ] || fail "restart: watch exit $rc: $(cat "$tmp/restart.log")"
python3 - "$tmp/restart" "$tmp/kr" <<'EOF' || fail "restart: see above"
import csv, sys
d, kfile = sys.argv[1], sys.argv[2]
cur = int(open(kfile).read().split()[0])
rows = list(csv.DictReader(open(d + "/samples.csv")))
bad = []
filled = [i for i, r in enumerate(rows) if r["cg_current"] != ""]
gaps = [i for i, r in enumerate(rows) if r["cg_current"] == ""]
first_gap = gaps[0] if gaps else len(rows)
after = [i for i in filled if i > first_gap]
if not gaps:
    bad.append("no row with empty cg_ cells while the cgroup was gone")
elif not after:
    bad.append("no cg_ values after the cgroup came back: the files were not reopened")
else:
    top = max(int(rows[i]["cg_current"]) for i in after)
    if top < (80 << 20) or abs(top - cur) > 0.2 * cur:
        bad.append("after the restart cg_current reached %d, the kernel said %d with 80 MiB allocated" % (top, cur))
# the cgroup's files of the removed cgroup read 0 (v1): no such row between
# the removal and the new folder
gap_end = after[0] if after else len(rows)
if any(r["cg_current"] == "0" for r in rows[first_gap:gap_end]):
    bad.append("a row of the gap records cg_current 0 (the removed cgroup's files read as data)")
for b in bad: print("restart:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
"$zk" analyze "$tmp/restart" >"$tmp/restart.txt" 2>&1 || fail "restart: analyze: $(cat "$tmp/restart.txt")"
grep -q "empty cells" "$tmp/restart.txt" || fail "restart: analyze does not say which cells were missing: $(cat "$tmp/restart.txt")"

lib_done "watch --cgroup ($ver): all checks passed"
