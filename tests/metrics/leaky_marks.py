"""A foreign prover for tests/metrics: N "proofs", each a sawtooth of an
8 MiB working set freed at its end, LEAK MiB of it never freed, and a log
line "proof I done" at each end (what watch --mark counts).
   leaky_marks.py N LEAK_MIB"""
import sys
import time

keep = []
for i in range(int(sys.argv[1])):
    work = bytearray(8 << 20)
    for j in range(0, len(work), 4096):
        work[j] = 1
    if int(sys.argv[2]):
        keep.append(bytearray(b"x" * (int(sys.argv[2]) << 20)))
    time.sleep(0.1)
    del work
    print("proof %d done" % i, flush=True)
    time.sleep(0.05)
