#!/usr/bin/env bash
# The sampler's cost: the same CPU batch with the sampler ticking every 10 ms
# and without a sampler thread, alternated REPEAT times; prints a Markdown
# table of throughput (median proofs/min from run.json) and the median tick
# time, with machine, date and commit.
#   scripts/bench-sampler.sh [ZKBENCH] [REPEAT] [extra batch options...]
set -euo pipefail
zk=${1:-build/harness/zkbench}
repeat=${2:-3}
shift 2 || true
args=(--circuit porep:constraints=2^14 --partitions 4 --count 6 --concurrency 2 --pw 2 "$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ZKBENCH_PARAMS_DIR=${ZKBENCH_PARAMS_DIR:-$tmp/params}
"$zk" batch "${args[@]}" --count 1 --out "$tmp/warm" >/dev/null   # parameters, caches
for i in $(seq "$repeat"); do
  for ms in 10 0; do
    "$zk" batch "${args[@]}" --sample-ms $ms --out "$tmp/r$ms-$i" >/dev/null
  done
done
python3 - "$tmp" "$repeat" "$zk" "${args[*]}" <<'PY'
import json, statistics, subprocess, sys, datetime
tmp, repeat, zk, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def runs(ms):
    return [json.load(open(f"{tmp}/r{ms}-{i}/run.json")) for i in range(1, repeat + 1)]
on, off = runs(10), runs(0)
ppm_on = statistics.median(r["summary"]["proofs_per_min"] for r in on)
ppm_off = statistics.median(r["summary"]["proofs_per_min"] for r in off)
tick = statistics.median(r["summary"]["sampler"]["median_tick_us"] for r in on)
ticks = statistics.median(r["summary"]["sampler"]["ticks"] for r in on)
m = on[0]["machine"]; v = on[0]["versions"]
print("# Sampler overhead\n")
print(f"- machine: {m['cpu']}, {m['cores']} cores, {m['ram_bytes'] / 2**30:.1f} GiB RAM")
print(f"- date: {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC")
print(f"- commit: {v['commit']}")
print(f"- command: scripts/bench-sampler.sh {zk} {repeat}  (batch {args}, alternating --sample-ms 10 and 0)\n")
print("| sampler | proofs/min (median of %d) | per run |" % repeat)
print("|---|---:|---|")
print(f"| every 10 ms | {ppm_on:.2f} | {', '.join('%.2f' % r['summary']['proofs_per_min'] for r in on)} |")
print(f"| off | {ppm_off:.2f} | {', '.join('%.2f' % r['summary']['proofs_per_min'] for r in off)} |")
print(f"\nthroughput cost: {100 * (ppm_off - ppm_on) / ppm_off:+.2f} % (goal <= 1 %); "
      f"median tick {tick:.0f} us over {ticks:.0f} ticks per run "
      f"({100 * tick / 10000:.2f} % of one core at 10 ms)")
PY
