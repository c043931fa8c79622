#!/usr/bin/env bash
# zkbench sweep's output (issue 14, item 7) on real small batches: the
# table printed at the end has sweep.csv's columns and values; sweep.csv
# never holds "nan", and without --ram its ram_bytes (and mem_limit) are
# empty, not 0; a point that fails (its batch stopped by SIGTERM: exit
# 130) is named on stderr, the other points still run, its row is written
# with empty fields, and sweep exits 1. Bad --pw values are refused
# before anything is written.
#   test_sweep.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
export ZKBENCH_PARAMS_DIR=$tmp/params
small=(--circuit porep:constraints=2^10 --partitions 2 --backend cpu --threads 1)

# csv_ok DIR: no nan, ram_bytes and mem_limit empty in every row
csv_ok() {
  python3 - "$1/sweep.csv" <<'PY'
import csv, sys
text = open(sys.argv[1]).read()
assert "nan" not in text.lower(), f"nan in sweep.csv:\n{text}"
rows = list(csv.DictReader(text.splitlines()))
assert rows, "no rows"
for r in rows:
    assert r["ram_bytes"] == "" and r["mem_limit"] == "", f"ram_bytes/mem_limit not empty without --ram: {r}"
PY
}

# 1. two points, both done: exit 0, the table on stdout
"$zk" sweep --pw 1,2 "${small[@]}" --count 2 --out "$tmp/ok" >"$tmp/ok.out" 2>"$tmp/ok.err"
rc=$?
[ $rc -eq 0 ] || fail "sweep --pw 1,2: exit $rc ($(tail -3 "$tmp/ok.err"))"
csv_ok "$tmp/ok" || fail "sweep.csv of a good sweep"
python3 - "$tmp/ok/sweep.csv" "$tmp/ok.out" <<'PY' || fail "the printed table does not match sweep.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = open(sys.argv[2]).read().splitlines()
cols = list(rows[0].keys())
head = [i for i, l in enumerate(out) if l.split() == cols]
assert len(head) == 1, f"no header line {cols} in:\n" + "\n".join(out)
table = [l.split() for l in out[head[0] + 1: head[0] + 1 + len(rows)]]

def fmt_bytes(b):  # harness/run/units.h
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, u = abs(b), 0
    while v >= 1024 and u < 5:
        v /= 1024; u += 1
    if u == 0:
        return "%.0f B" % v
    return "%.*f %s" % (2 if v < 10 else 1 if v < 100 else 0, v, units[u])

for r, t in zip(rows, table):
    line = " ".join(t)
    assert t[0] == r["pw"] and t[1] == r["concurrency"], line
    assert t[-1] == r["outcome"] == "complete", line
    assert float(r["peak_anon"]) > 1 << 20 and float(r["peak_anon"]) <= float(r["peak_rss"]), r
    # the file has 4 places, the table 3: both round the same number
    assert abs(float(t[2]) - float(r["s_per_proof"])) <= 0.00051, (line, r["s_per_proof"])
    assert line.split(" ", 3)[3].startswith(fmt_bytes(float(r["peak_rss"]))), (line, r["peak_rss"])
    assert float(r["peak_rss"]) > 1 << 20, r
PY

# 2. bad --pw: refused before anything is written
"$zk" sweep --pw 1,2000 "${small[@]}" --out "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] || fail "--pw 2000: exit $rc: $(cat "$tmp/bad.err")"
[ -e "$tmp/bad" ] && fail "--pw 2000 made $tmp/bad"
"$zk" sweep --pw 1 --count x "${small[@]}" --out "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--count" "$tmp/bad.err" || fail "a bad batch option: exit $rc: $(cat "$tmp/bad.err")"
[ -e "$tmp/bad" ] && fail "a bad batch option made $tmp/bad"

# 3. the batch of pw 2 stopped by SIGTERM (exit 130): named, exit 1
"$zk" sweep --pw 2,1 "${small[@]}" --count 30 --out "$tmp/fail" >"$tmp/fail.out" 2>"$tmp/fail.err" &
sweep=$!
pid=
for _ in $(seq 1 2400); do
  pid=$(pgrep -f -- "--out $tmp/fail/pw-2\$" | head -1)
  [ -n "$pid" ] && break
  sleep 0.05
done
if [ -z "$pid" ]; then
  fail "the batch of pw 2 never showed up"
else
  sleep 0.5
  kill -TERM "$pid"
fi
wait $sweep
rc=$?
[ $rc -eq 1 ] || fail "sweep with a failed point: exit $rc, expected 1 ($(tail -3 "$tmp/fail.err"))"
grep -q "sweep: 1 of 2 point(s) failed: pw 2 (exit 130; see $tmp/fail/pw-2.log)" "$tmp/fail.err" \
  || fail "the failed point is not named: $(cat "$tmp/fail.err")"
python3 - "$tmp/fail/sweep.csv" <<'PY' || fail "sweep.csv of a sweep with a failed point"
import csv, sys
text = open(sys.argv[1]).read()
assert "nan" not in text.lower(), text
rows = {r["pw"]: r for r in csv.DictReader(text.splitlines())}
assert set(rows) == {"1", "2"}, rows          # the point after the failure ran
assert rows["1"]["outcome"] == "complete", rows["1"]
assert rows["2"]["outcome"] in ("interrupted", "failed"), rows["2"]
PY
csv_ok "$tmp/fail" || fail "sweep.csv with a failed point"
grep -qE "^ +2 +1 .* (interrupted|failed)$" "$tmp/fail.out" || fail "the printed table lacks the failed point: $(tail -4 "$tmp/fail.out")"

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed" >&2
  exit 1
fi
echo "sweep: all checks passed"
