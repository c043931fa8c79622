#!/usr/bin/env bash
# The metrics export end to end (README: "Prometheus"):
#  1. refusals: a port in use (batch and watch) and every bad --listen,
#     --listen-linger or --metrics-file value exit 2 with one line, before
#     any work (no run folder, no parameters, no command started);
#  2. a batch with --listen and --metrics-file: the file, read over and over
#     while the run goes, is always a whole exposition and ends with the final
#     values; the served exposition passes promtool's metrics check (text
#     format) and a strict OpenMetrics parser (python3-prometheus-client);
#     the leak rate finds a planted leak (--inject leak:aux) and not a healthy run;
#     zkbench_verdict is analyze's verdict word for word (the final one of a
#     leaking and a healthy run, the live one of a running batch, capped or
#     not), and analyze leaves a live run's run.json to its writer;
#  3. watch: the watched command in zkbench_info, the process's families only;
#  4. promtool: scripts/prometheus/ config and rules, and the rules' behaviour
#     on planted series (alerts_test.yml);
#  5. a real Prometheus (Debian's), on loopback with a 1 s scrape interval,
#     scrapes a running batch until its API shows every proof and the RSS;
#  6. and a watched foreign prover with marks: its proofs reach Prometheus,
#     ZkbenchLeak fires on a planted leak with analyze's headline, and not
#     without the leak.
# Needs the Debian packages prometheus and python3-prometheus-client: they
# are installed when missing (apt-get, as root); where they cannot be, the
# checks that need them are skipped (exit 77 with the reason).
#   test_metrics.sh PATH_TO_ZKBENCH SCRIPTS_PROMETHEUS_DIR
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
promdir=$2
here=$(cd "$(dirname "$0")" && pwd)
bg=()
cleanup() {
  for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
}
lib_on_exit cleanup
export ZKBENCH_PARAMS_DIR=$tmp/params
py=python3
small="--circuit porep:constraints=2^10 --partitions 2"

# ---- packages ---------------------------------------------------------------
sys_py=/usr/bin/python3
have_pkgs() {
  command -v prometheus >/dev/null && command -v promtool >/dev/null &&
    "$sys_py" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null
}
skip_why=""
if ! have_pkgs; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -qq --no-install-recommends prometheus python3-prometheus-client ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus python3-prometheus-client; }; } \
      >"$tmp/apt.log" 2>&1
  fi
  have_pkgs || skip_why="Debian packages prometheus and python3-prometheus-client not installed and not installable ($(tail -1 "$tmp/apt.log" 2>/dev/null || echo 'not root or no apt-get'))"
fi

# curl fetches the pages as a scraper would: a test package
# (scripts/test-setup.sh), so its absence is one clear failure, not six
if ! command -v curl >/dev/null 2>&1; then
  echo "FAIL: curl not found: scripts/test-setup.sh installs it (apt-get install curl)" >&2
  exit 1
fi

# a free loopback port (bound, closed, then taken by the caller)
free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# waits for "metrics at http://ADDR:PORT/metrics" in file $1; prints ADDR:PORT
wait_addr() {
  for _ in $(seq 200); do
    a=$(sed -n 's|^metrics at http://\([^/]*\)/metrics$|\1|p' "$1" 2>/dev/null)
    [ -n "$a" ] && { echo "$a"; return 0; }
    sleep 0.05
  done
  return 1
}

# ---- 1. refusals ------------------------------------------------------------
"$py" -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(300)' \
  >"$tmp/busy" &
bg+=($!)
for _ in $(seq 100); do [ -s "$tmp/busy" ] && break; sleep 0.05; done
busy=$(cat "$tmp/busy")

expect2() { # what, then the command
  local what=$1
  shift
  ZKBENCH_PARAMS_DIR=$tmp/never-params "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^zkbench: ' "$tmp/err" || fail "$what: not one error line: $(cat "$tmp/err")"
  [ ! -e "$tmp/never" ] || fail "$what: created the run folder before refusing"
  [ ! -e "$tmp/never-params" ] || fail "$what: made parameters before refusing"
  rm -rf "$tmp/never" "$tmp/never-params"
}
o="--out $tmp/never"
expect2 "port in use" "$zk" batch $small $o --listen 127.0.0.1:$busy
grep -q "127.0.0.1:$busy: the port is in use" "$tmp/err" || fail "port in use: the error does not say so: $(cat "$tmp/err")"
expect2 "port in use (loopback by default)" "$zk" batch $small $o --listen :$busy
expect2 "port in use, capped batch" "$zk" batch $small $o --listen 127.0.0.1:$busy --mem-limit 1G
expect2 "watch, port in use" "$zk" watch $o --listen 127.0.0.1:$busy -- touch "$tmp/started"
[ ! -e "$tmp/started" ] || fail "watch started the command although the port is in use"
for bad in 9100 127.0.0.1: 127.0.0.1:65536 :abc ::1:9100 '[::1' 'no-such-host.invalid:9100' '300.1.1.1:9100'; do
  expect2 "--listen $bad" "$zk" batch $small $o --listen "$bad"
done
for bad in -1 x 3601 ''; do
  expect2 "--listen-linger '$bad'" "$zk" batch $small $o --listen :0 --listen-linger "$bad"
done
for bad in -1 x 86401 '' 1.5; do
  expect2 "--metrics-verdict-s '$bad'" "$zk" batch $small $o --metrics-file "$tmp/v.prom" --metrics-verdict-s "$bad"
done
expect2 "watch --metrics-verdict-s bad" "$zk" watch $o --metrics-verdict-s y -- true
expect2 "--metrics-file in a missing folder" "$zk" batch $small $o --metrics-file "$tmp/nodir/m.prom"
expect2 "--metrics-file a folder" "$zk" batch $small $o --metrics-file "$tmp"
expect2 "--metrics-file ''" "$zk" batch $small $o --metrics-file ''
expect2 "--listen without the sampler" "$zk" batch $small $o --listen :0 --sample-ms 0
expect2 "watch --listen-linger bad" "$zk" watch $o --listen-linger y -- true
expect2 "watch --metrics-file a folder" "$zk" watch $o --metrics-file "$tmp" -- true

# ---- 2. a batch with --listen and --metrics-file ------------------------------
count=6
mkdir -p "$tmp/m"
# long enough (several seconds) for the file to be rewritten while the run
# goes (every 2 s), on a fast idle machine too
"$zk" batch --circuit porep:constraints=2^13 --partitions 2 --count $count --listen :0 --listen-linger 30 --metrics-file "$tmp/m/zkbench.prom" \
  --out "$tmp/run" >"$tmp/run.out" 2>"$tmp/run.err" &
zpid=$!
bg+=($zpid)
addr=$(wait_addr "$tmp/run.out") || fail "batch --listen :0 printed no address: $(cat "$tmp/run.out" "$tmp/run.err")"
case "$addr" in 127.0.0.1:*) ;; *) fail ":0 did not bind the loopback address: $addr" ;; esac
"$py" "$here/poll.py" $zpid "$tmp/m/zkbench.prom" "http://$addr/metrics" "$tmp" >"$tmp/poll.json" ||
  fail "reading the metrics file or scraping during the run: $(cat "$tmp/poll.json")"
wait $zpid
rc=$?
[ $rc -eq 0 ] || fail "batch with --listen/--metrics-file: exit $rc: $(cat "$tmp/run.err")"
"$py" - "$tmp/poll.json" "$tmp/m/zkbench.prom" $count "$tmp/run/proofs.csv" <<'PY' || fail "metrics file or scrapes wrong"
import json, re, sys
poll = json.load(open(sys.argv[1]))
assert poll["reads"] >= 20 and poll["distinct"] >= 2, poll  # rewritten while the run went
assert poll["scrapes"] >= 1, poll
assert poll["om_type"] == "application/openmetrics-text; version=1.0.0; charset=utf-8", poll
assert poll["text_type"] == "text/plain; version=0.0.4; charset=utf-8", poll
text = open(sys.argv[2]).read()
def val(name):
    m = re.search(r"^%s (\S+)$" % re.escape(name), text, re.M)
    assert m, name
    return float(m.group(1))
count = int(sys.argv[3])
assert val("zkbench_running") == 0
assert val("zkbench_proofs_completed_total") == count
assert val("zkbench_proof_duration_seconds_count") == count
assert val('zkbench_proof_duration_seconds_bucket{le="+Inf"}') == count
assert val('zkbench_rss_bytes{layer="rss"}') > 0
assert val('zkbench_allocator_bytes{stat="allocated"}') > 0
assert val("zkbench_proofs_requested") == count
# the histogram's sum: proofs.csv's wall times
rows = open(sys.argv[4]).read().split("\n")[1:]
walls = [float(r.split(",")[4]) / 1e3 for r in rows if r]
assert len(walls) == count and abs(sum(walls) - val("zkbench_proof_duration_seconds_sum")) < 1e-3 * count, walls
assert "# EOF" not in text and "# UNIT" not in text
PY
grep -q '^  metrics          serving the final values until scraped (at most 30 s)$' "$tmp/run.out" ||
  fail "batch did not say it serves the final values"
grep -q 'no scrape fetched' "$tmp/run.err" && fail "the final values were not scraped: $(cat "$tmp/run.err")"
ls -a "$tmp/m" | grep -q '\.tmp$' && fail "a temporary metrics file was left behind"

# ---- 2b. SIGINT: exit 130 at once, no linger, no warning -------------------------
"$zk" batch $small --count 200 --listen :0 --out "$tmp/int" >"$tmp/int.out" 2>"$tmp/int.err" &
ipid=$!
bg+=($ipid)
for _ in $(seq 200); do [ -f "$tmp/int/proofs.csv" ] && [ "$(wc -l <"$tmp/int/proofs.csv")" -ge 2 ] && break; sleep 0.05; done
kill -INT $ipid
t0=$(date +%s)
wait $ipid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT with --listen: exit $rc, expected 130"
[ $(($(date +%s) - t0)) -le 10 ] || fail "SIGINT with --listen: lingered"
grep -q 'no scrape fetched' "$tmp/int.err" && fail "SIGINT with --listen: warned about a linger it skipped"

# ---- 2c. the leak rate against a planted leak ---------------------------------
# --inject leak:aux leaks every partition's witness: the tracked aux bytes
# left at the end, per proof, are the planted growth; the heap floor's fitted
# rate must find it (within 50 %), and a run without the leak must not show
# growth of half of it.
for run in leak healthy; do
  inj=""
  [ $run = leak ] && inj="--inject leak:aux"
  "$zk" batch $small --count 14 $inj --metrics-file "$tmp/$run.prom" --out "$tmp/$run" >/dev/null 2>"$tmp/$run.err" ||
    fail "$run batch failed: $(cat "$tmp/$run.err")"
done
"$py" - "$tmp/leak.prom" "$tmp/healthy.prom" <<'PY' || fail "the leak rate does not find the planted leak"
import re, sys
def val(path, name):
    m = re.search(r"^%s (\S+)$" % re.escape(name), open(path).read(), re.M)
    assert m, (path, name)
    return float(m.group(1))
def je_size_class(n):
    # jemalloc's size classes above 16 KiB: four per doubling, so a
    # request is rounded up to a multiple of a quarter of its power of two
    lg = (n - 1).bit_length() - 1
    spacing = 1 << (lg - 2)
    return -(-n // spacing) * spacing
partitions = 2  # $small
per_buffer = val(sys.argv[1], 'zkbench_tracked_live_bytes{kind="aux"}') / val(sys.argv[1], "zkbench_proofs_completed_total") / partitions
# the allocated layer counts the allocator's size class, not the request
planted = partitions * je_size_class(int(round(per_buffer)))
leak = val(sys.argv[1], 'zkbench_leak_rate_bytes_per_proof{layer="allocated"}')
healthy = val(sys.argv[2], 'zkbench_leak_rate_bytes_per_proof{layer="allocated"}')
print("planted %.0f B/proof (%.0f B requested per buffer), fitted %.0f with the leak, %.0f without" %
      (planted, per_buffer, leak, healthy))
# the leak's own rate is what the leaking run adds over the healthy one (a
# healthy batch's floor drifts by tens of KB a proof: allocator warm-up)
assert planted > 0 and 0.5 * planted <= leak - max(healthy, 0) <= 1.5 * planted, (planted, leak, healthy)
# no growth: the healthy floors may fall (warm-up caches drain), never rise
assert healthy < 0.5 * planted, (planted, healthy)
PY

# ---- 2e. zkbench_verdict: analyze's words ---------------------------------------
verdict_of_metrics() { sed -n 's/^zkbench_verdict{verdict="\([^"]*\)",headline="\(.*\)"} 1$/\1|\2/p' "$1"; }
verdict_of_analyze() { # name|headline, from analyze --json (read only)
  "$zk" analyze --json --no-save "$1" | "$py" -c 'import json,sys; j=json.load(sys.stdin); print(j["verdict"] + "|" + j["headline"])'
}
for run in leak healthy; do
  got=$(verdict_of_metrics "$tmp/$run.prom")
  want=$(verdict_of_analyze "$tmp/$run")
  [ -n "$got" ] && [ "$got" = "$want" ] || fail "$run run: zkbench_verdict '$got', analyze says '$want'"
done
case $(verdict_of_metrics "$tmp/leak.prom") in leak\|*) ;; *) fail "the planted leak's zkbench_verdict is not leak" ;; esac
case $(verdict_of_metrics "$tmp/healthy.prom") in leak\|*) fail "the healthy run's zkbench_verdict is leak" ;; esac
# live: evaluated every second while the batch runs (capped or not), the
# running batch's verdict is analyze's of a running run, then the final one
# (capped only where a memory cgroup can be made: not in a container or a
# chroot without one, where --mem-limit is refused with one line)
caps=("")
if "$zk" watch --mem-limit 64M --out "$tmp/cg-probe" -- true >/dev/null 2>"$tmp/cg-probe.err"; then
  caps+=("--mem-limit 2G")
else
  echo "skipped the capped live run: $(head -1 "$tmp/cg-probe.err")"
fi
for cap in "${caps[@]}"; do
  rm -rf "$tmp/live" "$tmp/live.prom"
  "$zk" batch $small --count 400 $cap --metrics-file "$tmp/live.prom" --metrics-verdict-s 1 --out "$tmp/live" \
    >/dev/null 2>"$tmp/live.err" &
  lpid=$!
  bg+=($lpid)
  seen=""
  for _ in $(seq 150); do
    seen=$(verdict_of_metrics "$tmp/live.prom" 2>/dev/null)
    [ -n "$seen" ] && break
    sleep 0.1
  done
  [ "$seen" = "inconclusive|inconclusive: the run is still running" ] ||
    fail "live zkbench_verdict${cap:+ ($cap)}: '$seen', expected analyze's words for a running run"
  # analyze on the live run: its words, and run.json left to its writer
  # (stopped meanwhile, so that only analyze could change the file)
  kill -STOP $lpid
  sleep 0.3
  before=$(md5sum <"$tmp/live/run.json")
  "$zk" analyze "$tmp/live" >"$tmp/live.txt" 2>&1 || fail "analyze of a live run failed: $(cat "$tmp/live.txt")"
  [ "$(md5sum <"$tmp/live/run.json")" = "$before" ] || fail "analyze wrote into a live run's run.json"
  grep -q '^status *still running' "$tmp/live.txt" || fail "analyze of a live run: no 'still running' status"
  kill -CONT $lpid
  wait $lpid || fail "live batch${cap:+ ($cap)} failed: $(cat "$tmp/live.err")"
  [ "$(verdict_of_metrics "$tmp/live.prom")" = "$(verdict_of_analyze "$tmp/live")" ] ||
    fail "live batch${cap:+ ($cap)}: the final zkbench_verdict is not analyze's"
done

# ---- 3. watch ------------------------------------------------------------------
"$zk" watch --listen :0 --listen-linger 0 --metrics-file "$tmp/w.prom" --out "$tmp/watch" -- sleep 1.5 \
  >"$tmp/w.out" 2>"$tmp/w.err" &
wpid=$!
bg+=($wpid)
waddr=$(wait_addr "$tmp/w.out") || fail "watch --listen printed no address"
sleep 0.5
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' "http://$waddr/metrics" >"$tmp/w.om"
curl -s -o /dev/null -w '%{http_code}\n' "http://$waddr/other" >"$tmp/w.404"
curl -s -o /dev/null -w '%{http_code}\n' -X POST "http://$waddr/metrics" >"$tmp/w.405"
wait $wpid || fail "watch with --listen failed: $(cat "$tmp/w.err")"
grep -q '^zkbench_info{.*,command="sleep 1.5"} 1$' "$tmp/w.om" || fail "watch: zkbench_info lacks the command: $(head -5 "$tmp/w.om")"
grep -q '^zkbench_rss_bytes{layer="rss"} [1-9]' "$tmp/w.om" || fail "watch: no RSS served"
grep -q 'zkbench_allocator_bytes\|zkbench_proofs_completed' "$tmp/w.om" && fail "watch: families of the batch's own process served"
[ "$(tail -1 "$tmp/w.om")" = "# EOF" ] || fail "watch: exposition does not end with # EOF"
[ "$(cat "$tmp/w.404")" = 404 ] || fail "GET /other: $(cat "$tmp/w.404"), expected 404"
[ "$(cat "$tmp/w.405")" = 405 ] || fail "POST /metrics: $(cat "$tmp/w.405"), expected 405"
grep -q '^zkbench_running 0$' "$tmp/w.prom" || fail "watch: the metrics file lacks the final state"
[ -n "$(verdict_of_metrics "$tmp/w.prom")" ] && [ "$(verdict_of_metrics "$tmp/w.prom")" = "$(verdict_of_analyze "$tmp/watch")" ] ||
  fail "watch: zkbench_verdict '$(verdict_of_metrics "$tmp/w.prom")' is not analyze's '$(verdict_of_analyze "$tmp/watch")'"

if [ -n "$skip_why" ]; then
  [ $fails -eq 0 ] || exit 1
  echo "SKIP: $skip_why (the checks without them passed)"
  exit 77
fi

# ---- 2d. the exposition validated by promtool and a strict parser ------------
[ -s "$tmp/last.txt" ] && [ -s "$tmp/last.om" ] || fail "no exposition scraped during the batch"
promtool check metrics <"$tmp/last.txt" >"$tmp/lint" 2>&1 || fail "promtool check metrics: $(cat "$tmp/lint")"
"$sys_py" - "$tmp/last.om" <<'PY' || fail "the OpenMetrics exposition does not parse strictly"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
assert fams["zkbench_rss_bytes"].unit == "bytes" and fams["zkbench_rss_bytes"].type == "gauge"
assert fams["zkbench_proofs_completed"].type == "counter"
assert fams["zkbench_proof_duration_seconds"].type == "histogram"
assert fams["zkbench"].type == "info"
assert any(s.labels.get("layer") == "anon" for s in fams["zkbench_rss_bytes"].samples)
PY

# ---- 4. promtool: config, rules, the rules on planted series -------------------
promtool check config "$promdir/prometheus.yml" >"$tmp/pc" 2>&1 || fail "promtool check config: $(cat "$tmp/pc")"
promtool check rules "$promdir/alerts.yml" >"$tmp/pr" 2>&1 || fail "promtool check rules: $(cat "$tmp/pr")"
(cd "$here" && promtool test rules alerts_test.yml) >"$tmp/pt" 2>&1 || fail "promtool test rules: $(cat "$tmp/pt")"

# ---- 5. a real Prometheus scraping a running batch ----------------------------
"$zk" batch $small --count $count --listen 127.0.0.1:0 --listen-linger 60 --out "$tmp/prun" \
  >"$tmp/prun.out" 2>"$tmp/prun.err" &
bpid=$!
bg+=($bpid)
target=$(wait_addr "$tmp/prun.out") || fail "batch --listen 127.0.0.1:0 printed no address"
pport=$(free_port)
cat >"$tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: zkbench
    static_configs:
      - targets: ['$target']
EOF
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" --web.listen-address="127.0.0.1:$pport" \
  --log.level=warn >"$tmp/prom.log" 2>&1 &
ppid=$!
bg+=($ppid)
"$py" - "$pport" $count <<'PY' >"$tmp/prom.result" 2>&1 || fail "Prometheus did not show the batch's proofs and memory: $(cat "$tmp/prom.result") $(tail -5 "$tmp/prom.log")"
import json, sys, time, urllib.parse, urllib.request
port, count = sys.argv[1], int(sys.argv[2])
def query(q):
    url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (port, urllib.parse.quote(q))
    with urllib.request.urlopen(url, timeout=5) as r:
        res = json.load(r)["data"]["result"]
    return [float(s["value"][1]) for s in res]
deadline, got = time.time() + 120, {}
while time.time() < deadline:
    try:
        # range selectors: the series stay readable after the batch exits
        got = {"proofs": query("last_over_time(zkbench_proofs_completed_total[10m])"),
               "rss": query('last_over_time(zkbench_rss_bytes{layer="rss"}[10m])'),
               "running": query("min_over_time(zkbench_running[10m])"),
               "durations": query("last_over_time(zkbench_proof_duration_seconds_count[10m])")}
        if got["proofs"] == [count] and got["rss"] and got["rss"][0] > 0 and got["running"] == [0]:
            break
    except OSError:
        pass  # Prometheus still starting
    time.sleep(0.25)
else:
    sys.exit("after 120 s: %s" % got)
assert got["durations"] == [count], got
# the UNIT line reached Prometheus: it scraped OpenMetrics
with urllib.request.urlopen("http://127.0.0.1:%s/api/v1/metadata?metric=zkbench_rss_bytes" % port, timeout=5) as r:
    meta = json.load(r)["data"]["zkbench_rss_bytes"]
assert meta[0]["type"] == "gauge" and meta[0]["unit"] == "bytes", meta
print(got)
PY
# the batch stops by itself once the final values are scraped
for _ in $(seq 200); do kill -0 $bpid 2>/dev/null || break; sleep 0.1; done
if kill -0 $bpid 2>/dev/null; then
  fail "the batch still serves 20 s after Prometheus fetched its final values"
else
  wait $bpid || fail "the batch Prometheus scraped failed: $(cat "$tmp/prun.err")"
fi
kill $ppid 2>/dev/null
wait $ppid 2>/dev/null
grep -q 'no scrape fetched' "$tmp/prun.err" && fail "Prometheus did not fetch the final values: $(cat "$tmp/prun.err")"

# ---- 6. the alert fires for a watched foreign prover ----------------------------
# alerts.yml as shipped, but for its 10-minute hold (a test cannot wait it);
# a foreign program with marks leaking 2 MiB a proof, watched with --listen:
# Prometheus shows its proofs from the marks and fires ZkbenchLeak with
# analyze's headline; the same program without the leak fires nothing
sed 's/^\(        for: \)10m$/\10s/' "$promdir/alerts.yml" >"$tmp/alerts-now.yml"
cmp -s "$promdir/alerts.yml" "$tmp/alerts-now.yml" && fail "alerts.yml has no 'for: 10m' left to shorten"
for leak in 2 0; do
  rm -rf "$tmp/fw$leak" "$tmp/tsdb$leak"
  "$zk" watch --sample-ms 20 --mark 'proof [0-9]+ done' --listen 127.0.0.1:0 --listen-linger 60 --metrics-verdict-s 1 \
    --out "$tmp/fw$leak" -- "$py" "$here/leaky_marks.py" 70 $leak >"$tmp/fw$leak.out" 2>"$tmp/fw$leak.err" &
  wpid=$!
  bg+=($wpid)
  target=$(wait_addr "$tmp/fw$leak.out") || fail "watch --listen printed no address"
  pport=$(free_port)
  cat >"$tmp/promw.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $tmp/alerts-now.yml
scrape_configs:
  - job_name: zkbench
    static_configs:
      - targets: ['$target']
EOF
  prometheus --config.file="$tmp/promw.yml" --storage.tsdb.path="$tmp/tsdb$leak" --web.listen-address="127.0.0.1:$pport" \
    --log.level=warn >"$tmp/promw.log" 2>&1 &
  ppid=$!
  bg+=($ppid)
  "$py" - "$pport" "$target" $leak <<'PY' >"$tmp/promw.result" 2>&1 || fail "leak $leak MiB: $(cat "$tmp/promw.result") $(tail -3 "$tmp/promw.log")"
import json, sys, time, urllib.parse, urllib.request
port, target, leak = sys.argv[1], sys.argv[2], int(sys.argv[3])
def get(path):
    with urllib.request.urlopen("http://127.0.0.1:%s%s" % (port, path), timeout=5) as r:
        return json.load(r)["data"]
def query(q):
    return [float(s["value"][1]) for s in get("/api/v1/query?query=" + urllib.parse.quote(q))["result"]]
deadline, firing, proofs, running = time.time() + 90, [], [], []
while time.time() < deadline:
    try:
        firing = [a for a in get("/api/v1/alerts")["alerts"] if a["labels"]["alertname"] == "ZkbenchLeak"]
        proofs = query("last_over_time(zkbench_proofs_completed_total[10m])")
        running = query("min_over_time(zkbench_running[10m])")
        if (leak and firing and firing[0]["state"] == "firing") or (not leak and proofs == [70] and running == [0]):
            break
    except OSError:
        pass  # Prometheus still starting
    time.sleep(0.25)
if leak:
    assert firing and firing[0]["state"] == "firing", ("no ZkbenchLeak fired", firing, proofs)
    a = firing[0]
    assert a["labels"]["instance"] == target and a["labels"]["verdict"] == "leak", a
    assert a["annotations"]["summary"] == "%s: %s" % (target, a["labels"]["headline"]), a
    assert a["labels"]["headline"].startswith("leak: "), a
else:
    assert proofs == [70], ("the marks did not reach Prometheus as proofs", proofs, running)
    assert not firing, ("ZkbenchLeak fired for a program that does not leak", firing)
print("leak %d MiB: proofs %s, alert %s" % (leak, proofs, firing[0]["labels"]["headline"] if firing else "none"))
PY
  wait $wpid || fail "watch of the foreign prover (leak $leak MiB) failed: $(cat "$tmp/fw$leak.err")"
  kill $ppid 2>/dev/null
  wait $ppid 2>/dev/null
  # the alert's words are analyze's of the same run
  if [ $leak != 0 ]; then
    case $(verdict_of_analyze "$tmp/fw$leak") in leak\|*) ;; *) fail "analyze does not call the foreign leak a leak" ;; esac
  fi
done

[ $fails -eq 0 ] && echo "metrics: all checks passed ($(cat "$tmp/prom.result"))"
[ $fails -eq 0 ]
