#!/usr/bin/env bash
# test_console.py --terminal where no pty can be opened (issue 28, defect
# 2: it died with "OSError: out of pty devices"): in a mount namespace whose
# /dev/pts is an empty tmpfs, it must exit 77 with one SKIP line that says
# why, and nothing on stderr.
#   test_no_pty.sh PYTHON3 TEST_CONSOLE_PY ZKBENCH
set -u
py=$1 script=$2 zk=$3
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1 ||
   ! unshare --mount --propagation unchanged true 2>/dev/null; then
  echo "SKIP: needs root and unshare (util-linux) to make a mount namespace without ptys"
  exit 77
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# /dev/pts made private in the new namespace first, so the tmpfs never
# propagates to the machine's (--propagation private needs / to be a
# mount point, which it is not in a chroot)
unshare --mount --propagation unchanged bash -c \
  'mount --make-rprivate /dev/pts && mount -t tmpfs -o size=64k tmpfs /dev/pts && exec "$0" "$@"' \
  "$py" "$script" "$zk" --terminal >"$out" 2>"$err"
rc=$?
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$rc" -eq 77 ] || fail "exit $rc, expected 77 (skipped)"
grep -q "^SKIP: no pty can be opened here (.*); the terminal checks need one" "$out" ||
  fail "no SKIP line saying why: $(head -3 "$out")"
[ ! -s "$err" ] || fail "stderr: $(head -5 "$err")"
[ "$fails" -eq 0 ] || { sed 's/^/    /' "$out" "$err" | head -20; exit 1; }
echo "console without ptys: skipped with the reason ($(head -1 "$out"))"
