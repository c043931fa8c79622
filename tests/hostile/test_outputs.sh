#!/usr/bin/env bash
# Outputs never touch what is not theirs (issue 26, item 1): every command
# that writes a named output (setup --params/--vk, prove --proof/--public,
# prove --zkey --proof, report -o, check --write-baseline, plot --out's
# figures) against each kind of target:
#   a regular file       replaced, its mode kept
#   a symlink to a file  the link stays, its target is replaced
#   a dangling symlink   the link stays, its target is made
#   a folder, a FIFO, a socket, a character device (made here with mknod,
#   never a system node), a symlink to that device
#                        refused: exit 2, one line, the node unchanged
#   a file or folder the user cannot write (as nobody)
#                        refused: exit 2, one line, nothing changed
# Before the fix `prove --public /dev/null` replaced /dev/null (exit 0).
#   test_outputs.sh PATH_TO_ZKBENCH GEN_RUN_PY
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
gen=$2
chmod 755 "$tmp"
circ="porep:constraints=2^10"

# inputs: keys, a run
"$zk" setup --circuit "$circ,partitions=1" --params "$tmp/k.params" --vk "$tmp/k.vk" >/dev/null 2>&1 ||
  { echo "setup failed"; exit 1; }
python3 "$gen" healthy "$tmp/run" >/dev/null || { echo "gen_run.py failed"; exit 1; }
chmod -R a+rX "$tmp"

pre="" # a prefix for the command (setpriv, to run it as nobody)
# writer NAME TARGET: runs the writer NAME with TARGET as its output;
# stdout/stderr in $tmp/out, $tmp/err; returns its exit status
writer() {
  local t=$2
  case $1 in
  setup-params) $pre "$zk" setup --circuit "$circ,partitions=1" --params "$t" --vk "$tmp/side.vk" ;;
  setup-vk) $pre "$zk" setup --circuit "$circ,partitions=1" --params "$tmp/side.params" --vk "$t" ;;
  prove-proof) $pre "$zk" prove --circuit "$circ" --partitions 1 --params "$tmp/k.params" --proof "$t" --public "$tmp/side.pub" ;;
  prove-public) $pre "$zk" prove --circuit "$circ" --partitions 1 --params "$tmp/k.params" --proof "$tmp/side.proof" --public "$t" ;;
  report) $pre "$zk" report "$tmp/run" -o "$t" ;;
  baseline) $pre "$zk" check "$tmp/run" --write-baseline "$t" ;;
  zkey) $pre "$zk" prove --zkey "$tmp/none.zkey" --wtns "$tmp/none.wtns" --proof "$t" --public "$tmp/side.json" ;;
  esac >"$tmp/out" 2>"$tmp/err" </dev/null
}

# refused WRITER LABEL TARGET: exit 2, one line naming the target, nothing done
refused() {
  local w=$1 what=$2 t=$3 before after
  before=$(stat -c '%F %a %s %Y' "$t" 2>/dev/null)
  writer "$w" "$t"
  local rc=$?
  after=$(stat -c '%F %a %s %Y' "$t" 2>/dev/null)
  [ $rc -eq 2 ] || fail "$w into $what: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$w into $what: $(wc -l <"$tmp/err") error lines: $(cat "$tmp/err")"
  grep -q "^zkbench: .*cannot write" "$tmp/err" || fail "$w into $what: the line does not say so: $(cat "$tmp/err")"
  [ "$before" = "$after" ] || fail "$w into $what: the target changed: $before -> $after"
}

# accepted WRITER: the regular, symlinked and dangling targets
accepted() {
  local w=$1 d=$tmp/ok-$1
  mkdir -p "$d/elsewhere"
  printf 'old\n' >"$d/reg"
  chmod 600 "$d/reg"
  writer "$w" "$d/reg" || fail "$w into a regular file: exit $? ($(head -c 300 "$tmp/err"))"
  printf 'old\n' >"$d/old"
  ! cmp -s "$d/reg" "$d/old" && [ -s "$d/reg" ] || fail "$w: the regular file was not replaced"
  [ "$(stat -c %a "$d/reg")" = 600 ] || fail "$w: the replaced file lost its mode 600 ($(stat -c %a "$d/reg"))"
  printf 'old\n' >"$d/elsewhere/target"
  ln -s elsewhere/target "$d/link"
  writer "$w" "$d/link" || fail "$w through a symlink: exit $? ($(head -c 300 "$tmp/err"))"
  [ -L "$d/link" ] || fail "$w: the symlink was replaced by a file"
  ! cmp -s "$d/elsewhere/target" "$d/old" || fail "$w: the symlink's target was not written"
  ln -s elsewhere/new "$d/dangling"
  writer "$w" "$d/dangling" || fail "$w through a dangling symlink: exit $? ($(head -c 300 "$tmp/err"))"
  [ -L "$d/dangling" ] && [ -s "$d/elsewhere/new" ] || fail "$w: the dangling symlink's target was not made"
  local left
  left=$(find "$d" -name '*.tmp' | head -3)
  [ -z "$left" ] || fail "$w: temporary files left: $left"
}

nodes=$tmp/nodes
mkdir "$nodes"
mkdir "$nodes/folder"
mkfifo "$nodes/fifo"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$nodes/sock"
have_dev=0
if mknod "$nodes/null" c 1 3 2>/dev/null; then
  have_dev=1
  ln -s null "$nodes/link-to-dev"
else
  echo "note: mknod not permitted here: the device cases are skipped"
fi
ln -s fifo "$nodes/link-to-fifo"
# unwritable, for a user who is not root
mkdir "$tmp/closed"
printf 'theirs\n' >"$tmp/closed/file"
chmod 755 "$tmp/closed"
chmod 644 "$tmp/closed/file"
as_nobody=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
  as_nobody="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups"
fi

for w in setup-params setup-vk prove-proof prove-public report baseline zkey; do
  refused $w "a folder" "$nodes/folder"
  refused $w "a FIFO" "$nodes/fifo"
  refused $w "a symlink to a FIFO" "$nodes/link-to-fifo"
  refused $w "a socket" "$nodes/sock"
  if [ $have_dev -eq 1 ]; then
    refused $w "a character device" "$nodes/null"
    refused $w "a symlink to a character device" "$nodes/link-to-dev"
    [ -c "$nodes/null" ] || fail "$w: the character device is gone"
  fi
  grep -q "character device\|FIFO\|socket\|folder" "$tmp/err" || fail "$w: the refusal does not name the kind"
  if [ -n "$as_nobody" ]; then
    # the same writer as nobody: a root-owned file and folder it cannot write
    for t in "$tmp/closed/file" "$tmp/closed/new"; do
      before=$(stat -c '%s %Y' "$tmp/closed/file")
      pre=$as_nobody
      writer $w "$t"
      rc=$?
      pre=""
      [ $rc -eq 2 ] || fail "$w as nobody into $t: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
      [ "$before" = "$(stat -c '%s %Y' "$tmp/closed/file")" ] || fail "$w as nobody: $tmp/closed/file changed"
      [ ! -e "$tmp/closed/new" ] || fail "$w as nobody: made $tmp/closed/new"
    done
  fi
done
[ -c "$nodes/null" ] || [ $have_dev -eq 0 ] || fail "the device node is no longer a character device"
[ -p "$nodes/fifo" ] || fail "the FIFO is no longer a FIFO"

# the writers that succeed: in CI one of setup's and one of prove's two
# outputs (each pair goes through the same code), all with HOSTILE_FULL=1
# (scripts/bench-hostile.sh)
ok_writers="setup-vk prove-public report baseline"
[ "${HOSTILE_FULL:-0}" = 1 ] && ok_writers="setup-params $ok_writers prove-proof"
for w in $ok_writers; do
  accepted $w
done

# plot's figures are outputs too: DIR/memory.png as each kind
p=$tmp/plotdir
mkdir "$p"
for kind in fifo dev; do
  rm -f "$p/memory.png"
  case $kind in
  fifo) mkfifo "$p/memory.png" ;;
  dev) [ $have_dev -eq 1 ] || continue; mknod "$p/memory.png" c 1 3 ;;
  esac
  timeout 60 "$zk" plot "$tmp/run" --out "$p" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || fail "plot with memory.png a $kind: exit $rc, expected 2 ($(cat "$tmp/err"))"
  [ -p "$p/memory.png" ] || [ -c "$p/memory.png" ] || fail "plot: memory.png (a $kind) was replaced"
  ls "$p" | grep -q '\.svg$' && fail "plot refused but left figures: $(ls "$p")"
done
rm -f "$p/memory.png"
mkdir "$p/elsewhere"
ln -s elsewhere/mem.png "$p/memory.png"
"$zk" plot "$tmp/run" --out "$p" >"$tmp/out" 2>"$tmp/err" || fail "plot through a symlinked memory.png: $(cat "$tmp/err")"
[ -L "$p/memory.png" ] && [ -s "$p/elsewhere/mem.png" ] || fail "plot: the symlinked memory.png was not written through"

lib_done "outputs: all checks passed"
