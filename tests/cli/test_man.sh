#!/usr/bin/env bash
# The man page help2man made at build time (issue 14, item 4): man -l (or
# groff) renders it with NAME, SYNOPSIS, every command's usage, an EXIT
# STATUS section listing every exit code the commands' sources use, and a
# GLOSSARY; meson install puts it into share/man/man1 and the completion
# into share/bash-completion/completions. Exit 77 without help2man's page
# (-Dman=auto on a machine without help2man) or without man/groff.
#   test_man.sh PATH_TO_ZKBENCH.1|none PATH_TO_ZKBENCH SOURCE_ROOT BUILD_ROOT
set -u
page=$1
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lib_zk "$2"
src=$3
build=$4
if [ "$page" = none ] || [ ! -f "$page" ]; then
  echo "SKIP: no man page was built (help2man is missing: apt-get install help2man)"
  exit 77
fi

if command -v man >/dev/null 2>&1; then
  MANWIDTH=100 MAN_KEEP_FORMATTING=0 man -l "$page" 2>"$tmp/err" | col -b >"$tmp/page.txt"
elif command -v groff >/dev/null 2>&1; then
  groff -man -Tutf8 -P-cbou "$page" 2>"$tmp/err" >"$tmp/page.txt"
else
  echo "SKIP: neither man (man-db) nor groff (groff-base) to render the page"
  exit 77
fi
[ -s "$tmp/page.txt" ] || fail "the page rendered empty: $(cat "$tmp/err")"
grep -qi "warning" "$tmp/err" && fail "rendering warned: $(cat "$tmp/err")"

# the sections, in the rendered text
for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" GLOSSARY; do
  grep -q "^$s\$" "$tmp/page.txt" || fail "no $s section"
done
section() { # the rendered text of section $1
  awk -v s="$1" '/^[A-Z][A-Z ]+$/ { on = ($0 == s); next } on' "$tmp/page.txt"
}
section SYNOPSIS | grep -q "zkbench COMMAND" || fail "SYNOPSIS lacks 'zkbench COMMAND'"
version=$("$zk" -V | sed 's/^zkbench \([0-9.]*\) .*/\1/')
tail -2 "$tmp/page.txt" | grep -q "$version" || fail "the footer lacks the version $version"

# every command's usage, with each of its options
section COMMANDS >"$tmp/commands.txt"
while read -r cmd; do
  read -r -a words <<<"$cmd"
  grep -q "^ *zkbench $cmd\$" "$tmp/commands.txt" || fail "COMMANDS has no subsection for $cmd"
  while read -r opt arg; do
    grep -q -- "$opt" "$tmp/commands.txt" || fail "COMMANDS lacks $cmd's $opt"
  done < <("$zk" __complete "${words[@]}")
done < <("$zk" __complete)

# every exit code the sources use: cli_error(N, ...) (errmsg_print in the
# batch, harness/run/batch*.c), status = N, the literal codes of batch
# (130) and watch (127, 128+S)
codes=$(python3 - "$src/harness" <<'PY'
import glob, re, sys
codes = set()
for path in glob.glob(f"{sys.argv[1]}/cli/*.c") + glob.glob(f"{sys.argv[1]}/run/batch*.c"):
    text = open(path).read()
    codes |= set(re.findall(r"(?:cli_error|errmsg_print)\((\d+)\s*,", text))
    codes |= set(re.findall(r"status = (\d+)\b", text))
    codes |= set(re.findall(r"\? (130) :", text))
    codes |= set(re.findall(r"_exit\((127)\)", text))
print(" ".join(sorted(codes, key=int)))
PY
)
for want in 0 1 2 3 130 127; do
  [[ " $codes " == *" $want "* ]] || fail "the source scan found no exit code $want (found: $codes)"
done
section "EXIT STATUS" >"$tmp/exit.txt"
for code in $codes; do
  grep -qE "(^ {7}$code +[a-zA-Z]|\b$code\b)" "$tmp/exit.txt" || fail "EXIT STATUS lacks exit code $code"
done
grep -q "128+S" "$tmp/exit.txt" || fail "EXIT STATUS lacks watch's 128+S"

# the glossary
section GLOSSARY >"$tmp/gloss.txt"
for term in pw "L0 tracked" "L1 heap" "L2 allocator" "L3 process" g "valley floor" muzzy; do
  grep -q "^ \{7\}$term\b" "$tmp/gloss.txt" || fail "GLOSSARY does not define '$term'"
done
grep -A3 "^ \{7\}pw\b" "$tmp/gloss.txt" | tr -s " \t" "  " | grep -q "synthesized in parallel" || fail "GLOSSARY: pw is not partitions synthesized in parallel"

# meson install: the page and the completion where man and bash-completion look
if command -v meson >/dev/null 2>&1; then
  meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1 \
    || fail "meson install failed: $(tail -3 "$tmp/install.log")"
  man1=$(find "$tmp/root" -path '*/share/man/man1/zkbench.1')
  [ -n "$man1" ] && cmp -s "$man1" "$page" || fail "meson install put no zkbench.1 into share/man/man1"
  comp=$(find "$tmp/root" -path '*/share/bash-completion/completions/zkbench')
  [ -n "$comp" ] && grep -q "complete -o default -F _zkbench zkbench" "$comp" \
    || fail "meson install put no completion into share/bash-completion/completions/zkbench"
fi

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed" >&2
  exit 1
fi
echo "man: all checks passed (exit codes: $codes)"
