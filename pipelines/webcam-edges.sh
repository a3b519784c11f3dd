#!/usr/bin/env bash
# The README's first example: edges of a live webcam.
#   pipelines/webcam-edges.sh [/dev/video0] [kconvfilter properties...]
set -euo pipefail
. "$(dirname "$0")/env.sh"
device=${1:-/dev/video0}
shift || true
exec gst-launch-1.0 v4l2src device="$device" ! videoconvert \
  ! kconvfilter kernel=edge "$@" ! videoconvert ! autovideosink
