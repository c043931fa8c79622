#!/usr/bin/env python3
"""Verdicts an operator can act on (issue 25, issue 26 item 3).

test_verdicts.py ZKBENCH GEN_RUN GEN_WATCH [SEED]

One engine: batch, watch, sweep and report print, word for word, the lines
`zkbench analyze --json` gives for the same run folder (status_line,
headline, reason, decide, capacity_line). Then each measured defect of
issue 25 on a synthetic run made to show it, and a dead run (status
"running", its writer gone) that must not read healthy. Each case failed
before the fix that added it (see the commit messages).
"""
import csv
import html
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

zk, gen_run, gen_watch = sys.argv[1], sys.argv[2], sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else random.randrange(1, 1 << 30)
MIB = 1 << 20
tmp = tempfile.mkdtemp(prefix="zkb-verdicts-")
env = dict(os.environ, ZKBENCH_PARAMS_DIR=os.path.join(tmp, "params"))
fails = []
SMALL = ["--circuit", "porep:constraints=2^10", "--partitions", "2", "--backend", "cpu", "--threads", "1"]


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(*args, timeout=300):
    p = subprocess.run([zk, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def analyze(d, *extra):
    rc, out, err = run("analyze", d, "--json", *extra)
    if rc != 0:
        fail("analyze %s: exit %d: %s" % (d, rc, err.strip()))
        return None
    return json.loads(out)


def engine_lines(j):
    """(key, text) of the engine's lines, from analyze's JSON."""
    lines = []
    if j.get("status_line"):
        lines.append(("status", j["status_line"]))
    lines.append(("verdict", j.get("headline") or j.get("verdict", "?")))
    lines.append(("", j.get("reason", "?")))
    if j.get("decide"):
        lines.append(("decide", j["decide"]))
    if j.get("sampling_line"):
        lines.append(("sampling", j["sampling_line"]))
    if j.get("capacity_line"):
        lines.append(("capacity", j["capacity_line"]))
    return lines


def squash(s):
    return re.sub(r"\s+", " ", s).strip()


def printed(out):
    """Every printed line as (key, text): the key is the first word when the
    line has a key column, '' for a continuation line."""
    got = set()
    for line in out.splitlines():
        s = line.strip()
        if not s:
            continue
        got.add(("", squash(s)))
        m = re.match(r"(status|verdict|decide|sampling|capacity)\s+(.*)$", s)
        if m:
            got.add((m.group(1), squash(m.group(2))))
    return got


def same_words(what, out, d):
    j = analyze(d)
    if not j:
        return None
    got = printed(out)
    for key, text in engine_lines(j):
        if (key, squash(text)) not in got:
            fail("%s: analyze's %s line is not printed word for word: %r\n--- printed:\n%s" %
                 (what, key or "reason", text, out[-3000:]))
    return j


def gen(kind, name, *extra):
    d = os.path.join(tmp, name)
    script = gen_run if kind == "run" else gen_watch
    subprocess.run([sys.executable, script, *extra[:1], d, *extra[1:]], check=True, stdout=subprocess.DEVNULL)
    return d


def edit_samples(d, fn):
    """fn(row) edits each samples.csv row (a dict of strings) in place."""
    p = os.path.join(d, "samples.csv")
    with open(p) as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0].keys())
    for r in rows:
        fn(r)
    with open(p, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def edit_json(d, fn):
    p = os.path.join(d, "run.json")
    with open(p) as f:
        j = json.load(f)
    fn(j)
    with open(p, "w") as f:
        json.dump(j, f)


# ---- 1. one engine: batch, watch, sweep and report print analyze's lines ----
d = os.path.join(tmp, "batch")
rc, out, err = run("batch", *SMALL, "--count", "2", "--concurrency", "1", "--out", d)
if rc != 0:
    fail("batch: exit %d: %s" % (rc, err[-500:]))
else:
    jb = same_words("batch", out, d)
    rc, rout, err = run("analyze", d)
    if jb and rc == 0:
        # analyze's own text holds the same lines
        got = printed(rout)
        for key, text in engine_lines(jb):
            if (key, squash(text)) not in got:
                fail("analyze text: its %s line differs from its JSON: %r" % (key or "reason", text))
    rep = os.path.join(tmp, "batch-report.html")
    rc, _, err = run("report", d, "-o", rep)
    if rc != 0:
        fail("report: exit %d: %s" % (rc, err))
    elif jb:
        page = squash(html.unescape(re.sub(r"<[^>]+>", " ", open(rep).read())))
        for key, text in engine_lines(jb):
            if squash(text) not in page:
                fail("report: analyze's %s line is not in the page: %r" % (key or "reason", text))

prog = ("import time\nkeep = bytearray(56 << 20)\nfor i in range(0, len(keep), 4096): keep[i] = 1\n"
        "time.sleep(1.5)\n")
for name, code in (("flat", prog),
                   ("grows", "import time\nkeep = []\nfor i in range(60):\n"
                             "    keep.append(bytearray(2 << 20)); time.sleep(0.03)\n")):
    d = os.path.join(tmp, "watch-" + name)
    rc, out, err = run("watch", "--sample-ms", "20", "--out", d, "--", sys.executable, "-c", code)
    if rc != 0:
        fail("watch %s: exit %d: %s" % (name, rc, err[-400:]))
        continue
    j = same_words("watch " + name, out, d)
    with open(os.path.join(d, "run.json")) as f:
        rj = json.load(f)
    if "trend" in rj:
        fail("watch %s: run.json still has a verdict of its own ('trend')" % name)
    if j and rj.get("verdict", {}).get("verdict") != j["verdict"]:
        fail("watch %s: run.json's verdict %s, analyze's %s" % (name, rj.get("verdict"), j["verdict"]))
    if j and name == "flat" and j["verdict"] == "leak":
        fail("watch flat: a 56 MiB program held steady was called a leak")

d = os.path.join(tmp, "sweep")
rc, out, err = run("sweep", "--pw", "1,2", *SMALL, "--count", "2", "--out", d)
if rc != 0:
    fail("sweep: exit %d: %s" % (rc, err[-400:]))
else:
    for pw in (1, 2):
        j = analyze(os.path.join(d, "pw-%d" % pw))
        want = "sweep: pw %d: " % pw
        line = [l for l in out.splitlines() if l.startswith(want) and "verdict " in l]
        if j and (not line or not line[0].endswith("verdict " + str(j.get("headline")))):
            fail("sweep: pw %d's line %r does not end in analyze's verdict line %r" % (pw, line, j.get("headline")))

# ---- 2. a leak at a tick coarser than its cycle is never "healthy" ----
# (issue 25 #1: 2 MiB a cycle, 80 MiB in all, 5 windows: "healthy: no growth")
for k in range(3):
    s = seed + 11 * k
    d = gen("watch", "coarse-%d" % k, "sawtooth-leak", "--seed", str(s), "--cycles", "40", "--cycle-ms", "50",
            "--tick-ms", "100")
    j = analyze(d)
    if j and j["verdict"] not in ("leak", "inconclusive"):
        fail("coarse tick, seed %d: a leak called %s (%s)" % (s, j["verdict"], j["reason"]))
    if j and j["verdict"] == "inconclusive" and not j.get("decide"):
        fail("coarse tick, seed %d: inconclusive without what would decide" % s)
    dm = gen("watch", "coarse-marks-%d" % k, "sawtooth-leak", "--seed", str(s), "--cycles", "12", "--cycle-ms",
             "300", "--tick-ms", "100", "--marks")
    j = analyze(dm)
    if j and j["verdict"] not in ("leak", "inconclusive"):
        fail("3 samples a cycle, seed %d: a leak called %s (%s)" % (s, j["verdict"], j["reason"]))
    if j and j["verdict"] == "inconclusive" and "--sample-ms" not in (j.get("decide") or ""):
        fail("3 samples a cycle, seed %d: decide %r names no --sample-ms" % (s, j.get("decide")))
    # without marks the cycle is found in the signal: the same warning and --sample-ms
    dw = gen("watch", "coarse-signal-%d" % k, "sawtooth-leak", "--seed", str(s), "--cycles", "40", "--cycle-ms",
             "310", "--tick-ms", "100")
    j = analyze(dw)
    sp = (j or {}).get("sampling") or {}
    if j and (sp.get("source") != "signal" or sp.get("enough") is not False or
              "--sample-ms %s" % sp.get("suggest_sample_ms") not in (j.get("sampling_line") or "")):
        fail("3 samples a cycle, no marks, seed %d: sampling %r, line %r" % (s, sp, j.get("sampling_line")))
    if j and j["verdict"] not in ("leak", "inconclusive"):
        fail("3 samples a cycle, no marks, seed %d: a leak called %s" % (s, j["verdict"]))
# and a steady program watched the same way is not called a leak
d = gen("watch", "coarse-steady", "steady", "--seed", str(seed), "--cycles", "40", "--cycle-ms", "50",
        "--tick-ms", "100")
j = analyze(d)
if j and j["verdict"] == "leak":
    fail("coarse tick: a steady program called a leak (%s)" % j["reason"])


# ---- 3. growth over 2-3 proofs is no rate (issue 25 #3) ----
def gpu_grows(per_proof):
    def fn(r):
        r["gpu_used"] = str(int(float(r["gpu_used"] or 0) + per_proof * float(r["proofs_done"] or 0)))
    return fn


for proofs, want in ((3, ("inconclusive",)), (12, ("leak",))):
    d = gen("run", "gpu-%d" % proofs, "healthy", "--seed", str(seed), "--proofs", str(proofs))
    edit_samples(d, gpu_grows(9.2 * MIB))
    j = analyze(d)
    if j and j["verdict"] not in want:
        fail("gpu_used +9.2 MiB/proof over %d proofs: %s, expected %s (%s)" % (proofs, j["verdict"], want,
                                                                             j["reason"]))
    if j and proofs == 3 and "run >= 5 proofs" not in (j.get("decide") or ""):
        fail("3 proofs: decide %r" % j.get("decide"))

# ---- 4. a killed run's own model gives no capacity number (issue 25 #4) ----
d = gen("run", "killed", "healthy", "--seed", str(seed))
edit_json(d, lambda j: j.update(status="complete", outcome="oom-killed", mem_limit=6 << 30))
j = analyze(d)
if j:
    if j["verdict"] != "capacity":
        fail("OOM-killed run: %s" % j["verdict"])
    if j.get("largest_pw") is not None or "cannot be given" not in j.get("capacity_line", ""):
        fail("OOM-killed run: largest pw %s, capacity line %r" % (j.get("largest_pw"), j.get("capacity_line")))

# ---- 5. a negative residual is baseline memory reused, not a negative footprint ----
d = gen("run", "reused", "healthy", "--seed", str(seed))
t_work = [None]


def lower_rss(r):
    if float(r["n_synth"] or 0) + float(r["q_gpu"] or 0) + float(r["n_gpu"] or 0) > 0 or \
            float(r["proofs_done"] or 0) > 0:
        r["rss"] = str(int(float(r["rss"]) - 400 * MIB))


edit_samples(d, lower_rss)
j = analyze(d)
rc, out, _ = run("analyze", d)
if j and re.search(r"-\d+% untracked|synthesis\s+-\d|untracked near the peak: -", out):
    fail("negative residual printed as a negative footprint:\n%s" % out)
if j and j["capacity"].get("model", {}).get("untracked", {}).get("share_of_tracked", 0) < 0 and \
        "reused" not in j["reason"] + out:
    fail("negative residual: not worded as baseline memory reused")

# ---- 6. words that fit the run (issue 25 #8) ----
d = gen("run", "cpu-words", "held", "--seed", str(seed))
edit_json(d, lambda j: j["config"].update(backend="cpu"))
rc, out, _ = run("analyze", d)
if "GPU queue" in out or "on GPU" in out:
    fail("a CPU run's footprints name the GPU:\n%s" % out)
d = gen("run", "small-held", "healthy", "--seed", str(seed))
p = os.path.join(d, "buffers.csv")
with open(p) as f:
    rows = list(csv.DictReader(f))
for r in [r for r in rows if r["t_free_ms"]][:2]:  # two buffers kept 5 ms after their last use: MiB*s, not 0.00 GiB*s
    if r["t_free_ms"]:
        r["t_last_use_ms"] = str(float(r["t_free_ms"]) - 5)
with open(p, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
rc, out, _ = run("analyze", d)
if "0.00 GiB*s" in out:
    fail("held memory printed as 0.00 GiB*s:\n%s" % [l for l in out.splitlines() if "GiB*s" in l])
d = gen("run", "resident-grows", "healthy", "--seed", str(seed), "--proofs", "12")


def resident_grows(r):
    add = 3 * MIB * float(r["proofs_done"] or 0)
    for c in ("je_resident", "je_active", "rss"):
        r[c] = str(int(float(r[c]) + add))


edit_samples(d, resident_grows)
j = analyze(d)
rc, out, _ = run("analyze", d)
grows = [l.split()[1] for l in out.splitlines() if l.rstrip().endswith("GROWS")]
if j and grows and j["verdict"] == "healthy" and not any(g in j["reason"] for g in grows):
    fail("layers %s marked GROWS beside a healthy verdict that does not explain them: %s" % (grows, j["reason"]))

# ---- 7. a dead run is not healthy, and says so first (issue 26 #3) ----
gone = subprocess.Popen(["true"])
gone.wait()
d = gen("run", "dead", "healthy", "--seed", str(seed))
boot = open("/proc/sys/kernel/random/boot_id").read().strip()
edit_json(d, lambda j: j.update(status="running", writer={"pid": gone.pid, "start_ticks": 1, "boot_id": boot}))
j = analyze(d)
rc, out, _ = run("analyze", d)
if j:
    if j["verdict"] == "healthy" or not j.get("dead"):
        fail("dead run: verdict %s, dead %s" % (j["verdict"], j.get("dead")))
    first = [l for l in out.splitlines()[1:] if l.strip()][:1]
    if not first or not first[0].startswith("status       incomplete: the process died"):
        fail("dead run: analyze does not lead with its status: %r" % first)
rep = os.path.join(tmp, "dead.html")
rc, _, err = run("report", d, "-o", rep)
page = open(rep).read() if rc == 0 else ""
if rc != 0 or "verdict v-healthy" in page or "the process died" not in page:
    fail("dead run's report: exit %d, green %s, status shown %s" % (rc, "verdict v-healthy" in page,
                                                                   "the process died" in page))
# the same run while its writer lives: still running, not dead
me = open("/proc/self/stat").read()
ticks = int(me[me.rindex(")") + 2:].split()[19])
edit_json(d, lambda j: j.update(writer={"pid": os.getpid(), "start_ticks": ticks, "boot_id": boot}))
j = analyze(d)
if j and (j.get("dead") or not (j.get("status_line") or "").startswith("still running")):
    fail("live run: dead %s, status %r" % (j.get("dead"), j.get("status_line")))

if fails:
    print("%d check(s) failed (seed %d); files kept in %s" % (len(fails), seed, tmp))
    sys.exit(1)
shutil.rmtree(tmp)
print("verdicts: all checks passed (seed %d)" % seed)
