#!/usr/bin/env python3
"""Writes into a bellperson .params file a G1 point that is on BLS12-381's
curve but not in its order-r subgroup (tests only).

  offcurve.py FILE SECTION [INDEX]

SECTION: ic, h, l, a or b_g1; the point replaces that section's INDEX-th
point (default 0). The point is a random solution of y^2 = x^3 + 4 over Fp
(not multiplied by the cofactor), checked here to satisfy the curve
equation and to give r*P != 0 with affine arithmetic of its own.
"""
import random
import struct
import sys

P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if p1 == p2:
        lam = 3 * x1 * x1 * pow(2 * y1, P - 2, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, P - 2, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


def mul(k, pt):
    acc = None
    while k:
        if k & 1:
            acc = add(acc, pt)
        pt = add(pt, pt)
        k >>= 1
    return acc


def point_off_subgroup(rng):
    while True:
        x = rng.randrange(P)
        rhs = (x ** 3 + 4) % P
        y = pow(rhs, (P + 1) // 4, P)  # P = 3 mod 4
        if y * y % P != rhs:
            continue
        pt = (x, y)
        if mul(R, pt) is not None:
            return pt


def main():
    path, section = sys.argv[1], sys.argv[2]
    index = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    data = bytearray(open(path, "rb").read())
    pos = 96 * 3 + 192 * 3  # alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2
    for name, size in (("ic", 96), ("h", 96), ("l", 96), ("a", 96), ("b_g1", 96), ("b_g2", 192)):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        pos += 4
        if name == section:
            assert index < n, f"{section} has {n} points"
            x, y = point_off_subgroup(random.Random(index + 7))
            assert (y * y - x ** 3 - 4) % P == 0
            off = pos + index * size
            data[off:off + 96] = x.to_bytes(48, "big") + y.to_bytes(48, "big")
            open(path, "wb").write(data)
            return
        pos += n * size
    sys.exit(f"no section {section}")


main()
