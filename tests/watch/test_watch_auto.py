#!/usr/bin/env python3
"""A tick that fits the cycle (issue 25 item 3): zkbench watch on a program
that works in 0.3 s cycles, a 64 MiB scratch buffer held 70% of each and
2 MiB never freed, and on the same program without the leak.

- at the default tick (100 ms: 3 samples a cycle) the verdict is not
  healthy, the cycle is found in the signal (no marks) and analyze, watch
  and the JSON say the tick is too coarse and which --sample-ms fits;
- with --sample-ms auto the tick drops (one stderr line per change, the
  changes in run.json sampling.changes, config.sample_ms the final tick),
  the analysis uses the rows of the final tick, a cycle gets >= 10 samples
  and the leak is called a leak; the program without the leak is not;
- with --mark the cycle comes from the marks;
- a program with no cycle keeps the tick it started with;
- --sample-ms other than 1..60000 or auto: one line, exit 2.

test_watch_auto.py ZKBENCH
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ZK = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="zkb-watch-auto-")
fails = []
CYCLE_S, CYCLES = 0.3, 30

PROG = r'''
import sys, time
cycle, n, leak = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) << 20
kept, t0 = [], time.monotonic()
def touch(b):
    for i in range(0, len(b), 4096):
        b[i] = 1
for c in range(n):
    start = t0 + c * cycle
    buf = bytearray(64 << 20)
    touch(buf)
    if leak:
        kept.append(bytearray(leak))
        touch(kept[-1])
    while time.monotonic() < start + 0.7 * cycle:
        time.sleep(0.002)
    del buf
    while time.monotonic() < start + cycle:
        time.sleep(0.002)
    print("proof done", c, flush=True)
'''
prog = os.path.join(tmp, "saw.py")
with open(prog, "w") as f:
    f.write(PROG)


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def watch(name, *opts, leak=2, cycles=CYCLES):
    out = os.path.join(tmp, name)
    p = subprocess.run([ZK, "watch", *opts, "--out", out, "--", sys.executable, prog, str(CYCLE_S), str(cycles),
                        str(leak)], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("%s: watch exit %d: %s" % (name, p.returncode, p.stderr[-500:]))
    with open(os.path.join(out, "run.json")) as f:
        rj = json.load(f)
    a = subprocess.run([ZK, "analyze", out, "--json"], capture_output=True, text=True)
    j = json.loads(a.stdout) if a.returncode == 0 else {}
    if a.returncode != 0:
        fail("%s: analyze exit %d: %s" % (name, a.returncode, a.stderr))
    return p, rj, j


def tick_lines(err):
    return [l for l in err.splitlines() if "--sample-ms auto: tick" in l]


# ---- the default tick: 3 samples a cycle ----
p, rj, j = watch("coarse")
s = j.get("sampling", {})
if j.get("verdict") == "healthy":
    fail("coarse: a leak called healthy: %s" % j.get("reason"))
if s.get("source") != "signal" or not s.get("period_ms") or abs(s["period_ms"] - 1000 * CYCLE_S) > 30:
    fail("coarse: the cycle %r from %r, expected %.0f ms from the signal" % (s.get("period_ms"), s.get("source"),
                                                                             1000 * CYCLE_S))
if s.get("enough") is not False or s.get("tick_ms") != 100 or not (2.5 <= (s.get("samples_per_cycle") or 0) <= 3.5):
    fail("coarse: sampling %r, expected 3 samples a cycle at 100 ms, not enough" % s)
if s.get("suggest_sample_ms") not in range(27, 33):
    fail("coarse: suggested --sample-ms %r, expected about 30" % s.get("suggest_sample_ms"))
line = j.get("sampling_line") or ""
if "--sample-ms %s" % s.get("suggest_sample_ms") not in line:
    fail("coarse: the sampling line %r names no --sample-ms" % line)
# watch prints the engine's line word for word, as analyze does
printed = [re.sub(r"\s+", " ", l.strip()) for l in p.stdout.splitlines()]
if "sampling " + re.sub(r"\s+", " ", line) not in printed:
    fail("coarse: watch did not print analyze's sampling line %r:\n%s" % (line, p.stdout[-1500:]))
a = subprocess.run([ZK, "analyze", os.path.join(tmp, "coarse")], capture_output=True, text=True)
if not any(l.startswith("sampling") and line in l for l in a.stdout.splitlines()):
    fail("coarse: analyze's text has no sampling line")
if tick_lines(p.stderr):
    fail("coarse: a tick change without --sample-ms auto: %r" % p.stderr)
if rj["config"].get("sample_ms_auto") is not False or "sampling" in rj:
    fail("coarse: run.json says auto: %r" % rj["config"])

# ---- --sample-ms auto: the tick drops, the leak is a leak ----
p, rj, j = watch("auto", "--sample-ms", "auto")
ch = rj.get("sampling", {}).get("changes", [])
lines = tick_lines(p.stderr)
if not ch:
    fail("auto: no tick change recorded: %r" % rj.get("sampling"))
else:
    last = ch[-1]
    if not (10 <= last["to_ms"] <= 30) or last["from_ms"] != (ch[-2]["to_ms"] if len(ch) > 1 else 100):
        fail("auto: changes %r, expected 100 -> 10..30 ms" % ch)
    if abs(ch[0]["period_ms"] - 1000 * CYCLE_S) > 30 or ch[0]["source"] != "signal":
        fail("auto: the first change saw a cycle of %r ms from %r" % (ch[0]["period_ms"], ch[0]["source"]))
    if rj["config"]["sample_ms"] != last["to_ms"] or rj["sampling"]["final_ms"] != last["to_ms"]:
        fail("auto: config.sample_ms %r, final_ms %r, last change to %r" % (rj["config"]["sample_ms"],
                                                                          rj["sampling"]["final_ms"], last["to_ms"]))
    if not rj["config"].get("sample_ms_auto") or rj["sampling"]["start_ms"] != 100:
        fail("auto: config %r" % rj["config"])
    if len(lines) != len(ch) or "tick 100 -> %d ms" % ch[0]["to_ms"] not in lines[0]:
        fail("auto: %d changes but stderr says %r" % (len(ch), lines))
    # the samples after the change are at the new tick
    import csv
    with open(os.path.join(tmp, "auto", "samples.csv")) as f:
        t = [float(r["t_ms"]) for r in csv.DictReader(f)]
    after = [b - a for a, b in zip(t, t[1:]) if a > last["t_ms"] + 100]
    after.sort()
    if not after or abs(after[len(after) // 2] - last["to_ms"]) > 2:
        fail("auto: median spacing after the change %r, expected %d ms" % (after[len(after) // 2:][:1],
                                                                           last["to_ms"]))
s = j.get("sampling", {})
if j.get("verdict") != "leak":
    fail("auto: verdict %r, expected leak: %s" % (j.get("verdict"), j.get("reason")))
if s.get("enough") is not True or s.get("tick_changes") != len(ch) or not s.get("samples_left_out"):
    fail("auto: sampling %r: expected enough samples a cycle over the rows after the last change" % s)
if j.get("sampling_line"):
    fail("auto: still warns: %r" % j.get("sampling_line"))
if "every 100 -> " not in p.stdout:
    fail("auto: the summary does not say the tick changed: %r" % p.stdout[-600:])

# ---- the same program without the leak: never a leak ----
p, rj, j = watch("auto-steady", "--sample-ms", "auto", leak=0)
if not rj.get("sampling", {}).get("changes"):
    fail("auto-steady: the tick did not drop")
if j.get("verdict") not in ("healthy", "inconclusive"):
    fail("auto-steady: verdict %r without a leak: %s" % (j.get("verdict"), j.get("reason")))

# ---- with --mark: the cycle between marks ----
p, rj, j = watch("auto-mark", "--sample-ms", "auto", "--mark", "^proof done", cycles=20)
ch = rj.get("sampling", {}).get("changes", [])
if not ch or ch[0]["source"] != "marks" or abs(ch[0]["period_ms"] - 1000 * CYCLE_S) > 30:
    fail("auto-mark: changes %r, expected one from the marks" % ch)

# ---- no cycle: the tick stays ----
out = os.path.join(tmp, "flat")
p = subprocess.run([ZK, "watch", "--sample-ms", "auto", "--out", out, "--", sys.executable, "-c",
                    "import time; b = bytearray(32 << 20); time.sleep(4)"], capture_output=True, text=True)
with open(os.path.join(out, "run.json")) as f:
    rj = json.load(f)
if p.returncode != 0 or rj["sampling"]["changes"] or rj["config"]["sample_ms"] != 100 or tick_lines(p.stderr):
    fail("flat: exit %d, sampling %r, stderr %r" % (p.returncode, rj.get("sampling"), p.stderr))

# ---- bad values: one line, exit 2, nothing written ----
for bad in ["0", "60001", "auto2", "Auto", "-5", "", "1.5", "0x10", "100ms"]:
    out = os.path.join(tmp, "bad")
    p = subprocess.run([ZK, "watch", "--sample-ms", bad, "--out", out, "--", "true"], capture_output=True, text=True)
    errl = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(errl) != 1 or "--sample-ms must be 1..60000 (ms) or auto" not in errl[0]:
        fail("--sample-ms %r: exit %d, stderr %r" % (bad, p.returncode, p.stderr))
    if os.path.exists(out):
        fail("--sample-ms %r: %s was made" % (bad, out))

shutil.rmtree(tmp, ignore_errors=True)
if fails:
    print("%d check(s) failed" % len(fails), file=sys.stderr)
    sys.exit(1)
print("watch --sample-ms auto: all checks passed")
