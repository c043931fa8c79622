"""Independent references the Python tests share (imported by path).

fmt_bytes: harness/run/units.h's fmt_bytes written again from its contract
(binary units by magnitude, three significant digits from KiB up), so a
test compares zkbench's sizes with a formatter that is not zkbench's."""


def fmt_bytes(v):
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    a, u = abs(v), 0
    while a >= 1024 and u < 5:
        a /= 1024
        u += 1
    sign = "-" if v < 0 else ""
    if u == 0:
        return "%s%.0f B" % (sign, a)
    return "%s%.*f %s" % (sign, 2 if a < 10 else 1 if a < 100 else 0, a, units[u])
