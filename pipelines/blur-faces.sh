#!/usr/bin/env bash
# kconvfilter regions=roi behind GStreamer's facedetect: every face it
# finds is blurred, nothing else is touched.  The astronaut photograph
# (pipelines/photo.sh) by default, or PICTURE (any image GStreamer
# decodes); writes OUT (default ./kconv-faces.png) and prints each face's
# rectangle.  Installs facedetect first (pipelines/install-deps.sh --faces:
# Debian's gstreamer1.0-opencv and opencv-data, the cascades it loads).
#   pipelines/blur-faces.sh [OUT [PICTURE]]
set -euo pipefail
here=$(dirname "$0")
"$here/install-deps.sh" --faces
. "$here/env.sh"
out=${1:-kconv-faces.png}
picture=${2:-$("$here/photo.sh" astronaut)}
gst-launch-1.0 -m filesrc location="$picture" ! decodebin ! imagefreeze num-buffers=1 \
  ! videoconvert ! facedetect display=false \
  ! kconvfilter kernel=gaussian kernel-size=31 regions=roi roi-types=face \
  ! videoconvert ! pngenc ! filesink location="$out" 2>&1 \
  | tr -d '\\' \
  | grep -o 'face, x=(uint)[0-9]*, y=(uint)[0-9]*, width=(uint)[0-9]*, height=(uint)[0-9]*' \
  | sed 's/(uint)//g'
echo "blur-faces.sh: wrote $out"
