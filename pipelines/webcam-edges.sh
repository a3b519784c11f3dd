#!/usr/bin/env bash
# The README's first example: edges of a live webcam, on screen.
#   pipelines/webcam-edges.sh [/dev/video0] [kconvfilter properties...]
# Checks first that there is a camera and a display, and says which is
# missing (without a display, GStreamer's autovideosink can crash).
set -euo pipefail
. "$(dirname "$0")/env.sh"
device=${1:-/dev/video0}
shift || true

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "webcam-edges: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)." >&2
  echo "  Without one, write the edges to a file instead, e.g.:" >&2
  echo "  gst-launch-1.0 -e v4l2src device=$device num-buffers=300 ! decodebin ! videoconvert ! kconvfilter kernel=edge ! videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=edges.webm" >&2
  exit 2
fi
if [ ! -c "$device" ]; then
  echo "webcam-edges: no camera at $device (not a video device)." >&2
  cameras=$(ls /dev/video* 2>/dev/null | tr '\n' ' ')
  echo "  Video devices here: ${cameras:-none}. Pass one as the first argument." >&2
  exit 2
fi
if [ ! -r "$device" ] || [ ! -w "$device" ]; then
  echo "webcam-edges: $device is not readable and writable by $(id -un) (add yourself to the 'video' group)." >&2
  exit 2
fi
# kconvfilter takes the camera's own YUY2 (or UYVY, NV12...); decodebin
# adds jpegdec for a camera that sends MJPEG, and passes raw video through.
exec gst-launch-1.0 v4l2src device="$device" ! decodebin \
  ! kconvfilter kernel=edge "$@" ! autovideosink
