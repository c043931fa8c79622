#!/usr/bin/env bash
# The command-line conventions every command shares (issue 14, item 4):
# -h and --help on every command (exit 0, usage on stdout naming the
# command and every option of its table, the same text as zkbench help
# CMD), every option of the table accepted, bad options and unknown help
# topics one line and exit 2, -V/--version's "zkbench X.Y.Z (commit HASH)"
# with the project version of meson.build, and the bash completion
# generated from the same tables.
#   test_conventions.sh PATH_TO_ZKBENCH PATH_TO_COMPLETION MESON_BUILD
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$1"
completion=$2
meson_build=$3

# every command, from the tables (one line each, "bench prover" included)
mapfile -t cmds < <("$zk" __complete)
[ "${#cmds[@]}" -ge 12 ] || fail "__complete lists ${#cmds[@]} commands, expected at least 12"
for want in selfcheck bench "bench prover" setup prove verify batch analyze plot check sweep watch; do
  printf '%s\n' "${cmds[@]}" | grep -qx "$want" || fail "__complete lacks $want"
done

for cmd in "${cmds[@]}"; do
  read -r -a words <<<"$cmd"
  for h in -h --help; do
    "$zk" "${words[@]}" $h >"$tmp/$h.out" 2>"$tmp/$h.err"
    rc=$?
    [ $rc -eq 0 ] || fail "$cmd $h: exit $rc ($(head -c 200 "$tmp/$h.err"))"
    [ -s "$tmp/$h.err" ] && fail "$cmd $h: wrote to stderr: $(head -c 200 "$tmp/$h.err")"
    head -1 "$tmp/$h.out" | grep -q "^usage: zkbench $cmd\b" || fail "$cmd $h: first line does not name the command: $(head -1 "$tmp/$h.out")"
  done
  cmp -s "$tmp/-h.out" "$tmp/--help.out" || fail "$cmd: -h and --help differ"
  "$zk" help "${words[@]}" >"$tmp/help.out" 2>&1 || fail "help $cmd: exit $?"
  cmp -s "$tmp/help.out" "$tmp/--help.out" || fail "zkbench help $cmd differs from zkbench $cmd --help"
  # every option of the table: in the usage, and accepted by the parser
  # (an option it did not know would be "unknown option" before --help)
  n=0
  while read -r opt arg; do
    n=$((n + 1))
    grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" "$tmp/--help.out" || fail "$cmd --help does not name $opt"
    [ "$opt" = --help ] && continue
    val=(); [ -n "$arg" ] && val=(1)
    "$zk" "${words[@]}" "$opt" "${val[@]}" --help >"$tmp/o.out" 2>"$tmp/o.err"
    # prove's second form (prove --zkey F ...) takes its own options
    if [ "$cmd" = prove ] && grep -q "unknown option" "$tmp/o.err"; then
      "$zk" prove --zkey x "$opt" "${val[@]}" --help >"$tmp/o.out" 2>"$tmp/o.err"
    fi
    grep -q "unknown option" "$tmp/o.err" && fail "$cmd does not accept $opt: $(cat "$tmp/o.err")"
  done < <("$zk" __complete "${words[@]}")
  [ $n -ge 1 ] || fail "__complete $cmd listed no option"
  # a bad option: one line naming it, exit 2
  "$zk" "${words[@]}" --no-such-option >/dev/null 2>"$tmp/bad.err"
  rc=$?
  [ $rc -eq 2 ] || fail "$cmd --no-such-option: exit $rc, expected 2"
  [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] && grep -q "^zkbench: .*--no-such-option" "$tmp/bad.err" \
    || fail "$cmd --no-such-option: not one line naming it: $(cat "$tmp/bad.err")"
done

# an option table that is not in the usage: a planted check that the grep
# above can fail (the usage of batch does not contain --frobnicate)
grep -q -- "--frobnicate" <("$zk" batch --help) && fail "batch --help names an option it lacks"

# the glossary where the reports first use the terms
"$zk" analyze --help >"$tmp/a.out"
for term in "pw " "L0 tracked" "L1 heap" "L2 allocator" "L3 process" "g   " "valley floor" "muzzy"; do
  grep -qF "$term" "$tmp/a.out" || fail "analyze --help does not define '$term'"
done
"$zk" batch --help | grep -q -- "--pw W .*partitions synthesized in parallel" || fail "batch --help does not define pw"
"$zk" help terms | grep -q "^  muzzy" || fail "help terms lacks muzzy"
"$zk" help exit-status | grep -q "^  130" || fail "help exit-status lacks 130"

# the README documents every exit code and term the binary lists
readme=$(dirname "$meson_build")/README.md
while read -r code _; do
  grep -qE "^\| $code \|" "$readme" || fail "README's exit-status table lacks $code"
done < <("$zk" help exit-status | sed -n 's/^  \([0-9N]\+\) .*/\1/p')
[ "$("$zk" help exit-status | grep -c '^  [0-9N]')" -ge 6 ] || fail "help exit-status lists fewer than 6 codes"
while read -r term; do
  grep -qE "^\| $term \|" "$readme" || fail "README's glossary lacks '$term'"
done < <("$zk" help terms | sed -n 's/^  \([^ ].*\)$/\1/p')

# help: top level and unknown topics
"$zk" help >"$tmp/top.out" 2>&1 || fail "zkbench help: exit $?"
"$zk" --help | cmp -s - "$tmp/top.out" || fail "zkbench --help differs from zkbench help"
grep -q "^  batch  " "$tmp/top.out" || fail "zkbench help does not list batch"
"$zk" help frobnicate >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "unknown command 'frobnicate'" "$tmp/err" \
  || fail "help frobnicate: exit $rc, $(cat "$tmp/err")"
"$zk" help batch extra words >/dev/null 2>&1 && fail "help with three words accepted"

# version: semantic version of meson.build and the commit
want=$(sed -n "s/^  version: '\([0-9.]*\)',$/\1/p" "$meson_build")
[ -n "$want" ] || fail "no version in $meson_build"
for v in -V --version version; do
  out=$("$zk" $v | head -1)
  [[ $out =~ ^zkbench\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-f]+ ]] || fail "$v: '$out' is not 'zkbench X.Y.Z (commit HASH)'"
  [[ $out == "zkbench $want (commit "* ]] || fail "$v: '$out' does not carry meson's version $want"
done
[ "$("$zk" -V | wc -l)" -eq 1 ] || fail "-V prints more than one line"
if git -C "$(dirname "$meson_build")" rev-parse HEAD >/dev/null 2>&1; then
  head=$(git -C "$(dirname "$meson_build")" rev-parse HEAD)
  hash=$("$zk" -V | sed 's/.*(commit \([0-9a-f]*\).*/\1/')
  [[ $head == "$hash"* ]] || echo "note: the binary's commit $hash is not HEAD $head (built before the last commit)"
fi
"$zk" -V extra >/dev/null 2>&1 && fail "-V with an argument accepted"

# bash completion: source it and complete as bash would
[ -f "$completion" ] || fail "no completion file $completion"
complete_words() { # prints COMPREPLY for the words given (the last is completed)
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _zkbench; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$completion" "$@" | sort | tr '\n' ' ' | sed 's/ $//'
}
[ "$(complete_words zkbench ba)" = "batch" ] || fail "complete 'zkbench ba': '$(complete_words zkbench ba)'"
[ "$(complete_words zkbench batch --co)" = "--concurrency --count" ] \
  || fail "complete 'zkbench batch --co': '$(complete_words zkbench batch --co)'"
[ "$(complete_words zkbench bench prover --ba)" = "--backend" ] \
  || fail "complete 'zkbench bench prover --ba': '$(complete_words zkbench bench prover --ba)'"
[ "$(complete_words zkbench batch --backend "")" = "auto cpu gpu" ] \
  || fail "complete 'zkbench batch --backend ': '$(complete_words zkbench batch --backend "")'"
[ "$(complete_words zkbench help an)" = "analyze" ] || fail "complete 'zkbench help an'"
[ -z "$(complete_words zkbench watch -- ls --co)" ] || fail "completion after -- offers zkbench options"
# every command's options, as its table has them
for cmd in "${cmds[@]}"; do
  read -r -a words <<<"$cmd"
  want=$("$zk" __complete "${words[@]}" | cut -d' ' -f1 | sort | tr '\n' ' ' | sed 's/ $//')
  got=$(bash -c 'source "$1"; shift; COMP_WORDS=("$@" "-"); COMP_CWORD=$#; _zkbench; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$completion" zkbench "${words[@]}" | grep -v '^-h$' | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] || fail "completion of '$cmd -': '$got', the table: '$want'"
done

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed" >&2
  exit 1
fi
echo "conventions: all checks passed (${#cmds[@]} commands)"
