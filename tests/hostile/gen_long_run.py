#!/usr/bin/env python3
"""A long run's folder, made fast: run.json and a samples.csv of a given
size (MB) or row count, as `zkbench watch` (--kind watch) or `zkbench
batch` (--kind batch) writes them, for the streaming tests and benchmark
(issue 26: a 2 GB samples.csv is about three weeks of watch).

Memory follows a cycle (a proof every --cycle rows: RSS rises while it
works and falls back) on a flat floor, so the run is healthy; one row
anywhere holds a spike (--spike-factor times the highest of the cycle)
and one a dip (a quarter of the lowest), at rows drawn from --seed: the
rows a reader must not lose. They are printed as JSON
({"rows", "spike_row", "spike_rss", "dip_row", "dip_rss", "bytes"}).

  gen_long_run.py OUT_DIR (--mb N | --rows N) [--kind watch|batch]
"""
import argparse
import json
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("out")
g = ap.add_mutually_exclusive_group(required=True)
g.add_argument("--mb", type=float)
g.add_argument("--rows", type=int)
ap.add_argument("--kind", choices=["watch", "batch"], default="watch")
ap.add_argument("--cycle", type=int, default=600, help="rows per proof")
ap.add_argument("--tick-ms", type=float, default=None, help="default: 100 (watch), 10 (batch)")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--spike-factor", type=float, default=3.0)
a = ap.parse_args()
rnd = random.Random(a.seed)
tick = a.tick_ms or (100.0 if a.kind == "watch" else 10.0)
MIB = 1 << 20
base, amp = 900 * MIB, 300 * MIB

kinds = ["params", "circuit", "aux", "abc", "ntt", "h", "msm", "pending", "pinned", "other",
         "gpu_params", "gpu_abc", "gpu_ntt", "gpu_h", "gpu_msm", "gpu_other"]
header = ["t_ms", "rss", "rss_anon", "rss_file", "hwm", "je_allocated", "je_active", "je_resident", "je_mapped",
          "je_retained", "je_metadata", "je_dirty", "je_muzzy", "gpu_used"] + ["live_" + k for k in kinds] + \
         ["q_synth", "n_synth", "n_blocked", "q_gpu", "n_gpu", "n_finish", "n_dealloc", "partitions_admitted",
          "partitions_done", "proofs_done", "tick_us"]
if a.kind == "watch":
    header += ["n_procs", "cg_current", "cg_peak", "cg_anon", "cg_file", "cg_shmem", "cg_oom_kill"]


def rss_at(k):
    """RSS of row k of a cycle: up while the proof works, down after."""
    x = k / a.cycle
    return int(base + amp * (x / 0.7 if x < 0.7 else (1 - x) / 0.3))


# one cycle of rows, without t_ms and the counters that grow
cycle = []
for k in range(a.cycle):
    rss = rss_at(k) + rnd.randrange(0, 4096) * 16
    anon, file = rss - 200 * MIB, 200 * MIB
    if a.kind == "watch":
        # heap, GPU, tracked and pipeline columns stay empty (35), then
        # tick_us, n_procs and the 6 cgroup columns (empty: no --cgroup)
        cycle.append(("%d,%d,%d,%d" % (rss, anon, file, rss), "," * 35, "",
                      ",%.1f,3" % (80 + k % 40) + "," * 6))
    else:
        work = k < 0.7 * a.cycle
        alloc = rss - 150 * MIB
        live = [64 * MIB, 8 * MIB, (96 if work else 0) * MIB, (64 if work else 0) * MIB, 0, 0, 0, 0, 0, 0] + [0] * 6
        occ = "0,%d,0,%d,%d,0,0" % (2 if work else 0, 1 if work else 0, 1 if work else 0)
        cycle.append(("%d,%d,%d,%d" % (rss, anon, file, rss),
                      "%d,%d,%d,%d,0,%d,%d,0,0" % (alloc, alloc + 4 * MIB, alloc + 8 * MIB, alloc + 64 * MIB,
                                                   2 * MIB, 1 * MIB) + "," + ",".join(str(v) for v in live) + "," +
                      occ, None, ",%.1f" % (200 + k % 50)))

# the mean row length, for --mb: t_ms at the run's middle, the cycle's fields, the counters
t_len = len("%.3f" % (5e5 * tick * a.cycle))
row_len = t_len + 1 + sum(len(m) + len(x) + len(e) for m, x, _, e in cycle) / a.cycle + \
    (0 if a.kind == "watch" else 12) + 2
rows = a.rows if a.rows else int(a.mb * 1e6 / row_len)  # with --mb an estimate: written until the size
top = max(rows * 9 // 10, 2)
spike_row, dip_row = rnd.randrange(rows // 4, top), rnd.randrange(rows // 4, top)
while dip_row == spike_row:
    dip_row = rnd.randrange(rows // 4, top)
spike_rss = int((base + amp) * a.spike_factor)
dip_rss = base // 4

os.makedirs(a.out, exist_ok=True)
nbytes = 0
with open(os.path.join(a.out, "samples.csv"), "w", buffering=1 << 22) as f:
    f.write(",".join(header) + "\n")
    out = []
    i = 0
    pending = 0  # bytes in out
    while i < rows or (a.mb and nbytes + pending < a.mb * 1e6):
        k = i % a.cycle
        mem, mid, _, tail = cycle[k]
        if i == spike_row or i == dip_row:
            v = spike_rss if i == spike_row else dip_rss
            mem = "%d,%d,%d,%d" % (v, v - 200 * MIB if v > 200 * MIB else 0, min(v, 200 * MIB), v)
        t = "%.3f" % (i * tick)
        if a.kind == "watch":
            out.append(t + "," + mem + mid + tail + "\n")
        else:
            p, after = i // a.cycle, k >= 0.7 * a.cycle
            out.append("%s,%s,%s,%d,%d,%d%s\n" % (t, mem, mid, (p + 1) * 4, (p + 1) * 4 if after else p * 4,
                                                  p + after, tail))
        i += 1
        pending += len(out[-1])
        if len(out) >= 2000:
            s = "".join(out)
            nbytes += len(s)
            f.write(s)
            out = []
            pending = 0
    s = "".join(out)
    nbytes += len(s)
    f.write(s)
    rows = i

wall_s = rows * tick / 1e3
if a.kind == "watch":
    run = {"config": {"mode": "command", "command": "gen_long_run.py", "pid": 4242, "sample_ms": tick,
                      "smaps": False, "gpu": False, "mem_limit": None, "children": True, "cgroup": None,
                      "mark": None},
           "summary": {"first_rss": base, "last_rss": base, "peak_rss": spike_rss, "wall_s": wall_s,
                       "ticks": rows, "median_tick_us": 100.0},
           "status": "complete", "outcome": "complete", "interrupted": False, "exit_code": 0,
           "started_at": "2025-01-01T00:00:00.000Z"}
else:
    proofs = rows // a.cycle
    run = {"config": {"count": proofs, "concurrency": 1, "partitions": 4, "circuit": "synthetic", "pw": 2,
                      "gpu_workers": 1, "gpu_queue": 1, "finish_workers": 2, "split": True, "backend": "cpu",
                      "sample_ms": tick},
           "machine": {"cpu": "synthetic", "cores": 2, "ram_bytes": 64 << 30},
           "baseline": {"rss": base, "je_allocated": base - 150 * MIB, "je_resident": base - 142 * MIB,
                        "gpu_used": 0},
           "summary": {"baseline_rss": base, "peak_rss": spike_rss, "proofs_done": proofs, "wall_s": wall_s,
                       "s_per_proof": wall_s / max(proofs, 1)},
           "status": "complete", "outcome": "complete", "interrupted": False,
           "started_at": "2025-01-01T00:00:00.000Z"}
    with open(os.path.join(a.out, "proofs.csv"), "w") as f:
        f.write("proof,t_submit_ms,t_start_ms,t_done_ms,wall_ms,verified\n")
        for p in range(proofs):
            t0, t1 = p * a.cycle * tick, (p * a.cycle + 0.7 * a.cycle) * tick
            f.write("%d,%.3f,%.3f,%.3f,%.3f,1\n" % (p, t0, t0, t1, t1 - t0))
    for name, hdr in (("buffers.csv", "id,kind,device,proof,partition,bytes,t_alloc_ms,t_free_ms,t_last_use_ms\n"),
                      ("stages.csv", "proof,partition,stage,worker,t_start_ms,t_end_ms\n")):
        with open(os.path.join(a.out, name), "w") as f:
            f.write(hdr)
with open(os.path.join(a.out, "run.json"), "w") as f:
    json.dump(run, f, indent=2)
print(json.dumps({"rows": rows, "spike_row": spike_row, "spike_rss": spike_rss, "dip_row": dip_row,
                  "dip_rss": dip_rss, "bytes": nbytes}))
