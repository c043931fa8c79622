#!/usr/bin/env bash
# issue 29 on the GPU (results/h200/what-if.md): a 2^24 batch, its what-if, and three of its changes made;
#   OUT=... bash scripts/device/h200-what-if.sh   (binaries from .device/gpu, scripts/device/pack-gpu.sh)
set -u
[ -d .device/gpu ] || tar xJf .device/gpu.tar.xz -C .device
D=$PWD/.device/gpu; Z=$D/zkbench
export LD_LIBRARY_PATH=$D ZKBENCH_PARAMS_DIR=/tmp/zkp
W=$OUT/wi; mkdir -p $W
t0=$SECONDS
cl="--backend gpu --circuit porep:constraints=2^24 --partitions 4 --count 2 --pw 2 --quiet --no-analyze"
run() { local n=$1; shift; timeout 200 "$@" --out $W/$n > $W/$n.log 2>&1; echo "$n rc=$? at $((SECONDS-t0)) s"; }
run base $Z batch $cl --concurrency 2
$Z analyze --json --no-save $W/base > $W/base.json 2>&1
$Z analyze --no-save $W/base > $W/base.txt 2>&1
grep -A8 "^what-if  *each" $W/base.txt
run aux $Z batch $cl --concurrency 2 --free-at-last-use aux
run c1 $Z batch $cl --concurrency 1
MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0 run d0 $Z batch $cl --concurrency 2
for n in aux c1 d0; do $Z analyze --json --no-save $W/$n > $W/$n.json 2>&1; done
python3 - $W <<'PY'
import json, sys
d = sys.argv[1]
b = json.load(open(d + "/base.json"))
print("base peak %.2f GiB" % (b["peak_rss"] / 2**30))
for e in b["what_if"]:
    print("  %-55s pred %.2f GiB largest %s made_by %s" % (e["change"], e["peak_bytes"] / 2**30, e["largest_pw"], e["made_by"]))
for n in ("aux", "c1", "d0"):
    j = json.load(open("%s/%s.json" % (d, n)))
    print("%s measured peak %.2f GiB, its largest pw %s" % (n, j["peak_rss"] / 2**30, j["capacity"].get("largest_pw")))
PY
for n in base aux c1 d0; do rm -f $W/$n/samples.csv.gz; gzip -f $W/$n/samples.csv $W/$n/buffers.csv 2>/dev/null; done
tar czf $OUT/wi.tar.gz -C $OUT wi
