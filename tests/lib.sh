# The preamble every shell test shares; sourced, never run:
#   set -u
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#   lib_zk "$1"            # zk: the zkbench under test, as an absolute path
# It gives:
#   tmp            a fresh folder, removed on exit (with what lib_on_exit adds)
#   fails, fail    fail "what went wrong" counts a failure and says it on stderr
#   lib_zk PATH    zk=PATH made absolute (the tests cd); not executable: exit 1
#   lib_seed       seed: $SEED, else drawn fresh (1..1000); lib_done prints it
#   lib_on_exit F  runs the function F at exit, before tmp goes (unmounts,
#                  processes a test left running)
#   lib_done TEXT  the end: exit 1 after "N check(s) failed", else TEXT
#                  (the seed appended when lib_seed drew one)
#   lib_expect2 WHAT CMD...  CMD must refuse: exit 2, one "zkbench: " line on
#                  stderr, and no $tmp/never (the --out the refusals name)

tmp=$(mktemp -d)
fails=0
seed=
lib_exit_hooks=()

lib_exit() {
  local f
  for f in ${lib_exit_hooks[@]+"${lib_exit_hooks[@]}"}; do "$f"; done
  rm -rf "$tmp"
}
trap lib_exit EXIT

lib_on_exit() { lib_exit_hooks+=("$1"); }

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

lib_zk() {
  [ -x "$1" ] || { echo "FAIL: $1 is no executable zkbench" >&2; exit 1; }
  zk=$(realpath "$1")
}

lib_seed() { seed=${SEED:-$((RANDOM % 1000 + 1))}; }

lib_done() {
  local with=${seed:+ (seed $seed)}
  [ "$fails" -eq 0 ] || { echo "$fails check(s) failed$with" >&2; exit 1; }
  echo "$1$with"
}

lib_expect2() {
  local what=$1
  shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^zkbench: ' "$tmp/err" || fail "$what: not one error line: $(cat "$tmp/err")"
  [ ! -e "$tmp/never" ] || fail "$what: created the output folder before refusing"
  rm -rf "$tmp/never"
}
