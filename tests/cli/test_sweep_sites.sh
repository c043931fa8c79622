#!/usr/bin/env bash
# zkbench sweep --pw LIST --trace -- CMD (issue 27 item 1): which sites grow
# with pw. pw_knob (this folder) holds 30 MiB from main for the whole run
# and one MB-MiB buffer per pw thread from partition(): at every peak the
# partition site holds MB MiB per pw and main's 30 MiB whatever the pw.
# sweep-sites.csv gives both fits (against the program's own sizes), the
# console names them; without --trace there is no sweep-sites.csv, and one
# pw value gives no fit, said in one line.
#   test_sweep_sites.sh PATH_TO_ZKBENCH PATH_TO_PW_KNOB
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
knob=$(realpath "$2")

"$zk" sweep --pw 1,2,3 --trace --sample-ms 20 --out "$tmp/t" -- "$knob" {pw} 24 >"$tmp/t.out" 2>"$tmp/t.err" ||
  fail "sweep --trace -- pw_knob: exit $? ($(tail -3 "$tmp/t.err"))"
python3 - "$tmp/t/sweep-sites.csv" <<'PY' || fail "sweep-sites.csv: see above"
import csv, sys
rows = {r["site"].split("+")[0].split("@")[0]: r for r in csv.DictReader(open(sys.argv[1]))}
MIB = 1 << 20
bad = []
part, main = rows.get("partition"), rows.get("main")
if not part or not main:
    sys.exit("no partition or main site: %s" % list(rows))
if abs(float(part["per_pw_bytes"]) - 24 * MIB) > 0.02 * 24 * MIB:
    bad.append("partition per pw %s, expected 24 MiB" % part["per_pw_bytes"])
if not (float(part["per_pw_low"]) > 0):
    bad.append("partition's slope interval does not exclude 0: %s" % part["per_pw_low"])
if abs(float(part["fixed_bytes"])) > 0.5 * MIB:
    bad.append("partition fixed %s, expected 0" % part["fixed_bytes"])
if abs(float(main["per_pw_bytes"])) > 0.5 * MIB:
    bad.append("main per pw %s, expected 0" % main["per_pw_bytes"])
if abs(float(main["fixed_bytes"]) - 30 * MIB) > 0.02 * 30 * MIB:
    bad.append("main fixed %s, expected 30 MiB" % main["fixed_bytes"])
by_pw = dict(x.split(":") for x in part["at_peak_bytes_by_pw"].split(";"))
if sorted(by_pw) != ["1", "2", "3"] or any(abs(float(by_pw[w]) - int(w) * 24 * MIB) > 0.02 * 24 * MIB for w in by_pw):
    bad.append("partition at the peaks: %s" % by_pw)
if list(rows)[0] != "partition":
    bad.append("the growing site is not first: %s" % list(rows))
for x in bad:
    print(x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
grep -Eq '^sweep: site partition\+0x[0-9a-f]+ holds 24\.0 MiB per pw \(95% CI [0-9.]+ MiB \.\. [0-9.]+ MiB\) at the peak$' "$tmp/t.out" ||
  fail "the growing site is not named: $(grep 'sweep: site' "$tmp/t.out")"
grep -Eq '^sweep: site main\+0x[0-9a-f]+ holds 30\.0 MiB whatever the pw$' "$tmp/t.out" ||
  fail "the fixed site is not named: $(grep 'sweep: site' "$tmp/t.out")"

# without --trace: no per-site table
"$zk" sweep --pw 1,2 --sample-ms 20 --out "$tmp/n" -- "$knob" {pw} 8 >"$tmp/n.out" 2>&1 || fail "sweep without --trace failed"
[ ! -e "$tmp/n/sweep-sites.csv" ] || fail "sweep-sites.csv written without --trace"
# one pw value: no fit, one line
"$zk" sweep --pw 2 --trace --sample-ms 20 --out "$tmp/one" -- "$knob" {pw} 8 >"$tmp/one.out" 2>&1 || fail "one-point sweep failed"
grep -q '^sweep: sites: 1 traced run(s) completed at 1 pw value(s): the per-site fit needs two$' "$tmp/one.out" ||
  fail "one pw value: $(grep 'sites' "$tmp/one.out")"
lib_done "sweep --trace: per-site fits: all checks passed"
