#!/usr/bin/env python3
"""While a zkbench run goes on: reads its --metrics-file over and over (each
read must be a whole exposition: every family, every line well formed, the
last family last) and scrapes its /metrics in both formats, keeping the last
of each. Ends when the process is gone.

  poll.py PID METRICS_FILE URL|- OUT_DIR
Prints a JSON summary; exits 1 on a torn or malformed read."""
import json
import os
import re
import sys
import time
import urllib.request

pid, path, url, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? [^ ]+$')
# always there; the sampled ones once the sampler has ticked (not while the
# parameters load)
BATCH_FAMILIES = ["zkbench_info", "zkbench_running", "zkbench_proofs_completed_total",
                  "zkbench_proof_duration_seconds", "zkbench_leak_rate_bytes_per_proof",
                  "zkbench_sampler_ticks_total"]
SAMPLED_FAMILIES = ["zkbench_rss_bytes", "zkbench_allocator_bytes", "zkbench_tracked_live_bytes",
                    "zkbench_partitions", "zkbench_sampler_tick_seconds"]


def check_text(text):
    """None, or why text is not a whole text-format exposition."""
    if not text.endswith("\n"):
        return "does not end with a line feed"
    lines = text.split("\n")[:-1]
    typed = set()
    for ln in lines:
        if ln.startswith("# TYPE "):
            typed.add(ln.split(" ")[2])
        elif ln.startswith("# HELP "):
            continue
        elif not SAMPLE.match(ln):
            return "malformed line %r" % ln
    want = BATCH_FAMILIES + (SAMPLED_FAMILIES if lines[-1] != "zkbench_sampler_ticks_total 0" else [])
    missing = [f for f in want if f not in typed]
    if missing:
        return "families missing: %s" % missing
    if not lines[-1].startswith("zkbench_sampler_ticks_total "):
        return "last line is %r" % lines[-1]
    return None


def alive():
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def get(accept):
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.headers.get("Content-Type"), r.read().decode("utf-8")


reads, contents, scrapes, last_om, last_text = 0, set(), 0, None, None
om_type = text_type = None
deadline = time.time() + 120
while alive() and time.time() < deadline:
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = None
    if text is not None:
        why = check_text(text)
        if why:
            print("torn or malformed read of %s: %s\n%s" % (path, why, text), file=sys.stderr)
            sys.exit(1)
        reads += 1
        contents.add(text)
    if url != "-" and reads % 10 == 0:
        try:
            om_type, last_om = get("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
            text_type, last_text = get(None)
            scrapes += 1
        except OSError:
            pass  # the server is gone: the run ends
    time.sleep(0.01)
for name, text in (("last.om", last_om), ("last.txt", last_text)):
    if text is not None:
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
print(json.dumps({"reads": reads, "distinct": len(contents), "scrapes": scrapes, "om_type": om_type,
                  "text_type": text_type}))
