#!/usr/bin/env bash
# Sets everything up and runs the whole test suite:
#   1. the Debian packages: the build's (scripts/setup.sh) and the tests'
#      alone (scripts/test-setup.sh: clang for fuzzing, nodejs and npm for
#      the interop suite),
#   2. the release build with warnings as errors and CUDA when nvcc exists
#      (GPU tests skip with exit 77 where there is no GPU): every suite; the
#      interop suite and the report's browser test must run, not skip
#      (ZKBENCH_REQUIRE_INTEROP=1, ZKBENCH_REQUIRE_BROWSER=1),
#   3. a second build under AddressSanitizer and UndefinedBehaviorSanitizer
#      (host code only): the unit suite,
#   4. a ThreadSanitizer build (host code only): the tests of the batch
#      pipeline, the sampler and the run files (TSAN_TESTS); any report
#      fails, whatever the test's own verdict,
#   5. the libFuzzer build (clang, ASan + UBSan, -Dfuzz=true): every reader's
#      harness for FUZZ_SECONDS (default 8, two at a time: about a minute);
#      a crash fails with its reproducer printed,
# then prints one line "N passed, N failed, N skipped" over all builds.
# Exit status: 0 when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bash scripts/setup.sh || exit 1
bash scripts/test-setup.sh || exit 1
t_phase=$SECONDS
phase() { echo "test.sh: $1 took $((SECONDS - t_phase)) s"; t_phase=$SECONDS; }

status=0
extra=()
bash scripts/build.sh build -Dwerror=true || exit 1
ZKBENCH_REQUIRE_INTEROP=1 ZKBENCH_REQUIRE_BROWSER=1 meson test -C build --print-errorlogs --num-processes 2 || status=1
phase "release build and every suite"

bash scripts/build.sh build-san -Dwerror=true -Dcuda=disabled -Dbuildtype=debugoptimized \
  -Db_sanitize=address,undefined -Db_lundef=false -Dstatic_deps=false || exit 1
# Tests that ask for absurd sizes expect NULL (-ENOMEM), not an ASan abort.
ASAN_OPTIONS=allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-san --suite unit --print-errorlogs --num-processes 2 || status=1
phase "ASan + UBSan build and the unit suite"

# ThreadSanitizer: zkbench alone is built (the tests below are scripts that
# run it), with the system allocator (jemalloc linked dynamically: TSan's
# malloc comes first, as ASan's does in build-san).
TSAN_TESTS=(batch watch)
[ -f build-tsan/build.ninja ] ||
  meson setup build-tsan -Dwerror=true -Dcuda=disabled -Dbuildtype=debugoptimized -Db_sanitize=thread \
    -Db_lundef=false -Dstatic_deps=false || exit 1
ninja -C build-tsan harness/zkbench || exit 1
rm -rf build-tsan/tsan-reports
mkdir -p build-tsan/tsan-reports
TSAN_OPTIONS="exitcode=66 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp log_path=$root/build-tsan/tsan-reports/tsan" \
  meson test -C build-tsan --no-rebuild --print-errorlogs --num-processes 1 "${TSAN_TESTS[@]}" || status=1
if [ -n "$(ls -A build-tsan/tsan-reports)" ]; then
  echo "test.sh: ThreadSanitizer reports (build-tsan/tsan-reports/):"
  cat build-tsan/tsan-reports/*
  extra+=(--failed "ThreadSanitizer reports")
  status=1
fi
phase "TSan build and ${TSAN_TESTS[*]}"

# libFuzzer: the prover library and the readers instrumented for coverage
# (fuzzer-no-link), the harnesses linked with libFuzzer's main.
[ -f build-fuzz/build.ninja ] ||
  CC=clang meson setup build-fuzz -Dwerror=true -Dfuzz=true -Dcuda=disabled -Dbuildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false -Dstatic_deps=false \
    -Dc_args=-fsanitize=fuzzer-no-link || exit 1
ninja -C build-fuzz fuzzers || exit 1
FUZZ_SECONDS=${FUZZ_SECONDS:-8} meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs \
  --num-processes 2 || status=1
grep -ho '^fuzz_[a-z_]*: .*' build-fuzz/meson-logs/testlog.txt
phase "fuzz build and ${FUZZ_SECONDS:-8} s per harness"

python3 scripts/test_summary.py "${extra[@]}" build/meson-logs/testlog.json build-san/meson-logs/testlog.json \
  build-tsan/meson-logs/testlog.json build-fuzz/meson-logs/testlog.json || status=1
exit $status
