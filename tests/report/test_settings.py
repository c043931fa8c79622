#!/usr/bin/env python3
"""The report's settings table reads as values, not JSON (issue 28).

    test_settings.py ZKBENCH GEN_RUN_PY

A synthetic batch run (tests/analyze/gen_run.py) gets the run.json fields
a real batch writes: summary.proof_wall_ms and summary.sampler (objects),
versions.cuda from a CUDA build without a driver ("driver 0.0"), nulls,
empty strings and lists, and the device's zeros of a CPU run. The table
zkbench report writes must show each nested value on a row of its own in
its unit (ms, s, us, sizes as an independent formatter writes them), no
value that is raw JSON, no "driver 0.0", and no row for what was not
measured; on a GPU run the device's zero is measured and shown. No browser
needed (tests/report/test_report.py renders the page in one).
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

zk, gen_run = sys.argv[1:3]
tmp = tempfile.mkdtemp(prefix="zkb-settings-")
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def settings(run_dir):
    out = os.path.join(tmp, os.path.basename(run_dir) + ".html")
    p = subprocess.run([zk, "report", run_dir, "-o", out], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fail("report %s: exit %d %s" % (run_dir, p.returncode, p.stderr))
        return {}
    page = open(out).read()
    i = page.index('id="settings"')
    table = page[i:page.index("</table>", i)]
    return {html.unescape(k): html.unescape(v)
            for k, v in re.findall(r'<td class="k">(.*?)</td><td class="v">(.*?)</td>', table)}


run = os.path.join(tmp, "cpu-run")
subprocess.run([sys.executable, gen_run, "healthy", run, "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
rj_path = os.path.join(run, "run.json")
rj = json.load(open(rj_path))
rj["config"].update(backend="cpu", gpu_mem=None, mem_limit=None, inject="", gpus=[], seed=1)
rj["machine"].update(gpu="", gpu_mem_bytes=0)
rj["versions"]["cuda"] = "runtime 12.4, driver 0.0"
rj["summary"].update(proof_wall_ms={"avg": 4757.3267162499069, "min": 4001.5, "max": 5100.25},
                     sampler={"ticks": 868, "median_tick_us": 278.936}, baseline_rss=11141120)
rj["baseline"] = {"rss": 11141120, "je_allocated": 2540096, "gpu_used": 0, "tracked": 688280}
rj["params"] = {"load": "mmap", "mapped_bytes": 1498688, "verify_s": 0.0, "setup_s": 0.9166, "setup_note": ""}
json.dump(rj, open(rj_path, "w"))

s = settings(run)
for k, v in s.items():
    if v.lstrip().startswith(("{", "[")) or v in ("null", '""'):
        fail("row %s is raw JSON: %r" % (k, v))
    if "driver 0.0" in v:
        fail("row %s says %r" % (k, v))
want = {
    "summary.proof_wall_ms.avg": "4757.3 ms",
    "summary.proof_wall_ms.max": "%.1f ms" % 5100.25,
    "summary.sampler.ticks": "868",
    "summary.sampler.median_tick_us": "279 \u00b5s",
    "summary.baseline_rss": "%s (11141120)" % fmt_bytes(11141120),
    "baseline.je_allocated": "%s (2540096)" % fmt_bytes(2540096),
    "params.mapped_bytes": "%s (1498688)" % fmt_bytes(1498688),
    "config.sample_ms": "10 ms",
    "versions.cuda": "runtime 12.4 (no CUDA driver found)",
}
for k, v in want.items():
    if s.get(k) != v:
        fail("row %s: %r, expected %r" % (k, s.get(k), v))
# not measured: nulls, empty strings and lists, a step that did not run,
# the device's zeros on a CPU run
for k in ("config.gpu_mem", "config.mem_limit", "config.inject", "config.gpus", "machine.gpu",
          "machine.gpu_mem_bytes", "baseline.gpu_used", "params.verify_s", "params.setup_note"):
    if k in s:
        fail("row %s for what was not measured: %r" % (k, s[k]))
if "summary.proof_wall_ms" in s or "summary.sampler" in s:
    fail("an object on one row: %s" % [k for k in s if k in ("summary.proof_wall_ms", "summary.sampler")])

# a GPU run: its device's zero was read, so it is a row
gpu = os.path.join(tmp, "gpu-run")
shutil.copytree(run, gpu)
rj["config"]["backend"] = "gpu"
json.dump(rj, open(os.path.join(gpu, "run.json"), "w"))
sg = settings(gpu)
if sg.get("baseline.gpu_used") != "0 B (0)":
    fail("GPU run: baseline.gpu_used %r, expected '0 B (0)'" % sg.get("baseline.gpu_used"))

if fails:
    print("%d failure(s); files kept in %s" % (len(fails), tmp), file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp)
print("report settings: all checks passed")
