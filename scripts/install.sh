#!/usr/bin/env bash
# Installs a built zkbench with meson install: bin/zkbench, the tracer
# libraries of `watch --trace` (libzkbench-trace.so, libzkbench-cupti.so
# where CUPTI was found), the man page, the bash completion and
# zkbench_trace.h.
#   scripts/install.sh [BUILD_DIR]       (default build)
# The prefix: ZKBENCH_PREFIX, else /usr/local as root, else ~/.local (no
# sudo: bin, man and completions under it, where a login shell and man find
# them). The build is reconfigured to it when it differs. DESTDIR stages the
# files under a folder instead (packaging, tests), as with make.
# Prints what went where, and the PATH line to run when PREFIX/bin is not on
# PATH. Exit status: 0 installed, 1 meson failed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [ -n "${ZKBENCH_PREFIX:-}" ]; then
  prefix=$ZKBENCH_PREFIX
elif [ "$(id -u)" -eq 0 ]; then
  prefix=/usr/local
else
  prefix=$HOME/.local
fi
case $prefix in /*) ;; *) echo "install: ZKBENCH_PREFIX must be an absolute path, got '$prefix'" >&2; exit 1 ;; esac

option() { # the build's value of meson option $1
  meson introspect "$build" --buildoptions |
    python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]))' "$1"
}
if [ "$(option prefix)" != "$prefix" ]; then
  meson configure "$build" -Dprefix="$prefix" >/dev/null
fi
args=(--quiet)
[ -n "${DESTDIR:-}" ] && args+=(--destdir "$DESTDIR")
meson install -C "$build" "${args[@]}" >"$build/install.log" 2>&1 || { cat "$build/install.log" >&2; exit 1; }

libdir=$(option libdir) mandir=$(option mandir) datadir=$(option datadir) bindir=$(option bindir)
root=${DESTDIR:-}$prefix
libs=$(cd "$root/$libdir" && ls libzkbench-*.so 2>/dev/null | paste -sd, || true)
case $libs in *,*) libs="{$libs}" ;; esac
echo "install   $root: $bindir/zkbench, $libdir/$libs, $mandir/man1/zkbench.1$(
  [ -f "$root/$mandir/man1/zkbench.1" ] || echo " (not built: no help2man)"), $datadir/bash-completion/completions/zkbench"
if [ -z "${DESTDIR:-}" ]; then
  case ":$PATH:" in
    *":$prefix/$bindir:"*) ;;
    *) echo "install   $prefix/$bindir is not on PATH: export PATH=\"$prefix/$bindir:\$PATH\" (man finds the page through PATH)" ;;
  esac
fi
