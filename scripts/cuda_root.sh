#!/bin/sh
# Prints the CUDA toolkit root that the given nvcc uses (the folder holding
# include/ and lib64/), for meson.build. nvcc may be a wrapper script or a
# symlink on PATH, so the root is read from nvcc's own dry run (its TOP)
# rather than from where the command lies.
nvcc=${1:-nvcc}
top=$("$nvcc" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 |
      sed -n 's/^#\$ TOP=//p' | head -n 1)
if [ -z "$top" ]; then
  top=$(dirname "$(dirname "$(readlink -f "$(command -v "$nvcc")")")")
fi
readlink -f "$top"
