#!/usr/bin/env bash
# Soak (issue 16): many small proofs through zkbench batch, then zkbench
# analyze on the run. Healthy when, after the drain, the tracked bytes are
# back at their baseline exactly, je_allocated is back within SLACK bytes
# (default 1 MiB: jemalloc also holds the harness's own small allocations),
# neither grows per proof (the 95% CI of the growth is not above 0), and the
# verdict is healthy.
#   scripts/bench-soak.sh [OUT_DIR]      (default results/runs/soak-<UTC time>)
# Environment: ZKBENCH (default build/harness/zkbench), COUNT (200),
# CIRCUIT (porep:constraints=2^10, the CI tests' small circuit), PARTITIONS (2), CONCURRENCY (2), SLACK.
# Prints the numbers results/soak.md records; exit 0 healthy, 1 not, 2 when
# the batch or analyze fails.
set -uo pipefail
cd "$(dirname "$0")/.."
zk=${ZKBENCH:-build/harness/zkbench}
count=${COUNT:-200} circuit=${CIRCUIT:-porep:constraints=2^10} parts=${PARTITIONS:-2} conc=${CONCURRENCY:-2}
slack=${SLACK:-1048576}
out=${1:-results/runs/soak-$(date -u +%Y%m%dT%H%M%SZ)}
[ -x "$zk" ] || { echo "bench-soak: no zkbench at $zk (build it: scripts/build.sh, or set ZKBENCH)" >&2; exit 2; }

cmd=("$zk" batch --circuit "$circuit" --partitions "$parts" --count "$count" --concurrency "$conc" --out "$out")
echo "bench-soak: ${cmd[*]}"
start=$(date -u +%FT%TZ) t0=$SECONDS
"${cmd[@]}" >"$out.batch.log" 2>&1
rc=$?
mv "$out.batch.log" "$out/batch.log" 2>/dev/null || true
[ "$rc" -eq 0 ] || { echo "bench-soak: batch exit $rc:" >&2; tail -5 "$out/batch.log" "$out.batch.log" 2>/dev/null >&2; exit 2; }
wall=$((SECONDS - t0))
"$zk" analyze "$out" >"$out/analyze.txt" 2>&1 || { echo "bench-soak: analyze failed" >&2; cat "$out/analyze.txt" >&2; exit 2; }
"$zk" analyze "$out" --json >"$out/analyze.json" || exit 2

python3 - "$out" "$slack" "$start" "$wall" <<'PY'
import json, sys
out, slack, start, wall = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
a = json.load(open(out + "/analyze.json"))
run = json.load(open(out + "/run.json"))
m, c, s = run["machine"], run["config"], run["summary"]
def mib(v):
    return "%.2f MiB" % (v / 2**20) if v is not None else "-"
print(f"started {start}, {wall} s; machine {m['cpu']}, {m['cores']} cores, {mib(m['ram_bytes'])} RAM; commit {run['versions']['commit']}")
print(f"proofs {s['proofs_done']} done, {s['proofs_failed']} failed, {s['s_per_proof']:.3f} s/proof; "
      f"peak RSS {mib(s['peak_rss'])}; samples {a['samples']}; drained {a['drained']}")
ok = a["verdict"] == "healthy" and a["drained"] and s["proofs_failed"] == 0
for name in ("tracked", "je_allocated", "je_resident", "rss"):
    L = a["layers"][name]
    g = L.get("growth", {})
    ci = g.get("ci95", [None, None])
    back = L["after_drain_minus_baseline"]
    line = (f"{name:13s} baseline {mib(L['baseline'])}, peak {mib(L['peak'])}, after drain {mib(L['after_drain'])} "
            f"({back:+d} B), growth/proof {g.get('bytes_per_proof')} B, 95% CI {ci}")
    if name == "tracked" and back != 0:
        ok = False
        line += "  NOT back at baseline"
    if name == "je_allocated" and abs(back) > slack:
        ok = False
        line += f"  NOT back at baseline (slack {slack} B)"
    if name in ("tracked", "je_allocated") and ci[0] is not None and ci[0] > 0:
        ok = False
        line += "  grows per proof"
    print(line)
print(f"verdict {a['verdict']}: {a['reason']}")
print("soak: " + ("healthy" if ok else "NOT healthy"))
sys.exit(0 if ok else 1)
PY
