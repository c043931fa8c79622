#!/usr/bin/env python3
"""Synthetic `zkbench watch` runs with known answers, for the analyze tests.

gen_watch.py SCENARIO OUT_DIR [options]

Writes what a watch of a foreign prover writes: samples.csv (the batch
header with the heap, tracked and pipeline columns empty, or with --absent
left out), run.json (config.mode "command"), optionally marks.csv (proof
boundaries: --marks), the proofs_done column (--proofs-col), the columns
other parts of watch add (--extra: n_procs, cg_*, gpu0_used,
gpu0_device_used), and for --trace runs buffers.csv + sites.csv; plus
truth.json with the planted verdict and growth.

The process runs `--cycles` proof cycles of `--cycle-ms`, sampled every
`--tick-ms`. Scenarios (anonymous memory; file-backed stays flat):
  linear         grows --leak bytes per cycle, evenly over time, no sawtooth
  sawtooth-leak  a 64 MiB scratch buffer per cycle (freed at 70% of it)
                 and --leak bytes per cycle never freed: the floors rise
  sawtooth       the same scratch buffer, nothing kept: floors flat
  steady         flat with noise
  cache          the sawtooth plus a cache that keeps 4 MiB a cycle for the
                 first third of the cycles, then stays at its bound
  sites          the cache and the leak as traced sites (buffers.csv,
                 sites.csv): leak_step@leak.c:14 keeps --leak per cycle,
                 cache_put@cache.c:30 keeps 4 MiB a cycle for the first
                 third, work@work.c:7 a 64 MiB scratch freed every cycle
"""
import argparse
import json
import os
import random

MIB = 1 << 20

ap = argparse.ArgumentParser()
ap.add_argument("scenario", choices=["linear", "sawtooth-leak", "sawtooth", "steady", "cache", "sites"])
ap.add_argument("out")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--cycles", type=int, default=30)
ap.add_argument("--cycle-ms", type=float, default=200)
ap.add_argument("--tick-ms", type=float, default=10)
ap.add_argument("--leak", type=float, default=2 * MIB, help="bytes kept per cycle (leak scenarios)")
ap.add_argument("--noise", type=float, default=256 * 1024, help="sd of the AR(1) noise on RssAnon")
ap.add_argument("--marks", action="store_true", help="write marks.csv (unsorted, with API phase marks too)")
ap.add_argument("--proofs-col", action="store_true", help="fill samples.csv proofs_done")
ap.add_argument("--absent", action="store_true", help="leave the columns a watch cannot fill out of the header")
ap.add_argument("--extra", action="store_true", help="add n_procs, cg_*, gpu0_used, gpu0_device_used columns")
ap.add_argument("--samples", type=int, default=-1, help="keep only the first N samples (degenerate runs)")
ap.add_argument("--equal-times", action="store_true", help="every sample at the same t_ms")
ap.add_argument("--free-at-exit", action="store_true", help="sites: the leaked buffers are freed just before exit")
a = ap.parse_args()
rng = random.Random(a.seed)
sc = a.scenario

BASE_ANON, FILE = 24 * MIB, 8 * MIB
SCRATCH = 64 * MIB
CACHE_STEP, cache_cycles = 4 * MIB, a.cycles // 3
leak = a.leak if sc in ("linear", "sawtooth-leak", "sites") else 0
end_ms = a.cycles * a.cycle_ms + a.cycle_ms / 2  # a little idle after the last proof

# traced buffers (sites scenario): id, kind, bytes, t_alloc, t_free, site
bufs = []


def buf(kind, site, nbytes, ta, tf):
    bufs.append(dict(id=len(bufs) + 1, kind=kind, site=site, bytes=int(nbytes), t_alloc=ta, t_free=tf))


if sc == "sites":
    for c in range(a.cycles):
        t0 = c * a.cycle_ms
        buf("work@work.c:7", "0x401a10", SCRATCH, t0 + 1, t0 + 0.7 * a.cycle_ms)
        buf("leak_step@leak.c:14", "0x401b20", leak, t0 + 2, end_ms - 5 if a.free_at_exit else None)
        if c < cache_cycles:
            buf("cache_put@cache.c:30", "0x401c30", CACHE_STEP, t0 + 3, None)
    # a user tag (zkbench_kind) that is freed: not a site to blame
    buf("proof-output", "0x401d40", 3 * MIB, 5, end_ms - 20)


def anon_at(t):
    """Anonymous bytes at time t (ms), without noise."""
    c = int(t // a.cycle_ms)
    ph = (t - c * a.cycle_ms) / a.cycle_ms
    done = min(c, a.cycles)  # cycles completed before this one
    v = BASE_ANON
    if sc == "linear":
        return v + leak * min(t / a.cycle_ms, a.cycles)
    active = c < a.cycles
    if sc in ("sawtooth-leak", "sawtooth", "cache", "sites") and active and ph < 0.7:
        v += SCRATCH
    if sc in ("sawtooth-leak", "sites"):
        v += leak * (done + (1 if active else 0))
    if sc in ("cache", "sites"):
        v += CACHE_STEP * min(done + (1 if active else 0), cache_cycles)
    if sc == "sites":
        v += 3 * MIB if 5 <= t < end_ms - 20 else 0
    return v


samples = []
noise = 0.0
t = 0.0
k = 0
while t <= end_ms:
    noise = 0.5 * noise + rng.gauss(0, a.noise)
    anon = max(0, anon_at(t) + noise)
    proofs = min(int(t // a.cycle_ms), a.cycles) if t >= a.cycle_ms else 0
    samples.append(dict(t=t, anon=int(anon), file=FILE, proofs=proofs))
    k += 1
    t = k * a.tick_ms
if a.samples >= 0:
    samples = samples[: a.samples]
if a.equal_times:
    for s in samples:
        s["t"] = 1000.0

heap = ["je_allocated", "je_active", "je_resident", "je_mapped", "je_retained", "je_metadata", "je_dirty", "je_muzzy"]
kinds = ["params", "circuit", "aux", "abc", "ntt", "h", "msm", "pending", "pinned", "other",
         "gpu_params", "gpu_abc", "gpu_ntt", "gpu_h", "gpu_msm", "gpu_other"]
occ = ["q_synth", "n_synth", "n_blocked", "q_gpu", "n_gpu", "n_finish", "n_dealloc", "partitions_admitted",
       "partitions_done", "proofs_done"]
cols = ["t_ms", "rss", "rss_anon", "rss_file", "hwm"]
if not a.absent:
    cols += heap
cols += ["gpu_used"]
if not a.absent:
    cols += ["live_" + k for k in kinds] + occ
elif a.proofs_col:
    cols += ["proofs_done"]
cols += ["tick_us"]
if a.extra:
    cols += ["n_procs", "cg_current", "cg_peak", "cg_anon", "cg_file", "cg_shmem", "cg_oom_kill", "gpu0_used",
             "gpu0_device_used"]
os.makedirs(a.out, exist_ok=True)
hwm = 0
with open(os.path.join(a.out, "samples.csv"), "w") as f:
    f.write(",".join(cols) + "\n")
    for s in samples:
        rss = s["anon"] + s["file"]
        hwm = max(hwm, rss)
        row = dict(t_ms="%.3f" % s["t"], rss=rss, rss_anon=s["anon"], rss_file=s["file"], hwm=hwm, gpu_used=0,
                   tick_us="35.0")
        row["proofs_done"] = s["proofs"] if a.proofs_col else ""
        if a.extra:
            page_cache = 5 * MIB + int(s["t"] * 2000)  # the program's log grows the page cache steadily
            row.update(n_procs=2, cg_current=rss + page_cache, cg_peak=hwm + page_cache, cg_anon=s["anon"],
                       cg_file=s["file"] + page_cache, cg_shmem=0, cg_oom_kill=0, gpu0_used=0,
                       gpu0_device_used=512 * MIB)
        f.write(",".join(str(row.get(c, "")) for c in cols) + "\n")

marks_t = [c * a.cycle_ms + a.cycle_ms * 0.99 for c in range(a.cycles)]
if a.marks:
    rows = [(t, 4242, "output", "proof done") for t in marks_t]
    rows += [(c * a.cycle_ms + 1, 4242, "api", "synth") for c in range(a.cycles)]
    rows += [(c * a.cycle_ms + 90, 4243, "api", "prove") for c in range(a.cycles)]
    rng.shuffle(rows)  # rows may come unsorted (two writers)
    with open(os.path.join(a.out, "marks.csv"), "w") as f:
        f.write("t_ms,pid,source,name\n")
        for r in rows:
            f.write("%.3f,%d,%s,%s\n" % r)

if bufs:
    with open(os.path.join(a.out, "buffers.csv"), "w") as f:
        f.write("id,kind,device,proof,partition,bytes,t_alloc_ms,t_free_ms,t_last_use_ms,site\n")
        for b in sorted(bufs, key=lambda b: (b["t_free"] is None, b["t_free"] or 0)):
            f.write("%d,%s,host,-1,-1,%d,%.3f,%s,,%s\n" % (b["id"], b["kind"], b["bytes"], b["t_alloc"],
                                                        "" if b["t_free"] is None else "%.3f" % b["t_free"], b["site"]))
    with open(os.path.join(a.out, "sites.csv"), "w") as f:
        f.write("site,function,file,line,module,frames,n_allocs,bytes_total,n_small,bytes_small,never_freed_bytes\n")
        info = {"0x401a10": ("work", "/src/work.c", 7), "0x401b20": ("leak_step", "/src/leak.c", 14),
                "0x401c30": ("cache_put", "/src/cache.c", 30), "0x401d40": ("emit", "/src/out.c", 3)}
        for site, (fn, file, line) in info.items():
            bs = [b for b in bufs if b["site"] == site]
            nf = sum(b["bytes"] for b in bs if b["t_free"] is None)
            f.write('%s,"%s",%s,%d,prover,%s,%d,%d,0,0,%d\n' % (site, fn, file, line, site + "|0x400100", len(bs),
                                                               sum(b["bytes"] for b in bs), nf))
    # a site with only small allocations, never freed: seen in sites.csv alone
    with open(os.path.join(a.out, "sites.csv"), "a") as f:
        f.write('0x401e50,"std::map<int, int>::insert",/src/map.cc,88,prover,0x401e50,5000,500000,5000,500000,'
                '500000\n')

rss = [s["anon"] + s["file"] for s in samples]
run = {
    "config": {"mode": "command", "pid": 4242, "command": "synthetic-prover --%s" % sc, "sample_ms": a.tick_ms,
               "smaps": False, "gpu": False, "mem_limit": None},
    "exit_code": 0, "interrupted": False, "outcome": "complete", "status": "complete",
    "summary": {"first_rss": rss[0] if rss else 0, "last_rss": rss[-1] if rss else 0,
                "peak_rss": max(rss) if rss else 0, "wall_s": end_ms / 1000, "ticks": len(samples)},
}
with open(os.path.join(a.out, "run.json"), "w") as f:
    json.dump(run, f, indent=2)

per_proof = a.marks or a.proofs_col
verdict = "leak" if leak > 0 else "healthy"
truth = {
    "scenario": sc, "seed": a.seed, "verdict": verdict, "per_proof": per_proof,
    "growth": leak if per_proof else leak / (a.cycle_ms / 1000.0),
    "peak_rss": max(rss) if rss else 0,
    "leak_function": "leak_step" if sc == "sites" else None,
    "cache_function": "cache_put" if sc == "sites" else None,
    "site_never_freed": {"leak_step": 0 if a.free_at_exit else int(leak) * a.cycles, "cache_put": CACHE_STEP * cache_cycles,
                         "work": 0} if sc == "sites" else {},
    "site_held_gib_s": {"work": a.cycles * SCRATCH * (0.7 * a.cycle_ms - 1) / 1000 / (1 << 30)} if sc == "sites" else {},
}
with open(os.path.join(a.out, "truth.json"), "w") as f:
    json.dump(truth, f, indent=2)
