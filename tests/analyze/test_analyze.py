#!/usr/bin/env python3
"""zkbench analyze, plot and check on synthetic runs with known answers.

test_analyze.py ZKBENCH GEN_RUN_PY [SEED]

gen_run.py simulates the batch pipeline with planted faults and writes the
run files plus truth.json (true footprints, leak rate, verdict). Asserted:
the verdict of every scenario (clean and noisy), the fitted footprints and
leak rate against the true values, capacity answers, run.json keeping its
keys with the verdict added, plot outputs (PNG magic, SVG text, gnuplot
silent), check passing on its own baseline and failing on a planted leak,
and one error line with exit 2 for every class of bad input. The noise seed
is drawn fresh unless given, and printed on failure.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from run_edit import breaker, rewrite

zk, gen = sys.argv[1], sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else random.randrange(1, 1 << 30)
MIB, GIB = 1 << 20, 1 << 30
tmp = tempfile.mkdtemp(prefix="zkb-analyze-")
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(*args, env=None, timeout=None):
    try:
        p = subprocess.run([zk, *args], capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %s s\n" % timeout
    return p.returncode, p.stdout, p.stderr


def make(name, scenario, *extra, s=None):
    out = os.path.join(tmp, name)
    subprocess.run([sys.executable, gen, scenario, out, "--seed", str(seed if s is None else s), *extra], check=True)
    with open(os.path.join(out, "truth.json")) as f:
        return out, json.load(f)


def analyze(d, *extra):
    rc, out, err = run("analyze", d, "--json", *extra)
    if rc != 0:
        fail("analyze %s: exit %d (%s)" % (d, rc, err.strip()))
        return None
    try:
        return json.loads(out)  # exactly one object: json.loads rejects trailing text
    except ValueError as e:
        fail("analyze %s --json: not one JSON object: %s" % (d, e))
        return None


def expect_error(what, args, code=2, contains=None, env=None, timeout=None):
    rc, out, err = run(*args, env=env, timeout=timeout)
    lines = err.splitlines()
    if rc != code:
        fail("%s: exit %d, expected %d (%s)" % (what, rc, code, err.strip()[:300]))
    if len(lines) != 1 or not lines[0].startswith("zkbench: "):
        fail("%s: expected one 'zkbench: ' line on stderr, got %r" % (what, err[:300]))
    elif contains and contains not in lines[0]:
        fail("%s: error line lacks %r: %s" % (what, contains, lines[0]))


def close(what, got, want, se, rel=0.03):
    """got within max(4 standard errors, rel * want) of want."""
    tol = max(4 * (se or 0), rel * abs(want))
    if got is None or abs(got - want) > tol:
        fail("%s: %s, expected %s +- %s" % (what, got, want, tol))


# ---- verdicts, clean and noisy ----
cases = [
    ("healthy", "healthy", []),
    ("leak", "leak", []),
    ("retention", "retention", []),
    ("held", "held-too-long", []),
    ("pileup", "queue-pileup", []),
    ("healthy-noisy", "healthy", ["--noise", str(64 * MIB)]),
    ("leak-noisy-untracked", "leak", ["--noise", str(64 * MIB), "--untracked"]),
    ("leak-small", "leak", ["--leak", str(8 * MIB)]),
    ("retention-noisy", "retention", ["--noise", str(32 * MIB)]),
    ("held-noisy", "held-too-long", ["--noise", str(32 * MIB)]),
    ("pileup-noisy", "queue-pileup", ["--noise", str(32 * MIB)]),
]
results = {}
for name, want, extra in cases:
    scenario = name.split("-")[0]
    d, truth = make(name, scenario, *extra)
    j = analyze(d)
    if j is None:
        continue
    results[name] = (d, truth, j)
    if j.get("verdict") != want:
        fail("%s: verdict %s, expected %s (%s)" % (name, j.get("verdict"), want, j.get("reason")))
    if j.get("verdict") not in ("leak", "retention", "held-too-long", "queue-pileup", "capacity", "healthy"):
        fail("%s: verdict %r is not one of the six" % (name, j.get("verdict")))
    if "evidence" not in j or not j.get("reason"):
        fail("%s: no evidence or reason beside the verdict" % name)

# ---- footprints and leak rate against the generator's true values ----
for name in ("healthy", "healthy-noisy", "pileup", "held"):
    if name not in results:
        continue
    d, truth, j = results[name]
    fit = j["layers"]["rss"]["fit"]
    for k in ("f_synth", "f_queue", "f_gpu", "f_finish"):
        if name == "held" and k == "f_finish":
            continue  # held buffers follow the finish stage: not a per-slot footprint
        if fit.get(k) is None:
            if name != "pileup" or k != "f_synth":
                fail("%s: %s not fitted (%s)" % (name, k, fit.get("dropped")))
            continue
        close("%s rss %s" % (name, k), fit[k]["value"], truth["f_rss"][k], fit[k]["se"],
              rel=0.03 if "noisy" not in name else 0.08)
    tf = j["layers"]["tracked"]["fit"]
    if name == "healthy":
        for k in ("f_synth", "f_queue", "f_gpu", "f_finish"):
            close("healthy tracked %s" % k, tf[k]["value"], truth["f_tracked"][k], tf[k]["se"], rel=0.01)
        close("healthy baseline rss", j["baseline"]["rss"]["bytes"], truth["baseline_rss"], 0, rel=0.01)
        g = j["layers"]["rss"]["growth"]
        if not (g["ci95"][0] <= 0 <= g["ci95"][1]) and abs(g["bytes_per_proof"]) > MIB:
            fail("healthy: rss growth %s with CI %s excludes 0" % (g["bytes_per_proof"], g["ci95"]))
for name, layer, key in (("leak", "tracked", "g_tracked"), ("leak-noisy-untracked", "je_allocated", "g_heap"),
                         ("leak-small", "tracked", "g_tracked")):
    if name not in results:
        continue
    d, truth, j = results[name]
    g = j["layers"][layer]["growth"]
    lo, hi = g["ci95"]
    want = truth[key]
    # A 95% interval misses the truth one time in twenty by design (checked:
    # 24 of 25 seeds cover); with fresh seeds the test asks for the 99.9%
    # interval, 1.7 times as wide, so that it fails for bias, not for chance.
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    if abs(want - mid) > 1.7 * half:
        fail("%s: %s leak %s per proof, CI [%s, %s], true %s" % (name, layer, g["bytes_per_proof"], lo, hi, want))
    if j["leak"]["layer"] != layer:
        fail("%s: leak named in layer %s, expected %s" % (name, j["leak"]["layer"], layer))
if "leak" in results:
    j = results["leak"][2]
    if "msm" not in (j["leak"]["where"] or "") or j["leak"]["never_freed"].get("msm", {}).get("bytes") != 8 * 48 * MIB:
        fail("leak: never-freed msm buffers not named: %s %s" % (j["leak"]["where"], j["leak"]["never_freed"]))
    if "params" in j["leak"]["never_freed"]:
        fail("leak: resident params counted as leaked")
if "retention" in results:
    j = results["retention"][2]
    if j["retention"]["retained_bytes"] < 4 * GIB:
        fail("retention: retained %s, expected the working set (> 4 GiB)" % j["retention"]["retained_bytes"])
if "held" in results:
    j = results["held"][2]
    by = j["held_after_last_use"]["gib_s_by_kind"]
    # 32 aux buffers of 256 MiB held 1.5 s after last use = 12 GiB*s
    close("held aux GiB*s", by.get("aux"), 12.0, 0, rel=0.03)
if "pileup" in results:
    j = results["pileup"][2]
    if j["queue_pileup"]["bound"] != 6 or j["queue_pileup"]["max_excess_partitions"] < 3:
        fail("pileup: bound/excess %s" % j["queue_pileup"])

# ---- capacity ----
d, truth = make("capacity", "capacity")
peak = truth["peak_rss"]
ram = str(int(peak * 1.02))
j = analyze(d, "--ram", ram)
if j:
    if j["verdict"] != "capacity":
        fail("capacity: --ram %s gave %s, expected capacity (%s)" % (ram, j["verdict"], j["reason"]))
    if not (0 <= j["largest_pw"] < truth["pw"]):
        fail("capacity: largest pw %s with a 10%% margin, expected below %d" % (j["largest_pw"], truth["pw"]))
j = analyze(d, "--ram", ram, "--margin", "0")
if j:
    if j["largest_pw"] != truth["pw"]:
        fail("capacity: --ram just above the peak, --margin 0: largest pw %s, expected %d" % (j["largest_pw"], truth["pw"]))
    if j["verdict"] != "healthy":
        fail("capacity: --margin 0 verdict %s, expected healthy" % j["verdict"])
    # bytes per partition and state: exactly what the generator allocated
    model = j["capacity"]["model"]
    states = model["bytes_per_partition"]
    for name, key in (("synthesizing", "f_synth"), ("waiting", "f_queue"), ("proving", "f_gpu"),
                      ("finishing", "f_finish")):
        if states[name] != truth["f_tracked"][key]:
            fail("capacity: %s holds %s, the generator allocated %s" % (name, states[name], truth["f_tracked"][key]))
    pred = {p["pw"]: p["peak_rss"] for p in j["capacity"]["predicted"]}
    close("capacity predicted peak(pw)", pred.get(truth["pw"]), peak, 0, rel=0.01)
    # one slot less: one synthesized partition (with its 2% allocator share) less
    close("capacity predicted peak(pw-1)", pred.get(truth["pw"] - 1), peak - truth["f_rss"]["f_synth"], 0, rel=0.01)
    # 2 proofs x 4 partitions in flight: queue 2 + prover 1 leave 5 slots, the finishing state (the
    # lightest) empty; the simulation at pw 5 and 6 is the reference for what pw 5 holds and that 6 adds
    # nothing
    for w in (truth["pw"] + 1, truth["pw"] + 2):
        _, tw = make("capacity-pw%d" % w, "capacity", "--pw", str(w))
        close("capacity predicted peak(pw %d) against a run at pw %d" % (w, w), pred.get(w), tw["peak_rss"], 0,
              rel=0.01)
    if pred.get(truth["pw"] + 2) != pred.get(truth["pw"] + 1):
        fail("capacity: pw above %d should add nothing (in-flight bound): %s then %s"
             % (truth["pw"] + 1, pred.get(truth["pw"] + 1), pred.get(truth["pw"] + 2)))
    # the run's RAM holds pw 4, not 5: memory bounds it
    if j["capacity"]["bound_by"] != "memory":
        fail("capacity: --ram just above the peak: bound by %s, expected memory" % j["capacity"]["bound_by"])
j = analyze(d, "--ram", "%dG" % (peak * 10 // GIB))
if j and (j["verdict"] != "healthy" or j["largest_pw"] != truth["pw"] + 1 or j["capacity"]["bound_by"] != "in-flight"):
    fail("capacity: --ram 10x the peak: %s, largest pw %s, expected %d (in-flight)"
         % (j["verdict"], j["largest_pw"], truth["pw"] + 1))
# the bound in words: the occupancy at pw 5 fills the 8 in flight (5 + 2 queued + 1 proving), none finishing
rc, out, err = run("analyze", d, "--no-save", "--ram", "%dG" % (peak * 10 // GIB))
want = ("pw above 5 adds no memory: at most 2 proofs x 4 partitions are in flight, and the prover queue (depth 2), "
        "1 prover worker and 0 finishing hold the rest")
if rc != 0 or want not in out:
    fail("capacity: the bound in words: exit %d, %r" % (rc, [l for l in out.splitlines() if "pw above" in l]))
j = analyze(d, "--ram", str(int(pred[2] * 1.001)), "--margin", "0") if j else None
if j and (j["largest_pw"] != 2 or j["capacity"]["bound_by"] != "memory"):
    fail("capacity: --ram just above the pw-2 prediction: largest pw %s (%s), expected 2 (memory)"
         % (j["largest_pw"], j["capacity"]["bound_by"]))

# ---- human report and run.json ----
rc, out, err = run("analyze", results["leak"][0]) if "leak" in results else (1, "", "")
if rc != 0 or "verdict      leak" not in out or "L1 je_allocated" not in out or "ratios" not in out:
    fail("analyze report: exit %d, %r" % (rc, out[:400]))
with open(os.path.join(results["leak"][0], "run.json")) as f:
    rj = json.load(f)
if rj.get("verdict", {}).get("verdict") != "leak" or "config" not in rj or "machine" not in rj or "summary" not in rj:
    fail("run.json after analyze: %s" % list(rj))
if any(n.startswith(".run.json") for n in os.listdir(results["leak"][0])):
    fail("analyze left a temporary file in the run folder")

# ---- a killed run: partial last rows ignored with a note ----
d, truth = make("killed", "healthy", "--truncate")
j = analyze(d)
if j is not None:
    if not any("partial last row" in n for n in j["notes"]):
        fail("killed run: no note about the partial row: %s" % j["notes"])

# ---- plot ----
d = results["leak"][0] if "leak" in results else None
with open(os.path.join(d, "sweep.csv"), "w") as f:
    f.write("pw,s_per_proof,peak_rss,predicted_peak_rss,ram_bytes\n")
    for pw, pk in ((2, 6.1), (4, 8.2), (8, 12.3)):
        f.write("%d,%.3f,%d,%d,%d\n" % (pw, 2.0 / pw, pk * GIB, (pk - 0.1) * GIB, 16 * GIB))
out = os.path.join(tmp, "plots")
rc, o, err = run("plot", d, "--out", out)
if rc != 0 or err:
    fail("plot: exit %d, stderr %r" % (rc, err))
for fig in ("memory", "kinds", "buffers", "sweep"):
    png, svg = os.path.join(out, fig + ".png"), os.path.join(out, fig + ".svg")
    if not os.path.exists(png) or os.path.getsize(png) < 1000:
        fail("plot: %s missing or tiny" % png)
    else:
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail("plot: %s is not a PNG" % png)
    if not os.path.exists(svg) or os.path.getsize(svg) < 1000:
        fail("plot: %s missing or tiny" % svg)
    else:
        with open(svg) as f:
            text = f.read()
        if not (text.lstrip().startswith("<?xml") or text.lstrip().startswith("<svg")) or "</svg>" not in text:
            fail("plot: %s is not SVG" % svg)
rc, o, err = run("plot", results["healthy"][0])
if rc != 0 or err or not os.path.exists(os.path.join(results["healthy"][0], "memory.svg")):
    fail("plot without --out: exit %d %r" % (rc, err))
# gnuplot missing, failing, or talking on stderr: exit 1, one line
fake = os.path.join(tmp, "fakebin")
os.makedirs(fake)
env = dict(os.environ, PATH=fake)
expect_error("plot without gnuplot", ["plot", d, "--out", out], code=1, contains="gnuplot", env=env)
with open(os.path.join(fake, "gnuplot"), "w") as f:
    f.write("#!/bin/sh\necho 'line 3: undefined variable: foo' >&2\nexit 0\n")
os.chmod(os.path.join(fake, "gnuplot"), 0o755)
expect_error("plot with gnuplot printing an error", ["plot", d, "--out", out], code=1, contains="undefined variable", env=env)
with open(os.path.join(fake, "gnuplot"), "w") as f:
    f.write("#!/bin/sh\nexit 1\n")
expect_error("plot with gnuplot failing", ["plot", d, "--out", out], code=1, contains="gnuplot", env=env)

# ---- check ----
base = os.path.join(tmp, "baseline.json")
hd = results["healthy"][0]
rc, o, err = run("check", hd, "--write-baseline", base)
if rc != 0:
    fail("check --write-baseline: exit %d %s" % (rc, err))
with open(base) as f:
    b = json.load(f)
if b.get("format") != "zkbench-baseline-1" or "peak_rss" not in b.get("limits", {}):
    fail("baseline format: %s" % b)
rc, o, err = run("check", hd, "--baseline", base)
if rc != 0 or "pass" not in o:
    fail("check on its own baseline: exit %d\n%s%s" % (rc, o, err))
d2, _ = make("healthy2", "healthy", s=seed + 1)
rc, o, err = run("check", d2, "--baseline", base)
if rc != 0:
    fail("check on another healthy run: exit %d\n%s%s" % (rc, o, err))
rc, o, err = run("check", results["leak"][0], "--baseline", base)
if rc != 1 or "FAIL leak per proof" not in o or len(err.splitlines()) != 1 or "leak" not in err:
    fail("check on a planted leak: exit %d\n%s%s" % (rc, o, err))
# another machine: timing skipped, not failed
with open(os.path.join(d2, "run.json")) as f:
    rj = json.load(f)
rj["machine"]["cpu"] = "Another CPU"
with open(os.path.join(d2, "run.json"), "w") as f:
    json.dump(rj, f)
rc, o, err = run("check", d2, "--baseline", base)
if rc != 0 or "skipped: the machine differs" not in o:
    fail("check on another machine: exit %d\n%s" % (rc, o))
# a slower run on the same machine fails on s/proof
with open(base) as f:
    b = json.load(f)
b["reference"]["s_per_proof"] /= 2
slow = os.path.join(tmp, "slow-baseline.json")
with open(slow, "w") as f:
    json.dump(b, f)
rc, o, err = run("check", hd, "--baseline", slow)
if rc != 1 or "FAIL s/proof" not in o:
    fail("check with twice the reference time: exit %d\n%s" % (rc, o))
expect_error("write-baseline from a leaking run", ["check", results["leak"][0], "--write-baseline", os.path.join(tmp, "x.json")])

# ---- bad inputs: exit 2, one line ----
good = results["healthy"][0]
broken = breaker(good, tmp)


def set_line(path, idx, fn):
    def edit(text):
        lines = text.split("\n")
        lines[idx] = fn(lines[idx])
        return "\n".join(lines)
    rewrite(path, edit)


bad = {
    "missing samples.csv": broken("nosamples", lambda d: os.remove(os.path.join(d, "samples.csv"))),
    "missing buffers.csv": broken("nobuffers", lambda d: os.remove(os.path.join(d, "buffers.csv"))),
    "missing run.json": broken("norunjson", lambda d: os.remove(os.path.join(d, "run.json"))),
    "malformed run.json": broken("badjson", lambda d: rewrite(os.path.join(d, "run.json"), lambda t: t[: len(t) // 2])),
    "run.json not an object": broken("jsonarray", lambda d: rewrite(os.path.join(d, "run.json"), lambda t: "[1, 2]")),
    "wrong header": broken("header", lambda d: set_line(os.path.join(d, "samples.csv"), 0, lambda l: l.replace("rss,", "rzz,", 1))),
    "non-numeric field": broken("nonnum", lambda d: set_line(os.path.join(d, "samples.csv"), 40, lambda l: l.replace(",", ",abc,", 1).replace(",abc,", ",abc", 1))),
    "short row": broken("short", lambda d: set_line(os.path.join(d, "samples.csv"), 40, lambda l: l.rsplit(",", 3)[0])),
    "short row in buffers.csv": broken("shortbuf", lambda d: set_line(os.path.join(d, "buffers.csv"), 5, lambda l: l.rsplit(",", 4)[0])),
    "empty run (header only)": broken("empty", lambda d: rewrite(os.path.join(d, "samples.csv"), lambda t: t.split("\n")[0] + "\n")),
    "empty samples.csv": broken("zero", lambda d: rewrite(os.path.join(d, "samples.csv"), lambda t: "")),
    "negative bytes": broken("neg", lambda d: set_line(os.path.join(d, "samples.csv"), 30, lambda l: ",".join([l.split(",")[0], "-5"] + l.split(",")[2:]))),
    "time going backwards": broken("backwards", lambda d: set_line(os.path.join(d, "samples.csv"), 30, lambda l: ",".join(["1.000"] + l.split(",")[1:]))),
}
# ---- prove_busy: the union of the heavy stage rows over their span ----
# (proof 0, partition 0; worked by hand: [100, 200] + [150, 300] + [400, 450]
# + [420, 600] + the nested [410, 415] give 200 + 200 = 400 ms busy of 500)
def add_heavy_rows(d):
    with open(os.path.join(d, "stages.csv"), "a") as f:
        for stage, a, b in (("h", 100, 200), ("msm_h", 150, 300), ("msm_l", 400, 450), ("msm_b2", 420, 600),
                            ("msm_a", 410, 415), ("synth", 0, 900)):
            f.write("0,0,%s,prove0,%.3f,%.3f\n" % (stage, a, b))


busy_run = broken("busy", add_heavy_rows)
j = analyze(busy_run)
pb = j.get("prove_busy") if j else None
if not pb or abs(pb["fraction"] - 0.8) > 1e-9 or abs(pb["busy_s"] - 0.4) > 1e-9 or abs(pb["span_s"] - 0.5) > 1e-9 \
        or pb["stages"] != 5:
    fail("prove_busy of hand-made rows: %r, expected fraction 0.8, 0.4 of 0.5 s, 5 stages" % (pb,))
rc, o, err = run("analyze", busy_run)
if rc != 0 or "prover busy 80% of the work: H or an MSM running 0.4 of 0.5 s" not in o:
    fail("analyze's text lacks the busy line: exit %d\n%s" % (rc, o))
# ---- prove_busy per device: a --gpus 0,1 run; prove worker i works on the
# (i mod 2)-th device. GPU 0 (prove0, prove2): [100, 200] + [150, 260] +
# [500, 600] = 260 of 500 ms; GPU 1 (prove1): [200, 300] + [400, 420] = 120 of
# 220 ms; the union [100, 300] + [400, 420] + [500, 600] = 320 of 500 ms.
# The finish worker's row is not heavy and counts nowhere.
def two_gpu_rows(d):
    def gpu_config(text):
        rj = json.loads(text)
        rj["config"]["backend"] = "gpu"
        rj["config"]["gpus"] = [0, 1]
        return json.dumps(rj)
    rewrite(os.path.join(d, "run.json"), gpu_config)
    with open(os.path.join(d, "stages.csv"), "a") as f:
        for stage, worker, a, b in (("h", "prove0", 100, 200), ("msm_b2", "prove2", 150, 260),
                                    ("msm_l", "prove0", 500, 600), ("h", "prove1", 200, 300),
                                    ("msm_a", "prove1", 400, 420), ("finish", "finish0", 0, 900)):
            f.write("0,0,%s,%s,%.3f,%.3f\n" % (stage, worker, a, b))


two_run = broken("busy2", two_gpu_rows)
j = analyze(two_run)
pb = j.get("prove_busy") if j else None
want = [(0, 0.52, 0.26, 0.5, 3), (1, 120 / 220, 0.12, 0.22, 2)]
got = [(x["gpu"], x["fraction"], x["busy_s"], x["span_s"], x["stages"]) for x in (pb or {}).get("devices", [])]
if not pb or abs(pb["fraction"] - 0.64) > 1e-9 or len(got) != 2 or any(
        g[0] != w[0] or g[4] != w[4] or any(abs(g[k] - w[k]) > 1e-9 for k in (1, 2, 3)) for g, w in zip(got, want)):
    fail("prove_busy per device of hand-made rows: %r, expected 0.64 overall and %r" % (pb, want))
rc, o, err = run("analyze", two_run)
if rc != 0 or "busy         prover busy per GPU: GPU 0 52% (0.3 of 0.5 s), GPU 1 55% (0.1 of 0.2 s)" not in o:
    fail("analyze's text lacks the per-GPU busy line: exit %d\n%s" % (rc, o))
if "device_busy" in (pb or {}) or "device busy: not measured" not in o:
    fail("a GPU run without gpu<d>_util: device busy %r, text %r" % ((pb or {}).get("device_busy"), o[-400:]))


# ---- device busy: NVML's gpu<d>_util averaged over the heavy rows' span
# [100, 600] ms; outside it the values are planted to be wrong ----
def util_columns(d):
    two_gpu_rows(d)
    p = os.path.join(d, "samples.csv")
    with open(p) as f:
        lines = f.read().splitlines()
    out = [lines[0] + ",gpu0_util,gpu1_util"]
    for line in lines[1:]:
        t = float(line.split(",")[0])
        inside = 100 <= t <= 600
        out.append(line + (",50,20" if inside else ",99,99"))
    with open(p, "w") as f:
        f.write("\n".join(out) + "\n")


util_run = broken("util", util_columns)
j = analyze(util_run)
db = (j or {}).get("prove_busy", {}).get("device_busy")
if not db or [(x["gpu"], round(x["fraction"], 9)) for x in db] != [(0, 0.5), (1, 0.2)]:
    fail("device busy from gpu<d>_util: %r, expected GPU 0 50%%, GPU 1 20%% over the span" % (db,))
rc, o, err = run("analyze", util_run)
if rc != 0 or "device busy (NVML utilisation over the same span): GPU 0 50%" not in o or "prover busy" not in o:
    fail("analyze's text lacks the device busy line: exit %d\n%s" % (rc, o[-600:]))
if "devices" in (analyze(busy_run) or {}).get("prove_busy", {}):
    fail("a one-device run's prove_busy has devices")

j = analyze(good)
if j and "prove_busy" in j:
    fail("a run without heavy stage rows has a prove_busy section: %r" % (j["prove_busy"],))

for what, d in bad.items():
    expect_error("analyze, " + what, ["analyze", d])
expect_error("analyze, non-numeric field names the column", ["analyze", bad["non-numeric field"]], contains="samples.csv:41")
expect_error("analyze, wrong header names the column", ["analyze", bad["wrong header"]], contains="'rss'")
expect_error("analyze, empty run", ["analyze", bad["empty run (header only)"]], contains="no samples")
# an absurd header is refused at once (it was quadratic: 60k columns took 8 s)
def add_columns(d, names):
    with open(os.path.join(d, "samples.csv")) as f:
        lines = f.read().split("\n")
    lines[0] += "".join("," + n for n in names)
    with open(os.path.join(d, "samples.csv"), "w") as f:
        f.write("\n".join(lines))
    return lines[0].count(",") + 1


ncols = {}
wide = broken("wide", lambda d: ncols.setdefault("wide", add_columns(d, ["x%d" % i for i in range(100000)])))
for cmd in (["analyze", wide], ["plot", wide, "--out", os.path.join(tmp, "pwide")], ["check", wide, "--baseline", base]):
    expect_error(cmd[0] + ", 100k-column header", cmd, contains="samples.csv:1: header has %d columns" % ncols["wide"],
                 timeout=10)
longhdr = broken("longhdr", lambda d: add_columns(d, ["y%d" % i + "y" * 1100 for i in range(1000)]))
expect_error("analyze, header line over 1 MiB", ["analyze", longhdr], contains="samples.csv:1: header line is", timeout=10)
expect_error("analyze, a column named twice", ["analyze", broken("dupcol", lambda d: add_columns(d, ["z", "tick_us"]))],
             contains="'tick_us' twice")
expect_error("analyze without RUN_DIR", ["analyze"])
expect_error("analyze, missing RUN_DIR", ["analyze", os.path.join(tmp, "no-such-run")], contains="no-such-run")
expect_error("analyze, RUN_DIR is a file", ["analyze", os.path.join(good, "run.json")])
expect_error("analyze, bad --ram", ["analyze", good, "--ram", "lots"], contains="--ram")
expect_error("analyze, bad --margin", ["analyze", good, "--margin", "150"], contains="--margin")
expect_error("analyze, unknown option", ["analyze", good, "--bogus"], contains="--bogus")
expect_error("plot, missing RUN_DIR", ["plot", os.path.join(tmp, "no-such-run")])
expect_error("plot, wrong header", ["plot", bad["wrong header"]])
expect_error("plot, empty run", ["plot", bad["empty run (header only)"]], contains="no samples")
expect_error("plot, --out is a file", ["plot", good, "--out", os.path.join(good, "run.json")], contains="--out")
def bad_sweep(d):
    with open(os.path.join(d, "sweep.csv"), "w") as f:
        f.write("pw,peak\n1,2\n")


expect_error("plot, malformed sweep.csv", ["plot", broken("sweep", bad_sweep), "--out", os.path.join(tmp, "p2")],
             contains="sweep.csv")
expect_error("check without a baseline option", ["check", good])
expect_error("check, missing baseline", ["check", good, "--baseline", os.path.join(tmp, "none.json")], contains="none.json")
with open(os.path.join(tmp, "notbase.json"), "w") as f:
    f.write('{"limits": 3}')
expect_error("check, not a baseline", ["check", good, "--baseline", os.path.join(tmp, "notbase.json")], contains="format")
with open(os.path.join(tmp, "badlimit.json"), "w") as f:
    json.dump({"format": "zkbench-baseline-1", "limits": {"peak_rss": {"value": "big"}}}, f)
expect_error("check, malformed limit", ["check", good, "--baseline", os.path.join(tmp, "badlimit.json")], contains="malformed")
with open(os.path.join(tmp, "trunc.json"), "w") as f:
    f.write('{"format": "zkbench-baseline-1", "limits": {')
expect_error("check, truncated baseline", ["check", good, "--baseline", os.path.join(tmp, "trunc.json")])
# a baseline that checks nothing must not pass the gate
with open(os.path.join(tmp, "nolimits.json"), "w") as f:
    json.dump({"format": "zkbench-baseline-1", "limits": {}}, f)
expect_error("check, empty limits", ["check", good, "--baseline", os.path.join(tmp, "nolimits.json")], contains="nolimits.json")
with open(base) as f:
    typo = json.load(f)
typo["limits"]["peak_rs"] = typo["limits"].pop("peak_rss")
with open(os.path.join(tmp, "typo.json"), "w") as f:
    json.dump(typo, f)
expect_error("check, misspelled limit", ["check", good, "--baseline", os.path.join(tmp, "typo.json")], contains="'peak_rs'")
with open(os.path.join(tmp, "onlytypo.json"), "w") as f:
    json.dump({"format": "zkbench-baseline-1", "limits": {"leak_bytes_per_prof": {"max": 1}}}, f)
expect_error("check, only an unknown limit", ["check", good, "--baseline", os.path.join(tmp, "onlytypo.json")],
             contains="onlytypo.json")
expect_error("check, bad run", ["check", bad["short row"], "--baseline", base])

if fails:
    print("%d failures (seed %d; rerun: test_analyze.py ZKBENCH GEN_RUN_PY %d; files kept in %s)" % (len(fails), seed, seed, tmp),
          file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp)
print("analyze/plot/check: all checks passed (seed %d)" % seed)
