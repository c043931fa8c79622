#!/usr/bin/env bash
# Sets everything up and runs zkbench's main job on this machine: the
# known-answer self-check, then a small batch on the embedded default
# circuit (the GPU backend where there is one, else the CPU) that ends with
# its diagnosis: the verdict with the numbers behind it, the plots, and
# where the files are (README, "Two commands").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
build/harness/zkbench version
build/harness/zkbench selfcheck
build/harness/zkbench batch --circuit porep:constraints=2^14 --partitions 4 --count 4 --concurrency 2 \
  --pw 2 --out results/runs/main --force
