#!/usr/bin/env python3
"""Checks the files of a zkbench batch run for consistency (tests only).

  check_run.py RUN_DIR [--complete] [--killed] [--overlap]

- reserved_bytes stays within run.json's mem_budget (budget less baseline),
  0 without one;
- every CSV has the documented header and whole rows (a run killed with
  SIGKILL may end in the middle of nothing: rows are written whole);
- sample times increase; occupancy counters are non-negative integers;
- the tracked live bytes of each sample equal the bytes of the buffers in
  buffers.csv alive at that time, exactly: a sample's t_ms is the instant
  of its counters (mem_live_snapshot), so only an event within the 0.001 ms
  the printed times round to may fall on the other side;
- stage times nest inside their proof's submit..done interval;
- the six partition states sum to partitions_admitted - partitions_done on
  every row;
- --complete: the bytes of every partition's witness (aux: 32 v), a, b, c
  (abc: three buffers of 32 n) and pending b_g2 copy (32 n_b) are what
  docs/diagnosis.md's formula gives for run.json's circuit_shape;
- --complete: every tracked buffer has its free except nothing (the run
  released everything), run.json is complete with the summary keys;
- a GPU run's samples.csv has gpu<d>_used for each device of config.gpus
  after gpu_used (then gpu<d>_util for each, or none), and gpu_used is
  their sum on every row;
- a wait_lane row (a GPU stage waiting for its lane) ends where a GPU stage
  of its worker and partition begins;
- --overlap: two different prover workers' GPU stages (h, msm_*) overlap in
  time (GPU batches with --gpu-workers 2 and more).
Prints one line per problem and exits 1 if any.
"""
import csv
import json
import sys

KINDS = ["params", "circuit", "aux", "abc", "ntt", "h", "msm", "pending", "pinned", "other",
         "gpu_params", "gpu_abc", "gpu_ntt", "gpu_h", "gpu_msm", "gpu_other"]
SAMPLES = (["t_ms", "rss", "rss_anon", "rss_file", "hwm", "je_allocated", "je_active", "je_resident",
            "je_mapped", "je_retained", "je_metadata", "je_dirty", "je_muzzy", "je_arena_freed_max", "je_arenas_freed",
            "gpu_used"]
           + ["live_" + k for k in KINDS]
           + ["q_synth", "n_synth", "n_blocked", "q_gpu", "n_gpu", "n_finish", "n_dealloc",
              "partitions_admitted", "partitions_done", "proofs_done", "reserved_bytes", "tick_us"])
STATES = ["q_synth", "n_synth", "n_blocked", "q_gpu", "n_gpu", "n_finish"]
HEADERS = {
    "samples.csv": SAMPLES,
    "buffers.csv": ["id", "kind", "device", "proof", "partition", "bytes", "t_alloc_ms", "t_free_ms",
                    "t_last_use_ms"],
    "stages.csv": ["proof", "partition", "stage", "worker", "t_start_ms", "t_end_ms"],
    "proofs.csv": ["proof", "t_submit_ms", "t_start_ms", "t_done_ms", "wall_ms", "verified"],
}

problems = []
# times are printed with three decimals: two stamps 1 us apart may print alike
ROUNDING_MS = 0.0015


def problem(msg):
    problems.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def load(run, name):
    path = f"{run}/{name}"
    with open(path, newline="") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        problem(f"{name}: last row is not whole")
    rows = list(csv.reader(text.splitlines()))
    want = HEADERS[name]
    if name == "samples.csv":
        # a GPU batch: gpu<d>_used of each device of config.gpus after gpu_used
        with open(f"{run}/run.json") as f:
            cfg = json.load(f).get("config", {})
        if cfg.get("backend") == "gpu":
            # then gpu<d>_util of each (NVML's utilisation), all or none:
            # none where NVML or its query is missing
            at = want.index("gpu_used") + 1
            used = [f"gpu{d}_used" for d in cfg.get("gpus", [])]
            util = [f"gpu{d}_util" for d in cfg.get("gpus", [])]
            with_util = bool(rows) and rows[0][at + len(used):at + 2 * len(used)] == util
            want = want[:at] + used + (util if with_util else []) + want[at:]
    if not rows or rows[0] != want:
        problem(f"{name}: header {rows[0] if rows else None} is not the documented one {want}")
        return []
    out = []
    for i, r in enumerate(rows[1:], 2):
        if len(r) != len(want):
            problem(f"{name}:{i}: {len(r)} fields, expected {len(want)}")
            continue
        out.append(dict(zip(want, r)))
    return out


GPU_STAGES = ("h", "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2")


def check_gpu_overlap(stages):
    """--overlap: the GPU stages of two different prover workers overlap in
    time (the device runs both workers' proofs at once), by at least a
    tenth of the shorter of the two stages."""
    rows = [(float(r["t_start_ms"]), float(r["t_end_ms"]), r["worker"], r["stage"], r["proof"], r["partition"])
            for r in stages if r["stage"] in GPU_STAGES]
    best = None
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if a[2] == b[2]:
                continue
            ov = min(a[1], b[1]) - max(a[0], b[0])
            short = min(a[1] - a[0], b[1] - b[0])
            if short > 0 and ov >= 0.1 * short and (best is None or ov > best[0]):
                best = (ov, a, b)
    if best is None:
        problem("no two prover workers' GPU stages overlap in time")
    else:
        ov, a, b = best
        print(f"overlap: {a[2]} {a[3]} (proof {a[4]} partition {a[5]}) and {b[2]} {b[3]} "
              f"(proof {b[4]} partition {b[5]}) overlap by {ov:.1f} ms")


def check_lane_waits(stages):
    """A wait_lane row (a GPU stage waiting for its lane) ends where a GPU
    stage of the same worker and partition begins: the stage it delayed."""
    starts = {(r["proof"], r["partition"], r["worker"], r["t_start_ms"])
              for r in stages if r["stage"] in GPU_STAGES}
    for r in stages:
        if r["stage"] == "wait_lane" and (r["proof"], r["partition"], r["worker"], r["t_end_ms"]) not in starts:
            problem(f"proof {r['proof']} partition {r['partition']}: wait_lane [{r['t_start_ms']}, "
                    f"{r['t_end_ms']}] by {r['worker']} is followed by none of its GPU stages")


PROVE_PARTS = ("h", "msm_h", "msm_l", "msm_a", "msm_b1")


def check_prove_stages(stages):
    """Every partition that finished has the heavy stages of its prove as
    rows of their own, by the same worker: h and the G1 MSMs one after the
    other inside its prove row, msm_b2 (the split's thread, or finish's)
    after the prove began and before the finish ended."""
    by_part = {}
    for st in stages:
        by_part.setdefault((st["proof"], st["partition"]), {})[st["stage"]] = st
    for key, rows in by_part.items():
        if "prove" not in rows or "finish" not in rows:
            continue
        prove, finish = rows["prove"], rows["finish"]
        p0, p1 = float(prove["t_start_ms"]), float(prove["t_end_ms"])
        last = p0
        for name in PROVE_PARTS:
            r = rows.get(name)
            if not r:
                problem(f"proof {key[0]} partition {key[1]}: no {name} row in stages.csv")
                continue
            a, b = float(r["t_start_ms"]), float(r["t_end_ms"])
            if not (last - 0.01 <= a <= b <= p1 + 0.01):
                problem(f"proof {key[0]} partition {key[1]}: {name} [{a}, {b}] is not after the stage "
                        f"before it ({last}) inside prove [{p0}, {p1}]")
            if r["worker"] != prove["worker"]:
                problem(f"proof {key[0]} partition {key[1]}: {name} by {r['worker']}, prove by {prove['worker']}")
            last = b
        r = rows.get("msm_b2")
        if not r:
            problem(f"proof {key[0]} partition {key[1]}: no msm_b2 row in stages.csv")
        elif not (p0 - 0.01 <= float(r["t_start_ms"]) <= float(r["t_end_ms"]) <= float(finish["t_end_ms"]) + 0.01):
            problem(f"proof {key[0]} partition {key[1]}: msm_b2 [{r['t_start_ms']}, {r['t_end_ms']}] is not "
                    f"between the prove's start {p0} and the finish's end {finish['t_end_ms']}")


def main():
    run = sys.argv[1]
    complete = "--complete" in sys.argv
    samples = load(run, "samples.csv")
    buffers = load(run, "buffers.csv")
    stages = load(run, "stages.csv")
    proofs = load(run, "proofs.csv")
    if not samples:
        problem("no samples")
        return

    last = -1.0
    for s in samples:
        t = float(s["t_ms"])
        if t <= last:
            problem(f"sample time {t} does not increase (previous {last})")
        last = t
        for k in SAMPLES[1:-1]:
            if not s[k].isdigit():
                problem(f"sample at {t}: {k} = {s[k]!r} is not a non-negative integer")
                return
        for k in s:
            if k.startswith("gpu") and k.endswith("_util") and s[k] != "" and not (
                    s[k].isdigit() and int(s[k]) <= 100):
                problem(f"sample at {t}: {k} = {s[k]!r} is not a percentage")
                return
        per_gpu = [k for k in s if k.startswith("gpu") and k.endswith("_used") and k != "gpu_used"]
        if per_gpu and sum(int(s[k]) for k in per_gpu) != int(s["gpu_used"]):
            problem(f"sample at {t}: gpu_used {s['gpu_used']} is not the sum of {per_gpu}")
            return

    # every admitted partition is in exactly one state, on every row
    for s in samples:
        held = sum(int(s[k]) for k in STATES)
        if held != int(s["partitions_admitted"]) - int(s["partitions_done"]):
            problem(f"sample at {s['t_ms']}: states sum to {held}, admitted - done is "
                    f"{int(s['partitions_admitted']) - int(s['partitions_done'])}")
            break

    # --mem-budget: what is reserved never exceeds the budget above the
    # baseline, and nothing is reserved without a budget
    with open(f"{run}/run.json") as f:
        mb = json.load(f).get("mem_budget")
    room = mb["budget_bytes"] - mb["baseline_bytes"] if mb else 0
    for s in samples:
        if int(s["reserved_bytes"]) > room:
            problem(f"sample at {s['t_ms']}: reserved_bytes {s['reserved_bytes']} above the budget's room {room}")
            break

    # tracked bytes per sample vs buffers alive at that time; a killed run
    # never wrote the rows of the buffers live at the kill, so skip it there
    killed = "--killed" in sys.argv
    spans = []
    events = []
    for b in buffers:
        if b["device"] != "host":
            continue
        t0 = float(b["t_alloc_ms"])
        t1 = float(b["t_free_ms"]) if b["t_free_ms"] else float("inf")
        spans.append((t0, t1, int(b["bytes"])))
        events.append(t0)
        if t1 != float("inf"):
            events.append(t1)
    events.sort()
    import bisect
    mismatched = 0
    for s in ([] if killed else samples):
        t = float(s["t_ms"])
        live = sum(int(s["live_" + k]) for k in KINDS if not k.startswith("gpu"))
        alive = sum(n for t0, t1, n in spans if t0 <= t < t1)
        if live != alive:
            i = bisect.bisect_left(events, t - ROUNDING_MS)
            if i < len(events) and events[i] <= t + ROUNDING_MS:
                mismatched += 1
                continue
            problem(f"sample at {t} ms: tracked live {live} B != buffers alive {alive} B, no event near")
    if mismatched > max(3, len(samples) // 5):
        problem(f"{mismatched} of {len(samples)} samples differ from buffers.csv near events")

    # stages nest inside their proof
    by_proof = {int(p["proof"]): p for p in proofs}
    for st in stages:
        p = by_proof.get(int(st["proof"]))
        a, b = float(st["t_start_ms"]), float(st["t_end_ms"])
        if b < a:
            problem(f"stage {st} ends before it starts")
        if p and not (float(p["t_submit_ms"]) - 0.01 <= a and b <= float(p["t_done_ms"]) + 0.01):
            problem(f"stage {st['stage']} of proof {st['proof']} partition {st['partition']} "
                    f"[{a}, {b}] is outside the proof [{p['t_submit_ms']}, {p['t_done_ms']}]")
    check_prove_stages(stages)
    check_lane_waits(stages)
    if "--overlap" in sys.argv:
        check_gpu_overlap(stages)
    for p in proofs:
        if abs(float(p["t_done_ms"]) - float(p["t_submit_ms"]) - float(p["wall_ms"])) > 0.01:
            problem(f"proof {p['proof']}: wall_ms is not t_done - t_submit")

    if complete:
        never = [b for b in buffers if not b["t_free_ms"]]
        if never:
            problem(f"{len(never)} tracked buffers never freed, e.g. {never[0]}")
        with open(f"{run}/run.json") as f:
            j = json.load(f)
        if j.get("interrupted") is not False or j.get("status") != "complete":
            problem(f"run.json: interrupted={j.get('interrupted')} status={j.get('status')}")
        for k in ("baseline_rss", "peak_rss", "s_per_proof", "proofs_per_min"):
            if k not in j.get("summary", {}):
                problem(f"run.json: summary lacks {k}")
        if j["summary"]["peak_rss"] < j["summary"]["baseline_rss"]:
            problem("run.json: peak below baseline")
        check_partition_bytes(j, buffers)


def check_partition_bytes(j, buffers):
    """The witness, a, b, c and pending bytes of every partition against the
    formula of docs/diagnosis.md ("Bytes per partition")."""
    shape = j.get("circuit_shape")
    if shape is None:
        if not str(j.get("config", {}).get("circuit", "")).startswith("zkey:"):
            problem("run.json: no circuit_shape")
        return
    if str(j.get("config", {}).get("circuit", "")).startswith("porep"):
        # production's shape: A over >= 99 % of the aux, B over 25.4 % +- 2
        if not (shape.get("a_aux_density", 0) >= 0.99 and 0.234 <= shape.get("b_aux_density", 0) <= 0.274):
            problem(f"run.json: circuit_shape densities A {shape.get('a_aux_density')} B {shape.get('b_aux_density')}"
                    ", production's are >= 0.99 and 0.254 +- 0.02")
    fr = 32
    want = {"aux": [fr * shape["variables"]], "abc": [fr * shape["domain"]] * 3,
            "pending": [fr * shape["b_density"]]}
    parts = {}
    for b in buffers:
        if b["device"] != "host" or int(b["partition"]) < 0 or b["kind"] not in want:
            continue
        parts.setdefault((int(b["proof"]), int(b["partition"])), {}).setdefault(b["kind"], []).append(int(b["bytes"]))
    n_parts = j["config"]["count"] * j["config"]["partitions"]
    if len(parts) != n_parts:
        problem(f"buffers.csv: aux/abc/pending buffers of {len(parts)} partitions, expected {n_parts}")
    for key, kinds in sorted(parts.items()):
        for kind, sizes in want.items():
            if sorted(kinds.get(kind, [])) != sizes:
                problem(f"partition {key}: {kind} buffers {kinds.get(kind, [])}, the formula gives {sizes}")
                return


main()
sys.exit(1 if problems else 0)
