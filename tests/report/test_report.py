#!/usr/bin/env python3
"""zkbench report in a real browser.

test_report.py ZKBENCH GEN_RUN_PY GEN_WATCH_PY REAL_RUN_DIR OUT_DIR

Each report is loaded in headless Chromium through the DevTools protocol
(cdp.py): the page must load with no console error or warning, no uncaught
exception, no failed load and no request for anything but the file itself;
the verdict and reason `zkbench analyze` prints for the same run must be in
the rendered text, with the peak RSS in the units an independent formatter
gives; no element may carry a script, an event handler, or a src/href that
leaves the page. A run whose folder, circuit name, buffer kinds and run.json
hold markup must show that markup as text. Runs: synthetic batch runs (leak,
healthy), a synthetic watch run with traced sites, a sweep folder, the real
H200 batch run in results/, and a run reported without gnuplot. Bad input:
a missing, damaged or empty run, bad -o paths and bad arguments each give
one line and exit 2 and write nothing (an earlier report survives). Every
page is screenshotted into OUT_DIR (1200 x 3000) to look at. Exit 77 when
chromium is not installed.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chrome, ChromeError  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import fmt_ref  # noqa: E402

zk, gen_run, gen_watch, real_run, out_dir = sys.argv[1:6]
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    if os.environ.get("ZKBENCH_REQUIRE_BROWSER") == "1":
        print("FAIL: chromium is not installed and ZKBENCH_REQUIRE_BROWSER=1 (scripts/test-setup.sh installs it)")
        sys.exit(1)
    print("SKIP: chromium is not installed (Debian package chromium): the report is tested in a real browser")
    sys.exit(77)
have_gnuplot = shutil.which("gnuplot") is not None

tmp = tempfile.mkdtemp(prefix="zkb-report-")
os.makedirs(out_dir, exist_ok=True)
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(*args, env=None):
    p = subprocess.run([zk, *args], capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def fmt_bytes(v):
    """Sizes as the report should print them (tests/fmt_ref.py), |v| < 0.5
    as 0 B (the report prints no "-0 B")."""
    return fmt_ref.fmt_bytes(0 if abs(v) < 0.5 else v)


def squash(s):
    return re.sub(r"\s+", " ", s).strip()


def analyze_verdict(d):
    """The verdict line and the sentence under it, as `zkbench analyze` prints them."""
    rc, out, err = run("analyze", d)
    if rc != 0:
        fail("analyze %s: exit %d: %s" % (d, rc, err.strip()))
        return None, None
    lines = out.splitlines()
    for i, l in enumerate(lines):
        if l.startswith("verdict "):
            return l[len("verdict"):].strip(), lines[i + 1].strip() if i + 1 < len(lines) else ""
    fail("analyze %s printed no verdict line:\n%s" % (d, out))
    return None, None


# Everything in the page the browser sees, in one evaluation.
PROBE = r"""(() => {
  const all = [...document.querySelectorAll('*')];
  const links = [], handlers = [];
  for (const e of all)
    for (const a of e.attributes) {
      if (/(^|:)(src|href|action|formaction|data|poster|background)$/i.test(a.name)) links.push(e.tagName + ' ' + a.name + '=' + a.value);
      if (/^on/i.test(a.name)) handlers.push(e.tagName + ' ' + a.name);
    }
  return {
    text: document.body.innerText,
    title: document.title,
    svgs: document.querySelectorAll('svg').length,
    /* each figure's accessible name (its first <title>), never gnuplot's "Gnuplot" */
    svg_titles: [...document.querySelectorAll('svg')].map(s => { const t = s.querySelector(':scope > title'); return t ? t.textContent : ''; }),
    forbidden: [...document.querySelectorAll('script,img,iframe,object,embed,link,base,meta[http-equiv],foreignObject,video,audio,source')].map(e => e.tagName),
    links: links, handlers: handlers,
    height: document.documentElement.scrollHeight,
    /* ids inside each figure must carry its prefix, so figures never share definitions */
    unprefixed: [...document.querySelectorAll('figure')].flatMap(fig => {
      const name = fig.id.replace(/^plot-/, '');
      return [...fig.querySelectorAll('svg [id]')].filter(e => !e.id.startsWith(name + '-')).map(e => fig.id + ': ' + e.id);
    }),
  };
})()"""


def check_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG" % path)
        return
    w, h = struct.unpack(">II", head[16:24])
    if (w, h) != (1200, 3000):
        fail("%s: %dx%d, expected 1200x3000" % (path, w, h))
    if os.path.getsize(path) < 20000:
        fail("%s: only %d bytes: a blank page?" % (path, os.path.getsize(path)))


def load(chrome, html, shot):
    """Loads html in the browser, checks what every page must satisfy, and
    returns the probe (None when it did not load)."""
    try:
        chrome.open("file://" + os.path.abspath(html))
        probe = chrome.evaluate(PROBE)
        chrome.screenshot(os.path.join(out_dir, shot))
    except ChromeError as e:
        fail("%s: %s" % (html, e))
        return None
    check_png(os.path.join(out_dir, shot))
    for p in chrome.problems():
        fail("%s: %s" % (html, p))
    if probe["forbidden"]:
        fail("%s: elements that run or fetch: %s" % (html, probe["forbidden"]))
    if probe["handlers"]:
        fail("%s: event handlers: %s" % (html, probe["handlers"][:5]))
    outside = [l for l in probe["links"] if not re.search(r"=#[^#]*$", l)]
    if outside:
        fail("%s: links that leave the page: %s" % (html, outside[:5]))
    if probe["unprefixed"]:
        fail("%s: ids without their figure's prefix: %s" % (html, probe["unprefixed"][:5]))
    with open(html, encoding="utf-8") as f:
        raw = f.read()
    m = re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", raw, re.I)
    if m:
        fail("%s: a network URL in an attribute: %s" % (html, raw[m.start():m.start() + 80]))
    return probe


def report_ok(d, *extra, out=None, env=None):
    rc, o, e = run("report", d, *extra, env=env)
    path = out or os.path.join(d, "report.html")
    if rc != 0 or e.strip():
        fail("report %s: exit %d, stderr %r" % (d, rc, e))
    if not os.path.isfile(path):
        fail("report %s wrote no %s" % (d, path))
        return None
    if path not in o:
        fail("report %s: stdout %r does not name %s" % (d, o, path))
    leftovers = [n for n in os.listdir(os.path.dirname(os.path.abspath(path))) if n.endswith(".tmp")]
    if leftovers:
        fail("report %s left temporaries: %s" % (d, leftovers))
    return path


def check_run_page(chrome, d, shot, min_svgs, **kw):
    page = report_ok(d, **kw)
    if not page:
        return None
    verdict, reason = analyze_verdict(d)
    probe = load(chrome, page, shot)
    if not probe or verdict is None:
        return probe
    text = squash(probe["text"])
    for what, s in (("verdict", verdict), ("reason", reason)):
        if squash(s) not in text:
            fail("%s: the %s analyze prints is not in the page: %r" % (page, what, s))
    with open(os.path.join(d, "run.json")) as f:
        peak = json.load(f)["verdict"]["peak_rss"]
    if fmt_bytes(peak) + " peak RSS" not in text:
        fail("%s: peak RSS %d not shown as %r" % (page, peak, fmt_bytes(peak)))
    if have_gnuplot and probe["svgs"] < min_svgs:
        fail("%s: %d inline SVGs, expected at least %d" % (page, probe["svgs"], min_svgs))
    for t in probe["svg_titles"]:
        if not t or t == "Gnuplot" or ": " not in t:
            fail("%s: a figure titled %r, expected its own name" % (page, t))
    if not have_gnuplot and "gnuplot was not found" not in text:
        fail("%s: gnuplot is missing but the page does not say so" % page)
    return probe


def gen(script, scenario, name, *extra):
    d = os.path.join(tmp, name)
    subprocess.run([sys.executable, script, scenario, d, *extra], check=True, capture_output=True)
    return d


# -- the browser harness itself catches what it must (a test that cannot fail is no test) --
chrome = Chrome(chromium, os.path.join(tmp, "profile"))
try:
    bad = os.path.join(tmp, "bad.html")
    with open(bad, "w") as f:
        f.write('<!DOCTYPE html><html><body><p>x</p><img src="missing.png">'
                '<a href="https://example.invalid/">out</a><script>console.error("boom"); nope();</script></body></html>')
    chrome.open("file://" + bad)
    got = " | ".join(chrome.problems())
    for want in ("Uncaught", "console.error", "ERR_FILE_NOT_FOUND"):
        if want not in got:
            fail("the browser check missed %s on a broken page: %s" % (want, got))

    # -- batch runs --
    leak = gen(gen_run, "leak", "leak", "--seed", "3")
    p = check_run_page(chrome, leak, "batch-leak.png", 3)
    if p:
        t = p["text"]
        for want in ("Memory by layer", "L0 tracked", "GROWS", "Never freed", "msm", "Capacity",
                     "largest that fits", "Per proof (8)", "synth", "config.pw", "machine.ram_bytes",
                     "Full analysis (zkbench analyze)"):
            if want not in t:
                fail("leak report: %r missing" % want)
    healthy = gen(gen_run, "healthy", "healthy", "--seed", "5")
    check_run_page(chrome, healthy, "batch-healthy.png", 3)

    # -- the real H200 batch (results/), reported into another folder --
    real = os.path.join(tmp, "h200-batch-gpu")
    shutil.copytree(real_run, real)
    for n in os.listdir(real):
        if n.endswith(".png") or n.endswith(".txt"):
            os.remove(os.path.join(real, n))
    real_out = os.path.join(tmp, "h200.html")
    page = report_ok(real, "-o", real_out, out=real_out)
    if page:
        if os.path.exists(os.path.join(real, "report.html")):
            fail("report -o also wrote RUN/report.html")
        verdict, reason = analyze_verdict(real)
        probe = load(chrome, page, "batch-h200.png")
        if probe and reason and squash(reason) not in squash(probe["text"]):
            fail("h200 report: analyze's reason missing: %r" % reason)
        if probe and "NVIDIA H200" not in probe["text"]:
            fail("h200 report: machine.gpu not shown")

    # -- a watch run with traced sites --
    watch = gen(gen_watch, "sites", "watch", "--marks")
    p = check_run_page(chrome, watch, "watch-sites.png", 2)
    if p:
        for want in ("Allocation sites", "leak_step", "leak.c:14", "LEAK", "config.mode"):
            if want not in p["text"]:
                fail("watch report: %r missing" % want)

    # -- a sweep folder --
    sweep = os.path.join(tmp, "sweep")
    os.makedirs(sweep)
    with open(os.path.join(sweep, "sweep.csv"), "w") as f:
        f.write("pw,concurrency,s_per_proof,peak_rss,predicted_peak_rss,footprint_per_partition,ram_bytes,"
                "predicted_low,predicted_high,mem_limit,outcome\n")
        for pw, peak, oc in ((1, 3 << 30, "complete"), (2, 5 << 30, "complete"), (4, 9 << 30, "oom-killed")):
            f.write("%d,2,1.5,%d,%d,%d,%d,%d,%d,,%s\n" % (pw, peak, peak, 1 << 30, 128 << 30, peak - (1 << 28),
                                                         peak + (1 << 28), oc))
    page = report_ok(sweep)
    if page:
        p = load(chrome, page, "sweep.png")
        if p:
            for want in ("Runs by pw", "oom-killed", fmt_bytes(9 << 30), fmt_bytes(128 << 30)):
                if want not in p["text"]:
                    fail("sweep report: %r missing" % want)
            if have_gnuplot and p["svgs"] < 1:
                fail("sweep report: no sweep plot")

    # -- markup in every string a run supplies comes out as text --
    evil_name = 'a&b <script>alert(1)'
    evil = os.path.join(tmp, evil_name)
    shutil.copytree(gen(gen_run, "leak", "evil-src", "--seed", "4"), evil)
    with open(os.path.join(evil, "run.json")) as f:
        rj = json.load(f)
    rj["config"]["circuit"] = "<script>alert(2)</script>"
    rj["label"] = "<img src=x onerror=alert(3)>"
    with open(os.path.join(evil, "run.json"), "w") as f:
        json.dump(rj, f)
    bpath = os.path.join(evil, "buffers.csv")
    with open(bpath) as f:
        rows = f.read().split("\n")
    kcol = rows[0].split(",").index("kind")
    for i in range(1, len(rows)):
        cells = rows[i].split(",")
        if len(cells) > kcol and cells[kcol] == "msm":
            cells[kcol] = "<b>msm</b>"
            rows[i] = ",".join(cells)
    with open(bpath, "w") as f:
        f.write("\n".join(rows))
    p = check_run_page(chrome, evil, "escaped.png", 3)
    if p:
        for want in (evil_name, "<script>alert(2)</script>", "<img src=x onerror=alert(3)>", "<b>msm</b>"):
            if want not in p["text"]:
                fail("escaping: %r is not shown as text" % want)
        if "<script>alert(2)</script>" not in p["title"] + p["text"]:
            fail("escaping: the circuit name is missing")
        if evil_name not in p["title"]:
            fail("escaping: the title %r lacks the run folder" % p["title"])

    # -- without gnuplot the page says so in place of the plots --
    nognu = gen(gen_run, "healthy", "nognu", "--seed", "6")
    empty_path = os.path.join(tmp, "empty-path")
    os.makedirs(empty_path)
    env = dict(os.environ, PATH=empty_path)
    page = report_ok(nognu, env=env)
    if page:
        p = load(chrome, page, "no-gnuplot.png")
        if p and ("gnuplot was not found" not in p["text"] or p["svgs"] != 0):
            fail("no gnuplot: the page does not say so (svgs %d)" % p["svgs"])
finally:
    chrome.close()


# -- bad input: one line, exit 2, nothing written --
def bad(args, why, must_not_exist=()):
    rc, o, e = run("report", *args)
    lines = e.strip().splitlines()
    if rc != 2 or len(lines) != 1 or not lines[0].startswith("zkbench: report: "):
        fail("%s: exit %d, stderr %r (expected one 'zkbench: report:' line and exit 2)" % (why, rc, e))
    for path in must_not_exist:
        if os.path.exists(path):
            fail("%s: %s was written" % (why, path))


missing = os.path.join(tmp, "missing")
bad([missing], "a missing run", [missing])
bad([], "no RUN")
bad([healthy, "extra"], "an extra argument")
bad([healthy, "--bogus"], "an unknown option")
bad([healthy, "-o"], "-o without a value")
bad([healthy, "-o", os.path.join(tmp, "no-such-dir", "r.html")], "-o in a missing folder",
    [os.path.join(tmp, "no-such-dir")])
bad([healthy, "-o", tmp], "-o naming a folder")

not_dir = os.path.join(tmp, "file-not-dir")
with open(not_dir, "w") as f:
    f.write("x\n")
bad([not_dir], "a file, not a run folder")

# a damaged run: the earlier report survives, nothing else appears
damaged = gen(gen_run, "healthy", "damaged", "--seed", "7")
if report_ok(damaged):
    with open(os.path.join(damaged, "report.html"), "rb") as f:
        before = f.read()
    with open(os.path.join(damaged, "samples.csv")) as f:
        lines = f.read().split("\n")
    cells = lines[5].split(",")
    cells[1] = "abc"
    lines[5] = ",".join(cells)
    with open(os.path.join(damaged, "samples.csv"), "w") as f:
        f.write("\n".join(lines))
    names = sorted(os.listdir(damaged))
    bad([damaged], "a damaged samples.csv")
    with open(os.path.join(damaged, "report.html"), "rb") as f:
        if f.read() != before:
            fail("a failed report changed the earlier report.html")
    if sorted(os.listdir(damaged)) != names:
        fail("a failed report left files: %s" % sorted(set(os.listdir(damaged)) - set(names)))

empty = gen(gen_run, "healthy", "empty", "--seed", "8")
with open(os.path.join(empty, "samples.csv")) as f:
    header = f.readline()
with open(os.path.join(empty, "samples.csv"), "w") as f:
    f.write(header)
bad([empty], "a run without samples", [os.path.join(empty, "report.html")])

broken_json = gen(gen_run, "healthy", "broken-json", "--seed", "9")
with open(os.path.join(broken_json, "run.json"), "r+") as f:
    f.truncate(20)
bad([broken_json], "a truncated run.json", [os.path.join(broken_json, "report.html")])

bad_sweep = os.path.join(tmp, "bad-sweep")
os.makedirs(bad_sweep)
with open(os.path.join(bad_sweep, "sweep.csv"), "w") as f:
    f.write("pw,peak_rss\n1,lots\n")
bad([bad_sweep], "a damaged sweep.csv", [os.path.join(bad_sweep, "report.html")])

rc, o, e = run("report", "--help")
if rc != 0 or "usage: zkbench report RUN [-o FILE]" not in o:
    fail("report --help: exit %d, %r" % (rc, o[:200]))
rc, o, e = run("report", "-h")
if rc != 0 or "usage: zkbench report" not in o:
    fail("report -h: exit %d" % rc)

if fails:
    print("%d failure(s); pages and screenshots kept in %s and %s" % (len(fails), tmp, out_dir), file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp)
print("report: all checks passed; screenshots in %s" % out_dir)
