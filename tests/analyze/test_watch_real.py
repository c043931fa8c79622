#!/usr/bin/env python3
"""zkbench watch on real programs, then analyze, plot and check on the runs.

test_watch_real.py ZKBENCH

Small Python and C programs (C when a compiler is found) run a "proof" loop:
a scratch buffer per iteration (the sawtooth), and
  leak    keeps 1 MiB more every iteration (never freed);
  cache   keeps 1 MiB per iteration in a cache bounded at 12 entries;
  steady  keeps nothing.
Each is watched (`zkbench watch -- CMD`), and analyze must say leak, not
leak (healthy or capacity) and healthy; plot must draw; check must pass the
steady run against its own baseline and fail the leak. Where watch has
--mark, the leak is also watched with its "proof done" lines as proof
boundaries and its growth per proof must be near 1 MiB; where it has
--trace, the C leak must be named by function and the cache not blamed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

zk = sys.argv[1]
MIB = 1 << 20
tmp = tempfile.mkdtemp(prefix="zkb-watch-real-")
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(*args, timeout=120):
    p = subprocess.run([zk, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


PY = r'''
import sys, time
mode, n = sys.argv[1], int(sys.argv[2])
keep = []
for i in range(n):
    scratch = bytearray(b"\x01") * (16 << 20)   # touched pages: the sawtooth
    if mode != "steady":
        keep.append(bytearray(b"\x02") * (1 << 20))
        if mode == "cache" and len(keep) > 12:
            keep.pop(0)
    time.sleep(0.02)
    del scratch
    print("proof done", i, flush=True)
    time.sleep(0.02)
'''

C = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *cache[12];
static int cache_n;

static void *leak_step(size_t n) { void *p = malloc(n); memset(p, 2, n); return p; }
static void cache_put(size_t n)
{
    if (cache_n == 12) { free(cache[0]); memmove(cache, cache + 1, 11 * sizeof *cache); cache_n--; }
    cache[cache_n] = malloc(n);
    memset(cache[cache_n++], 3, n);
}

int main(int argc, char **argv)
{
    const char *mode = argv[1];
    int n = atoi(argv[2]);
    struct timespec ts = {0, 20 * 1000000L};
    for (int i = 0; i < n; i++) {
        char *scratch = malloc(16 << 20);
        memset(scratch, 1, 16 << 20);
        if (strcmp(mode, "leak") == 0)
            (void)leak_step(1 << 20);
        else if (strcmp(mode, "cache") == 0)
            cache_put(1 << 20);
        nanosleep(&ts, NULL);
        free(scratch);
        printf("proof done %d\n", i);
        fflush(stdout);
        nanosleep(&ts, NULL);
    }
    return 0;
}
'''

with open(os.path.join(tmp, "prog.py"), "w") as f:
    f.write(PY)
programs = {"py": [sys.executable, os.path.join(tmp, "prog.py")]}
cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
if cc:
    with open(os.path.join(tmp, "prog.c"), "w") as f:
        f.write(C)
    exe = os.path.join(tmp, "prog")
    if subprocess.run([cc, "-O1", "-g", "-fno-inline", "-o", exe, os.path.join(tmp, "prog.c")]).returncode == 0:
        programs["c"] = [exe]
    else:
        fail("cannot compile the C test program with %s" % cc)
else:
    print("no C compiler: the C programs are skipped", file=sys.stderr)

rc, helptext, _ = run("watch", "--help")
has_mark, has_trace = "--mark" in helptext, "--trace" in helptext

want = {"leak": ("leak",), "cache": ("healthy", "capacity"), "steady": ("healthy",)}
runs = {}
for lang, cmd in programs.items():
    for mode in ("leak", "cache", "steady"):
        d = os.path.join(tmp, "%s-%s" % (lang, mode))
        rc, out, err = run("watch", "--out", d, "--sample-ms", "10", "--", *cmd, mode, "40")
        if rc != 0:
            fail("watch %s %s: exit %d %s" % (lang, mode, rc, err.strip()))
            continue
        runs[(lang, mode)] = d
        rc, out, err = run("analyze", d, "--json")
        if rc != 0:
            fail("analyze %s %s: exit %d %s" % (lang, mode, rc, err.strip()))
            continue
        j = json.loads(out)
        if j["verdict"] not in want[mode]:
            fail("%s %s: verdict %s, expected %s (%s)" % (lang, mode, j["verdict"], " or ".join(want[mode]),
                                                           j["reason"]))
        if mode == "leak":
            # 1 MiB per iteration of about 45 ms: between 10 and 30 MiB/s
            g = j["growth"]["bytes_per_unit"]
            if j["growth"]["unit"] == "s" and not (8 * MIB <= (g or 0) <= 32 * MIB):
                fail("%s leak: %s bytes/s, expected about 1 MiB per 45 ms" % (lang, g))
        rc, out, err = run("plot", d)
        if rc != 0 or err or not os.path.exists(os.path.join(d, "memory.png")):
            fail("plot %s %s: exit %d %r" % (lang, mode, rc, err))

for lang in programs:
    if (lang, "steady") not in runs or (lang, "leak") not in runs:
        continue
    base = os.path.join(tmp, "%s-baseline.json" % lang)
    rc, out, err = run("check", runs[(lang, "steady")], "--write-baseline", base)
    if rc != 0:
        fail("%s: baseline from the steady run: exit %d %s" % (lang, rc, err))
        continue
    rc, out, err = run("check", runs[(lang, "steady")], "--baseline", base)
    if rc != 0:
        fail("%s: check steady against its baseline: exit %d\n%s%s" % (lang, rc, out, err))
    rc, out, err = run("check", runs[(lang, "leak")], "--baseline", base)
    if rc != 1:
        fail("%s: check the leak against the steady baseline: exit %d\n%s%s" % (lang, rc, out, err))

if has_mark:
    for lang, cmd in programs.items():
        d = os.path.join(tmp, "%s-leak-mark" % lang)
        rc, out, err = run("watch", "--out", d, "--sample-ms", "10", "--mark", "proof done", "--", *cmd, "leak", "40")
        rc, out, err = run("analyze", d, "--json") if rc == 0 else (rc, "", err)
        if rc != 0:
            fail("%s leak with --mark: exit %d %s" % (lang, rc, err))
            continue
        j = json.loads(out)
        g = j["growth"]["bytes_per_unit"]
        if j["verdict"] != "leak" or j["growth"]["unit"] != "proof" or not (0.75 * MIB <= (g or 0) <= 1.3 * MIB):
            fail("%s leak with --mark: %s, %s per %s (expected about 1 MiB per proof)" % (lang, j["verdict"], g,
                                                                                         j["growth"]["unit"]))
else:
    print("watch has no --mark here: growth per proof of a real run not tested", file=sys.stderr)

if has_trace and "c" in programs:
    for mode in ("leak", "cache"):
        d = os.path.join(tmp, "c-%s-trace" % mode)
        args = ["watch", "--out", d, "--sample-ms", "10", "--trace"] + (["--mark", "proof done"] if has_mark else [])
        rc, out, err = run(*args, "--", programs["c"][0], mode, "40")
        rc, out, err = run("analyze", d, "--json") if rc == 0 else (rc, "", err)
        if rc != 0:
            fail("c %s --trace: exit %d %s" % (mode, rc, err))
            continue
        j = json.loads(out)
        if mode == "leak" and (j["verdict"] != "leak" or "leak_step" not in j["headline"]):
            fail("c leak --trace: %s (%s), leak_step not named" % (j["verdict"], j["headline"]))
        if mode == "cache" and (j["verdict"] == "leak" or any(s["leak"] for s in j["sites"])):
            fail("c cache --trace: blamed: %s %s" % (j["verdict"], [s["function"] for s in j["sites"] if s["leak"]]))
        rc, out, err = run("plot", d)
        if rc != 0 or err:
            fail("plot c %s --trace: exit %d %r" % (mode, rc, err))
else:
    print("watch has no --trace here (or no C compiler): sites of a real run not tested", file=sys.stderr)

if fails:
    print("%d failures (files kept in %s)" % (len(fails), tmp), file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp)
print("watch on real programs: analyze/plot/check all checks passed (%s)" % ", ".join(sorted(programs)))
