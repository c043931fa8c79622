#!/usr/bin/env python3
"""Synthetic zkbench runs with known answers, for the analyze/plot/check tests.

gen_run.py SCENARIO OUT_DIR [--seed N] [--noise BYTES] [--leak BYTES] [--pw N] [--truncate]

Simulates the batch pipeline of DESIGN.md millisecond by millisecond (a
synthesis pool of pw workers, a bounded GPU queue, one GPU worker, a finish
pool), allocates the tracked buffers a partition holds in each stage, samples
every 10 ms, and writes samples.csv, buffers.csv, stages.csv, proofs.csv and
run.json as `zkbench batch` does, plus truth.json with the true per-slot
footprints, leak rate and verdict.

Scenarios: healthy, leak (msm buffers never freed: --leak bytes per proof),
retention (freed heap pages stay resident; with --untracked the leak is
heap memory outside tracked buffers), held (aux buffers freed 1.5 s
after their last use), pileup (synthesis permits released before the GPU
queue accepts the partition), capacity (healthy; the test passes --ram).
"""
import argparse
import json
import os
import random

MIB = 1 << 20
GIB = 1 << 30

ap = argparse.ArgumentParser()
ap.add_argument("scenario", choices=["healthy", "leak", "retention", "held", "pileup", "capacity"])
ap.add_argument("out")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--noise", type=float, default=4 * MIB, help="sd of the AR(1) noise on heap and RSS")
ap.add_argument("--leak", type=float, default=48 * MIB, help="bytes leaked per proof (leak scenario)")
ap.add_argument("--proofs", type=int, default=8)
ap.add_argument("--pw", type=int, default=4, help="synthesis workers")
ap.add_argument("--untracked", action="store_true", help="leak: untracked heap bytes, no tracked buffer")
ap.add_argument("--truncate", action="store_true", help="cut every file mid-row, as a SIGKILL would")
a = ap.parse_args()
rng = random.Random(a.seed)
sc = a.scenario

# pipeline
pw, gpu_queue, gpu_workers, parts = a.pw, 2, 1, 4
concurrency = 4 if sc == "pileup" else 2
t_synth, t_gpu, t_fin = 400, (250 if sc == "pileup" else 100), 60
hold_ms = 1500 if sc == "held" else 0
# tracked bytes per partition
A, C, M, P, D = 256 * MIB, 768 * MIB, 128 * MIB, 64 * MIB, 512 * MIB
leak_per_part = a.leak / parts if sc == "leak" else 0
PARAMS, CIRCUIT, NTT = 2 * GIB, 1 * GIB, 64 * MIB
UNTRACKED, OUTSIDE, GPU_RUNTIME = 150 * MIB, 300 * MIB, 512 * MIB
FRAG = 0.02  # je_resident - je_allocated, as a share of the heap above baseline
t_load, t_idle, tick = 150, 500, 10
untracked_leak = [0.0]

bufs = {}      # id -> dict
live = {}      # kind -> bytes
next_id = [1]
kinds = ["params", "circuit", "aux", "abc", "ntt", "h", "msm", "pending", "pinned", "other",
         "gpu_params", "gpu_abc", "gpu_ntt", "gpu_h", "gpu_msm", "gpu_other"]
for k in kinds:
    live[k] = 0


def alloc(kind, proof, part, nbytes, t):
    i = next_id[0]
    next_id[0] += 1
    bufs[i] = dict(id=i, kind=kind, device="gpu0" if kind.startswith("gpu_") else "host", proof=proof,
                   partition=part, bytes=int(nbytes), t_alloc=t, t_free=None, t_last=None)
    live[kind] += int(nbytes)
    return i


def free(i, t, last_use=None):
    b = bufs[i]
    b["t_free"] = t
    b["t_last"] = (t - 5 if t - 5 >= b["t_alloc"] else b["t_alloc"]) if last_use is None else last_use
    live[b["kind"]] -= b["bytes"]


stages = []
proofs = []  # dict proof, t_submit, t_start, t_done
parts_state = []  # per partition dict


class Part:
    pass


waiting, synth, blocked, queue, ongpu, finishing, held = [], [], [], [], [], [], []
submitted = 0
done_proofs = 0
parts_done = 0
proof_left = {}
samples = []
noise_h = noise_r = noise_g = 0.0
retained_peak = 0.0
t = 0
params_ids = []
end_t = None


def submit(t):
    global submitted
    j = submitted
    submitted += 1
    proofs.append(dict(proof=j, t_submit=t, t_start=None, t_done=None))
    proof_left[j] = parts
    for k in range(parts):
        p = Part()
        p.proof, p.part, p.buf = j, k, {}
        waiting.append(p)


while True:
    if t == t_load:
        params_ids = [alloc("params", -1, -1, PARAMS, t), alloc("circuit", -1, -1, CIRCUIT, t),
                      alloc("ntt", -1, -1, NTT, t)]
    if t == t_load + t_idle:
        for _ in range(min(concurrency, a.proofs)):
            submit(t)
    # held buffers released
    for p in list(held):
        if t >= p.release:
            free(p.buf["aux"], t, last_use=p.fin_end)
            held.remove(p)
    # finish -> done
    for p in list(finishing):
        if t >= p.end:
            finishing.remove(p)
            stages.append((p.proof, p.part, "finish", "finish0", p.fin_start, t))
            free(p.buf["pending"], t)
            if hold_ms:
                p.fin_end, p.release = t - 1, t + hold_ms
                held.append(p)
            else:
                free(p.buf["aux"], t)
            parts_done += 1
            proof_left[p.proof] -= 1
            if proof_left[p.proof] == 0:
                proofs[p.proof]["t_done"] = t
                done_proofs += 1
                if submitted < a.proofs:
                    submit(t)
    # gpu -> finish
    for p in list(ongpu):
        if t >= p.end:
            ongpu.remove(p)
            stages.append((p.proof, p.part, "prove", "gpu0", p.gpu_start, t))
            for k in ("abc", "msm", "gpu_abc"):
                free(p.buf[k], t)
            p.buf["pending"] = alloc("pending", p.proof, p.part, P, t)
            p.fin_start, p.end = t, t + t_fin
            finishing.append(p)
    # queue -> gpu
    while queue and len(ongpu) < gpu_workers:
        p = queue.pop(0)
        stages.append((p.proof, p.part, "queue", "-", p.q_start, t))
        p.gpu_start, p.end = t, t + t_gpu
        p.buf["msm"] = alloc("msm", p.proof, p.part, M, t)
        p.buf["gpu_abc"] = alloc("gpu_abc", p.proof, p.part, D, t)
        if leak_per_part and a.untracked:
            untracked_leak[0] += leak_per_part
        elif leak_per_part:
            alloc("msm", p.proof, p.part, leak_per_part, t)  # never freed
        ongpu.append(p)
    # synthesis done -> queue (bounded), or blocked holding its permit
    for p in list(synth):
        if t >= p.end:
            synth.remove(p)
            stages.append((p.proof, p.part, "synth", "synth%d" % p.worker, p.s_start, t))
            blocked.append(p)
    for p in list(blocked):
        if sc == "pileup" or len(queue) < gpu_queue:
            blocked.remove(p)
            p.q_start = t
            queue.append(p)
        else:
            break
    # start synthesis
    busy = len(synth) + (0 if sc == "pileup" else len(blocked))
    while waiting and busy < pw:
        p = waiting.pop(0)
        p.s_start, p.end = t, t + int(t_synth * rng.uniform(0.8, 1.2))
        p.worker = busy
        p.buf["aux"] = alloc("aux", p.proof, p.part, A, t)
        p.buf["abc"] = alloc("abc", p.proof, p.part, C, t)
        if proofs[p.proof]["t_start"] is None:
            proofs[p.proof]["t_start"] = t
        synth.append(p)
        busy += 1
    if done_proofs == a.proofs and not held and end_t is None:
        end_t = t + 500
    if t % tick == 0:
        n_synth = len(synth) + len(blocked)
        tracked = sum(v for k, v in live.items() if not k.startswith("gpu_"))
        base_tracked = PARAMS + CIRCUIT + NTT if t >= t_load else 0
        noise_h = 0.6 * noise_h + rng.gauss(0, a.noise * 0.8)
        noise_r = 0.6 * noise_r + rng.gauss(0, a.noise * 0.8)
        noise_g = 0.6 * noise_g + rng.gauss(0, MIB)
        heap = tracked + UNTRACKED + untracked_leak[0] + noise_h
        active = heap + FRAG * max(0, tracked - base_tracked)
        resident = active
        dirty = 2 * MIB
        if sc == "retention":
            retained_peak = max(retained_peak, active)
            dirty += retained_peak - active
            resident = retained_peak
        rss_file = (PARAMS if t >= t_load else 0) * 0  # params are read into the heap here
        rss = resident + OUTSIDE + noise_r
        gpu = GPU_RUNTIME + sum(v for k, v in live.items() if k.startswith("gpu_")) + noise_g
        row = dict(t_ms=t, rss=rss, rss_anon=rss - 50 * MIB, rss_file=50 * MIB, hwm=0,
                   je_allocated=heap, je_active=active, je_resident=resident, je_mapped=resident + 64 * MIB,
                   je_retained=32 * MIB, je_metadata=8 * MIB, je_dirty=dirty, je_muzzy=0, gpu_used=gpu)
        for k in kinds:
            row["live_" + k] = live[k]
        row.update(q_synth=len(waiting), n_synth=n_synth, q_gpu=len(queue), n_gpu=len(ongpu),
                   n_finish=len(finishing), n_dealloc=len(held), partitions_done=parts_done,
                   proofs_done=done_proofs, tick_us=35)
        samples.append(row)
    if end_t is not None and t >= end_t:
        break
    t += 1

hwm = 0
for r in samples:
    for k in list(r):
        if k != "t_ms":
            r[k] = max(0, int(round(r[k])))
    hwm = max(hwm, r["rss"])
    r["hwm"] = hwm

os.makedirs(a.out, exist_ok=True)


def write(name, header, rows):
    with open(os.path.join(a.out, name), "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join("" if v is None else (("%.3f" % v) if isinstance(v, float) else str(v)) for v in r) + "\n")


cols = list(samples[0].keys())
write("samples.csv", cols, [[("%.3f" % r[c]) if c == "t_ms" else r[c] for c in cols] for r in samples])
order = sorted(bufs.values(), key=lambda b: (b["t_free"] is None, b["t_free"] or 0, b["id"]))
write("buffers.csv", ["id", "kind", "device", "proof", "partition", "bytes", "t_alloc_ms", "t_free_ms", "t_last_use_ms"],
      [[b["id"], b["kind"], b["device"], b["proof"], b["partition"], b["bytes"], float(b["t_alloc"]),
        None if b["t_free"] is None else float(b["t_free"]), None if b["t_last"] is None else float(b["t_last"])]
       for b in order])
write("stages.csv", ["proof", "partition", "stage", "worker", "t_start_ms", "t_end_ms"],
      [[s[0], s[1], s[2], s[3], float(s[4]), float(s[5])] for s in sorted(stages, key=lambda s: s[5])])
write("proofs.csv", ["proof", "t_submit_ms", "t_start_ms", "t_done_ms", "wall_ms", "verified"],
      [[p["proof"], float(p["t_submit"]), float(p["t_start"]), float(p["t_done"]),
        float(p["t_done"] - p["t_submit"]), 1] for p in sorted(proofs, key=lambda p: p["t_done"])])
first = min(p["t_submit"] for p in proofs)
last = max(p["t_done"] for p in proofs)
peak = max(r["rss"] for r in samples)
run = {
    "config": {"pw": pw, "gpu_workers": gpu_workers, "gpu_queue": gpu_queue, "concurrency": concurrency,
               "partitions": parts, "count": a.proofs, "circuit": "synthetic", "sample_ms": tick},
    "machine": {"cpu": "Synthetic CPU 9000", "cores": 16, "ram_bytes": 128 * GIB, "gpu": "none", "gpus": 0},
    "versions": {"commit": "synthetic", "jemalloc": "5.3.0", "cuda": "none"},
    "status": "interrupted" if a.truncate else "complete",
    "interrupted": bool(a.truncate),
    "summary": {"peak_rss": peak, "s_per_proof": (last - first) / 1000.0 / a.proofs,
                "proofs_done": a.proofs, "wall_s": samples[-1]["t_ms"] / 1000.0},
}
with open(os.path.join(a.out, "run.json"), "w") as f:
    json.dump(run, f, indent=2)

f_tracked = {"f_synth": A + C, "f_queue": A + C, "f_gpu": A + C + M, "f_finish": A + P}
truth = {
    "scenario": sc,
    "seed": a.seed,
    "verdict": {"healthy": "healthy", "capacity": "healthy", "leak": "leak", "retention": "retention",
                "held": "held-too-long", "pileup": "queue-pileup"}[sc],
    "f_tracked": f_tracked,
    "f_rss": {k: v * (1 + FRAG) for k, v in f_tracked.items()},
    "g_tracked": a.leak if sc == "leak" and not a.untracked else 0,
    "g_heap": a.leak if sc == "leak" else 0,
    "peak_rss": peak,
    "pw": pw,
    "baseline_rss": PARAMS + CIRCUIT + NTT + UNTRACKED + OUTSIDE,
}
with open(os.path.join(a.out, "truth.json"), "w") as f:
    json.dump(truth, f, indent=2)

if a.truncate:
    # what SIGKILL leaves: every file cut inside its last row
    for name in ("samples.csv", "buffers.csv", "stages.csv", "proofs.csv"):
        path = os.path.join(a.out, name)
        with open(path) as f:
            text = f.read()
        lines = text.split("\n")
        if len(lines) > 3:
            last = lines[-2]
            text = "\n".join(lines[:-2]) + "\n" + last[: max(1, len(last) // 2)]
        with open(path, "w") as f:
            f.write(text)
