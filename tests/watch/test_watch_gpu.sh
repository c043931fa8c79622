#!/usr/bin/env bash
# zkbench watch --gpu through NVML. Without libnvidia-ml.so.1: one line on
# stderr, the GPU columns empty, the run otherwise complete. With the
# test-only fake library (fake_nvml.c: two devices, 5 and 10 GiB used, the
# compute processes read from a file) loaded through LD_LIBRARY_PATH: the
# watched process and its child are counted per device, another process
# and a "not available" entry are not, the device totals are separate
# columns; the _v3 query is used where present, else _v2; an nvmlInit
# failure is said once and records nothing. This machine has no GPU, so it
# checks our loading, parsing and columns; the real library runs on a GPU
# machine.
#   test_watch_gpu.sh PATH_TO_ZKBENCH FAKE_LIB FAKE_LIB_V2_ONLY
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
fake=$(dirname "$(realpath "$2")")
fake_v2=$(dirname "$(realpath "$3")")
GIB=$((1 << 30))

# 1. no NVML at all (skipped where the machine has the real library)
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
  echo "note: this machine has libnvidia-ml.so.1; the no-NVML case is not checked here"
else
  LD_LIBRARY_PATH= "$zk" watch --gpu --sample-ms 20 --out "$tmp/none" -- sleep 0.3 >"$tmp/none.out" 2>"$tmp/none.err"
  rc=$?
  [ $rc -eq 0 ] || fail "watch --gpu without NVML: exit $rc $(cat "$tmp/none.err")"
  [ "$(cat "$tmp/none.err")" = "zkbench: watch: no NVML (libnvidia-ml.so.1): GPU memory not recorded" ] ||
    fail "watch --gpu without NVML: stderr '$(cat "$tmp/none.err")'"
  python3 - "$tmp/none" <<'EOF' || fail "no NVML: see above"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/samples.csv")))
hdr = open(sys.argv[1] + "/samples.csv").readline().strip().split(",")
bad = []
if not rows: bad.append("no rows")
if any(r["gpu_used"] != "" for r in rows): bad.append("gpu_used is not empty")
if any(h.startswith("gpu0") for h in hdr): bad.append("gpu0 columns without NVML: %s" % hdr)
for b in bad: print("no NVML:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
fi

# the watched program: after 0.4 s it lists itself and its child (a sleep)
# as GPU processes in $FAKE_NVML_PROCS, beside another process and a
# "not available" entry, then holds for 0.8 s
cat >"$tmp/gpu.py" <<'EOF'
import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "5"])
time.sleep(0.4)
me = os.getpid()
lines = ["0 %d %d" % (me, 1 << 30),              # 1 GiB on device 0
         "1 %d %d" % (me, 512 << 20),            # 512 MiB on device 1
         "1 %d %d" % (child.pid, 256 << 20),     # the child: 256 MiB on device 1
         "0 1 %d" % (3 << 30),                   # not watched
         "0 %d na" % child.pid]                  # NVML_VALUE_NOT_AVAILABLE
open(sys.argv[1] + ".tmp", "w").write("\n".join(lines) + "\n")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(0.8)
child.kill(); child.wait()
EOF

# checks a run with the fake: $1 dir, $2 label
check_fake() {
  python3 - "$1" "$2" <<'EOF' || fail "$2: see above"
import csv, sys
d, label = sys.argv[1], sys.argv[2]
GIB = 1 << 30
hdr = open(d + "/samples.csv").readline().strip().split(",")
rows = list(csv.DictReader(open(d + "/samples.csv")))
bad = []
want_tail = ["gpu0_used", "gpu0_device_used", "gpu1_used", "gpu1_device_used"]
if hdr[-4:] != want_tail or hdr[-11:-4] != ["n_procs", "cg_current", "cg_peak", "cg_anon", "cg_file", "cg_shmem", "cg_oom_kill"]:
    bad.append("header ends %s" % hdr[-11:])
# the program holds 0.8 s after listing: the last 0.5 s are after it
end = float(rows[-1]["t_ms"])
first, late = rows[0], [r for r in rows if float(r["t_ms"]) > end - 500 and int(r["n_procs"]) == 2]
if not late:
    bad.append("no rows between the listing and the end")
if int(first["gpu_used"]) != 0 or int(first["gpu0_used"]) != 0:
    bad.append("first row counts GPU memory before the program listed any: %s" % first["gpu_used"])
for r in rows:
    if int(r["gpu0_device_used"]) != 5 * GIB or int(r["gpu1_device_used"]) != 10 * GIB:
        bad.append("device totals %s %s, expected 5 and 10 GiB" % (r["gpu0_device_used"], r["gpu1_device_used"])); break
for r in late:
    got = (int(r["gpu_used"]), int(r["gpu0_used"]), int(r["gpu1_used"]))
    want = (GIB + (768 << 20), GIB, 768 << 20)
    if got != want:
        bad.append("t_ms %s: gpu_used, gpu0_used, gpu1_used %s, expected %s" % (r["t_ms"], got, want)); break
for b in bad: print(label + ":", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

# 2. the fake with the _v3 query
: >"$tmp/procs3"
FAKE_NVML_PROCS=$tmp/procs3 FAKE_NVML_CALLS=$tmp/calls3 LD_LIBRARY_PATH=$fake \
  "$zk" watch --gpu --sample-ms 50 --out "$tmp/v3" -- python3 "$tmp/gpu.py" "$tmp/procs3" >"$tmp/v3.out" 2>"$tmp/v3.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/v3.err" ] || fail "watch --gpu with the fake NVML: exit $rc, stderr $(cat "$tmp/v3.err")"
check_fake "$tmp/v3" "fake NVML (v3)"
[ "$(sort -u "$tmp/calls3")" = v3 ] || fail "with _v3 present, the queries used: $(sort -u "$tmp/calls3" | tr '\n' ' ')"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["config"]["gpu"] is True else 1)' "$tmp/v3/run.json" ||
  fail "run.json config.gpu is not true"

# 3. the fake without _v3 (an older driver)
: >"$tmp/procs2"
FAKE_NVML_PROCS=$tmp/procs2 FAKE_NVML_CALLS=$tmp/calls2 LD_LIBRARY_PATH=$fake_v2 \
  "$zk" watch --gpu --sample-ms 50 --out "$tmp/v2" -- python3 "$tmp/gpu.py" "$tmp/procs2" >"$tmp/v2.out" 2>"$tmp/v2.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/v2.err" ] || fail "watch --gpu with the v2-only fake: exit $rc, stderr $(cat "$tmp/v2.err")"
check_fake "$tmp/v2" "fake NVML (v2 only)"
[ "$(sort -u "$tmp/calls2")" = v2 ] || fail "without _v3, the queries used: $(sort -u "$tmp/calls2" | tr '\n' ' ')"

# 4. nvmlInit fails (no driver loaded): said once, nothing recorded
FAKE_NVML_INIT_FAIL=1 LD_LIBRARY_PATH=$fake \
  "$zk" watch --gpu --sample-ms 20 --out "$tmp/noinit" -- sleep 0.3 >/dev/null 2>"$tmp/noinit.err"
rc=$?
[ $rc -eq 0 ] || fail "watch --gpu with a failing nvmlInit: exit $rc"
[ "$(cat "$tmp/noinit.err")" = "zkbench: watch: no NVML (libnvidia-ml.so.1: nvmlInit_v2 failed): GPU memory not recorded" ] ||
  fail "failing nvmlInit: stderr '$(cat "$tmp/noinit.err")'"
python3 -c 'import csv,sys; sys.exit(0 if all(r["gpu_used"] == "" for r in csv.DictReader(open(sys.argv[1]))) else 1)' \
  "$tmp/noinit/samples.csv" || fail "failing nvmlInit: gpu_used is not empty"

# 5. without --gpu, NVML is not touched even where it loads
FAKE_NVML_CALLS=$tmp/calls0 LD_LIBRARY_PATH=$fake "$zk" watch --sample-ms 20 --out "$tmp/off" -- sleep 0.2 >/dev/null 2>&1
[ ! -e "$tmp/calls0" ] || fail "watch without --gpu queried NVML"

lib_done "watch --gpu: all checks passed"
