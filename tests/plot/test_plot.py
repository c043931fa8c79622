#!/usr/bin/env python3
"""zkbench plot: figures from anywhere, and figures that answer at a glance.

    test_plot.py ZKBENCH GEN_RUN_PY GEN_WATCH_PY GP_SOURCE_DIR

Runs on synthetic runs (tests/analyze/gen_run.py, gen_watch.py) and checks
the SVG text gnuplot writes (labels are <text> elements) against the runs'
own files and `zkbench analyze --json`:
- a copy of the binary outside the tree, run from /, draws (the scripts are
  embedded; no environment variable);
- memory.svg: the verdict analyze gives in the title; the RAM or memory
  limit label with the size from run.json; the baseline label with analyze's
  baseline; the leak trend only for a leak; y ticks in the unit the run's
  magnitude asks for (MiB for a run of a few MiB, never "0.005 GiB"); the
  legend in the report's layer names (L3 process .. L0 tracked, no je_*),
  every entry for something drawn (a limit off the scale is a note), the
  plot at least 80% of the width;
- the title names the run folder, never "." when plotted as ".";
- kinds.svg: one legend entry per kind with bytes, host kinds above the
  device panel and gpu_* kinds in it, distinct colours, and each kind's
  colour the same in two different runs; no device panel on a CPU run;
- buffers.svg: one legend entry per kind, byte ticks no higher than the
  live bytes buffers.csv says were held at once (rows are ranks), the
  live-bytes line and its peak, a never-freed entry whose count is
  buffers.csv's (and none when all were freed);
- sweep.svg: predicted and measured entries; no RAM label when ram_bytes
  and mem_limit are empty; a memory-limit label equal to mem_limit;
- a watch run: the verdict in the title, marks drawn;
- ZKBENCH_PLOT_DIR replaces the embedded scripts (and a folder without them
  is one clear error, exit 1).
"""
import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fmt_ref import fmt_bytes  # noqa: E402

zk_src, gen_run, gen_watch, gp_dir = sys.argv[1:5]
tmp = tempfile.mkdtemp(prefix="zkb-plot-test.")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def unit_of(v):
    return fmt_bytes(v).split()[-1]


# the binary copied outside the source and build trees, run from /
bindir = os.path.join(tmp, "bin")
os.makedirs(bindir)
zk = os.path.join(bindir, "zkbench")
shutil.copy2(zk_src, zk)
clean_env = {k: v for k, v in os.environ.items() if not k.startswith("ZKBENCH_")}


def run(*args, cwd="/", env=None):
    p = subprocess.run([zk, *args], capture_output=True, text=True, cwd=cwd, env=env or clean_env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def texts(svg_path):
    with open(svg_path) as f:
        svg = f.read()
    return [html.unescape(re.sub(r"<[^>]+>", "", t)).strip() for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]


def legend_colours(svg_path, names):
    """The fill colour drawn right after each legend text."""
    with open(svg_path) as f:
        svg = f.read()
    out = {}
    for n in names:
        m = re.search(r"<text>%s</text>.*?fill\s*=\s*'rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)'" % re.escape(html.escape(n)), svg,
                      re.S)
        out[n] = tuple(int(x) for x in m.groups()) if m else None
    return out


def legend_entries(svg_path):
    """(text, drawn) for each legend entry of a one-panel figure: gnuplot's
    SVG has a group per plot element (gnuplot_plot_N) holding what it drew,
    and, the legend being opaque, a second group of that id with the entry's
    text and sample. drawn: the first group holds a path, polygon or image."""
    with open(svg_path) as f:
        svg = f.read()
    groups = []
    for m in re.finditer(r'<g id="(gnuplot_plot_\d+[a-z]*)"', svg):
        depth, i = 0, m.start()
        for t in re.finditer(r"<g\b|</g>", svg[m.start():]):
            depth += 1 if t.group(0) != "</g>" else -1
            if depth == 0:
                i = m.start() + t.end()
                break
        groups.append((m.group(1), svg[m.start():i]))
    drew, out = {}, []
    for gid, body in groups:
        txt = re.findall(r"<text>(.*?)</text>", body, re.S)
        if txt:
            out.append((html.unescape(txt[0]).strip(), gid))
        else:
            drew[gid] = drew.get(gid, False) or bool(re.search(r"<path|<polygon|<image", body))
    return [(name, drew.get(gid, False)) for name, gid in out]


def plot_width_share(svg_path):
    """The plot area's width over the figure's (the border rectangle)."""
    with open(svg_path) as f:
        svg = f.read()
    width = float(re.search(r'viewBox="0 0 (\d+)', svg).group(1))
    xs = [float(a) - float(b) for a, b in re.findall(r"d='M([\d.]+),[\d.]+ L\1,[\d.]+ L([\d.]+),[\d.]+ L\2,[\d.]+ L\1,[\d.]+ Z", svg)]
    return max(abs(x) for x in xs) / width if xs else 0


def analyze(d):
    rc, o, e = run("analyze", d, "--json")
    if rc != 0:
        fail("analyze %s: exit %d %s" % (d, rc, e))
        return {}
    return json.loads(o)


def plot(d, out, what, **kw):
    rc, o, e = run("plot", d, "--out", out, **kw)
    if rc != 0 or e:
        fail("%s: plot exit %d, stderr %r" % (what, rc, e))
        return False
    return True


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def y_tick_units(t):
    return {m.group(1) for s in t for m in [re.fullmatch(r"-?[0-9.]+(?:e[-+]?[0-9]+)? (B|KiB|MiB|GiB|TiB)", s)] if m}


def gen(script, scenario, out, *extra):
    subprocess.run([sys.executable, script, scenario, out, *extra], check=True, stdout=subprocess.DEVNULL)


# ---- runs ----
leak = os.path.join(tmp, "leak-run")
healthy = os.path.join(tmp, "healthy-run")
gen(gen_run, "leak", leak, "--seed", "3")
gen(gen_run, "healthy", healthy, "--seed", "4")

# ---- from anywhere: the copied binary, from /, no environment ----
out = os.path.join(tmp, "p-leak")
if plot(leak, out, "copied binary from /"):
    for fig in ("memory", "kinds", "buffers"):
        for ext in ("png", "svg"):
            p = os.path.join(out, fig + "." + ext)
            if not os.path.exists(p) or os.path.getsize(p) < 1000:
                fail("copied binary from /: %s missing or tiny" % p)

# ---- memory: verdict, limit, baseline, trend ----
j = analyze(leak)
t = texts(os.path.join(out, "memory.svg"))
if j.get("verdict") != "leak":
    fail("the planted leak run is %r to analyze" % j.get("verdict"))
if not any(s.startswith("verdict: %s" % j.get("verdict")) for s in t):
    fail("memory.svg: no title line 'verdict: %s': %s" % (j.get("verdict"), t[:5]))
if not any(s.startswith("leak-run: memory") for s in t):
    fail("memory.svg: the title does not name the run")
ram = json.load(open(os.path.join(leak, "run.json")))["machine"]["ram_bytes"]
if not any(s.startswith("RAM %s" % fmt_bytes(ram)) for s in t):
    fail("memory.svg: no 'RAM %s' label (run.json machine.ram_bytes): %s" % (fmt_bytes(ram), t))
if not any(s.startswith("baseline %s" % fmt_bytes(j["baseline_rss"])) for s in t):
    fail("memory.svg: no baseline label 'baseline %s' (analyze's baseline_rss)" % fmt_bytes(j["baseline_rss"]))
trend = [s for s in t if s.startswith("leak trend +")]
if not trend or fmt_bytes(j["leak_bytes_per_proof"]) not in trend[0]:
    fail("memory.svg: leak trend label %r, expected +%s per proof" % (trend, fmt_bytes(j["leak_bytes_per_proof"])))
peak = max(int(r["rss"]) for r in rows(os.path.join(leak, "samples.csv")))
units = y_tick_units(t)
if units != {unit_of(peak)}:
    fail("memory.svg: y tick units %s, expected %s for a peak of %s" % (units, unit_of(peak), fmt_bytes(peak)))

out_h = os.path.join(tmp, "p-healthy")
if plot(healthy, out_h, "healthy"):
    jh = analyze(healthy)
    th = texts(os.path.join(out_h, "memory.svg"))
    if not any(s.startswith("verdict: %s" % jh.get("verdict")) for s in th):
        fail("healthy memory.svg: no 'verdict: %s' title line" % jh.get("verdict"))
    if any(s.startswith("leak trend") for s in th):
        fail("healthy memory.svg: a leak trend on a run without a leak")
    # issue 28: the legend names the report's layers and lists only what is
    # drawn (RAM at 128 GiB is off this run's scale: a note, no entry), and
    # it leaves the plot most of the width
    entries = legend_entries(os.path.join(out_h, "memory.svg"))
    names = [n for n, _ in entries]
    for n, drawn in entries:
        if not drawn:
            fail("healthy memory.svg: legend entry %r for nothing drawn" % n)
    for want in ("L3 process: RSS", "L2 allocator: resident", "L1 heap: allocated", "L0 tracked buffers"):
        if want not in names:
            fail("healthy memory.svg: no legend entry %r (the report's layer names): %s" % (want, names))
    if any("je_" in n for n in names):
        fail("healthy memory.svg: jemalloc's names in the legend: %s" % names)
    if not any(s.startswith("RAM ") and "off the scale" in s for s in th):
        fail("healthy memory.svg: no note that RAM is off the scale: %s" % th)
    share = plot_width_share(os.path.join(out_h, "memory.svg"))
    if share < 0.8:
        fail("healthy memory.svg: the plot takes %.0f%% of the width (the legend the rest)" % (100 * share))

# ---- a small run with a memory limit: MiB ticks, the limit from run.json ----
small = os.path.join(tmp, "small")
shutil.copytree(healthy, small)
scale = 1024  # GiB-scale synthetic run -> MiB scale
for name in ("samples.csv", "buffers.csv"):
    p = os.path.join(small, name)
    rs = rows(p)
    with open(p) as f:
        header = f.readline().strip().split(",")
    bytecols = [c for c in header if c in ("bytes", "rss", "rss_anon", "rss_file", "hwm", "gpu_used") or c.startswith(("je_", "live_"))]
    with open(p, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rs:
            f.write(",".join(str(int(r[c]) // scale) if c in bytecols and r[c] != "" else r[c] for c in header) + "\n")
rj = json.load(open(os.path.join(small, "run.json")))
for k in ("baseline", "summary"):
    rj.pop(k, None)
limit = 16 * (1 << 20) + 12345  # above the peak (11 MiB), on the scale
rj["mem_limit"] = limit
json.dump(rj, open(os.path.join(small, "run.json"), "w"))
out_s = os.path.join(tmp, "p-small")
if plot(small, out_s, "small run"):
    ts = texts(os.path.join(out_s, "memory.svg"))
    speak = max(int(r["rss"]) for r in rows(os.path.join(small, "samples.csv")))
    if unit_of(speak) != "MiB":
        fail("the scaled run peaks at %s, not MiB-sized" % fmt_bytes(speak))
    units = y_tick_units(ts)
    if units != {"MiB"}:
        fail("small run memory.svg: y tick units %s, expected MiB only: %s" % (units, ts))
    if "memory limit %s" % fmt_bytes(limit) not in ts:
        fail("small run memory.svg: no 'memory limit %s' label (run.json mem_limit): %s" % (fmt_bytes(limit), ts))
    if any(s.startswith("RAM ") for s in ts):
        fail("small run memory.svg: a RAM label beside the memory limit")
    if y_tick_units(texts(os.path.join(out_s, "buffers.svg"))) - {"KiB", "MiB"}:
        fail("small run buffers.svg: tick units %s" % y_tick_units(texts(os.path.join(out_s, "buffers.svg"))))

# no RAM and no limit recorded: no such label
rj.pop("mem_limit")
rj["machine"].pop("ram_bytes", None)
json.dump(rj, open(os.path.join(small, "run.json"), "w"))
if plot(small, out_s, "small run without RAM"):
    ts = texts(os.path.join(out_s, "memory.svg"))
    if any(s.startswith(("RAM", "memory limit")) for s in ts):
        fail("memory.svg without a known RAM: %s" % [s for s in ts if s.startswith(("RAM", "memory limit"))])

# ---- the title of a run plotted as "." ----
rc, o, e = run("plot", ".", cwd=healthy)
if rc != 0:
    fail("plot . : exit %d %s" % (rc, e))
else:
    td = texts(os.path.join(healthy, "memory.svg"))
    if any(s.startswith(".:") or s.startswith("./") for s in td) or not any(s.startswith("healthy-run: memory") for s in td):
        fail("plot . : the title does not name the folder: %s" % td[:3])

# ---- kinds: legend, panels, fixed and distinct colours ----
# a run with fewer kinds: a colour given by position would shift
def edited_copy(src, name, edit):
    """A copy of run src whose samples.csv rows went through edit(row)."""
    d = os.path.join(tmp, name)
    shutil.copytree(src, d)
    p = os.path.join(d, "samples.csv")
    rs = rows(p)
    with open(p, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rs[0].keys()), lineterminator="\n")
        w.writeheader()
        for r in rs:
            edit(r)
            w.writerow(r)
    return d


fewer = edited_copy(healthy, "fewer-kinds", lambda r: r.update(live_params="0", live_circuit="0"))
out_f = os.path.join(tmp, "p-fewer")
plot(fewer, out_f, "fewer kinds")
# a CPU run: no gpu_* bytes, so no device panel (issue 28: it was half the
# figure, empty)
cpu = edited_copy(healthy, "cpu-run",
                  lambda r: r.update({k: "0" for k in r if k.startswith("live_gpu_") or k == "gpu_used"}))
out_c = os.path.join(tmp, "p-cpu")
if plot(cpu, out_c, "cpu run"):
    tc = texts(os.path.join(out_c, "kinds.svg"))
    if any(x.startswith("device memory") or "no device" in x for x in tc):
        fail("kinds.svg of a CPU run: a device panel: %s" % [x for x in tc if "device" in x])
    if not any(x.startswith("host memory") for x in tc):
        fail("kinds.svg of a CPU run: no host panel: %s" % tc[:5])
colours = {}
for d, o in ((leak, out), (healthy, out_h), (fewer, out_f), (cpu, out_c)):
    svg = os.path.join(o, "kinds.svg")
    tk = texts(svg)
    s = rows(os.path.join(d, "samples.csv"))
    kinds = [c[5:] for c in s[0] if c.startswith("live_") and any(int(r[c] or 0) > 0 for r in s)]
    host = [k for k in kinds if not k.startswith("gpu_")]
    dev = [k for k in kinds if k.startswith("gpu_")]
    if sorted(k for k in tk if k in kinds) != sorted(kinds):
        fail("kinds.svg %s: legend %s, expected the kinds with bytes %s" % (d, [k for k in tk if k in kinds], kinds))
        continue
    # gnuplot writes each panel's title after the panel: host kinds come
    # before the host panel's title, device kinds between the two titles
    hp = next((i for i, x in enumerate(tk) if x.startswith("host memory")), None)
    dp = next((i for i, x in enumerate(tk) if x.startswith("device memory")), None)
    if hp is None or (dev and dp is None) or any(tk.index(k) > hp for k in host) or \
            any(not hp < tk.index(k) < dp for k in dev):
        fail("kinds.svg %s: host kinds %s and device kinds %s are not on separate panels" % (d, host, dev))
    col = legend_colours(svg, kinds)
    if None in col.values() or len(set(col.values())) != len(col):
        fail("kinds.svg %s: colours missing or shared: %s" % (d, col))
    for k, c in col.items():
        if k in colours and colours[k] != c:
            fail("kinds.svg: kind %s is %s in one run and %s in another" % (k, colours[k], c))
        colours[k] = c
if len(colours) < 5 or colours.get("circuit") == colours.get("msm"):
    fail("kinds.svg: too few kinds compared, or circuit and msm alike: %s" % colours)

# ---- buffers: legend, ticks, never freed ----
for d, o in ((leak, out), (healthy, out_h)):
    tb = texts(os.path.join(o, "buffers.svg"))
    b = rows(os.path.join(d, "buffers.csv"))
    kinds = sorted({r["kind"] for r in b})
    if sorted(k for k in tb if k in kinds) != kinds:
        fail("buffers.svg %s: legend %s, expected %s" % (d, [k for k in tb if k in kinds], kinds))
    if not y_tick_units(tb):
        fail("buffers.svg %s: no byte tick labels" % d)
    # issue 28: the bytes on the axis are live bytes, never more than the
    # buffers held at once (computed here from buffers.csv), and the rows
    # are ranks; every legend entry draws something
    ev = sorted([(float(r["t_alloc_ms"]), int(r["bytes"])) for r in b] +
                [(float(r["t_free_ms"]), -int(r["bytes"])) for r in b if r["t_free_ms"] != ""])
    live = peak_live = 0
    for _, dlt in ev:
        live += dlt
        peak_live = max(peak_live, live)
    scale = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
    ticks = [float(x.split()[0]) * scale[x.split()[1]] for x in tb
             if re.fullmatch(r"[0-9.]+ (B|KiB|MiB|GiB|TiB)", x)]
    if ticks and max(ticks) > 1.25 * peak_live:
        fail("buffers.svg %s: byte ticks up to %s, the buffers held at most %s at once" %
             (d, fmt_bytes(max(ticks)), fmt_bytes(peak_live)))
    if "live bytes (right axis)" not in tb or ("at most %s live at once" % fmt_bytes(peak_live)) not in " ".join(tb):
        fail("buffers.svg %s: no live-bytes line or peak %s in the title" % (d, fmt_bytes(peak_live)))
    for n, drawn in legend_entries(os.path.join(o, "buffers.svg")):
        if not drawn and n != "live bytes (right axis)" and n not in kinds and not n.startswith("never freed"):
            fail("buffers.svg %s: legend entry %r for nothing drawn" % (d, n))
    nf = [r for r in b if r["t_free_ms"] == ""]
    entry = [s for s in tb if s.startswith("never freed")]
    want = "never freed (hatched, to the end): %d, %s" % (len(nf), fmt_bytes(sum(int(r["bytes"]) for r in nf)))
    if nf and entry != [want]:
        fail("buffers.svg %s: never-freed entry %s, expected %r" % (d, entry, want))
freed = os.path.join(tmp, "all-freed")
shutil.copytree(healthy, freed)
p = os.path.join(freed, "buffers.csv")
b = rows(p)
end = max(float(r["t_alloc_ms"]) for r in b) + 1
with open(p, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(b[0].keys()), lineterminator="\n")
    w.writeheader()
    for r in b:
        r["t_free_ms"] = r["t_free_ms"] or "%.3f" % end
        w.writerow(r)
if plot(freed, os.path.join(tmp, "p-freed"), "all freed"):
    if any(s.startswith("never freed") for s in texts(os.path.join(tmp, "p-freed", "buffers.svg"))):
        fail("buffers.svg: a never-freed entry where every buffer was freed")

# ---- sweep ----
sw = os.path.join(tmp, "sweep")
os.makedirs(sw)
head = "pw,concurrency,s_per_proof,peak_rss,predicted_peak_rss,footprint_per_partition,ram_bytes,predicted_low,predicted_high,mem_limit,outcome\n"
MIB = 1 << 20
with open(os.path.join(sw, "sweep.csv"), "w") as f:
    f.write(head)
    f.write("1,2,1.5,%d,%d,%d,,%d,%d,,complete\n" % (30 * MIB, 31 * MIB, 5 * MIB, 29 * MIB, 33 * MIB))
    f.write("2,2,1.2,%d,%d,%d,,%d,%d,,complete\n" % (36 * MIB, 36 * MIB, 5 * MIB, 34 * MIB, 38 * MIB))
    f.write("2,2,1.2,%d,%d,%d,,%d,%d,,complete\n" % (37 * MIB, 36 * MIB, 5 * MIB, 34 * MIB, 38 * MIB))
rc, o, e = run("plot", sw)
if rc != 0 or e:
    fail("plot sweep: exit %d %r" % (rc, e))
else:
    ts = texts(os.path.join(sw, "sweep.svg"))
    for label in ("predicted peak (95% interval)", "measured peak (completed)", "measured peak: range of repeated runs"):
        if label not in ts:
            fail("sweep.svg: no %r entry: %s" % (label, ts))
    if any(s.startswith(("RAM", "memory limit")) for s in ts):
        fail("sweep.svg without RAM: %s" % [s for s in ts if s.startswith(("RAM", "memory limit"))])
    if y_tick_units(ts) != {"MiB"}:
        fail("sweep.svg: tick units %s, expected MiB" % y_tick_units(ts))
cap = 40 * MIB
with open(os.path.join(sw, "sweep.csv"), "w") as f:
    f.write(head)
    f.write("1,2,1.5,%d,%d,%d,,%d,%d,%d,complete\n" % (30 * MIB, 31 * MIB, 5 * MIB, 29 * MIB, 33 * MIB, cap))
    f.write("3,2,,%d,%d,%d,,%d,%d,%d,oom-killed\n" % (40 * MIB, 41 * MIB, 5 * MIB, 39 * MIB, 43 * MIB, cap))
rc, o, e = run("plot", sw)
if rc != 0 or e:
    fail("plot sweep with a limit: exit %d %r" % (rc, e))
else:
    ts = texts(os.path.join(sw, "sweep.svg"))
    if "memory limit %s" % fmt_bytes(cap) not in ts or "OOM-killed (peak reached)" not in ts:
        fail("sweep.svg: no 'memory limit %s' or OOM-killed entry: %s" % (fmt_bytes(cap), ts))

# under a cap with the anonymous peaks (a sweep's newer columns): those are
# drawn, since the cgroup reclaims file pages and RSS may pass the cap; the
# file without them above still draws peak RSS
with open(os.path.join(sw, "sweep.csv"), "w") as f:
    f.write(head.replace("mem_limit,outcome", "mem_limit,peak_anon,predicted_peak_anon,outcome"))
    f.write("1,1,1.5,%d,%d,%d,,%d,%d,%d,%d,%d,complete\n" % (50 * MIB, 51 * MIB, 5 * MIB, 49 * MIB, 53 * MIB, cap,
                                                           20 * MIB, 21 * MIB))
    f.write("4,1,1.9,%d,%d,%d,,%d,%d,%d,%d,%d,complete\n" % (55 * MIB, 66 * MIB, 5 * MIB, 64 * MIB, 68 * MIB, cap,
                                                           35 * MIB, 36 * MIB))
    f.write("5,1,,%d,%d,%d,,%d,%d,%d,%d,%d,oom-killed\n" % (56 * MIB, 71 * MIB, 5 * MIB, 69 * MIB, 73 * MIB, cap,
                                                            39 * MIB, 41 * MIB))
with open(os.path.join(sw, "sweep-model.csv"), "w") as f:
    f.write("pw,predicted_peak_rss,predicted_low,predicted_high\n")
    for w in range(1, 7):
        f.write("%d,%d,%d,%d\n" % (w, (46 + 5 * w) * MIB, (44 + 5 * w) * MIB, (48 + 5 * w) * MIB))
rc, o, e = run("plot", sw)
if rc != 0 or e:
    fail("plot sweep with anonymous peaks: exit %d %r" % (rc, e))
else:
    ts = texts(os.path.join(sw, "sweep.svg"))
    if not any("anonymous peak (what the cgroup charges) against pw" in t for t in ts) or \
            "peak anonymous memory (rss_anon)" not in ts:
        fail("sweep.svg under a cap: not drawn as anonymous peaks: %s" % ts)
    # one unit: the anonymous figures and the limit (40 MiB) set the scale
    if y_tick_units(ts) != {"MiB"}:
        fail("sweep.svg (anonymous): tick units %s" % y_tick_units(ts))
# sweep --verify at the fitted pw: the same pw twice with equal anonymous
# peaks (a pw 1 fit, then pw 1 again under the cap) has no range to draw
with open(os.path.join(sw, "sweep.csv"), "w") as f:
    f.write(head.replace("mem_limit,outcome", "mem_limit,peak_anon,predicted_peak_anon,outcome"))
    for pk in (79 * MIB, 79 * MIB + 65536):
        f.write("1,2,3.4,%d,%d,%d,,%d,%d,%d,%d,%d,complete\n" % (pk, 80 * MIB, -2 * MIB, 75 * MIB, 86 * MIB, cap,
                                                               51 * MIB, 52 * MIB))
    f.write("2,2,,%d,%d,%d,,%d,%d,%d,%d,%d,oom-killed\n" % (87 * MIB, 98 * MIB, 7 * MIB, 91 * MIB, 105 * MIB, cap,
                                                            59 * MIB, 70 * MIB))
rc, o, e = run("plot", sw)
if rc != 0 or e:
    fail("plot sweep with a pw run twice at equal peaks: exit %d %r" % (rc, e))
os.remove(os.path.join(sw, "sweep-model.csv"))

# ---- a watch run ----
wd = os.path.join(tmp, "watch-run")
gen(gen_watch, "sites", wd, "--marks")
wo = os.path.join(tmp, "p-watch")
if plot(wd, wo, "watch run"):
    jw = analyze(wd)
    tw = texts(os.path.join(wo, "memory.svg"))
    if not any(s.startswith("verdict: %s" % jw.get("verdict")) for s in tw):
        fail("watch memory.svg: no 'verdict: %s' title line: %s" % (jw.get("verdict"), tw[:4]))
    if "mark" not in tw or not any(s.startswith("baseline ") for s in tw):
        fail("watch memory.svg: no marks or baseline: %s" % tw)
    if jw.get("verdict") == "leak" and not any(s.startswith("leak trend +") for s in tw):
        fail("watch memory.svg: a leak without its trend line")

# ---- ZKBENCH_PLOT_DIR: the scripts of a folder replace the embedded ones ----
dev = os.path.join(tmp, "gp")
shutil.copytree(gp_dir, dev)
with open(os.path.join(dev, "memory.gp")) as f:
    text = f.read()
with open(os.path.join(dev, "memory.gp"), "w") as f:
    f.write(text.replace('set title title1."\\n".title2', 'set title "edited script"'))
if plot(healthy, os.path.join(tmp, "p-dev"), "ZKBENCH_PLOT_DIR", env=dict(clean_env, ZKBENCH_PLOT_DIR=dev)):
    if "edited script" not in texts(os.path.join(tmp, "p-dev", "memory.svg")):
        fail("ZKBENCH_PLOT_DIR: the folder's memory.gp was not used")
os.makedirs(os.path.join(tmp, "empty"))
rc, o, e = run("plot", healthy, "--out", os.path.join(tmp, "p-empty"), env=dict(clean_env, ZKBENCH_PLOT_DIR=os.path.join(tmp, "empty")))
if rc == 0 or "ZKBENCH_PLOT_DIR" not in e or e.count("\n") != 1:
    fail("ZKBENCH_PLOT_DIR without scripts: exit %d, stderr %r" % (rc, e))
if os.path.exists(os.path.join(tmp, "p-empty")) and os.listdir(os.path.join(tmp, "p-empty")):
    fail("ZKBENCH_PLOT_DIR without scripts left files: %s" % os.listdir(os.path.join(tmp, "p-empty")))

if failures:
    print("%d failure(s); files kept in %s" % (len(failures), tmp), file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp)
print("plot: all checks passed")
