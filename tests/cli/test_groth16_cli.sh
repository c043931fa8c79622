#!/usr/bin/env bash
# zkbench setup / prove / verify end to end on a small porep circuit: proofs
# verify; a changed proof, public input or verifying key is rejected (exit
# 1 or 2); bad parameter files (truncated, a point off the curve, a point
# outside the subgroup, a coordinate >= p, trailing bytes, another circuit)
# give one error line and exit 2.
#   test_groth16_cli.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
cd "$tmp"

# expect CODE CMD...: exit status CODE; for 2, exactly one "zkbench: " line.
expect() {
  local want=$1; shift
  "$zk" "$@" >out 2>err
  local got=$?
  [ "$got" -eq "$want" ] || fail "zkbench $*: exit $got, expected $want ($(head -c 400 err))"
  if [ "$want" -eq 2 ]; then
    [ "$(wc -l <err)" -eq 1 ] && grep -q '^zkbench: ' err || fail "zkbench $*: not one error line: $(cat err)"
  fi
}

spec=porep:constraints=2^10
expect 0 setup --circuit $spec --params p.params --vk vk.bin --seed 3 --format bellperson
expect 0 setup --circuit $spec --params other.params --vk other.vk --seed 4 --format bellperson
# the key file (setup's default format): the same verifying key, proofs that
# verify, checked whole by params verify; a damaged one is named and refused
expect 0 setup --circuit $spec --params p.key --vk vk2.bin --seed 3
cmp -s vk.bin vk2.bin || fail "setup: the key file's vk differs from the bellperson export's"
expect 0 params verify p.key
grep -q "whole: every one of" out || fail "params verify: $(cat out)"
expect 0 params verify p.params
grep -q "bellperson .params file, every point decoded" out || fail "params verify of a .params file: $(cat out)"
expect 0 prove --circuit $spec --partitions 2 --params p.key --proof proof2.bin --public public2.json --seed 9
expect 0 verify --vk vk.bin --proof proof2.bin --public public2.json
cp p.key bad.key
python3 -c 'import sys; f=open("bad.key","r+b"); f.seek(-100, 2); b=f.read(1); f.seek(-100, 2); f.write(bytes([b[0] ^ 1]))'
expect 1 params verify bad.key
grep -q "does not match its checksum" err || fail "params verify of a damaged key: $(cat err)"
expect 2 prove --circuit $spec --partitions 1 --params bad.key --proof x --public y
expect 2 params verify
# a parameter cache that cannot be made: refused before the run folder exists
: >blockfile
ZKBENCH_PARAMS_DIR=$PWD/blockfile/cache expect 2 batch --circuit $spec --count 1 --partitions 1 --out norun
[ ! -e norun ] || fail "batch with an unmakeable parameter cache left its run folder"
grep -q "cannot be written to make one" err || fail "batch with an unmakeable cache: $(cat err)"
expect 2 params verify nothere.key
expect 2 params check p.key
expect 2 setup --circuit $spec --params q --vk r --format zkey
expect 0 prove --circuit $spec --partitions 3 --params p.params --proof proof.bin --public public.json --seed 9
[ "$(stat -c %s proof.bin)" -eq $((3 * 192)) ] || fail "proof file is not 3 x 192 bytes"
python3 -c 'import json,sys; d=json.load(open("public.json")); assert len(d)==3 and all(len(r)==len(d[0]) and all(s.isdigit() for s in r) for r in d)' \
  || fail "public.json is not 3 rows of decimal strings"
expect 0 verify --vk vk.bin --proof proof.bin --public public.json
grep -q "verified  3 partitions" out || fail "verify did not report 3 partitions"

# another verifying key
expect 1 verify --vk other.vk --proof proof.bin --public public.json
# a changed public input (the first challenge index + 1)
python3 - <<'PY'
import json
d = json.load(open("public.json"))
d[1][0] = str(int(d[1][0]) + 1)
json.dump(d, open("bad_public.json", "w"))
PY
expect 1 verify --vk vk.bin --proof proof.bin --public bad_public.json
# each proof element replaced by the same element of another partition
for off in 0 48 144; do
  len=48; [ $off -eq 48 ] && len=96
  python3 - "$off" "$len" <<'PY'
import sys
off, n = int(sys.argv[1]), int(sys.argv[2])
d = bytearray(open("proof.bin", "rb").read())
d[off:off + n] = d[192 + off:192 + off + n]
open("swapped.bin", "wb").write(d)
PY
  expect 1 verify --vk vk.bin --proof swapped.bin --public public.json
done
# a flipped bit makes an element undecodable or wrong: never accepted
python3 -c '
d = bytearray(open("proof.bin","rb").read()); d[20] ^= 4; open("flipped.bin","wb").write(d)'
"$zk" verify --vk vk.bin --proof flipped.bin --public public.json >/dev/null 2>&1
[ $? -ne 0 ] || fail "a proof with a flipped bit verified"
# proofs and inputs of different lengths
head -c 384 proof.bin >two.bin
expect 2 verify --vk vk.bin --proof two.bin --public public.json
head -c 100 proof.bin >short.bin
expect 2 verify --vk vk.bin --proof short.bin --public public.json
echo '[["1"' >broken.json
expect 2 verify --vk vk.bin --proof proof.bin --public broken.json
expect 2 verify --vk missing.vk --proof proof.bin --public public.json

# bad parameter files: (offset of the first h point) = vk part + ic + counts
python3 - <<'PY'
import struct
p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
data = open("p.params", "rb").read()
vk_fixed = 3 * 96 + 3 * 192
n_ic = struct.unpack(">I", data[vk_fixed:vk_fixed + 4])[0]
h_count_at = vk_fixed + 4 + 96 * n_ic
h0 = h_count_at + 4
def put(name, off, blob):
    d = bytearray(data); d[off:off + len(blob)] = blob; open(name, "wb").write(d)
open("truncated.params", "wb").write(data[:len(data) - 50])
open("trailing.params", "wb").write(data + b"\0")
# y of h[0] + 1: almost surely off the curve
d = bytearray(data); y = int.from_bytes(d[h0 + 48:h0 + 96], "big")
put("offcurve.params", h0 + 48, ((y + 1) % p).to_bytes(48, "big"))
# a point on E(Fp) outside G1: smallest x >= 5 with x^3 + 4 a square
x = 5
while pow((x**3 + 4) % p, (p - 1) // 2, p) != 1:
    x += 1
yy = pow((x**3 + 4) % p, (p + 1) // 4, p)
put("subgroup.params", h0, x.to_bytes(48, "big") + yy.to_bytes(48, "big"))
# x >= p
put("range.params", h0, (p + 1).to_bytes(48, "big"))
PY
expect 2 prove --circuit $spec --partitions 1 --params truncated.params --proof x --public y
expect 2 prove --circuit $spec --partitions 1 --params trailing.params --proof x --public y
expect 2 prove --circuit $spec --partitions 1 --params offcurve.params --proof x --public y
grep -q "h point 0.*not on the curve" err || fail "off-curve point not named: $(cat err)"
expect 2 prove --circuit $spec --partitions 1 --params subgroup.params --proof x --public y
grep -q "h point 0.*subgroup" err || fail "non-subgroup point not named: $(cat err)"
expect 2 prove --circuit $spec --partitions 1 --params range.params --proof x --public y
expect 2 prove --circuit porep:constraints=2^11 --partitions 1 --params p.params --proof x --public y
grep -q "another circuit" err || fail "wrong-circuit parameters not named: $(cat err)"
expect 2 prove --circuit $spec --partitions 1 --params missing.params --proof x --public y
[ ! -e x ] || fail "a failed prove left a proof file"

# bad arguments
expect 2 setup --circuit $spec --params p.params
expect 2 setup --circuit nonsense --params q --vk r
expect 2 setup --circuit porep:constraints=2^40 --params q --vk r
expect 2 setup --circuit $spec --params /no/such/dir/p --vk r
expect 2 setup --circuit $spec --params q --vk r --gpu 99
expect 2 setup --circuit $spec --params q --vk r --gpu x
[ ! -e q ] && [ ! -e r ] || fail "a refused setup --gpu wrote a file"
expect 2 prove --circuit $spec --partitions 0 --params p.params --proof x --public y
expect 2 prove --circuit $spec --partitions two --params p.params --proof x --public y
expect 2 verify --vk vk.bin --proof proof.bin
expect 2 verify --vk vk.bin --proof proof.bin --public public.json --bogus

lib_done "groth16 cli: all checks passed"
