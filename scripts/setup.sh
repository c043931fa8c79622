#!/usr/bin/env bash
# Installs every Debian package that zkbench's build, plots and installed
# command need (scripts/test-setup.sh adds what only the tests need).
# Idempotent and non-interactive: packages already present are left alone,
# and the package lists are refreshed only when something is missing. Run
# as root (CI and the development machines are root).
set -euo pipefail

packages=(
  build-essential pkg-config git
  meson ninja-build          # build
  libjemalloc-dev            # the process allocator and its mallctl stats
  libproc2-dev libsystemd-dev  # process memory (static libproc2 needs libsystemd)
  libgmp-dev                 # independent reference for field tests
  libjansson-dev             # run.json, analyze --json
  libdw-dev libbz2-dev       # watch --trace: symbols of traced stacks (elfutils; static libdw.a needs libbz2.a)
  libmicrohttpd-dev          # --listen: the /metrics server (static; GnuTLS stays shared)
  nettle-dev                 # SHA-256: the records of snarkjs keys already checked
  gnuplot-nox                # zkbench plot
  help2man                   # the man page, made at build time from zkbench --help
  python3                    # small test helpers, scripts/install.sh
  man-db                     # man zkbench, once installed (scripts/install.sh)
  bash-completion            # loads the installed completion in new shells
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all packages present"
