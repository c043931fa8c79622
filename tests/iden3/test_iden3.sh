#!/usr/bin/env bash
# circom / snarkjs interop (issue 7), checked against snarkjs itself:
#   test_iden3.sh ZKBENCH SRCDIR NPMDIR LOCKDIR
# Installs snarkjs and circom2 as pinned by LOCKDIR/package.json and its
# package-lock.json with `npm ci` into NPMDIR (the build tree), again only
# when the lock file changes; compiles the circuits of SRCDIR/circuits with
# --prime bls12381, makes keys from the committed powers of tau (SRCDIR/data:
# preparing phase 2 takes a minute even at 2^9), then: zkbench proofs verify
# with snarkjs, snarkjs proofs verify with zkbench, tampered proofs and
# public inputs are refused by both, and every bad-file class gives exit 2
# and a line naming the file and the problem.
# Skips (77) only when npm or node is missing, and not even then under
# ZKBENCH_REQUIRE_INTEROP=1 (CI: scripts/test.sh installs them), where a
# missing tool is a failure.
set -u
zk=$(readlink -f "$1") src=$(readlink -f "$2") npmdir=$3 lockdir=$(readlink -f "$4")
zkbench=$zk

missing() {
  if [ "${ZKBENCH_REQUIRE_INTEROP:-0}" = 1 ]; then
    echo "FAIL: $1 not found, and ZKBENCH_REQUIRE_INTEROP=1 (install nodejs and npm: scripts/test-setup.sh)"
    exit 1
  fi
  echo "$1 not found: skipped"
  exit 77
}
command -v npm >/dev/null 2>&1 || missing npm
command -v node >/dev/null 2>&1 || missing node

# npm ci into NPMDIR, keyed by the lock file's hash: reinstalled only when
# the pins change (or an install was cut short: the stamp comes last).
lockhash=$(cat "$lockdir/package.json" "$lockdir/package-lock.json" | sha256sum | cut -c1-16)
stamp="$npmdir/.installed-$lockhash"
if [ ! -f "$stamp" ]; then
  echo "npm ci (package-lock.json $lockhash) into $npmdir"
  rm -rf "$npmdir"
  mkdir -p "$npmdir"
  cp "$lockdir/package.json" "$lockdir/package-lock.json" "$npmdir/"
  t_npm=$SECONDS
  (cd "$npmdir" && npm ci --no-audit --no-fund --loglevel=error) >"$npmdir/install.log" 2>&1 ||
    { echo "FAIL: npm ci (see $npmdir/install.log)"; cat "$npmdir/install.log"; exit 1; }
  touch "$stamp"
  echo "npm ci took $((SECONDS - t_npm)) s"
fi
snarkjs="$npmdir/node_modules/.bin/snarkjs"
circom="$npmdir/node_modules/.bin/circom2"
ptau="$src/data/pot9_bls12381.ptau"

work=$(mktemp -d "${TMPDIR:-/tmp}/zkbench-iden3.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
# the records of keys whose points passed the subgroup check go here, not
# into the user's cache
export ZKBENCH_PARAMS_DIR="$work/params"
fails=0
t_start=$SECONDS

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# run NAME WANT_RC PATTERN CMD...: exit status and a stderr line that
# matches PATTERN (grep -E), which for errors must name the file.
expect() {
  local name=$1 want=$2 pat=$3
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$name: exit $rc, expected $want"; sed 's/^/    /' "$work/err" "$work/out" | head -5; return
  fi
  if [ -n "$pat" ] && ! grep -Eq -- "$pat" "$work/err"; then
    fail "$name: stderr does not match /$pat/:"; sed 's/^/    /' "$work/err" | head -3; return
  fi
  if [ "$want" -ne 0 ] && [ "$(grep -c '^zkbench: ' "$work/err")" -ne 1 ]; then
    fail "$name: expected exactly one 'zkbench: ' error line"; sed 's/^/    /' "$work/err" | head -3; return
  fi
  ok "$name${pat:+ ($(head -1 "$work/err"))}"
}

# snarkjs verify: 0 valid, non-zero invalid (it prints "Invalid proof").
sj_verify() { "$snarkjs" groth16 verify "$1" "$2" "$3" >"$work/sj.out" 2>&1; }
expect_sj() {
  local name=$1 want=$2
  shift 2
  if sj_verify "$@"; then got=valid; else got=invalid; fi
  if [ "$got" = "$want" ]; then ok "snarkjs: $name: $got"; else
    fail "snarkjs: $name: $got, expected $want"; sed 's/^/    /' "$work/sj.out" | tail -3; fi
}

# A public.json with its first signal plus one (or "1" for an empty one).
tamper_public() {
  node -e '
    const fs = require("fs");
    const v = JSON.parse(fs.readFileSync(process.argv[1]));
    if (v.length) v[0] = (BigInt(v[0]) + 1n).toString(); else v.push("1");
    fs.writeFileSync(process.argv[2], JSON.stringify(v, null, 1));' "$1" "$2"
}
# A proof.json with pi_a replaced by 2 pi_a (a valid point, a wrong proof).
tamper_proof() {
  node -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync(process.argv[1]));
    const q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
    const md = (a) => ((a % q) + q) % q;
    const pw = (b, e) => { let r = 1n; b = md(b); while (e) { if (e & 1n) r = md(r * b); b = md(b * b); e >>= 1n; } return r; };
    const x = BigInt(p.pi_a[0]), y = BigInt(p.pi_a[1]);
    const l = md(3n * x * x * pw(2n * y, q - 2n));
    const x3 = md(l * l - 2n * x), y3 = md(l * (x - x3) - y);
    p.pi_a = [x3.toString(), y3.toString(), "1"];
    fs.writeFileSync(process.argv[2], JSON.stringify(p, null, 1));' "$1" "$2"
}

m="python3 $src/mangle.py"

# ---- keys and witnesses --------------------------------------------------
declare -A input=(
  [sq]='{"a": "3", "x0": "5"}'
  [nopub]='{"a": "7", "b": "11"}'
  [bits]='{"in": "5"}'
)
for c in sq nopub bits; do
  "$circom" "$src/circuits/$c.circom" --r1cs --wasm --prime bls12381 -o . >"$c.circom.log" 2>&1 ||
    { fail "circom $c"; cat "$c.circom.log"; continue; }
  "$snarkjs" groth16 setup "$c.r1cs" "$ptau" "${c}_0.zkey" >"$c.setup.log" 2>&1 &&
    "$snarkjs" zkey contribute "${c}_0.zkey" "$c.zkey" --name=test -e="zkbench $c $RANDOM" >>"$c.setup.log" 2>&1 &&
    "$snarkjs" zkey export verificationkey "$c.zkey" "$c.vk.json" >>"$c.setup.log" 2>&1 ||
    { fail "snarkjs setup $c"; tail -5 "$c.setup.log"; continue; }
  echo "${input[$c]}" >"$c.input.json"
  "$snarkjs" wtns calculate "${c}_js/$c.wasm" "$c.input.json" "$c.wtns" >"$c.wtns.log" 2>&1 ||
    { fail "witness $c"; cat "$c.wtns.log"; continue; }
  ok "circuit $c: compiled, keys and witness made ($((SECONDS - t_start)) s so far)"
done
# An all-zero witness (but the ONE) for sq.
echo '{"a": "0", "x0": "0"}' >sq0.input.json
"$snarkjs" wtns calculate sq_js/sq.wasm sq0.input.json sq0.wtns >/dev/null 2>&1 || fail "witness sq0"

# ---- zkbench proves, snarkjs verifies -----------------------------------
for c in sq nopub bits sq0; do
  k=${c%0}
  expect "zkbench prove $c" 0 "" "$zk" prove --zkey "$k.zkey" --wtns "$c.wtns" --r1cs "$k.r1cs" \
    --proof "$c.zk.proof.json" --public "$c.zk.public.json"
  expect_sj "zkbench's proof of $c" valid "$k.vk.json" "$c.zk.public.json" "$c.zk.proof.json"
  expect "zkbench verify of its own $c proof" 0 "" "$zk" verify --vk "$k.vk.json" --proof "$c.zk.proof.json" \
    --public "$c.zk.public.json"
done
# Without --r1cs the zkey alone suffices.
expect "zkbench prove sq without --r1cs" 0 "" "$zk" prove --zkey sq.zkey --wtns sq.wtns --proof sq.b.proof.json \
  --public sq.b.public.json
expect_sj "zkbench's proof of sq without --r1cs" valid sq.vk.json sq.b.public.json sq.b.proof.json

# The subgroup check's record (issue 28): the first prove of a key checks
# every query point and records the key's digest; the next is vouched for
# by the record; the same key with one point outside G1 is refused all the
# same, and a record is made only for a key that passed. (A folder of its
# own: the proofs above recorded sq.zkey already.)
cp sq.zkey rec.zkey
export ZKBENCH_PARAMS_DIR="$work/params-rec"
"$zk" prove --zkey rec.zkey --wtns sq.wtns --proof rec.proof.json --public rec.public.json >rec1.out 2>&1
re1="^subgroup  [0-9]+ G1 and [0-9]+ G2 points checked in [0-9.]+ s; recorded in $work/params-rec/checked/zkey-[0-9a-f]{64}\.checked$"
grep -Eq "$re1" rec1.out && ok "first prove: points checked and recorded" ||
  fail "first prove of a key: no 'checked ... recorded' line: $(cat rec1.out)"
"$zk" prove --zkey rec.zkey --wtns sq.wtns --proof rec.proof.json --public rec.public.json >rec2.out 2>&1
grep -Eq "^subgroup  checked before: $work/params-rec/checked/zkey-[0-9a-f]{64}\.checked vouches for these [0-9]+ G1 and [0-9]+ G2 points" rec2.out &&
  ok "second prove: the record vouches, no check" || fail "second prove of a key: not vouched for: $(cat rec2.out)"
expect_sj "the proof made through the record" valid sq.vk.json rec.public.json rec.proof.json
nrec=$(ls "$work/params-rec/checked" | wc -l)
$m order3-g1 rec.zkey rec3.zkey 5 1
expect "recorded key with an A point of order 3" 2 "rec3.zkey: A point 1: not in the subgroup" \
  "$zk" prove --zkey rec3.zkey --wtns sq.wtns
$m order3-g1 rec.zkey rec9.zkey 9 3
expect "recorded key with an H point of order 3" 2 "rec9.zkey: H point 3: not in the subgroup" \
  "$zk" prove --zkey rec9.zkey --wtns sq.wtns
[ "$(ls "$work/params-rec/checked" | wc -l)" = "$nrec" ] && ok "no record for refused keys" ||
  fail "a refused key was recorded: $(ls "$work/params-rec/checked")"
export ZKBENCH_PARAMS_DIR="$work/params"

# The same circuit through zkbench batch (issue 7: the batch pipeline and its
# instrumentation for zkey circuits): every proof verifies, the files are
# consistent, and a zkey with another circuit's witness is refused.
if ZKBENCH_PARAMS_DIR="$work/params" "$zkbench" batch --circuit "zkey:$work/sq.zkey,wtns:$work/sq.wtns" \
     --count 3 --concurrency 2 --partitions 2 --out "$work/batchz" >batchz.log 2>&1 &&
   grep -q "all verified" batchz.log &&
   python3 "$src/../batch/check_run.py" "$work/batchz" --complete; then
  ok "zkbench batch --circuit zkey:...,wtns:..."
else
  fail "zkbench batch with a zkey circuit: $(tail -5 batchz.log)"
fi
"$zkbench" batch --circuit "zkey:$work/sq.zkey,wtns:$work/nopub.wtns" --count 1 --out "$work/batchbad" >batchbad.log 2>&1
[ $? -eq 2 ] && grep -q "do not belong together" batchbad.log && ok "batch refuses a witness of another circuit" ||
  fail "batch with a foreign witness: $(cat batchbad.log)"
"$zkbench" batch --circuit "zkey:$work/nothere.zkey,wtns:$work/sq.wtns" --count 1 --out "$work/never" >batchbad.log 2>&1
[ $? -eq 2 ] && [ ! -e "$work/never" ] && ok "batch refuses a missing zkey before any work" ||
  fail "batch with a missing zkey: $(cat batchbad.log)"

# ---- snarkjs proves, zkbench verifies; public.json byte for byte ----------
for c in sq nopub bits; do
  "$snarkjs" groth16 prove "$c.zkey" "$c.wtns" "$c.sj.proof.json" "$c.sj.public.json" >/dev/null 2>&1 ||
    { fail "snarkjs prove $c"; continue; }
  expect "zkbench verify of snarkjs's $c proof" 0 "" "$zk" verify --vk "$c.vk.json" --proof "$c.sj.proof.json" \
    --public "$c.sj.public.json"
  if cmp -s "$c.sj.public.json" "$c.zk.public.json"; then ok "public.json of $c identical to snarkjs's"; else
    fail "public.json of $c differs from snarkjs's"; diff "$c.sj.public.json" "$c.zk.public.json" | head -5; fi
  # proof.json: same layout (the points differ: random blinding).
  if [ "$(sed 's/"[0-9]\{2,\}"/"N"/g' "$c.sj.proof.json")" = "$(sed 's/"[0-9]\{2,\}"/"N"/g' "$c.zk.proof.json")" ]; then
    ok "proof.json of $c laid out as snarkjs's"; else fail "proof.json of $c laid out differently from snarkjs's"; fi
done

# ---- tampered proofs and public inputs: both refuse ----------------------
for c in sq nopub bits; do
  for who in zk sj; do
    tamper_proof "$c.$who.proof.json" "$c.$who.bad-proof.json"
    expect "zkbench refuses tampered $who proof of $c" 1 "does not verify" "$zk" verify --vk "$c.vk.json" \
      --proof "$c.$who.bad-proof.json" --public "$c.$who.public.json"
    [ "$who" = zk ] && expect_sj "tampered zkbench proof of $c" invalid "$c.vk.json" "$c.zk.public.json" "$c.zk.bad-proof.json"
  done
  tamper_public "$c.zk.public.json" "$c.bad-public.json"
  if [ "$c" = nopub ]; then
    expect "zkbench: a public signal for a circuit without" 2 "bad-public.json: 1 public signals, .*expects 0" \
      "$zk" verify --vk "$c.vk.json" --proof "$c.zk.proof.json" --public "$c.bad-public.json"
  else
    expect "zkbench refuses tampered public input of $c" 1 "does not verify" "$zk" verify --vk "$c.vk.json" \
      --proof "$c.zk.proof.json" --public "$c.bad-public.json"
    expect_sj "tampered public input of $c" invalid "$c.vk.json" "$c.bad-public.json" "$c.zk.proof.json"
  fi
done
# A valid proof for other public signals (the all-zero witness's).
expect "zkbench refuses sq0's proof with sq's signals" 1 "does not verify" "$zk" verify --vk sq.vk.json \
  --proof sq0.zk.proof.json --public sq.zk.public.json

# ---- bad files --------------------------------------------------------------
zsize=$(stat -c %s sq.zkey)
$m truncate sq.zkey trunc.zkey $((zsize / 2))
expect "truncated zkey" 2 "trunc.zkey: truncated" "$zk" prove --zkey trunc.zkey --wtns sq.wtns
$m truncate sq.zkey tiny.zkey 7
expect "zkey shorter than a header" 2 "tiny.zkey: truncated" "$zk" prove --zkey tiny.zkey --wtns sq.wtns
$m drop sq.zkey h.zkey 9 96
expect "zkey H section one point short" 2 "h.zkey: section 9 \(H points\) holds .* expected" \
  "$zk" prove --zkey h.zkey --wtns sq.wtns
$m drop sq.zkey c.zkey 8 96
expect "zkey C section one point short" 2 "c.zkey: section 8 \(C points\) holds" "$zk" prove --zkey c.zkey --wtns sq.wtns
$m drop sq.zkey coef.zkey 4 7
expect "zkey coefficient section cut" 2 "coef.zkey: section 4 \(coefficients\) holds" \
  "$zk" prove --zkey coef.zkey --wtns sq.wtns
$m set-u32 sq.zkey plonk.zkey 1 0 2
expect "PLONK zkey" 2 "plonk.zkey: not a Groth16 key: protocol 2 \(PLONK\)" "$zk" prove --zkey plonk.zkey --wtns sq.wtns
$m bn128-zkey sq.zkey bn.zkey
expect "bn128 zkey" 2 "bn.zkey: the key is for bn128" "$zk" prove --zkey bn.zkey --wtns sq.wtns
expect "r1cs given as zkey" 2 "sq.r1cs: not a .zkey file: magic 'r1cs'" "$zk" prove --zkey sq.r1cs --wtns sq.wtns
expect "missing zkey" 2 "nothere.zkey: cannot open" "$zk" prove --zkey nothere.zkey --wtns sq.wtns
wsize=$(stat -c %s sq.wtns)
$m truncate sq.wtns trunc.wtns $((wsize - 10))
expect "truncated wtns" 2 "trunc.wtns: truncated" "$zk" prove --zkey sq.zkey --wtns trunc.wtns
$m drop sq.wtns short.wtns 2 32
expect "wtns values section short" 2 "short.wtns: section 2 \(witness values\) holds" \
  "$zk" prove --zkey sq.zkey --wtns short.wtns
$m truncate sq.r1cs trunc.r1cs $(($(stat -c %s sq.r1cs) - 100))
expect "truncated r1cs" 2 "trunc.r1cs: truncated" "$zk" prove --zkey sq.zkey --wtns sq.wtns --r1cs trunc.r1cs
# Another prime: the bn128 default of circom.
mkdir -p bn && "$circom" "$src/circuits/sq.circom" --r1cs --wasm -o bn >/dev/null 2>&1 &&
  "$snarkjs" wtns calculate bn/sq_js/sq.wasm sq.input.json bn/sq.wtns >/dev/null 2>&1 || fail "bn128 compile"
expect "bn128 r1cs" 2 "bn/sq.r1cs: the circuit's prime is the bn128 scalar field" \
  "$zk" prove --zkey sq.zkey --wtns sq.wtns --r1cs bn/sq.r1cs
expect "bn128 wtns" 2 "bn/sq.wtns: the witness's prime is the bn128 scalar field" \
  "$zk" prove --zkey sq.zkey --wtns bn/sq.wtns
# Files that do not belong together.
expect "wtns of another circuit" 2 "nopub.wtns: .* witness values, but the key sq.zkey is for .* variables" \
  "$zk" prove --zkey sq.zkey --wtns nopub.wtns
expect "r1cs of another circuit" 2 "bits.r1cs and sq.zkey do not belong together" \
  "$zk" prove --zkey sq.zkey --wtns sq.wtns --r1cs bits.r1cs
# A witness that does not satisfy the circuit: one private value changed.
$m set-u32 sq.wtns bad.wtns 2 $((32 * 10)) 12345
expect "unsatisfying witness with --r1cs" 2 "bad.wtns: the witness does not satisfy constraint [0-9]+ of sq.r1cs" \
  "$zk" prove --zkey sq.zkey --wtns bad.wtns --r1cs sq.r1cs
expect "unsatisfying witness without --r1cs" 1 "does not verify against sq.zkey" \
  "$zk" prove --zkey sq.zkey --wtns bad.wtns
# JSON files.
sed 's/"bls12381"/"bn128"/' sq.vk.json >bn.vk.json
expect "bn128 verification key" 2 "bn.vk.json: curve is bn128" "$zk" verify --vk bn.vk.json \
  --proof sq.sj.proof.json --public sq.sj.public.json
node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("sq.sj.proof.json"));p.pi_c[1]="5";fs.writeFileSync("oc.proof.json",JSON.stringify(p))'
expect "proof point not on the curve" 2 "oc.proof.json: pi_c: .*curve" "$zk" verify --vk sq.vk.json \
  --proof oc.proof.json --public sq.sj.public.json
head -c 100 sq.sj.proof.json >cut.proof.json
expect "truncated proof.json" 2 "cut.proof.json: not valid JSON" "$zk" verify --vk sq.vk.json \
  --proof cut.proof.json --public sq.sj.public.json
echo '["1", "2"]' >two.public.json
expect "public.json with the wrong count" 2 "two.public.json: 2 public signals, the verification key sq.vk.json expects 3" \
  "$zk" verify --vk sq.vk.json --proof sq.sj.proof.json --public two.public.json
echo '["1", "x", "3"]' >x.public.json
expect "public.json with a non-number" 2 "x.public.json: element 1" "$zk" verify --vk sq.vk.json \
  --proof sq.sj.proof.json --public x.public.json
echo '["52435875175126190479447740508185965837690552500527637822603658699938581184513", "1", "2"]' >big.public.json
expect "public signal >= r" 2 "big.public.json: element 0" "$zk" verify --vk sq.vk.json --proof sq.sj.proof.json \
  --public big.public.json

echo "iden3 interop: $fails failure(s) in $((SECONDS - t_start)) s"
[ "$fails" -eq 0 ]
