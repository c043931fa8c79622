#!/usr/bin/env bash
# A foreign prover that reports its partitions' states through zkbench_mark
# (issue 27 item 1): pw_knob (this folder) marks "synth start"/"synth end"
# around each thread's 40 MiB hold. Under watch --trace the marks become
# samples.csv's occupancy columns, batch's names: every row against a
# replay of marks.csv done here, and the planted threads at known times
# (pw during each hold, 0 in the idle gaps, RSS at base + pw x 40 MiB).
# analyze's per-state model from ONE watch at pw 2 predicts the measured
# peak of a watch at pw 4 within 10 %, and the foreign sweep's fit within
# 10 %; the largest pw under --ram follows from its own numbers. The id
# rule (an end marked by another thread) fills the same columns; bad and
# unbalanced marks are said once and never counted below zero; a run whose
# occupancy never varies gets "cannot be given" and what would decide.
#   test_watch_states.sh PATH_TO_ZKBENCH PATH_TO_PW_KNOB
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
knob=$(realpath "$2")

watch() { # watch OUT PW MODE: a traced watch of pw_knob PW 40 MODE
  "$zk" watch --trace --sample-ms 20 --out "$tmp/$1" -- "$knob" "$2" 40 "$3" >"$tmp/$1.out" 2>"$tmp/$1.err" ||
    fail "watch -- pw_knob $2 40 $3: exit $? ($(tail -3 "$tmp/$1.err"))"
}
watch w2 2 marks
watch w4 4 marks
watch id 2 marks-id
watch bad 2 bad-marks

# 1. the occupancy columns: a replay here, and the planted threads
python3 - "$tmp" <<'PY' || fail "occupancy columns: see above"
import csv, json, sys
tmp, MIB = sys.argv[1], 1 << 20
bad = []
def check(run, pw, by_id):
    marks = [r for r in csv.DictReader(open(f"{tmp}/{run}/marks.csv")) if r["source"] == "api"]
    rows = list(csv.DictReader(open(f"{tmp}/{run}/samples.csv")))
    st = [(float(m["t_ms"]), m["name"]) for m in marks if m["name"].split()[:1] == ["synth"]]
    starts = sorted(t for t, n in st if n.split()[1] == "start")
    ends = sorted(t for t, n in st if n.split()[1] == "end")
    if len(starts) != 2 * pw or len(ends) != 2 * pw:
        bad.append(f"{run}: {len(starts)} starts, {len(ends)} ends, planted {2 * pw} each")
        return
    for r in rows:
        t = float(r["t_ms"])
        want = sum(s <= t for s in starts) - sum(e <= t for e in ends)
        if r["n_synth"] != str(want) or r["n_gpu"] != "0" or r["n_finish"] != "0" or r["n_blocked"] != "0":
            bad.append(f"{run}: at {t} ms n_synth {r['n_synth']} (replay {want}), n_gpu {r['n_gpu']}")
            return
        if int(r["partitions_admitted"]) - int(r["partitions_done"]) != want:
            bad.append(f"{run}: at {t} ms admitted - done != n_synth")
            return
    # the planted threads: every hold of a round overlaps between its last start and first end
    rounds = [(starts[:pw], ends[:pw]), (starts[pw:], ends[pw:])]
    for k, (s, e) in enumerate(rounds):
        mid = [r for r in rows if max(s) + 20 < float(r["t_ms"]) < min(e) - 20]
        if not mid or any(r["n_synth"] != str(pw) for r in mid):
            bad.append(f"{run} round {k}: n_synth during the holds {sorted(set(r['n_synth'] for r in mid))}, planted {pw}")
        full = [int(r["rss"]) for r in mid]
        if full and not (30 + 40 * pw) * MIB <= max(full) <= (30 + 40 * pw + 8) * MIB:
            bad.append(f"{run} round {k}: RSS during the holds up to {max(full) / MIB:.1f} MiB, planted {30 + 40 * pw}")
    gap = [r for r in rows if max(ends[:pw]) + 20 < float(r["t_ms"]) < min(starts[pw:]) - 20]
    if len(gap) < 3 or any(r["n_synth"] != "0" for r in gap):
        bad.append(f"{run}: the idle gap between the rounds: {len(gap)} rows, n_synth {set(r['n_synth'] for r in gap)}")
    ms = json.load(open(f"{tmp}/{run}/run.json"))["mark_states"]
    if ms["marks"] != 4 * pw or ms["most"]["n_synth"] != pw or ms["partitions"] != 2 * pw or ms["problems"] is not None:
        bad.append(f"{run}: run.json mark_states {ms}")
    if (ms["with_id"] > 0) != by_id:
        bad.append(f"{run}: with_id {ms['with_id']}")
check("w2", 2, False)
check("w4", 4, False)
check("id", 2, True)
for x in bad: print(x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
grep -q "^  states     8 state marks (0 with a partition id, 8 per process), 4 partitions: n_synth up to 2 in samples.csv$" \
  "$tmp/w2.out" || fail "watch's states line: $(grep states "$tmp/w2.out")"

# 2. the per-state model of the pw 2 watch against the pw 4 watch and the sweep
"$zk" sweep --pw 1,2,4 --sample-ms 20 --out "$tmp/sw" -- "$knob" {pw} 40 marks >"$tmp/sw.out" 2>"$tmp/sw.err" ||
  fail "sweep -- pw_knob marks: exit $? ($(tail -3 "$tmp/sw.err"))"
"$zk" analyze --json --ram 300M "$tmp/w2" >"$tmp/w2.json" 2>"$tmp/w2.aerr" || fail "analyze --json w2: exit $?"
"$zk" analyze --ram 300M "$tmp/w2" >"$tmp/w2.txt" 2>&1 || fail "analyze w2: exit $?"
python3 - "$tmp" <<'PY' || fail "the per-state model: see above"
import csv, json, re, sys
tmp, MIB = sys.argv[1], 1 << 20
bad = []
j = json.load(open(f"{tmp}/w2.json"))
c, m = j["capacity"], j["capacity"]["model"]
if not m["ok"]:
    sys.exit(f"no model: {m.get('why')}")
f = m["bytes_per_partition"]["synthesizing"]
if abs(f - 40 * MIB) > 0.05 * 40 * MIB:
    bad.append(f"synthesizing {f / MIB:.2f} MiB a partition, planted 40")
if any(m["bytes_per_partition"][s] != 0 for s in ("waiting", "proving", "finishing")):
    bad.append(f"unmarked states hold bytes: {m['bytes_per_partition']}")
if c["pw"] != 2 or m["bounds"]["pw"] != 2:
    bad.append(f"pw {c['pw']}, the marks showed 2")
pred = {p["pw"]: p for p in c["predicted"]}
p4 = pred[4]["peak_rss"]
meas4 = json.load(open(f"{tmp}/w4/run.json"))["summary"]["peak_rss"]
err = abs(p4 - meas4) / meas4
print(f"pw 4: predicted from the pw 2 watch {p4 / MIB:.1f} MiB, measured {meas4 / MIB:.1f} MiB ({100 * err:.1f} %)")
if err > 0.10:
    bad.append(f"pw 4 predicted {p4 / MIB:.1f} MiB, measured {meas4 / MIB:.1f} MiB")
if not pred[4]["low"] <= p4 <= pred[4]["high"]:
    bad.append("pw 4 outside its own interval")
sw = {int(r["pw"]): float(r["predicted_peak_rss"]) for r in csv.DictReader(open(f"{tmp}/sw/sweep-model.csv"))}
err = abs(p4 - sw[4]) / sw[4]
print(f"pw 4: the sweep's fit {sw[4] / MIB:.1f} MiB ({100 * err:.1f} %)")
if err > 0.10:
    bad.append(f"pw 4 predicted {p4 / MIB:.1f} MiB, the sweep's fit {sw[4] / MIB:.1f} MiB")
# the largest pw under --ram 300M less 10 %, from the model's own line
room = 300 * MIB * 0.9
want = max(w for w in pred if pred[w]["peak_rss"] <= room)
if c["largest_pw"] != want or want != 5:
    bad.append(f"largest pw {c['largest_pw']}, the predictions give {want} (planted: 5)")
line = j["capacity_line"] or ""
if f"the largest pw that fits RAM 300.0 MiB less 10% is {want}; this run: pw 2" not in line:
    bad.append(f"capacity line: {line}")
if j["footprint_per_partition"] != f:
    bad.append(f"footprint_per_partition {j['footprint_per_partition']}")
txt = open(f"{tmp}/w2.txt").read()
if not re.search(r"capacity     bytes per partition \(fitted from RSS at each marked occupancy\): synthesizing 4\d\.\d MiB", txt):
    bad.append("analyze's text has no per-state line")
if "pw   4" not in txt or "<- largest that fits" not in txt:
    bad.append("analyze's text has no predictions")
# state marks are no proof boundaries
if j["boundaries"]["source"] == "marks.csv":
    bad.append(f"state marks taken as proofs: {j['boundaries']}")
for x in bad: print(x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# 2b. the run's own memory limit (run.json config.mem_limit, as watch
# --mem-limit records it): held to with no margin, as a cgroup's cap is
cp -r "$tmp/w2" "$tmp/cap"
python3 - "$tmp/cap/run.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["config"]["mem_limit"] = 250 << 20
json.dump(j, open(sys.argv[1], "w"))
PY
"$zk" analyze --json "$tmp/cap" >"$tmp/cap.json" 2>&1 || fail "analyze of a capped watch: exit $?"
python3 - "$tmp/cap.json" <<'PY' || fail "the run's memory limit: see above"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["capacity"]
want = max(p["pw"] for p in c["predicted"] if p["peak_rss"] <= 250 << 20)
line = j["capacity_line"] or ""
if c["largest_pw"] != want or want != 5 or "the memory limit 250.0 MiB less 0% is 5" not in line:
    sys.exit(f"largest pw {c['largest_pw']} (predictions: {want}); {line}")
PY

# 3. bad and unbalanced marks: said once, not counted, no crash
grep -q "1 end(s) without a start (the first: synth end at [0-9.]* s (pid [0-9]*)), not counted; 2 mark(s) name a state without 'start' or 'end'" \
  "$tmp/bad.out" || fail "bad marks: watch's line: $(grep states "$tmp/bad.out")"
"$zk" analyze --json "$tmp/bad" >"$tmp/bad.json" 2>"$tmp/bad.aerr" || fail "analyze of bad marks: exit $?"
python3 - "$tmp" <<'PY' || fail "bad marks: see above"
import csv, json, sys
tmp = sys.argv[1]
bad = []
ms = json.load(open(f"{tmp}/bad/run.json"))["mark_states"]
if (ms["unmatched_ends"], ms["malformed"], ms["marks"], ms["most"]["n_synth"]) != (1, 2, 9, 2):
    bad.append(f"mark_states {ms}")
rows = list(csv.DictReader(open(f"{tmp}/bad/samples.csv")))
if min(int(r["n_synth"]) for r in rows) != 0 or max(int(r["n_synth"]) for r in rows) != 2:
    bad.append("n_synth out of 0..2")
j = json.load(open(f"{tmp}/bad.json"))
notes = [n for n in j["notes"] if n.startswith("partition states (marks.csv): 1 end(s) without a start")]
if len(notes) != 1:
    bad.append(f"analyze's notes: {j['notes']}")
if not j["capacity"]["model"]["ok"]:
    bad.append("the balanced marks after the bad ones gave no model")
for x in bad: print(x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# 4. an occupancy that never varies: no number, and what would decide
cp -r "$tmp/w2" "$tmp/flat"
python3 - "$tmp/flat/samples.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
i = rows[0].index("n_synth")
for r in rows[1:]:
    r[i] = "2"
csv.writer(open(sys.argv[1], "w"), lineterminator="\n").writerows(rows)
PY
"$zk" analyze --ram 300M "$tmp/flat" >"$tmp/flat.txt" 2>&1 || fail "analyze flat: exit $?"
grep -q "^capacity     the largest pw that fits cannot be given: a partition's bytes cannot be told from the baseline: [0-9]* of the [0-9]* samples fitted show 2 synthesizing, no other count 3; idle samples before the first 'synth start'" \
  "$tmp/flat.txt" || fail "flat occupancy: $(grep -i capacity "$tmp/flat.txt")"
# a damaged occupancy cell: one error line, exit 2
cp -r "$tmp/w2" "$tmp/dmg"
sed -i '5s/^\([^,]*\(,[^,]*\)\{32\}\),[0-9]*,/\1,x,/' "$tmp/dmg/samples.csv"
"$zk" analyze "$tmp/dmg" >"$tmp/dmg.out" 2>"$tmp/dmg.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/dmg.err")" -eq 1 ] && grep -q "samples.csv" "$tmp/dmg.err" ||
  fail "damaged n_synth: exit $rc, $(cat "$tmp/dmg.err")"

lib_done "watch states: occupancy from marks, the per-state model, bad marks"
