#!/usr/bin/env bash
# Regenerates the committed seed corpora, corpus/NAME/ (valid files as the
# tests make them, each a few KiB):
#   make_seeds.sh ZKBENCH NPMDIR
# ZKBENCH a release build's zkbench; NPMDIR the interop test's npm ci
# folder (build/npm: snarkjs and circom2). Regression inputs of fixed
# crashes (corpus/NAME/regress-*) are kept.
set -euo pipefail
zk=$(readlink -f "$1") npm=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
c=$here/corpus
work=$(mktemp -d "${TMPDIR:-/tmp}/zkbench-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
for d in params vk params_map proof public r1cs wtns zkey json_proof json_public json_vk run_csv run_json baseline; do
  mkdir -p "$c/$d"
  find "$c/$d" -type f ! -name 'regress-*' -delete
done
export ZKBENCH_PARAMS_DIR=$work/cache

# bellperson files: keys, proofs, public inputs of the smallest porep.
"$zk" setup --circuit porep:constraints=2^10 --params full.params --vk full.vk --threads 1 >/dev/null
"$zk" prove --circuit porep:constraints=2^10 --partitions 2 --params full.params --proof p.proof \
  --public p.public --threads 1 >/dev/null
cp p.proof "$c/proof/two-partitions"
head -c 192 p.proof >"$c/proof/one-partition"
cp p.public "$c/public/two-partitions.json"
cp full.vk "$c/vk/porep-2^10.vk"
# The key cut to 2 points per query (still valid points, counts rewritten):
# a full porep key is 500 KiB.
python3 - full.params small.params <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
G1, G2 = 96, 192
out = bytearray(d[:4 * G1 + 2 * G2 - 0][:0])
off = 3 * G1 + 3 * G2  # alpha, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2
out += d[:off]
def cut(off, size, keep):
    n, = struct.unpack('>I', d[off:off + 4])
    k = min(n, keep)
    return struct.pack('>I', k) + d[off + 4:off + 4 + k * size], off + 4 + n * size
for size in (G1, G1, G1, G1, G1, G2):  # ic, h, l, a, b_g1, b_g2
    part, off = cut(off, size, 2)
    out += part
assert off == len(d), (off, len(d))
open(sys.argv[2], 'wb').write(out)
PY
cp small.params "$c/params/porep-cut.params"
python3 -c "import sys; d=open('small.params','rb').read(); open(sys.argv[1],'wb').write(d[:3*96+3*192+4+2*96])" "$c/vk/cut.vk"
# Its derived key file (CACHE/mapped/*.map), as batch --params-load mmap writes it
# (the shape check that follows fails: the cut key fits no circuit).
"$zk" batch --params small.params --circuit porep:constraints=2^10 --partitions 1 --count 1 \
  --out run-cut >/dev/null 2>&1 || true
map=$(find "$work/cache" -name '*.map' | head -1)
[ -n "$map" ] || { echo "make_seeds: no layout cache written" >&2; exit 1; }
cp "$map" "$c/params_map/porep-cut.key"

# circom / snarkjs files of seed_circuit.circom with the interop test's ptau.
sj=$npm/node_modules/.bin/snarkjs circom=$npm/node_modules/.bin/circom2
"$circom" "$here/seed_circuit.circom" --r1cs --wasm --prime bls12381 -o . >/dev/null
"$sj" groth16 setup seed_circuit.r1cs "$here/../iden3/data/pot9_bls12381.ptau" s0.zkey >/dev/null
"$sj" zkey contribute s0.zkey s.zkey --name=seed -e="zkbench fuzz seeds" >/dev/null
"$sj" zkey export verificationkey s.zkey vk.json >/dev/null
echo '{"a": "3", "x": "5"}' >in.json
"$sj" wtns calculate seed_circuit_js/seed_circuit.wasm in.json s.wtns >/dev/null
"$sj" groth16 prove s.zkey s.wtns proof.json public.json >/dev/null
cp seed_circuit.r1cs "$c/r1cs/seed.r1cs"
cp s.wtns "$c/wtns/seed.wtns"
cp s.zkey "$c/zkey/seed.zkey"
cp proof.json "$c/json_proof/seed.json"
cp public.json "$c/json_public/seed.json"
cp vk.json "$c/json_vk/seed.json"
"$zk" prove --zkey s.zkey --wtns s.wtns --proof zk.proof.json --public zk.public.json >/dev/null
cp zk.proof.json "$c/json_proof/zkbench.json"

# The run folder's files (the harnesses' fixture, run/): one seed per CSV
# with its selector byte, run.json; baselines: the committed one, and one
# with every kind of limit that this small run passes.
i=0
for f in samples buffers stages proofs; do
  { printf '%s' "$i"; cat "$here/run/$f.csv"; } >"$c/run_csv/$f"
  i=$((i + 1))
done
cp "$here/run/run.json" "$c/run_json/run.json"
cat >"$c/baseline/small.json" <<'JSON'
{"format": "zkbench-baseline-1",
 "limits": {"peak_rss": {"value": 8000000, "tolerance": 0.1, "slack": 4194304},
            "footprint_per_partition": {"value": 900000, "tolerance": 0.15},
            "leak_bytes_per_proof": {"max": 1048576}, "s_per_proof_ratio": {"max": 4},
            "verdicts": ["healthy", "retention"]},
 "reference": {"machine": {"cpu": "x", "cores": 2}, "s_per_proof": 0.1}}
JSON
cp "$here/../../results/baselines/cpu-porep14-pw2.json" "$c/baseline/cpu-porep14-pw2.json"
du -b "$c"/*/* | sort -n | tail -5
