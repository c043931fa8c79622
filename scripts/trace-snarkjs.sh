#!/usr/bin/env bash
# snarkjs (node) as a real foreign prover under `zkbench watch --trace`:
# compiles tests/iden3/circuits/bits.circom for BLS12-381, makes its keys
# from the committed powers of tau, then runs `snarkjs groth16 prove` once
# under watch --trace, checks the proof with `snarkjs groth16 verify` and
# prints a Markdown page with the top sites (sites.csv) and the processes.
#   bash scripts/trace-snarkjs.sh [BUILD_DIR] [NPM_DIR] > results/trace-snarkjs.md
# NPM_DIR holds snarkjs and circom2 (tests/iden3/test_iden3.sh installs them
# into BUILD_DIR/npm). Exits 77 when they are not there.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
b=${1:-build}
npm=$(readlink -f "${2:-$b/npm}")
zk=$PWD/$b/harness/zkbench
sj=$npm/node_modules/snarkjs/build/cli.cjs
circom=$npm/node_modules/circom2/cli.js
[ -x "$zk" ] || { echo "trace-snarkjs: $zk missing" >&2; exit 2; }
[ -f "$sj" ] && [ -f "$circom" ] && command -v node >/dev/null ||
  { echo "trace-snarkjs: snarkjs/circom2 not under $npm (run the iden3 test once) or no node" >&2; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/zkbench-trace-snarkjs.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
node "$circom" "$src/tests/iden3/circuits/bits.circom" --r1cs --wasm --prime bls12381 -o . >prep.log 2>&1 &&
  node "$sj" groth16 setup bits.r1cs "$src/tests/iden3/data/pot9_bls12381.ptau" bits_0.zkey >>prep.log 2>&1 &&
  node "$sj" zkey contribute bits_0.zkey bits.zkey --name=trace -e="zkbench trace" >>prep.log 2>&1 &&
  node "$sj" zkey export verificationkey bits.zkey vk.json >>prep.log 2>&1 &&
  echo '{"in": "5"}' >input.json &&
  node "$sj" wtns calculate bits_js/bits.wasm input.json bits.wtns >>prep.log 2>&1 ||
  { echo "trace-snarkjs: preparing the circuit failed:" >&2; tail -5 prep.log >&2; exit 1; }
"$zk" watch --trace --out run -- node "$sj" groth16 prove bits.zkey bits.wtns proof.json public.json >watch.txt 2>&1
rc=$?
node "$sj" groth16 verify vk.json public.json proof.json >verify.txt 2>&1
vrc=$?
echo "# snarkjs groth16 prove under zkbench watch --trace"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $(git -C "$src" rev-parse --short HEAD)"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; node $(node --version), snarkjs $(node -p "require('$npm/node_modules/snarkjs/package.json').version")"
echo "- circuit: tests/iden3/circuits/bits.circom (200-bit decomposition, BLS12-381), keys from tests/iden3/data/pot9_bls12381.ptau"
echo "- command: zkbench watch --trace -- node snarkjs/build/cli.cjs groth16 prove bits.zkey bits.wtns proof.json public.json"
echo "- watch exit status: $rc; the traced proof verifies with snarkjs: $([ $vrc -eq 0 ] && echo yes || echo NO)"
echo
echo '```'
cat watch.txt
echo '```'
echo
echo "Top sites by never-freed bytes, then by bytes (sites.csv, first 12 rows):"
echo
python3 - run/sites.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| site | module | allocations >= 1 MiB | bytes | small allocations | small bytes | never freed |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for r in rows[:12]:
    print(f"| `{r['site']}` | {r['module'].rsplit('/', 1)[-1]} | {r['n_allocs']} | {r['bytes_total']} | "
          f"{r['n_small']} | {r['bytes_small']} | {r['never_freed_bytes']} |")
big = sorted(rows, key=lambda r: -int(r["bytes_total"]))[:5]
print()
print("Largest recorded sites by bytes allocated (>= 1 MiB each), with the stack:")
print()
for r in big:
    if int(r["bytes_total"]):
        print(f"- `{r['site']}`: {r['n_allocs']} allocations, {int(r['bytes_total']) / 1048576:.1f} MiB; "
              f"frames `{';'.join(r['frames'].split(';')[:6])}`")
PY
echo
echo "Processes (trace/processes.csv):"
echo
echo '```'
cat run/trace/processes.csv
echo '```'
[ $rc -eq 0 ] && [ $vrc -eq 0 ]
