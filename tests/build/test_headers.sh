#!/usr/bin/env bash
# Every public header compiles on its own (STYLE.md: include what you use).
#   test_headers.sh SOURCE_ROOT BUILD_ROOT CC
set -u
src=$1 build=$2 cc=$3
fails=0
cd "$src"
for h in $(git ls-files --cached --others --exclude-standard 'prover/*.h' 'kernels/*.h' 'harness/*.h' 2>/dev/null || find prover kernels harness -name '*.h'); do
  case "$h" in
    *_template.h) continue ;;  # template bodies included by one .c file per instance, not headers
  esac
  if ! "$cc" -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I "$src" -I "$build" -x c - <<<"#include \"$h\"" 2>"$build/header-check.log"; then
    echo "FAIL: $h does not compile alone:" >&2
    head -5 "$build/header-check.log" >&2
    fails=$((fails + 1))
  fi
done
[ "$fails" -eq 0 ] || exit 1
echo "headers: all compile alone"
