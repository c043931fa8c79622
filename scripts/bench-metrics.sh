#!/usr/bin/env bash
# The cost of --listen: the same CPU batch (sampler every 10 ms) with
# --listen serving /metrics, scraped every second (OpenMetrics, as
# Prometheus asks), and without it, alternated REPEAT times; prints a
# Markdown section for results/sampler-overhead.md: s/proof (median of the
# runs' run.json), median tick, scrapes, with machine, date and commit.
#   scripts/bench-metrics.sh [ZKBENCH] [REPEAT] [extra batch options...]
set -euo pipefail
zk=${1:-build/harness/zkbench}
repeat=${2:-5}
shift 2 || true
args=(--circuit porep:constraints=2^14 --partitions 4 --count 24 --concurrency 2 --pw 2 --sample-ms 10 "$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ZKBENCH_PARAMS_DIR=${ZKBENCH_PARAMS_DIR:-$tmp/params}
"$zk" batch "${args[@]}" --count 1 --out "$tmp/warm" >/dev/null # parameters, caches
python3 - "$tmp" "$repeat" "$zk" "${args[@]}" <<'PY'
import datetime, json, statistics, subprocess, sys, threading, time, urllib.request
tmp, repeat, zk, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]

def run(name, listen):
    cmd = [zk, "batch", *args, "--out", f"{tmp}/{name}"]
    if listen:
        cmd += ["--listen", "127.0.0.1:0", "--listen-linger", "5"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    scrapes = [0]
    def scraper(url):
        req = urllib.request.Request(url, headers={"Accept": "application/openmetrics-text;version=1.0.0"})
        while p.poll() is None:
            t = time.monotonic()
            try:
                with urllib.request.urlopen(req, timeout=2) as r:
                    r.read()
                scrapes[0] += 1
            except OSError:
                pass
            time.sleep(max(0.0, 1.0 - (time.monotonic() - t)))
    th = None
    for line in p.stdout:
        if listen and line.startswith("metrics at ") and th is None:
            th = threading.Thread(target=scraper, args=(line.split()[2],), daemon=True)
            th.start()
    if p.wait() != 0:
        sys.exit(f"{name}: exit {p.returncode}")
    if th:
        th.join()
    j = json.load(open(f"{tmp}/{name}/run.json"))
    return j, scrapes[0]

on, off, scr = [], [], []
for i in range(repeat):
    j, n = run(f"on{i}", True)
    on.append(j)
    scr.append(n)
    off.append(run(f"off{i}", False)[0])

def spp(r):
    return r["summary"]["s_per_proof"]
def tick(r):
    return r["summary"]["sampler"]["median_tick_us"]
s_on, s_off = statistics.median(map(spp, on)), statistics.median(map(spp, off))
t_on, t_off = statistics.median(map(tick, on)), statistics.median(map(tick, off))
m, v = on[0]["machine"], on[0]["versions"]
print("## --listen, scraped every second\n")
print(f"- machine: {m['cpu']}, {m['cores']} cores, {m['ram_bytes'] / 2**30:.1f} GiB RAM")
print(f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
print(f"- commit: {v['commit']}")
print(f"- command: scripts/bench-metrics.sh {zk} {repeat}  (batch {' '.join(args)}; alternately with "
      f"--listen 127.0.0.1:0 and a scraper fetching /metrics as OpenMetrics every second, and without --listen)\n")
print(f"| --listen | s/proof (median of {repeat}) | per run | median tick, us (per run) | scrapes per run |")
print("|---|---:|---|---|---|")
print(f"| served, scraped every 1 s | {s_on:.4f} | {', '.join('%.4f' % spp(r) for r in on)} | {t_on:.0f} "
      f"({', '.join('%.0f' % tick(r) for r in on)}) | {', '.join(map(str, scr))} |")
print(f"| off | {s_off:.4f} | {', '.join('%.4f' % spp(r) for r in off)} | {t_off:.0f} "
      f"({', '.join('%.0f' % tick(r) for r in off)}) | - |")
print(f"\nthroughput cost of --listen: {100 * (s_on - s_off) / s_off:+.2f} % of s/proof (goal <= 1 %); "
      f"median tick {t_on:.0f} us served vs {t_off:.0f} us off")
PY
