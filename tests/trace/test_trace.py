#!/usr/bin/env python3
"""`zkbench watch --trace` on programs whose allocations are planted
(tests/trace/t_*.c): the leaking site is named by function with its exact
never-freed bytes, freed and bounded allocations are not called leaks, a
forked child's leak is in its own pid's file, a process killed by a signal
still leaves collected files, counts from 8 threads are exact, and the
preload library changes no program's output or exit status.
  test_trace.py ZKBENCH PROGRAM_DIR LIBZKBENCH_TRACE_SO"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

ZK, PROGS, LIB = (os.path.abspath(a) for a in sys.argv[1:4])
MIB = 1 << 20
fails = []
tmp = tempfile.mkdtemp(prefix="zkbench-trace-")


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails.append(what)


def prog(name):
    return os.path.join(PROGS, name)


def watch(name, *args, extra=(), want_rc=0):
    out = os.path.join(tmp, name + "-" + "-".join(args))
    cmd = [ZK, "watch", "--trace", "--sample-ms", "20", "--out", out, *extra, "--", prog(name), *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    check(r.returncode == want_rc, f"{name} {' '.join(args)}: watch exit {r.returncode}, expected {want_rc}"
          + ("" if r.returncode == want_rc else "\n" + r.stdout + r.stderr))
    return out, r


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def sites(out):
    return read_csv(os.path.join(out, "sites.csv"))


def by_function(rows, fn):
    return [s for s in rows if s["function"] == fn]


def total(rows, col):
    return sum(int(r[col]) for r in rows)


BUF_HEADER = "id,kind,device,proof,partition,bytes,t_alloc_ms,t_free_ms,t_last_use_ms,site"
SITE_HEADER = ("site,function,file,line,module,frames,n_allocs,bytes_total,n_small,bytes_small,never_freed_bytes,"
               "n_sampled,bytes_sampled_est,never_freed_sampled_est,allocator_live_bytes")

# ---- a malloc leak in a loop ----
out, r = watch("t_leak", "20")
with open(os.path.join(out, "buffers.csv")) as f:
    check(f.readline().strip() == BUF_HEADER, "buffers.csv header is the batch schema plus site")
with open(os.path.join(out, "sites.csv")) as f:
    check(f.readline().strip() == SITE_HEADER, "sites.csv header")
S = sites(out)
top = S[0] if S else {}
check(top.get("function") == "leak_step", f"the top never-freed site is leak_step (got {top.get('site')})")
check(re.fullmatch(r"leak_step@t_leak\.c:\d+", top.get("site", "")) is not None,
      f"leak_step's label names function, file and line ({top.get('site')})")
m = re.search(r"leaked (\d+) bytes in (\d+) allocations; small (\d+)", r.stdout)
check(m is not None, "t_leak printed its own totals")
if m:
    check(int(top.get("never_freed_bytes", -1)) == int(m.group(1)),
          f"leak_step never freed {top.get('never_freed_bytes')} B, the program says {m.group(1)}")
    check(int(top.get("n_allocs", -1)) == int(m.group(2)), "leak_step: one recorded allocation per iteration")
    sm = by_function(S, "small_step")
    check(total(sm, "n_small") == int(m.group(3)) and total(sm, "bytes_small") == 100 * int(m.group(3)),
          f"small_step's small allocations counted exactly ({total(sm, 'n_small')} of {m.group(3)})")
work = by_function(S, "work_step")
check(total(work, "n_allocs") == 20 and total(work, "never_freed_bytes") == 0,
      "work_step: 20 allocations, all freed")
B = read_csv(os.path.join(out, "buffers.csv"))
lb = [b for b in B if b["site"].startswith("leak_step@")]
check(len(lb) == 20 and all(b["t_free_ms"] == "" and int(b["bytes"]) == 2 * MIB for b in lb),
      "buffers.csv: 20 leak_step rows of 2 MiB, never freed")
wb = [b for b in B if b["site"].startswith("work_step@")]
check(len(wb) == 20 and all(b["t_free_ms"] != "" and float(b["t_free_ms"]) >= float(b["t_alloc_ms"]) for b in wb),
      "buffers.csv: work_step rows freed after they were allocated")
check(all(b["proof"] == "" and b["partition"] == "" and b["t_last_use_ms"] == "" and b["device"] == "host"
          and b["kind"] == b["site"] for b in B), "no marks: proof empty; kind is the site; device host")
ids = [int(b["id"]) for b in B]
check(ids == list(range(1, len(B) + 1)), "buffer ids are 1..n")
with open(os.path.join(out, "run.json")) as f:
    check('"trace"' in f.read(), "run.json has the trace summary")
check("never freed" in r.stdout and "leak_step@" in r.stdout, "watch prints the top never-freed site")

# ---- C++ new/delete ----
if os.path.exists(prog("t_cxx")):
    out, r = watch("t_cxx", "6")
    S = sites(out)
    la, bal = by_function(S, "leak_array"), by_function(S, "balanced_step")
    m = re.search(r"leaked (\d+) bytes", r.stdout)
    check(m is not None and total(la, "never_freed_bytes") == int(m.group(1)),
          f"new double[] leak named leak_array with {total(la, 'never_freed_bytes')} B never freed")
    check(total(bal, "n_allocs") == 12 and total(bal, "never_freed_bytes") == 0,
          f"balanced new/delete (and std::vector) at balanced_step: 12 allocations, all freed "
          f"({total(bal, 'n_allocs')}, {total(bal, 'never_freed_bytes')})")
else:
    print("note: no C++ compiler: the new/delete program was not built")

# ---- Rust (when rustc is there: compiled here, it is not a build dependency) ----
rustc = shutil.which("rustc")
if rustc:
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "t_rust.rs")
    exe = os.path.join(tmp, "t_rust")
    c = subprocess.run([rustc, "-g", "-O", "-o", exe, src], capture_output=True, text=True, timeout=300)
    check(c.returncode == 0, "rustc built t_rust.rs" + ("" if c.returncode == 0 else ": " + c.stderr[-300:]))
    if c.returncode == 0:
        out = os.path.join(tmp, "rust")
        r = subprocess.run([ZK, "watch", "--trace", "--out", out, "--", exe], capture_output=True, text=True,
                           timeout=120)
        S = sites(out) if r.returncode == 0 else []
        rl = [x for x in S if x["function"].endswith("rust_leak_step")]
        check(total(rl, "never_freed_bytes") == 15 * MIB and all(re.search(r"@t_rust\.rs:\d+$", x["site"]) for x in rl),
              f"Rust: the leak is rust_leak_step at its own line ({[x['site'] for x in rl]})")
        rw = [x for x in S if x["function"].endswith("rust_work_step")]
        check(total(rw, "n_allocs") == 5 and total(rw, "never_freed_bytes") == 0, "Rust: rust_work_step's vectors freed")
else:
    print("note: no rustc: the Rust program was not checked")

# ---- a forked child that leaks ----
out, r = watch("t_fork")
m = re.search(r"child (\d+)", r.stdout)
check(m is not None, "t_fork printed its child's pid")
if m:
    P = read_csv(os.path.join(out, "trace", "processes.csv"))
    child = [p for p in P if p["pid"] == m.group(1)]
    check(len(child) == 1 and child[0]["file"].startswith(m.group(1) + "-")
          and int(child[0]["never_freed_bytes"]) == 12 * MIB,
          f"the child's own file {child[0]['file'] if child else '(none)'} holds its 12 MiB leak")
S = sites(out)
check(total(by_function(S, "child_leak"), "never_freed_bytes") == 12 * MIB, "child_leak named with 12 MiB")
pw = by_function(S, "parent_work")
check(total(pw, "n_allocs") == 2 and total(pw, "never_freed_bytes") == 0,
      "the parent's freed allocations are not blamed on the child")

# ---- an exec'd grandchild inherits the tracer ----
out = os.path.join(tmp, "exec")
r = subprocess.run([ZK, "watch", "--trace", "--out", out, "--", "sh", "-c", prog("t_leak") + " 4; true"],
                   capture_output=True, text=True, timeout=120)
S = sites(out) if r.returncode == 0 else []
check(total(by_function(S, "leak_step"), "never_freed_bytes") == 8 * MIB,
      "a program exec'd by sh under watch --trace is traced too (leak_step, 8 MiB)")
P = read_csv(os.path.join(out, "trace", "processes.csv")) if r.returncode == 0 else []
check(len(P) >= 2, f"the shell and the program each have a file ({len(P)})")

# ---- CUDA runtime calls, interposed (a stand-in runtime: no GPU needed) ----
out, r = watch("t_cuda")
S = sites(out)
g = by_function(S, "gpu_leak_step")
check(total(g, "never_freed_bytes") == 20 * MIB and total(g, "n_allocs") == 5,
      f"cudaMalloc leak named gpu_leak_step, 20 MiB never freed ({total(g, 'never_freed_bytes')})")
w = by_function(S, "gpu_work_step")
check(total(w, "n_allocs") == 10 and total(w, "never_freed_bytes") == 0, "cudaFree and cudaFreeAsync end them")
pl = by_function(S, "pinned_leak")
check(total(pl, "never_freed_bytes") == 6 * MIB and all(x["site"].startswith("pinned:") for x in pl),
      "cudaMallocHost leak: pinned_leak, 6 MiB, labelled pinned:")
pw = by_function(S, "pinned_work")
check(total(pw, "n_allocs") == 5 and total(pw, "never_freed_bytes") == 0, "cudaHostAlloc/cudaFreeHost pair up")
B = read_csv(os.path.join(out, "buffers.csv"))
check(sorted({b["device"] for b in B if b["site"].startswith("gpu_")}) == ["gpu1"]
      and {b["device"] for b in B if b["site"].startswith("pinned:")} == {"host"},
      "device memory on the current device (gpu1), pinned memory on the host")

# ---- an mmap leak ----
out, r = watch("t_mmap")
S = sites(out)
check(total(by_function(S, "mmap_leak"), "never_freed_bytes") == 10 * MIB
      and total(by_function(S, "mmap_leak"), "n_allocs") == 5, "mmap_leak: 5 mappings, 10 MiB never unmapped")
check(total(by_function(S, "mmap_work"), "n_allocs") == 5 and total(by_function(S, "mmap_work"), "never_freed_bytes") == 0,
      "mmap_work: 5 mappings, all unmapped")

# ---- a realloc chain ----
out, r = watch("t_realloc")
S = sites(out)
gb = by_function(S, "grow_buffer")
check(total(gb, "n_allocs") == 21 and total(gb, "never_freed_bytes") == 0,
      f"realloc chain: 21 blocks >= 1 MiB (1..64 MiB, 3 times), nothing left ({total(gb, 'n_allocs')}, "
      f"{total(gb, 'never_freed_bytes')})")

# ---- a bounded cache ----
out, r = watch("t_cache")
S = sites(out)
cp = by_function(S, "cache_put")
check(total(cp, "n_allocs") == 100 and total(cp, "never_freed_bytes") == 8 * 3 * MIB // 2,
      f"cache_put: 100 entries, never freed exactly its bound of 8 x 1.5 MiB ({total(cp, 'never_freed_bytes')})")

# ---- zkbench_mark / zkbench_kind ----
out, r = watch("t_marks")
M = read_csv(os.path.join(out, "marks.csv"))
check([(x["source"], x["name"]) for x in M] == [("api", "proof done")] * 3, "marks.csv: three api marks")
check(all(int(x["pid"]) > 0 and float(x["t_ms"]) >= 0 for x in M), "marks carry pid and time")
B = read_csv(os.path.join(out, "buffers.csv"))
w = [b for b in B if b["kind"] == "witness"]
check([b["proof"] for b in w] == ["0", "1", "2"] and all(b["t_free_ms"] == "" for b in w),
      "witness buffers tagged by zkbench_kind, proof = marks before them")
s = [b for b in B if b["kind"] != "witness" and int(b["bytes"]) == MIB + 4096]
check(len(s) == 3 and all(b["kind"] == b["site"] and b["site"].startswith("prove_one@") and b["t_free_ms"] for b in s),
      "after zkbench_kind(NULL) the kind is the site again")
r2 = subprocess.run([prog("t_marks")], capture_output=True, text=True)
check(r2.returncode == 0 and r2.stdout == "3 proofs\n", "the tagged program runs alone, without the tracer")

# ---- killed by a signal ----
for sig, rc in (("KILL", 137), ("SEGV", 139)):
    out, r = watch("t_signal", sig, want_rc=rc)
    S = sites(out)
    check(total(by_function(S, "doomed_leak"), "never_freed_bytes") == 8 * MIB,
          f"SIG{sig}: doomed_leak's 8 MiB still collected")
    P = read_csv(os.path.join(out, "trace", "processes.csv"))
    check(len(P) == 1 and P[0]["exited"] == "0", f"SIG{sig}: the process is marked as ended without exit")

# ---- threads ----
out, r = watch("t_threads")
m = re.search(r"small (\d+) big (\d+) kept (\d+) kept_bytes (\d+)", r.stdout)
check(m is not None, "t_threads finished (no deadlock) and printed its totals")
if m:
    S = sites(out)
    ts, tb = by_function(S, "thread_small"), by_function(S, "thread_big")
    check(total(ts, "n_small") == int(m.group(1)) and total(ts, "bytes_small") == 64 * int(m.group(1)),
          f"8 threads: small allocations counted exactly ({total(ts, 'n_small')} of {m.group(1)})")
    check(total(tb, "n_allocs") == int(m.group(2)) and total(tb, "never_freed_bytes") == int(m.group(4)),
          f"8 threads: {total(tb, 'n_allocs')} large allocations, never freed {total(tb, 'never_freed_bytes')} "
          f"(expected {m.group(2)}, {m.group(4)})")

# ---- the library changes no output or exit status ----
env = dict(os.environ, LD_PRELOAD=LIB, ZKBENCH_TRACE_DIR=os.path.join(tmp, "direct"), ZKBENCH_TRACE_MIN="1048576")
os.makedirs(env["ZKBENCH_TRACE_DIR"])
cases = [["t_leak", "5"], ["t_mmap"], ["t_realloc"], ["t_cache"], ["t_marks"], ["t_threads"], ["t_signal", "SEGV"]]
if os.path.exists(prog("t_cxx")):
    cases.append(["t_cxx", "3"])
for c in cases:
    a = subprocess.run([prog(c[0]), *c[1:]], capture_output=True, text=True)
    b = subprocess.run([prog(c[0]), *c[1:]], capture_output=True, text=True, env=env)
    check(a.stdout == b.stdout and a.returncode == b.returncode,
          f"{c[0]}: same output and status with the preload library ({a.returncode} vs {b.returncode})")
bad = dict(env, ZKBENCH_TRACE_DIR="/nonexistent/zkbench-trace")
a = subprocess.run([prog("t_leak"), "3"], capture_output=True, text=True, env=bad)
check(a.returncode == 0 and a.stdout.startswith("leaked"), "an unwritable trace folder leaves the program alone")

# ---- a full disk stops the tracing, never the program ----
# RLIMIT_FSIZE (with SIGXFSZ ignored, which exec keeps) makes every write past
# 4.5 MiB fail as a full disk would; at --trace-min 0 the 8 threads' 160000
# allocations and frees need far more than that.
import resource
import signal


def small_fs():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (9 << 19, 9 << 19))


full = dict(env, ZKBENCH_TRACE_DIR=os.path.join(tmp, "full"), ZKBENCH_TRACE_MIN="0")
os.makedirs(full["ZKBENCH_TRACE_DIR"])
a = subprocess.run([prog("t_threads")], capture_output=True, text=True)
b = subprocess.run([prog("t_threads")], capture_output=True, text=True, env=full, preexec_fn=small_fs, timeout=120)
check(a.stdout == b.stdout and b.returncode == 0, f"writes failing midway: the program ends normally ({b.returncode})")
tr = [f for f in os.listdir(full["ZKBENCH_TRACE_DIR"]) if f.endswith(".trace")]
size = os.path.getsize(os.path.join(full["ZKBENCH_TRACE_DIR"], tr[0])) if tr else 0
with open(os.path.join(full["ZKBENCH_TRACE_DIR"], tr[0])) if tr else open(os.devnull) as f:
    lines = f.read().split("\n")
check(len(tr) == 1 and 0 < size <= 9 << 19 and lines[0].startswith("Z 2 ") and len(lines) > 1000,
      f"the trace stopped at the limit ({size} B) with its lines readable")

# ---- bad input ----
for args, pat in ((["--trace", "--pid", "1"], "not --pid"), (["--trace", "--trace-min", "lots", "--", "true"], "trace-min"),
                  (["--trace-min", "1M", "--", "true"], "needs --trace")):
    r = subprocess.run([ZK, "watch", "--out", os.path.join(tmp, "bad"), *args], capture_output=True, text=True)
    lines = [x for x in r.stderr.splitlines() if x.startswith("zkbench: ")]
    check(r.returncode == 2 and len(lines) == 1 and pat in lines[0],
          f"watch {' '.join(args)}: exit {r.returncode} with one error line ({r.stderr.strip()})")

bad = os.path.join(tmp, "noprog")
r = subprocess.run([ZK, "watch", "--trace", "--out", bad, "--", "/no/such/program"], capture_output=True, text=True)
check(r.returncode == 2 and r.stderr.count("zkbench: ") == 1,
      f"--trace of a missing program: exit {r.returncode} with one error line")
check(not os.path.exists(os.path.join(bad, "trace")), "no trace/ left behind when the command cannot start")

# ---- damaged trace files: a bad header is refused by name, bad lines are skipped ----
out = os.path.join(tmp, "badhdr")
r = subprocess.run([ZK, "watch", "--trace", "--out", out, "--", "sh", "-c",
                    'echo garbage > "$ZKBENCH_TRACE_DIR/999999-0.trace"'], capture_output=True, text=True)
lines = [x for x in r.stderr.splitlines() if x.startswith("zkbench: ")]
check(r.returncode == 2 and len(lines) == 1 and "999999-0.trace: line 1: expected the header" in lines[0],
      f"a trace file without its header: exit {r.returncode}, one line naming it ({r.stderr.strip()})")
out = os.path.join(tmp, "badlines")
r = subprocess.run([ZK, "watch", "--trace", "--out", out, "--", "sh", "-c",
                    'printf "Z 1 999999 1 1048576 1 /x\\nA bogus\\nQ what\\nA 5 1000 2097152 ab 0 h\\n" '
                    '> "$ZKBENCH_TRACE_DIR/999999-0.trace"'], capture_output=True, text=True)
P = read_csv(os.path.join(out, "trace", "processes.csv")) if r.returncode == 0 else []
row = [p for p in P if p["pid"] == "999999"]
check(r.returncode == 0 and len(row) == 1 and row[0]["bad_lines"] == "2" and row[0]["n_alloc"] == "1",
      f"malformed lines are counted and skipped, the good ones kept ({row})")
S = sites(out) if r.returncode == 0 else []
check(any(x["site"] == "unknown" and x["never_freed_bytes"] == str(2 * MIB) for x in S),
      "an allocation whose stack was never written is kept under the site 'unknown'")

# ---- the CUPTI library loads and refuses politely without a driver ----
cupti = os.path.join(os.path.dirname(LIB), "libzkbench-cupti.so")
if os.path.exists(cupti):
    d = os.path.join(tmp, "cupti")
    os.makedirs(d)
    code = ("import ctypes,sys\ntry:\n l = ctypes.CDLL(sys.argv[1])\nexcept OSError as e:\n print('skip', e); sys.exit(77)\n"
            "print('init', l.InitializeInjection())")
    r = subprocess.run([sys.executable, "-c", code, cupti], capture_output=True, text=True,
                       env=dict(os.environ, ZKBENCH_TRACE_DIR=d, LD_LIBRARY_PATH="/usr/local/cuda/lib64:"
                                + os.environ.get("LD_LIBRARY_PATH", "")))
    if r.returncode == 77:
        print("note: libcupti.so.13 not loadable here: the CUPTI library was not loaded")
    else:
        check(r.returncode == 0 and r.stdout.startswith("init "),
              f"libzkbench-cupti.so loads and InitializeInjection returns ({r.stdout.strip()} {r.stderr.strip()[-200:]})")

shutil.rmtree(tmp, ignore_errors=True)
if fails:
    print(f"{len(fails)} check(s) failed")
    sys.exit(1)
print("trace: all checks passed")
