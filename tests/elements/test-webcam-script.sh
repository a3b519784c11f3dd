#!/usr/bin/env bash
# pipelines/webcam-edges.sh says what is missing (display, camera) and exits
# 2, instead of crashing in autovideosink.
set -uo pipefail
script="$(dirname "$0")/../../pipelines/webcam-edges.sh"
fail=0

out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$script" /dev/video0 2>&1); rc=$?
if [ $rc -ne 2 ] || ! grep -q "no display" <<<"$out"; then
  echo "without a display: rc=$rc, said: $out"; fail=1
fi
out=$(DISPLAY=:99 "$script" /dev/kconv-no-such-camera 2>&1); rc=$?
if [ $rc -ne 2 ] || ! grep -q "no camera at /dev/kconv-no-such-camera" <<<"$out"; then
  echo "without a camera: rc=$rc, said: $out"; fail=1
fi
[ $fail -eq 0 ] && echo "webcam-edges.sh names what is missing"
exit $fail
