#!/usr/bin/env bash
# Sets everything up and runs zkbench's main job on this machine: the
# known-answer self-check, then the arithmetic benchmark table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
build/harness/zkbench version
build/harness/zkbench selfcheck
build/harness/zkbench bench
