#!/usr/bin/env bash
# The verdict panel (issue 25, item 7): tests/analyze/panel.py generates
# memory signals of eight shapes (linear, sawtooth, step and slow leaks; a
# bounded cache, a plateau, steady and noisy steady programs) at random
# periods, amplitudes and noise, sampled at watch's default tick (100 ms)
# with and without proof marks, and tallies `zkbench analyze`'s verdicts
# against the truth. Prints the markdown table results/verdict-panel.md
# holds, with the machine, date and commit. CI runs 10 per shape at a fixed
# seed (tests/analyze/meson.build, 'panel').
#   scripts/bench-panel.sh [PER_SHAPE] [SEED]        (default 100, 1)
# Environment: ZKBENCH (default build/harness/zkbench).
set -uo pipefail
cd "$(dirname "$0")/.."
zk=$(realpath "${ZKBENCH:-build/harness/zkbench}")
per=${1:-100}
seed=${2:-1}
[ -x "$zk" ] || { echo "bench-panel: no zkbench at $zk (scripts/build.sh, or set ZKBENCH)" >&2; exit 2; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "date: $(date -u +%Y-%m-%d), commit: $(git rev-parse --short=12 HEAD)$(git diff --quiet || echo ' (dirty)')"
echo "command: scripts/bench-panel.sh $per $seed"
echo
python3 tests/analyze/panel.py "$zk" --per-shape "$per" --seed "$seed"
