#!/usr/bin/env python3
"""Markdown rows for results/h200/pipeline.md from GPU batch runs
(scripts/device/h200-pipeline.sh): per run, the configuration, the GPU
span per partition (first GPU stage's start to the last one's end, over
the partitions), the median prove stage (one partition's H and G1 MSMs,
a, b, c from synthesis, b_g2 beside them) and the median of each GPU
stage, GPU busy as analyze printed it, and s/proof.

  pipeline_table.py RUN_DIR...
"""
import csv
import json
import re
import statistics
import sys

GPU = ("h", "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2")


def row(run):
    stages = list(csv.DictReader(open(f"{run}/stages.csv")))
    cfg = json.load(open(f"{run}/run.json"))
    c = cfg["config"]
    dur = {}
    for r in stages:
        dur.setdefault(r["stage"], []).append(float(r["t_end_ms"]) - float(r["t_start_ms"]))
    g = [r for r in stages if r["stage"] in GPU]
    t0 = min(float(r["t_start_ms"]) for r in g)
    t1 = max(float(r["t_end_ms"]) for r in g)
    parts = len(dur.get("prove", []))
    busy = ""
    try:
        m = re.search(r"busy\s+GPU busy (\d+)%", open(f"{run}/analyze.txt").read())
        busy = m.group(1) + " %" if m else ""
    except OSError:
        pass
    med = {k: statistics.median(v) / 1e3 for k, v in dur.items()}
    size = c["circuit"].split("=")[-1]
    gpus = len(c.get("gpus", [])) or 1
    return (f"| {size} | {gpus} | {c['gpu_workers']} | {c['pw']} | {parts} | {(t1 - t0) / 1e3 / parts:.3f} | "
            f"{med['prove']:.3f} | " + " | ".join(f"{med.get(k, float('nan')):.3f}" for k in GPU)
            + f" | {busy} | {cfg['summary']['s_per_proof']:.2f} |")


print("| constraints | GPUs | workers/GPU | pw | partitions | GPU span / partition (s) | prove (s) | H | MSM H "
      "| MSM L | MSM A | MSM B_g1 | MSM B_g2 | GPU busy | s/proof |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for run in sys.argv[1:]:
    print(row(run.rstrip("/")))
