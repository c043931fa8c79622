#!/usr/bin/env bash
# Long libFuzzer runs of every reader at once on a many-core host (issue 16:
# results/fuzz.md), e.g. the device machine's CPUs:
#   fuzz-long.sh BINDIR SEEDS SECONDS WORK [CORPUS_TGZ]
# BINDIR holds the fuzz_* harnesses (the build-fuzz tree's tests/fuzz, ASan +
# UBSan), SEEDS the committed seeds (tests/fuzz/corpus). Every harness runs
# for SECONDS of wall time with W = nproc / harnesses workers (-jobs W
# -workers W, a shared corpus per harness under WORK, continued from
# CORPUS_TGZ when given). Afterwards WORK/summary.tsv has, per harness: the
# workers, the wall and CPU seconds (user + sys of all its processes), the
# inputs run (the workers' stat::number_of_executed_units summed), the last
# coverage, the corpus size and the crash inputs; WORK/corpus.tgz holds the
# corpora for a next round and WORK/crashes/ every crash input. WORKERS
# ("name=W name=W ...") sets some harnesses' workers, e.g. to give a second
# round's CPU to the harnesses that got least in the first.
set -u
bins=$(readlink -f "$1") seeds=$(readlink -f "$2") secs=$3 work=$4 prior=${5:-}
mkdir -p "$work" && work=$(readlink -f "$work")
names=$(find "$bins" -maxdepth 1 -type f -executable -name 'fuzz_*' -printf '%f\n' | sed 's/^fuzz_//' | sort)
count=$(echo "$names" | wc -w)
cores=$(nproc)
[ "$count" -gt 0 ] || { echo "fuzz-long: no fuzz_* in $bins"; exit 1; }
[ -n "$prior" ] && tar xzf "$prior" -C "$work"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:symbolize=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
i=0
for n in $names; do
  # the cores left over after an even share go to the first harnesses
  w=$(( cores / count + (i < cores % count ? 1 : 0) ))
  for kv in ${WORKERS:-}; do [ "${kv%%=*}" = "$n" ] && w=${kv#*=}; done
  [ "$w" -ge 1 ] || w=1
  d=$work/$n
  mkdir -p "$d/corpus" "$d/art" "$d/logs"
  (
    cd "$d/logs" || exit 1
    TIMEFORMAT='%R %U %S'
    { time "$bins/fuzz_$n" -jobs="$w" -workers="$w" -max_total_time="$secs" -timeout=30 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$d/art/" \
        "$d/corpus" "$seeds/$n" >"$d/parent.log" 2>&1; } 2>"$d/time"
    echo "$w" >"$d/workers"
  ) &
  i=$((i + 1))
done
wait

printf 'harness\tworkers\twall_s\tcpu_s\tinputs\tcov\tcorpus_files\tcorpus_bytes\tcrashes\n' >"$work/summary.tsv"
mkdir -p "$work/crashes"
for n in $names; do
  d=$work/$n
  read -r wall user sys <"$d/time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')
  inputs=$(cat "$d"/logs/fuzz-*.log 2>/dev/null | awk '/^stat::number_of_executed_units:/ { t += $2 } END { print t + 0 }')
  cov=$(cat "$d"/logs/fuzz-*.log 2>/dev/null | grep -Eo 'cov: [0-9]+' | awk '{print $2}' | sort -n | tail -1)
  files=$(ls "$d/corpus" | wc -l)
  bytes=$(du -sb "$d/corpus" | cut -f1)
  crashes=$(ls "$d/art" | wc -l)
  # a worker that died on a sanitizer report without leaving an input
  # still counts
  reports=$(cat "$d"/logs/fuzz-*.log 2>/dev/null | grep -c 'ERROR: \(AddressSanitizer\|UndefinedBehaviorSanitizer\|LeakSanitizer\|libFuzzer\)\|runtime error:')
  [ "$reports" -gt "$crashes" ] && crashes=$reports
  for a in "$d"/art/*; do [ -f "$a" ] && cp "$a" "$work/crashes/$n-$(basename "$a")"; done
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$(cat "$d/workers")" "$wall" "$cpu" "${inputs:-0}" "${cov:-0}" \
    "$files" "$bytes" "$crashes" >>"$work/summary.tsv"
done
(cd "$work" && tar czf corpus.tgz */corpus)
cat "$work/summary.tsv"
