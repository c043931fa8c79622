#!/usr/bin/env bash
# The zkbench command line: exit codes, one-line errors for bad input, and the
# outputs of version, selfcheck and bench --quick.
#   test_cli.sh PATH_TO_ZKBENCH
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"

# expect CODE CMD...: exit status CODE; for CODE 2, exactly one stderr line
# starting with "zkbench: ".
expect() {
  local want=$1; shift
  "$zk" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "zkbench $*: exit $got, expected $want ($(head -c 300 "$tmp/err"))"
  if [ "$want" -eq 2 ]; then
    local lines
    lines=$(wc -l <"$tmp/err")
    [ "$lines" -eq 1 ] || fail "zkbench $*: $lines stderr lines, expected one"
    grep -q '^zkbench: ' "$tmp/err" || fail "zkbench $*: error line lacks 'zkbench: ' ($(cat "$tmp/err"))"
  fi
}

expect 2
expect 2 frobnicate
grep -q "unknown command 'frobnicate'" "$tmp/err" || fail "unknown command not named"
expect 2 bench --bogus
grep -q -- "--bogus" "$tmp/err" || fail "bad option not named"
expect 2 bench extra-arg
expect 2 bench --out
expect 2 bench --quick --out "$tmp/no/such/dir/table.md"
grep -q "cannot write" "$tmp/err" || fail "unwritable --out not reported"
expect 2 selfcheck --bogus
expect 2 bench prover --backend xpu
grep -q "cpu or gpu" "$tmp/err" || fail "bench prover: bad --backend not explained"
if "$zk" version 2>/dev/null | grep -q "^gpu: none"; then
  expect 2 bench prover --backend gpu --constraints 2^10
  grep -q "no CUDA device" "$tmp/err" || fail "bench prover --backend gpu without a GPU: $(cat "$tmp/err")"
fi

expect 0 help
grep -q selfcheck "$tmp/out" || fail "help lacks the command list"
expect 0 bench --help
expect 0 version
grep -q "jemalloc 5\." "$tmp/out" || fail "version: jemalloc is not the allocator ($(cat "$tmp/out"))"

expect 0 selfcheck
grep -q "checks passed" "$tmp/out" || fail "selfcheck summary missing"
grep -qi "fail" "$tmp/out" && fail "selfcheck printed a failure"

expect 0 bench --quick --out "$tmp/table.md"
cmp -s "$tmp/out" "$tmp/table.md" || fail "bench: --out file differs from stdout"
for row in "Fp mul" "Fr mul" "G1 add (Jacobian)" "G2 add (Jacobian)" "G1 scalar mul" "pairing"; do
  grep -qF "| $row" "$tmp/table.md" || fail "bench table lacks '$row'"
done
# every timed row carries a positive number with a unit
bad=$(grep '^| ' "$tmp/table.md" | grep -v '^| operation' | grep -v 'GPU' \
      | awk -F'|' '{ if ($3 !~ /[0-9.]+ (ns|µs|ms)/) print }')
[ -z "$bad" ] || fail "bench rows without a time: $bad"
grep -q "^- commit: " "$tmp/table.md" || fail "bench table lacks the commit"

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed" >&2
  exit 1
fi
echo "cli: all checks passed"
