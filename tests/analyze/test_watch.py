#!/usr/bin/env python3
"""zkbench analyze, plot and check on watch runs, torn CSV rows and degenerate runs.

test_watch.py ZKBENCH GEN_WATCH_PY GEN_RUN_PY [SEED]

gen_watch.py writes synthetic watch runs with planted behaviour (truth.json):
a steady linear leak, a sawtooth that leaks every cycle, a sawtooth that
does not, a steady program, a cache that grows to a bound, and a traced run
whose leak_step site leaks while its cache_put site is a bounded cache.
Asserted: the verdict of each (with and without proof boundaries, with the
columns a watch cannot fill empty or absent, with extra columns), the growth
per proof (or per second) against the planted value, the leaking site named
by function and the cache site not blamed, per-site never-freed and held
bytes, plot and check on watch runs, a torn last row dropped with one
warning, plots of degenerate runs (0, 1 sample, equal times; batch and
watch shapes) and no half-drawn figures, and bad input: exit 2, one line.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from run_edit import breaker, rewrite

zk, gen, gen_batch = sys.argv[1], sys.argv[2], sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else random.randrange(1, 1 << 30)
MIB = 1 << 20
tmp = tempfile.mkdtemp(prefix="zkb-watch-")
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(*args, env=None):
    p = subprocess.run([zk, *args], capture_output=True, text=True, env=env, timeout=120)
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
    if err:
        fail("analyze %s: stderr %r" % (d, err))
    try:
        return json.loads(out)
    except ValueError as e:
        fail("analyze %s --json: not one JSON object: %s" % (d, e))
        return None


def expect_error(what, args, code=2, contains=None, env=None):
    rc, out, err = run(*args, env=env)
    lines = err.splitlines()
    if rc != code:
        fail("%s: exit %d, expected %d (%s)" % (what, rc, code, err.strip()[:300]))
    if len(lines) != 1 or not lines[0].startswith("zkbench: "):
        fail("%s: expected one 'zkbench: ' line on stderr, got %r" % (what, err[:300]))
    elif contains and contains not in lines[0]:
        fail("%s: error line lacks %r: %s" % (what, contains, lines[0]))


def figures(out):
    return sorted(f for f in os.listdir(out)) if os.path.isdir(out) else []


def check_figure(what, out, fig):
    png, svg = os.path.join(out, fig + ".png"), os.path.join(out, fig + ".svg")
    if not os.path.exists(png) or os.path.getsize(png) < 1000:
        fail("%s: %s missing or tiny" % (what, png))
        return
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            fail("%s: %s is not a PNG" % (what, png))
    with open(svg) as f:
        if "</svg>" not in f.read():
            fail("%s: %s is not SVG" % (what, svg))


# ---- verdicts and growth: every scenario, every shape ----
shapes = {
    "windows": [],                                      # no boundaries: per second
    "marks": ["--marks"],                               # marks.csv, unsorted, several sources
    "proofs": ["--proofs-col", "--absent", "--extra"],  # proofs_done filled; heap columns absent; extra columns
}
results = {}
for scenario in ("linear", "sawtooth-leak", "sawtooth", "steady", "cache", "sites"):
    for shape, extra in shapes.items():
        name = "%s-%s" % (scenario, shape)
        d, truth = make(name, scenario, *extra)
        j = analyze(d)
        if j is None:
            continue
        results[name] = (d, truth, j)
        # without proof boundaries a healthy sawtooth's floors may not rule a
        # leak out (issue 25: inconclusive, saying what would decide, is an
        # answer; the opposite verdict never is). The panel (panel.py)
        # bounds how often.
        unsure = (truth["verdict"] in ("healthy", "bounded") and shape == "windows"
                  and j["verdict"] == "inconclusive" and j.get("decide"))
        if j["verdict"] != truth["verdict"] and not unsure:
            fail("%s: verdict %s, expected %s (%s)" % (name, j["verdict"], truth["verdict"], j["reason"]))
        if j.get("run_kind") != "watch" or not j.get("reason") or "evidence" not in j:
            fail("%s: run_kind/reason/evidence missing: %s" % (name, list(j)))
        per_proof = shape != "windows"
        if j["growth"]["unit"] != ("proof" if per_proof else "s"):
            fail("%s: growth unit %s" % (name, j["growth"]["unit"]))
        if per_proof and j["proofs_done"] != 30:
            fail("%s: %s proof boundaries, 30 planted" % (name, j["proofs_done"]))
        if truth["verdict"] == "leak":
            g, (lo, hi), want = j["growth"]["bytes_per_unit"], j["growth"]["ci95"], truth["growth"]
            tol = max(0.05 * want, 1.7 * (hi - lo) / 2) if per_proof else 0.10 * want
            if g is None or abs(g - want) > tol:
                fail("%s: growth %s per %s (CI %s .. %s), planted %s" % (name, g, j["growth"]["unit"], lo, hi, want))
            if per_proof and j["leak_bytes_per_proof"] != g:
                fail("%s: leak_bytes_per_proof %s != growth %s" % (name, j["leak_bytes_per_proof"], g))
            if scenario != "sites" and j["leak"]["layer"] != "rss_anon":
                fail("%s: leak named in %s, expected rss_anon (anonymous memory)" % (name, j["leak"]["layer"]))
        else:
            lo, hi = j["growth"]["ci95"]
            if lo is not None and lo > 256 * 1024:
                fail("%s: growth CI %s .. %s above 0 without a leak" % (name, lo, hi))
        if scenario == "cache" and "bounded" not in j["reason"]:
            fail("%s: the cache is not said to be bounded: %s" % (name, j["reason"]))
        if shape == "marks":
            b = j["boundaries"]
            if b["source"] != "marks.csv" or "output" not in b["detail"] or b["marks"].get("api:synth") != 30:
                fail("%s: boundaries %s" % (name, b))

# ---- sites: the leak named by function, the cache not blamed ----
for shape in shapes:
    name = "sites-" + shape
    if name not in results:
        continue
    d, truth, j = results[name]
    unit = "proof" if shape != "windows" else "s"
    if not j["headline"].startswith("leak: ") or "never freed at leak_step (leak.c:14)" not in j["headline"]:
        fail("%s: headline %r does not name leak_step (leak.c:14)" % (name, j["headline"]))
    if j["leak"]["function"] != "leak_step" or j["leak"]["layer"] != "tracked":
        fail("%s: leak %s" % (name, j["leak"]))
    by = {s["function"]: s for s in j["sites"]}
    for fn in ("leak_step", "cache_put", "work", "std::map<int, int>::insert"):
        if fn not in by:
            fail("%s: site %s not in the top sites: %s" % (name, fn, list(by)))
    if "leak_step" in by and "cache_put" in by:
        if not by["leak_step"]["leak"] or by["cache_put"]["leak"] or by["work"]["leak"]:
            fail("%s: leak flags %s" % (name, {k: v["leak"] for k, v in by.items()}))
        if not by["cache_put"]["bounded"]:
            fail("%s: cache_put not bounded" % name)
        for fn, want in truth["site_never_freed"].items():
            if by[fn]["never_freed_bytes"] != want:
                fail("%s: %s never freed %s, planted %s" % (name, fn, by[fn]["never_freed_bytes"], want))
        held = by["work"]["held_gib_s"]
        want = truth["site_held_gib_s"]["work"]
        if held is None or abs(held - want) > 0.01 * want:
            fail("%s: work held %s GiB*s, planted %s" % (name, held, want))
        g = by["leak_step"]["growth_per_proof" if unit == "proof" else "growth_per_s"]
        if g is None or abs(g - truth["growth"]) > (0.01 if unit == "proof" else 0.10) * truth["growth"]:
            fail("%s: leak_step grows %s per %s, planted %s" % (name, g, unit, truth["growth"]))
        if unit == "proof" and not (by["leak_step"]["growth_lo"] <= truth["growth"] <= by["leak_step"]["growth_hi"]):
            fail("%s: leak_step CI %s .. %s misses %s" % (name, by["leak_step"]["growth_lo"],
                                                          by["leak_step"]["growth_hi"], truth["growth"]))
        if by["std::map<int, int>::insert"]["never_freed_bytes"] != 500000:
            fail("%s: the small-allocation site's never-freed bytes: %s" % (name, by["std::map<int, int>::insert"]))
    if j["never_freed_bytes"] != sum(truth["site_never_freed"].values()) + 500000:
        fail("%s: never_freed_bytes %s" % (name, j["never_freed_bytes"]))
# a leak freed only at exit still grew while the program ran
d, truth = make("sites-free-at-exit", "sites", "--marks", "--free-at-exit")
j = analyze(d)
if j and (j["verdict"] != "leak" or "kept until the end at leak_step (leak.c:14)" not in j["headline"]):
    fail("a leak freed at exit: %s %r" % (j["verdict"], j["headline"]))
rc, out, err = run("analyze", results["sites-marks"][0]) if "sites-marks" in results else (1, "", "")
if rc != 0 or "verdict      leak: 2.0 MiB per proof, never freed at leak_step (leak.c:14)" not in out or \
        "cache_put" not in out or "bounded" not in out:
    fail("analyze report of the traced run: exit %d\n%s" % (rc, out))
with open(os.path.join(results["sites-marks"][0], "run.json")) as f:
    rj = json.load(f)
if rj.get("verdict", {}).get("verdict") != "leak" or rj["config"]["mode"] != "command":
    fail("run.json after analyze of a watch run: %s" % rj.get("verdict"))

# ---- noise: the rules hold with a noisy RSS (fresh seeds) ----
for scenario, want, extra in (("sawtooth-leak", "leak", ["--marks", "--noise", str(2 * MIB)]),
                              ("linear", "leak", ["--noise", str(MIB)]),
                              ("steady", "healthy", ["--marks", "--noise", str(2 * MIB)]),
                              ("sawtooth", "healthy", ["--noise", str(2 * MIB)]),
                              ("cache", "healthy", ["--marks", "--noise", str(MIB)]),
                              ("cache", "healthy", ["--noise", str(MIB)])):
    for k in range(3):
        d, truth = make("noisy-%s-%d-%d" % (scenario, len(extra), k), scenario, *extra, s=seed + 17 * k)
        j = analyze(d)
        # a healthy program may be inconclusive under noise (it says what
        # would decide), never a leak; a leak must be found
        ok = j["verdict"] == want or (want == "healthy" and j["verdict"] == "inconclusive") if j else True
        if not ok:
            fail("noisy %s %s seed %d: %s, expected %s (%s)" % (scenario, extra, seed + 17 * k, j["verdict"], want,
                                                                j["reason"]))

# ---- a bounded cache above the RAM limit is capacity, never leak ----
d = results["cache-marks"][0] if "cache-marks" in results else None
j = analyze(d, "--ram", "40M") if d else None
if j and j["verdict"] != "capacity":
    fail("cache with --ram 40M: %s (%s)" % (j["verdict"], j["reason"]))

# ---- plot ----
for name in ("linear-windows", "sawtooth-leak-marks", "cache-proofs", "sites-marks", "sites-windows"):
    if name not in results:
        continue
    d = results[name][0]
    out = os.path.join(tmp, "plot-" + name)
    rc, o, err = run("plot", d, "--out", out)
    if rc != 0 or err:
        fail("plot %s: exit %d, stderr %r" % (name, rc, err))
        continue
    check_figure("plot " + name, out, "memory")
    if name.startswith("sites"):
        check_figure("plot " + name, out, "buffers")
        with open(os.path.join(out, "buffers.svg")) as f:
            text = f.read()
        if "leak_step@leak.c:14" not in text or "cache_put@cache.c:30" not in text:
            fail("plot %s: the buffers figure does not name the sites" % name)
    with open(os.path.join(out, "memory.svg")) as f:
        text = f.read()
    for label in ("RSS", "RssAnon", "RssFile"):
        if label not in text:
            fail("plot %s: no %s line" % (name, label))
    if name == "cache-proofs" and "cgroup" not in text:
        fail("plot %s: no cgroup line" % name)
    if name == "sites-marks" and ("traced allocations" not in text or ">mark<" not in text):
        fail("plot %s: no traced or mark lines" % name)
    if any(f.startswith(".") for f in os.listdir(out)):
        fail("plot %s: temporary files left: %s" % (name, os.listdir(out)))

# a gnuplot that fails on the second figure: no figure at all is left
fake = os.path.join(tmp, "fakebin")
os.makedirs(fake)
with open(os.path.join(fake, "gnuplot"), "w") as f:
    # gnuplot -c SCRIPT DATADIR PNG SVG: whole (if empty) figures, but for buffers
    f.write('#!/bin/sh\ncase "$2" in *buffers.gp) echo "line 1: no" >&2; exit 1;; esac\n'
            "printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\0IEND\\256B`\\202' > \"$4\"; "
            "echo '<svg></svg>' > \"$5\"; exit 0\n")
os.chmod(os.path.join(fake, "gnuplot"), 0o755)
out = os.path.join(tmp, "plot-half")
expect_error("plot with the second figure failing", ["plot", results["sites-marks"][0], "--out", out], code=1,
             env=dict(os.environ, PATH=fake + ":" + os.environ["PATH"]))
if figures(out):
    fail("plot with the second figure failing left files: %s" % figures(out))

# ---- check ----
base = os.path.join(tmp, "watch-baseline.json")
sd = results["steady-marks"][0]
rc, o, err = run("check", sd, "--write-baseline", base)
if rc != 0:
    fail("check --write-baseline from a watch run: exit %d %s" % (rc, err))
with open(base) as f:
    b = json.load(f)
if set(b["limits"]) != {"peak_rss", "leak_bytes_per_proof", "verdicts", "s_per_proof_ratio"}:
    fail("watch baseline limits: %s" % sorted(b["limits"]))
rc, o, err = run("check", sd, "--baseline", base)
if rc != 0 or "pass" not in o:
    fail("check a watch run on its own baseline: exit %d\n%s%s" % (rc, o, err))
rc, o, err = run("check", make("steady2", "steady", "--marks", s=seed + 1)[0], "--baseline", base)
if rc != 0:
    fail("check another healthy watch run: exit %d\n%s%s" % (rc, o, err))
rc, o, err = run("check", results["sawtooth-leak-marks"][0], "--baseline", base)
if rc != 1 or "FAIL leak per proof" not in o or "FAIL peak RSS" not in o:
    fail("check a leaking watch run: exit %d\n%s%s" % (rc, o, err))
# per second (no boundaries) against a per-proof limit: skipped, the rest checked
rc, o, err = run("check", results["steady-windows"][0], "--baseline", base)
if rc != 0 or "skip leak per proof" not in o.replace("  ", " ").replace("  ", " "):
    fail("check a per-second watch run on a per-proof baseline: exit %d\n%s%s" % (rc, o, err))
# a per-second baseline
base_s = os.path.join(tmp, "watch-baseline-s.json")
rc, o, err = run("check", results["steady-windows"][0], "--write-baseline", base_s)
with open(base_s) as f:
    if "growth_bytes_per_s" not in json.load(f)["limits"]:
        fail("a per-second watch baseline has no growth_bytes_per_s")
rc, o, err = run("check", results["linear-windows"][0], "--baseline", base_s)
if rc != 1 or "FAIL growth per second" not in o:
    fail("check a linear leak against a per-second baseline: exit %d\n%s" % (rc, o))
# never-freed bytes of a traced run
dh, _ = make("sites-healthy", "sites", "--marks", "--leak", "0")
base_t = os.path.join(tmp, "watch-baseline-t.json")
rc, o, err = run("check", dh, "--write-baseline", base_t)
if rc != 0:
    fail("baseline from a traced run without a leak: exit %d %s%s" % (rc, o, err))
else:
    with open(base_t) as f:
        if "never_freed_bytes" not in json.load(f)["limits"]:
            fail("a traced watch baseline has no never_freed_bytes limit")
    rc, o, err = run("check", results["sites-marks"][0], "--baseline", base_t)
    if rc != 1 or "FAIL never freed" not in o:
        fail("check a leaking traced run: exit %d\n%s" % (rc, o))
    rc, o, err = run("check", sd, "--baseline", base_t)
    if "skip never freed" not in " ".join(o.split()):
        fail("never_freed_bytes on an untraced run is not reported as skipped:\n%s" % o)
# limits a watch run cannot be checked for: reported; none checkable: exit 2
with open(os.path.join(tmp, "fp-only.json"), "w") as f:
    json.dump({"format": "zkbench-baseline-1", "limits": {"footprint_per_partition": {"value": 1, "tolerance": 0.1}}}, f)
expect_error("check a watch run against a footprint-only baseline", ["check", sd, "--baseline",
                                                                      os.path.join(tmp, "fp-only.json")],
             contains="none of its limits could be checked")
with open(os.path.join(tmp, "nolimits.json"), "w") as f:
    json.dump({"format": "zkbench-baseline-1", "limits": {}}, f)
expect_error("check a watch run against empty limits", ["check", sd, "--baseline", os.path.join(tmp, "nolimits.json")])
expect_error("write-baseline from a leaking watch run", ["check", results["linear-marks"][0], "--write-baseline",
                                                         os.path.join(tmp, "x.json")])

# ---- torn last rows (issue 16, defect 8) ----
def torn(src, name, cut):
    d = os.path.join(tmp, name)
    shutil.copytree(src, d)
    p = os.path.join(d, "samples.csv")
    with open(p) as f:
        text = f.read()
    rows = text.count("\n") - 1
    with open(p, "w") as f:
        f.write(cut(text))
    return d, rows


batch = os.path.join(tmp, "batch")
subprocess.run([sys.executable, gen_batch, "healthy", batch, "--seed", str(seed)], check=True)
for shape, src in (("watch", results["sawtooth-marks"][0]), ("batch", batch)):
    for how, cut in (("mid-row", lambda t: t[: t.rstrip("\n").rfind("\n") + 1 + 7]),
                     ("still parses", lambda t: t.rstrip("\n")),
                     ("last digit cut", lambda t: t.rstrip("\n")[:-1])):
        d, rows = torn(src, "torn-%s-%s" % (shape, how.replace(" ", "-")), cut)
        rc, out, err = run("analyze", d, "--json")
        lines = err.splitlines()
        if rc != 0 or len(lines) != 1 or not lines[0].startswith("zkbench: warning: ") or "samples.csv:%d" % (rows + 1) \
                not in lines[0] or "dropped" not in lines[0]:
            fail("torn %s (%s): exit %d, stderr %r" % (shape, how, rc, err))
            continue
        j = json.loads(out)
        if j["samples"] != rows - 1 or not any("partial last row" in n for n in j["notes"]):
            fail("torn %s (%s): %d samples of %d rows, notes %s" % (shape, how, j["samples"], rows, j["notes"]))
        for cmd in (["plot", d, "--out", os.path.join(d, "p")], ["check", d, "--write-baseline", os.path.join(d, "b.json")]):
            rc, out, err = run(*cmd)
            if rc != 0 or len(err.splitlines()) != 1 or "warning" not in err:
                fail("torn %s (%s): %s: exit %d, stderr %r" % (shape, how, cmd[0], rc, err))

# ---- degenerate runs (issue 16, defect 9): a plot or one clear message ----
def batch_rows(name, keep, equal=False):
    d = os.path.join(tmp, name)
    shutil.copytree(batch, d)
    p = os.path.join(d, "samples.csv")
    with open(p) as f:
        lines = f.read().split("\n")
    rows = lines[1: 1 + keep]
    if equal:
        rows = [",".join(["1000.000"] + r.split(",")[1:]) for r in rows]
    with open(p, "w") as f:
        f.write("\n".join([lines[0]] + rows) + "\n")
    return d


degenerate = {
    "batch-0": (batch_rows("deg-batch-0", 0), False),
    "batch-1": (batch_rows("deg-batch-1", 1), True),
    "batch-equal": (batch_rows("deg-batch-eq", 40, equal=True), True),
    "watch-0": (make("deg-watch-0", "sites", "--samples", "0")[0], False),
    "watch-1": (make("deg-watch-1", "sawtooth", "--samples", "1")[0], True),
    "watch-equal": (make("deg-watch-eq", "sites", "--marks", "--equal-times")[0], True),
}
for name, (d, drawable) in degenerate.items():
    out = os.path.join(tmp, "plot-" + name)
    if drawable:
        rc, o, err = run("plot", d, "--out", out)
        if rc != 0 or err:
            fail("plot %s: exit %d, stderr %r, files %s" % (name, rc, err, figures(out)))
        else:
            check_figure("plot " + name, out, "memory")
        rc, o, err = run("analyze", d)
        if rc != 0 or err:
            fail("analyze %s: exit %d, stderr %r" % (name, rc, err))
    else:
        expect_error("plot " + name, ["plot", d, "--out", out], contains="no samples")
        if figures(out):
            fail("plot %s left files: %s" % (name, figures(out)))
        expect_error("analyze " + name, ["analyze", d], contains="no samples")

# a sweep of one pw: one point, drawn without gnuplot's empty-range warning
sw = os.path.join(tmp, "deg-sweep-1")
os.makedirs(sw)
with open(os.path.join(sw, "sweep.csv"), "w") as f:
    f.write("pw,s_per_proof,peak_rss,predicted_peak_rss,ram_bytes\n2,1.0,6000000000,5900000000,16000000000\n")
rc, o, err = run("plot", sw)
if rc != 0 or err:
    fail("plot a one-row sweep: exit %d, stderr %r" % (rc, err))
else:
    check_figure("plot a one-row sweep", sw, "sweep")

# ---- bad input of a watch run: exit 2, one line ----
good = results["sites-marks"][0]
broken = breaker(good, tmp)


def set_field(col, row, value):
    def edit(text):
        lines = text.split("\n")
        hdr = lines[0].split(",")
        f = lines[row].split(",")
        f[hdr.index(col)] = value
        lines[row] = ",".join(f)
        return "\n".join(lines)
    return edit


# missing cells (a failed NVML or cgroup read leaves its cell empty, never 0):
# the run is read, the rows with a gap left out, and said so; a column with
# a value in one row only is left out, said so
def blank_rows(col, rows):
    def edit(text):
        lines = text.split("\n")
        i = lines[0].split(",").index(col)
        for r in rows:
            f = lines[r].split(",")
            f[i] = ""
            lines[r] = ",".join(f)
        return "\n".join(lines)
    return edit


ref = analyze(good)
gap = broken("gaps", lambda d: rewrite(os.path.join(d, "samples.csv"), blank_rows("hwm", [3, 9, 10, 40])))
j = analyze(gap)
if j and ref:
    if j["verdict"] != ref["verdict"]:
        fail("missing cells changed the verdict: %s, not %s" % (j["verdict"], ref["verdict"]))
    if j["samples"] != ref["samples"] - 4:
        fail("missing cells: %d samples analysed, expected %d" % (j["samples"], ref["samples"] - 4))
    if not any("empty cells" in n and "hwm 4 of" in n and "4 rows left out" in n for n in j["notes"]):
        fail("missing cells not said: %s" % j["notes"])
j = analyze(broken("partial", lambda d: rewrite(os.path.join(d, "samples.csv"), set_field("je_allocated", 5, "7"))))
if j and not any("je_allocated" in n and "the column is left out" in n for n in j["notes"]):
    fail("a column with one value: not said to be left out: %s" % j["notes"])
expect_error("rss empty in every row",
             ["analyze", broken("norss", lambda d: rewrite(os.path.join(d, "samples.csv"),
                                                           lambda t: "\n".join(",".join("" if i == 1 and k > 0 else x
                                                                                        for i, x in enumerate(l.split(",")))
                                                                               if l else l
                                                                               for k, l in enumerate(t.split("\n")))))],
             contains="column rss is empty")
expect_error("marks.csv without t_ms", ["analyze", broken("markshdr", lambda d: rewrite(os.path.join(d, "marks.csv"),
                                                                                       lambda t: t.replace("t_ms", "time", 1)))],
             contains="marks.csv:1")
expect_error("marks.csv with a negative time", ["analyze", broken("marksneg", lambda d: rewrite(
    os.path.join(d, "marks.csv"), lambda t: t.split("\n")[0] + "\n-5,1,output,x\n" + "\n".join(t.split("\n")[1:])))],
             contains="marks.csv")
expect_error("buffers.csv short row", ["analyze", broken("bufshort", lambda d: rewrite(
    os.path.join(d, "buffers.csv"), lambda t: t.replace("\n", "\n1,2\n", 1)))], contains="buffers.csv:2")
expect_error("sites.csv unterminated quote", ["analyze", broken("sitesq", lambda d: rewrite(
    os.path.join(d, "sites.csv"), lambda t: t + '0x1,"open,f.c,1,m,0x1,1,1,0,0,0\n'))], contains="sites.csv")
# a batch run keeps the batch rules: a missing or all-empty heap column is an error
def drop_column(col):
    def edit(text):
        lines = text.split("\n")
        i = lines[0].split(",").index(col)
        return "\n".join(",".join(x for k, x in enumerate(l.split(",")) if k != i) if l else l for l in lines)
    return edit


bb = os.path.join(tmp, "bad-batch-nocol")
shutil.copytree(batch, bb)
rewrite(os.path.join(bb, "samples.csv"), drop_column("je_allocated"))
expect_error("batch run without je_allocated", ["analyze", bb], contains="'je_allocated'")
be = os.path.join(tmp, "bad-batch-emptycol")
shutil.copytree(batch, be)
rewrite(os.path.join(be, "samples.csv"), lambda t: "\n".join(
    ",".join("" if k == t.split("\n")[0].split(",").index("je_allocated") and n > 0 else x
             for k, x in enumerate(l.split(","))) if l else l for n, l in enumerate(t.split("\n"))))
expect_error("batch run with je_allocated empty", ["analyze", be], contains="samples.csv:2: column je_allocated is empty")
# a batch run's GPU read that failed at a few ticks: read, said
bg = os.path.join(tmp, "batch-gpu-gaps")
shutil.copytree(batch, bg)
rewrite(os.path.join(bg, "samples.csv"), blank_rows("gpu_used", [2, 7]))
j = analyze(bg)
if j and not any("gpu_used 2 of" in n for n in j["notes"]):
    fail("a batch run's missing gpu_used cells not said: %s" % j["notes"])

if fails:
    print("%d failures (seed %d; rerun: test_watch.py ZKBENCH GEN_WATCH GEN_RUN %d; files kept in %s)" % (
        len(fails), seed, seed, tmp), file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp)
print("watch runs: analyze/plot/check all checks passed (seed %d)" % seed)
