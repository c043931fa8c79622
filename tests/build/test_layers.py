#!/usr/bin/env python3
"""harness/diagnose/ is one way down (issue 28): every call between its files
goes from a higher floor to a lower one, so there is no circle. The calls are
read from the zkbench objects' symbol tables (nm), not from the text.

    test_layers.py SOURCE_ROOT BUILD_ROOT
"""
import glob
import os
import subprocess
import sys

# load -> stats -> model and capacity (and a watch run's floors and
# sampling) -> capacity's words -> rules (batch, watch) and what-if ->
# engine -> text
FLOORS = {
    "analyze_names": 0, "signal_period": 0,
    "analyze_stats": 1, "analyze_load": 1, "analyze_sites": 1, "capacity_retention": 1,
    "capacity": 2, "analyze_model": 2, "analyze_busy": 2, "watch_floors": 2, "watch_sampling": 2,
    "capacity_report": 3, "capacity_marks": 3,
    "analyze_rules": 4, "analyze_watch": 4, "analyze_whatif": 4,
    "analyze_engine": 5,
    "analyze_text": 6,
}


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] == "T":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            used.add(f[1])
    return defined, used


def main():
    src, build = sys.argv[1], sys.argv[2]
    bad = []
    if os.path.exists(os.path.join(src, "harness/diagnose/analyze_load.c.orig")):
        bad.append("harness/diagnose/analyze_load.c.orig is a merge leftover")
    files = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(src, "harness/diagnose/*.c")))
    for f in files:
        if f not in FLOORS:
            bad.append(f"harness/diagnose/{f}.c has no floor in tests/build/test_layers.py")
    objs = {}
    for f in files:
        hits = glob.glob(os.path.join(build, "harness", "zkbench.p", f"diagnose_{f}.c.o"))
        if not hits:
            print(f"SKIP: no object for {f}.c under {build} (zkbench not built)")
            return 77
        objs[f] = symbols(hits[0])
    edges = 0
    for a, (_, used) in objs.items():
        for b, (defined, _) in objs.items():
            calls = sorted(used & defined) if a != b else []
            if not calls:
                continue
            edges += 1
            if FLOORS.get(a, -1) <= FLOORS.get(b, -1):
                bad.append(f"{a}.c (floor {FLOORS.get(a)}) calls up or across into {b}.c (floor "
                           f"{FLOORS.get(b)}): {', '.join(calls)}")
    if edges == 0:
        bad.append("no calls between the files were found: the check read nothing")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print(f"ok: {len(objs)} files, {edges} call edges, all downward")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
