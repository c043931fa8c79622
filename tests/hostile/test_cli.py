#!/usr/bin/env python3
"""Bad command lines (tests/hostile/cli_cases.py, issue 26 item 7): each
exits with its status after exactly one line on stderr ("zkbench: ..."),
echoes no control byte raw (ESC, BEL, CR, NL inside a value, C1 controls,
bytes that are not UTF-8: 18 error lines printed them raw before), does not
crash or hang, and leaves no file in its folders.

  test_cli.py ZKBENCH GEN_RUN_PY [--sample N] [--seed S]

--sample N runs N cases drawn with the seed (CI); without it, all of them
(scripts/bench-hostile.sh). The seed is printed; ZKB_SEED replays it.
"""
import argparse
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_cases import CASES  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("zk")
ap.add_argument("gen_run")
ap.add_argument("--sample", type=int, default=0)
ap.add_argument("--seed", type=int, default=int(os.environ.get("ZKB_SEED", "0")) or random.randrange(1, 1 << 30))
a = ap.parse_args()
zk = os.path.abspath(a.zk)

tmp = tempfile.mkdtemp(prefix="zkb-hostile-cli-")
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def listing(root):
    out = set()
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            out.add((p, stat.S_IFMT(st.st_mode), st.st_size if stat.S_ISREG(st.st_mode) else 0))
    return out


def raw_controls(data):
    """The first control byte a terminal would act on, or None."""
    text = data.decode("utf-8", "replace")
    for i, ch in enumerate(text):
        o = ord(ch)
        if (o < 0x20 and ch != "\n") or o == 0x7f or 0x80 <= o < 0xa0:
            return "U+%04X at %d" % (o, i)
    if b"\xef\xbf\xbd" not in data and "\ufffd" in text:
        return "bytes that are not UTF-8"
    return None


try:
    fix = os.path.join(tmp, "fixtures")
    os.makedirs(fix)
    run = os.path.join(fix, "run")
    subprocess.run([sys.executable, a.gen_run, "healthy", run], check=True, stdout=subprocess.DEVNULL)
    d = os.path.join(fix, "dir")
    os.makedirs(d)
    bad = os.path.join(fix, "bad")
    with open(bad, "wb") as f:
        f.write(bytes(random.Random(a.seed).randrange(256) for _ in range(4096)))
    big = os.path.join(fix, "big")
    with open(big, "wb") as f:
        f.write(b"{" + b"x" * (2 << 20))
    fifo = os.path.join(fix, "fifo")
    os.mkfifo(fifo)
    dev = os.path.join(fix, "null")
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError:
        dev = None
    work = os.path.join(tmp, "scratch")
    os.makedirs(work)
    cwd = os.path.join(tmp, "cwd")
    os.makedirs(cwd)

    cases = list(enumerate(CASES))
    if a.sample and a.sample < len(cases):
        cases = sorted(random.Random(a.seed).sample(cases, a.sample))
    print("%d of %d cases (seed %d)" % (len(cases), len(CASES), a.seed))
    env = dict(os.environ, ZKBENCH_PARAMS_DIR=os.path.join(tmp, "params"))
    skipped = 0
    has_gpu = os.path.exists("/dev/nvidia0")
    try:
        kthread2 = "VmRSS" not in open("/proc/2/status").read()
    except OSError:
        kthread2 = False
    for idx, case in cases:
        want, argv = case[0], case[1]
        if (any("{dev}" in x for x in argv) and dev is None) or ("nogpu" in case[2:] and has_gpu) or \
                ("kthread" in case[2:] and not kthread2):
            skipped += 1
            continue
        args = [x.format(tmp=work, run=run, dev=dev or "", fifo=fifo, dir=d, bad=bad, big=big) for x in argv]
        before = listing(tmp)
        label = "case %d %r" % (idx, argv)
        try:
            p = subprocess.run([os.fsencode(zk)] + [os.fsencode(x) for x in args], cwd=cwd, env=env,
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            fail(label + ": still running after 60 s")
            continue
        if p.returncode < 0 or p.returncode >= 128:
            fail("%s: killed or crashed (status %d): %r" % (label, p.returncode, p.stderr[-300:]))
            continue
        if p.returncode != want:
            fail("%s: exit %d, expected %d: %r" % (label, p.returncode, want, p.stderr[-300:]))
        lines = p.stderr.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if len(lines) != 1 or not lines[0].startswith(b"zkbench: "):
            fail("%s: %d stderr lines, expected one 'zkbench: ...': %r" % (label, len(lines), p.stderr[-400:]))
        for name, data in (("stderr", p.stderr), ("stdout", p.stdout)):
            what = raw_controls(data)
            if what:
                fail("%s: %s holds a raw control (%s): %r" % (label, name, what, data[-300:]))
        after = listing(tmp)
        if after != before:
            new = sorted(x[0] for x in after - before)
            gone = sorted(x[0] for x in before - after)
            fail("%s: files changed: new %s, gone %s" % (label, new[:4], gone[:4]))
            # restore the fixtures for the next cases
            for pth in new:
                if os.path.isdir(pth) and not os.path.islink(pth):
                    shutil.rmtree(pth, ignore_errors=True)
                elif os.path.lexists(pth):
                    os.unlink(pth)
    print("%d cases run, %d skipped (no mknod, or a GPU here), %d failures" % (len(cases) - skipped, skipped, len(fails)))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
if fails:
    print("%d check(s) failed (seed %d; ZKB_SEED=%d replays it)" % (len(fails), a.seed, a.seed), file=sys.stderr)
    sys.exit(1)
print("cli: all checks passed")
