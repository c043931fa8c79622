#!/usr/bin/env bash
# The memory switches of issue 29 on zkbench batch:
# - bad input (--free-at-last-use: unknown, empty, repeated, a kind with no
#   earlier free, a kind also leaked or held by --inject; --purge-after; --trim
#   against --purge-after; --mem-budget; --model without a budget, a missing
#   run, a budget below one partition's need): one line, exit 2, no folder;
# - with --blind-seed the same batch with and without each switch
#   (--free-at-last-use aux,pending, --purge-after partition, --trim proof,
#   --mem-budget learned and --model) writes proofs.bin byte for byte alike,
#   and without --blind-seed the proofs differ (the seed is what fixes them);
# - --free-at-last-use pending frees the b_g2 scalars at their last use: the
#   bytes x seconds held after it (buffers.csv) fall to under a tenth;
# - --mem-budget learned: the first MEM_BUDGET_LEARN (2) partitions run
#   alone, the model's bytes per state are the capacity model's of the same
#   run (zkbench analyze), reserved_bytes stays within the budget (check_run);
#   a budget that admits the learned partitions but not one more fails with
#   one line, exit 1, no deadlock;
# - the claim's memory half (porep 2^16): under a cgroup cap halfway between the peaks
#   of pw 1 and pw 6, fixed pw 6 is OOM-killed (exit 3) and --mem-budget CAP
#   with pw 6 as a ceiling completes with every proof verified. The timing
#   half (within 5 % of the best surviving fixed pw) is not asserted here: on
#   a shared 2-core machine at this size the noise exceeds 5 %; it is
#   measured by scripts/bench-mem-budget.sh (results/what-if-budget-cpu.md).
#   test_mem_budget.sh PATH_TO_ZKBENCH PATH_TO_CHECK_RUN_PY
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
check_run=$2
export ZKBENCH_PARAMS_DIR=$tmp/params
jq_() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1/run.json" "$2"; }


small="--circuit porep:constraints=2^12 --partitions 2 --count 1 --no-analyze --quiet"
id="--circuit porep:constraints=2^14 --partitions 2 --count 2 --concurrency 2 --pw 2 --seed 11 --no-analyze --quiet"
"$zk" batch $id --blind-seed 5 --out "$tmp/base" >/dev/null 2>"$tmp/err" || fail "base run: $(cat "$tmp/err")"

# 1. refusals
o="--out $tmp/never"
lib_expect2 "--free-at-last-use foo" "$zk" batch $small --free-at-last-use foo $o
grep -q "unknown kind 'foo'" "$tmp/err" || fail "unknown kind: $(cat "$tmp/err")"
lib_expect2 "--free-at-last-use ''" "$zk" batch $small --free-at-last-use '' $o
lib_expect2 "--free-at-last-use aux," "$zk" batch $small --free-at-last-use aux, $o
lib_expect2 "--free-at-last-use ,aux" "$zk" batch $small --free-at-last-use ,aux $o
lib_expect2 "--free-at-last-use aux,pending,aux" "$zk" batch $small --free-at-last-use aux,pending,aux $o
grep -q "names aux twice" "$tmp/err" || fail "duplicate: $(cat "$tmp/err")"
for k in params circuit abc ntt h msm pinned other gpu_abc gpu_msm; do
  lib_expect2 "--free-at-last-use $k" "$zk" batch $small --free-at-last-use $k $o
  grep -q "no earlier free is possible" "$tmp/err" || fail "$k: $(cat "$tmp/err")"
done
lib_expect2 "--free-at-last-use aux + hold:aux" "$zk" batch $small --free-at-last-use aux --inject hold:aux:5 $o
lib_expect2 "--free-at-last-use pending + leak:pending" "$zk" batch $small --inject leak:pending --free-at-last-use pending $o
lib_expect2 "--free-at-last-use without a value" "$zk" batch $small $o --free-at-last-use
lib_expect2 "--purge-after sometimes" "$zk" batch $small --purge-after sometimes $o
lib_expect2 "--trim proof --purge-after partition" "$zk" batch $small --trim proof --purge-after partition $o
lib_expect2 "--mem-budget 0" "$zk" batch $small --mem-budget 0 $o
lib_expect2 "--mem-budget lots" "$zk" batch $small --mem-budget lots $o
lib_expect2 "--mem-budget -1G" "$zk" batch $small --mem-budget -1G $o
lib_expect2 "--model without --mem-budget" "$zk" batch $small --model "$tmp/base" $o
lib_expect2 "--model missing" "$zk" batch $small --mem-budget 1G --model "$tmp/nothing" $o
lib_expect2 "--mem-budget below one partition" "$zk" batch $small --mem-budget 1M --model "$tmp/base" $o
grep -q "cannot admit one partition" "$tmp/err" || fail "budget too small: $(cat "$tmp/err")"
lib_expect2 "--mem-budget, --sample-ms 0" "$zk" batch $small --mem-budget 1G --sample-ms 0 $o
lib_expect2 "--blind-seed x" "$zk" batch $small --blind-seed x $o

# 2. proofs byte for byte, with and without each switch
[ "$(stat -c %s "$tmp/base/proofs.bin")" -eq $((2 * 2 * 192)) ] || fail "proofs.bin: not 4 proofs of 192 bytes"
n=0
for sw in "--free-at-last-use aux,pending" "--free-at-last-use pending" "--purge-after partition" "--trim proof" \
          "--mem-budget 1G" "--mem-budget 1G --model $tmp/base" "--pw 1 --purge-after proof --free-at-last-use aux"; do
  n=$((n + 1))
  "$zk" batch $id --blind-seed 5 $sw --out "$tmp/sw$n" >/dev/null 2>"$tmp/err" || { fail "$sw: $(cat "$tmp/err")"; continue; }
  cmp -s "$tmp/base/proofs.bin" "$tmp/sw$n/proofs.bin" || fail "$sw: proofs.bin differs from the run without it"
  python3 "$check_run" "$tmp/sw$n" --complete || fail "$sw: files inconsistent"
done
[ "$(jq_ "$tmp/sw3" 'j["config"]["purge_after"], j["config"]["trim"]')" = "('partition', 'partition')" ] \
  || fail "--purge-after partition: config $(jq_ "$tmp/sw3" 'j["config"]["purge_after"], j["config"]["trim"]')"
[ "$(jq_ "$tmp/sw4" 'j["config"]["purge_after"]')" = proof ] || fail "--trim proof: purge_after not proof"
[ "$(jq_ "$tmp/sw1" 'j["config"]["free_at_last_use"]')" = "['aux', 'pending']" ] || fail "config free_at_last_use"
"$zk" batch $id --out "$tmp/fresh" >/dev/null 2>&1 || fail "run without --blind-seed"
cmp -s "$tmp/base/proofs.bin" "$tmp/fresh/proofs.bin" && fail "without --blind-seed the proofs are the same: the seed fixes nothing"

# 3. pending freed at its last use: bytes x seconds held after it
held() {
  python3 - "$1/buffers.csv" <<'PY'
import csv, sys
print(sum(int(r["bytes"]) * (float(r["t_free_ms"]) - float(r["t_last_use_ms"]))
          for r in csv.DictReader(open(sys.argv[1]))
          if r["kind"] == "pending" and r["t_free_ms"] and r["t_last_use_ms"]))
PY
}
h0=$(held "$tmp/base") h1=$(held "$tmp/sw2")
python3 -c "import sys; sys.exit(0 if $h0 > 0 and $h1 < $h0 / 10 else 1)" \
  || fail "--free-at-last-use pending: held bytes x ms $h1, without it $h0 (expected under a tenth)"

# 4. the learned model: two partitions alone, the capacity model's bytes
b=$tmp/sw5
python3 - "$b" <<'PY' || fail "--mem-budget learned: the learning partitions did not run alone"
import csv, sys
for r in csv.DictReader(open(sys.argv[1] + "/samples.csv")):
    if int(r["partitions_done"]) >= 2:
        break
    live = sum(int(r[k]) for k in ("n_synth", "n_blocked", "q_gpu", "n_gpu", "n_finish"))
    if live > 1:
        sys.exit(f"at {r['t_ms']} ms, {live} partitions in flight before 2 were done")
PY
"$zk" analyze "$b" --json --no-save >"$tmp/an.json" 2>/dev/null || fail "analyze of the budget run"
python3 - "$b/run.json" "$tmp/an.json" <<'PY' || fail "--mem-budget learned: its model is not the capacity model's"
import json, sys
m = json.load(open(sys.argv[1]))["mem_budget"]
c = json.load(open(sys.argv[2]))["capacity"]["model"]
assert m["model"]["source"] == "this run" and m["model"]["ready"] and m["model"]["partitions"] == 2, m["model"]
want = c["bytes_per_partition"]
got = m["model"]["bytes_per_partition"]
# the budget learns from the first two partitions, analyze from all: a
# partition's proving peak moves by whether one buffer's life overlaps it
# (3,501,056 or 3,941,648 B at 2^14, from run to run, either path), so the
# two agree within 12 %; the untracked share the budget must not count is
# 50-70 % of a partition
for s in ("synthesizing", "waiting", "proving", "finishing"):
    assert abs(got[s] - want[s]) <= 0.12 * want[s], (s, got[s], want[s])
assert m["need_bytes"]["synthesizing"] >= max(got.values()), m
assert m["reserved_peak_bytes"] <= m["budget_bytes"] - m["baseline_bytes"], m
PY
[ "$(jq_ "$tmp/sw6" 'j["mem_budget"]["model"]["source"]')" = "run $tmp/base" ] || fail "--model: source not recorded"
# room for the learned partition, not for one with its untracked share: exit 1, one line
base_rss=$(jq_ "$b" 'j["mem_budget"]["baseline_bytes"]')
need=$(jq_ "$b" 'j["mem_budget"]["need_bytes"]["synthesizing"]')
tight=$((base_rss + need / 3))
timeout 300 "$zk" batch $id --mem-budget $tight --out "$tmp/tight" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "a budget below one partition's learned need: exit $rc, expected 1 ($(cat "$tmp/err"))"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "cannot admit one partition" "$tmp/err" || fail "tight budget: $(cat "$tmp/err")"
[ "$(jq_ "$tmp/tight" 'j["status"]')" = failed ] || fail "tight budget: run.json status not failed"

# 5. under a cap: fixed pw 6 OOM-killed, the budget with pw 6 as a ceiling completes
"$zk" watch --mem-limit 64M --out "$tmp/probe" -- sleep 0.3 >/dev/null 2>"$tmp/probe.err"
if [ $? -ne 0 ]; then
  echo "SKIP (cap part): no memory cgroup can be made here: $(cat "$tmp/probe.err")"
  lib_done "mem-budget: switches and budget checked, cap part skipped"
  [ "$fails" -eq 0 ] && exit 77
fi
kp=6 # the fixed pw the cap kills: 5 partitions above pw 1 (pw 4 left only 7 MiB once, under load)
cl="--circuit porep:constraints=2^16 --partitions 4 --count 2 --concurrency 2 --seed 3 --no-analyze --quiet"
peak() { jq_ "$1" 'j["memory_events"]["peak_bytes"]'; }
"$zk" batch $cl --pw 1 --mem-limit 4G --out "$tmp/p1" >/dev/null 2>"$tmp/err" || fail "pw 1: $(cat "$tmp/err")"
"$zk" batch $cl --pw $kp --mem-limit 4G --out "$tmp/p$kp" >/dev/null 2>"$tmp/err" || fail "pw $kp: $(cat "$tmp/err")"
p1=$(peak "$tmp/p1") pk=$(peak "$tmp/p$kp")
[ "$pk" -gt $((p1 + 8 * 1048576)) ] || fail "pw $kp peaks at $pk, not 8 MiB above pw 1's $p1: no room for a cap between"
cap=$(((p1 + pk) / 2))
"$zk" batch $cl --pw $kp --mem-limit $cap --out "$tmp/k$kp" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "fixed pw $kp under $cap bytes: exit $rc, expected 3 (OOM-killed)"
"$zk" batch $cl --pw $kp --mem-limit $cap --mem-budget $cap --model "$tmp/p1" --out "$tmp/bm" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "--mem-budget $cap --model, pw $kp ceiling, under the cap: exit $rc ($(cat "$tmp/err"))"
[ "$(jq_ "$tmp/bm" 'j["summary"]["proofs_done"], j["memory_events"]["oom_kill"]')" = "(2, 0)" ] \
  || fail "--mem-budget run: $(jq_ "$tmp/bm" 'j["summary"]["proofs_done"], j["memory_events"]')"
python3 "$check_run" "$tmp/bm" --complete || fail "--mem-budget run under the cap: files inconsistent"
"$zk" batch $cl --pw $kp --mem-limit $cap --mem-budget $cap --out "$tmp/bl" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "--mem-budget $cap learned, pw $kp ceiling, under the cap: exit $rc ($(cat "$tmp/err"))"
cmp -s "$tmp/bm/proofs.bin" "$tmp/bl/proofs.bin" && fail "two runs without --blind-seed gave the same proofs"

lib_done "mem-budget: refusals, proofs byte for byte, the learned model, and fixed pw $kp killed where the budget completes under $cap bytes"
