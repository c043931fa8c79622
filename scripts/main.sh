#!/usr/bin/env bash
# Sets everything up and runs zkbench's main job on this machine: installs
# zkbench (scripts/install.sh: /usr/local as root, else ~/.local, or
# ZKBENCH_PREFIX; the command, its tracer libraries, the man page and the
# bash completion), then the installed command's known-answer self-check and
# a small batch on the embedded default circuit (the GPU backend where there
# is one, else the CPU) that ends with its diagnosis: the verdict with the
# numbers behind it, the plots, and where the files are (README, "Two
# commands"). The commands the batch prints work from where the user stands:
# the run folder is relative when that is the repository, else absolute.
set -euo pipefail
start=$PWD
cd "$(dirname "$0")/.."
root=$PWD
bash scripts/setup.sh
bash scripts/build.sh build
bash scripts/install.sh build
prefix=$(meson introspect build --buildoptions |
  python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
zk=$prefix/bin/zkbench
out=results/runs/main
[ "$start" = "$root" ] || out=$root/results/runs/main
"$zk" version
"$zk" selfcheck
"$zk" batch --circuit porep:constraints=2^14 --partitions 4 --count 4 --concurrency 2 \
  --pw 2 --out "$out" --force
if [ "$(command -v zkbench)" != "$zk" ]; then
  echo "note       the commands above are $zk: export PATH=\"$prefix/bin:\$PATH\" to run them as printed"
fi
