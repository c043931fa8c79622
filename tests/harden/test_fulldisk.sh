#!/usr/bin/env bash
# A full disk is never reported as success (issue 16, defect 1): batch and
# watch with their --out on a 2 MiB tmpfs filled to 1 KiB and to 40 KiB
# free. Each must exit 1 with one error line naming the file and ENOSPC,
# leave no temporary file, leave every CSV ending with a whole row, and,
# when run.json exists, say failed; never "done ... all verified".
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
if ! mount -t tmpfs -o size=2m tmpfs "$fs" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs (needs root)"
  exit 77
fi
export ZKBENCH_PARAMS_DIR=$tmp/params
circ="--circuit porep:constraints=2^10 --partitions 2"
"$zk" batch $circ --count 1 --out "$tmp/warm" >/dev/null 2>&1 || fail "warm-up batch failed"

# fill: leave FREE_KIB free on the tmpfs
fill() {
  rm -rf "${fs:?}"/*
  local avail
  avail=$(df -k --output=avail "$fs" | tail -1)
  head -c $(((avail - $1) * 1024)) /dev/zero >"$fs/fill"
}

# the checks every failed run shares; $1 label, $2 run folder, $3 stdout, $4 stderr, $5 exit
check_failed() {
  local what=$1 dir=$2 out=$3 err=$4 rc=$5
  [ "$rc" -eq 1 ] || fail "$what: exit $rc, expected 1 ($(head -c 300 "$err"))"
  local lines
  lines=$(grep -c '^zkbench: .*cannot write' "$err")
  [ "$lines" -eq 1 ] || fail "$what: $lines 'cannot write' error lines, expected 1: $(cat "$err")"
  grep -q "No space left on device" "$err" || fail "$what: the error does not say why: $(cat "$err")"
  grep -q "all verified" "$out" && fail "$what: reports success: $(grep verified "$out")"
  if [ -d "$dir" ]; then
    local left
    left=$(find "$dir" -name '*.tmp*' | head -3)
    [ -z "$left" ] || fail "$what: temporary files left: $left"
    for f in "$dir"/*.csv; do
      [ -e "$f" ] || continue
      if [ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ]; then
        fail "$what: $(basename "$f") ends with a torn row"
      fi
    done
    if [ -e "$dir/run.json" ]; then
      python3 - "$dir/run.json" <<'PY' || fail "$what: run.json does not say failed"
import json, sys
j = json.load(open(sys.argv[1]))
assert j.get("status") == "failed" and j.get("outcome") == "failed", (j.get("status"), j.get("outcome"))
assert "No space left" in j.get("error", ""), j.get("error")
PY
    fi
  fi
}

for free in 1 40; do
  fill $free
  "$zk" batch $circ --count 6 --out "$fs/run" >"$tmp/out" 2>"$tmp/err"
  check_failed "batch, $free KiB free" "$fs/run" "$tmp/out" "$tmp/err" $?
  if [ $free -eq 40 ]; then
    [ -e "$fs/run/run.json" ] || fail "batch, 40 KiB free: no run.json"
    # what was written stays readable: whole rows with the documented header
    python3 - "$fs/run" <<'PY' || fail "batch, 40 KiB free: the CSVs are not readable"
import csv, sys
for name in ("samples.csv", "buffers.csv", "stages.csv", "proofs.csv"):
    rows = list(csv.reader(open(f"{sys.argv[1]}/{name}")))
    assert rows, name + " is empty"
    assert all(len(r) == len(rows[0]) for r in rows), name + ": rows of unequal length"
PY
  fi
  fill $free
  "$zk" watch --sample-ms 2 --out "$fs/w" -- sleep 3 >"$tmp/out" 2>"$tmp/err"
  check_failed "watch, $free KiB free" "$fs/w" "$tmp/out" "$tmp/err" $?
  if [ $free -eq 40 ]; then
    # samples.csv and procs.csv grow together: either may fill first
    grep -Eq "(samples|procs).csv" "$tmp/err" || fail "watch, 40 KiB free: the error names no run file: $(cat "$tmp/err")"
  fi
  # --mark: marks.csv is a run file too (a mark line per millisecond)
  fill $free
  "$zk" watch --sample-ms 50 --mark 'proof done' --out "$fs/m" -- \
    sh -c 'i=0; while [ $i -lt 3000 ]; do echo "proof done $i"; i=$((i + 1)); done; sleep 1' >"$tmp/out" 2>"$tmp/err"
  check_failed "watch --mark, $free KiB free" "$fs/m" "$tmp/out" "$tmp/err" $?
done

lib_done "fulldisk: all checks passed"
