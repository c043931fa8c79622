#!/usr/bin/env bash
# zkbench prove --zkey against snarkjs groth16 prove on the same circuit,
# zkey and witness, same machine, same run: x <- x^2 + a repeated N times
# (circom --prime bls12381); writes a Markdown table to
# results/iden3-vs-snarkjs.md.
#   scripts/bench-iden3.sh [BUILD] [REPEAT] [N...]
# Defaults: build, 3, and N = 30000 (the 30k chain, domain 2^15) and
# 1048573 (the largest chain in a domain of 2^20: N + 3 rows).
# Per N: zkbench's first prove of the key (every query point checked for its
# subgroup, then recorded) once, then REPEAT runs of each prover alternating
# (zkbench's vouched for by the record), for N above 2^18 at most
# REPEAT_LARGE (default 1) runs each: snarkjs takes minutes there. Median
# wall time and peak RSS (/usr/bin/time -v), and zkbench's own zkey read
# time. Needs npm (installs pinned snarkjs and circom2 into BUILD/npm-bench)
# and /usr/bin/time (Debian: time). The powers of tau come from BUILD's
# ptau-known-tau (one party knows tau: fine for timing, never for real
# keys): `snarkjs powersoftau prepare phase2` alone takes ~9 min at 2^12
# here. At 2^20, making the keys (once, kept in BUILD/bench-iden3) takes
# snarkjs about an hour on two cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
args="$*"
build=$(readlink -f "${1:-$root/build}")
repeat=${2:-3}
repeat_large=${REPEAT_LARGE:-1}
shift 2 || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(30000 1048573)
[ -x /usr/bin/time ] || { echo "bench-iden3: /usr/bin/time not found (apt-get install time)" >&2; exit 1; }
SNARKJS_VERSION=0.7.6
CIRCOM2_VERSION=0.2.23
npmdir=$build/npm-bench
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
work=$build/bench-iden3
mkdir -p "$work"
cd "$work"
# zkbench's records of checked keys: here, not in the user's cache
export ZKBENCH_PARAMS_DIR=$work/params
# snarkjs holds a 2^20 key and its witness in the V8 heap
export NODE_OPTIONS=--max-old-space-size=16384
log2() { local p=1; while [ $((1 << p)) -lt $(($1 + 3)) ]; do p=$((p + 1)); done; echo $p; }

# wall seconds and peak RSS (kB) of one command: "secs kb"; its stdout in out.log
measure() {
  /usr/bin/time -v "$@" >out.log 2>time.log || { echo "FAILED: $*" >&2; tail -5 time.log >&2; exit 1; }
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
              /Maximum resident set size/ { m = $2 } END { print w, m }' time.log
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
zk_read() { sed -n 's/^key .*(read in \([0-9.]*\) s)$/\1/p' out.log; }

load_start=$(cut -d" " -f1-3 /proc/loadavg)
rows=()
for n in "${sizes[@]}"; do
  p=$(log2 "$n")
  c=sq$n
  if [ ! -f "$c.zkey" ]; then
    [ -f "ptau$p.ptau" ] || "$build/tests/iden3/ptau-known-tau" "$p" "ptau$p.ptau"
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
    "$snarkjs" groth16 setup "$c.r1cs" "ptau$p.ptau" "$c.zkey.tmp" >/dev/null
    mv "$c.zkey.tmp" "$c.zkey"
    "$snarkjs" zkey export verificationkey "$c.zkey" "$c.vk.json" >/dev/null
  fi
  zk=("$zkbench" prove --zkey "$c.zkey" --wtns "$c.wtns" --proof zk.proof.json --public zk.public.json)
  # the first prove of this key: no record yet, every query point checked
  rm -rf "$ZKBENCH_PARAMS_DIR/checked"
  read -r ft fm < <(measure "${zk[@]}")
  fr=$(zk_read)
  grep -q '^subgroup  .* checked in .* recorded in ' out.log || { echo "zkbench did not record $c" >&2; cat out.log >&2; exit 1; }
  reps=$repeat
  [ "$p" -gt 18 ] && [ "$repeat_large" -lt "$reps" ] && reps=$repeat_large
  zt=() zm=() zr=() st=() sm=()
  for i in $(seq "$reps"); do
    read -r t m < <(measure "${zk[@]}")
    grep -q '^subgroup  checked before' out.log || { echo "zkbench's record of $c not used" >&2; exit 1; }
    zt+=("$t") zm+=("$m") zr+=("$(zk_read)")
    read -r t m < <(measure "$snarkjs" groth16 prove "$c.zkey" "$c.wtns" sj.proof.json sj.public.json)
    st+=("$t") sm+=("$m")
  done
  "$snarkjs" groth16 verify "$c.vk.json" zk.public.json zk.proof.json >/dev/null ||
    { echo "zkbench's proof of $c does not verify with snarkjs" >&2; exit 1; }
  zkt=$(printf '%s\n' "${zt[@]}" | median) zkm=$(printf '%s\n' "${zm[@]}" | median)
  zkr=$(printf '%s\n' "${zr[@]}" | median)
  sjt=$(printf '%s\n' "${st[@]}" | median) sjm=$(printf '%s\n' "${sm[@]}" | median)
  rows+=("$(awk -v n="$n" -v p="$p" -v reps="$reps" -v zt="$zkt" -v zm="$zkm" -v zr="$zkr" -v ft="$ft" -v fr="$fr" \
    -v st="$sjt" -v sm="$sjm" 'BEGIN {
    printf "| %d | 2^%d | %d | %.2f | %.3f | %.0f | %.2f | %.0f | **%.1fx** | %.1fx | %.2f (%.2f) | %.1fx |",
      n, p, reps, zt, zr, zm / 1024, st, sm / 1024, st / zt, sm / zm, ft, fr, st / ft }')")
  echo "${rows[-1]}" >&2
done

out=$root/results/iden3-vs-snarkjs.md
# ZKBENCH_COMMIT: where the tree is a copy without .git (a device machine)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "${ZKBENCH_COMMIT:-unknown}")
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
  echo "# zkbench vs snarkjs: Groth16 proving with the same zkey (BLS12-381)"
  echo
  echo "- machine: $cpu, $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $commit$dirty"
  echo "- snarkjs $SNARKJS_VERSION (node $(node --version)), circom2 $CIRCOM2_VERSION; zkbench: zkbench prove --zkey, CPU, all cores"
  echo "- circuit: x <- x^2 + a repeated N times, public a (circom --prime bls12381); keys: snarkjs groth16 setup"
  echo "- runs: the median of the runs column, alternating the two provers; wall time and peak RSS from"
  echo "  /usr/bin/time -v (whole process: reading the zkey and witness, proving, writing proof.json and"
  echo "  public.json; zkbench also verifies its proof before writing)"
  echo "- zkbench checks every query point of a key for its subgroup (Scott's endomorphism tests, all"
  echo "  threads) and records the key's SHA-256; a key recorded before is not checked again. The main"
  echo "  columns are such runs; the last two are zkbench's first prove of the key (one run), checking"
  echo "  every point, which snarkjs never does"
  echo "- load average (1, 5, 15 min) at the start: $load_start; at the end: $(cut -d" " -f1-3 /proc/loadavg)"
  echo "  (above 2 on this 2-core machine means other jobs shared it: both provers slow down alike)"
  echo "- command: scripts/bench-iden3.sh $args"
  echo
  echo "| constraints N | domain | runs | zkbench s | zkey read s | zkbench MiB | snarkjs s | snarkjs MiB | speed-up | memory ratio | zkbench first s (read s) | first speed-up |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
} >"$out"
cat "$out"
