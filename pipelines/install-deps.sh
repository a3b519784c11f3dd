#!/usr/bin/env bash
# Installs what kconv needs to build, test and run on Debian 12 / Ubuntu 22.04+.
#   pipelines/install-deps.sh           build, tests, example pipelines
#   pipelines/install-deps.sh --bench   also OpenCV, the benchmark's peer
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
packages="meson ninja-build pkg-config gcc g++ dpkg-dev python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  libfftw3-dev valgrind clang libomp-dev clang-format
  libgstreamer-plugins-bad1.0-dev indent python3-gi gir1.2-gst-plugins-base-1.0"
# libomp-dev: clang's OpenMP runtime and Archer, which makes OpenMP's
# synchronisation visible to ThreadSanitizer (tests/run-sanitizers.sh)
# dpkg-dev: meson asks its dpkg-architecture for Debian's library folder
# (lib/x86_64-linux-gnu, where GStreamer looks for plugins); without it an
# install with --prefix=/usr goes to /usr/lib64.
# libFuzzer's runtime (tests/run-fuzz.sh), where the distribution has it apart
apt-cache show libclang-rt-14-dev >/dev/null 2>&1 \
  && packages="$packages libclang-rt-14-dev"
[ "${1:-}" = "--bench" ] && packages="$packages libopencv-dev"
missing=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $packages 2>/dev/null \
  | awk '$1 != "ii" { print $2 }'; for p in $packages; do
    dpkg-query -W "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  echo "install-deps.sh: installing" $missing
  $sudo apt-get update -qq || { echo "install-deps.sh: apt-get update failed" >&2; exit 1; }
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
    echo "install-deps.sh: apt-get install failed (its error is above)" >&2; exit 1; }
fi
