#!/usr/bin/env bash
# Admission by memory against fixed pw under a memory cgroup cap (issue 29,
# the claim, CPU version): the table of results/what-if-budget-cpu.md.
#   scripts/bench-mem-budget.sh [ZKBENCH] [REPEATS]
# 1. every fixed pw in PWS, uncapped but in a generous cgroup (so its peak
#    is the cgroup's), REPEATS times: median s/proof and the highest peak;
#    the fastest pw is the one of the lowest median;
# 2. the cap: halfway between the fastest pw's peak and the highest peak of
#    a slower-peaking pw below it, so that it kills the fastest;
# 3. under the cap: each fixed pw (the survivors REPEATS times), then
#    --mem-budget CAP with pw as a ceiling, the model learned in the run and
#    the model of the best survivor's uncapped run (--model), REPEATS times.
# Prints a markdown table (machine, date, commit, command first). Needs root
# and a memory controller (--mem-limit). CIRCUIT, PARTITIONS, COUNT, PWS
# override the workload; BACKEND=gpu proves on the GPU (the table's title
# says which); ROOMY is the generous cgroup of the uncapped runs (default
# 8G, above every peak it holds or the table is refused); KEEP=DIR keeps
# each run's run.json there (DIR/NAME.json); COMMIT names the commit where
# the tree has no .git (a copy on the device machine); BATCH_ARGS adds
# batch options to every run (e.g. --threads 4 --params-load heap).
set -euo pipefail
zk=$(realpath "${1:-build/harness/zkbench}")
reps=${2:-3}
circuit=${CIRCUIT:-porep:constraints=2^16}
parts=${PARTITIONS:-4}
count=${COUNT:-4}
pws=${PWS:-1 2 3 4}
backend=${BACKEND:-cpu}
roomy=${ROOMY:-8G}
commit=${COMMIT:-$(git -C "$(dirname "$0")/.." rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
tmp=$(mktemp -d)
keep() { [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP"; for j in "$tmp"/*/run.json; do [ -f "$j" ] && cp "$j" "$KEEP/$(basename "$(dirname "$j")").json"; done; }; }
trap 'keep; rm -rf "$tmp"' EXIT
cd "$(dirname "$0")/.."
common="--backend $backend --circuit $circuit --partitions $parts --count $count --concurrency 2 --no-analyze --quiet --seed 5${BATCH_ARGS:+ $BATCH_ARGS}"

# run NAME CAP ARGS...: one batch; prints "exit s_per_proof cgroup_peak rss_peak"
run() {
  local name=$1 cap=$2
  shift 2
  local rc=0
  "$zk" batch $common --mem-limit "$cap" --out "$tmp/$name" "$@" >/dev/null 2>"$tmp/$name.err" || rc=$?
  python3 - "$tmp/$name/run.json" "$rc" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j.get("summary") or {}
me = j.get("memory_events") or {}
print(sys.argv[2], s.get("s_per_proof") or "nan", me.get("peak_bytes") or 0, s.get("peak_rss") or 0)
PY
}
median() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(statistics.median(v))' "$@"; }
mib() { python3 -c "print(f'{$1/2**20:.1f}')"; }

"$zk" batch $common --pw 1 --count 1 --out "$tmp/warm" >/dev/null 2>&1 # the parameters, once

declare -A med peak
for pw in $pws; do
  ts=() hi=0
  for r in $(seq "$reps"); do
    read -r rc t pk rss < <(run "u$pw-$r" "$roomy" --pw "$pw")
    [ "$rc" = 0 ] || { echo "uncapped pw $pw exited $rc under ROOMY=$roomy (raise it)" >&2; exit 1; }
    ts+=("$t")
    [ "$pk" -gt "$hi" ] && hi=$pk
  done
  med[$pw]=$(median "${ts[@]}")
  peak[$pw]=$hi
done
fast=$(for pw in $pws; do echo "${med[$pw]} $pw"; done | sort -g | head -1 | cut -d' ' -f2)
below=0
for pw in $pws; do
  if [ "${peak[$pw]}" -lt "${peak[$fast]}" ] && [ "${peak[$pw]}" -gt "$below" ]; then below=${peak[$pw]}; fi
done
[ "$below" -gt 0 ] || { echo "no pw peaks below the fastest (pw $fast): no cap kills it alone" >&2; exit 1; }
cap=$(((below + peak[$fast]) / 2))
best=""
for pw in $pws; do
  if [ "${peak[$pw]}" -lt "$cap" ] && { [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if ${med[$pw]} < ${med[$best]} else 1)"; }; then
    best=$pw
  fi
done

echo "# Admission by memory under a cap: $(echo "$backend" | tr a-z A-Z)"
echo
gpu=""
[ "$backend" = gpu ] && gpu="; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB$gpu"
echo "- date: $(date -u +%Y-%m-%d), commit $commit"
echo "- command: scripts/bench-mem-budget.sh $* (BACKEND=$backend CIRCUIT=$circuit PARTITIONS=$parts COUNT=$count PWS='$pws' ROOMY=$roomy, $reps repeats)"
echo "- batch: $common"
echo "- fastest fixed pw uncapped: $fast; cap $(mib $cap) MiB (halfway between its cgroup peak and the next lower one)"
echo
echo "| run | cap | exit (each repeat) | s/proof (median) | cgroup peak MiB (max) | vs best survivor |"
echo "| --- | --- | --- | --- | --- | --- |"
for pw in $pws; do
  echo "| fixed pw $pw | none | 0 | ${med[$pw]} | $(mib ${peak[$pw]}) | |"
done
# repeats NAME N CAP ARGS...: N runs NAME-1..N under CAP; sets exits (each
# run's exit), m (the median s/proof of those that completed, nan if none)
# and hi (the highest cgroup peak)
repeats() {
  local name=$1 n=$2 cap=$3 r rc t pk rss ts=()
  shift 3
  exits=() hi=0
  for r in $(seq "$n"); do
    read -r rc t pk rss < <(run "$name-$r" "$cap" "$@")
    exits+=("$rc")
    [ "$rc" = 0 ] && ts+=("$t")
    [ "$pk" -gt "$hi" ] && hi=$pk
  done
  m=nan
  if [ ${#ts[@]} -gt 0 ]; then m=$(median "${ts[@]}"); fi
}
declare -A cmed
for pw in $pws; do
  n=1
  [ "$pw" = "$best" ] && n=$reps
  repeats "c$pw" "$n" "$cap" --pw "$pw"
  cmed[$pw]=$m
  echo "| fixed pw $pw | $(mib $cap) MiB | ${exits[*]} | $m | $(mib $hi) | |"
done
ref=${cmed[$best]}
maxpw=$(echo $pws | tr ' ' '\n' | sort -n | tail -1)
for how in learned model; do
  extra=()
  [ $how = model ] && extra=(--model "$tmp/u$best-1")
  repeats "b$how" "$reps" "$cap" --pw "$maxpw" --mem-budget "$cap" "${extra[@]}"
  rel=$(python3 -c "import math; m=float('$m'); print('' if math.isnan(m) else f'{(m / $ref - 1) * 100:+.1f} %')")
  echo "| --mem-budget $(mib $cap)M, pw ceiling $maxpw, model $how | $(mib $cap) MiB | ${exits[*]} | $m | $(mib $hi) | $rel |"
done
echo
echo "Best fixed pw that survives the cap: $best ($ref s/proof under the cap)."
