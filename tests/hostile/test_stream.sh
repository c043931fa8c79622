#!/usr/bin/env bash
# Runs too long to read whole (issue 26, items 5 and 7): analyze, plot and
# report stream samples.csv and keep a bounded, peak-preserving selection
# of its rows. On runs past the 2^17 rows analyze keeps (ROWS, default
# 200000, and twice that):
# - analyze's peak RSS is the file's exact peak (a spike one row wide) and
#   it says the rows were reduced;
# - its own peak RSS barely grows with the file (under 24 MiB from ROWS to
#   2 x ROWS rows; reading the whole file grew it by about 480 bytes a row);
# - the figures' data (captured with a stand-in gnuplot) hold at most two
#   points per pixel column, with the spike and the dip still in them;
# - with the real gnuplot, the report of a batch run is under 5 MB.
# The 20 MB / 200 MB / 2 GB table is scripts/bench-stream.sh's.
#   test_stream.sh PATH_TO_ZKBENCH GEN_LONG_RUN_PY [ROWS]
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
gen=$2
rows=${3:-200000}
lib_seed

python3 "$gen" "$tmp/w1" --rows "$rows" --kind watch --seed "$seed" >"$tmp/w1.json" || { echo "gen failed"; exit 1; }
python3 "$gen" "$tmp/w2" --rows $((2 * rows)) --kind watch --seed "$seed" >"$tmp/w2.json" || { echo "gen failed"; exit 1; }

# peak RSS (KiB) of a command
peak_kib() { /usr/bin/time -f "%M" -o "$tmp/time" "$@" >"$tmp/cmd.out" 2>"$tmp/cmd.err"; local rc=$?; cat "$tmp/time" | tail -1; return $rc; }

k1=$(peak_kib "$zk" analyze "$tmp/w1" --json) || fail "analyze of $rows rows: $(tail -2 "$tmp/cmd.err")"
cp "$tmp/cmd.out" "$tmp/a1.json"
k2=$(peak_kib "$zk" analyze "$tmp/w2" --json) || fail "analyze of $((2 * rows)) rows: $(tail -2 "$tmp/cmd.err")"
cp "$tmp/cmd.out" "$tmp/a2.json"
echo "analyze peak RSS: $k1 KiB at $rows rows, $k2 KiB at $((2 * rows)) rows"
[ $((k2 - k1)) -lt $((24 * 1024)) ] || fail "analyze's RSS grew by $(((k2 - k1) / 1024)) MiB from $rows to $((2 * rows)) rows"
for n in 1 2; do
  python3 - "$tmp/a$n.json" "$tmp/w$n.json" "$tmp/w$n/run.json" <<'PY' || fail "w$n: the spike is lost or nothing says the rows were reduced (seed $seed)"
import json, sys
a, g = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["peak_rss"] == g["spike_rss"], (a["peak_rss"], g["spike_rss"])
notes = " ".join(json.load(open(sys.argv[3]))["verdict"].get("notes", [])) + json.dumps(a)
assert "kept for the analysis" in notes, "no note of the reduction"
PY
done

# the figures' data: a stand-in gnuplot keeps DATADIR's files
fake=$tmp/fakebin
mkdir "$fake"
cat >"$fake/gnuplot" <<EOF
#!/bin/sh
# gnuplot -c SCRIPT DATADIR PNG SVG
mkdir -p "$tmp/captured"
cp "\$3"/*.dat "\$3/vars.gp" "$tmp/captured/" 2>/dev/null
printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\0IEND\\256B\`\\202' >"\$4"
echo '<svg></svg>' >"\$5"
EOF
chmod +x "$fake/gnuplot"
for kind in watch batch; do
  rm -rf "$tmp/captured" "$tmp/g-$kind"
  python3 "$gen" "$tmp/g-$kind" --rows "$rows" --kind $kind --seed "$seed" >"$tmp/g-$kind.json"
  PATH=$fake:$PATH "$zk" plot "$tmp/g-$kind" --out "$tmp/figs-$kind" >/dev/null 2>"$tmp/err" ||
    fail "plot ($kind) with the stand-in gnuplot: $(cat "$tmp/err")"
  python3 - "$tmp/captured" "$tmp/g-$kind.json" $kind <<'PY' || fail "$kind: the figures' data are not reduced, or lost the spike or the dip (seed $seed)"
import json, os, re, sys
d, g, kind = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
# memory.dat is written (and captured) before kinds; vars.gp is the last figure's,
# so the unit of memory.dat is found from its own values against the spike
rows = [l.split() for l in open(os.path.join(d, "memory.dat"))]
assert 2 <= len(rows) <= 2 * 1400, "memory.dat has %d rows" % len(rows)
rss = [float(r[1]) for r in rows if r[1] != "NaN"]
ratio = max(rss) / min(rss)
want = g["spike_rss"] / g["dip_rss"]
assert abs(ratio / want - 1) < 1e-6, "peak/dip %.6g, the file's %.6g" % (ratio, want)
unit = [u for u, v in units.items() if abs(max(rss) * v / g["spike_rss"] - 1) < 1e-6]
assert unit, "the peak is not the spike in any unit: %g" % max(rss)
if kind == "batch":
    n = sum(1 for _ in open(os.path.join(d, "kinds_host.dat")))
    assert 2 <= n <= 2 * 1400, "kinds_host.dat has %d rows" % n
PY
done

# the report of a long batch run, with the real gnuplot: bounded
if command -v gnuplot >/dev/null; then
  "$zk" report "$tmp/g-batch" -o "$tmp/report.html" >/dev/null 2>"$tmp/err" || fail "report: $(cat "$tmp/err")"
  size=$(stat -c %s "$tmp/report.html" 2>/dev/null || echo 0)
  echo "report of $rows rows: $size bytes"
  [ "$size" -gt 0 ] && [ "$size" -le 5000000 ] || fail "the report is $size bytes, expected at most 5 MB"
else
  echo "note: no gnuplot, the report's size is not checked"
fi

lib_done "stream: all checks passed"
