#!/usr/bin/env bash
# Sets everything up and runs the whole test suite:
#   1. the Debian packages (scripts/setup.sh),
#   2. the release build with warnings as errors and CUDA when nvcc exists
#      (GPU tests skip with exit 77 where there is no GPU): every suite,
#   3. a second build under AddressSanitizer and UndefinedBehaviorSanitizer
#      (host code only): the unit suite,
# then prints one line "N passed, N failed, N skipped" over both builds.
# Exit status: 0 when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || exit 1

status=0
bash scripts/build.sh build -Dwerror=true || exit 1
meson test -C build --print-errorlogs --num-processes 2 || status=1

bash scripts/build.sh build-san -Dwerror=true -Dcuda=disabled -Dbuildtype=debugoptimized \
  -Db_sanitize=address,undefined -Db_lundef=false -Dstatic_deps=false || exit 1
# Tests that ask for absurd sizes expect NULL (-ENOMEM), not an ASan abort.
ASAN_OPTIONS=allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-san --suite unit --print-errorlogs --num-processes 2 || status=1

python3 scripts/test_summary.py build/meson-logs/testlog.json build-san/meson-logs/testlog.json || status=1
exit $status
