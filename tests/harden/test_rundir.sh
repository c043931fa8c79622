#!/usr/bin/env bash
# Run folders are never shared (issue 16, defect 3): batches, watches and
# sweeps started at the same moment without --out get folders of their own
# (timestamp with milliseconds plus the pid, made with mkdir's O_EXCL
# semantics); a second run into an --out that holds a run is refused with
# exit 2 and one line, leaving the first run's files byte-identical;
# --force replaces the old run.
#   test_rundir.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
here=$(cd "$(dirname "$0")" && pwd)
export ZKBENCH_PARAMS_DIR=$tmp/params
circ="--circuit porep:constraints=2^10 --partitions 1"
"$zk" batch $circ --count 1 --out "$tmp/warm" >/dev/null 2>&1 || fail "warm-up batch"

# 1. four batches and four watches at once, default folders (results/runs
# under the working folder)
mkdir "$tmp/cwd" && cd "$tmp/cwd"
for i in 1 2 3 4; do
  "$zk" batch $circ --count 2 >"$tmp/b$i.out" 2>&1 &
  "$zk" watch --sample-ms 5 -- sleep 0.3 >"$tmp/w$i.out" 2>&1 &
done
wait
n_batch=$(find results/runs -mindepth 1 -maxdepth 1 -type d ! -name 'watch-*' | wc -l)
n_watch=$(find results/runs -mindepth 1 -maxdepth 1 -type d -name 'watch-*' | wc -l)
[ "$n_batch" -eq 4 ] || fail "4 simultaneous batches made $n_batch folders: $(ls results/runs)"
[ "$n_watch" -eq 4 ] || fail "4 simultaneous watches made $n_watch folders: $(ls results/runs)"
for d in results/runs/*/; do
  python3 - "$d" <<'PY' || fail "$d: a shared or malformed folder"
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "run.json"))
assert j["status"] == "complete", j["status"]
for name in ("samples.csv", "buffers.csv", "stages.csv", "proofs.csv"):
    try:
        rows = list(csv.reader(open(d + name)))
    except FileNotFoundError:
        assert name != "samples.csv" and "watch-" in d, name
        continue
    assert all(len(r) == len(rows[0]) for r in rows), name + ": rows of unequal length (two runs in one file)"
if "watch-" not in d:
    assert len(rows) - 1 == 2, f"proofs.csv: {len(rows) - 1} proofs, expected 2"
PY
done
ls results/runs | grep -Eq '^[0-9]{8}-[0-9]{6}\.[0-9]{3}-[0-9]+$' || fail "default name is not <stamp.ms>-<pid>: $(ls results/runs)"
cd "$tmp"

# 2. an --out that holds a run: refused, the old files untouched; --force replaces it
snapshot() { (cd "$1" && find . -type f | sort | xargs sha256sum); }
refused() { # $1 label, $2 folder, then the command
  local what=$1 dir=$2
  shift 2
  local before
  before=$(snapshot "$dir")
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "already holds a run" "$tmp/err" \
    || fail "$what: not one line saying why: $(cat "$tmp/err")"
  [ "$(snapshot "$dir")" = "$before" ] || fail "$what: the first run's files changed"
}
"$zk" batch $circ --count 1 --out "$tmp/b" >/dev/null 2>&1 || fail "first batch"
refused "batch into a run" "$tmp/b" "$zk" batch $circ --count 2 --out "$tmp/b"
"$zk" watch --sample-ms 5 --out "$tmp/w" -- sleep 0.2 >/dev/null 2>&1 || fail "first watch"
refused "watch into a run" "$tmp/w" "$zk" watch --sample-ms 5 --out "$tmp/w" -- sleep 0.2
refused "watch into a batch" "$tmp/b" "$zk" watch --out "$tmp/b" -- true
refused "batch into a watch" "$tmp/w" "$zk" batch $circ --count 1 --out "$tmp/w"
# a folder with one run file only (a run killed early) is a run too
mkdir "$tmp/part" && echo "t_ms" >"$tmp/part/samples.csv"
refused "batch into a partial run" "$tmp/part" "$zk" batch $circ --count 1 --out "$tmp/part"
# an existing folder with other files is fine
mkdir "$tmp/other" && echo keep >"$tmp/other/notes.txt"
"$zk" batch $circ --count 1 --out "$tmp/other" >/dev/null 2>&1 || fail "batch into a folder without a run"
[ "$(cat "$tmp/other/notes.txt")" = keep ] || fail "a foreign file was touched"
# --force
"$zk" batch $circ --count 2 --out "$tmp/b" --force >/dev/null 2>&1 || fail "batch --force"
[ "$(($(wc -l <"$tmp/b/proofs.csv") - 1))" -eq 2 ] || fail "batch --force: proofs.csv is not the new run's"
python3 "$here/../batch/check_run.py" "$tmp/b" --complete || fail "batch --force: the new run is inconsistent"
"$zk" watch --force --sample-ms 5 --out "$tmp/b" -- sleep 0.2 >/dev/null 2>&1 || fail "watch --force over a batch"
[ ! -e "$tmp/b/proofs.csv" ] || fail "watch --force left the old batch's proofs.csv"
# watch --force over a traced watch run: every file of the old run goes,
# trace/ too (the collector read every *.trace there: a steady program was
# reported with the old run's leak)
mkdir -p "$tmp/tw"
"$zk" watch --sample-ms 5 --out "$tmp/tw" -- sleep 0.2 >/dev/null 2>&1 || fail "first watch"
mkdir -p "$tmp/tw/trace" && echo old >"$tmp/tw/trace/1234.trace"
for f in marks.csv sites.csv procs.csv; do echo old >"$tmp/tw/$f"; done
"$zk" watch --force --sample-ms 5 --out "$tmp/tw" -- sleep 0.2 >/dev/null 2>"$tmp/err" || fail "watch --force over a traced run: $(cat "$tmp/err")"
[ ! -e "$tmp/tw/trace" ] || fail "watch --force left the old run's trace/: $(ls "$tmp/tw/trace")"
for f in marks.csv sites.csv; do
  [ ! -e "$tmp/tw/$f" ] || fail "watch --force left the old run's $f"
done
grep -q '^old$' "$tmp/tw/procs.csv" 2>/dev/null && fail "watch --force kept the old procs.csv"
# a folder holding only an old trace/ holds a run
mkdir -p "$tmp/t/trace" && echo old >"$tmp/t/trace/1.trace"
refused "watch into an old trace/" "$tmp/t" "$zk" watch --sample-ms 5 --out "$tmp/t" -- true
# a trace/ holding a folder zkbench never writes: refused, the user's file kept
mkdir -p "$tmp/u/trace/mine" && echo keep >"$tmp/u/trace/mine/notes.txt" && echo old >"$tmp/u/marks.csv"
"$zk" watch --force --sample-ms 5 --out "$tmp/u" -- true >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "watch --force over a trace/ with a foreign folder: exit $rc, expected 2"
grep -q "holds files zkbench did not write" "$tmp/err" || fail "foreign folder in trace/: no clear line: $(cat "$tmp/err")"
[ "$(cat "$tmp/u/trace/mine/notes.txt" 2>/dev/null)" = keep ] || fail "--force deleted a file zkbench did not write"
# sweep: its folder and its batches
"$zk" sweep --pw 1,2 $circ --count 1 --out "$tmp/s" >/dev/null 2>&1 || fail "first sweep"
refused "sweep into a sweep" "$tmp/s" "$zk" sweep --pw 1 $circ --count 1 --out "$tmp/s"
"$zk" sweep --pw 1 $circ --count 1 --out "$tmp/s" --force >/dev/null 2>"$tmp/err" || fail "sweep --force: $(cat "$tmp/err")"
[ -s "$tmp/s/sweep.csv" ] && [ -s "$tmp/s/pw-1/run.json" ] || fail "sweep --force: no new tables"
[ ! -e "$tmp/s/pw-2" ] && [ ! -e "$tmp/s/pw-2.log" ] || fail "sweep --force --pw 1 left the old sweep's pw-2"

lib_done "rundir: all checks passed"
