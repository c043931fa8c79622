#!/usr/bin/env python3
"""The verdict panel (issue 25, item 7): generated memory signals of eight
shapes, at random periods, amplitudes and noise, sampled at zkbench watch's
default tick (100 ms, at a random phase) as watch would record them, with
and without proof marks; each run analyzed, and the verdicts tallied
against the truth.

panel.py ZKBENCH --per-shape N [--seed S] [--table FILE] [--keep DIR]

Shapes (anonymous memory of a program that works in cycles of one proof):
  linear        grows L per cycle, evenly, no sawtooth            truth: leak
  sawtooth-leak a scratch buffer per cycle (freed at 70% of it) and
                L per cycle never freed                           truth: leak
  step-leak     every k-th cycle (k 3..6) keeps k*L at once       truth: leak
  slow-leak     the sawtooth, and 1% of the peak kept per cycle   truth: leak
  cache         the sawtooth, and a cache that grows 4 MiB a cycle
                for the first third of the cycles, then stays     truth: healthy
  plateau       a working set that rises over the first cycles to
                its level, then stays                             truth: healthy
  steady        the sawtooth, nothing kept                        truth: healthy
  noisy-steady  the sawtooth under heavy AR(1) noise (2-8 MiB)    truth: healthy

A verdict is right when it is the truth, "inconclusive" when the data
could not decide (allowed: it says what would), opposite when a leak is
called healthy or a healthy program a leak. Exit 1 when any verdict is
opposite or fewer than 95% are right or inconclusive, so it is a test too.
The random draws come from --seed: the same seed gives the same panel.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

MIB = 1 << 20
TICK_MS = 100.0  # zkbench watch's default --sample-ms
SHAPES = ["linear", "sawtooth-leak", "step-leak", "slow-leak", "cache", "plateau", "steady", "noisy-steady"]
LEAKS = {"linear", "sawtooth-leak", "step-leak", "slow-leak"}

ap = argparse.ArgumentParser()
ap.add_argument("zkbench")
ap.add_argument("--per-shape", type=int, default=100)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--table", help="write the markdown table here")
ap.add_argument("--keep", help="keep the runs under this folder")
a = ap.parse_args()

COLS = ["t_ms", "rss", "rss_anon", "rss_file", "hwm", "gpu_used", "tick_us"]


def make(shape, rng, out, marks):
    """One generated run into out; returns its parameters."""
    period = rng.uniform(0.05, 2.0) * 1000  # ms
    cycles = rng.randint(20, 60)
    scratch = rng.uniform(8, 256) * MIB
    noise = rng.uniform(2, 8) * MIB if shape == "noisy-steady" else rng.uniform(0.1, 2) * MIB
    leak = rng.uniform(1, 8) * MIB
    step_k = rng.randint(3, 6)
    base, file_b = rng.uniform(16, 512) * MIB, 8 * MIB
    plateau_cycles = rng.randint(2, max(3, cycles // 4))
    plateau_level = rng.uniform(16, 256) * MIB
    end = cycles * period + period / 2
    phase = rng.uniform(0, TICK_MS)

    def anon(t):
        c = int(t // period)
        ph = (t - c * period) / period
        active = c < cycles
        done = min(c, cycles) + (1 if active else 0)
        v = base
        if shape == "linear":
            return v + leak * min(t / period, cycles)
        if shape == "plateau":
            return v + plateau_level * min(1.0, t / (plateau_cycles * period))
        if active and ph < 0.7:
            v += scratch
        if shape == "sawtooth-leak":
            v += leak * done
        elif shape == "step-leak":
            v += leak * step_k * (done // step_k)
        elif shape == "slow-leak":
            v += 0.01 * (base + scratch) * done
        elif shape == "cache":
            v += 4 * MIB * min(done, cycles // 3)
        return v

    os.makedirs(out, exist_ok=True)
    rows, n, hwm, t = [], 0.0, 0, phase
    while t <= end:
        n = 0.5 * n + rng.gauss(0, noise)
        an = int(max(0, anon(t) + n))
        rss = an + int(file_b)
        hwm = max(hwm, rss)
        rows.append("%.3f,%d,%d,%d,%d,0,35.0" % (t, rss, an, int(file_b), hwm))
        t += TICK_MS
    with open(os.path.join(out, "samples.csv"), "w") as f:
        f.write(",".join(COLS) + "\n" + "\n".join(rows) + "\n")
    if marks:
        with open(os.path.join(out, "marks.csv"), "w") as f:
            f.write("t_ms,pid,source,name\n")
            for c in range(cycles):
                f.write("%.3f,4242,output,proof done\n" % (c * period + 0.99 * period))
    run = {"config": {"mode": "command", "pid": 4242, "command": "panel --%s" % shape, "sample_ms": TICK_MS,
                      "smaps": False, "gpu": False, "mem_limit": None},
           "exit_code": 0, "interrupted": False, "outcome": "complete", "status": "complete",
           "summary": {"wall_s": end / 1000, "ticks": len(rows)}}
    with open(os.path.join(out, "run.json"), "w") as f:
        json.dump(run, f)
    return dict(period_s=period / 1000, cycles=cycles, noise=noise)


root = a.keep or tempfile.mkdtemp(prefix="zkb-panel-")
rng = random.Random(a.seed)
tally = {}  # (shape, marks) -> dict
opposite_cases = []
for shape in SHAPES:
    truth = "leak" if shape in LEAKS else "healthy"
    for marks in (False, True):
        t = tally.setdefault((shape, marks), dict(n=0, right=0, inconclusive=0, opposite=0, other=0))
        for i in range(a.per_shape):
            d = os.path.join(root, "%s-%s-%03d" % (shape, "marks" if marks else "tick", i))
            p = make(shape, rng, d, marks)
            r = subprocess.run([a.zkbench, "analyze", d, "--json"], capture_output=True, text=True)
            v = json.loads(r.stdout)["verdict"] if r.returncode == 0 else "error"
            t["n"] += 1
            if v == truth:
                t["right"] += 1
            elif v == "inconclusive":
                t["inconclusive"] += 1
            elif (truth == "leak" and v == "healthy") or (truth == "healthy" and v == "leak"):
                t["opposite"] += 1
                opposite_cases.append("%s (%s): %s, period %.2f s, %d cycles, noise %.1f MiB" %
                                      (d, truth, v, p["period_s"], p["cycles"], p["noise"] / MIB))
            else:
                t["other"] += 1
            if not a.keep:
                shutil.rmtree(d)

lines = ["| shape | boundaries | runs | right | inconclusive | opposite | other | right or inconclusive |",
         "|---|---|---:|---:|---:|---:|---:|---:|"]
bad = False
for (shape, marks), t in tally.items():
    ok = (t["right"] + t["inconclusive"]) / t["n"]
    bad = bad or t["opposite"] > 0 or ok < 0.95
    lines.append("| %s | %s | %d | %d | %d | %d | %d | %.1f%% |" % (shape, "--mark" if marks else "none (windows)",
                                                                   t["n"], t["right"], t["inconclusive"],
                                                                   t["opposite"], t["other"], 100 * ok))
table = "\n".join(lines)
print(table)
for c in opposite_cases:
    print("opposite:", c, file=sys.stderr)
if a.table:
    with open(a.table, "w") as f:
        f.write(table + "\n")
if not a.keep:
    shutil.rmtree(root, ignore_errors=True)
print("panel: seed %d, %d per shape and boundary kind: %s" % (a.seed, a.per_shape, "FAIL" if bad else "ok"))
sys.exit(1 if bad else 0)
