#!/usr/bin/env bash
# Configures (once) and builds zkbench into a build folder.
#   scripts/build.sh [BUILD_DIR] [meson options...]
# CUDA is used when nvcc is found (on PATH or in /usr/local/cuda/bin).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-build}
shift || true

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$@"
elif [ $# -gt 0 ]; then
  meson configure "$dir" "$@"
fi
ninja -C "$dir"
