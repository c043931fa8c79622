#!/usr/bin/env bash
# Installs what only the tests need, beside the build's packages
# (scripts/setup.sh, kept lean):
#   clang, libclang-rt-14-dev   the fuzz build (libFuzzer, tests/fuzz/)
#   nodejs, npm                 the interop suite's snarkjs and circom2
#                               (tests/iden3/test_iden3.sh, npm ci)
#   prometheus,                 the metrics test: a real Prometheus scraping a
#   python3-prometheus-client   batch, promtool, a strict OpenMetrics parser
#   chromium                    the report test: zkbench report's page loaded
#                               headless (no console error, verdict rendered)
#   curl                        the metrics test fetches /metrics and its
#                               errors (404, 405) as a scraper would
#   procps                      pgrep (the sweep test finds a batch's child)
#   heaptrack                   the tracer's reference: tests/trace's heaptrack
#                               case compares leaks with heaptrack_print's
# Idempotent and non-interactive like setup.sh: nothing is installed when
# the tools are already there (a node from elsewhere, e.g. NodeSource, with
# its own npm, is kept: Debian's npm would conflict with it).
set -euo pipefail

missing=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
command -v clang >/dev/null 2>&1 || missing+=(clang)
# libFuzzer and the sanitizer runtimes of Debian's clang 14.
if ! have_pkg libclang-rt-14-dev && [ ! -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ]; then
  missing+=(libclang-rt-14-dev)
fi
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
have_pkg prometheus || missing+=(prometheus)
have_pkg python3-prometheus-client || missing+=(python3-prometheus-client)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v pgrep >/dev/null 2>&1 || missing+=(procps)
command -v heaptrack >/dev/null 2>&1 || missing+=(heaptrack)
[ -x /usr/bin/time ] || missing+=(time) # GNU time: peak RSS of a command (tests/hostile/test_stream.sh)

if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "test-setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "test-setup: clang $(clang -dumpversion), node $(node --version), npm $(npm --version)"
