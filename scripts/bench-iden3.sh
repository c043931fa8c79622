#!/usr/bin/env bash
# zkbench prove --zkey against snarkjs groth16 prove on the same circuit,
# zkey and witness, same machine, same run: x <- x^2 + a repeated N times
# (circom --prime bls12381), domains 2^12 .. 2^15; REPEAT runs each
# (default 3), median wall time and median peak RSS (/usr/bin/time -v);
# writes a Markdown table to results/iden3-vs-snarkjs.md.
#   scripts/bench-iden3.sh [BUILD] [REPEAT] [N...]
# Needs npm (installs pinned snarkjs and circom2 into BUILD/npm, as the
# interop test does). The powers of tau come from BUILD's ptau-known-tau
# (one party knows tau: fine for timing, never for real keys) because
# `snarkjs powersoftau prepare phase2` alone takes ~9 min at 2^12 here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
args="$*"
build=$(readlink -f "${1:-$root/build}")
repeat=${2:-3}
shift 2 || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(4000 8000 16000 32000)
SNARKJS_VERSION=0.7.6
CIRCOM2_VERSION=0.2.23
npmdir=$build/npm
stamp="$npmdir/.installed-snarkjs-$SNARKJS_VERSION-circom2-$CIRCOM2_VERSION"
if [ ! -f "$stamp" ]; then
  mkdir -p "$npmdir"
  npm install --prefix "$npmdir" --no-audit --no-fund --loglevel=error \
    "snarkjs@$SNARKJS_VERSION" "circom2@$CIRCOM2_VERSION" >"$npmdir/install.log" 2>&1
  touch "$stamp"
fi
snarkjs=$npmdir/node_modules/.bin/snarkjs
circom=$npmdir/node_modules/.bin/circom2
zkbench=$build/harness/zkbench
zk=("$zkbench"); zkname="zkbench prove --zkey"
work=$build/bench-iden3
mkdir -p "$work"
cd "$work"
max=0
for n in "${sizes[@]}"; do
  p=1
  while [ $((1 << p)) -lt $((n + 3)) ]; do p=$((p + 1)); done
  [ $p -gt $max ] && max=$p
done
[ -f "ptau$max.ptau" ] || "$build/tests/iden3/ptau-known-tau" "$max" "ptau$max.ptau"

# wall seconds and peak RSS (kB) of one command: "secs kb"
measure() {
  /usr/bin/time -v "$@" >/dev/null 2>time.log || { echo "FAILED: $*" >&2; tail -5 time.log >&2; exit 1; }
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
              /Maximum resident set size/ { m = $2 } END { print w, m }' time.log
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

load_start=$(cut -d" " -f1-3 /proc/loadavg)
rows=()
for n in "${sizes[@]}"; do
  c=sq$n
  if [ ! -f "$c.zkey" ]; then
    cat >"$c.circom" <<CIRCOM
pragma circom 2.0.0;
template Sq(N) {
    signal input a;
    signal input x0;
    signal output y;
    signal x[N + 1];
    x[0] <== x0;
    for (var i = 0; i < N; i++) {
        x[i + 1] <== x[i] * x[i] + a;
    }
    y <== x[N];
}
component main {public [a]} = Sq($n);
CIRCOM
    "$circom" "$c.circom" --r1cs --wasm --prime bls12381 -o . >/dev/null
    echo '{"a": "3", "x0": "5"}' >"$c.input.json"
    "$snarkjs" wtns calculate "${c}_js/$c.wasm" "$c.input.json" "$c.wtns" >/dev/null
    "$snarkjs" groth16 setup "$c.r1cs" "ptau$max.ptau" "$c.zkey" >/dev/null
    "$snarkjs" zkey export verificationkey "$c.zkey" "$c.vk.json" >/dev/null
  fi
  zt=() zm=() st=() sm=()
  for i in $(seq "$repeat"); do
    read -r t m < <(measure "${zk[@]}" prove --zkey "$c.zkey" --wtns "$c.wtns" --proof zk.proof.json --public zk.public.json)
    zt+=("$t") zm+=("$m")
    read -r t m < <(measure "$snarkjs" groth16 prove "$c.zkey" "$c.wtns" sj.proof.json sj.public.json)
    st+=("$t") sm+=("$m")
  done
  "$snarkjs" groth16 verify "$c.vk.json" zk.public.json zk.proof.json >/dev/null ||
    { echo "zkbench's proof of $c does not verify with snarkjs" >&2; exit 1; }
  zkt=$(printf '%s\n' "${zt[@]}" | median) zkm=$(printf '%s\n' "${zm[@]}" | median)
  sjt=$(printf '%s\n' "${st[@]}" | median) sjm=$(printf '%s\n' "${sm[@]}" | median)
  p=1
  while [ $((1 << p)) -lt $((n + 3)) ]; do p=$((p + 1)); done
  rows+=("$(awk -v n="$n" -v p="$p" -v zt="$zkt" -v zm="$zkm" -v st="$sjt" -v sm="$sjm" 'BEGIN {
    printf "| %d | 2^%d | %.2f | %.0f | %.2f | %.0f | %.1fx | %.1fx |", n, p, zt, zm / 1024, st, sm / 1024, st / zt, sm / zm }')")
  echo "${rows[-1]}" >&2
done

out=$root/results/iden3-vs-snarkjs.md
commit=$(git -C "$root" rev-parse --short HEAD)
dirty=$(git -C "$root" status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
  echo "# zkbench vs snarkjs: Groth16 proving with the same zkey (BLS12-381)"
  echo
  echo "- machine: $cpu, $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $commit$dirty"
  echo "- snarkjs $SNARKJS_VERSION (node $(node --version)), circom2 $CIRCOM2_VERSION; zkbench: $zkname, CPU"
  echo "- circuit: x <- x^2 + a repeated N times, public a (circom --prime bls12381); keys: snarkjs groth16 setup"
  echo "- each: median of $repeat runs, alternating the two provers; wall time and peak RSS from /usr/bin/time -v"
  echo "  (whole process: reading the zkey and witness, proving, writing proof.json and public.json;"
  echo "  zkbench also verifies its proof before writing)"
  echo "- load average (1, 5, 15 min) at the start: $load_start; at the end: $(cut -d" " -f1-3 /proc/loadavg)"
  echo "  (above 2 on this 2-core machine means other jobs shared it: both provers slow down alike)"
  echo "- command: scripts/bench-iden3.sh $args"
  echo
  echo "| constraints N | domain | zkbench s | zkbench MiB | snarkjs s | snarkjs MiB | speed-up | memory ratio |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
} >"$out"
cat "$out"
