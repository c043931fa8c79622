#!/usr/bin/env python3
"""Makes bad iden3 files for the interop test: mangle.py OP IN OUT [ARGS].

  truncate IN OUT N          the first N bytes of IN
  drop IN OUT TYPE BYTES     section TYPE shortened by BYTES (header fixed)
  set-u32 IN OUT TYPE OFF V  the u32 at byte OFF of section TYPE set to V
  bn128-zkey IN OUT          the zkey's q and r replaced by bn128's
  order3-g1 IN OUT TYPE I    G1 point I of zkey section TYPE replaced by
                             (0, 2): on the curve, of order 3, outside G1
"""
import struct
import sys

BN128_Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
BN128_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
BLS12_381_Q = int("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16)


def parse(data):
    magic, version, n = data[:4], *struct.unpack_from("<II", data, 4)
    off, secs = 12, []
    for _ in range(n):
        t, size = struct.unpack_from("<IQ", data, off)
        secs.append([t, bytearray(data[off + 12:off + 12 + size])])
        off += 12 + size
    return magic, version, secs


def build(magic, version, secs):
    out = bytearray(magic) + struct.pack("<II", version, len(secs))
    for t, body in secs:
        out += struct.pack("<IQ", t, len(body)) + body
    return bytes(out)


def section(secs, t):
    for s in secs:
        if s[0] == t:
            return s
    raise SystemExit(f"no section {t}")


def main():
    op, src, dst = sys.argv[1:4]
    data = open(src, "rb").read()
    if op == "truncate":
        data = data[: int(sys.argv[4])]
    else:
        magic, version, secs = parse(data)
        if op == "drop":
            s = section(secs, int(sys.argv[4]))
            del s[1][len(s[1]) - int(sys.argv[5]):]
        elif op == "set-u32":
            s = section(secs, int(sys.argv[4]))
            struct.pack_into("<I", s[1], int(sys.argv[5]), int(sys.argv[6]))
        elif op == "order3-g1":
            s = section(secs, int(sys.argv[4]))
            off = 96 * int(sys.argv[5])
            y = (2 << 384) % BLS12_381_Q  # Montgomery form, R = 2^384
            s[1][off:off + 96] = bytes(48) + y.to_bytes(48, "little")
        elif op == "bn128-zkey":
            s = section(secs, 2)
            n8q = struct.unpack_from("<I", s[1], 0)[0]
            n8r = struct.unpack_from("<I", s[1], 4 + n8q)[0]
            rest = s[1][8 + n8q + n8r:]
            s[1] = bytearray(struct.pack("<I", 32) + BN128_Q.to_bytes(32, "little") +
                             struct.pack("<I", 32) + BN128_R.to_bytes(32, "little") + rest)
        else:
            raise SystemExit(f"unknown op {op}")
        data = build(magic, version, secs)
    open(dst, "wb").write(data)


main()
