#!/usr/bin/env bash
# The README's two commands in a fresh Debian 12 root (results/fresh-debian12.md):
#   scripts/check-fresh-debian.sh ROOT [BRANCH]     (as root; BRANCH default main)
# 1. ROOT: `debootstrap --variant=minbase bookworm` when it holds no system yet;
#    into it this machine's apt sources, resolv.conf and its local CA certificates
#    (an https proxy between this machine and the npm registry), nothing else;
# 2. proc, sysfs, /dev and /dev/pts mounted (no cgroup file system), unmounted at the end;
# 3. a clone of BRANCH of this repository into ROOT/root/zkbench, then in the root,
#    with an empty environment: `bash scripts/main.sh`, the installed `zkbench` by name
#    from another folder (-V, analyze of the run main.sh made, man zkbench), then
#    `bash scripts/test.sh`. Its log is ROOT/root/check.log; the exit is the first failure's.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: check-fresh-debian.sh ROOT [BRANCH]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "check-fresh-debian: needs root (debootstrap, mount, chroot)" >&2; exit 2; }
root=$(realpath -m "$1")
branch=${2:-main}
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$root/usr/bin/apt-get" ]; then
  command -v debootstrap >/dev/null || { echo "check-fresh-debian: debootstrap not found (apt-get install debootstrap)" >&2; exit 2; }
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian
fi
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
  rm -f "$root/etc/apt/sources.list"
fi
cp /etc/resolv.conf "$root/etc/"
mkdir -p "$root/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}"; done
}
trap cleanup EXIT
mnt() { mount "$@" && mounted+=("${!#}"); }
mnt -t proc proc "$root/proc"
mnt -t sysfs sysfs "$root/sys"
mnt --bind /dev "$root/dev"
mnt --bind /dev/pts "$root/dev/pts"
rm -rf "$root/root/zkbench"
git clone -q --branch "$branch" "$src" "$root/root/zkbench"
commit=$(git -C "$root/root/zkbench" rev-parse --short=12 HEAD)
echo "check-fresh-debian: $commit in $root" >&2
chroot "$root" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt bash -c '
set -eo pipefail
cd /root/zkbench
t0=$SECONDS
bash scripts/main.sh
echo "main.sh: exit 0 in $((SECONDS - t0)) s"
cd /tmp
command -v zkbench
zkbench -V
zkbench analyze /root/zkbench/results/runs/main >/tmp/analyze.txt
head -3 /tmp/analyze.txt
man zkbench >/tmp/man.txt 2>/dev/null
head -3 /tmp/man.txt
cd /root/zkbench
t0=$SECONDS
bash scripts/test.sh
echo "test.sh: exit 0 in $((SECONDS - t0)) s"
' 2>&1 | tee "$root/root/check.log"
