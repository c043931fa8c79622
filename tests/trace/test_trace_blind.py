#!/usr/bin/env python3
"""`zkbench watch --trace`'s former blind spots and double counts (issue 27,
item 2), each on a program whose allocations are planted (tests/trace/t_*.c):
the allocator's own mappings (jemalloc as a shared library) kept apart from
the program's sites; mappings trimmed, split and moved matched by range;
PROT_NONE reservations committed by mprotect counted; an allocator linked
into the program said in one line and followed through sbrk; a leak of
4 KiB nodes named by sampling within 20 %; a shared helper's leak named
through its leaking caller; a shell's fork-exec children leave no files;
`zkbench trace collect` gives what watch gives; analyze's site table does
not cut names to the same text.
With --heaptrack the same programs run under heaptrack and its leaks are the
reference (exit 77 when heaptrack is absent).
  test_trace_blind.py ZKBENCH PROGRAM_DIR [--heaptrack]"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ZK, PROGS = (os.path.abspath(a) for a in sys.argv[1:3])
HEAPTRACK = "--heaptrack" in sys.argv[3:]
MIB = 1 << 20
fails = []
tmp = tempfile.mkdtemp(prefix="zkbench-trace-blind-")


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails.append(what)


def prog(name):
    return os.path.join(PROGS, name)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def watch(name, *args, cmd=None, tag=""):
    out = os.path.join(tmp, name + "-" + "-".join(args) + tag)
    cmd = cmd or [prog(name), *args]
    r = subprocess.run([ZK, "watch", "--trace", "--sample-ms", "50", "--out", out, "--", *cmd],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"{name}: watch exit {r.returncode}" + ("" if r.returncode == 0 else "\n" + r.stderr))
    sites = read_csv(os.path.join(out, "sites.csv")) if os.path.exists(os.path.join(out, "sites.csv")) else []
    return out, r, sites


def num(row, col):
    v = row.get(col, "") if row else ""
    return int(v) if v not in ("", None) else 0


def where(sites, fn, caller=None):
    """rows of sites.csv whose function is fn (and whose frames pass through caller)"""
    return [s for s in sites if s["function"] == fn and (caller is None or caller in s["frames"])]


def total(rows, col):
    return sum(num(r, col) for r in rows)


UNIT = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def heaptrack_leaks(cmd):
    """heaptrack's leaks: {(function, caller or None): bytes}, from heaptrack_print."""
    data = os.path.join(tmp, "ht-%d" % len(os.listdir(tmp)))
    subprocess.run(["heaptrack", "-o", data, *cmd], capture_output=True, text=True, timeout=300)
    files = [f for f in os.listdir(tmp) if f.startswith(os.path.basename(data))]
    if not files:
        return {}
    r = subprocess.run(["heaptrack_print", "-f", os.path.join(tmp, files[0]), "--print-leaks", "1",
                        "--print-peaks", "0", "--print-allocators", "0", "--print-temporary", "0",
                        "--print-histogram", "0"], capture_output=True, text=True, timeout=300)
    leaks, fn = {}, None
    lines = r.stdout.splitlines()
    for i, line in enumerate(lines):
        # "N leaked over K calls from" then the function; "... from:" then one caller's stack
        m = re.match(r"^\s*([\d.]+)([KMGT]?) leaked over \d+ calls from(:?)$", line)
        if not m or i + 1 >= len(lines):
            continue
        nxt = lines[i + 1].strip()
        b = float(m.group(1)) * UNIT[m.group(2)]
        if not m.group(3):
            fn = nxt
            leaks[(fn, None)] = leaks.get((fn, None), 0) + b
        elif fn:
            leaks[(fn, nxt)] = leaks.get((fn, nxt), 0) + b
    return leaks


def near(a, b, rel):
    return b > 0 and abs(a - b) <= rel * b


if HEAPTRACK and not shutil.which("heaptrack"):
    print("skip: heaptrack is not installed (scripts/test-setup.sh installs it)")
    sys.exit(77)

if HEAPTRACK:
    # ---- each case against heaptrack on the same program ----
    if os.path.exists(prog("t_jemalloc")):
        _, _, S = watch("t_jemalloc")
        ht = heaptrack_leaks([prog("t_jemalloc")])
        ours = total(where(S, "leak_big"), "never_freed_bytes")
        check(near(ours, ht.get(("leak_big", None), 0), 0.01),
              f"jemalloc: leak_big never freed {ours} B, heaptrack {ht.get(('leak_big', None))}")
    _, _, S = watch("t_nodes", "200")
    ht = heaptrack_leaks([prog("t_nodes"), "200"])
    ours = total(where(S, "leak_nodes"), "never_freed_bytes")
    check(near(ours, ht.get(("leak_nodes", None), 0), 0.20),
          f"4 KiB nodes: leak_nodes never freed {ours} B (sampled), heaptrack {ht.get(('leak_nodes', None))}")
    _, _, S = watch("t_helper")
    ht = heaptrack_leaks([prog("t_helper")])
    ours = total(where(S, "make_buf", "leaky_caller"), "never_freed_bytes")
    check(near(ours, ht.get(("make_buf", "leaky_caller"), 0), 0.01)
          and total(where(S, "make_buf", "tidy_caller"), "never_freed_bytes") == 0
          and ("make_buf", "tidy_caller") not in ht,
          f"shared helper: make_buf via leaky_caller {ours} B, heaptrack {ht.get(('make_buf', 'leaky_caller'))}")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(fails)} check(s) failed" if fails else "trace vs heaptrack: all checks passed")
    sys.exit(1 if fails else 0)

# ---- jemalloc as a shared library: its extents are its own ----
if os.path.exists(prog("t_jemalloc")):
    out, r, S = watch("t_jemalloc")
    m = re.search(r"leaked (\d+) bytes", r.stdout)
    leak = int(m.group(1)) if m else -1
    check(total(where(S, "leak_big"), "never_freed_bytes") == leak,
          f"jemalloc: leak_big never freed {total(where(S, 'leak_big'), 'never_freed_bytes')} B, the program "
          f"says {leak} (the allocator's mmaps are not added to it)")
    A = [s for s in S if s["site"].startswith("allocator:libjemalloc")]
    check(len(A) == 1 and num(A[0], "allocator_live_bytes") >= leak and num(A[0], "never_freed_bytes") == 0,
          f"jemalloc's own mappings: one site allocator:libjemalloc…, live {num(A[0], 'allocator_live_bytes') if A else None}"
          " B, never counted as a leak")
    with open(os.path.join(out, "run.json")) as f:
        tr = json.load(f).get("trace", {})
    check(tr.get("never_freed_bytes") == leak and tr.get("allocator_mapped_bytes", 0) >= leak,
          f"run.json: never freed {tr.get('never_freed_bytes')} = the leak; allocator_mapped_bytes "
          f"{tr.get('allocator_mapped_bytes')}")
    check(len([x for x in r.stdout.splitlines() if "mapped by the allocator itself" in x]) == 1,
          "watch says the allocator's mapped bytes and overhead in one line")
else:
    print("note: no shared libjemalloc: the jemalloc case was not built")

# ---- map, then trim; a hole; mremap ----
out, r, S = watch("t_trim")
for caller, want in (("trim_leak", 6 * MIB), ("hole_leak", 6 * MIB), ("grow_leak", 18 * MIB), ("tidy", 0)):
    got = total(where(S, "map", caller), "never_freed_bytes")
    check(got == want, f"munmap/mremap by range: map via {caller} never freed {got} B, expected {want}")
B = read_csv(os.path.join(out, "buffers.csv"))
check(sum(int(b["bytes"]) for b in B if not b["t_free_ms"]) == 30 * MIB,
      "buffers.csv: the mappings left hold 30 MiB, as the program kept")

# ---- reserve, then commit ----
out, r, S = watch("t_reserve")
check(total(where(S, "commit_leak"), "never_freed_bytes") == 32 * MIB and total(where(S, "commit_leak"), "n_allocs") == 4,
      f"mprotect commits of a PROT_NONE reservation counted: commit_leak 32 MiB in 4 "
      f"({total(where(S, 'commit_leak'), 'never_freed_bytes')})")
check(total(where(S, "commit_tidy"), "n_allocs") == 4 and total(where(S, "commit_tidy"), "never_freed_bytes") == 0,
      "a commit decommitted (PROT_NONE again) ends")
check(not where(S, "main"), "the reservation itself is not memory")

# ---- its own allocator, linked into the program ----
out, r, S = watch("t_ownalloc")
P = read_csv(os.path.join(out, "trace", "processes.csv"))
check(len(P) == 1 and P[0].get("allocator", "").startswith("static:"),
      f"processes.csv names the program's own allocator ({P[0].get('allocator') if P else None})")
notes = [x for x in r.stdout.splitlines() if "its own allocator" in x]
check(len(notes) == 1, f"watch says so in one line ({notes})")
check(total(where(S, "leak_nodes"), "never_freed_bytes") == 24 * MIB,
      f"traced through sbrk, the site is the caller of malloc: leak_nodes 24 MiB "
      f"({[(s['site'], s['never_freed_bytes']) for s in S]})")

# ---- a leak of 4 KiB nodes: sampled ----
out, r, S = watch("t_nodes", "200")
m = re.search(r"leaked (\d+) bytes", r.stdout)
leak = int(m.group(1)) if m else -1
ln = where(S, "leak_nodes")
est = total(ln, "never_freed_bytes")
check(S and S[0]["function"] == "leak_nodes" and near(est, leak, 0.20),
      f"leak of 4 KiB nodes: the top site is leak_nodes with {est} B estimated, {leak} leaked (within 20 %)")
check(total(where(S, "churn_nodes"), "never_freed_bytes") == 0 and total(where(S, "churn_nodes"), "n_sampled") > 0,
      "churn_nodes' sampled blocks were freed: nothing never freed")
check(total(ln, "n_small") == 200 * 256, f"leak_nodes' exact small count is kept too ({total(ln, 'n_small')})")

# ---- a shared helper: the leaking caller is named ----
out, r, S = watch("t_helper")
top = S[0] if S else {}
check("leaky_caller" in top.get("site", "") and top.get("function") == "make_buf"
      and num(top, "never_freed_bytes") == 10 * MIB,
      f"the top site is make_buf through leaky_caller, 10 MiB ({top.get('site')})")
tidy = where(S, "make_buf", "tidy_caller")
check(len(tidy) == 1 and "tidy_caller" in tidy[0]["site"] and num(tidy[0], "never_freed_bytes") == 0,
      "make_buf through tidy_caller is a site of its own, all freed")
labels = [s["site"] for s in S]
check(len(labels) == len(set(labels)), "site labels are unique")

# ---- names are not cut: two sites sharing their first 30 characters ----
out, r, S = watch("t_names")
a = subprocess.run([ZK, "analyze", out], capture_output=True, text=True, timeout=120)
table = a.stdout[a.stdout.find("sites "):] if "sites " in a.stdout else ""
check(all(n in table for n in ("node_NodeArrayBufferAllocator_AllocateUninitialized",
                               "node_NodeArrayBufferAllocator_Reallocate")),
      "analyze's site table shows both long names whole:\n" + table[:600])

# ---- a shell running a program 50 times: files grow with what is allocated ----
out = os.path.join(tmp, "sh50")
r = subprocess.run([ZK, "watch", "--trace", "--out", out, "--", "sh", "-c",
                    "i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done"],
                   capture_output=True, text=True, timeout=300)
files = os.listdir(os.path.join(out, "trace"))
size = sum(os.path.getsize(os.path.join(out, "trace", f)) for f in files)
with open(os.path.join(out, "run.json")) as f:
    tr = json.load(f).get("trace", {})
check(r.returncode == 0 and len([f for f in files if f.endswith(".trace")]) <= 2 and size < 512 * 1024,
      f"sh running /bin/true 50 times: {len(files)} trace files, {size} B (fork children that only exec write none)")
check(tr.get("killed") == 0, f"no process counted as killed ({tr.get('killed')})")

# ---- a vfork child's _exit is not its parent's exit ----
out = os.path.join(tmp, "vfork")
r = subprocess.run([ZK, "watch", "--trace", "--out", out, "--", prog("t_vfork")], capture_output=True, text=True,
                   timeout=120)
P = read_csv(os.path.join(out, "trace", "processes.csv")) if os.path.exists(os.path.join(out, "trace")) else []
check(r.returncode == 137 and len(P) == 1 and P[0]["exited"] == "0" and P[0]["never_freed_bytes"] == str(4 * MIB),
      f"vfork child's _exit: the killed parent is still recorded as killed ({[(p['exited'], p['never_freed_bytes']) for p in P]})")

# ---- zkbench trace collect: the same files as watch's ----
out, r, S = watch("t_helper", tag="collect")
saved = {n: open(os.path.join(out, n)).read() for n in ("buffers.csv", "sites.csv")}
r = subprocess.run([ZK, "trace", "collect", out], capture_output=True, text=True, timeout=120)
check(r.returncode == 0 and all(open(os.path.join(out, n)).read() == saved[n] for n in saved),
      f"trace collect RUN_DIR rewrites buffers.csv and sites.csv as watch wrote them ({r.returncode})")
check("leaky_caller" in r.stdout, "trace collect prints the top never-freed site")
# while watch still runs: what the finished program wrote is collected
import time
live = os.path.join(tmp, "live")
w = subprocess.Popen([ZK, "watch", "--trace", "--sample-ms", "50", "--out", live, "--", "sh", "-c",
                      prog("t_leak") + " 4 && sleep 3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
deadline = time.time() + 30
def leak_done():
    d = os.path.join(live, "trace")
    for f in os.listdir(d) if os.path.isdir(d) else []:
        if f.endswith(".trace"):
            with open(os.path.join(d, f)) as fh:
                if "t_leak" in fh.readline() and "\nX " in fh.read():
                    return True
    return False
while time.time() < deadline and not leak_done():
    time.sleep(0.1)
r = subprocess.run([ZK, "trace", "collect", live], capture_output=True, text=True, timeout=60)
running = w.poll() is None
S = read_csv(os.path.join(live, "sites.csv")) if r.returncode == 0 else []
check(running and r.returncode == 0 and total(where(S, "leak_step"), "never_freed_bytes") == 8 * MIB,
      f"trace collect while watch runs: leak_step's 8 MiB already there (watch running: {running}, exit {r.returncode})")
w.communicate(timeout=60)
S = read_csv(os.path.join(live, "sites.csv"))
check(w.returncode == 0 and total(where(S, "leak_step"), "never_freed_bytes") == 8 * MIB,
      "watch's own collection at the end replaces it, the same leak")

for args, pat in ((["trace", "collect", os.path.join(tmp, "none")], "not a watch --trace run"),
                  (["trace"], "expected 'trace collect RUN_DIR'"), (["trace", "collect"], "RUN_DIR")):
    r = subprocess.run([ZK, *args], capture_output=True, text=True)
    lines = [x for x in r.stderr.splitlines() if x.startswith("zkbench: ")]
    check(r.returncode == 2 and len(lines) == 1 and pat in lines[0],
          f"zkbench {' '.join(args[:2])} …: exit {r.returncode}, one line ({r.stderr.strip()})")

shutil.rmtree(tmp, ignore_errors=True)
if fails:
    print(f"{len(fails)} check(s) failed")
    sys.exit(1)
print("trace blind spots: all checks passed")
