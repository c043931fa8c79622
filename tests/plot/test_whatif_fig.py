#!/usr/bin/env python3
"""The what-if figure and the report's what-if section (issue 29 item 5).

    test_whatif_fig.py ZKBENCH GEN_RUN_PY GEN_WATCH_PY GPU_RUN_DIR

Reads what gnuplot drew (whatif.svg: labels are <text> elements placed by
translate(x,y), bars are polygons) and the report's HTML, and compares them
with `zkbench analyze --json`'s what_if[] read here, not with zkbench's
own formatting (sizes through tests/fmt_ref.py):
- a capacity run (a synthetic one against --ram, so the verdict is
  capacity): analyze's entries are ranked by the pw gained, then the peak
  saved (computed here from largest_pw, largest_pw_now and their "any"
  flags); the figure's bars run top to bottom in that order, each labelled
  "RANK. CHANGE", each bar's length on the x axis the entry's
  peak_saved_bytes (within a pixel), the text beside it "saves SIZE; pw A
  -> B" and the switch under it; a legend entry for the switches and none
  for model results (none is drawn);
- the GPU run of results/h200 has a model-only entry: its label says so,
  its bar is hatched (a pattern fill, not the solid colour), and the legend
  names both kinds of bar;
- the report: a what-if section after capacity with the figure inline and
  one table row per entry with the same rank, change, switch, predicted
  peak, peak saved, largest pw and "cannot be given" for s/proof; a model
  result marked;
- no entries (a watch run; a batch run without stages rows, which has no
  capacity model): no whatif figure, and the report's section is one line
  with analyze's what_if_why;
- plot and report take analyze's --ram (the figure's title shows that
  limit), and refuse bad values with one line, exit 2, nothing written.
"""
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

zk, gen_run, gen_watch, gpu_run = sys.argv[1:5]
tmp = tempfile.mkdtemp(prefix="zkb-whatif-fig.")
env = {k: v for k, v in os.environ.items() if not k.startswith("ZKBENCH_")}
failures = []
ARROW = "\u2192"
SOLID = "rgb( 31, 119, 180)"


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def run(*args):
    p = subprocess.run([zk, *args], capture_output=True, text=True, env=env, timeout=180)
    return p.returncode, p.stdout, p.stderr


def analyze(d, *opts):
    rc, o, e = run("analyze", "--json", "--no-save", *opts, d)
    if rc != 0:
        fail("analyze %s: exit %d %s" % (d, rc, e))
        return {}
    return json.loads(o)


def pw_text(e):
    if e["largest_pw"] is None or e["largest_pw_now"] is None:
        return "no limit to fit a pw to"
    a = "any" if e["largest_pw_now_any"] else str(e["largest_pw_now"])
    b = "any" if e["largest_pw_any"] else str(e["largest_pw"])
    return "pw %s %s %s" % (a, ARROW, b)


def gain(e):
    """The pw an entry gains, as a sortable number (any pw: above every count)."""
    if e["largest_pw"] is None:
        return 0
    big = 1 << 20
    to = big if e["largest_pw_any"] else e["largest_pw"]
    now = big if e["largest_pw_now_any"] else e["largest_pw_now"]
    return to - now


def svg_of(path):
    with open(path) as f:
        return f.read()


def placed_texts(svg):
    """(x, y, anchor, text) of every label."""
    out = []
    for m in re.finditer(r'<g transform="translate\(([\d.]+),([\d.]+)\)"[^>]*text-anchor="(\w+)">\s*<text>(.*?)</text>',
                         svg, re.S):
        out.append((float(m.group(1)), float(m.group(2)), m.group(3), html.unescape(m.group(4)).strip()))
    return out


def bars(svg, plot_bottom):
    """(y centre, x0, x1, hatched) of each bar inside the plot area."""
    out = []
    for m in re.finditer(r"<polygon\s+fill\s*=\s*'([^']+)'[^>]*points = '([^']+)'", svg):
        pts = [tuple(float(v) for v in p.split(",")) for p in m.group(2).split()]
        if len(pts) != 4:
            continue
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        yc = (min(ys) + max(ys)) / 2
        if yc >= plot_bottom:
            continue  # the legend's samples
        fill = m.group(1)
        if fill != SOLID and not fill.startswith("url(#gpPat"):
            continue
        out.append((yc, min(xs), max(xs), fill.startswith("url(")))
    return out


def check_figure(svg_path, j, what):
    if not os.path.exists(svg_path):
        fail("%s: no whatif.svg" % what)
        return
    svg = svg_of(svg_path)
    t = placed_texts(svg)
    entries = j["what_if"]
    # the ranked labels on the left axis, top to bottom
    labels = sorted((y, s) for x, y, a, s in t if a == "end" and re.match(r"\d+\. ", s))
    want = ["%d. %s%s" % (i + 1, e["change"], "" if e["checkable"] else " (model result only)")
            for i, e in enumerate(entries)]
    if [s for _, s in labels] != want:
        fail("%s: bar labels top to bottom %s, expected analyze's order %s" % (what, [s for _, s in labels], want))
        return
    # the x axis: pixels per unit from its tick labels ("2 MiB")
    ticks = [(x, float(m.group(1)), m.group(2)) for x, y, a, s in t if a == "middle"
             for m in [re.fullmatch(r"(-?[\d.]+) (B|KiB|MiB|GiB|TiB)", s)] if m]
    units = {u for _, _, u in ticks}
    if len(ticks) < 2 or len(units) != 1:
        fail("%s: x ticks %s: expected one byte unit" % (what, ticks))
        return
    mul = 1024 ** ["B", "KiB", "MiB", "GiB", "TiB"].index(units.pop())
    (xa, va, _), (xb, vb, _) = ticks[0], ticks[-1]
    px_per_byte = (xb - xa) / ((vb - va) * mul)
    x0 = xa - va * mul * px_per_byte
    # the plot area ends above the x tick labels; the legend's samples lie below
    bottom = min(y for x, y, a, s in t if a == "middle" and re.fullmatch(r"-?[\d.]+ (B|KiB|MiB|GiB|TiB)", s)) - 10
    drawn = bars(svg, bottom)
    for (ly, s), e in zip(labels, entries):
        # the bar whose centre is nearest to the label's line
        near = [b for b in drawn if abs(b[0] - (ly - 3.6)) < 12]
        saved = e["peak_saved_bytes"]
        if saved * px_per_byte < 0.5:
            if near and near[0][2] - near[0][1] > 1:
                fail("%s: %r saves %s but its bar is %.1f px long" % (what, s, fmt_bytes(saved), near[0][2] - near[0][1]))
        elif len(near) != 1:
            fail("%s: %r: %d bars at its row, expected one" % (what, s, len(near)))
            continue
        else:
            yc, b0, b1, hatched = near[0]
            if abs(b0 - x0) > 1.0 or abs((b1 - b0) - saved * px_per_byte) > 1.0:
                fail("%s: %r: bar from %.1f to %.1f px, expected %.1f px long from %.1f (peak saved %s)"
                     % (what, s, b0, b1, saved * px_per_byte, x0, fmt_bytes(saved)))
            if hatched == e["checkable"]:
                fail("%s: %r is %s but its bar is %s" % (what, s, "checkable" if e["checkable"] else "a model result only",
                                                         "hatched" if hatched else "solid"))
    # beside each bar: the peak saved and the pw, then the switch, in rank order
    beside = [s for _, s in sorted((y, s) for x, y, a, s in t if a == "start" and s.startswith(("saves ", "adds ")))]
    want = ["%s %s; %s" % ("adds" if e["peak_saved_bytes"] < 0 else "saves", fmt_bytes(abs(e["peak_saved_bytes"])),
                           pw_text(e)) for e in entries]
    if beside != want:
        fail("%s: texts beside the bars %s, expected %s" % (what, beside, want))
    texts = {s for _, _, _, s in t}
    for e in entries:
        if e["made_by"] not in texts:
            fail("%s: %r: its switch %r is not beside its bar" % (what, e["change"], e["made_by"]))
    has_model = any(not e["checkable"] for e in entries)
    model_label = "model result only: the prover cannot make the change"
    if (model_label in texts) != has_model:
        fail("%s: the legend %s the model-only entry, with %s model-only bar" % (
            what, "has" if model_label in texts else "lacks", "a" if has_model else "no"))
    if ("a switch of zkbench batch makes the change (named beside its bar)" in texts) != any(e["checkable"] for e in entries):
        fail("%s: the legend's entry for the switches does not follow the bars drawn" % what)
    return texts


def report_rows(page):
    i = page.find('<table id="what-if-table">')
    if i < 0:
        return None
    table = page[i:page.index("</table>", i)]
    rows = []
    for tr in re.findall(r"<tr class=\"(made|model-only)\">(.*?)</tr>", table, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr[1], re.S)]
        rows.append((tr[0], cells))
    return rows


def check_report(page, j, what):
    cap, wi, more = page.find('<h2 id="capacity">'), page.find('<h2 id="what-if">'), page.find('<h2 id="more-plots">')
    if not (0 <= cap < wi) or (more >= 0 and not wi < more):
        fail("%s: the what-if section is not after capacity and before the buffer plots (%d, %d, %d)" % (what, cap, wi, more))
    sec = page[wi:more if more > wi else len(page)]
    if '<figure id="plot-whatif">' not in sec or "<svg" not in sec:
        fail("%s: no whatif figure inline in the what-if section" % what)
    rows = report_rows(page)
    if rows is None:
        fail("%s: no what-if table" % what)
        return
    if len(rows) != len(j["what_if"]):
        fail("%s: %d table rows, %d entries" % (what, len(rows), len(j["what_if"])))
    for k, (e, (cls, cells)) in enumerate(zip(j["what_if"], rows)):
        change = e["change"] + ("" if e["checkable"] else " model result only")
        want = [str(k + 1), change, e["made_by"], fmt_bytes(e["peak_bytes"]),
                ("adds " if e["peak_saved_bytes"] < 0 else "") + fmt_bytes(abs(e["peak_saved_bytes"])), pw_text(e)]
        if cells[:6] != want:
            fail("%s: table row %d %s, expected %s" % (what, k + 1, cells[:6], want))
        if e["s_per_proof"] is None and not cells[6].startswith("cannot be given"):
            fail("%s: row %d s/proof %r, expected 'cannot be given'" % (what, k + 1, cells[6]))
        if (cls == "model-only") == e["checkable"]:
            fail("%s: row %d is marked %s" % (what, k + 1, cls))


def check_none(d, j, what, why):
    out = os.path.join(tmp, "fig-" + what)
    rc, o, e = run("plot", d, "--out", out)
    if rc != 0:
        fail("%s: plot exit %d %s" % (what, rc, e))
    if os.path.exists(os.path.join(out, "whatif.png")) or os.path.exists(os.path.join(out, "whatif.svg")):
        fail("%s: a whatif figure for a run without entries" % what)
    if "whatif" in o.split(" into ")[0].split():
        fail("%s: plot says it drew whatif: %s" % (what, o))
    page_path = os.path.join(tmp, what + ".html")
    rc, o, e = run("report", d, "-o", page_path)
    if rc != 0:
        fail("%s: report exit %d %s" % (what, rc, e))
        return
    page = open(page_path).read()
    wi = page.find('<h2 id="what-if">')
    if wi < 0:
        fail("%s: no what-if section" % what)
        return
    sec = page[wi:page.index("<h2", wi + 5)]
    body = re.sub(r"<h2[^>]*>.*?</h2>\s*", "", sec, flags=re.S).strip()
    paras = re.findall(r"<p[^>]*>(.*?)</p>", body, re.S)
    if len(paras) != 1 or "<figure" in body or "<table" in body or "<svg" in body:
        fail("%s: the section is not one line: %r" % (what, body[:300]))
        return
    line = html.unescape(paras[0])
    if why not in line:
        fail("%s: the line %r does not give the reason %r" % (what, line, why))


# ---- a capacity run: figure and report against analyze's entries ----
cap = os.path.join(tmp, "cap")
subprocess.run([sys.executable, gen_run, "capacity", cap, "--seed", "5"], check=True, stdout=subprocess.DEVNULL)
j = analyze(cap, "--ram", "12G")
if j.get("verdict") != "capacity" or len(j.get("what_if", [])) < 2:
    fail("the synthetic capacity run against 12G: verdict %r with %d what-if entries (expected capacity and >= 2)"
         % (j.get("verdict"), len(j.get("what_if", []))))
else:
    keys = [(gain(e), e["peak_saved_bytes"]) for e in j["what_if"]]
    if keys != sorted(keys, reverse=True):
        fail("analyze's entries are not ranked by the pw gained, then the peak saved: %s" % keys)
    if j["what_if_line"] is None or not j["what_if_line"].startswith(j["what_if"][0]["change"] + ":"):
        fail("the capacity verdict's what-if line is not the top entry's: %r" % j.get("what_if_line"))
    out = os.path.join(tmp, "fig-cap")
    rc, o, e = run("plot", cap, "--ram", "12G", "--out", out)
    if rc != 0 or e:
        fail("plot --ram 12G: exit %d %r" % (rc, e))
    texts = check_figure(os.path.join(out, "whatif.svg"), j, "capacity run") or set()
    if not any(s.startswith("predicted peak RSS") and "limit %s less 10%%" % fmt_bytes(12 << 30) in s for s in texts):
        fail("capacity run: the title does not give the --ram limit: %s" % [s for s in texts if "limit" in s])
    if not os.path.getsize(os.path.join(out, "whatif.png")) > 1000:
        fail("capacity run: whatif.png is tiny")
    page_path = os.path.join(tmp, "cap.html")
    rc, o, e = run("report", cap, "--ram", "12G", "-o", page_path)
    if rc != 0:
        fail("report --ram 12G: exit %d %s" % (rc, e))
    else:
        check_report(open(page_path).read(), j, "capacity report")
    # without --ram the run's own RAM: the report shows that analysis, not 12G's
    jd = analyze(cap)
    rc, o, e = run("report", cap, "-o", os.path.join(tmp, "cap-default.html"))
    if rc == 0:
        check_report(open(os.path.join(tmp, "cap-default.html")).read(), jd, "capacity report, default limit")

def check_now(texts, j, what):
    """The title's largest pw now agrees with the entries' (any, or the number)."""
    e = j["what_if"][0]
    want = "fits now any" if e["largest_pw_now_any"] else "fits now %d" % e["largest_pw_now"]
    if not any(s.startswith("predicted peak RSS") and want in s for s in texts):
        fail("%s: the title's largest pw now is not the entries' (%r): %s"
             % (what, want, [s for s in texts if "fits now" in s]))


if j.get("verdict") == "capacity" and j.get("what_if"):
    check_now(texts, j, "capacity run")

# ---- a model-only entry: the GPU run of results/h200 ----
gj = analyze(gpu_run)
if not any(not e["checkable"] for e in gj.get("what_if", [])):
    fail("%s: no model-only what-if entry to check" % gpu_run)
else:
    out = os.path.join(tmp, "fig-gpu")
    rc, o, e = run("plot", gpu_run, "--out", out)
    if rc != 0 or e:
        fail("plot %s: exit %d %r" % (gpu_run, rc, e))
    check_now(check_figure(os.path.join(out, "whatif.svg"), gj, "gpu run") or set(), gj, "gpu run")
    page_path = os.path.join(tmp, "gpu.html")
    rc, o, e = run("report", gpu_run, "-o", page_path)
    if rc == 0:
        check_report(open(page_path).read(), gj, "gpu report")
    else:
        fail("report %s: exit %d %s" % (gpu_run, rc, e))

# ---- no entries: no figure, one line ----
w = os.path.join(tmp, "watch")
subprocess.run([sys.executable, gen_watch, "steady", w], check=True, stdout=subprocess.DEVNULL)
check_none(w, analyze(w), "watch", "a watch run has no model of a pipeline's states to change")
nm = os.path.join(tmp, "nomodel")
subprocess.run([sys.executable, gen_run, "healthy", nm, "--seed", "6"], check=True, stdout=subprocess.DEVNULL)
with open(os.path.join(nm, "stages.csv")) as f:
    head = f.readline()
with open(os.path.join(nm, "stages.csv"), "w") as f:
    f.write(head)
jn = analyze(nm)
if jn.get("what_if") != [] or not jn.get("what_if_why"):
    fail("a batch run without stages rows: what_if %r, what_if_why %r" % (jn.get("what_if"), jn.get("what_if_why")))
else:
    check_none(nm, jn, "nomodel", jn["what_if_why"])

# ---- bad limits: one line, exit 2, nothing written ----
for args, what in [(["plot", cap, "--ram", "12X", "--out", os.path.join(tmp, "bad1")], "plot --ram 12X"),
                   (["plot", cap, "--ram", "1G", "--mem-limit", "2G", "--out", os.path.join(tmp, "bad2")], "plot two limits"),
                   (["report", cap, "--margin", "100", "-o", os.path.join(tmp, "bad3", "r.html")], "report --margin 100"),
                   (["report", cap, "--mem-limit", "0", "-o", os.path.join(tmp, "bad4.html")], "report --mem-limit 0")]:
    rc, o, e = run(*args)
    lines = e.strip().splitlines()
    if rc != 2 or len(lines) != 1 or not lines[0].startswith("zkbench: "):
        fail("%s: exit %d, stderr %r: expected exit 2 and one line" % (what, rc, e))
    for p in (os.path.join(tmp, "bad1"), os.path.join(tmp, "bad2"), os.path.join(tmp, "bad3"), os.path.join(tmp, "bad4.html")):
        if os.path.exists(p):
            fail("%s: %s was written" % (what, p))

if failures:
    print("%d failure(s); files kept in %s" % (len(failures), tmp), file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp)
print("ok: whatif figure and report section against analyze's what_if[]")
