#!/usr/bin/env bash
# A full disk is no success for the figures and the report either (issue
# 26, items 4 and 5): gnuplot exits 0 after a failed write, so with 200 KiB
# free a batch exited 0 with 5 of its 6 figures empty and memory.png cut
# off. Now, on a small tmpfs filled to a few free KiB:
# - batch: exit 1, one line naming the figure or report that could not be
#   written; no empty or cut-off figure and no temporary file is left;
# - plot RUN --out FULL: exit 1 naming the file, no figure left;
# - report RUN -o FULL/report.html: exit 1, no file left.
# Needs root (mount); exits 77 when the mount is not permitted.
#   test_fulldisk.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
fs=$tmp/fs
mkdir "$fs"
cleanup() {
  mountpoint -q "$fs" && umount "$fs"
}
lib_on_exit cleanup
if ! mount -t tmpfs -o size=4m tmpfs "$fs" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs (needs root)"
  exit 77
fi
command -v gnuplot >/dev/null || { echo "SKIP: no gnuplot"; exit 77; }
export ZKBENCH_PARAMS_DIR=$tmp/params
circ=(--circuit porep:constraints=2^10 --partitions 2)

# fill KIB: leave KIB free on the tmpfs
fill() {
  rm -rf "${fs:?}"/*
  local avail
  avail=$(df -k --output=avail "$fs" | tail -1)
  head -c $(((avail - $1) * 1024)) /dev/zero >"$fs/fill"
}

# whole FOLDER: every figure in FOLDER is whole, no temporary file is left
whole() {
  python3 - "$1" <<'PY'
import os, struct, sys
d = sys.argv[1]
bad = [f for f in os.listdir(d) if ".tmp" in f]
for f in os.listdir(d):
    p = os.path.join(d, f)
    data = open(p, "rb").read() if os.path.isfile(p) else b""
    if f.endswith(".png") and not (data.startswith(b"\x89PNG") and data.endswith(b"IEND\xaeB`\x82")):
        bad.append(f)
    if f.endswith((".svg", ".html")) and not data.rstrip().endswith((b"</svg>", b"</html>")):
        bad.append(f)
sys.exit("not whole or left over: %s" % bad if bad else 0)
PY
}

"$zk" batch "${circ[@]}" --count 2 --out "$tmp/run" >"$tmp/out" 2>&1 || fail "the batch on a free disk: $(tail -3 "$tmp/out")"

# the batch itself, its files fitting but not its figures and report
fill 200
"$zk" batch "${circ[@]}" --count 2 --out "$fs/run" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "batch with 200 KiB free: exit $rc, expected 1 ($(cat "$tmp/err"))"
grep -Eq "^zkbench: batch: cannot write $fs/run/[a-z]+\.(png|svg)|no report: cannot write" "$tmp/err" ||
  fail "batch with 200 KiB free: no line naming a figure or the report: $(cat "$tmp/err")"
grep -q "No space left on device" "$tmp/err" || fail "batch with 200 KiB free: the error does not say why"
[ -d "$fs/run" ] && { whole "$fs/run" || fail "batch with 200 KiB free: $(whole "$fs/run" 2>&1)"; }

# plot and report of a run elsewhere, into the full filesystem
fill 8
mkdir "$fs/figs"
"$zk" plot "$tmp/run" --out "$fs/figs" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "plot into a full disk: exit $rc, expected 1 ($(cat "$tmp/err"))"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^zkbench: plot: cannot write $fs/figs/" "$tmp/err" ||
  fail "plot into a full disk: not one line naming the file: $(cat "$tmp/err")"
[ -z "$(ls -A "$fs/figs")" ] || fail "plot into a full disk left: $(ls -A "$fs/figs")"
fill 8
"$zk" report "$tmp/run" -o "$fs/report.html" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "report into a full disk: exit $rc, expected 1 ($(cat "$tmp/err"))"
grep -q "cannot write $fs/report.html" "$tmp/err" || fail "report into a full disk: the line names no file: $(cat "$tmp/err")"
[ "$(ls -A "$fs")" = fill ] || fail "report into a full disk left: $(ls -A "$fs")"

lib_done "fulldisk: all checks passed"
