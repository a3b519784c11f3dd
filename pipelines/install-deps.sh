#!/usr/bin/env bash
# Installs what kconv needs on Debian 12 / Ubuntu 22.04+, in groups:
#   pipelines/install-deps.sh               build and run (the quick start)
#   pipelines/install-deps.sh --examples    also the codecs the example lines use
#                                           (H.264 decoding and encoding)
#   pipelines/install-deps.sh --tests       also what tests/run-tests.sh uses
#   pipelines/install-deps.sh --sanitizers  also valgrind and clang's sanitizers
#                                           and libFuzzer (tests/run-sanitizers.sh,
#                                           tests/run-fuzz.sh)
#   pipelines/install-deps.sh --bench       also OpenCV, the benchmarks' CPU peer
#   pipelines/install-deps.sh --faces       also GStreamer's facedetect
#                                           (pipelines/blur-faces.sh)
# apt's progress is shown as one line every few seconds: the stage, the
# packages done of those it installs, the seconds taken.
set -euo pipefail
. "$(dirname "$0")/progress.sh"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

# dpkg-dev: meson asks its dpkg-architecture for Debian's library folder
# (lib/x86_64-linux-gnu, where GStreamer looks for plugins); without it an
# install with --prefix=/usr goes to /usr/lib64.
packages="meson ninja-build pkg-config gcc dpkg-dev python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libfftw3-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good"
# GStreamer's CUDA memory (video/x-raw(memory:CUDAMemory)) where the CUDA
# toolkit is: 166 MB that a build without CUDA does not use
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null; then
  packages="$packages libgstreamer-plugins-bad1.0-dev"
fi
for group in "$@"; do
  case $group in
    # libav: H.264 (and most files) decoded; ugly: x264enc, which makes
    # the sample video the example lines read
    --examples) packages="$packages gstreamer1.0-libav gstreamer1.0-plugins-ugly" ;;
    # the style check (indent, clang-format), the Python example (gi)
    --tests) packages="$packages indent clang-format python3-gi
               gir1.2-gst-plugins-base-1.0" ;;
    # libomp-dev: clang's OpenMP runtime and Archer, which makes OpenMP's
    # synchronisation visible to ThreadSanitizer; libFuzzer's runtime
    # where the distribution has it apart
    --sanitizers)
      packages="$packages valgrind clang libomp-dev"
      apt-cache show libclang-rt-14-dev >/dev/null 2>&1 \
        && packages="$packages libclang-rt-14-dev" ;;
    --bench) packages="$packages g++ libopencv-dev" ;;
    # facedetect, which attaches a "face" ROI meta to each face it finds,
    # and the Haar cascades it loads (opencv-data: only recommended, and
    # the install below leaves recommendations out; without them it finds
    # nothing)
    --faces) packages="$packages gstreamer1.0-opencv opencv-data" ;;
    *) echo "install-deps.sh: unknown group $group" \
         "(--examples, --tests, --sanitizers, --bench, --faces)" >&2; exit 2 ;;
  esac
done
# shellcheck disable=SC2086
missing=$(for p in $packages; do
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" = "ii " ] || echo "$p"
done | sort -u)
[ -n "$missing" ] || exit 0

export DEBIAN_FRONTEND=noninteractive
echo "install-deps.sh: installing" $missing
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# apt_run STEP COMMAND...: the command's output to the log, a line every
# few seconds on the screen; the log's end shown if it fails
apt_run() {
  local step=$1 rc=0
  shift
  progress_start "install-deps.sh: $step" apt_stage "$log"
  "$@" >"$log" 2>&1 || rc=$?
  progress_stop
  if [ $rc -ne 0 ]; then
    echo "install-deps.sh: $step failed; apt's last lines:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
}
# apt_stage LOG: how far apt has come, from the lines it has written
apt_stage() {
  local got unpacked set_up
  got=$(grep -c '^Get:' "$1" || true)
  unpacked=$(grep -c '^Unpacking ' "$1" || true)
  set_up=$(grep -c '^Setting up ' "$1" || true)
  if [ "$unpacked" -gt 0 ]; then echo "unpacked $unpacked, set up $set_up of $total"
  elif [ "$got" -gt 0 ]; then echo "downloading ($got files)"
  else echo "starting"; fi
}
total="?"
# another apt at work (a second install, an update): wait for it
lock="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
apt_run "apt-get update" $sudo apt-get $lock update
# shellcheck disable=SC2086
total=$($sudo apt-get install -s --no-install-recommends $missing | grep -c '^Inst ' || true)
echo "install-deps.sh: $total packages to install, with what they need"
# shellcheck disable=SC2086
apt_run "apt-get install" $sudo apt-get $lock install -y --no-install-recommends $missing
echo "install-deps.sh: done"
