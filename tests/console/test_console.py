#!/usr/bin/env python3
"""The console of zkbench batch and watch, read as a CI log and as a terminal.

test_console.py ZKBENCH [--terminal]

Without --terminal, everything but the live line; with it, the live line
alone (the meson tests console and console-terminal). Batches of small porep circuits (2^10-2^12) on the CPU:
  pipe      the header arrives (timestamped as read) before the first proof
            completes (run.json's started_at + proofs.csv's t_done); one line
            per proof whose times and durations are proofs.csv's; the
            console's last time equals the files' last time within 0.1 s;
            nothing redrawn; sizes in auto units, the summary's peak equal to
            run.json's; the diagnosis at the end prints a verdict line that is
            run.json's verdict and plot paths that exist as PNG files;
  terminal  (a pty) the live line's proof count never falls and its ETA
            seconds never rise (except after an "overdue"), never negative;
  --quiet   only the verdict line (or with --no-analyze only the done line);
  no gnuplot  one line on stderr, the verdict still printed, exit 0.
Watch: --pid of a process that does not exist exits 2 with one line and
leaves no folder; SIGINT or SIGTERM to watch (alone, or to its process group
as a terminal's Ctrl-C does) leaves run.json with interrupted true.
Nothing here asserts wall-clock speed.
"""
import csv
import datetime
import json
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

zk = os.path.abspath(sys.argv[1])
TERMINAL = sys.argv[2:] == ["--terminal"]
tmp = tempfile.mkdtemp(prefix="zkb-console-")
env = dict(os.environ, ZKBENCH_PARAMS_DIR=os.path.join(tmp, "params"))
CIRC = ["--circuit", "porep:constraints=2^12", "--partitions", "2", "--backend", "cpu"]
SMALL = ["--circuit", "porep:constraints=2^10", "--partitions", "2", "--backend", "cpu"]
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def run(args, **kw):
    p = subprocess.run([zk, *args], capture_output=True, text=True, env=kw.pop("env", env), timeout=300, **kw)
    return p.returncode, p.stdout, p.stderr


def utc(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def proofs(d):
    with open(os.path.join(d, "proofs.csv")) as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]


UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
SIZE = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?) (B|KiB|MiB|GiB|TiB)\b")


def check_sizes(text, what):
    """Every size in auto units: 1 <= value < 1024 in its unit (B from 0)."""
    for m in SIZE.finditer(text):
        v, u = float(m.group(1)), m.group(2)
        if u == "B":
            ok = 0 <= abs(v) < 1024
        else:
            ok = 1 <= abs(v) < 1024 or (abs(v) >= 1023.5 and abs(v) < 1024.5)
        check(ok, f"{what}: size '{m.group(0)}' not in auto units")
    check(not re.search(r"\b0\.[0-9]+ GiB", text), f"{what}: a size below 1 GiB printed in GiB")


def size_bytes(text):
    m = SIZE.fullmatch(text.strip())
    return float(m.group(1)) * UNITS[m.group(2)]


def off_terminal():
    """Everything but the live line: batches through a pipe, --quiet, no gnuplot, watch."""
    # 0. the parameters, made once: every run below loads them
    rc, out, err = run(["batch", *CIRC, "--count", "1", "--no-analyze", "--quiet", "--out", f"{tmp}/gen"])
    check(rc == 0, f"parameter generation run: exit {rc}: {err}")
    check(out == "done: 1 of 1 proofs, all verified\n", f"--quiet --no-analyze prints only the done line: {out!r}")
    rc, out, err = run(["batch", *SMALL, "--count", "1", "--no-analyze", "--quiet", "--out", f"{tmp}/gen-small"])
    check(rc == 0, f"small parameter generation run: exit {rc}: {err}")

    # 1. off a terminal: lines as they arrive
    d1 = f"{tmp}/pipe"
    # its own parameter cache: the header must come before their generation ends
    p = subprocess.Popen([zk, "batch", *CIRC, "--count", "3", "--out", d1], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=dict(env, ZKBENCH_PARAMS_DIR=os.path.join(tmp, "params-pipe")))
    lines = []
    for raw in p.stdout:
        lines.append((time.time(), raw.decode()))
    rc = p.wait()
    err = p.stderr.read().decode()
    text = "".join(l for _, l in lines)
    check(rc == 0, f"pipe batch: exit {rc}: {err}")
    check(err == "", f"pipe batch: stderr {err!r}")
    check("\r" not in text, "pipe batch: a line was redrawn (\\r) off a terminal")
    j = json.load(open(f"{d1}/run.json"))
    rows = proofs(d1)
    check(len(rows) == 3, f"pipe batch: {len(rows)} rows in proofs.csv")
    start = utc(j["started_at"])
    first_done = start + min(r["t_done_ms"] for r in rows) / 1e3
    check(lines and lines[0][1].startswith("zkbench batch: 3 proofs of porep:constraints=2^12, 2 partitions each"),
          f"pipe batch: first line {lines[0][1] if lines else None!r}")
    check(lines and lines[0][0] < first_done,
          f"pipe batch: the header arrived {lines[0][0] - first_done:+.3f} s after the first proof completed")
    params_ready = start + min(r["t_submit_ms"] for r in rows) / 1e3
    check(lines and lines[0][0] < params_ready,
          f"pipe batch: the header arrived {lines[0][0] - params_ready:+.3f} s after the parameters were generated")
    check(re.search(r"^parameters .*\(generated in [0-9.]+ s\)$", text, re.M), "pipe batch: no 'generated in' line")
    check(any(l.startswith(f"files      {d1}/") for _, l in lines[:3]), "pipe batch: the header does not name the folder")
    PROOF = re.compile(r"^proof (\d+)/3 done at ([0-9.]+) s \(proof (\d+), ([0-9.]+) s, verified\)  RSS (.+?)  peak (.+)$")
    got = [(t, PROOF.match(l.rstrip("\n"))) for t, l in lines]
    got = [(t, m) for t, m in got if m]
    check([int(m.group(1)) for _, m in got] == [1, 2, 3], f"pipe batch: proof lines {[m.group(0) for _, m in got]}")
    check(sorted(int(m.group(3)) for _, m in got) == [0, 1, 2], "pipe batch: proof ids are not 0, 1, 2")
    by_id = {int(r["proof"]): r for r in rows}
    for t, m in got:
        r = by_id.get(int(m.group(3)))
        if not check(r is not None, f"pipe batch: proof {m.group(3)} not in proofs.csv"):
            continue
        check(abs(float(m.group(2)) - r["t_done_ms"] / 1e3) <= 0.0051,
              f"pipe batch: console 'done at {m.group(2)} s', proofs.csv t_done_ms {r['t_done_ms']}")
        check(abs(float(m.group(4)) - (r["t_done_ms"] - r["t_submit_ms"]) / 1e3) <= 0.0051,
              f"pipe batch: console duration {m.group(4)} s, proofs.csv {r['t_done_ms'] - r['t_submit_ms']} ms")
        check(size_bytes(m.group(5)) > 0 and size_bytes(m.group(6)) >= size_bytes(m.group(5)),
              f"pipe batch: RSS {m.group(5)} peak {m.group(6)}")
        check(start + r["t_done_ms"] / 1e3 <= t + 0.05, "pipe batch: a proof line arrived before its proof completed")
    last_file = max(r["t_done_ms"] for r in rows) / 1e3
    tl = re.search(r"the last done at ([0-9.]+) s", text)
    check(tl and abs(float(tl.group(1)) - last_file) < 0.1,
          f"pipe batch: the console's final time {tl.group(1) if tl else None} vs the files' last {last_file:.3f}")
    check(got and abs(float(got[-1][1].group(2)) - last_file) < 0.1, "pipe batch: the last proof line's time")
    check_sizes(text, "pipe batch")
    pk = re.search(r"peak RSS (\S+ \S+) \(", text)
    check(pk and abs(size_bytes(pk.group(1)) - j["summary"]["peak_rss"]) <= 0.01 * j["summary"]["peak_rss"],
          f"pipe batch: summary peak {pk.group(1) if pk else None} vs run.json {j['summary']['peak_rss']}")
    vm = re.search(r"^verdict    ([a-z-]+): (.+)$", text, re.M)
    check(vm and vm.group(1) == j.get("verdict", {}).get("verdict"),
          f"pipe batch: verdict line {vm.group(0) if vm else None!r}, run.json {j.get('verdict', {}).get('verdict')}")
    check(vm and vm.group(1) in ("healthy", "capacity"), f"pipe batch: a small clean batch judged {vm and vm.group(1)}")
    ev = text[vm.end():].split("\n") if vm else []
    check(len([l for l in ev if re.match(r"^  [a-z]", l)]) >= 2, f"pipe batch: fewer than 2 evidence lines: {ev[:5]}")
    pl = re.search(r"^plots      (.+) \(and \.svg\)$", text, re.M)
    if shutil.which("gnuplot"):
        paths = pl.group(1).split() if pl else []
        check({os.path.basename(x) for x in paths} >= {"memory.png", "kinds.png", "buffers.png"},
              f"pipe batch: plot paths {paths}")
        for x in paths:
            check(os.path.isfile(x) and open(x, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"pipe batch: {x} is not a PNG")
            check(os.path.isfile(x[:-4] + ".svg"), f"pipe batch: no {x[:-4]}.svg")
    else:
        print("note: no gnuplot here: the plot paths are not checked")

    # 3. --quiet: the verdict line alone
    rc, out, err = run(["batch", *SMALL, "--count", "2", "--quiet", "--out", f"{tmp}/quiet"])
    check(rc == 0 and err == "", f"--quiet: exit {rc}, stderr {err!r}")
    check(re.fullmatch(r"verdict    [a-z-]+: [^\n]+\n", out) is not None, f"--quiet: stdout {out!r}")
    qj = json.load(open(f"{tmp}/quiet/run.json"))
    check(out.split()[1].rstrip(":") == qj.get("verdict", {}).get("verdict"), "--quiet: the verdict is not run.json's")

    # no samples, no diagnosis: --quiet still ends with one line
    rc, out, err = run(["batch", *SMALL, "--count", "1", "--quiet", "--sample-ms", "0", "--out", f"{tmp}/nosamples"])
    check(rc == 0 and err == "" and out == "done: 1 of 1 proofs, all verified\n",
          f"--quiet --sample-ms 0: exit {rc}, stdout {out!r}, stderr {err!r}")

    # a run replaced with --force takes its figures with it (none of the old run's stay)
    rc, out, err = run(["batch", *SMALL, "--count", "1", "--quiet", "--no-analyze", "--force", "--out", f"{tmp}/quiet"])
    check(rc == 0, f"--force over a diagnosed run: exit {rc}: {err}")
    left = [f for f in os.listdir(f"{tmp}/quiet") if f.endswith((".png", ".svg"))]
    check(not left, f"--force left the old run's figures: {left}")

    # 4. no gnuplot: one line, the verdict stands, exit 0
    rc, out, err = run(["batch", *SMALL, "--count", "2", "--out", f"{tmp}/nognuplot"],
                       env=dict(env, PATH=os.path.join(tmp, "empty-path")))
    check(rc == 0, f"no gnuplot: exit {rc}: {err}")
    check(len(err.splitlines()) == 1 and "no plots" in err and "gnuplot" in err, f"no gnuplot: stderr {err!r}")
    check(re.search(r"^verdict    [a-z-]+: ", out, re.M) and "plots      " not in out, f"no gnuplot: stdout {out[-600:]!r}")

    # 5. watch --pid of no process: exit 2, one line, no folder
    pid = 999999
    while os.path.exists(f"/proc/{pid}"):
        pid += 1
    cwd = os.path.join(tmp, "cwd")
    os.mkdir(cwd)
    for extra in ([], ["--out", os.path.join(cwd, "w")]):
        p = subprocess.run([zk, "watch", "--pid", str(pid), *extra], capture_output=True, text=True, cwd=cwd, env=env)
        check(p.returncode == 2, f"watch --pid {pid} {extra}: exit {p.returncode}")
        check(p.stdout == "" and p.stderr == f"zkbench: watch: --pid {pid}: no such process\n",
              f"watch --pid {pid}: stdout {p.stdout!r}, stderr {p.stderr!r}")
        check(os.listdir(cwd) == [], f"watch --pid {pid}: left {os.listdir(cwd)}")


    # 6. watch interrupted: run.json says so, whoever got the signal
    def watch_stopped(label, args, sig, group, want_rc):
        d = os.path.join(tmp, label)
        p = subprocess.Popen([zk, "watch", "--sample-ms", "50", "--out", d, *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        time.sleep(1.5)
        if group:
            os.killpg(p.pid, sig)
        else:
            os.kill(p.pid, sig)
        out, err = p.communicate(timeout=60)
        check(p.returncode == want_rc, f"{label}: exit {p.returncode}, expected {want_rc}: {err}")
        try:
            j = json.load(open(os.path.join(d, "run.json")))
        except (OSError, ValueError) as e:
            return fail(f"{label}: run.json: {e}")
        check(j.get("interrupted") is True and j.get("outcome") == "interrupted",
              f"{label}: run.json interrupted {j.get('interrupted')}, outcome {j.get('outcome')}")
        check("started_at" in j, f"{label}: run.json has no started_at")
        with open(os.path.join(d, "samples.csv")) as f:
            n = sum(1 for _ in f)
        check(n >= 2, f"{label}: samples.csv has {n} lines")
        return out


    sleeper = subprocess.Popen(["sleep", "120"])
    out = watch_stopped("pid-int", ["--pid", str(sleeper.pid)], signal.SIGINT, False, 0)
    check(out and out.startswith(f"zkbench watch: process {sleeper.pid} every 50 ms"), f"pid-int: first line {out[:80]!r}")
    watch_stopped("pid-term", ["--pid", str(sleeper.pid)], signal.SIGTERM, False, 0)
    sleeper.kill()
    sleeper.wait()
    watch_stopped("cmd-int", ["--", "sleep", "120"], signal.SIGINT, False, 128 + signal.SIGINT)
    watch_stopped("cmd-int-group", ["--", "sleep", "120"], signal.SIGINT, True, 128 + signal.SIGINT)
    watch_stopped("cmd-term-group", ["--", "sleep", "120"], signal.SIGTERM, True, 128 + signal.SIGTERM)

    # watch --quiet: the verdict line alone
    p = subprocess.run([zk, "watch", "--quiet", "--sample-ms", "20", "--out", f"{tmp}/wq", "--", "sleep", "0.6"],
                       capture_output=True, text=True, env=env)
    check(p.returncode == 0 and p.stderr == "", f"watch --quiet: exit {p.returncode}, stderr {p.stderr!r}")
    check(re.fullmatch(r"verdict    [^\n]+\n", p.stdout) is not None, f"watch --quiet: stdout {p.stdout!r}")



def on_terminal(pty_pair):
    """The live line of a batch on a terminal (a pty)."""
    # 2. on a terminal: the live line
    d2 = f"{tmp}/tty"
    master, slave = pty_pair
    p = subprocess.Popen([zk, "batch", *CIRC, "--count", "4", "--out", d2, "--no-analyze"], stdin=slave, stdout=slave,
                         stderr=slave, env=env, close_fds=True)
    os.close(slave)
    buf = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    os.close(master)
    rc = p.wait()
    tty = buf.decode(errors="replace")
    check(rc == 0, f"tty batch: exit {rc}: {tty[-400:]}")
    LIVE = re.compile(r"^proofs (\d+)/4  ([0-9.]+ s|\d+m\d\ds)  RSS (\S+ \S+)  peak (\S+ \S+)  ETA (.+?)\s*$")
    live = [LIVE.match(s) for s in re.split(r"[\r\n]", tty) if s.startswith("proofs ")]
    check(live and all(live), f"tty batch: live lines not as expected: {tty[:600]!r}")
    live = [m for m in live if m]


    def eta_s(tok):
        m = re.fullmatch(r"(\d+) s", tok) or re.fullmatch(r"(\d+)m(\d\d)s", tok) or re.fullmatch(r"(\d+)h(\d\d)m", tok)
        if not m:
            return None
        g = [int(x) for x in m.groups()]
        return g[0] if len(g) == 1 else g[0] * 60 + g[1] if tok.endswith("s") else g[0] * 3600 + g[1] * 60


    done = [int(m.group(1)) for m in live]
    check(done == sorted(done) and done and done[-1] == 4, f"tty batch: proof counts {done}")
    prev, numeric = None, 0
    for m in live:
        tok = m.group(5)
        if tok == "overdue":
            prev = None
            continue
        if int(m.group(1)) == 0:
            check(tok == "--", f"tty batch: an ETA '{tok}' before any proof completed")
            continue
        v = eta_s(tok)
        if not check(v is not None, f"tty batch: ETA '{tok}' is not a duration"):
            continue
        numeric += 1
        check(prev is None or v <= prev, f"tty batch: the ETA rose from {prev} s to {v} s")
        prev = v
    check(numeric >= 2, f"tty batch: only {numeric} ETA values seen")
    check(live and live[-1].group(5) == "0 s", f"tty batch: the last live line's ETA {live[-1].group(5) if live else None}")
    check(not re.search(r"^proof \d+/4 done at", tty, re.M), "tty batch: per-proof lines on a terminal")
    check_sizes(tty, "tty batch")



if TERMINAL:
    # a pty is what the check is about: where none can be opened (no devpts
    # on /dev/pts, as in a bare chroot) it is skipped, and says why
    try:
        pair = pty.openpty()
    except OSError as e:
        print(f"SKIP: no pty can be opened here ({e}); the terminal checks need one "
              "(a devpts mount on /dev/pts)")
        shutil.rmtree(tmp, ignore_errors=True)
        sys.exit(77)
    on_terminal(pair)
else:
    off_terminal()

if fails:
    print(f"{len(fails)} check(s) failed; files kept in {tmp}", file=sys.stderr)
    sys.exit(1)
shutil.rmtree(tmp, ignore_errors=True)
print("console: all checks passed")
