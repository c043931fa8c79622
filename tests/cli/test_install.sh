#!/usr/bin/env bash
# scripts/install.sh, the install step of scripts/main.sh (issue 28, defect
# 4: after main.sh, zkbench was not on PATH and man zkbench found no page):
# staged with DESTDIR at the build's own prefix, the installed zkbench runs
# by name from PATH, finds its tracer library (watch --trace), man finds the
# page through PATH, bash loads the completion, and the line printed names
# where it all went. A relative ZKBENCH_PREFIX is refused.
#   test_install.sh SOURCE_ROOT BUILD_ROOT PATH_TO_ZKBENCH
set -u
src=$1 build=$2 zk=$3
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
dest=$tmp/root
DESTDIR=$dest ZKBENCH_PREFIX=$prefix bash "$src/scripts/install.sh" "$build" >"$tmp/out" 2>"$tmp/err" ||
  fail "install.sh: exit $?: $(cat "$tmp/err")"
grep -q "^install   $dest$prefix: bin/zkbench, lib.*libzkbench-trace.so.*, share/man/man1/zkbench.1, share/bash-completion/completions/zkbench$" "$tmp/out" ||
  fail "install.sh did not say where: $(cat "$tmp/out")"
bin=$dest$prefix/bin
[ -x "$bin/zkbench" ] || fail "no $bin/zkbench"
[ "$("$bin/zkbench" -V)" = "$("$zk" -V)" ] || fail "the installed zkbench is not the build's: $("$bin/zkbench" -V)"

# by name, from PATH, as main.sh's printed commands run it
path=$bin:/usr/bin:/bin
[ "$(PATH=$path command -v zkbench)" = "$bin/zkbench" ] || fail "zkbench is not found on PATH=$path"
PATH=$path zkbench version >"$tmp/v" 2>&1 || fail "zkbench version by name: $(cat "$tmp/v")"
# the tracer library, found beside the installed command
PATH=$path ZKBENCH_PARAMS_DIR=$tmp/params zkbench watch --trace --quiet --sample-ms 20 --out "$tmp/w" -- true \
  >"$tmp/w.out" 2>&1 || fail "installed zkbench watch --trace: $(cat "$tmp/w.out")"
# man zkbench through PATH (man-db maps PREFIX/bin to PREFIX/share/man)
if command -v man >/dev/null 2>&1; then
  page=$(PATH=$path MANPATH= man -w zkbench 2>"$tmp/man.err")
  [ "$page" = "$dest$prefix/share/man/man1/zkbench.1" ] || fail "man -w zkbench: '$page' $(cat "$tmp/man.err")"
else
  fail "man not found (scripts/setup.sh installs man-db)"
fi
# the completion
comp=$dest$prefix/share/bash-completion/completions/zkbench
bash -c "source '$comp' && complete -p zkbench" >"$tmp/c" 2>&1 && grep -q "_zkbench zkbench" "$tmp/c" ||
  fail "the installed completion does not load: $(cat "$tmp/c")"

# a relative prefix: refused, nothing installed
ZKBENCH_PREFIX=relative/dir bash "$src/scripts/install.sh" "$build" >"$tmp/out2" 2>"$tmp/err2"
rc=$?
[ $rc -eq 1 ] && grep -q "ZKBENCH_PREFIX must be an absolute path" "$tmp/err2" ||
  fail "relative ZKBENCH_PREFIX: exit $rc, $(cat "$tmp/err2")"
[ ! -e relative ] || fail "a relative prefix made a folder"

[ $fails -eq 0 ] || exit 1
echo "install: zkbench, its tracer, the man page and the completion work from $dest$prefix"
