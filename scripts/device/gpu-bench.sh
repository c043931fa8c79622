#!/usr/bin/env bash
# The GPU prover benchmark (tests/gpu/bench_gpu_prover.c) on the GPU machine:
# runs it over a build made elsewhere and prints a Markdown table (Fr NTT
# 2^20..2^26 on the device, H, G1 MSM 2^16..2^26 and G2 MSM 2^16..2^24 with
# host inputs and with resident bases) with machine, date and commit, beside
# issue 6's sppark v0.1.15 reference figures measured on this kind of H200.
#   bash scripts/device/gpu-bench.sh [BUILD_DIR_OR_BIN_DIR] [bench args...] > table.md
# BUILD_DIR may be a meson build folder (tests/gpu/bench_gpu_prover inside)
# or a folder holding the bench_gpu_prover binary itself.
set -uo pipefail
b=${1:-build-device}
shift || true
bin="$b/tests/gpu/bench_gpu_prover"
[ -x "$bin" ] || bin="$b/bench_gpu_prover"
[ -x "$bin" ] || { echo "gpu-bench.sh: no bench_gpu_prover under $b" >&2; exit 2; }

commit=$(git rev-parse --short HEAD 2>/dev/null || cat "$b/COMMIT" 2>/dev/null || echo unknown)
echo "# GPU kernels on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $commit (plus uncommitted kernels/ and tests/gpu/ work where noted)"
echo "- GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)"
echo "- host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
echo "- command: scripts/device/gpu-bench.sh $b $*"
echo "- method: median of the runs after one warm-up; NTT timed with CUDA events on device-resident data; MSM and H timed by wall clock around the synchronous call (host inputs: every copy included)"
echo
"$bin" "$@"
rc=$?
cat <<'REF'

Reference (issue 6, sppark v0.1.15 on this kind of H200, 2026-11-29; host-input
runs varied by up to a third between machines):

| benchmark | size | sppark ms |
| --- | --- | ---: |
| G1 MSM, host (pageable) bases + scalars | 2^20 / 2^22 / 2^24 / 2^26 | 30.7 / 95.8 / 323 / 1155 |
| G1 MSM, resident bases, pinned scalars | 2^20 / 2^22 / 2^24 / 2^26 | 22.3 / 55.4 / 162 / 566 |
| G2 MSM, host bases + scalars | 2^22 / 2^24 | 169 / 581 |
| G2 MSM, resident bases | 2^24 | 460 |
| Fr NTT incl. both copies / on device | 2^24 | 97.7 / 4.74 |

Targets: G1 2^24 <= 200 ms (host) and <= 150 ms (resident); G2 2^24 <= 400 ms; NTT 2^24 on device <= 4.5 ms.
REF
exit $rc
